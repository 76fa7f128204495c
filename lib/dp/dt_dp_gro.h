/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive coalescing within one RX burst (software GRO): consecutive
 * in-order frames of one connection go into the engine as one segment of
 * several extents. The rule is pure (no EAL): a run, the frames that may
 * join it, and why a frame ends it. What the engine sees is the same byte
 * stream; only the number of dt_tcp_input() calls falls.
 *
 * A merged segment must mean to the engine exactly what its frames meant
 * one by one: only pure data segments with the same acknowledgment, window
 * and options join, so the ACK, window update and PAWS processing happen
 * once for all of them, on the values each of them carried. A PSH ends
 * the run (the sender marked a message boundary). Inline: called per
 * frame on the receive path.
 */
#ifndef DT_DP_GRO_H
#define DT_DP_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include <string.h>

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

/* Sequence-space comparison: a at or after b. */
static inline bool
dt_dp_gro_seq_ge(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

/** Header bytes of a run's first frame kept for the byte compare. */
#define DT_DP_GRO_HDR_MAX 96

/** A run being built: one segment of the engine. */
struct dt_dp_gro_run {
	struct dt_tcp_tuple tuple;
	struct dt_net_tcp_hdr th;	/**< first seq; last PSH and TSval */
	uint32_t len;			/**< payload bytes */
	uint16_t n_ext;
	uint16_t n_frames;		/**< 0: no run pending */
	void *conn;			/**< the caller's connection */
	/*
	 * The first frame's Ethernet, IPv4 (no options) and TCP header
	 * (no options, or NOP,NOP,TS), parsed and checked: a later frame
	 * whose bytes equal these except where frames of one run differ
	 * (dt_dp_gro_hdr_same()) needs no parse. hlen 0: no template.
	 */
	uint8_t l2_len;
	uint8_t hlen;
	uint8_t hdr[DT_DP_GRO_HDR_MAX];
	struct dt_tcp_extent ext[DT_TCP_SEG_MAX_EXT];
};

/** The NOP,NOP,TS option layout (RFC 7323 appendix A) at @p o. */
static inline bool
dt_dp_gro_ts_layout(const uint8_t *o)
{
	return o[0] == 1 && o[1] == 1 && o[2] == DT_NET_TCPOPT_TS && o[3] == 10;
}

/**
 * Keep the header of the run's first frame as its template: @p p holds
 * @p l2_len bytes of link header, a 20-byte IPv4 header and the TCP header
 * of @p r->th (no options, or exactly NOP,NOP,TS); other layouts, and
 * @p p NULL, get none.
 */
static inline void
dt_dp_gro_template(struct dt_dp_gro_run *r, const uint8_t *p, uint32_t l2_len,
	uint32_t ip_hlen)
{
	uint32_t l4 = l2_len + ip_hlen, hl = l4 + r->th.hdr_len;

	r->hlen = 0;
	if (p == NULL || ip_hlen != 20 || hl > DT_DP_GRO_HDR_MAX)
		return;
	if (r->th.hdr_len == DT_NET_TCP_HLEN_MIN + 12 &&
			!dt_dp_gro_ts_layout(p + l4 + 20))
		return;
	memcpy(r->hdr, p, hl);
	r->l2_len = (uint8_t)l2_len;
	r->hlen = (uint8_t)hl;
}

/**
 * Whether header bytes @p p (r->hlen of them readable) equal the run's
 * template except in the fields frames of one run differ in: IPv4 total
 * length, identification and checksum; TCP sequence number, flags,
 * checksum and TSval. The caller still checks those (seq at the run's
 * end, flags ACK or ACK|PSH, lengths, TSval not older, checksum verdicts).
 */
static inline bool
dt_dp_gro_hdr_same(const struct dt_dp_gro_run *r, const uint8_t *p)
{
	const uint8_t *t = r->hdr;
	uint32_t l3 = r->l2_len, l4 = l3 + 20;

	if (r->hlen == 0)
		return false;
	/* Link header; version, IHL, TOS. */
	if (memcmp(p, t, l3 + 2) != 0)
		return false;
	/* Fragment field, TTL, protocol. */
	if (memcmp(p + l3 + 6, t + l3 + 6, 4) != 0)
		return false;
	/* Addresses and ports. */
	if (memcmp(p + l3 + 12, t + l3 + 12, 12) != 0)
		return false;
	/* ACK number and data offset. */
	if (memcmp(p + l4 + 8, t + l4 + 8, 5) != 0)
		return false;
	/* Window; urgent pointer. */
	if (memcmp(p + l4 + 14, t + l4 + 14, 2) != 0 ||
			memcmp(p + l4 + 18, t + l4 + 18, 2) != 0)
		return false;
	if (r->hlen == l4 + DT_NET_TCP_HLEN_MIN)
		return true;
	/* NOP,NOP,TS kind and length; TSecr. */
	return memcmp(p + l4 + 20, t + l4 + 20, 4) == 0 &&
		memcmp(p + l4 + 28, t + l4 + 28, 4) == 0;
}

/**
 * Whether a frame may be part of a run at all: payload, flags ACK or
 * ACK|PSH only, no options or timestamps alone (no SACK, nothing else),
 * and an L4 checksum the NIC verified.
 * @param th        the parsed header
 * @param plen      payload bytes
 * @param hw_cksum  the NIC's verdict was GOOD (or NONE: data intact)
 */
static inline bool
dt_dp_gro_candidate(const struct dt_net_tcp_hdr *th, uint32_t plen,
	bool hw_cksum)
{
	uint8_t f = th->flags;

	if (plen == 0 || !hw_cksum)
		return false;
	if (!(f & DT_NET_TCP_ACK) ||
			(f & ~(DT_NET_TCP_ACK | DT_NET_TCP_PSH)) != 0)
		return false;
	/* No options, or timestamps alone (NOP,NOP,TS or TS with padding). */
	if (th->opts.present == 0)
		return th->hdr_len == DT_NET_TCP_HLEN_MIN;
	return th->opts.present == DT_NET_TCPOPT_F_TS &&
		th->hdr_len == DT_NET_TCP_HLEN_MIN + 12;
}

/**
 * Whether candidate frame @p th of @p t (@p n_ext payload extents) joins
 * @p r: same tuple, seq at the run's end, same ACK, window, option layout
 * and TSecr, TSval not older, extents within DT_TCP_SEG_MAX_EXT, and the
 * run not closed by a PSH.
 */
static inline enum dt_dp_gro_why
dt_dp_gro_match(const struct dt_dp_gro_run *r, const struct dt_tcp_tuple *t,
	const struct dt_net_tcp_hdr *th, uint16_t n_ext)
{
	const struct dt_net_tcp_hdr *h = &r->th;

	if (r->n_frames == 0)
		return DT_DP_GRO_NO_RUN;
	if (r->tuple.lport != t->lport || r->tuple.rport != t->rport ||
			r->tuple.raddr != t->raddr || r->tuple.laddr != t->laddr)
		return DT_DP_GRO_OTHER_CONN;
	if (h->flags & DT_NET_TCP_PSH)
		return DT_DP_GRO_PSH;
	if (th->seq != h->seq + r->len)
		return DT_DP_GRO_SEQ;
	if (th->ack != h->ack)
		return DT_DP_GRO_ACK;
	if (th->win != h->win)
		return DT_DP_GRO_WIN;
	if (th->hdr_len != h->hdr_len || th->opts.present != h->opts.present)
		return DT_DP_GRO_OPTS;
	/* PAWS runs once, on the last TSval: none may be older than the run's. */
	if ((th->opts.present & DT_NET_TCPOPT_F_TS) &&
			(th->opts.ts_ecr != h->opts.ts_ecr ||
			 !dt_dp_gro_seq_ge(th->opts.ts_val, h->opts.ts_val)))
		return DT_DP_GRO_OPTS;
	if ((uint32_t)r->n_ext + n_ext > DT_TCP_SEG_MAX_EXT)
		return DT_DP_GRO_EXT;
	return DT_DP_GRO_JOIN;
}

/** Start @p r with a candidate frame (@p r had no run pending). */
static inline void
dt_dp_gro_start(struct dt_dp_gro_run *r, const struct dt_tcp_tuple *t,
	const struct dt_net_tcp_hdr *th, uint32_t plen,
	const struct dt_tcp_extent *ext, uint16_t n_ext, void *conn)
{
	r->tuple = *t;
	r->th = *th;
	r->len = plen;
	r->n_ext = n_ext;
	r->n_frames = 1;
	r->conn = conn;
	r->hlen = 0;
	memcpy(r->ext, ext, n_ext * sizeof(*ext));
}

/** Append a frame dt_dp_gro_match() accepted: PSH and TSval of the last. */
static inline void
dt_dp_gro_append(struct dt_dp_gro_run *r, const struct dt_net_tcp_hdr *th,
	uint32_t plen, const struct dt_tcp_extent *ext, uint16_t n_ext)
{
	/* Mostly one extent (header split): no memcpy call for it. */
	if (n_ext == 1)
		r->ext[r->n_ext] = ext[0];
	else
		memcpy(r->ext + r->n_ext, ext, n_ext * sizeof(*ext));
	r->n_ext = (uint16_t)(r->n_ext + n_ext);
	r->len += plen;
	r->n_frames++;
	r->th.flags |= th->flags & DT_NET_TCP_PSH;
	r->th.opts.ts_val = th->opts.ts_val;
}

/** The engine's segment of @p r (valid until @p r changes). */
static inline void
dt_dp_gro_seg(const struct dt_dp_gro_run *r, struct dt_tcp_seg *seg)
{
	seg->th = r->th;
	seg->ext = r->ext;
	seg->n_ext = r->n_ext;
}

#endif /* DT_DP_GRO_H */
