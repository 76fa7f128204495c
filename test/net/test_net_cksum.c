/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/net checksums: known vectors, odd lengths, partial and
 * incremental sums, each checked against a byte-wise reference. */
#include <stdint.h>
#include <string.h>

#include "dt_test.h"
#include "dt_net_cksum.h"

/* Byte-wise RFC 1071 reference, deliberately naive. */
static uint16_t
ref_sum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint64_t prng_state = 0x9e3779b97f4a7c15ull;

static uint32_t
prng(void)
{
	prng_state ^= prng_state << 13;
	prng_state ^= prng_state >> 7;
	prng_state ^= prng_state << 17;
	return (uint32_t)(prng_state >> 16);
}

static void
fill(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)prng();
}

static void
test_rfc1071_vector(void)
{
	/* RFC 1071 section 3 example: sum 0xddf2. */
	static const uint8_t v[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	DT_CHECK_EQ(dt_net_cksum_fold(dt_net_cksum_add(0, v, sizeof(v))), 0xddf2);
	DT_CHECK_EQ(dt_net_cksum(v, sizeof(v)), 0x220d);
	DT_CHECK_EQ(dt_net_cksum(v, 0), 0xffff);
}

static void
test_ipv4_header_vector(void)
{
	/* Well-known header, checksum 0xb861. */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01,
		0xc0, 0xa8, 0x00, 0xc7 };

	DT_CHECK_EQ(dt_net_ipv4_hdr_cksum(h, sizeof(h)), 0xb861);
	DT_CHECK(dt_net_ipv4_hdr_cksum_ok(h, sizeof(h)));
	h[10] = 0;
	h[11] = 0;
	/* The field's content must not matter. */
	DT_CHECK_EQ(dt_net_ipv4_hdr_cksum(h, sizeof(h)), 0xb861);
	DT_CHECK(!dt_net_ipv4_hdr_cksum_ok(h, sizeof(h)));
	h[10] = 0xb8;
	h[11] = 0x61;
	h[15] ^= 0x01;
	DT_CHECK(!dt_net_ipv4_hdr_cksum_ok(h, sizeof(h)));
}

static void
test_odd_lengths_vs_reference(void)
{
	uint8_t buf[1601];
	size_t len, off;

	for (len = 0; len <= 70; len++) {
		for (off = 0; off < 4; off++) {
			fill(buf, sizeof(buf));
			DT_CHECK_EQ(dt_net_cksum_fold(dt_net_cksum_add(0, buf + off, len)),
				ref_sum(buf + off, len));
		}
	}
	for (len = 1500; len <= 1600; len += 33) {
		fill(buf, sizeof(buf));
		DT_CHECK_EQ(dt_net_cksum_fold(dt_net_cksum_add(0, buf + 1, len)),
			ref_sum(buf + 1, len));
	}
}

static void
test_partial_sums(void)
{
	uint8_t buf[999];
	unsigned int i;

	fill(buf, sizeof(buf));
	for (i = 0; i < 50; i++) {
		size_t a = prng() % sizeof(buf);
		size_t b = a + prng() % (sizeof(buf) - a);
		uint32_t s;

		/* Any split, odd boundaries included, with the offset-aware add. */
		s = dt_net_cksum_add_at(0, buf, a, 0);
		s = dt_net_cksum_add_at(s, buf + a, b - a, a);
		s = dt_net_cksum_add_at(s, buf + b, sizeof(buf) - b, b);
		DT_CHECK_EQ(dt_net_cksum_fold(s), ref_sum(buf, sizeof(buf)));
		/* Even boundaries with the plain add. */
		a &= ~(size_t)1;
		s = dt_net_cksum_add(0, buf, a);
		s = dt_net_cksum_add(s, buf + a, sizeof(buf) - a);
		DT_CHECK_EQ(dt_net_cksum_fold(s), ref_sum(buf, sizeof(buf)));
	}
}

