/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection life cycle and the application-facing entry points. Every
 * entry point resets the output, does its work, sends what the windows
 * allow and reports timer changes (dt_tcp_call_end()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_tcp_priv.h"

static const char *const state_names[DT_TCP_STATE__COUNT] = {
	[DT_TCP_CLOSED] = "CLOSED",
	[DT_TCP_LISTEN] = "LISTEN",
	[DT_TCP_SYN_SENT] = "SYN_SENT",
	[DT_TCP_SYN_RECEIVED] = "SYN_RECEIVED",
	[DT_TCP_ESTABLISHED] = "ESTABLISHED",
	[DT_TCP_FIN_WAIT_1] = "FIN_WAIT_1",
	[DT_TCP_FIN_WAIT_2] = "FIN_WAIT_2",
	[DT_TCP_CLOSE_WAIT] = "CLOSE_WAIT",
	[DT_TCP_CLOSING] = "CLOSING",
	[DT_TCP_LAST_ACK] = "LAST_ACK",
	[DT_TCP_TIME_WAIT] = "TIME_WAIT",
};

const char *
dt_tcp_state_str(enum dt_tcp_state st)
{
	if ((unsigned int)st >= DT_TCP_STATE__COUNT)
		return "?";
	return state_names[st];
}

void
dt_tcp_cfg_default(struct dt_tcp_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mss = 1460;
	cfg->wscale = 7;
	cfg->wscale_ok = true;
	cfg->sack_ok = true;
	cfg->ts_ok = true;
	cfg->nagle = true;
	cfg->delack = true;
	cfg->syn_retries = 6;
	cfg->max_retries = 15;
	cfg->keepalive_probes = 9;
	cfg->challenge_ack_limit = 10;
	cfg->rcv_space = 256 * 1024;
	cfg->rto_init_us = 1000000;
	cfg->rto_min_us = 200000;
	cfg->rto_max_us = 60000000;
	cfg->delack_us = 40000;
	cfg->msl_us = 30000000;
	cfg->keepalive_idle_us = 7200ull * 1000000;
	cfg->keepalive_intvl_us = 75ull * 1000000;
	cfg->cc = &dt_tcp_cc_cubic;
	cfg->fin_wait2_us = 60ull * 1000000;
	cfg->rack = true;
}

void
dt_tcp_out_reset(struct dt_tcp_out *out)
{
	out->n_segs = 0;
	out->n_events = 0;
	out->n_timers = 0;
	out->more = false;
	out->ack_pending = false;
}

struct dt_tcp_event *
dt_tcp_event_add(struct dt_tcp_out *out, uint8_t type)
{
	struct dt_tcp_event *ev;

	/* Cannot overflow: DT_TCP_OUT_EVENTS bounds what one call emits. */
	if (out->n_events >= DT_TCP_OUT_EVENTS)
		abort();
	ev = &out->events[out->n_events++];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	return ev;
}

void
dt_tcp_set_state(struct dt_tcp_conn *c, enum dt_tcp_state st)
{
	c->state = (uint8_t)st;
}

int
dt_tcp_conn_init(struct dt_tcp_conn *c, const struct dt_tcp_cfg *cfg,
	const struct dt_tcp_bufs *bufs)
{
	if (bufs->txq == NULL || bufs->txq_cap == 0 ||
			(bufs->ooo == NULL) != (bufs->ooo_cap == 0) ||
			bufs->ooo_cap > DT_TCP_OOO_MAX ||
			cfg->wscale > DT_TCP_WS_MAX || cfg->mss <= DT_TCP_TS_OPT_LEN)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->cc = cfg->cc ? cfg->cc : &dt_tcp_cc_newreno;
	c->txq = bufs->txq;
	c->txq_cap = bufs->txq_cap;
	c->ooo = bufs->ooo;
	c->ooo_cap = bufs->ooo_cap;
	c->ooo_lim = bufs->ooo_cap;
	c->state = DT_TCP_CLOSED;
	c->rto = (uint32_t)cfg->rto_init_us;
	c->rcv_space = cfg->rcv_space;
	c->rcv_space_max = cfg->rcv_space;
	c->smss = DT_TCP_MSS_DEFAULT;
	c->lr.reo_wnd_mult = 1;
	if (cfg->nagle)
		c->flags |= DT_TCP_F_NAGLE;
	if (cfg->keepalive)
		c->flags |= DT_TCP_F_KEEPALIVE;
	return 0;
}

void
dt_tcp_negotiate(struct dt_tcp_conn *c, const struct dt_net_tcp_opts *o,
	uint64_t now)
{
	const struct dt_tcp_cfg *cfg = c->cfg;
	uint16_t peer_mss;

	c->flags &= (uint16_t)~(DT_TCP_F_TS | DT_TCP_F_SACK | DT_TCP_F_WS);
	if (cfg->ts_ok && (o->present & DT_NET_TCPOPT_F_TS)) {
		c->flags |= DT_TCP_F_TS;
		c->ts_recent = o->ts_val;
		c->ts_recent_at = now;
	}
	if (cfg->sack_ok && (o->present & DT_NET_TCPOPT_F_SACK_PERM))
		c->flags |= DT_TCP_F_SACK;
	/* RFC 7323 2.3: scaling only when both sides sent the option. */
	if (cfg->wscale_ok && (o->present & DT_NET_TCPOPT_F_WSCALE)) {
		c->flags |= DT_TCP_F_WS;
		c->snd_ws = o->wscale > DT_TCP_WS_MAX ? DT_TCP_WS_MAX :
			o->wscale;
		c->rcv_ws = cfg->wscale;
	} else {
		c->snd_ws = 0;
		c->rcv_ws = 0;
	}
	peer_mss = (o->present & DT_NET_TCPOPT_F_MSS) && o->mss ? o->mss :
		DT_TCP_MSS_DEFAULT;
	if (peer_mss < DT_TCP_MSS_MIN)
		peer_mss = DT_TCP_MSS_MIN;
	c->smss = peer_mss < cfg->mss ? peer_mss : cfg->mss;
	/* The MSS excludes options (RFC 6691): leave room for timestamps. */
	if (tcp_flag(c, DT_TCP_F_TS) && c->smss > 2 * DT_TCP_TS_OPT_LEN)
		c->smss -= DT_TCP_TS_OPT_LEN;
	if (cfg->snd_mss_max != 0 && c->smss > cfg->snd_mss_max)
		c->smss = cfg->snd_mss_max;
}

void
dt_tcp_become_established(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out)
{
	dt_tcp_set_state(c, DT_TCP_ESTABLISHED);
	c->last_rx = now;
	c->recover = c->iss;
	c->lr.high_rxt = c->snd_una;
	c->lr.lost_end = c->snd_una;
	c->lr.rtx_hi = c->snd_una;
	c->lr.fack = c->snd_una;
	c->lr.rack_end = c->snd_una;
	/* RFC 6298 5.7: after a SYN timeout, data starts with RTO >= 3 s. */
	if (tcp_flag(c, DT_TCP_F_SYN_RTX) && c->rto < DT_TCP_RTO_SYN_LOST_US)
		c->rto = DT_TCP_RTO_SYN_LOST_US;
	c->cc->init(c);
	dt_tcp_event_add(out, DT_TCP_EV_CONNECTED);
	/* close() in SYN_RECEIVED queued the FIN for this moment. */
	if (tcp_flag(c, DT_TCP_F_FIN_QUEUED))
		dt_tcp_set_state(c, DT_TCP_FIN_WAIT_1);
}

void
dt_tcp_enter_time_wait(struct dt_tcp_conn *c, uint64_t now)
{
	unsigned int k;

	dt_tcp_set_state(c, DT_TCP_TIME_WAIT);
	for (k = 0; k < DT_TCP_T__COUNT; k++)
		c->timers[k] = 0;
	c->timers[DT_TCP_T_TIMEWAIT] = now + 2 * c->cfg->msl_us;
}

void
dt_tcp_enter_closed(struct dt_tcp_conn *c, struct dt_tcp_out *out)
{
	unsigned int k;

	dt_tcp_set_state(c, DT_TCP_CLOSED);
	dt_tcp_ooo_flush(c, out);
	for (k = 0; k < DT_TCP_T__COUNT; k++)
		c->timers[k] = 0;
	/* Unacknowledged sends are the application's again. */
	c->txq_n = 0;
	c->txq_bytes = 0;
	c->txq_head_off = 0;
	dt_tcp_event_add(out, DT_TCP_EV_CLOSED);
}

static void
tcp_call_begin(const struct dt_tcp_conn *c, uint64_t *before,
	struct dt_tcp_out *out)
{
	dt_tcp_out_reset(out);
	memcpy(before, c->timers, sizeof(c->timers));
}

void
dt_tcp_call_end(struct dt_tcp_conn *c, const uint64_t *before, uint64_t now,
	struct dt_tcp_out *out)
{
	if (c->state != DT_TCP_CLOSED)
		dt_tcp_output_run(c, now, out);
	dt_tcp_timers_update(c, now);
	dt_tcp_timer_diff(before, c->timers, 0, DT_TCP_T__COUNT, out);
}

int
dt_tcp_connect(struct dt_tcp_conn *c, const struct dt_tcp_tuple *t,
	uint32_t iss, uint64_t now, struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];

	tcp_call_begin(c, before, out);
	if (c->state != DT_TCP_CLOSED)
		return -EISCONN;
	c->tuple = *t;
	c->iss = iss;
	c->snd_una = iss;
	c->snd_nxt = iss;
	c->snd_max = iss;
	c->txq_seq = iss + 1;
	c->ts_offset = iss;
	c->recover = iss;
	dt_tcp_set_state(c, DT_TCP_SYN_SENT);
	dt_tcp_send_syn(c, now, out);
	dt_tcp_call_end(c, before, now, out);
	return 0;
}

