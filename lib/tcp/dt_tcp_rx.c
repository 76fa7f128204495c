/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive side: payload extents in order or into the out-of-order queue
 * (reassembly by descriptor: extents are trimmed, never copied), SACK
 * blocks (RFC 2018), receive window with receiver SWS avoidance
 * (RFC 9293 3.8.6.2.2) and delayed ACKs (RFC 9293 3.8.6.3, RFC 5681 4.2).
 */
#include <string.h>

#include "dt_tcp_priv.h"

static void
tcp_free_ext(const struct dt_tcp_extent *e, struct dt_tcp_out *out)
{
	tcp_event(out, DT_TCP_EV_FREE)->ext = *e;
}

static void
tcp_space_consume(struct dt_tcp_conn *c, uint32_t bytes)
{
	c->rcv_space = bytes < c->rcv_space ? c->rcv_space - bytes : 0;
}

static void
tcp_deliver(struct dt_tcp_conn *c, const struct dt_tcp_extent *e,
	struct dt_tcp_out *out)
{
	tcp_event(out, DT_TCP_EV_DATA)->ext = *e;
	c->rcv_nxt += e->len;
}

static void
tcp_ooo_remove(struct dt_tcp_conn *c, uint16_t i)
{
	memmove(&c->ooo[i], &c->ooo[i + 1],
		(size_t)(c->ooo_n - i - 1) * sizeof(c->ooo[0]));
	c->ooo_n--;
}

/* Deliver queued extents that the in-order data has reached. */
static void
tcp_ooo_drain(struct dt_tcp_conn *c, struct dt_tcp_out *out)
{
	struct dt_tcp_ooo *q;
	uint32_t cut;

	while (c->ooo_n > 0 && dt_tcp_seq_le(c->ooo[0].seq, c->rcv_nxt)) {
		q = &c->ooo[0];
		cut = c->rcv_nxt - q->seq;
		if (cut >= q->ext.len) {
			tcp_free_ext(&q->ext, out);
		} else {
			q->ext.off += cut;
			q->ext.len -= cut;
			tcp_deliver(c, &q->ext, out);
		}
		tcp_ooo_remove(c, 0);
	}
}

/*
 * Insert [s, s + len) keeping the queue sorted and without overlap. Old
 * data wins: the new extent is trimmed at its edges; a queued extent that
 * the new one covers entirely is dropped (so no reference is ever split).
 */
static void
tcp_ooo_insert(struct dt_tcp_conn *c, uint32_t s, struct dt_tcp_extent e,
	struct dt_tcp_out *out)
{
	uint16_t i = 0;
	uint32_t a, b, end = s + e.len;

	while (i < c->ooo_n) {
		a = c->ooo[i].seq;
		b = a + c->ooo[i].ext.len;
		if (dt_tcp_seq_le(b, s)) {
			i++;
			continue;
		}
		if (dt_tcp_seq_ge(a, end))
			break;
		if (dt_tcp_seq_le(a, s) && dt_tcp_seq_ge(b, end)) {
			tcp_free_ext(&e, out);
			return;
		}
		if (dt_tcp_seq_le(s, a) && dt_tcp_seq_ge(end, b)) {
			tcp_free_ext(&c->ooo[i].ext, out);
			tcp_ooo_remove(c, i);
			continue;
		}
		if (dt_tcp_seq_lt(a, s)) {
			e.off += b - s;
			e.len -= b - s;
			s = b;
			i++;
			continue;
		}
		e.len = a - s;
		end = a;
		break;
	}
	if (c->ooo_n == c->ooo_cap) {
		tcp_free_ext(&e, out);
		return;
	}
	memmove(&c->ooo[i + 1], &c->ooo[i],
		(size_t)(c->ooo_n - i) * sizeof(c->ooo[0]));
	c->ooo[i].seq = s;
	c->ooo[i].ext = e;
	c->ooo_n++;
	c->ooo_last = s;
	tcp_space_consume(c, e.len);
}

void
tcp_ooo_flush(struct dt_tcp_conn *c, struct dt_tcp_out *out)
{
	uint16_t i;

	for (i = 0; i < c->ooo_n; i++)
		tcp_free_ext(&c->ooo[i].ext, out);
	c->ooo_n = 0;
}

static void
tcp_ack_policy(struct dt_tcp_conn *c, bool in_order, bool immediate,
	uint64_t now)
{
	if (immediate) {
		c->flags |= DT_TCP_F_ACK_NOW;
		return;
	}
	if (!in_order)
		return;
	/* ACK at least every second segment, else within delack_us. */
	if (!c->cfg->delack || ++c->delack_segs >= 2) {
		c->flags |= DT_TCP_F_ACK_NOW;
		return;
	}
	if (c->timers[DT_TCP_T_DELACK] == 0)
		c->timers[DT_TCP_T_DELACK] = now + c->cfg->delack_us;
}

