/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_mbuf_ptype.h>

#include "hsplit_split.h"
#include "hsplit_parse.h"

int
hsplit_split_proto_len(uint32_t mask, const struct hsplit_pkt_info *pi)
{
	uint32_t pt = pi->ptype;
	int len;

	if ((pt & RTE_PTYPE_L2_MASK) == 0 || pi->l2_len == 0)
		return -1;
	len = pi->l2_len;
	if (mask & RTE_PTYPE_L3_MASK) {
		if (RTE_ETH_IS_IPV4_HDR(mask) && !RTE_ETH_IS_IPV4_HDR(pt))
			return -1;
		if (RTE_ETH_IS_IPV6_HDR(mask) && !RTE_ETH_IS_IPV6_HDR(pt))
			return -1;
		if (pi->l3_len == 0)
			return -1;
		len += pi->l3_len;
	}
	if (mask & RTE_PTYPE_L4_MASK) {
		if (pi->is_fragment || pi->l4_len == 0 ||
				(pt & RTE_PTYPE_L4_MASK) != (mask & RTE_PTYPE_L4_MASK))
			return -1;
		len += pi->l4_len;
	}
	return len;
}

/*
 * Put @p len bytes in buffers: first the segment's first buffer (unless
 * @p first is 0: continuing), then continuation buffers. @p limit caps the
 * first buffer's share (segment length). Returns bytes left unplaced when
 * continuation is not allowed, or -1 when the chain limit is hit.
 */
static int
place(struct hsplit_layout *l, const struct hsplit_seg_cfg *sc, uint8_t pool,
	uint32_t len, uint32_t limit, int allow_cont)
{
	uint32_t n = len < limit ? len : limit;

	if (l->nb >= HSPLIT_MAX_CHAIN)
		return -1;
	l->s[l->nb++] = (struct hsplit_lseg){ .off = sc->off, .len = (uint16_t)n,
		.pool = pool };
	len -= n;
	while (len > 0 && allow_cont) {
		if (l->nb >= HSPLIT_MAX_CHAIN || sc->cont_cap == 0)
			return -1;
		n = len < sc->cont_cap ? len : sc->cont_cap;
		l->s[l->nb++] = (struct hsplit_lseg){ .off = sc->cont_off,
			.len = (uint16_t)n, .pool = pool };
		len -= n;
	}
	return (int)len;
}

static inline uint32_t
seg_limit(const struct hsplit_seg_cfg *sc)
{
	return sc->length != 0 && sc->length < sc->cap ? sc->length : sc->cap;
}

/* Whole frame in one pool's buffers (no split, or a non-matching frame). */
static enum hsplit_layout_result
layout_whole(const struct hsplit_split_cfg *c, uint8_t pool, uint32_t frame_len,
	int allow_cont, struct hsplit_layout *l)
{
	int r = place(l, &c->seg[pool], pool, frame_len, c->seg[pool].cap,
		allow_cont);

	return r == 0 ? HSPLIT_LAYOUT_OK : HSPLIT_LAYOUT_TOO_BIG;
}

/* Header boundaries of a matched frame; -1 when it does not match. */
static int
match_hdr(const struct hsplit_split_cfg *c, const struct hsplit_pkt_info *pi,
	uint32_t frame_len, uint32_t bound[HSPLIT_MAX_NSEG])
{
	uint32_t i, cap = 0;
	int len;

	if (c->mode == HSPLIT_SPLIT_PROTO) {
		for (i = 0; i < c->nb_hdr; i++) {
			len = hsplit_split_proto_len(c->seg[i].proto_mask, pi);
			if (len < 0)
				return -1;
			bound[i] = (uint32_t)len;
		}
		return 0;
	}
	if (c->len_exact) {
		for (i = 0; i < c->nb_hdr; i++) {
			cap += seg_limit(&c->seg[i]);
			bound[i] = cap < frame_len ? cap : frame_len;
		}
		return 0;
	}
	/* Length split: the L2..L4 headers must fit in the header segments. */
	if (pi->is_fragment || pi->l4_len == 0 ||
			((pi->ptype & RTE_PTYPE_L4_MASK) != RTE_PTYPE_L4_TCP &&
			 (pi->ptype & RTE_PTYPE_L4_MASK) != RTE_PTYPE_L4_UDP))
		return -1;
	for (i = 0; i < c->nb_hdr; i++) {
		cap += seg_limit(&c->seg[i]);
		bound[i] = cap < frame_len ? cap : frame_len;
	}
	return hsplit_pkt_hdr_len(pi) <= cap ? 0 : -1;
}

enum hsplit_layout_result
hsplit_split_layout(const struct hsplit_split_cfg *c,
	const struct hsplit_pkt_info *pi, uint32_t frame_len,
	struct hsplit_layout *l)
{
	uint32_t bound[HSPLIT_MAX_NSEG];
	uint32_t i, pos = 0, rem;
	int r;

	l->nb = 0;
	l->nb_hdr = 0;
	l->hdr_bytes = 0;
	l->matched = 1;
	if (c->mode == HSPLIT_SPLIT_NONE || c->nseg < 2)
		return layout_whole(c, 0, frame_len, c->scatter, l);
	if (match_hdr(c, pi, frame_len, bound) < 0) {
		l->matched = 0;
		if (c->nomatch == HSPLIT_NOMATCH_LAST)
			return layout_whole(c, c->nseg - 1, frame_len, 1, l);
		return layout_whole(c, 0, frame_len, 1, l);
	}
	for (i = 0; i < c->nb_hdr; i++) {
		uint32_t n = bound[i] - pos;

		if (n > seg_limit(&c->seg[i]))
			return HSPLIT_LAYOUT_HDR_TOO_BIG;
		/* mlx5: the chain ends with the frame, no empty segments. */
		if (c->len_exact && n == 0 && l->nb > 0)
			break;
		place(l, &c->seg[i], (uint8_t)i, n, n, 0);
		pos = bound[i];
	}
	l->nb_hdr = (uint8_t)l->nb;
	l->hdr_bytes = pos;
	rem = frame_len - pos;
	if (c->len_exact && rem == 0)
		return HSPLIT_LAYOUT_OK;
	/* Payload: the payload segments in order, at least one, then the last pool. */
	for (i = c->nb_hdr; i < c->nseg; i++) {
		int last = i == (uint32_t)c->nseg - 1;

		r = place(l, &c->seg[i], (uint8_t)i, rem, seg_limit(&c->seg[i]),
			last && c->scatter);
		if (r < 0)
			return HSPLIT_LAYOUT_TOO_BIG;
		rem = (uint32_t)r;
		if (rem == 0)
			break;
	}
	return rem == 0 ? HSPLIT_LAYOUT_OK : HSPLIT_LAYOUT_TOO_BIG;
}
