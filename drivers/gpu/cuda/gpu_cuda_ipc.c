/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_cuda's ipc_export: another process of the machine maps a range of
 * device memory through a legacy CUDA IPC handle (cuIpcGetMemHandle) of the
 * cuMemAlloc allocation holding it. The handle names the whole allocation
 * (the driver over-allocates for alignment), so the importer adds the
 * range's offset in it. A dma-buf import would not do: CUDA imports no
 * dma-buf of its own memory into another context.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "dt_devmem_provider.h"
#include "gpu_cuda_priv.h"

int
gpu_cuda_ipc_export(int16_t dev_id, void *ptr, size_t size,
	struct dt_devmem_ipc *ipc)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	CUdeviceptr base = 0;
	CUipcMemHandle h;
	size_t alloc_len = 0;
	CUresult res;
	int pushed, ret;

	if (p == NULL)
		return -ENODEV;
	if (p->api.cuIpcGetMemHandle == NULL || p->api.cuMemGetAddressRange == NULL) {
		GPU_CUDA_LOG(ERR, "ipc_export: libcuda (driver %d) lacks cuIpcGetMemHandle/cuMemGetAddressRange",
			p->api.driver_version);
		return -ENOTSUP;
	}
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	res = p->api.cuMemGetAddressRange(&base, &alloc_len,
		(CUdeviceptr)(uintptr_t)ptr);
	if (res == CUDA_SUCCESS)
		res = p->api.cuIpcGetMemHandle(&h, base);
	gpu_cuda_ctx_leave(p, pushed);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "ipc_export: cuIpcGetMemHandle of the allocation holding %p failed: %s",
			ptr, gpu_cuda_strerror(&p->api, res));
		return res == CUDA_ERROR_NOT_SUPPORTED ? -ENOTSUP : -EIO;
	}
	if ((uintptr_t)ptr + size > base + alloc_len)
		return -EINVAL; /* the range must lie in one allocation */
	ipc->kind = DT_DEVMEM_IPC_CUDA;
	ipc->fd = -1;
	ipc->map_off = (uintptr_t)ptr - base;
	ipc->map_len = size;
	RTE_BUILD_BUG_ON(sizeof(h.reserved) != DT_DEVMEM_IPC_HANDLE_LEN);
	memcpy(ipc->handle, h.reserved, sizeof(ipc->handle));
	snprintf(ipc->pci, sizeof(ipc->pci), "%s", p->pci_bus_id);
	return 0;
}
