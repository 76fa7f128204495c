/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUBIC congestion control (RFC 9438) in integer arithmetic: windows in
 * bytes, the cubic's time in units of 2^-10 s, C = 410/1024 (0.4),
 * beta = 717/1024 (0.7), alpha_cubic = 542/1024 (3(1-b)/(1+b)). Time comes
 * from the engine's calls (no clock is read), so runs are deterministic.
 * Slow start is RFC 5681's; HyStart is not implemented.
 */
#include <string.h>

#include "dt_tcp_priv.h"

#define CUBIC_C 410u		/* 0.4 in 1/1024 */
#define CUBIC_BETA 717u		/* 0.7 in 1/1024 */
#define CUBIC_ALPHA 542u	/* 3 (1 - beta) / (1 + beta) in 1/1024 */
#define CUBIC_ONE 1024u
#define CUBIC_T_MAX (1 << 18)	/* |t - K| bound, 2^-10 s (256 s) */

/* Per-connection state, kept in dt_tcp_conn.cc_priv. */
struct cubic {
	uint64_t epoch;		/* us when this epoch began; 0 = none */
	uint32_t w_max;		/* window before the last reduction, bytes */
	uint32_t k;		/* time to reach w_max, 2^-10 s */
	uint32_t w_est;		/* Reno-friendly estimate, bytes */
	uint32_t est_rem;	/* remainders of the integer divisions */
	uint32_t cwnd_rem;
	uint32_t pad;
};

_Static_assert(sizeof(struct cubic) <=
	sizeof(((struct dt_tcp_conn *)0)->cc_priv), "cubic state too large");

/* cc_priv is an array of uint64_t: copy, do not alias. */
static void
cubic_load(const struct dt_tcp_conn *c, struct cubic *cu)
{
	memcpy(cu, c->cc_priv, sizeof(*cu));
}

static void
cubic_store(struct dt_tcp_conn *c, const struct cubic *cu)
{
	memcpy(c->cc_priv, cu, sizeof(*cu));
}

/* Integer cube root, bit by bit (exact floor). */
static uint32_t
cubic_cbrt(uint64_t x)
{
	uint64_t y = 0, b;
	int s;

	for (s = 63; s >= 0; s -= 3) {
		y <<= 1;
		b = 3 * y * (y + 1) + 1;
		if ((x >> s) >= b) {
			x -= b << s;
			y++;
		}
	}
	return (uint32_t)y;
}

/* K = cbrt((w_max - cwnd) / (C * SMSS)) in 2^-10 s (RFC 9438 eq. 2). */
static uint32_t
cubic_k(uint32_t w_max, uint32_t cwnd, uint16_t smss)
{
	uint64_t v;

	if (cwnd >= w_max)
		return 0;
	/* Segments with 20 fraction bits, then / C and 10 more bits (the
	 * cube root of 2^30 gives the 2^-10 s unit). */
	v = ((uint64_t)(w_max - cwnd) << 20) / smss;
	if (v >= (1ull << 43))
		v = (1ull << 43) - 1;
	return cubic_cbrt((v << 20) / CUBIC_C);
}

/* W_cubic(t) = C (t - K)^3 + W_max, bytes (RFC 9438 eq. 1). */
static uint32_t
cubic_w(const struct cubic *cu, uint64_t t_units, uint16_t smss)
{
	int64_t d = (int64_t)t_units - cu->k;
	uint64_t a = (uint64_t)(d < 0 ? -d : d), delta;

	if (a > CUBIC_T_MAX)
		a = CUBIC_T_MAX;
	/* C a^3 in segments with 10 fraction bits, then bytes. */
	delta = ((CUBIC_C * a * a * a) >> 30) * smss >> 10;
	if (d < 0)
		return delta >= cu->w_max ? 0 : cu->w_max - (uint32_t)delta;
	delta += cu->w_max;
	return delta > UINT32_MAX ? UINT32_MAX : (uint32_t)delta;
}

static uint64_t
cubic_units(uint64_t us)
{
	return (us << 10) / 1000000;
}

static void
cubic_init(struct dt_tcp_conn *c)
{
	struct cubic cu;

	memset(&cu, 0, sizeof(cu));
	cubic_store(c, &cu);
	dt_tcp_cc_init_window(c);
}

