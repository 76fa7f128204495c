/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit side: gather each mbuf chain into a host-memory wire buffer
 * (host segments by memcpy, device segments through the copy engine, each
 * chunk's copies submitted as one batch), apply TX checksum offloads, let
 * the receiving NIC classify it, apply wire faults and put it on the peer's
 * RX ring. The mbufs are freed once gathered.
 *
 * Chunks of HSPLIT_BURST frames are asynchronous, as a NIC's DMA is: a
 * chunk's copies are submitted and the chunk waits in the queue's
 * in-flight ring; every tx_burst (lib/dp calls it empty when it has
 * nothing to send) puts the chunks whose copies completed on the wire, in
 * order, without waiting. Only a full ring waits (for its oldest chunk),
 * counted in copy_wait_cycles: an engine whose completions take long (a
 * GPU time-sliced with another process) then costs the sender latency,
 * not one blocking wait per 32 frames.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "hsplit_offload.h"
#include "hsplit_parse.h"
#include "hsplit_private.h"

/* Device-segment copies one engine takes per TX chunk. */
#define HSPLIT_TX_OPS (HSPLIT_BURST * 8)

/* Per-frame bookkeeping of a burst. */
struct tx_frame {
	uint8_t bad;       /* dropped: too big or a copy refused */
	uint8_t eng_mask;
	uint16_t last_op[HSPLIT_MAX_ENGINES];
};

/* A chunk whose copies are in flight (the queue's in-flight ring). */
struct hsplit_tx_chunk {
	struct rte_mbuf *pkts[HSPLIT_BURST];
	uint16_t n;
	struct hsplit_wbuf *wb[HSPLIT_BURST];
	struct tx_frame f[HSPLIT_BURST];
	uint64_t last[HSPLIT_MAX_ENGINES];   /* ticket to wait for; 0: none */
	uint64_t tsc;                        /* started (tx_chunk_start) */
	/* Its copies in the queue's merge buffer: [op_lo, op_hi) per engine. */
	uint16_t op_lo[HSPLIT_MAX_ENGINES], op_hi[HSPLIT_MAX_ENGINES];
};

static void tx_drain(struct hsplit_txq *q);

void
hsplit_txq_flush(struct hsplit_txq *q)
{
	struct hsplit_wbuf *w;

	tx_drain(q);
	if (q->held != NULL) {
		rte_mempool_put(rte_mempool_from_obj(q->held), q->held);
		q->held = NULL;
	}
	/* Frames still in the delay line when the port stops: lost. */
	while (q->dq != NULL && q->dq_head != q->dq_tail) {
		w = q->dq[q->dq_head++ & q->dq_mask];
		rte_mempool_put(rte_mempool_from_obj(w), w);
	}
}

/* Port stopped: drop channels (engines may go away) and cached pools. */
void
hsplit_txq_unbind(struct hsplit_txq *q)
{
	hsplit_txq_flush(q);
	hsplit_eng_close_all(q->eng, &q->nb_eng);
	memset(q->host_pool, 0, sizeof(q->host_pool));
}

void
hsplit_txq_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hsplit_txq *q = dev->data->tx_queues[qid];

	if (q == NULL)
		return;
	hsplit_txq_flush(q);
	hsplit_eng_close_all(q->eng, &q->nb_eng);
	rte_free(q->dq);
	rte_free(q->fl);
	rte_free(q->mops);
	rte_free(q);
	dev->data->tx_queues[qid] = NULL;
}

int
hsplit_txq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
	unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	struct hsplit_txq *q;

	hsplit_txq_release(dev, qid);
	q = rte_zmalloc_socket("hsplit_txq", sizeof(*q), RTE_CACHE_LINE_SIZE,
		(int)socket);
	if (q == NULL) {
		HSPLIT_LOG(ERR, "port %u txq %u: no memory for the queue", p->port_id, qid);
		return -ENOMEM;
	}
	q->port = p;
	q->qid = qid;
	q->nb_desc = nb_desc;
	q->fl = rte_zmalloc_socket("hsplit_txq_flight",
		sizeof(q->fl[0]) * HSPLIT_TX_FLIGHT, RTE_CACHE_LINE_SIZE, (int)socket);
	q->mops = rte_zmalloc_socket("hsplit_txq_merge",
		sizeof(q->mops[0]) * HSPLIT_MAX_ENGINES, RTE_CACHE_LINE_SIZE,
		(int)socket);
	if (q->fl == NULL || q->mops == NULL) {
		rte_free(q->fl);
		rte_free(q->mops);
		HSPLIT_LOG(ERR, "port %u txq %u: no memory for the in-flight ring",
			p->port_id, qid);
		rte_free(q);
		return -ENOMEM;
	}
	hsplit_prng_seed(&q->prng, p->da.seed, qid);
	hsplit_pace_init(q, p->da.rate_gbps, dev->data->nb_tx_queues);
	if (p->da.delay_dir & HSPLIT_DELAY_TX)
		hsplit_delay_init(&q->dl, p->da.delay_us, p->da.jitter_us,
			rte_get_tsc_hz(), p->da.seed, qid);
	if (p->iface != NULL && hsplit_delay_on(&q->dl)) {
		/* Room for every wire buffer of the port: the FIFO never fills. */
		uint32_t sz = rte_align32pow2(p->da.wire_bufs + 1);

		q->dq = rte_zmalloc_socket("hsplit_txq_delay",
			sizeof(q->dq[0]) * sz, RTE_CACHE_LINE_SIZE, (int)socket);
		if (q->dq == NULL) {
			HSPLIT_LOG(ERR, "port %u txq %u: no memory for the delay line",
				p->port_id, qid);
			rte_free(q);
			return -ENOMEM;
		}
		q->dq_mask = sz - 1;
	}
	dev->data->tx_queues[qid] = q;
	return 0;
}

