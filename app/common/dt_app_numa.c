/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The placement report (see dt_app_numa.h): where EAL, gpudev and libnuma
 * say each port, the GPU, each lcore and each pool sits.
 *
 * libnuma is asked first because it reads the machine (the CPU's node, the
 * node a page really landed on); EAL's socket ids are its fallback, e.g.
 * in a container where numa_available() fails.
 */
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "dt_app_numa.h"

#define DT_APP_NUMA_WARN_MAX 32

void
dt_app_numa_topo_init(struct dt_app_topo *t)
{
	bool ok = numa_available() >= 0;

	dt_app_topo_init(t, ok, ok ? numa_num_configured_nodes() : 0);
}

int
dt_app_numa_lcore_node(unsigned int lcore)
{
	rte_cpuset_t cs = rte_lcore_cpuset(lcore);
	int cpu, node;

	if (numa_available() >= 0)
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &cs)) {
				node = numa_node_of_cpu(cpu);
				if (node >= 0)
					return node;
				break;
			}
	node = (int)rte_lcore_to_socket_id(lcore);
	return node >= 0 && node < RTE_MAX_NUMA_NODES ? node : DT_APP_NODE_ANY;
}

int
dt_app_numa_mem_node(const void *addr)
{
	const struct rte_memseg *ms;
	int node = -1;

	if (addr == NULL)
		return DT_APP_NODE_ANY;
	if (numa_available() >= 0 &&
			get_mempolicy(&node, NULL, 0, (void *)(uintptr_t)addr,
				MPOL_F_NODE | MPOL_F_ADDR) == 0 && node >= 0)
		return node;
	ms = rte_mem_virt2memseg(addr, NULL);
	return ms != NULL && ms->socket_id >= 0 ? ms->socket_id : DT_APP_NODE_ANY;
}

int
dt_app_numa_pool_node(const struct rte_mempool *mp)
{
	const struct rte_mempool_memhdr *h;

	if (mp == NULL)
		return DT_APP_NODE_ANY;
	h = STAILQ_FIRST(&mp->mem_list);
	return h != NULL ? dt_app_numa_mem_node(h->addr) : DT_APP_NODE_ANY;
}

int
dt_app_numa_gpu_node(int16_t gpu_id)
{
	struct rte_gpu_info info;

	if (gpu_id < 0 || rte_gpu_info_get(gpu_id, &info) != 0)
		return DT_APP_NODE_ANY;
	return info.numa_node;
}

int
dt_app_numa_add_port(struct dt_app_topo *t, uint16_t port_id, const char *role,
	bool payload)
{
	char name[RTE_ETH_NAME_MAX_LEN] = "?", label[2 * DT_APP_PLACE_NAME];
	struct rte_eth_dev_info info;
	const char *drv = "?";

	rte_eth_dev_get_name_by_port(port_id, name);
	if (rte_eth_dev_info_get(port_id, &info) == 0 && info.driver_name != NULL)
		drv = info.driver_name;
	snprintf(label, sizeof(label), "port %u (%s, %s, %s)", port_id, name,
		drv, role);
	return dt_app_topo_add(t, DT_APP_PLACE_PORT, label,
		rte_eth_dev_socket_id(port_id), -1, payload);
}

int
dt_app_numa_add_gpu(struct dt_app_topo *t, int16_t gpu_id)
{
	struct rte_gpu_info info;
	char label[2 * DT_APP_PLACE_NAME];

	if (gpu_id < 0 || rte_gpu_info_get(gpu_id, &info) != 0)
		return -1;
	snprintf(label, sizeof(label), "gpu %d (%s)", gpu_id,
		info.name != NULL ? info.name : "?");
	return dt_app_topo_add(t, DT_APP_PLACE_GPU, label, info.numa_node, -1,
		false);
}

int
dt_app_numa_add_pool(struct dt_app_topo *t, const struct rte_mempool *mp,
	int port, bool payload)
{
	char label[2 * DT_APP_PLACE_NAME];

	if (mp == NULL)
		return -1;
	snprintf(label, sizeof(label), "pool %s", mp->name);
	return dt_app_topo_add(t, DT_APP_PLACE_POOL, label,
		dt_app_numa_pool_node(mp), port, payload);
}

unsigned int
dt_app_numa_report(const struct dt_app_topo *t, FILE *f)
{
	struct dt_app_place_warn w[DT_APP_NUMA_WARN_MAX];
	unsigned int i, n;
	char line[256];

	for (i = 0; i < t->nb; i++) {
		const struct dt_app_place_obj *o = &t->obj[i];

		if (o->node >= 0)
			fprintf(f, "  %s: NUMA node %d\n", o->name, o->node);
		else
			fprintf(f, "  %s: NUMA node unknown\n", o->name);
	}
	if (!t->numa_ok) {
		/* One line, however many objects: the check has nothing to stand on. */
		fprintf(f, "  NUMA: libnuma reports no NUMA support here (numa_available() < 0): placement not checked\n");
		return 0;
	}
	n = dt_app_place_check(t, w, RTE_DIM(w));
	for (i = 0; i < RTE_MIN(n, (unsigned int)RTE_DIM(w)); i++) {
		dt_app_place_warn_str(t, &w[i], line, sizeof(line));
		fprintf(f, "  WARNING: %s\n", line);
	}
	if (n > RTE_DIM(w))
		fprintf(f, "  WARNING: %u more misplaced objects\n",
			n - (unsigned int)RTE_DIM(w));
	fprintf(f, "  NUMA: %d node%s, %u placement warning%s\n", t->nb_nodes,
		t->nb_nodes == 1 ? "" : "s", n, n == 1 ? "" : "s");
	return n;
}
