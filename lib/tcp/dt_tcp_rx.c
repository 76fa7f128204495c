/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive side: payload extents in order or into the out-of-order queue
 * (reassembly by descriptor: extents are trimmed, never copied), SACK
 * blocks (RFC 2018), receive window with receiver SWS avoidance
 * (RFC 9293 3.8.6.2.2) and delayed ACKs (RFC 9293 3.8.6.3, RFC 5681 4.2).
 */
#include <errno.h>
#include <string.h>

#include "dt_tcp_priv.h"

/* Extents one SACK refill may walk through (it runs on hole fills). */
#define DT_TCP_SACK_REFILL_WALK 256
/* Autotuned window before the first RTT is measured (Linux: ~64 KiB). */
#define DT_TCP_WCAP_INIT (64u * 1024)
/* Headroom over twice the data of an RTT, in MSS (as Linux's DRS). */
#define DT_TCP_WCAP_MSS 16u

static void
tcp_free_ext(const struct dt_tcp_extent *e, struct dt_tcp_out *out)
{
	dt_tcp_event_add(out, DT_TCP_EV_FREE)->ext = *e;
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
	dt_tcp_event_add(out, DT_TCP_EV_DATA)->ext = *e;
	c->rcv_nxt += e->len;
}

/* Index of the first queued extent that ends after @p s (binary search). */
static uint16_t
tcp_ooo_find(const struct dt_tcp_conn *c, uint32_t s)
{
	uint16_t lo = 0, hi = c->ooo_n, mid;

	while (lo < hi) {
		mid = (uint16_t)((lo + hi) / 2);
		if (dt_tcp_seq_le(c->ooo[mid].seq + c->ooo[mid].ext.len, s))
			lo = (uint16_t)(mid + 1);
		else
			hi = mid;
	}
	return lo;
}

static void
tcp_ooo_remove(struct dt_tcp_conn *c, uint16_t i)
{
	c->ooo_bytes -= c->ooo[i].ext.len;
	memmove(&c->ooo[i], &c->ooo[i + 1],
		(size_t)(c->ooo_n - i - 1) * sizeof(c->ooo[0]));
	c->ooo_n--;
}

/* The remembered block that starts at @p l, or sack_n. */
static uint8_t
tcp_sack_blk_at(const struct dt_tcp_conn *c, uint32_t l)
{
	uint8_t b;

	for (b = 0; b < c->sack_n && c->sack_blk[b].start != l; b++)
		;
	return b;
}

/*
 * Blocks were forgotten (delivered or cut at a FIN) while the queue may
 * hold runs that fell off the end of the list: append the lowest runs not
 * remembered, so that every held run is reported again whenever the
 * option has room (RFC 2018 4: as many distinct blocks as possible). The
 * walk skips remembered runs by binary search and stops after a bounded
 * number of extents (a run found only in part is not reported).
 */
static void
tcp_sack_blk_refill(struct dt_tcp_conn *c)
{
	unsigned int budget = DT_TCP_SACK_REFILL_WALK;
	uint16_t j = 0;
	uint32_t l, r;
	uint8_t b;

	while (c->sack_n < DT_TCP_SACK_BLK_MAX && j < c->ooo_n) {
		l = c->ooo[j].seq;
		b = tcp_sack_blk_at(c, l);
		if (b < c->sack_n) {
			j = tcp_ooo_find(c, c->sack_blk[b].end);
			continue;
		}
		for (r = l + c->ooo[j].ext.len; ++j < c->ooo_n &&
				c->ooo[j].seq == r && budget > 0; budget--)
			r += c->ooo[j].ext.len;
		if (j < c->ooo_n && c->ooo[j].seq == r)
			return;
		c->sack_blk[c->sack_n].start = l;
		c->sack_blk[c->sack_n].end = r;
		c->sack_n++;
	}
}

/* Forget SACK blocks at or below rcv_nxt (delivered). */
static void
tcp_sack_blk_trim(struct dt_tcp_conn *c)
{
	uint8_t i, k = 0;

	for (i = 0; i < c->sack_n; i++)
		if (dt_tcp_seq_gt(c->sack_blk[i].end, c->rcv_nxt))
			c->sack_blk[k++] = c->sack_blk[i];
	c->sack_n = k;
	tcp_sack_blk_refill(c);
}

