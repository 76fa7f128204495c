/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA copy engine: dt_copy.h's ops on a CUDA stream.
 *
 * Every CUDA copy call costs about 2.5 us of CPU time whatever its size,
 * and with several lcores on one context the driver's internal locks make
 * each call dearer still, so throughput is decided by how few calls a batch
 * takes: contiguous copies are merged; small host->device copies are staged
 * (the CPU packs them into a pinned, device-mapped ring and one kernel
 * launch reads them from there and scatters them); the rest of a submit
 * goes out as one cuMemcpyBatchAsync where the driver has it; and each
 * submit ends with one cuStreamWriteValue64 of its last ticket into a host
 * word, so that polling for completion (every poll of every queue) is a
 * load, not a driver call. Events remain the fall-back. A submit's
 * completion also frees its staging space.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "dt_copy_cuda_priv.h"

/* ----------------------------------------------------------- validation */

/*
 * Direction of a copy; -EFAULT for a range straddling the window edge (half
 * device, half host), -EINVAL for host to host (not this engine's job).
 */
static int
dt_copy_cuda_classify(const struct dt_copy_engine *w,
	const struct dt_copy_op *op)
{
	uintptr_t d = (uintptr_t)op->dst, s = (uintptr_t)op->src;
	int d_in, s_in;

	if (((const struct dt_copy_cuda_engine *)w)->any)
		return DT_COPY_CUDA_UVA;
	d_in = dt_copy_cuda_inside(w, d, op->len);
	s_in = dt_copy_cuda_inside(w, s, op->len);

	if ((!d_in && dt_copy_cuda_overlaps(w, d, op->len)) ||
			(!s_in && dt_copy_cuda_overlaps(w, s, op->len)))
		return -EFAULT;
	if (d_in && s_in)
		return DT_COPY_CUDA_DTOD;
	if (d_in)
		return DT_COPY_CUDA_HTOD;
	if (s_in)
		return DT_COPY_CUDA_DTOH;
	return -EINVAL;
}

/*
 * Count (and report once) host ranges that were never registered: CUDA
 * copies them through a bounce buffer, synchronously. A one-range cache
 * keeps the table lookup off the common path.
 */
static void
dt_copy_cuda_check_pinned(struct dt_copy_cuda_chan *ch, uintptr_t h,
	size_t len)
{
	struct gpu_cuda_priv *p = ch->e->p;
	int idx;

	if (h >= ch->pin_lo && len <= ch->pin_hi - h && h < ch->pin_hi)
		return;
	rte_rwlock_read_lock(&p->lock);
	idx = gpu_cuda_ranges_find(&p->regs, h, len);
	if (idx >= 0) {
		ch->pin_lo = p->regs.v[idx].start;
		ch->pin_hi = ch->pin_lo + p->regs.v[idx].len;
	} else if (gpu_cuda_ranges_covered(&p->regs, h, len)) {
		/* Across adjacent pieces of shared registrations: pinned too. */
		idx = 0;
	}
	rte_rwlock_read_unlock(&p->lock);
	if (idx >= 0)
		return;
	ch->xs.unpinned++;
	if (!ch->warned_unpinned) {
		ch->warned_unpinned = 1;
		GPU_CUDA_LOG(WARNING, "copy engine: host memory %p (+%zu) is not registered with rte_gpu_mem_register(); CUDA copies it synchronously through a bounce buffer",
			(void *)h, len);
	}
}

/* ------------------------------------------------------------ completion */

/* Submit @p slot is known complete: retire it (it is the oldest). */
static inline void
dt_copy_cuda_retire(struct dt_copy_cuda_chan *ch, uint32_t slot)
{
	ch->done = ch->sub_ticket[slot];
	/* The GPU has read every staged byte queued before it. */
	ch->stage_tail = ch->sub_stage[slot];
	ch->sub_tail++;
}

/*
 * The stream finished everything queued on it (cuStreamQuery or
 * cuStreamSynchronize said so): every submit is complete.
 */
void
dt_copy_cuda_retire_all(struct dt_copy_cuda_chan *ch)
{
	while (ch->sub_tail != ch->sub_head) {
		ch->xs.retired_stream++;
		dt_copy_cuda_retire(ch, ch->sub_tail % DT_COPY_CUDA_RING);
	}
}

