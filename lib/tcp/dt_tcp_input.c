/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SEGMENT ARRIVES (RFC 9293 3.10.7) with RFC 5961 (RST/SYN/ACK checks)
 * and RFC 7323 (PAWS).
 */
#include "dt_tcp_priv.h"

uint32_t
dt_tcp_seg_payload_len(const struct dt_tcp_seg *seg)
{
	uint32_t len = 0;
	uint16_t i;

	for (i = 0; i < seg->n_ext; i++)
		len += seg->ext[i].len;
	return len;
}

void
dt_tcp_free_payload(const struct dt_tcp_seg *seg, struct dt_tcp_out *out)
{
	uint16_t i;

	for (i = 0; i < seg->n_ext; i++)
		dt_tcp_event_add(out, DT_TCP_EV_FREE)->ext = seg->ext[i];
}

/* RFC 9293 3.10.7.4 first check: the four acceptability cases. */
static bool
tcp_seq_acceptable(uint32_t seq, uint32_t len, uint32_t rcv_nxt, uint32_t wnd)
{
	if (len == 0)
		return wnd == 0 ? seq == rcv_nxt :
			dt_tcp_seq_in(seq, rcv_nxt, rcv_nxt + wnd);
	if (wnd == 0)
		return false;
	return dt_tcp_seq_in(seq, rcv_nxt, rcv_nxt + wnd) ||
		dt_tcp_seq_in(seq + len - 1, rcv_nxt, rcv_nxt + wnd);
}

static void
tcp_process_fin(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	c->rcv_nxt++;
	c->flags &= (uint16_t)~DT_TCP_F_FIN_RCVD_OOO;
	c->flags |= DT_TCP_F_ACK_NOW;
	dt_tcp_event_add(out, DT_TCP_EV_PEER_CLOSED);
	switch (c->state) {
	case DT_TCP_SYN_RECEIVED:
	case DT_TCP_ESTABLISHED:
		dt_tcp_set_state(c, DT_TCP_CLOSE_WAIT);
		break;
	case DT_TCP_FIN_WAIT_1:
		if (tcp_fin_acked(c))
			dt_tcp_enter_time_wait(c, now);
		else
			dt_tcp_set_state(c, DT_TCP_CLOSING);
		break;
	case DT_TCP_FIN_WAIT_2:
		dt_tcp_enter_time_wait(c, now);
		break;
	default:
		break;
	}
}

static void
tcp_input_syn_sent(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg,
	uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	bool ack = th->flags & DT_NET_TCP_ACK;

	/* Data on a SYN is not accepted: it is retransmitted later. */
	dt_tcp_free_payload(seg, out);
	if (ack && (dt_tcp_seq_le(th->ack, c->iss) ||
			dt_tcp_seq_gt(th->ack, c->snd_max))) {
		if (!(th->flags & DT_NET_TCP_RST))
			dt_tcp_send_rst(out, th->ack, 0, false);
		return;
	}
	if (th->flags & DT_NET_TCP_RST) {
		if (ack) {
			dt_tcp_event_add(out, DT_TCP_EV_ERROR)->err =
				DT_TCP_ERR_REFUSED;
			dt_tcp_enter_closed(c, out);
		}
		return;
	}
	if (!(th->flags & DT_NET_TCP_SYN))
		return;
	c->irs = th->seq;
	c->rcv_nxt = th->seq + 1;
	c->rcv_adv = c->rcv_nxt;
	dt_tcp_negotiate(c, &th->opts, now);
	/* The window of a SYN is never scaled (RFC 7323 2.2). */
	c->snd_wnd = th->win;
	c->max_snd_wnd = th->win;
	c->snd_wl1 = th->seq;
	c->snd_wl2 = th->ack;
	if (!ack) {
		/* Simultaneous open. */
		dt_tcp_set_state(c, DT_TCP_SYN_RECEIVED);
		c->flags |= DT_TCP_F_SIMOPEN;
		dt_tcp_send_syn(c, now, out);
		return;
	}
	c->snd_una = th->ack;
	if (tcp_flag(c, DT_TCP_F_RTT_TIMING)) {
		dt_tcp_rtt_sample(c, now - c->rtt_start);
		c->flags &= (uint16_t)~DT_TCP_F_RTT_TIMING;
	}
	c->backoff = 0;
	c->timers[DT_TCP_T_RTX] = 0;
	dt_tcp_become_established(c, now, out);
	c->flags |= DT_TCP_F_ACK_NOW;
	/*
	 * RFC 9293 3.10.7.3: other controls go on to the sixth step, the
	 * FIN to the eighth. Right after the SYN it is at RCV.NXT; after
	 * data (freed above: none is taken on a SYN) it is not, and comes
	 * back with the data's retransmission.
	 */
	if ((th->flags & DT_NET_TCP_FIN) && dt_tcp_seg_payload_len(seg) == 0)
		tcp_process_fin(c, now, out);
}

