/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv4 header (RFC 791) validation and construction.
 *
 * With header split the IPv4 header is in host memory but the rest of the
 * packet may not be: the parser therefore takes both the contiguous bytes
 * it may read and the packet's total length from the IPv4 header on, and
 * never reads past the header.
 */
#ifndef DT_NET_IPV4_H
#define DT_NET_IPV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dt_net_cksum.h"
#include "dt_net_status.h"

#define DT_NET_IPV4_HLEN_MIN 20
#define DT_NET_IPV4_HLEN_MAX 60
#define DT_NET_IPPROTO_ICMP 1

/** Parse flag: the NIC verified the header checksum, do not recompute. */
#define DT_NET_IPV4_F_CKSUM_VERIFIED (1u << 0)
/** Build flag: leave the checksum field 0 (TX offload fills it). */
#define DT_NET_IPV4_F_CKSUM_OFFLOAD (1u << 1)

/** Parsed IPv4 header; multi-byte fields and addresses in host order. */
struct dt_net_ipv4 {
	uint32_t src;
	uint32_t dst;
	uint16_t total_len;	/**< header + payload bytes */
	uint16_t id;
	uint16_t frag_off;	/**< fragment offset in bytes */
	uint16_t cksum;		/**< as found in the header */
	uint8_t hdr_len;	/**< bytes, options included (skipped) */
	uint8_t tos;
	uint8_t ttl;
	uint8_t proto;
	bool df;		/**< don't fragment */
	bool mf;		/**< more fragments */
};

/** Bytes after the header, per the total length field. */
static inline uint16_t
dt_net_ipv4_payload_len(const struct dt_net_ipv4 *ip)
{
	return (uint16_t)(ip->total_len - ip->hdr_len);
}

/** True for any fragment (first, middle or last). */
static inline bool
dt_net_ipv4_is_fragment(const struct dt_net_ipv4 *ip)
{
	return ip->mf || ip->frag_off != 0;
}

/**
 * Validate and parse the IPv4 header at @p buf.
 * Checks, in order: @p hdr_avail holds 20 bytes, version 4, IHL >= 5,
 * @p hdr_avail holds IHL*4 bytes, IHL*4 <= total length <= @p pkt_len,
 * header checksum (unless DT_NET_IPV4_F_CKSUM_VERIFIED), TTL != 0,
 * source not multicast/limited broadcast, and finally fragments.
 * Options are skipped. Link padding (pkt_len > total length) is allowed.
 *
 * @param hdr_avail contiguous readable bytes at @p buf
 * @param pkt_len   packet bytes from the IPv4 header to the frame's end,
 *                  wherever they are stored
 * @param flags     DT_NET_IPV4_F_*
 * @return DT_NET_OK; DT_NET_E_FRAG with @p ip filled in so the caller can
 *	count and drop; other DT_NET_E_* codes on invalid headers
 */
enum dt_net_status dt_net_ipv4_parse(const void *buf, size_t hdr_avail,
	size_t pkt_len, unsigned int flags, struct dt_net_ipv4 *ip);

/**
 * Write a 20-byte header (no options) from @p ip; hdr_len is ignored, and
 * the checksum is computed unless DT_NET_IPV4_F_CKSUM_OFFLOAD.
 * @return 20, or 0 when @p cap is too small
 */
size_t dt_net_ipv4_build(void *buf, size_t cap, const struct dt_net_ipv4 *ip,
	unsigned int flags);

#endif /* DT_NET_IPV4_H */
