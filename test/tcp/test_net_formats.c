/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/net wire formats: Ethernet, ARP, IPv4, ICMP, TCP. */
#include <errno.h>
#include <string.h>

#include "dt_test.h"
#include "dt_net_arp.h"
#include "dt_net_bytes.h"
#include "dt_net_cksum.h"
#include "dt_net_eth.h"
#include "dt_net_icmp.h"
#include "dt_net_ipv4.h"
#include "dt_net_tcp.h"

static void
test_eth(void)
{
	uint8_t buf[32];
	struct dt_net_eth e = {
		.dst = { { 2, 2, 3, 4, 5, 6 } }, .src = { { 7, 8, 9, 10, 11, 12 } },
		.type = DT_NET_ETH_TYPE_IPV4,
	}, p;

	DT_CHECK_EQ(dt_net_eth_build(buf, sizeof(buf), &e), 14);
	DT_CHECK_EQ(buf[12], 0x08);
	DT_CHECK_EQ(buf[13], 0x00);
	DT_CHECK_EQ(dt_net_eth_parse(buf, 14, &p), DT_NET_OK);
	DT_CHECK_EQ(p.type, DT_NET_ETH_TYPE_IPV4);
	DT_CHECK(!p.vlan);
	DT_CHECK(memcmp(p.src.b, e.src.b, 6) == 0);
	DT_CHECK_EQ(dt_net_eth_parse(buf, 13, &p), DT_NET_E_TRUNC);
	e.vlan = true;
	e.vlan_tci = 0x0123;
	e.type = DT_NET_ETH_TYPE_ARP;
	DT_CHECK_EQ(dt_net_eth_build(buf, sizeof(buf), &e), 18);
	DT_CHECK_EQ(dt_net_eth_parse(buf, 18, &p), DT_NET_OK);
	DT_CHECK(p.vlan);
	DT_CHECK_EQ(p.vlan_tci, 0x0123);
	DT_CHECK_EQ(p.type, DT_NET_ETH_TYPE_ARP);
	DT_CHECK_EQ(p.hdr_len, 18);
	DT_CHECK_EQ(dt_net_eth_parse(buf, 17, &p), DT_NET_E_TRUNC);
	DT_CHECK_EQ(dt_net_eth_build(buf, 17, &e), 0);
	memset(p.dst.b, 0xff, 6);
	DT_CHECK(dt_net_eth_is_bcast(&p.dst));
	DT_CHECK(dt_net_eth_is_group(&p.dst));
	DT_CHECK(!dt_net_eth_is_group(&e.dst));
}

static void
test_arp(void)
{
	/* A real request: who has 192.168.1.1, tell 192.168.1.2. */
	static const uint8_t req[28] = {
		0, 1, 8, 0, 6, 4, 0, 1,
		0x02, 0, 0, 0, 0, 0x02, 192, 168, 1, 2,
		0, 0, 0, 0, 0, 0, 192, 168, 1, 1,
	};
	struct dt_net_eth_addr me = { { 0x02, 0, 0, 0, 0, 0x01 } };
	struct dt_net_arp a, r;
	uint8_t buf[28], bad[28];

	DT_CHECK_EQ(dt_net_arp_parse(req, sizeof(req), &a), DT_NET_OK);
	DT_CHECK_EQ(a.op, DT_NET_ARP_OP_REQUEST);
	DT_CHECK_EQ(a.spa, 0xc0a80102);
	DT_CHECK_EQ(a.tpa, 0xc0a80101);
	dt_net_arp_make_reply(&a, &me, &r);
	DT_CHECK_EQ(r.op, DT_NET_ARP_OP_REPLY);
	DT_CHECK_EQ(r.spa, 0xc0a80101);
	DT_CHECK_EQ(r.tpa, 0xc0a80102);
	DT_CHECK(memcmp(r.tha.b, a.sha.b, 6) == 0);
	DT_CHECK_EQ(dt_net_arp_build(buf, sizeof(buf), &r), 28);
	DT_CHECK_EQ(buf[7], 2);
	DT_CHECK(memcmp(buf + 8, me.b, 6) == 0);
	/* Round trip. */
	DT_CHECK_EQ(dt_net_arp_parse(buf, 28, &a), DT_NET_OK);
	DT_CHECK_EQ(a.tpa, 0xc0a80102);
	DT_CHECK_EQ(dt_net_arp_parse(req, 27, &a), DT_NET_E_TRUNC);
	memcpy(bad, req, 28);
	bad[5] = 16;	/* IPv6-sized protocol address */
	DT_CHECK_EQ(dt_net_arp_parse(bad, 28, &a), DT_NET_E_ARP_FMT);
	memcpy(bad, req, 28);
	bad[7] = 3;
	DT_CHECK_EQ(dt_net_arp_parse(bad, 28, &a), DT_NET_E_ARP_OP);
	DT_CHECK_EQ(dt_net_arp_build(buf, 27, &r), 0);
}

