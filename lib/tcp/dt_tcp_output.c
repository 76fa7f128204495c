/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Segment construction and the send loop: windows (min of peer window and
 * cwnd), sender SWS avoidance and Nagle (RFC 9293 3.8.6.2.1), PSH on the
 * segment that empties the queue, FIN after the data, pure ACKs.
 */
#include <string.h>

#include "dt_tcp_priv.h"

uint32_t
dt_tcp_ts_now(const struct dt_tcp_conn *c, uint64_t now)
{
	/* 1 ms ticks, offset per connection (RFC 7323 5.4). */
	return (uint32_t)(now / 1000) + c->ts_offset;
}

struct dt_tcp_tx_seg *
dt_tcp_seg_new(struct dt_tcp_out *out)
{
	struct dt_tcp_tx_seg *seg;

	if (out->n_segs == DT_TCP_OUT_SEGS) {
		out->more = true;
		return NULL;
	}
	seg = &out->segs[out->n_segs++];
	memset(seg, 0, sizeof(*seg));
	return seg;
}

static void
tcp_fill_hdr(struct dt_tcp_conn *c, struct dt_tcp_tx_seg *seg, uint32_t seq,
	uint8_t flags, uint64_t now)
{
	struct dt_net_tcp_hdr *th = &seg->th;
	struct dt_net_tcp_opts *o = &th->opts;
	unsigned int max;

	th->seq = seq;
	th->flags = flags;
	th->ack = c->rcv_nxt;
	th->win = dt_tcp_rcv_wnd_field(c);
	if (tcp_flag(c, DT_TCP_F_TS)) {
		o->present |= DT_NET_TCPOPT_F_TS;
		o->ts_val = dt_tcp_ts_now(c, now);
		o->ts_ecr = c->ts_recent;
	}
	if (tcp_flag(c, DT_TCP_F_SACK) &&
			(c->sack_n > 0 || tcp_flag(c, DT_TCP_F_DSACK))) {
		max = tcp_flag(c, DT_TCP_F_TS) ? 3 : DT_NET_TCP_SACK_MAX;
		o->n_sack = (uint8_t)dt_tcp_sack_blocks(c, o->sack, max);
		/*
		 * A pending D-SACK that no longer qualifies (its range neither
		 * below rcv_nxt nor inside the first block) gives no block:
		 * then there is no SACK option, and the header says so.
		 */
		if (o->n_sack > 0)
			o->present |= DT_NET_TCPOPT_F_SACK;
	}
	/* This segment carries the ACK: nothing is owed any more. */
	c->flags &= (uint16_t)~DT_TCP_F_ACK_NOW;
	c->timers[DT_TCP_T_DELACK] = 0;
	c->delack_segs = 0;
}

/* Describe @p len queued bytes from data offset @p off as slices. */
static uint32_t
tcp_slice_n(const struct dt_tcp_conn *c, uint32_t off, uint32_t len,
	struct dt_tcp_tx_seg *seg, uint8_t max_ext)
{
	uint64_t pos = (uint64_t)c->txq_head_off + off;
	uint32_t got = 0, take;
	const struct dt_tcp_extent *e;
	uint16_t i = 0;

	while (i < c->txq_n &&
			pos >= c->txq[(c->txq_head + i) % c->txq_cap].len) {
		pos -= c->txq[(c->txq_head + i) % c->txq_cap].len;
		i++;
	}
	while (got < len && i < c->txq_n && seg->n_ext < max_ext) {
		e = &c->txq[(c->txq_head + i) % c->txq_cap];
		take = e->len - pos < len - got ? (uint32_t)(e->len - pos) :
			len - got;
		seg->ext[seg->n_ext].ref = e->ref;
		seg->ext[seg->n_ext].off = e->off + (uint32_t)pos;
		seg->ext[seg->n_ext].len = take;
		seg->n_ext++;
		got += take;
		pos = 0;
		i++;
	}
	return got;
}

/*
 * Slices of @p len bytes: one MSS within DT_TCP_TX_MSS_EXT extents, a TSO
 * burst within DT_TCP_TX_MAX_EXT. A burst the extents cut short ends at a
 * multiple of the MSS, so that the NIC sends no short segment amid the
 * stream (the rest goes in the next segment).
 */
