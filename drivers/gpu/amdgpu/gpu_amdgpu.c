/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AMD GPUs through libdrm: a gpudev vdev ("gpu_amdgpu").
 *
 * Probe finds an amdgpu render node (drmGetDevices2), opens it with
 * libdrm_amdgpu and creates one gpudev device; where there is none it
 * skips with one line and creates nothing. rte_gpu_mem_alloc() allocates a
 * VRAM buffer object (CPU-visible VRAM, so that the copy engine and
 * verification code can map it), maps it at a GPU VA, and hands the stack
 * a PROT_NONE reservation of the same size as the device address: the CPU
 * never touches payload through it (zero touch, as on gpu_sim), the copy
 * engine writes through the BO's CPU mapping. rte_gpu_mem_cpu_map() returns
 * that mapping. lib/devmem reaches the rest (copy engine, dma-buf export
 * and import) through the provider registered at probe.
 *
 * Devargs: render=<path of a render node; default the first amdgpu one>.
 * Primary process only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>

#include <bus_vdev_driver.h>
#include <gpudev_driver.h>

#include <amdgpu_drm.h>

#include "gpu_amdgpu_priv.h"

RTE_LOG_REGISTER(gpu_amdgpu_logtype, pmd.gpu.amdgpu, INFO);

#define GPU_AMDGPU_ARG_RENDER "render"

struct gpu_amdgpu_alloc *
gpu_amdgpu_alloc_find(struct gpu_amdgpu_priv *p, const void *ptr, size_t len)
{
	uintptr_t a = (uintptr_t)ptr;
	unsigned int i;

	for (i = 0; i < GPU_AMDGPU_MAX_ALLOCS; i++) {
		struct gpu_amdgpu_alloc *e = &p->a[i];

		if (e->bo != NULL && a >= e->addr && len <= e->len &&
		    a - e->addr <= e->len - len)
			return e;
	}
	return NULL;
}

struct gpu_amdgpu_alloc *
gpu_amdgpu_slot(struct gpu_amdgpu_priv *p)
{
	unsigned int i;

	for (i = 0; i < GPU_AMDGPU_MAX_ALLOCS; i++)
		if (p->a[i].bo == NULL)
			return &p->a[i];
	return NULL;
}

void *
gpu_amdgpu_cpu_of(struct gpu_amdgpu_alloc *a)
{
	int ret;

	if (a->cpu != NULL)
		return a->cpu;
	ret = amdgpu_bo_cpu_map(a->bo, &a->cpu);
	if (ret != 0) {
		GPU_AMDGPU_LOG(ERR, "amdgpu_bo_cpu_map of %zu bytes failed: %s (not CPU-visible VRAM, or an imported buffer the CPU cannot map)",
			a->len, strerror(-ret));
		a->cpu = NULL;
	}
	return a->cpu;
}

