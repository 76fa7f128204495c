/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Driver-specific API of the CUDA gpudev driver (vdev "gpu_cuda") and the
 * CUDA copy engine.
 *
 * Devices: `--vdev=gpu_cuda0` (first GPU), `--vdev=gpu_cuda1,device=1`
 * (CUDA ordinal), `--vdev=gpu_cuda0,pci=0000:19:00.0` (PCI address).
 * Where libcuda or a GPU is missing, probe fails with one log line saying
 * which.
 *
 * Memory allocated with rte_gpu_mem_alloc() on such a device is CUDA device
 * memory: the CPU cannot load or store it (no GDRCopy mapping is offered,
 * rte_gpu_mem_cpu_map() fails). Bytes reach it through a copy engine
 * (dt_copy_cuda_engine_create()) or through a dma-buf importer
 * (rte_pmd_gpu_cuda_dmabuf_export()). A dma-buf from elsewhere becomes
 * device memory with rte_pmd_gpu_cuda_dmabuf_import().
 */
#ifndef RTE_PMD_GPU_CUDA_H
#define RTE_PMD_GPU_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mempool;
struct dt_copy_engine;
struct dt_copy_chan;
struct dt_copy_op;

/**
 * Export part of a device allocation as a dma-buf file descriptor
 * (cuMemGetHandleForAddressRange, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD), for
 * an importer such as a NIC driver or RDMA stack.
 *
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param ptr     start of the range; host-page aligned (4 KiB on x86)
 * @param size    bytes; a non-zero multiple of the host page size
 * @param[out] fd the dma-buf; the caller owns it and close()s it. The
 *                allocation must outlive every importer's use of it.
 * @return 0; -ENODEV if @p dev_id is not a gpu_cuda device; -EINVAL if the
 *         range is misaligned or not inside one rte_gpu_mem_alloc()
 *         allocation of that device; -ENOTSUP if the GPU, driver or kernel
 *         lacks dma-buf support (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
 *         -EIO on another CUDA error. Every failure is logged.
 */
int rte_pmd_gpu_cuda_dmabuf_export(int16_t dev_id, void *ptr, size_t size,
	int *fd);

/**
 * Import a dma-buf as device memory of a gpu_cuda device
 * (cuImportExternalMemory with CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD,
 * then cuExternalMemoryGetMappedBuffer of the whole buffer).
 *
 * The mapping is entered in the device's allocation table as device
 * memory: copy engines (dt_copy_cuda_engine_create()), the verification
 * kernels and rte_pmd_gpu_cuda_dmabuf_export() accept ranges inside it as
 * they accept rte_gpu_mem_alloc() memory. rte_gpu_mem_free() refuses it
 * (-EPERM); release it with rte_pmd_gpu_cuda_dmabuf_release(). Closing the
 * device releases imports still mapped.
 *
 * Note: CUDA 13 documents dma-buf import for Tegra (Thor) platforms; a
 * driver that refuses it makes this call return -ENOTSUP.
 *
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param fd      the dma-buf. It stays owned by the caller, who may close
 *                it as soon as this call returns: CUDA is given a
 *                duplicate.
 * @param size    size of the dma-buf (lseek(fd, 0, SEEK_END)); a non-zero
 *                multiple of the host page size. The whole buffer is mapped.
 * @param[out] ptr  device address of the mapping (the address CUDA chose;
 *                not necessarily the address of the exporter's memory)
 * @return 0; -ENODEV if @p dev_id is not a gpu_cuda device; -EBADF if
 *         @p fd is not open; -EINVAL for a NULL @p ptr, a size that is zero,
 *         not page-aligned or not the dma-buf's size, or an fd that cannot
 *         report a size (not a dma-buf); -ENOTSUP when libcuda lacks the
 *         external-memory calls or the driver refuses the import; -ENOMEM;
 *         -EIO on another CUDA error. Every failure is logged; nothing stays
 *         imported on failure.
 */
int rte_pmd_gpu_cuda_dmabuf_import(int16_t dev_id, int fd, size_t size,
	void **ptr);