static uint32_t
tcp_slice(const struct dt_tcp_conn *c, uint32_t off, uint32_t len,
	struct dt_tcp_tx_seg *seg)
{
	uint32_t got;

	if (len <= c->smss)
		return tcp_slice_n(c, off, len, seg, DT_TCP_TX_MSS_EXT);
	got = tcp_slice_n(c, off, len, seg, DT_TCP_TX_MAX_EXT);
	if (got == len || got <= c->smss || got % c->smss == 0)
		return got;
	seg->n_ext = 0;
	return tcp_slice_n(c, off, got - got % c->smss, seg,
		DT_TCP_TX_MAX_EXT);
}

/*
 * Payload bytes at @p seq the peer's window admits, out of @p len: a
 * retransmission (RTO, fast retransmit, SACK hole, loss probe) is cut at
 * the window's right edge like new data (RFC 9293 3.8.6.1, RFC 5681 3.2:
 * the window may have shrunk since the first transmission). A closed
 * window still lets one byte at snd_una through: that retransmission is
 * the zero-window probe.
 */
static uint32_t
tcp_window_clip(const struct dt_tcp_conn *c, uint32_t seq, uint32_t len)
{
	uint32_t right = c->snd_una + c->snd_wnd;
	uint32_t room = dt_tcp_seq_lt(seq, right) ? right - seq : 0;

	if (room == 0 && seq == c->snd_una)
		room = 1;
	return len < room ? len : room;
}

/* One segment at @p seq with up to @p len bytes; returns sequence used. */
static uint32_t
tcp_build_data(struct dt_tcp_conn *c, uint32_t seq, uint32_t len,
	uint64_t now, struct dt_tcp_out *out)
{
	uint32_t data_end = tcp_data_end(c);
	struct dt_tcp_tx_seg *seg;
	uint8_t flags = DT_NET_TCP_ACK;
	bool fin;

	if (len) {
		len = tcp_window_clip(c, seq, len);
		if (len == 0)
			return 0;
	}
	seg = dt_tcp_seg_new(out);
	if (seg == NULL)
		return 0;
	if (len)
		len = tcp_slice(c, seq - c->txq_seq, len, seg);
	fin = tcp_fin_pending(c) && seq + len == data_end;
	if (fin)
		flags |= DT_NET_TCP_FIN;
	if (len && seq + len == data_end)
		flags |= DT_NET_TCP_PSH;
	tcp_fill_hdr(c, seg, seq, flags, now);
	seg->len = len;
	if (dt_tcp_seq_lt(seq, c->snd_max)) {
		/* Sequence space sent before: a retransmission. */
		c->rtx_segs++;
		c->rtx_bytes += c->snd_max - seq < len ? c->snd_max - seq : len;
	}
	dt_tcp_lr_sent(c, seq, len + (fin ? 1 : 0), now);
	c->snd_max = dt_tcp_seq_max(c->snd_max, seq + len + (fin ? 1 : 0));
	return len + (fin ? 1 : 0);
}

uint32_t
dt_tcp_send_at(struct dt_tcp_conn *c, uint32_t seq, uint64_t now,
	struct dt_tcp_out *out)
{
	uint32_t data_end = tcp_data_end(c);
	uint32_t avail = dt_tcp_seq_lt(seq, data_end) ? data_end - seq : 0;

	if (seq == c->iss && (c->state == DT_TCP_SYN_SENT ||
			c->state == DT_TCP_SYN_RECEIVED)) {
		dt_tcp_send_syn(c, now, out);
		return 1;
	}
	if (dt_tcp_seq_lt(seq, c->txq_seq))
		return 0;
	return tcp_build_data(c, seq, avail < c->smss ? avail : c->smss, now,
		out);
}

/* One segment at @p seq of at most @p len bytes (a hole, a probe). */
uint32_t
dt_tcp_send_len(struct dt_tcp_conn *c, uint32_t seq, uint32_t len, uint64_t now,
	struct dt_tcp_out *out)
{
	uint32_t data_end = tcp_data_end(c);
	uint32_t avail = dt_tcp_seq_lt(seq, data_end) ? data_end - seq : 0;

	if (dt_tcp_seq_lt(seq, c->txq_seq))
		return 0;
	return tcp_build_data(c, seq, len < avail ? len : avail, now, out);
}

