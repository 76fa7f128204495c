/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Result codes of the lib/net parsers.
 *
 * Each rejection reason has its own code so the data plane can keep one
 * drop counter per reason ("nothing silent").
 */
#ifndef DT_NET_STATUS_H
#define DT_NET_STATUS_H

/** Outcome of a parse; DT_NET_OK is 0, every error is positive. */
enum dt_net_status {
	DT_NET_OK = 0,
	DT_NET_E_TRUNC,		/**< buffer shorter than the header needs */
	DT_NET_E_VERSION,	/**< IPv4 version field is not 4 */
	DT_NET_E_IHL,		/**< IPv4 IHL below 5 */
	DT_NET_E_TOTLEN,	/**< IPv4 total length vs header or packet */
	DT_NET_E_TTL,		/**< IPv4 TTL of zero */
	DT_NET_E_CKSUM,		/**< IPv4 header or ICMP checksum wrong */
	DT_NET_E_FRAG,		/**< IPv4 fragment (fields are filled in) */
	DT_NET_E_ADDR,		/**< IPv4 source multicast/broadcast */
	DT_NET_E_ARP_FMT,	/**< ARP not Ethernet/IPv4 */
	DT_NET_E_ARP_OP,	/**< ARP opcode neither request nor reply */
	DT_NET_E_ICMP_QUOTE,	/**< ICMP error quoting a bad datagram */
	DT_NET_E_TCP_DOFF,	/**< TCP data offset below 5 or past packet */
	DT_NET_E_TCP_OPT,	/**< malformed TCP option */
	DT_NET_E__COUNT		/**< number of codes, for counter arrays */
};

/**
 * Short constant description of a status, for logs and counter names.
 * @param st  the status
 * @return a static string ("unknown" for a code out of range)
 */
const char *dt_net_status_str(enum dt_net_status st);

#endif /* DT_NET_STATUS_H */
