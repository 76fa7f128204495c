/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA for the plugin. What it needs before EAL and gpu_cuda exist, or
 * outside them, goes through the driver API opened with dlopen (no CUDA
 * library is linked; the plugin loads on machines without a GPU):
 *  - the PCI address of the calling thread's CUDA device (NCCL has made it
 *    current before init), to place the payload region and the pciPath;
 *  - whether a pointer is device memory; pinned, device-mapped host memory
 *    for the unpack metadata.
 * Copy engines over NCCL's CUDA buffers are gpu_cuda's
 * (dt_copy_cuda_engine_create_any(): the same batched copies, memop
 * completion and transmit gathers the software NIC's region engine has)
 * on the gpu_cuda device of the region.
 *
 * Built only with the CUDA headers (NN_HAVE_CUDA); otherwise every entry
 * point reports ENOTSUP.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "nn_rt.h"

#ifndef NN_HAVE_CUDA

int
nn_cuda_current_pci(char *buf, size_t len, int *ordinal)
{
	return -ENOTSUP;
}

int
nn_cuda_host_alloc_mapped(size_t len, void **h, void **d)
{
	return -ENOTSUP;
}

void
nn_cuda_host_free(void *h)
{
}


struct dt_copy_engine *
nn_cuda_engine_create(const struct nn_rt *rt, void *base, size_t len)
{
	rte_errno = ENOTSUP;
	return NULL;
}

bool
nn_cuda_is_device(const void *ptr)
{
	return false;
}

#else

#include <dlfcn.h>
#include <pthread.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "dt_copy.h"
#include "rte_pmd_gpu_cuda.h"

struct nn_cu_api {
	PFN_cuCtxGetCurrent_v4000 ctx_get_current;
	PFN_cuCtxGetDevice_v2000 ctx_get_device;
	PFN_cuDeviceGetPCIBusId_v4010 device_pci;
	PFN_cuPointerGetAttribute_v4000 ptr_attr;
	PFN_cuMemHostAlloc_v2020 host_alloc;          /* optional: unpack metadata */
	PFN_cuMemHostGetDevicePointer_v3020 host_dptr;
	PFN_cuMemFreeHost_v2000 host_free;
};

static struct nn_cu_api nn_cu;   /* resolved once per process */
static int nn_cu_status = -ENOTSUP;
static pthread_once_t nn_cu_once = PTHREAD_ONCE_INIT;

struct nn_cu_sym {
	const char *name;
	int version;
	size_t off;
	bool optional;
};

#define CU_SYM(f, n, v, o) { n, v, offsetof(struct nn_cu_api, f), o }
static const struct nn_cu_sym nn_cu_syms[] = {
	CU_SYM(ctx_get_current, "cuCtxGetCurrent", 4000, false),
	CU_SYM(ctx_get_device, "cuCtxGetDevice", 2000, false),
	CU_SYM(device_pci, "cuDeviceGetPCIBusId", 4010, false),
	CU_SYM(ptr_attr, "cuPointerGetAttribute", 4000, false),
	CU_SYM(host_alloc, "cuMemHostAlloc", 2020, true),
	CU_SYM(host_dptr, "cuMemHostGetDevicePointer", 3020, true),
	CU_SYM(host_free, "cuMemFreeHost", 2000, true),
};

static void
nn_cu_load(void)
{
	PFN_cuGetProcAddress_v12000 get_proc;
	CUdriverProcAddressQueryResult q;
	PFN_cuInit_v2000 init;
	void *lib;
	size_t i;

	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		return;
	init = (PFN_cuInit_v2000)dlsym(lib, "cuInit");
	get_proc = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
	if (init == NULL || get_proc == NULL || init(0) != CUDA_SUCCESS)
		return;
	for (i = 0; i < RTE_DIM(nn_cu_syms); i++) {
		void **slot = (void **)((char *)&nn_cu + nn_cu_syms[i].off);

		if (get_proc(nn_cu_syms[i].name, slot, nn_cu_syms[i].version,
				CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS ||
				q != CU_GET_PROC_ADDRESS_SUCCESS)
			*slot = NULL;
		if (*slot == NULL && !nn_cu_syms[i].optional)
			return;
	}
	nn_cu_status = 0;
}

static int
nn_cu_ready(void)
{
	pthread_once(&nn_cu_once, nn_cu_load);
	return nn_cu_status;
}

int
nn_cuda_current_pci(char *buf, size_t len, int *ordinal)
{
	CUcontext ctx = NULL;
	CUdevice dev;

	if (nn_cu_ready() != 0)
		return -ENOTSUP;
	if (nn_cu.ctx_get_current(&ctx) != CUDA_SUCCESS || ctx == NULL)
		return -ENODEV;
	if (nn_cu.ctx_get_device(&dev) != CUDA_SUCCESS ||
			nn_cu.device_pci(buf, (int)len, dev) != CUDA_SUCCESS)
		return -ENODEV;
	if (ordinal != NULL)
		*ordinal = (int)dev;
	return 0;
}

bool
nn_cuda_is_device(const void *ptr)
{
	unsigned int type = 0;

	return nn_cu_ready() == 0 &&
		nn_cu.ptr_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
			(CUdeviceptr)(uintptr_t)ptr) == CUDA_SUCCESS &&
		type == CU_MEMORYTYPE_DEVICE;
}

int
nn_cuda_host_alloc_mapped(size_t len, void **h, void **d)
{
	CUdeviceptr dp;

	if (nn_cu_ready() != 0 || nn_cu.host_alloc == NULL ||
			nn_cu.host_dptr == NULL || nn_cu.host_free == NULL)
		return -ENOTSUP;
	if (nn_cu.host_alloc(h, len, CU_MEMHOSTALLOC_DEVICEMAP |
			CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS)
		return -ENOMEM;
	if (nn_cu.host_dptr(&dp, *h, 0) != CUDA_SUCCESS) {
		nn_cu.host_free(*h);
		return -EIO;
	}
	*d = (void *)(uintptr_t)dp;
	return 0;
}

void
nn_cuda_host_free(void *h)
{
	if (h != NULL && nn_cu_ready() == 0 && nn_cu.host_free != NULL)
		nn_cu.host_free(h);
}

struct dt_copy_engine *
nn_cuda_engine_create(const struct nn_rt *rt, void *base, size_t len)
{
	struct dt_copy_engine *ce;

	/* The engine's kernels and streams are the region's gpu_cuda device's. */
	if (!rt->gpu_cuda) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	ce = dt_copy_cuda_engine_create_any(rt->gpu_id, NULL, base, len);
	if (ce == NULL)
		return NULL;
	/*
	 * [nccl] cuda_batch = no (default): one cuMemcpyAsync per merged run
	 * (cuMemcpyBatchAsync faulted with NCCL on the H200, docs/nccl.md).
	 * DEVTCP_NCCL_CUDA_EVENTS=1: events instead of the memop word, for
	 * comparisons.
	 */
	if (dt_copy_cuda_engine_set_mode(ce, rt->cfg.cuda_batch ?
			DT_COPY_CUDA_MODE_BATCH : DT_COPY_CUDA_MODE_PER_COPY) != 0 ||
			(getenv("DEVTCP_NCCL_CUDA_EVENTS") != NULL &&
			 dt_copy_cuda_engine_set_completion(ce,
				DT_COPY_CUDA_COMPLETION_EVENT) != 0)) {
		dt_copy_engine_destroy(ce);
		rte_errno = EINVAL;
		return NULL;
	}
	return ce;
}

#endif /* NN_HAVE_CUDA */
