/* SPDX-License-Identifier: BSD-3-Clause */
/* NewReno window rules (RFC 5681 3.1); recovery itself is in dt_tcp_ack.c. */
#include "dt_tcp_priv.h"

/* RFC 5681 3.1 initial window; shared by the modules. */
void
dt_tcp_cc_init_window(struct dt_tcp_conn *c)
{
	uint32_t mss = c->smss;

	/* RFC 5681 3.1 eq. 3; one segment after a lost SYN (3.1 end). */
	if (tcp_flag(c, DT_TCP_F_SYN_RTX))
		c->cwnd = mss;
	else if (mss > 2190)
		c->cwnd = 2 * mss;
	else if (mss > 1095)
		c->cwnd = 3 * mss;
	else
		c->cwnd = 4 * mss;
	c->ssthresh = UINT32_MAX;
}

/*
 * Window growth for @p acked newly acknowledged bytes, through the module.
 * Whatever the module computes, one ACK never grows cwnd by more than it
 * acknowledged (RFC 3465's byte-counting bound) and cwnd stays at most
 * DT_TCP_CWND_MAX, the largest window a peer can offer (RFC 7323 2.3):
 * a window beyond that can never be used, only overflow.
 */
void
dt_tcp_cc_cong_avoid(struct dt_tcp_conn *c, uint32_t acked, uint64_t now)
{
	uint32_t before = c->cwnd;

	if (acked == 0)
		return;
	c->cc->cong_avoid(c, acked, now);
	if (c->cwnd > before && c->cwnd - before > acked)
		c->cwnd = before + acked;
	if (c->cwnd > DT_TCP_CWND_MAX)
		c->cwnd = DT_TCP_CWND_MAX;
}

static uint32_t
newreno_ssthresh(const struct dt_tcp_conn *c)
{
	uint32_t flight = c->snd_max - c->snd_una;

	/* RFC 5681 eq. 4 */
	return flight / 2 > 2u * c->smss ? flight / 2 : 2u * c->smss;
}

static void
newreno_cong_avoid(struct dt_tcp_conn *c, uint32_t acked, uint64_t now)
{
	uint32_t inc;

	if (c->cwnd < c->ssthresh) {
		/* Slow start, byte counting limited to one SMSS (RFC 3465). */
		c->cwnd += acked < c->smss ? acked : c->smss;
		return;
	}
	/* Congestion avoidance: about one SMSS per RTT (RFC 5681 eq. 3). */
	inc = (uint32_t)((uint64_t)c->smss * c->smss / c->cwnd);
	c->cwnd += inc ? inc : 1;
}

const struct dt_tcp_cc_ops dt_tcp_cc_newreno = {
	.name = "newreno",
	.init = dt_tcp_cc_init_window,
	.ssthresh = newreno_ssthresh,
	.cong_avoid = newreno_cong_avoid,
	.on_rto = NULL,
	.on_loss = NULL,
};
