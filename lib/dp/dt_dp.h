/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * devtcp's application API: a TCP/IPv4 stack per lcore whose received
 * payload stays in device memory.
 *
 * One stack instance runs on one lcore and owns one RX and one TX queue of a
 * port (shared-nothing: no locks on the data path). The application drives
 * it from that lcore: dt_dp_poll() receives a burst, runs the TCP engine and
 * timers and flushes one TX burst; dt_dp_events() then hands out what
 * happened. Every API call on a stack must come from its lcore.
 *
 * Receive: payload arrives as chunks. A DEVICE chunk is bytes in a payload
 * region (device memory): the application gets the region, the offset in
 * it and the device address, and must not read it with the CPU (zero-touch
 * rule). A HOST chunk holds payload bytes that the NIC left in the header
 * buffer (length split, see DESIGN rule 4): CPU-readable. Each chunk carries
 * a token; dt_dp_release() returns the buffer to its pool, and the
 * connection's receive window reopens by the released bytes. Chunks are
 * delivered in stream order.
 *
 * Transmit: dt_dp_send() queues a buffer in host or device memory by
 * reference (no copy). The stack builds header mbufs and chains the payload;
 * the buffer must stay untouched until a DT_DP_EV_SENT event counts its
 * send as completed (all its bytes acknowledged, no mbuf referencing it).
 */
#ifndef DT_DP_H
#define DT_DP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "dt_tcp.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dt_dp_stack;
struct dt_devmem_region;

/** A connection: index and generation; 0 is never a valid id. */
typedef uint64_t dt_dp_conn_t;

/** Error codes returned (negated) by API calls, besides standard errno. */
#define DT_DP_E_BADCONN   EBADF     /**< unknown or stale connection id */
#define DT_DP_E_STATE     ENOTCONN  /**< call not valid in the connection's state */
#define DT_DP_E_FULL      ENOBUFS   /**< send queue or table full: retry after events */
#define DT_DP_E_NOPORT    EADDRNOTAVAIL /**< no local port left for connect */

/** Configuration of one stack (one lcore, one queue pair). */
struct dt_dp_stack_conf {
	uint16_t port_id;                /**< DPDK port, started by dt_dp_port_start() */
	uint16_t rxq;                    /**< RX queue this stack polls */
	uint16_t txq;                    /**< TX queue this stack fills */
	uint32_t ipv4;                   /**< local address, network order */
	uint32_t netmask;                /**< network order; off-link needs gateway */
	uint32_t gateway;                /**< network order, 0: none */
	uint32_t max_conns;              /**< connection table size */
	uint16_t backlog;                /**< per listener accept backlog */
	uint32_t window;                 /**< receive window per connection, bytes */
	uint16_t txq_cap;                /**< sends queued per connection */
	struct rte_mempool *hdr_pool;    /**< host mbufs for TX headers and ARP/ICMP */
	struct rte_mempool *shell_pool;  /**< mbufs that attach TX payload (no data room) */
	struct dt_devmem_region *region; /**< payload region behind the RX queue (device chunks) */
	struct dt_tcp_cfg tcp;           /**< engine settings; mss from the port MTU if 0 */
	bool tx_cksum_offload;           /**< NIC computes IPv4/TCP checksums (else CPU, host payload only) */
	uint64_t isn_key[2];             /**< RFC 6528 secret; 0: random */
	/**
	 * Port started with a host queue (dt_dp_port_conf.host_queue): this
	 * stack also polls queue 0 (whole frames in host memory: ARP, ICMP,
	 * traffic no rule steers) and answers ARP and ICMP for the port. One
	 * stack per such port does (a stack whose @c rxq is 0 does anyway).
	 * Where the port could not steer and fell back to RSS alone
	 * (dt_dp_port_mode.steer_why), queue 0 is one of RSS's queues: this
	 * stack still polls it and serves the connections RSS puts there.
	 * On every port started by dt_dp_port_start(), whichever stack
	 * receives an ARP answer shares it with the port's other stacks.
	 */
	bool host_queue;
	/**
	 * Out-of-order stores of the stack, 0: min(max_conns, 64). A
	 * connection borrows one (window / (3/4 MSS) extents) only while it
	 * holds payload out of order; when none is free, out-of-order
	 * payload is freed unacknowledged (drop_ooo_no_store) and sent again.
	 */
	uint32_t ooo_stores;
	/**
	 * No receive coalescing: every frame enters the engine alone (A/B
	 * measurement). Default (false): consecutive in-order data frames of
	 * one connection within an RX burst enter as one segment
	 * (rx_gro_runs, rx_gro_frames).
	 */
	bool no_rx_gro;
};

