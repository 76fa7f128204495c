/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal state of the CUDA copy engine, shared by its files:
 * dt_copy_cuda.c (validation, completion, issuing, the ops),
 * dt_copy_cuda_stage.c (staged small host->device copies and the scatter
 * kernel), dt_copy_cuda_gather.c (device->host gathers into registered host
 * memory with one kernel launch), dt_copy_cuda_chan.c (channel set-up and
 * teardown) and dt_copy_cuda_api.c (the public functions of
 * rte_pmd_gpu_cuda.h). Internal to drivers/gpu/cuda.
 */
#ifndef DT_COPY_CUDA_PRIV_H
#define DT_COPY_CUDA_PRIV_H

#include <stdint.h>

#include <rte_cycles.h>
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
/* Copies one gather takes (one launch); a bigger one is taken in parts. */
#define DT_COPY_CUDA_GATHER_MAX 1024

enum dt_copy_cuda_dir {
	DT_COPY_CUDA_HTOD,
	DT_COPY_CUDA_DTOH,
	DT_COPY_CUDA_DTOD,
	/* Any-address engine: the driver tells by unified addressing. */
	DT_COPY_CUDA_UVA,
};

struct dt_copy_cuda_chan;

struct dt_copy_cuda_engine {
	struct dt_copy_engine head;     /* first: dt_copy.h casts */
	struct gpu_cuda_priv *p;
	enum dt_copy_cuda_mode mode;
	/*
	 * dt_copy_cuda_engine_create_any(): copies may address any device
	 * memory of the context, the window only names the engine in the
	 * registry; every copy is a cuMemcpyAsync (or part of a batch).
	 */
	int any;
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
	/*
	 * Gathers (dt_copy_cuda_gather.c): the ring holds each one's targets
	 * and descriptors, and gtgt[] the target of each copy being queued.
	 */
	int use_gather;
	struct dt_copy_gather_targets tgt;
	uint8_t gtgt[DT_COPY_CUDA_GATHER_MAX];
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

/* The engine's ops (dt_copy_cuda.c): what tells a CUDA engine from others. */
extern const struct dt_copy_engine_ops dt_copy_cuda_ops;

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

/* dt_copy_cuda.c */
void dt_copy_cuda_reap(struct dt_copy_cuda_chan *ch);
void dt_copy_cuda_retire_all(struct dt_copy_cuda_chan *ch);
void dt_copy_cuda_gpu_failed(struct dt_copy_cuda_chan *ch, CUresult res);
int dt_copy_cuda_mark(struct dt_copy_cuda_chan *ch, uint32_t slot,
	uint64_t last);
void dt_copy_cuda_memop_off(struct dt_copy_cuda_chan *ch, const char *why,
	CUresult res);
uint64_t dt_copy_cuda_completed(struct dt_copy_chan *dch);

/* dt_copy_cuda_stage.c */
void dt_copy_cuda_stage(struct dt_copy_cuda_chan *ch);
int dt_copy_cuda_stage_reserve(struct dt_copy_cuda_chan *ch, size_t need,
	uint64_t *pos);
void dt_copy_cuda_stage_init(struct dt_copy_cuda_chan *ch);

/* dt_copy_cuda_gather.c: the ops of dt_copy.h */
int dt_copy_cuda_gather_target(struct dt_copy_chan *dch, void *base,
	size_t len);
int dt_copy_cuda_gather(struct dt_copy_chan *dch, const struct dt_copy_op *ops,
	uint16_t n, uint64_t *ticket);

/* dt_copy_cuda_chan.c */
CUresult dt_copy_cuda_host_alloc_mapped(struct dt_copy_cuda_chan *ch,
	size_t len, void **h, CUdeviceptr *d, const char **what);
void dt_copy_cuda_memop_init(struct dt_copy_cuda_chan *ch);
struct dt_copy_chan *dt_copy_cuda_chan_open(struct dt_copy_engine *ce);
void dt_copy_cuda_chan_close(struct dt_copy_chan *dch);
void dt_copy_cuda_destroy(struct dt_copy_engine *ce);

#endif /* DT_COPY_CUDA_PRIV_H */
