/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers: retransmission with RTT estimation and backoff (RFC 6298),
 * persist / zero-window probes (RFC 9293 3.8.6.1), delayed ACK, keepalive
 * (RFC 9293 3.8.4, RFC 1122 4.2.3.6) and TIME_WAIT (2 MSL).
 *
 * Deadlines live in the connection; entry points report changes as timer
 * actions (dt_tcp_timer_diff()) and the caller calls dt_tcp_timeout().
 */
#include "dt_tcp_priv.h"

void
dt_tcp_timer_set(struct dt_tcp_conn *c, enum dt_tcp_timer k, uint64_t deadline)
{
	c->timers[k] = deadline;
}

void
dt_tcp_timer_diff(const uint64_t *before, const uint64_t *after,
	unsigned int first_kind, unsigned int n, struct dt_tcp_out *out)
{
	struct dt_tcp_timer_action *a;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (before[i] == after[i])
			continue;
		a = &out->timers[out->n_timers++];
		a->kind = (uint8_t)(first_kind + i);
		a->deadline = after[i];
	}
}

/* Current RTO with backoff, bounded by rto_max. */
static uint64_t
tcp_rto_backed_off(const struct dt_tcp_conn *c, uint8_t shift)
{
	uint64_t rto = c->rto;

	while (shift-- > 0 && rto < c->cfg->rto_max_us)
		rto *= 2;
	return rto < c->cfg->rto_max_us ? rto : c->cfg->rto_max_us;
}

void
dt_tcp_rtx_restart(struct dt_tcp_conn *c, uint64_t now)
{
	c->timers[DT_TCP_T_RTX] = now + tcp_rto_backed_off(c, c->backoff);
}

void
dt_tcp_rtt_sample(struct dt_tcp_conn *c, uint64_t r)
{
	const struct dt_tcp_cfg *cfg = c->cfg;
	uint64_t delta, rto, var;

	if (r > UINT32_MAX / 2)
		r = UINT32_MAX / 2;
	if (c->srtt == 0) {
		/* RFC 6298 2.2 */
		c->srtt = (uint32_t)(r ? r : 1);
		c->rttvar = (uint32_t)(r / 2);
	} else {
		/* RFC 6298 2.3, beta 1/4 and alpha 1/8 */
		delta = c->srtt > r ? c->srtt - r : r - c->srtt;
		c->rttvar = (uint32_t)((3 * (uint64_t)c->rttvar + delta) / 4);
		c->srtt = (uint32_t)((7 * (uint64_t)c->srtt + r) / 8);
	}
	var = 4 * (uint64_t)c->rttvar;
	rto = c->srtt + (var > DT_TCP_RTO_G_US ? var : DT_TCP_RTO_G_US);
	if (rto < cfg->rto_min_us)
		rto = cfg->rto_min_us;
	if (rto > cfg->rto_max_us)
		rto = cfg->rto_max_us;
	c->rto = (uint32_t)rto;
	/* A valid sample ends the backoff (Karn's algorithm). */
	c->backoff = 0;
}

static bool
tcp_unsent_data(const struct dt_tcp_conn *c)
{
	return dt_tcp_seq_lt(c->snd_nxt, tcp_data_end(c));
}

void
dt_tcp_timers_update(struct dt_tcp_conn *c, uint64_t now)
{
	bool persist;

	if (c->state == DT_TCP_CLOSED || c->state == DT_TCP_TIME_WAIT)
		return;
	/* Persist: data waits, nothing is in flight to bring an ACK. */
	persist = tcp_synchronized(c) && c->snd_una == c->snd_max &&
		tcp_unsent_data(c);
	if (!persist) {
		c->timers[DT_TCP_T_PERSIST] = 0;
		c->probes = 0;
		c->probes_out = 0;
	} else if (c->timers[DT_TCP_T_PERSIST] == 0) {
		c->timers[DT_TCP_T_PERSIST] = now +
			tcp_rto_backed_off(c, c->probes);
	}
	if (c->snd_una == c->snd_max)
		c->timers[DT_TCP_T_RTX] = 0;
	else if (c->timers[DT_TCP_T_RTX] == 0)
		dt_tcp_rtx_restart(c, now);
	dt_tcp_lr_timer_update(c, now);
	dt_tcp_fin_wait2_update(c, now);
	if (tcp_flag(c, DT_TCP_F_KEEPALIVE) && (c->state == DT_TCP_ESTABLISHED ||
			c->state == DT_TCP_CLOSE_WAIT)) {
		/*
		 * Armed when keepalive starts (or the connection opens): the
		 * idle interval counts from then, like Linux's SO_KEEPALIVE
		 * (RFC 1122 4.2.3.6 sends probes only after an idle interval).
		 * From last_rx, turning it on long after the last receive
		 * armed a deadline in the past.
		 */
		if (c->timers[DT_TCP_T_KEEPALIVE] == 0)
			c->timers[DT_TCP_T_KEEPALIVE] = now +
				c->cfg->keepalive_idle_us;
	} else {
		c->timers[DT_TCP_T_KEEPALIVE] = 0;
	}
}

/*
 * FIN_WAIT_2 idle timeout on the TIME_WAIT slot (like Linux's
 * tcp_fin_timeout): restarted by every segment from the peer.
 */
