/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TCP segmentation offload in the NIC model: a frame marked
 * RTE_MBUF_F_TX_TCP_SEG (one Ethernet/IPv4/TCP header, up to 256 KiB of
 * payload) leaves as segments of tso_segsz payload bytes, each with the
 * headers replicated and fixed up as a NIC does: IPv4 total length and id
 * (+1 per segment), TCP sequence number (+ payload before it), PSH and FIN
 * on the last segment only, CWR on the first only; checksums are then
 * computed per segment (hsplit_tx_cksum). Pure: no EAL.
 */
#ifndef HSPLIT_TSO_H
#define HSPLIT_TSO_H

#include <stdint.h>

#include <rte_mbuf_core.h>

#include "hsplit_caps.h"

/**
 * Segments the model cuts one TSO frame into at most: a frame needing more
 * is dropped (lib/tcp never asks for more, DT_TCP_TSO_SEGS_MAX).
 */
#define HSPLIT_TSO_SEGS_MAX 128

/** How a TSO frame is cut. */
struct hsplit_tso_plan {
	uint16_t hdr_len;   /**< l2 + l3 + l4 header bytes */
	uint16_t mss;       /**< payload bytes per segment */
	uint16_t nseg;      /**< segments */
	uint32_t payload;   /**< payload bytes in all */
};

/** One segment's place in its frame (what its header fix-up needs). */
struct hsplit_tso_seg {
	uint16_t idx;       /**< 0..nseg-1 */
	uint16_t nseg;      /**< 0: not a TSO segment */
	uint32_t off;       /**< payload bytes before it */
};

/**
 * Check TSO frame @p m against profile @p caps and plan its segments.
 * @return 0, or -1 (bad header lengths, IPv4/TCP missing, headers outside
 *	the first buffer, MSS out of range, frame too long or too many
 *	buffers): the frame is dropped.
 */
int hsplit_tso_plan(const struct rte_mbuf *m, const struct hsplit_caps *caps,
	struct hsplit_tso_plan *pl);

/** Wire bytes (frames and their overhead @p per_frame) of frame @p m. */
uint64_t hsplit_tso_wire_len(const struct rte_mbuf *m, uint32_t per_frame);

/**
 * Fix up the replicated headers of segment @p s (@p len bytes at
 * @p frame; l2 @p l2_len, l3 @p l3_len bytes) for the wire.
 */
void hsplit_tso_fix(uint8_t *frame, uint32_t len, uint16_t l2_len,
	uint16_t l3_len, const struct hsplit_tso_seg *s);

#endif /* HSPLIT_TSO_H */