static void
ip_fix_cksum(uint8_t *h)
{
	dt_net_put_be16(h + 10, dt_net_ipv4_hdr_cksum(h, (size_t)(h[0] & 0xf) * 4));
}

static void
test_ipv4_valid(void)
{
	struct dt_net_ipv4 ip = {
		.src = 0x0a000001, .dst = 0x0a000002, .total_len = 60, .id = 7,
		.ttl = 64, .proto = DT_NET_IPPROTO_TCP, .df = true,
	}, p;
	uint8_t h[64];

	DT_CHECK_EQ(dt_net_ipv4_build(h, sizeof(h), &ip, 0), 20);
	DT_CHECK(dt_net_ipv4_hdr_cksum_ok(h, 20));
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 20, 60, 0, &p), DT_NET_OK);
	DT_CHECK_EQ(p.hdr_len, 20);
	DT_CHECK_EQ(p.total_len, 60);
	DT_CHECK_EQ(dt_net_ipv4_payload_len(&p), 40);
	DT_CHECK_EQ(p.src, 0x0a000001);
	DT_CHECK_EQ(p.dst, 0x0a000002);
	DT_CHECK(p.df);
	DT_CHECK(!dt_net_ipv4_is_fragment(&p));
	DT_CHECK_EQ(p.proto, DT_NET_IPPROTO_TCP);
	/* Ethernet padding after the datagram is fine. */
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 20, 64, 0, &p), DT_NET_OK);
	/* Offload: checksum left zero, accepted only when verified by the NIC. */
	DT_CHECK_EQ(dt_net_ipv4_build(h, sizeof(h), &ip, DT_NET_IPV4_F_CKSUM_OFFLOAD), 20);
	DT_CHECK_EQ(dt_net_get_be16(h + 10), 0);
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 20, 60, 0, &p), DT_NET_E_CKSUM);
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 20, 60, DT_NET_IPV4_F_CKSUM_VERIFIED, &p),
		DT_NET_OK);
	DT_CHECK_EQ(dt_net_ipv4_build(h, 19, &ip, 0), 0);
}

static void
test_ipv4_options_skipped(void)
{
	struct dt_net_ipv4 ip = {
		.src = 0x0a000001, .dst = 0x0a000002, .total_len = 44,
		.ttl = 1, .proto = DT_NET_IPPROTO_TCP,
	}, p;
	uint8_t h[64];

	dt_net_ipv4_build(h, sizeof(h), &ip, 0);
	/* IHL 6: one option word (NOPs). */
	h[0] = 0x46;
	h[20] = h[21] = h[22] = h[23] = 1;
	ip_fix_cksum(h);
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 24, 44, 0, &p), DT_NET_OK);
	DT_CHECK_EQ(p.hdr_len, 24);
	DT_CHECK_EQ(dt_net_ipv4_payload_len(&p), 20);
	/* The options must be readable in the header buffer. */
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 23, 44, 0, &p), DT_NET_E_TRUNC);
}

