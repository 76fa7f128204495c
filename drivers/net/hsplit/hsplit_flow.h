/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rte_flow for the software NIC: exact-match rules over ETH / IPV4 / TCP /
 * UDP items with QUEUE and RSS actions, evaluated by the receive side before
 * RSS. Control-path calls (create/destroy/flush) may run while traffic flows;
 * the data path reads the table without locks.
 */
#ifndef HSPLIT_FLOW_H
#define HSPLIT_FLOW_H

#include <stdint.h>
#include <rte_spinlock.h>
#include <rte_flow_driver.h>

#include "hsplit_pkt.h"

#define HSPLIT_FLOW_MAX 64

struct hsplit_flow_rule;

/** Per-port rule table; embedded in the port's private data. */
struct hsplit_flow_table {
	rte_spinlock_t lock;  /**< serialises control-path writers */
	/** Slots published with release stores, read with acquire loads. */
	struct hsplit_flow_rule *slot[HSPLIT_FLOW_MAX];
	uint32_t nb_rules;
};

void hsplit_flow_table_init(struct hsplit_flow_table *t);
/** Free every rule (port closed, no traffic). */
void hsplit_flow_table_fini(struct hsplit_flow_table *t);

/** eth_dev_ops.flow_ops_get of the PMD. */
int hsplit_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops);

/**
 * Data path: first matching rule (lowest priority value, then creation
 * order) picks the queue. For an RSS action, @p rss_hash selects among the
 * action's queues. Returns 1 and sets *queue on a match, 0 otherwise.
 */
int hsplit_flow_classify(const struct hsplit_flow_table *t,
	const struct hsplit_pkt_info *pi, uint32_t rss_hash, uint16_t *queue);

/** Provided by the PMD: the rule table of a port. */
struct hsplit_flow_table *hsplit_dev_flow_table(struct rte_eth_dev *dev);

#endif /* HSPLIT_FLOW_H */