void
dt_copy_cuda_gpu_failed(struct dt_copy_cuda_chan *ch, CUresult res)
{
	if (!ch->failed)
		GPU_CUDA_LOG(ERR, "copy engine: copy failed on the GPU: %s; channel stopped",
			gpu_cuda_strerror(&ch->e->p->api, res));
	ch->failed = 1;
}

/*
 * The scatter kernel refused a staged copy (its destination outside the
 * window, its bytes outside the ring: a bug of the caller or of staging).
 * Nothing queued after it may be reported complete, since the refused
 * bytes never landed: the channel stops where it is, and says why once.
 */
static void
dt_copy_cuda_stage_refused(struct dt_copy_cuda_chan *ch)
{
	volatile struct gpu_cuda_scatter_err *e = ch->serr_h;

	ch->xs.stage_refused = e->bad;
	if (ch->failed)
		return;
	ch->failed = 1;
	GPU_CUDA_LOG(ERR, "copy engine: the scatter or gather kernel refused %u copies, the first to 0x%" PRIx64 " (%u bytes; ring offset or source window offset %u; window [%p, +%zu)); channel stopped",
		e->bad, e->dst, e->len, e->off, ch->e->head.base, ch->e->head.len);
}

/*
 * The word has not moved for DT_COPY_CUDA_STALL_POLLS polls: ask the stream.
 * A failed copy never gets its ticket written (the stream stops at the
 * error), so this is where the channel learns of it; and a stream found
 * idle completes everything, whatever the word says.
 */
static void
dt_copy_cuda_stream_check(struct dt_copy_cuda_chan *ch, int *entered,
	int *pushed)
{
	CUresult res;

	if (!*entered) {
		if (dt_copy_cuda_enter(ch, pushed) != 0)
			return;
		*entered = 1;
	}
	ch->xs.calls_stream_query++;
	res = DT_COPY_CUDA_TIMED(ch, ch->e->p->api.cuStreamQuery(ch->stream));
	if (res == CUDA_SUCCESS && ch->serr_h != NULL && ch->serr_h->bad != 0)
		dt_copy_cuda_stage_refused(ch);
	else if (res == CUDA_SUCCESS)
		dt_copy_cuda_retire_all(ch);
	else if (res != CUDA_ERROR_NOT_READY)
		dt_copy_cuda_gpu_failed(ch, res);
}

/*
 * Retire the submits that completed, oldest first: those with a memop by a
 * load of the word (no driver call), those with an event by cuEventQuery
 * (the context is made current for it only then).
 */
void
dt_copy_cuda_reap(struct dt_copy_cuda_chan *ch)
{
	const struct gpu_cuda_api *api = &ch->e->p->api;
	uint32_t start = ch->sub_tail, slot;
	int have_word = 0, entered = 0, pushed = 0;
	uint64_t word = 0;
	CUresult res;

	while (ch->sub_tail != ch->sub_head) {
		slot = ch->sub_tail % DT_COPY_CUDA_RING;
		if (!ch->sub_event[slot]) {
			if (!have_word) {
				/* Acquire: D2H bytes are read after the word. */
				word = __atomic_load_n(ch->word_h,
					__ATOMIC_ACQUIRE);
				have_word = 1;
				/*
				 * After the word: a refusal the kernel
				 * recorded before the word moved is seen.
				 */
				if (unlikely(ch->serr_h != NULL &&
						ch->serr_h->bad != 0)) {
					dt_copy_cuda_stage_refused(ch);
					break;
				}
			}
			if (ch->sub_ticket[slot] > word)
				break;
			ch->xs.retired_memop++;
		} else {
			if (!entered) {
				if (dt_copy_cuda_enter(ch, &pushed) != 0)
					return;
				entered = 1;
			}
			ch->xs.calls_event_query++;
			res = DT_COPY_CUDA_TIMED(ch,
				api->cuEventQuery(ch->ev[slot]));
			if (res == CUDA_ERROR_NOT_READY)
				break;
			if (res != CUDA_SUCCESS) {
				dt_copy_cuda_gpu_failed(ch, res);
				break;
			}
			ch->xs.retired_event++;
			if (unlikely(ch->serr_h != NULL && ch->serr_h->bad != 0)) {
				dt_copy_cuda_stage_refused(ch);
				break;
			}
		}
		dt_copy_cuda_retire(ch, slot);
	}
	if (ch->sub_tail != start || ch->sub_tail == ch->sub_head)
		ch->stall = 0;
	else if (!ch->sub_event[ch->sub_tail % DT_COPY_CUDA_RING] &&
			++ch->stall >= DT_COPY_CUDA_STALL_POLLS) {
		ch->stall = 0;
		dt_copy_cuda_stream_check(ch, &entered, &pushed);
	}
	if (entered)
		dt_copy_cuda_leave(ch, pushed);
}

