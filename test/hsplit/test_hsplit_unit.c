/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of net_hsplit's pure parts (no EAL): frame parsing, split
 * layout, devargs, checksum offloads, RSS hash.
 */
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_mbuf_core.h>
#include <rte_mbuf_ptype.h>

#include "dt_test.h"
#include "hsplit_caps.h"
#include "hsplit_delay.h"
#include "hsplit_devargs.h"
#include "hsplit_offload.h"
#include "hsplit_parse.h"
#include "hsplit_rss.h"
#include "hsplit_split.h"
#include "hsplit_test_frames.h"
#include "hsplit_tso.h"

static uint8_t frame[9100];

static struct tf_opts
tcp_opts(uint16_t payload)
{
	return (struct tf_opts){ .proto = 6, .src = 0x0a000001,
		.dst = 0x0a000002, .sport = 1234, .dport = 80,
		.payload = payload, .cksum = 1 };
}

static void
test_parse_tcp(void)
{
	struct tf_opts o = tcp_opts(100);
	struct hsplit_pkt_info pi;
	uint32_t len = tf_build(frame, &o);

	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP);
	DT_CHECK_EQ(pi.l2_len, 14);
	DT_CHECK_EQ(pi.l3_len, 20);
	DT_CHECK_EQ(pi.l4_len, 20);
	DT_CHECK_EQ(pi.ip_len, 140);
	DT_CHECK_EQ(pi.ip_proto, 6);
	DT_CHECK_EQ(rte_be_to_cpu_32(pi.src_ip), 0x0a000001);
	DT_CHECK_EQ(rte_be_to_cpu_16(pi.dst_port), 80);
	DT_CHECK_EQ(hsplit_pkt_hdr_len(&pi), 54);
	/* Ethernet padding after the IP datagram is not L4. */
	hsplit_parse(frame, len + 6, &pi);
	DT_CHECK_EQ(pi.ip_len, 140);
}

static void
test_parse_options_vlan_udp(void)
{
	struct tf_opts o = tcp_opts(10);
	struct hsplit_pkt_info pi;
	uint32_t len;

	o.ip_opt_words = 2;
	o.tcp_opt_words = 3;
	o.vlan = 1;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER_VLAN | RTE_PTYPE_L3_IPV4_EXT | RTE_PTYPE_L4_TCP);
	DT_CHECK_EQ(pi.l2_len, 18);
	DT_CHECK_EQ(pi.l3_len, 28);
	DT_CHECK_EQ(pi.l4_len, 32);
	DT_CHECK_EQ(pi.vlan_tags, 1);
	o = tcp_opts(33);
	o.proto = 17;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP);
	DT_CHECK_EQ(pi.l4_len, 8);
}

static void
test_parse_arp_icmp_frag(void)
{
	struct tf_opts o = tcp_opts(56);
	struct hsplit_pkt_info pi;
	uint32_t len;

	len = tf_build_arp(frame);
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER_ARP);
	DT_CHECK_EQ(pi.l3_len, 0);
	o.proto = 1;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_ICMP);
	DT_CHECK_EQ(pi.l4_len, 0);
	o = tcp_opts(200);
	o.frag = 1;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_FRAG);
	DT_CHECK_EQ(pi.is_fragment, 1);
	DT_CHECK_EQ(pi.l4_len, 0);
}

static void
test_parse_truncated(void)
{
	struct tf_opts o = tcp_opts(100);
	struct hsplit_pkt_info pi;
	uint32_t len = tf_build(frame, &o);

	hsplit_parse(frame, 10, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_UNKNOWN);
	DT_CHECK_EQ(pi.l2_len, 0);
	/* IP total length beyond the frame: L2 only. */
	hsplit_parse(frame, len - 1, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER);
	DT_CHECK_EQ(pi.l3_len, 0);
	/* Bad IHL. */
	frame[14] = 0x43;
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER);
	/* TCP data offset beyond the IP payload: L2+L3. */
	o.payload = 0;
	len = tf_build(frame, &o);
	frame[14 + 20 + 12] = 0xf0;
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4);
	DT_CHECK_EQ(pi.l4_len, 0);
}

