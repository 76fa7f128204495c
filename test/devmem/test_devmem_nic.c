/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of the NIC registration check inside region creation:
 * payload regions on the simulated GPU (--vdev=gpu_sim_nc0) for a
 * net_hsplit port (--vdev=net_hsplit_nc0), with rdma-core's verbs layer
 * (the port has no verbs device: not checked, and said so) and with a fake
 * one that pretends the port is an mlx5 function (refused or accepted).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_log.h>
#include <rte_memory.h>

#include "dt_devmem.h"
#include "dt_devmem_provider.h"
#include "dt_test.h"

#define PORT_VDEV "net_hsplit_nc0"

static int16_t gpu;
static uint16_t port;

struct log_capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void
capture_start(struct log_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	if (c->f != NULL)
		rte_openlog_stream(c->f);
}

static const char *
capture_stop(struct log_capture *c)
{
	rte_openlog_stream(NULL);
	if (c->f != NULL)
		fclose(c->f);
	if (c->buf != NULL)
		fputs(c->buf, stderr);
	return c->buf != NULL ? c->buf : "";
}

/* A fake verbs layer: one device "mlx5_0" whose PCI address is the port's name. */
struct fake {
	int reg_mr;
	unsigned int reg_mr_calls, reg_dmabuf_calls;
};

static int
fake_devices(void *ctx, char names[][DT_VERBS_NAME_MAX], int max,
	const char **why)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(why);
	if (max < 1)
		return 0;
	snprintf(names[0], DT_VERBS_NAME_MAX, "mlx5_0");
	return 1;
}

static int
fake_pci_addr(void *ctx, const char *name, char *bdf, size_t len)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(name);
	snprintf(bdf, len, PORT_VDEV);
	return 0;
}

static void *
fake_open(void *ctx, const char *name, int *err)
{
	RTE_SET_USED(name);
	RTE_SET_USED(err);
	return ctx;
}

static int
fake_reg_mr(void *ctx, void *dev, void *addr, size_t len)
{
	struct fake *f = ctx;

	RTE_SET_USED(dev);
	RTE_SET_USED(addr);
	RTE_SET_USED(len);
	f->reg_mr_calls++;
	return f->reg_mr;
}

static int
fake_reg_dmabuf_mr(void *ctx, void *dev, int fd, size_t len, uint64_t iova)
{
	struct fake *f = ctx;

	RTE_SET_USED(dev);
	RTE_SET_USED(fd);
	RTE_SET_USED(len);
	RTE_SET_USED(iova);
	f->reg_dmabuf_calls++;
	return 0;
}

static void
fake_close(void *ctx, void *dev)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(dev);
}

static const struct dt_verbs_ops fake_ops = {
	.devices = fake_devices,
	.pci_addr = fake_pci_addr,
	.open = fake_open,
	.reg_mr = fake_reg_mr,
	.reg_dmabuf_mr = fake_reg_dmabuf_mr,
	.close = fake_close,
};

static struct dt_devmem_region_conf
conf_gpu(const char *name)
{
	return (struct dt_devmem_region_conf){
		.name = name,
		.gpu_id = gpu,
		.port_id = port,
		.nb_bufs = 256,
		.buf_size = 2048,
		.socket_id = SOCKET_ID_ANY,
	};
}