/* --------------------------------------------------------------- issuing */

static CUresult
dt_copy_cuda_issue_one(struct dt_copy_cuda_chan *ch,
	const struct dt_copy_cuda_run *r)
{
	const struct gpu_cuda_api *api = &ch->e->p->api;

	ch->xs.cuda_calls++;
	ch->xs.calls_memcpy++;
	switch (r->dir) {
	case DT_COPY_CUDA_HTOD:
		return DT_COPY_CUDA_TIMED(ch, api->cuMemcpyHtoDAsync(
			(CUdeviceptr)r->dst, (const void *)r->src, r->len,
			ch->stream));
	case DT_COPY_CUDA_DTOH:
		return DT_COPY_CUDA_TIMED(ch, api->cuMemcpyDtoHAsync(
			(void *)r->dst, (CUdeviceptr)r->src, r->len,
			ch->stream));
	case DT_COPY_CUDA_UVA:
		return DT_COPY_CUDA_TIMED(ch, api->cuMemcpyAsync(
			(CUdeviceptr)r->dst, (CUdeviceptr)r->src, r->len,
			ch->stream));
	default:
		return DT_COPY_CUDA_TIMED(ch, api->cuMemcpyDtoDAsync(
			(CUdeviceptr)r->dst, (CUdeviceptr)r->src, r->len,
			ch->stream));
	}
}

/*
 * One call for the whole batch. *whole is set when an error concerns the
 * batch as such (failIdx == SIZE_MAX): then no copy was queued.
 */
static CUresult
dt_copy_cuda_issue_batch(struct dt_copy_cuda_chan *ch, int *whole)
{
	/* Stream order: a source may be written by an earlier copy. */
	CUmemcpyAttributes attr = {
		.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
	};
	size_t attr_idx = 0, fail_idx = SIZE_MAX;
	CUresult res;
	uint32_t i;

	for (i = 0; i < ch->nruns; i++) {
		ch->dsts[i] = (CUdeviceptr)ch->runs[i].dst;
		ch->srcs[i] = (CUdeviceptr)ch->runs[i].src;
		ch->sizes[i] = ch->runs[i].len;
	}
	ch->xs.cuda_calls++;
	ch->xs.batches++;
	res = DT_COPY_CUDA_TIMED(ch, ch->e->p->api.cuMemcpyBatchAsync(
		ch->dsts, ch->srcs, ch->sizes, ch->nruns, &attr, &attr_idx, 1,
		&fail_idx, ch->stream));
	*whole = fail_idx == SIZE_MAX;
	return res;
}

/* Issue the pending merged copies; the context is current. */
static int
dt_copy_cuda_flush(struct dt_copy_cuda_chan *ch)
{
	CUresult res = CUDA_SUCCESS;
	int whole = 0;
	uint32_t i;

	if (ch->use_stage && ch->nruns > 1)
		dt_copy_cuda_stage(ch);
	for (i = 0; i < ch->nruns; i++)
		if (ch->runs[i].dir == DT_COPY_CUDA_HTOD)
			dt_copy_cuda_check_pinned(ch, ch->runs[i].src,
				ch->runs[i].len);
		else if (ch->runs[i].dir == DT_COPY_CUDA_DTOH)
			dt_copy_cuda_check_pinned(ch, ch->runs[i].dst,
				ch->runs[i].len);
	if (ch->use_batch && ch->nruns > 1) {
		res = dt_copy_cuda_issue_batch(ch, &whole);
		if (res != CUDA_SUCCESS && whole) {
			/* Nothing queued: go on without the batch API. */
			GPU_CUDA_LOG(WARNING, "copy engine: cuMemcpyBatchAsync refused a batch (%s); this channel now makes one call per copy",
				gpu_cuda_strerror(&ch->e->p->api, res));
			ch->use_batch = 0;
			res = CUDA_SUCCESS;
		}
	}
	if (!ch->use_batch || ch->nruns == 1)
		for (i = 0; i < ch->nruns && res == CUDA_SUCCESS; i++)
			res = dt_copy_cuda_issue_one(ch, &ch->runs[i]);
	ch->nruns = 0;
	if (res == CUDA_SUCCESS)
		return 0;
	GPU_CUDA_LOG(ERR, "copy engine: CUDA copy failed: %s; channel stopped",
		gpu_cuda_strerror(&ch->e->p->api, res));
	ch->failed = 1;
	return -EIO;
}

