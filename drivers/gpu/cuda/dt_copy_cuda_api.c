/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA copy engine, public functions (rte_pmd_gpu_cuda.h): creation,
 * settings, counters, and the hooks tests use.
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

/* ---------------------------------------------------------- public API */

/* The engine over @p p (a reference is taken), its defaults from devargs. */
static struct dt_copy_engine *
dt_copy_cuda_engine_new(struct gpu_cuda_priv *p, void *base, size_t len,
	int any)
{
	struct dt_copy_cuda_engine *e;

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
	e->any = any;
	rte_spinlock_init(&e->lock);
	__atomic_fetch_add(&p->refs, 1, __ATOMIC_ACQ_REL);
	return &e->head;
}

/* The device's state, or NULL with rte_errno = ENODEV (logged). */
static struct gpu_cuda_priv *
dt_copy_cuda_dev(int16_t gpu_dev_id)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(gpu_dev_id);

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "copy engine: gpudev %d is not a gpu_cuda device",
			gpu_dev_id);
		rte_errno = ENODEV;
	}
	return p;
}

struct dt_copy_engine *
dt_copy_cuda_engine_create(int16_t gpu_dev_id, void *base, size_t len)
{
	struct gpu_cuda_priv *p = dt_copy_cuda_dev(gpu_dev_id);
	int idx;

	if (p == NULL)
		return NULL;
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
	return dt_copy_cuda_engine_new(p, base, len, 0);
}

struct dt_copy_engine *
dt_copy_cuda_engine_create_any(int16_t gpu_dev_id, void *cu_ctx, void *base,
	size_t len)
{
	struct gpu_cuda_priv *p = dt_copy_cuda_dev(gpu_dev_id);

	if (p == NULL)
		return NULL;
	/* No window (NULL, 0) is fine: the engine is then not registered. */
	if ((len == 0 && base != NULL) ||
			(uintptr_t)base + len < (uintptr_t)base) {
		GPU_CUDA_LOG(ERR, "copy engine: window [%p, +%zu) is empty or wraps",
			base, len);
		rte_errno = EINVAL;
		return NULL;
	}
	/* Kernels and streams live in the device's primary context. */
	if (cu_ctx != NULL && cu_ctx != (void *)p->ctx) {
		GPU_CUDA_LOG(ERR, "copy engine: context %p is not the primary context of gpudev %d (%p): not supported",
			cu_ctx, gpu_dev_id, (void *)p->ctx);
		rte_errno = ENOTSUP;
		return NULL;
	}
	return dt_copy_cuda_engine_new(p, base, len, 1);
}

int
rte_pmd_gpu_cuda_context(int16_t gpu_dev_id, void **cu_ctx)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(gpu_dev_id);

	if (p == NULL || cu_ctx == NULL)
		return p == NULL ? -ENODEV : -EINVAL;
	*cu_ctx = (void *)p->ctx;
	return 0;
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
