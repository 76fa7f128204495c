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

#include "dt_copy.h"
#include "gpu_cuda_priv.h"
#include "gpu_cuda_scatter.h"
#include "rte_pmd_gpu_cuda.h"

/* Submits in flight per channel; a full ring makes submit return 0. */
#define DT_COPY_CUDA_RING 1024
/* Merged copies per CUDA call; a bigger submit takes several calls. */
#define DT_COPY_CUDA_BATCH 256
/*
 * Bytes of each staging ring (one pinned on the host, one on the device):
 * about 170 batches of 32 MTU-sized copies in flight. A group of staged
 * copies takes at most half of it, so that one group always fits once the
 * GPU has caught up.
 */
#define DT_COPY_CUDA_STAGE_RING (8u << 20)
#define DT_COPY_CUDA_STAGE_GROUP_MAX (DT_COPY_CUDA_STAGE_RING / 2)

enum dt_copy_cuda_dir {
	DT_COPY_CUDA_HTOD,
	DT_COPY_CUDA_DTOH,
	DT_COPY_CUDA_DTOD,
};

struct dt_copy_cuda_chan;

struct dt_copy_cuda_engine {
	struct dt_copy_engine head;     /* first: dt_copy.h casts */
	struct gpu_cuda_priv *p;
	enum dt_copy_cuda_mode mode;
	uint32_t stage_max;             /* largest staged copy; 0: no staging */
	enum dt_copy_cuda_completion completion;
	enum dt_copy_cuda_stage_read stage_read;
	int test_fail_memop;            /* dt_copy_cuda_engine_test_fail_memop() */
	int warned_memop;               /* the fall-back to events was logged */
	rte_spinlock_t lock;            /* guards chans (control path only) */
	struct dt_copy_cuda_chan *chans; /* open channels, oldest first */
};

/* One merged copy waiting to be issued. */
struct dt_copy_cuda_run {
	uintptr_t dst;
	uintptr_t src;
	size_t len;
	enum dt_copy_cuda_dir dir;
};

struct dt_copy_cuda_chan {
	struct dt_copy_chan head;       /* first: dt_copy.h casts */
	struct dt_copy_cuda_engine *e;
	struct dt_copy_cuda_chan *next; /* in e->chans */
	CUstream stream;
	int use_batch;
	int failed;                     /* sticky: a CUDA call failed */
	int warned_unpinned;
	/*
	 * Ring of submits in flight: sub_head is the next to queue, sub_tail
	 * the oldest not known complete (both free-running). Each submit ends
	 * with a write of its last ticket to *word_h (use_memop) or with its
	 * event (sub_event[slot] = 1: before the memop path was set up, or
	 * after it failed).
	 */
	uint32_t sub_head;
	uint32_t sub_tail;
	uint64_t done;                  /* highest ticket known complete */
	int use_memop;
	volatile uint64_t *word_h;      /* pinned, device-mapped; GPU writes it */
	CUdeviceptr word_d;             /* its device address */
	uint32_t stall;                 /* polls without progress (memop) */
	uint32_t nruns;
	uintptr_t pin_lo, pin_hi;       /* last registered host range seen */
	struct dt_copy_cuda_chan_stats xs;
	/*
	 * Staging (dt_copy_cuda_stage()): byte positions in the rings run
	 * free; [stage_tail, stage_head) is still read by the GPU. Each
	 * submit carries stage_head as it was when it was queued, so the
	 * space is reused only after that submit completed.
	 */
	int use_stage;
	int stage_zc;                   /* the kernel reads the host ring */
	uint32_t stage_max;
	uint8_t *stage_h;               /* pinned host ring (cuMemHostAlloc) */
	CUdeviceptr stage_hd;           /* its device mapping (stage_zc) */
	CUdeviceptr stage_d;            /* device ring, same size (!stage_zc) */
	uint64_t stage_head;
	uint64_t stage_tail;
	/* What the scatter kernel refused (pinned, device-mapped). */
	volatile struct gpu_cuda_scatter_err *serr_h;
	CUdeviceptr serr_d;
	int pending_dtoh;               /* this submit has a device->host copy */
	uint64_t dtoh_ticket;           /* last ticket of a submit that had one */
	struct dt_copy_cuda_run runs[DT_COPY_CUDA_BATCH];
	uint8_t staged[DT_COPY_CUDA_BATCH];
	CUdeviceptr dsts[DT_COPY_CUDA_BATCH];
	CUdeviceptr srcs[DT_COPY_CUDA_BATCH];
	size_t sizes[DT_COPY_CUDA_BATCH];
	CUevent ev[DT_COPY_CUDA_RING];
	uint64_t sub_ticket[DT_COPY_CUDA_RING]; /* last ticket of the submit */
	uint64_t sub_stage[DT_COPY_CUDA_RING];  /* stage_head when queued */
	uint8_t sub_event[DT_COPY_CUDA_RING];   /* completion by its event */
};

