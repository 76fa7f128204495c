/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The real verbs layer of the registration check: libibverbs for the
 * devices and registrations, sysfs for a device's PCI address
 * (/sys/class/infiniband/<dev>/device is a link to the PCI function).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_devmem_verbs.h"

#ifdef DT_DEVMEM_HAVE_IBVERBS
#include <infiniband/verbs.h>

struct verbs_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

static int
ibv_devices(void *ctx, char names[][DT_VERBS_NAME_MAX], int max,
	const char **why)
{
	struct ibv_device **list;
	int n = 0, i;

	(void)ctx;
	errno = 0;
	list = ibv_get_device_list(&n);
	if (list == NULL) {
		*why = errno == ENOSYS ?
			"the kernel has no RDMA (uverbs) support" :
			"ibv_get_device_list failed";
		return errno != 0 ? -errno : -EIO;
	}
	for (i = 0; i < n && i < max; i++)
		snprintf(names[i], DT_VERBS_NAME_MAX, "%s",
			ibv_get_device_name(list[i]));
	ibv_free_device_list(list);
	return i;
}

static int
ibv_pci_addr(void *ctx, const char *name, char *bdf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	(void)ctx;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	/* A PCI function's sysfs name is its address, DDDD:BB:DD.F. */
	if (strlen(base) != 12 || base[4] != ':' || base[7] != ':' ||
	    base[10] != '.')
		return -ENODEV;
	snprintf(bdf, len, "%s", base);
	return 0;
}

static void *
ibv_open(void *ctx, const char *name, int *err)
{
	struct ibv_device **list;
	struct verbs_dev *d = NULL;
	int n = 0, i;

	(void)ctx;
	*err = ENODEV;
	list = ibv_get_device_list(&n);
	if (list == NULL) {
		*err = errno != 0 ? errno : EIO;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name) != 0)
			continue;
		d = calloc(1, sizeof(*d));
		if (d == NULL) {
			*err = ENOMEM;
			break;
		}
		d->ctx = ibv_open_device(list[i]);
		d->pd = d->ctx != NULL ? ibv_alloc_pd(d->ctx) : NULL;
		if (d->pd == NULL) {
			*err = errno != 0 ? errno : EIO;
			if (d->ctx != NULL)
				ibv_close_device(d->ctx);
			free(d);
			d = NULL;
		}
		break;
	}
	ibv_free_device_list(list);
	return d;
}

/* The access a NIC writing received payload needs. */
#define VERBS_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	IBV_ACCESS_REMOTE_READ)

static int
ibv_try_reg_mr(void *ctx, void *dev, void *addr, size_t len)
{
	struct verbs_dev *d = dev;
	struct ibv_mr *mr;

	(void)ctx;
	errno = 0;
	mr = ibv_reg_mr(d->pd, addr, len, VERBS_ACCESS);
	if (mr == NULL)
		return errno != 0 ? -errno : -EIO;
	ibv_dereg_mr(mr);
	return 0;
}

static int
ibv_try_reg_dmabuf_mr(void *ctx, void *dev, int fd, size_t len,
	uint64_t iova)
{
	struct verbs_dev *d = dev;
	struct ibv_mr *mr;

	(void)ctx;
	errno = 0;
	mr = ibv_reg_dmabuf_mr(d->pd, 0, len, iova, fd, VERBS_ACCESS);
	if (mr == NULL)
		return errno != 0 ? -errno : -EIO;
	ibv_dereg_mr(mr);
	return 0;
}

static void
ibv_close(void *ctx, void *dev)
{
	struct verbs_dev *d = dev;

	(void)ctx;
	ibv_dealloc_pd(d->pd);
	ibv_close_device(d->ctx);
	free(d);
}

static const struct dt_verbs_ops dt_verbs_ibv = {
	.devices = ibv_devices,
	.pci_addr = ibv_pci_addr,
	.open = ibv_open,
	.reg_mr = ibv_try_reg_mr,
	.reg_dmabuf_mr = ibv_try_reg_dmabuf_mr,
	.close = ibv_close,
};

const struct dt_verbs_ops *
dt_devmem_verbs_ibv_ops(void)
{
	return &dt_verbs_ibv;
}

#else

const struct dt_verbs_ops *
dt_devmem_verbs_ibv_ops(void)
{
	return NULL;
}

#endif
