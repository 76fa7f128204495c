/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Device-memory payload regions.
 *
 * A region is the memory that received payload lands in, made usable by a
 * NIC and by the stack:
 *  1. memory on a gpudev device (rte_gpu_mem_alloc, or a dma-buf imported
 *     by the device's provider), or host memory (a hugepage memzone, or a
 *     dma-buf the CPU can map, such as udmabuf's) for a host region;
 *  2. registered with EAL as external memory (rte_extmem_register), device
 *     memory and dma-buf host memory: a memzone already is DPDK memory;
 *  3. for device memory behind a port backed by a verbs device, the NIC
 *     registration check (dt_devmem_verbs.h), which refuses a region the
 *     NIC cannot reach; then DMA-mapped to the port's device
 *     (rte_dev_dma_map), when a port is given;
 *  4. a copy engine for the window, entered in the copy registry
 *     (dt_copy.h) so that a driver holding an mbuf finds how to reach it;
 *  5. a pinned external-buffer mempool (rte_pktmbuf_pool_create_extbuf):
 *     mbuf headers in hugepages, data buffers in the region.
 *
 * Creation undoes what it did when a step fails; every failure is logged
 * (log type devtcp.devmem) naming the step and the reason, sets rte_errno
 * and returns a negative errno. Regions are created and destroyed on the
 * control path, while the ports that use them are stopped.
 *
 * lib/devmem names no GPU driver: what a device's memory needs (copy
 * engine, dma-buf import and export, CPU alias, host-memory registration)
 * comes from the provider its driver registered (dt_devmem_provider.h).
 *
 * Zero touch: the CPU never loads or stores bytes of a device region; it
 * moves them with the region's copy engine. dt_devmem_region_cpu_map() is
 * for verification code only.
 */
#ifndef DT_DEVMEM_H
#define DT_DEVMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_gpudev.h>
#include <rte_mempool.h>

#include "dt_copy.h"
#include "dt_devmem_provider.h"
#include "dt_devmem_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dt_devmem_region;

/**
 * Create the copy engine of a device window: the hook through which engines
 * other than the built-in ones (the CUDA engine) plug in.
 *
 * @param gpu_id  gpudev id of the device holding the window
 * @param base    the window as the stack sees it (rte_gpu_mem_alloc())
 * @param len     its length
 * @param arg     dt_devmem_region_conf.engine_arg
 * @return the engine, or NULL with rte_errno set (ENOTSUP: not a device
 *         this factory handles)
 */
typedef struct dt_copy_engine *(*dt_devmem_engine_create_t)(int16_t gpu_id,
	void *base, size_t len, void *arg);

/** Parameters of a region. */
struct dt_devmem_region_conf {
	/**
	 * Unique name, at most DT_DEVMEM_NAME_MAX characters; it names the
	 * mempool (and the memzone of a host region).
	 */
	const char *name;
	/** gpudev device id, or RTE_GPU_ID_NONE for host memory. */
	int16_t gpu_id;
	/** ethdev port whose device DMAs into the region, or RTE_MAX_ETHPORTS for none. */
	uint16_t port_id;
	/** Number of mbufs (and data buffers) in the pool. */
	uint32_t nb_bufs;
	/**
	 * Data room of each buffer, headroom included, as for
	 * rte_pktmbuf_pool_create(). Buffers are spaced by this size rounded
	 * up to a cache line.
	 */
	uint16_t buf_size;
	/** Per-lcore mempool cache size. */
	uint32_t cache_size;
	/** Socket of the mbuf headers (and of a host region), or SOCKET_ID_ANY. */
	int socket_id;
	/**
	 * Copy engine factory for a device region; NULL selects
	 * dt_devmem_engine_create_default(). Unused for host regions, which
	 * always get a CPU engine.
	 */
	dt_devmem_engine_create_t engine_create;
	/** Passed to engine_create. */
	void *engine_arg;
	/**
	 * Take the memory from a dma-buf (any exporter: amdgpu, CUDA,
	 * udmabuf). Device region: step 1 imports @ref dmabuf_fd whole
	 * through the device's provider (a device whose driver imports no
	 * dma-bufs fails with -ENOTSUP) instead of rte_gpu_mem_alloc(), and
	 * destroy releases the import. Host region (RTE_GPU_ID_NONE): the
	 * dma-buf is mmap()ed whole, where the exporter allows it, and
	 * registered as external memory; its copy engine is the CPU one.
	 * false (a zeroed conf) ignores @ref dmabuf_fd.
	 */
	bool dmabuf;
	/**
	 * The dma-buf when @ref dmabuf is set (0 is a valid fd). It stays
	 * owned by the caller, who may close it once the region is created.
	 * Its size (lseek SEEK_END) becomes the region's length: a multiple
	 * of the device page size, at least nb_bufs x buf_size rounded to
	 * cache lines.
	 */
	int dmabuf_fd;
	/**
	 * The verbs layer of the NIC registration check; NULL (a zeroed
	 * conf) is rdma-core's (dt_devmem_verbs_ibv_ops()). Tests give a
	 * fake one.
	 */
	const struct dt_verbs_ops *verbs_ops;
	/** Passed to @ref verbs_ops. */
	void *verbs_ctx;
};

/** Longest region name: the mempool name limit less a memzone prefix. */
#define DT_DEVMEM_NAME_MAX 24

