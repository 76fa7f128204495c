/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive side: a queue takes frames from its wire ring, lays each out
 * (hsplit_split.c), writes header bytes into host mbufs with the CPU and
 * batches payload bytes for device buffers as copies on the queue's copy
 * engine channel. A frame is returned by rx_burst only once its copies have
 * completed, in the order frames arrived, as a NIC completes descriptors.
 *
 * With an asynchronous engine (a CUDA event per submit) completion comes
 * some microseconds after submission, so each rx_burst first returns what
 * has completed, then takes every new frame the wire holds (up to
 * HSPLIT_INGEST_MAX, not only as many as it was asked for) and submits
 * their copies at once: copies start as early as possible and as many
 * frames are in flight as the ring holds. An engine that defers a submit
 * (its queue full: submit returns 0) gets it again on the next call; only
 * a refused copy drops frames.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "hsplit_private.h"


static void
wbuf_free(struct hsplit_wbuf *wb)
{
	rte_mempool_put(rte_mempool_from_obj(wb), wb);
}

static inline int
stash_reserve(struct hsplit_stash *s, uint16_t k)
{
	struct rte_mbuf *m;
	uint16_t want;

	if (s->n >= k)
		return 0;
	want = HSPLIT_STASH - s->n;
	if (rte_pktmbuf_alloc_bulk(s->mp, s->m + s->n, want) == 0) {
		s->n += want;
		return 0;
	}
	/* Pool nearly empty: take just what this frame needs. */
	while (s->n < k) {
		m = rte_pktmbuf_alloc(s->mp);
		if (m == NULL)
			return -1;
		s->m[s->n++] = m;
	}
	return 0;
}

/*
 * Copies of the batch go to the engines; tickets replace batch indexes.
 * What an engine defers (submit returns 0: its queue is full) stays in the
 * batch for the next call; a refused copy (< 0) drops its frame and every
 * later one of the batch on that engine (once what was queued has landed).
 */
static void
rx_flush(struct hsplit_rxq *q)
{
	uint32_t e, j, queued, n;
	uint64_t t, first = 0;
	uint8_t busy = 0;
	int r = 0;

	for (e = 0; e < q->nb_eng; e++) {
		struct dt_copy_chan *ch = q->eng[e].ch;

		n = q->nops[e];
		if (n == 0)
			continue;
		queued = 0;
		first = ch->next_ticket;
		while (queued < n) {
			r = dt_copy_submit(ch, q->ops[e] + queued,
				(uint16_t)(n - queued), &t);
			if (r <= 0)
				break;
			q->st.copy_calls++;
			queued += (uint32_t)r;
			/* One ticket per copy, consecutive on this channel. */
			first = t - queued + 1;
		}
		if (r == 0 && queued < n) {
			q->st.copy_busy++;
			busy |= (uint8_t)(1u << e);
		} else if (queued < n) {
			HSPLIT_LOG(DEBUG, "port %u rxq %u: copy %u of %u refused (%d)",
				q->port_id, q->qid, queued, n, r);
		}
		for (j = q->pend_flush; j != q->pend_tail; j++) {
			struct hsplit_pend *p = &q->pend[j & q->pend_mask];

			if (!(p->unsub_mask & (1u << e)))
				continue;
			if (p->ticket[e] < queued) {
				p->ticket[e] += first;
				p->unsub_mask &= (uint8_t)~(1u << e);
			} else if (busy & (1u << e)) {
				/* Deferred: its index in what is left. */
				p->ticket[e] -= queued;
			} else {
				/* Refused: drop once what was queued has landed. */
				p->drop = 1;
				p->ticket[e] = ch->next_ticket - 1;
				p->unsub_mask &= (uint8_t)~(1u << e);
			}
		}
		if (busy & (1u << e)) {
			memmove(q->ops[e], q->ops[e] + queued,
				(n - queued) * sizeof(q->ops[e][0]));
			q->nops[e] = (uint16_t)(n - queued);
		} else {
			q->nops[e] = 0;
		}
	}
	while (q->pend_flush != q->pend_tail &&
			q->pend[q->pend_flush & q->pend_mask].unsub_mask == 0)
		q->pend_flush++;
}

/* Write one segment: CPU for host buffers, a batched copy for device ones. */
static inline int
seg_write(struct hsplit_rxq *q, struct hsplit_stash *s, struct hsplit_pend *p,
	void *dst, const void *src, uint16_t len)
{
	int idx = s->eng, r;

	if (s->mem == HSPLIT_MEM_HOST) {
		rte_memcpy(dst, src, len);
		return 0;
	}
	if (s->mem == HSPLIT_MEM_MIXED) {
		r = hsplit_eng_find(q->eng, &q->nb_eng, dst, len, &idx);
		if (r < 0)
			return r;
		if (r == 0) {
			rte_memcpy(dst, src, len);
			return 0;
		}
	}
	q->ops[idx][q->nops[idx]] = (struct dt_copy_op){ .dst = dst,
		.src = src, .len = len };
	p->ticket[idx] = q->nops[idx]++;
	p->eng_mask |= (uint8_t)(1u << idx);
	p->unsub_mask |= (uint8_t)(1u << idx);
	p->copy_bytes += len;
	return 0;
}

