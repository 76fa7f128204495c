/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * SYN cookies (RFC 4987 3.6): when the SYN queue is full the listener keeps
 * no state for a SYN and encodes what it needs in the SYN-ACK's initial
 * sequence number, which the handshake's final ACK echoes back (ack - 1).
 *
 * The cookie (32 bits):
 *   bits 31..29  time slot counter (DT_TCP_COOKIE_SLOT_US) modulo 8
 *   bits 28..26  index of the peer's MSS in a table, rounded down
 *   bits 25..0   SipHash-2-4 over the 4-tuple, the peer's ISN, the full
 *                slot counter, the MSS index and the option bits below,
 *                keyed by the caller's secret
 * With timestamps (the peer offered them and we accept them) the option
 * bits also travel in the low DT_TCP_COOKIE_TS_BITS bits of the SYN-ACK's
 * TSval, which the final ACK echoes in its TSecr: the peer's window shift
 * (4 bits, 15 = no window scaling) and SACK-permitted (1 bit). Without
 * timestamps there is nowhere to carry them: the connection gets neither
 * window scaling nor SACK (the known cost of cookies). Since the hash
 * covers the option bits, a final ACK cannot alter them, and an ACK that
 * drops the timestamps a SYN offered fails validation.
 *
 * A cookie is accepted during the slot it was made in and the next one
 * (64 to 128 s), like Linux's two-minute limit. The engine stays
 * sans-IO: the caller passes the time and the secret.
 */
#ifndef DT_TCP_COOKIE_H
#define DT_TCP_COOKIE_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_tcp.h"
#include "dt_tcp_isn.h"

/** Length of one cookie time slot, microseconds. */
#define DT_TCP_COOKIE_SLOT_US (64ull * 1000000)
/** Low TSval bits that carry the option bits when timestamps are on. */
#define DT_TCP_COOKIE_TS_BITS 5
#define DT_TCP_COOKIE_TS_MASK ((1u << DT_TCP_COOKIE_TS_BITS) - 1)

/** What a cookie carries of the peer's SYN. */
struct dt_tcp_cookie_opts {
	uint16_t mss;		/**< peer MSS, rounded down to the table */
	uint8_t wscale;		/**< valid with DT_NET_TCPOPT_F_WSCALE */
	uint8_t present;	/**< DT_NET_TCPOPT_F_{MSS,WSCALE,SACK_PERM,TS} */
};

/**
 * Make the cookie for a SYN.
 * @param irs  the peer's initial sequence number (the SYN's seq)
 * @param o    in: the options to keep (only those we accept); out: what
 *	the cookie encodes (MSS rounded down; window scale and SACK dropped
 *	without timestamps)
 * @return the cookie, our initial sequence number
 */
uint32_t dt_tcp_cookie_make(const struct dt_tcp_isn_key *key,
	const struct dt_tcp_tuple *t, uint32_t irs, uint64_t now_us,
	struct dt_tcp_cookie_opts *o);

/**
 * TSval for the SYN-ACK of a cookie: @p ts_now (our clock plus the
 * connection's offset) with its low bits replaced by the option bits of
 * @p o, never above @p ts_now, so that the connection's later TSvals do not
 * go backwards.
 */
uint32_t dt_tcp_cookie_tsval(uint32_t ts_now, const struct dt_tcp_cookie_opts *o);

/**
 * Validate a final ACK as the answer to a cookie.
 * @param irs     the peer's ISN (the ACK's seq - 1)
 * @param cookie  the ACK's ack - 1
 * @param ts      the ACK carries timestamps; @p ts_ecr is its TSecr
 * @param o       out: the decoded options, on success
 * @return true when the cookie is ours, for this tuple, and not too old
 */
bool dt_tcp_cookie_check(const struct dt_tcp_isn_key *key,
	const struct dt_tcp_tuple *t, uint32_t irs, uint32_t cookie, bool ts,
	uint32_t ts_ecr, uint64_t now_us, struct dt_tcp_cookie_opts *o);

#endif /* DT_TCP_COOKIE_H */
