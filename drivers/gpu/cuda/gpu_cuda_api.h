/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table of libcuda entry points, loaded at probe with dlopen() so that the
 * driver builds and loads on machines without an NVIDIA driver.
 *
 * Internal to drivers/gpu/cuda.
 */
#ifndef GPU_CUDA_API_H
#define GPU_CUDA_API_H

#include <cuda.h>
#include <cudaTypedefs.h>

/*
 * Each pointer has the type of the ABI version named in its typedef, and is
 * looked up through cuGetProcAddress with that same version: the driver then
 * hands back the entry point with exactly that signature, whatever newer
 * variants it also has (e.g. cuCtxSynchronize changed signature in 13.0).
 */
struct gpu_cuda_api {
	void *lib;                /* dlopen() handle of libcuda.so.1 */
	int driver_version;       /* cuDriverGetVersion(), e.g. 13000 */

	PFN_cuGetErrorString_v6000 cuGetErrorString;
	PFN_cuGetErrorName_v6000 cuGetErrorName;
	PFN_cuDeviceGetCount_v2000 cuDeviceGetCount;
	PFN_cuDeviceGet_v2000 cuDeviceGet;
	PFN_cuDeviceGetByPCIBusId_v4010 cuDeviceGetByPCIBusId;
	PFN_cuDeviceGetPCIBusId_v4010 cuDeviceGetPCIBusId;
	PFN_cuDeviceGetName_v2000 cuDeviceGetName;
	PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute;
	PFN_cuDeviceTotalMem_v3020 cuDeviceTotalMem;
	PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
	PFN_cuDevicePrimaryCtxRelease_v11000 cuDevicePrimaryCtxRelease;
	PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent;
	PFN_cuCtxPushCurrent_v4000 cuCtxPushCurrent;
	PFN_cuCtxPopCurrent_v4000 cuCtxPopCurrent;
	PFN_cuMemAlloc_v3020 cuMemAlloc;
	PFN_cuMemFree_v3020 cuMemFree;
	PFN_cuMemHostRegister_v6050 cuMemHostRegister;
	PFN_cuMemHostUnregister_v4000 cuMemHostUnregister;
	PFN_cuMemHostGetDevicePointer_v3020 cuMemHostGetDevicePointer;
	PFN_cuPointerSetAttribute_v6000 cuPointerSetAttribute;
	PFN_cuStreamCreate_v2000 cuStreamCreate;
	PFN_cuStreamDestroy_v4000 cuStreamDestroy;
	PFN_cuStreamSynchronize_v2000 cuStreamSynchronize;
	PFN_cuStreamQuery_v2000 cuStreamQuery;
	PFN_cuEventCreate_v2000 cuEventCreate;
	PFN_cuEventDestroy_v4000 cuEventDestroy;
	PFN_cuEventRecord_v2000 cuEventRecord;
	PFN_cuEventQuery_v2000 cuEventQuery;
	PFN_cuMemcpyHtoDAsync_v3020 cuMemcpyHtoDAsync;
	PFN_cuMemcpyDtoHAsync_v3020 cuMemcpyDtoHAsync;
	PFN_cuMemcpyDtoDAsync_v3020 cuMemcpyDtoDAsync;
	PFN_cuMemcpyAsync_v4000 cuMemcpyAsync;
	PFN_cuMemsetD8Async_v3020 cuMemsetD8Async;
	PFN_cuModuleLoadData_v2000 cuModuleLoadData;
	PFN_cuModuleUnload_v2000 cuModuleUnload;
	PFN_cuModuleGetFunction_v2000 cuModuleGetFunction;
	PFN_cuLaunchKernel_v4000 cuLaunchKernel;

	/* Optional: NULL when the installed driver predates them. */
	PFN_cuFlushGPUDirectRDMAWrites_v11030 cuFlushGPUDirectRDMAWrites;
	PFN_cuMemGetHandleForAddressRange_v11070 cuMemGetHandleForAddressRange;
	PFN_cuMemcpyBatchAsync_v12080 cuMemcpyBatchAsync;
	/* Pinned staging of the copy engine; without them it copies directly. */
	PFN_cuMemHostAlloc_v2020 cuMemHostAlloc;
	PFN_cuMemFreeHost_v2000 cuMemFreeHost;
	/* Completion through a host word (copy engine); else CUDA events. */
	PFN_cuStreamWriteValue64_v11070 cuStreamWriteValue64;
	/* dma-buf import (rte_pmd_gpu_cuda_dmabuf_import()). */
	PFN_cuImportExternalMemory_v10000 cuImportExternalMemory;
	PFN_cuExternalMemoryGetMappedBuffer_v10000 cuExternalMemoryGetMappedBuffer;
	PFN_cuDestroyExternalMemory_v10000 cuDestroyExternalMemory;
	/* Sharing with another process (ipc_export: ingest clients). */
	PFN_cuMemGetAddressRange_v3020 cuMemGetAddressRange;
	PFN_cuIpcGetMemHandle_v4010 cuIpcGetMemHandle;
	/* Copy engine streams ahead of the application's kernels. */
	PFN_cuCtxGetStreamPriorityRange_v5050 cuCtxGetStreamPriorityRange;
	PFN_cuStreamCreateWithPriority_v5050 cuStreamCreateWithPriority;
};

/** Oldest driver accepted: cuGetProcAddress_v2 and stream-ordered batches. */
#define GPU_CUDA_DRIVER_MIN_VERSION 12000

/**
 * dlopen libcuda.so.1, cuInit it and fill @p api.
 *
 * @param[out] why  on failure, a static string saying what is missing
 * @return 0; -ELIBACC when libcuda cannot be loaded; -ENODEV when the driver
 *         sees no GPU; -ENOTSUP when the driver is too old or lacks a
 *         required entry point; -EIO on another CUDA error.
 */
int gpu_cuda_api_load(struct gpu_cuda_api *api, const char **why);

/** dlclose what gpu_cuda_api_load() opened; safe on a zeroed table. */
void gpu_cuda_api_unload(struct gpu_cuda_api *api);

/** Printable name of a CUDA status, never NULL. */
const char *gpu_cuda_strerror(const struct gpu_cuda_api *api, CUresult res);

#endif /* GPU_CUDA_API_H */
