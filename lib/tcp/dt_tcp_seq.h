/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Sequence-number arithmetic modulo 2^32 (RFC 9293 3.4): comparisons are
 * made on the signed difference, valid while the values are less than 2^31
 * apart, which the windows (at most 2^30) guarantee.
 */
#ifndef DT_TCP_SEQ_H
#define DT_TCP_SEQ_H

#include <stdbool.h>
#include <stdint.h>

/** a < b in sequence space. */
static inline bool
dt_tcp_seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/** a <= b in sequence space. */
static inline bool
dt_tcp_seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

/** a > b in sequence space. */
static inline bool
dt_tcp_seq_gt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/** a >= b in sequence space. */
static inline bool
dt_tcp_seq_ge(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

/** The later of two sequence numbers. */
static inline uint32_t
dt_tcp_seq_max(uint32_t a, uint32_t b)
{
	return dt_tcp_seq_gt(a, b) ? a : b;
}

/** The earlier of two sequence numbers. */
static inline uint32_t
dt_tcp_seq_min(uint32_t a, uint32_t b)
{
	return dt_tcp_seq_lt(a, b) ? a : b;
}

/** lo <= s < hi in sequence space (an empty range holds nothing). */
static inline bool
dt_tcp_seq_in(uint32_t s, uint32_t lo, uint32_t hi)
{
	return dt_tcp_seq_ge(s, lo) && dt_tcp_seq_lt(s, hi);
}

#endif /* DT_TCP_SEQ_H */
