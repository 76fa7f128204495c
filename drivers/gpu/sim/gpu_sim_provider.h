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

#endif /* GPU_SIM_PROVIDER_H */