static const struct dt_copy_engine_ops dt_copy_cuda_ops;

/*
 * A libcuda call of the data path, its TSC cycles added to the channel's
 * cycles_driver: the figure that shows whether calls get dearer as more
 * threads share the context (driver locks), whatever their count.
 */
#define DT_COPY_CUDA_TIMED(ch, call) __extension__ ({ \
	uint64_t dt_t0_ = rte_rdtsc(); \
	CUresult dt_r_ = (call); \
	(ch)->xs.cycles_driver += rte_rdtsc() - dt_t0_; \
	dt_r_; \
})

static inline struct dt_copy_cuda_chan *
dt_copy_cuda_chan(struct dt_copy_chan *ch)
{
	return (struct dt_copy_cuda_chan *)ch;
}

/*
 * Make the context current for a few calls, counting the driver calls that
 * costs. A thread that has no context current keeps ours afterwards (as
 * cudaSetDevice() would leave it), so that a poll thread pays one
 * cuCtxGetCurrent per submit instead of a push and a pop as well; a thread
 * with another context current gets it back in dt_copy_cuda_leave().
 */
static inline int
dt_copy_cuda_enter(struct dt_copy_cuda_chan *ch, int *pushed)
{
	const struct gpu_cuda_priv *p = ch->e->p;
	CUcontext cur = NULL;
	CUresult res;

	*pushed = 0;
	ch->xs.calls_ctx++;
	if (DT_COPY_CUDA_TIMED(ch, p->api.cuCtxGetCurrent(&cur)) ==
			CUDA_SUCCESS && cur == p->ctx)
		return 0;
	ch->xs.calls_ctx++;
	res = DT_COPY_CUDA_TIMED(ch, p->api.cuCtxPushCurrent(p->ctx));
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "copy engine: cuCtxPushCurrent failed: %s",
			gpu_cuda_strerror(&p->api, res));
		return -EIO;
	}
	*pushed = cur != NULL;
	return 0;
}

static inline void
dt_copy_cuda_leave(struct dt_copy_cuda_chan *ch, int pushed)
{
	uint64_t t0;

	if (!pushed)
		return;
	ch->xs.calls_ctx++;
	t0 = rte_rdtsc();
	gpu_cuda_ctx_leave(ch->e->p, pushed);
	ch->xs.cycles_driver += rte_rdtsc() - t0;
}

/* ----------------------------------------------------------- validation */

/* [a, a + len) inside the window; written so that nothing overflows. */
static inline int
dt_copy_cuda_inside(const struct dt_copy_engine *w, uintptr_t a, size_t len)
{
	uintptr_t off = a - (uintptr_t)w->base;

	return off < w->len && len <= w->len - off;
}

static inline int
dt_copy_cuda_overlaps(const struct dt_copy_engine *w, uintptr_t a, size_t len)
{
	uintptr_t b = (uintptr_t)w->base;

	return a < b + w->len && (len > b - a || a >= b);
}

/*
 * Direction of a copy; -EFAULT for a range straddling the window edge (half
 * device, half host), -EINVAL for host to host (not this engine's job).
 */
