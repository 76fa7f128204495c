/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_mbuf_core.h>
#include <rte_mbuf_ptype.h>

#include "dt_net_cksum.h"
#include "hsplit_offload.h"

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Pseudo-header sum for the IP header at @p ip; *l4_len gets the L4 length. */
static int
pseudo_sum(const uint8_t *ip, uint32_t avail, uint16_t l3_len, uint8_t proto,
	uint32_t *sum, uint32_t *l4_len)
{
	uint32_t tot;

	if (avail < 1)
		return -1;
	if ((ip[0] >> 4) == 4) {
		if (avail < 20)
			return -1;
		tot = rd16(ip + 2);
		if (tot < l3_len || tot > avail)
			return -1;
		*l4_len = tot - l3_len;
		*sum = dt_net_ipv4_pseudo_sum(rd32(ip + 12), rd32(ip + 16),
			proto, (uint16_t)*l4_len);
		return 0;
	}
	if ((ip[0] >> 4) == 6) {
		if (avail < 40)
			return -1;
		tot = 40u + rd16(ip + 4);
		if (tot < l3_len || tot > avail)
			return -1;
		*l4_len = tot - l3_len;
		*sum = dt_net_ipv6_pseudo_sum(ip + 8, ip + 24, proto, *l4_len);
		return 0;
	}
	return -1;
}

unsigned int
hsplit_tx_cksum(uint8_t *frame, uint32_t len, uint64_t ol_flags,
	uint16_t l2_len, uint16_t l3_len, const struct hsplit_pkt_info *pi)
{
	uint64_t l4 = ol_flags & RTE_MBUF_F_TX_L4_MASK;
	unsigned int done = 0;
	uint32_t sum, l4_len, off;
	uint8_t *ip;
	uint8_t proto;
	uint16_t ck;

	if (!(ol_flags & RTE_MBUF_F_TX_IP_CKSUM) &&
			l4 != RTE_MBUF_F_TX_TCP_CKSUM && l4 != RTE_MBUF_F_TX_UDP_CKSUM)
		return 0;
	if (l2_len == 0 || l3_len == 0) {
		l2_len = pi->l2_len;
		l3_len = pi->l3_len;
	}
	if (l2_len == 0 || l3_len == 0 || (uint32_t)l2_len + l3_len > len)
		return 0;
	ip = frame + l2_len;
	if ((ol_flags & RTE_MBUF_F_TX_IP_CKSUM) && (ip[0] >> 4) == 4 &&
			l3_len >= 20) {
		wr16(ip + 10, dt_net_ipv4_hdr_cksum(ip, l3_len));
		done |= HSPLIT_CK_IP;
	}
	if (l4 != RTE_MBUF_F_TX_TCP_CKSUM && l4 != RTE_MBUF_F_TX_UDP_CKSUM)
		return done;
	proto = l4 == RTE_MBUF_F_TX_TCP_CKSUM ? DT_NET_IPPROTO_TCP :
		DT_NET_IPPROTO_UDP;
	if (pseudo_sum(ip, len - l2_len, l3_len, proto, &sum, &l4_len) < 0)
		return done;
	off = proto == DT_NET_IPPROTO_TCP ? 16 : 6;
	if (l4_len < off + 2)
		return done;
	ck = dt_net_l4_cksum(sum, ip + l3_len, l4_len, off);
	if (proto == DT_NET_IPPROTO_UDP)
		ck = dt_net_udp_cksum_fix(ck);
	wr16(ip + l3_len + off, ck);
	return done | HSPLIT_CK_L4;
}

uint64_t
hsplit_rx_cksum(const uint8_t *frame, uint32_t len,
	const struct hsplit_pkt_info *pi, int want_ip, int want_l4,
	unsigned int known_good)
{
	const uint8_t *ip = frame + pi->l2_len;
	uint32_t l4t = pi->ptype & RTE_PTYPE_L4_MASK;
	uint64_t fl = 0;
	uint32_t sum, l4_len;

	if (pi->l3_len == 0)
		return 0;
	if (want_ip && RTE_ETH_IS_IPV4_HDR(pi->ptype)) {
		if ((known_good & HSPLIT_CK_IP) ||
				dt_net_ipv4_hdr_cksum_ok(ip, pi->l3_len))
			fl |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		else
			fl |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	}
	if (!want_l4 || pi->is_fragment || pi->l4_len == 0 ||
			(l4t != RTE_PTYPE_L4_TCP && l4t != RTE_PTYPE_L4_UDP))
		return fl;
	if (known_good & HSPLIT_CK_L4)
		return fl | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	/* IPv4 UDP may go without a checksum. */
	if (l4t == RTE_PTYPE_L4_UDP && RTE_ETH_IS_IPV4_HDR(pi->ptype) &&
			rd16(ip + pi->l3_len + 6) == 0)
		return fl | RTE_MBUF_F_RX_L4_CKSUM_NONE;
	if (pseudo_sum(ip, len - pi->l2_len, pi->l3_len, pi->ip_proto, &sum,
			&l4_len) < 0)
		return fl | RTE_MBUF_F_RX_L4_CKSUM_BAD;
	if (dt_net_l4_cksum_ok(sum, ip + pi->l3_len, l4_len))
		return fl | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	return fl | RTE_MBUF_F_RX_L4_CKSUM_BAD;
}
