/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rte_flow for the software NIC: exact-match rules over ETH / IPV4 / TCP /
 * UDP items with QUEUE and RSS actions, evaluated by the receive side before
 * RSS. Control-path calls (create/destroy/flush) may run while traffic flows;
 * the data path reads the table without locks.
 *
 * Concurrency model (see hsplit_flow.c for the details):
 * - rule storage is embedded in the table (HSPLIT_FLOW_MAX slots, never
 *   freed while the port exists), so a data-path reader can never touch
 *   freed memory and no allocation is needed (works in shared memory and
 *   without EAL);
 * - the data path walks a priority-ordered view of the active slots; there
 *   are two views, writers rebuild the unpublished one and publish it with a
 *   release store; each view carries a sequence count so a reader that raced
 *   with a rewrite of the view it was reading retries. A stalled writer never
 *   blocks readers (they keep using the published view).
 */
#ifndef HSPLIT_FLOW_H
#define HSPLIT_FLOW_H

#include <stdint.h>
#include <rte_byteorder.h>
#include <rte_spinlock.h>
#include <rte_flow_driver.h>

#include "hsplit_pkt.h"

/** Rules per port. */
#define HSPLIT_FLOW_MAX 256
/** Queues in the queue list of one RSS action. */
#define HSPLIT_FLOW_RSS_QUEUES_MAX 64
/** 64-bit words of a match key. */
#define HSPLIT_FLOW_KEY_WORDS 4

/** @internal Key flags: facts of a frame that items imply. */
#define HSPLIT_FLOW_KF_IPV4 0x01 /**< IPv4 header parsed */
#define HSPLIT_FLOW_KF_TCP  0x02 /**< TCP header parsed (not a fragment) */
#define HSPLIT_FLOW_KF_UDP  0x04 /**< UDP header parsed (not a fragment) */
#define HSPLIT_FLOW_KF_VLAN 0x08 /**< at least one VLAN tag */

/**
 * @internal Match key: the same packing for a frame's fields and for a
 * rule's value and mask, so matching is (key & mask) == value per word.
 * Multi-byte fields are in network order.
 */
union hsplit_flow_key {
	uint64_t w[HSPLIT_FLOW_KEY_WORDS];
	struct {
		uint8_t dst_mac[6];
		rte_be16_t ether_type; /**< innermost EtherType */
		uint8_t src_mac[6];
		uint8_t ip_proto;
		uint8_t flags;         /**< HSPLIT_FLOW_KF_* */
		rte_be32_t src_ip;
		rte_be32_t dst_ip;
		rte_be16_t src_port;
		rte_be16_t dst_port;
		uint32_t pad;          /**< always zero */
	} f;
};

/**
 * @internal One rule slot. Defined here only so that the table can embed its
 * storage; nothing outside hsplit_flow.c may touch it.
 */
struct hsplit_flow_rule {
	union hsplit_flow_key value; /**< already masked */
	union hsplit_flow_key mask;
	uint16_t nb_queues;          /**< 1 for QUEUE, queue_num for RSS */
	uint8_t in_use;              /**< control path only */
	uint8_t is_rss;              /**< control path only (reporting) */
	uint32_t priority;
	uint64_t seq;                /**< creation order, breaks priority ties */
	uint16_t queue[HSPLIT_FLOW_RSS_QUEUES_MAX];
};

/** @internal Priority-ordered list of active slots, as the data path sees it. */
struct hsplit_flow_view {
	uint32_t gen;                    /**< odd while being rewritten */
	uint32_t nb;                     /**< entries in order[] */
	uint8_t order[HSPLIT_FLOW_MAX];  /**< slot indexes, first match wins */
};

/** Per-port rule table; embedded in the port's private data. */
struct hsplit_flow_table {
	rte_spinlock_t lock;  /**< serialises control-path writers */
	uint32_t cur;         /**< published view; release store / acquire load */
	struct hsplit_flow_view view[2];
	uint64_t next_seq;    /**< control path only */
	uint32_t nb_rules;    /**< active rules (control path, informational) */
	struct hsplit_flow_rule rule[HSPLIT_FLOW_MAX];
};

/** Empty table; the PMD calls it when it allocates the port. */
void hsplit_flow_table_init(struct hsplit_flow_table *t);
/** Drop every rule (port closed, no traffic). Nothing is freed: no allocation. */
void hsplit_flow_table_fini(struct hsplit_flow_table *t);

/** eth_dev_ops.flow_ops_get of the PMD. */
int hsplit_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops);

/**
 * Data path: first matching rule (lowest priority value, then creation
 * order) picks the queue. For an RSS action, @p rss_hash selects among the
 * action's queues: queue[rss_hash % queue_num]. Returns 1 and sets *queue on
 * a match, 0 otherwise. Lock-free; safe against concurrent create/destroy/
 * flush on the same table.
 *
 * The queue was below nb_rx_queues when the rule was created; if the port
 * was reconfigured with fewer queues since, the caller must range-check it.
 */
int hsplit_flow_classify(const struct hsplit_flow_table *t,
	const struct hsplit_pkt_info *pi, uint32_t rss_hash, uint16_t *queue);

/** Provided by the PMD: the rule table of a port. */
struct hsplit_flow_table *hsplit_dev_flow_table(struct rte_eth_dev *dev);

/**
 * @internal Compile a rule (hsplit_flow_parse.c); @p r is zeroed here.
 * @return 0, or a negative errno with @p error set (rte_flow_error_set).
 */
int hsplit_flow_parse(const struct rte_eth_dev *dev,
	const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct hsplit_flow_rule *r,
	struct rte_flow_error *error);

#endif /* HSPLIT_FLOW_H */