static int
dt_copy_cuda_classify(const struct dt_copy_engine *w,
	const struct dt_copy_op *op)
{
	uintptr_t d = (uintptr_t)op->dst, s = (uintptr_t)op->src;
	int d_in = dt_copy_cuda_inside(w, d, op->len);
	int s_in = dt_copy_cuda_inside(w, s, op->len);

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
static void
dt_copy_cuda_retire_all(struct dt_copy_cuda_chan *ch)
{
	while (ch->sub_tail != ch->sub_head) {
		ch->xs.retired_stream++;
		dt_copy_cuda_retire(ch, ch->sub_tail % DT_COPY_CUDA_RING);
	}
}

static void
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
	GPU_CUDA_LOG(ERR, "copy engine: the scatter kernel refused %u staged copies, the first to 0x%" PRIx64 " (%u bytes from ring offset %u; window [%p, +%zu)); channel stopped",
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
static void
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

/* --------------------------------------------------------------- staging */

/*
 * Whether run @p r may be staged: host to device, its source memory the
 * CPU can read (not an allocation of this device outside the window, which
 * dt_copy.h would call host memory too), and small: at most stage_max
 * bytes, or at most DT_COPY_CUDA_STAGE_MAX_LIMIT when the source was never
 * registered. A direct copy of unregistered memory is synchronous, through
 * CUDA's bounce buffer; staged, it costs one CPU memcpy into the pinned
 * ring. That is what lets the payload pieces of a 9000-byte MTU (4 KiB
 * device buffers, or a whole 8960-byte payload when its buffers are
 * contiguous) be staged from a wire that nobody registered, while
 * registered sources keep the measured stage_max (the direct batch is as
 * fast above it). The caller holds p->lock for reading.
 */
static inline int
dt_copy_cuda_stageable(const struct dt_copy_cuda_chan *ch,
	const struct dt_copy_cuda_run *r)
{
	const struct gpu_cuda_priv *p = ch->e->p;

	if (r->dir != DT_COPY_CUDA_HTOD ||
			gpu_cuda_ranges_find(&p->allocs, r->src, 1) >= 0)
		return 0;
	if (r->len <= ch->stage_max)
		return 1;
	return r->len <= DT_COPY_CUDA_STAGE_MAX_LIMIT &&
		!gpu_cuda_ranges_covered(&p->regs, r->src, r->len);
}

/*
 * Find @p need bytes in the staging ring, reaping completed submits once
 * if it is full. A group never wraps: the ring's tail end is skipped (and
 * freed with the group). 0 and *pos, or -ENOSPC.
 */
static int
dt_copy_cuda_stage_reserve(struct dt_copy_cuda_chan *ch, size_t need,
	uint64_t *pos)
{
	uint64_t off, start;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		off = ch->stage_head % DT_COPY_CUDA_STAGE_RING;
		start = ch->stage_head;
		if (off + need > DT_COPY_CUDA_STAGE_RING)
			start += DT_COPY_CUDA_STAGE_RING - off;
		if (start + need - ch->stage_tail <= DT_COPY_CUDA_STAGE_RING) {
			*pos = start;
			return 0;
		}
		if (tries == 0)
			dt_copy_cuda_reap(ch);
	}
	return -ENOSPC;
}

/* A staged call failed: this channel goes on with the direct path only. */
static void
dt_copy_cuda_stage_off(struct dt_copy_cuda_chan *ch, const char *what,
	CUresult res)
{
	GPU_CUDA_LOG(WARNING, "copy engine: staged copies: %s failed (%s); this channel now issues small host->device copies directly",
		what, gpu_cuda_strerror(&ch->e->p->api, res));
	ch->use_stage = 0;
}

/*
 * The scatter kernel over @p n descriptors at @p descs_d, bytes in the ring
 * at @p ring_d; it refuses (and records) any copy outside the engine's
 * window or the ring. The context is current.
 */
static CUresult
dt_copy_cuda_scatter_launch(struct dt_copy_cuda_chan *ch, CUdeviceptr descs_d,
	uint32_t n, CUdeviceptr ring_d)
{
	struct gpu_cuda_priv *p = ch->e->p;
	unsigned long long win = (unsigned long long)(uintptr_t)ch->e->head.base;
	unsigned long long win_len = ch->e->head.len;
	unsigned int ring_len = DT_COPY_CUDA_STAGE_RING;
	void *args[7] = { &descs_d, &n, &ring_d, &ring_len, &win, &win_len,
		&ch->serr_d };

	ch->xs.cuda_calls++;
	ch->xs.calls_launch++;
	return DT_COPY_CUDA_TIMED(ch, p->api.cuLaunchKernel(p->fn_scatter,
		n, 1, 1, GPU_CUDA_SCATTER_BLOCK, 1, 1, 0, ch->stream, args,
		NULL));
}

/*
 * Issue the small host->device runs of ch->runs as one staged group: pack
 * their descriptors and bytes into the host ring and scatter them with one
 * kernel launch, which reads the host ring through its device mapping
 * (stage_zc) or a device ring that one copy call filled first. The runs
 * staged leave ch->runs; the others stay, in order, for the direct path,
 * and so do all of them when staging is not possible now (ring full, fewer
 * than two candidates) or fails. The context is current.
 */
static void
dt_copy_cuda_stage(struct dt_copy_cuda_chan *ch)
{
	struct gpu_cuda_priv *p = ch->e->p;
	struct gpu_cuda_scatter_desc *desc;
	uint32_t i, j, n = 0, base, c;
	CUdeviceptr descs_d, ring_d;
	size_t need = 0, sz;
	uint64_t pos, t_pack;
	CUresult res;
	uint8_t *h;

	/*
	 * The CPU reads sources now, not in stream order: while a
	 * device->host copy of an earlier submit may still be writing host
	 * memory, stage nothing.
	 */
	if (ch->done < ch->dtoh_ticket) {
		dt_copy_cuda_reap(ch);
		if (ch->done < ch->dtoh_ticket)
			return;
	}
	rte_rwlock_read_lock(&p->lock);
	for (i = 0; i < ch->nruns; i++) {
		/* Descriptor, bytes, and up to 15 bytes of alignment. */
		sz = sizeof(*desc) + ch->runs[i].len + 15;
		ch->staged[i] = dt_copy_cuda_stageable(ch, &ch->runs[i]) &&
			need + sz <= DT_COPY_CUDA_STAGE_GROUP_MAX;
		if (ch->staged[i]) {
			need += sz;
			n++;
		}
	}
	rte_rwlock_read_unlock(&p->lock);
	/* One copy alone is cheaper as one direct call than as two. */
	if (n < 2)
		return;
	need = RTE_ALIGN_CEIL(need, 16);
	if (dt_copy_cuda_stage_reserve(ch, need, &pos) != 0) {
		ch->xs.stage_full++;
		return;
	}
	base = (uint32_t)(pos % DT_COPY_CUDA_STAGE_RING);
	h = ch->stage_h + base;
	desc = (struct gpu_cuda_scatter_desc *)h;
	c = n * sizeof(*desc);
	t_pack = rte_rdtsc();
	for (i = 0, j = 0; i < ch->nruns; i++) {
		const struct dt_copy_cuda_run *r = &ch->runs[i];

		if (!ch->staged[i])
			continue;
		/*
		 * base and the ring are 16-byte aligned: make the staged
		 * bytes agree with the destination modulo 16, so that the
		 * kernel copies 16 bytes at a time on both sides.
		 */
		c += (uint32_t)((r->dst - c) & 15);
		desc[j].dst = r->dst;
		desc[j].off = base + c;
		desc[j].len = (uint32_t)r->len;
		memcpy(h + c, (const void *)r->src, r->len);
		c += (uint32_t)r->len;
		j++;
	}
	ch->xs.cycles_pack += rte_rdtsc() - t_pack;
	if (ch->stage_zc) {
		/* The kernel reads the bytes where the CPU put them. */
		ring_d = ch->stage_hd;
	} else {
		ring_d = ch->stage_d;
		ch->xs.cuda_calls++;
		ch->xs.calls_memcpy++;
		res = DT_COPY_CUDA_TIMED(ch, p->api.cuMemcpyHtoDAsync(
			ring_d + base, h, c, ch->stream));
		if (res != CUDA_SUCCESS) {
			dt_copy_cuda_stage_off(ch, "cuMemcpyHtoDAsync of the staging ring", res);
			return;
		}
	}
	descs_d = ring_d + base;
	/* The GPU may read the ring from now on: the space is in use. */
	ch->stage_head = pos + need;
	res = dt_copy_cuda_scatter_launch(ch, descs_d, n, ring_d);
	if (res != CUDA_SUCCESS) {
		dt_copy_cuda_stage_off(ch, "cuLaunchKernel of the scatter kernel", res);
		return;
	}
	ch->xs.stage_launches++;
	ch->xs.staged += n;
	for (i = 0, j = 0; i < ch->nruns; i++)
		if (!ch->staged[i])
			ch->runs[j++] = ch->runs[i];
	ch->nruns = j;
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
	if (dir == DT_COPY_CUDA_DTOH)
		ch->pending_dtoh = 1;
	return 0;
}

/* ----------------------------------------------------------------- ops */

static uint64_t
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
static void
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
static int
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

/* Take @p ch out of its engine's list (a no-op when it is not there). */
static void
dt_copy_cuda_chan_unlink(struct dt_copy_cuda_chan *ch)
{
	struct dt_copy_cuda_engine *e = ch->e;
	struct dt_copy_cuda_chan **pp;

	rte_spinlock_lock(&e->lock);
	for (pp = &e->chans; *pp != NULL; pp = &(*pp)->next)
		if (*pp == ch) {
			*pp = ch->next;
			break;
		}
	rte_spinlock_unlock(&e->lock);
}

static void
dt_copy_cuda_chan_free(struct dt_copy_cuda_chan *ch)
{
	const struct gpu_cuda_api *api = &ch->e->p->api;
	uint32_t i;
	int pushed;

	dt_copy_cuda_chan_unlink(ch);
	if (gpu_cuda_ctx_enter(ch->e->p, &pushed) == 0) {
		if (ch->stream != NULL)
			api->cuStreamSynchronize(ch->stream);
		for (i = 0; i < DT_COPY_CUDA_RING; i++)
			if (ch->ev[i] != NULL)
				api->cuEventDestroy(ch->ev[i]);
		if (ch->stream != NULL)
			api->cuStreamDestroy(ch->stream);
		if (ch->stage_h != NULL)
			api->cuMemFreeHost(ch->stage_h);
		if (ch->stage_d != 0)
			api->cuMemFree(ch->stage_d);
		if (ch->word_h != NULL)
			api->cuMemFreeHost((void *)(uintptr_t)ch->word_h);
		if (ch->serr_h != NULL)
			api->cuMemFreeHost((void *)(uintptr_t)ch->serr_h);
		gpu_cuda_ctx_leave(ch->e->p, pushed);
	}
	rte_free(ch);
}

static void
dt_copy_cuda_chan_close(struct dt_copy_chan *dch)
{
	dt_copy_cuda_chan_free(dt_copy_cuda_chan(dch));
}

/*
 * Stream and events; the context is current. Events are made in every
 * mode: a memop channel falls back to them if a write ever fails.
 */
static int
dt_copy_cuda_chan_init(struct dt_copy_cuda_chan *ch)
{
	const struct gpu_cuda_api *api = &ch->e->p->api;
	CUresult res;
	uint32_t i;

	/* Non-blocking: never serialise with other users' legacy stream 0. */
	res = api->cuStreamCreate(&ch->stream, CU_STREAM_NON_BLOCKING);
	for (i = 0; i < DT_COPY_CUDA_RING && res == CUDA_SUCCESS; i++)
		res = api->cuEventCreate(&ch->ev[i], CU_EVENT_DISABLE_TIMING);
	if (res == CUDA_SUCCESS)
		return 0;
	GPU_CUDA_LOG(ERR, "copy engine: creating a stream and %u events failed: %s",
		DT_COPY_CUDA_RING, gpu_cuda_strerror(api, res));
	return -EIO;
}

/*
 * Pinned host memory the GPU reaches: cuMemHostAlloc mapped into the
 * device's address space, and the device address of it. The context is
 * current. On failure *what names the call and nothing stays allocated.
 */
static CUresult
dt_copy_cuda_host_alloc_mapped(struct dt_copy_cuda_chan *ch, size_t len,
	void **h, CUdeviceptr *d, const char **what)
{
	const struct gpu_cuda_api *api = &ch->e->p->api;
	CUresult res;

	*h = NULL;
	*d = 0;
	*what = "cuMemHostAlloc";
	res = api->cuMemHostAlloc(h, len,
		CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
	if (res != CUDA_SUCCESS)
		return res;
	*what = "cuMemHostGetDevicePointer";
	res = api->cuMemHostGetDevicePointer(d, *h, 0);
	if (res == CUDA_SUCCESS)
		return res;
	api->cuMemFreeHost(*h);
	*h = NULL;
	*d = 0;
	return res;
}

/*
 * Completion word of a memop channel (COMPLETION_AUTO and _MEMOP): where
 * the device, the driver or the allocation says no, the channel completes
 * by events, and that is logged once. The context is current.
 */
static void
dt_copy_cuda_memop_init(struct dt_copy_cuda_chan *ch)
{
	struct gpu_cuda_priv *p = ch->e->p;
	const struct gpu_cuda_api *api = &p->api;
	const char *what;
	CUdeviceptr d;
	CUresult res;
	void *h;
	int v = 0;

	ch->xs.completion = DT_COPY_CUDA_COMPLETION_EVENT;
	if (ch->e->completion == DT_COPY_CUDA_COMPLETION_EVENT)
		return;
	if (api->cuStreamWriteValue64 == NULL || api->cuMemHostAlloc == NULL ||
			api->cuMemFreeHost == NULL) {
		dt_copy_cuda_memop_off(ch, "libcuda lacks cuStreamWriteValue64 or cuMemHostAlloc",
			CUDA_SUCCESS);
		return;
	}
	res = api->cuDeviceGetAttribute(&v,
		CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, p->cu_dev);
	if (res != CUDA_SUCCESS) {
		dt_copy_cuda_memop_off(ch, "cuDeviceGetAttribute(CAN_USE_64_BIT_STREAM_MEM_OPS)",
			res);
		return;
	}
	if (v == 0) {
		dt_copy_cuda_memop_off(ch, "the device has no 64-bit stream memory operations",
			CUDA_SUCCESS);
		return;
	}
	res = dt_copy_cuda_host_alloc_mapped(ch, RTE_CACHE_LINE_SIZE, &h, &d,
		&what);
	if (res != CUDA_SUCCESS) {
		dt_copy_cuda_memop_off(ch, what, res);
		return;
	}
	ch->word_h = h;
	ch->word_d = d;
	*ch->word_h = 0; /* completed() == 0: nothing landed yet */
	ch->use_memop = 1;
	ch->xs.completion = DT_COPY_CUDA_COMPLETION_MEMOP;
}

/*
 * Staging rings and the scatter kernel, in the AUTO, STAGED and
 * STAGED_PER_COPY modes; the context is current. Failing here is not an
 * error: the channel then issues every copy directly, and says so once.
 * Where the host ring cannot be mapped for the kernel, it is copied to a
 * device ring first.
 */
static void
dt_copy_cuda_stage_init(struct dt_copy_cuda_chan *ch)
{
	struct gpu_cuda_priv *p = ch->e->p;
	const struct gpu_cuda_api *api = &p->api;
	const char *what = "cuMemHostAlloc";
	CUresult res = CUDA_SUCCESS;
	void *h = NULL;

	ch->xs.stage_read = ch->e->stage_read;
	if ((ch->e->mode != DT_COPY_CUDA_MODE_AUTO &&
			ch->e->mode != DT_COPY_CUDA_MODE_STAGED &&
			ch->e->mode != DT_COPY_CUDA_MODE_STAGED_PER_COPY) ||
			ch->e->stage_max == 0)
		return;
	if (gpu_cuda_kernels_load(p) != 0 || p->fn_scatter == NULL) {
		GPU_CUDA_LOG(WARNING, "copy engine: no scatter kernel (see above): small host->device copies are issued directly");
		return;
	}
	if (api->cuMemHostAlloc == NULL || api->cuMemFreeHost == NULL) {
		GPU_CUDA_LOG(WARNING, "copy engine: libcuda lacks cuMemHostAlloc/cuMemFreeHost: small host->device copies are issued directly");
		return;
	}
	if (ch->xs.stage_read == DT_COPY_CUDA_STAGE_READ_HOST) {
		res = dt_copy_cuda_host_alloc_mapped(ch,
			DT_COPY_CUDA_STAGE_RING, &h, &ch->stage_hd, &what);
		if (res == CUDA_SUCCESS) {
			ch->stage_zc = 1;
		} else {
			GPU_CUDA_LOG(WARNING, "copy engine: %s of a device-mapped staging ring failed (%s): staged groups are copied to the device before the scatter",
				what, gpu_cuda_strerror(api, res));
			ch->xs.stage_read = DT_COPY_CUDA_STAGE_READ_DEVICE;
		}
	}
	if (!ch->stage_zc) {
		/* The two-call path: a pinned ring and a device ring. */
		what = "cuMemHostAlloc";
		res = api->cuMemHostAlloc(&h, DT_COPY_CUDA_STAGE_RING, 0);
		if (res == CUDA_SUCCESS) {
			ch->stage_h = h;
			what = "cuMemAlloc";
			res = api->cuMemAlloc(&ch->stage_d,
				DT_COPY_CUDA_STAGE_RING);
		}
	} else {
		ch->stage_h = h;
	}
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(WARNING, "copy engine: %s of a %u-byte staging ring failed (%s): small host->device copies are issued directly",
			what, DT_COPY_CUDA_STAGE_RING, gpu_cuda_strerror(api, res));
		if (ch->stage_h != NULL)
			api->cuMemFreeHost(ch->stage_h);
		ch->stage_h = NULL;
		ch->stage_hd = 0;
		ch->stage_d = 0;
		ch->stage_zc = 0;
		return;
	}
	what = "the scatter kernel's error record";
	res = dt_copy_cuda_host_alloc_mapped(ch, 64, &h, &ch->serr_d, &what);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(WARNING, "copy engine: %s failed (%s): small host->device copies are issued directly",
			what, gpu_cuda_strerror(api, res));
		return;
	}
	memset(h, 0, 64);
	ch->serr_h = h;
	ch->stage_max = ch->e->stage_max;
	ch->use_stage = 1;
}

