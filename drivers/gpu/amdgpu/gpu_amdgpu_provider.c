/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_amdgpu as a lib/devmem provider.
 *
 * Copy engine: dt_copy's CPU engine writing through the buffer object's CPU
 * mapping (CPU-visible VRAM). This is a first engine, correct but CPU-bound:
 * an SDMA engine (amdgpu_cs_submit of SDMA copy packets) would take the
 * copies off the CPU.
 * dma-buf: amdgpu_bo_export(dma_buf_fd) of a whole allocation, and
 * amdgpu_bo_import(dma_buf_fd) of any exporter's buffer the kernel lets
 * amdgpu attach, mapped at a new GPU VA and device address.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "dt_copy.h"
#include "dt_devmem_provider.h"
#include "gpu_amdgpu_priv.h"

static struct dt_copy_engine *
gpu_amdgpu_engine_create(int16_t gpu_id, void *base, size_t len)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_by_id(gpu_id);
	struct gpu_amdgpu_alloc *a;
	uint8_t *cpu = NULL;

	if (p == NULL) {
		rte_errno = ENODEV;
		return NULL;
	}
	rte_rwlock_write_lock(&p->lock);
	a = gpu_amdgpu_alloc_find(p, base, len);
	if (a != NULL)
		cpu = gpu_amdgpu_cpu_of(a);
	if (cpu != NULL)
		cpu += (uintptr_t)base - a->addr;
	rte_rwlock_write_unlock(&p->lock);
	if (a == NULL) {
		rte_errno = EINVAL;
		GPU_AMDGPU_LOG(ERR, "gpu %d: [%p, +%zu) is not inside one allocation",
			gpu_id, base, len);
		return NULL;
	}
	if (cpu == NULL) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	return dt_copy_cpu_engine_create(base, len, cpu);
}

static int
gpu_amdgpu_dmabuf_export(int16_t gpu_id, void *ptr, size_t size, int *fd)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_by_id(gpu_id);
	struct gpu_amdgpu_alloc *a;
	uint32_t h = 0;
	int ret;

	if (p == NULL)
		return -ENODEV;
	rte_rwlock_read_lock(&p->lock);
	a = gpu_amdgpu_alloc_find(p, ptr, size);
	/* A dma-buf is a whole buffer object. */
	if (a == NULL || a->addr != (uintptr_t)ptr || size > a->len)
		ret = -EINVAL;
	else
		ret = amdgpu_bo_export(a->bo, amdgpu_bo_handle_type_dma_buf_fd, &h);
	rte_rwlock_read_unlock(&p->lock);
	if (ret != 0) {
		GPU_AMDGPU_LOG(ERR, "gpu %d: dma-buf export of [%p, +%zu) failed: %s",
			gpu_id, ptr, size, ret == -EINVAL ?
			"not the start of an allocation" : strerror(-ret));
		return ret;
	}
	*fd = (int)h;
	return 0;
}

static int
gpu_amdgpu_dmabuf_import(int16_t gpu_id, int fd, size_t size, void **ptr)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_by_id(gpu_id);
	struct amdgpu_bo_import_result res = { 0 };
	struct gpu_amdgpu_alloc *a;
	int ret;

	if (p == NULL)
		return -ENODEV;
	if (size == 0 || size % GPU_AMDGPU_PAGE_SIZE != 0)
		return -EINVAL;
	rte_rwlock_write_lock(&p->lock);
	a = gpu_amdgpu_slot(p);
	if (a == NULL) {
		ret = -ENOSPC;
		goto out;
	}
	ret = amdgpu_bo_import(p->dev, amdgpu_bo_handle_type_dma_buf_fd,
		(uint32_t)fd, &res);
	if (ret != 0) {
		GPU_AMDGPU_LOG(ERR, "gpu %d: amdgpu_bo_import of dma-buf fd %d failed: %s",
			gpu_id, fd, strerror(-ret));
		goto out;
	}
	if (res.alloc_size < size) {
		amdgpu_bo_free(res.buf_handle);
		ret = -EINVAL;
		goto out;
	}
	ret = gpu_amdgpu_alloc_map(p, a, res.buf_handle, size);
	if (ret != 0) {
		amdgpu_bo_free(res.buf_handle);
		goto out;
	}
	a->imported = true;
	a->user_len = size;
	*ptr = (void *)a->addr;
out:
	rte_rwlock_write_unlock(&p->lock);
	return ret;
}

static int
gpu_amdgpu_dmabuf_release(int16_t gpu_id, void *ptr)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_by_id(gpu_id);
	struct gpu_amdgpu_alloc *a;
	int ret = 0;

	if (p == NULL)
		return -ENODEV;
	rte_rwlock_write_lock(&p->lock);
	a = gpu_amdgpu_alloc_find(p, ptr, 1);
	if (a == NULL || !a->imported || a->addr != (uintptr_t)ptr)
		ret = -EINVAL;
	else
		gpu_amdgpu_alloc_unmap(a);
	rte_rwlock_write_unlock(&p->lock);
	return ret;
}

static const struct dt_devmem_provider_ops gpu_amdgpu_provider_ops = {
	.name = "gpu_amdgpu",
	.engine_create = gpu_amdgpu_engine_create,
	.dmabuf_export = gpu_amdgpu_dmabuf_export,
	.dmabuf_import = gpu_amdgpu_dmabuf_import,
	.dmabuf_release = gpu_amdgpu_dmabuf_release,
	/* CPU alias: gpudev's rte_gpu_mem_cpu_map() (the BO's CPU mapping). */
};

int
gpu_amdgpu_provider_register(int16_t gpu_id)
{
	return dt_devmem_provider_register(gpu_id, &gpu_amdgpu_provider_ops);
}

void
gpu_amdgpu_provider_unregister(int16_t gpu_id)
{
	dt_devmem_provider_unregister(gpu_id, &gpu_amdgpu_provider_ops);
}