static inline int
host_pool_known(const struct hsplit_txq *q, const struct rte_mempool *mp)
{
	unsigned int i;

	for (i = 0; i < HSPLIT_HOST_POOLS; i++)
		if (q->host_pool[i] == mp)
			return 1;
	return 0;
}


/* Gather one chain; device segments become copies in the queue's batch. */
static int
gather(struct hsplit_txq *q, struct rte_mbuf *m, struct hsplit_wbuf *wb,
	uint16_t nops[HSPLIT_MAX_ENGINES], struct dt_copy_op ops[][HSPLIT_TX_MERGE],
	struct tx_frame *f)
{
	uint32_t pos = 0;
	int idx, r;

	for (; m != NULL; m = m->next) {
		const void *src = rte_pktmbuf_mtod(m, const void *);
		uint16_t len = m->data_len;

		if (len == 0)
			continue;
		if (RTE_MBUF_DIRECT(m) && host_pool_known(q, m->pool)) {
			rte_memcpy(wb->data + pos, src, len);
			pos += len;
			continue;
		}
		r = hsplit_eng_find(q->eng, &q->nb_eng, src, len, &idx);
		if (r < 0)
			return r;
		if (r == 0) {
			if (RTE_MBUF_DIRECT(m)) {
				q->host_pool[q->hp_next] = m->pool;
				q->hp_next = (q->hp_next + 1) % HSPLIT_HOST_POOLS;
			}
			rte_memcpy(wb->data + pos, src, len);
		} else {
			if (nops[idx] >= HSPLIT_TX_MERGE)
				return -ENOSPC;
			ops[idx][nops[idx]] = (struct dt_copy_op){
				.dst = wb->data + pos, .src = src, .len = len };
			f->last_op[idx] = nops[idx]++;
			f->eng_mask |= (uint8_t)(1u << idx);
			q->st.copy_bytes += len;
		}
		pos += len;
	}
	return 0;
}


/*
 * Submit the copies every not yet submitted chunk queued in the merge
 * buffer, one engine call per engine for all of them (a driver call each
 * on a GPU), waiting only while an engine defers them (its queue is
 * full); refused ones fail their frame. An engine numbers copies one by
 * one from its next ticket, so each chunk's last ticket follows from its
 * place in the buffer.
 */
static void
tx_submit(struct hsplit_txq *q)
{
	struct hsplit_tx_chunk *c;
	uint32_t e, k, i, queued;
	uint64_t t0, t;
	int r;

	for (e = 0; e < q->nb_eng; e++) {
		if (q->mn[e] == 0)
			continue;
		t0 = q->eng[e].ch->next_ticket;
		queued = 0;
		while (queued < q->mn[e]) {
			r = dt_copy_submit(q->eng[e].ch, q->mops[e] + queued,
				(uint16_t)(q->mn[e] - queued), &t);
			if (r == 0) {
				/* Deferred: let the engine retire some. */
				dt_copy_completed(q->eng[e].ch);
				rte_pause();
				continue;
			}
			if (r < 0)
				break;
			q->st.copy_calls++;
			queued += (uint32_t)r;
		}
		for (k = q->fl_sub; k != q->fl_tail; k++) {
			c = &q->fl[k & HSPLIT_TX_FLIGHT_MASK];
			if (c->op_hi[e] == c->op_lo[e])
				continue;
			if (c->op_hi[e] <= queued) {
				c->last[e] = t0 + c->op_hi[e] - 1;
				continue;
			}
			c->last[e] = queued > c->op_lo[e] ? t0 + queued - 1 : 0;
			for (i = 0; i < c->n; i++)
				if ((c->f[i].eng_mask & (1u << e)) &&
						c->f[i].last_op[e] >= queued && !c->f[i].bad) {
					c->f[i].bad = 1;
					q->st.drop_copy_err++;
				}
		}
		q->mn[e] = 0;
	}
	q->fl_sub = q->fl_tail;
}