static struct dt_copy_chan *
dt_copy_cuda_chan_open(struct dt_copy_engine *ce)
{
	struct dt_copy_cuda_engine *e = (struct dt_copy_cuda_engine *)ce;
	struct dt_copy_cuda_chan *ch, **pp;
	int pushed, ret;

	ch = rte_zmalloc("dt_copy_cuda_chan", sizeof(*ch), RTE_CACHE_LINE_SIZE);
	if (ch == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ch->head.ce = ce;
	ch->head.next_ticket = 1; /* completed() == 0: nothing landed yet */
	ch->e = e;
	ch->use_batch = e->mode != DT_COPY_CUDA_MODE_PER_COPY &&
		e->mode != DT_COPY_CUDA_MODE_STAGED_PER_COPY &&
		e->p->api.cuMemcpyBatchAsync != NULL;
	ret = gpu_cuda_ctx_enter(e->p, &pushed);
	if (ret == 0) {
		ret = dt_copy_cuda_chan_init(ch);
		if (ret == 0) {
			dt_copy_cuda_memop_init(ch);
			dt_copy_cuda_stage_init(ch);
		}
		gpu_cuda_ctx_leave(e->p, pushed);
	}
	if (ret != 0) {
		dt_copy_cuda_chan_free(ch);
		rte_errno = -ret;
		return NULL;
	}
	/* At the tail: the stats list channels in the order they opened. */
	rte_spinlock_lock(&e->lock);
	for (pp = &e->chans; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = ch;
	rte_spinlock_unlock(&e->lock);
	return &ch->head;
}

static void
dt_copy_cuda_destroy(struct dt_copy_engine *ce)
{
	struct dt_copy_cuda_engine *e = (struct dt_copy_cuda_engine *)ce;

	gpu_cuda_priv_put(e->p);
	rte_free(e);
}

static const struct dt_copy_engine_ops dt_copy_cuda_ops = {
	.name = "cuda",
	.chan_open = dt_copy_cuda_chan_open,
	.chan_close = dt_copy_cuda_chan_close,
	.submit = dt_copy_cuda_submit,
	.completed = dt_copy_cuda_completed,
	.failed = dt_copy_cuda_failed,
	.destroy = dt_copy_cuda_destroy,
};

/* ---------------------------------------------------------- public API */

struct dt_copy_engine *
dt_copy_cuda_engine_create(int16_t gpu_dev_id, void *base, size_t len)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(gpu_dev_id);
	struct dt_copy_cuda_engine *e;
	int idx;

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "copy engine: gpudev %d is not a gpu_cuda device",
			gpu_dev_id);
		rte_errno = ENODEV;
		return NULL;
	}
	rte_rwlock_read_lock(&p->lock);
	idx = len == 0 ? -1 :
		gpu_cuda_ranges_find(&p->allocs, (uintptr_t)base, len);
	rte_rwlock_read_unlock(&p->lock);
	if (idx < 0) {
		GPU_CUDA_LOG(ERR, "copy engine: window [%p, +%zu) is not inside one allocation of gpudev %d",
			base, len, gpu_dev_id);
		rte_errno = EINVAL;
		return NULL;
	}
	e = rte_zmalloc("dt_copy_cuda", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	e->head.ops = &dt_copy_cuda_ops;
	e->head.base = base;
	e->head.len = len;
	e->p = p;
	e->mode = (enum dt_copy_cuda_mode)p->copy_mode;
	e->stage_max = p->stage_max;
	e->completion = (enum dt_copy_cuda_completion)p->completion;
	e->stage_read = (enum dt_copy_cuda_stage_read)p->stage_read;
	rte_spinlock_init(&e->lock);
	__atomic_fetch_add(&p->refs, 1, __ATOMIC_ACQ_REL);
	return &e->head;
}