/*
 * The queued extent @p i just arrived: its maximal contiguous run becomes
 * the first SACK block, and the blocks it merged with are forgotten. The
 * run's edges come from the blocks remembered next to it when there are
 * (the common case: a segment extends the run it follows), else from a
 * walk over the queue.
 */
static void
tcp_sack_blk_note(struct dt_tcp_conn *c, uint16_t i)
{
	uint32_t l = c->ooo[i].seq, r = l + c->ooo[i].ext.len;
	uint16_t j;
	uint8_t b, k;

	if (i > 0 && c->ooo[i - 1].seq + c->ooo[i - 1].ext.len == l) {
		for (b = 0; b < c->sack_n && c->sack_blk[b].end != l; b++)
			;
		if (b < c->sack_n) {
			l = c->sack_blk[b].start;
		} else {
			for (j = i; j > 0 && c->ooo[j - 1].seq +
					c->ooo[j - 1].ext.len == c->ooo[j].seq; j--)
				;
			l = c->ooo[j].seq;
		}
	}
	if (i + 1 < c->ooo_n && c->ooo[i + 1].seq == r) {
		b = tcp_sack_blk_at(c, r);
		if (b < c->sack_n) {
			r = c->sack_blk[b].end;
		} else {
			for (j = i; j + 1 < c->ooo_n && c->ooo[j].seq +
					c->ooo[j].ext.len == c->ooo[j + 1].seq; j++)
				;
			r = c->ooo[j].seq + c->ooo[j].ext.len;
		}
	}
	/* Drop the blocks inside the run, shift the rest down by one. */
	k = 0;
	for (b = 0; b < c->sack_n; b++)
		if (!(dt_tcp_seq_ge(c->sack_blk[b].start, l) &&
				dt_tcp_seq_le(c->sack_blk[b].end, r)))
			c->sack_blk[k++] = c->sack_blk[b];
	if (k == DT_TCP_SACK_BLK_MAX)
		k--;
	memmove(&c->sack_blk[1], &c->sack_blk[0], k * sizeof(c->sack_blk[0]));
	c->sack_blk[0].start = l;
	c->sack_blk[0].end = r;
	c->sack_n = (uint8_t)(k + 1);
}

/* RFC 2883: report [s, e), already received, first in the next ACK. */
void
dt_tcp_dsack_note(struct dt_tcp_conn *c, uint32_t s, uint32_t e)
{
	if (!tcp_flag(c, DT_TCP_F_SACK) || s == e)
		return;
	c->dsack.start = s;
	c->dsack.end = e;
	c->flags |= DT_TCP_F_DSACK;
}

/* Deliver queued extents that the in-order data has reached. */
static void
tcp_ooo_drain(struct dt_tcp_conn *c, struct dt_tcp_out *out)
{
	struct dt_tcp_ooo *q;
	uint16_t k = 0;
	uint32_t cut;

	while (k < c->ooo_n && dt_tcp_seq_le(c->ooo[k].seq, c->rcv_nxt)) {
		q = &c->ooo[k++];
		c->ooo_bytes -= q->ext.len;
		cut = c->rcv_nxt - q->seq;
		if (cut >= q->ext.len) {
			tcp_free_ext(&q->ext, out);
		} else {
			q->ext.off += cut;
			q->ext.len -= cut;
			tcp_deliver(c, &q->ext, out);
		}
	}
	if (k == 0)
		return;
	/* One move for the whole delivered prefix. */
	memmove(&c->ooo[0], &c->ooo[k],
		(size_t)(c->ooo_n - k) * sizeof(c->ooo[0]));
	c->ooo_n = (uint16_t)(c->ooo_n - k);
	tcp_sack_blk_trim(c);
}

/*
 * Insert [s, s + len) keeping the queue sorted and without overlap. Old
 * data wins: the new extent is trimmed at its edges; a queued extent that
 * the new one covers entirely is dropped (so no reference is ever split).
 * The search starts at the first extent that ends after @p s.
 * @return true when new data was queued (not a duplicate, not dropped)
 */
