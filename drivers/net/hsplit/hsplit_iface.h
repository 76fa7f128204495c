/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The Linux-interface backend of the software NIC (devarg iface=NAME): the
 * port's wire is a Linux network interface (typically the root-namespace end
 * of a veth pair whose other end is in a network namespace), reached through
 * AF_PACKET sockets with memory-mapped TPACKET_V2 rings.
 *
 * - RX: one socket per RX queue (iface_rx_sockets=), bound to the interface
 *   for every protocol, each with an RX ring; several sockets form a
 *   PACKET_FANOUT_HASH group, so the kernel keeps each flow on one socket
 *   and its frames in order. A queue's rx_burst drains its own socket and
 *   one other in turn (a trylock per socket makes one queue at a time its
 *   drainer; no thread of its own, no socket waits for an unpolled queue):
 *   each frame is copied into a host-memory wire buffer and goes through the
 *   same ingress as a frame from the loopback wire (checksum verification,
 *   RSS, rte_flow, queue ring), then the queue splits it and its payload
 *   reaches device memory through the copy engine.
 * - TX: one socket per TX queue (bound with protocol 0, so it receives
 *   nothing) with a TX ring of the queue's nb_desc frames, PACKET_QDISC_BYPASS
 *   where the kernel has it. tx_burst gathers and checksums frames as on the
 *   loopback wire, writes them into ring slots and kicks the kernel with one
 *   send() per burst. A queue whose ring has no free slot takes fewer frames
 *   (backpressure, as a NIC with a full descriptor ring).
 *
 * TPACKET_V2 rather than V3: V3 hands frames over a block at a time, when a
 * block fills or its retire timer (>= 1 ms) fires, which would add up to a
 * millisecond to every exchange with a lightly loaded TCP peer; V2 hands over
 * each frame as it lands.
 */
#ifndef HSPLIT_IFACE_H
#define HSPLIT_IFACE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>

struct hsplit_port;
struct hsplit_rxq;
struct hsplit_txq;
struct hsplit_wbuf;
struct hsplit_iface;

/**
 * Find the interface of devarg iface= (it must exist), read its MAC address
 * and MTU, and attach the backend's state to @p p (p->iface).
 * @param mac the interface's MAC address, for the port's default address
 * @return 0 or a negative errno, with a message in the log
 */
int hsplit_iface_probe(struct hsplit_port *p, uint8_t mac[6]);

/** The interface's MTU, read again (it may change while the port runs). */
uint32_t hsplit_iface_mtu(struct hsplit_port *p);

/** The pool of coalesced frames' wire buffers, or NULL (LRO never started). */
/**
 * Whether the kernel takes GSO frames on this port's interface (TSO is
 * offered then: a TSO frame goes to the kernel whole).
 */
bool hsplit_iface_gso(const struct hsplit_port *p);

/** Wire buffers of whole TSO frames while the port has TSO on, else NULL. */
struct rte_mempool *hsplit_iface_gso_pool(const struct hsplit_port *p);

struct rte_mempool *hsplit_iface_lro_pool(const struct hsplit_port *p);

/** Detach and free the backend (port closed); closes what start opened. */
void hsplit_iface_close(struct hsplit_port *p);

/**
 * Port start: open the RX socket and ring (slots sized for the larger of the
 * interface's and the port's MTU) and one TX socket and ring per TX queue.
 * @return 0 or a negative errno
 */
int hsplit_iface_start(struct rte_eth_dev *dev);

/** Port stop: fold the kernel's drop counters in and close the sockets. */
void hsplit_iface_stop(struct hsplit_port *p);

/** Promiscuous membership of the RX socket (PACKET_MR_PROMISC) on or off. */
int hsplit_iface_promisc(struct hsplit_port *p, int on);

/** Link status: up when the port runs and the interface is up and running. */
int hsplit_iface_link_up(struct hsplit_port *p);

/** rx_burst of an interface port: drain the AF_PACKET ring, then the queue's own burst. */
uint16_t hsplit_iface_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n);

/** tx_burst of an interface port: the queue's burst, limited to free ring slots. */
uint16_t hsplit_iface_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n);

/**
 * Put gathered, checksummed frames on the interface through TX queue @p tq's
 * ring; frees the wire buffers.
 */
void hsplit_iface_xmit(struct hsplit_txq *tq, struct hsplit_wbuf **wb, uint16_t n);

/** Number of the backend's xstats (0 when @p p has no interface). */
unsigned int hsplit_iface_xstats_count(const struct hsplit_port *p);

/** Write the backend's xstats names at @p names; returns how many. */
unsigned int hsplit_iface_xstats_names(const struct hsplit_port *p,
	struct rte_eth_xstat_name *names);

/** Write the backend's xstats values (ids from @p first); returns how many. */
unsigned int hsplit_iface_xstats_get(struct hsplit_port *p,
	struct rte_eth_xstat *xs, uint64_t first);

/** Frames the kernel dropped because the RX ring was full (imissed). */
uint64_t hsplit_iface_rx_missed(struct hsplit_port *p);

/** Reset the backend's counters. */
void hsplit_iface_stats_reset(struct hsplit_port *p);

#endif /* HSPLIT_IFACE_H */
