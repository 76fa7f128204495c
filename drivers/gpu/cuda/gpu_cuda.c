/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_cuda: gpudev driver for NVIDIA GPUs through the CUDA driver API.
 *
 * A vdev rather than a PCI driver: it needs no device-ID table (DPDK's own
 * PCI driver has no Hopper IDs), needs no binding of the GPU to anything, and
 * several gpudev ids can point at GPUs chosen on the command line:
 *
 *   --vdev=gpu_cuda0                   first GPU the CUDA driver lists
 *   --vdev=gpu_cuda1,device=1          CUDA ordinal 1
 *   --vdev=gpu_cuda0,pci=0000:19:00.0  GPU at that PCI address
 *
 * Copy engines created on the device start from two more arguments, so that
 * a benchmark compares the ways of issuing copies without code changes:
 *
 *   copy_mode=auto|staged|batch|per_copy|staged_per_copy  (dt_copy_cuda_engine_set_mode())
 *   stage_max=BYTES                       (dt_copy_cuda_engine_set_stage_max())
 *   completion=auto|event|memop           (dt_copy_cuda_engine_set_completion())
 *   stage_read=host|device                (dt_copy_cuda_engine_set_stage_read())
 *
 * libcuda is dlopen()ed at probe, so the driver builds and loads on machines
 * without an NVIDIA driver; there probe fails with one log line saying what
 * is missing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include <bus_vdev_driver.h>
#include <gpudev_driver.h>

#include "gpu_cuda_priv.h"
#include "rte_pmd_gpu_cuda.h"

RTE_LOG_REGISTER(gpu_cuda_logtype, pmd.gpu.cuda, INFO);

#define GPU_CUDA_ARG_DEVICE "device"
#define GPU_CUDA_ARG_PCI "pci"
#define GPU_CUDA_ARG_COPY_MODE "copy_mode"
#define GPU_CUDA_ARG_STAGE_MAX "stage_max"
#define GPU_CUDA_ARG_COMPLETION "completion"
#define GPU_CUDA_ARG_STAGE_READ "stage_read"

static const char * const gpu_cuda_valid_args[] = {
	GPU_CUDA_ARG_DEVICE, GPU_CUDA_ARG_PCI, GPU_CUDA_ARG_COPY_MODE,
	GPU_CUDA_ARG_STAGE_MAX, GPU_CUDA_ARG_COMPLETION,
	GPU_CUDA_ARG_STAGE_READ, NULL
};

/*
 * Which GPU a vdev names (CUDA ordinal, or PCI address when pci[0] != 0),
 * and the defaults of copy engines created on it.
 */
struct gpu_cuda_args {
	int ordinal;
	char pci[32];
	int copy_mode;
	uint32_t stage_max;
	int completion;
	int stage_read;
};

/* copy_mode= values, indexed by enum dt_copy_cuda_mode. */
static const char * const gpu_cuda_copy_modes[] = {
	[DT_COPY_CUDA_MODE_AUTO] = "auto",
	[DT_COPY_CUDA_MODE_PER_COPY] = "per_copy",
	[DT_COPY_CUDA_MODE_BATCH] = "batch",
	[DT_COPY_CUDA_MODE_STAGED] = "staged",
	[DT_COPY_CUDA_MODE_STAGED_PER_COPY] = "staged_per_copy",
};

/* completion= values, indexed by enum dt_copy_cuda_completion. */
static const char * const gpu_cuda_completions[] = {
	[DT_COPY_CUDA_COMPLETION_AUTO] = "auto",
	[DT_COPY_CUDA_COMPLETION_EVENT] = "event",
	[DT_COPY_CUDA_COMPLETION_MEMOP] = "memop",
};

/* stage_read= values, indexed by enum dt_copy_cuda_stage_read. */
static const char * const gpu_cuda_stage_reads[] = {
	[DT_COPY_CUDA_STAGE_READ_HOST] = "host",
	[DT_COPY_CUDA_STAGE_READ_DEVICE] = "device",
};