int
dt_tcp_input(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg,
	uint64_t now, struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];

	tcp_call_begin(c, before, out);
	if (seg->n_ext > DT_TCP_SEG_MAX_EXT)
		return -EINVAL;
	/* Left set by a call that does not defer (the listener's). */
	c->flags &= (uint16_t)~DT_TCP_F_ACK_OOO;
	dt_tcp_input_seg(c, seg, now, out);
	/* Out-of-order and hole-filling segments are acked one by one. */
	if (c->cfg->ack_defer && !tcp_flag(c, DT_TCP_F_ACK_OOO))
		c->flags |= DT_TCP_F_ACK_DEFER;
	dt_tcp_call_end(c, before, now, out);
	c->flags &= (uint16_t)~(DT_TCP_F_ACK_DEFER | DT_TCP_F_ACK_OOO);
	out->ack_pending = tcp_flag(c, DT_TCP_F_ACK_NOW) &&
		c->state != DT_TCP_CLOSED;
	return 0;
}

static int
tcp_send_allowed(const struct dt_tcp_conn *c)
{
	switch (c->state) {
	case DT_TCP_SYN_SENT:
	case DT_TCP_SYN_RECEIVED:
	case DT_TCP_ESTABLISHED:
	case DT_TCP_CLOSE_WAIT:
		return tcp_flag(c, DT_TCP_F_FIN_QUEUED) ? -EPIPE : 0;
	case DT_TCP_CLOSED:
	case DT_TCP_LISTEN:
		return -ENOTCONN;
	default:
		return -EPIPE;
	}
}