/* RST in a synchronized state whose sequence is exactly rcv_nxt. */
static void
tcp_reset_by_peer(struct dt_tcp_conn *c, struct dt_tcp_out *out)
{
	switch (c->state) {
	case DT_TCP_SYN_RECEIVED:
		dt_tcp_event_add(out, DT_TCP_EV_ERROR)->err = DT_TCP_ERR_REFUSED;
		break;
	case DT_TCP_ESTABLISHED:
	case DT_TCP_FIN_WAIT_1:
	case DT_TCP_FIN_WAIT_2:
	case DT_TCP_CLOSE_WAIT:
		dt_tcp_event_add(out, DT_TCP_EV_RESET);
		break;
	default:
		break;
	}
	dt_tcp_enter_closed(c, out);
}

/*
 * The ACK owed to an unacceptable segment (RFC 9293 3.10.7.4, RFC 7323
 * 5.3 R1). A repeat of data received before (@p dup_data bytes) is always
 * answered: its ACK, with a D-SACK, is what stops the peer's
 * retransmissions. Any other reply is rate-limited with the challenge
 * ACKs (RFC 5961 7), so that a flood of forged or looping segments draws
 * a bounded number of ACKs (Linux exempts data segments the same way).
 */
static void
tcp_oow_reply(struct dt_tcp_conn *c, uint32_t dup_data, uint64_t now)
{
	if (dup_data)
		c->flags |= DT_TCP_F_ACK_NOW;
	else
		dt_tcp_challenge_ack(c, now);
}

/* RFC 7323 5.3 R1: false when the segment fails PAWS. */
static bool
tcp_paws_ok(struct dt_tcp_conn *c, const struct dt_net_tcp_hdr *th,
	uint64_t now)
{
	if (!tcp_flag(c, DT_TCP_F_TS) || !(th->opts.present & DT_NET_TCPOPT_F_TS) ||
			(th->flags & DT_NET_TCP_RST))
		return true;
	if (!dt_tcp_seq_lt(th->opts.ts_val, c->ts_recent))
		return true;
	/* ts_recent older than 24 days is invalid (RFC 7323 5.5). */
	if (now - c->ts_recent_at > DT_TCP_PAWS_IDLE_US) {
		c->ts_recent = th->opts.ts_val;
		c->ts_recent_at = now;
		return true;
	}
	return false;
}

static bool
tcp_can_receive_data(const struct dt_tcp_conn *c)
{
	return c->state == DT_TCP_ESTABLISHED ||
		c->state == DT_TCP_FIN_WAIT_1 || c->state == DT_TCP_FIN_WAIT_2;
}

