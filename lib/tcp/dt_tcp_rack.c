/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RACK-TLP (RFC 8985): time-based loss detection and tail loss probes.
 *
 * Transmit times are kept as a bounded log of marks: each says "data up
 * to here was first sent at this time". Original transmissions go out in
 * sequence order, so the log is sorted both ways and RACK_sent_after()
 * becomes a sequence comparison. A full log drops its oldest mark, which
 * gives that data the next mark's (later) time: losses are then declared
 * later, never earlier. Retransmitted data (below lr.rtx_hi) has no
 * reliable time here; RACK ignores it and the RTO covers a lost
 * retransmission.
 */
#include "dt_tcp_priv.h"

#define DT_TCP_WCDELACK_US 200000	/* RFC 8985 7.2 WCDelAckT */
#define DT_TCP_PTO_NO_RTT_US 1000000
#define DT_TCP_REO_PERSIST 16

void
dt_tcp_xlog_push(struct dt_tcp_conn *c, uint32_t end, uint64_t now)
{
	struct dt_tcp_lr *lr = &c->lr;
	struct dt_tcp_xmit_mark *m;

	if (lr->xlog_n > 0) {
		m = &lr->xlog[(lr->xlog_head + lr->xlog_n - 1) %
			DT_TCP_XMIT_LOG_MAX];
		if (m->ts == tcp_now32(now)) {
			m->end = end;
			return;
		}
	}
	if (lr->xlog_n == DT_TCP_XMIT_LOG_MAX) {
		lr->xlog_head = (uint8_t)((lr->xlog_head + 1) %
			DT_TCP_XMIT_LOG_MAX);
		lr->xlog_n--;
	}
	m = &lr->xlog[(lr->xlog_head + lr->xlog_n) % DT_TCP_XMIT_LOG_MAX];
	m->end = end;
	m->ts = tcp_now32(now);
	lr->xlog_n++;
}

static const struct dt_tcp_xmit_mark *
tcp_xlog_at(const struct dt_tcp_conn *c, unsigned int i)
{
	return &c->lr.xlog[(c->lr.xlog_head + i) % DT_TCP_XMIT_LOG_MAX];
}

static void
tcp_xlog_trim(struct dt_tcp_conn *c)
{
	struct dt_tcp_lr *lr = &c->lr;

	while (lr->xlog_n > 0 &&
			dt_tcp_seq_le(tcp_xlog_at(c, 0)->end, c->snd_una)) {
		lr->xlog_head = (uint8_t)((lr->xlog_head + 1) %
			DT_TCP_XMIT_LOG_MAX);
		lr->xlog_n--;
	}
}

/* Send time of the byte at @p seq; false when not logged. */
static bool
tcp_xlog_ts(const struct dt_tcp_conn *c, uint32_t seq, uint32_t *ts)
{
	const struct dt_tcp_xmit_mark *m;
	unsigned int i;

	for (i = 0; i < c->lr.xlog_n; i++) {
		m = tcp_xlog_at(c, i);
		if (dt_tcp_seq_lt(seq, m->end)) {
			*ts = m->ts;
			return true;
		}
	}
	return false;
}

void
dt_tcp_cc_loss(struct dt_tcp_conn *c, uint64_t now)
{
	if (c->cc->on_loss)
		c->cc->on_loss(c, now);
}

/* RFC 8985 6.2 step 4. */
static uint32_t
tcp_rack_reo_wnd(const struct dt_tcp_conn *c)
{
	const struct dt_tcp_lr *lr = &c->lr;
	uint64_t w;

	if (!tcp_lr_flag(c, DT_TCP_LR_REORDER)) {
		if (tcp_flag(c, DT_TCP_F_RECOVERY))
			return 0;
		if (lr->sacked >= DT_TCP_DUPACK_THRESH * (uint32_t)c->smss)
			return 0;
	}
	w = (uint64_t)(lr->reo_wnd_mult ? lr->reo_wnd_mult : 1) *
		lr->min_rtt / 4;
	return w < c->srtt ? (uint32_t)w : c->srtt;
}