int
dt_copy_cuda_engine_set_mode(struct dt_copy_engine *ce,
	enum dt_copy_cuda_mode mode)
{
	if (ce == NULL || ce->ops != &dt_copy_cuda_ops ||
			(mode != DT_COPY_CUDA_MODE_AUTO &&
			 mode != DT_COPY_CUDA_MODE_PER_COPY &&
			 mode != DT_COPY_CUDA_MODE_BATCH &&
			 mode != DT_COPY_CUDA_MODE_STAGED &&
			 mode != DT_COPY_CUDA_MODE_STAGED_PER_COPY))
		return -EINVAL;
	((struct dt_copy_cuda_engine *)ce)->mode = mode;
	return 0;
}

int
dt_copy_cuda_engine_set_stage_max(struct dt_copy_engine *ce, uint32_t bytes)
{
	if (ce == NULL || ce->ops != &dt_copy_cuda_ops ||
			bytes > DT_COPY_CUDA_STAGE_MAX_LIMIT)
		return -EINVAL;
	((struct dt_copy_cuda_engine *)ce)->stage_max = bytes;
	return 0;
}

int
dt_copy_cuda_engine_set_completion(struct dt_copy_engine *ce,
	enum dt_copy_cuda_completion c)
{
	if (ce == NULL || ce->ops != &dt_copy_cuda_ops ||
			(c != DT_COPY_CUDA_COMPLETION_AUTO &&
			 c != DT_COPY_CUDA_COMPLETION_EVENT &&
			 c != DT_COPY_CUDA_COMPLETION_MEMOP))
		return -EINVAL;
	((struct dt_copy_cuda_engine *)ce)->completion = c;
	return 0;
}

