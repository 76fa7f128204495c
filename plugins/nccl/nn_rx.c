/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive path, on the stack's lcore: a flow's chunks (device memory) are
 * moved by a copy engine — into the flow's 16-byte host record for hellos
 * and message headers, into NCCL's buffer for payload — and returned to the
 * stack once the copy reading them has completed. A request is done on a
 * part when each of its flows received its slice and the copies ended.
 *
 * Destinations: host buffers and gpu_sim buffers (through the simulator's
 * device-side mapping: the simulated DMA) take the payload region's own
 * engine; CUDA buffers take the CUDA gather channel (device to device,
 * batched). The CPU never loads payload: a chunk in host memory
 * (DT_DP_CHUNK_HOST, length split) is the only one memcpy() touches.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "nn_rt.h"

#define NN_RX_BATCH 64

enum nn_dst { NN_DST_HOST, NN_DST_ENGINE, NN_DST_CUDA, NN_DST_DROP };

void
nn_rx_chunk(struct nn_flow *f, const struct dt_dp_chunk *c)
{
	if (f->qt - f->qh == NN_FLOW_CHUNKS) {
		/* The window bounds what a flow holds: this is a bug, say so. */
		dt_dp_release(f->s->st, c->token);
		NN_WARN("flow %u: more than %u chunks held; connection dropped",
			f->idx, NN_FLOW_CHUNKS);
		f->dead = true;
		if (f->part != NULL)
			nn_part_fail(f->part, ENOBUFS);
		return;
	}
	f->q[f->qt++ % NN_FLOW_CHUNKS] = *c;
}

static void
push_release(struct nn_stack *s, uint64_t token, uint64_t t_region,
	uint64_t t_cuda, const struct nn_comm *uc, uint64_t useq)
{
	struct nn_release *e;

	if (s->rel_t - s->rel_h == NN_RELEASE_Q) {
		/* Cannot happen with <= NN_RELEASE_Q buffers; keep order anyway. */
		nn_rx_flush(s);
		while (s->rel_t - s->rel_h == NN_RELEASE_Q) {
			nn_release_progress(s);
			rte_pause();
		}
	}
	e = &s->rel[s->rel_t++ % NN_RELEASE_Q];
	e->token = token;
	e->t_region = t_region;
	e->t_cuda = t_cuda;
	e->uc = uc;
	e->useq = useq;
}

/* Unpack: the chunk waits in its part's own queue (full: the stack's). */
static bool
push_urel(struct nn_part *p, uint64_t token, uint64_t t_region,
	uint64_t t_cuda, uint64_t useq)
{
	struct nn_release *e;

	if (p->urel == NULL || p->urel_t - p->urel_h == NN_UREL_Q)
		return false;
	e = &p->urel[p->urel_t++ % NN_UREL_Q];
	e->token = token;
	e->t_region = t_region;
	e->t_cuda = t_cuda;
	e->uc = p->comm;
	e->useq = useq;
	return true;
}

/* The head chunk of @p f is consumed: free it once its copies read it. */
static void
release_head(struct nn_flow *f)
{
	uint64_t token = f->q[f->qh % NN_FLOW_CHUNKS].token;

	if (f->q_uc == NULL || f->part == NULL ||
			!push_urel(f->part, token, f->q_tregion, f->q_tcuda, f->q_useq))
		push_release(f->s, token, f->q_tregion, f->q_tcuda, f->q_uc,
			f->q_useq);
	f->qh++;
	f->qoff = 0;
	f->q_tregion = 0;
	f->q_tcuda = 0;
	f->q_uc = NULL;
}

void
nn_rx_drop_all(struct nn_flow *f)
{
	/* The head chunk may have pieces in flight: it waits for them. */
	while (f->qh != f->qt)
		release_head(f);
}

void
nn_release_forget(struct nn_stack *s, const struct nn_comm *c)
{
	uint32_t i;

	/* The comm is closing: NCCL's kernel will not read its chunks again. */
	for (i = s->rel_h; i != s->rel_t; i++)
		if (s->rel[i % NN_RELEASE_Q].uc == c)
			s->rel[i % NN_RELEASE_Q].uc = NULL;
}

