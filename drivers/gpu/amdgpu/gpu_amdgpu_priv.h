/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State of the gpu_amdgpu gpudev driver, shared by its files. Internal to
 * drivers/gpu/amdgpu.
 */
#ifndef GPU_AMDGPU_PRIV_H
#define GPU_AMDGPU_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amdgpu.h>
#include <rte_log.h>
#include <rte_rwlock.h>

extern int gpu_amdgpu_logtype;

#define GPU_AMDGPU_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, gpu_amdgpu_logtype, "gpu_amdgpu: " fmt "\n", \
		##__VA_ARGS__)

#define GPU_AMDGPU_DRV_NAME "gpu_amdgpu"
/* Allocation granule and gpudev page size: amdgpu's large-page size. */
#define GPU_AMDGPU_PAGE_SIZE (64u * 1024u)
#define GPU_AMDGPU_MAX_ALLOCS 256
/* "amdgpu!!" in ASCII: marks info.context as our private state. */
#define GPU_AMDGPU_MAGIC UINT64_C(0x616d646770752121)

/*
 * One buffer object: VRAM allocated by the device, or a dma-buf imported.
 * The stack sees it at @ref addr, a PROT_NONE reservation of the process
 * (so that a stray CPU load or store of payload faults, as on gpu_sim);
 * the GPU sees it at @ref gpu_va; the CPU mapping (@ref cpu) is for the
 * copy engine and verification code.
 */
struct gpu_amdgpu_alloc {
	uintptr_t addr;
	size_t len;             /* reservation and BO size (page multiple) */
	size_t user_len;        /* bytes asked for */
	amdgpu_bo_handle bo;
	amdgpu_va_handle va_handle;
	uint64_t gpu_va;
	void *cpu;              /* amdgpu_bo_cpu_map(), NULL until needed */
	bool imported;
};

struct gpu_amdgpu_priv {
	uint64_t magic;
	int fd;                 /* render node */
	amdgpu_device_handle dev;
	char node[64];          /* /dev/dri/renderD128 */
	char pci[16];           /* DDDD:BB:DD.F */
	uint64_t vram_size, vram_visible;
	rte_rwlock_t lock;      /* the table */
	struct gpu_amdgpu_alloc a[GPU_AMDGPU_MAX_ALLOCS];
};

/** The first amdgpu render node (or @p want), opened; see gpu_amdgpu_find.c. */
int gpu_amdgpu_find(const char *want, struct gpu_amdgpu_priv *p,
	char *why, size_t why_len);

/** The priv of gpudev @p dev_id when it is an open gpu_amdgpu device, else NULL. */
struct gpu_amdgpu_priv *gpu_amdgpu_priv_by_id(int16_t dev_id);

/** The allocation holding [ptr, +len), under the lock; NULL when none. */
struct gpu_amdgpu_alloc *gpu_amdgpu_alloc_find(struct gpu_amdgpu_priv *p,
	const void *ptr, size_t len);

/** CPU mapping of an allocation, made on first use; NULL with a log line. */
void *gpu_amdgpu_cpu_of(struct gpu_amdgpu_alloc *a);

/** Map a BO at a new GPU VA and a PROT_NONE reservation into slot @p a. */
int gpu_amdgpu_alloc_map(struct gpu_amdgpu_priv *p, struct gpu_amdgpu_alloc *a,
	amdgpu_bo_handle bo, size_t len);

/** Undo gpu_amdgpu_alloc_map and free the BO; the slot is emptied. */
void gpu_amdgpu_alloc_unmap(struct gpu_amdgpu_alloc *a);

/** A free slot of the table (lock held for writing), or NULL. */
struct gpu_amdgpu_alloc *gpu_amdgpu_slot(struct gpu_amdgpu_priv *p);

/** Register / remove the lib/devmem provider (gpu_amdgpu_provider.c). */
int gpu_amdgpu_provider_register(int16_t gpu_id);
void gpu_amdgpu_provider_unregister(int16_t gpu_id);

#endif /* GPU_AMDGPU_PRIV_H */