int
gpu_amdgpu_alloc_map(struct gpu_amdgpu_priv *p, struct gpu_amdgpu_alloc *a,
	amdgpu_bo_handle bo, size_t len)
{
	void *resv;
	int ret;

	ret = amdgpu_va_range_alloc(p->dev, amdgpu_gpu_va_range_general, len,
		GPU_AMDGPU_PAGE_SIZE, 0, &a->gpu_va, &a->va_handle, 0);
	if (ret != 0)
		return ret;
	ret = amdgpu_bo_va_op(bo, 0, len, a->gpu_va, 0, AMDGPU_VA_OP_MAP);
	if (ret != 0)
		goto free_va;
	/* Over-reserve to align the device address to the page size. */
	resv = mmap(NULL, len + GPU_AMDGPU_PAGE_SIZE, PROT_NONE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (resv == MAP_FAILED) {
		ret = -errno;
		goto unmap_va;
	}
	a->addr = RTE_ALIGN_CEIL((uintptr_t)resv, GPU_AMDGPU_PAGE_SIZE);
	if (a->addr != (uintptr_t)resv)
		munmap(resv, a->addr - (uintptr_t)resv);
	munmap((void *)(a->addr + len),
		(uintptr_t)resv + GPU_AMDGPU_PAGE_SIZE - a->addr);
	a->len = len;
	a->bo = bo;
	a->cpu = NULL;
	return 0;
unmap_va:
	amdgpu_bo_va_op(bo, 0, len, a->gpu_va, 0, AMDGPU_VA_OP_UNMAP);
free_va:
	amdgpu_va_range_free(a->va_handle);
	return ret;
}

void
gpu_amdgpu_alloc_unmap(struct gpu_amdgpu_alloc *a)
{
	if (a->cpu != NULL)
		amdgpu_bo_cpu_unmap(a->bo);
	amdgpu_bo_va_op(a->bo, 0, a->len, a->gpu_va, 0, AMDGPU_VA_OP_UNMAP);
	amdgpu_va_range_free(a->va_handle);
	munmap((void *)a->addr, a->len);
	amdgpu_bo_free(a->bo);
	memset(a, 0, sizeof(*a));
}

static struct gpu_amdgpu_priv *
gpu_amdgpu_priv_of(struct rte_gpu *dev)
{
	struct gpu_amdgpu_priv *p = dev->mpshared->dev_private;

	return p != NULL && p->magic == GPU_AMDGPU_MAGIC ? p : NULL;
}

struct gpu_amdgpu_priv *
gpu_amdgpu_priv_by_id(int16_t dev_id)
{
	struct rte_gpu_info info;
	struct rte_gpu *dev;

	if (!rte_gpu_is_valid(dev_id) || rte_gpu_info_get(dev_id, &info) != 0)
		return NULL;
	dev = rte_gpu_get_by_name(info.name);
	if (dev == NULL || dev->device == NULL || dev->device->driver == NULL ||
	    strcmp(dev->device->driver->name, GPU_AMDGPU_DRV_NAME) != 0)
		return NULL;
	return gpu_amdgpu_priv_of(dev);
}

static int
gpu_amdgpu_mem_alloc(struct rte_gpu *dev, size_t size, unsigned int align,
	void **ptr)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_of(dev);
	struct amdgpu_bo_alloc_request req = { 0 };
	struct gpu_amdgpu_alloc *a;
	amdgpu_bo_handle bo;
	size_t len;
	int ret;

	if (p == NULL || size == 0 || ptr == NULL)
		return -EINVAL;
	if (align > GPU_AMDGPU_PAGE_SIZE)
		return -ENOTSUP;
	len = RTE_ALIGN_CEIL(size, GPU_AMDGPU_PAGE_SIZE);
	req.alloc_size = len;
	req.phys_alignment = GPU_AMDGPU_PAGE_SIZE;
	req.preferred_heap = AMDGPU_GEM_DOMAIN_VRAM;
	/* CPU-visible VRAM: the first copy engine writes through the CPU. */
	req.flags = AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED;
	rte_rwlock_write_lock(&p->lock);
	a = gpu_amdgpu_slot(p);
	if (a == NULL) {
		ret = -ENOSPC;
		goto out;
	}
	ret = amdgpu_bo_alloc(p->dev, &req, &bo);
	if (ret != 0) {
		GPU_AMDGPU_LOG(ERR, "%s: amdgpu_bo_alloc of %zu bytes of CPU-visible VRAM failed: %s",
			dev->mpshared->name, len, strerror(-ret));
		goto out;
	}
	ret = gpu_amdgpu_alloc_map(p, a, bo, len);
	if (ret != 0) {
		GPU_AMDGPU_LOG(ERR, "%s: GPU VA mapping of %zu bytes failed: %s",
			dev->mpshared->name, len, strerror(-ret));
		amdgpu_bo_free(bo);
		goto out;
	}
	a->user_len = size;
	*ptr = (void *)a->addr;
out:
	rte_rwlock_write_unlock(&p->lock);
	return ret;
}

static int
gpu_amdgpu_mem_free(struct rte_gpu *dev, void *ptr)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_of(dev);
	struct gpu_amdgpu_alloc *a;
	int ret = 0;

	if (p == NULL)
		return -ENODEV;
	rte_rwlock_write_lock(&p->lock);
	a = gpu_amdgpu_alloc_find(p, ptr, 1);
	if (a == NULL || a->addr != (uintptr_t)ptr)
		ret = -EINVAL;
	else if (a->imported)
		ret = -EPERM; /* dma-buf imports go through the provider's release */
	else
		gpu_amdgpu_alloc_unmap(a);
	rte_rwlock_write_unlock(&p->lock);
	return ret;
}

