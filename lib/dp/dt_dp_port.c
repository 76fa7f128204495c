/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port set-up with buffer split (see dt_dp_port.h). ethdev validates the
 * split configuration again; the checks here exist to refuse an unsuitable
 * NIC with a message naming the missing capability instead of ethdev's
 * generic -EINVAL.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_dp_log.h"
#include "dt_dp_mode.h"
#include "dt_dp_port.h"
#include "dt_dp_steer.h"

RTE_LOG_REGISTER(dt_dp_logtype, devtcp.dp, INFO);

#define DT_DP_DEFAULT_DESC 1024
#define DT_DP_MAX_PTYPES 64

static int __rte_format_printf(4, 5)
port_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", buf);
	DT_DP_LOG(ERR, "%s", buf);
	return rc;
}

bool
dt_dp_port_split_proto_supported(uint16_t port_id, uint32_t mask)
{
	uint32_t ptypes[DT_DP_MAX_PTYPES];
	int n, i;

	n = rte_eth_buffer_split_get_supported_hdr_ptypes(port_id, ptypes,
		DT_DP_MAX_PTYPES);
	for (i = 0; i < n && i < DT_DP_MAX_PTYPES; i++)
		if (ptypes[i] == mask)
			return true;
	return false;
}

/* Capabilities a split (device-memory) queue cannot do without. */
static int
check_split_caps(uint16_t port, const struct dt_dp_port_conf *c,
	const struct rte_eth_dev_info *info, uint32_t frame_len,
	char *err, size_t errlen)
{
	const char *drv = info->driver_name;

	if (!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT))
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s) has no RX buffer split: a device-memory queue needs it",
			port, drv);
	if (!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_CKSUM))
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s) has no RX TCP checksum offload: payload in device memory cannot be checksummed by the CPU",
			port, drv);
	if (info->rx_seg_capa.max_nseg < 2 || !info->rx_seg_capa.multi_pools)
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s) cannot split into two pools (max_nseg %u, multi_pools %u)",
			port, drv, info->rx_seg_capa.max_nseg,
			info->rx_seg_capa.multi_pools);
	if (c->split == DT_DP_SPLIT_PROTO &&
			!dt_dp_port_split_proto_supported(port, c->split_proto))
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s) cannot split after headers 0x%x (protocol split unsupported for them): use a length split (split_len %u, Eth+IPv4+TCP+timestamps)",
			port, drv, c->split_proto, DT_DP_SPLIT_LEN_FALLBACK);
	if (frame_len > rte_pktmbuf_data_room_size(c->pay_pool) &&
			!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s) has no RX scatter: frames of %u bytes exceed one payload buffer",
			port, drv, frame_len);
	return 0;
}

static int
setup_rxq(uint16_t port, uint16_t q, const struct dt_dp_port_conf *c,
	const struct rte_eth_dev_info *info, uint16_t nb_rxd, uint64_t offloads)
{
	struct rte_eth_rxconf rxconf = info->default_rxconf;
	union rte_eth_rxseg seg[2];
	int socket = rte_eth_dev_socket_id(port);

	rxconf.offloads = offloads;
	if (c->split == DT_DP_SPLIT_NONE)
		return rte_eth_rx_queue_setup(port, q, nb_rxd, socket, &rxconf,
			c->hdr_pool);
	if (c->host_queue && q == 0)
		return rte_eth_rx_queue_setup(port, q, nb_rxd, socket, &rxconf,
			c->host_pool != NULL ? c->host_pool : c->hdr_pool);
	/* Split per queue in steered mode: queue 0 must not split. */
	if (c->host_queue)
		rxconf.offloads |= RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;

	memset(seg, 0, sizeof(seg));
	seg[0].split.mp = c->hdr_pool;
	seg[1].split.mp = c->pay_pool;
	if (c->split == DT_DP_SPLIT_PROTO) {
		seg[0].split.proto_hdr = c->split_proto;
	} else {
		seg[0].split.length = c->split_len;
		seg[1].split.length = rte_pktmbuf_data_room_size(c->pay_pool);
	}
	rxconf.rx_seg = seg;
	rxconf.rx_nseg = 2;
	return rte_eth_rx_queue_setup(port, q, nb_rxd, socket, &rxconf, NULL);
}