static void
test_ipv4_rejects(void)
{
	struct dt_net_ipv4 ip = {
		.src = 0x0a000001, .dst = 0x0a000002, .total_len = 40,
		.ttl = 64, .proto = DT_NET_IPPROTO_TCP,
	}, p;
	uint8_t h[20], g[20];

	dt_net_ipv4_build(h, sizeof(h), &ip, 0);
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 19, 40, 0, &p), DT_NET_E_TRUNC);
	memcpy(g, h, 20);
	g[0] = 0x65;
	ip_fix_cksum(g);
	DT_CHECK_EQ(dt_net_ipv4_parse(g, 20, 40, 0, &p), DT_NET_E_VERSION);
	memcpy(g, h, 20);
	g[0] = 0x44;
	DT_CHECK_EQ(dt_net_ipv4_parse(g, 20, 40, 0, &p), DT_NET_E_IHL);
	memcpy(g, h, 20);
	dt_net_put_be16(g + 2, 19);
	ip_fix_cksum(g);
	DT_CHECK_EQ(dt_net_ipv4_parse(g, 20, 40, 0, &p), DT_NET_E_TOTLEN);
	/* Total length beyond what arrived: truncated datagram. */
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 20, 39, 0, &p), DT_NET_E_TOTLEN);
	memcpy(g, h, 20);
	g[15] ^= 1;
	DT_CHECK_EQ(dt_net_ipv4_parse(g, 20, 40, 0, &p), DT_NET_E_CKSUM);
	memcpy(g, h, 20);
	g[8] = 0;
	ip_fix_cksum(g);
	DT_CHECK_EQ(dt_net_ipv4_parse(g, 20, 40, 0, &p), DT_NET_E_TTL);
	memcpy(g, h, 20);
	dt_net_put_be32(g + 12, 0xe0000001);
	ip_fix_cksum(g);
	DT_CHECK_EQ(dt_net_ipv4_parse(g, 20, 40, 0, &p), DT_NET_E_ADDR);
	DT_CHECK(strcmp(dt_net_status_str(DT_NET_E_ADDR), "unknown") != 0);
	DT_CHECK(strcmp(dt_net_status_str(DT_NET_E__COUNT), "unknown") == 0);
}

static void
test_ipv4_fragments(void)
{
	struct dt_net_ipv4 ip = {
		.src = 0x0a000001, .dst = 0x0a000002, .total_len = 40,
		.ttl = 64, .proto = DT_NET_IPPROTO_UDP, .mf = true, .id = 99,
	}, p;
	uint8_t h[20];

	dt_net_ipv4_build(h, sizeof(h), &ip, 0);
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 20, 40, 0, &p), DT_NET_E_FRAG);
	DT_CHECK(p.mf);
	DT_CHECK_EQ(p.id, 99);
	DT_CHECK_EQ(p.frag_off, 0);
	ip.mf = false;
	ip.frag_off = 1480;
	dt_net_ipv4_build(h, sizeof(h), &ip, 0);
	DT_CHECK_EQ(dt_net_get_be16(h + 6), 185);
	DT_CHECK_EQ(dt_net_ipv4_parse(h, 20, 40, 0, &p), DT_NET_E_FRAG);
	DT_CHECK_EQ(p.frag_off, 1480);
	DT_CHECK(dt_net_ipv4_is_fragment(&p));
}

static void
test_icmp_echo(void)
{
	uint8_t m[16] = { 8, 0, 0, 0, 0x12, 0x34, 0, 5, 'p', 'i', 'n', 'g', 1, 2, 3 };
	struct dt_net_icmp ic;

	dt_net_put_be16(m + 2, dt_net_cksum(m, sizeof(m)));
	DT_CHECK_EQ(dt_net_icmp_parse(m, sizeof(m), 0, &ic), DT_NET_OK);
	DT_CHECK_EQ(ic.type, DT_NET_ICMP_ECHO_REQUEST);
	DT_CHECK_EQ(ic.id, 0x1234);
	DT_CHECK_EQ(ic.seq, 5);
	DT_CHECK(!ic.is_error);
	DT_CHECK_EQ(dt_net_icmp_echo_to_reply(m, sizeof(m)), 0);
	DT_CHECK_EQ(m[0], DT_NET_ICMP_ECHO_REPLY);
	/* The incremental update gives the same as a full recomputation. */
	DT_CHECK_EQ(dt_net_cksum_fold(dt_net_cksum_add(0, m, sizeof(m))), 0xffff);
	DT_CHECK_EQ(dt_net_icmp_parse(m, sizeof(m), 0, &ic), DT_NET_OK);
	DT_CHECK_EQ(m[8], 'p');
	/* Not a request any more. */
	DT_CHECK_EQ(dt_net_icmp_echo_to_reply(m, sizeof(m)), -EINVAL);
	m[9] ^= 0x40;
	DT_CHECK_EQ(dt_net_icmp_parse(m, sizeof(m), 0, &ic), DT_NET_E_CKSUM);
	DT_CHECK_EQ(dt_net_icmp_parse(m, sizeof(m), DT_NET_ICMP_F_CKSUM_VERIFIED,
		&ic), DT_NET_OK);
	DT_CHECK_EQ(dt_net_icmp_parse(m, 7, 0, &ic), DT_NET_E_TRUNC);
}

