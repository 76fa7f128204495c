/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Device-memory providers: what a gpudev driver tells lib/devmem about the
 * memory of one of its devices.
 *
 * lib/devmem never names a GPU driver. A driver registers a provider for
 * each device it probes (dt_devmem_provider_register(), keyed by the gpudev
 * device id) and removes it when the device closes; lib/devmem asks the
 * provider of a region's device for its copy engine, dma-buf import and
 * export, CPU alias and host-memory registration.
 *
 * The table lives in a named memzone, like the copy registry (dt_copy.h):
 * a driver linked into the program and a driver loaded as a -d plugin that
 * carries its own copy of this code both register into the one table the
 * program reads. It is a control-path table (probe, close, region set-up)
 * and takes a lock; nothing on the data path reads it. Primary process
 * only: the ops are function pointers of this process.
 */
#ifndef DT_DEVMEM_PROVIDER_H
#define DT_DEVMEM_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dt_copy_engine;

/** How another process maps device memory (dt_devmem_ipc). */
enum dt_devmem_ipc_kind {
	DT_DEVMEM_IPC_NONE = 0,
	/** A file (gpu_sim's memfd): mmap() @c fd at @c map_off. */
	DT_DEVMEM_IPC_MEMFD = 1,
	/**
	 * A CUDA IPC handle (cuIpcGetMemHandle) of the allocation holding the
	 * range: cuIpcOpenMemHandle() it on the device named by @c pci, the
	 * range starts @c map_off bytes into the mapping.
	 */
	DT_DEVMEM_IPC_CUDA = 2,
};

/** Bytes of a CUDA IPC handle (CU_IPC_HANDLE_SIZE). */
#define DT_DEVMEM_IPC_HANDLE_LEN 64

/**
 * What another process needs to map a range of device memory: filled by a
 * provider's ipc_export. Sent as is over a Unix socket (the fd by
 * SCM_RIGHTS).
 */
struct dt_devmem_ipc {
	uint32_t kind;            /**< enum dt_devmem_ipc_kind */
	int fd;                   /**< MEMFD: owned by the caller; else -1 */
	uint64_t map_off;         /**< MEMFD: file offset of the range (page aligned); CUDA: offset in the allocation */
	uint64_t map_len;         /**< MEMFD: bytes to mmap from map_off; CUDA: the range's length */
	uint8_t handle[DT_DEVMEM_IPC_HANDLE_LEN]; /**< CUDA: CUipcMemHandle */
	char pci[32];             /**< CUDA: the device's PCI bus id ("0000:3b:00.0") */
};

/**
 * What a provider implements. Every member but @ref name and
 * @ref engine_create may be NULL: the operation is then not supported by
 * the device (lib/devmem reports -ENOTSUP, or falls back to gpudev where
 * the comment says so). The struct must outlive the registration (a static
 * const of the driver).
 */
struct dt_devmem_provider_ops {
	/** Driver name, for log lines and reports ("gpu_sim", "gpu_cuda"). */
	const char *name;
	/**
	 * Copy engine of the window [@p base, +@p len) of device memory
	 * (rte_gpu_mem_alloc() or a dma-buf import of this device).
	 * @return the engine, or NULL with rte_errno set.
	 */
	struct dt_copy_engine *(*engine_create)(int16_t gpu_id, void *base,
		size_t len);
	/**
	 * Export [@p ptr, +@p size) of device memory as a dma-buf.
	 * @return 0 with *fd owned by the caller, or a negative errno.
	 */
	int (*dmabuf_export)(int16_t gpu_id, void *ptr, size_t size, int *fd);
	/**
	 * Import a whole dma-buf of @p size bytes as device memory of the
	 * device; the caller keeps @p fd.
	 * @return 0 with *ptr the device address, or a negative errno.
	 */
	int (*dmabuf_import)(int16_t gpu_id, int fd, size_t size, void **ptr);
	/**
	 * Describe [@p ptr, +@p size) of device memory so that another
	 * process of the machine can map the same bytes (its own CUDA
	 * context, or the memfd). The exporter's allocation must outlive
	 * every importer.
	 * @return 0 with *ipc filled (a MEMFD fd owned by the caller), or a
	 *         negative errno.
	 */
	int (*ipc_export)(int16_t gpu_id, void *ptr, size_t size,
		struct dt_devmem_ipc *ipc);
	/** Release what dmabuf_import mapped at @p ptr; 0 or a negative errno. */
	int (*dmabuf_release)(int16_t gpu_id, void *ptr);
	/**
	 * CPU alias of [@p ptr, +@p size), for verification code only.
	 * NULL: lib/devmem uses rte_gpu_mem_cpu_map().
	 * @return the alias, or NULL with rte_errno set.
	 */
	void *(*cpu_map)(int16_t gpu_id, void *ptr, size_t size);
	/** Undo cpu_map of @p ptr (the device address); 0 or a negative errno. */
	int (*cpu_unmap)(int16_t gpu_id, void *ptr);
	/**
	 * Make host memory fast for the device's copy engine (pinning).
	 * NULL: the device needs nothing (lib/devmem returns 0).
	 * @return 0 or a negative errno.
	 */
	int (*host_register)(int16_t gpu_id, void *ptr, size_t len);
	/** Undo host_register of the same range; 0 or a negative errno. */
	int (*host_unregister)(int16_t gpu_id, void *ptr, size_t len);
};

/** Highest gpudev id + 1 the table holds. */
#define DT_DEVMEM_PROVIDER_MAX 128

/**
 * Register the provider of gpudev device @p gpu_id; a driver calls it at
 * probe, once rte_gpu_allocate() gave the id. A device id that has a
 * provider gets the new one (a closed device's id is reused).
 *
 * @param gpu_id  gpudev id of the device
 * @param ops     the driver's provider (kept: it must outlive the device)
 * @return 0; -EINVAL (bad id, NULL ops, name or engine_create);
 *         -ENOMEM (no memzone for the table), with rte_errno set.
 */
int dt_devmem_provider_register(int16_t gpu_id,
	const struct dt_devmem_provider_ops *ops);

/**
 * Remove the provider of @p gpu_id if it is @p ops (a driver calls it when
 * the device closes).
 * @param gpu_id  gpudev id of the device
 * @param ops     the provider it registered
 * @return 0, or -ENOENT.
 */
int dt_devmem_provider_unregister(int16_t gpu_id,
	const struct dt_devmem_provider_ops *ops);

/**
 * The provider of @p gpu_id.
 * @param gpu_id  gpudev id of the device
 * @return its ops, or NULL (no driver registered one) with rte_errno ENOENT.
 */
const struct dt_devmem_provider_ops *dt_devmem_provider_get(int16_t gpu_id);

#ifdef __cplusplus
}
#endif

#endif /* DT_DEVMEM_PROVIDER_H */
