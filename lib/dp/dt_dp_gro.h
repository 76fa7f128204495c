/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive coalescing within one RX burst (software GRO): consecutive
 * in-order frames of one connection go into the engine as one segment of
 * several extents. The rule is pure (no EAL): a run, the frames that may
 * join it, and why a frame ends it. What the engine sees is the same byte
 * stream; only the number of dt_tcp_input() calls falls.
 */
#ifndef DT_DP_GRO_H
#define DT_DP_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_net_tcp.h"
#include "dt_tcp.h"

/** Why a frame does not join the pending run (DT_DP_GRO_JOIN: it does). */
enum dt_dp_gro_why {
	DT_DP_GRO_JOIN,		/**< contiguous, same header fields: merged */
	DT_DP_GRO_NO_RUN,	/**< no run pending */
	DT_DP_GRO_OTHER_CONN,	/**< another 4-tuple */
	DT_DP_GRO_SEQ,		/**< not at the run's end (gap, overlap, older) */
	DT_DP_GRO_ACK,		/**< acknowledgment number differs */
	DT_DP_GRO_WIN,		/**< window field differs */
	DT_DP_GRO_OPTS,		/**< option layout or TSecr differs, TSval older */
	DT_DP_GRO_EXT,		/**< extents would exceed DT_TCP_SEG_MAX_EXT */
	DT_DP_GRO_PSH,		/**< the run already ended with PSH */
};

/** A run being built: one segment of the engine. */
struct dt_dp_gro_run {
	struct dt_tcp_tuple tuple;
	struct dt_net_tcp_hdr th;	/**< first seq; last PSH and TSval */
	uint32_t len;			/**< payload bytes */
	uint16_t n_ext;
	uint16_t n_frames;		/**< 0: no run pending */
	void *conn;			/**< the caller's connection */
	struct dt_tcp_extent ext[DT_TCP_SEG_MAX_EXT];
};

/**
 * Whether a frame may be part of a run at all: payload, flags ACK or
 * ACK|PSH only, no options or timestamps alone (no SACK, nothing else),
 * and an L4 checksum the NIC verified.
 * @param th        the parsed header
 * @param plen      payload bytes
 * @param hw_cksum  the NIC's verdict was GOOD (or NONE: data intact)
 */
bool dt_dp_gro_candidate(const struct dt_net_tcp_hdr *th, uint32_t plen,
	bool hw_cksum);

/**
 * Whether candidate frame @p th of @p t (@p n_ext payload extents) joins
 * @p r: same tuple, seq at the run's end, same ACK, window, option layout
 * and TSecr, TSval not older, extents within DT_TCP_SEG_MAX_EXT, and the
 * run not closed by a PSH.
 */
enum dt_dp_gro_why dt_dp_gro_match(const struct dt_dp_gro_run *r,
	const struct dt_tcp_tuple *t, const struct dt_net_tcp_hdr *th,
	uint16_t n_ext);

/** Start @p r with a candidate frame (@p r had no run pending). */
void dt_dp_gro_start(struct dt_dp_gro_run *r, const struct dt_tcp_tuple *t,
	const struct dt_net_tcp_hdr *th, uint32_t plen,
	const struct dt_tcp_extent *ext, uint16_t n_ext, void *conn);

/** Append a frame dt_dp_gro_match() accepted: PSH and TSval of the last. */
void dt_dp_gro_append(struct dt_dp_gro_run *r, const struct dt_net_tcp_hdr *th,
	uint32_t plen, const struct dt_tcp_extent *ext, uint16_t n_ext);

/** The engine's segment of @p r (valid until @p r changes). */
void dt_dp_gro_seg(const struct dt_dp_gro_run *r, struct dt_tcp_seg *seg);

#endif /* DT_DP_GRO_H */
