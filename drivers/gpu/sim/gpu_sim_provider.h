/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal to gpu_sim: its lib/devmem provider (gpu_sim_provider.c). */
#ifndef GPU_SIM_PROVIDER_H
#define GPU_SIM_PROVIDER_H

#include <stdint.h>

/* The driver's log type (gpu_sim.c), for the provider's lines. */
extern int gpu_sim_logtype;

/** Register the provider of a probed device; 0 or a negative errno. */
int gpu_sim_provider_register(int16_t gpu_id);

/** Remove it when the device closes. */
void gpu_sim_provider_unregister(int16_t gpu_id);

/**
 * The memfd range of the allocation that starts at @p ptr (ipc_export):
 * *fd a CLOEXEC duplicate owned by the caller, *off its page-aligned file
 * offset, *map_len the page-rounded length.
 * @return 0, -ENODEV (not a gpu_sim device), -EINVAL (not an allocation's
 *         start), or the errno of dup.
 */
int gpu_sim_ipc_range(int16_t dev_id, const void *ptr, size_t size, int *fd,
	uint64_t *off, uint64_t *map_len);

#endif /* GPU_SIM_PROVIDER_H */