static void
test_icmp_error(void)
{
	uint8_t m[8 + 20 + 8];
	struct dt_net_ipv4 q = {
		.src = 0x0a000001, .dst = 0x0a000002, .total_len = 1500,
		.ttl = 1, .proto = DT_NET_IPPROTO_TCP, .df = true,
	};
	struct dt_net_icmp ic;

	memset(m, 0, sizeof(m));
	m[0] = DT_NET_ICMP_DEST_UNREACH;
	m[1] = DT_NET_ICMP_CODE_FRAG_NEEDED;
	dt_net_put_be16(m + 6, 1400);
	dt_net_ipv4_build(m + 8, 20, &q, 0);
	dt_net_put_be16(m + 28, 5555);
	dt_net_put_be16(m + 30, 80);
	dt_net_put_be32(m + 32, 0xdeadbeef);
	dt_net_put_be16(m + 2, dt_net_cksum(m, sizeof(m)));
	DT_CHECK_EQ(dt_net_icmp_parse(m, sizeof(m), 0, &ic), DT_NET_OK);
	DT_CHECK(ic.is_error);
	DT_CHECK_EQ(ic.mtu, 1400);
	DT_CHECK_EQ(ic.quote.proto, DT_NET_IPPROTO_TCP);
	DT_CHECK(ic.quote.has_ports);
	DT_CHECK_EQ(ic.quote.src, 0x0a000001);
	DT_CHECK_EQ(ic.quote.sport, 5555);
	DT_CHECK_EQ(ic.quote.dport, 80);
	DT_CHECK_EQ(ic.quote.tcp_seq, 0xdeadbeef);
	/* Fewer than 8 quoted transport bytes. */
	DT_CHECK_EQ(dt_net_icmp_parse(m, sizeof(m) - 1,
		DT_NET_ICMP_F_CKSUM_VERIFIED, &ic), DT_NET_E_ICMP_QUOTE);
	m[8] = 0x65;
	DT_CHECK_EQ(dt_net_icmp_parse(m, sizeof(m),
		DT_NET_ICMP_F_CKSUM_VERIFIED, &ic), DT_NET_E_ICMP_QUOTE);
}

/* Linux's SYN options: mss 1460, sackOK, TS, nop, wscale 7. */
static const uint8_t linux_syn_opts[20] = {
	2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 100, 0, 0, 0, 0, 1, 3, 3, 7,
};

static void
test_tcp_opts_parse(void)
{
	struct dt_net_tcp_opts o;
	uint8_t sack[2 + 2 + 16] = { 1, 1, 5, 18, 0, 0, 0, 1, 0, 0, 0, 2,
		0, 0, 0, 3, 0, 0, 0, 4 };
	uint8_t unk[8] = { 30, 4, 0xaa, 0xbb, 0, 9, 9, 9 };

	DT_CHECK_EQ(dt_net_tcp_opts_parse(linux_syn_opts, 20, &o), DT_NET_OK);
	DT_CHECK_EQ(o.present, DT_NET_TCPOPT_F_MSS | DT_NET_TCPOPT_F_SACK_PERM |
		DT_NET_TCPOPT_F_TS | DT_NET_TCPOPT_F_WSCALE);
	DT_CHECK_EQ(o.mss, 1460);
	DT_CHECK_EQ(o.ts_val, 100);
	DT_CHECK_EQ(o.ts_ecr, 0);
	DT_CHECK_EQ(o.wscale, 7);
	DT_CHECK_EQ(dt_net_tcp_opts_parse(sack, sizeof(sack), &o), DT_NET_OK);
	DT_CHECK_EQ(o.n_sack, 2);
	DT_CHECK_EQ(o.sack[1].left, 3);
	DT_CHECK_EQ(o.sack[1].right, 4);
	/* Unknown kind skipped by length; EOL ends the list (9s ignored). */
	DT_CHECK_EQ(dt_net_tcp_opts_parse(unk, sizeof(unk), &o), DT_NET_OK);
	DT_CHECK_EQ(o.present, 0);
}

/*
 * NOP, NOP, timestamps (nearly every data segment) has a fast path: the
 * result must be the general parser's, whatever the struct held before;
 * near misses (bad TS length, other lengths) take the general way.
 */