/* Whether entry @p e may go back: its copies landed, NCCL consumed it. */
static inline bool
release_ready(struct nn_stack *s, const struct nn_release *e, bool closing)
{
	if ((e->t_region != 0 && dt_copy_completed(s->ch) < e->t_region) ||
			(e->t_cuda != 0 && dt_copy_completed(s->cuda_ch) < e->t_cuda))
		return false;
	return e->uc == NULL || closing ||
		__atomic_load_n(&e->uc->unpack_consumed, __ATOMIC_ACQUIRE) > e->useq;
}

/* A part's unpack queue, in order (NCCL consumes a comm's receives in order). */
static void
urel_progress(struct nn_stack *s, struct nn_part *p)
{
	while (p->urel_h != p->urel_t &&
			release_ready(s, &p->urel[p->urel_h % NN_UREL_Q], p->closing)) {
		dt_dp_release(s->st, p->urel[p->urel_h % NN_UREL_Q].token);
		p->urel_h++;
	}
}

void
nn_urel_flush(struct nn_stack *s, struct nn_part *p)
{
	/* The part goes away: what is left waits for its copies only. */
	for (; p->urel != NULL && p->urel_h != p->urel_t; p->urel_h++) {
		struct nn_release *e = &p->urel[p->urel_h % NN_UREL_Q];

		push_release(s, e->token, e->t_region, e->t_cuda, NULL, 0);
	}
}

void
nn_release_progress(struct nn_stack *s)
{
	uint16_t i;

	for (i = 0; i < s->nb_parts; i++)
		if (s->parts[i]->urel != NULL)
			urel_progress(s, s->parts[i]);
	while (s->rel_h != s->rel_t &&
			release_ready(s, &s->rel[s->rel_h % NN_RELEASE_Q], false)) {
		dt_dp_release(s->st, s->rel[s->rel_h % NN_RELEASE_Q].token);
		s->rel_h++;
	}
}

/*
 * Copies wait in a per-channel batch and go to the engine once per poll
 * (nn_rx_flush()), not once per flow and message: every submit is a
 * driver call (CUDA: about 5-40 us each, more when NCCL's threads use the
 * context too). A batched copy's ticket is known when it is queued: the
 * channel's next ticket plus its place in the batch, since only this
 * lcore submits on these channels and a batch always goes out whole and
 * in order before any other submit on its channel.
 */
static inline uint64_t
batch_next_ticket(const struct nn_batch *b)
{
	return b->ch->next_ticket + b->n;
}

static int
batch_flush(struct nn_batch *b)
{
	uint16_t off = 0;
	uint64_t t;
	int rc;

	while (off < b->n) {
		rc = dt_copy_submit(b->ch, b->ops + off, (uint16_t)(b->n - off), &t);
		if (rc < 0) {
			b->n = 0;
			return rc;
		}
		if (rc == 0) {
			/* The engine's queue is full: let it retire some. */
			dt_copy_completed(b->ch);
			rte_pause();
			continue;
		}
		off = (uint16_t)(off + rc);
	}
	b->n = 0;
	return 0;
}

static int
batch_add(struct nn_batch *b, void *dst, const void *src, uint32_t len,
	uint64_t *ticket)
{
	int rc;

	if (b->n == NN_BATCH_OPS && (rc = batch_flush(b)) != 0)
		return rc;
	b->ops[b->n].dst = dst;
	b->ops[b->n].src = src;
	b->ops[b->n].len = len;
	*ticket = b->ch->next_ticket + b->n;
	b->n++;
	return 0;
}

static struct nn_batch *
batch_of(struct nn_stack *s, const struct dt_copy_chan *ch)
{
	return ch == s->cuda_ch ? &s->b_cuda : &s->b_region;
}