/**
 * Release a mapping made by rte_pmd_gpu_cuda_dmabuf_import(): cuMemFree of
 * the mapping and cuDestroyExternalMemory. Copy engines over it must be
 * destroyed first. The caller's fd is not touched.
 *
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param ptr     device address rte_pmd_gpu_cuda_dmabuf_import() returned
 * @return 0; -ENODEV if @p dev_id is not a gpu_cuda device; -EINVAL if
 *         @p ptr is not an address returned by the import (an
 *         rte_gpu_mem_alloc() address included); -EIO when CUDA failed to
 *         release (logged; the table entry is gone either way).
 */
int rte_pmd_gpu_cuda_dmabuf_release(int16_t dev_id, void *ptr);

/**
 * Register host memory with the GPU (cuMemHostRegister), so that the copy
 * engine copies from / to it at full speed (CUDA copies of unregistered
 * "pageable" host memory are staged through a driver bounce buffer and
 * return only when the source has been read).
 *
 * Unlike rte_gpu_mem_register(), ranges may share pages: CUDA pins whole
 * pages and refuses a second registration touching one, and DPDK places
 * mempools, memzones and a driver's buffers side by side in hugepages. This
 * call registers the range rounded out to its page size (the hugepage size
 * for DPDK memory), reuses pieces that an earlier call of it pinned, and
 * counts their users; rte_pmd_gpu_cuda_host_unregister() with the same
 * range drops the count and unpins what no call uses any more.
 *
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param ptr     start of the host range
 * @param len     its length in bytes
 * @return 0; -ENODEV (not a gpu_cuda device); -EINVAL; -EEXIST when the
 *         pages overlap memory registered with rte_gpu_mem_register();
 *         -EIO, -ENOTSUP on a CUDA error. Every failure is logged; nothing
 *         stays registered on failure.
 */
int rte_pmd_gpu_cuda_host_register(int16_t dev_id, void *ptr, size_t len);

/**
 * Undo rte_pmd_gpu_cuda_host_register() of the same range.
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param ptr     start of the range, as registered
 * @param len     its length, as registered
 * @return 0, -ENODEV, -EINVAL, or -EIO when CUDA failed to unpin.
 */
int rte_pmd_gpu_cuda_host_unregister(int16_t dev_id, void *ptr, size_t len);

/**
 * Register every memory chunk of a mempool with
 * rte_pmd_gpu_cuda_host_register(), so that the copy engine copies from /
 * to its buffers at full speed. Pools that share hugepages with each other
 * may all be registered.
 *
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param mp      the mempool (populated)
 * @return 0, or the first error (see rte_pmd_gpu_cuda_host_register()),
 *         after undoing the chunks already registered.
 */
int rte_pmd_gpu_cuda_mempool_register(int16_t dev_id, struct rte_mempool *mp);

/**
 * Undo rte_pmd_gpu_cuda_mempool_register().
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param mp      the mempool, as registered
 * @return 0, -ENODEV, -EINVAL (NULL @p mp), or the first error of
 *         rte_pmd_gpu_cuda_host_unregister() for one of its chunks
 */
int rte_pmd_gpu_cuda_mempool_unregister(int16_t dev_id,
	struct rte_mempool *mp);

/**
 * One range of device memory for rte_pmd_gpu_cuda_verify_segments(): its
 * byte i must equal dt_pattern_byte(stream_off + i) (lib/devmem/dt_pattern.h).
 * 16 bytes, the same layout in host and device code.
 */
struct rte_pmd_gpu_cuda_verify_seg {
	uint64_t addr;        /**< device address (rte_gpu_mem_alloc() memory) */
	uint32_t len;         /**< bytes */
	uint32_t stream_off;  /**< stream offset of the first byte */
};

/** Most segments one rte_pmd_gpu_cuda_verify_segments() call takes. */
#define RTE_PMD_GPU_CUDA_VERIFY_MAX 65536u

/**
 * Check, on the GPU, that each segment holds the stream test pattern
 * (dt_pattern_byte() of lib/devmem/dt_pattern.h, the pattern devtcp-bench
 * sends), for verification without a CPU mapping of device memory.
 * One kernel launch for the whole batch; synchronous; runs on its own
 * stream, so copies still in flight on other streams must have completed.
 *
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param segs  @p n segments, each inside one rte_gpu_mem_alloc()
 *              allocation of @p dev_id (checked before the launch: a stray
 *              address would fault the GPU context)
 * @param n     1..RTE_PMD_GPU_CUDA_VERIFY_MAX
 * @param[out] bad_bytes  bytes that differ from the pattern
 * @param[out] bad_segs   segments with at least one such byte (may be NULL)
 * @return 0; -ENODEV; -EINVAL (bad arguments or a segment outside the
 *         device's allocations, logged with its index); -ENOTSUP when the
 *         driver was built without nvcc or the GPU cannot run the embedded
 *         sm_90/PTX code; -EIO on a CUDA error.
 */
