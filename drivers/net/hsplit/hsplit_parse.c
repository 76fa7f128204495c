/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_mbuf_ptype.h>

#include "hsplit_parse.h"

#define ETH_HLEN 14
#define VLAN_HLEN 4
#define ETYPE_IPV4 0x0800
#define ETYPE_IPV6 0x86dd
#define ETYPE_ARP 0x0806
#define ETYPE_VLAN 0x8100
#define ETYPE_QINQ 0x88a8
#define IPV6_HLEN 40
#define PROTO_ICMP 1
#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_ICMPV6 58

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* L4 after an IP header: @p p points at it, @p avail bytes of L4 exist. */
static uint32_t
parse_l4(const uint8_t *p, uint32_t avail, struct hsplit_pkt_info *pi)
{
	uint32_t hl;

	switch (pi->ip_proto) {
	case PROTO_TCP:
		if (avail < 20)
			return 0;
		hl = (uint32_t)(p[12] >> 4) * 4;
		if (hl < 20 || hl > avail)
			return 0;
		break;
	case PROTO_UDP:
		if (avail < 8)
			return 0;
		hl = 8;
		break;
	case PROTO_ICMP:
	case PROTO_ICMPV6:
		/* ICMP has no ports; its "header" is the 4-byte type/code/sum. */
		return avail >= 4 ? RTE_PTYPE_L4_ICMP : 0;
	default:
		return RTE_PTYPE_L4_NONFRAG;
	}
	memcpy(&pi->src_port, p, 2);
	memcpy(&pi->dst_port, p + 2, 2);
	pi->l4_len = (uint16_t)hl;
	return pi->ip_proto == PROTO_TCP ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP;
}

static uint32_t
parse_ipv4(const uint8_t *p, uint32_t avail, struct hsplit_pkt_info *pi)
{
	uint32_t ihl, tot, l4;
	uint16_t frag;

	if (avail < 20 || (p[0] >> 4) != 4)
		return 0;
	ihl = (uint32_t)(p[0] & 0xf) * 4;
	tot = rd16(p + 2);
	if (ihl < 20 || tot < ihl || tot > avail)
		return 0;
	pi->l3_len = (uint16_t)ihl;
	pi->ip_len = (uint16_t)tot;
	pi->ip_proto = p[9];
	memcpy(&pi->src_ip, p + 12, 4);
	memcpy(&pi->dst_ip, p + 16, 4);
	frag = rd16(p + 6);
	/* MF set or a non-zero offset: a fragment. */
	if (frag & 0x3fff) {
		pi->is_fragment = 1;
		l4 = RTE_PTYPE_L4_FRAG;
	} else {
		l4 = parse_l4(p + ihl, tot - ihl, pi);
	}
	return (ihl == 20 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV4_EXT) | l4;
}

static uint32_t
parse_ipv6(const uint8_t *p, uint32_t avail, struct hsplit_pkt_info *pi)
{
	uint32_t plen;

	if (avail < IPV6_HLEN || (p[0] >> 4) != 6)
		return 0;
	plen = rd16(p + 4);
	if (IPV6_HLEN + plen > avail)
		return 0;
	pi->l3_len = IPV6_HLEN;
	pi->ip_len = (uint16_t)(IPV6_HLEN + plen);
	pi->ip_proto = p[6];
	memcpy(pi->src_ip6, p + 8, 16);
	memcpy(pi->dst_ip6, p + 24, 16);
	switch (pi->ip_proto) {
	case PROTO_TCP:
	case PROTO_UDP:
	case PROTO_ICMPV6:
		return RTE_PTYPE_L3_IPV6 | parse_l4(p + IPV6_HLEN, plen, pi);
	case 44: /* fragment header */
		pi->is_fragment = 1;
		return RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_FRAG;
	case 0: case 43: case 60: case 51: case 50: case 135:
		/* Extension headers: not walked, so no L4 either. */
		return RTE_PTYPE_L3_IPV6_EXT;
	default:
		return RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_NONFRAG;
	}
}

void
hsplit_parse(const uint8_t *frame, uint32_t len, struct hsplit_pkt_info *pi)
{
	uint32_t off = ETH_HLEN, l2 = RTE_PTYPE_L2_ETHER, l3 = 0;
	uint16_t et;

	memset(pi, 0, sizeof(*pi));
	if (len < ETH_HLEN)
		return;
	memcpy(pi->dst_mac, frame, 6);
	memcpy(pi->src_mac, frame + 6, 6);
	et = rd16(frame + 12);
	while ((et == ETYPE_VLAN || et == ETYPE_QINQ) && pi->vlan_tags < 2) {
		if (len < off + VLAN_HLEN)
			return;
		et = rd16(frame + off + 2);
		off += VLAN_HLEN;
		pi->vlan_tags++;
	}
	if (pi->vlan_tags)
		l2 = pi->vlan_tags == 1 ? RTE_PTYPE_L2_ETHER_VLAN :
			RTE_PTYPE_L2_ETHER_QINQ;
	pi->l2_len = (uint16_t)off;
	pi->ether_type = et;
	if (et == ETYPE_IPV4)
		l3 = parse_ipv4(frame + off, len - off, pi);
	else if (et == ETYPE_IPV6)
		l3 = parse_ipv6(frame + off, len - off, pi);
	else if (et == ETYPE_ARP && pi->vlan_tags == 0)
		l2 = RTE_PTYPE_L2_ETHER_ARP;
	if (l3 == 0) {
		/* Not IP, or a malformed/truncated IP header: L2 only. */
		pi->l3_len = 0;
		pi->l4_len = 0;
		pi->ip_len = 0;
		pi->ip_proto = 0;
		pi->is_fragment = 0;
		pi->src_ip = 0;
		pi->dst_ip = 0;
		pi->src_port = 0;
		pi->dst_port = 0;
	}
	pi->ptype = l2 | l3;
}