/* Merge @p op into the last run when it continues it on both sides. */
static inline int
dt_copy_cuda_merge(struct dt_copy_cuda_chan *ch, const struct dt_copy_op *op,
	enum dt_copy_cuda_dir dir)
{
	struct dt_copy_cuda_run *r;

	if (ch->nruns == 0)
		return 0;
	r = &ch->runs[ch->nruns - 1];
	if (r->dir != dir || r->dst + r->len != (uintptr_t)op->dst ||
			r->src + r->len != (uintptr_t)op->src)
		return 0;
	r->len += op->len;
	return 1;
}

static int
dt_copy_cuda_add(struct dt_copy_cuda_chan *ch, const struct dt_copy_op *op,
	enum dt_copy_cuda_dir dir)
{
	struct dt_copy_cuda_run *r;
	int ret;

	if (op->len == 0 || dt_copy_cuda_merge(ch, op, dir))
		return 0;
	if (ch->nruns == DT_COPY_CUDA_BATCH) {
		ret = dt_copy_cuda_flush(ch);
		if (ret != 0)
			return ret;
	}
	r = &ch->runs[ch->nruns++];
	r->dst = (uintptr_t)op->dst;
	r->src = (uintptr_t)op->src;
	r->len = op->len;
	r->dir = dir;
	ch->xs.merged++;
	/* A unified-address copy may write host memory too. */
	if (dir == DT_COPY_CUDA_DTOH || dir == DT_COPY_CUDA_UVA)
		ch->pending_dtoh = 1;
	return 0;
}

/* ----------------------------------------------------------------- ops */

uint64_t
dt_copy_cuda_completed(struct dt_copy_chan *dch)
{
	struct dt_copy_cuda_chan *ch = dt_copy_cuda_chan(dch);

	ch->xs.polls++;
	if (ch->sub_tail == ch->sub_head)
		return ch->done;
	ch->xs.polls_pending++;
	dt_copy_cuda_reap(ch);
	return ch->done;
}

static int
dt_copy_cuda_failed(struct dt_copy_chan *dch)
{
	return dt_copy_cuda_chan(dch)->failed ? -EIO : 0;
}

/*
 * The memop path failed or is missing: log it once per engine (one line
 * for all its channels), then complete by events.
 */
void
dt_copy_cuda_memop_off(struct dt_copy_cuda_chan *ch, const char *why,
	CUresult res)
{
	ch->use_memop = 0;
	ch->xs.completion = DT_COPY_CUDA_COMPLETION_EVENT;
	if (__atomic_exchange_n(&ch->e->warned_memop, 1, __ATOMIC_RELAXED))
		return;
	if (res != CUDA_SUCCESS)
		GPU_CUDA_LOG(WARNING, "copy engine: completion without driver calls is off: %s failed (%s); channels poll a CUDA event per submit instead",
			why, gpu_cuda_strerror(&ch->e->p->api, res));
	else
		GPU_CUDA_LOG(WARNING, "copy engine: completion without driver calls is off: %s; channels poll a CUDA event per submit instead",
			why);
}

/*
 * End submit @p slot (last ticket @p last) with what tells its completion:
 * the write of @p last into the channel's word, or else its event. The
 * write's default flags order it after the submit's copies, device->host
 * bytes included, so the word never runs ahead of them.
 */