static void
test_tcp_opts_parse_ts_layout(void)
{
	static const uint8_t ts[12] = { 1, 1, 8, 10, 0, 0, 1, 2, 0xff, 0, 0, 3 };
	static const uint8_t ts_badlen[12] = { 1, 1, 8, 9, 0, 0, 1, 2, 0, 0, 0, 3 };
	static const uint8_t ts_eol[16] = { 1, 1, 8, 10, 0, 0, 1, 2, 0, 0, 0, 3,
		0, 1, 1, 1 };
	struct dt_net_tcp_opts o;

	memset(&o, 0x5a, sizeof(o));
	DT_CHECK_EQ(dt_net_tcp_opts_parse(ts, sizeof(ts), &o), DT_NET_OK);
	DT_CHECK_EQ(o.present, DT_NET_TCPOPT_F_TS);
	DT_CHECK_EQ(o.ts_val, 0x102);
	DT_CHECK_EQ(o.ts_ecr, 0xff000003u);
	DT_CHECK_EQ(o.n_sack, 0);
	DT_CHECK_EQ(o.mss, 0);
	DT_CHECK_EQ(o.wscale, 0);
	DT_CHECK_EQ(o.sack[0].left, 0);
	DT_CHECK_EQ(dt_net_tcp_opts_parse(ts_badlen, sizeof(ts_badlen), &o),
		DT_NET_E_TCP_OPT);
	memset(&o, 0x5a, sizeof(o));
	DT_CHECK_EQ(dt_net_tcp_opts_parse(ts_eol, sizeof(ts_eol), &o), DT_NET_OK);
	DT_CHECK_EQ(o.present, DT_NET_TCPOPT_F_TS);
	DT_CHECK_EQ(o.ts_ecr, 3);
	DT_CHECK_EQ(o.n_sack, 0);
}

static void
check_bad_opt(const uint8_t *b, size_t len)
{
	struct dt_net_tcp_opts o;

	DT_CHECK_EQ(dt_net_tcp_opts_parse(b, len, &o), DT_NET_E_TCP_OPT);
}

static void
test_tcp_opts_malformed(void)
{
	static const uint8_t len0[4] = { 30, 0, 1, 1 };
	static const uint8_t len1[4] = { 30, 1, 1, 1 };
	static const uint8_t past[4] = { 2, 8, 5, 0xb4 };
	static const uint8_t nolen[1] = { 2 };
	static const uint8_t mss3[4] = { 2, 3, 5, 1 };
	static const uint8_t ws4[4] = { 3, 4, 7, 0 };
	static const uint8_t sackok3[4] = { 4, 3, 0, 1 };
	static const uint8_t ts9[12] = { 8, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1 };
	static const uint8_t sack2[4] = { 5, 2, 1, 1 };
	static const uint8_t sack12[12] = { 5, 12, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0 };
	uint8_t sack5[2 + 40] = { 5, 42 };

	check_bad_opt(len0, 4);
	check_bad_opt(len1, 4);
	check_bad_opt(past, 4);
	check_bad_opt(nolen, 1);
	check_bad_opt(mss3, 4);
	check_bad_opt(ws4, 4);
	check_bad_opt(sackok3, 4);
	check_bad_opt(ts9, 12);
	check_bad_opt(sack2, 4);
	check_bad_opt(sack12, 12);
	check_bad_opt(sack5, sizeof(sack5));
}

static void
test_tcp_opts_build(void)
{
	struct dt_net_tcp_opts o, p;
	uint8_t b[40];
	size_t n;

	memset(&o, 0, sizeof(o));
	o.present = DT_NET_TCPOPT_F_MSS | DT_NET_TCPOPT_F_SACK_PERM |
		DT_NET_TCPOPT_F_TS | DT_NET_TCPOPT_F_WSCALE;
	o.mss = 1460;
	o.ts_val = 100;
	o.wscale = 7;
	n = dt_net_tcp_opts_build(b, sizeof(b), &o);
	DT_CHECK_EQ(n, 20);
	DT_CHECK(memcmp(b, linux_syn_opts, 20) == 0);
	/* Established: TS + 3 SACK blocks = 40 bytes, 4 blocks do not fit. */
	memset(&o, 0, sizeof(o));
	o.present = DT_NET_TCPOPT_F_TS | DT_NET_TCPOPT_F_SACK;
	o.ts_val = 0x01020304;
	o.ts_ecr = 0x05060708;
	o.n_sack = 3;
	o.sack[0] = (struct dt_net_tcp_sack_block){ 10, 20 };
	o.sack[1] = (struct dt_net_tcp_sack_block){ 30, 40 };
	o.sack[2] = (struct dt_net_tcp_sack_block){ 0xfffffff0u, 5 };
	DT_CHECK_EQ(dt_net_tcp_opts_len(&o), 40);
	n = dt_net_tcp_opts_build(b, sizeof(b), &o);
	DT_CHECK_EQ(n, 40);
	DT_CHECK_EQ(dt_net_tcp_opts_parse(b, n, &p), DT_NET_OK);
	DT_CHECK_EQ(p.present, o.present);
	DT_CHECK_EQ(p.ts_val, o.ts_val);
	DT_CHECK_EQ(p.ts_ecr, o.ts_ecr);
	DT_CHECK_EQ(p.n_sack, 3);
	DT_CHECK_EQ(p.sack[2].left, 0xfffffff0u);
	DT_CHECK_EQ(p.sack[2].right, 5);
	DT_CHECK_EQ(dt_net_tcp_opts_build(b, 39, &o), 0);
	o.n_sack = 4;
	DT_CHECK_EQ(dt_net_tcp_opts_len(&o), 0);
	/* Without timestamps 4 blocks fit (36 bytes). */
	o.present = DT_NET_TCPOPT_F_SACK;
	DT_CHECK_EQ(dt_net_tcp_opts_len(&o), 36);
	/* SACK-permitted alone is NOP-padded. */
	memset(&o, 0, sizeof(o));
	o.present = DT_NET_TCPOPT_F_SACK_PERM;
	n = dt_net_tcp_opts_build(b, sizeof(b), &o);
	DT_CHECK_EQ(n, 4);
	DT_CHECK_EQ(b[2], DT_NET_TCPOPT_SACK_PERM);
}