void
dt_tcp_fin_wait2_update(struct dt_tcp_conn *c, uint64_t now)
{
	(void)now;
	if (c->state != DT_TCP_FIN_WAIT_2 || c->cfg->fin_wait2_us == 0)
		return;
	c->timers[DT_TCP_T_TIMEWAIT] = c->last_rx + c->cfg->fin_wait2_us;
}

static void
tcp_timeout_error(struct dt_tcp_conn *c, struct dt_tcp_out *out)
{
	dt_tcp_event_add(out, DT_TCP_EV_ERROR)->err = DT_TCP_ERR_TIMEOUT;
	dt_tcp_enter_closed(c, out);
}

static void
tcp_on_rtx(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_tcp_cfg *cfg = c->cfg;
	uint32_t used;

	if (c->state == DT_TCP_SYN_SENT || c->state == DT_TCP_SYN_RECEIVED) {
		if (c->backoff >= cfg->syn_retries) {
			tcp_timeout_error(c, out);
			return;
		}
		c->backoff++;
		c->flags |= DT_TCP_F_SYN_RTX;
		c->flags &= (uint16_t)~DT_TCP_F_RTT_TIMING;
		dt_tcp_send_syn(c, now, out);
		dt_tcp_rtx_restart(c, now);
		return;
	}
	if (c->backoff >= cfg->max_retries) {
		tcp_timeout_error(c, out);
		return;
	}
	c->lr.n_rto++;
	/* RFC 5681 3.1 eq. 4 and loss window; RFC 6582 4 for recover. */
	c->ssthresh = c->cc->ssthresh(c);
	dt_tcp_cc_loss(c, now);
	dt_tcp_lr_on_rto(c);
	c->cwnd = c->smss;
	c->recover = c->snd_max;
	c->dupacks = 0;
	c->flags &= (uint16_t)~(DT_TCP_F_RECOVERY | DT_TCP_F_RTT_TIMING);
	if (c->cc->on_rto)
		c->cc->on_rto(c);
	c->backoff++;
	/* Go back: resend from snd_una, then as ACKs come. */
	used = dt_tcp_send_at(c, c->snd_una, now, out);
	c->snd_nxt = c->snd_una + used;
	dt_tcp_rtx_restart(c, now);
}

static void
tcp_on_persist(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	/*
	 * Probe with an old sequence number: the peer must answer with an
	 * ACK carrying its current window. Probes never time out while
	 * they are answered (RFC 9293 3.8.6.1), but a peer that answers
	 * none of max_retries of them is gone (RFC 9293 3.8.3's R2, like
	 * Linux's tcp_retries2 for probes): without this limit a silent
	 * zero-window peer would hold the connection for ever.
	 */
	if (c->probes_out >= c->cfg->max_retries) {
		tcp_timeout_error(c, out);
		return;
	}
	dt_tcp_send_ack(c, c->snd_una - 1, now, out);
	c->probes_out++;
	if (c->probes < 16)
		c->probes++;
	c->timers[DT_TCP_T_PERSIST] = now + tcp_rto_backed_off(c, c->probes);
}

static void
tcp_on_keepalive(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_tcp_cfg *cfg = c->cfg;

	if (c->ka_probes == 0 && now < c->last_rx + cfg->keepalive_idle_us) {
		/* Traffic since arming: sleep until idle again. */
		c->timers[DT_TCP_T_KEEPALIVE] = c->last_rx +
			cfg->keepalive_idle_us;
		return;
	}
	if (c->ka_probes >= cfg->keepalive_probes) {
		tcp_timeout_error(c, out);
		return;
	}
	if (c->snd_una == c->snd_max) {
		dt_tcp_send_ack(c, c->snd_una - 1, now, out);
		c->ka_probes++;
	}
	c->timers[DT_TCP_T_KEEPALIVE] = now + cfg->keepalive_intvl_us;
}

void
dt_tcp_timers_run(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	unsigned int i, k;
	/* The loss probe first: it replaces an RTO due at the same time. */
	static const uint8_t order[] = { DT_TCP_T_PTO, DT_TCP_T_RTX,
		DT_TCP_T_PERSIST, DT_TCP_T_DELACK, DT_TCP_T_KEEPALIVE,
		DT_TCP_T_TIMEWAIT };

	for (i = 0; i < sizeof(order); i++) {
		k = order[i];
		if (c->state == DT_TCP_CLOSED)
			return;
		if (c->timers[k] == 0 || c->timers[k] > now)
			continue;
		c->timers[k] = 0;
		switch (k) {
		case DT_TCP_T_RTX:
			tcp_on_rtx(c, now, out);
			break;
		case DT_TCP_T_PERSIST:
			tcp_on_persist(c, now, out);
			break;
		case DT_TCP_T_DELACK:
			c->flags |= DT_TCP_F_ACK_NOW;
			break;
		case DT_TCP_T_KEEPALIVE:
			tcp_on_keepalive(c, now, out);
			break;
		case DT_TCP_T_TIMEWAIT:
			if (c->state == DT_TCP_FIN_WAIT_2) {
				/* Peer gone quiet half-closed: RST, give up. */
				dt_tcp_send_rst(out, c->snd_nxt, 0, false);
				tcp_timeout_error(c, out);
			} else {
				dt_tcp_enter_closed(c, out);
			}
			break;
		case DT_TCP_T_PTO:
			dt_tcp_on_pto(c, now, out);
			break;
		}
	}
}