/* RFC 8985 6.2 step 4, D-SACK part: widen the window once per round. */
static void
tcp_rack_dsack(struct dt_tcp_conn *c, const struct tcp_ack_info *ai)
{
	struct dt_tcp_lr *lr = &c->lr;

	if (tcp_lr_flag(c, DT_TCP_LR_DSACK_RND) &&
			dt_tcp_seq_ge(c->snd_una, lr->dsack_round))
		lr->flags &= (uint8_t)~DT_TCP_LR_DSACK_RND;
	if (!ai->dsack || tcp_lr_flag(c, DT_TCP_LR_DSACK_RND))
		return;
	lr->flags |= DT_TCP_LR_DSACK_RND;
	lr->dsack_round = c->snd_max;
	if (lr->reo_wnd_mult < UINT8_MAX)
		lr->reo_wnd_mult++;
	lr->reo_persist = DT_TCP_REO_PERSIST;
}

/*
 * RFC 8985 6.2 steps 1-3: the most recently sent data this ACK delivered
 * (the highest original byte) gives RACK.xmit_ts, end_seq and rtt;
 * delivery below the highest SACKed byte means reordering.
 */
static void
tcp_rack_update(struct dt_tcp_conn *c, const struct tcp_ack_info *ai,
	uint64_t now)
{
	struct dt_tcp_lr *lr = &c->lr;
	uint32_t cand = 0, ts, rtt, from;
	bool have = false;

	from = dt_tcp_seq_max(ai->old_una, lr->rtx_hi);
	if (dt_tcp_seq_gt(c->snd_una, from) &&
			dt_tcp_sb_sacked_in(c, from, c->snd_una) <
			c->snd_una - from) {
		cand = c->snd_una;
		have = true;
	}
	if (ai->new_any && dt_tcp_seq_gt(ai->new_hi, lr->rtx_hi) &&
			(!have || dt_tcp_seq_gt(ai->new_hi, cand))) {
		cand = ai->new_hi;
		have = true;
	}
	/* A probe that resent the last segment has its own send time; it
	 * is ambiguous when the ACK came faster than any path RTT. */
	if (tcp_lr_flag(c, DT_TCP_LR_TLP_RTX) && ai->new_any &&
			dt_tcp_seq_gt(ai->new_hi, lr->tlp_start) &&
			dt_tcp_seq_le(ai->new_hi, lr->tlp_end) &&
			tcp_now32(now) - lr->tlp_ts >= lr->min_rtt) {
		cand = ai->new_hi;
		ts = lr->tlp_ts;
	} else if (!have || !tcp_xlog_ts(c, cand - 1, &ts)) {
		return;
	} else if (tcp_lr_flag(c, DT_TCP_LR_TLP_RTX) &&
			dt_tcp_seq_gt(cand, lr->tlp_start) &&
			dt_tcp_seq_le(cand, lr->tlp_end)) {
		return;
	}
	if (dt_tcp_seq_lt(cand, lr->fack))
		lr->flags |= DT_TCP_LR_REORDER;
	lr->fack = dt_tcp_seq_max(lr->fack, cand);
	rtt = tcp_now32(now) - ts;
	if (lr->min_rtt == 0 || rtt < lr->min_rtt)
		lr->min_rtt = rtt ? rtt : 1;
	/* RACK_sent_after(): later time, or same time and higher sequence. */
	if ((int32_t)(ts - lr->rack_ts) > 0 || (ts == lr->rack_ts &&
			dt_tcp_seq_gt(cand, lr->rack_end)) ||
			!dt_tcp_seq_gt(lr->rack_end, c->snd_una)) {
		lr->rack_ts = ts;
		lr->rack_end = cand;
		lr->rack_rtt = rtt;
	}
}

/*
 * RFC 8985 6.2 step 5 (RACK_detect_loss) and 6.3: un-SACKed original
 * data sent before RACK.xmit_ts is lost once RACK.rtt + reo_wnd passed
 * since it was sent; otherwise the reordering timer waits for it.
 * Returns true when the lost edge moved.
 */
