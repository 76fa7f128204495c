/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Frame parser of the software NIC: Ethernet (up to two VLAN tags), ARP,
 * IPv4 (options, fragments), IPv6 (no extension headers), TCP, UDP, ICMP.
 * Pure: reads only the host-memory wire buffer it is given.
 */
#ifndef HSPLIT_PARSE_H
#define HSPLIT_PARSE_H

#include <stdint.h>

#include "hsplit_pkt.h"

/**
 * Parse @p len bytes at @p frame into @p pi.
 *
 * ptype holds every layer found complete and consistent: a truncated or
 * malformed layer stops the parse there (an IPv4 header with a bad IHL or
 * total length leaves L2 only; a TCP header longer than the IP payload
 * leaves L2+L3). Fragments are RTE_PTYPE_L4_FRAG with is_fragment set, and
 * no L4 header parsed (only the first fragment has one, and it is not a
 * complete segment).
 */
void hsplit_parse(const uint8_t *frame, uint32_t len, struct hsplit_pkt_info *pi);

/** L2..L4 header bytes found by the parse (l2_len + l3_len + l4_len). */
static inline uint32_t
hsplit_pkt_hdr_len(const struct hsplit_pkt_info *pi)
{
	return (uint32_t)pi->l2_len + pi->l3_len + pi->l4_len;
}

#endif /* HSPLIT_PARSE_H */
