/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame builders shared by the net_hsplit tests (plain bytes, no DPDK). */
#ifndef HSPLIT_TEST_FRAMES_H
#define HSPLIT_TEST_FRAMES_H

#include <stdint.h>
#include <string.h>

#include "dt_net_cksum.h"

struct tf_opts {
	uint8_t proto;        /* 6 TCP, 17 UDP, 1 ICMP */
	uint32_t src, dst;    /* host order */
	uint16_t sport, dport;
	uint16_t payload;     /* L4 payload bytes */
	uint8_t ip_opt_words; /* IPv4 option words (4 bytes each) */
	uint8_t tcp_opt_words;
	uint8_t vlan;         /* one 802.1Q tag */
	uint8_t frag;         /* set MF */
	uint8_t cksum;        /* fill IPv4 and L4 checksums */
};

static inline void
tf_w16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
tf_w32(uint8_t *p, uint32_t v)
{
	tf_w16(p, (uint16_t)(v >> 16));
	tf_w16(p + 2, (uint16_t)v);
}

/* Payload byte i of a frame: recognisable and position-dependent. */
static inline uint8_t
tf_pay(uint32_t i)
{
	return (uint8_t)(i * 7 + 3);
}

/* Ethernet/IPv4/L4 frame; returns its length. */
static inline uint32_t
tf_build(uint8_t *f, const struct tf_opts *o)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 2 };
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0, 1 };
	uint32_t l2 = 14 + (o->vlan ? 4 : 0);
	uint32_t l3 = 20 + 4u * o->ip_opt_words;
	uint32_t l4 = o->proto == 6 ? 20 + 4u * o->tcp_opt_words :
		o->proto == 17 ? 8 : 8;
	uint32_t i, tot = l3 + l4 + o->payload;
	uint8_t *ip = f + l2, *th = ip + l3;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (o->vlan) {
		tf_w16(f + 12, 0x8100);
		tf_w16(f + 14, 100);
	}
	tf_w16(f + l2 - 2, 0x0800);
	memset(ip, 0, l3);
	ip[0] = (uint8_t)(0x40 | (l3 / 4));
	tf_w16(ip + 2, (uint16_t)tot);
	tf_w16(ip + 4, 0x1234);
	tf_w16(ip + 6, o->frag ? 0x2000 : 0x4000);
	ip[8] = 64;
	ip[9] = o->proto;
	tf_w32(ip + 12, o->src);
	tf_w32(ip + 16, o->dst);
	for (i = 20; i < l3; i++)
		ip[i] = 1; /* NOP options */
	memset(th, 0, l4);
	tf_w16(th, o->sport);
	tf_w16(th + 2, o->dport);
	if (o->proto == 6) {
		tf_w32(th + 4, 1000);
		th[12] = (uint8_t)((l4 / 4) << 4);
		th[13] = 0x10;
		tf_w16(th + 14, 65535);
		for (i = 20; i < l4; i++)
			th[i] = 1;
	} else if (o->proto == 17) {
		tf_w16(th + 4, (uint16_t)(l4 + o->payload));
	} else {
		th[0] = 8; /* echo request */
	}
	for (i = 0; i < o->payload; i++)
		th[l4 + i] = tf_pay(i);
	if (o->cksum) {
		uint32_t ps = dt_net_ipv4_pseudo_sum(o->src, o->dst, o->proto,
			(uint16_t)(l4 + o->payload));

		tf_w16(ip + 10, dt_net_ipv4_hdr_cksum(ip, l3));
		if (o->proto == 6)
			tf_w16(th + 16, dt_net_l4_cksum(ps, th, l4 + o->payload, 16));
		else if (o->proto == 17)
			tf_w16(th + 6, dt_net_udp_cksum_fix(dt_net_l4_cksum(ps, th,
				l4 + o->payload, 6)));
		else
			tf_w16(th + 2, dt_net_cksum(th, l4 + o->payload));
	}
	return l2 + tot;
}

/* ARP request padded to 60 bytes. */
static inline uint32_t
tf_build_arp(uint8_t *f)
{
	memset(f, 0, 60);
	memset(f, 0xff, 6);
	f[6] = 0x02;
	f[11] = 1;
	tf_w16(f + 12, 0x0806);
	tf_w16(f + 14, 1);
	tf_w16(f + 16, 0x0800);
	f[18] = 6;
	f[19] = 4;
	tf_w16(f + 20, 1);
	return 60;
}

#endif /* HSPLIT_TEST_FRAMES_H */
