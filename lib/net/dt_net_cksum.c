/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internet checksum. The one's-complement sum is independent of byte order
 * (RFC 1071 2.(B)), so the bulk loop sums native 32-bit loads into a 64-bit
 * accumulator (fast, no per-byte work) and the folded result is swapped once
 * into network order on little-endian hosts.
 */
#include <string.h>

#include "dt_net_cksum.h"

static inline uint16_t
fold64(uint64_t s)
{
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)s;
}

static inline uint16_t
swap16(uint16_t v)
{
	return (uint16_t)((v << 8) | (v >> 8));
}

/* Folded sum of a buffer starting at an even offset, network order. */
static uint16_t
raw_sum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t s = 0;
	uint32_t w32;
	uint16_t w16;

	while (len >= 16) {
		uint32_t a, b, c, d;

		memcpy(&a, p, 4);
		memcpy(&b, p + 4, 4);
		memcpy(&c, p + 8, 4);
		memcpy(&d, p + 12, 4);
		s += (uint64_t)a + b + c + d;
		p += 16;
		len -= 16;
	}
	while (len >= 4) {
		memcpy(&w32, p, 4);
		s += w32;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&w16, p, 2);
		s += w16;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* Trailing byte is the high byte of a zero-padded word. */
		w16 = 0;
		memcpy(&w16, p, 1);
		s += w16;
	}
	w16 = fold64(s);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	w16 = swap16(w16);
#endif
	return w16;
}

static inline uint32_t
add32(uint32_t sum, uint32_t v)
{
	uint64_t s = (uint64_t)sum + v;

	return (uint32_t)((s & 0xffffffffu) + (s >> 32));
}

uint32_t
dt_net_cksum_add(uint32_t sum, const void *buf, size_t len)
{
	return add32(sum, raw_sum(buf, len));
}

uint32_t
dt_net_cksum_add_at(uint32_t sum, const void *buf, size_t len, size_t offset)
{
	uint16_t s = raw_sum(buf, len);

	/* A chunk at an odd offset has its bytes in the other lane. */
	if (offset & 1)
		s = swap16(s);
	return add32(sum, s);
}

uint16_t
dt_net_cksum_fold(uint32_t sum)
{
	return fold64(sum);
}

uint16_t
dt_net_cksum_finish(uint32_t sum)
{
	return (uint16_t)~fold64(sum);
}

uint16_t
dt_net_cksum(const void *buf, size_t len)
{
	return dt_net_cksum_finish(raw_sum(buf, len));
}

uint16_t
dt_net_ipv4_hdr_cksum(const void *hdr, size_t hdr_len)
{
	const uint8_t *p = hdr;
	uint32_t s;

	if (hdr_len < 12)
		return dt_net_cksum(hdr, hdr_len);
	/* Skip the checksum field (bytes 10-11) rather than copy the header. */
	s = raw_sum(p, 10);
	s = dt_net_cksum_add(s, p + 12, hdr_len - 12);
	return dt_net_cksum_finish(s);
}

int
dt_net_ipv4_hdr_cksum_ok(const void *hdr, size_t hdr_len)
{
	return dt_net_cksum_fold(raw_sum(hdr, hdr_len)) == 0xffff;
}

uint32_t
dt_net_ipv4_pseudo_sum(uint32_t src, uint32_t dst, uint8_t proto,
	uint16_t l4_len)
{
	uint64_t s = 0;

	s += (src >> 16) + (src & 0xffff);
	s += (dst >> 16) + (dst & 0xffff);
	s += proto;
	s += l4_len;
	return fold64(s);
}

uint32_t
dt_net_ipv6_pseudo_sum(const uint8_t src[16], const uint8_t dst[16],
	uint8_t proto, uint32_t l4_len)
{
	uint32_t s;

	s = raw_sum(src, 16);
	s = dt_net_cksum_add(s, dst, 16);
	s = add32(s, (l4_len >> 16) + (l4_len & 0xffff));
	s = add32(s, proto);
	return fold64(s);
}

uint16_t
dt_net_l4_cksum(uint32_t pseudo, const void *l4, size_t l4_len,
	size_t cksum_off)
{
	const uint8_t *p = l4;
	uint32_t s = dt_net_cksum_add(pseudo, l4, l4_len);

	/* Subtract the field's current value: adding its complement. */
	if (cksum_off + 2 <= l4_len) {
		uint16_t field = (uint16_t)(p[cksum_off] << 8 | p[cksum_off + 1]);

		if (cksum_off & 1)
			field = swap16(field);
		s = add32(s, (uint16_t)~field);
	}
	return dt_net_cksum_finish(s);
}

int
dt_net_l4_cksum_ok(uint32_t pseudo, const void *l4, size_t l4_len)
{
	return dt_net_cksum_fold(dt_net_cksum_add(pseudo, l4, l4_len)) == 0xffff;
}

uint16_t
dt_net_cksum_update16(uint16_t cksum, uint16_t old_val, uint16_t new_val)
{
	/* RFC 1624: HC' = ~(~HC + ~m + m') */
	uint32_t s = (uint16_t)~cksum;

	s += (uint16_t)~old_val;
	s += new_val;
	return dt_net_cksum_finish(s);
}

uint16_t
dt_net_cksum_update32(uint16_t cksum, uint32_t old_val, uint32_t new_val)
{
	cksum = dt_net_cksum_update16(cksum, (uint16_t)(old_val >> 16),
		(uint16_t)(new_val >> 16));
	return dt_net_cksum_update16(cksum, (uint16_t)old_val,
		(uint16_t)new_val);
}