int
dt_copy_cuda_engine_set_stage_read(struct dt_copy_engine *ce,
	enum dt_copy_cuda_stage_read r)
{
	if (ce == NULL || ce->ops != &dt_copy_cuda_ops ||
			(r != DT_COPY_CUDA_STAGE_READ_HOST &&
			 r != DT_COPY_CUDA_STAGE_READ_DEVICE))
		return -EINVAL;
	((struct dt_copy_cuda_engine *)ce)->stage_read = r;
	return 0;
}

int
dt_copy_cuda_engine_test_fail_memop(struct dt_copy_engine *ce)
{
	if (ce == NULL || ce->ops != &dt_copy_cuda_ops)
		return -EINVAL;
	((struct dt_copy_cuda_engine *)ce)->test_fail_memop = 1;
	return 0;
}

/* A copy of @p ch's counters with the sum filled in. */
static void
dt_copy_cuda_stats_read(const struct dt_copy_cuda_chan *ch,
	struct dt_copy_cuda_chan_stats *st)
{
	*st = ch->xs;
	st->driver_calls = st->batches + st->calls_memcpy + st->calls_launch +
		st->calls_event_record + st->calls_event_query +
		st->calls_write_value + st->calls_stream_query + st->calls_ctx;
}

int
dt_copy_cuda_chan_stats_get(struct dt_copy_chan *ch,
	struct dt_copy_cuda_chan_stats *st)
{
	if (ch == NULL || st == NULL || ch->ce->ops != &dt_copy_cuda_ops)
		return -EINVAL;
	dt_copy_cuda_stats_read(dt_copy_cuda_chan(ch), st);
	return 0;
}

