/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a port was started with, as lib/dp decided it from what the NIC
 * offers (dt_dp_port_mode), and the host pool of a port in copy mode.
 * Reports (devtcp-server's start-up lines, the CLI, telemetry) read the
 * decisions from here rather than guessing them from the configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_dp_log.h"
#include "dt_dp_mode.h"
#include "dt_dp_steer.h"

/* Frames a copy-mode pool holds beyond the RX rings: one burst per stack in the copy. */
#define DT_DP_COPY_POOL_SLACK 2048

int
dt_dp_port_mode_get(uint16_t port, struct dt_dp_port_mode *mode)
{
	const struct dt_dp_port_sh *sh = dt_dp_port_sh_get(port);

	if (sh == NULL || mode == NULL)
		return -ENODEV;
	*mode = sh->mode;
	return 0;
}

const char *
dt_dp_rx_place_name(uint8_t rx)
{
	switch (rx) {
	case DT_DP_RX_SPLIT_PROTO:
		return "split-proto";
	case DT_DP_RX_SPLIT_LEN:
		return "split-len";
	case DT_DP_RX_COPY:
		return "copy";
	default:
		return "host";
	}
}

int
dt_dp_port_mode_str(const struct dt_dp_port_mode *m, char *buf, size_t len)
{
	return snprintf(buf, len,
		"rx=%s rx_cksum=%s tx_cksum=%s tx=%s tso=%s lro=%s tx_done=%s steering=%s (%s)%s%s%s%s",
		dt_dp_rx_place_name(m->rx), m->rx_cksum ? "nic" : "cpu",
		m->tx_cksum ? "nic" : "cpu",
		m->tx_multi_seg ? "multi-seg" : "linear", m->tso ? "on" : "off",
		m->lro ? "on" : "off", m->tx_cleanup ? "cleanup" : "copy-if-held",
		m->steered ? "flow" : m->nb_rxq > 1 ? "rss" : "none", m->driver,
		m->why[0] != '\0' ? ": " : "", m->why,
		m->steer_why[0] != '\0' ? "; steering: " : "", m->steer_why);
}

/*
 * The whole-frame pool of a port in copy mode: one frame per buffer (no
 * scatter needed), enough for every RX descriptor and what the stacks
 * hold until their burst's copies landed. Kept for the process's life
 * (mbufs of it may still be in flight when the port stops); a restart
 * reuses it when it is large enough.
 */
struct rte_mempool *
dt_dp_mode_copy_pool(uint16_t port, uint16_t nb_rxq, uint16_t nb_rxd,
	uint32_t frame_len, char *err, size_t errlen)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t room = RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
		frame_len + RTE_PKTMBUF_HEADROOM);
	uint32_t n = (uint32_t)nb_rxq * nb_rxd + DT_DP_COPY_POOL_SLACK;
	struct rte_mempool *mp;
	int socket = rte_eth_dev_socket_id(port);

	snprintf(name, sizeof(name), "dt_dp_copy%u", port);
	mp = rte_mempool_lookup(name);
	if (mp != NULL) {
		if (rte_pktmbuf_data_room_size(mp) >= room && mp->size >= n)
			return mp;
		snprintf(err, errlen,
			"port %u: copy mode needs %u buffers of %u bytes; the port's pool from an earlier start has %u of %u",
			port, n, room, mp->size, rte_pktmbuf_data_room_size(mp));
		return NULL;
	}
	if (room > UINT16_MAX) {
		snprintf(err, errlen, "port %u: frames of %u bytes exceed one host buffer",
			port, frame_len);
		return NULL;
	}
	mp = rte_pktmbuf_pool_create(name, n, 256, 0, (uint16_t)room,
		socket < 0 ? SOCKET_ID_ANY : socket);
	if (mp == NULL)
		snprintf(err, errlen, "port %u: no memory for the copy mode's %u host buffers of %u bytes: %s",
			port, n, room, rte_strerror(rte_errno));
	return mp;
}

void
dt_dp_mode_fill(struct dt_dp_port_mode *m, const struct rte_eth_dev_info *info,
	const struct rte_eth_conf *conf, uint16_t nb_rxq, bool steered)
{
	uint64_t rx = conf->rxmode.offloads, tx = conf->txmode.offloads;

	m->rx_cksum = !!(rx & RTE_ETH_RX_OFFLOAD_TCP_CKSUM);
	m->tx_cksum = (tx & RTE_ETH_TX_OFFLOAD_TCP_CKSUM) &&
		(tx & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM);
	m->tx_multi_seg = !!(tx & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	m->tso = !!(tx & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	m->lro = !!(rx & RTE_ETH_RX_OFFLOAD_TCP_LRO);
	m->steered = steered;
	m->nb_rxq = nb_rxq;
	snprintf(m->driver, sizeof(m->driver), "%s",
		info->driver_name != NULL ? info->driver_name : "?");
}
