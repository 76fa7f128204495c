/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf_ptype.h>
#include <rte_thash.h>

#include "hsplit_rss.h"

const uint8_t hsplit_rss_default_key[HSPLIT_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static inline uint32_t
ports_word(const struct hsplit_pkt_info *pi)
{
	return (uint32_t)rte_be_to_cpu_16(pi->src_port) << 16 |
		rte_be_to_cpu_16(pi->dst_port);
}

/* Which tuple rss_hf asks for: 2 (addresses), 4 (with ports) or 0 (none). */
static int
tuple_kind(const struct hsplit_pkt_info *pi, uint64_t rss_hf, int v6)
{
	uint32_t l4 = pi->ptype & RTE_PTYPE_L4_MASK;
	uint64_t tcp = v6 ? RTE_ETH_RSS_NONFRAG_IPV6_TCP : RTE_ETH_RSS_NONFRAG_IPV4_TCP;
	uint64_t udp = v6 ? RTE_ETH_RSS_NONFRAG_IPV6_UDP : RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	uint64_t frag = v6 ? RTE_ETH_RSS_FRAG_IPV6 : RTE_ETH_RSS_FRAG_IPV4;
	uint64_t ip = v6 ? RTE_ETH_RSS_IPV6 : RTE_ETH_RSS_IPV4;
	uint64_t other = v6 ? RTE_ETH_RSS_NONFRAG_IPV6_OTHER : RTE_ETH_RSS_NONFRAG_IPV4_OTHER;

	if (pi->is_fragment)
		return (rss_hf & (frag | ip)) ? 2 : 0;
	if (l4 == RTE_PTYPE_L4_TCP && pi->l4_len && (rss_hf & tcp))
		return 4;
	if (l4 == RTE_PTYPE_L4_UDP && pi->l4_len && (rss_hf & udp))
		return 4;
	return (rss_hf & (ip | other)) ? 2 : 0;
}

int
hsplit_rss_hash(const struct hsplit_pkt_info *pi, uint64_t rss_hf,
	const uint8_t key[HSPLIT_RSS_KEY_LEN], uint32_t *hash)
{
	uint32_t t[9];
	uint32_t i, n;
	int kind;

	if (pi->l3_len == 0)
		return 0;
	if (RTE_ETH_IS_IPV4_HDR(pi->ptype)) {
		kind = tuple_kind(pi, rss_hf, 0);
		if (kind == 0)
			return 0;
		t[0] = rte_be_to_cpu_32(pi->src_ip);
		t[1] = rte_be_to_cpu_32(pi->dst_ip);
		n = 2;
	} else if (RTE_ETH_IS_IPV6_HDR(pi->ptype)) {
		kind = tuple_kind(pi, rss_hf, 1);
		if (kind == 0)
			return 0;
		for (i = 0; i < 4; i++) {
			uint32_t a, b;

			memcpy(&a, pi->src_ip6 + 4 * i, 4);
			memcpy(&b, pi->dst_ip6 + 4 * i, 4);
			t[i] = rte_be_to_cpu_32(a);
			t[4 + i] = rte_be_to_cpu_32(b);
		}
		n = 8;
	} else {
		return 0;
	}
	if (kind == 4)
		t[n++] = ports_word(pi);
	*hash = rte_softrss(t, n, key);
	return 1;
}

void
hsplit_rss_reta_default(uint16_t reta[HSPLIT_RETA_SIZE], uint16_t nb_queues)
{
	uint32_t i;

	for (i = 0; i < HSPLIT_RETA_SIZE; i++)
		reta[i] = nb_queues ? (uint16_t)(i % nb_queues) : 0;
}