/* Faults, then the peer's rings; @p wb are the burst's good frames. */
static void
wire_out(struct hsplit_txq *q, struct hsplit_wbuf **wb, uint16_t n)
{
	struct hsplit_port *p = q->port;
	struct hsplit_wbuf *out[2 * HSPLIT_BURST + 1], *c;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (p->loss_thr && hsplit_prng_next(&q->prng) < p->loss_thr) {
			q->st.loss++;
			rte_mempool_put(p->wire_pool, wb[i]);
			continue;
		}
		if (p->corrupt_thr && hsplit_prng_next(&q->prng) < p->corrupt_thr &&
				hsplit_wire_corrupt(wb[i], hsplit_prng_next(&q->prng)) == 0) {
			/* Classify again: the peer's NIC verifies, trusts nothing. */
			hsplit_wire_classify(p->peer, wb[i], 0);
			q->st.corrupt++;
		}
		if (q->held != NULL) {
			/* The held frame goes right after this one. */
			out[k++] = wb[i];
			out[k++] = q->held;
			q->held = NULL;
		} else if (p->reorder_thr &&
				hsplit_prng_next(&q->prng) < p->reorder_thr) {
			q->held = wb[i];
			q->held_tsc = rte_rdtsc();
			q->st.reorder++;
		} else {
			out[k++] = wb[i];
		}
		if (p->dup_thr && hsplit_prng_next(&q->prng) < p->dup_thr &&
				rte_mempool_get(p->wire_pool, (void **)&c) == 0) {
			c->len = wb[i]->len;
			c->rss_hash = wb[i]->rss_hash;
			c->rx_flags = wb[i]->rx_flags;
			c->queue = wb[i]->queue;
			c->due = 0;
			c->pi = wb[i]->pi;
			rte_memcpy(c->data, wb[i]->data, wb[i]->len);
			out[k++] = c;
			q->st.dup++;
		}
	}
	if (k)
		hsplit_wire_deliver(p->peer, out, k, q);
}

/* Take up to @p n frames: wire buffers, gathers, copies submitted. */
static uint16_t
tx_chunk_start(struct hsplit_txq *q, struct rte_mbuf **pkts, uint16_t n,
	struct hsplit_tx_chunk *c)
{
	struct hsplit_port *p = q->port;
	uint16_t i;
	uint32_t e;

	n = hsplit_pace(q, pkts, n);
	if (n == 0)
		return 0;
	c->tsc = rte_rdtsc();
	if (rte_mempool_get_bulk(p->wire_pool, (void **)c->wb, n) != 0) {
		/* Out of wire buffers: send what we can, one at a time. */
		for (i = 0; i < n; i++)
			if (rte_mempool_get(p->wire_pool, (void **)&c->wb[i]) != 0)
				break;
		hsplit_pace_refund(q, pkts + i, (uint16_t)(n - i));
		n = i;
		if (n == 0)
			return 0;
	}
	memcpy(c->pkts, pkts, sizeof(pkts[0]) * n);
	c->n = n;
	memset(c->f, 0, sizeof(c->f[0]) * n);
	/* Room for a whole chunk's copies in the merge buffer. */
	for (e = 0; e < q->nb_eng; e++)
		if (q->mn[e] > HSPLIT_TX_MERGE - HSPLIT_TX_OPS)
			tx_submit(q);
	for (e = 0; e < HSPLIT_MAX_ENGINES; e++) {
		c->op_lo[e] = q->mn[e];
		c->last[e] = 0;
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (m->pkt_len > HSPLIT_MAX_FRAME || m->pkt_len < RTE_ETHER_HDR_LEN) {
			q->st.drop_too_big++;
			c->f[i].bad = 1;
			continue;
		}
		c->wb[i]->len = m->pkt_len;
		if (gather(q, m, c->wb[i], q->mn, q->mops, &c->f[i]) < 0) {
			q->st.drop_copy_err++;
			c->f[i].bad = 1;
		}
	}
	for (e = 0; e < HSPLIT_MAX_ENGINES; e++)
		c->op_hi[e] = q->mn[e];
	return n;
}

/* Whether every copy of chunk @p c completed (never waits). */
static bool
tx_chunk_done(struct hsplit_txq *q, const struct hsplit_tx_chunk *c)
{
	uint32_t e;

	for (e = 0; e < q->nb_eng; e++)
		if (c->last[e] != 0 && dt_copy_completed(q->eng[e].ch) < c->last[e])
			return false;
	return true;
}

