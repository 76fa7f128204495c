/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA for the plugin, through the driver API opened with dlopen (no CUDA
 * library is linked; the plugin loads on machines without a GPU):
 *  - the PCI address of the calling thread's CUDA device (NCCL has made it
 *    current before init), to place the payload region and the pciPath;
 *  - a copy engine (dt_copy.h ops) of unified-addressing copies on a
 *    stream: one cuMemcpyBatchAsync per submit where the driver has it
 *    (CUDA 12.8+), else one cuMemcpyAsync per merged run; completion by a
 *    cuStreamWriteValue64 of the submit's last ticket into a pinned,
 *    device-mapped word that a poll reads without a driver call (NCCL's
 *    own threads share the context's locks), or one event per submit
 *    where the device has no 64-bit stream memory operations. The stacks use it to gather received chunks
 *    into NCCL's CUDA buffers (device to device); registered as the engine
 *    of a NCCL send buffer it lets the software NIC read send payload.
 *
 * Built only with the CUDA headers (NN_HAVE_CUDA); otherwise every entry
 * point reports ENOTSUP.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "nn_rt.h"

#ifndef NN_HAVE_CUDA

int
nn_cuda_current_pci(char *buf, size_t len, int *ordinal)
{
	return -ENOTSUP;
}

int
nn_cuda_host_alloc_mapped(size_t len, void **h, void **d)
{
	return -ENOTSUP;
}

void
nn_cuda_host_free(void *h)
{
}


struct dt_copy_engine *
nn_cuda_engine_create(void *base, size_t len, int ordinal)
{
	rte_errno = ENOTSUP;
	return NULL;
}

bool
nn_cuda_is_device(const void *ptr)
{
	return false;
}

#else

#include <dlfcn.h>
#include <pthread.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#define NN_CU_RING 1024      /* submits in flight per channel */
#define NN_CU_BATCH 256      /* merged runs per CUDA call */

struct nn_cu_api {
	PFN_cuCtxGetCurrent_v4000 ctx_get_current;
	PFN_cuCtxSetCurrent_v4000 ctx_set_current;
	PFN_cuCtxGetDevice_v2000 ctx_get_device;
	PFN_cuDeviceGetPCIBusId_v4010 device_pci;
	PFN_cuDevicePrimaryCtxRetain_v7000 primary_retain;
	PFN_cuDevicePrimaryCtxRelease_v11000 primary_release;  /* optional */
	PFN_cuStreamCreate_v2000 stream_create;
	PFN_cuStreamDestroy_v4000 stream_destroy;
	PFN_cuStreamSynchronize_v2000 stream_sync;
	PFN_cuEventCreate_v2000 event_create;
	PFN_cuEventRecord_v2000 event_record;
	PFN_cuEventQuery_v2000 event_query;
	PFN_cuEventDestroy_v4000 event_destroy;
	PFN_cuMemcpyAsync_v4000 memcpy_async;
	PFN_cuMemcpyBatchAsync_v12080 memcpy_batch;   /* optional */
	PFN_cuPointerGetAttribute_v4000 ptr_attr;
	PFN_cuGetErrorName_v6000 err_name;            /* optional */
	PFN_cuStreamQuery_v2000 stream_query;
	PFN_cuDeviceGetAttribute_v2000 dev_attr;
	PFN_cuMemHostAlloc_v2020 host_alloc;          /* optional: memop path */
	PFN_cuMemHostGetDevicePointer_v3020 host_dptr;
	PFN_cuMemFreeHost_v2000 host_free;
	PFN_cuStreamWriteValue64_v11070 write_value64;
};

static struct nn_cu_api nn_cu;   /* resolved once per process */
static int nn_cu_status = -ENOTSUP;
static pthread_once_t nn_cu_once = PTHREAD_ONCE_INIT;

struct nn_cu_sym {
	const char *name;
	int version;
	size_t off;
	bool optional;
};

#define CU_SYM(f, n, v, o) { n, v, offsetof(struct nn_cu_api, f), o }
static const struct nn_cu_sym nn_cu_syms[] = {
	CU_SYM(ctx_get_current, "cuCtxGetCurrent", 4000, false),
	CU_SYM(ctx_set_current, "cuCtxSetCurrent", 4000, false),
	CU_SYM(ctx_get_device, "cuCtxGetDevice", 2000, false),
	CU_SYM(device_pci, "cuDeviceGetPCIBusId", 4010, false),
	CU_SYM(primary_retain, "cuDevicePrimaryCtxRetain", 7000, false),
	CU_SYM(primary_release, "cuDevicePrimaryCtxRelease", 11000, true),
	CU_SYM(stream_create, "cuStreamCreate", 2000, false),
	CU_SYM(stream_destroy, "cuStreamDestroy", 4000, false),
	CU_SYM(stream_sync, "cuStreamSynchronize", 2000, false),
	CU_SYM(event_create, "cuEventCreate", 2000, false),
	CU_SYM(event_record, "cuEventRecord", 2000, false),
	CU_SYM(event_query, "cuEventQuery", 2000, false),
	CU_SYM(event_destroy, "cuEventDestroy", 4000, false),
	CU_SYM(memcpy_async, "cuMemcpyAsync", 4000, false),
	CU_SYM(memcpy_batch, "cuMemcpyBatchAsync", 12080, true),
	CU_SYM(ptr_attr, "cuPointerGetAttribute", 4000, false),
	CU_SYM(err_name, "cuGetErrorName", 6000, true),
	CU_SYM(stream_query, "cuStreamQuery", 2000, false),
	CU_SYM(dev_attr, "cuDeviceGetAttribute", 2000, false),
	CU_SYM(host_alloc, "cuMemHostAlloc", 2020, true),
	CU_SYM(host_dptr, "cuMemHostGetDevicePointer", 3020, true),
	CU_SYM(host_free, "cuMemFreeHost", 2000, true),
	CU_SYM(write_value64, "cuStreamWriteValue64", 11070, true),
};

static void
nn_cu_load(void)
{
	PFN_cuGetProcAddress_v12000 get_proc;
	CUdriverProcAddressQueryResult q;
	PFN_cuInit_v2000 init;
	void *lib;
	size_t i;

	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		return;
	init = (PFN_cuInit_v2000)dlsym(lib, "cuInit");
	get_proc = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
	if (init == NULL || get_proc == NULL || init(0) != CUDA_SUCCESS)
		return;
	for (i = 0; i < RTE_DIM(nn_cu_syms); i++) {
		void **slot = (void **)((char *)&nn_cu + nn_cu_syms[i].off);

		if (get_proc(nn_cu_syms[i].name, slot, nn_cu_syms[i].version,
				CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS ||
				q != CU_GET_PROC_ADDRESS_SUCCESS)
			*slot = NULL;
		if (*slot == NULL && !nn_cu_syms[i].optional)
			return;
	}
	nn_cu_status = 0;
}

static int
nn_cu_ready(void)
{
	pthread_once(&nn_cu_once, nn_cu_load);
	return nn_cu_status;
}

int
nn_cuda_current_pci(char *buf, size_t len, int *ordinal)
{
	CUcontext ctx = NULL;
	CUdevice dev;

	if (nn_cu_ready() != 0)
		return -ENOTSUP;
	if (nn_cu.ctx_get_current(&ctx) != CUDA_SUCCESS || ctx == NULL)
		return -ENODEV;
	if (nn_cu.ctx_get_device(&dev) != CUDA_SUCCESS ||
			nn_cu.device_pci(buf, (int)len, dev) != CUDA_SUCCESS)
		return -ENODEV;
	if (ordinal != NULL)
		*ordinal = (int)dev;
	return 0;
}

bool
nn_cuda_is_device(const void *ptr)
{
	unsigned int type = 0;

	return nn_cu_ready() == 0 &&
		nn_cu.ptr_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
			(CUdeviceptr)(uintptr_t)ptr) == CUDA_SUCCESS &&
		type == CU_MEMORYTYPE_DEVICE;
}

int
nn_cuda_host_alloc_mapped(size_t len, void **h, void **d)
{
	CUdeviceptr dp;

	if (nn_cu_ready() != 0 || nn_cu.host_alloc == NULL ||
			nn_cu.host_dptr == NULL || nn_cu.host_free == NULL)
		return -ENOTSUP;
	if (nn_cu.host_alloc(h, len, CU_MEMHOSTALLOC_DEVICEMAP |
			CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS)
		return -ENOMEM;
	if (nn_cu.host_dptr(&dp, *h, 0) != CUDA_SUCCESS) {
		nn_cu.host_free(*h);
		return -EIO;
	}
	*d = (void *)(uintptr_t)dp;
	return 0;
}

void
nn_cuda_host_free(void *h)
{
	if (h != NULL && nn_cu_ready() == 0 && nn_cu.host_free != NULL)
		nn_cu.host_free(h);
}

static const char *
nn_cu_err(CUresult res)
{
	const char *name = NULL;

	if (nn_cu.err_name == NULL || nn_cu.err_name(res, &name) != CUDA_SUCCESS ||
			name == NULL)
		return "CUDA error";
	return name;
}

struct nn_cu_engine {
	struct dt_copy_engine head;     /* first: dt_copy.h casts */
	CUcontext ctx;
	CUdevice dev;
};

/* Polls without progress after which a memop channel asks the stream. */
#define NN_CU_STALL_POLLS 1024

struct nn_cu_chan {
	struct dt_copy_chan head;       /* first: dt_copy.h casts */
	CUstream stream;
	bool failed;                    /* sticky: a CUDA call failed (logged) */
	bool batch_off;                 /* cuMemcpyBatchAsync refused: per run */
	bool memop;                     /* completion by *word_h, not events */
	volatile uint64_t *word_h;      /* last ticket the GPU reached */
	CUdeviceptr word_d;
	uint32_t stall;
	uint64_t pend_bytes;            /* bytes of the submit being queued */
	uint32_t eh, et;                /* free-running event ring indexes */
	uint64_t done;
	CUevent ev[NN_CU_RING];
	uint64_t ev_ticket[NN_CU_RING];
	CUdeviceptr dsts[NN_CU_BATCH], srcs[NN_CU_BATCH];
	size_t sizes[NN_CU_BATCH];
};

/* The completion word, where the device has 64-bit stream memory operations. */
static void
nn_cu_memop_init(struct nn_cu_chan *ch, const struct nn_cu_engine *e)
{
	void *h = NULL;
	int on = 0;

	/* DEVTCP_NCCL_CUDA_EVENTS=1: events, as before (comparisons). */
	if (getenv("DEVTCP_NCCL_CUDA_EVENTS") != NULL)
		return;
	if (nn_cu.host_alloc == NULL || nn_cu.host_dptr == NULL ||
			nn_cu.host_free == NULL || nn_cu.write_value64 == NULL ||
			nn_cu.dev_attr(&on,
				CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
				e->dev) != CUDA_SUCCESS || !on)
		return;
	if (nn_cu.host_alloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP |
			CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS)
		return;
	if (nn_cu.host_dptr(&ch->word_d, h, 0) != CUDA_SUCCESS) {
		nn_cu.host_free(h);
		return;
	}
	ch->word_h = h;
	*ch->word_h = 0;
	ch->memop = true;
}

static struct dt_copy_chan *
nn_cu_chan_open(struct dt_copy_engine *ce)
{
	struct nn_cu_engine *e = (struct nn_cu_engine *)ce;
	struct nn_cu_chan *ch;

	ch = rte_zmalloc("nn_cu_chan", sizeof(*ch), RTE_CACHE_LINE_SIZE);
	if (ch == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	/* Channels are per thread: make the device's context current here. */
	if (nn_cu.ctx_set_current(e->ctx) != CUDA_SUCCESS ||
			nn_cu.stream_create(&ch->stream, CU_STREAM_NON_BLOCKING) !=
			CUDA_SUCCESS) {
		rte_free(ch);
		rte_errno = EIO;
		return NULL;
	}
	ch->head.ce = ce;
	ch->head.next_ticket = 1;
	/* [nccl] cuda_batch = no (default): one cuMemcpyAsync per run. */
	ch->batch_off = nn_rt_get() == NULL || !nn_rt_get()->cfg.cuda_batch;
	nn_cu_memop_init(ch, e);
	return &ch->head;
}

static void
nn_cu_chan_close(struct dt_copy_chan *c)
{
	struct nn_cu_chan *ch = (struct nn_cu_chan *)c;
	uint32_t i;

	nn_cu.stream_sync(ch->stream);
	for (i = 0; i < NN_CU_RING; i++)
		if (ch->ev[i] != NULL)
			nn_cu.event_destroy(ch->ev[i]);
	nn_cu.stream_destroy(ch->stream);
	if (ch->word_h != NULL)
		nn_cu.host_free((void *)(uintptr_t)ch->word_h);
	rte_free(ch);
}

/* A channel stops for good: say why, once (a waiter would spin silently). */
static void
nn_cu_fail(struct nn_cu_chan *ch, const char *what, CUresult res)
{
	if (!ch->failed)
		NN_WARN("CUDA copy channel (%s): %s failed: %s (%d); channel stopped: "
			"its copies never complete", ch->head.ce->base != NULL ?
			"send buffer read by the NIC" : "receive gather", what,
			nn_cu_err(res), (int)res);
	ch->failed = true;
}

/*
 * Memop channel: a load of the word. A failed copy never gets its ticket
 * written (the stream stops at the error), so after NN_CU_STALL_POLLS
 * polls without progress the stream is asked: idle completes everything,
 * an error stops the channel.
 */
static uint64_t
nn_cu_completed_memop(struct nn_cu_chan *ch)
{
	uint64_t w = __atomic_load_n(ch->word_h, __ATOMIC_ACQUIRE);
	CUresult res;

	if (w > ch->done) {
		ch->done = w;
		ch->stall = 0;
	} else if (ch->done + 1 < ch->head.next_ticket && !ch->failed &&
			++ch->stall >= NN_CU_STALL_POLLS) {
		ch->stall = 0;
		res = nn_cu.stream_query(ch->stream);
		if (res == CUDA_SUCCESS)
			ch->done = ch->head.next_ticket - 1;
		else if (res != CUDA_ERROR_NOT_READY)
			nn_cu_fail(ch, "a copy (cuStreamQuery)", res);
	}
	return ch->done;
}

static uint64_t
nn_cu_completed(struct dt_copy_chan *c)
{
	struct nn_cu_chan *ch = (struct nn_cu_chan *)c;
	CUresult res;

	if (ch->memop)
		return nn_cu_completed_memop(ch);
	while (ch->et != ch->eh) {
		res = nn_cu.event_query(ch->ev[ch->et % NN_CU_RING]);
		if (res == CUDA_ERROR_NOT_READY)
			break;
		if (res != CUDA_SUCCESS) {
			/* The copies behind it failed on the GPU: never report them done. */
			nn_cu_fail(ch, "a copy (cuEventQuery)", res);
			break;
		}
		ch->done = ch->ev_ticket[ch->et % NN_CU_RING];
		ch->et++;
	}
	return ch->done;
}

static int
nn_cu_failed(struct dt_copy_chan *c)
{
	return ((struct nn_cu_chan *)c)->failed ? -EIO : 0;
}

/*
 * Merge contiguous copies into runs; returns the number of runs. The bytes
 * go to the channel's count when the submit is queued.
 */
static uint32_t
nn_cu_runs(struct nn_cu_chan *ch, const struct dt_copy_op *ops, uint16_t n)
{
	uint32_t r = 0;
	uint16_t i;

	ch->pend_bytes = 0;
	for (i = 0; i < n; i++) {
		ch->pend_bytes += ops[i].len;
		CUdeviceptr d = (CUdeviceptr)(uintptr_t)ops[i].dst;
		CUdeviceptr s = (CUdeviceptr)(uintptr_t)ops[i].src;

		if (ops[i].len == 0)
			continue;
		if (r != 0 && ch->dsts[r - 1] + ch->sizes[r - 1] == d &&
				ch->srcs[r - 1] + ch->sizes[r - 1] == s) {
			ch->sizes[r - 1] += ops[i].len;
			continue;
		}
		ch->dsts[r] = d;
		ch->srcs[r] = s;
		ch->sizes[r] = ops[i].len;
		r++;
	}
	return r;
}

/*
 * Queue the runs: one cuMemcpyBatchAsync, else one cuMemcpyAsync per run.
 * A batch the driver refuses, whether as a whole or at one copy, is issued
 * again run by run, and the channel stops using the batch API: the copies
 * read and write distinct ranges (chunks into NCCL's buffer, send payload
 * into the NIC's wire buffers), so running one twice writes the same bytes.
 * The batch API is the one path that meets pageable memory here (the
 * software NIC's wire buffers are not registered with CUDA).
 */
static CUresult
nn_cu_issue(struct nn_cu_chan *ch, uint32_t runs, const char **what)
{
	CUmemcpyAttributes attr;
	size_t attr_idx = 0, fail_idx = SIZE_MAX;
	CUresult res = CUDA_SUCCESS;
	uint32_t i;

	if (runs > 1 && nn_cu.memcpy_batch != NULL && !ch->batch_off) {
		memset(&attr, 0, sizeof(attr));
		attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
		res = nn_cu.memcpy_batch(ch->dsts, ch->srcs, ch->sizes, runs, &attr,
			&attr_idx, 1, &fail_idx, ch->stream);
		if (res == CUDA_SUCCESS)
			return res;
		NN_WARN("CUDA copy channel: cuMemcpyBatchAsync of %u copies refused at "
			"copy %zd (%s, %d; dst %p src %p, %zu bytes): one cuMemcpyAsync "
			"per copy from now on", runs, fail_idx == SIZE_MAX ? (ssize_t)-1 :
			(ssize_t)fail_idx, nn_cu_err(res), (int)res,
			(void *)(uintptr_t)ch->dsts[fail_idx < runs ? fail_idx : 0],
			(void *)(uintptr_t)ch->srcs[fail_idx < runs ? fail_idx : 0],
			ch->sizes[fail_idx < runs ? fail_idx : 0]);
		ch->batch_off = true;
		res = CUDA_SUCCESS;
	}
	*what = "cuMemcpyAsync";
	for (i = 0; i < runs && res == CUDA_SUCCESS; i++)
		res = nn_cu.memcpy_async(ch->dsts[i], ch->srcs[i], ch->sizes[i],
			ch->stream);
	return res;
}

/*
 * Memop channel: the runs, then the last ticket written to the word. A
 * refused write leaves the channel on events from the next submit on, this
 * one waited for (a synchronous stream, once).
 */
static int
nn_cu_submit_memop(struct nn_cu_chan *ch, const struct dt_copy_op *ops,
	uint16_t n, uint64_t *ticket)
{
	struct dt_copy_chan *c = &ch->head;
	uint64_t last = c->next_ticket + n - 1;
	const char *what;
	CUresult res;

	res = nn_cu_issue(ch, nn_cu_runs(ch, ops, n), &what);
	if (res != CUDA_SUCCESS) {
		nn_cu_fail(ch, what, res);
		c->stats.errors += n;
		return -EIO;
	}
	res = nn_cu.write_value64(ch->stream, ch->word_d, last, 0);
	if (res != CUDA_SUCCESS) {
		NN_WARN("CUDA copy channel: cuStreamWriteValue64 refused (%s, %d): "
			"completion by events from now on", nn_cu_err(res), (int)res);
		ch->memop = false;
		res = nn_cu.stream_sync(ch->stream);
		if (res != CUDA_SUCCESS) {
			nn_cu_fail(ch, "cuStreamSynchronize", res);
			c->stats.errors += n;
			return -EIO;
		}
		ch->done = last;
	}
	c->next_ticket += n;
	c->stats.calls++;
	c->stats.copies += n;
	c->stats.bytes += ch->pend_bytes;
	if (ticket != NULL)
		*ticket = last;
	return n;
}

static int
nn_cu_submit(struct dt_copy_chan *c, const struct dt_copy_op *ops, uint16_t n,
	uint64_t *ticket)
{
	struct nn_cu_chan *ch = (struct nn_cu_chan *)c;
	const char *what;
	CUevent *ev;
	CUresult res;
	uint32_t runs;

	if (ch->failed)
		return -EIO;
	if (n > NN_CU_BATCH)
		n = NN_CU_BATCH;
	if (ch->memop)
		return nn_cu_submit_memop(ch, ops, n, ticket);
	if (ch->eh - ch->et == NN_CU_RING && nn_cu_completed(c) == 0 &&
			ch->eh - ch->et == NN_CU_RING)
		return 0;
	if (ch->eh - ch->et == NN_CU_RING)
		return 0;
	runs = nn_cu_runs(ch, ops, n);
	ev = &ch->ev[ch->eh % NN_CU_RING];
	what = "cuEventCreate";
	res = *ev == NULL ? nn_cu.event_create(ev, CU_EVENT_DISABLE_TIMING) :
		CUDA_SUCCESS;
	if (res == CUDA_SUCCESS)
		res = nn_cu_issue(ch, runs, &what);
	if (res == CUDA_SUCCESS) {
		what = "cuEventRecord";
		res = nn_cu.event_record(*ev, ch->stream);
	}
	if (res != CUDA_SUCCESS) {
		nn_cu_fail(ch, what, res);
		c->stats.errors += n;
		return -EIO;
	}
	ch->ev_ticket[ch->eh % NN_CU_RING] = c->next_ticket + n - 1;
	ch->eh++;
	c->next_ticket += n;
	c->stats.calls++;
	c->stats.copies += n;
	c->stats.bytes += ch->pend_bytes;
	if (ticket != NULL)
		*ticket = c->next_ticket - 1;
	return n;
}

static void
nn_cu_destroy(struct dt_copy_engine *ce)
{
	struct nn_cu_engine *e = (struct nn_cu_engine *)ce;

	/* The retain of nn_cuda_engine_create(): NCCL's own keeps it alive. */
	if (nn_cu.primary_release != NULL)
		nn_cu.primary_release(e->dev);
	rte_free(ce);
}

static const struct dt_copy_engine_ops nn_cu_ops = {
	.name = "nccl-cuda",
	.chan_open = nn_cu_chan_open,
	.chan_close = nn_cu_chan_close,
	.submit = nn_cu_submit,
	.completed = nn_cu_completed,
	.failed = nn_cu_failed,
	.destroy = nn_cu_destroy,
};

struct dt_copy_engine *
nn_cuda_engine_create(void *base, size_t len, int ordinal)
{
	struct nn_cu_engine *e;

	if (nn_cu_ready() != 0) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	e = rte_zmalloc("nn_cu_engine", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	e->dev = (CUdevice)(ordinal < 0 ? 0 : ordinal);
	if (nn_cu.primary_retain(&e->ctx, e->dev) != CUDA_SUCCESS) {
		rte_free(e);
		rte_errno = ENODEV;
		return NULL;
	}
	e->head.ops = &nn_cu_ops;
	e->head.base = base;
	e->head.len = len;
	return &e->head;
}

#endif /* NN_HAVE_CUDA */
