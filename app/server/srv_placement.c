/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NUMA placement report at start-up: the socket of each port, the NUMA node
 * of the GPU (rte_gpu_info_get) and the socket of each lcore, with a warning
 * for each pair that crosses sockets (every payload byte would cross the
 * interconnect, or the polling core would reach a remote NIC).
 */
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_lcore.h>

#include "dt_devmem.h"
#include "srv.h"

static void
report_port(const char *role, uint16_t port)
{
	char name[RTE_ETH_NAME_MAX_LEN] = "?";
	struct rte_eth_dev_info info;
	const char *drv = "?";

	rte_eth_dev_get_name_by_port(port, name);
	if (rte_eth_dev_info_get(port, &info) == 0)
		drv = info.driver_name;
	printf("  port %u (%s, %s, %s): socket %d\n", port, name, drv, role,
		rte_eth_dev_socket_id(port));
}

static int
report_gpu(int16_t gpu_id)
{
	struct rte_gpu_info info;

	if (gpu_id == RTE_GPU_ID_NONE) {
		printf("  payload memory: host (no GPU)\n");
		return SOCKET_ID_ANY;
	}
	if (rte_gpu_info_get(gpu_id, &info) != 0) {
		printf("  gpu %d: no info\n", gpu_id);
		return SOCKET_ID_ANY;
	}
	printf("  gpu %d (%s): NUMA node %d, %zu MiB\n", gpu_id, info.name,
		info.numa_node, (size_t)(info.total_memory >> 20));
	return info.numa_node;
}

static void
warn_if_apart(const char *a, int sa, const char *b, int sb)
{
	if (sa >= 0 && sb >= 0 && sa != sb)
		printf("  WARNING: %s on socket %d, %s on socket %d: traffic crosses "
			"sockets\n", a, sa, b, sb);
}

/*
 * Where the payload region's memory comes from and whether the NIC can DMA
 * into it (lib/devmem's verbs registration check).
 */
static void
report_nic_path(const struct dt_devmem_region *r)
{
	const struct dt_verbs_report *rep;

	if (r == NULL)
		return;
	rep = dt_devmem_region_nic_check(r);
	printf("  payload region %s: memory from %s; NIC path: %s\n",
		dt_devmem_region_name(r), dt_devmem_region_provider(r),
		rep != NULL ? rep->line : "not checked (host memory)");
}

void
srv_placement_report(const struct srv_ctx *ctx)
{
	int port_sock = rte_eth_dev_socket_id(ctx->port_id), gpu_sock;
	unsigned int i;

	printf("placement:\n");
	if (ctx->port_started)
		report_port("server", ctx->port_id);
	if (ctx->client_started)
		report_port("sender", ctx->client_port_id);
	gpu_sock = report_gpu(ctx->gpu_id);
	report_nic_path(ctx->region);
	printf("  main lcore %u: socket %u\n", rte_get_main_lcore(),
		rte_lcore_to_socket_id(rte_get_main_lcore()));
	for (i = 0; i < ctx->nb_stacks + (ctx->cfg.has_client ? 1 : 0); i++) {
		const struct srv_stack *s = &ctx->stacks[i];

		printf("  stack %u: lcore %u (socket %u), port %u queue %u%s\n", i,
			s->lcore, rte_lcore_to_socket_id(s->lcore), s->port_id,
			s->queue, s->client ? " (sender)" : "");
		warn_if_apart("a stack lcore", rte_lcore_to_socket_id(s->lcore),
			"its port", rte_eth_dev_socket_id(s->port_id));
	}
	if (ctx->port_started)
		warn_if_apart("the server's port", port_sock, "the GPU", gpu_sock);
	fflush(stdout);
}
