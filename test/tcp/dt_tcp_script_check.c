/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The script runner's side of the engine (dt_tcp_script.h): collect what
 * dt_tcp_output() produced into the interpreter's queues, check the
 * invariants listed at the top of dt_tcp_script.c on every call, and fire
 * timers as the virtual clock advances.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dt_tcp_script.h"

void
fail(struct interp *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s:%d: ", in->path, in->line);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	in->failures++;
}
const char *const timer_names[DT_TCP_T__COUNT] = {
	[DT_TCP_T_RTX] = "rtx",
	[DT_TCP_T_PERSIST] = "persist",
	[DT_TCP_T_DELACK] = "delack",
	[DT_TCP_T_KEEPALIVE] = "keepalive",
	[DT_TCP_T_TIMEWAIT] = "timewait",
	[DT_TCP_T_SYNQ] = "synq",
	[DT_TCP_T_PTO] = "pto",
};
static void
flags_str(uint8_t f, char *buf)
{
	char *p = buf;

	if (f & DT_NET_TCP_SYN)
		*p++ = 'S';
	if (f & DT_NET_TCP_FIN)
		*p++ = 'F';
	if (f & DT_NET_TCP_RST)
		*p++ = 'R';
	if (f & DT_NET_TCP_PSH)
		*p++ = 'P';
	if (f & DT_NET_TCP_ACK)
		*p++ = '.';
	*p = 0;
}

void
seg_str(const struct interp *in, const struct dt_tcp_tx_seg *s, char *buf,
	size_t cap)
{
	char fl[8];
	uint32_t rel = s->th.seq - in->iss;
	int n;
	unsigned int i;

	flags_str(s->th.flags, fl);
	n = snprintf(buf, cap, "%s %u:%u(%u) ack %u win %u", fl, rel,
		rel + s->len, s->len, s->th.ack - in->peer_isn, s->th.win);
	if (s->th.opts.present & DT_NET_TCPOPT_F_MSS)
		n += snprintf(buf + n, cap - (size_t)n, " mss %u", s->th.opts.mss);
	if (s->th.opts.present & DT_NET_TCPOPT_F_WSCALE)
		n += snprintf(buf + n, cap - (size_t)n, " wscale %u",
			s->th.opts.wscale);
	if (s->th.opts.present & DT_NET_TCPOPT_F_SACK_PERM)
		n += snprintf(buf + n, cap - (size_t)n, " sackOK");
	if (s->th.opts.present & DT_NET_TCPOPT_F_TS)
		n += snprintf(buf + n, cap - (size_t)n, " TS val %u ecr %u",
			s->th.opts.ts_val - in->iss, s->th.opts.ts_ecr);
	if (s->th.opts.present & DT_NET_TCPOPT_F_SACK)
		for (i = 0; i < s->th.opts.n_sack; i++)
			n += snprintf(buf + n, cap - (size_t)n, " sack %u:%u",
				s->th.opts.sack[i].left - in->peer_isn,
				s->th.opts.sack[i].right - in->peer_isn);
}

/* ---- collecting what the engine produced ---- */