/*
 * Steered mode: every RSS table entry points at queue 0, so that only the
 * rte_flow rules of the stacks reach the device-memory queues; then the
 * state the port's stacks share.
 */
static int
host_queue_steer(uint16_t port, uint16_t nb_rxq,
	const struct rte_eth_dev_info *info, char *err, size_t errlen)
{
	struct rte_eth_rss_reta_entry64 reta[RTE_ETH_RSS_RETA_SIZE_512 /
		RTE_ETH_RETA_GROUP_SIZE];
	uint16_t size = info->reta_size;
	int rc;

	if (size > RTE_ETH_RSS_RETA_SIZE_512)
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s): RSS table of %u entries unsupported", port,
			info->driver_name, size);
	memset(reta, 0, sizeof(reta));
	for (rc = 0; rc < (size + RTE_ETH_RETA_GROUP_SIZE - 1) /
			RTE_ETH_RETA_GROUP_SIZE; rc++)
		reta[rc].mask = UINT64_MAX;
	rc = rte_eth_dev_rss_reta_update(port, reta, size);
	if (rc != 0)
		return port_fail(err, errlen, rc,
			"port %u (%s): cannot point the RSS table at the host queue: %s",
			port, info->driver_name, rte_strerror(-rc));
	rc = dt_dp_port_sh_attach(port, nb_rxq, true);
	if (rc != 0)
		return port_fail(err, errlen, rc, "port %u: no memory", port);
	return 0;
}

/*
 * A protocol split the NIC cannot do (mlx5 has no protocol split at all)
 * becomes a length split, unless the caller asked to be refused.
 */
static void
split_fallback(uint16_t port, const struct rte_eth_dev_info *info,
	struct dt_dp_port_conf *c)
{
	if (c->split != DT_DP_SPLIT_PROTO || c->split_strict ||
			!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT) ||
			dt_dp_port_split_proto_supported(port, c->split_proto))
		return;
	c->split = DT_DP_SPLIT_LEN;
	if (c->split_len == 0)
		c->split_len = DT_DP_SPLIT_LEN_FALLBACK;
	DT_DP_LOG(WARNING,
		"port %u (%s): no protocol split after headers 0x%x: falling back to a length split at %u bytes (shorter headers leave payload in HOST chunks, longer ones spill into device memory)",
		port, info->driver_name, c->split_proto, c->split_len);
}

/*
 * Where payload goes. A split mode on a NIC without buffer split (i40e,
 * ixgbe, virtio, af_xdp, af_packet, tap...), or copy mode asked for,
 * becomes copy mode: whole frames into a host pool sized for the MTU,
 * payload moved into the region by the stacks' copy engine. Refusing
 * instead (split_strict) is for callers that must not pay the copy.
 */
