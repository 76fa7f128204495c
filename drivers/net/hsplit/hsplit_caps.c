/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capability profiles (see hsplit_caps.h). The mlx5 and ice values are the
 * ones DPDK 22.11's drivers report (README.md cites where); offloads the
 * software NIC does not implement (VLAN strip/filter, timestamps, KEEP_CRC)
 * are left out rather than reported and ignored. TSO: hsplit_tso.c.
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

/* The software NIC's own TX limits: it gathers any chain. */
#define HSPLIT_FULL_TSO \
		.tso = 1, \
		.tx_nb_seg_max = UINT16_MAX, \
		.tx_nb_mtu_seg_max = UINT16_MAX, \
		.tso_mss_min = 64, \
		.tso_mss_max = 9728, \
		.tso_max_len = 262144

#define HSPLIT_FULL_RX \
		.max_nseg = HSPLIT_FULL_NSEG, \
		.multi_pools = 1, \
		.offset_allowed = 1, \
		.len_split = 1, \
		.rx_offload_capa = HSPLIT_CKSUM_OFFLOADS | \
			RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER | \
			RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT, \
		.rx_queue_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER | \
			RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT, \
		.split_ptypes = full_split_ptypes

static const struct hsplit_caps hsplit_caps_tab[] = {
	[HSPLIT_CAPS_FULL] = {
		.name = "full",
		HSPLIT_FULL_RX,
		HSPLIT_FULL_TSO,
	},
	[HSPLIT_CAPS_NOTSO] = {
		.name = "notso",
		HSPLIT_FULL_RX,
		.tx_nb_seg_max = UINT16_MAX,
		.tx_nb_mtu_seg_max = UINT16_MAX,
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
		/*
		 * mlx5_set_txlimit_params: nb_seg_max = nb_mtu_seg_max =
		 * (MLX5_WQE_SIZE_MAX 960 + 18 - 16 - 16 - 16 - inline bytes)
		 * / 16 = 40 with the default inline length 290 (58 with
		 * txq_inline_max=0). No MSS range is checked; the TSO size is
		 * the HCA's max_lso_cap, not in dev_info: modelled as 256 KiB.
		 */
		.tso = 1,
		.tx_nb_seg_max = 40,
		.tx_nb_mtu_seg_max = 40,
		.tso_mss_min = 1,
		.tso_mss_max = UINT16_MAX,
		.tso_max_len = 262144,
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
		/*
		 * ice_dev_info_get: tx_desc_lim nb_seg_max ICE_MAX_RING_DESC
		 * (4096), nb_mtu_seg_max ICE_TX_MTU_SEG_MAX (8); ice_prep_pkts:
		 * tso_segsz ICE_MIN_TSO_MSS 64 .. ICE_MAX_TSO_MSS 9728, pkt_len
		 * <= ICE_MAX_TSO_FRAME_SIZE 262144.
		 */
		.tso = 1,
		.tx_nb_seg_max = 4096,
		.tx_nb_mtu_seg_max = 8,
		.tso_mss_min = 64,
		.tso_mss_max = 9728,
		.tso_max_len = 262144,
	},
	/*
	 * A NIC without buffer split (i40e, ixgbe and most NICs in the
	 * field): i40e_dev_info_get offers checksums, RSS, scatter and TSO
	 * (rte_flow through its flow ops), no BUFFER_SPLIT, rx_seg_capa all
	 * zero; i40e_rxtx.h: I40E_TX_MAX_SEG UINT8_MAX, I40E_TX_MAX_MTU_SEG
	 * 8, TSO MSS I40E_MIN_TSO_MSS 256 .. I40E_MAX_TSO_MSS 9674, frames
	 * of at most I40E_TSO_FRAME_SIZE_MAX 262144 (i40e_prep_pkts). lib/dp
	 * runs such a port in copy mode.
	 */
	[HSPLIT_CAPS_NOSPLIT] = {
		.name = "nosplit",
		.rx_offload_capa = HSPLIT_CKSUM_OFFLOADS |
			RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER,
		.split_ptypes = NULL,
		.tso = 1,
		.tx_nb_seg_max = UINT8_MAX,
		.tx_nb_mtu_seg_max = 8,
		.tso_mss_min = 256,
		.tso_mss_max = 9674,
		.tso_max_len = 262144,
	},
	/*
	 * A NIC without rte_flow: DPDK 22.11's ena (AWS; drivers/net/ena/
	 * ena_ethdev.c) has no flow_ops_get, so every rte_flow call fails
	 * with ENOSYS. ena_infos_get offers the checksums, RSS_HASH,
	 * SCATTER, TSO and multi-segment TX, no BUFFER_SPLIT, a 128-entry
	 * RETA (the software NIC keeps its own table size) and at most
	 * ENA_PKT_MAX_BUFS (17) buffers per frame; no MSS range is checked.
	 * lib/dp runs it in copy mode with RSS-only steering.
	 */
	[HSPLIT_CAPS_NOFLOW] = {
		.name = "noflow",
		.rx_offload_capa = HSPLIT_CKSUM_OFFLOADS |
			RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER,
		.split_ptypes = NULL,
		.tso = 1,
		.tx_nb_seg_max = 17,
		.tx_nb_mtu_seg_max = 17,
		.tso_mss_min = 1,
		.tso_mss_max = UINT16_MAX,
		.tso_max_len = 262144,
		.no_flow = 1,
	},
	/*
	 * af_xdp (eth_dev_info in rte_eth_af_xdp.c): no RX or TX offloads,
	 * no RSS with one queue, frames of one buffer (its TX copies each
	 * mbuf into one umem frame). lib/dp writes payload into the frame.
	 */
	[HSPLIT_CAPS_LINEAR] = {
		.name = "linear",
		.split_ptypes = NULL,
		.tx_linear = 1,
		.tx_nb_seg_max = 1,
		.tx_nb_mtu_seg_max = 1,
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