static bool
tcp_ooo_insert(struct dt_tcp_conn *c, uint32_t s, struct dt_tcp_extent e,
	struct dt_tcp_out *out, uint32_t *queued_bytes)
{
	uint16_t i = tcp_ooo_find(c, s);
	uint32_t a, b, end = s + e.len;
	bool replaced = false;

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
			/*
			 * Everything was queued already: a duplicate. RFC 2883
			 * 4: the block holding it follows the D-SACK.
			 */
			dt_tcp_dsack_note(c, s, end);
			tcp_sack_blk_note(c, i);
			tcp_free_ext(&e, out);
			return false;
		}
		if (dt_tcp_seq_le(s, a) && dt_tcp_seq_ge(end, b)) {
			tcp_free_ext(&c->ooo[i].ext, out);
			tcp_ooo_remove(c, i);
			replaced = true;
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
	/*
	 * Beyond the limit the segment is dropped, unless it replaced held
	 * extents: dropping it then would renege on data already SACKed.
	 */
	if (!replaced && (c->ooo_n >= c->ooo_lim || c->ooo_n >= c->ooo_cap)) {
		tcp_free_ext(&e, out);
		return false;
	}
	memmove(&c->ooo[i + 1], &c->ooo[i],
		(size_t)(c->ooo_n - i) * sizeof(c->ooo[0]));
	c->ooo[i].seq = s;
	c->ooo[i].ext = e;
	c->ooo_n++;
	c->ooo_bytes += e.len;
	*queued_bytes += e.len;
	tcp_space_consume(c, e.len);
	tcp_sack_blk_note(c, i);
	return true;
}

void
dt_tcp_ooo_flush(struct dt_tcp_conn *c, struct dt_tcp_out *out)
{
	uint16_t i;

	for (i = 0; i < c->ooo_n; i++)
		tcp_free_ext(&c->ooo[i].ext, out);
	c->ooo_n = 0;
	c->ooo_bytes = 0;
	c->sack_n = 0;
}

/*
 * The stream ends at @p fin: free what the queue holds beyond it (the
 * extent that straddles it is trimmed, its reference kept) and forget
 * the SACK blocks beyond it.
 */
static void
tcp_ooo_cut(struct dt_tcp_conn *c, uint32_t fin, struct dt_tcp_out *out)
{
	struct dt_tcp_ooo *q;
	uint32_t cut;
	uint8_t b, k = 0;

	while (c->ooo_n > 0) {
		q = &c->ooo[c->ooo_n - 1];
		if (dt_tcp_seq_le(q->seq + q->ext.len, fin))
			break;
		if (dt_tcp_seq_lt(q->seq, fin)) {
			cut = q->seq + q->ext.len - fin;
			q->ext.len -= cut;
			c->ooo_bytes -= cut;
			c->rcv_beyond_fin += cut;
			break;
		}
		c->rcv_beyond_fin += q->ext.len;
		tcp_free_ext(&q->ext, out);
		tcp_ooo_remove(c, (uint16_t)(c->ooo_n - 1));
	}
	for (b = 0; b < c->sack_n; b++) {
		if (dt_tcp_seq_ge(c->sack_blk[b].start, fin))
			continue;
		c->sack_blk[k] = c->sack_blk[b];
		if (dt_tcp_seq_gt(c->sack_blk[k].end, fin))
			c->sack_blk[k].end = fin;
		k++;
	}
	c->sack_n = k;
	tcp_sack_blk_refill(c);
}

/*
 * The peer's FIN, at @p fin, on a segment that starts at @p seq; called
 * before the segment's payload, which it bounds. RFC 9293 3.10.7.4: the
 * FIN is processed once the data before it has all arrived, and the
 * stream ends there: data held beyond it is freed, data arriving beyond
 * it later is dropped (both counted in rcv_beyond_fin), and a FIN below
 * one remembered ends the stream earlier. A FIN below rcv_nxt (data
 * beyond it was delivered) or beyond the window is ignored.
 */
void
dt_tcp_rx_fin(struct dt_tcp_conn *c, uint32_t seq, uint32_t fin,
	struct dt_tcp_out *out)
{
	uint32_t edge = dt_tcp_seq_max(c->rcv_adv, c->rcv_nxt);