static int
rx_place(uint16_t port, const struct rte_eth_dev_info *info,
	enum dt_dp_split_mode asked, struct dt_dp_port_conf *c,
	uint32_t frame_len, uint16_t nb_rxd, struct dt_dp_port_mode *m,
	char *err, size_t errlen)
{
	bool split = !!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT);
	struct rte_mempool *mp;
	char why[192];

	if (c->split == DT_DP_SPLIT_NONE)
		return 0;
	if (!c->rx_copy && (split || c->split_strict)) {
		m->rx = c->split == DT_DP_SPLIT_PROTO ? DT_DP_RX_SPLIT_PROTO :
			DT_DP_RX_SPLIT_LEN;
		m->split_len = c->split == DT_DP_SPLIT_LEN ? c->split_len : 0;
		if (asked != c->split)
			snprintf(m->why, sizeof(m->why),
				"no protocol split: length split at %u bytes",
				c->split_len);
		return 0;
	}
	mp = dt_dp_mode_copy_pool(port, c->nb_rxq, nb_rxd, frame_len, why,
		sizeof(why));
	if (mp == NULL)
		return port_fail(err, errlen, -ENOMEM, "%s", why);
	c->split = DT_DP_SPLIT_NONE;
	c->hdr_pool = mp;
	m->rx = DT_DP_RX_COPY;
	snprintf(m->why, sizeof(m->why), "%s",
		c->rx_copy ? "copy mode asked for" :
		"no RX buffer split: payload copied into device memory by the copy engine");
	if (c->rx_copy)
		DT_DP_LOG(INFO, "port %u (%s): copy mode: whole frames in %s, payload copied into device memory",
			port, info->driver_name, mp->name);
	else
		DT_DP_LOG(WARNING, "port %u (%s) has no RX buffer split: copy mode (whole frames in %s, payload copied into device memory by the copy engine, counted in rx_copy_bytes)",
			port, info->driver_name, mp->name);
	return 0;
}

/*
 * A host queue needs the port to steer: rte_flow rules, per-queue split
 * (queue 0 keeps whole frames while the others split) and an RSS table to
 * point at queue 0. A port that lacks one (@p lack says which) is steered
 * by RSS alone instead, as a port without a host queue is: refusing it
 * would leave most NICs and virtual ports in the field unable to
 * run several stacks. steer_strict refuses; so does a port without RSS,
 * whose frames would all reach queue 0 (run one stack there).
 */
static int
steer_fallback(uint16_t port, const struct rte_eth_dev_info *info,
	struct dt_dp_port_conf *c, struct dt_dp_port_mode *m, const char *lack,
	char *err, size_t errlen)
{
	if (c->steer_strict)
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s): %s: a host queue needs it (steer_strict)",
			port, info->driver_name, lack);
	if (info->reta_size == 0 || !(info->flow_type_rss_offloads &
			(RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_IPV4)))
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s): %s, and no RSS to steer by instead: run one stack on it, without a host queue",
			port, info->driver_name, lack);
	c->host_queue = false;
	snprintf(m->steer_why, sizeof(m->steer_why),
		"%s: RSS alone over %u queues; lost: a host queue (ARP, ICMP, closed-port TCP reach any stack), listening ports given to chosen stacks",
		lack, c->nb_rxq);
	DT_DP_LOG(WARNING,
		"port %u (%s): a host queue asked for, but %s: steering by RSS alone over its %u queues (every stack must listen on a port; ARP, ICMP and closed-port TCP reach any stack)",
		port, info->driver_name, lack, c->nb_rxq);
	return 0;
}

