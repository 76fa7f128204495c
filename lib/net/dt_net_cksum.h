/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Internet checksum (RFC 1071) over byte buffers: partial sums, IPv4 header
 * checksum, TCP/UDP pseudo-header sums for IPv4 and IPv6, incremental update
 * (RFC 1624). Pure functions, no DPDK types.
 *
 * Conventions: a "sum" is a 32-bit one's-complement accumulator of 16-bit
 * words read in network byte order (big-endian), so its value does not
 * depend on the host's byte order. A "checksum" is the folded, complemented
 * 16-bit value in host order: store it with htons() / as two big-endian
 * bytes. Partial sums chain: every chunk but the last must have an even
 * length (or use dt_net_cksum_add_at() with the chunk's offset).
 */
#ifndef DT_NET_CKSUM_H
#define DT_NET_CKSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** IP protocol numbers used by the pseudo-header helpers. */
#define DT_NET_IPPROTO_TCP 6
#define DT_NET_IPPROTO_UDP 17

/**
 * Add @p len bytes at @p buf to the sum @p sum.
 * @return the new (unfolded) sum
 */
uint32_t dt_net_cksum_add(uint32_t sum, const void *buf, size_t len);

/**
 * Like dt_net_cksum_add() for a chunk that starts at byte @p offset of the
 * checksummed data: an odd offset is handled (bytes are swapped into place),
 * so chunks of any length can be summed in any order.
 */
uint32_t dt_net_cksum_add_at(uint32_t sum, const void *buf, size_t len,
	size_t offset);

/** Fold a sum to 16 bits (not complemented). */
uint16_t dt_net_cksum_fold(uint32_t sum);

/** Fold and complement: the value to store in a checksum field (host order). */
uint16_t dt_net_cksum_finish(uint32_t sum);

/** Checksum of a buffer: dt_net_cksum_finish(dt_net_cksum_add(0, buf, len)). */
uint16_t dt_net_cksum(const void *buf, size_t len);

/**
 * IPv4 header checksum of the @p hdr_len byte header at @p hdr, computed as
 * if its checksum field (bytes 10-11) were zero. Store it in the header with
 * big-endian byte order.
 */
uint16_t dt_net_ipv4_hdr_cksum(const void *hdr, size_t hdr_len);

/**
 * 1 when the IPv4 header at @p hdr (@p hdr_len bytes, checksum field
 * included) has a correct checksum, else 0.
 */
int dt_net_ipv4_hdr_cksum_ok(const void *hdr, size_t hdr_len);

/**
 * Sum of the IPv4 pseudo header.
 * @param src, dst  addresses, host order (a.b.c.d = a << 24 | ...)
 * @param proto     IP protocol (6 TCP, 17 UDP)
 * @param l4_len    TCP/UDP header + payload length in bytes
 */
uint32_t dt_net_ipv4_pseudo_sum(uint32_t src, uint32_t dst, uint8_t proto,
	uint16_t l4_len);

/**
 * Sum of the IPv6 pseudo header (RFC 8200 8.1).
 * @param src, dst  16-byte addresses as on the wire
 */
uint32_t dt_net_ipv6_pseudo_sum(const uint8_t src[16], const uint8_t dst[16],
	uint8_t proto, uint32_t l4_len);

/**
 * TCP/UDP checksum: pseudo-header sum @p pseudo plus the @p l4_len bytes at
 * @p l4, with the checksum field at offset @p cksum_off treated as zero.
 * For UDP the caller maps a result of 0 to 0xffff (dt_net_udp_cksum_fix()).
 */
uint16_t dt_net_l4_cksum(uint32_t pseudo, const void *l4, size_t l4_len,
	size_t cksum_off);

/**
 * 1 when the TCP/UDP segment at @p l4 (checksum field included) verifies
 * against the pseudo-header sum @p pseudo, else 0.
 */
int dt_net_l4_cksum_ok(uint32_t pseudo, const void *l4, size_t l4_len);

/** UDP transmits a computed checksum of 0 as 0xffff (0 means "none"). */
static inline uint16_t
dt_net_udp_cksum_fix(uint16_t cksum)
{
	return cksum == 0 ? 0xffff : cksum;
}

/**
 * Incremental update (RFC 1624 eqn. 3): the checksum after a 16-bit field
 * changes from @p old_val to @p new_val. All values host order.
 */
uint16_t dt_net_cksum_update16(uint16_t cksum, uint16_t old_val,
	uint16_t new_val);

/** Same for a 32-bit field (e.g. an IPv4 address or a sequence number). */
uint16_t dt_net_cksum_update32(uint16_t cksum, uint32_t old_val,
	uint32_t new_val);

#ifdef __cplusplus
}
#endif

#endif /* DT_NET_CKSUM_H */