/* rdma-core's layer: a vdev port has no verbs device; not checked, no refusal. */
static void
test_no_verbs_device_for_port(void)
{
	struct dt_devmem_region_conf c = conf_gpu("nc_real");
	const struct dt_verbs_report *rep;
	struct dt_devmem_region *r = NULL;
	struct log_capture cap;
	const char *log;
	char want[64];
	int ret;

	snprintf(want, sizeof(want), "no verbs device for port %u", port);
	capture_start(&cap);
	ret = dt_devmem_region_create(&c, &r);
	log = capture_stop(&cap);
	DT_REQUIRE(ret == 0);
	DT_CHECK(strstr(log, want) != NULL);
	rep = dt_devmem_region_nic_check(r);
	DT_REQUIRE(rep != NULL);
	DT_CHECK_EQ(rep->verdict, DT_VERBS_NOT_CHECKED);
	DT_CHECK(strstr(rep->line, want) != NULL);
	DT_CHECK(strstr(rep->line, PORT_VDEV) != NULL);
	free(cap.buf);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

/* ibv_reg_mr refused: no region, the reason and fix logged, nothing left. */
static void
test_refused_region_undone(void)
{
	struct dt_devmem_region_conf c = conf_gpu("nc_refused");
	struct fake f = { .reg_mr = -EFAULT };
	struct dt_devmem_region *r = NULL;
	unsigned int n0 = dt_copy_registry_count();
	struct log_capture cap;
	const char *log;
	int ret;

	c.verbs_ops = &fake_ops;
	c.verbs_ctx = &f;
	capture_start(&cap);
	ret = dt_devmem_region_create(&c, &r);
	log = capture_stop(&cap);
	DT_CHECK_EQ(ret, -EFAULT);
	DT_CHECK(r == NULL);
	DT_CHECK_EQ(f.reg_mr_calls, 1);
	/* gpu_sim exports no dma-buf: the dma-buf path is not tried. */
	DT_CHECK_EQ(f.reg_dmabuf_calls, 0);
	DT_CHECK(strstr(log, "NIC registration check failed") != NULL);
	DT_CHECK(strstr(log, "modprobe nvidia-peermem") != NULL);
	DT_CHECK(strstr(log, "exports no dma-buf") != NULL);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	free(cap.buf);
	/* The name and the device memory are free again. */
	c.verbs_ops = NULL;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

/* ibv_reg_mr works (nvidia-peermem): the region is made, the path reported. */
static void
test_peermem_accepted(void)
{
	struct dt_devmem_region_conf c = conf_gpu("nc_ok");
	struct fake f = { .reg_mr = 0 };
	const struct dt_verbs_report *rep;
	struct dt_devmem_region *r = NULL;

	c.verbs_ops = &fake_ops;
	c.verbs_ctx = &f;
	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	rep = dt_devmem_region_nic_check(r);
	DT_REQUIRE(rep != NULL);
	DT_CHECK_EQ(rep->verdict, DT_VERBS_OK);
	DT_CHECK(strcmp(rep->ibdev, "mlx5_0") == 0);
	DT_CHECK(strstr(rep->line, "ibv_reg_mr (peermem): ok") != NULL);
	DT_CHECK(strcmp(dt_devmem_region_provider(r), "gpu_sim") == 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

/* Host regions are DPDK memory the PMD registers itself: not checked. */
static void
test_host_region_not_checked(void)
{
	struct dt_devmem_region_conf c = conf_gpu("nc_host");
	struct fake f = { .reg_mr = -EFAULT };
	struct dt_devmem_region *r = NULL;

	c.gpu_id = RTE_GPU_ID_NONE;
	c.verbs_ops = &fake_ops;
	c.verbs_ctx = &f;
	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	DT_CHECK(dt_devmem_region_nic_check(r) == NULL);
	DT_CHECK_EQ(f.reg_mr_calls, 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

/* Last case: closing the device removes its provider; regions then fail. */
static void
test_provider_gone_after_close(void)
{
	struct dt_devmem_region_conf c = conf_gpu("nc_closed");
	struct dt_devmem_region *r = NULL;

	DT_REQUIRE(dt_devmem_provider_get(gpu) != NULL);
	DT_REQUIRE(rte_gpu_close(gpu) == 0);
	DT_CHECK(dt_devmem_provider_get(gpu) == NULL);
	DT_CHECK(dt_devmem_engine_create_default(gpu, (void *)0x10000, 4096,
		NULL) == NULL);
	DT_CHECK_EQ(rte_errno, ENOTSUP);
	DT_CHECK(dt_devmem_region_create(&c, &r) < 0);
	DT_CHECK(r == NULL);
}

int
main(int argc, char **argv)
{
	int16_t id;
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	gpu = RTE_GPU_ID_NONE;
	RTE_GPU_FOREACH(id) {
		gpu = id;
		break;
	}
	if (gpu == RTE_GPU_ID_NONE ||
	    rte_eth_dev_get_port_by_name(PORT_VDEV, &port) != 0) {
		fprintf(stderr, "needs --vdev=gpu_sim_nc0 and --vdev=" PORT_VDEV "\n");
		rte_eal_cleanup();
		return 1;
	}
	DT_RUN(test_no_verbs_device_for_port);
	DT_RUN(test_refused_region_undone);
	DT_RUN(test_peermem_accepted);
	DT_RUN(test_host_region_not_checked);
	DT_RUN(test_provider_gone_after_close);
	ret = dt_test_summary();
	rte_eal_cleanup();
	return ret;
}
