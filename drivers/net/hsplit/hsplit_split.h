/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Split decision of the software NIC, pure: from the parsed frame, its
 * length and the queue's split configuration, the layout of the mbuf chain
 * (which pool each segment comes from, its data offset and length).
 *
 * Chain shapes (decided here, documented for the stack):
 * - no split: the frame in buffers of the one pool; more than one buffer
 *   only with SCATTER, else the frame is dropped (too big).
 * - matched split (proto or length): one segment per header segment of the
 *   configuration (proto: the layers its cumulative mask names; length: its
 *   length, possibly 0 bytes for a short frame), then the payload segments:
 *   always at least one, possibly of 0 bytes (a pure TCP ACK), like ice,
 *   so the stack sees a fixed chain shape. Payload longer than the payload
 *   segments continues in buffers of the last pool at offset 0, which needs
 *   SCATTER. A header layer longer than its header buffer: drop.
 * - non-matching frame, nomatch=host: the whole frame in buffers of the
 *   header (seg0) pool, so the CPU never reads device memory for ARP, ICMP,
 *   fragments and the like; nomatch=last: the whole frame in buffers of the
 *   last pool (ethdev's exact-match semantics). Both chain without SCATTER:
 *   the configuration already asked for chains.
 * With len_exact (the mlx5 profile) a length split matches every frame: it
 * is cut at the lengths, headers or not, and ends where the frame ends (a
 * frame shorter than the header segment is one buffer, as on mlx5).
 * A frame is matched when (proto split) it has every layer of the cumulative
 * mask of the last header segment, the L4 one not a fragment; (length split)
 * it is TCP or UDP, not a fragment, and its L2..L4 headers fit in the header
 * segments.
 */
#ifndef HSPLIT_SPLIT_H
#define HSPLIT_SPLIT_H

#include <stdint.h>

#include "hsplit_pkt.h"

/** Segments of a split configuration: the most a profile reports (mlx5's 32). */
#define HSPLIT_MAX_NSEG 32
/** What the full profile reports (rx_seg_capa.max_nseg). */
#define HSPLIT_FULL_NSEG 8
/** Most buffers one received frame may take. */
#define HSPLIT_MAX_CHAIN 64

enum hsplit_split_mode {
	HSPLIT_SPLIT_NONE = 0,  /**< one pool */
	HSPLIT_SPLIT_LENGTH,    /**< rte_eth_rxseg_split.length */
	HSPLIT_SPLIT_PROTO,     /**< rte_eth_rxseg_split.proto_hdr */
};

enum hsplit_nomatch {
	HSPLIT_NOMATCH_HOST = 0, /**< whole frame in header-pool buffers */
	HSPLIT_NOMATCH_LAST,     /**< whole frame in last-pool buffers */
};

/** One configured segment, in bytes of one buffer of its pool. */
struct hsplit_seg_cfg {
	uint32_t proto_mask; /**< cumulative RTE_PTYPE mask up to here; 0 if none */
	uint16_t length;     /**< bytes this segment takes (length and payload segments) */
	uint16_t off;        /**< data_off of its first buffer */
	uint16_t cap;        /**< room from off to the buffer end */
	uint16_t cont_off;   /**< data_off of continuation buffers of this pool */
	uint16_t cont_cap;   /**< their room */
};

/** A queue's split configuration. */
struct hsplit_split_cfg {
	uint8_t mode;        /**< enum hsplit_split_mode */
	uint8_t nseg;        /**< configured segments (1 for NONE) */
	uint8_t nb_hdr;      /**< header segments (leading) */
	uint8_t nomatch;     /**< enum hsplit_nomatch */
	uint8_t scatter;     /**< RTE_ETH_RX_OFFLOAD_SCATTER on */
	/**
	 * Length split cuts every frame at the segment lengths (mlx5):
	 * headers longer than the header segments continue in the payload
	 * segments, and the chain ends where the frame does.
	 */
	uint8_t len_exact;
	struct hsplit_seg_cfg seg[HSPLIT_MAX_NSEG];
};

/** One buffer of a chain. */
struct hsplit_lseg {
	uint16_t off;   /**< data_off */
	uint16_t len;   /**< data_len */
	uint8_t pool;   /**< index into the configuration's segments */
};

enum hsplit_layout_result {
	HSPLIT_LAYOUT_OK = 0,
	HSPLIT_LAYOUT_HDR_TOO_BIG,  /**< a header layer does not fit its buffer */
	HSPLIT_LAYOUT_TOO_BIG,      /**< needs SCATTER, or more than HSPLIT_MAX_CHAIN buffers */
};

struct hsplit_layout {
	uint16_t nb;         /**< buffers */
	uint8_t matched;     /**< split as configured (0: nomatch handling) */
	uint8_t nb_hdr;      /**< leading buffers that are header segments */
	uint32_t hdr_bytes;  /**< bytes in header segments */
	struct hsplit_lseg s[HSPLIT_MAX_CHAIN];
};

/**
 * Lay out a frame.
 * @return HSPLIT_LAYOUT_OK, or why the frame must be dropped.
 */
enum hsplit_layout_result hsplit_split_layout(const struct hsplit_split_cfg *c,
	const struct hsplit_pkt_info *pi, uint32_t frame_len,
	struct hsplit_layout *l);

/**
 * Header bytes the cumulative proto mask @p mask covers in frame @p pi
 * (L2, +L3, +L4), or -1 when the frame lacks one of its layers.
 */
int hsplit_split_proto_len(uint32_t mask, const struct hsplit_pkt_info *pi);

#endif /* HSPLIT_SPLIT_H */