void
nn_rx_flush(struct nn_stack *s)
{
	int rc = 0;
	uint16_t i;

	if (s->b_region.n != 0)
		rc = batch_flush(&s->b_region);
	if (rc == 0 && s->b_cuda.n != 0)
		rc = batch_flush(&s->b_cuda);
	if (rc == 0)
		return;
	/* Copies the engine refused never complete: their comms are dead. */
	NN_WARN("stack %u: the copy engine refused queued copies: %s", s->idx,
		strerror(-rc));
	for (i = 0; i < s->nb_parts; i++)
		if (!s->parts[i]->comm->send)
			nn_part_fail(s->parts[i], -rc);
}

/*
 * A channel of the stack stopped for good (a copy failed on the device; the
 * engine said why): what waits on it never completes, so the receive
 * fails with EIO instead of hanging NCCL.
 */
static bool
copy_failed(struct nn_stack *s)
{
	int rc = dt_copy_chan_failed(s->ch);

	if (rc == 0 && s->cuda_ch != NULL)
		rc = dt_copy_chan_failed(s->cuda_ch);
	if (rc == 0)
		return false;
	if (!s->copy_fail_logged) {
		s->copy_fail_logged = true;
		NN_WARN("stack %u: a copy channel stopped (a copy failed on the GPU: "
			"see above): its receives fail", s->idx);
	}
	return true;
}

/*
 * Move up to @p want bytes from the head of the flow's queue to @p dst.
 * Returns the bytes consumed (0 when nothing is queued) or a negative
 * errno; *ch and *ticket say what to wait for.
 */
static int64_t
rx_take(struct nn_flow *f, enum nn_dst kind, uintptr_t dst, uint64_t want,
	struct dt_copy_chan **chp, uint64_t *ticket)
{
	struct nn_stack *s = f->s;
	struct dt_copy_chan *ch = kind == NN_DST_CUDA ? s->cuda_ch : s->ch;
	struct nn_batch *b;
	uint64_t got = 0, t = 0;
	uint16_t n = 0;
	int rc;

	if (ch == NULL && kind != NN_DST_DROP && kind != NN_DST_HOST)
		return -ENOTSUP;
	b = kind == NN_DST_HOST || kind == NN_DST_DROP ? &s->b_region :
		batch_of(s, ch);
	/* One copy per chunk piece. */
	while (want > got && f->qh != f->qt && n < NN_RX_BATCH) {
		const struct dt_dp_chunk *c = &f->q[f->qh % NN_FLOW_CHUNKS];
		uint32_t len = (uint32_t)RTE_MIN((uint64_t)c->len - f->qoff,
			want - got);
		const uint8_t *src = (const uint8_t *)c->addr + f->qoff;

		if (kind == NN_DST_DROP) {
			/* Consumed unread: back behind the copies queued before. */
		} else if (c->kind == DT_DP_CHUNK_HOST && kind == NN_DST_HOST) {
			/* CPU-readable bytes (length split) into host memory. */
			memcpy((void *)(dst + got), src, len);
		} else {
			/* Device chunk into host memory: the region's engine. */
			rc = batch_add(b, (void *)(dst + got), src, len, &t);
			if (rc != 0)
				return got != 0 ? (int64_t)got : rc;
			if (b->ch == s->cuda_ch)
				f->q_tcuda = t;
			else
				f->q_tregion = t;
			*chp = b->ch;
			*ticket = t;
			n++;
		}
		got += len;
		f->qoff += len;
		if (f->qoff == c->len)
			release_head(f);
	}
	return (int64_t)got;
}

/* Hello (accepted flows) or message header, once its 16 bytes landed. */
static void
rx_parse(struct nn_flow *f)
{
	if (!f->hello_seen) {
		struct nn_wire_hello h;

		if (nn_wire_hello_parse(f->wire, &h) != 0) {
			NN_WARN("accepted connection sent no devtcp hello (magic 0x%x, "
				"flow %u of %u): dropped", h.magic, h.flow, h.nflows);
			f->dead = true;
			dt_dp_abort(f->s->st, f->conn);
			return;
		}
		f->idx = h.flow;
		f->nflows = h.nflows;
		f->comm_id = h.comm_id;
		f->hello_seen = true;
		f->reported = true;
		nn_post_event(f->lsn->cq, NN_EV_HELLO, 0, f);
		return;
	}
	f->have_hdr = true;
}