static void
test_parse_ipv6(void)
{
	struct hsplit_pkt_info pi;
	uint8_t *ip = frame + 14;

	memset(frame, 0, 200);
	tf_w16(frame + 12, 0x86dd);
	ip[0] = 0x60;
	tf_w16(ip + 4, 20 + 10);
	ip[6] = 6;
	ip[8] = 0xfe;
	ip[39] = 2;
	ip[40 + 12] = 0x50;
	hsplit_parse(frame, 14 + 40 + 30, &pi);
	DT_CHECK_EQ(pi.ptype, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP);
	DT_CHECK_EQ(pi.l3_len, 40);
	DT_CHECK_EQ(pi.l4_len, 20);
	DT_CHECK_EQ(pi.src_ip6[0], 0xfe);
	DT_CHECK_EQ(pi.dst_ip6[15], 2);
}

/* seg0 headers in 128-byte host buffers, payload in 2048-byte buffers. */
static struct hsplit_split_cfg
proto_cfg(uint32_t mask, int scatter, int nomatch)
{
	struct hsplit_split_cfg c = { .mode = HSPLIT_SPLIT_PROTO, .nseg = 2,
		.nb_hdr = 1, .scatter = (uint8_t)scatter, .nomatch = (uint8_t)nomatch };

	c.seg[0] = (struct hsplit_seg_cfg){ .proto_mask = mask, .off = 128,
		.cap = 128, .cont_off = 0, .cont_cap = 256 };
	c.seg[1] = (struct hsplit_seg_cfg){ .length = 2048, .off = 0,
		.cap = 2048, .cont_off = 0, .cont_cap = 2048 };
	return c;
}

#define M_TCP (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_TCP)

static void
test_split_proto(void)
{
	struct hsplit_split_cfg c = proto_cfg(M_TCP, 1, HSPLIT_NOMATCH_HOST);
	struct tf_opts o = tcp_opts(1000);
	struct hsplit_pkt_info pi;
	struct hsplit_layout l;
	uint32_t len = tf_build(frame, &o);

	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 1);
	DT_CHECK_EQ(l.nb, 2);
	DT_CHECK_EQ(l.s[0].len, 54);
	DT_CHECK_EQ(l.s[0].off, 128);
	DT_CHECK_EQ(l.s[0].pool, 0);
	DT_CHECK_EQ(l.s[1].len, 1000);
	DT_CHECK_EQ(l.s[1].pool, 1);
	DT_CHECK_EQ(l.hdr_bytes, 54);
	/* Split at L3 only: TCP header goes with the payload. */
	c = proto_cfg(RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN, 1, 0);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.s[0].len, 34);
	DT_CHECK_EQ(l.s[1].len, 1020);
	/* Three segments: eth | ipv4 | tcp+payload. */
	c = proto_cfg(RTE_PTYPE_L2_ETHER, 1, 0);
	c.nseg = 3;
	c.nb_hdr = 2;
	c.seg[2] = c.seg[1];
	c.seg[1] = c.seg[0];
	c.seg[1].proto_mask = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN;
	c.seg[1].off = 0;
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 3);
	DT_CHECK_EQ(l.s[0].len, 14);
	DT_CHECK_EQ(l.s[1].len, 20);
	DT_CHECK_EQ(l.s[1].pool, 1);
	DT_CHECK_EQ(l.s[2].len, 1020);
}

static void
test_split_zero_payload_and_jumbo(void)
{
	struct hsplit_split_cfg c = proto_cfg(M_TCP, 1, HSPLIT_NOMATCH_HOST);
	struct tf_opts o = tcp_opts(0);
	struct hsplit_pkt_info pi;
	struct hsplit_layout l;
	uint32_t len = tf_build(frame, &o);

	/* Pure ACK: header segment plus a 0-byte payload segment (ice-like). */
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 2);
	DT_CHECK_EQ(l.s[0].len, 54);
	DT_CHECK_EQ(l.s[1].len, 0);
	/* Jumbo: payload chained over 2048-byte buffers. */
	o = tcp_opts(8946);
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(len, 9000);
	DT_CHECK_EQ(l.nb, 1 + 5);
	DT_CHECK_EQ(l.s[1].len, 2048);
	DT_CHECK_EQ(l.s[4].len, 2048);
	DT_CHECK_EQ(l.s[5].len, 8946 - 4 * 2048);
	DT_CHECK_EQ(l.s[5].pool, 1);
	/* Without SCATTER the payload must fit one buffer. */
	c.scatter = 0;
	DT_CHECK_EQ(hsplit_split_layout(&c, &pi, len, &l), HSPLIT_LAYOUT_TOO_BIG);
}

