/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Port set-up for devtcp's data plane: a port whose RX queues either receive
 * whole frames into one host pool, or split every frame into a header
 * segment (hugepage mbuf, parsed by the CPU) and payload segments (device
 * memory, never touched by the CPU).
 *
 * The set-up adapts to what the NIC offers and records what it decided
 * (dt_dp_port_mode_get()): a split mode on a NIC without buffer split
 * becomes copy mode (whole frames in host memory, payload moved into the
 * device region by the copy engine); a protocol split the NIC cannot do
 * becomes a length split; checksums, multi-segment TX, TSO and LRO are
 * used where offered. A NIC that does split but lacks what a split queue
 * needs (RX L4 checksum offload: the CPU cannot checksum payload it must
 * not read; two pools; scatter for frames larger than one payload buffer)
 * is refused with a message that names what is missing.
 */
#ifndef DT_DP_PORT_H
#define DT_DP_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How RX queues place a frame. */
enum dt_dp_split_mode {
	DT_DP_SPLIT_NONE = 0,  /**< whole frame in hdr_pool buffers */
	DT_DP_SPLIT_PROTO,     /**< headers up to split_proto in hdr_pool, payload in pay_pool */
	DT_DP_SPLIT_LEN,       /**< first split_len bytes in hdr_pool, the rest in pay_pool */
};

/** Configuration of one port. */
struct dt_dp_port_conf {
	uint16_t nb_rxq;               /**< RX queues (RSS over them when > 1) */
	uint16_t nb_txq;               /**< TX queues */
	uint16_t nb_rxd;               /**< RX descriptors per queue (0: 1024) */
	uint16_t nb_txd;               /**< TX descriptors per queue (0: 1024) */
	uint16_t mtu;                  /**< 0: 1500 */
	enum dt_dp_split_mode split;   /**< how RX queues place a frame (what is asked for) */
	uint32_t split_proto;          /**< cumulative RTE_PTYPE_* mask of the header segment */
	uint16_t split_len;            /**< header segment length (DT_DP_SPLIT_LEN) */
	struct rte_mempool *hdr_pool;  /**< header pool (or the only pool) */
	struct rte_mempool *pay_pool;  /**< payload pool, device memory (split modes) */
	bool tx_cksum;                 /**< request IPv4/TCP/UDP TX checksum offload */
	bool tx_multi_seg;             /**< request multi-segment TX */
	/**
	 * Leave LRO off even where the NIC offers it. net_hsplit's interface
	 * backend gives its AF_PACKET ring at most 1024 slots when LRO is on
	 * (64 KiB each): a wire that carries MTU frames only (GRO off) then
	 * holds 1024 frames, fewer than a few TCP windows in flight.
	 */
	bool no_lro;
	/**
	 * Leave TSO off even where the NIC offers it (A/B measurement): the
	 * stack then sends one MSS per frame. On by default when the NIC
	 * offers RTE_ETH_TX_OFFLOAD_TCP_TSO and tx_cksum and tx_multi_seg are
	 * set; the stacks on the port then hand it bursts (dt_dp_stats
	 * tx_tso_bursts).
	 */
	bool no_tso;
	/**
	 * Steered mode (DESIGN rule 3; split modes, nb_rxq >= 2): queue 0
	 * receives whole frames in host memory (host_pool) and the port's
	 * RSS sends it everything no rte_flow rule steers (ARP, ICMP, other
	 * protocols, TCP to ports nobody listens on); queues 1..nb_rxq-1
	 * split payload into pay_pool and receive only the TCP flows the
	 * stacks steer there (dt_dp_listen, dt_dp_connect). Needs per-queue
	 * buffer split (split modes), rte_flow and an RSS table. Off: every
	 * queue splits, RSS over all.
	 *
	 * A port that lacks one of these (most virtual and cloud NICs have no
	 * rte_flow) is started without a host queue and steered by RSS alone,
	 * with a WARNING and the reason in dt_dp_port_mode.steer_why, unless
	 * steer_strict refuses instead: every queue, 0 included, places
	 * frames alike and RSS spreads TCP over all of them; the stack with
	 * dt_dp_stack_conf.host_queue polls queue 0 too, so it serves what
	 * RSS sends there; passive opens go to whichever stack RSS picks
	 * (listen on every stack), active opens pick RSS-matching local
	 * ports as on any RSS port. Lost: host traffic (ARP, ICMP, TCP to
	 * closed ports, other protocols) is not kept apart from the device
	 * queues, and a listening port cannot be given to chosen stacks.
	 */
	bool host_queue;
	struct rte_mempool *host_pool; /**< queue 0's pool (NULL: hdr_pool) */
	/**
	 * DT_DP_SPLIT_PROTO on a NIC without protocol split for split_proto
	 * (mlx5: length split only): false (default) falls back to a length
	 * split at split_len (0: DT_DP_SPLIT_LEN_FALLBACK) with a WARNING
	 * log line; true refuses with -ENOTSUP and the reason.
	 */
	bool split_strict;
	/**
	 * host_queue on a port that cannot steer (no rte_flow, no per-queue
	 * split, no RSS table): true refuses with -ENOTSUP and the reason;
	 * false (default) falls back to RSS-only steering (see host_queue).
	 */
	bool steer_strict;
	/**
	 * Copy mode even where the NIC splits (A/B measurement, the
	 * benchmark's copy baseline): whole frames into host memory, payload
	 * moved into pay_pool's region by its copy engine (see
	 * DT_DP_RX_COPY). Without it, copy mode is what a split mode becomes
	 * on a NIC without RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT (with a WARNING),
	 * unless split_strict refuses instead.
	 */
	bool rx_copy;
};

