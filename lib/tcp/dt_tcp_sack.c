/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sender SACK scoreboard and SACK-based loss recovery (RFC 6675) with
 * Proportional Rate Reduction (RFC 6937) and D-SACK recognition
 * (RFC 2883).
 *
 * The scoreboard is a small sorted array of SACKed ranges above snd_una.
 * Forgetting a range is always safe (that data is only resent), so a full
 * array drops its highest range: the low ones steer the retransmissions.
 * Per-segment state is not kept: RFC 6675 needs only HighRxt (everything
 * un-SACKed below it was retransmitted in this recovery) and IsLost(),
 * which is monotonic in the sequence number and so is one edge.
 */
#include <string.h>

#include "dt_tcp_priv.h"

void
dt_tcp_sb_clear(struct dt_tcp_conn *c)
{
	c->lr.sb_n = 0;
	c->lr.sacked = 0;
}

static void
tcp_sb_drop(struct dt_tcp_lr *lr, unsigned int i)
{
	lr->sacked -= lr->sb[i].end - lr->sb[i].start;
	memmove(&lr->sb[i], &lr->sb[i + 1],
		(size_t)(lr->sb_n - i - 1) * sizeof(lr->sb[0]));
	lr->sb_n--;
}

/* Record [l, r) as SACKed; returns the bytes it newly covers. */
static uint32_t
tcp_sb_add(struct dt_tcp_lr *lr, uint32_t l, uint32_t r)
{
	uint32_t before = lr->sacked;
	unsigned int i = 0, j;

	while (i < lr->sb_n && dt_tcp_seq_lt(lr->sb[i].end, l))
		i++;
	/* Merge every range that overlaps or touches [l, r). */
	j = i;
	while (j < lr->sb_n && dt_tcp_seq_le(lr->sb[j].start, r)) {
		l = dt_tcp_seq_min(l, lr->sb[j].start);
		r = dt_tcp_seq_max(r, lr->sb[j].end);
		lr->sacked -= lr->sb[j].end - lr->sb[j].start;
		j++;
	}
	if (j > i) {
		memmove(&lr->sb[i + 1], &lr->sb[j],
			(size_t)(lr->sb_n - j) * sizeof(lr->sb[0]));
		lr->sb_n = (uint8_t)(lr->sb_n - (j - i) + 1);
	} else {
		if (lr->sb_n == DT_TCP_SACK_SB_MAX) {
			if (i == lr->sb_n)
				return 0;	/* above all kept: forget it */
			tcp_sb_drop(lr, lr->sb_n - 1u);
		}
		memmove(&lr->sb[i + 1], &lr->sb[i],
			(size_t)(lr->sb_n - i) * sizeof(lr->sb[0]));
		lr->sb_n++;
	}
	lr->sb[i].start = l;
	lr->sb[i].end = r;
	lr->sacked += r - l;
	return lr->sacked > before ? lr->sacked - before : 0;
}

/* Drop what the cumulative ACK now covers. */
void
dt_tcp_sb_trim(struct dt_tcp_conn *c)
{
	struct dt_tcp_lr *lr = &c->lr;

	while (lr->sb_n > 0 && dt_tcp_seq_le(lr->sb[0].end, c->snd_una))
		tcp_sb_drop(lr, 0);
	if (lr->sb_n > 0 && dt_tcp_seq_lt(lr->sb[0].start, c->snd_una)) {
		lr->sacked -= c->snd_una - lr->sb[0].start;
		lr->sb[0].start = c->snd_una;
	}
	/* Keep the other edges from falling 2 GB behind snd_una. */
	if (dt_tcp_seq_lt(lr->high_rxt, c->snd_una))
		lr->high_rxt = c->snd_una;
	if (dt_tcp_seq_lt(lr->lost_end, c->snd_una))
		lr->lost_end = c->snd_una;
	if (dt_tcp_seq_lt(lr->rtx_hi, c->snd_una))
		lr->rtx_hi = c->snd_una;
	if (dt_tcp_seq_lt(lr->fack, c->snd_una))
		lr->fack = c->snd_una;
	if (dt_tcp_seq_lt(lr->rack_end, c->snd_una))
		lr->rack_end = c->snd_una;
}

uint32_t
dt_tcp_sb_sacked_in(const struct dt_tcp_conn *c, uint32_t a, uint32_t b)
{
	const struct dt_tcp_lr *lr = &c->lr;
	uint32_t sum = 0, l, r;
	unsigned int i;

	for (i = 0; i < lr->sb_n; i++) {
		l = dt_tcp_seq_max(a, lr->sb[i].start);
		r = dt_tcp_seq_min(b, lr->sb[i].end);
		if (dt_tcp_seq_lt(l, r))
			sum += r - l;
	}
	return sum;
}

