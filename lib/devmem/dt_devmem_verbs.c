/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decision of the verbs registration check (dt_devmem_verbs.h), over
 * any verbs layer. No EAL, no libibverbs: a unit test drives it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dt_devmem_verbs.h"

/* The verbs device whose PCI address is @p bdf; -ENOENT when none. */
static int
verbs_find(const struct dt_verbs_ops *ops, void *ctx, const char *bdf,
	char *name, const char **why)
{
	char names[DT_VERBS_DEV_MAX][DT_VERBS_NAME_MAX];
	char addr[32];
	int n, i;

	*why = NULL;
	n = ops->devices(ctx, names, DT_VERBS_DEV_MAX, why);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (ops->pci_addr(ctx, names[i], addr, sizeof(addr)) != 0)
			continue;
		if (strcasecmp(addr, bdf) == 0) {
			snprintf(name, DT_VERBS_NAME_MAX, "%.*s",
				DT_VERBS_NAME_MAX - 1, names[i]);
			return 0;
		}
	}
	return -ENOENT;
}

/* "ok", or the failure in words, for report lines. */
static const char *
verbs_result(int r, char *buf, size_t len)
{
	if (r == 0)
		return "ok";
	if (r == DT_VERBS_NOT_TRIED)
		return "not tried";
	snprintf(buf, len, "failed (%s)", strerror(-r));
	return buf;
}

static void
verbs_not_checked(struct dt_verbs_report *rep, uint16_t port_id,
	const char *dev_name, const char *why)
{
	rep->verdict = DT_VERBS_NOT_CHECKED;
	snprintf(rep->line, sizeof(rep->line),
		"no verbs device for port %u (%s%s%s): GPU-memory registration not checked",
		port_id, dev_name, why != NULL ? ": " : "", why != NULL ? why : "");
}

/* The refusal's reason and fix, from the two results. */
static void
verbs_refuse(struct dt_verbs_report *rep, uint16_t port_id,
	const char *dmabuf_why)
{
	char b1[64], b2[64];
	const char *fix;

	if (rep->reg_dmabuf == 0)
		fix = "ibv_reg_dmabuf_mr works, but DPDK 22.11's mlx5 registers external memory with ibv_reg_mr only; load nvidia-peermem (modprobe nvidia-peermem)";
	else if (rep->reg_dmabuf == DT_VERBS_NOT_TRIED)
		fix = "load nvidia-peermem (modprobe nvidia-peermem) for CUDA memory, or the exporter's peer-memory module";
	else
		fix = "load nvidia-peermem (modprobe nvidia-peermem); the dma-buf path failed too: the kernel (5.12+), rdma-core (v34+) or NIC driver lacks dma-buf MRs";
	rep->verdict = DT_VERBS_REFUSED;
	snprintf(rep->line, sizeof(rep->line),
		"port %u (verbs %s): NIC cannot reach the payload region: ibv_reg_mr %s, ibv_reg_dmabuf_mr %s%s%s; fix: %s",
		port_id, rep->ibdev, verbs_result(rep->reg_mr, b1, sizeof(b1)),
		verbs_result(rep->reg_dmabuf, b2, sizeof(b2)),
		dmabuf_why != NULL ? ": " : "",
		dmabuf_why != NULL ? dmabuf_why : "", fix);
}

int
dt_verbs_check(const struct dt_verbs_ops *ops, void *ctx,
	uint16_t port_id, const char *dev_name, void *addr, size_t len,
	int dmabuf_fd, const char *dmabuf_why, struct dt_verbs_report *rep)
{
	const char *why;
	char b[64];
	void *dev;
	int ret, err = 0;

	memset(rep, 0, sizeof(*rep));
	rep->reg_mr = DT_VERBS_NOT_TRIED;
	rep->reg_dmabuf = DT_VERBS_NOT_TRIED;
	if (ops == NULL) {
		verbs_not_checked(rep, port_id, dev_name,
			"built without libibverbs");
		return 0;
	}
	ret = verbs_find(ops, ctx, dev_name, rep->ibdev, &why);
	if (ret < 0) {
		verbs_not_checked(rep, port_id, dev_name, ret == -ENOENT ?
			"no ibverbs device has this PCI address" : why);
		return 0;
	}
	dev = ops->open(ctx, rep->ibdev, &err);
	if (dev == NULL) {
		rep->verdict = DT_VERBS_REFUSED;
		snprintf(rep->line, sizeof(rep->line),
			"port %u (verbs %s): cannot open the verbs device (%s): the check cannot run; fix: load the NIC's rdma-core provider and give the user access to /dev/infiniband",
			port_id, rep->ibdev, strerror(err > 0 ? err : EIO));
		return -EFAULT;
	}
	rep->reg_mr = ops->reg_mr(ctx, dev, addr, len);
	if (dmabuf_fd >= 0)
		rep->reg_dmabuf = ops->reg_dmabuf_mr(ctx, dev, dmabuf_fd, len,
			(uint64_t)(uintptr_t)addr);
	ops->close(ctx, dev);
	if (rep->reg_mr != 0) {
		verbs_refuse(rep, port_id, dmabuf_why);
		return -EFAULT;
	}
	rep->verdict = DT_VERBS_OK;
	snprintf(rep->line, sizeof(rep->line),
		"port %u (verbs %s): NIC DMA into the payload region through ibv_reg_mr (peermem): ok; dma-buf (ibv_reg_dmabuf_mr) %s%s%s (advice only: DPDK 22.11's mlx5 registers with ibv_reg_mr)",
		port_id, rep->ibdev, verbs_result(rep->reg_dmabuf, b, sizeof(b)),
		rep->reg_dmabuf == DT_VERBS_NOT_TRIED && dmabuf_why != NULL ?
		": " : "",
		rep->reg_dmabuf == DT_VERBS_NOT_TRIED && dmabuf_why != NULL ?
		dmabuf_why : "");
	return 0;
}
