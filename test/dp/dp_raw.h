/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames of a test's own making, sent from a spare TX queue past every
 * stack: ICMP echo requests, UDP datagrams and TCP segments that no
 * connection expects (where frames the stacks do not steer must go).
 */
#ifndef DP_RAW_H
#define DP_RAW_H

#include <stdint.h>

#include <rte_mempool.h>

/*
 * One IPv4 frame from @p src_ip to @p dst_ip (host order): an ICMP echo
 * request, or UDP / TCP (PSH ACK, seq 1) from port 40000 to @p dport,
 * with @p plen bytes of 0xa5 and correct checksums, sent on @p port's TX
 * queue @p txq. Returns 0, or -1 when no mbuf or the queue took nothing.
 */
int dp_raw_send(uint16_t port, uint16_t txq, struct rte_mempool *mp,
	const uint8_t dst_mac[6], const uint8_t src_mac[6], uint32_t src_ip,
	uint32_t dst_ip, uint8_t proto, uint16_t dport, uint16_t plen);

#endif /* DP_RAW_H */