/*
 * Everything un-SACKed below the edge is lost: RFC 6675 IsLost() (more
 * than (DupThresh - 1) * SMSS bytes SACKed above, which the "DupThresh
 * discontiguous SACKed segments" rule implies), or RACK said so.
 */
uint32_t
dt_tcp_sb_lost_edge(const struct dt_tcp_conn *c)
{
	const struct dt_tcp_lr *lr = &c->lr;
	uint32_t acc = 0, edge = c->snd_una;
	unsigned int i;

	for (i = lr->sb_n; i-- > 0;) {
		acc += lr->sb[i].end - lr->sb[i].start;
		if (acc > (DT_TCP_DUPACK_THRESH - 1u) * c->smss) {
			edge = lr->sb[i].start;
			break;
		}
	}
	if (dt_tcp_seq_gt(lr->lost_end, edge))
		edge = lr->lost_end;
	return dt_tcp_seq_min(edge, c->snd_max);
}

/* RFC 6675 SetPipe(): not lost and not SACKed, plus retransmitted. */
static uint32_t
tcp_sack_pipe(const struct dt_tcp_conn *c)
{
	uint32_t edge = dt_tcp_sb_lost_edge(c);
	uint32_t hr = dt_tcp_seq_max(c->lr.high_rxt, c->snd_una);
	uint32_t pipe;

	pipe = c->snd_max - edge - dt_tcp_sb_sacked_in(c, edge, c->snd_max);
	pipe += hr - c->snd_una - dt_tcp_sb_sacked_in(c, c->snd_una, hr);
	return pipe;
}

/*
 * RFC 6675 NextSeg() rule 1: the first un-SACKed, lost sequence above
 * HighRxt; *len is clipped at the next SACKed range. Rule 2 (new data) is
 * dt_tcp_output_run() with the window cwnd - pipe; rules 3 and 4 are left to
 * RACK-TLP and the RTO.
 */
static bool
tcp_sack_next_hole(const struct dt_tcp_conn *c, uint32_t *seq, uint32_t *len)
{
	const struct dt_tcp_lr *lr = &c->lr;
	uint32_t s = dt_tcp_seq_max(lr->high_rxt, c->snd_una);
	uint32_t edge = dt_tcp_sb_lost_edge(c), lim = c->snd_max;
	unsigned int i;

	for (i = 0; i < lr->sb_n; i++) {
		if (dt_tcp_seq_le(lr->sb[i].end, s))
			continue;
		if (dt_tcp_seq_le(lr->sb[i].start, s)) {
			s = lr->sb[i].end;
			continue;
		}
		lim = lr->sb[i].start;
		break;
	}
	if (!dt_tcp_seq_lt(s, edge))
		return false;
	*seq = s;
	*len = lim - s < c->smss ? lim - s : c->smss;
	return true;
}

void
dt_tcp_sack_xmit_holes(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out)
{
	struct dt_tcp_lr *lr = &c->lr;
	uint32_t seq, len, used, data_end;

	while (tcp_sack_next_hole(c, &seq, &len)) {
		if (lr->pipe + len > c->cwnd)
			break;
		data_end = tcp_data_end(c);
		if (dt_tcp_seq_ge(seq, data_end))
			len = 0;	/* only the FIN is missing */
		else if (dt_tcp_seq_gt(seq + len, data_end))
			len = data_end - seq;
		used = dt_tcp_send_len(c, seq, len, now, out);
		if (used == 0)
			break;
		lr->high_rxt = seq + used;
		lr->rtx_hi = dt_tcp_seq_max(lr->rtx_hi, seq + used);
		lr->n_rtx++;
		/* Karn: a retransmitted segment gives no RTT sample. */
		c->flags &= (uint16_t)~DT_TCP_F_RTT_TIMING;
	}
}

/* Called for every data or FIN segment built at @p seq. */
void
dt_tcp_lr_sent(struct dt_tcp_conn *c, uint32_t seq, uint32_t used, uint64_t now)
{
	if (tcp_flag(c, DT_TCP_F_RECOVERY) && tcp_sack_on(c)) {
		c->lr.pipe += used;
		c->lr.prr_out += used;
	}
	if (dt_tcp_seq_gt(seq + used, c->snd_max)) {
		dt_tcp_xlog_push(c, seq + used, now);
		c->lr.flags |= DT_TCP_LR_PTO_REARM;
	}
}

/*
 * RFC 6937 with the slow-start reduction bound (PRR-SSRB): the window
 * for this ACK, from what it delivered. The first ACK of recovery always
 * allows one segment so that the fast retransmission goes out at once.
 */