int rte_pmd_gpu_cuda_verify_segments(int16_t dev_id,
	const struct rte_pmd_gpu_cuda_verify_seg *segs, uint32_t n,
	uint64_t *bad_bytes, uint64_t *bad_segs);

/**
 * Byte @p i of the test pattern with @p seed: what
 * rte_pmd_gpu_cuda_pattern_check() expects at offset @p i of its range.
 */
static inline uint8_t
rte_pmd_gpu_cuda_pattern_byte(size_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed;

	return (uint8_t)(x ^ (x >> 13) ^ (x >> 24));
}

/**
 * Count, on the GPU, the bytes of a device range that differ from the test
 * pattern (rte_pmd_gpu_cuda_pattern_byte(offset, seed)). Verification code
 * uses it to check what a copy engine landed without a CPU mapping.
 * Synchronous; runs on its own stream.
 *
 * @param dev_id  gpudev id of a gpu_cuda device
 * @param ptr   start of a range inside one rte_gpu_mem_alloc() allocation
 * @param len   its length in bytes (not 0)
 * @param seed  the pattern's seed (rte_pmd_gpu_cuda_pattern_byte())
 * @param[out] mismatches  number of differing bytes
 * @return 0; -ENODEV; -EINVAL for a bad range; -ENOTSUP when the driver was
 *         built without nvcc or the GPU cannot run the embedded sm_90/PTX
 *         code; -EIO on a CUDA error.
 */
int rte_pmd_gpu_cuda_pattern_check(int16_t dev_id, const void *ptr,
	size_t len, uint32_t seed, uint64_t *mismatches);

/**
 * Create a CUDA copy engine (see dt_copy.h) for a window of device memory.
 *
 * A channel is a CUDA stream, a ring of submits in flight and buffers for
 * a batch. submit() merges contiguous copies (each one starting where the
 * previous ended on both sides) into one copy. In the default mode
 * (DT_COPY_CUDA_MODE_AUTO), the small host->device copies of a batch are
 * staged: the CPU packs their bytes into a pinned, device-mapped ring of
 * the channel and one launch of a scatter kernel reads them from there
 * over PCIe and puts each in place (one CUDA call for the batch; with
 * stage_read=device, DT_COPY_CUDA_STAGE_READ_DEVICE, one cuMemcpyHtoDAsync
 * first moves the group to a device ring: two calls). The other copies go
 * out with one cuMemcpyBatchAsync call where the driver has it (CUDA 12.8+)
 * or one cuMemcpy{HtoD,DtoH,DtoD}Async per merged copy otherwise.
 *
 * Completion (enum dt_copy_cuda_completion): by default submit ends with
 * one cuStreamWriteValue64 of its last ticket into a pinned host word of
 * the channel, and completed() is a plain load of that word: no CUDA call
 * on the poll path (a cuStreamQuery only when the word has not moved for
 * DT_COPY_CUDA_STALL_POLLS polls with copies outstanding, which is how a
 * failed copy stops the channel). Where the device or driver lacks 64-bit
 * stream memory operations (or the first write fails), the channel says so
 * once and records a CUDA event per submit instead, which completed()
 * polls with cuEventQuery. Either way completed() never blocks, and a copy
 * that failed on the GPU is never reported complete.
 * Copies within one submit call must not overlap each other (a batch has no
 * internal order). Refused copies: -EFAULT for a range straddling the
 * window edge, -EINVAL for host to host (dt_copy.h's rules). Tickets start at 1, so completed() returns 0 before the
 * first copy lands.
 *
 * Host memory: either side of a copy that lies outside the window is host
 * memory. The engine does not pin it: the caller registers it with
 * rte_gpu_mem_register() (or rte_pmd_gpu_cuda_mempool_register()), because
 * only the owner knows its lifetime and pinning costs milliseconds.
 * Copies from unregistered memory still work, synchronously and slowly; the
 * channel counts them and logs the first one (staged copies need no
 * registration: the CPU reads their sources during submit()).
 *
 * Staged copies read their host source during submit(), so the caller may
 * reuse it as soon as submit() returns; other copies read it when the GPU
 * gets to them, before their ticket completes. A source that a device->host
 * copy of an earlier, still running submit writes is not staged (stream
 * order is kept). "Host memory" is memory the CPU can read: a source inside
 * an allocation of this device but outside the window is copied directly.
 *
 * Gathers (dt_copy.h's gather op, whatever the copy mode): a channel's
 * gather targets must be host memory registered with this device
 * (rte_gpu_mem_register(), rte_pmd_gpu_cuda_mempool_register()) on a GPU
 * that maps it at the same address (CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
 * anything else is refused with -ENOTSUP, and so is every target where the
 * kernels are missing. A gather is one launch of the gather kernel: its
 * threads read the window and store into the targets over PCIe (uint4
 * stores), then the submit's completion word is written as for a submit.
 * Targets must stay registered while the channel is open. Counted in
 * gather_launches and gathered.
 *
 * @param gpu_dev_id  gpudev id of a gpu_cuda device
 * @param base        start of the window: inside one rte_gpu_mem_alloc()
 *                    allocation of that device
 * @param len         window length
 * @return the engine, or NULL with rte_errno set (ENODEV, EINVAL, ENOMEM).
 *         Destroy it (dt_copy_engine_destroy()) before closing the device:
 *         closing frees the window's memory, and copies still submitted
 *         afterwards fail (the engine itself stays safe to close and destroy).
 */