/**
 * Fill @p conf with defaults (window 1 MiB, 1024 connections, ...).
 * @param conf  overwritten; the caller then sets port, queues, address, pools
 */
void dt_dp_stack_conf_default(struct dt_dp_stack_conf *conf);

/**
 * Create a stack. The port must be configured and started (dt_dp_port_start)
 * with the queues named in @p conf.
 * @param conf  the stack's configuration (copied)
 * @return the stack, or NULL with rte_errno set (and a log line saying why).
 */
struct dt_dp_stack *dt_dp_stack_create(const struct dt_dp_stack_conf *conf);

/**
 * Abort every connection, free what the stack holds.
 * @param st  the stack, or NULL (nothing done)
 */
void dt_dp_stack_destroy(struct dt_dp_stack *st);

/**
 * One iteration of the poll loop: RX burst, header parsing (header segment
 * only), engine, due timers, one TX flush.
 * @param st  the stack
 * @return the number of frames received.
 */
int dt_dp_poll(struct dt_dp_stack *st);

/** Kinds of event. */
enum dt_dp_event_type {
	DT_DP_EV_ACCEPTED,     /**< new passive connection on @c listen_port */
	DT_DP_EV_CONNECTED,    /**< active open completed */
	DT_DP_EV_DATA,         /**< @c chunk: next in-order payload */
	DT_DP_EV_SENT,         /**< @c sent.count sends completed, @c sent.bytes acked */
	DT_DP_EV_PEER_CLOSED,  /**< peer sent FIN after all its data */
	DT_DP_EV_RESET,        /**< peer reset the connection */
	DT_DP_EV_ERROR,        /**< @c err: ETIMEDOUT, ECONNREFUSED, ... */
	DT_DP_EV_CLOSED,       /**< connection gone; its id is now stale */
};

/** Where a chunk's bytes are. */
enum dt_dp_chunk_kind {
	DT_DP_CHUNK_DEVICE,    /**< in the payload region: never read by the CPU */
	DT_DP_CHUNK_HOST,      /**< in a host mbuf: CPU-readable at @c addr */
};

/** A piece of received payload. */
struct dt_dp_chunk {
	const struct dt_devmem_region *region; /**< DEVICE: the payload region */
	uint64_t offset;       /**< DEVICE: offset of the bytes in the region */
	const void *addr;      /**< device address (DEVICE) or CPU address (HOST) */
	uint32_t len;          /**< bytes */
	uint8_t kind;          /**< enum dt_dp_chunk_kind */
	uint64_t token;        /**< give back with dt_dp_release() */
};

/** One event. */
struct dt_dp_event {
	uint8_t type;          /**< enum dt_dp_event_type */
	dt_dp_conn_t conn;     /**< the connection the event is about */
	void *udata;           /**< the connection's user data */
	union {
		struct dt_dp_chunk chunk;                   /**< DATA */
		struct { uint32_t count; uint64_t bytes; } sent; /**< SENT */
		int err;                                    /**< ERROR (positive errno) */
		uint16_t listen_port;                       /**< ACCEPTED, host order */
	};
};

/**
 * Take up to @p n pending events, oldest first. Call after every
 * dt_dp_poll() until it returns 0: the queue is bounded.
 *
 * Each event carries the connection's user data as it is when the event is
 * taken. A DT_DP_EV_ACCEPTED event is always the last of the batch it is
 * in, so an application that calls dt_dp_set_udata() on ACCEPTED sees its
 * user data on every later event of that connection.
 * @param st  the stack
 * @param ev  array of at least @p n entries, filled
 * @param n   most events to take
 * @return the number of events taken (0: none pending)
 */
uint16_t dt_dp_events(struct dt_dp_stack *st, struct dt_dp_event *ev,
	uint16_t n);

/**
 * Listen on a local TCP port (host order). On a port started with a host
 * queue this installs (or extends) the rte_flow rule
 * eth / ipv4 dst is \<ip\> / tcp dst is \<port\> -> this stack's queue, or RSS
 * over the queues of every stack of the port listening on it. Let every
 * stack that shares a port listen before connections arrive: a stack that
 * joins the RSS queue list moves flows by hash, established ones too (one
 * that leaves does not: its entries pass to the stacks that stay).
 * @param st    the stack
 * @param port  local TCP port, host order, not 0 (-EINVAL)
 * @return 0, -EADDRINUSE, -DT_DP_E_FULL (no listener slot left), -ENOMEM,
 *	-ENOSPC (no steering rule)...
 */