/* IPv4 + TCP segment: pseudo header, compute, verify, corrupt. */
static void
test_tcp_ipv4(void)
{
	uint8_t seg[20 + 37];
	uint8_t ph[12];
	uint32_t src = 0xc0a80001, dst = 0x0a000002;
	uint32_t ps;
	uint16_t ck;
	uint32_t rs;

	fill(seg, sizeof(seg));
	ps = dt_net_ipv4_pseudo_sum(src, dst, DT_NET_IPPROTO_TCP, sizeof(seg));
	ck = dt_net_l4_cksum(ps, seg, sizeof(seg), 16);
	/* Reference: pseudo header bytes + segment with a zero field. */
	ph[0] = 0xc0; ph[1] = 0xa8; ph[2] = 0x00; ph[3] = 0x01;
	ph[4] = 0x0a; ph[5] = 0x00; ph[6] = 0x00; ph[7] = 0x02;
	ph[8] = 0; ph[9] = 6; ph[10] = 0; ph[11] = sizeof(seg);
	seg[16] = 0;
	seg[17] = 0;
	rs = (uint32_t)ref_sum(ph, sizeof(ph)) + ref_sum(seg, sizeof(seg));
	rs = (rs & 0xffff) + (rs >> 16);
	DT_CHECK_EQ(ck, (uint16_t)~rs);
	seg[16] = (uint8_t)(ck >> 8);
	seg[17] = (uint8_t)ck;
	DT_CHECK(dt_net_l4_cksum_ok(ps, seg, sizeof(seg)));
	seg[40] ^= 0x10;
	DT_CHECK(!dt_net_l4_cksum_ok(ps, seg, sizeof(seg)));
	DT_CHECK(!dt_net_l4_cksum_ok(dt_net_ipv4_pseudo_sum(src, dst + 1,
		DT_NET_IPPROTO_TCP, sizeof(seg)), seg, sizeof(seg)));
}

static void
test_udp_ipv6(void)
{
	uint8_t s6[16], d6[16], seg[8 + 11];
	uint8_t ph[40];
	uint32_t ps, rs;
	uint16_t ck;

	fill(s6, 16);
	fill(d6, 16);
	fill(seg, sizeof(seg));
	ps = dt_net_ipv6_pseudo_sum(s6, d6, DT_NET_IPPROTO_UDP, sizeof(seg));
	ck = dt_net_udp_cksum_fix(dt_net_l4_cksum(ps, seg, sizeof(seg), 6));
	memcpy(ph, s6, 16);
	memcpy(ph + 16, d6, 16);
	memset(ph + 32, 0, 8);
	ph[35] = sizeof(seg);
	ph[39] = 17;
	seg[6] = 0;
	seg[7] = 0;
	rs = (uint32_t)ref_sum(ph, sizeof(ph)) + ref_sum(seg, sizeof(seg));
	rs = (rs & 0xffff) + (rs >> 16);
	DT_CHECK_EQ(ck, dt_net_udp_cksum_fix((uint16_t)~rs));
	seg[6] = (uint8_t)(ck >> 8);
	seg[7] = (uint8_t)ck;
	DT_CHECK(dt_net_l4_cksum_ok(ps, seg, sizeof(seg)));
	DT_CHECK_EQ(dt_net_udp_cksum_fix(0), 0xffff);
	DT_CHECK_EQ(dt_net_udp_cksum_fix(0x1234), 0x1234);
}

static void
test_incremental(void)
{
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01,
		0xc0, 0xa8, 0x00, 0xc7 };
	unsigned int i;

	for (i = 0; i < 200; i++) {
		uint16_t ck = dt_net_ipv4_hdr_cksum(h, sizeof(h));
		uint16_t old16 = (uint16_t)(h[8] << 8 | h[9]);
		uint16_t new16 = (uint16_t)prng();
		uint32_t old32 = (uint32_t)h[12] << 24 | h[13] << 16 | h[14] << 8 | h[15];
		uint32_t new32 = prng() ^ (prng() << 16);

		/* TTL/proto word changes (as when forwarding). */
		h[8] = (uint8_t)(new16 >> 8);
		h[9] = (uint8_t)new16;
		ck = dt_net_cksum_update16(ck, old16, new16);
		DT_CHECK_EQ(ck, dt_net_ipv4_hdr_cksum(h, sizeof(h)));
		/* Source address changes (NAT). */
		h[12] = (uint8_t)(new32 >> 24);
		h[13] = (uint8_t)(new32 >> 16);
		h[14] = (uint8_t)(new32 >> 8);
		h[15] = (uint8_t)new32;
		ck = dt_net_cksum_update32(ck, old32, new32);
		DT_CHECK_EQ(ck, dt_net_ipv4_hdr_cksum(h, sizeof(h)));
	}
}

int
main(void)
{
	DT_RUN(test_rfc1071_vector);
	DT_RUN(test_ipv4_header_vector);
	DT_RUN(test_odd_lengths_vs_reference);
	DT_RUN(test_partial_sums);
	DT_RUN(test_tcp_ipv4);
	DT_RUN(test_udp_ipv6);
	DT_RUN(test_incremental);
	return dt_test_summary();
}