/*
 * The engine for a destination. With the region on a CUDA GPU, host
 * buffers too take the CUDA gather channel: NCCL's host buffers are
 * cudaHostAlloc()ed, which a UVA copy reaches asynchronously, while the
 * region's engine would bounce them synchronously (not registered with
 * gpudev).
 */
static enum nn_dst
dst_kind(const struct nn_stack *s, const struct nn_req *r)
{
	if (r->mr == NULL || r->mr->kind == NN_MR_HOST)
		return s->cuda_ch != NULL ? NN_DST_CUDA : NN_DST_HOST;
	return r->mr->kind == NN_MR_CUDA ? NN_DST_CUDA : NN_DST_ENGINE;
}

/* Where byte @p off of request @p r lands, as the chosen engine reaches it. */
static uintptr_t
dst_addr(const struct nn_req *r, uint64_t off)
{
	if (r->mr != NULL && r->mr->kind == NN_MR_SIM)
		return r->mr->dev_side + (r->data - r->mr->base) + off;
	return r->data + off;
}

/*
 * Unpack mode: up to @p want bytes from the head of the flow's queue become
 * entries of @p r's slot for NCCL's kernel, landing at @p off of the
 * receive buffer. Returns the bytes consumed or -errno.
 */
static int64_t
rx_take_unpack(struct nn_flow *f, struct nn_req *r, uint64_t off,
	uint64_t want)
{
	uint64_t got = 0;
	uint16_t n = 0;
	int rc;

	while (want > got && f->qh != f->qt && n < NN_RX_BATCH) {
		const struct dt_dp_chunk *c = &f->q[f->qh % NN_FLOW_CHUNKS];
		uint32_t len = (uint32_t)RTE_MIN((uint64_t)c->len - f->qoff,
			want - got);

		n++;
		/*
		 * Bytes the NIC left in host memory, and pieces past a full
		 * slot (2048 entries), are gathered into NCCL's buffer as
		 * without unpack; test() waits for those copies.
		 */
		rc = c->kind == DT_DP_CHUNK_DEVICE ?
			nn_unpack_add(r, c->offset + f->qoff, len, off + got) :
			-ENOBUFS;
		if (rc == -ENOBUFS) {
			struct dt_copy_chan *ch = NULL;
			uint64_t t = 0;
			int64_t k = rx_take(f, dst_kind(f->s, r),
				dst_addr(r, off + got), len, &ch, &t);

			if (k <= 0)
				return got != 0 ? (int64_t)got : k;
			if (c->kind == DT_DP_CHUNK_DEVICE)
				f->s->cnt.unpack_overflow++;
			got += (uint64_t)k;
			continue;
		}
		if (rc != 0)
			return got != 0 ? (int64_t)got : rc;
		f->q_uc = r->comm;
		f->q_useq = r->seq;
		got += len;
		f->qoff += len;
		if (f->qoff == c->len)
			release_head(f);
	}
	return (int64_t)got;
}

