/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's placement: the node its hugepage pools are created on
 * (the receiving port's, else the GPU's, else the main lcore's: see
 * dt_app_place_pool_node(); only nodes EAL has memory on) and the start-up report of where the ports,
 * the GPU, the lcores and the pools are, with a warning for each misplaced
 * one (app/common/dt_app_numa.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_lcore.h>

#include "bench.h"
#include "dt_app_numa.h"
#include "rte_pmd_hsplit.h"

/* @p node when EAL has memory there (one of its sockets), else unknown. */
static int
eal_node(int node)
{
	unsigned int i;

	for (i = 0; node >= 0 && i < rte_socket_count(); i++)
		if (rte_socket_id_by_idx(i) == node)
			return node;
	return DT_APP_NODE_ANY;
}

int
bench_place_pool_socket(uint16_t port, int16_t gpu_id)
{
	int node = dt_app_place_pool_node(eal_node(rte_eth_dev_socket_id(port)),
		eal_node(dt_app_numa_gpu_node(gpu_id)),
		eal_node(dt_app_numa_lcore_node(rte_get_main_lcore())));

	return node >= 0 ? node : SOCKET_ID_ANY;
}

/*
 * Lcores that share a CPU take turns on it: with a stack on each, adding
 * stacks lowers goodput instead of raising it (a falling --stacks curve).
 */
static void
bench_place_cpu_share(const unsigned int *lcores, unsigned int n)
{
	unsigned int i, j, cpu;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			rte_cpuset_t a = rte_lcore_cpuset(lcores[i]);
			rte_cpuset_t b = rte_lcore_cpuset(lcores[j]);

			CPU_AND(&a, &a, &b);
			for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &a); cpu++)
				;
			if (cpu == CPU_SETSIZE)
				continue;
			printf("  warning: lcores %u and %u share CPU %u: stacks on them "
				"take turns, so more stacks give less goodput (one CPU per "
				"lcore: -l, or --lcores L@CPU with distinct CPUs)\n",
				lcores[i], lcores[j], cpu);
		}
}

void
bench_place_report(const struct bench_place_in *in)
{
	struct dt_app_topo *t = malloc(sizeof(*t));
	char name[2 * DT_APP_PLACE_NAME];
	int tx, rx;
	unsigned int i;

	if (t == NULL)
		return;
	dt_app_numa_topo_init(t);
	printf("placement:\n");
	rx = dt_app_numa_add_port(t, in->rx_port, "receiver", true);
	tx = dt_app_numa_add_port(t, in->tx_port, "sender", false);
	if (in->gpu_id == RTE_GPU_ID_NONE)
		printf("  payload memory: host (no GPU)\n");
	else
		dt_app_numa_add_gpu(t, in->gpu_id);
	/*
	 * Which lcore runs what depends on the run (--stacks): each is held
	 * to the receiving port, the one every payload byte enters by.
	 */
	for (i = 0; i < in->nb_lcores; i++) {
		snprintf(name, sizeof(name), "lcore %u%s", in->lcores[i],
			i == 0 ? " (main)" : "");
		dt_app_topo_add(t, DT_APP_PLACE_LCORE, name,
			dt_app_numa_lcore_node(in->lcores[i]), rx, true);
	}
	for (i = 0; i < in->nb_pools; i++)
		dt_app_numa_add_pool(t, in->pools[i], rx, false);
	dt_app_numa_add_pool(t, rte_pmd_hsplit_wire_pool(in->rx_port), rx, false);
	dt_app_numa_add_pool(t, rte_pmd_hsplit_wire_pool(in->tx_port), tx, false);
	dt_app_numa_report(t, stdout);
	free(t);
	bench_place_cpu_share(in->lcores, in->nb_lcores);
	fflush(stdout);
}