static void
test_split_hdr_too_big(void)
{
	struct hsplit_split_cfg c = proto_cfg(M_TCP, 1, HSPLIT_NOMATCH_HOST);
	struct tf_opts o = tcp_opts(10);
	struct hsplit_pkt_info pi;
	struct hsplit_layout l;
	uint32_t len;

	o.ip_opt_words = 10;
	o.tcp_opt_words = 10;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(hsplit_pkt_hdr_len(&pi), 14 + 60 + 60);
	DT_CHECK_EQ(hsplit_split_layout(&c, &pi, len, &l), HSPLIT_LAYOUT_HDR_TOO_BIG);
	c.seg[0].cap = 134;
	DT_CHECK_EQ(hsplit_split_layout(&c, &pi, len, &l), HSPLIT_LAYOUT_OK);
}

static void
test_split_nomatch(void)
{
	struct hsplit_split_cfg c = proto_cfg(M_TCP, 0, HSPLIT_NOMATCH_HOST);
	struct tf_opts o = tcp_opts(500);
	struct hsplit_pkt_info pi;
	struct hsplit_layout l;
	uint32_t len;

	/* UDP when the rule asks for TCP: whole frame in 128 + 256-byte host buffers. */
	o.proto = 17;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 0);
	DT_CHECK_EQ(len, 542);
	DT_CHECK_EQ(l.nb, 3);
	DT_CHECK_EQ(l.s[0].len, 128);
	DT_CHECK_EQ(l.s[1].len, 256);
	DT_CHECK_EQ(l.s[1].off, 0);
	DT_CHECK_EQ(l.s[2].len, 542 - 128 - 256);
	DT_CHECK_EQ(l.s[0].pool + l.s[1].pool + l.s[2].pool, 0);
	/* nomatch=last: the whole frame in the last pool. */
	c.nomatch = HSPLIT_NOMATCH_LAST;
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 1);
	DT_CHECK_EQ(l.s[0].pool, 1);
	DT_CHECK_EQ(l.s[0].len, 542);
	/* ARP and fragments do not match either. */
	len = tf_build_arp(frame);
	hsplit_parse(frame, len, &pi);
	c.nomatch = HSPLIT_NOMATCH_HOST;
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 0);
	DT_CHECK_EQ(l.nb, 1);
	DT_CHECK_EQ(l.s[0].len, 60);
	o = tcp_opts(100);
	o.frag = 1;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 0);
	DT_CHECK_EQ(l.s[0].pool, 0);
}

static void
test_split_length(void)
{
	struct hsplit_split_cfg c = proto_cfg(0, 1, HSPLIT_NOMATCH_HOST);
	struct tf_opts o = tcp_opts(1000);
	struct hsplit_pkt_info pi;
	struct hsplit_layout l;
	uint32_t len = tf_build(frame, &o);

	c.mode = HSPLIT_SPLIT_LENGTH;
	c.seg[0].length = 64;
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 1);
	DT_CHECK_EQ(l.nb, 2);
	DT_CHECK_EQ(l.s[0].len, 64);   /* 10 payload bytes stay in the header mbuf */
	DT_CHECK_EQ(l.s[1].len, 990);
	DT_CHECK_EQ(l.hdr_bytes, 64);
	/* Short frame: seg0 takes it all, the payload segment is empty. */
	o = tcp_opts(2);
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 2);
	DT_CHECK_EQ(l.s[0].len, 56);
	DT_CHECK_EQ(l.s[1].len, 0);
	/* Headers longer than seg0 allows: no match, whole frame on the host. */
	c.seg[0].length = 42;
	o = tcp_opts(300);
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 0);
	DT_CHECK_EQ(l.s[0].pool, 0);
	DT_CHECK_EQ(l.s[0].len, 128);
	/* ICMP under a length split: no match. */
	c.seg[0].length = 64;
	o.proto = 1;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 0);
}