/**
 * The built-in engine factory: the engine_create of the provider that the
 * device's driver registered (dt_devmem_provider.h): gpu_sim's CPU engine
 * through its device-side mapping, gpu_cuda's CUDA copy engine, amdgpu's
 * engine; a device without a provider gets NULL with rte_errno ENOTSUP and
 * a log line saying so.
 *
 * An engine may copy from or to host memory not registered with the device
 * (dt_devmem_host_register()) more slowly (CUDA: synchronously).
 *
 * @param gpu_id  gpudev id of the device
 * @param base    start of the engine's window
 * @param len     its length
 * @param arg     unused (the signature of dt_devmem_region_conf's factory)
 * @return the engine, or NULL with rte_errno set
 */
struct dt_copy_engine *dt_devmem_engine_create_default(int16_t gpu_id,
	void *base, size_t len, void *arg);

/**
 * Create a region (see the file comment for the steps).
 *
 * @param conf  parameters
 * @param[out] region  the new region
 * @return 0, or a negative errno (also in rte_errno), with the failed step
 *         and its reason logged: -EINVAL bad parameter, -ENODEV no such gpu
 *         or port, -EEXIST name in use, -ENOMEM memory, -ENOTSUP no copy
 *         engine for the device, or what the failing DPDK call reported.
 */
int dt_devmem_region_create(const struct dt_devmem_region_conf *conf,
	struct dt_devmem_region **region);

/**
 * Destroy a region, in the reverse order of creation: CPU alias unmap if
 * still mapped, pool free, registry removal, engine destroy, DMA unmap,
 * extmem unregister, memory free (dma-buf release for an imported region).
 * NULL is a no-op.
 *
 * @param region  the region, or NULL
 * @return 0; -EBUSY (nothing done) while mbufs of the pool are not back in
 *         it; or the first error of a teardown step (the others still run,
 *         and each failure is logged).
 */
int dt_devmem_region_destroy(struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return name of the region
 */
const char *dt_devmem_region_name(const struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return the pinned external-buffer pool whose data buffers lie in the region
 */
struct rte_mempool *dt_devmem_region_pool(const struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return start of the region as the stack sees it (buf_addr of its mbufs)
 */
void *dt_devmem_region_base(const struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return length of the region (rounded up to the device page size)
 */
size_t dt_devmem_region_len(const struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return iOVA of the region start as given to the pool and DMA map (may be RTE_BAD_IOVA)
 */
uint64_t dt_devmem_region_iova(const struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return copy engine of the region (registered in the copy registry)
 */
struct dt_copy_engine *dt_devmem_region_engine(const struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return gpudev id of the region's device, or RTE_GPU_ID_NONE for host memory
 */
int16_t dt_devmem_region_gpu_id(const struct dt_devmem_region *region);

/**
 * @param region  the region
 * @return port the region is DMA-mapped to, or RTE_MAX_ETHPORTS
 */
uint16_t dt_devmem_region_port_id(const struct dt_devmem_region *region);

/**
 * CPU alias of the whole region, through rte_gpu_mem_cpu_map(): byte i of
 * the region is alias[i].
 *
 * For verification code only (tests, debug dumps): the data plane must
 * never read or write payload with the CPU. Calls nest; each needs a
 * dt_devmem_region_cpu_unmap(). A host region returns its base.
 *
 * @param region  the region
 * @return the alias, or NULL with rte_errno set (the device cannot map
 *         its memory for the CPU).
 */
void *dt_devmem_region_cpu_map(struct dt_devmem_region *region);

/**
 * Drop one dt_devmem_region_cpu_map(); the alias goes away with the last.
 * @param region  the region
 * @return 0, or -EINVAL when the region is not mapped, or the gpudev error.
 */
int dt_devmem_region_cpu_unmap(struct dt_devmem_region *region);

/**
 * Which provider the region's memory comes from: the driver name its
 * provider registered ("gpu_sim", "gpu_cuda", "gpu_amdgpu"), or "host",
 * "host (dma-buf)" for host regions.
 * @param region  the region
 * @return the provider's name
 */
const char *dt_devmem_region_provider(const struct dt_devmem_region *region);

/**
 * The NIC registration check of the region (step 3).
 * @param region  the region
 * @return its report, or NULL when it did not run (host region, no port).
 */
const struct dt_verbs_report *
dt_devmem_region_nic_check(const struct dt_devmem_region *region);

/**
 * Export the whole region as a dma-buf through its provider.
 * @param region   the region
 * @param[out] fd  the dma-buf, owned by the caller; the region must
 *                 outlive every importer's use of it
 * @return 0, or a negative errno (-ENOTSUP: the provider exports none).
 */
int dt_devmem_region_dmabuf_export(const struct dt_devmem_region *region,
	int *fd);

/**
 * Describe the whole region for another process (devtcp-server's ingest
 * clients): gpu_sim hands its memfd, gpu_cuda a CUDA IPC handle.
 * @param region    the region
 * @param[out] ipc  filled; a MEMFD fd is owned by the caller
 * @return 0, or a negative errno (-ENOTSUP: host region, or a provider
 *         without ipc_export).
 */
int dt_devmem_region_ipc_export(const struct dt_devmem_region *region,
	struct dt_devmem_ipc *ipc);

/**
 * Make host memory fast for the copy engines of device @p gpu_id (CUDA:
 * pinned with cuMemHostRegister), through its provider's hook.
 * @param gpu_id  gpudev id of the device
 * @param ptr     start of the host memory
 * @param len     its length
 * @return 0 (also when the device needs nothing), -ENOTSUP (no provider),
 *         or the provider's negative errno.
 */
int dt_devmem_host_register(int16_t gpu_id, void *ptr, size_t len);

/**
 * Undo dt_devmem_host_register() of the same range.
 * @param gpu_id  gpudev id of the device
 * @param ptr     start of the host memory
 * @param len     its length
 * @return 0, or a negative errno
 */
int dt_devmem_host_unregister(int16_t gpu_id, void *ptr, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DT_DEVMEM_H */