/*
 * Index of @p v in the @p n names of @p names; -EINVAL (logged with the
 * @p choices) when it is none of them.
 */
static int
gpu_cuda_parse_choice(const char *name, const char *key, const char *v,
	const char * const *names, unsigned int n, const char *choices)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return (int)i;
	GPU_CUDA_LOG(ERR, "%s: %s=%s: give %s", name, key, v, choices);
	return -EINVAL;
}

/* ---------------------------------------------------------------- context */

int
gpu_cuda_ctx_enter(const struct gpu_cuda_priv *p, int *pushed)
{
	CUcontext cur = NULL;
	CUresult res;

	*pushed = 0;
	if (p->api.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == p->ctx)
		return 0;
	res = p->api.cuCtxPushCurrent(p->ctx);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "cuCtxPushCurrent failed: %s",
			gpu_cuda_strerror(&p->api, res));
		return -EIO;
	}
	*pushed = 1;
	return 0;
}

void
gpu_cuda_ctx_leave(const struct gpu_cuda_priv *p, int pushed)
{
	CUcontext prev;

	if (pushed)
		p->api.cuCtxPopCurrent(&prev);
}

/* ----------------------------------------------------------------- memory */

static int gpu_cuda_mem_alloc(struct rte_gpu *dev, size_t size,
	unsigned int align, void **ptr);

struct gpu_cuda_priv *
gpu_cuda_priv_get(int16_t dev_id)
{
	struct rte_gpu_info info;
	struct rte_gpu *dev;

	if (rte_gpu_info_get(dev_id, &info) != 0 || info.name == NULL)
		goto nodev;
	dev = rte_gpu_get_by_name(info.name);
	/* Our ops table is the proof that the device is a gpu_cuda one. */
	if (dev == NULL || dev->ops.mem_alloc != gpu_cuda_mem_alloc ||
			dev->mpshared->dev_private == NULL)
		goto nodev;
	return dev->mpshared->dev_private;
nodev:
	rte_errno = ENODEV;
	return NULL;
}

/*
 * cuMemAlloc returns at least 256-byte aligned memory, and large blocks are
 * usually 2 MiB aligned; only when that is not enough, allocate again with
 * room to align by hand (cuMemFree then takes the unaligned base).
 */
static int
gpu_cuda_alloc_aligned(struct gpu_cuda_priv *p, size_t size,
	unsigned int align, struct gpu_cuda_range *r)
{
	unsigned int one = 1;
	CUdeviceptr d;
	CUresult res;

	res = p->api.cuMemAlloc(&d, size);
	if (res == CUDA_SUCCESS && align > 1 && d % align != 0) {
		p->api.cuMemFree(d);
		res = size > SIZE_MAX - align ? CUDA_ERROR_OUT_OF_MEMORY :
			p->api.cuMemAlloc(&d, size + align - 1);
	}
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "cuMemAlloc(%zu, align %u) failed: %s",
			size, align, gpu_cuda_strerror(&p->api, res));
		return -ENOMEM;
	}
	/*
	 * SYNC_MEMOPS makes synchronous copies on this range complete before
	 * they return, which third-party DMA (GPUDirect RDMA, dma-buf
	 * importers) needs to see consistent data.
	 */
	res = p->api.cuPointerSetAttribute(&one,
		CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "cuPointerSetAttribute(SYNC_MEMOPS) failed: %s",
			gpu_cuda_strerror(&p->api, res));
		p->api.cuMemFree(d);
		return -EIO;
	}
	r->base = d;
	r->start = (uintptr_t)(align > 1 ? RTE_ALIGN_CEIL(d, align) : d);
	r->len = size;
	return 0;
}

