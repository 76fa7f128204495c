/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the NIC registration check's decision (dt_devmem_verbs.c)
 * over a fake verbs layer: no verbs device, verbs unusable, the peermem
 * path, the dma-buf path alone, both refused, a device that cannot open.
 * No EAL, no libibverbs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dt_test.h"
#include "dt_devmem_verbs.h"

/* One fake host: its verbs devices, their PCI addresses, what works. */
struct fake_verbs {
	int ndev;                  /* -errno: verbs unusable */
	const char *name[4];
	const char *bdf[4];        /* NULL: not a PCI device */
	int open_err;              /* 0: open works */
	int reg_mr;                /* result of ibv_reg_mr */
	int reg_dmabuf;            /* result of ibv_reg_dmabuf_mr */
	/* what the check did */
	unsigned int opens, closes, reg_mr_calls, reg_dmabuf_calls;
	void *mr_addr;
	size_t mr_len;
	int dmabuf_fd;
	uint64_t dmabuf_iova;
};

static int
fake_devices(void *ctx, char names[][DT_VERBS_NAME_MAX], int max,
	const char **why)
{
	struct fake_verbs *f = ctx;
	int i;

	if (f->ndev < 0) {
		*why = "the kernel has no RDMA (uverbs) support";
		return f->ndev;
	}
	for (i = 0; i < f->ndev && i < max; i++)
		snprintf(names[i], DT_VERBS_NAME_MAX, "%s", f->name[i]);
	return i;
}

static int
fake_pci_addr(void *ctx, const char *name, char *bdf, size_t len)
{
	struct fake_verbs *f = ctx;
	int i;

	for (i = 0; i < f->ndev; i++) {
		if (strcmp(f->name[i], name) != 0)
			continue;
		if (f->bdf[i] == NULL)
			return -ENODEV;
		snprintf(bdf, len, "%s", f->bdf[i]);
		return 0;
	}
	return -ENOENT;
}

static void *
fake_open(void *ctx, const char *name, int *err)
{
	struct fake_verbs *f = ctx;

	(void)name;
	if (f->open_err != 0) {
		*err = f->open_err;
		return NULL;
	}
	f->opens++;
	return f;
}

static int
fake_reg_mr(void *ctx, void *dev, void *addr, size_t len)
{
	struct fake_verbs *f = ctx;

	(void)dev;
	f->reg_mr_calls++;
	f->mr_addr = addr;
	f->mr_len = len;
	return f->reg_mr;
}

static int
fake_reg_dmabuf_mr(void *ctx, void *dev, int fd, size_t len, uint64_t iova)
{
	struct fake_verbs *f = ctx;

	(void)dev;
	(void)len;
	f->reg_dmabuf_calls++;
	f->dmabuf_fd = fd;
	f->dmabuf_iova = iova;
	return f->reg_dmabuf;
}

static void
fake_close(void *ctx, void *dev)
{
	struct fake_verbs *f = ctx;

	(void)dev;
	f->closes++;
}

static const struct dt_verbs_ops fake_ops = {
	.devices = fake_devices,
	.pci_addr = fake_pci_addr,
	.open = fake_open,
	.reg_mr = fake_reg_mr,
	.reg_dmabuf_mr = fake_reg_dmabuf_mr,
	.close = fake_close,
};

#define REGION ((void *)(uintptr_t)0x7f0000000000ull)
#define REGION_LEN (64u << 20)
#define PORT_BDF "0000:3b:00.0"

/* A host with an mlx5 device on the port's PCI function, plus another. */
static struct fake_verbs
fake_mlx5_host(int reg_mr, int reg_dmabuf)
{
	struct fake_verbs f = {
		.ndev = 2,
		.name = { "mlx5_0", "mlx5_1" },
		.bdf = { "0000:3B:00.1", "0000:3b:00.0" },
		.reg_mr = reg_mr,
		.reg_dmabuf = reg_dmabuf,
		.dmabuf_fd = -2,
	};
	return f;
}

static int
run(struct fake_verbs *f, int fd, struct dt_verbs_report *rep)
{
	return dt_verbs_check(&fake_ops, f, 3, PORT_BDF, REGION, REGION_LEN,
		fd, fd < 0 ? "the GPU driver exports no dma-buf" : NULL, rep);
}

/* A vdev port (net_hsplit): no verbs device has its name; nothing opened. */
static void
test_no_verbs_device(void)
{
	struct fake_verbs f = fake_mlx5_host(0, 0);
	struct dt_verbs_report rep;

	DT_CHECK_EQ(dt_verbs_check(&fake_ops, &f, 3, "net_hsplit0", REGION,
		REGION_LEN, 9, NULL, &rep), 0);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_NOT_CHECKED);
	DT_CHECK(strstr(rep.line, "no verbs device for port 3 (net_hsplit0") != NULL);
	DT_CHECK_EQ(f.opens + f.reg_mr_calls + f.reg_dmabuf_calls, 0);
	DT_CHECK_EQ(rep.ibdev[0], '\0');

	/* A host without any verbs device. */
	f.ndev = 0;
	DT_CHECK_EQ(run(&f, 9, &rep), 0);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_NOT_CHECKED);
	DT_CHECK(strstr(rep.line, "no verbs device for port 3") != NULL);
}