int
dt_tcp_send(struct dt_tcp_conn *c, const struct dt_tcp_extent *ext,
	uint64_t now, struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];
	int rc;

	tcp_call_begin(c, before, out);
	rc = tcp_send_allowed(c);
	if (rc)
		return rc;
	if (ext->len == 0)
		return -EINVAL;
	if (c->txq_n == c->txq_cap)
		return -ENOBUFS;
	c->txq[(c->txq_head + c->txq_n) % c->txq_cap] = *ext;
	c->txq_n++;
	c->txq_bytes += ext->len;
	dt_tcp_call_end(c, before, now, out);
	return 0;
}

int
dt_tcp_close(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];

	tcp_call_begin(c, before, out);
	switch (c->state) {
	case DT_TCP_CLOSED:
	case DT_TCP_LISTEN:
		return -ENOTCONN;
	case DT_TCP_SYN_SENT:
		dt_tcp_enter_closed(c, out);
		break;
	case DT_TCP_SYN_RECEIVED:
		/* FIN goes out once established (RFC 9293 3.10.4). */
		if (tcp_flag(c, DT_TCP_F_FIN_QUEUED))
			return -EALREADY;
		c->flags |= DT_TCP_F_FIN_QUEUED;
		break;
	case DT_TCP_ESTABLISHED:
		c->flags |= DT_TCP_F_FIN_QUEUED;
		dt_tcp_set_state(c, DT_TCP_FIN_WAIT_1);
		break;
	case DT_TCP_CLOSE_WAIT:
		c->flags |= DT_TCP_F_FIN_QUEUED;
		dt_tcp_set_state(c, DT_TCP_LAST_ACK);
		break;
	default:
		return -EALREADY;
	}
	dt_tcp_call_end(c, before, now, out);
	return 0;
}

int
dt_tcp_close_full(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	int r = dt_tcp_close(c, now, out);

	if (r == -EALREADY)
		r = 0;
	if (r == 0 && c->state != DT_TCP_CLOSED)
		c->flags |= DT_TCP_F_RD_CLOSED;
	return r;
}

