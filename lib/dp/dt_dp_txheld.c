/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMD that keeps transmitted mbufs (virtio_user in DPDK 22.11 frees them
 * only when its ring needs room) and cannot be asked to free them (no
 * tx_done_cleanup: rte_eth_tx_done_cleanup() says -ENOTSUP). Shells
 * attached to the application's send buffers then stay in its ring long
 * after the peer acknowledged the bytes, and the last sends of a stream
 * never complete (DT_DP_EV_SENT never comes).
 *
 * Most PMDs without the op free at once (they copy: af_packet, tap, memif,
 * a software NIC), so the op's absence alone does not tell; what the PMD
 * does does. Once a connection's acknowledged head send has waited
 * DT_DP_TX_HELD_US for its shells, counted from a poll that found the
 * stack's own TX queue empty (the PMD had all its frames), the stack
 * writes the payload into its frames from then on (dt_dp_txcopy.c: host bytes by the CPU, device
 * bytes by the copy engine): a frame then references nothing of the
 * application's, and a send completes on its ACK. TSO goes off with it
 * (a 64 KiB burst does not fit one buffer). Sends already out complete
 * once the PMD reuses their descriptors (the stream that follows does).
 * Decided per stack, logged once, counted (tx_held_switch).
 */
#include <rte_ethdev.h>

#include "dt_dp_priv.h"

/*
 * A PMD that frees once it transmitted has freed a frame's mbufs before
 * the frame reaches the peer, so before its ACK comes back: an
 * acknowledged send never waits for its shells there. One that keeps
 * them makes the head send wait until its ring wraps: in slow start, for
 * ever. The bound must catch that early in a stream (the sends out before
 * the switch come back only once the ring wraps, which the rest of the
 * stream does), not the first time the ring happens to wrap slowly:
 * 20 ms let virtio_user stream on with sends completing now and then, and
 * the switch came at the tail, where nothing wraps the ring any more.
 */
#define DT_DP_TX_HELD_US 2000

void
dt_dp_txheld_check(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	struct rte_eth_dev_info info;

	if (st->tx_held)
		return;
	/*
	 * Frames still in our own queue (or waiting for an address) hold
	 * shells too, a retransmission of acknowledged bytes among them: the
	 * clock starts once the PMD has had all of our frames (dp_transfer's
	 * 100 connections on two loaded lcores switched net_hsplit, which
	 * frees at once, without this), and runs on even if the queue fills
	 * again (resetting it then delayed virtio_user's switch, whose ring
	 * fills, towards the stream's tail).
	 */
	if (c->held_since == 0) {
		if (st->txb_n == 0 && st->neigh.hold_used == 0)
			c->held_since = st->now;
		return;
	}
	if (st->now - c->held_since < DT_DP_TX_HELD_US)
		return;
	/* Frames that cannot own a segment's payload (a small header pool). */
	if (c->tcp.smss > st->linear_mss) {
		if (st->st.tx_held_switch == 0 && !st->tx_reclaim_warned)
			DT_DP_LOG(WARNING, "port %u: the PMD keeps sent mbufs, but an MSS (%u) does not fit one header buffer (%u): sends complete only once the PMD reuses its descriptors",
				st->conf.port_id, c->tcp.smss, st->linear_mss);
		st->tx_reclaim_warned = true;
		return;
	}
	st->tx_held = true;
	st->tso_max = 0;
	st->tcp_cfg.tso_max = 0;
	st->st.tx_held_switch++;
	/* What reports say of the port (its other stacks decide alike). */
	if (st->psh != NULL)
		st->psh->mode.tso = false;
	if (rte_eth_dev_info_get(st->conf.port_id, &info) != 0)
		info.driver_name = "?";
	DT_DP_LOG(WARNING, "port %u queue %u (%s): an acknowledged send still waits after %u ms for the PMD to free its TX buffers, and it cannot free them on request (no tx_done_cleanup): frames own their payload from now on (host bytes copied by the CPU, device bytes by the copy engine; TSO off), so sends complete on their ACK; sends already out complete once the PMD reuses their descriptors",
		st->conf.port_id, st->conf.txq, info.driver_name,
		DT_DP_TX_HELD_US / 1000);
}