int
dt_dp_port_start(uint16_t port, const struct dt_dp_port_conf *conf_in,
	char *err, size_t errlen)
{
	struct dt_dp_port_conf eff = *conf_in;
	const struct dt_dp_port_conf *c = &eff;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct dt_dp_port_mode mode;
	uint16_t mtu = c->mtu ? c->mtu : RTE_ETHER_MTU;
	uint16_t nb_rxd = c->nb_rxd ? c->nb_rxd : DT_DP_DEFAULT_DESC;
	uint16_t nb_txd = c->nb_txd ? c->nb_txd : DT_DP_DEFAULT_DESC;
	uint32_t frame_len;
	uint64_t rx_off = 0, tx_off = 0;
	char why[160];
	uint16_t q;
	int rc = 0;

	if (c->nb_rxq == 0 || c->nb_txq == 0 || c->hdr_pool == NULL ||
			(c->split != DT_DP_SPLIT_NONE && c->pay_pool == NULL) ||
			(c->split == DT_DP_SPLIT_LEN && c->split_len == 0))
		return port_fail(err, errlen, -EINVAL,
			"port %u: bad configuration (queues, pools or split length missing)",
			port);
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return port_fail(err, errlen, rc, "port %u: cannot get device info: %s",
			port, rte_strerror(-rc));
	split_fallback(port, &info, &eff);
	/*
	 * What the link carries bounds the MTU (a NIC on a Linux interface
	 * of a smaller MTU reports it as max_mtu): frames above would be
	 * dropped, and the MSS derived from it black-hole both directions.
	 */
	if (info.max_mtu != 0 && mtu > info.max_mtu) {
		DT_DP_LOG(WARNING, "port %u (%s): MTU %u configured, the link carries %u: using %u",
			port, info.driver_name, mtu, info.max_mtu, info.max_mtu);
		mtu = info.max_mtu;
	}
	frame_len = mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	if (c->nb_rxq > info.max_rx_queues || c->nb_txq > info.max_tx_queues)
		return port_fail(err, errlen, -ENOTSUP,
			"port %u (%s): %u/%u queues requested, device has %u/%u",
			port, info.driver_name, c->nb_rxq, c->nb_txq,
			info.max_rx_queues, info.max_tx_queues);

	memset(&mode, 0, sizeof(mode));
	rc = rx_place(port, &info, conf_in->split, &eff, frame_len, nb_rxd,
		&mode, err, errlen);
	if (rc != 0)
		return rc;
	if (c->host_queue && ((c->split == DT_DP_SPLIT_NONE &&
			mode.rx != DT_DP_RX_COPY) || c->nb_rxq < 2 ||
			c->nb_rxq > 64))
		return port_fail(err, errlen, -EINVAL,
			"port %u: a host queue needs a split mode and 2..64 RX queues",
			port);
	/* Copy mode: every queue takes whole frames, nothing to split per queue. */
	if (c->host_queue && mode.rx != DT_DP_RX_COPY &&
			!(info.rx_queue_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT))
		rc = steer_fallback(port, &info, &eff, &mode,
			"no per-queue buffer split", err, errlen);
	else if (c->host_queue && info.reta_size == 0)
		rc = steer_fallback(port, &info, &eff, &mode,
			"no RSS redirection table to send unsteered traffic to the host queue",
			err, errlen);
	if (rc != 0)
		return rc;
	if (c->split != DT_DP_SPLIT_NONE) {
		rc = check_split_caps(port, c, &info, frame_len, err, errlen);
		if (rc != 0)
			return rc;
		rx_off |= RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
		/* Steered mode splits per queue (queue 0 keeps whole frames). */
		if (!c->host_queue)
			rx_off |= RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
	}
	/* Checksum verification by the NIC whenever it offers it. */
	rx_off |= info.rx_offload_capa & (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM);
	/* Split queues chain payload buffers; whole frames may need more than one. */
	if (c->split != DT_DP_SPLIT_NONE || frame_len + RTE_PKTMBUF_HEADROOM >
			rte_pktmbuf_data_room_size(c->hdr_pool))
		rx_off |= info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER;
	if (c->tx_cksum)
		tx_off |= info.tx_offload_capa & (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
	/*
	 * Without multi-segment TX the stacks write each frame into one
	 * buffer (dt_dp_linear.c): a port that can send frames at all is
	 * never refused for it.
	 */
	if (c->tx_multi_seg &&
			(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
		tx_off |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/*
	 * TSO where the NIC offers it: a send burst leaves as one header and
	 * a payload chain the NIC segments. It sums every segment itself, so
	 * it needs the checksum offloads, and chains, so multi-segment TX.
	 */
	if (!c->no_tso && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO) &&
			(tx_off & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &&
			(tx_off & RTE_ETH_TX_OFFLOAD_TCP_CKSUM) &&
			(tx_off & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM))
		tx_off |= RTE_ETH_TX_OFFLOAD_TCP_TSO;

	/*
	 * Coalesced TCP frames (LRO / HW-GRO) where the NIC offers them: the
	 * stack takes one apart into the segments it was merged from.
	 */
	if ((info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_LRO) && !c->no_lro)
		rx_off |= RTE_ETH_RX_OFFLOAD_TCP_LRO;
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = mtu;
	if (rx_off & RTE_ETH_RX_OFFLOAD_TCP_LRO)
		conf.rxmode.max_lro_pkt_size = info.max_lro_pkt_size;
	conf.rxmode.offloads = rx_off;
	conf.txmode.offloads = tx_off;
	if (c->nb_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
			(RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
			 RTE_ETH_RSS_IPV4);
	}
	rc = rte_eth_dev_configure(port, c->nb_rxq, c->nb_txq, &conf);
	if (rc != 0)
		return port_fail(err, errlen, rc, "port %u (%s): configure failed: %s",
			port, info.driver_name, rte_strerror(-rc));
	/* Rules are validated on the configured port (queue indexes exist). */
	if (c->host_queue && !dt_dp_steer_probe(port, c->nb_rxq, why,
			sizeof(why))) {
		rc = steer_fallback(port, &info, &eff, &mode, why, err, errlen);
		if (rc != 0)
			return rc;
		/* Every queue splits now, as on any port without a host queue. */
		if (c->split != DT_DP_SPLIT_NONE)
			conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
		rc = rte_eth_dev_configure(port, c->nb_rxq, c->nb_txq, &conf);
		if (rc != 0)
			return port_fail(err, errlen, rc,
				"port %u (%s): configure without a host queue failed: %s",
				port, info.driver_name, rte_strerror(-rc));
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (rc != 0)
		return port_fail(err, errlen, rc, "port %u: descriptor counts refused: %s",
			port, rte_strerror(-rc));
	for (q = 0; q < c->nb_rxq; q++) {
		rc = setup_rxq(port, q, c, &info, nb_rxd, 0);
		if (rc != 0)
			return port_fail(err, errlen, rc,
				"port %u (%s): RX queue %u set-up failed: %s", port,
				info.driver_name, q, rte_strerror(-rc));
	}
	for (q = 0; q < c->nb_txq; q++) {
		struct rte_eth_txconf txconf = info.default_txconf;

		txconf.offloads = 0;
		rc = rte_eth_tx_queue_setup(port, q, nb_txd,
			rte_eth_dev_socket_id(port), &txconf);
		if (rc != 0)
			return port_fail(err, errlen, rc,
				"port %u (%s): TX queue %u set-up failed: %s", port,
				info.driver_name, q, rte_strerror(-rc));
	}
	rc = rte_eth_dev_start(port);
	if (rc != 0)
		return port_fail(err, errlen, rc, "port %u (%s): start failed: %s",
			port, info.driver_name, rte_strerror(-rc));
	dt_dp_mode_fill(&mode, &info, &conf, c->nb_rxq, c->host_queue);
	/* Whether sends can be freed on request (dt_dp_txheld.c if not). */
	mode.tx_cleanup = rte_eth_tx_done_cleanup(port, 0, 0) != -ENOTSUP;
	if (c->host_queue) {
		rc = host_queue_steer(port, c->nb_rxq, &info, err, errlen);
		if (rc != 0) {
			rte_eth_dev_stop(port);
			return rc;
		}
	} else {
		/* Not steered: the stacks share neighbours all the same. */
		rc = dt_dp_port_sh_attach(port, c->nb_rxq, false);
		if (rc != 0) {
			rte_eth_dev_stop(port);
			return port_fail(err, errlen, rc, "port %u: no memory", port);
		}
	}
	dt_dp_port_sh_get(port)->mode = mode;
	dt_dp_port_sh_get(port)->copy_pool = mode.rx == DT_DP_RX_COPY ?
		c->hdr_pool : NULL;
	return 0;
}

int
dt_dp_port_stop(uint16_t port)
{
	dt_dp_port_sh_detach(port);
	return rte_eth_dev_stop(port);
}