	if (dt_tcp_seq_lt(fin, c->rcv_nxt) || dt_tcp_seq_gt(fin, edge))
		return;
	/* After a gap: a duplicate ACK at once, like out-of-order data. */
	if (seq != c->rcv_nxt)
		c->flags |= DT_TCP_F_ACK_NOW | DT_TCP_F_ACK_OOO;
	if (tcp_flag(c, DT_TCP_F_FIN_RCVD_OOO) &&
			dt_tcp_seq_ge(fin, c->fin_seq))
		return;
	c->flags |= DT_TCP_F_FIN_RCVD_OOO;
	c->fin_seq = fin;
	tcp_ooo_cut(c, fin, out);
}

/*
 * Payload in a state that takes none: after the peer's FIN (CLOSE_WAIT,
 * CLOSING, LAST_ACK, TIME_WAIT) what lies beyond rcv_nxt is beyond the
 * stream's end, freed and counted like data beyond a FIN still pending.
 */
void
dt_tcp_rx_after_fin(struct dt_tcp_conn *c, uint32_t seq, uint32_t plen,
	const struct dt_tcp_seg *seg, struct dt_tcp_out *out)
{
	uint32_t end = seq + plen;

	if (c->state != DT_TCP_SYN_RECEIVED &&
			dt_tcp_seq_gt(end, c->rcv_nxt))
		c->rcv_beyond_fin += dt_tcp_seq_ge(seq, c->rcv_nxt) ? plen :
			end - c->rcv_nxt;
	dt_tcp_free_payload(seg, out);
}

void
dt_tcp_set_ooo_limit(struct dt_tcp_conn *c, uint32_t lim)
{
	c->ooo_lim = (uint16_t)(lim < c->ooo_cap ? lim : c->ooo_cap);
}

int
dt_tcp_set_ooo_store(struct dt_tcp_conn *c, struct dt_tcp_ooo *ooo,
	uint16_t cap)
{
	if ((ooo == NULL) != (cap == 0) || cap > DT_TCP_OOO_MAX)
		return -EINVAL;
	/* Held extents live in the storage: never moved, never lost. */
	if (c->ooo_n > 0)
		return -EBUSY;
	c->ooo = ooo;
	c->ooo_cap = cap;
	c->ooo_lim = cap;
	return 0;
}

/*
 * The segment just queued only extended the run that the first
 * block reports (@p f0, one of @p n0 blocks before): the next ACK of the
 * batch says all of it. Linux compresses these SACKs (and D-SACKs) too;
 * each new run, merge or filled hole still gets its own ACK.
 */
static bool
tcp_sack_first_grew(const struct dt_tcp_conn *c, uint8_t n0,
	const struct dt_tcp_seq_range *f0)
{
	const struct dt_tcp_seq_range *f = &c->sack_blk[0];

	if (n0 == 0 || c->sack_n < n0)
		return false;
	return (f->start == f0->start && dt_tcp_seq_gt(f->end, f0->end)) ||
		(f->end == f0->end && dt_tcp_seq_lt(f->start, f0->start));
}

/*
 * @p ooo: out-of-order or hole-filling data, acknowledged at once even
 * when the caller batches ACKs (RFC 5681 4.2); @p immediate: at once, at
 * the caller's batch granularity (a duplicate); @p in_bytes: in-order
 * payload of the segment. More than our MSS in one segment was two or
 * more segments on the wire, merged by the receive path (lib/dp's
 * coalescing, a NIC's LRO): it counts as every second segment.
 */
static void
tcp_ack_policy(struct dt_tcp_conn *c, bool in_order, bool ooo,
	bool immediate, uint32_t in_bytes, uint64_t now)
{
	if (ooo)
		c->flags |= DT_TCP_F_ACK_OOO;
	if (ooo || immediate) {
		c->flags |= DT_TCP_F_ACK_NOW;
		return;
	}
	if (!in_order)
		return;
	/* ACK at least every second segment, else within delack_us. */
	if (!c->cfg->delack || ++c->delack_segs >= 2 ||
			in_bytes > c->cfg->mss) {
		c->flags |= DT_TCP_F_ACK_NOW;
		return;
	}
	if (c->timers[DT_TCP_T_DELACK] == 0)
		c->timers[DT_TCP_T_DELACK] = now + c->cfg->delack_us;
}

