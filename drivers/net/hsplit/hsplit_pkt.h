/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What the software NIC's parser extracts from a frame (host-memory wire
 * buffer) before it classifies, checksums and splits it. Shared between the
 * receive path, RSS and rte_flow matching.
 */
#ifndef HSPLIT_PKT_H
#define HSPLIT_PKT_H

#include <stdint.h>

struct hsplit_pkt_info {
	uint32_t ptype;         /**< RTE_PTYPE_L2_ETHER | L3_* | L4_* found */
	uint16_t l2_len;        /**< Ethernet header (+ VLAN tags) */
	uint16_t l3_len;        /**< IP header incl. options; 0 if not IP */
	uint16_t l4_len;        /**< TCP header incl. options / 8 for UDP; 0 otherwise */
	uint16_t ether_type;    /**< innermost EtherType, host order */
	uint8_t  dst_mac[6];
	uint8_t  src_mac[6];
	uint8_t  ip_proto;      /**< IPv4 protocol / IPv6 next header; 0 if not IP */
	uint8_t  is_fragment;   /**< IPv4 fragment: no L4 parsing */
	uint32_t src_ip;        /**< IPv4 source, network order */
	uint32_t dst_ip;        /**< IPv4 destination, network order */
	uint16_t src_port;      /**< L4 source port, network order */
	uint16_t dst_port;      /**< L4 destination port, network order */
	uint16_t ip_len;        /**< L3 header + L3 payload as the IP header says
	                         *   (Ethernet padding excluded); 0 if not IP */
	uint8_t  vlan_tags;     /**< VLAN tags skipped (0..2) */
	uint8_t  pad_;
	uint8_t  src_ip6[16];   /**< IPv6 source (when L3 is IPv6) */
	uint8_t  dst_ip6[16];   /**< IPv6 destination (when L3 is IPv6) */
};

#endif /* HSPLIT_PKT_H */