int dt_dp_listen(struct dt_dp_stack *st, uint16_t port);

/**
 * Stop listening; established connections stay (the steering rule keeps
 * this stack's queue until the last of them closed).
 * @param st    the stack
 * @param port  local TCP port, host order
 * @return 0, or -ENOENT when the stack does not listen on @p port
 */
int dt_dp_unlisten(struct dt_dp_stack *st, uint16_t port);

/**
 * Open a connection to @p raddr:@p rport (network order address, host order
 * port). The local port is chosen so that the peer's replies hash (RSS) to
 * this stack's queue; on a port started with a host queue, a 5-tuple
 * rte_flow rule steers them there instead (removed when the connection
 * closes), and the local port is one that no other stack of the port can
 * pick (port % queues == this stack's queue).
 * Completion: DT_DP_EV_CONNECTED or DT_DP_EV_ERROR.
 * @param st     the stack
 * @param raddr  remote IPv4 address, network order
 * @param rport  remote TCP port, host order
 * @param udata  the connection's user data (carried by its events)
 * @param conn   set to the new connection's id on success
 * @return 0 and *conn, or a negative errno: -ENOBUFS when the TX buffer
 *	is full (open more after the next dt_dp_poll()).
 */
int dt_dp_connect(struct dt_dp_stack *st, uint32_t raddr, uint16_t rport,
	void *udata, dt_dp_conn_t *conn);

/**
 * Where the peer's NIC must deliver a connection's segments, for
 * dt_dp_connect_rss(): the peer port's RSS (Toeplitz key, redirection
 * table) and the RX queue wanted there. A sender that knows its receiver's
 * RSS (a loopback benchmark, a peer that published it) spreads its
 * connections evenly over the receiver's stacks instead of leaving it to
 * chance.
 */
struct dt_dp_peer_rss {
	const uint8_t *key;      /**< the peer port's RSS key (as rte_eth_dev_rss_hash_conf_get gives it) */
	const uint16_t *reta;    /**< its redirection table */
	uint16_t reta_size;      /**< entries of @c reta (not 0) */
	uint16_t queue;          /**< the peer's RX queue the connection must reach */
	bool l4;                 /**< the peer hashes the TCP ports too (RTE_ETH_RSS_NONFRAG_IPV4_TCP) */
};

/**
 * dt_dp_connect(), with a local port that the peer's RSS (@p peer) also
 * sends to @p peer->queue. Costs more port candidates (1 in this side's
 * queues times the peer's); -DT_DP_E_NOPORT when none is left.
 * @param st     the stack
 * @param raddr  remote IPv4 address, network order
 * @param rport  remote TCP port, host order
 * @param udata  the connection's user data (carried by its events)
 * @param conn   set to the new connection's id on success
 * @param peer   the peer's RSS, or NULL: dt_dp_connect()
 * @return 0 and *conn, or a negative errno as dt_dp_connect(); -EINVAL
 *	when @p peer lacks its key or table
 */
int dt_dp_connect_rss(struct dt_dp_stack *st, uint32_t raddr, uint16_t rport,
	void *udata, dt_dp_conn_t *conn, const struct dt_dp_peer_rss *peer);

/**
 * Attach user data to a connection (e.g. after ACCEPTED).
 * @param st     the stack
 * @param conn   the connection
 * @param udata  its new user data
 * @return 0, or -DT_DP_E_BADCONN
 */
int dt_dp_set_udata(struct dt_dp_stack *st, dt_dp_conn_t conn, void *udata);

/** A buffer to send, by reference. */
struct dt_dp_buf {
	void *addr;            /**< CPU address (host) or device address */
	uint64_t iova;         /**< IOVA of @c addr, or RTE_BAD_IOVA */
	uint32_t len;          /**< bytes, not 0 */
	bool device;           /**< in device memory (read by the NIC's engine) */
};