void
dt_tcp_send_syn(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_tcp_cfg *cfg = c->cfg;
	struct dt_tcp_tx_seg *seg = dt_tcp_seg_new(out);
	struct dt_net_tcp_opts *o;
	bool synack = c->state == DT_TCP_SYN_RECEIVED;

	if (seg == NULL)
		return;
	o = &seg->th.opts;
	seg->th.seq = c->iss;
	seg->th.flags = DT_NET_TCP_SYN | (synack ? DT_NET_TCP_ACK : 0);
	/* A SYN's window is never scaled (RFC 7323 2.2). */
	seg->th.win = (uint16_t)(c->rcv_space < 0xffff ? c->rcv_space : 0xffff);
	o->present = DT_NET_TCPOPT_F_MSS;
	o->mss = cfg->mss;
	if (synack ? tcp_flag(c, DT_TCP_F_WS) : cfg->wscale_ok) {
		o->present |= DT_NET_TCPOPT_F_WSCALE;
		o->wscale = cfg->wscale;
	}
	if (synack ? tcp_flag(c, DT_TCP_F_SACK) : cfg->sack_ok)
		o->present |= DT_NET_TCPOPT_F_SACK_PERM;
	if (synack ? tcp_flag(c, DT_TCP_F_TS) : cfg->ts_ok) {
		o->present |= DT_NET_TCPOPT_F_TS;
		o->ts_val = dt_tcp_ts_now(c, now);
		o->ts_ecr = synack ? c->ts_recent : 0;
	}
	if (synack) {
		seg->th.ack = c->rcv_nxt;
		c->rcv_adv = c->rcv_nxt + seg->th.win;
		c->flags &= (uint16_t)~DT_TCP_F_ACK_NOW;
	}
	if (dt_tcp_seq_gt(c->snd_max, c->iss))
		c->rtx_segs++;	/* the SYN (or SYN-ACK) again */
	c->snd_nxt = c->iss + 1;
	c->snd_max = dt_tcp_seq_max(c->snd_max, c->iss + 1);
	if (c->backoff == 0 && !tcp_flag(c, DT_TCP_F_RTT_TIMING)) {
		c->flags |= DT_TCP_F_RTT_TIMING;
		c->rtt_seq = c->iss;
		c->rtt_start = now;
	}
}

void
dt_tcp_send_ack(struct dt_tcp_conn *c, uint32_t seq, uint64_t now,
	struct dt_tcp_out *out)
{
	struct dt_tcp_tx_seg *seg = dt_tcp_seg_new(out);

	if (seg != NULL)
		tcp_fill_hdr(c, seg, seq, DT_NET_TCP_ACK, now);
}

void
dt_tcp_send_rst(struct dt_tcp_out *out, uint32_t seq, uint32_t ack,
	bool with_ack)
{
	struct dt_tcp_tx_seg *seg = dt_tcp_seg_new(out);

	if (seg == NULL)
		return;
	seg->th.seq = seq;
	seg->th.flags = DT_NET_TCP_RST | (with_ack ? DT_NET_TCP_ACK : 0);
	seg->th.ack = with_ack ? ack : 0;
}

void
dt_tcp_rst_reply(const struct dt_tcp_seg *seg, struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	uint32_t len;

	/* RFC 9293 3.10.7.1: never answer a RST. */
	if (th->flags & DT_NET_TCP_RST)
		return;
	if (th->flags & DT_NET_TCP_ACK) {
		dt_tcp_send_rst(out, th->ack, 0, false);
		return;
	}
	len = dt_tcp_seg_payload_len(seg);
	len += (th->flags & DT_NET_TCP_SYN) ? 1 : 0;
	len += (th->flags & DT_NET_TCP_FIN) ? 1 : 0;
	dt_tcp_send_rst(out, 0, th->seq + len, true);
}

static bool
tcp_may_send_data(const struct dt_tcp_conn *c)
{
	switch (c->state) {
	case DT_TCP_ESTABLISHED:
	case DT_TCP_CLOSE_WAIT:
	case DT_TCP_FIN_WAIT_1:
	case DT_TCP_CLOSING:
	case DT_TCP_LAST_ACK:
		return true;
	default:
		return false;
	}
}