/* Verbs unusable (no uverbs in the kernel), or lib/devmem built without it. */
static void
test_verbs_unusable(void)
{
	struct fake_verbs f = fake_mlx5_host(0, 0);
	struct dt_verbs_report rep;

	f.ndev = -ENOSYS;
	DT_CHECK_EQ(run(&f, 9, &rep), 0);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_NOT_CHECKED);
	DT_CHECK(strstr(rep.line, "no RDMA (uverbs) support") != NULL);
	DT_CHECK_EQ(dt_verbs_check(NULL, NULL, 3, PORT_BDF, REGION,
		REGION_LEN, 9, NULL, &rep), 0);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_NOT_CHECKED);
	DT_CHECK(strstr(rep.line, "built without libibverbs") != NULL);
}

/* nvidia-peermem loaded: ibv_reg_mr works; dma-buf is advice. */
static void
test_peermem_path(void)
{
	struct fake_verbs f = fake_mlx5_host(0, -EOPNOTSUPP);
	struct dt_verbs_report rep;

	DT_CHECK_EQ(run(&f, 9, &rep), 0);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_OK);
	/* Found by PCI address, not by list position. */
	DT_CHECK(strcmp(rep.ibdev, "mlx5_1") == 0);
	DT_CHECK_EQ(rep.reg_mr, 0);
	DT_CHECK_EQ(rep.reg_dmabuf, -EOPNOTSUPP);
	DT_CHECK(f.mr_addr == REGION);
	DT_CHECK_EQ(f.mr_len, REGION_LEN);
	DT_CHECK_EQ(f.dmabuf_fd, 9);
	DT_CHECK_EQ(f.dmabuf_iova, (uint64_t)(uintptr_t)REGION);
	DT_CHECK_EQ(f.opens, 1);
	DT_CHECK_EQ(f.closes, 1);
	DT_CHECK(strstr(rep.line, "ibv_reg_mr (peermem): ok") != NULL);
	DT_CHECK(strstr(rep.line, "advice only") != NULL);
	DT_CHECK(strstr(rep.line, "failed (") != NULL);

	/* No dma-buf to try: not tried, and why. */
	f = fake_mlx5_host(0, 0);
	DT_CHECK_EQ(run(&f, -1, &rep), 0);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_OK);
	DT_CHECK_EQ(rep.reg_dmabuf, DT_VERBS_NOT_TRIED);
	DT_CHECK_EQ(f.reg_dmabuf_calls, 0);
	DT_CHECK(strstr(rep.line, "not tried: the GPU driver exports no dma-buf") != NULL);
}

/* Only dma-buf works: refused, since DPDK 22.11's mlx5 uses ibv_reg_mr. */
static void
test_dmabuf_path_only(void)
{
	struct fake_verbs f = fake_mlx5_host(-EFAULT, 0);
	struct dt_verbs_report rep;

	DT_CHECK_EQ(run(&f, 9, &rep), -EFAULT);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_REFUSED);
	DT_CHECK_EQ(rep.reg_mr, -EFAULT);
	DT_CHECK_EQ(rep.reg_dmabuf, 0);
	DT_CHECK_EQ(f.closes, f.opens);
	DT_CHECK(strstr(rep.line, "port 3 (verbs mlx5_1): NIC cannot reach") != NULL);
	DT_CHECK(strstr(rep.line, "ibv_reg_dmabuf_mr ok") != NULL);
	DT_CHECK(strstr(rep.line, "registers external memory with ibv_reg_mr only") != NULL);
	DT_CHECK(strstr(rep.line, "modprobe nvidia-peermem") != NULL);
}

/* Neither works: refused, both fixes named. */
static void
test_both_refused(void)
{
	struct fake_verbs f = fake_mlx5_host(-EFAULT, -EOPNOTSUPP);
	struct dt_verbs_report rep;

	DT_CHECK_EQ(run(&f, 9, &rep), -EFAULT);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_REFUSED);
	DT_CHECK(strstr(rep.line, "modprobe nvidia-peermem") != NULL);
	DT_CHECK(strstr(rep.line, "dma-buf path failed too") != NULL);
	DT_CHECK(strstr(rep.line, "lacks dma-buf MRs") != NULL);

	/* No dma-buf and no peermem: refused with the peermem fix. */
	f = fake_mlx5_host(-EFAULT, 0);
	DT_CHECK_EQ(run(&f, -1, &rep), -EFAULT);
	DT_CHECK_EQ(rep.reg_dmabuf, DT_VERBS_NOT_TRIED);
	DT_CHECK(strstr(rep.line, "exports no dma-buf") != NULL);
	DT_CHECK(strstr(rep.line, "nvidia-peermem") != NULL);
}

/* The port's verbs device exists but cannot be opened: refused, not skipped. */
static void
test_open_fails(void)
{
	struct fake_verbs f = fake_mlx5_host(0, 0);
	struct dt_verbs_report rep;

	f.open_err = EACCES;
	DT_CHECK_EQ(run(&f, 9, &rep), -EFAULT);
	DT_CHECK_EQ(rep.verdict, DT_VERBS_REFUSED);
	DT_CHECK_EQ(f.reg_mr_calls, 0);
	DT_CHECK(strstr(rep.line, "cannot open the verbs device") != NULL);
	DT_CHECK(strstr(rep.line, strerror(EACCES)) != NULL);
}

int
main(void)
{
	DT_RUN(test_no_verbs_device);
	DT_RUN(test_verbs_unusable);
	DT_RUN(test_peermem_path);
	DT_RUN(test_dmabuf_path_only);
	DT_RUN(test_both_refused);
	DT_RUN(test_open_fails);
	return dt_test_summary();
}
