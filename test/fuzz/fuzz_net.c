/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over lib/net: the Ethernet, ARP, IPv4, ICMP and TCP
 * header/option parsers and the checksum helpers.
 *
 * Input: one selector byte, two length bytes (the packet length the parser
 * is told, as a data plane would take it from the frame or the IPv4 total
 * length), then the bytes. Beyond memory safety (ASan: the bytes live in a
 * buffer of exactly their size) each parser is judged on its contract: an
 * accepted header has lengths within what it was given, and its fields
 * survive a build/parse round trip; checksums agree with a naive RFC 1071
 * sum, with chunked and incremental computation. A broken property abort()s.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_net_arp.h"
#include "dt_net_bytes.h"
#include "dt_net_cksum.h"
#include "dt_net_eth.h"
#include "dt_net_icmp.h"
#include "dt_net_ipv4.h"
#include "dt_net_tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME "fuzz_net"
#include "fuzz_check.h"

enum fz_target {
	FZ_ETH,
	FZ_ARP,
	FZ_IPV4,
	FZ_ICMP,
	FZ_TCP,
	FZ_TCP_OPTS,
	FZ_CKSUM,
	FZ__COUNT
};

/* RFC 1071 the slow way: 16-bit big-endian words, end-around carry. */
static uint16_t
ref_fold(const uint8_t *p, size_t len, uint32_t seed)
{
	uint64_t s = seed;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* One's complement values: 0x0000 and 0xffff are both zero. */
static bool
oc_equal(uint16_t a, uint16_t b)
{
	return a == b || (a == 0 && b == 0xffff) || (a == 0xffff && b == 0);
}

static void
fz_eth(const uint8_t *p, size_t len)
{
	struct dt_net_eth e, back;
	uint8_t buf[DT_NET_ETH_VLAN_HLEN];
	size_t n;

	if (dt_net_eth_parse(p, len, &e) != DT_NET_OK)
		return;
	FZ_CHECK(e.hdr_len == (e.vlan ? DT_NET_ETH_VLAN_HLEN : DT_NET_ETH_HLEN));
	FZ_CHECK(e.hdr_len <= len);
	n = dt_net_eth_build(buf, sizeof(buf), &e);
	FZ_CHECK(n == e.hdr_len);
	FZ_CHECK(memcmp(buf, p, n) == 0);
	FZ_CHECK(dt_net_eth_parse(buf, n, &back) == DT_NET_OK);
	FZ_CHECK(back.type == e.type && back.vlan == e.vlan &&
		back.vlan_tci == e.vlan_tci);
	FZ_CHECK(dt_net_eth_is_bcast(&e.dst) ==
		(memcmp(p, "\xff\xff\xff\xff\xff\xff", 6) == 0));
	FZ_CHECK(dt_net_eth_is_group(&e.dst) == ((p[0] & 1) != 0));
}

/* Field by field: the struct has padding. */
static bool
arp_equal(const struct dt_net_arp *a, const struct dt_net_arp *b)
{
	return a->op == b->op && a->spa == b->spa && a->tpa == b->tpa &&
		!memcmp(a->sha.b, b->sha.b, DT_NET_ETH_ALEN) &&
		!memcmp(a->tha.b, b->tha.b, DT_NET_ETH_ALEN);
}

static void
fz_arp(const uint8_t *p, size_t len)
{
	struct dt_net_arp a, back, rep;
	struct dt_net_eth_addr mac = { { 2, 0, 0, 0, 0, 9 } };
	uint8_t buf[DT_NET_ARP_LEN];

	if (dt_net_arp_parse(p, len, &a) != DT_NET_OK)
		return;
	FZ_CHECK(a.op == DT_NET_ARP_OP_REQUEST || a.op == DT_NET_ARP_OP_REPLY);
	FZ_CHECK(dt_net_arp_build(buf, sizeof(buf), &a) == DT_NET_ARP_LEN);
	FZ_CHECK(memcmp(buf, p, DT_NET_ARP_LEN) == 0);
	FZ_CHECK(dt_net_arp_parse(buf, sizeof(buf), &back) == DT_NET_OK);
	FZ_CHECK(arp_equal(&a, &back));
	dt_net_arp_make_reply(&a, &mac, &rep);
	FZ_CHECK(rep.op == DT_NET_ARP_OP_REPLY && rep.spa == a.tpa &&
		rep.tpa == a.spa && !memcmp(&rep.tha, &a.sha, sizeof(mac)) &&
		!memcmp(&rep.sha, &mac, sizeof(mac)));
	/* In place, as the data plane answers. */
	back = a;
	dt_net_arp_make_reply(&back, &mac, &back);
	FZ_CHECK(arp_equal(&back, &rep));
}

static void
fz_ipv4(const uint8_t *p, size_t len, size_t pkt_len, unsigned int flags)
{
	struct dt_net_ipv4 ip, bare, back;
	uint8_t buf[DT_NET_IPV4_HLEN_MIN];
	enum dt_net_status st;

	flags &= DT_NET_IPV4_F_CKSUM_VERIFIED;
	st = dt_net_ipv4_parse(p, len, pkt_len, flags, &ip);
	if (st != DT_NET_OK && st != DT_NET_E_FRAG)
		return;
	FZ_CHECK(ip.hdr_len >= DT_NET_IPV4_HLEN_MIN &&
		ip.hdr_len <= DT_NET_IPV4_HLEN_MAX && ip.hdr_len <= len);
	FZ_CHECK(ip.hdr_len <= ip.total_len && ip.total_len <= pkt_len);
	FZ_CHECK(ip.ttl != 0);
	FZ_CHECK((st == DT_NET_E_FRAG) == dt_net_ipv4_is_fragment(&ip));
	FZ_CHECK(dt_net_ipv4_payload_len(&ip) == ip.total_len - ip.hdr_len);
	if (!(flags & DT_NET_IPV4_F_CKSUM_VERIFIED))
		FZ_CHECK(dt_net_ipv4_hdr_cksum_ok(p, ip.hdr_len));
	/* Rebuilt without options: the same datagram to the parser. */
	bare = ip;
	bare.total_len = (uint16_t)(ip.total_len - ip.hdr_len + sizeof(buf));
	FZ_CHECK(dt_net_ipv4_build(buf, sizeof(buf), &bare, 0) == sizeof(buf));
	FZ_CHECK(dt_net_ipv4_hdr_cksum_ok(buf, sizeof(buf)));
	st = dt_net_ipv4_parse(buf, sizeof(buf), bare.total_len, 0, &back);
	FZ_CHECK(st == DT_NET_OK || st == DT_NET_E_FRAG);
	FZ_CHECK(back.src == ip.src && back.dst == ip.dst &&
		back.proto == ip.proto && back.ttl == ip.ttl &&
		back.id == ip.id && back.tos == ip.tos && back.df == ip.df &&
		back.mf == ip.mf && back.frag_off == ip.frag_off &&
		back.hdr_len == sizeof(buf) &&
		dt_net_ipv4_payload_len(&back) == dt_net_ipv4_payload_len(&ip));
}

static void
fz_icmp(const uint8_t *p, size_t len, unsigned int flags)
{
	struct dt_net_icmp ic;
	uint8_t *copy;
	bool sum_ok = len >= DT_NET_ICMP_HLEN && ref_fold(p, len, 0) == 0xffff;
	enum dt_net_status st;

	flags &= DT_NET_ICMP_F_CKSUM_VERIFIED;
	st = dt_net_icmp_parse(p, len, flags, &ic);
	if (len >= DT_NET_ICMP_HLEN && !flags)
		FZ_CHECK((st == DT_NET_E_CKSUM) == !sum_ok);
	if (st == DT_NET_OK) {
		FZ_CHECK(len >= DT_NET_ICMP_HLEN);
		FZ_CHECK(ic.type == p[0] && ic.code == p[1]);
		if (ic.is_error)
			FZ_CHECK(len >= DT_NET_ICMP_HLEN + DT_NET_IPV4_HLEN_MIN + 8);
	}
	/* Echo reply in place: the checksum stays right (RFC 1624). */
	copy = malloc(len ? len : 1);
	FZ_CHECK(copy != NULL);
	memcpy(copy, p, len);
	if (dt_net_icmp_echo_to_reply(copy, len) == 0) {
		FZ_CHECK(p[0] == DT_NET_ICMP_ECHO_REQUEST);
		FZ_CHECK(copy[0] == DT_NET_ICMP_ECHO_REPLY && copy[1] == 0);
		FZ_CHECK(memcmp(copy + 4, p + 4, len - 4) == 0);
		FZ_CHECK((ref_fold(copy, len, 0) == 0xffff) == sum_ok);
	} else {
		FZ_CHECK(len < DT_NET_ICMP_HLEN || p[0] != DT_NET_ICMP_ECHO_REQUEST);
		FZ_CHECK(memcmp(copy, p, len) == 0);
	}
	free(copy);
}

static bool
opts_equal(const struct dt_net_tcp_opts *a, const struct dt_net_tcp_opts *b)
{
	unsigned int i;

	if (a->present != b->present)
		return false;
	if ((a->present & DT_NET_TCPOPT_F_MSS) && a->mss != b->mss)
		return false;
	if ((a->present & DT_NET_TCPOPT_F_WSCALE) && a->wscale != b->wscale)
		return false;
	if ((a->present & DT_NET_TCPOPT_F_TS) &&
			(a->ts_val != b->ts_val || a->ts_ecr != b->ts_ecr))
		return false;
	if (a->present & DT_NET_TCPOPT_F_SACK) {
		if (a->n_sack != b->n_sack)
			return false;
		for (i = 0; i < a->n_sack; i++)
			if (a->sack[i].left != b->sack[i].left ||
					a->sack[i].right != b->sack[i].right)
				return false;
	}
	return true;
}

/* Options that parsed: building them gives the same options back. */
static void
opts_roundtrip(const struct dt_net_tcp_opts *o)
{
	struct dt_net_tcp_opts back;
	uint8_t buf[DT_NET_TCP_OPT_SPACE + 8];
	size_t want = dt_net_tcp_opts_len(o), n;

	FZ_CHECK(o->n_sack <= DT_NET_TCP_SACK_MAX);
	FZ_CHECK(!(o->present & DT_NET_TCPOPT_F_SACK) || o->n_sack >= 1);
	FZ_CHECK(want % 4 == 0 && want <= DT_NET_TCP_OPT_SPACE);
	n = dt_net_tcp_opts_build(buf, sizeof(buf), o);
	FZ_CHECK(n == want);
	/* Too small a buffer: nothing, never a partial list. */
	if (want > 0)
		FZ_CHECK(dt_net_tcp_opts_build(buf, want - 1, o) == 0);
	if (n == 0)
		return;
	FZ_CHECK(dt_net_tcp_opts_parse(buf, n, &back) == DT_NET_OK);
	FZ_CHECK(opts_equal(o, &back));
}

static void
fz_tcp(const uint8_t *p, size_t len, size_t seg_len)
{
	struct dt_net_tcp_hdr th, back;
	uint8_t buf[DT_NET_TCP_HLEN_MAX];
	size_t n;

	if (dt_net_tcp_parse(p, len, seg_len, &th) != DT_NET_OK)
		return;
	FZ_CHECK(th.hdr_len >= DT_NET_TCP_HLEN_MIN &&
		th.hdr_len <= DT_NET_TCP_HLEN_MAX && th.hdr_len % 4 == 0);
	FZ_CHECK(th.hdr_len <= len && th.hdr_len <= seg_len);
	FZ_CHECK(th.seq == dt_net_get_be32(p + 4) && th.flags == p[13]);
	opts_roundtrip(&th.opts);
	n = dt_net_tcp_build(buf, sizeof(buf), &th);
	if (n == 0) {
		FZ_CHECK(dt_net_tcp_opts_len(&th.opts) == 0 &&
			th.opts.present != 0);
		return;
	}
	FZ_CHECK(n == DT_NET_TCP_HLEN_MIN + dt_net_tcp_opts_len(&th.opts));
	FZ_CHECK(dt_net_tcp_parse(buf, n, n, &back) == DT_NET_OK);
	FZ_CHECK(back.hdr_len == n && back.sport == th.sport &&
		back.dport == th.dport && back.seq == th.seq &&
		back.ack == th.ack && back.flags == th.flags &&
		back.win == th.win && back.cksum == th.cksum &&
		back.urp == th.urp && opts_equal(&th.opts, &back.opts));
}

static void
fz_tcp_opts(const uint8_t *p, size_t len)
{
	struct dt_net_tcp_opts o;

	if (dt_net_tcp_opts_parse(p, len, &o) != DT_NET_OK)
		return;
	opts_roundtrip(&o);
}

static void
fz_cksum(const uint8_t *p, size_t len, size_t split)
{
	uint32_t sum, pseudo;
	uint16_t ck, ck2, oldw, neww;
	uint8_t *c;
	size_t off;

	/* Whole buffer, and two chunks at any split (odd offsets too). */
	sum = dt_net_cksum_add(0, p, len);
	FZ_CHECK(dt_net_cksum_fold(sum) == ref_fold(p, len, 0));
	FZ_CHECK(dt_net_cksum(p, len) == dt_net_cksum_finish(sum));
	split = len ? split % (len + 1) : 0;
	sum = dt_net_cksum_add_at(dt_net_cksum_add_at(0, p, split, 0),
		p + split, len - split, split);
	FZ_CHECK(oc_equal(dt_net_cksum_fold(sum), ref_fold(p, len, 0)));

	c = malloc(len + 1);
	FZ_CHECK(c != NULL);
	memcpy(c, p, len);
	/* IPv4 header checksum written, then verified. */
	if (len >= DT_NET_IPV4_HLEN_MIN) {
		off = DT_NET_IPV4_HLEN_MIN + (split % 11) * 4;
		off = off <= len ? off : DT_NET_IPV4_HLEN_MIN;
		dt_net_put_be16(c + 10, dt_net_ipv4_hdr_cksum(c, off));
		FZ_CHECK(dt_net_ipv4_hdr_cksum_ok(c, off));
	}
	/* L4 checksum with a pseudo header, and its incremental update. */
	if (len >= 20) {
		pseudo = dt_net_ipv4_pseudo_sum(dt_net_get_be32(p),
			dt_net_get_be32(p + 4), DT_NET_IPPROTO_TCP,
			(uint16_t)len);
		dt_net_put_be16(c + 16, dt_net_l4_cksum(pseudo, c, len, 16));
		FZ_CHECK(dt_net_l4_cksum_ok(pseudo, c, len));
		off = (split % (len / 2)) * 2;
		if (off == 16)
			off = 0;
		ck = dt_net_get_be16(c + 16);
		oldw = dt_net_get_be16(c + off);
		neww = (uint16_t)(oldw ^ (uint16_t)(split * 0x9e37 + 1));
		dt_net_put_be16(c + off, neww);
		ck = dt_net_cksum_update16(ck, oldw, neww);
		ck2 = dt_net_l4_cksum(pseudo, c, len, 16);
		FZ_CHECK(oc_equal(ck, ck2));
		/* A 32-bit field (sequence number at 4..7). */
		if (off != 4 && off != 6) {
			uint32_t o32 = dt_net_get_be32(c + 4);
			uint32_t n32 = o32 + (uint32_t)split * 2654435761u;

			dt_net_put_be32(c + 4, n32);
			ck = dt_net_cksum_update32(ck2, o32, n32);
			FZ_CHECK(oc_equal(ck, dt_net_l4_cksum(pseudo, c, len, 16)));
		}
	}
	free(c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p;
	size_t len, plen;
	uint8_t sel;

	if (size < 3)
		return 0;
	sel = data[0];
	plen = dt_net_get_be16(data + 1);
	p = data + 3;
	len = size - 3;
	switch (sel % FZ__COUNT) {
	case FZ_ETH:
		fz_eth(p, len);
		break;
	case FZ_ARP:
		fz_arp(p, len);
		break;
	case FZ_IPV4:
		/* The bytes a frame really has, or a length the NIC claims. */
		fz_ipv4(p, len, (sel & 0x80) ? plen : len, sel >> 3);
		break;
	case FZ_ICMP:
		fz_icmp(p, len, sel >> 3);
		break;
	case FZ_TCP:
		fz_tcp(p, len, (sel & 0x80) ? plen : len);
		break;
	case FZ_TCP_OPTS:
		fz_tcp_opts(p, len);
		break;
	case FZ_CKSUM:
		fz_cksum(p, len, plen);
		break;
	}
	return 0;
}
