/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capability profiles (see hsplit_caps.h). The mlx5 and ice values are the
 * ones DPDK 22.11's drivers report (README.md cites where); offloads the
 * software NIC does not implement (VLAN strip/filter, timestamps, KEEP_CRC)
 * are left out rather than reported and ignored.
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf_ptype.h>

#include "hsplit_caps.h"
#include "hsplit_split.h"

#define HSPLIT_CKSUM_OFFLOADS (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | \
	RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM)

/* The software NIC's own list (cumulative masks a proto segment may end at). */
static const uint32_t full_split_ptypes[] = {
	RTE_PTYPE_L2_ETHER,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_TCP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_UDP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN | RTE_PTYPE_L4_TCP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN | RTE_PTYPE_L4_UDP,
	RTE_PTYPE_UNKNOWN
};

/*
 * ice_buffer_split_supported_hdr_ptypes_get's non-tunnelled entries, SCTP
 * included (SCTP frames then never match: the parser knows no SCTP header).
 * The tunnelled (GRENAT, inner) entries are left out: the software NIC
 * parses no tunnels, so it could not split after them.
 */
static const uint32_t ice_split_ptypes[] = {
	RTE_PTYPE_L2_ETHER,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_UDP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_TCP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_SCTP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN | RTE_PTYPE_L4_UDP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN | RTE_PTYPE_L4_TCP,
	RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN | RTE_PTYPE_L4_SCTP,
	RTE_PTYPE_UNKNOWN
};

static const struct hsplit_caps hsplit_caps_tab[] = {
	[HSPLIT_CAPS_FULL] = {
		.name = "full",
		.max_nseg = HSPLIT_FULL_NSEG,
		.multi_pools = 1,
		.offset_allowed = 1,
		.len_split = 1,
		.rx_offload_capa = HSPLIT_CKSUM_OFFLOADS |
			RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER |
			RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT,
		.rx_queue_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER |
			RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT,
		.split_ptypes = full_split_ptypes,
	},
	/*
	 * mlx5_dev_infos_get: max_nseg MLX5_MAX_RXQ_NSEG (32), multi_pools
	 * and offset_allowed = !mprq, align 0; mlx5_get_rx_queue_offloads:
	 * SCATTER, RSS_HASH, checksums and BUFFER_SPLIT (no MPRQ) are all
	 * queue-level.
	 */
	[HSPLIT_CAPS_MLX5] = {
		.name = "mlx5",
		.max_nseg = HSPLIT_MAX_NSEG,
		.multi_pools = 1,
		.offset_allowed = 1,
		.len_split = 1,
		.len_exact = 1,
		.rx_offload_capa = HSPLIT_CKSUM_OFFLOADS |
			RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER |
			RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT,
		.rx_queue_offload_capa = HSPLIT_CKSUM_OFFLOADS |
			RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER |
			RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT,
		.split_ptypes = NULL,
	},
	/*
	 * ice_dev_info_get: BUFFER_SPLIT in port and queue capabilities,
	 * rx_seg_capa {ICE_RX_MAX_NSEG = 2, multi_pools 1, offset_allowed 0}.
	 */
	[HSPLIT_CAPS_ICE] = {
		.name = "ice",
		.max_nseg = 2,
		.multi_pools = 1,
		.offset_allowed = 0,
		.len_split = 0,
		.rx_offload_capa = HSPLIT_CKSUM_OFFLOADS |
			RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER |
			RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT,
		.rx_queue_offload_capa = RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT,
		.split_ptypes = ice_split_ptypes,
	},
};

const struct hsplit_caps *
hsplit_caps_get(unsigned int prof)
{
	if (prof >= RTE_DIM(hsplit_caps_tab))
		prof = HSPLIT_CAPS_FULL;
	return &hsplit_caps_tab[prof];
}

int
hsplit_caps_parse(const char *val)
{
	unsigned int i;

	if (val == NULL)
		return -1;
	for (i = 0; i < RTE_DIM(hsplit_caps_tab); i++)
		if (strcmp(val, hsplit_caps_tab[i].name) == 0)
			return (int)i;
	return -1;
}