static void
tcp_prr(struct dt_tcp_conn *c, int64_t delivered)
{
	struct dt_tcp_lr *lr = &c->lr;
	int64_t sndcnt, limit;
	uint64_t want;

	if (delivered > 0)
		lr->prr_delivered += (uint32_t)delivered;
	else
		delivered = 0;
	lr->pipe = tcp_sack_pipe(c);
	if (lr->pipe > c->ssthresh) {
		want = ((uint64_t)lr->prr_delivered * c->ssthresh +
			lr->recover_fs - 1) / (lr->recover_fs ? lr->recover_fs : 1);
		sndcnt = (int64_t)want - lr->prr_out;
	} else {
		limit = (int64_t)lr->prr_delivered - lr->prr_out;
		if (limit < delivered)
			limit = delivered;
		limit += c->smss;
		sndcnt = (int64_t)c->ssthresh - lr->pipe;
		if (sndcnt > limit)
			sndcnt = limit;
	}
	if (sndcnt < 0)
		sndcnt = 0;
	if (lr->prr_out == 0 && sndcnt < c->smss)
		sndcnt = c->smss;
	c->cwnd = lr->pipe + (uint32_t)sndcnt;
}

void
dt_tcp_sack_enter_recovery(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out)
{
	struct dt_tcp_lr *lr = &c->lr;

	(void)out;
	c->ssthresh = c->cc->ssthresh(c);
	dt_tcp_cc_loss(c, now);
	c->recover = c->snd_max;
	c->flags |= DT_TCP_F_RECOVERY;
	c->flags &= (uint16_t)~DT_TCP_F_RTT_TIMING;
	lr->high_rxt = c->snd_una;
	lr->prr_delivered = 0;
	lr->prr_out = 0;
	lr->recover_fs = c->snd_max - c->snd_una;
	/* The episode a probe was testing for is now being repaired. */
	dt_tcp_tlp_done(c);
}

static void
tcp_sack_exit_recovery(struct dt_tcp_conn *c)
{
	struct dt_tcp_lr *lr = &c->lr;

	/* RFC 6937: the reduction ends at ssthresh. */
	c->cwnd = c->ssthresh;
	c->flags &= (uint16_t)~DT_TCP_F_RECOVERY;
	c->dupacks = 0;
	/* RFC 8985 6.2 step 4: the reordering window decays per episode. */
	if (lr->reo_persist > 0 && --lr->reo_persist == 0)
		lr->reo_wnd_mult = 1;
}

/* A loss episode is allowed once per window (RFC 6582 "recover"). */
static bool
tcp_sack_may_recover(const struct dt_tcp_conn *c)
{
	return dt_tcp_seq_gt(c->snd_una, c->recover) &&
		c->snd_una != c->snd_max;
}

/*
 * Sequence-space checks of SACK blocks (RFC 2018 3, RFC 6675 5, RFC 2883
 * 4) on unsigned offsets from a base, never with dt_tcp_seq_*() alone: a
 * block whose left edge lies beyond snd_max and whose right edge lies
 * below snd_una is "left < right" and passes clamps made by sequence
 * comparison, yet describes ~2^31 bytes never sent.
 */

/*
 * A SACK block reports data in flight: its right edge is in
 * (snd_una, snd_max] and its left edge below the right one, at most a
 * window below snd_una (the part at or below the ACK is trimmed later).
 */
static bool
tcp_sack_blk_valid(const struct dt_tcp_conn *c, uint32_t l, uint32_t r)
{
	uint32_t ro = r - c->snd_una;

	return ro != 0 && ro <= c->snd_max - c->snd_una && r - l != 0 &&
		r - l <= ro + c->max_snd_wnd;
}

/*
 * A D-SACK block reports data received twice: data we sent, so inside
 * [lo, snd_max] where lo is at most a window below snd_una and never
 * below our first data byte.
 */
static bool
tcp_dsack_blk_valid(const struct dt_tcp_conn *c, uint32_t l, uint32_t r)
{
	uint32_t below = c->snd_una - (c->iss + 1);
	uint32_t lo = c->snd_una - (below < c->max_snd_wnd ? below :
		c->max_snd_wnd);

	return l - lo < r - lo && r - lo <= c->snd_max - lo;
}

/*
 * Apply the SACK blocks of an ACK whose ack field passed the checks. A
 * first block at or below the ACK, or inside the second block, is a
 * D-SACK (RFC 2883 4): it reports a duplicate and is not SACK news.
 * Blocks that fail the checks above are ignored.
 */
void
dt_tcp_sack_input(struct dt_tcp_conn *c, const struct dt_net_tcp_hdr *th,
	struct tcp_ack_info *ai)
{
	const struct dt_net_tcp_opts *o = &th->opts;
	uint32_t floor = dt_tcp_seq_max(c->snd_una, th->ack);
	uint32_t l, r;
	unsigned int i;

