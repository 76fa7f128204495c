/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver-specific helpers of gpu_cuda: dma-buf export of device memory and
 * registration of mempool memory.
 */
#include <errno.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_mempool.h>

#include "gpu_cuda_priv.h"
#include "rte_pmd_gpu_cuda.h"

/* Checks that need only the table: alignment and "inside one allocation". */
static int
gpu_cuda_dmabuf_check(struct gpu_cuda_priv *p, int16_t dev_id, void *ptr,
	size_t size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int idx;

	if (size == 0 || (uintptr_t)ptr % pg != 0 || size % pg != 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: [%p, +%zu) must be a non-empty range aligned to the %zu-byte host page",
			ptr, size, pg);
		return -EINVAL;
	}
	rte_rwlock_read_lock(&p->lock);
	idx = gpu_cuda_ranges_find(&p->allocs, (uintptr_t)ptr, size);
	rte_rwlock_read_unlock(&p->lock);
	if (idx < 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: [%p, +%zu) is not inside one allocation of gpudev %d",
			ptr, size, dev_id);
		return -EINVAL;
	}
	if (!p->dmabuf_supported ||
			p->api.cuMemGetHandleForAddressRange == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: %s does not support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=0: needs Linux >= 5.12 and the open GPU kernel modules, or a driver with cuMemGetHandleForAddressRange)",
			p->gpu_name);
		return -ENOTSUP;
	}
	return 0;
}

int
rte_pmd_gpu_cuda_dmabuf_export(int16_t dev_id, void *ptr, size_t size,
	int *fd)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	int pushed, ret, handle = -1;
	CUresult res;

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: gpudev %d is not a gpu_cuda device",
			dev_id);
		return -ENODEV;
	}
	if (fd == NULL)
		return -EINVAL;
	ret = gpu_cuda_dmabuf_check(p, dev_id, ptr, size);
	if (ret != 0)
		return ret;
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	res = p->api.cuMemGetHandleForAddressRange(&handle,
		(CUdeviceptr)(uintptr_t)ptr, size,
		CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	gpu_cuda_ctx_leave(p, pushed);
	if (res != CUDA_SUCCESS || handle < 0) {
		GPU_CUDA_LOG(ERR, "cuMemGetHandleForAddressRange(%p, %zu, DMA_BUF_FD) failed: %s",
			ptr, size, gpu_cuda_strerror(&p->api, res));
		return res == CUDA_ERROR_NOT_SUPPORTED ? -ENOTSUP : -EIO;
	}
	*fd = handle;
	return 0;
}

struct gpu_cuda_mp_walk {
	int16_t dev_id;
	int err;        /* first error */
	unsigned int n; /* chunks handled before the error */
	unsigned int limit;
	int do_register;
};

static void
gpu_cuda_mp_chunk(struct rte_mempool *mp, void *opaque,
	struct rte_mempool_memhdr *memhdr, unsigned int mem_idx)
{
	struct gpu_cuda_mp_walk *w = opaque;
	int ret;

	if (w->err != 0 || mem_idx >= w->limit)
		return;
	ret = w->do_register ?
		rte_gpu_mem_register(w->dev_id, memhdr->len, memhdr->addr) :
		rte_gpu_mem_unregister(w->dev_id, memhdr->addr);
	if (ret != 0)
		w->err = -rte_errno;
	else
		w->n++;
}

int
rte_pmd_gpu_cuda_mempool_register(int16_t dev_id, struct rte_mempool *mp)
{
	struct gpu_cuda_mp_walk w = {
		.dev_id = dev_id, .limit = UINT32_MAX, .do_register = 1,
	};
	struct gpu_cuda_mp_walk undo = { .dev_id = dev_id };

	if (gpu_cuda_priv_get(dev_id) == NULL || mp == NULL)
		return -ENODEV;
	rte_mempool_mem_iter(mp, gpu_cuda_mp_chunk, &w);
	if (w.err == 0)
		return 0;
	GPU_CUDA_LOG(ERR, "mempool_register: chunk %u of mempool %s: %s",
		w.n, mp->name, rte_strerror(-w.err));
	/* mem_iter visits chunks in order: the first w.n were registered. */
	undo.limit = w.n;
	rte_mempool_mem_iter(mp, gpu_cuda_mp_chunk, &undo);
	return w.err;
}

int
rte_pmd_gpu_cuda_mempool_unregister(int16_t dev_id, struct rte_mempool *mp)
{
	struct gpu_cuda_mp_walk w = { .dev_id = dev_id, .limit = UINT32_MAX };

	if (gpu_cuda_priv_get(dev_id) == NULL || mp == NULL)
		return -ENODEV;
	rte_mempool_mem_iter(mp, gpu_cuda_mp_chunk, &w);
	return w.err;
}