static void
check_invariants(struct interp *in)
{
	const struct dt_tcp_conn *c = &in->conn;
	uint16_t i;
	unsigned int k;

	if (!in->conn_init)
		return;
	for (k = 0; k < DT_TCP_T__COUNT; k++)
		if (dt_tcp_timer_is_conn(k) && in->tmr[k] != c->timers[k])
			fail(in, "timer %s: actions say %llu, conn has %llu",
				timer_names[k], (unsigned long long)in->tmr[k],
				(unsigned long long)c->timers[k]);
	if (in->listening && in->tmr[DT_TCP_T_SYNQ] != in->lst.deadline)
		fail(in, "listener timer action mismatch");
	if (c->state == DT_TCP_CLOSED || c->state == DT_TCP_SYN_SENT)
		return;
	if (dt_tcp_seq_gt(c->snd_una, c->snd_nxt) ||
			dt_tcp_seq_gt(c->snd_nxt, c->snd_max))
		fail(in, "invariant snd_una <= snd_nxt <= snd_max broken");
	if (c->ooo_n > 0 && (c->state == DT_TCP_CLOSE_WAIT ||
			c->state == DT_TCP_LAST_ACK || c->state == DT_TCP_CLOSING ||
			c->state == DT_TCP_TIME_WAIT))
		fail(in, "%u extents held after the peer's FIN", c->ooo_n);
	for (i = 0; i < c->ooo_n; i++) {
		const struct rx_rec *r = c->ooo[i].ext.ref;

		if (!dt_tcp_seq_gt(c->ooo[i].seq, c->rcv_nxt) || !c->ooo[i].ext.len)
			fail(in, "ooo entry %u not beyond rcv_nxt", i);
		if (r < in->rx || r >= in->rx + in->n_rx || r->outcome ||
				c->ooo[i].ext.off + c->ooo[i].ext.len > r->len ||
				r->rel + c->ooo[i].ext.off !=
				c->ooo[i].seq - in->peer_isn)
			fail(in, "ooo entry %u is not pending payload at its "
				"sequence", i);
		if (i > 0 && dt_tcp_seq_lt(c->ooo[i].seq, c->ooo[i - 1].seq +
				c->ooo[i - 1].ext.len))
			fail(in, "ooo entries %u and %u overlap", i - 1, i);
	}
}

static void
roundtrip_check(struct interp *in, const struct dt_tcp_tx_seg *s)
{
	uint8_t buf[DT_NET_TCP_HLEN_MAX];
	struct dt_net_tcp_hdr th = s->th, back;
	size_t n;

	th.sport = in->tuple.lport;
	th.dport = in->tuple.rport;
	n = dt_net_tcp_build(buf, sizeof(buf), &th);
	if (n == 0 || dt_net_tcp_parse(buf, n, n + s->len, &back) != DT_NET_OK) {
		fail(in, "outbound header does not encode");
		return;
	}
	if (back.seq != th.seq || back.ack != th.ack || back.flags != th.flags ||
			back.win != th.win ||
			back.opts.present != th.opts.present ||
			back.opts.n_sack != th.opts.n_sack)
		fail(in, "outbound header round trip differs");
}

/* The run of held out-of-order data that overlaps [l, r), if any. */
static bool
held_run(const struct dt_tcp_conn *c, uint32_t l, uint32_t r,
	struct range *run)
{
	uint16_t i, j;

	for (i = 0; i < c->ooo_n; i++)
		if (dt_tcp_seq_gt(c->ooo[i].seq + c->ooo[i].ext.len, l))
			break;
	if (i == c->ooo_n || !dt_tcp_seq_lt(c->ooo[i].seq, r))
		return false;
	for (j = i; j > 0 && c->ooo[j - 1].seq + c->ooo[j - 1].ext.len ==
			c->ooo[j].seq; j--)
		;
	run->l = c->ooo[j].seq;
	for (j = i; j + 1 < c->ooo_n && c->ooo[j].seq + c->ooo[j].ext.len ==
			c->ooo[j + 1].seq; j++)
		;
	run->r = c->ooo[j].seq + c->ooo[j].ext.len;
	return true;
}

static unsigned int
held_runs(const struct dt_tcp_conn *c)
{
	unsigned int n = 0;
	uint16_t i;

	for (i = 0; i < c->ooo_n; i++)
		if (i == 0 || c->ooo[i - 1].seq + c->ooo[i - 1].ext.len !=
				c->ooo[i].seq)
			n++;
	return n;
}

static bool
range_in(const struct range *a, const struct range *b)
{
	return dt_tcp_seq_ge(a->l, b->l) && dt_tcp_seq_le(a->r, b->r);
}

/* Add @p r to @p list (of @p n) unless it is inside an entry. */
static int
range_add(struct range *list, int n, int max, const struct range *r)
{
	int i;

	for (i = 0; i < n; i++)
		if (range_in(r, &list[i]))
			return n;
	if (n < max)
		list[n++] = *r;
	return n;
}