/** Where a port's RX queues put payload (struct dt_dp_port_mode). */
enum dt_dp_rx_place {
	DT_DP_RX_HOST = 0,     /**< whole frames in host memory, HOST chunks */
	DT_DP_RX_SPLIT_PROTO,  /**< NIC splits after the headers: DEVICE chunks */
	DT_DP_RX_SPLIT_LEN,    /**< NIC splits at a length: DEVICE chunks */
	/**
	 * Whole frames in host memory (a pool lib/dp sizes for the MTU);
	 * each stack with a payload region moves the payload into region
	 * buffers with the region's copy engine within the RX burst, before
	 * TCP acknowledges it: the application gets DEVICE chunks exactly as
	 * with a split (dt_dp_stats rx_copy_bytes counts the bytes).
	 */
	DT_DP_RX_COPY,
};

/** What dt_dp_port_start() decided for a port from what the NIC offers. */
struct dt_dp_port_mode {
	uint8_t rx;            /**< enum dt_dp_rx_place */
	uint16_t split_len;    /**< DT_DP_RX_SPLIT_LEN: header segment length */
	bool rx_cksum;         /**< NIC verifies RX TCP checksums (else the CPU, host bytes only) */
	bool tx_cksum;         /**< NIC computes IPv4/TCP checksums (else the CPU: host payload only) */
	bool tx_multi_seg;     /**< multi-segment TX (else one buffer per frame) */
	bool tso;              /**< TCP segmentation offload on */
	bool lro;              /**< RX LRO on */
	/**
	 * The PMD frees transmitted mbufs on request (rte_eth_tx_done_cleanup).
	 * Else, once it holds acknowledged sends for a while, the stacks
	 * write payload into their frames (tx_held_switch).
	 */
	bool tx_cleanup;
	bool steered;          /**< host queue and rte_flow rules */
	uint16_t nb_rxq;       /**< RX queues of the port */
	char driver[32];       /**< the PMD's name */
	char why[160];         /**< why the placement differs from the one asked for ("": it does not) */
	/**
	 * A host queue was asked for and the port is steered by RSS alone:
	 * why, and what that loses ("": steering as asked).
	 */
	char steer_why[256];
};

/**
 * What dt_dp_port_start() decided for @p port_id (a started port).
 * @param port_id  the port
 * @param mode     filled on success
 * @return 0, or -ENODEV when lib/dp did not start the port (or @p mode
 *	is NULL).
 */
int dt_dp_port_mode_get(uint16_t port_id, struct dt_dp_port_mode *mode);

