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
 */
#ifndef RTE_PMD_GPU_SIM_H
#define RTE_PMD_GPU_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Device-side mapping of a simulated allocation, for copy engines.
 *
 * @param dev_id  gpudev id of a gpu_sim device
 * @param ptr     an address inside an allocation made by rte_gpu_mem_alloc()
 * @param size    bytes from @p ptr that must lie inside that allocation
 * @param[out] dev_side  the same bytes in the device-side mapping
 * @return 0; -ENODEV if @p dev_id is not a gpu_sim device; -EINVAL if the
 *         range is not inside one allocation.
 */
int rte_pmd_gpu_sim_dev_side(int16_t dev_id, const void *ptr, size_t size,
	void **dev_side);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_GPU_SIM_H */
