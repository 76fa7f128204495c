/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RSS of the software NIC: Toeplitz hash (rte_softrss) of the fields that
 * the configured rss_hf selects, and the indirection table lookup. Pure.
 */
#ifndef HSPLIT_RSS_H
#define HSPLIT_RSS_H

#include <stdint.h>

#include <rte_ethdev.h>

#include "hsplit_pkt.h"

#define HSPLIT_RSS_KEY_LEN 40
#define HSPLIT_RETA_SIZE 512

/** Hash functions the NIC offers (dev_info.flow_type_rss_offloads). */
#define HSPLIT_RSS_OFFLOAD_ALL (RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | \
	RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV4_UDP | \
	RTE_ETH_RSS_NONFRAG_IPV4_OTHER | RTE_ETH_RSS_IPV6 | \
	RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_TCP | \
	RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_NONFRAG_IPV6_OTHER)

/** The default Toeplitz key (the one Intel and Mellanox NICs ship). */
extern const uint8_t hsplit_rss_default_key[HSPLIT_RSS_KEY_LEN];

/**
 * Toeplitz hash of a frame under @p rss_hf with @p key.
 * @return 1 and *hash when the frame is hashed, 0 when rss_hf selects none
 *         of its fields (non-IP frames, disabled types)
 */
int hsplit_rss_hash(const struct hsplit_pkt_info *pi, uint64_t rss_hf,
	const uint8_t key[HSPLIT_RSS_KEY_LEN], uint32_t *hash);

/** Fill @p reta with the default spread over @p nb_queues queues. */
void hsplit_rss_reta_default(uint16_t reta[HSPLIT_RETA_SIZE], uint16_t nb_queues);

#endif /* HSPLIT_RSS_H */