/**
 * Name of a placement: "host", "split-proto", "split-len", "copy".
 * @param rx  an enum dt_dp_rx_place (an unknown value is named "host")
 * @return the name, a static string
 */
const char *dt_dp_rx_place_name(uint8_t rx);

/**
 * One line for a start-up report or a CLI: "rx=copy rx_cksum=cpu
 * tx_cksum=nic tx=multi-seg tso=on lro=off steering=rss (net_af_packet)",
 * then ": " and @c why when that is not empty, then "; steering: " and
 * @c steer_why when that is not empty.
 * @param mode  what dt_dp_port_mode_get() gave
 * @param buf   receives the line, NUL-terminated
 * @param len   size of @p buf
 * @return snprintf()'s result.
 */
int dt_dp_port_mode_str(const struct dt_dp_port_mode *mode, char *buf,
	size_t len);

/**
 * Length of the header segment when a protocol split falls back to a
 * length split: Ethernet + IPv4 + TCP + the timestamp option (12 bytes
 * padded), the headers of a Linux peer's data segments. Shorter headers
 * leave payload bytes in the header buffer (HOST chunks); longer ones
 * (SACK blocks) spill into device memory and are read through the
 * region's CPU map, or dropped and counted (drop_hdr_in_device).
 */
#define DT_DP_SPLIT_LEN_FALLBACK 66

/** Default header-segment mask: Ethernet / IPv4 / TCP. */
#define DT_DP_SPLIT_PROTO_IPV4_TCP \
	(RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_TCP)

/**
 * Configure, set up the queues of and start @p port_id.
 *
 * @param port_id  the port (probed by EAL)
 * @param conf     the port's configuration
 * @param err      receives a one-line reason on failure (may be NULL)
 * @param errlen   size of @p err
 * @return 0, or a negative errno: -ENOTSUP when the NIC lacks a capability
 *         the configuration needs (named in @p err), -EINVAL for a bad
 *         configuration, or the error of the failing ethdev call.
 */
int dt_dp_port_start(uint16_t port_id, const struct dt_dp_port_conf *conf,
	char *err, size_t errlen);

/**
 * Stop @p port_id (queues keep their configuration until the next start).
 * Destroy the port's stacks first (they remove their steering rules).
 * @param port_id  the port
 * @return rte_eth_dev_stop()'s result: 0 or a negative errno
 */
int dt_dp_port_stop(uint16_t port_id);

/** A port's RSS as the NIC applies it (dt_dp_port_rss_get()). */
struct dt_dp_port_rss {
	uint8_t key[64];          /**< Toeplitz key, key_len bytes */
	uint8_t key_len;          /**< bytes of @c key in use */
	uint16_t reta[512];       /**< redirection table: queue per hash bucket */
	uint16_t reta_size;       /**< 0: the port has no RSS (one RX queue) */
	bool l4;                  /**< TCP ports hashed too (RTE_ETH_RSS_NONFRAG_IPV4_TCP) */
};

/**
 * Read a started port's RSS key and redirection table: what a stack needs
 * to know where the NIC sends a 4-tuple, and what a sender that knows its
 * receiver gives dt_dp_connect_rss() (struct dt_dp_peer_rss).
 * @return 0 (reta_size 0 with one RX queue), -ENOTSUP (a key or table
 *         larger than the struct holds), or the ethdev call's error.
 * @param port_id  a started port
 * @param rss      filled on success
 */
int dt_dp_port_rss_get(uint16_t port_id, struct dt_dp_port_rss *rss);

/**
 * Whether the NIC splits headers matching the cumulative ptype @p mask
 * into their own segment (rte_eth_buffer_split_get_supported_hdr_ptypes).
 * @param port_id  the port
 * @param mask     cumulative RTE_PTYPE_* mask, e.g. DT_DP_SPLIT_PROTO_IPV4_TCP
 * @return true when the NIC lists exactly @p mask among its split ptypes
 */
bool dt_dp_port_split_proto_supported(uint16_t port_id, uint32_t mask);

#ifdef __cplusplus
}
#endif

#endif /* DT_DP_PORT_H */
