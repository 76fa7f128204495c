/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit side: gather each mbuf chain into a host-memory wire buffer
 * (host segments by memcpy, device segments through the copy engine, each
 * chunk's copies submitted as one batch; where the engine gathers, that
 * batch is one device operation, a GPU's one kernel launch, writing the
 * wire buffers directly), apply TX checksum offloads, let
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

#include "hsplit_caps.h"
#include "hsplit_iface.h"
#include "hsplit_iface_gso.h"
#include "hsplit_offload.h"
#include "hsplit_parse.h"
#include "hsplit_private.h"
#include "hsplit_tso.h"

/*
 * Wire frames one chunk puts on the wire: a burst of frames, or the
 * segments of TSO frames (one of HSPLIT_TSO_SEGS_MAX always fits).
 */
#define HSPLIT_TX_CHUNK_WB HSPLIT_TSO_SEGS_MAX
/* Device-segment copies one engine takes per TX chunk. */
#define HSPLIT_TX_OPS (HSPLIT_TX_CHUNK_WB * 4)

/* Per-wire-frame bookkeeping of a chunk. */
struct tx_frame {
	uint8_t bad;       /* dropped: a copy refused */
	uint8_t eng_mask;
	uint16_t last_op[HSPLIT_MAX_ENGINES];
	/* What the NIC does to it once gathered: checksums, TSO fix-up. */
	uint64_t ol_flags;
	uint16_t l2_len, l3_len;
	struct hsplit_tso_seg tso;
};

