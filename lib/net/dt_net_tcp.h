/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TCP header and options (RFC 9293, 7323, 2018): parse and build.
 *
 * Only the header is read; the checksum is left to the NIC (payload may be
 * in device memory) and its field is carried through as a value.
 */
#ifndef DT_NET_TCP_H
#define DT_NET_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "dt_net_status.h"

#define DT_NET_TCP_HLEN_MIN 20 /**< header without options */
#define DT_NET_TCP_HLEN_MAX 60 /**< header with the most options */
#define DT_NET_TCP_OPT_SPACE 40		/**< max option bytes */

/** @name TCP header flags */
/**@{*/
#define DT_NET_TCP_FIN 0x01 /**< no more data from the sender */
#define DT_NET_TCP_SYN 0x02 /**< synchronise sequence numbers */
#define DT_NET_TCP_RST 0x04 /**< reset the connection */
#define DT_NET_TCP_PSH 0x08 /**< push */
#define DT_NET_TCP_ACK 0x10 /**< the ack field is significant */
#define DT_NET_TCP_URG 0x20 /**< the urgent pointer is significant */
#define DT_NET_TCP_ECE 0x40 /**< ECN echo (RFC 3168) */
#define DT_NET_TCP_CWR 0x80 /**< congestion window reduced (RFC 3168) */
/**@}*/

/** @name Option kinds */
/**@{*/
#define DT_NET_TCPOPT_EOL 0 /**< end of option list */
#define DT_NET_TCPOPT_NOP 1 /**< no operation (padding) */
#define DT_NET_TCPOPT_MSS 2 /**< maximum segment size */
#define DT_NET_TCPOPT_WSCALE 3 /**< window scale (RFC 7323) */
#define DT_NET_TCPOPT_SACK_PERM 4 /**< SACK permitted (RFC 2018) */
#define DT_NET_TCPOPT_SACK 5 /**< SACK blocks (RFC 2018) */
#define DT_NET_TCPOPT_TS 8 /**< timestamps (RFC 7323) */
/**@}*/

/** @name Bits of dt_net_tcp_opts.present */
/**@{*/
#define DT_NET_TCPOPT_F_MSS (1u << 0) /**< mss is set */
#define DT_NET_TCPOPT_F_WSCALE (1u << 1) /**< wscale is set */
#define DT_NET_TCPOPT_F_SACK_PERM (1u << 2) /**< SACK permitted */
#define DT_NET_TCPOPT_F_SACK (1u << 3) /**< sack[0, n_sack) are set */
#define DT_NET_TCPOPT_F_TS (1u << 4) /**< ts_val and ts_ecr are set */
/**@}*/

/** Max SACK blocks in one segment (3 when timestamps are present too). */
#define DT_NET_TCP_SACK_MAX 4

/** One SACK block: sequence numbers [left, right). */
struct dt_net_tcp_sack_block {
	uint32_t left;   /**< first sequence number of the block */
	uint32_t right;  /**< one past its last */
};

/** The options this stack understands; unknown ones are skipped. */
struct dt_net_tcp_opts {
	uint8_t present;	/**< DT_NET_TCPOPT_F_* */
	uint8_t wscale;		/**< shift as received (not clamped) */
	uint8_t n_sack;		/**< SACK blocks in @c sack */
	uint16_t mss;		/**< maximum segment size */
	uint32_t ts_val;	/**< timestamp value */
	uint32_t ts_ecr;	/**< timestamp echo reply */
	struct dt_net_tcp_sack_block sack[DT_NET_TCP_SACK_MAX]; /**< SACK blocks */
};

/** A TCP header, fields in host order. */
struct dt_net_tcp_hdr {
	uint16_t sport;		/**< source port */
	uint16_t dport;		/**< destination port */
	uint32_t seq;		/**< sequence number */
	uint32_t ack;		/**< acknowledgment number */
	uint8_t hdr_len;	/**< parse: data offset in bytes */
	uint8_t flags;		/**< DT_NET_TCP_* */
	uint16_t win;		/**< raw window field (unscaled) */
	uint16_t cksum;		/**< checksum field, carried as a value */
	uint16_t urp;		/**< urgent pointer */
	struct dt_net_tcp_opts opts; /**< the options understood */
};

/**
 * Parse options: EOL ends the list, NOP is skipped, unknown kinds are
 * skipped by their length. Rejected as DT_NET_E_TCP_OPT: a length below 2,
 * a length past the option space, and a known option with a wrong length
 * (MSS 4, window scale 3, SACK-permitted 2, timestamps 10, SACK 2 + 8n with
 * 1 <= n <= 4).
 * @param buf        the option bytes
 * @param len        their length
 * @param[out] opts  what they say
 * @return DT_NET_OK or DT_NET_E_TCP_OPT
 */
enum dt_net_status dt_net_tcp_opts_parse(const void *buf, size_t len,
	struct dt_net_tcp_opts *opts);

/**
 * Parse the TCP header at @p buf.
 * @param buf       the header
 * @param hdr_avail contiguous readable bytes at @p buf
 * @param seg_len   TCP header + payload bytes (from the IPv4 total length)
 * @return DT_NET_OK, DT_NET_E_TRUNC, DT_NET_E_TCP_DOFF (data offset below
 *	5, or beyond @p seg_len) or DT_NET_E_TCP_OPT
 * @param[out] th   the header's fields
 */
enum dt_net_status dt_net_tcp_parse(const void *buf, size_t hdr_avail,
	size_t seg_len, struct dt_net_tcp_hdr *th);

/**
 * Bytes the options take once built.
 * @param opts  the options
 * @return their length padded to 4, or 0 when they do not fit in 40 bytes
 */
size_t dt_net_tcp_opts_len(const struct dt_net_tcp_opts *opts);

/**
 * Write the options in @p opts (the layout Linux uses: MSS, SACK-permitted
 * with timestamps, NOP-padded window scale and SACK blocks).
 * @param buf   where
 * @param cap   room at @p buf
 * @param opts  the options
 * @return bytes written (a multiple of 4), 0 when none or they do not fit
 */
size_t dt_net_tcp_opts_build(void *buf, size_t cap,
	const struct dt_net_tcp_opts *opts);

/**
 * Write header and options; the data offset is computed, th->hdr_len is
 * ignored and th->cksum is written as given (e.g. the pseudo-header seed
 * that TX checksum offload expects).
 * @param buf  where
 * @param cap  room at @p buf
 * @param th   the header's fields and options
 * @return header bytes, 0 when @p cap is too small or options do not fit
 */
size_t dt_net_tcp_build(void *buf, size_t cap, const struct dt_net_tcp_hdr *th);

#endif /* DT_NET_TCP_H */