void
tcp_rx_payload(struct dt_tcp_conn *c, uint32_t seq,
	const struct dt_tcp_seg *seg, uint64_t now, struct dt_tcp_out *out)
{
	uint32_t edge = dt_tcp_seq_max(c->rcv_adv, c->rcv_nxt);
	bool had_ooo = c->ooo_n > 0, in_order = false, immediate = false;
	struct dt_tcp_extent e;
	uint32_t s = seq, es, cut;
	uint16_t i;

	for (i = 0; i < seg->n_ext; i++) {
		e = seg->ext[i];
		es = s;
		s += e.len;
		if (dt_tcp_seq_lt(es, c->rcv_nxt)) {
			/* Already received: trim the front. */
			cut = c->rcv_nxt - es;
			cut = cut < e.len ? cut : e.len;
			e.off += cut;
			e.len -= cut;
			es += cut;
			immediate = true;
		}
		if (dt_tcp_seq_gt(es + e.len, edge)) {
			/* Beyond the window we advertised: trim the tail. */
			cut = es + e.len - edge;
			e.len = cut < e.len ? e.len - cut : 0;
		}
		if (e.len == 0) {
			tcp_free_ext(&e, out);
			continue;
		}
		if (es == c->rcv_nxt) {
			tcp_deliver(c, &e, out);
			tcp_space_consume(c, e.len);
			tcp_ooo_drain(c, out);
			in_order = true;
		} else {
			tcp_ooo_insert(c, es, e, out);
			/* Out of order: duplicate ACK (with SACK) at once. */
			immediate = true;
		}
	}
	/* Filling a hole is acknowledged at once (RFC 5681 4.2). */
	if (had_ooo && in_order)
		immediate = true;
	tcp_ack_policy(c, in_order, immediate, now);
}

unsigned int
tcp_sack_blocks(const struct dt_tcp_conn *c, struct dt_net_tcp_sack_block *b,
	unsigned int max)
{
	struct dt_net_tcp_sack_block all[DT_TCP_OOO_MAX];
	unsigned int n = 0, first = 0, i, k;
	uint16_t j;

	for (j = 0; j < c->ooo_n; j++) {
		uint32_t l = c->ooo[j].seq, r = l + c->ooo[j].ext.len;

		if (n > 0 && all[n - 1].right == l) {
			all[n - 1].right = r;
			continue;
		}
		all[n].left = l;
		all[n].right = r;
		n++;
	}
	/* RFC 2018 4: the block with the latest arrival first. */
	for (i = 0; i < n; i++)
		if (dt_tcp_seq_in(c->ooo_last, all[i].left, all[i].right))
			first = i;
	k = 0;
	if (n > 0 && max > 0)
		b[k++] = all[first];
	for (i = n; i-- > 0 && k < max;)
		if (i != first)
			b[k++] = all[i];
	return k;
}

uint32_t
tcp_rcv_wnd(const struct dt_tcp_conn *c)
{
	return dt_tcp_seq_gt(c->rcv_adv, c->rcv_nxt) ?
		c->rcv_adv - c->rcv_nxt : 0;
}

uint32_t
tcp_rcv_edge_candidate(const struct dt_tcp_conn *c)
{
	uint32_t max = (uint32_t)0xffff << c->rcv_ws;
	uint32_t wnd = c->rcv_space < max ? c->rcv_space : max;

	/* Whole units of the scale, so the field says exactly this. */
	wnd &= ~(((uint32_t)1 << c->rcv_ws) - 1);
	return c->rcv_nxt + wnd;
}

uint16_t
tcp_rcv_wnd_field(struct dt_tcp_conn *c)
{
	uint32_t cand = tcp_rcv_edge_candidate(c);
	uint32_t thr = c->cfg->mss < c->rcv_space_max / 2 ? c->cfg->mss :
		c->rcv_space_max / 2;
	uint32_t wnd;

	if (dt_tcp_seq_lt(c->rcv_adv, c->rcv_nxt))
		c->rcv_adv = c->rcv_nxt;
	/* Receiver SWS avoidance: move the right edge in big steps only. */
	if (dt_tcp_seq_gt(cand, c->rcv_adv) && cand - c->rcv_adv >= thr)
		c->rcv_adv = cand;
	/*
	 * The field rounds down: rounding up would advertise up to a unit
	 * beyond the caller's capacity on every ACK whose rcv_nxt is not
	 * unit-aligned, and the edge would creep. The edge the peer sees may
	 * so fall below rcv_adv by less than one unit, which RFC 7323 2.4
	 * permits; rcv_adv itself never moves left, so data up to any edge
	 * announced before is still accepted (RFC 9293 3.8.6.2.2: the window
	 * is not shrunk).
	 */
	wnd = (c->rcv_adv - c->rcv_nxt) >> c->rcv_ws;
	if (wnd > 0xffff)
		wnd = 0xffff;
	return (uint16_t)wnd;
}