/* A header for message rx_seq arrived and its request is posted. */
static int
rx_begin(struct nn_flow *f, struct nn_req *r)
{
	struct nn_part *p = f->part;
	struct nn_wire_rx rx;
	uint32_t magic;

	if (nn_wire_msg_parse(f->wire, p->comm->nflows, f->idx, r->size,
			&rx) != 0) {
		memcpy(&magic, f->wire, sizeof(magic));
		NN_WARN("flow %u: bad message header (magic 0x%x): stream out of sync",
			f->idx, magic);
		return -EPROTO;
	}
	if (nn_wire_agree(&r->agree, &rx) != 0) {
		NN_WARN("flow %u: message header (size %" PRIu64 ", tag %d) differs "
			"from another flow's: streams out of sync", f->idx, rx.size,
			rx.tag);
		return -EPROTO;
	}
	f->rx_off = rx.off;
	f->rx_len = rx.len;
	f->rx_fit = rx.fit;
	f->rx_done = 0;
	f->discard = false;
	/* Every flow writes the same values (nn_wire_agree()). */
	r->rsize = rx.size;
	r->rtag = rx.tag;
	if (rx.truncated) {
		int32_t zero = 0;

		__atomic_compare_exchange_n(&r->err, &zero, EMSGSIZE, false,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	return 0;
}

static void
rx_flow_done(struct nn_flow *f, struct nn_req *r)
{
	struct nn_part *p = f->part;
	struct nn_stack *s = f->s;

	f->have_hdr = false;
	f->rx_begun = false;
	f->rx_seq++;
	if (++r->fl[p->pidx] == p->nflows) {
		/* Every copy for r was submitted before these tickets. */
		r->wait_ch[p->pidx] = batch_next_ticket(&s->b_region) - 1;
		r->wait_cu[p->pidx] = s->cuda_ch ?
			batch_next_ticket(&s->b_cuda) - 1 : 0;
		r->t_copied[p->pidx] = rte_rdtsc();
	}
}

/* Next 16-byte record into f->wire; false when it must wait. */
static bool
rx_wire(struct nn_flow *f)
{
	struct dt_copy_chan *ch = NULL;
	uint64_t t = 0;
	int64_t n;

	n = rx_take(f, NN_DST_HOST, (uintptr_t)f->wire + f->wire_got,
		NN_WIRE_LEN - f->wire_got, &ch, &t);
	if (n <= 0) {
		if (n < 0 && f->part != NULL)
			nn_part_fail(f->part, (int)-n);
		return false;
	}
	f->wire_got += n;
	if (ch != NULL) {
		f->wire_ch = ch;
		f->wire_ticket = t;
	}
	if (f->wire_got == NN_WIRE_LEN)
		f->wire_wait = true;
	return true;
}

/* Payload of the current message: copy what fits, drop the rest. */
static bool
rx_data(struct nn_flow *f, struct nn_req *r)
{
	struct dt_copy_chan *ch = NULL;
	uint64_t fit = f->rx_fit, t = 0;
	int64_t n;

	if (f->rx_done < fit && r->unpack)
		n = rx_take_unpack(f, r, f->rx_off + f->rx_done, fit - f->rx_done);
	else if (f->rx_done < fit)
		n = rx_take(f, dst_kind(f->s, r), dst_addr(r, f->rx_off + f->rx_done),
			fit - f->rx_done, &ch, &t);
	else
		n = rx_take(f, NN_DST_DROP, 0, f->rx_len - f->rx_done, &ch, &t);
	if (n < 0) {
		NN_WARN("flow %u: copy into the receive buffer failed: %s",
			f->idx, strerror((int)-n));
		nn_part_fail(f->part, (int)-n);
		return false;
	}
	f->rx_done += n;
	return n > 0;
}

void
nn_rx_progress(struct nn_flow *f)
{
	struct nn_part *p = f->part;
	struct nn_req *r;

	while (!f->dead && (p == NULL || !p->failed)) {
		if (f->wire_wait) {
			if (f->wire_ch != NULL &&
					dt_copy_completed(f->wire_ch) < f->wire_ticket) {
				if (copy_failed(f->s)) {
					f->dead = true;
					if (p != NULL)
						nn_part_fail(p, EIO);
				}
				return;
			}
			f->wire_wait = false;
			f->wire_got = 0;
			f->wire_ch = NULL;
			rx_parse(f);
			continue;
		}
		if (!f->hello_seen) {
			if (!rx_wire(f))
				return;
			continue;
		}
		if (p == NULL)
			return;     /* said hello; waits for NCCL's accept */
		if (!f->have_hdr) {
			if (!rx_wire(f))
				return;
			continue;
		}
		if (f->rx_seq >= p->head)
			return;     /* NCCL has not posted this receive yet */
		r = p->fifo[f->rx_seq % NN_REQS];
		if (!f->rx_begun) {
			if (rx_begin(f, r) != 0) {
				nn_part_fail(p, EPROTO);
				return;
			}
			f->rx_begun = true;
		}
		if (f->rx_done >= f->rx_len) {
			rx_flow_done(f, r);
			continue;
		}
		if (!rx_data(f, r))
			return;
	}
}

/*
 * A flow waiting for its header copy when the lcore stops: the copy
 * landed (the drain waited for the channel), or it never will and the
 * flow's stream position is lost.
 */
static void
wire_forget(struct nn_flow *f)
{
	if (f->wire_ch == NULL)
		return;
	if (dt_copy_completed(f->wire_ch) < f->wire_ticket)
		f->dead = true;
	f->wire_ch = NULL;
}

void
nn_rx_drain(struct nn_stack *s)
{
	uint64_t hz = rte_get_timer_hz(), last = rte_get_timer_cycles();
	uint32_t i, h = s->rel_h;

	nn_rx_flush(s);
	/* Stopping: NCCL's kernel reads no chunk any more. */
	for (i = 0; i < s->nb_parts; i++)
		nn_urel_flush(s, s->parts[i]);
	for (i = s->rel_h; i != s->rel_t; i++)
		s->rel[i % NN_RELEASE_Q].uc = NULL;
	while (s->rel_h != s->rel_t) {
		nn_release_progress(s);
		if (s->rel_h != h) {
			h = s->rel_h;
			last = rte_get_timer_cycles();
		}
		/*
		 * What waits on a stopped channel, or on copies an engine
		 * refused, never lands: after a second without progress the
		 * chunks are left (not handed back while a copy may read them)
		 * and the queue emptied, so that a later run starts clean.
		 */
		if (s->rel_h != s->rel_t && (copy_failed(s) ||
				rte_get_timer_cycles() - last > hz)) {
			NN_WARN("stack %u: %u received chunks wait for copies that "
				"will not complete: left out of the pool", s->idx,
				s->rel_t - s->rel_h);
			s->rel_h = s->rel_t;
			break;
		}
	}
	/* The channels close after this: no flow may keep waiting on one. */
	for (i = 0; i < s->nb_parts; i++) {
		uint16_t j;

		for (j = 0; j < s->parts[i]->nflows; j++)
			wire_forget(s->parts[i]->flows[j]);
	}
	for (i = 0; i < s->nb_loose; i++)
		wire_forget(s->loose[i]);
}

/* Where a receive's time went (the finalize report). */
static void
rx_time(struct nn_stack *s, const struct nn_part *p, const struct nn_req *r)
{
	uint64_t now = rte_rdtsc(), gpu = now - r->t_copied[p->pidx];

	if (r->t_seen[p->pidx] == 0 || r->t_copied[p->pidx] < r->t_seen[p->pidx])
		return;
	s->cnt.rx_arrive_sum += r->t_copied[p->pidx] - r->t_seen[p->pidx];
	s->cnt.rx_gpu_sum += gpu;
	if (gpu > s->cnt.rx_gpu_max)
		s->cnt.rx_gpu_max = gpu;
	s->cnt.rx_timed++;
}

void
nn_rx_part_progress(struct nn_part *p)
{
	struct nn_stack *s = p->s;
	uint16_t i;

	if (p->failed)
		return;
	for (i = 0; i < p->nflows; i++) {
		struct nn_flow *f = p->flows[i];

		nn_rx_progress(f);
		if (p->failed)
			return;
		if (f->peer_closed && f->qh == f->qt && f->rx_seq < p->head) {
			NN_WARN("flow %u: peer closed the connection with a receive pending",
				f->idx);
			nn_part_fail(p, ECONNRESET);
			return;
		}
	}
	while (p->tail < p->head) {
		struct nn_req *r = p->fifo[p->tail % NN_REQS];

		if (r->fl[p->pidx] != p->nflows)
			break;
		if (dt_copy_completed(s->ch) < r->wait_ch[p->pidx] ||
				(s->cuda_ch != NULL &&
				 dt_copy_completed(s->cuda_ch) < r->wait_cu[p->pidx])) {
			if (copy_failed(s))
				nn_part_fail(p, EIO);
			break;
		}
		rx_time(s, p, r);
		nn_req_part_done(p, r);
		p->tail++;
	}
}
