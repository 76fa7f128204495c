/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACK processing: acceptability (RFC 5961 5), send-queue completion, RTT
 * sampling, duplicate ACKs and NewReno fast retransmit / fast recovery
 * (RFC 5681 3.2, RFC 6582) without SACK, SACK-based recovery (RFC 6675,
 * dt_tcp_sack.c) with it, send window update (RFC 9293 3.10.7.4).
 */
#include "dt_tcp_priv.h"

#define DT_TCP_CHACK_WINDOW_US 1000000

/*
 * RFC 5961 7: every ACK sent in reply to a segment that failed a check
 * (challenge ACKs, ACKs of unsent data, out-of-window and PAWS replies)
 * draws on one budget per connection and second, so that a flood of such
 * segments cannot turn the connection into a reflector or an ACK loop.
 */
bool
dt_tcp_challenge_ack(struct dt_tcp_conn *c, uint64_t now)
{
	if (now - c->chack_start >= DT_TCP_CHACK_WINDOW_US ||
			c->chack_start == 0) {
		c->chack_start = now ? now : 1;
		c->chack_count = 0;
	}
	if (c->chack_count >= c->cfg->challenge_ack_limit) {
		c->acks_limited++;
		return false;
	}
	c->chack_count++;
	c->flags |= DT_TCP_F_ACK_NOW;
	return true;
}

/* Drop @p bytes of acknowledged data from the send queue; sends done. */
static uint32_t
tcp_txq_consume(struct dt_tcp_conn *c, uint32_t bytes)
{
	uint32_t done = 0, rest;
	struct dt_tcp_extent *e;

	c->txq_seq += bytes;
	c->txq_bytes -= bytes;
	while (bytes > 0 && c->txq_n > 0) {
		e = &c->txq[c->txq_head];
		rest = e->len - c->txq_head_off;
		if (bytes < rest) {
			c->txq_head_off += bytes;
			break;
		}
		bytes -= rest;
		c->txq_head = (uint16_t)((c->txq_head + 1) % c->txq_cap);
		c->txq_n--;
		c->txq_head_off = 0;
		done++;
	}
	return done;
}

static void
tcp_enter_recovery(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	c->ssthresh = c->cc->ssthresh(c);
	dt_tcp_cc_loss(c, now);
	c->recover = c->snd_max;
	c->flags |= DT_TCP_F_RECOVERY;
	/* Karn: a retransmitted segment gives no RTT sample. */
	c->flags &= (uint16_t)~DT_TCP_F_RTT_TIMING;
	dt_tcp_send_at(c, c->snd_una, now, out);
	c->cwnd = c->ssthresh + DT_TCP_DUPACK_THRESH * c->smss;
}

static void
tcp_dupack(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	if (tcp_flag(c, DT_TCP_F_RECOVERY)) {
		/*
		 * Each further duplicate means a segment left the network,
		 * so there cannot be more of them than segments in flight:
		 * inflation stops at ssthresh plus the flight (a peer
		 * repeating its ACK must not open the window without end).
		 */
		if ((uint64_t)c->cwnd + c->smss <= (uint64_t)c->ssthresh +
				(c->snd_max - c->snd_una) +
				DT_TCP_DUPACK_THRESH * c->smss)
			c->cwnd += c->smss;
		return;
	}
	if (++c->dupacks != DT_TCP_DUPACK_THRESH)
		return;
	/* RFC 6582 3.2 step 2: no new recovery for the same window. */
	if (!dt_tcp_seq_gt(c->snd_una, c->recover))
		return;
	tcp_enter_recovery(c, now, out);
}

static void
tcp_newreno_ack(struct dt_tcp_conn *c, uint32_t ack, uint32_t acked,
	uint64_t now, struct dt_tcp_out *out)
{
	uint32_t flight;

	if (!tcp_flag(c, DT_TCP_F_RECOVERY)) {
		c->dupacks = 0;
		dt_tcp_cc_cong_avoid(c, acked, now);
		return;
	}
	if (dt_tcp_seq_ge(ack, c->recover)) {
		/* Full ACK: deflate (RFC 6582 3.2 step 3, option 1). */
		flight = c->snd_max - c->snd_una;
		if (flight < c->smss)
			flight = c->smss;
		c->cwnd = flight + c->smss < c->ssthresh ?
			flight + c->smss : c->ssthresh;
		c->flags &= (uint16_t)~DT_TCP_F_RECOVERY;
		c->dupacks = 0;
		return;
	}
	/* Partial ACK: retransmit the next hole, deflate by what was acked. */
	dt_tcp_send_at(c, c->snd_una, now, out);
	c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
	if (acked >= c->smss)
		c->cwnd += c->smss;
	if (c->cwnd < c->smss)
		c->cwnd = c->smss;
}

static void
tcp_new_ack(struct dt_tcp_conn *c, uint32_t ack, uint64_t now,
	struct dt_tcp_out *out)
{
	uint32_t data_end = tcp_data_end(c);
	uint32_t upto = dt_tcp_seq_min(ack, data_end);
	struct dt_tcp_event *ev;
	uint32_t bytes;