static int
gpu_cuda_mem_alloc(struct rte_gpu *dev, size_t size, unsigned int align,
	void **ptr)
{
	struct gpu_cuda_priv *p = dev->mpshared->dev_private;
	struct gpu_cuda_range r = { .ext_fd = -1 };
	int pushed, ret;

	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	ret = gpu_cuda_alloc_aligned(p, size, align, &r);
	if (ret == 0) {
		rte_rwlock_write_lock(&p->lock);
		ret = gpu_cuda_ranges_insert(&p->allocs, &r);
		rte_rwlock_write_unlock(&p->lock);
		if (ret != 0)
			p->api.cuMemFree(r.base);
	}
	gpu_cuda_ctx_leave(p, pushed);
	if (ret == 0)
		*ptr = (void *)r.start;
	return ret;
}

static int
gpu_cuda_mem_free(struct rte_gpu *dev, void *ptr)
{
	struct gpu_cuda_priv *p = dev->mpshared->dev_private;
	CUdeviceptr base;
	CUresult res;
	int idx, pushed, ret;

	rte_rwlock_write_lock(&p->lock);
	idx = gpu_cuda_ranges_find_exact(&p->allocs, (uintptr_t)ptr);
	if (idx >= 0 && p->allocs.v[idx].ext != NULL) {
		rte_rwlock_write_unlock(&p->lock);
		GPU_CUDA_LOG(ERR, "mem_free: %p on %s was imported from a dma-buf: release it with rte_pmd_gpu_cuda_dmabuf_release(), not rte_gpu_mem_free()",
			ptr, dev->mpshared->name);
		return -EPERM;
	}
	if (idx >= 0) {
		base = p->allocs.v[idx].base;
		gpu_cuda_ranges_remove(&p->allocs, idx);
	}
	rte_rwlock_write_unlock(&p->lock);
	if (idx < 0) {
		GPU_CUDA_LOG(ERR, "mem_free: %p is not an address returned by rte_gpu_mem_alloc() on %s",
			ptr, dev->mpshared->name);
		return -EINVAL;
	}
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	res = p->api.cuMemFree(base);
	gpu_cuda_ctx_leave(p, pushed);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "cuMemFree(%p) failed: %s", ptr,
			gpu_cuda_strerror(&p->api, res));
		return -EIO;
	}
	return 0;
}

/*
 * Pin host memory and map it for the GPU. The range is entered in the table
 * first, so that overlapping registrations are refused with a clear message
 * before CUDA sees them, and the (slow) pinning runs without the lock held.
 */
int
gpu_cuda_host_register(struct gpu_cuda_priv *p, void *ptr, size_t size)
{
	CUdeviceptr d;
	CUresult res;

	res = p->api.cuMemHostRegister(ptr, size,
		CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "cuMemHostRegister(%p, %zu) failed: %s", ptr,
			size, gpu_cuda_strerror(&p->api, res));
		return res == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED ?
			-EEXIST : -EIO;
	}
	if (p->can_use_host_ptr)
		return 0;
	/* gpudev hands the same pointer to GPU code: it must be valid there. */
	res = p->api.cuMemHostGetDevicePointer(&d, ptr, 0);
	if (res == CUDA_SUCCESS && d == (CUdeviceptr)(uintptr_t)ptr)
		return 0;
	GPU_CUDA_LOG(ERR, "registered host memory %p has another address on the GPU; not supported",
		ptr);
	p->api.cuMemHostUnregister(ptr);
	return -ENOTSUP;
}

static int
gpu_cuda_mem_register(struct rte_gpu *dev, size_t size, void *ptr)
{
	struct gpu_cuda_priv *p = dev->mpshared->dev_private;
	struct gpu_cuda_range r = { .start = (uintptr_t)ptr, .len = size };
	int pushed, ret;

	rte_rwlock_write_lock(&p->lock);
	ret = gpu_cuda_ranges_insert(&p->regs, &r);
	rte_rwlock_write_unlock(&p->lock);
	if (ret == -EEXIST)
		GPU_CUDA_LOG(ERR, "mem_register: [%p, +%zu) overlaps memory already registered on %s",
			ptr, size, dev->mpshared->name);
	if (ret != 0)
		return ret;

	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret == 0) {
		ret = gpu_cuda_host_register(p, ptr, size);
		gpu_cuda_ctx_leave(p, pushed);
	}
	if (ret != 0) {
		rte_rwlock_write_lock(&p->lock);
		gpu_cuda_ranges_remove(&p->regs,
			gpu_cuda_ranges_find_exact(&p->regs, r.start));
		rte_rwlock_write_unlock(&p->lock);
	}
	return ret;
}