/**
 * Queue @p buf on @p conn. Completion: a DT_DP_EV_SENT whose count
 * includes it (sends complete in order). While the stack's TX buffer is
 * full (the NIC's queue is full) the send is staged and handed to TCP
 * later: backpressure, no drop. A device buffer goes by reference where
 * the NIC gathers and sums it; on a port without multi-segment TX or TX
 * checksum offload (or whose PMD keeps sent mbufs) the copy engine of the
 * region holding it writes its bytes into each frame, and it is refused
 * (-ENOTSUP) only when no region's copy engine reaches it.
 * @param st    the stack
 * @param conn  the connection
 * @param buf   the buffer (the descriptor is copied, not the bytes)
 * @return 0, -DT_DP_E_FULL (retry after SENT events), -DT_DP_E_STATE,
 *	-DT_DP_E_BADCONN, -EINVAL, -EPIPE (after shutdown or close), -ENOTSUP...
 */
int dt_dp_send(struct dt_dp_stack *st, dt_dp_conn_t conn,
	const struct dt_dp_buf *buf);

/**
 * Give back the buffer of a received chunk (also valid after the
 * connection closed; not after dt_dp_stack_destroy()).
 * @param st     the stack that delivered the chunk
 * @param token  the chunk's @c token (0: nothing done)
 */
void dt_dp_release(struct dt_dp_stack *st, uint64_t token);

/**
 * Half-close: FIN after queued data; receiving goes on (DATA events until
 * DT_DP_EV_PEER_CLOSED).
 * @param st    the stack
 * @param conn  the connection
 * @return 0, -DT_DP_E_BADCONN, -DT_DP_E_STATE, -EALREADY (already shut down
 *	or closed)...
 */
int dt_dp_shutdown(struct dt_dp_stack *st, dt_dp_conn_t conn);

/**
 * Close: FIN after queued data, and the application reads no more
 * (RFC 9293 3.6.1 half-duplex close). Data the peer sends afterwards that
 * was not received before cannot be delivered: the stack answers it with a
 * RST (so that the peer learns that data was lost), reports DT_DP_EV_ERROR
 * with ECONNABORTED and closes. No DATA event follows close() (chunks
 * already delivered stay the application's until released). Valid after
 * shutdown(). DT_DP_EV_CLOSED follows.
 * @param st    the stack
 * @param conn  the connection
 * @return 0, -DT_DP_E_BADCONN, -DT_DP_E_STATE...
 */
int dt_dp_close(struct dt_dp_stack *st, dt_dp_conn_t conn);

/**
 * Abort: RST now, drop queued data; DT_DP_EV_CLOSED follows.
 * @param st    the stack
 * @param conn  the connection
 * @return 0, or -DT_DP_E_BADCONN
 */
int dt_dp_abort(struct dt_dp_stack *st, dt_dp_conn_t conn);

/** Per-connection statistics. */
struct dt_dp_conn_stats {
	uint8_t state;                   /**< enum dt_tcp_state */
	struct dt_tcp_tuple tuple;       /**< network-order addresses, host-order ports */
	uint64_t rx_bytes;               /**< payload delivered */
	uint64_t tx_bytes;               /**< payload acknowledged */
	uint64_t rx_device_bytes;        /**< delivered in DEVICE chunks */
	uint64_t rx_host_bytes;          /**< delivered in HOST chunks */
	uint64_t retransmits;            /**< segments sent again (engine's count) */
	uint32_t held_bytes;             /**< delivered, not yet released */
	uint32_t rcv_wnd;                /**< advertised receive window not yet filled, bytes */
	uint32_t snd_wnd;                /**< peer's send window, bytes */
	uint32_t cwnd;                   /**< congestion window, bytes */
	uint32_t srtt_us;                /**< smoothed RTT, microseconds (0: no sample yet) */
	uint64_t retransmit_bytes;       /**< payload bytes sent again */
	uint64_t acks_limited;           /**< replies the RFC 5961 7 rate limit suppressed */
	uint64_t nagle_holds;            /**< small tails Nagle held until an ACK */
	uint32_t rtos;                   /**< retransmission timeouts */
	uint32_t tlps;                   /**< tail loss probes */
	uint32_t dsacks;                 /**< D-SACKs received: spurious retransmissions */
	uint32_t rack_losses;            /**< loss episodes RACK started */
};

/**
 * Statistics of one connection.
 * @param st    the stack
 * @param conn  the connection
 * @param s     filled on success
 * @return 0, or -DT_DP_E_BADCONN
 */
int dt_dp_conn_stats_get(struct dt_dp_stack *st, dt_dp_conn_t conn,
	struct dt_dp_conn_stats *s);

