/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 header validation and construction. */
#include "dt_net_bytes.h"
#include "dt_net_cksum.h"
#include "dt_net_ipv4.h"

#define IPV4_FLAG_DF 0x4000
#define IPV4_FLAG_MF 0x2000
#define IPV4_FRAG_MASK 0x1fff

/* Multicast (224/4) and limited broadcast are never valid sources. */
static bool
ipv4_bad_source(uint32_t a)
{
	return (a >> 28) == 0xe || a == 0xffffffffu;
}

enum dt_net_status
dt_net_ipv4_parse(const void *buf, size_t hdr_avail, size_t pkt_len,
	unsigned int flags, struct dt_net_ipv4 *ip)
{
	const uint8_t *p = buf;
	uint16_t frag;

	if (hdr_avail < DT_NET_IPV4_HLEN_MIN || pkt_len < DT_NET_IPV4_HLEN_MIN)
		return DT_NET_E_TRUNC;
	if ((p[0] >> 4) != 4)
		return DT_NET_E_VERSION;
	ip->hdr_len = (uint8_t)((p[0] & 0xf) * 4);
	if (ip->hdr_len < DT_NET_IPV4_HLEN_MIN)
		return DT_NET_E_IHL;
	if (hdr_avail < ip->hdr_len)
		return DT_NET_E_TRUNC;
	ip->tos = p[1];
	ip->total_len = dt_net_get_be16(p + 2);
	if (ip->total_len < ip->hdr_len || ip->total_len > pkt_len)
		return DT_NET_E_TOTLEN;
	if (!(flags & DT_NET_IPV4_F_CKSUM_VERIFIED) &&
			!dt_net_ipv4_hdr_cksum_ok(p, ip->hdr_len))
		return DT_NET_E_CKSUM;
	ip->id = dt_net_get_be16(p + 4);
	frag = dt_net_get_be16(p + 6);
	ip->df = (frag & IPV4_FLAG_DF) != 0;
	ip->mf = (frag & IPV4_FLAG_MF) != 0;
	ip->frag_off = (uint16_t)((frag & IPV4_FRAG_MASK) * 8);
	ip->ttl = p[8];
	ip->proto = p[9];
	ip->cksum = dt_net_get_be16(p + 10);
	ip->src = dt_net_get_be32(p + 12);
	ip->dst = dt_net_get_be32(p + 16);
	if (ip->ttl == 0)
		return DT_NET_E_TTL;
	if (ipv4_bad_source(ip->src))
		return DT_NET_E_ADDR;
	if (dt_net_ipv4_is_fragment(ip))
		return DT_NET_E_FRAG;
	return DT_NET_OK;
}

size_t
dt_net_ipv4_build(void *buf, size_t cap, const struct dt_net_ipv4 *ip,
	unsigned int flags)
{
	uint8_t *p = buf;
	uint16_t frag = (uint16_t)((ip->frag_off / 8) & IPV4_FRAG_MASK);

	if (cap < DT_NET_IPV4_HLEN_MIN)
		return 0;
	if (ip->df)
		frag |= IPV4_FLAG_DF;
	if (ip->mf)
		frag |= IPV4_FLAG_MF;
	p[0] = 0x45;
	p[1] = ip->tos;
	dt_net_put_be16(p + 2, ip->total_len);
	dt_net_put_be16(p + 4, ip->id);
	dt_net_put_be16(p + 6, frag);
	p[8] = ip->ttl;
	p[9] = ip->proto;
	dt_net_put_be16(p + 10, 0);
	dt_net_put_be32(p + 12, ip->src);
	dt_net_put_be32(p + 16, ip->dst);
	if (!(flags & DT_NET_IPV4_F_CKSUM_OFFLOAD))
		dt_net_put_be16(p + 10,
			dt_net_ipv4_hdr_cksum(p, DT_NET_IPV4_HLEN_MIN));
	return DT_NET_IPV4_HLEN_MIN;
}