static int
gpu_cuda_mem_unregister(struct rte_gpu *dev, void *ptr)
{
	struct gpu_cuda_priv *p = dev->mpshared->dev_private;
	CUresult res;
	int idx, pushed, ret;

	rte_rwlock_write_lock(&p->lock);
	idx = gpu_cuda_ranges_find_exact(&p->regs, (uintptr_t)ptr);
	/* Shared pages of rte_pmd_gpu_cuda_host_register() have other owners. */
	if (idx >= 0 && p->regs.v[idx].refs != 0) {
		rte_rwlock_write_unlock(&p->lock);
		GPU_CUDA_LOG(ERR, "mem_unregister: %p was registered by rte_pmd_gpu_cuda_host_register()/mempool_register(); undo it with their unregister call",
			ptr);
		return -EBUSY;
	}
	if (idx >= 0)
		gpu_cuda_ranges_remove(&p->regs, idx);
	rte_rwlock_write_unlock(&p->lock);
	if (idx < 0) {
		GPU_CUDA_LOG(ERR, "mem_unregister: %p is not an address registered with rte_gpu_mem_register() on %s",
			ptr, dev->mpshared->name);
		return -EINVAL;
	}
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	res = p->api.cuMemHostUnregister(ptr);
	gpu_cuda_ctx_leave(p, pushed);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "cuMemHostUnregister(%p) failed: %s", ptr,
			gpu_cuda_strerror(&p->api, res));
		return -EIO;
	}
	return 0;
}

/*
 * A CPU mapping of device memory needs GDRCopy (gdrdrv kernel module and
 * libgdrapi), which this driver does not implement. gpudev's comm list
 * probes cpu_map and falls back to registered host memory on failure.
 */
static int
gpu_cuda_mem_cpu_map(struct rte_gpu *dev, size_t size, void *ptr_in,
	void **ptr_out)
{
	GPU_CUDA_LOG(NOTICE, "%s: cpu_map not supported: CPU access to CUDA device memory needs GDRCopy, which gpu_cuda does not implement",
		dev->mpshared->name);
	return -ENOTSUP;
}

static int
gpu_cuda_mem_cpu_unmap(struct rte_gpu *dev, void *ptr)
{
	/* Nothing is ever mapped (see gpu_cuda_mem_cpu_map). */
	return -EINVAL;
}

static int
gpu_cuda_wmb(struct rte_gpu *dev)
{
	struct gpu_cuda_priv *p = dev->mpshared->dev_private;
	CUresult res;
	int pushed, ret;

	/* The GPU orders remote writes itself: nothing to flush. */
	if (p->rdma_writes_ordering != CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE)
		return 0;
	if (!(p->rdma_flush_options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST) ||
			p->api.cuFlushGPUDirectRDMAWrites == NULL) {
		GPU_CUDA_LOG(ERR, "%s: wmb: the GPU neither orders remote writes nor supports cuFlushGPUDirectRDMAWrites",
			dev->mpshared->name);
		return -ENOTSUP;
	}
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	res = p->api.cuFlushGPUDirectRDMAWrites(
		CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
		CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES);
	gpu_cuda_ctx_leave(p, pushed);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "cuFlushGPUDirectRDMAWrites failed: %s",
			gpu_cuda_strerror(&p->api, res));
		return -EIO;
	}
	return 0;
}

/* ------------------------------------------------------- open and close */