	memset(ai, 0, sizeof(*ai));
	ai->old_una = c->snd_una;
	ai->sacked_before = c->lr.sacked;
	if (!tcp_sack_on(c) || !(o->present & DT_NET_TCPOPT_F_SACK))
		return;
	for (i = 0; i < o->n_sack; i++) {
		l = o->sack[i].left;
		r = o->sack[i].right;
		if (!dt_tcp_seq_lt(l, r))
			continue;
		if (i == 0 && (dt_tcp_seq_le(r, th->ack) || (o->n_sack > 1 &&
				dt_tcp_seq_ge(l, o->sack[1].left) &&
				dt_tcp_seq_le(r, o->sack[1].right)))) {
			if (!tcp_dsack_blk_valid(c, l, r))
				continue;
			ai->dsack = true;
			ai->dsack_r.start = l;
			ai->dsack_r.end = r;
			c->lr.n_dsack++;
			continue;
		}
		if (!tcp_sack_blk_valid(c, l, r))
			continue;
		/* Only data in flight above the ACK can be SACKed. */
		l = dt_tcp_seq_max(l, floor);
		if (!dt_tcp_seq_lt(l, r))
			continue;
		if (tcp_sb_add(&c->lr, l, r) > 0) {
			if (!ai->new_any || dt_tcp_seq_gt(r, ai->new_hi))
				ai->new_hi = r;
			ai->new_any = true;
		}
	}
}

/*
 * The SACK sender's ACK processing (after snd_una moved): RACK-TLP, then
 * RFC 6675 recovery with PRR instead of dupack counting alone.
 */
void
dt_tcp_sack_ack(struct dt_tcp_conn *c, const struct tcp_ack_info *ai,
	bool dupack, uint64_t now, struct dt_tcp_out *out)
{
	int64_t delivered;
	uint32_t acked = c->snd_una - ai->old_una;
	bool reduced = false;

	if (tcp_rack_on(c))
		dt_tcp_rack_ack(c, ai, now);
	dt_tcp_sb_trim(c);
	delivered = (int64_t)acked + c->lr.sacked - ai->sacked_before;
	if (tcp_rack_on(c))
		reduced = dt_tcp_tlp_ack(c, ai, now);
	if (tcp_flag(c, DT_TCP_F_RECOVERY)) {
		if (dt_tcp_seq_ge(c->snd_una, c->recover)) {
			tcp_sack_exit_recovery(c);
			return;
		}
		tcp_prr(c, delivered);
		dt_tcp_sack_xmit_holes(c, now, out);
		return;
	}
	if (acked > 0) {
		c->dupacks = 0;
		if (!reduced)
			dt_tcp_cc_cong_avoid(c, acked, now);
	} else if (dupack && ai->new_any && c->dupacks < UINT8_MAX) {
		/* RFC 6675 2: a duplicate ACK carries new SACK information. */
		c->dupacks++;
	}
	if (!tcp_sack_may_recover(c))
		return;
	if (c->dupacks < DT_TCP_DUPACK_THRESH &&
			dt_tcp_sb_lost_edge(c) == c->snd_una)
		return;
	dt_tcp_sack_enter_recovery(c, now, out);
	tcp_prr(c, delivered);
	dt_tcp_sack_xmit_holes(c, now, out);
}

/*
 * RTO: the peer may have reneged, so SACK information is dropped (RFC
 * 2018 8, RFC 6675 5.1); everything in flight is resent go-back-N, which
 * RACK must not mistake for original transmissions.
 */
void
dt_tcp_lr_on_rto(struct dt_tcp_conn *c)
{
	struct dt_tcp_lr *lr = &c->lr;

	dt_tcp_sb_clear(c);
	lr->high_rxt = c->snd_una;
	lr->lost_end = c->snd_una;
	lr->rtx_hi = c->snd_max;
	lr->n_rtx++;
	lr->flags &= (uint8_t)~(DT_TCP_LR_TLP | DT_TCP_LR_TLP_RTX |
		DT_TCP_LR_REO | DT_TCP_LR_PTO_REARM);
	c->timers[DT_TCP_T_PTO] = 0;
}

/*
 * RACK's reordering timer marked data lost with no ACK to clock PRR:
 * start recovery (one segment goes at once) or, already recovering,
 * resend within the current window (as Linux does on this timer).
 */
void
dt_tcp_sack_loss_marked(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out)
{
	if (tcp_flag(c, DT_TCP_F_RECOVERY)) {
		c->lr.pipe = tcp_sack_pipe(c);
	} else {
		if (!tcp_sack_may_recover(c))
			return;
		dt_tcp_sack_enter_recovery(c, now, out);
		tcp_prr(c, 0);
	}
	dt_tcp_sack_xmit_holes(c, now, out);
}
