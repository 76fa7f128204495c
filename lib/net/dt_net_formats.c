/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net: status strings, Ethernet and ARP. IPv4, ICMP and TCP live in
 * their own files.
 */
#include <string.h>

#include "dt_net_arp.h"
#include "dt_net_bytes.h"
#include "dt_net_eth.h"
#include "dt_net_status.h"

static const char *const status_names[DT_NET_E__COUNT] = {
	[DT_NET_OK] = "ok",
	[DT_NET_E_TRUNC] = "truncated",
	[DT_NET_E_VERSION] = "ip_version",
	[DT_NET_E_IHL] = "ip_ihl",
	[DT_NET_E_TOTLEN] = "ip_total_length",
	[DT_NET_E_TTL] = "ip_ttl_zero",
	[DT_NET_E_CKSUM] = "bad_checksum",
	[DT_NET_E_FRAG] = "ip_fragment",
	[DT_NET_E_ADDR] = "ip_bad_source",
	[DT_NET_E_ARP_FMT] = "arp_format",
	[DT_NET_E_ARP_OP] = "arp_opcode",
	[DT_NET_E_ICMP_QUOTE] = "icmp_bad_quote",
	[DT_NET_E_TCP_DOFF] = "tcp_data_offset",
	[DT_NET_E_TCP_OPT] = "tcp_bad_option",
};

const char *
dt_net_status_str(enum dt_net_status st)
{
	if ((unsigned int)st >= DT_NET_E__COUNT)
		return "unknown";
	return status_names[st];
}

enum dt_net_status
dt_net_eth_parse(const void *buf, size_t len, struct dt_net_eth *eth)
{
	const uint8_t *p = buf;
	uint16_t type;

	if (len < DT_NET_ETH_HLEN)
		return DT_NET_E_TRUNC;
	memcpy(eth->dst.b, p, DT_NET_ETH_ALEN);
	memcpy(eth->src.b, p + 6, DT_NET_ETH_ALEN);
	type = dt_net_get_be16(p + 12);
	eth->vlan = false;
	eth->vlan_tci = 0;
	eth->hdr_len = DT_NET_ETH_HLEN;
	if (type == DT_NET_ETH_TYPE_VLAN) {
		if (len < DT_NET_ETH_VLAN_HLEN)
			return DT_NET_E_TRUNC;
		eth->vlan = true;
		eth->vlan_tci = dt_net_get_be16(p + 14);
		eth->hdr_len = DT_NET_ETH_VLAN_HLEN;
		type = dt_net_get_be16(p + 16);
	}
	eth->type = type;
	return DT_NET_OK;
}

size_t
dt_net_eth_build(void *buf, size_t cap, const struct dt_net_eth *eth)
{
	uint8_t *p = buf;
	size_t len = eth->vlan ? DT_NET_ETH_VLAN_HLEN : DT_NET_ETH_HLEN;

	if (cap < len)
		return 0;
	memcpy(p, eth->dst.b, DT_NET_ETH_ALEN);
	memcpy(p + 6, eth->src.b, DT_NET_ETH_ALEN);
	if (eth->vlan) {
		dt_net_put_be16(p + 12, DT_NET_ETH_TYPE_VLAN);
		dt_net_put_be16(p + 14, eth->vlan_tci);
	}
	dt_net_put_be16(p + len - 2, eth->type);
	return len;
}

bool
dt_net_eth_is_bcast(const struct dt_net_eth_addr *a)
{
	static const struct dt_net_eth_addr bcast = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

	return memcmp(a->b, bcast.b, DT_NET_ETH_ALEN) == 0;
}

/* ARP fixed part for Ethernet (htype 1, hlen 6) and IPv4 (ptype, plen 4). */
#define ARP_HTYPE_ETHER 1

enum dt_net_status
dt_net_arp_parse(const void *buf, size_t len, struct dt_net_arp *arp)
{
	const uint8_t *p = buf;

	if (len < DT_NET_ARP_LEN)
		return DT_NET_E_TRUNC;
	if (dt_net_get_be16(p) != ARP_HTYPE_ETHER ||
			dt_net_get_be16(p + 2) != DT_NET_ETH_TYPE_IPV4 ||
			p[4] != DT_NET_ETH_ALEN || p[5] != 4)
		return DT_NET_E_ARP_FMT;
	arp->op = dt_net_get_be16(p + 6);
	if (arp->op != DT_NET_ARP_OP_REQUEST && arp->op != DT_NET_ARP_OP_REPLY)
		return DT_NET_E_ARP_OP;
	memcpy(arp->sha.b, p + 8, DT_NET_ETH_ALEN);
	arp->spa = dt_net_get_be32(p + 14);
	memcpy(arp->tha.b, p + 18, DT_NET_ETH_ALEN);
	arp->tpa = dt_net_get_be32(p + 24);
	return DT_NET_OK;
}

size_t
dt_net_arp_build(void *buf, size_t cap, const struct dt_net_arp *arp)
{
	uint8_t *p = buf;

	if (cap < DT_NET_ARP_LEN)
		return 0;
	dt_net_put_be16(p, ARP_HTYPE_ETHER);
	dt_net_put_be16(p + 2, DT_NET_ETH_TYPE_IPV4);
	p[4] = DT_NET_ETH_ALEN;
	p[5] = 4;
	dt_net_put_be16(p + 6, arp->op);
	memcpy(p + 8, arp->sha.b, DT_NET_ETH_ALEN);
	dt_net_put_be32(p + 14, arp->spa);
	memcpy(p + 18, arp->tha.b, DT_NET_ETH_ALEN);
	dt_net_put_be32(p + 24, arp->tpa);
	return DT_NET_ARP_LEN;
}

void
dt_net_arp_make_reply(const struct dt_net_arp *req,
	const struct dt_net_eth_addr *mac, struct dt_net_arp *rep)
{
	struct dt_net_arp r;

	/* Through a local copy so that @p rep may alias @p req. */
	r.op = DT_NET_ARP_OP_REPLY;
	r.sha = *mac;
	r.spa = req->tpa;
	r.tha = req->sha;
	r.tpa = req->spa;
	*rep = r;
}