/* Free what the application left allocated or registered. */
static void
gpu_cuda_priv_free_memory(struct gpu_cuda_priv *p)
{
	uint32_t i;
	int pushed = 0;

	if (p->ctx == NULL || gpu_cuda_ctx_enter(p, &pushed) != 0)
		return;
	rte_rwlock_write_lock(&p->lock);
	if (p->allocs.n + p->regs.n > 0)
		GPU_CUDA_LOG(INFO, "close: freeing %u allocation(s) and %u registration(s) left by the application",
			p->allocs.n, p->regs.n);
	for (i = 0; i < p->allocs.n; i++) {
		if (p->allocs.v[i].ext != NULL)
			gpu_cuda_import_release(p, &p->allocs.v[i]);
		else
			p->api.cuMemFree(p->allocs.v[i].base);
	}
	for (i = 0; i < p->regs.n; i++)
		p->api.cuMemHostUnregister((void *)p->regs.v[i].start);
	p->allocs.n = 0;
	p->regs.n = 0;
	rte_rwlock_write_unlock(&p->lock);
	gpu_cuda_ctx_leave(p, pushed);
}

void
gpu_cuda_priv_put(struct gpu_cuda_priv *p)
{
	int pushed;

	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (p->module != NULL && gpu_cuda_ctx_enter(p, &pushed) == 0) {
		p->api.cuModuleUnload(p->module);
		gpu_cuda_ctx_leave(p, pushed);
	}
	if (p->ctx != NULL)
		p->api.cuDevicePrimaryCtxRelease(p->cu_dev);
	gpu_cuda_ranges_free(&p->allocs);
	gpu_cuda_ranges_free(&p->regs);
	gpu_cuda_api_unload(&p->api);
	rte_free(p);
}

/*
 * Close frees everything but leaves rte_gpu_release() to gpudev / remove.
 * gpudev releases the device even when close fails, so close cannot refuse:
 * copy engines still open keep the context and libcuda (their reference),
 * but the memory they copy to is gone and their copies fail from now on.
 */
static int
gpu_cuda_dev_close(struct rte_gpu *dev)
{
	struct gpu_cuda_priv *p = dev->mpshared->dev_private;
	uint32_t refs;

	if (p == NULL)
		return 0;
	refs = __atomic_load_n(&p->refs, __ATOMIC_ACQUIRE);
	if (refs > 1)
		GPU_CUDA_LOG(ERR, "%s: closed while %u CUDA copy engine(s) still use it: destroy engines first",
			dev->mpshared->name, refs - 1);
	gpu_cuda_provider_unregister(dev->mpshared->info.dev_id);
	gpu_cuda_priv_free_memory(p);
	dev->mpshared->dev_private = NULL;
	gpu_cuda_priv_put(p);
	return 0;
}

static int
gpu_cuda_parse_args(const char *name, const char *params,
	struct gpu_cuda_args *a)
{
	struct rte_kvargs *kv;
	const char *v;
	char *end;

	unsigned long ul;
	int i;

