/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering of a port set up with a host queue (dt_dp_port_conf.host_queue,
 * DESIGN rule 3): what the stacks of one port share, private to lib/dp.
 *
 * Queue 0 receives whole frames in host memory: ARP, ICMP and anything no
 * rule steers (the RSS table points every entry at it). Queues 1..N split
 * payload into device memory and receive only the TCP flows that rte_flow
 * rules steer to them:
 *  - a listening port: eth / ipv4 dst is <ip> / tcp dst is <port> -> the
 *    queue of its stack, or RSS over the queues of every stack listening
 *    on it (priority 1);
 *  - an actively opened connection: its 5-tuple -> the queue of its stack
 *    (priority 0, before the listening rules). RSS-based choice of the
 *    local port cannot work here: the port's own RSS sends everything to
 *    the host queue.
 * A port that takes no such rules (dt_dp_steer_probe() at port start) is
 * not steered here: it runs on RSS alone (dt_dp_port_conf.host_queue).
 *
 * Rules are created and destroyed on control calls (listen, unlisten,
 * connect, connection closed), never per packet; the listening groups are
 * shared by the stacks of the port under a spinlock taken only there.
 *
 * Neighbours (every port started by dt_dp_port_start(), steered or not):
 * an ARP reply lands on whichever queue the NIC picks (queue 0 for frames
 * RSS cannot hash), not necessarily on the queue of the stack that asked.
 * Every stack that receives ARP from a neighbour (a reply, or a request
 * for our address) publishes it in a small table of the port (IPv4 ->
 * MAC) that every stack reads, all without locks: a writer claims a free
 * entry by a compare-and-swap of its address (written once), then stores
 * its MAC word, one atomic 64-bit value (MAC in the low 48 bits, an update
 * count in the high 16; count 0: not published yet), with release order;
 * a generation counter bumped after each publication tells every stack
 * (checked on each poll) to look again.
 */
#ifndef DT_DP_STEER_H
#define DT_DP_STEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_spinlock.h>

#include "dt_dp_port.h"

#define DT_DP_STEER_GRP_MAX 128     /**< listening (ip, port) pairs per port */
#define DT_DP_SH_NEIGH 256          /**< shared neighbour entries per port */
#define DT_DP_STEER_PRIO_CONN 0     /**< 5-tuple rules match first */
#define DT_DP_STEER_PRIO_LISTEN 1
#define DT_DP_STEER_SLOTS 64        /**< RSS queue list of a listening group */

struct rte_flow;
struct rte_mempool;

/**
 * Stacks of the port listening on one (ip, port). The rule's RSS queue list
 * (slot[]) only grows: a stack that leaves has no connection of the port
 * left, so its slots are handed to the members that stay and no flow of
 * theirs moves (removing the slots would re-hash every flow over fewer
 * queues, established ones included).
 */
struct dt_dp_steer_grp {
	uint32_t ip;                /**< host order; 0: slot unused */
	uint16_t tcp_port;          /**< host order */
	uint16_t nb_slots;          /**< entries of slot[] */
	uint64_t members;           /**< RX queues of the listening stacks */
	struct rte_flow *flow;
	uint16_t slot[DT_DP_STEER_SLOTS]; /**< the rule's RSS queue list */
};

/** A shared neighbour entry (see the file comment). */
struct dt_dp_sh_neigh {
	uint32_t ip;                /**< host order; 0: free; written once */
	uint64_t word;              /**< MAC (low 48 bits) | update count << 48 */
};

/** What the stacks of a port share. */
struct dt_dp_port_sh {
	uint16_t port_id;
	uint16_t nb_rxq;
	bool steered;               /**< started with a host queue */
	struct dt_dp_port_mode mode; /**< what dt_dp_port_start() decided */
	struct rte_mempool *copy_pool; /**< copy mode's whole-frame pool */
	uint32_t copy_pinned;        /**< a stack pinned it for the copy engine (atomic) */
	uint32_t host_claimed;      /**< a stack polls queue 0 (atomic) */
	rte_spinlock_t lock;        /**< control path only: grp[] */
	struct dt_dp_steer_grp grp[DT_DP_STEER_GRP_MAX];
	/* Written by every stack, on its own cache line. */
	uint32_t neigh_gen __rte_cache_aligned; /**< bumped after every publication */
	struct dt_dp_sh_neigh neigh[DT_DP_SH_NEIGH] __rte_cache_aligned;
};

/**
 * Port start: (re)create the port's shared state; @p steered: started
 * with a host queue (steering rules and the host queue's claim).
 */
int dt_dp_port_sh_attach(uint16_t port_id, uint16_t nb_rxq, bool steered);

/**
 * Whether configured port @p port_id takes the rules steering needs (a
 * listening port to one queue and, with several device queues, RSS over
 * them; a 5-tuple to one queue), by rte_flow_validate: no rule is made.
 * @return true, or false with the missing rule and ethdev's reason in
 *         @p why (a port without the flow API: ENOSYS)
 */
bool dt_dp_steer_probe(uint16_t port_id, uint16_t nb_rxq, char *why,
	size_t len);

/** Port stop: free it (the port's stacks are destroyed by then). */
void dt_dp_port_sh_detach(uint16_t port_id);

/** The shared state of a port started by dt_dp_port_start(), else NULL. */
struct dt_dp_port_sh *dt_dp_port_sh_get(uint16_t port_id);

/**
 * Any stack of the port: @p ip is at @p mac.
 * @return the entry's new update count (never 0), or 0 when the table is
 *         full (nothing published)
 */
uint16_t dt_dp_sh_neigh_publish(struct dt_dp_port_sh *sh, uint32_t ip,
	const uint8_t mac[6]);

/** Reader: the MAC of @p ip and its update count; false when unknown. */
bool dt_dp_sh_neigh_lookup(const struct dt_dp_port_sh *sh, uint32_t ip,
	uint8_t mac[6], uint16_t *count);

#endif /* DT_DP_STEER_H */