/* mlx5 profile: every frame is cut at the length, headers or not. */
static void
test_split_length_exact(void)
{
	struct hsplit_split_cfg c = proto_cfg(0, 1, HSPLIT_NOMATCH_HOST);
	struct tf_opts o = tcp_opts(300);
	struct hsplit_pkt_info pi;
	struct hsplit_layout l;
	uint32_t len;

	c.mode = HSPLIT_SPLIT_LENGTH;
	c.len_exact = 1;
	/* Headers (54) longer than seg0 (42): they spill into segment 1. */
	c.seg[0].length = 42;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 1);
	DT_CHECK_EQ(l.nb, 2);
	DT_CHECK_EQ(l.s[0].pool, 0);
	DT_CHECK_EQ(l.s[0].len, 42);
	DT_CHECK_EQ(l.s[1].pool, 1);
	DT_CHECK_EQ(l.s[1].len, len - 42);
	/* A frame shorter than seg0 is one buffer: no empty payload segment. */
	c.seg[0].length = 64;
	o = tcp_opts(2);
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 1);
	DT_CHECK_EQ(l.s[0].len, 56);
	/* Exactly seg0: one buffer too. */
	o = tcp_opts(10);
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 1);
	/* ICMP is cut the same way (mlx5 does not parse for a length split). */
	o = tcp_opts(300);
	o.proto = 1;
	len = tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_REQUIRE(hsplit_split_layout(&c, &pi, len, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.matched, 1);
	DT_CHECK_EQ(l.nb, 2);
	DT_CHECK_EQ(l.s[0].len, 64);
}

/* Profiles: what each reports, and the caps= devarg. */
static void
test_caps_profiles(void)
{
	const struct hsplit_caps *full = hsplit_caps_get(HSPLIT_CAPS_FULL);
	const struct hsplit_caps *mlx5 = hsplit_caps_get(HSPLIT_CAPS_MLX5);
	const struct hsplit_caps *ice = hsplit_caps_get(HSPLIT_CAPS_ICE);
	const uint32_t tcp4 = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN |
		RTE_PTYPE_L4_TCP;
	struct hsplit_devargs da;
	char err[256];
	int i, found = 0;

	DT_CHECK_EQ(full->max_nseg, 8);
	DT_CHECK(full->split_ptypes != NULL && full->len_split && !full->len_exact);
	DT_CHECK_EQ(mlx5->max_nseg, 32);
	DT_CHECK(mlx5->multi_pools && mlx5->offset_allowed);
	DT_CHECK_EQ(mlx5->offset_align_log2, 0);
	DT_CHECK(mlx5->split_ptypes == NULL);
	DT_CHECK(mlx5->len_split && mlx5->len_exact);
	DT_CHECK(mlx5->rx_queue_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT);
	DT_CHECK(mlx5->rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_CKSUM);
	DT_CHECK(mlx5->rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH);
	DT_CHECK_EQ(ice->max_nseg, 2);
	DT_CHECK(ice->multi_pools && !ice->offset_allowed && !ice->len_split);
	DT_REQUIRE(ice->split_ptypes != NULL);
	for (i = 0; ice->split_ptypes[i] != RTE_PTYPE_UNKNOWN; i++)
		found |= ice->split_ptypes[i] == tcp4;
	DT_CHECK(found);
	DT_CHECK_EQ(hsplit_caps_parse("mlx5"), HSPLIT_CAPS_MLX5);
	DT_CHECK_EQ(hsplit_caps_parse("ice"), HSPLIT_CAPS_ICE);
	DT_CHECK_EQ(hsplit_caps_parse("full"), HSPLIT_CAPS_FULL);
	DT_CHECK_EQ(hsplit_caps_parse("cx7"), -1);
	DT_REQUIRE(hsplit_devargs_parse("wire=a,caps=mlx5", &da, err,
		sizeof(err)) == 0);
	DT_CHECK_EQ(da.caps, HSPLIT_CAPS_MLX5);
	DT_REQUIRE(hsplit_devargs_parse("wire=a", &da, err, sizeof(err)) == 0);
	DT_CHECK_EQ(da.caps, HSPLIT_CAPS_FULL);
	DT_CHECK_EQ(hsplit_devargs_parse("caps=bnxt", &da, err, sizeof(err)),
		-EINVAL);
	DT_CHECK(strstr(err, "caps=bnxt") != NULL);
}