struct dt_copy_engine *dt_copy_cuda_engine_create(int16_t gpu_dev_id,
	void *base, size_t len);

/**
 * A copy engine over ANY CUDA device address of a context, not one window:
 * for a library whose buffers come from elsewhere (NCCL's cudaMalloc'd
 * buffers in the training process), so that it shares gpu_cuda's copy
 * machinery (batched copies, completion through the memop word, gathers)
 * instead of carrying its own. Copies are cuMemcpyAsync by unified
 * address (or one cuMemcpyBatchAsync per submit where the mode allows);
 * nothing is staged, and the engine does not check where a copy's device
 * side lies: the caller answers for its addresses. Gathers (dt_copy.h)
 * read any device address and write only the channel's targets, which
 * must be host memory registered with @p gpu_dev_id (as for
 * dt_copy_cuda_engine_create()); the kernel checks the targets.
 *
 * @param gpu_dev_id  gpudev id of a gpu_cuda device: its libcuda table,
 *                    its kernels and its host registrations are used
 * @param cu_ctx      the CUcontext the copies run in: NULL or the device's
 *                    primary context (rte_pmd_gpu_cuda_context()), the
 *                    one the CUDA runtime uses; any other is refused
 *                    (ENOTSUP), since the kernels are loaded there
 * @param base        a window that names the engine in dt_copy's registry
 *                    (dt_copy_registry_add(), _add_range() for more):
 *                    where a NIC learns which engine reads a buffer
 * @param len         its length; NULL and 0 for none (an engine that is
 *                    not registered, e.g. a receive gather's)
 * @return the engine, or NULL with rte_errno set (ENODEV, EINVAL, ENOTSUP,
 *         ENOMEM); destroy it with dt_copy_engine_destroy()
 */
struct dt_copy_engine *dt_copy_cuda_engine_create_any(int16_t gpu_dev_id,
	void *cu_ctx, void *base, size_t len);

/**
 * The CUcontext gpudev @p gpu_dev_id works in (its retained primary
 * context), as a void pointer so that callers need no CUDA header.
 * @param gpu_dev_id  gpudev id of a gpu_cuda device
 * @param[out] cu_ctx  the CUcontext
 * @return 0, -ENODEV (not a gpu_cuda device), -EINVAL
 */
int rte_pmd_gpu_cuda_context(int16_t gpu_dev_id, void **cu_ctx);

