/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ARP (RFC 826) for Ethernet and IPv4 only.
 */
#ifndef DT_NET_ARP_H
#define DT_NET_ARP_H

#include <stddef.h>
#include <stdint.h>

#include "dt_net_eth.h"
#include "dt_net_status.h"

#define DT_NET_ARP_LEN 28		/**< Ethernet/IPv4 ARP body bytes */
#define DT_NET_ARP_OP_REQUEST 1
#define DT_NET_ARP_OP_REPLY 2

/** Parsed ARP body; addresses in host order. */
struct dt_net_arp {
	uint16_t op;
	struct dt_net_eth_addr sha;	/**< sender hardware address */
	uint32_t spa;			/**< sender protocol address */
	struct dt_net_eth_addr tha;	/**< target hardware address */
	uint32_t tpa;			/**< target protocol address */
};

/**
 * Parse an ARP body (after the Ethernet header).
 * @return DT_NET_OK, DT_NET_E_TRUNC, DT_NET_E_ARP_FMT (not Ethernet/IPv4)
 *	or DT_NET_E_ARP_OP
 */
enum dt_net_status dt_net_arp_parse(const void *buf, size_t len,
	struct dt_net_arp *arp);

/**
 * Write an Ethernet/IPv4 ARP body.
 * @return DT_NET_ARP_LEN, or 0 when @p cap is too small
 */
size_t dt_net_arp_build(void *buf, size_t cap, const struct dt_net_arp *arp);

/**
 * Fill @p rep with the reply to request @p req, answered by @p mac
 * (the owner of req->tpa).
 */
void dt_net_arp_make_reply(const struct dt_net_arp *req,
	const struct dt_net_eth_addr *mac, struct dt_net_arp *rep);

#endif /* DT_NET_ARP_H */
