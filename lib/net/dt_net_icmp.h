/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ICMP (RFC 792): echo request to reply, and parsing of error messages
 * down to the quoted transport ports. ICMP is steered to a host-memory
 * queue, so the whole message may be read.
 */
#ifndef DT_NET_ICMP_H
#define DT_NET_ICMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dt_net_status.h"

#define DT_NET_ICMP_HLEN 8
#define DT_NET_ICMP_ECHO_REPLY 0
#define DT_NET_ICMP_DEST_UNREACH 3
#define DT_NET_ICMP_SOURCE_QUENCH 4
#define DT_NET_ICMP_ECHO_REQUEST 8
#define DT_NET_ICMP_TIME_EXCEEDED 11
#define DT_NET_ICMP_PARAM_PROBLEM 12
/** Destination unreachable code "fragmentation needed and DF set". */
#define DT_NET_ICMP_CODE_FRAG_NEEDED 4

/** Parse flag: skip the ICMP checksum check. */
#define DT_NET_ICMP_F_CKSUM_VERIFIED (1u << 0)

/** The datagram quoted by an ICMP error, addresses in host order. */
struct dt_net_icmp_quote {
	uint32_t src;
	uint32_t dst;
	uint8_t proto;
	bool has_ports;		/**< TCP/UDP with 8 transport bytes quoted */
	uint16_t sport;
	uint16_t dport;
	uint32_t tcp_seq;	/**< valid when proto is TCP and has_ports */
};

/** Parsed ICMP message, fields in host order. */
struct dt_net_icmp {
	uint8_t type;
	uint8_t code;
	uint16_t cksum;
	uint16_t id;		/**< echo: identifier */
	uint16_t seq;		/**< echo: sequence number */
	uint16_t mtu;		/**< frag-needed: next-hop MTU (RFC 1191) */
	bool is_error;		/**< unreach, quench, time exceeded, param */
	struct dt_net_icmp_quote quote;	/**< valid when is_error */
};

/**
 * Parse the ICMP message of @p len bytes at @p buf (the IPv4 payload).
 * Error messages must quote a valid IPv4 header (version 4, IHL >= 5)
 * plus at least 8 bytes of it payload.
 * @return DT_NET_OK, DT_NET_E_TRUNC, DT_NET_E_CKSUM or DT_NET_E_ICMP_QUOTE
 */
enum dt_net_status dt_net_icmp_parse(const void *buf, size_t len,
	unsigned int flags, struct dt_net_icmp *icmp);

/**
 * Turn the echo request at @p buf into its reply in place: type 8 -> 0,
 * checksum updated incrementally (RFC 1624); identifier, sequence and
 * data are echoed unchanged. The caller swaps the IPv4 addresses.
 * @return 0, or -EINVAL when @p buf is not an echo request of >= 8 bytes
 */
int dt_net_icmp_echo_to_reply(void *buf, size_t len);

#endif /* DT_NET_ICMP_H */