/*
 * dt_tcp_cfg.rcv_autotune, after @p bytes of new payload (in order or
 * queued out of order; not what a filled hole releases, which arrived
 * earlier). The receiver's RTT is the least time one advertised window of
 * new payload took to arrive (an upper bound on the path's RTT, as Linux's
 * tcp_rcv_rtt_measure() without timestamps); once per such RTT the window
 * cap becomes twice what arrived in it, never less than before. A sender
 * limited by the window doubles its flight each RTT, as in slow start; one
 * limited by its own cwnd does not get a window it has no use for.
 */
static void
tcp_rcv_autotune(struct dt_tcp_conn *c, uint32_t bytes, uint64_t now)
{
	uint64_t want;
	uint32_t rtt;

	if (!c->cfg->rcv_autotune || tcp_sack_on(c) || bytes == 0 ||
			c->rcv_wcap >= c->rcv_space_max)
		return;
	if (c->rcv_wcap == 0) {
		c->rcv_wcap = DT_TCP_WCAP_INIT;
		c->rcv_wcap_at = now;
		c->rcv_rtt_at = now;
		c->rcv_rtt_need = c->rcv_wcap;
	}
	c->rcv_wcap_got += bytes;
	c->rcv_rtt_got += bytes;
	if (c->rcv_rtt_got >= c->rcv_rtt_need) {
		rtt = now - c->rcv_rtt_at > UINT32_MAX ? UINT32_MAX :
			(uint32_t)(now - c->rcv_rtt_at);
		if (rtt == 0)
			rtt = 1;
		if (c->rcv_rtt == 0 || rtt < c->rcv_rtt)
			c->rcv_rtt = rtt;
		c->rcv_rtt_got = 0;
		c->rcv_rtt_need = dt_tcp_rcv_wnd(c) > c->cfg->mss ?
			dt_tcp_rcv_wnd(c) : c->cfg->mss;
		c->rcv_rtt_at = now;
	}
	if (c->rcv_rtt == 0 || now - c->rcv_wcap_at < c->rcv_rtt)
		return;
	want = 2 * (uint64_t)c->rcv_wcap_got +
		DT_TCP_WCAP_MSS * (uint64_t)c->cfg->mss;
	if (want > c->rcv_wcap)
		c->rcv_wcap = want > UINT32_MAX ? UINT32_MAX : (uint32_t)want;
	c->rcv_wcap_got = 0;
	c->rcv_wcap_at = now;
}