static void
count_drop(struct hsplit_rxq *q, enum hsplit_layout_result r)
{
	if (r == HSPLIT_LAYOUT_HDR_TOO_BIG)
		q->st.drop_hdr_too_big++;
	else
		q->st.drop_too_big++;
}

/*
 * Lay out one frame and batch its copies. 0 when the frame was taken
 * (queued, or dropped and counted); -EBUSY when the batch has no room for
 * its copies because the engine deferred earlier ones: try it again later.
 */
static int
rx_one(struct hsplit_rxq *q, struct hsplit_wbuf *wb)
{
	struct hsplit_layout lay;
	uint16_t need[HSPLIT_MAX_NSEG] = { 0 };
	struct rte_mbuf *head = NULL, *prev = NULL, *m;
	struct hsplit_pend *p;
	enum hsplit_layout_result r;
	uint32_t i, pos = 0, e;
	int err = 0;

	/* Above the MTU only a coalesced TCP frame (RX LRO), flagged at ingress. */
	if (wb->len > q->port->max_frame &&
			!(wb->rx_flags & RTE_MBUF_F_RX_LRO)) {
		q->st.drop_too_big++;
		wbuf_free(wb);
		return 0;
	}
	r = hsplit_split_layout(&q->split, &wb->pi, wb->len, &lay);
	if (r != HSPLIT_LAYOUT_OK) {
		count_drop(q, r);
		wbuf_free(wb);
		return 0;
	}
	for (e = 0; e < q->nb_eng; e++) {
		if (q->nops[e] + lay.nb > HSPLIT_OPS_MAX) {
			rx_flush(q);
			if (q->nops[e] + lay.nb > HSPLIT_OPS_MAX)
				return -EBUSY;
		}
	}
	for (i = 0; i < lay.nb; i++)
		need[lay.s[i].pool]++;
	for (i = 0; i < q->split.nseg; i++) {
		if (need[i] && stash_reserve(&q->stash[i], need[i]) < 0) {
			/* The queue's own counter: no port-wide write per queue. */
			q->st.drop_nombuf++;
			wbuf_free(wb);
			return 0;
		}
	}
	p = &q->pend[q->pend_tail & q->pend_mask];
	p->eng_mask = 0;
	p->unsub_mask = 0;
	p->copy_bytes = 0;
	p->drop = 0;
	p->tsc = q->in_tsc;
	p->wb = wb;
	for (i = 0; i < lay.nb; i++) {
		struct hsplit_stash *s = &q->stash[lay.s[i].pool];

		m = s->m[--s->n];
		m->data_off = lay.s[i].off;
		m->data_len = lay.s[i].len;
		if (lay.s[i].len && !err)
			err = seg_write(q, s, p, rte_pktmbuf_mtod(m, void *),
				wb->data + pos, lay.s[i].len);
		pos += lay.s[i].len;
		if (prev == NULL)
			head = m;
		else
			prev->next = m;
		prev = m;
	}
	head->pkt_len = wb->len;
	head->nb_segs = lay.nb;
	head->port = q->port_id;
	head->packet_type = wb->pi.ptype;
	/* OR, never assign: pinned external buffers carry RTE_MBUF_F_EXTERNAL. */
	head->ol_flags |= wb->rx_flags;
	head->hash.rss = wb->rss_hash;
	if (unlikely(wb->rx_flags & RTE_MBUF_F_RX_LRO))
		/* The segments it was merged from were at most an MTU's. */
		head->tso_segsz = (uint16_t)(q->port->max_frame - wb->pi.l2_len -
			wb->pi.l3_len - wb->pi.l4_len - 8);
	p->m = head;
	if (err) {
		/* Queued copies of this frame may still land: drop after them. */
		p->drop = 1;
	}
	/* Header/payload bytes count split frames only (not whole frames). */
	if (!lay.matched) {
		q->st.nomatch++;
	} else if (q->split.mode != HSPLIT_SPLIT_NONE) {
		q->st.split_packets++;
		q->st.hdr_bytes += lay.hdr_bytes;
		q->st.payload_bytes += wb->len - lay.hdr_bytes;
	}
	if (wb->rx_flags & RTE_MBUF_F_RX_IP_CKSUM_BAD)
		q->st.ip_cksum_err++;
	if ((wb->rx_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		q->st.l4_cksum_err++;
	q->pend_tail++;
	return 0;
}

/*
 * Take up to @p want frames from the wire (and the ones an earlier call
 * could not lay out), as far as the pending ring has room, and submit
 * their copies.
 */
static void
rx_ingest(struct hsplit_rxq *q, uint32_t want)
{
	uint32_t space = q->pend_mask + 1 - (q->pend_tail - q->pend_head);
	uint64_t now = 0;

	if (want > space)
		want = space;
	while (want > 0) {
		if (q->in_pos == q->in_n) {
			q->in_pos = 0;
			q->in_n = (uint16_t)rte_ring_dequeue_burst(q->ring,
				(void **)q->in, RTE_MIN(want, HSPLIT_BURST), NULL);
			if (q->in_n == 0)
				break;
			/* Frames carried to a later call keep this time. */
			q->in_tsc = rte_rdtsc();
		}
		while (q->in_pos < q->in_n && want > 0) {
			/* Delay line: the wire holds the frame until it is due. */
			if (unlikely(q->in[q->in_pos]->due != 0)) {
				if (now == 0)
					now = rte_rdtsc();
				if (q->in[q->in_pos]->due > now)
					goto out;
			}
			if (rx_one(q, q->in[q->in_pos]) < 0)
				goto out;
			q->in_pos++;
			want--;
		}
	}
out:
	rx_flush(q);
}

static uint16_t
rx_deliver(struct hsplit_rxq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t done[HSPLIT_MAX_ENGINES], now = 0;
	uint8_t polled = 0;
	uint16_t got = 0;
	uint32_t e;

	while (q->pend_head != q->pend_flush && got < n) {
		struct hsplit_pend *p = &q->pend[q->pend_head & q->pend_mask];

		for (e = 0; e < q->nb_eng; e++) {
			if (!(p->eng_mask & (1u << e)))
				continue;
			if (!(polled & (1u << e))) {
				done[e] = dt_copy_completed(q->eng[e].ch);
				polled |= (uint8_t)(1u << e);
			}
			/* Tickets complete in order: nothing later is done either. */
			if (done[e] < p->ticket[e])
				return got;
		}
		wbuf_free(p->wb);
		if (p->eng_mask != 0) {
			if (now == 0)
				now = rte_rdtsc();
			q->st.copy_lat_frames++;
			q->st.copy_lat_cycles += now - p->tsc;
		}
		if (p->drop) {
			q->st.drop_copy_err++;
			rte_pktmbuf_free(p->m);
		} else {
			q->st.packets++;
			q->st.bytes += p->m->pkt_len;
			/* As packets: what the copies of returned frames moved. */
			q->st.copy_bytes += p->copy_bytes;
			pkts[got++] = p->m;
		}
		q->pend_head++;
	}
	return got;
}

/*
 * Completed frames first (polled at the start of each call), then every
 * frame the wire holds goes into the pipeline with its copies submitted,
 * then what completed meanwhile (all of it with a synchronous engine).
 */
uint16_t
hsplit_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n)
{
	struct hsplit_rxq *q = rxq;
	uint16_t got;

	got = rx_deliver(q, pkts, n);
	if (q->port->started) {
		if (q->pend_flush != q->pend_tail)
			rx_flush(q);    /* what the engine deferred last time */
		rx_ingest(q, RTE_MAX((uint32_t)n, (uint32_t)HSPLIT_INGEST_MAX));
	}
	if (got < n)
		got = (uint16_t)(got + rx_deliver(q, pkts + got, (uint16_t)(n - got)));
	return got;
}

/* Drop everything the queue holds (port stopped or queue released). */
void
hsplit_rxq_flush(struct hsplit_rxq *q)
{
	struct hsplit_wbuf *wb;
	uint32_t e, i;

	/* Submit what is still batched, waiting as long as the engine defers it. */
	rx_flush(q);
	while (q->pend_flush != q->pend_tail && q->nb_eng != 0) {
		rte_pause();
		rx_flush(q);
	}
	while (q->pend_head != q->pend_tail) {
		struct hsplit_pend *p = &q->pend[q->pend_head & q->pend_mask];

		for (e = 0; e < q->nb_eng; e++)
			if (p->eng_mask & (1u << e))
				dt_copy_wait(q->eng[e].ch, p->ticket[e]);
		wbuf_free(p->wb);
		rte_pktmbuf_free(p->m);
		q->pend_head++;
	}
	q->pend_flush = q->pend_tail;
	while (q->in_pos < q->in_n)
		wbuf_free(q->in[q->in_pos++]);
	q->in_pos = q->in_n = 0;
	for (i = 0; i < HSPLIT_MAX_NSEG; i++) {
		struct hsplit_stash *s = &q->stash[i];

		while (s->n > 0)
			rte_pktmbuf_free(s->m[--s->n]);
	}
	while (q->ring != NULL && rte_ring_dequeue(q->ring, (void **)&wb) == 0)
		wbuf_free(wb);
}