/**
 * How a channel issues a batch of merged copies. The default is the
 * device's copy_mode= devarg (auto when absent). Whatever the mode, a
 * channel that cannot set up or use staging (no kernels, no pinned memory,
 * a CUDA error in the staged calls) logs why once and issues those copies
 * the batch-call way instead.
 */
enum dt_copy_cuda_mode {
	/**
	 * Staged gather/scatter for host->device copies of at most stage_max
	 * bytes (two or more per batch); one cuMemcpyBatchAsync for the rest
	 * when available, else one call per copy.
	 */
	DT_COPY_CUDA_MODE_AUTO = 0,
	/** One cuMemcpy*Async per merged copy (the baseline for benchmarks). */
	DT_COPY_CUDA_MODE_PER_COPY,
	/** No staging: one cuMemcpyBatchAsync when available, else one call per copy. */
	DT_COPY_CUDA_MODE_BATCH,
	/** Same as AUTO, named for benchmarks that ask for staging explicitly. */
	DT_COPY_CUDA_MODE_STAGED,
	/**
	 * Staged as AUTO, and one cuMemcpy*Async per other merged copy: never
	 * cuMemcpyBatchAsync (which faulted on the H200 under NCCL), with
	 * far fewer calls than PER_COPY for small host->device copies.
	 */
	DT_COPY_CUDA_MODE_STAGED_PER_COPY,
};

/**
 * Default and upper limit of stage_max (bytes): see
 * dt_copy_cuda_engine_set_stage_max(). On an H200 (test_gpu_cuda's
 * throughput table, 32 scattered copies per submit from cold host memory)
 * staging beat the batch call at MTU sizes in every run (1460 B: 2.8-3.0
 * vs 1.7-1.9 GB/s), was even or behind at 4 KiB, and lost above, where
 * the CPU's packing memcpy bounds it.
 */
#define DT_COPY_CUDA_STAGE_MAX_DEFAULT 2048u
/** Upper limit of stage_max (bytes): see above. */
#define DT_COPY_CUDA_STAGE_MAX_LIMIT 16384u

/**
 * Choose how channels opened afterwards issue copies.
 * @param ce    a CUDA copy engine
 * @param mode  how its channels issue copies
 * @return 0; -EINVAL if @p ce is not a CUDA engine or @p mode is unknown.
 */
int dt_copy_cuda_engine_set_mode(struct dt_copy_engine *ce,
	enum dt_copy_cuda_mode mode);

/**
 * Largest merged host->device copy that channels opened afterwards stage
 * (AUTO and STAGED modes); 0 stages nothing. Default: the device's
 * stage_max= devarg, else DT_COPY_CUDA_STAGE_MAX_DEFAULT.
 * @param ce     a CUDA copy engine
 * @param bytes  the largest merged copy staged, 0..DT_COPY_CUDA_STAGE_MAX_LIMIT
 * @return 0; -EINVAL if @p ce is not a CUDA engine or @p bytes is over
 *         DT_COPY_CUDA_STAGE_MAX_LIMIT.
 */
int dt_copy_cuda_engine_set_stage_max(struct dt_copy_engine *ce,
	uint32_t bytes);

/**
 * How a channel learns that its copies landed. The default is the device's
 * completion= devarg (auto when absent).
 */
enum dt_copy_cuda_completion {
	/**
	 * cuStreamWriteValue64 of each submit's last ticket into a pinned
	 * host word, read by completed() with a plain load; CUDA events
	 * where the device or driver cannot (logged once).
	 */
	DT_COPY_CUDA_COMPLETION_AUTO = 0,
	/** One CUDA event per submit, polled with cuEventQuery (the old way). */
	DT_COPY_CUDA_COMPLETION_EVENT,
	/** Same as AUTO, named for benchmarks that ask for it explicitly. */
	DT_COPY_CUDA_COMPLETION_MEMOP,
};

/**
 * Polls without progress (copies outstanding, the completion word not
 * moving) after which a memop channel asks cuStreamQuery whether the stream
 * failed (or finished with the word not yet seen).
 */
#define DT_COPY_CUDA_STALL_POLLS 1024u

/**
 * Where the scatter kernel of a staged group reads the staged bytes. The
 * default is the device's stage_read= devarg (host when absent).
 */
