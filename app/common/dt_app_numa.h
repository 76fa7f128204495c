/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The NUMA placement report of devtcp's programs: fills a dt_app_topo from
 * EAL, gpudev and libnuma, and prints it with its warnings (the decisions
 * are dt_app_place.h's, unit-tested without EAL).
 */
#ifndef DT_APP_NUMA_H
#define DT_APP_NUMA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "dt_app_place.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Start a topology: whether libnuma works here (numa_available()) and how
 * many nodes the machine has.
 */
void dt_app_numa_topo_init(struct dt_app_topo *t);

/**
 * NUMA node of an lcore: libnuma's node of the first CPU of its cpuset,
 * else EAL's socket of the lcore.
 */
int dt_app_numa_lcore_node(unsigned int lcore);

/**
 * NUMA node of the page holding @p addr: libnuma's (get_mempolicy of the
 * address), else the socket of EAL's memory segment, else DT_APP_NODE_ANY.
 */
int dt_app_numa_mem_node(const void *addr);

/** NUMA node of a mempool's first memory chunk (DT_APP_NODE_ANY: none). */
int dt_app_numa_pool_node(const struct rte_mempool *mp);

/** NUMA node of a gpudev device (rte_gpu_info.numa_node), or DT_APP_NODE_ANY. */
int dt_app_numa_gpu_node(int16_t gpu_id);

/**
 * Add port @p port_id as "port N (name, driver, role)".
 * @param payload
 *   Whether payload goes from it to the GPU (a receiving port).
 * @return
 *   Its index in @p t, or -1.
 */
int dt_app_numa_add_port(struct dt_app_topo *t, uint16_t port_id,
	const char *role, bool payload);

/** Add gpudev @p gpu_id as "gpu N (name)"; -1 when full or unknown. */
int dt_app_numa_add_gpu(struct dt_app_topo *t, int16_t gpu_id);

/** Add pool @p mp (NULL: nothing) as "pool NAME" serving port index @p port. */
int dt_app_numa_add_pool(struct dt_app_topo *t, const struct rte_mempool *mp,
	int port, bool payload);

/**
 * Print every object with its node and, after it, one WARNING line per
 * misplaced one; without libnuma one line says the nodes go unchecked.
 * @return
 *   The number of warnings.
 */
unsigned int dt_app_numa_report(const struct dt_app_topo *t, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* DT_APP_NUMA_H */
