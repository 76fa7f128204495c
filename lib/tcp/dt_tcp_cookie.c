/* SPDX-License-Identifier: BSD-3-Clause */
/* SYN cookies: encoding and validation (see dt_tcp_cookie.h for the layout). */
#include "dt_net_bytes.h"
#include "dt_tcp_cookie.h"

#define COOKIE_SLOT_SHIFT 29
#define COOKIE_SLOT_MASK 0x7u
#define COOKIE_MSS_SHIFT 26
#define COOKIE_MSS_MASK 0x7u
#define COOKIE_HASH_MASK ((1u << COOKIE_MSS_SHIFT) - 1)
/* Slots a cookie stays valid: the one it was made in and the next. */
#define COOKIE_MAX_AGE 1
/* Option bits: window shift (15 = none), SACK-permitted; TS in the hash. */
#define OB_WS_NONE 0xfu
#define OB_SACK 0x10u
#define OB_TS 0x20u
/* Tells the cookie's hash input from the ISN's (dt_tcp_isn()). */
#define COOKIE_TAG 0xc5

/*
 * Peer MSS values a cookie can carry: the common ones (IPv4 over 1500-byte
 * Ethernet with and without tunnels or PPPoE, IPv6-sized) plus jumbo frames
 * (data-plane ports run 9000-byte MTUs), and Linux's floor of 48 so that a
 * tiny MSS is never rounded up past what the peer accepts.
 */
static const uint16_t cookie_mss_tab[COOKIE_MSS_MASK + 1] = {
	48, 536, 1220, 1360, 1440, 1460, 4036, 8960,
};

static uint8_t
mss_index(uint16_t mss)
{
	uint8_t i = COOKIE_MSS_MASK;

	while (i > 0 && cookie_mss_tab[i] > mss)
		i--;
	return i;
}

static uint32_t
cookie_hash(const struct dt_tcp_isn_key *key, const struct dt_tcp_tuple *t,
	uint32_t irs, uint64_t slot, uint8_t mss_i, uint8_t obits)
{
	uint8_t msg[27];

	dt_net_put_be32(msg, t->laddr);
	dt_net_put_be32(msg + 4, t->raddr);
	dt_net_put_be16(msg + 8, t->lport);
	dt_net_put_be16(msg + 10, t->rport);
	dt_net_put_be32(msg + 12, irs);
	dt_net_put_be32(msg + 16, (uint32_t)(slot >> 32));
	dt_net_put_be32(msg + 20, (uint32_t)slot);
	msg[24] = mss_i;
	msg[25] = obits;
	msg[26] = COOKIE_TAG;
	return (uint32_t)dt_tcp_siphash(key, msg, sizeof(msg)) &
		COOKIE_HASH_MASK;
}

static uint8_t
opts_bits(const struct dt_tcp_cookie_opts *o)
{
	uint8_t b = OB_WS_NONE;

	if (!(o->present & DT_NET_TCPOPT_F_TS))
		return b;
	b = OB_TS;
	b |= (o->present & DT_NET_TCPOPT_F_WSCALE) ?
		(o->wscale > 14 ? 14 : o->wscale) : OB_WS_NONE;
	if (o->present & DT_NET_TCPOPT_F_SACK_PERM)
		b |= OB_SACK;
	return b;
}

static void
opts_from_bits(uint8_t b, uint8_t mss_i, struct dt_tcp_cookie_opts *o)
{
	o->mss = cookie_mss_tab[mss_i];
	o->present = DT_NET_TCPOPT_F_MSS;
	o->wscale = 0;
	if (!(b & OB_TS))
		return;
	o->present |= DT_NET_TCPOPT_F_TS;
	if ((b & OB_WS_NONE) != OB_WS_NONE) {
		o->present |= DT_NET_TCPOPT_F_WSCALE;
		o->wscale = b & OB_WS_NONE;
	}
	if (b & OB_SACK)
		o->present |= DT_NET_TCPOPT_F_SACK_PERM;
}

uint32_t
dt_tcp_cookie_make(const struct dt_tcp_isn_key *key,
	const struct dt_tcp_tuple *t, uint32_t irs, uint64_t now_us,
	struct dt_tcp_cookie_opts *o)
{
	uint64_t slot = now_us / DT_TCP_COOKIE_SLOT_US;
	uint8_t mss_i = mss_index((o->present & DT_NET_TCPOPT_F_MSS) && o->mss ?
		o->mss : 536);
	uint8_t b = opts_bits(o);

	opts_from_bits(b, mss_i, o);
	return (uint32_t)(slot & COOKIE_SLOT_MASK) << COOKIE_SLOT_SHIFT |
		(uint32_t)mss_i << COOKIE_MSS_SHIFT |
		cookie_hash(key, t, irs, slot, mss_i, b);
}

uint32_t
dt_tcp_cookie_tsval(uint32_t ts_now, const struct dt_tcp_cookie_opts *o)
{
	uint32_t b = opts_bits(o) & DT_TCP_COOKIE_TS_MASK;
	uint32_t v = (ts_now & ~DT_TCP_COOKIE_TS_MASK) | b;

	/* Never ahead of the clock: later TSvals must not be smaller. */
	if (dt_tcp_seq_gt(v, ts_now))
		v -= DT_TCP_COOKIE_TS_MASK + 1;
	return v;
}

bool
dt_tcp_cookie_check(const struct dt_tcp_isn_key *key,
	const struct dt_tcp_tuple *t, uint32_t irs, uint32_t cookie, bool ts,
	uint32_t ts_ecr, uint64_t now_us, struct dt_tcp_cookie_opts *o)
{
	uint64_t now_slot = now_us / DT_TCP_COOKIE_SLOT_US, slot;
	uint8_t mss_i = (cookie >> COOKIE_MSS_SHIFT) & COOKIE_MSS_MASK;
	uint8_t b = ts ? (uint8_t)(OB_TS | (ts_ecr & DT_TCP_COOKIE_TS_MASK)) :
		OB_WS_NONE;
	unsigned int age;

	for (age = 0; age <= COOKIE_MAX_AGE && age <= now_slot; age++) {
		slot = now_slot - age;
		if (((cookie >> COOKIE_SLOT_SHIFT) & COOKIE_SLOT_MASK) !=
				(slot & COOKIE_SLOT_MASK))
			continue;
		if ((cookie & COOKIE_HASH_MASK) !=
				cookie_hash(key, t, irs, slot, mss_i, b))
			return false;
		opts_from_bits(b, mss_i, o);
		return true;
	}
	return false;
}