void
dt_tcp_rx_payload(struct dt_tcp_conn *c, uint32_t seq,
	const struct dt_tcp_seg *seg, uint64_t now, struct dt_tcp_out *out)
{
	uint32_t edge = dt_tcp_seq_max(c->rcv_adv, c->rcv_nxt);
	bool had_ooo = c->ooo_n > 0, in_order = false, immediate = false;
	bool fin = tcp_flag(c, DT_TCP_F_FIN_RCVD_OOO), ooo = false, queued;
	struct dt_tcp_seq_range f0;
	struct dt_tcp_extent e;
	uint8_t n0;
	uint32_t s = seq, es, cut, in_bytes = 0, new_bytes = 0;
	uint16_t i;

	for (i = 0; i < seg->n_ext; i++) {
		e = seg->ext[i];
		es = s;
		s += e.len;
		if (dt_tcp_seq_lt(es, c->rcv_nxt)) {
			/* Already received: trim the front, report it. */
			cut = c->rcv_nxt - es;
			cut = cut < e.len ? cut : e.len;
			dt_tcp_dsack_note(c, es, es + cut);
			e.off += cut;
			e.len -= cut;
			es += cut;
			immediate = true;
		}
		if (fin && dt_tcp_seq_gt(es + e.len, c->fin_seq)) {
			/* Beyond the peer's FIN: not part of the stream. */
			cut = es + e.len - c->fin_seq;
			cut = cut < e.len ? cut : e.len;
			c->rcv_beyond_fin += cut;
			e.len -= cut;
		}
		if (dt_tcp_seq_gt(es + e.len, edge)) {
			/* Beyond the window we advertised: trim the tail. */
			cut = es + e.len - edge;
			e.len = cut < e.len ? e.len - cut : 0;
		}
		if (e.len == 0) {
			/* Beyond rcv_nxt (and the FIN): a duplicate ACK. */
			if (dt_tcp_seq_gt(es, c->rcv_nxt)) {
				ooo = ooo || !tcp_sack_on(c);
				immediate = true;
			}
			tcp_free_ext(&e, out);
			continue;
		}
		if (es == c->rcv_nxt) {
			in_bytes += e.len;
			new_bytes += e.len;
			tcp_deliver(c, &e, out);
			tcp_space_consume(c, e.len);
			tcp_ooo_drain(c, out);
			in_order = true;
		} else {
			f0 = c->sack_blk[0];
			n0 = c->sack_n;
			/*
			 * Out of order: a duplicate ACK at once. Without SACK
			 * the sender counts them: one per segment. With SACK,
			 * one per segment that tells something the batch's ACK
			 * would not (a new run, a merge, another run grown).
			 */
			queued = tcp_ooo_insert(c, es, e, out, &new_bytes);
			if (!tcp_sack_on(c) ||
					(queued && !tcp_sack_first_grew(c, n0, &f0)))
				ooo = true;
			else
				immediate = true;
		}
	}
	/* Filling a hole is acknowledged at once (RFC 5681 4.2). */
	if (had_ooo && in_order)
		ooo = true;
	tcp_rcv_autotune(c, new_bytes, now);
	tcp_ack_policy(c, in_order, ooo, immediate, in_bytes, now);
}

/*
 * SACK option content: a pending D-SACK first (RFC 2883), then the
 * remembered blocks, the one with the latest arrival first (RFC 2018 4).
 * The sender knows a D-SACK only when the ACK or the next block covers it
 * (RFC 2883 4): one inside a run that a later segment of the same batch
 * displaced from the front is dropped rather than misread as a SACK.
 */
unsigned int
dt_tcp_sack_blocks(struct dt_tcp_conn *c, struct dt_net_tcp_sack_block *b,
	unsigned int max)
{
	unsigned int k = 0, i;

	if (tcp_flag(c, DT_TCP_F_DSACK) && max > 0) {
		c->flags &= (uint16_t)~DT_TCP_F_DSACK;
		if (dt_tcp_seq_le(c->dsack.end, c->rcv_nxt) ||
				(c->sack_n > 0 && dt_tcp_seq_ge(c->dsack.start,
					c->sack_blk[0].start) &&
				dt_tcp_seq_le(c->dsack.end, c->sack_blk[0].end))) {
			b[k].left = c->dsack.start;
			b[k].right = c->dsack.end;
			k++;
		}
	}
	for (i = 0; i < c->sack_n && k < max; i++) {
		b[k].left = c->sack_blk[i].start;
		b[k].right = c->sack_blk[i].end;
		k++;
	}
	return k;
}

uint32_t
dt_tcp_rcv_wnd(const struct dt_tcp_conn *c)
{
	return dt_tcp_seq_gt(c->rcv_adv, c->rcv_nxt) ?
		c->rcv_adv - c->rcv_nxt : 0;
}

uint32_t
dt_tcp_rcv_edge_candidate(const struct dt_tcp_conn *c)
{
	uint32_t max = (uint32_t)0xffff << c->rcv_ws;
	uint32_t wnd = c->rcv_space < max ? c->rcv_space : max;

	if (c->rcv_wcap != 0 && c->rcv_wcap < wnd)
		wnd = c->rcv_wcap;

	/* Whole units of the scale, so the field says exactly this. */
	wnd &= ~(((uint32_t)1 << c->rcv_ws) - 1);
	return c->rcv_nxt + wnd;
}

uint16_t
dt_tcp_rcv_wnd_field(struct dt_tcp_conn *c)
{
	uint32_t cand = dt_tcp_rcv_edge_candidate(c);
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