/*
 * Payload bytes one segment of the send loop may carry: one MSS, or with
 * TSO (cfg tso_max) the largest multiple of it within tso_max.
 */
static uint32_t
tcp_seg_cap(const struct dt_tcp_conn *c)
{
	uint32_t tso = c->cfg->tso_max;

	if (tso > (uint32_t)DT_TCP_TSO_SEGS_MAX * c->smss)
		tso = (uint32_t)DT_TCP_TSO_SEGS_MAX * c->smss;
	return tso > c->smss ? tso - tso % c->smss : c->smss;
}

/*
 * Whether a piece of @p len bytes shorter than one MSS goes now, @p avail
 * bytes being queued from its start (the rules for a segment that is not
 * full). @p full: the full segments of a burst go before it (they are in
 * flight then; a tail held back is judged, and counted, again alone).
 */
static bool
tcp_small_ok(struct dt_tcp_conn *c, uint32_t len, uint32_t avail, bool fin,
	uint32_t full)
{
	/* Sender SWS avoidance: a small piece of a larger queue waits for
	 * more window unless it is half the largest window seen. */
	if (len < avail && len < c->max_snd_wnd / 2)
		return false;
	/* Nagle: one small segment in flight at a time. */
	if (len == avail && tcp_flag(c, DT_TCP_F_NAGLE) && !fin &&
			(full > 0 || c->snd_max != c->snd_una)) {
		if (full == 0)
			c->nagle_holds++;
		return false;
	}
	return true;
}

/* How much to send at snd_nxt now; *fin set when the FIN goes too. */
static uint32_t
tcp_next_len(struct dt_tcp_conn *c, bool *fin)
{
	uint32_t data_end = tcp_data_end(c);
	uint32_t avail = dt_tcp_seq_lt(c->snd_nxt, data_end) ?
		data_end - c->snd_nxt : 0;
	uint32_t wnd = c->snd_wnd < c->cwnd ? c->snd_wnd : c->cwnd;
	uint32_t right = c->snd_una + wnd;
	uint32_t usable = dt_tcp_seq_lt(c->snd_nxt, right) ?
		right - c->snd_nxt : 0;
	uint32_t len, cap = tcp_seg_cap(c), full, tail;

	if (tcp_flag(c, DT_TCP_F_RECOVERY) && tcp_sack_on(c)) {
		/* RFC 6675 NextSeg() rule 2: new data within cwnd - pipe
		 * and the peer's window. */
		right = c->snd_una + c->snd_wnd;
		usable = dt_tcp_seq_lt(c->snd_nxt, right) ?
			right - c->snd_nxt : 0;
		wnd = c->cwnd > c->lr.pipe ? c->cwnd - c->lr.pipe : 0;
		usable = usable < wnd ? usable : wnd;
	}
	len = avail < usable ? avail : usable;

	if (len > cap)
		len = cap;
	*fin = tcp_fin_pending(c) && c->snd_nxt + len == data_end;
	if (len == 0 || len % c->smss == 0)
		return len;
	/*
	 * A short piece: alone, or (TSO) the tail of a burst whose full
	 * segments go first, as the MSS loop would judge it after them.
	 */
	tail = len % c->smss;
	full = len - tail;
	if (tcp_small_ok(c, tail, avail - full, *fin, full))
		return len;
	*fin = false;
	return full;
}

void
dt_tcp_output_run(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	bool sent = false, fin;
	uint32_t len, used;

	while (tcp_may_send_data(c)) {
		len = tcp_next_len(c, &fin);
		if (len == 0 && !fin)
			break;
		if (!tcp_flag(c, DT_TCP_F_RTT_TIMING) && len &&
				c->snd_nxt == c->snd_max) {
			c->flags |= DT_TCP_F_RTT_TIMING;
			c->rtt_seq = c->snd_nxt;
			c->rtt_start = now;
		}
		used = tcp_build_data(c, c->snd_nxt, len, now, out);
		if (used == 0)
			break;
		c->snd_nxt += used;
		sent = true;
	}
	if (!sent && tcp_flag(c, DT_TCP_F_ACK_NOW) &&
			c->state != DT_TCP_SYN_SENT &&
			!tcp_flag(c, DT_TCP_F_ACK_DEFER))
		dt_tcp_send_ack(c, c->snd_nxt, now, out);
}