/*
 * RFC 2018 4 (and RFC 2883 4), judged on the receiver's queue: an
 * optional D-SACK first (below the ACK, or inside the block after it);
 * then blocks that are each a whole run of held data, distinct; the first
 * holds the segment that triggered the ACK when it arrived out of order
 * and is held; then the primary blocks of earlier ACKs, latest first,
 * that are still held and not inside a block already listed; as many
 * blocks as the option has room for and runs are held.
 */
void
sack_check(struct interp *in, const struct dt_tcp_tx_seg *s)
{
	const struct dt_tcp_conn *c = &in->conn;
	const struct dt_net_tcp_opts *o = &s->th.opts;
	struct range b[DT_NET_TCP_SACK_MAX], want[DT_NET_TCP_SACK_MAX], run;
	unsigned int space, runs = held_runs(c);
	int n = 0, d = 0, nw = 0, i, j, room;
	uint32_t ack = s->th.ack;

	if (o->present & DT_NET_TCPOPT_F_SACK)
		for (n = 0; n < o->n_sack; n++)
			b[n] = (struct range){ o->sack[n].left, o->sack[n].right };
	space = (o->present & DT_NET_TCPOPT_F_TS) ? 3 : DT_NET_TCP_SACK_MAX;
	if (n > 0 && (dt_tcp_seq_le(b[0].r, ack) ||
			(n > 1 && range_in(&b[0], &b[1]))))
		d = 1;		/* D-SACK */
	room = (int)space - d;
	for (i = d; i < n; i++) {
		if (!held_run(c, b[i].l, b[i].r, &run) || run.l != b[i].l ||
				run.r != b[i].r)
			fail(in, "SACK block %u:%u is not a run of held data",
				b[i].l - in->peer_isn, b[i].r - in->peer_isn);
		for (j = d; j < i; j++)
			if (b[j].l == b[i].l)
				fail(in, "SACK block %u:%u twice",
					b[i].l - in->peer_isn,
					b[i].r - in->peer_isn);
	}
	if (in->trig && held_run(c, dt_tcp_seq_max(in->trig_r.l, ack),
			in->trig_r.r, &run))
		nw = range_add(want, nw, room, &run);
	for (i = 0; i < in->n_hist; i++)
		if (dt_tcp_seq_gt(in->hist[i].r, ack) && held_run(c,
				dt_tcp_seq_max(in->hist[i].l, ack),
				in->hist[i].r, &run))
			nw = range_add(want, nw, room, &run);
	for (i = 0; i < nw; i++)
		if (d + i >= n || b[d + i].l != want[i].l ||
				b[d + i].r != want[i].r)
			fail(in, "SACK block %d should be %u:%u (RFC 2018 4)",
				d + i + 1, want[i].l - in->peer_isn,
				want[i].r - in->peer_isn);
	if ((unsigned int)(n - d) != (runs < (unsigned int)room ? runs :
			(unsigned int)room))
		fail(in, "%d SACK blocks for %u held runs, room for %d",
			n - d, runs, room);
	in->trig = false;
	if (n <= d)
		return;
	/* Remember the primary block, as the receiver should. */
	for (i = 0, j = 0; i < in->n_hist; i++)
		if (!range_in(&in->hist[i], &b[d]) && dt_tcp_seq_gt(
				in->hist[i].r, ack) && held_run(c,
				dt_tcp_seq_max(in->hist[i].l, ack),
				in->hist[i].r, &run))
			in->hist[j++] = in->hist[i];
	if (j == SACK_HIST)
		j--;
	memmove(&in->hist[1], &in->hist[0], (size_t)j * sizeof(in->hist[0]));
	in->hist[0] = b[d];
	in->n_hist = j + 1;
}

