/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP segmentation offload: how much one send burst may carry on the
 * port (decided once per stack), and marking a burst for the NIC.
 *
 * What DPDK 22.11's PMDs report and check (the stack keeps within all):
 *  - mlx5 (mlx5_set_txlimit_params): tx_desc_lim.nb_seg_max =
 *    nb_mtu_seg_max = (MLX5_WQE_SIZE_MAX 960 + MLX5_ESEG_MIN_INLINE_SIZE
 *    18 - CSEG 16 - ESEG 16 - DSEG 16 - inline bytes) / 16: 40 buffers with
 *    the default inline length (MLX5_SEND_DEF_INLINE_LEN 290), 58 with
 *    txq_inline_max=0 (what device-memory payload needs anyway). The TSO
 *    size limit is the HCA's max_lso_cap, checked by the PMD and not
 *    reported in dev_info.
 *  - ice (ice_dev_info_get, ice_prep_pkts): nb_seg_max ICE_MAX_RING_DESC
 *    (4096), nb_mtu_seg_max ICE_TX_MTU_SEG_MAX (8) for a frame that is not
 *    segmented; TSO needs tso_segsz in 64..9728 (ICE_MIN/MAX_TSO_MSS) and
 *    pkt_len <= 262144 (ICE_MAX_TSO_FRAME_SIZE). The hardware also wants
 *    every MSS worth of a burst within 8 buffers.
 *  - dev_info has no TSO size field in 22.11: a burst stays within one IP
 *    datagram's 64 KiB (Linux's GSO limit without BIG TCP), which all of
 *    them take.
 * A burst is a header mbuf plus at most DT_TCP_TX_MAX_EXT (7) payload
 * shells: 8 buffers, within mlx5's 40, and no MSS of it can span more
 * than ice's 8.
 */
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_dp_log.h"
#include "dt_dp_priv.h"
#include "dt_net_eth.h"
#include "dt_net_ipv4.h"
#include "dt_net_tcp.h"

/* A burst's IP datagram: total length is a 16-bit field. */
#define DT_DP_TSO_DGRAM_MAX 65535u

void
dt_dp_tso_init(struct dt_dp_stack *st, const struct rte_eth_dev_info *info,
	const struct rte_eth_conf *conf)
{
	uint32_t max = DT_DP_TSO_DGRAM_MAX - DT_NET_IPV4_HLEN_MIN -
		DT_NET_TCP_HLEN_MAX;

	st->tso_max = 0;
	if (!(conf->txmode.offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO))
		return;
	/* The NIC sums each segment: TSO without checksum offload is none. */
	if (!st->conf.tx_cksum_offload) {
		DT_DP_LOG(INFO, "port %u: TSO on, checksum offload off in the stack: one MSS per frame",
			st->conf.port_id);
		return;
	}
	if (info->tx_desc_lim.nb_seg_max < DT_TCP_TX_MAX_EXT + 1) {
		DT_DP_LOG(INFO, "port %u (%s): TSO chains of %u buffers exceed the NIC's %u: one MSS per frame",
			st->conf.port_id, info->driver_name, DT_TCP_TX_MAX_EXT + 1,
			info->tx_desc_lim.nb_seg_max);
		return;
	}
	st->tso_max = max;
}

void
dt_dp_tso_mark(struct dt_dp_stack *st, struct rte_mbuf *m, uint16_t l4_len,
	uint32_t payload, uint16_t mss)
{
	m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 |
		RTE_MBUF_F_TX_IP_CKSUM;
	m->l2_len = DT_NET_ETH_HLEN;
	m->l3_len = DT_NET_IPV4_HLEN_MIN;
	m->l4_len = l4_len;
	m->tso_segsz = mss;
	st->st.tx_tso_bursts++;
	st->st.tx_tso_segs += (payload + mss - 1) / mss;
}