/* A chunk whose copies completed: how long since it started. */
static inline void
tx_copy_lat(struct hsplit_txq *q, const struct hsplit_tx_chunk *c)
{
	uint32_t e;

	for (e = 0; e < q->nb_eng; e++)
		if (c->last[e] != 0) {
			q->st.copy_lat_chunks++;
			q->st.copy_lat_cycles += rte_rdtsc() - c->tsc;
			return;
		}
}

/* Wait for a chunk's copies, then finish its frames and put them on the wire. */
static void
tx_chunk_finish(struct hsplit_txq *q, struct hsplit_tx_chunk *c)
{
	struct hsplit_port *p = q->port;
	struct hsplit_wbuf *good[HSPLIT_BURST];
	uint16_t i, ng = 0;
	unsigned int done;
	uint32_t e;

	if (!tx_chunk_done(q, c)) {
		uint64_t t0 = rte_rdtsc();

		for (e = 0; e < q->nb_eng; e++)
			if (c->last[e] != 0)
				dt_copy_wait(q->eng[e].ch, c->last[e]);
		q->st.copy_wait_cycles += rte_rdtsc() - t0;
	}
	tx_copy_lat(q, c);
	for (i = 0; i < c->n; i++) {
		struct rte_mbuf *m = c->pkts[i];
		struct hsplit_wbuf *wb = c->wb[i];

		if (c->f[i].bad) {
			rte_mempool_put(p->wire_pool, wb);
			continue;
		}
		hsplit_parse(wb->data, wb->len, &wb->pi);
		done = hsplit_tx_cksum(wb->data, wb->len, m->ol_flags,
			m->l2_len, m->l3_len, &wb->pi);
		hsplit_wire_classify(p->peer, wb, done);
		q->st.packets++;
		q->st.bytes += wb->len;
		good[ng++] = wb;
	}
	rte_pktmbuf_free_bulk(c->pkts, c->n);
	wire_out(q, good, ng);
}

/* Put the oldest in-flight chunks whose copies completed on the wire. */
static void
tx_reap(struct hsplit_txq *q)
{
	while (q->fl_head != q->fl_sub) {
		struct hsplit_tx_chunk *c = &q->fl[q->fl_head & HSPLIT_TX_FLIGHT_MASK];

		if (!tx_chunk_done(q, c))
			return;
		tx_chunk_finish(q, c);
		q->fl_frames -= c->n;
		q->fl_head++;
	}
}

/* Every in-flight chunk out, waiting for its copies (port stop, release). */
static void
tx_drain(struct hsplit_txq *q)
{
	if (q->fl != NULL && q->fl_sub != q->fl_tail)
		tx_submit(q);
	while (q->fl != NULL && q->fl_head != q->fl_tail) {
		struct hsplit_tx_chunk *c = &q->fl[q->fl_head & HSPLIT_TX_FLIGHT_MASK];

		tx_chunk_finish(q, c);
		q->fl_frames -= c->n;
		q->fl_head++;
	}
}

uint16_t
hsplit_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n)
{
	struct hsplit_txq *q = txq;
	struct hsplit_tx_chunk *c;
	uint16_t sent = 0, k, r;

	if (q->held != NULL &&
			rte_rdtsc() - q->held_tsc > rte_get_tsc_hz() / 1000000 * HSPLIT_HOLD_US) {
		struct hsplit_wbuf *h = q->held;

		q->held = NULL;
		hsplit_wire_deliver(q->port->peer, &h, 1, q);
	}
	tx_reap(q);
	while (sent < n) {
		if (q->fl_tail - q->fl_head == HSPLIT_TX_FLIGHT) {
			/* Ring full: the oldest chunk must leave first. */
			if (q->fl_sub == q->fl_head)
				tx_submit(q);
			c = &q->fl[q->fl_head & HSPLIT_TX_FLIGHT_MASK];
			tx_chunk_finish(q, c);
			q->fl_frames -= c->n;
			q->fl_head++;
		}
		c = &q->fl[q->fl_tail & HSPLIT_TX_FLIGHT_MASK];
		k = (uint16_t)RTE_MIN(n - sent, HSPLIT_BURST);
		r = tx_chunk_start(q, pkts + sent, k, c);
		if (r == 0)
			break;
		q->fl_tail++;
		q->fl_frames += r;
		sent = (uint16_t)(sent + r);
		if (r < k)
			break;
	}
	if (q->fl_sub != q->fl_tail)
		tx_submit(q);
	tx_reap(q);
	return sent;
}
