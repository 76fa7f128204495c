/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Checksum offloads of the software NIC over a host-memory wire buffer:
 * TX computes what the mbuf's ol_flags ask for, RX verifies. Pure.
 */
#ifndef HSPLIT_OFFLOAD_H
#define HSPLIT_OFFLOAD_H

#include <stdint.h>

#include "hsplit_pkt.h"

/** What hsplit_tx_cksum() computed (so RX need not verify it again). */
#define HSPLIT_CK_IP 0x1
#define HSPLIT_CK_L4 0x2

/**
 * Compute the checksums that @p ol_flags request (RTE_MBUF_F_TX_IP_CKSUM,
 * RTE_MBUF_F_TX_TCP_CKSUM, RTE_MBUF_F_TX_UDP_CKSUM) in the frame, locating
 * headers with @p l2_len / @p l3_len (the mbuf's), or with the parse @p pi
 * when they are 0. The L4 field's previous content (e.g. a pseudo-header sum
 * put there for Intel NICs) is ignored.
 * @return HSPLIT_CK_* of what was written
 */
unsigned int hsplit_tx_cksum(uint8_t *frame, uint32_t len, uint64_t ol_flags,
	uint16_t l2_len, uint16_t l3_len, const struct hsplit_pkt_info *pi);

/**
 * RX checksum flags of a parsed frame: RTE_MBUF_F_RX_IP_CKSUM_GOOD/BAD for
 * IPv4, RTE_MBUF_F_RX_L4_CKSUM_GOOD/BAD for TCP/UDP (NONE for UDP without a
 * checksum), 0 (unknown) otherwise. @p known_good (HSPLIT_CK_*) skips a
 * verification whose result is known; @p want_ip / @p want_l4 skip work the
 * port did not enable.
 */
uint64_t hsplit_rx_cksum(const uint8_t *frame, uint32_t len,
	const struct hsplit_pkt_info *pi, int want_ip, int want_l4,
	unsigned int known_good);

#endif /* HSPLIT_OFFLOAD_H */