/* RFC 9438 4.6: ssthresh = beta * cwnd (at least 2 SMSS). */
static uint32_t
cubic_ssthresh(const struct dt_tcp_conn *c)
{
	uint32_t s = (uint32_t)((uint64_t)c->cwnd * CUBIC_BETA / CUBIC_ONE);

	return s > 2u * c->smss ? s : 2u * c->smss;
}

/* RFC 9438 4.6/4.7: remember W_max (fast convergence), new epoch. */
static void
cubic_on_loss(struct dt_tcp_conn *c, uint64_t now)
{
	struct cubic cu;

	(void)now;
	cubic_load(c, &cu);
	if (c->cwnd < cu.w_max)
		cu.w_max = (uint32_t)((uint64_t)c->cwnd *
			(CUBIC_ONE + CUBIC_BETA) / (2 * CUBIC_ONE));
	else
		cu.w_max = c->cwnd;
	cu.epoch = 0;
	cubic_store(c, &cu);
}

static void
cubic_on_rto(struct dt_tcp_conn *c)
{
	struct cubic cu;

	cubic_load(c, &cu);
	cu.epoch = 0;
	cubic_store(c, &cu);
}

static void
cubic_epoch_start(struct dt_tcp_conn *c, struct cubic *cu, uint64_t now)
{
	cu->epoch = now ? now : 1;
	if (c->cwnd >= cu->w_max) {
		cu->w_max = c->cwnd;
		cu->k = 0;
	} else {
		cu->k = cubic_k(cu->w_max, c->cwnd, c->smss);
	}
	cu->w_est = c->cwnd;
	cu->est_rem = 0;
	cu->cwnd_rem = 0;
}

/* RFC 9438 4.3: the Reno-friendly window after @p acked bytes. */
static void
cubic_reno_est(const struct dt_tcp_conn *c, struct cubic *cu, uint32_t acked)
{
	uint64_t alpha = cu->w_est >= cu->w_max ? CUBIC_ONE : CUBIC_ALPHA;
	uint64_t den = (uint64_t)CUBIC_ONE * c->cwnd;
	uint64_t num = alpha * acked * c->smss + (uint64_t)cu->est_rem *
		CUBIC_ONE;
	uint64_t w = cu->w_est + num / den;

	cu->w_est = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	cu->est_rem = (uint32_t)((num % den) / CUBIC_ONE);
}

static void
cubic_cong_avoid(struct dt_tcp_conn *c, uint32_t acked, uint64_t now)
{
	struct cubic cu;
	uint64_t t, num, target, max;

	if (c->cwnd < c->ssthresh) {
		/* Slow start, byte counting limited to one SMSS (RFC 3465). */
		c->cwnd += acked < c->smss ? acked : c->smss;
		return;
	}
	cubic_load(c, &cu);
	if (cu.epoch == 0)
		cubic_epoch_start(c, &cu, now);
	t = now > cu.epoch ? now - cu.epoch : 0;
	cubic_reno_est(c, &cu, acked);
	if (cubic_w(&cu, cubic_units(t), c->smss) < cu.w_est) {
		/* Reno-friendly region (RFC 9438 4.3). */
		if (cu.w_est > c->cwnd)
			c->cwnd = cu.w_est;
	} else {
		/* Concave / convex regions: aim at W_cubic(t + RTT), at most
		 * 1.5 cwnd (RFC 9438 4.4, 4.5). */
		target = cubic_w(&cu, cubic_units(t + c->srtt), c->smss);
		max = (uint64_t)c->cwnd * 3 / 2;
		if (target > max)
			target = max;
		if (target > c->cwnd) {
			num = (target - c->cwnd) * acked + cu.cwnd_rem;
			c->cwnd += (uint32_t)(num / c->cwnd);
			cu.cwnd_rem = (uint32_t)(num % c->cwnd);
		}
	}
	cubic_store(c, &cu);
}

const struct dt_tcp_cc_ops dt_tcp_cc_cubic = {
	.name = "cubic",
	.init = cubic_init,
	.ssthresh = cubic_ssthresh,
	.cong_avoid = cubic_cong_avoid,
	.on_rto = cubic_on_rto,
	.on_loss = cubic_on_loss,
};
