/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA copy engine, channels: a stream, its events, the completion word
 * (memop) and the staging rings per channel, set up when a queue opens it
 * and torn down when it closes; the engine's destroy.
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

void
dt_copy_cuda_chan_close(struct dt_copy_chan *dch)
{
	dt_copy_cuda_chan_free(dt_copy_cuda_chan(dch));
}

/* A stream of the greatest priority where the driver has priorities. */
static CUresult
chan_stream_create(const struct gpu_cuda_api *api, CUstream *st)
{
	int least, greatest;

	if (api->cuStreamCreateWithPriority != NULL &&
			api->cuCtxGetStreamPriorityRange != NULL &&
			api->cuCtxGetStreamPriorityRange(&least, &greatest) ==
				CUDA_SUCCESS)
		return api->cuStreamCreateWithPriority(st,
			CU_STREAM_NON_BLOCKING, greatest);
	return api->cuStreamCreate(st, CU_STREAM_NON_BLOCKING);
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

	/*
	 * Non-blocking: never serialise with other users' legacy stream 0.
	 * The greatest priority: the engine stands in for a NIC's DMA, and a
	 * frame's upload or a burst's gather must not queue behind the
	 * application's kernels (NCCL's fill the GPU's queues: on the H200 a
	 * TX gather waited ~1.5 ms under NCCL against 58 us alone).
	 */
	res = chan_stream_create(api, &ch->stream);
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
CUresult
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
void
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

struct dt_copy_chan *
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

void
dt_copy_cuda_destroy(struct dt_copy_engine *ce)
{
	struct dt_copy_cuda_engine *e = (struct dt_copy_cuda_engine *)ce;

	gpu_cuda_priv_put(e->p);
	rte_free(e);
}
