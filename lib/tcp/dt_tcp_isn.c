/* SPDX-License-Identifier: BSD-3-Clause */
/* RFC 6528 initial sequence numbers with SipHash-2-4 as the keyed hash. */
#include "dt_net_bytes.h"
#include "dt_tcp_isn.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static uint64_t
load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL(v[2], 32);
}

static void
sip_block(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
}

uint64_t
dt_tcp_siphash(const struct dt_tcp_isn_key *key, const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t k0 = load_le64(key->k), k1 = load_le64(key->k + 8);
	uint64_t v[4] = {
		k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
		k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull,
	};
	uint64_t last = (uint64_t)len << 56;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		sip_block(v, load_le64(p + i));
	for (; i < len; i++)
		last |= (uint64_t)p[i] << (8 * (i % 8));
	sip_block(v, last);
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint32_t
dt_tcp_isn(const struct dt_tcp_isn_key *key, const struct dt_tcp_tuple *t,
	uint64_t now_us)
{
	uint8_t msg[12];

	dt_net_put_be32(msg, t->laddr);
	dt_net_put_be32(msg + 4, t->raddr);
	dt_net_put_be16(msg + 8, t->lport);
	dt_net_put_be16(msg + 10, t->rport);
	/* M: a timer ticking every 4 microseconds (RFC 6528 3). */
	return (uint32_t)(now_us / 4) +
		(uint32_t)dt_tcp_siphash(key, msg, sizeof(msg));
}
