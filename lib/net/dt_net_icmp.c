/* SPDX-License-Identifier: BSD-3-Clause */
/* ICMP echo and error messages. */
#include <errno.h>

#include "dt_net_bytes.h"
#include "dt_net_cksum.h"
#include "dt_net_icmp.h"
#include "dt_net_ipv4.h"

static bool
icmp_type_is_error(uint8_t type)
{
	return type == DT_NET_ICMP_DEST_UNREACH ||
		type == DT_NET_ICMP_SOURCE_QUENCH ||
		type == DT_NET_ICMP_TIME_EXCEEDED ||
		type == DT_NET_ICMP_PARAM_PROBLEM;
}

/* The quoted datagram: its IPv4 header and at least 8 transport bytes. */
static enum dt_net_status
icmp_parse_quote(const uint8_t *q, size_t len, struct dt_net_icmp_quote *qt)
{
	size_t ihl;

	if (len < DT_NET_IPV4_HLEN_MIN || (q[0] >> 4) != 4)
		return DT_NET_E_ICMP_QUOTE;
	ihl = (size_t)(q[0] & 0xf) * 4;
	if (ihl < DT_NET_IPV4_HLEN_MIN || len < ihl + 8)
		return DT_NET_E_ICMP_QUOTE;
	qt->proto = q[9];
	qt->src = dt_net_get_be32(q + 12);
	qt->dst = dt_net_get_be32(q + 16);
	qt->has_ports = qt->proto == DT_NET_IPPROTO_TCP ||
		qt->proto == DT_NET_IPPROTO_UDP;
	qt->sport = qt->has_ports ? dt_net_get_be16(q + ihl) : 0;
	qt->dport = qt->has_ports ? dt_net_get_be16(q + ihl + 2) : 0;
	qt->tcp_seq = qt->proto == DT_NET_IPPROTO_TCP ?
		dt_net_get_be32(q + ihl + 4) : 0;
	return DT_NET_OK;
}

enum dt_net_status
dt_net_icmp_parse(const void *buf, size_t len, unsigned int flags,
	struct dt_net_icmp *icmp)
{
	const uint8_t *p = buf;

	if (len < DT_NET_ICMP_HLEN)
		return DT_NET_E_TRUNC;
	if (!(flags & DT_NET_ICMP_F_CKSUM_VERIFIED) &&
			dt_net_cksum_fold(dt_net_cksum_add(0, p, len)) != 0xffff)
		return DT_NET_E_CKSUM;
	icmp->type = p[0];
	icmp->code = p[1];
	icmp->cksum = dt_net_get_be16(p + 2);
	icmp->id = dt_net_get_be16(p + 4);
	icmp->seq = dt_net_get_be16(p + 6);
	icmp->mtu = icmp->type == DT_NET_ICMP_DEST_UNREACH &&
		icmp->code == DT_NET_ICMP_CODE_FRAG_NEEDED ?
		dt_net_get_be16(p + 6) : 0;
	icmp->is_error = icmp_type_is_error(icmp->type);
	if (!icmp->is_error)
		return DT_NET_OK;
	return icmp_parse_quote(p + DT_NET_ICMP_HLEN, len - DT_NET_ICMP_HLEN,
		&icmp->quote);
}

int
dt_net_icmp_echo_to_reply(void *buf, size_t len)
{
	uint8_t *p = buf;
	uint16_t old_word, new_word;

	if (len < DT_NET_ICMP_HLEN || p[0] != DT_NET_ICMP_ECHO_REQUEST)
		return -EINVAL;
	/* Type and code share the first 16-bit word of the checksum. */
	old_word = dt_net_get_be16(p);
	p[0] = DT_NET_ICMP_ECHO_REPLY;
	p[1] = 0;
	new_word = dt_net_get_be16(p);
	dt_net_put_be16(p + 2, dt_net_cksum_update16(dt_net_get_be16(p + 2),
		old_word, new_word));
	return 0;
}