/** Per-stack statistics: every drop has a counter. */
struct dt_dp_stats {
	uint64_t rx_frames;              /**< frames received (every queue the stack polls) */
	uint64_t tx_frames;              /**< frames the NIC took (rte_eth_tx_burst) */
	uint64_t rx_tcp;                 /**< TCP segments received */
	uint64_t rx_arp;                 /**< ARP frames received */
	uint64_t rx_icmp;                /**< ICMP messages received */
	uint64_t tx_arp;                 /**< ARP frames sent (requests and replies) */
	uint64_t tx_icmp;                /**< ICMP echo replies sent */
	uint64_t tx_rst;                 /**< RST segments sent */
	uint64_t conns_open;             /**< connections in the table now (not a total) */
	uint64_t conns_accepted;         /**< passive opens completed (ACCEPTED) */
	uint64_t conns_connected;        /**< active opens completed (CONNECTED) */
	uint64_t conns_closed;           /**< connections gone (CLOSED) */
	uint64_t drop_not_ipv4;          /**< frame neither IPv4 nor ARP, or no valid Ethernet header */
	uint64_t drop_bad_ip;            /**< IPv4 header invalid, its checksum (or an ICMP one) bad */
	uint64_t drop_ip_fragment;       /**< IPv4 fragment (no reassembly) */
	uint64_t drop_not_for_us;        /**< another MAC (not group) or another IPv4 address */
	uint64_t drop_bad_tcp;           /**< TCP header invalid, or a TX header that could not be built */
	uint64_t drop_l4_cksum;          /**< TCP checksum bad (NIC's verdict or the CPU's) */
	uint64_t drop_no_conn;           /**< segment for no connection and no listener (RST sent) */
	uint64_t drop_conn_table_full;   /**< final ACK dropped: no free connection slot */
	uint64_t drop_hdr_in_device;     /**< header spilled into device memory, no CPU map */
	uint64_t drop_unsupported_proto; /**< IPv4 protocol other than TCP and ICMP */
	uint64_t drop_tx_no_mbuf;        /**< frame not sent: no mbuf for its header or payload */
	uint64_t drop_tx_ring_full;      /**< frame not sent: the stack's TX buffer was full */
	uint64_t drop_no_neighbour;      /**< no route, table full, or resolution failed (no answer) */
	uint64_t arp_requests;           /**< ARP requests sent (first and again) */
	uint64_t arp_timeouts;           /**< addresses that got no ARP answer */
	uint64_t host_chunks;            /**< HOST chunks delivered */
	uint64_t device_chunks;          /**< DEVICE chunks delivered */
	uint64_t events_overflow;        /**< must stay 0: the application drains too slowly */
	/* Added with the implementation (lib/dp). */
	uint64_t drop_l4_cksum_unknown;  /**< NIC gave no L4 verdict and payload is in device memory */
	uint64_t drop_too_many_segs;     /**< more payload segments than DT_TCP_SEG_MAX_EXT */
	uint64_t drop_bad_arp;           /**< ARP frame too short or invalid */
	uint64_t drop_synq_full;         /**< SYN dropped: listener's SYN queue full */
	uint64_t rx_hdr_spill;           /**< headers read through the region's CPU map */
	uint64_t rx_throttled;           /**< polls that took no frames: event queue or TX buffer too full */
	uint64_t rx_bursts;              /**< RX bursts that returned frames */
	uint64_t rx_cycles;              /**< TSC cycles spent processing those bursts */
	/* Steering (ports with a host queue). */
	uint64_t steer_rules;            /**< rte_flow rules created */
	uint64_t steer_errors;           /**< rules refused (listen/connect failed) or not destroyed */
	uint64_t neigh_shared;           /**< neighbours learned from ARP another stack of the port received */
	uint64_t rx_host_queue;          /**< frames taken from queue 0 */
	uint64_t rst_data_after_close;   /**< new data after close(): RST, connection aborted */
	/* Listeners (dt_tcp_lst_stats, summed over the stack's listeners). */
	uint64_t synq_overflows;         /**< SYNs that found a SYN queue full */
	uint64_t synq_evicted;           /**< half-open entries dropped for a new SYN (cookies off) */
	uint64_t synq_expired;           /**< half-open entries dropped after their last SYN-ACK */
	uint64_t synq_rst_freed;         /**< half-open entries freed by a RST at rcv_nxt */
	uint64_t synq_challenge_acks;    /**< challenge ACKs to in-window RSTs (RFC 5961) */
	uint64_t synacks_sent;           /**< SYN-ACKs, first and again, cookies included */
	uint64_t synacks_rtx;            /**< SYN-ACKs sent again */
	uint64_t syncookies_sent;        /**< SYN-ACKs that carried a SYN cookie */
	uint64_t syncookies_ok;          /**< final ACKs validated as SYN cookies */
	uint64_t syncookies_bad;         /**< ACKs that failed cookie validation (RST) */
	uint64_t rx_coalesced;           /**< coalesced frames (NIC LRO) taken in as several segments */
	/* Neighbour resolution. */
	uint64_t neigh_held;             /**< frames that waited for an address, then went out */
	uint64_t drop_neigh_hold_full;   /**< frame dropped: the hold queue was full */
	uint64_t neigh_published;        /**< neighbours this stack published to the port's others */
	/* Connection memory. */
	uint64_t mem_bytes;              /**< hugepage bytes the stack allocated (tables, stores, queues) */
	uint64_t ooo_stores;             /**< out-of-order stores of the stack */
	uint64_t ooo_stores_used;        /**< lent to connections now */
	uint64_t ooo_stores_lent;        /**< times a connection borrowed one */
	uint64_t drop_ooo_no_store;      /**< out-of-order segments freed unacked: no store free */
	/* Receive coalescing within a burst (software GRO). */
	uint64_t rx_gro_runs;            /**< segments the engine took that merged 2 or more frames */
	uint64_t rx_gro_frames;          /**< frames in those segments */
	/* TCP segmentation offload (ports that offer RTE_ETH_TX_OFFLOAD_TCP_TSO). */
	uint64_t tx_tso_bursts;          /**< frames longer than an MSS handed to the NIC to segment */
	uint64_t tx_tso_segs;            /**< segments the NIC cuts them into (per burst: segs / bursts) */
	/* Transmit cost (TSC cycles), next to the receive side's rx_cycles. */
	uint64_t tx_cycles;              /**< building frames from the engine's segments (lib/dp's own) */
	uint64_t tx_burst_cycles;        /**< in the NIC's tx_burst (a software NIC's transmit included) */
	/* Ports without multi-segment TX (frames written into one buffer). */
	uint64_t drop_tx_linear;         /**< frames that did not fit one buffer: dropped (resent later) */
	/* Copy mode (a port without buffer split; dt_dp_port_mode). */
	uint64_t rx_copy_bytes;          /**< payload bytes the copy engine moved into the region */
	uint64_t rx_copy_chunks;         /**< region buffers filled by copy */
	uint64_t drop_copy_no_buf;       /**< frames dropped: no free region buffer to copy into */
	uint64_t rx_copy_errors;         /**< copies the engine refused or never completed */
	/* Ports without TX checksum offload. */
	uint64_t tx_device_refused;      /**< dt_dp_send() of device memory refused (-ENOTSUP): no copy engine reaches it */
	/* Frames that own their payload (no multi-segment TX, no TX checksum offload, a PMD that keeps sent mbufs). */
	uint64_t tx_copy_bytes;          /**< device payload bytes the copy engine wrote into frames */
	uint64_t tx_copy_errors;         /**< such copies refused or never completed (frames sent with a bad checksum: TCP resends) */
	uint64_t tx_held_switch;         /**< 1: the PMD kept acknowledged sends and cannot free them: frames own their payload since */
	/* Frames the PMD refuses for good (offered again and again, nothing taken). */
	uint64_t tx_tso_refused;         /**< 1: a TSO frame was refused: TSO turned off on the stack, the data sent again as MSS frames */
	uint64_t tx_refused_dropped;     /**< refused frames dropped (TCP sends their data again at once) */
};

/**
 * Statistics of a stack (its counters plus those of its listeners).
 * @param st  the stack
 * @param s   filled
 */
void dt_dp_stats_get(const struct dt_dp_stack *st, struct dt_dp_stats *s);

/**
 * Call @p fn for every connection of the stack (telemetry, CLI).
 * @param st   the stack
 * @param fn   called with each live connection's id, its statistics
 *	(valid during the call) and @p arg
 * @param arg  passed to @p fn
 */
void dt_dp_conn_foreach(struct dt_dp_stack *st,
	void (*fn)(dt_dp_conn_t conn, const struct dt_dp_conn_stats *s, void *arg),
	void *arg);

#ifdef __cplusplus
}
#endif

#endif /* DT_DP_H */