int
dt_copy_cuda_engine_chan_stats(struct dt_copy_engine *ce,
	struct dt_copy_cuda_chan_stats *st, unsigned int n)
{
	struct dt_copy_cuda_engine *e = (struct dt_copy_cuda_engine *)ce;
	const struct dt_copy_cuda_chan *ch;
	unsigned int k = 0;

	if (ce == NULL || ce->ops != &dt_copy_cuda_ops || (st == NULL && n > 0))
		return -EINVAL;
	rte_spinlock_lock(&e->lock);
	for (ch = e->chans; ch != NULL; ch = ch->next, k++)
		if (k < n)
			dt_copy_cuda_stats_read(ch, &st[k]);
	rte_spinlock_unlock(&e->lock);
	return (int)k;
}

int
dt_copy_cuda_chan_test_fault(struct dt_copy_chan *dch)
{
	struct dt_copy_cuda_chan *ch;
	struct gpu_cuda_priv *p;
	CUresult res;
	int pushed, ret;

	if (dch == NULL || dch->ce->ops != &dt_copy_cuda_ops)
		return -EINVAL;
	ch = dt_copy_cuda_chan(dch);
	p = ch->e->p;
	ret = dt_copy_cuda_enter(ch, &pushed);
	if (ret != 0)
		return ret;
	ret = gpu_cuda_kernels_load(p);
	if (ret == 0 && p->fn_trap == NULL)
		ret = -ENOTSUP;
	if (ret == 0) {
		ch->xs.calls_launch++;
		res = p->api.cuLaunchKernel(p->fn_trap, 1, 1, 1, 1, 1, 1, 0,
			ch->stream, NULL, NULL);
		if (res != CUDA_SUCCESS)
			ret = -EIO;
	}
	dt_copy_cuda_leave(ch, pushed);
	return ret;
}