static void
collect(struct interp *in, struct dt_tcp_out *out)
{
	const struct dt_tcp_event *ev;
	struct rx_rec *r;
	unsigned int i;

	for (i = 0; i < out->n_segs; i++) {
		if (in->out_n == MAX_Q) {
			fail(in, "output queue overflow");
			break;
		}
		if (!in->iss_known && (out->segs[i].th.flags & DT_NET_TCP_SYN)) {
			in->iss = out->segs[i].th.seq;
			in->iss_known = true;
		}
		roundtrip_check(in, &out->segs[i]);
		if (in->sack_on && in->conn_init &&
				(out->segs[i].th.flags & DT_NET_TCP_ACK) &&
				!(out->segs[i].th.flags & (DT_NET_TCP_SYN |
					DT_NET_TCP_RST)) &&
				in->conn.state != DT_TCP_CLOSED)
			sack_check(in, &out->segs[i]);
		in->outq[(in->out_head + in->out_n) % MAX_Q].t = in->now;
		in->outq[(in->out_head + in->out_n) % MAX_Q].seg = out->segs[i];
		in->out_n++;
	}
	for (i = 0; i < out->n_events; i++) {
		ev = &out->events[i];
		if (ev->type == DT_TCP_EV_DATA || ev->type == DT_TCP_EV_FREE) {
			r = ev->ext.ref;
			if (r < in->rx || r >= in->rx + in->n_rx) {
				fail(in, "event with unknown payload reference");
				continue;
			}
			if (r->outcome)
				fail(in, "payload %u:%u has two outcomes",
					r->rel, r->rel + r->len);
			r->outcome = ev->type == DT_TCP_EV_DATA ? 1 : 2;
		}
		if (in->ev_n == MAX_Q) {
			fail(in, "event queue overflow");
			break;
		}
		in->evq[(in->ev_head + in->ev_n) % MAX_Q].t = in->now;
		in->evq[(in->ev_head + in->ev_n) % MAX_Q].ev = *ev;
		in->ev_n++;
	}
	for (i = 0; i < out->n_timers; i++)
		in->tmr[out->timers[i].kind] = out->timers[i].deadline;
}

/* Collect, then keep calling dt_tcp_output() while it asks for it. */
void
collect_all(struct interp *in)
{
	collect(in, &in->out);
	while (in->out.more && in->conn_init) {
		dt_tcp_output(&in->conn, in->now, &in->out);
		collect(in, &in->out);
	}
	check_invariants(in);
}

void
ensure_conn(struct interp *in)
{
	struct dt_tcp_bufs b = {
		.txq = in->txq, .txq_cap = in->txq_cap,
		.ooo = in->ooo, .ooo_cap = in->ooo_cap,
	};
	unsigned int k;

	if (in->conn_init && in->conn.state != DT_TCP_CLOSED)
		return;
	if (dt_tcp_conn_init(&in->conn, &in->cfg, &b) != 0)
		fail(in, "dt_tcp_conn_init failed");
	for (k = 0; k < DT_TCP_T__COUNT; k++)
		if (dt_tcp_timer_is_conn(k))
			in->tmr[k] = 0;
	in->conn_init = true;
}

/*
 * SYN-ACK retransmissions of the listener name their half-open
 * connection's tuple (the caller addresses them without matching
 * sequence numbers).
 */
static void
listen_tuple_check(struct interp *in, const struct dt_tcp_out *out)
{
	const struct dt_tcp_tuple *t;
	unsigned int i;

	for (i = 0; i < out->n_segs; i++) {
		t = &out->segs[i].tuple;
		if (t->laddr != in->tuple.laddr || t->raddr != in->tuple.raddr ||
				t->lport != in->tuple.lport || t->rport == 0)
			fail(in, "listener segment without its tuple");
	}
}

/* Fire timers due up to @p t, in deadline order, then set the clock. */
void
advance(struct interp *in, uint64_t t)
{
	uint64_t d;
	unsigned int k;
	bool lst;

	if (t < in->now) {
		fail(in, "time goes backwards");
		return;
	}
	for (;;) {
		d = 0;
		lst = false;
		for (k = 0; k < DT_TCP_T__COUNT; k++) {
			if (in->tmr[k] && (d == 0 || in->tmr[k] < d)) {
				d = in->tmr[k];
				lst = k == DT_TCP_T_SYNQ;
			}
		}
		if (d == 0 || d > t)
			break;
		in->now = d;
		if (lst) {
			dt_tcp_listen_timeout(&in->lst, d, &in->out);
			listen_tuple_check(in, &in->out);
		} else
			dt_tcp_timeout(&in->conn, d, &in->out);
		collect_all(in);
	}
	in->now = t;
}
