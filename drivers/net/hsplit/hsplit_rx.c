/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive side: a queue takes frames from its wire ring, lays each out
 * (hsplit_split.c), writes header bytes into host mbufs with the CPU and
 * batches payload bytes for device buffers as copies on the queue's copy
 * engine channel. A frame is returned by rx_burst only once its copies have
 * completed, in the order frames arrived, as a NIC completes descriptors.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "hsplit_private.h"

#define PEND_MASK (HSPLIT_PENDING - 1)

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

/* Copies of the batch go to the engines; tickets replace batch indexes. */
static void
rx_flush(struct hsplit_rxq *q)
{
	uint32_t e, j, queued, i;
	uint64_t t, last = 0, first;
	int r;

	for (e = 0; e < q->nb_eng; e++) {
		uint16_t n = q->nops[e];

		if (n == 0)
			continue;
		queued = 0;
		while (queued < n) {
			r = dt_copy_submit(q->eng[e].ch, q->ops[e] + queued,
				(uint16_t)(n - queued), &t);
			if (r <= 0) {
				HSPLIT_LOG(DEBUG, "port %u rxq %u: copy %u of %u refused (%d)",
					q->port_id, q->qid, queued, n, r);
				break;
			}
			q->st.copy_calls++;
			for (i = queued; i < queued + (uint32_t)r; i++)
				q->st.copy_bytes += q->ops[e][i].len;
			queued += (uint32_t)r;
			last = t;
		}
		first = last - queued + 1;
		for (j = q->pend_flush; j != q->pend_tail; j++) {
			struct hsplit_pend *p = &q->pend[j & PEND_MASK];

			if (!(p->eng_mask & (1u << e)))
				continue;
			if (p->ticket[e] < queued) {
				p->ticket[e] += first;
			} else {
				/* Not queued: drop once what was queued has landed. */
				p->drop = 1;
				p->ticket[e] = queued ? last : 0;
			}
		}
		q->nops[e] = 0;
	}
	q->pend_flush = q->pend_tail;
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

static void
rx_one(struct hsplit_rxq *q, struct hsplit_wbuf *wb)
{
	struct hsplit_layout lay;
	uint16_t need[HSPLIT_MAX_NSEG] = { 0 };
	struct rte_mbuf *head = NULL, *prev = NULL, *m;
	struct hsplit_pend *p;
	enum hsplit_layout_result r;
	uint32_t i, pos = 0, e;
	int err = 0;

	if (wb->len > q->port->max_frame) {
		q->st.drop_too_big++;
		wbuf_free(wb);
		return;
	}
	r = hsplit_split_layout(&q->split, &wb->pi, wb->len, &lay);
	if (r != HSPLIT_LAYOUT_OK) {
		count_drop(q, r);
		wbuf_free(wb);
		return;
	}
	for (i = 0; i < lay.nb; i++)
		need[lay.s[i].pool]++;
	for (i = 0; i < q->split.nseg; i++) {
		if (need[i] && stash_reserve(&q->stash[i], need[i]) < 0) {
			q->st.drop_nombuf++;
			q->port->data->rx_mbuf_alloc_failed++;
			wbuf_free(wb);
			return;
		}
	}
	for (e = 0; e < q->nb_eng; e++)
		if (q->nops[e] + lay.nb > HSPLIT_OPS_MAX)
			rx_flush(q);
	p = &q->pend[q->pend_tail & PEND_MASK];
	p->eng_mask = 0;
	p->drop = 0;
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
}

static void
rx_ingest(struct hsplit_rxq *q, uint16_t want)
{
	struct hsplit_wbuf *wb[HSPLIT_BURST];
	uint32_t space = HSPLIT_PENDING - (q->pend_tail - q->pend_head);
	unsigned int k, i;

	if (want > space)
		want = (uint16_t)space;
	while (want > 0) {
		k = rte_ring_dequeue_burst(q->ring, (void **)wb,
			RTE_MIN(want, HSPLIT_BURST), NULL);
		if (k == 0)
			break;
		for (i = 0; i < k; i++)
			rx_one(q, wb[i]);
		want = (uint16_t)(want - k);
	}
	rx_flush(q);
}

static uint16_t
rx_deliver(struct hsplit_rxq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t done[HSPLIT_MAX_ENGINES];
	uint8_t polled = 0;
	uint16_t got = 0;
	uint32_t e;

	while (q->pend_head != q->pend_tail && got < n) {
		struct hsplit_pend *p = &q->pend[q->pend_head & PEND_MASK];

		for (e = 0; e < q->nb_eng; e++) {
			if (!(p->eng_mask & (1u << e)))
				continue;
			if (!(polled & (1u << e))) {
				done[e] = dt_copy_completed(q->eng[e].ch);
				polled |= (uint8_t)(1u << e);
			}
			if (done[e] < p->ticket[e])
				return got;
		}
		wbuf_free(p->wb);
		if (p->drop) {
			q->st.drop_copy_err++;
			rte_pktmbuf_free(p->m);
		} else {
			q->st.packets++;
			q->st.bytes += p->m->pkt_len;
			pkts[got++] = p->m;
		}
		q->pend_head++;
	}
	return got;
}

uint16_t
hsplit_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n)
{
	struct hsplit_rxq *q = rxq;
	uint16_t got;

	got = rx_deliver(q, pkts, n);
	if (got < n && q->port->started) {
		rx_ingest(q, (uint16_t)(n - got));
		got = (uint16_t)(got + rx_deliver(q, pkts + got, (uint16_t)(n - got)));
	}
	return got;
}

/* Drop everything the queue holds (port stopped or queue released). */
void
hsplit_rxq_flush(struct hsplit_rxq *q)
{
	struct hsplit_wbuf *wb;
	uint32_t e, i;

	rx_flush(q);
	while (q->pend_head != q->pend_tail) {
		struct hsplit_pend *p = &q->pend[q->pend_head & PEND_MASK];

		for (e = 0; e < q->nb_eng; e++)
			if (p->eng_mask & (1u << e))
				dt_copy_wait(q->eng[e].ch, p->ticket[e]);
		wbuf_free(p->wb);
		rte_pktmbuf_free(p->m);
		q->pend_head++;
	}
	q->pend_flush = q->pend_tail;
	for (i = 0; i < HSPLIT_MAX_NSEG; i++) {
		struct hsplit_stash *s = &q->stash[i];

		while (s->n > 0)
			rte_pktmbuf_free(s->m[--s->n]);
	}
	while (q->ring != NULL && rte_ring_dequeue(q->ring, (void **)&wb) == 0)
		wbuf_free(wb);
}