enum dt_copy_cuda_stage_read {
	/**
	 * Straight from the pinned host ring through its device mapping
	 * (zero-copy reads over PCIe): one cuLaunchKernel per group.
	 */
	DT_COPY_CUDA_STAGE_READ_HOST = 0,
	/**
	 * From a device ring that one cuMemcpyHtoDAsync filled first: two
	 * calls per group (the path before issue 9, kept for comparison).
	 */
	DT_COPY_CUDA_STAGE_READ_DEVICE,
};

/**
 * Choose how channels opened afterwards detect completion.
 * @param ce  a CUDA copy engine
 * @param c   how its channels detect completion
 * @return 0; -EINVAL if @p ce is not a CUDA engine or @p c is unknown.
 */
int dt_copy_cuda_engine_set_completion(struct dt_copy_engine *ce,
	enum dt_copy_cuda_completion c);

/**
 * Choose where the scatter kernel of channels opened afterwards reads
 * staged bytes.
 * @param ce  a CUDA copy engine
 * @param r   where the scatter kernel reads
 * @return 0; -EINVAL if @p ce is not a CUDA engine or @p r is unknown.
 */
int dt_copy_cuda_engine_set_stage_read(struct dt_copy_engine *ce,
	enum dt_copy_cuda_stage_read r);

/**
 * Counters of a CUDA channel beyond struct dt_copy_stats. Every libcuda
 * call a channel makes after it was opened is counted in one calls_* field
 * (or in batches); driver_calls is their sum, so that callers can show
 * driver calls per frame.
 */
struct dt_copy_cuda_chan_stats {
	uint64_t merged;      /**< copies after merging contiguous ones */
	uint64_t cuda_calls;  /**< copy calls made into the CUDA driver (memcpy, batch, scatter launch) */
	uint64_t batches;     /**< of those, cuMemcpyBatchAsync calls */
	uint64_t unpinned;    /**< merged copies whose host side was not registered */
	uint64_t ring_full;   /**< submits refused because the ring of submits was full */
	uint64_t staged;      /**< merged copies that went through the staging ring */
	uint64_t stage_launches; /**< scatter kernel launches (one per staged group) */
	uint64_t stage_full;  /**< groups copied directly because the staging ring was full */
	uint64_t stage_refused; /**< staged copies the scatter kernel refused (outside the window or ring): the channel stopped */
	/* Driver calls by kind. */
	uint64_t calls_memcpy;       /**< cuMemcpy{HtoD,DtoH,DtoD}Async, the staging ring's included */
	uint64_t calls_launch;       /**< cuLaunchKernel (scatter, gather) */
	uint64_t calls_event_record; /**< cuEventRecord */
	uint64_t calls_event_query;  /**< cuEventQuery */
	uint64_t calls_write_value;  /**< cuStreamWriteValue64 */
	uint64_t calls_stream_query; /**< cuStreamQuery, and cuStreamSynchronize of a drain */
	uint64_t calls_ctx;          /**< cuCtxGetCurrent, cuCtxPushCurrent, cuCtxPopCurrent */
	uint64_t driver_calls;       /**< sum of batches and the calls_* above */
	uint64_t cycles_driver;      /**< TSC cycles spent inside those calls on the data path (not drain) */
	uint64_t cycles_pack;        /**< TSC cycles of the CPU packing staged bytes into the ring */
	/* Completion. */
	uint64_t polls;          /**< completed() calls */
	uint64_t polls_pending;  /**< of those, with submits outstanding */
	uint64_t retired_memop;  /**< submits seen complete through the host word */
	uint64_t retired_event;  /**< submits seen complete through their event */
	uint64_t retired_stream; /**< submits seen complete by cuStreamQuery/cuStreamSynchronize */
	uint32_t completion;     /**< in use now: DT_COPY_CUDA_COMPLETION_MEMOP or _EVENT */
	uint32_t stage_read;     /**< in use now (enum dt_copy_cuda_stage_read); staging may be off */
	/* Gathers (dt_copy.h's gather op: device->host into registered host memory). */
	uint64_t gather_launches; /**< gather kernel launches (one per gather call) */
	uint64_t gathered;        /**< copies those launches carried */
};

/**
 * Read a CUDA channel's extra counters.
 * @param ch  a channel of a CUDA engine
 * @param st  filled on success
 * @return 0; -EINVAL if @p ch is not a channel of a CUDA engine.
 */
