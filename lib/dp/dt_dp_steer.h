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
 * Rules are created and destroyed on control calls (listen, unlisten,
 * connect, connection closed), never per packet; the listening groups are
 * shared by the stacks of the port under a spinlock taken only there.
 *
 * Neighbours: ARP replies reach queue 0 only, so the stack polling it is
 * the single writer of a small shared table (IPv4 -> MAC); the other stacks
 * read it without locks: an entry's address is written once, after its
 * MAC word, with release order; a MAC word is one atomic 64-bit store (MAC
 * in the low 48 bits, an update count in the high 16), and a generation
 * counter bumped after each publication tells readers to look again.
 */
#ifndef DT_DP_STEER_H
#define DT_DP_STEER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#define DT_DP_STEER_GRP_MAX 32      /**< listening (ip, port) pairs per port */
#define DT_DP_SH_NEIGH 256          /**< shared neighbour entries per port */
#define DT_DP_STEER_PRIO_CONN 0     /**< 5-tuple rules match first */
#define DT_DP_STEER_PRIO_LISTEN 1

struct rte_flow;

/** Stacks of the port listening on one (ip, port). */
struct dt_dp_steer_grp {
	uint32_t ip;                /**< host order; 0: slot unused */
	uint16_t tcp_port;          /**< host order */
	uint64_t qmask;             /**< RX queues of the listening stacks */
	struct rte_flow *flow;
};

/** A shared neighbour entry (see the file comment). */
struct dt_dp_sh_neigh {
	uint32_t ip;                /**< host order; written once */
	uint64_t word;              /**< MAC (low 48 bits) | update count << 48 */
};

/** What the stacks of a steered port share. */
struct dt_dp_port_sh {
	uint16_t port_id;
	uint16_t nb_rxq;
	uint32_t host_claimed;      /**< a stack polls queue 0 (atomic) */
	rte_spinlock_t lock;        /**< control path only: grp[] */
	struct dt_dp_steer_grp grp[DT_DP_STEER_GRP_MAX];
	uint32_t neigh_gen;         /**< bumped after every publication */
	uint32_t neigh_used;        /**< writer only */
	struct dt_dp_sh_neigh neigh[DT_DP_SH_NEIGH];
};

/** Port start with a host queue: (re)create the port's shared state. */
int dt_dp_port_sh_attach(uint16_t port_id, uint16_t nb_rxq);

/** Port stop: free it (the port's stacks are destroyed by then). */
void dt_dp_port_sh_detach(uint16_t port_id);

/** The shared state of a port started with a host queue, else NULL. */
struct dt_dp_port_sh *dt_dp_port_sh_get(uint16_t port_id);

/** Writer (the stack polling queue 0): @p ip is at @p mac. */
void dt_dp_sh_neigh_publish(struct dt_dp_port_sh *sh, uint32_t ip,
	const uint8_t mac[6]);

/** Reader: the MAC of @p ip and its update count; false when unknown. */
bool dt_dp_sh_neigh_lookup(const struct dt_dp_port_sh *sh, uint32_t ip,
	uint8_t mac[6], uint16_t *count);

#endif /* DT_DP_STEER_H */