	memset(a, 0, sizeof(*a));
	a->copy_mode = DT_COPY_CUDA_MODE_AUTO;
	a->stage_max = DT_COPY_CUDA_STAGE_MAX_DEFAULT;
	a->completion = DT_COPY_CUDA_COMPLETION_AUTO;
	a->stage_read = DT_COPY_CUDA_STAGE_READ_HOST;
	if (params == NULL || params[0] == '\0')
		return 0;
	kv = rte_kvargs_parse(params, gpu_cuda_valid_args);
	if (kv == NULL) {
		GPU_CUDA_LOG(ERR, "%s: bad arguments \"%s\" (valid: device=N or pci=DDDD:BB:DD.F, copy_mode=auto|staged|batch|per_copy|staged_per_copy, stage_max=BYTES, completion=auto|event|memop, stage_read=host|device)",
			name, params);
		return -EINVAL;
	}
	v = rte_kvargs_get(kv, GPU_CUDA_ARG_COPY_MODE);
	if (v != NULL) {
		i = gpu_cuda_parse_choice(name, GPU_CUDA_ARG_COPY_MODE, v,
			gpu_cuda_copy_modes, RTE_DIM(gpu_cuda_copy_modes),
			"auto, staged, batch or per_copy");
		if (i < 0) {
			rte_kvargs_free(kv);
			return -EINVAL;
		}
		a->copy_mode = i;
	}
	v = rte_kvargs_get(kv, GPU_CUDA_ARG_COMPLETION);
	if (v != NULL) {
		i = gpu_cuda_parse_choice(name, GPU_CUDA_ARG_COMPLETION, v,
			gpu_cuda_completions, RTE_DIM(gpu_cuda_completions),
			"auto, event or memop");
		if (i < 0) {
			rte_kvargs_free(kv);
			return -EINVAL;
		}
		a->completion = i;
	}
	v = rte_kvargs_get(kv, GPU_CUDA_ARG_STAGE_READ);
	if (v != NULL) {
		i = gpu_cuda_parse_choice(name, GPU_CUDA_ARG_STAGE_READ, v,
			gpu_cuda_stage_reads, RTE_DIM(gpu_cuda_stage_reads),
			"host or device");
		if (i < 0) {
			rte_kvargs_free(kv);
			return -EINVAL;
		}
		a->stage_read = i;
	}
	v = rte_kvargs_get(kv, GPU_CUDA_ARG_STAGE_MAX);
	if (v != NULL) {
		errno = 0;
		ul = strtoul(v, &end, 0);
		if (errno != 0 || *end != '\0' || v[0] == '-' ||
				ul > DT_COPY_CUDA_STAGE_MAX_LIMIT) {
			GPU_CUDA_LOG(ERR, "%s: stage_max=%s: give 0..%u bytes",
				name, v, DT_COPY_CUDA_STAGE_MAX_LIMIT);
			rte_kvargs_free(kv);
			return -EINVAL;
		}
		a->stage_max = (uint32_t)ul;
	}
	v = rte_kvargs_get(kv, GPU_CUDA_ARG_DEVICE);
	if (v != NULL) {
		errno = 0;
		a->ordinal = (int)strtol(v, &end, 10);
		if (errno != 0 || *end != '\0' || a->ordinal < 0)
			goto bad;
	}
	v = rte_kvargs_get(kv, GPU_CUDA_ARG_PCI);
	if (v != NULL) {
		if (rte_kvargs_get(kv, GPU_CUDA_ARG_DEVICE) != NULL ||
				strlen(v) >= sizeof(a->pci))
			goto bad;
		strcpy(a->pci, v);
	}
	rte_kvargs_free(kv);
	return 0;
bad:
	GPU_CUDA_LOG(ERR, "%s: bad arguments \"%s\" (give one of device=N or pci=DDDD:BB:DD.F)",
		name, params);
	rte_kvargs_free(kv);
	return -EINVAL;
}

static int
gpu_cuda_find_device(struct gpu_cuda_priv *p, const char *name,
	const struct gpu_cuda_args *a)
{
	int count = 0;
	CUresult res;

	if (a->pci[0] != '\0') {
		res = p->api.cuDeviceGetByPCIBusId(&p->cu_dev, a->pci);
		if (res != CUDA_SUCCESS) {
			GPU_CUDA_LOG(ERR, "%s: no CUDA GPU at PCI %s (%s)", name,
				a->pci, gpu_cuda_strerror(&p->api, res));
			return -ENODEV;
		}
		return 0;
	}
	res = p->api.cuDeviceGetCount(&count);
	if (res != CUDA_SUCCESS || a->ordinal >= count) {
		GPU_CUDA_LOG(ERR, "%s: no CUDA GPU with ordinal %d (the driver sees %d)",
			name, a->ordinal, count);
		return -ENODEV;
	}
	res = p->api.cuDeviceGet(&p->cu_dev, a->ordinal);
	return res == CUDA_SUCCESS ? 0 : -ENODEV;
}