static int
gpu_amdgpu_mem_cpu_map(struct rte_gpu *dev, size_t size, void *ptr_in,
	void **ptr_out)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_of(dev);
	struct gpu_amdgpu_alloc *a;
	uint8_t *cpu = NULL;

	if (p == NULL)
		return -ENODEV;
	rte_rwlock_write_lock(&p->lock);
	a = gpu_amdgpu_alloc_find(p, ptr_in, size);
	if (a != NULL)
		cpu = gpu_amdgpu_cpu_of(a);
	if (cpu != NULL)
		*ptr_out = cpu + ((uintptr_t)ptr_in - a->addr);
	rte_rwlock_write_unlock(&p->lock);
	return a == NULL ? -EINVAL : cpu == NULL ? -ENOTSUP : 0;
}

static int
gpu_amdgpu_mem_cpu_unmap(struct rte_gpu *dev, void *ptr)
{
	/* The mapping lives as long as the buffer object: nothing to undo. */
	RTE_SET_USED(dev);
	RTE_SET_USED(ptr);
	return 0;
}

static int
gpu_amdgpu_wmb(struct rte_gpu *dev)
{
	RTE_SET_USED(dev);
	rte_wmb();
	return 0;
}

static void
gpu_amdgpu_priv_free(struct gpu_amdgpu_priv *p)
{
	unsigned int i;

	for (i = 0; i < GPU_AMDGPU_MAX_ALLOCS; i++)
		if (p->a[i].bo != NULL)
			gpu_amdgpu_alloc_unmap(&p->a[i]);
	if (p->dev != NULL)
		amdgpu_device_deinitialize(p->dev);
	if (p->fd >= 0)
		close(p->fd);
	rte_free(p);
}

static int
gpu_amdgpu_dev_close(struct rte_gpu *dev)
{
	struct gpu_amdgpu_priv *p = gpu_amdgpu_priv_of(dev);

	if (p == NULL)
		return 0;
	gpu_amdgpu_provider_unregister(dev->mpshared->info.dev_id);
	dev->mpshared->dev_private = NULL;
	dev->mpshared->info.context = 0;
	gpu_amdgpu_priv_free(p);
	return 0;
}

static int
gpu_amdgpu_arg_str(const char *key, const char *value, void *opaque)
{
	char *out = opaque;

	RTE_SET_USED(key);
	if (value == NULL || strlen(value) >= 64)
		return -EINVAL;
	strcpy(out, value);
	return 0;
}

/* VRAM size and its CPU-visible part. */
static void
gpu_amdgpu_query_vram(struct gpu_amdgpu_priv *p)
{
	struct amdgpu_heap_info h;

	if (amdgpu_query_heap_info(p->dev, AMDGPU_GEM_DOMAIN_VRAM, 0, &h) == 0)
		p->vram_size = h.heap_size;
	if (amdgpu_query_heap_info(p->dev, AMDGPU_GEM_DOMAIN_VRAM,
			AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED, &h) == 0)
		p->vram_visible = h.heap_size;
}

static int
gpu_amdgpu_open(const char *name, const char *args, struct gpu_amdgpu_priv *p)
{
	static const char *const keys[] = { GPU_AMDGPU_ARG_RENDER, NULL };
	char render[64] = "", why[192];
	struct rte_kvargs *kv = NULL;
	uint32_t major, minor;
	int ret;

	if (args != NULL && args[0] != '\0') {
		kv = rte_kvargs_parse(args, keys);
		if (kv == NULL) {
			GPU_AMDGPU_LOG(ERR, "%s: bad devargs '%s' (render=<path>)",
				name, args);
			return -EINVAL;
		}
		ret = rte_kvargs_process(kv, GPU_AMDGPU_ARG_RENDER,
			gpu_amdgpu_arg_str, render);
		rte_kvargs_free(kv);
		if (ret != 0)
			return -EINVAL;
	}
	ret = gpu_amdgpu_find(render[0] != '\0' ? render : NULL, p, why,
		sizeof(why));
	if (ret != 0) {
		/* The one line a machine without an AMD GPU gets. */
		GPU_AMDGPU_LOG(NOTICE, "%s: skipped: %s", name, why);
		return ret;
	}
	ret = amdgpu_device_initialize(p->fd, &major, &minor, &p->dev);
	if (ret != 0) {
		GPU_AMDGPU_LOG(ERR, "%s: amdgpu_device_initialize(%s) failed: %s",
			name, p->node, strerror(-ret));
		p->dev = NULL;
		return ret;
	}
	gpu_amdgpu_query_vram(p);
	return 0;
}

