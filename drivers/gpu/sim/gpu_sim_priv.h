/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the simulated GPU's files share: its log type, its devargs and the
 * configuration they give (gpu_sim_devargs.c parses them, gpu_sim.c probes
 * with them).
 */
#ifndef GPU_SIM_PRIV_H
#define GPU_SIM_PRIV_H

#include <stdint.h>

#include <rte_log.h>

#include "rte_pmd_gpu_sim.h"

extern int gpu_sim_logtype;
#define GPU_SIM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, gpu_sim_logtype, "gpu_sim: " fmt "\n", \
		##__VA_ARGS__)

#define GPU_SIM_PAGE_SIZE RTE_PMD_GPU_SIM_PAGE_SIZE
#define GPU_SIM_DEFAULT_SIZE (UINT64_C(1) << 30)
/* As many streaming multiprocessors as an H100/H200 SXM. */
#define GPU_SIM_DEFAULT_PROCESSORS 132
#define GPU_SIM_MAX_PROCESSORS (1u << 20)

#define GPU_SIM_ARG_SIZE "size"
#define GPU_SIM_ARG_NUMA "numa"
#define GPU_SIM_ARG_PROCESSORS "processors"
#define GPU_SIM_ARG_COPY_LATENCY "copy_latency_us"
/* As dt_copy.h's DT_COPY_CPU_LATENCY_MAX_US (this driver does not include it). */
#define GPU_SIM_MAX_COPY_LATENCY_US 1000000u

/** Devargs with their defaults. */
struct gpu_sim_conf {
	uint64_t size;
	int numa;
	uint32_t processors;
	uint32_t copy_latency_us;
};

/*
 * The devargs @p args of device @p name into @p conf, defaults first;
 * 0, or -EINVAL (logged).
 */
int gpu_sim_parse_devargs(const char *name, const char *args,
	struct gpu_sim_conf *conf);

#endif /* GPU_SIM_PRIV_H */