bool
dt_tcp_rack_detect(struct dt_tcp_conn *c, uint64_t now)
{
	struct dt_tcp_lr *lr = &c->lr;
	const struct dt_tcp_xmit_mark *m;
	uint32_t reo = tcp_rack_reo_wnd(c), prev = c->snd_una, s, e;
	uint32_t old = dt_tcp_seq_max(lr->lost_end, c->snd_una);
	int32_t remaining, timeout = 0;
	unsigned int i;

	for (i = 0; i < lr->xlog_n; i++) {
		m = tcp_xlog_at(c, i);
		s = dt_tcp_seq_max(prev, c->snd_una);
		s = dt_tcp_seq_max(s, dt_tcp_seq_max(lr->rtx_hi, lr->lost_end));
		e = dt_tcp_seq_min(m->end, lr->rack_end);
		/* The probe's data was sent again, later: not judged here. */
		if (tcp_lr_flag(c, DT_TCP_LR_TLP_RTX))
			e = dt_tcp_seq_min(e, lr->tlp_start);
		prev = m->end;
		if (dt_tcp_seq_lt(s, e) &&
				dt_tcp_sb_sacked_in(c, s, e) < e - s) {
			remaining = (int32_t)(m->ts + lr->rack_rtt + reo -
				tcp_now32(now));
			if (remaining <= 0)
				lr->lost_end = e;
			else if (remaining > timeout)
				timeout = remaining;
		}
		if (dt_tcp_seq_ge(m->end, lr->rack_end))
			break;
	}
	if (timeout > 0) {
		lr->flags |= DT_TCP_LR_REO;
		c->timers[DT_TCP_T_PTO] = now + (uint64_t)timeout;
	} else if (tcp_lr_flag(c, DT_TCP_LR_REO)) {
		lr->flags &= (uint8_t)~DT_TCP_LR_REO;
		c->timers[DT_TCP_T_PTO] = 0;
	}
	if (dt_tcp_seq_gt(lr->lost_end, old)) {
		lr->n_rack_lost++;
		return true;
	}
	return false;
}

void
dt_tcp_rack_ack(struct dt_tcp_conn *c, const struct tcp_ack_info *ai,
	uint64_t now)
{
	tcp_rack_update(c, ai, now);
	tcp_rack_dsack(c, ai);
	tcp_xlog_trim(c);
	if (dt_tcp_seq_lt(c->lr.lost_end, c->snd_una))
		c->lr.lost_end = c->snd_una;
	dt_tcp_rack_detect(c, now);
}

void
dt_tcp_tlp_done(struct dt_tcp_conn *c)
{
	c->lr.flags &= (uint8_t)~(DT_TCP_LR_TLP | DT_TCP_LR_TLP_RTX);
}

/*
 * RFC 8985 7.4: was the probe's repair of a loss? A D-SACK of the probe
 * or a pure duplicate ACK says the original arrived; an ACK beyond the
 * probe without either says the probe repaired a loss, which gets the
 * congestion response of a loss episode (then true: no window growth for
 * this ACK).
 */
bool
dt_tcp_tlp_ack(struct dt_tcp_conn *c, const struct tcp_ack_info *ai,
	uint64_t now)
{
	struct dt_tcp_lr *lr = &c->lr;

	if (!tcp_lr_flag(c, DT_TCP_LR_TLP) ||
			dt_tcp_seq_lt(c->snd_una, lr->tlp_end))
		return false;
	if (!tcp_lr_flag(c, DT_TCP_LR_TLP_RTX)) {
		dt_tcp_tlp_done(c);
	} else if (ai->dsack && dt_tcp_seq_lt(ai->dsack_r.start, lr->tlp_end) &&
			dt_tcp_seq_gt(ai->dsack_r.end, lr->tlp_start)) {
		dt_tcp_tlp_done(c);
	} else if (dt_tcp_seq_gt(c->snd_una, lr->tlp_end)) {
		dt_tcp_tlp_done(c);
		c->ssthresh = c->cc->ssthresh(c);
		dt_tcp_cc_loss(c, now);
		c->cwnd = c->ssthresh;
		return true;
	} else if (c->snd_una == ai->old_una && !ai->new_any) {
		dt_tcp_tlp_done(c);
	}
	return false;
}

/* RFC 8985 7.2: PTO = 2 SRTT (+ WCDelAckT for a single segment). */
static uint64_t
tcp_pto(const struct dt_tcp_conn *c)
{
	uint64_t pto;

	if (c->srtt == 0)
		return DT_TCP_PTO_NO_RTT_US;
	pto = 2 * (uint64_t)c->srtt;
	if (c->snd_max - c->snd_una <= c->smss)
		pto += DT_TCP_WCDELACK_US;
	return pto;
}

