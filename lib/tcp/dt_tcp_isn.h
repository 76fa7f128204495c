/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Initial sequence numbers per RFC 6528: ISN = M + F(4-tuple, secret),
 * M a 4-microsecond clock, F SipHash-2-4 keyed by a caller secret. The
 * caller supplies the secret (random at start-up) and the time.
 */
#ifndef DT_TCP_ISN_H
#define DT_TCP_ISN_H

#include <stddef.h>
#include <stdint.h>

#include "dt_tcp.h"

/** A 128-bit secret. */
struct dt_tcp_isn_key {
	uint8_t k[16];
};

/** SipHash-2-4 of @p len bytes at @p msg. */
uint64_t dt_tcp_siphash(const struct dt_tcp_isn_key *key, const void *msg,
	size_t len);

/** RFC 6528 ISN for tuple @p t at time @p now_us. */
uint32_t dt_tcp_isn(const struct dt_tcp_isn_key *key,
	const struct dt_tcp_tuple *t, uint64_t now_us);

#endif /* DT_TCP_ISN_H */
