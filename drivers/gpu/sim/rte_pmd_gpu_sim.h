/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Driver-specific API of the simulated GPU (gpudev vdev "gpu_sim").
 *
 * The simulator keeps three mappings of each allocation: the device address
 * returned by rte_gpu_mem_alloc() (no access rights: a CPU load or store
 * crashes, which is the zero-touch guard), a private device-side mapping used
 * only by copy engines (the simulated DMA), and the CPU alias handed out by
 * rte_gpu_mem_cpu_map() for verification code.
 *
 * Devargs: size=<bytes with an optional K, M or G suffix, a multiple of
 * RTE_PMD_GPU_SIM_PAGE_SIZE; default 1G> bounds the total of allocations;
 * numa=<node; default 0> and processors=<count; default 132> are reported
 * by rte_gpu_info_get(); copy_latency_us=<µs; default 0> is the simulated
 * completion latency of the copy engines that lib/devmem creates for the
 * device's memory (rte_pmd_gpu_sim_copy_latency()): copies land at once but
 * are reported complete that long after, like a CUDA event round trip.
 * Example: --vdev=gpu_sim0,size=256M,copy_latency_us=20.
 *
 * gpudev contract as on a real GPU: rte_gpu_mem_free() and
 * rte_gpu_mem_unregister() accept only the exact address returned or
 * registered; rte_gpu_mem_cpu_unmap() takes the device address that was
 * mapped. rte_gpu_mem_cpu_map() of registered host memory returns the same
 * pointer.
 */
#ifndef RTE_PMD_GPU_SIM_H
#define RTE_PMD_GPU_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Device page size (info.page_size): every allocation is aligned to it and
 * rounded up to a multiple of it, so rte_extmem_register() with this page
 * size accepts an allocation.
 */
#define RTE_PMD_GPU_SIM_PAGE_SIZE (64u * 1024u)

/**
 * Device-side mapping of a simulated allocation, for copy engines.
 *
 * @param dev_id  gpudev id of a gpu_sim device
 * @param ptr     an address inside an allocation made by rte_gpu_mem_alloc()
 * @param size    bytes from @p ptr that must lie inside that allocation
 * @param[out] dev_side  the same bytes in the device-side mapping
 * @return 0; -ENODEV if @p dev_id is not a gpu_sim device; -EINVAL if the
 *         range is not inside one allocation (the bytes requested from
 *         rte_gpu_mem_alloc(), not its rounding to a page), if it is
 *         registered host memory (the device reaches that at its host
 *         address), or if @p dev_side is NULL.
 *
 * Takes the device's control-path lock: call it when setting up a window,
 * not per packet. The result is valid until the allocation is freed.
 */
int rte_pmd_gpu_sim_dev_side(int16_t dev_id, const void *ptr, size_t size,
	void **dev_side);

/**
 * The copy_latency_us devarg of a gpu_sim device.
 *
 * @param dev_id  gpudev id of the device
 * @return microseconds (0: none), or -ENODEV if @p dev_id is not a gpu_sim device
 */
int rte_pmd_gpu_sim_copy_latency(int16_t dev_id);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_GPU_SIM_H */