static bool
tcp_lr_timer_allowed(const struct dt_tcp_conn *c)
{
	switch (c->state) {
	case DT_TCP_ESTABLISHED:
	case DT_TCP_CLOSE_WAIT:
	case DT_TCP_FIN_WAIT_1:
	case DT_TCP_CLOSING:
	case DT_TCP_LAST_ACK:
		return tcp_rack_on(c) && c->snd_una != c->snd_max;
	default:
		return false;
	}
}

/*
 * The T_PTO slot: RACK's reordering timer when armed, else a loss probe
 * while the connection is not recovering, restarted after new data or a
 * cumulative ACK.
 */
void
dt_tcp_lr_timer_update(struct dt_tcp_conn *c, uint64_t now)
{
	struct dt_tcp_lr *lr = &c->lr;
	bool rearm = tcp_lr_flag(c, DT_TCP_LR_PTO_REARM);
	uint64_t d;

	lr->flags &= (uint8_t)~DT_TCP_LR_PTO_REARM;
	if (!tcp_lr_timer_allowed(c)) {
		lr->flags &= (uint8_t)~DT_TCP_LR_REO;
		c->timers[DT_TCP_T_PTO] = 0;
		return;
	}
	if (tcp_lr_flag(c, DT_TCP_LR_REO))
		return;
	if (tcp_flag(c, DT_TCP_F_RECOVERY) || tcp_lr_flag(c, DT_TCP_LR_TLP) ||
			c->backoff > 0) {
		c->timers[DT_TCP_T_PTO] = 0;
		return;
	}
	if (!rearm && c->timers[DT_TCP_T_PTO] != 0)
		return;
	/* RFC 8985 7.2: never later than the RTO; on a tie the probe goes
	 * first (dt_tcp_timers_run()) and re-arms the RTO. */
	d = now + tcp_pto(c);
	if (c->timers[DT_TCP_T_RTX] != 0 && d > c->timers[DT_TCP_T_RTX])
		d = c->timers[DT_TCP_T_RTX];
	c->timers[DT_TCP_T_PTO] = d;
}

/* RFC 8985 6.3: the reordering timer fired. */
static void
tcp_on_reo(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	c->lr.flags &= (uint8_t)~DT_TCP_LR_REO;
	if (dt_tcp_rack_detect(c, now))
		dt_tcp_sack_loss_marked(c, now, out);
}

/*
 * RFC 8985 7.3: the probe is one new segment when the peer's window
 * allows, else the last segment sent again; then the RTO is armed.
 */
static void
tcp_on_tlp(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	struct dt_tcp_lr *lr = &c->lr;
	uint32_t data_end = tcp_data_end(c);
	uint32_t right = c->snd_una + c->snd_wnd, s, len, used, dend;
	bool rtx = false;

	if (!tcp_lr_timer_allowed(c) || tcp_flag(c, DT_TCP_F_RECOVERY))
		return;
	s = c->snd_nxt;
	if (c->snd_nxt == c->snd_max && dt_tcp_seq_lt(s, data_end) &&
			dt_tcp_seq_lt(s, right)) {
		len = dt_tcp_seq_min(data_end, right) - s;
		if (len > c->smss)
			len = c->smss;
		used = dt_tcp_send_len(c, s, len, now, out);
		c->snd_nxt += used;
	} else {
		dend = c->snd_max;
		if (tcp_fin_pending(c) && c->snd_max == data_end + 1)
			dend = data_end;
		len = dend - c->snd_una < c->smss ? dend - c->snd_una : c->smss;
		s = dend - len;
		used = dt_tcp_send_len(c, s, len, now, out);
		rtx = true;
	}
	if (used == 0)
		return;
	lr->flags |= DT_TCP_LR_TLP;
	lr->tlp_start = s;
	lr->tlp_end = c->snd_max;
	lr->tlp_ts = tcp_now32(now);
	lr->n_tlp++;
	if (rtx) {
		lr->flags |= DT_TCP_LR_TLP_RTX;
		lr->n_rtx++;
		c->flags &= (uint16_t)~DT_TCP_F_RTT_TIMING;
	}
	dt_tcp_rtx_restart(c, now);
}

void
dt_tcp_on_pto(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out)
{
	if (tcp_lr_flag(c, DT_TCP_LR_REO))
		tcp_on_reo(c, now, out);
	else
		tcp_on_tlp(c, now, out);
}