static int
gpu_cuda_attr(struct gpu_cuda_priv *p, CUdevice_attribute attr, int dflt)
{
	int v;

	if (p->api.cuDeviceGetAttribute(&v, attr, p->cu_dev) != CUDA_SUCCESS)
		return dflt;
	return v;
}

/* Host NUMA node next to the GPU: CUDA 12.2+ knows; else sysfs does. */
static int
gpu_cuda_numa_node(struct gpu_cuda_priv *p)
{
	char path[96];
	int node = gpu_cuda_attr(p, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, -1);
	unsigned int i;
	FILE *f;

	if (node >= 0)
		return node;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node",
		p->pci_bus_id);
	for (i = strlen("/sys/bus/pci/devices/"); path[i] != '\0'; i++)
		path[i] = (char)tolower((unsigned char)path[i]);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node;
}

/* Resolve the GPU, retain its primary context and read its properties. */
static int
gpu_cuda_open(struct gpu_cuda_priv *p, const char *name,
	const struct gpu_cuda_args *a)
{
	CUresult res;
	int ret;

	ret = gpu_cuda_find_device(p, name, a);
	if (ret != 0)
		return ret;
	res = p->api.cuDevicePrimaryCtxRetain(&p->ctx, p->cu_dev);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "%s: cuDevicePrimaryCtxRetain failed: %s",
			name, gpu_cuda_strerror(&p->api, res));
		p->ctx = NULL;
		return -EIO;
	}
	if (p->api.cuDeviceGetPCIBusId(p->pci_bus_id, sizeof(p->pci_bus_id),
			p->cu_dev) != CUDA_SUCCESS)
		strcpy(p->pci_bus_id, "unknown");
	if (p->api.cuDeviceGetName(p->gpu_name, sizeof(p->gpu_name),
			p->cu_dev) != CUDA_SUCCESS)
		strcpy(p->gpu_name, "unknown");
	p->can_use_host_ptr = gpu_cuda_attr(p,
		CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 0);
	p->rdma_writes_ordering = gpu_cuda_attr(p,
		CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
		CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE);
	p->rdma_flush_options = gpu_cuda_attr(p,
		CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 0);
	p->dmabuf_supported = gpu_cuda_attr(p,
		CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0);
	return 0;
}

