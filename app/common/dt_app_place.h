/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * NUMA placement decisions of devtcp's programs (pure C, no EAL, no
 * libnuma): a topology is a list of objects (ports, the GPU, lcores, memory
 * pools), each with the NUMA node it sits on and the port it serves; the
 * check lists every object that sits on another node than its port, or
 * than the GPU its payload goes to. The programs fill the topology from
 * EAL and libnuma (numa_node_of_cpu, get_mempolicy) and print the report.
 */
#ifndef DT_APP_PLACE_H
#define DT_APP_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Node not known (a virtual device, memory not yet touched). */
#define DT_APP_NODE_ANY (-1)
/** Most objects in one topology. */
#define DT_APP_PLACE_MAX 96
/** Longest object name, NUL included. */
#define DT_APP_PLACE_NAME 96

/** What an object of the topology is. */
enum dt_app_place_kind {
	DT_APP_PLACE_PORT,   /**< an ethdev port */
	DT_APP_PLACE_GPU,    /**< the gpudev device payload lands in */
	DT_APP_PLACE_LCORE,  /**< a polling lcore */
	DT_APP_PLACE_POOL,   /**< a hugepage memory pool */
};

/** One object and where it sits. */
struct dt_app_place_obj {
	enum dt_app_place_kind kind;
	char name[DT_APP_PLACE_NAME]; /**< e.g. "lcore 3 (server stack 1)" */
	int node;       /**< NUMA node, or DT_APP_NODE_ANY */
	int port;       /**< index (in the topology) of the port it serves, or -1 */
	bool payload;   /**< its work feeds the GPU: compared with the GPU's node too */
};

/** Everything the check looks at. */
struct dt_app_topo {
	bool numa_ok;   /**< libnuma works here (numa_available() >= 0) */
	int nb_nodes;   /**< configured NUMA nodes (numa_num_configured_nodes()) */
	int gpu;        /**< index of the GPU object, or -1 (payload in host memory) */
	unsigned int nb;
	struct dt_app_place_obj obj[DT_APP_PLACE_MAX];
};

/** One misplaced object: @c obj sits on @c node, its reference @c ref on @c ref_node. */
struct dt_app_place_warn {
	unsigned int obj;
	unsigned int ref;
	int node;
	int ref_node;
};

/**
 * Empty topology.
 * @param t
 *   The topology.
 * @param numa_ok
 *   Whether libnuma works (nothing is checked without it).
 * @param nb_nodes
 *   NUMA nodes of the machine.
 */
void dt_app_topo_init(struct dt_app_topo *t, bool numa_ok, int nb_nodes);

/**
 * Add an object.
 * @param t
 *   The topology.
 * @param kind
 *   What it is; a DT_APP_PLACE_GPU object becomes the topology's GPU.
 * @param name
 *   Its name in the report (truncated to DT_APP_PLACE_NAME - 1 bytes).
 * @param node
 *   Its NUMA node, or DT_APP_NODE_ANY (any negative value).
 * @param port
 *   Index returned for the port it serves, or -1.
 * @param payload
 *   Whether it is compared with the GPU's node too.
 * @return
 *   The object's index, or -1 when the topology is full.
 */
int dt_app_topo_add(struct dt_app_topo *t, enum dt_app_place_kind kind,
	const char *name, int node, int port, bool payload);

/**
 * Find misplaced objects: an lcore or pool on another node than its port,
 * one with @c payload on another node than the GPU, the GPU on another node
 * than a port that carries payload to it (ports with @c payload). Objects
 * or references of unknown node are never reported; without libnuma
 * nothing is (the caller says so once).
 * @param t
 *   The topology.
 * @param w
 *   Where the warnings go (may be NULL when @p cap is 0).
 * @param cap
 *   Room in @p w.
 * @return
 *   The number of warnings (may exceed @p cap; only @p cap are written).
 */
unsigned int dt_app_place_check(const struct dt_app_topo *t,
	struct dt_app_place_warn *w, unsigned int cap);

/**
 * The node a hugepage pool serving a port should be created on: the
 * port's, else (a virtual port) the GPU's when payload goes there, else the
 * polling lcore's, else DT_APP_NODE_ANY (EAL's SOCKET_ID_ANY).
 * @return
 *   A node, or DT_APP_NODE_ANY.
 */
int dt_app_place_pool_node(int port_node, int gpu_node, int lcore_node);

/**
 * One line for a warning, without newline: "<obj> is on node N, <ref> on
 * node M: ...".
 * @return
 *   What snprintf() returns.
 */
int dt_app_place_warn_str(const struct dt_app_topo *t,
	const struct dt_app_place_warn *w, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DT_APP_PLACE_H */
