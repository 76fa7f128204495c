/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Capability profiles of the software NIC (devarg caps=): what a port
 * reports for buffer split and how it splits, so that the stack above runs
 * against what DPDK 22.11's mlx5 and ice PMDs report (sources cited in
 * README.md, "Capability profiles"):
 *   full  the software NIC's own: length and protocol split, 8 segments,
 *         multi-pool, offsets; a length-split frame whose headers do not fit
 *         the header segment is handled as not matching (nomatch=).
 *   mlx5  length/offset split only, 32 segments, multi-pool and offsets
 *         (MPRQ off); no buffer_split_supported_hdr_ptypes_get, so ethdev
 *         refuses proto_hdr with -ENOTSUP. Every frame is cut at the
 *         segment lengths whatever it holds: headers longer than the
 *         header segment spill into the next (device-memory) segment, and a
 *         frame shorter than the header segment comes as one segment.
 *   ice   protocol split only (scalar RX path), exactly 2 segments,
 *         multi-pool, no offsets; a length split is refused at queue set-up
 *         (ice refuses it at queue start).
 *   notso the software NIC's own without TCP segmentation offload (the
 *         baseline a stack that hands bursts to the NIC is measured
 *         against).
 *   nosplit a NIC without buffer split (i40e-like): checksums, RSS,
 *         rte_flow, scatter and TSO, one pool per queue: whole frames.
 *   noflow a NIC without rte_flow (ENA-like): checksums, RSS, scatter and
 *         TSO, no buffer split, and no flow API (rte_flow calls fail
 *         with ENOSYS, as on a driver without flow_ops_get).
 *   linear a port that offers nothing (DPDK 22.11's af_xdp): no split, no
 *         checksums, no RSS, no multi-segment TX (a chain is dropped and
 *         counted, drop_multi_seg), no TSO.
 * Every profile but notso and linear offers RTE_ETH_TX_OFFLOAD_TCP_TSO on the loopback
 * wire, with its NIC's TX limits (tx_desc_lim, MSS range, frame size).
 * Pure: no EAL.
 */
#ifndef HSPLIT_CAPS_H
#define HSPLIT_CAPS_H

#include <stdint.h>

enum hsplit_caps_profile {
	HSPLIT_CAPS_FULL = 0,
	HSPLIT_CAPS_MLX5,
	HSPLIT_CAPS_ICE,
	HSPLIT_CAPS_NOTSO,
	HSPLIT_CAPS_NOSPLIT,
	HSPLIT_CAPS_NOFLOW,
	HSPLIT_CAPS_LINEAR,
};

/** What a profile reports and allows. */
struct hsplit_caps {
	const char *name;
	uint16_t max_nseg;          /**< rx_seg_capa.max_nseg */
	uint8_t multi_pools;        /**< rx_seg_capa.multi_pools */
	uint8_t offset_allowed;     /**< rx_seg_capa.offset_allowed */
	uint8_t offset_align_log2;  /**< rx_seg_capa.offset_align_log2 */
	uint8_t len_split;          /**< length split accepted */
	/** Length split cuts every frame at the lengths (mlx5), spilling headers. */
	uint8_t len_exact;
	uint64_t rx_offload_capa;   /**< port and queue RX offloads */
	uint64_t rx_queue_offload_capa;
	/** Protocol split header combinations, RTE_PTYPE_UNKNOWN ended; NULL: none. */
	const uint32_t *split_ptypes;
	uint8_t tso;                /**< RTE_ETH_TX_OFFLOAD_TCP_TSO offered */
	/** No TX offloads at all: no checksums, one buffer per frame. */
	uint8_t tx_linear;
	uint16_t tx_nb_seg_max;     /**< tx_desc_lim.nb_seg_max: buffers of a TSO frame */
	uint16_t tx_nb_mtu_seg_max; /**< tx_desc_lim.nb_mtu_seg_max */
	uint16_t tso_mss_min;       /**< tso_segsz accepted */
	uint16_t tso_mss_max;
	uint32_t tso_max_len;       /**< pkt_len of a TSO frame at most */
	uint8_t no_flow;            /**< no rte_flow API at all */
};

/** The profile's capabilities (@p prof an enum hsplit_caps_profile). */
const struct hsplit_caps *hsplit_caps_get(unsigned int prof);

/**
 * Parse a caps= value.
 * @return the enum hsplit_caps_profile, or -1 for an unknown name
 */
int hsplit_caps_parse(const char *val);

#endif /* HSPLIT_CAPS_H */