static void
test_tcp_header(void)
{
	struct dt_net_tcp_hdr h, p;
	uint8_t b[60];
	size_t n;

	memset(&h, 0, sizeof(h));
	h.sport = 40000;
	h.dport = 80;
	h.seq = 0xfffffffe;
	h.ack = 7;
	h.flags = DT_NET_TCP_SYN | DT_NET_TCP_ACK;
	h.win = 65535;
	h.cksum = 0xabcd;
	h.opts.present = DT_NET_TCPOPT_F_MSS;
	h.opts.mss = 1000;
	n = dt_net_tcp_build(b, sizeof(b), &h);
	DT_CHECK_EQ(n, 24);
	DT_CHECK_EQ(b[12] >> 4, 6);
	DT_CHECK_EQ(dt_net_tcp_parse(b, n, n + 100, &p), DT_NET_OK);
	DT_CHECK_EQ(p.hdr_len, 24);
	DT_CHECK_EQ(p.sport, 40000);
	DT_CHECK_EQ(p.seq, 0xfffffffe);
	DT_CHECK_EQ(p.ack, 7);
	DT_CHECK_EQ(p.flags, DT_NET_TCP_SYN | DT_NET_TCP_ACK);
	DT_CHECK_EQ(p.win, 65535);
	DT_CHECK_EQ(p.cksum, 0xabcd);
	DT_CHECK_EQ(p.opts.mss, 1000);
	DT_CHECK_EQ(dt_net_tcp_parse(b, 19, 100, &p), DT_NET_E_TRUNC);
	DT_CHECK_EQ(dt_net_tcp_parse(b, 23, 100, &p), DT_NET_E_TRUNC);
	/* Data offset past the segment. */
	DT_CHECK_EQ(dt_net_tcp_parse(b, 24, 22, &p), DT_NET_E_TCP_DOFF);
	b[12] = 4 << 4;
	DT_CHECK_EQ(dt_net_tcp_parse(b, 24, 100, &p), DT_NET_E_TCP_DOFF);
	b[12] = 6 << 4;
	b[21] = 3;	/* MSS option with length 3 */
	DT_CHECK_EQ(dt_net_tcp_parse(b, 24, 100, &p), DT_NET_E_TCP_OPT);
	DT_CHECK_EQ(dt_net_tcp_build(b, 23, &h), 0);
}

int
main(void)
{
	DT_RUN(test_eth);
	DT_RUN(test_arp);
	DT_RUN(test_ipv4_valid);
	DT_RUN(test_ipv4_options_skipped);
	DT_RUN(test_ipv4_rejects);
	DT_RUN(test_ipv4_fragments);
	DT_RUN(test_icmp_echo);
	DT_RUN(test_icmp_error);
	DT_RUN(test_tcp_opts_parse);
	DT_RUN(test_tcp_opts_parse_ts_layout);
	DT_RUN(test_tcp_opts_malformed);
	DT_RUN(test_tcp_opts_build);
	DT_RUN(test_tcp_header);
	return dt_test_summary();
}
