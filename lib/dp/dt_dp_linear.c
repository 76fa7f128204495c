/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports without multi-segment TX (DPDK's af_xdp, some virtual PMDs): a
 * frame must leave as one buffer. The stack writes the payload into the
 * header buffer (dt_dp_txcopy.c: host bytes by the CPU, device bytes by the
 * region's copy engine, never the CPU: zero touch) and keeps the MSS within
 * that buffer. A stack that only receives (ACKs carry no payload) loses
 * nothing. Other single-buffer frames (ARP, a chain built elsewhere) are
 * linearized here.
 */
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_dp_log.h"
#include "dt_dp_priv.h"
#include "dt_net_eth.h"
#include "dt_net_ipv4.h"
#include "dt_net_tcp.h"

void
dt_dp_linear_init(struct dt_dp_stack *st, const struct rte_eth_dev_info *info)
{
	uint32_t room = rte_pktmbuf_data_room_size(st->conf.hdr_pool) -
		RTE_PKTMBUF_HEADROOM;

	/*
	 * Headers at their longest (TCP options included) and the payload;
	 * also what a port whose PMD keeps sent mbufs needs (tx_held).
	 */
	st->linear_mss = room > DT_NET_ETH_HLEN + DT_NET_IPV4_HLEN_MIN +
		DT_NET_TCP_HLEN_MAX ? room - DT_NET_ETH_HLEN - DT_NET_IPV4_HLEN_MIN -
		DT_NET_TCP_HLEN_MAX : 0;
	st->tx_linear = !(info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	if (!st->tx_linear)
		return;
	DT_DP_LOG(INFO, "port %u (%s): no multi-segment TX: frames leave as one buffer (payload written into the header buffer: host bytes by the CPU, device bytes by the copy engine; MSS at most %u)",
		st->conf.port_id, info->driver_name, st->linear_mss);
}

int
dt_dp_linear_frame(struct dt_dp_stack *st, struct rte_mbuf *m)
{
	(void)st;
	return rte_pktmbuf_linearize(m);
}