static int
gpu_amdgpu_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct gpu_amdgpu_priv *p;
	struct rte_gpu *dev;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		GPU_AMDGPU_LOG(ERR, "%s: secondary processes are not supported",
			name);
		return -ENOTSUP;
	}
	p = rte_zmalloc(name, sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (p == NULL)
		return -ENOMEM;
	p->magic = GPU_AMDGPU_MAGIC;
	p->fd = -1;
	rte_rwlock_init(&p->lock);
	ret = gpu_amdgpu_open(name, rte_vdev_device_args(vdev), p);
	if (ret == -ENODEV) {
		/* No AMD GPU: the vdev stays without a gpudev device. */
		gpu_amdgpu_priv_free(p);
		return 0;
	}
	if (ret != 0)
		goto fail;
	dev = rte_gpu_allocate(name);
	if (dev == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	dev->device = &vdev->device;
	dev->mpshared->dev_private = p;
	dev->mpshared->info.context = (uint64_t)(uintptr_t)p;
	dev->mpshared->info.total_memory = p->vram_visible;
	dev->mpshared->info.page_size = GPU_AMDGPU_PAGE_SIZE;
	dev->mpshared->info.numa_node = vdev->device.numa_node;
	dev->ops.dev_close = gpu_amdgpu_dev_close;
	dev->ops.mem_alloc = gpu_amdgpu_mem_alloc;
	dev->ops.mem_free = gpu_amdgpu_mem_free;
	dev->ops.mem_cpu_map = gpu_amdgpu_mem_cpu_map;
	dev->ops.mem_cpu_unmap = gpu_amdgpu_mem_cpu_unmap;
	dev->ops.wmb = gpu_amdgpu_wmb;
	ret = gpu_amdgpu_provider_register(dev->mpshared->info.dev_id);
	if (ret != 0) {
		dev->mpshared->dev_private = NULL;
		rte_gpu_release(dev);
		goto fail;
	}
	rte_gpu_complete_new(dev);
	GPU_AMDGPU_LOG(INFO, "%s: gpudev %d = %s (%s, PCI %s), VRAM %" PRIu64 " MiB, CPU-visible %" PRIu64 " MiB",
		name, dev->mpshared->info.dev_id,
		amdgpu_get_marketing_name(p->dev) != NULL ?
		amdgpu_get_marketing_name(p->dev) : "AMD GPU", p->node, p->pci,
		p->vram_size >> 20, p->vram_visible >> 20);
	return 0;
fail:
	GPU_AMDGPU_LOG(ERR, "%s: probe failed: %s", name, rte_strerror(-ret));
	gpu_amdgpu_priv_free(p);
	return ret;
}

static int
gpu_amdgpu_remove(struct rte_vdev_device *vdev)
{
	struct rte_gpu *dev = rte_gpu_get_by_name(rte_vdev_device_name(vdev));

	/* Skipped at probe, or closed already through rte_gpu_close(). */
	if (dev == NULL || dev->device != &vdev->device)
		return 0;
	return rte_gpu_close(dev->mpshared->info.dev_id);
}

static struct rte_vdev_driver gpu_amdgpu_drv = {
	.probe = gpu_amdgpu_probe,
	.remove = gpu_amdgpu_remove,
};

RTE_PMD_REGISTER_VDEV(gpu_amdgpu, gpu_amdgpu_drv);
RTE_PMD_REGISTER_PARAM_STRING(gpu_amdgpu,
	GPU_AMDGPU_ARG_RENDER "=<render node path; default the first amdgpu one>");