void
dt_tcp_abort(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];

	tcp_call_begin(c, before, out);
	if (c->state == DT_TCP_CLOSED)
		return;
	switch (c->state) {
	case DT_TCP_SYN_RECEIVED:
	case DT_TCP_ESTABLISHED:
	case DT_TCP_FIN_WAIT_1:
	case DT_TCP_FIN_WAIT_2:
	case DT_TCP_CLOSE_WAIT:
		dt_tcp_send_rst(out, c->snd_nxt, 0, false);
		break;
	default:
		break;
	}
	dt_tcp_enter_closed(c, out);
	dt_tcp_call_end(c, before, now, out);
}

void
dt_tcp_set_rcv_space(struct dt_tcp_conn *c, uint32_t bytes, uint64_t now,
	struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];
	uint32_t old_wnd, new_wnd, thr;

	tcp_call_begin(c, before, out);
	c->rcv_space = bytes;
	if (bytes > c->rcv_space_max)
		c->rcv_space_max = bytes;
	if (c->state == DT_TCP_ESTABLISHED || c->state == DT_TCP_FIN_WAIT_1 ||
			c->state == DT_TCP_FIN_WAIT_2) {
		/*
		 * Window update when the window grew enough to matter: at
		 * least doubled and by the receiver-SWS step, so a closed
		 * window reopening is announced without waiting for a probe.
		 */
		old_wnd = dt_tcp_rcv_wnd(c);
		new_wnd = dt_tcp_rcv_edge_candidate(c) - c->rcv_nxt;
		thr = c->cfg->mss < c->rcv_space_max / 2 ? c->cfg->mss :
			c->rcv_space_max / 2;
		if (new_wnd > old_wnd && new_wnd >= 2 * old_wnd &&
				new_wnd - old_wnd >= thr)
			c->flags |= DT_TCP_F_ACK_NOW;
	}
	dt_tcp_call_end(c, before, now, out);
}

void
dt_tcp_timeout(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];

	tcp_call_begin(c, before, out);
	dt_tcp_timers_run(c, now, out);
	dt_tcp_call_end(c, before, now, out);
}

/*
 * What was sent from snd_una never left (the NIC refused it): the RTO's
 * go-back now, instead of an RTO later, which leaves the loss bookkeeping
 * (everything outstanding lost, recover = snd_max) as after any RTO. The
 * loss was local, not the network's: the congestion window, ssthresh and
 * the backoff are what they were (an RTO's cwnd of one segment cost
 * net_tap's TSO fallback half its goodput), and the output that follows
 * sends as much again as they allow.
 */
void
dt_tcp_retransmit_now(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];
	uint32_t cwnd = c->cwnd, ssthresh = c->ssthresh;
	uint8_t backoff = c->backoff;

	tcp_call_begin(c, before, out);
	if (c->state != DT_TCP_CLOSED && c->state != DT_TCP_TIME_WAIT &&
			c->snd_una != c->snd_max) {
		c->timers[DT_TCP_T_RTX] = now;
		dt_tcp_timers_run(c, now, out);
		if (c->state != DT_TCP_CLOSED) {
			c->cwnd = cwnd;
			c->ssthresh = ssthresh;
			c->backoff = backoff;
		}
	}
	dt_tcp_call_end(c, before, now, out);
}

void
dt_tcp_output(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];

	tcp_call_begin(c, before, out);
	dt_tcp_call_end(c, before, now, out);
}

void
dt_tcp_set_keepalive(struct dt_tcp_conn *c, bool on, uint64_t now,
	struct dt_tcp_out *out)
{
	uint64_t before[DT_TCP_T__COUNT];

	tcp_call_begin(c, before, out);
	if (on)
		c->flags |= DT_TCP_F_KEEPALIVE;
	else
		c->flags &= (uint16_t)~DT_TCP_F_KEEPALIVE;
	dt_tcp_timers_update(c, now);
	dt_tcp_timer_diff(before, c->timers, 0, DT_TCP_T__COUNT, out);
}

void
dt_tcp_set_nagle(struct dt_tcp_conn *c, bool on)
{
	if (on)
		c->flags |= DT_TCP_F_NAGLE;
	else
		c->flags &= (uint16_t)~DT_TCP_F_NAGLE;
}

uint64_t
dt_tcp_next_deadline(const struct dt_tcp_conn *c)
{
	uint64_t d = 0;
	unsigned int k;

	for (k = 0; k < DT_TCP_T__COUNT; k++)
		if (c->timers[k] && (d == 0 || c->timers[k] < d))
			d = c->timers[k];
	return d;
}

void
dt_tcp_rst_closed(const struct dt_tcp_seg *seg, struct dt_tcp_out *out)
{
	dt_tcp_out_reset(out);
	dt_tcp_free_payload(seg, out);
	dt_tcp_rst_reply(seg, out);
}