static void
tcp_input_sync(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg,
	uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	uint8_t flags = th->flags;
	uint32_t seq = th->seq;
	uint32_t plen = dt_tcp_seg_payload_len(seg);
	uint32_t len, wnd;
	bool drop_text = false;

	/*
	 * Simultaneous open: the peer's SYN-ACK repeats a SYN we already
	 * took; skip it and use the ACK (as Linux does).
	 */
	if (c->state == DT_TCP_SYN_RECEIVED && tcp_flag(c, DT_TCP_F_SIMOPEN) &&
			(flags & DT_NET_TCP_SYN) && (flags & DT_NET_TCP_ACK) &&
			seq + 1 == c->rcv_nxt && th->ack == c->snd_nxt) {
		flags &= (uint8_t)~DT_NET_TCP_SYN;
		seq++;
	}
	len = plen + ((flags & DT_NET_TCP_SYN) ? 1 : 0) +
		((flags & DT_NET_TCP_FIN) ? 1 : 0);
	/* RFC 7323 3.2: once negotiated, a non-RST segment without
	 * timestamps is silently dropped. */
	if (tcp_flag(c, DT_TCP_F_TS) && !(th->opts.present & DT_NET_TCPOPT_F_TS) &&
			!(flags & DT_NET_TCP_RST))
		goto drop;
	if (!tcp_paws_ok(c, th, now)) {
		tcp_oow_reply(c, plen, now);
		goto drop;
	}
	/* TIME_WAIT: a retransmitted FIN is acked and restarts 2 MSL. */
	if (c->state == DT_TCP_TIME_WAIT && (flags & DT_NET_TCP_FIN) &&
			!(flags & (DT_NET_TCP_RST | DT_NET_TCP_SYN)) &&
			seq + len == c->rcv_nxt) {
		dt_tcp_send_ack(c, c->snd_nxt, now, out);
		dt_tcp_enter_time_wait(c, now);
		goto drop;
	}
	if ((flags & DT_NET_TCP_SYN) && !(flags & DT_NET_TCP_RST)) {
		if (c->state == DT_TCP_SYN_RECEIVED && seq == c->irs) {
			/* The peer missed our SYN-ACK: send it again. */
			dt_tcp_send_syn(c, now, out);
		} else {
			/* RFC 5961 4.2: any other SYN, whatever its sequence
			 * number, gets a (rate-limited) challenge ACK. */
			dt_tcp_challenge_ack(c, now);
		}
		goto drop;
	}
	wnd = dt_tcp_rcv_wnd(c);
	if (!tcp_seq_acceptable(seq, len, c->rcv_nxt, wnd)) {
		/* Zero window: still take ACK and RST at rcv_nxt (3.10.7.4). */
		if (wnd == 0 && seq == c->rcv_nxt) {
			drop_text = true;
			c->flags |= DT_TCP_F_ACK_NOW;
		} else {
			if (!(flags & DT_NET_TCP_RST)) {
				/* Data received before: RFC 2883 D-SACK. */
				if (plen && dt_tcp_seq_le(seq + plen, c->rcv_nxt) &&
						tcp_synchronized(c)) {
					dt_tcp_dsack_note(c, seq, seq + plen);
					tcp_oow_reply(c, plen, now);
				} else {
					tcp_oow_reply(c, 0, now);
				}
			}
			goto drop;
		}
	}
	c->last_rx = now;
	c->ka_probes = 0;
	if (flags & DT_NET_TCP_RST) {
		/* RFC 5961 3.2: exact match resets, else challenge. */
		dt_tcp_free_payload(seg, out);
		if (seq == c->rcv_nxt)
			tcp_reset_by_peer(c, out);
		else
			dt_tcp_challenge_ack(c, now);
		return;
	}
	if (!(flags & DT_NET_TCP_ACK))
		goto drop;
	if (!dt_tcp_ack_process(c, seg, plen, now, out) ||
			c->state == DT_TCP_CLOSED)
		goto drop;
	/* RFC 7323 4.3: remember the timestamp to echo. */
	if (tcp_flag(c, DT_TCP_F_TS) && (th->opts.present & DT_NET_TCPOPT_F_TS) &&
			dt_tcp_seq_ge(th->opts.ts_val, c->ts_recent) &&
			dt_tcp_seq_le(seq, c->rcv_nxt)) {
		c->ts_recent = th->opts.ts_val;
		c->ts_recent_at = now;
	}
	if (drop_text)
		goto drop;
	if (plen && tcp_flag(c, DT_TCP_F_RD_CLOSED) && tcp_can_receive_data(c) &&
			dt_tcp_seq_gt(seq + plen, c->rcv_nxt)) {
		/*
		 * Full close: nobody will read these bytes. RFC 9293 3.6.1
		 * (RFC 1122 4.2.2.13): send a RST to show that data was lost
		 * rather than acknowledge and discard it silently.
		 */
		dt_tcp_free_payload(seg, out);
		dt_tcp_send_rst(out, c->snd_nxt, 0, false);
		dt_tcp_event_add(out, DT_TCP_EV_ERROR)->err = DT_TCP_ERR_DATA_LOST;
		dt_tcp_enter_closed(c, out);
		return;
	}
	/* The FIN first: the stream ends there, it bounds the payload. */
	if ((flags & DT_NET_TCP_FIN) && (c->state == DT_TCP_SYN_RECEIVED ||
			tcp_can_receive_data(c)))
		dt_tcp_rx_fin(c, seq, seq + plen, out);
	if (plen == 0)
		dt_tcp_free_payload(seg, out);	/* empty extents: no text */
	else if (tcp_can_receive_data(c))
		dt_tcp_rx_payload(c, seq, seg, now, out);
	else
		dt_tcp_rx_after_fin(c, seq, plen, seg, out);
	if (tcp_flag(c, DT_TCP_F_FIN_RCVD_OOO) && c->fin_seq == c->rcv_nxt)
		tcp_process_fin(c, now, out);
	return;
drop:
	dt_tcp_free_payload(seg, out);
}

void
dt_tcp_input_seg(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg, uint64_t now,
	struct dt_tcp_out *out)
{
	switch (c->state) {
	case DT_TCP_CLOSED:
	case DT_TCP_LISTEN:
		dt_tcp_free_payload(seg, out);
		dt_tcp_rst_reply(seg, out);
		break;
	case DT_TCP_SYN_SENT:
		tcp_input_syn_sent(c, seg, now, out);
		break;
	default:
		tcp_input_sync(c, seg, now, out);
		break;
	}
}
