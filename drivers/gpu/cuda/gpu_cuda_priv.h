/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-device state of the gpu_cuda gpudev driver, shared by the driver ops,
 * the dma-buf helper and the CUDA copy engine. Internal to drivers/gpu/cuda.
 */
#ifndef GPU_CUDA_PRIV_H
#define GPU_CUDA_PRIV_H

#include <stdint.h>
#include <stddef.h>

#include <rte_log.h>
#include <rte_rwlock.h>

#include "gpu_cuda_api.h"

extern int gpu_cuda_logtype;

#define GPU_CUDA_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, gpu_cuda_logtype, "gpu_cuda: " fmt "\n", \
		##__VA_ARGS__)

struct gpu_cuda_priv;

/** gpudev page size advertised in rte_gpu_info (GPUDirect pinning unit). */
#define GPU_CUDA_PAGE_SIZE (64u * 1024u)

/** One allocation or one host registration, keyed by the user's address. */
struct gpu_cuda_range {
	uintptr_t start;      /**< address handed to / given by the user */
	size_t len;           /**< bytes the user asked for */
	CUdeviceptr base;     /**< allocations: what cuMemFree takes */
	/**
	 * Host registrations made by rte_pmd_gpu_cuda_host_register(): how
	 * many of its calls share this (page-aligned) range; 0 for a range
	 * registered with rte_gpu_mem_register(), which has one owner.
	 */
	uint32_t refs;
	/**
	 * Allocations imported by rte_pmd_gpu_cuda_dmabuf_import(): the
	 * external memory object (NULL for rte_gpu_mem_alloc() memory), and
	 * the driver's duplicate of the dma-buf fd with the identity of the
	 * file it named, so that release closes it only if CUDA did not.
	 */
	CUexternalMemory ext;
	int ext_fd;
	uint64_t ext_dev;
	uint64_t ext_ino;
};

/**
 * Release an imported allocation (already out of the table): cuMemFree of
 * the mapping, cuDestroyExternalMemory, close of the driver's fd duplicate.
 * The context is current. 0 or -EIO (logged).
 */
int gpu_cuda_import_release(struct gpu_cuda_priv *p,
	const struct gpu_cuda_range *r);

/**
 * Ranges sorted by start, non-overlapping. Lookups are binary searches:
 * test-gpudev alone makes >1000 registrations, and the copy engine looks up
 * host ranges on its hot path.
 */
struct gpu_cuda_ranges {
	struct gpu_cuda_range *v;
	uint32_t n;
	uint32_t cap;
};

/** -EEXIST when @p r overlaps a range already there, -ENOMEM. */
int gpu_cuda_ranges_insert(struct gpu_cuda_ranges *t,
	const struct gpu_cuda_range *r);
/** Index of the range starting exactly at @p start, or -1. */
int gpu_cuda_ranges_find_exact(const struct gpu_cuda_ranges *t,
	uintptr_t start);
/** Index of the range holding all of [addr, addr + len), or -1. */
int gpu_cuda_ranges_find(const struct gpu_cuda_ranges *t, uintptr_t addr,
	size_t len);
/**
 * Whether [addr, addr + len) is covered by ranges that follow each other
 * without a gap (host registrations shared by page are split in pieces).
 */
int gpu_cuda_ranges_covered(const struct gpu_cuda_ranges *t, uintptr_t addr,
	size_t len);
void gpu_cuda_ranges_remove(struct gpu_cuda_ranges *t, uint32_t idx);
void gpu_cuda_ranges_free(struct gpu_cuda_ranges *t);

/**
 * Driver-private state of one gpu_cuda device (mpshared->dev_private).
 *
 * The libcuda function table lives here rather than in a process-wide
 * global: every device dlopen()s libcuda itself (the loader refcounts the
 * handle), so devices probe and close independently and nothing needs
 * "first device initialises" ordering.
 */
struct gpu_cuda_priv {
	struct gpu_cuda_api api;
	CUdevice cu_dev;
	CUcontext ctx;                 /**< retained primary context */
	char pci_bus_id[32];
	char gpu_name[128];
	int can_use_host_ptr;          /**< registered host memory: same VA on GPU */
	int rdma_writes_ordering;      /**< CUGPUDirectRDMAWritesOrdering */
	int rdma_flush_options;        /**< CUflushGPUDirectRDMAWritesOptions */
	int dmabuf_supported;
	rte_rwlock_t lock;             /**< guards allocs and regs */
	struct gpu_cuda_ranges allocs; /**< cuMemAlloc'ed or dma-buf imported, by aligned address */
	struct gpu_cuda_ranges regs;   /**< cuMemHostRegister'ed host memory */
	uint32_t refs;                 /**< the device + each copy engine (atomic) */
	CUmodule module;               /**< embedded kernels, loaded on first use */
	CUfunction fn_pattern_check;
	CUfunction fn_verify_segments;
	CUfunction fn_scatter;         /**< staged copies of the copy engine */
	CUfunction fn_gather;          /**< the copy engine's gathers */
	CUfunction fn_trap;            /**< fault injection for tests */
	/**
	 * Copy-engine defaults from devargs (copy_mode=, stage_max=,
	 * completion=, stage_read=).
	 */
	int copy_mode;                 /**< enum dt_copy_cuda_mode */
	uint32_t stage_max;            /**< largest staged copy, bytes; 0: none */
	int completion;                /**< enum dt_copy_cuda_completion */
	int stage_read;                /**< enum dt_copy_cuda_stage_read */
};

/**
 * Private state of gpudev @p dev_id when it is a gpu_cuda device, else NULL
 * with rte_errno = ENODEV.
 */
struct gpu_cuda_priv *gpu_cuda_priv_get(int16_t dev_id);

/**
 * Drop a reference; the last one releases the context, libcuda and @p p.
 * Copy engines hold one so that a device closed under them does not pull
 * the function table away.
 */
void gpu_cuda_priv_put(struct gpu_cuda_priv *p);

/**
 * cuMemHostRegister @p ptr (portable, device-mapped) and check that the GPU
 * sees it at the same address. The context is current; the caller keeps
 * the registration table. 0, -EEXIST (CUDA: already registered), -ENOTSUP,
 * -EIO; each failure is logged.
 */
int gpu_cuda_host_register(struct gpu_cuda_priv *p, void *ptr, size_t size);

/**
 * Load the embedded kernels (gpu_cuda_kernels.cu) once per device; the
 * context is current. 0, or -ENOTSUP (logged) when the driver was built
 * without nvcc or the GPU cannot run the embedded sm_90/PTX code.
 */
int gpu_cuda_kernels_load(struct gpu_cuda_priv *p);

/**
 * Make the device's primary context current in this thread, pushing it only
 * when another (or none) is current. Pair with gpu_cuda_ctx_leave().
 */
int gpu_cuda_ctx_enter(const struct gpu_cuda_priv *p, int *pushed);
void gpu_cuda_ctx_leave(const struct gpu_cuda_priv *p, int pushed);

/** Register the lib/devmem provider of a probed device (gpu_cuda_provider.c). */
int gpu_cuda_provider_register(int16_t gpu_id);

struct dt_devmem_ipc;
/** The provider's ipc_export (gpu_cuda_ipc.c): a CUDA IPC handle. */
int gpu_cuda_ipc_export(int16_t dev_id, void *ptr, size_t size,
	struct dt_devmem_ipc *ipc);

/** Remove it when the device closes. */
void gpu_cuda_provider_unregister(int16_t gpu_id);

#endif /* GPU_CUDA_PRIV_H */