static void
gpu_cuda_fill_info(struct rte_gpu *dev, struct gpu_cuda_priv *p)
{
	struct rte_gpu_info *info = &dev->mpshared->info;
	size_t total = 0;

	p->api.cuDeviceTotalMem(&total, p->cu_dev);
	info->context = (uint64_t)(uintptr_t)p->ctx;
	info->processor_count = (uint32_t)gpu_cuda_attr(p,
		CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
	info->total_memory = total;
	info->page_size = GPU_CUDA_PAGE_SIZE;
	info->numa_node = (int16_t)gpu_cuda_numa_node(p);
}

static void
gpu_cuda_set_ops(struct rte_gpu *dev)
{
	dev->ops.dev_info_get = NULL; /* gpudev copies mpshared->info */
	dev->ops.dev_close = gpu_cuda_dev_close;
	dev->ops.mem_alloc = gpu_cuda_mem_alloc;
	dev->ops.mem_free = gpu_cuda_mem_free;
	dev->ops.mem_register = gpu_cuda_mem_register;
	dev->ops.mem_unregister = gpu_cuda_mem_unregister;
	dev->ops.mem_cpu_map = gpu_cuda_mem_cpu_map;
	dev->ops.mem_cpu_unmap = gpu_cuda_mem_cpu_unmap;
	dev->ops.wmb = gpu_cuda_wmb;
}

static int
gpu_cuda_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct gpu_cuda_priv *p;
	struct gpu_cuda_args a;
	struct rte_gpu *dev;
	const char *why = "";
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		GPU_CUDA_LOG(ERR, "%s: secondary processes are not supported (CUDA contexts are per process)",
			name);
		return -ENOTSUP;
	}
	ret = gpu_cuda_parse_args(name, rte_vdev_device_args(vdev), &a);
	if (ret != 0)
		return ret;
	p = rte_zmalloc(name, sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (p == NULL)
		return -ENOMEM;
	rte_rwlock_init(&p->lock);
	p->refs = 1; /* the device's own reference */
	ret = gpu_cuda_api_load(&p->api, &why);
	if (ret != 0) {
		GPU_CUDA_LOG(ERR, "%s: probe failed: %s", name, why);
		rte_free(p);
		return ret;
	}
	p->copy_mode = a.copy_mode;
	p->stage_max = a.stage_max;
	p->completion = a.completion;
	p->stage_read = a.stage_read;
	ret = gpu_cuda_open(p, name, &a);
	if (ret != 0)
		goto fail;
	dev = rte_gpu_allocate(name);
	if (dev == NULL) {
		ret = -rte_errno;
		GPU_CUDA_LOG(ERR, "%s: rte_gpu_allocate failed: %s", name,
			rte_strerror(rte_errno));
		goto fail;
	}
	dev->device = &vdev->device;
	gpu_cuda_fill_info(dev, p);
	vdev->device.numa_node = dev->mpshared->info.numa_node;
	dev->mpshared->dev_private = p;
	gpu_cuda_set_ops(dev);
	/* lib/devmem finds the engine, dma-buf and pinning calls here. */
	ret = gpu_cuda_provider_register(dev->mpshared->info.dev_id);
	if (ret != 0) {
		GPU_CUDA_LOG(ERR, "%s: cannot register the device-memory provider: %s",
			name, rte_strerror(-ret));
		dev->mpshared->dev_private = NULL;
		rte_gpu_release(dev);
		goto fail;
	}
	rte_gpu_complete_new(dev);
	GPU_CUDA_LOG(INFO, "%s: gpudev %d = %s, PCI %s, %u SMs, %zu MiB, NUMA %d, driver %d.%d, dma-buf %s, RDMA write ordering %d, copy engines %s (stage_max %u, completion %s, stage_read %s)",
		name, dev->mpshared->info.dev_id, p->gpu_name, p->pci_bus_id,
		dev->mpshared->info.processor_count,
		dev->mpshared->info.total_memory >> 20,
		dev->mpshared->info.numa_node, p->api.driver_version / 1000,
		(p->api.driver_version % 1000) / 10,
		p->dmabuf_supported ? "yes" : "no", p->rdma_writes_ordering,
		gpu_cuda_copy_modes[p->copy_mode], p->stage_max,
		gpu_cuda_completions[p->completion],
		gpu_cuda_stage_reads[p->stage_read]);
	return 0;
fail:
	gpu_cuda_priv_put(p);
	return ret;
}

static int
gpu_cuda_remove(struct rte_vdev_device *vdev)
{
	struct rte_gpu *dev = rte_gpu_get_by_name(rte_vdev_device_name(vdev));
	int ret;

	if (dev == NULL) /* already closed through rte_gpu_close() */
		return 0;
	ret = gpu_cuda_dev_close(dev);
	if (ret != 0)
		return ret;
	return rte_gpu_release(dev);
}

static struct rte_vdev_driver gpu_cuda_vdev_drv = {
	.probe = gpu_cuda_probe,
	.remove = gpu_cuda_remove,
};

RTE_PMD_REGISTER_VDEV(gpu_cuda, gpu_cuda_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(gpu_cuda,
	GPU_CUDA_ARG_DEVICE "=<int> "
	GPU_CUDA_ARG_PCI "=<DDDD:BB:DD.F> "
	GPU_CUDA_ARG_COPY_MODE "=auto|staged|batch|per_copy "
	GPU_CUDA_ARG_STAGE_MAX "=<bytes> "
	GPU_CUDA_ARG_COMPLETION "=auto|event|memop "
	GPU_CUDA_ARG_STAGE_READ "=host|device");