int dt_copy_cuda_chan_stats_get(struct dt_copy_chan *ch,
	struct dt_copy_cuda_chan_stats *st);

/**
 * Read the counters of every open channel of a CUDA engine, in the order
 * the channels were opened (one per RX/TX queue of the ports using it), so
 * that a benchmark holding only the engine (dt_copy_registry_lookup() of
 * its region) can show per-stack figures. Counters are read while their
 * channels may be running: each is a plain 64-bit load.
 *
 * @param ce  a CUDA copy engine
 * @param st  room for @p n entries (may be NULL when @p n is 0)
 * @param n   entries of @p st
 * @return the number of open channels (entries filled: the smaller of it
 *         and @p n); -EINVAL if @p ce is not a CUDA engine.
 */
int dt_copy_cuda_engine_chan_stats(struct dt_copy_engine *ce,
	struct dt_copy_cuda_chan_stats *st, unsigned int n);

/**
 * For tests: channels opened afterwards on @p ce behave as if their first
 * cuStreamWriteValue64 failed (the call is not made), so the fall-back to
 * events runs on a GPU that supports stream memory operations.
 * @param ce  a CUDA copy engine
 * @return 0; -EINVAL if @p ce is not a CUDA engine.
 */
int dt_copy_cuda_engine_test_fail_memop(struct dt_copy_engine *ce);

/**
 * For tests: queue a kernel that traps on @p ch's stream, behind what was
 * submitted so far. Everything queued after it fails on the GPU: the CUDA
 * context of the whole process is lost, so a test calls this last (or in
 * a process of its own).
 * @param ch  a channel of a CUDA engine
 * @return 0; -EINVAL if @p ch is not a CUDA channel; -ENOTSUP without the
 *         kernels; -EIO when the launch itself fails.
 */
int dt_copy_cuda_chan_test_fault(struct dt_copy_chan *ch);

/**
 * For tests: queue, through the staging ring and the scatter kernel, one
 * copy of @p len bytes to @p dst, bypassing the engine's window check (as
 * a corrupted descriptor would). The kernel must refuse it without a
 * fault; the copy's ticket goes to *ticket and must never complete, and
 * the channel stops (stage_refused counts it) while the context lives on.
 * @param ch   a channel of a CUDA engine
 * @param dst  device address the copy goes to (not checked by the CPU)
 * @param len  bytes
 * @param[out] ticket  the copy's ticket
 * @return 0; -EINVAL for a bad argument; -ENOTSUP when the channel does
 *         not stage; -EBUSY when its ring of submits is full; -ENOSPC
 *         when the staging ring is; -EIO when a CUDA call fails.
 */
int dt_copy_cuda_chan_test_stage_bad(struct dt_copy_chan *ch, uintptr_t dst,
	uint32_t len, uint64_t *ticket);

/**
 * For tests: queue one gather of @p op (dt_copy.h's gather op), bypassing
 * the CPU's check of its source (the engine's window) and destination (the
 * channel's first gather target), as a corrupted descriptor would. The
 * gather kernel must refuse it without writing and without a fault; its
 * ticket goes to *ticket and must never complete, and the channel stops
 * (stage_refused counts it) while the context lives on.
 * @param ch  a channel of a CUDA engine
 * @param op  the gather (source and destination not checked by the CPU)
 * @param[out] ticket  the gather's ticket
 * @return 0; -EINVAL for a bad argument; -ENOTSUP when the channel does
 *         not gather; -EIO when it stopped or a CUDA call failed; -EBUSY
 *         when its ring of submits is full; -ENOSPC when the staging ring is
 */
int dt_copy_cuda_chan_test_gather_bad(struct dt_copy_chan *ch,
	const struct dt_copy_op *op, uint64_t *ticket);

/**
 * Wait until every copy submitted on @p ch has landed (cuStreamSynchronize).
 * For tests and teardown; data paths poll dt_copy_completed() instead.
 * @param ch  a channel of a CUDA engine
 * @return 0; -EINVAL if @p ch is not a CUDA channel; -EIO if a copy
 *         failed (or the context could not be made current).
 */
int dt_copy_cuda_chan_drain(struct dt_copy_chan *ch);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_GPU_CUDA_H */