int
dt_copy_cuda_chan_test_stage_bad(struct dt_copy_chan *dch, uintptr_t dst,
	uint32_t len, uint64_t *ticket)
{
	struct gpu_cuda_scatter_desc *desc;
	struct dt_copy_cuda_chan *ch;
	CUdeviceptr ring_d;
	uint64_t pos, last;
	uint32_t base, slot;
	size_t need;
	int pushed, ret;

	if (dch == NULL || dch->ce->ops != &dt_copy_cuda_ops || len == 0 ||
			len > DT_COPY_CUDA_STAGE_MAX_LIMIT)
		return -EINVAL;
	ch = dt_copy_cuda_chan(dch);
	if (!ch->use_stage)
		return -ENOTSUP;
	if (ch->sub_head - ch->sub_tail == DT_COPY_CUDA_RING)
		return -EBUSY;
	ret = dt_copy_cuda_enter(ch, &pushed);
	if (ret != 0)
		return ret;
	need = RTE_ALIGN_CEIL(sizeof(*desc) + len, 16);
	ret = dt_copy_cuda_stage_reserve(ch, need, &pos);
	if (ret == 0) {
		base = (uint32_t)(pos % DT_COPY_CUDA_STAGE_RING);
		desc = (struct gpu_cuda_scatter_desc *)(ch->stage_h + base);
		desc->dst = dst;
		desc->off = base + (uint32_t)sizeof(*desc);
		desc->len = len;
		memset(desc + 1, 0xa5, len);
		ring_d = ch->stage_zc ? ch->stage_hd : ch->stage_d;
		if (!ch->stage_zc && ch->e->p->api.cuMemcpyHtoDAsync(ring_d + base,
				desc, need, ch->stream) != CUDA_SUCCESS)
			ret = -EIO;
	}
	if (ret == 0) {
		ch->stage_head = pos + need;
		if (dt_copy_cuda_scatter_launch(ch, ring_d + base, 1, ring_d) !=
				CUDA_SUCCESS)
			ret = -EIO;
	}
	if (ret == 0) {
		/* One ticket stands for the refused copy. */
		slot = ch->sub_head % DT_COPY_CUDA_RING;
		last = ch->head.next_ticket;
		ret = dt_copy_cuda_mark(ch, slot, last);
		if (ret == 0) {
			ch->sub_ticket[slot] = last;
			ch->sub_stage[slot] = ch->stage_head;
			ch->sub_head++;
			ch->head.next_ticket++;
			*ticket = last;
		}
	}
	dt_copy_cuda_leave(ch, pushed);
	return ret;
}

int
dt_copy_cuda_chan_drain(struct dt_copy_chan *dch)
{
	struct dt_copy_cuda_chan *ch;
	CUresult res;
	int pushed, ret;

	if (dch == NULL || dch->ce->ops != &dt_copy_cuda_ops)
		return -EINVAL;
	ch = dt_copy_cuda_chan(dch);
	ret = dt_copy_cuda_enter(ch, &pushed);
	if (ret != 0)
		return ret;
	ch->xs.calls_stream_query++;
	res = ch->e->p->api.cuStreamSynchronize(ch->stream);
	dt_copy_cuda_leave(ch, pushed);
	if (res != CUDA_SUCCESS) {
		dt_copy_cuda_gpu_failed(ch, res);
		return -EIO;
	}
	/* Events first (they also see errors), then whatever is left. */
	dt_copy_cuda_completed(dch);
	if (ch->failed)
		return -EIO;
	dt_copy_cuda_retire_all(ch);
	return 0;
}
