/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finding an AMD GPU: drmGetDevices2() lists the DRM devices; a PCI device
 * with a render node whose kernel driver is "amdgpu" is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "gpu_amdgpu_priv.h"

#define GPU_AMDGPU_MAX_DRM 64

/* Whether the open DRM node @p fd is driven by amdgpu. */
static bool
is_amdgpu(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	bool yes;

	if (v == NULL)
		return false;
	yes = v->name != NULL && strcmp(v->name, "amdgpu") == 0;
	drmFreeVersion(v);
	return yes;
}

int
gpu_amdgpu_find(const char *want, struct gpu_amdgpu_priv *p, char *why,
	size_t why_len)
{
	drmDevicePtr devs[GPU_AMDGPU_MAX_DRM];
	int n, i, fd, render = 0;
	int ret = -ENODEV;

	n = drmGetDevices2(0, devs, GPU_AMDGPU_MAX_DRM);
	if (n == -ENOENT) {
		snprintf(why, why_len, "no amdgpu render node (no /dev/dri: no DRM device on this host)");
		return -ENODEV;
	}
	if (n < 0) {
		snprintf(why, why_len, "no amdgpu render node (drmGetDevices2 failed: %s)",
			strerror(-n));
		return -ENODEV;
	}
	for (i = 0; i < n && ret != 0; i++) {
		const drmDevicePtr d = devs[i];
		const char *node;

		if (!(d->available_nodes & (1 << DRM_NODE_RENDER)) ||
		    d->bustype != DRM_BUS_PCI)
			continue;
		node = d->nodes[DRM_NODE_RENDER];
		render++;
		if (want != NULL && strcmp(want, node) != 0)
			continue;
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!is_amdgpu(fd)) {
			close(fd);
			continue;
		}
		p->fd = fd;
		snprintf(p->node, sizeof(p->node), "%s", node);
		snprintf(p->pci, sizeof(p->pci), "%04x:%02x:%02x.%x",
			d->businfo.pci->domain, d->businfo.pci->bus,
			d->businfo.pci->dev, d->businfo.pci->func);
		ret = 0;
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	if (ret != 0)
		snprintf(why, why_len,
			"no amdgpu render node%s%s (%d DRM device(s), %d PCI render node(s), none that this process could open is driven by amdgpu)",
			want != NULL ? " " : "", want != NULL ? want : "",
			n, render);
	return ret;
}
