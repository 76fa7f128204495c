/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NUMA placement report at start-up: the node of each port, of the GPU
 * (rte_gpu_info.numa_node), of each stack's lcore (libnuma's node of its
 * CPU) and of each hugepage pool (libnuma's node of its memory), with a
 * warning for each one that sits on another node than its port or the GPU
 * (every payload byte would cross the interconnect, or the polling core
 * would reach a remote NIC). The decisions are dt_app_place.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_lcore.h>

#include "dt_app_numa.h"
#include "dt_devmem.h"
#include "rte_pmd_hsplit.h"
#include "srv.h"

/* A port's pools: its host pools and, on the software NIC, its wire's. */
static void
add_port_pools(struct dt_app_topo *t, int port, uint16_t port_id,
	struct rte_mempool *const *pools, unsigned int n, bool payload)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		dt_app_numa_add_pool(t, pools[i], port, payload);
	dt_app_numa_add_pool(t, rte_pmd_hsplit_wire_pool(port_id), port,
		payload);
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
	int sport = -1, cport = -1, idx;
	struct dt_app_topo *t;
	char name[2 * DT_APP_PLACE_NAME];
	unsigned int i, lc;

	t = malloc(sizeof(*t));
	if (t == NULL)
		return;
	dt_app_numa_topo_init(t);
	printf("placement:\n");
	if (ctx->port_started)
		sport = dt_app_numa_add_port(t, ctx->port_id, "server", true);
	if (ctx->client_started)
		cport = dt_app_numa_add_port(t, ctx->client_port_id, "sender",
			false);
	if (ctx->gpu_id == RTE_GPU_ID_NONE)
		printf("  payload memory: host (no GPU)\n");
	else if (dt_app_numa_add_gpu(t, ctx->gpu_id) < 0)
		printf("  gpu %d: no info\n", ctx->gpu_id);
	lc = rte_get_main_lcore();
	snprintf(name, sizeof(name), "main lcore %u", lc);
	dt_app_topo_add(t, DT_APP_PLACE_LCORE, name, dt_app_numa_lcore_node(lc),
		-1, false);
	report_nic_path(ctx->region);
	for (i = 0; i < ctx->nb_stacks + (ctx->cfg.has_client ? 1 : 0); i++) {
		const struct srv_stack *s = &ctx->stacks[i];

		snprintf(name, sizeof(name), "stack %u: lcore %u (port %u queue %u%s)",
			i, s->lcore, s->port_id, s->queue, s->client ? ", sender" : "");
		idx = s->client ? cport : sport;
		dt_app_topo_add(t, DT_APP_PLACE_LCORE, name,
			dt_app_numa_lcore_node(s->lcore), idx, !s->client);
	}
	if (sport >= 0) {
		struct rte_mempool *const sp[] = { ctx->hdr_pool, ctx->shell_pool,
			ctx->region != NULL ? dt_devmem_region_pool(ctx->region) : NULL };

		add_port_pools(t, sport, ctx->port_id, sp, RTE_DIM(sp), true);
	}
	if (cport >= 0 && ctx->client_port_id != ctx->port_id)
		add_port_pools(t, cport, ctx->client_port_id, &ctx->client_pool, 1,
			false);
	dt_app_numa_report(t, stdout);
	if (ctx->gpu_id != RTE_GPU_ID_NONE)
		printf("  copy engine: %u host range%s (%" PRIu64 " KiB, the NIC's wire pools) registered with gpu %d%s\n",
			ctx->nb_gpu_regs, ctx->nb_gpu_regs == 1 ? "" : "s",
			ctx->gpu_reg_bytes >> 10, ctx->gpu_id,
			ctx->gpu_reg_failed != 0 ?
				"; WARNING: some refused, copies from them are slow" : "");
	free(t);
	fflush(stdout);
}
