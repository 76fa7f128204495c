/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_cuda as a lib/devmem provider: the CUDA copy engine, dma-buf export
 * and import of the driver, and host-memory pinning for fast copies. No
 * CPU alias of its own: gpudev's rte_gpu_mem_cpu_map() answers (ENOTSUP
 * without GDRCopy), as before.
 */
#include "dt_devmem_provider.h"
#include "gpu_cuda_priv.h"
#include "rte_pmd_gpu_cuda.h"

static const struct dt_devmem_provider_ops gpu_cuda_provider_ops = {
	.name = "gpu_cuda",
	.engine_create = dt_copy_cuda_engine_create,
	.dmabuf_export = rte_pmd_gpu_cuda_dmabuf_export,
	.dmabuf_import = rte_pmd_gpu_cuda_dmabuf_import,
	.dmabuf_release = rte_pmd_gpu_cuda_dmabuf_release,
	.ipc_export = gpu_cuda_ipc_export,
	.host_register = rte_pmd_gpu_cuda_host_register,
	.host_unregister = rte_pmd_gpu_cuda_host_unregister,
};

int
gpu_cuda_provider_register(int16_t gpu_id)
{
	return dt_devmem_provider_register(gpu_id, &gpu_cuda_provider_ops);
}

void
gpu_cuda_provider_unregister(int16_t gpu_id)
{
	dt_devmem_provider_unregister(gpu_id, &gpu_cuda_provider_ops);
}
