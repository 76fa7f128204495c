/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sharing a region with another process (devtcp-server's ingest clients):
 * what the region's provider says another process needs to map the same
 * bytes. Built on the region's public accessors and the provider table.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_log.h>

#include "dt_devmem.h"
#include "dt_devmem_provider.h"

extern int dt_devmem_logtype;

int
dt_devmem_region_ipc_export(const struct dt_devmem_region *r,
	struct dt_devmem_ipc *ipc)
{
	int16_t gpu = dt_devmem_region_gpu_id(r);
	const struct dt_devmem_provider_ops *prov;
	int ret;

	if (ipc == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	memset(ipc, 0, sizeof(*ipc));
	ipc->fd = -1;
	prov = gpu == RTE_GPU_ID_NONE ? NULL : dt_devmem_provider_get(gpu);
	ret = prov == NULL || prov->ipc_export == NULL ? -ENOTSUP :
		prov->ipc_export(gpu, dt_devmem_region_base(r),
			dt_devmem_region_len(r), ipc);
	if (ret < 0) {
		rte_log(RTE_LOG_ERR, dt_devmem_logtype,
			"dt_devmem: region %s: ipc_export failed: %s (%s)\n",
			dt_devmem_region_name(r), rte_strerror(-ret),
			ret == -ENOTSUP ? "this memory cannot be shared with another process" :
			dt_devmem_region_provider(r));
		rte_errno = -ret;
	}
	return ret;
}
