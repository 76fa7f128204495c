/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_sim as a lib/devmem provider: its copy engine is the CPU engine of
 * dt_copy writing through the device-side mapping (the simulated DMA),
 * with the copy_latency_us devarg as the engine's completion latency.
 * The CPU alias is gpudev's rte_gpu_mem_cpu_map(); another process maps an
 * allocation through a duplicate of the device's memfd; there is no dma-buf
 * (the memory is a memfd, not an exporter's buffer) and host memory needs
 * no registration (the device reaches it at its host address).
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_log.h>

#include "dt_copy.h"
#include "dt_devmem_provider.h"
#include "gpu_sim_provider.h"
#include "rte_pmd_gpu_sim.h"

static struct dt_copy_engine *
gpu_sim_engine_create(int16_t gpu_id, void *base, size_t len)
{
	struct dt_copy_engine *ce;
	void *side = NULL;
	int ret, us;

	ret = rte_pmd_gpu_sim_dev_side(gpu_id, base, len, &side);
	if (ret < 0) {
		rte_log(RTE_LOG_ERR, gpu_sim_logtype,
			"gpu_sim: gpu %d: device-side mapping of [%p, +%zu) failed: %s\n",
			gpu_id, base, len, rte_strerror(-ret));
		rte_errno = -ret;
		return NULL;
	}
	ce = dt_copy_cpu_engine_create(base, len, side);
	if (ce == NULL)
		return NULL;
	us = rte_pmd_gpu_sim_copy_latency(gpu_id);
	if (us > 0 && dt_copy_cpu_engine_set_latency(ce, (uint32_t)us) == 0)
		rte_log(RTE_LOG_INFO, gpu_sim_logtype,
			"gpu_sim: gpu %d: copy engine of [%p, +%zu): simulated completion latency %d us\n",
			gpu_id, base, len, us);
	return ce;
}

/* Another process maps the allocation from the device's memfd. */
static int
gpu_sim_ipc_export(int16_t gpu_id, void *ptr, size_t size,
	struct dt_devmem_ipc *ipc)
{
	uint64_t off, len;
	int fd, ret;

	ret = gpu_sim_ipc_range(gpu_id, ptr, size, &fd, &off, &len);
	if (ret < 0)
		return ret;
	ipc->kind = DT_DEVMEM_IPC_MEMFD;
	ipc->fd = fd;
	ipc->map_off = off;
	ipc->map_len = len;
	return 0;
}

static const struct dt_devmem_provider_ops gpu_sim_provider_ops = {
	.name = "gpu_sim",
	.engine_create = gpu_sim_engine_create,
	.ipc_export = gpu_sim_ipc_export,
};

int
gpu_sim_provider_register(int16_t gpu_id)
{
	return dt_devmem_provider_register(gpu_id, &gpu_sim_provider_ops);
}

void
gpu_sim_provider_unregister(int16_t gpu_id)
{
	dt_devmem_provider_unregister(gpu_id, &gpu_sim_provider_ops);
}