	if (dt_tcp_seq_gt(upto, c->txq_seq)) {
		bytes = upto - c->txq_seq;
		ev = dt_tcp_event_add(out, DT_TCP_EV_SENT);
		ev->bytes = bytes;
		ev->count = tcp_txq_consume(c, bytes);
	}
	if (tcp_flag(c, DT_TCP_F_RTT_TIMING) && dt_tcp_seq_gt(ack, c->rtt_seq)) {
		dt_tcp_rtt_sample(c, now - c->rtt_start);
		c->flags &= (uint16_t)~DT_TCP_F_RTT_TIMING;
	}
	c->snd_una = ack;
	if (dt_tcp_seq_lt(c->snd_nxt, ack))
		c->snd_nxt = ack;
	c->probes = 0;
	c->lr.flags |= DT_TCP_LR_PTO_REARM;
	/* RFC 6298 5.2/5.3: stop when all is acked, else restart. */
	if (c->snd_una == c->snd_max)
		c->timers[DT_TCP_T_RTX] = 0;
	else
		dt_tcp_rtx_restart(c, now);
}

/* The ACK completing our side of the handshake in SYN_RECEIVED. */
static bool
tcp_ack_syn_received(struct dt_tcp_conn *c, const struct dt_net_tcp_hdr *th,
	uint64_t now, struct dt_tcp_out *out)
{
	if (!dt_tcp_seq_gt(th->ack, c->snd_una) ||
			dt_tcp_seq_gt(th->ack, c->snd_max)) {
		dt_tcp_send_rst(out, th->ack, 0, false);
		return false;
	}
	c->backoff = 0;
	dt_tcp_become_established(c, now, out);
	c->snd_wnd = (uint32_t)th->win << c->snd_ws;
	c->snd_wl1 = th->seq;
	c->snd_wl2 = th->ack;
	if (c->snd_wnd > c->max_snd_wnd)
		c->max_snd_wnd = c->snd_wnd;
	return true;
}

bool
dt_tcp_ack_process(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg,
	uint32_t plen, uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	uint32_t ack = th->ack;
	struct tcp_ack_info ai;
	uint32_t wnd;
	bool dup, same_wnd;

	if (c->state == DT_TCP_SYN_RECEIVED &&
			!tcp_ack_syn_received(c, th, now, out))
		return false;
	if (dt_tcp_seq_gt(ack, c->snd_max)) {
		/* Acks something not yet sent: ACK (rate-limited) and drop
		 * (RFC 5961 5.2, RFC 9293 3.10.7.4). */
		dt_tcp_challenge_ack(c, now);
		return false;
	}
	if (dt_tcp_seq_lt(ack, c->snd_una - c->max_snd_wnd)) {
		dt_tcp_challenge_ack(c, now);
		return false;
	}
	/*
	 * SND.UNA - MAX.SND.WND <= SEG.ACK < SND.UNA: an old ACK (reordered
	 * or duplicated); its text is processed, its ACK field ignored
	 * (RFC 9293 3.10.7.4): no window, dupack or cwnd change. Its SACK
	 * blocks too: they are the receiver's view before the newer ACK
	 * already taken (which repeats its latest blocks, RFC 2018 4), and
	 * an old ACK is no duplicate ACK of RFC 6675 2 either. Taken, one
	 * reordered ACK started loss recovery (Linux tags them; we do not).
	 */
	if (dt_tcp_seq_lt(ack, c->snd_una))
		return true;
	c->probes_out = 0;	/* the peer is alive (persist) */
	wnd = (uint32_t)th->win << c->snd_ws;
	dup = ack == c->snd_una && plen == 0 &&
		!(th->flags & (DT_NET_TCP_SYN | DT_NET_TCP_FIN)) &&
		c->snd_max != c->snd_una;
	same_wnd = wnd == c->snd_wnd;
	dt_tcp_sack_input(c, th, &ai);
	if (dt_tcp_seq_gt(ack, c->snd_una))
		tcp_new_ack(c, ack, now, out);
	/* The window first: what recovery resends must fit in it. */
	if ((dt_tcp_seq_lt(c->snd_wl1, th->seq) ||
			(c->snd_wl1 == th->seq && dt_tcp_seq_le(c->snd_wl2, ack)))) {
		c->snd_wnd = wnd;
		c->snd_wl1 = th->seq;
		c->snd_wl2 = ack;
		if (wnd > c->max_snd_wnd)
			c->max_snd_wnd = wnd;
	}
	if (tcp_sack_on(c) && tcp_synchronized(c)) {
		/* RFC 6675: SACK news, not the window, makes a dupack. */
		dt_tcp_sack_ack(c, &ai, dup, now, out);
	} else if (dt_tcp_seq_gt(ack, ai.old_una)) {
		if (tcp_synchronized(c))
			tcp_newreno_ack(c, ack, ack - ai.old_una, now, out);
	} else if (dup && same_wnd) {
		tcp_dupack(c, now, out);
	}
	switch (c->state) {
	case DT_TCP_FIN_WAIT_1:
		if (tcp_fin_acked(c))
			dt_tcp_set_state(c, DT_TCP_FIN_WAIT_2);
		break;
	case DT_TCP_CLOSING:
		if (tcp_fin_acked(c))
			dt_tcp_enter_time_wait(c, now);
		break;
	case DT_TCP_LAST_ACK:
		if (tcp_fin_acked(c)) {
			dt_tcp_enter_closed(c, out);
			return false;
		}
		break;
	default:
		break;
	}
	return true;
}
