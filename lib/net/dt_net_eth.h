/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Ethernet II header, with at most one 802.1Q tag.
 */
#ifndef DT_NET_ETH_H
#define DT_NET_ETH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dt_net_status.h"

#define DT_NET_ETH_ALEN 6		/**< MAC address bytes */
#define DT_NET_ETH_HLEN 14		/**< untagged header bytes */
#define DT_NET_ETH_VLAN_HLEN 18		/**< header bytes with one tag */
#define DT_NET_ETH_TYPE_IPV4 0x0800
#define DT_NET_ETH_TYPE_ARP 0x0806
#define DT_NET_ETH_TYPE_VLAN 0x8100

/** A MAC address as on the wire. */
struct dt_net_eth_addr {
	uint8_t b[DT_NET_ETH_ALEN];
};

/** Parsed Ethernet header; multi-byte fields in host order. */
struct dt_net_eth {
	struct dt_net_eth_addr dst;
	struct dt_net_eth_addr src;
	uint16_t type;		/**< EtherType after the tag, if any */
	uint16_t vlan_tci;	/**< tag control info; 0 when untagged */
	uint8_t hdr_len;	/**< 14, or 18 when tagged */
	bool vlan;		/**< one 802.1Q tag was present */
};

/**
 * Parse the Ethernet header at @p buf (@p len contiguous bytes).
 * A type below 0x0600 is an 802.3 length and is returned as is: callers
 * drop types they do not handle.
 * @return DT_NET_OK or DT_NET_E_TRUNC
 */
enum dt_net_status dt_net_eth_parse(const void *buf, size_t len,
	struct dt_net_eth *eth);

/**
 * Write @p eth (tagged when eth->vlan) into @p buf.
 * @return bytes written, 0 when @p cap is too small
 */
size_t dt_net_eth_build(void *buf, size_t cap, const struct dt_net_eth *eth);

/** True for the broadcast address. */
bool dt_net_eth_is_bcast(const struct dt_net_eth_addr *a);

/** True for group (multicast or broadcast) addresses. */
static inline bool
dt_net_eth_is_group(const struct dt_net_eth_addr *a)
{
	return (a->b[0] & 1) != 0;
}

#endif /* DT_NET_ETH_H */