static void
test_split_none(void)
{
	struct hsplit_split_cfg c = { .mode = HSPLIT_SPLIT_NONE, .nseg = 1 };
	struct hsplit_pkt_info pi = { 0 };
	struct hsplit_layout l;

	c.seg[0] = (struct hsplit_seg_cfg){ .off = 128, .cap = 1920,
		.cont_off = 128, .cont_cap = 1920 };
	DT_REQUIRE(hsplit_split_layout(&c, &pi, 1514, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 1);
	DT_CHECK_EQ(hsplit_split_layout(&c, &pi, 9000, &l), HSPLIT_LAYOUT_TOO_BIG);
	c.scatter = 1;
	DT_REQUIRE(hsplit_split_layout(&c, &pi, 9000, &l) == HSPLIT_LAYOUT_OK);
	DT_CHECK_EQ(l.nb, 5);
	DT_CHECK_EQ(l.s[4].len, 9000 - 4 * 1920);
	DT_CHECK_EQ(l.s[4].off, 128);
	/* Chain limit. */
	c.seg[0].cap = c.seg[0].cont_cap = 64;
	DT_CHECK_EQ(hsplit_split_layout(&c, &pi, 9000, &l), HSPLIT_LAYOUT_TOO_BIG);
}

static void
test_devargs(void)
{
	struct hsplit_devargs da;
	char err[256];

	DT_CHECK_EQ(hsplit_devargs_parse(NULL, &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.seed, 1);
	DT_CHECK_EQ(da.tx_gather_off, 0);
	DT_CHECK_EQ(hsplit_devargs_parse("tx_gather=off", &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.tx_gather_off, 1);
	DT_CHECK_EQ(hsplit_devargs_parse("tx_gather=on", &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.tx_gather_off, 0);
	DT_CHECK_EQ(hsplit_devargs_parse("tx_gather=1", &da, err, sizeof(err)),
		-EINVAL);
	DT_CHECK(strstr(err, "tx_gather=1") != NULL);
	DT_CHECK_EQ(da.flow_off, 0);
	DT_CHECK_EQ(hsplit_devargs_parse("flow=off", &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.flow_off, 1);
	DT_CHECK_EQ(hsplit_devargs_parse("flow=no", &da, err, sizeof(err)),
		-EINVAL);
	/* iface_gro: on by default, off on request, only with iface=. */
	DT_CHECK_EQ(hsplit_devargs_parse("iface=veth0", &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.iface_gro_off, 0);
	DT_CHECK_EQ(hsplit_devargs_parse("iface=veth0,iface_gro=off", &da, err,
		sizeof(err)), 0);
	DT_CHECK_EQ(da.iface_gro_off, 1);
	DT_CHECK_EQ(hsplit_devargs_parse("iface=veth0,iface_gro=yes", &da, err,
		sizeof(err)), -EINVAL);
	DT_CHECK(strstr(err, "iface_gro=yes") != NULL);
	DT_CHECK_EQ(hsplit_devargs_parse("wire=w,iface_gro=on", &da, err,
		sizeof(err)), -EINVAL);
	DT_CHECK(strstr(err, "needs iface=") != NULL);
	DT_CHECK_EQ(hsplit_devargs_parse(NULL, &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.nomatch, HSPLIT_NOMATCH_HOST);
	DT_CHECK_EQ(da.wire[0], 0);
	DT_CHECK_EQ(hsplit_devargs_parse("wire=w1,rate=25,loss=0.01,dup=0.5,"
		"reorder=1,seed=42,nomatch=last,mac=02:11:22:33:44:55,wire_bufs=128",
		&da, err, sizeof(err)), 0);
	DT_CHECK(strcmp(da.wire, "w1") == 0);
	DT_CHECK(da.rate_gbps == 25.0);
	DT_CHECK(da.loss == 0.01);
	DT_CHECK(da.dup == 0.5);
	DT_CHECK(da.reorder == 1.0);
	DT_CHECK_EQ(da.seed, 42);
	DT_CHECK_EQ(da.nomatch, HSPLIT_NOMATCH_LAST);
	DT_CHECK_EQ(da.mac_set, 1);
	DT_CHECK_EQ(da.mac[5], 0x55);
	DT_CHECK_EQ(da.wire_bufs, 128);
	DT_CHECK_EQ(hsplit_devargs_parse("loss=1.5", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK(strstr(err, "loss=1.5") != NULL);
	DT_CHECK_EQ(hsplit_devargs_parse("loss=-0.1", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK_EQ(hsplit_devargs_parse("rate=fast", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK_EQ(hsplit_devargs_parse("seed=-1", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK_EQ(hsplit_devargs_parse("nomatch=gpu", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK(strstr(err, "host or last") != NULL);
	DT_CHECK_EQ(hsplit_devargs_parse("mac=01:00:00:00:00:01", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK_EQ(hsplit_devargs_parse("mac=02:00:00:00:00", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK_EQ(hsplit_devargs_parse("wire=0123456789012345678901234567890123",
		&da, err, sizeof(err)), -EINVAL);
	DT_CHECK_EQ(hsplit_devargs_parse("speed=10", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK(strstr(err, "speed=10") != NULL);
	DT_CHECK_EQ(hsplit_devargs_parse("wire_bufs=3", &da, err, sizeof(err)), -EINVAL);
}

/* The delay line's devargs and its due times (pure: a fake TSC). */
static void
test_delay_line(void)
{
	struct hsplit_devargs da;
	struct hsplit_delay d;
	char err[256];
	uint64_t now, due, prev = 0, lo = UINT64_MAX, hi = 0;
	unsigned int i, back = 0;

	DT_CHECK_EQ(hsplit_devargs_parse(NULL, &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.delay_us, 0);
	DT_CHECK_EQ(da.delay_dir, HSPLIT_DELAY_RX | HSPLIT_DELAY_TX);
	DT_CHECK_EQ(hsplit_devargs_parse("iface=veth0,delay_us=10000,jitter_us=500,"
		"delay_dir=rx", &da, err, sizeof(err)), 0);
	DT_CHECK_EQ(da.delay_us, 10000);
	DT_CHECK_EQ(da.jitter_us, 500);
	DT_CHECK_EQ(da.delay_dir, HSPLIT_DELAY_RX);
	DT_CHECK_EQ(hsplit_devargs_parse("delay_us=10000001", &da, err, sizeof(err)),
		-EINVAL);
	DT_CHECK(strstr(err, "delay_us=10000001") != NULL);
	DT_CHECK_EQ(hsplit_devargs_parse("jitter_us=-1", &da, err, sizeof(err)), -EINVAL);
	DT_CHECK_EQ(hsplit_devargs_parse("iface=v0,delay_dir=up", &da, err, sizeof(err)),
		-EINVAL);
	/* On a loopback wire the sender delays: no direction to pick. */
	DT_CHECK_EQ(hsplit_devargs_parse("wire=w,delay_dir=tx", &da, err, sizeof(err)),
		-EINVAL);

	/* 1 GHz "TSC": 1 us = 1000 ticks. Off: no delay line. */
	hsplit_delay_init(&d, 0, 0, 1000000000ull, 1, 0);
	DT_CHECK(!hsplit_delay_on(&d));
	hsplit_delay_init(&d, 2000, 0, 1000000000ull, 1, 0);
	DT_CHECK(hsplit_delay_on(&d));
	DT_CHECK_EQ(hsplit_delay_due(&d, 5000), 5000 + 2000000);
	/* Jitter: within [delay, delay + jitter], never before the frame ahead. */
	hsplit_delay_init(&d, 2000, 1000, 1000000000ull, 7, 3);
	/* Frames 2 ms apart: independent draws over the whole jitter. */
	for (i = 0, now = 1000; i < 1000; i++, now += 2000000) {
		due = hsplit_delay_due(&d, now);
		lo = RTE_MIN(lo, due - now);
		hi = RTE_MAX(hi, due - now);
	}
	DT_CHECK(lo >= 2000000 && lo < 2000000 + 100000);
	DT_CHECK(hi > 2000000 + 900000 && hi <= 2000000 + 1000000);
	/* 0.1 us apart: a frame never due before the one ahead (no reordering). */
	for (i = 0, prev = 0; i < 10000; i++, now += 100) {
		due = hsplit_delay_due(&d, now);
		back += due < prev;
		DT_CHECK(due >= now + 2000000);
		prev = due;
	}
	DT_CHECK_EQ(back, 0);
}

static void
test_offload_cksum(void)
{
	struct tf_opts o = tcp_opts(333);
	struct hsplit_pkt_info pi;
	uint8_t ref[600];
	uint32_t len;
	unsigned int done;
	uint64_t fl;

	len = tf_build(ref, &o);
	o.cksum = 0;
	tf_build(frame, &o);
	/* Intel-style pseudo-header sum in the field must not matter. */
	frame[14 + 20 + 16] = 0xab;
	hsplit_parse(frame, len, &pi);
	fl = hsplit_rx_cksum(frame, len, &pi, 1, 1, 0);
	DT_CHECK_EQ(fl, RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD);
	done = hsplit_tx_cksum(frame, len, RTE_MBUF_F_TX_IPV4 |
		RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM, 14, 20, &pi);
	DT_CHECK_EQ(done, HSPLIT_CK_IP | HSPLIT_CK_L4);
	DT_CHECK(memcmp(frame, ref, len) == 0);
	fl = hsplit_rx_cksum(frame, len, &pi, 1, 1, 0);
	DT_CHECK_EQ(fl, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	DT_CHECK_EQ(hsplit_rx_cksum(frame, len, &pi, 0, 0, 0), 0);
	frame[len - 1] ^= 0xff;
	fl = hsplit_rx_cksum(frame, len, &pi, 1, 1, 0);
	DT_CHECK_EQ(fl, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD);
	/* UDP, headers located by the parse (l2_len/l3_len 0). */
	o = tcp_opts(77);
	o.proto = 17;
	len = tf_build(ref, &o);
	o.cksum = 0;
	tf_build(frame, &o);
	hsplit_parse(frame, len, &pi);
	DT_CHECK_EQ(hsplit_rx_cksum(frame, len, &pi, 1, 1, 0),
		RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_NONE);
	done = hsplit_tx_cksum(frame, len, RTE_MBUF_F_TX_IP_CKSUM |
		RTE_MBUF_F_TX_UDP_CKSUM, 0, 0, &pi);
	DT_CHECK_EQ(done, HSPLIT_CK_IP | HSPLIT_CK_L4);
	DT_CHECK(memcmp(frame, ref, len) == 0);
	DT_CHECK_EQ(hsplit_tx_cksum(frame, len, 0, 14, 20, &pi), 0);
}

static void
test_rss(void)
{
	struct hsplit_pkt_info pi = { 0 };
	uint16_t reta[HSPLIT_RETA_SIZE];
	uint32_t h = 0;

	/* Microsoft's RSS verification suite, first IPv4 vector. */
	pi.ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;
	pi.l3_len = 20;
	pi.l4_len = 20;
	pi.src_ip = rte_cpu_to_be_32(0x420995bb);  /* 66.9.149.187 */
	pi.dst_ip = rte_cpu_to_be_32(0xa18e6450);  /* 161.142.100.80 */
	pi.src_port = rte_cpu_to_be_16(2794);
	pi.dst_port = rte_cpu_to_be_16(1766);
	DT_REQUIRE(hsplit_rss_hash(&pi, RTE_ETH_RSS_NONFRAG_IPV4_TCP,
		hsplit_rss_default_key, &h) == 1);
	DT_CHECK_EQ(h, 0x51ccc178);
	DT_REQUIRE(hsplit_rss_hash(&pi, RTE_ETH_RSS_IPV4,
		hsplit_rss_default_key, &h) == 1);
	DT_CHECK_EQ(h, 0x323e8fc2);
	DT_CHECK_EQ(hsplit_rss_hash(&pi, RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		hsplit_rss_default_key, &h), 0);
	pi.ptype = RTE_PTYPE_L2_ETHER_ARP;
	pi.l3_len = 0;
	DT_CHECK_EQ(hsplit_rss_hash(&pi, HSPLIT_RSS_OFFLOAD_ALL,
		hsplit_rss_default_key, &h), 0);
	hsplit_rss_reta_default(reta, 3);
	DT_CHECK_EQ(reta[0], 0);
	DT_CHECK_EQ(reta[4], 1);
	DT_CHECK_EQ(reta[511], 511 % 3);
}

/* TSO planning against each profile's limits (no EAL: mbuf fields only). */
static void
test_tso_plan(void)
{
	const struct hsplit_caps *full = hsplit_caps_get(HSPLIT_CAPS_FULL);
	const struct hsplit_caps *mlx5 = hsplit_caps_get(HSPLIT_CAPS_MLX5);
	const struct hsplit_caps *ice = hsplit_caps_get(HSPLIT_CAPS_ICE);
	struct hsplit_tso_plan pl;
	struct rte_mbuf m;

	memset(&m, 0, sizeof(m));
	m.ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4;
	m.l2_len = 14;
	m.l3_len = 20;
	m.l4_len = 32;
	m.data_len = 66;
	m.pkt_len = 66 + 10000;
	m.nb_segs = 41;
	m.tso_segsz = 1448;
	DT_CHECK_EQ(hsplit_tso_plan(&m, full, &pl), 0);
	DT_CHECK_EQ(pl.nseg, 7);
	DT_CHECK_EQ(pl.hdr_len, 66);
	DT_CHECK_EQ(pl.payload, 10000);
	/* Wire bytes: 7 frames of headers and overhead. */
	DT_CHECK_EQ(hsplit_tso_wire_len(&m, 24), 66 + 10000 + 6 * 66 + 7 * 24);
	/* mlx5: 40 buffers at most. */
	DT_CHECK_EQ(hsplit_tso_plan(&m, mlx5, &pl), -1);
	m.nb_segs = 40;
	DT_CHECK_EQ(hsplit_tso_plan(&m, mlx5, &pl), 0);
	/* ice: MSS 64..9728, 256 KiB. */
	m.pkt_len = 66 + 1000;
	m.tso_segsz = 63;
	DT_CHECK_EQ(hsplit_tso_plan(&m, ice, &pl), -1);
	DT_CHECK_EQ(hsplit_tso_plan(&m, mlx5, &pl), 0);
	m.tso_segsz = 9000;
	m.pkt_len = 262145;
	DT_CHECK_EQ(hsplit_tso_plan(&m, ice, &pl), -1);
	/* More segments than the model cuts, headers beyond the first buffer. */
	m.pkt_len = 66 + 129 * 100;
	m.tso_segsz = 100;
	DT_CHECK_EQ(hsplit_tso_plan(&m, full, &pl), -1);
	m.pkt_len = 66 + 128 * 100;
	DT_CHECK_EQ(hsplit_tso_plan(&m, full, &pl), 0);
	m.data_len = 60;
	DT_CHECK_EQ(hsplit_tso_plan(&m, full, &pl), -1);
	m.data_len = 66;
	DT_CHECK_EQ(hsplit_tso_plan(&m, hsplit_caps_get(HSPLIT_CAPS_NOTSO), &pl),
		-1);
}

int
main(void)
{
	DT_RUN(test_parse_tcp);
	DT_RUN(test_parse_options_vlan_udp);
	DT_RUN(test_parse_arp_icmp_frag);
	DT_RUN(test_parse_truncated);
	DT_RUN(test_parse_ipv6);
	DT_RUN(test_split_proto);
	DT_RUN(test_split_zero_payload_and_jumbo);
	DT_RUN(test_split_hdr_too_big);
	DT_RUN(test_split_nomatch);
	DT_RUN(test_split_length);
	DT_RUN(test_split_length_exact);
	DT_RUN(test_caps_profiles);
	DT_RUN(test_split_none);
	DT_RUN(test_devargs);
	DT_RUN(test_delay_line);
	DT_RUN(test_offload_cksum);
	DT_RUN(test_rss);
	DT_RUN(test_tso_plan);
	return dt_test_summary();
}
