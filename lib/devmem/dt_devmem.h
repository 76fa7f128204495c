/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Device-memory payload regions.
 *
 * A region is the memory that received payload lands in, made usable by a
 * NIC and by the stack:
 *  1. memory on a gpudev device (rte_gpu_mem_alloc, or a dma-buf imported
 *     with rte_pmd_gpu_cuda_dmabuf_import), or host memory (a hugepage
 *     memzone) for a host region;
 *  2. registered with EAL as external memory (rte_extmem_register), device
 *     memory only: host memory already is DPDK memory;
 *  3. DMA-mapped to the port's device (rte_dev_dma_map), when a port is
 *     given, device memory only;
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
	 * Device region only: take the memory from a dma-buf instead of
	 * rte_gpu_mem_alloc(). Step 1 imports @ref dmabuf_fd whole
	 * (rte_pmd_gpu_cuda_dmabuf_import(), gpu_cuda devices only: any
	 * other device fails with -ENOTSUP); the other steps are unchanged,
	 * and destroy releases the import. false (a zeroed conf) keeps
	 * rte_gpu_mem_alloc(), whatever @ref dmabuf_fd holds.
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
};

/** Longest region name: the mempool name limit less a memzone prefix. */
#define DT_DEVMEM_NAME_MAX 24

/**
 * The built-in engine factory:
 *  - gpu_sim device: a CPU engine through the device-side mapping
 *    (rte_pmd_gpu_sim_dev_side());
 *  - gpu_cuda device: the CUDA copy engine (dt_copy_cuda_engine_create(),
 *    batched asynchronous copies on a stream);
 *  - any other device: NULL with rte_errno ENOTSUP.
 *
 * Neither driver is a link-time dependency: each function is found through
 * a weak reference (driver linked into the program) or among the loaded
 * shared objects (driver loaded as a -d plugin). Without gpu_cuda in the
 * process, a CUDA device gets ENOTSUP with a log line saying so.
 *
 * The CUDA engine does not pin host memory: copies from or to host memory
 * not registered with the GPU (rte_pmd_gpu_cuda_mempool_register()) work,
 * but synchronously and slowly.
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
 * @return 0; -EBUSY (nothing done) while mbufs of the pool are not back in
 *         it; or the first error of a teardown step (the others still run,
 *         and each failure is logged).
 */
int dt_devmem_region_destroy(struct dt_devmem_region *region);

/** Name of the region. */
const char *dt_devmem_region_name(const struct dt_devmem_region *region);

/** The pinned external-buffer pool whose data buffers lie in the region. */
struct rte_mempool *dt_devmem_region_pool(const struct dt_devmem_region *region);

/** Start of the region as the stack sees it (buf_addr of its mbufs). */
void *dt_devmem_region_base(const struct dt_devmem_region *region);

/** Length of the region (rounded up to the device page size). */
size_t dt_devmem_region_len(const struct dt_devmem_region *region);

/** IOVA of the region start as given to the pool and DMA map (may be RTE_BAD_IOVA). */
uint64_t dt_devmem_region_iova(const struct dt_devmem_region *region);

/** Copy engine of the region (registered in the copy registry). */
struct dt_copy_engine *dt_devmem_region_engine(const struct dt_devmem_region *region);

/** gpudev id of the region's device, or RTE_GPU_ID_NONE for host memory. */
int16_t dt_devmem_region_gpu_id(const struct dt_devmem_region *region);

/** Port the region is DMA-mapped to, or RTE_MAX_ETHPORTS. */
uint16_t dt_devmem_region_port_id(const struct dt_devmem_region *region);

/**
 * CPU alias of the whole region, through rte_gpu_mem_cpu_map(): byte i of
 * the region is alias[i].
 *
 * For verification code only (tests, debug dumps): the data plane must
 * never read or write payload with the CPU. Calls nest; each needs a
 * dt_devmem_region_cpu_unmap(). A host region returns its base.
 *
 * @return the alias, or NULL with rte_errno set (the device cannot map
 *         its memory for the CPU).
 */
void *dt_devmem_region_cpu_map(struct dt_devmem_region *region);

/**
 * Drop one dt_devmem_region_cpu_map(); the alias goes away with the last.
 * @return 0, or -EINVAL when the region is not mapped, or the gpudev error.
 */
int dt_devmem_region_cpu_unmap(struct dt_devmem_region *region);

#ifdef __cplusplus
}
#endif

#endif /* DT_DEVMEM_H */
