/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libcuda loader: dlopen at probe time, then every entry point through
 * cuGetProcAddress with the ABI version its pointer type names.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "gpu_cuda_api.h"

/* The soname the NVIDIA driver installs; libcuda.so is only in -dev setups. */
#define GPU_CUDA_LIBNAME "libcuda.so.1"

struct gpu_cuda_sym {
	const char *name;   /* base name, without _v2 suffixes */
	int version;        /* ABI version of the pointer type */
	size_t offset;      /* where it goes in struct gpu_cuda_api */
	int optional;
};

#define SYM(n, v) { #n, v, offsetof(struct gpu_cuda_api, n), 0 }
#define OPT(n, v) { #n, v, offsetof(struct gpu_cuda_api, n), 1 }

static const struct gpu_cuda_sym gpu_cuda_syms[] = {
	SYM(cuGetErrorString, 6000),
	SYM(cuGetErrorName, 6000),
	SYM(cuDeviceGetCount, 2000),
	SYM(cuDeviceGet, 2000),
	SYM(cuDeviceGetByPCIBusId, 4010),
	SYM(cuDeviceGetPCIBusId, 4010),
	SYM(cuDeviceGetName, 2000),
	SYM(cuDeviceGetAttribute, 2000),
	SYM(cuDeviceTotalMem, 3020),
	SYM(cuDevicePrimaryCtxRetain, 7000),
	SYM(cuDevicePrimaryCtxRelease, 11000),
	SYM(cuCtxGetCurrent, 4000),
	SYM(cuCtxPushCurrent, 4000),
	SYM(cuCtxPopCurrent, 4000),
	SYM(cuMemAlloc, 3020),
	SYM(cuMemFree, 3020),
	SYM(cuMemHostRegister, 6050),
	SYM(cuMemHostUnregister, 4000),
	SYM(cuMemHostGetDevicePointer, 3020),
	SYM(cuPointerSetAttribute, 6000),
	SYM(cuStreamCreate, 2000),
	SYM(cuStreamDestroy, 4000),
	SYM(cuStreamSynchronize, 2000),
	SYM(cuStreamQuery, 2000),
	SYM(cuEventCreate, 2000),
	SYM(cuEventDestroy, 4000),
	SYM(cuEventRecord, 2000),
	SYM(cuEventQuery, 2000),
	SYM(cuMemcpyHtoDAsync, 3020),
	SYM(cuMemcpyDtoHAsync, 3020),
	SYM(cuMemcpyDtoDAsync, 3020),
	SYM(cuMemcpyAsync, 4000),
	SYM(cuMemsetD8Async, 3020),
	SYM(cuModuleLoadData, 2000),
	SYM(cuModuleUnload, 2000),
	SYM(cuModuleGetFunction, 2000),
	SYM(cuLaunchKernel, 4000),
	OPT(cuFlushGPUDirectRDMAWrites, 11030),
	OPT(cuMemGetHandleForAddressRange, 11070),
	OPT(cuMemcpyBatchAsync, 12080),
	OPT(cuMemHostAlloc, 2020),
	OPT(cuMemFreeHost, 2000),
	OPT(cuStreamWriteValue64, 11070),
	OPT(cuImportExternalMemory, 10000),
	OPT(cuExternalMemoryGetMappedBuffer, 10000),
	OPT(cuDestroyExternalMemory, 10000),
	OPT(cuMemGetAddressRange, 3020),
	OPT(cuIpcGetMemHandle, 4010),
	OPT(cuCtxGetStreamPriorityRange, 5050),
	OPT(cuStreamCreateWithPriority, 5050),
};

const char *
gpu_cuda_strerror(const struct gpu_cuda_api *api, CUresult res)
{
	const char *s = NULL;

	if (api->cuGetErrorName == NULL ||
			api->cuGetErrorName(res, &s) != CUDA_SUCCESS || s == NULL)
		return "unknown CUDA error";
	return s;
}

static int
gpu_cuda_api_resolve(struct gpu_cuda_api *api,
	PFN_cuGetProcAddress_v12000 get_proc, const char **why)
{
	CUdriverProcAddressQueryResult status;
	unsigned int i;

	for (i = 0; i < RTE_DIM(gpu_cuda_syms); i++) {
		const struct gpu_cuda_sym *s = &gpu_cuda_syms[i];
		void **slot = (void **)((char *)api + s->offset);
		CUresult res;

		*slot = NULL;
		res = get_proc(s->name, slot, s->version,
			CU_GET_PROC_ADDRESS_DEFAULT, &status);
		if (res == CUDA_SUCCESS &&
				status == CU_GET_PROC_ADDRESS_SUCCESS && *slot != NULL)
			continue;
		*slot = NULL;
		if (!s->optional) {
			*why = "libcuda lacks a required entry point (driver too old?)";
			return -ENOTSUP;
		}
	}
	return 0;
}

int
gpu_cuda_api_load(struct gpu_cuda_api *api, const char **why)
{
	PFN_cuInit_v2000 init;
	PFN_cuDriverGetVersion_v2020 get_version;
	PFN_cuGetProcAddress_v12000 get_proc;
	CUresult res;
	int ret;

	memset(api, 0, sizeof(*api));
	api->lib = dlopen(GPU_CUDA_LIBNAME, RTLD_NOW | RTLD_LOCAL);
	if (api->lib == NULL) {
		*why = "cannot dlopen " GPU_CUDA_LIBNAME
			" (no NVIDIA driver installed on this machine)";
		return -ELIBACC;
	}
	init = (PFN_cuInit_v2000)dlsym(api->lib, "cuInit");
	get_version = (PFN_cuDriverGetVersion_v2020)dlsym(api->lib,
		"cuDriverGetVersion");
	/* The 5-argument form is exported as cuGetProcAddress_v2 since 12.0. */
	get_proc = (PFN_cuGetProcAddress_v12000)dlsym(api->lib,
		"cuGetProcAddress_v2");
	if (init == NULL || get_version == NULL) {
		*why = GPU_CUDA_LIBNAME " has no cuInit/cuDriverGetVersion";
		ret = -ENOTSUP;
		goto fail;
	}
	res = init(0);
	if (res == CUDA_ERROR_NO_DEVICE) {
		*why = "the NVIDIA driver reports no CUDA GPU (cuInit: CUDA_ERROR_NO_DEVICE)";
		ret = -ENODEV;
		goto fail;
	}
	if (res != CUDA_SUCCESS) {
		*why = "cuInit failed (driver/kernel module mismatch or no access to /dev/nvidia*)";
		ret = -EIO;
		goto fail;
	}
	if (get_version(&api->driver_version) != CUDA_SUCCESS ||
			api->driver_version < GPU_CUDA_DRIVER_MIN_VERSION ||
			get_proc == NULL) {
		*why = "the NVIDIA driver is older than CUDA 12.0";
		ret = -ENOTSUP;
		goto fail;
	}
	ret = gpu_cuda_api_resolve(api, get_proc, why);
	if (ret != 0)
		goto fail;
	return 0;
fail:
	gpu_cuda_api_unload(api);
	return ret;
}

void
gpu_cuda_api_unload(struct gpu_cuda_api *api)
{
	if (api->lib != NULL)
		dlclose(api->lib);
	memset(api, 0, sizeof(*api));
}
