/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ingest client's CUDA region: the server's CUDA IPC handle opened in
 * this process's primary context of the same GPU (found by PCI bus id), so
 * that PyTorch, which uses the primary context too, reads the same HBM.
 * libcuda is loaded with dlopen(): the library builds and runs without it,
 * and only a CUDA region needs it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_client_priv.h"

/* The few driver entry points used, with the driver API's own types. */
typedef int cu_result;
typedef int cu_device;
typedef void *cu_context;
typedef unsigned long long cu_deviceptr;
typedef struct { char reserved[DT_DEVMEM_IPC_HANDLE_LEN]; } cu_ipc_handle;
#define CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 0x1

struct cl_cuda {
	void *lib;
	cu_device dev;
	cu_context ctx;
	cu_deviceptr dptr;
	cu_result (*init)(unsigned int);
	cu_result (*by_pci)(cu_device *, const char *);
	cu_result (*retain)(cu_context *, cu_device);
	cu_result (*release)(cu_device);
	cu_result (*push)(cu_context);
	cu_result (*pop)(cu_context *);
	cu_result (*open)(cu_deviceptr *, cu_ipc_handle, unsigned int);
	cu_result (*close)(cu_deviceptr);
};

static int
cu_load(struct cl_cuda *cu, struct dt_client_error *err)
{
	cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (cu->lib == NULL)
		return dt_client_fail(err, ENOTSUP, "the region is CUDA memory and libcuda.so.1 does not load: %s",
			dlerror());
	*(void **)&cu->init = dlsym(cu->lib, "cuInit");
	*(void **)&cu->by_pci = dlsym(cu->lib, "cuDeviceGetByPCIBusId");
	*(void **)&cu->retain = dlsym(cu->lib, "cuDevicePrimaryCtxRetain");
	*(void **)&cu->release = dlsym(cu->lib, "cuDevicePrimaryCtxRelease_v2");
	*(void **)&cu->push = dlsym(cu->lib, "cuCtxPushCurrent_v2");
	*(void **)&cu->pop = dlsym(cu->lib, "cuCtxPopCurrent_v2");
	*(void **)&cu->open = dlsym(cu->lib, "cuIpcOpenMemHandle_v2");
	*(void **)&cu->close = dlsym(cu->lib, "cuIpcCloseMemHandle");
	if (cu->init == NULL || cu->by_pci == NULL || cu->retain == NULL ||
			cu->release == NULL || cu->push == NULL || cu->pop == NULL ||
			cu->open == NULL || cu->close == NULL)
		return dt_client_fail(err, ENOTSUP, "libcuda.so.1 lacks an entry point the client needs");
	return 0;
}

int
dt_client_cuda_open(struct dt_client *c, struct dt_client_error *err)
{
	struct cl_cuda *cu = calloc(1, sizeof(*cu));
	cu_ipc_handle h;
	cu_context dummy;
	cu_result r;
	int ret;

	if (cu == NULL)
		return dt_client_fail(err, ENOMEM, "out of memory");
	c->cuda = cu;
	ret = cu_load(cu, err);
	if (ret != 0)
		return ret;
	c->w.region_pci[sizeof(c->w.region_pci) - 1] = '\0';
	r = cu->init(0);
	if (r == 0)
		r = cu->by_pci(&cu->dev, c->w.region_pci);
	if (r != 0)
		return dt_client_fail(err, ENODEV, "the server's GPU %s is not visible here (CUDA error %d; CUDA_VISIBLE_DEVICES?)",
			c->w.region_pci, r);
	r = cu->retain(&cu->ctx, cu->dev);
	if (r != 0)
		return dt_client_fail(err, EIO, "cuDevicePrimaryCtxRetain failed: CUDA error %d", r);
	memcpy(h.reserved, c->w.region_handle, sizeof(h.reserved));
	r = cu->push(cu->ctx);
	if (r == 0) {
		r = cu->open(&cu->dptr, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
		cu->pop(&dummy);
	}
	if (r != 0) {
		cu->dptr = 0;
		return dt_client_fail(err, EIO, "cuIpcOpenMemHandle of the server's region failed: CUDA error %d",
			r);
	}
	c->mem = DT_CLIENT_MEM_CUDA;
	c->cuda_dev = cu->dev;
	c->base = (const void *)(uintptr_t)(cu->dptr + c->w.region_map_off);
	return 0;
}

void
dt_client_cuda_close(struct dt_client *c)
{
	struct cl_cuda *cu = c->cuda;
	cu_context dummy;

	if (cu == NULL)
		return;
	if (cu->dptr != 0 && cu->push(cu->ctx) == 0) {
		cu->close(cu->dptr);
		cu->pop(&dummy);
	}
	if (cu->ctx != NULL)
		cu->release(cu->dev);
	if (cu->lib != NULL)
		dlclose(cu->lib);
	free(cu);
	c->cuda = NULL;
}