/* A chunk whose copies are in flight (the queue's in-flight ring). */
struct hsplit_tx_chunk {
	struct rte_mbuf *pkts[HSPLIT_BURST];
	uint16_t n;        /* mbufs taken (freed once gathered) */
	uint16_t nw;       /* wire frames */
	struct hsplit_wbuf *wb[HSPLIT_TX_CHUNK_WB];
	struct tx_frame f[HSPLIT_TX_CHUNK_WB];
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
	hsplit_txhold_flush(q);
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
	rte_free(q->hold);
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
	if (hsplit_txhold_init(q, p->da.tx_hold, (int)socket) != 0) {
		rte_free(q->fl);
		rte_free(q->mops);
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


/*
 * Gather @p len bytes from byte @p off of a chain to @p pos of a wire
 * buffer; device segments become copies in the queue's batch.
 */
static int
gather(struct hsplit_txq *q, struct rte_mbuf *m, uint32_t off, uint32_t len_all,
	uint8_t *dst, struct tx_frame *f)
{
	uint16_t *nops = q->mn;
	struct dt_copy_op (*ops)[HSPLIT_TX_MERGE] = q->mops;
	uint32_t pos = 0;
	int idx, r;

	for (; m != NULL && pos < len_all; m = m->next) {
		const uint8_t *src = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t len = m->data_len;

		if (off >= len) {
			off -= len;
			continue;
		}
		src += off;
		len -= off;
		off = 0;
		if (len > len_all - pos)
			len = len_all - pos;
		if (len == 0)
			continue;
		if (RTE_MBUF_DIRECT(m) && host_pool_known(q, m->pool)) {
			rte_memcpy(dst + pos, src, len);
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
			rte_memcpy(dst + pos, src, len);
		} else {
			if (nops[idx] >= HSPLIT_TX_MERGE)
				return -ENOSPC;
			ops[idx][nops[idx]] = (struct dt_copy_op){
				.dst = dst + pos, .src = src, .len = len };
			f->last_op[idx] = nops[idx]++;
			f->eng_mask |= (uint8_t)(1u << idx);
			q->st.copy_bytes += len;
		}
		pos += len;
	}
	return 0;
}


/*
 * Queue copies on engine @p e, as dt_copy_submit() returns: the leading run
 * of those whose destinations are gather targets as one gather (one GPU
 * launch for the burst), else the leading run of the others by submit. The
 * caller comes back for the rest; the tickets run on in one sequence.
 */
static int
tx_queue_ops(struct hsplit_txq *q, struct hsplit_eng *e,
	const struct dt_copy_op *ops, uint16_t n, uint64_t *t)
{
	struct rte_mempool *pools[2];
	uint16_t k;
	int g, r;

	if (e->gather == 0 && q->port->da.tx_gather_off) {
		e->gather = -1;
	} else if (e->gather == 0) {
		pools[0] = q->port->wire_pool;
		pools[1] = hsplit_iface_gso_pool(q->port);
		hsplit_eng_gather_setup(e, q->port->port_id, pools, 2);
	}
	if (e->gather < 0)
		return dt_copy_submit(e->ch, ops, n, t);
	g = dt_copy_gather_targets_find(&e->tgt, ops[0].dst, ops[0].len) >= 0;
	for (k = 1; k < n; k++)
		if ((dt_copy_gather_targets_find(&e->tgt, ops[k].dst,
				ops[k].len) >= 0) != g)
			break;
	if (!g)
		return dt_copy_submit(e->ch, ops, k, t);
	r = dt_copy_gather(e->ch, ops, k, t);
	if (r > 0)
		q->st.copy_gathers++;
	return r;
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
			r = tx_queue_ops(q, &q->eng[e], q->mops[e] + queued,
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
			for (i = 0; i < c->nw; i++)
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
	struct hsplit_wbuf *out[2 * HSPLIT_TX_CHUNK_WB + 1], *c;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (p->loss_thr && hsplit_prng_next(&q->prng) < p->loss_thr) {
			q->st.loss++;
			rte_mempool_put(rte_mempool_from_obj(wb[i]), wb[i]);
			continue;
		}
		/*
		 * Not a GSO frame: the kernel sums its segments again when it
		 * cuts it, so a byte flipped here would arrive valid.
		 */
		if (p->corrupt_thr && wb[i]->gso_size == 0 &&
				hsplit_prng_next(&q->prng) < p->corrupt_thr &&
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
		/* A GSO frame is not duplicated: no wire buffer holds it. */
		if (p->dup_thr && hsplit_prng_next(&q->prng) < p->dup_thr &&
				wb[i]->gso_size == 0 &&
				rte_mempool_get(p->wire_pool, (void **)&c) == 0) {
			c->len = wb[i]->len;
			c->gso_size = 0;
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

/*
 * A frame that is not segmented: one wire buffer, gathered whole. A TSO
 * frame sent whole (GSO, @p pl) gets both checksums and its MSS.
 */
static void
tx_frame_whole(struct hsplit_txq *q, struct rte_mbuf *m,
	const struct hsplit_tso_plan *pl, struct hsplit_wbuf *wb,
	struct tx_frame *f)
{
	wb->len = m->pkt_len;
	wb->gso_size = pl != NULL ? pl->mss : 0;
	wb->gso_hdr_len = pl != NULL ? pl->hdr_len : 0;
	f->ol_flags = pl != NULL ? RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
		RTE_MBUF_F_TX_TCP_CKSUM : m->ol_flags;
	f->l2_len = m->l2_len;
	f->l3_len = m->l3_len;
	if (gather(q, m, 0, m->pkt_len, wb->data, f) < 0) {
		q->st.drop_copy_err++;
		f->bad = 1;
	}
}

/*
 * The segments of TSO frame @p m, one wire buffer each: its headers, then
 * its slice of the payload; each is summed as a frame of its own.
 */
static void
tx_frame_tso(struct hsplit_txq *q, struct rte_mbuf *m,
	const struct hsplit_tso_plan *pl, struct hsplit_wbuf **wb,
	struct tx_frame *f)
{
	uint32_t off, len;
	uint16_t k;

	for (k = 0; k < pl->nseg; k++) {
		off = (uint32_t)k * pl->mss;
		len = RTE_MIN((uint32_t)pl->mss, pl->payload - off);
		wb[k]->len = pl->hdr_len + len;
		wb[k]->gso_size = 0;
		f[k].ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
			RTE_MBUF_F_TX_TCP_CKSUM;
		f[k].l2_len = m->l2_len;
		f[k].l3_len = m->l3_len;
		f[k].tso = (struct hsplit_tso_seg){ .idx = k, .nseg = pl->nseg,
			.off = off };
		if (gather(q, m, 0, pl->hdr_len, wb[k]->data, &f[k]) < 0 ||
				gather(q, m, pl->hdr_len + off, len,
					wb[k]->data + pl->hdr_len, &f[k]) < 0) {
			q->st.drop_copy_err++;
			f[k].bad = 1;
		}
	}
	q->st.tso_frames++;
	q->st.tso_segs += pl->nseg;
}

/*
 * Wire frames frame @p m becomes: 1, the segments of a TSO frame (or one
 * GSO frame where the interface takes them: *@p pool is then its pool),
 * or 0 when it is dropped (too big, a TSO frame outside the limits).
 */
static uint16_t
tx_frame_count(struct hsplit_txq *q, const struct rte_mbuf *m,
	struct hsplit_tso_plan *pl, struct rte_mempool **pool)
{
	*pool = q->port->wire_pool;
	/* A NIC of one buffer per frame (caps=linear) cannot gather a chain. */
	if (m->nb_segs > 1 && hsplit_caps_get(q->port->da.caps)->tx_linear) {
		q->st.drop_multi_seg++;
		return 0;
	}
	if (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) {
		if (hsplit_tso_plan(m, hsplit_caps_get(q->port->da.caps), pl) != 0 ||
				m->pkt_len > HSPLIT_GSO_MAX_FRAME) {
			q->st.drop_tso_bad++;
			return 0;
		}
		if (q->port->iface == NULL)
			return pl->nseg;
		*pool = hsplit_iface_gso_pool(q->port);
		if (*pool != NULL)
			return 1;
		/* TSO frames on an interface without GSO: not offered. */
		q->st.drop_tso_bad++;
		return 0;
	}
	if (m->pkt_len > HSPLIT_MAX_FRAME || m->pkt_len < RTE_ETHER_HDR_LEN) {
		q->st.drop_too_big++;
		return 0;
	}
	return 1;
}

/*
 * Take up to @p n frames while their wire frames fit the chunk: wire
 * buffers, gathers, copies queued for submission.
 */
static uint16_t
tx_chunk_start(struct hsplit_txq *q, struct rte_mbuf **pkts, uint16_t n,
	struct hsplit_tx_chunk *c, bool *full)
{
	struct hsplit_tso_plan pl;
	struct rte_mempool *pool;
	uint16_t i, k;
	uint32_t e;

	n = hsplit_pace(q, pkts, n);
	if (n == 0)
		return 0;
	c->tsc = rte_rdtsc();
	c->nw = 0;
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

		k = tx_frame_count(q, m, &pl, &pool);
		if (c->nw + k > HSPLIT_TX_CHUNK_WB) {
			*full = true;
			break;
		}
		/* Out of wire buffers: the rest waits for the next burst. */
		if (k > 0 && rte_mempool_get_bulk(pool,
				(void **)(c->wb + c->nw), k) != 0)
			break;
		memset(c->f + c->nw, 0, sizeof(c->f[0]) * k);
		if (k == 0)
			continue;
		if (!(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG))
			tx_frame_whole(q, m, NULL, c->wb[c->nw], &c->f[c->nw]);
		else if (pool != q->port->wire_pool)
			tx_frame_whole(q, m, &pl, c->wb[c->nw], &c->f[c->nw]);
		else
			tx_frame_tso(q, m, &pl, c->wb + c->nw, c->f + c->nw);
		c->nw = (uint16_t)(c->nw + k);
	}
	hsplit_pace_refund(q, pkts + i, (uint16_t)(n - i));
	for (e = 0; e < HSPLIT_MAX_ENGINES; e++)
		c->op_hi[e] = q->mn[e];
	memcpy(c->pkts, pkts, sizeof(pkts[0]) * i);
	c->n = i;
	return i;
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
	struct hsplit_wbuf *good[HSPLIT_TX_CHUNK_WB];
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
	for (i = 0; i < c->nw; i++) {
		const struct tx_frame *f = &c->f[i];
		struct hsplit_wbuf *wb = c->wb[i];

		if (f->bad) {
			rte_mempool_put(rte_mempool_from_obj(wb), wb);
			continue;
		}
		if (f->tso.nseg != 0)
			hsplit_tso_fix(wb->data, wb->len, f->l2_len, f->l3_len,
				&f->tso);
		hsplit_parse(wb->data, wb->len, &wb->pi);
		done = hsplit_tx_cksum(wb->data, wb->len, f->ol_flags,
			f->l2_len, f->l3_len, &wb->pi);
		hsplit_wire_classify(p->peer, wb, done);
		q->st.packets++;
		q->st.bytes += wb->len;
		good[ng++] = wb;
	}
	if (q->hold_cap != 0)
		hsplit_txhold_put(q, c->pkts, c->n);
	else
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
		q->fl_frames -= c->nw;
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
		q->fl_frames -= c->nw;
		q->fl_head++;
	}
}

uint16_t
hsplit_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n)
{
	struct hsplit_txq *q = txq;
	struct hsplit_tx_chunk *c;
	uint16_t sent = 0, k, r;
	bool full;

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
			q->fl_frames -= c->nw;
			q->fl_head++;
		}
		c = &q->fl[q->fl_tail & HSPLIT_TX_FLIGHT_MASK];
		k = (uint16_t)RTE_MIN(n - sent, HSPLIT_BURST);
		full = false;
		r = tx_chunk_start(q, pkts + sent, k, c, &full);
		if (r == 0)
			break;
		q->fl_tail++;
		q->fl_frames += c->nw;
		sent = (uint16_t)(sent + r);
		/* Paced or out of wire buffers: the rest waits. */
		if (r < k && !full)
			break;
	}
	if (q->fl_sub != q->fl_tail)
		tx_submit(q);
	tx_reap(q);
	return sent;
}