int
dt_copy_cuda_mark(struct dt_copy_cuda_chan *ch, uint32_t slot, uint64_t last)
{
	const struct gpu_cuda_api *api = &ch->e->p->api;
	CUresult res;

	if (ch->use_memop) {
		if (ch->e->test_fail_memop) {
			res = CUDA_ERROR_NOT_SUPPORTED;
		} else {
			ch->xs.calls_write_value++;
			res = DT_COPY_CUDA_TIMED(ch, api->cuStreamWriteValue64(
				ch->stream, ch->word_d, last,
				CU_STREAM_WRITE_VALUE_DEFAULT));
		}
		if (res == CUDA_SUCCESS) {
			ch->sub_event[slot] = 0;
			return 0;
		}
		dt_copy_cuda_memop_off(ch, "cuStreamWriteValue64", res);
	}
	ch->xs.calls_event_record++;
	res = DT_COPY_CUDA_TIMED(ch, api->cuEventRecord(ch->ev[slot],
		ch->stream));
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "copy engine: cuEventRecord failed: %s; channel stopped",
			gpu_cuda_strerror(api, res));
		ch->failed = 1;
		return -EIO;
	}
	ch->sub_event[slot] = 1;
	return 0;
}

/* Queue the valid prefix of @p ops and mark its completion; context current. */
static int
dt_copy_cuda_enqueue(struct dt_copy_cuda_chan *ch, const struct dt_copy_op *ops,
	uint16_t n, uint64_t *bytes)
{
	uint32_t slot = ch->sub_head % DT_COPY_CUDA_RING;
	uint64_t last;
	uint16_t i;
	int dir = 0, ret;

	*bytes = 0;
	for (i = 0; i < n; i++) {
		dir = dt_copy_cuda_classify(&ch->e->head, &ops[i]);
		if (dir < 0)
			break;
		ret = dt_copy_cuda_add(ch, &ops[i], dir);
		if (ret != 0)
			return ret;
		*bytes += ops[i].len;
	}
	/* The refused copy is reported when it comes first (dt_copy.h). */
	if (i == 0)
		return dir;
	ret = dt_copy_cuda_flush(ch);
	if (ret != 0)
		return ret;
	last = ch->head.next_ticket + i - 1;
	ret = dt_copy_cuda_mark(ch, slot, last);
	if (ret != 0)
		return ret;
	ch->sub_ticket[slot] = last;
	ch->sub_stage[slot] = ch->stage_head;
	if (ch->pending_dtoh) {
		ch->dtoh_ticket = last;
		ch->pending_dtoh = 0;
	}
	ch->sub_head++;
	return i;
}

static int
dt_copy_cuda_submit(struct dt_copy_chan *dch, const struct dt_copy_op *ops,
	uint16_t n, uint64_t *ticket)
{
	struct dt_copy_cuda_chan *ch = dt_copy_cuda_chan(dch);
	uint64_t bytes;
	int pushed, q;

	if (ticket != NULL)
		*ticket = ch->head.next_ticket - 1;
	if (ch->failed)
		return -EIO;
	if (n == 0)
		return 0;
	if (ch->sub_head - ch->sub_tail == DT_COPY_CUDA_RING &&
			(dt_copy_cuda_completed(dch),
			ch->sub_head - ch->sub_tail == DT_COPY_CUDA_RING)) {
		ch->xs.ring_full++;
		return 0;
	}
	q = dt_copy_cuda_enter(ch, &pushed);
	if (q != 0)
		return q;
	q = dt_copy_cuda_enqueue(ch, ops, n, &bytes);
	dt_copy_cuda_leave(ch, pushed);
	if (q == -EINVAL || q == -EFAULT)
		ch->head.stats.errors++;
	if (q <= 0)
		return q;
	ch->head.next_ticket += q;
	ch->head.stats.calls++;
	ch->head.stats.copies += q;
	ch->head.stats.bytes += bytes;
	if (ticket != NULL)
		*ticket = ch->head.next_ticket - 1;
	return q;
}

const struct dt_copy_engine_ops dt_copy_cuda_ops = {
	.name = "cuda",
	.chan_open = dt_copy_cuda_chan_open,
	.chan_close = dt_copy_cuda_chan_close,
	.submit = dt_copy_cuda_submit,
	.completed = dt_copy_cuda_completed,
	.failed = dt_copy_cuda_failed,
	.destroy = dt_copy_cuda_destroy,
	.gather_target = dt_copy_cuda_gather_target,
	.gather = dt_copy_cuda_gather,
};
