/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A packetdrill-like interpreter for the sans-IO TCP engine. One script
 * (test/tcp/scripts/\*.pkt) drives one connection and optionally one
 * listener with a virtual clock; see scripts/README for the format.
 *
 * Beyond the script's own expectations it checks on every call: timer
 * actions agree with the connection's deadlines, every inbound payload
 * reference gets exactly one outcome (DATA or FREE), data events are in
 * sequence order, outbound payload slices match the application stream,
 * every outbound header survives a build/parse round trip, sequence
 * variables keep their order, the out-of-order queue holds only payload
 * still pending at its sequence (and nothing once the peer's FIN is
 * processed), and every ACK's SACK option follows RFC 2018 4 (see
 * sack_check()).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_net_tcp.h"
#include "dt_tcp.h"
#include "dt_tcp_isn.h"
#include "dt_tcp_listen.h"

#define MAX_Q 256
#define MAX_REC 4096
#define MAX_TOK 32
#define TXQ_CAP 64
#define MAX_PORTS 16

struct rx_rec {
	uint32_t rel;		/* relative sequence of the extent's first byte */
	uint32_t len;
	int outcome;		/* 0 held/pending, 1 data, 2 freed */
};

struct tx_rec {
	uint64_t stream_off;	/* application stream offset of byte 0 */
	uint32_t len;
};

struct range {
	uint32_t l;
	uint32_t r;
};

/* Primary blocks remembered, like a receiver's (RFC 2018 4): as many as
 * one option can carry. */
#define SACK_HIST DT_NET_TCP_SACK_MAX

struct q_seg {
	uint64_t t;
	struct dt_tcp_tx_seg seg;
};

struct q_ev {
	uint64_t t;
	struct dt_tcp_event ev;
};

struct interp {
	const char *path;
	int line;
	int failures;
	uint64_t now;
	uint64_t tol;
	struct dt_tcp_cfg cfg;
	struct dt_tcp_isn_key key;
	struct dt_tcp_tuple tuple;
	struct dt_tcp_conn conn;
	struct dt_tcp_extent txq[TXQ_CAP];
	struct dt_tcp_ooo ooo[DT_TCP_OOO_MAX];
	uint16_t txq_cap;
	uint16_t ooo_cap;
	bool conn_init;
	struct dt_tcp_listener lst;
	struct dt_tcp_syn_entry synq[16];
	bool listening;
	int last_verdict;
	uint64_t tmr[DT_TCP_T__COUNT];
	bool iss_known;
	bool iss_fixed;
	struct { uint16_t port; uint32_t iss; } ports[MAX_PORTS];
	int n_ports;
	uint16_t synq_cap;
	int synack_retries;	/* -1: the listener's default */
	bool no_cookies;
	uint32_t iss;
	uint32_t peer_isn;
	struct q_seg outq[MAX_Q];
	int out_head, out_n;
	struct q_ev evq[MAX_Q];
	int ev_head, ev_n;
	struct rx_rec rx[MAX_REC];
	int n_rx;
	struct tx_rec tx[MAX_REC];
	int n_tx;
	uint64_t stream_off;
	uint32_t rx_next_rel;	/* next relative seq a DATA event must start at */
	/* RFC 2018 check: SACK negotiated, last inbound data, reported. */
	bool sack_on;
	bool trig;		/* trig_r arrived out of order, not yet acked */
	struct range trig_r;
	struct range hist[SACK_HIST];	/* primary blocks, latest first */
	int n_hist;
	struct dt_tcp_out out;
};

static void
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

static const char *const ev_names[] = {
	[DT_TCP_EV_CONNECTED] = "connected",
	[DT_TCP_EV_DATA] = "data",
	[DT_TCP_EV_FREE] = "free",
	[DT_TCP_EV_SENT] = "sent",
	[DT_TCP_EV_PEER_CLOSED] = "peer_closed",
	[DT_TCP_EV_RESET] = "reset",
	[DT_TCP_EV_ERROR] = "error",
	[DT_TCP_EV_CLOSED] = "closed",
};

static const char *const timer_names[DT_TCP_T__COUNT] = {
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

static void
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
static void
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
static void
collect_all(struct interp *in)
{
	collect(in, &in->out);
	while (in->out.more && in->conn_init) {
		dt_tcp_output(&in->conn, in->now, &in->out);
		collect(in, &in->out);
	}
	check_invariants(in);
}

static void
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
static void
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

/* ---- parsing helpers ---- */

static int
tokenize(char *s, char **tok, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		tok[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = 0;
	}
	return n;
}

static bool
parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool
parse_time(const char *s, uint64_t *t)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || d < 0)
		return false;
	*t = (uint64_t)(d * 1e6 + 0.5);
	return true;
}

static bool
parse_flags(const char *s, uint8_t *f)
{
	*f = 0;
	for (; *s; s++) {
		switch (*s) {
		case 'S': *f |= DT_NET_TCP_SYN; break;
		case 'F': *f |= DT_NET_TCP_FIN; break;
		case 'R': *f |= DT_NET_TCP_RST; break;
		case 'P': *f |= DT_NET_TCP_PSH; break;
		case '.': *f |= DT_NET_TCP_ACK; break;
		default: return false;
		}
	}
	return true;
}

/*
 * Options "<mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7,sack 1:2 3:4>".
 * @p ours: TS val is relative to our ISS (ours outbound), ecr relative to
 * it inbound; SACK edges relative to the peer's ISN outbound, ours inbound.
 */
static bool
parse_opts(struct interp *in, char *s, bool outbound,
	struct dt_net_tcp_opts *o)
{
	char *item, *save = NULL, *tok[MAX_TOK];
	int n, i;
	uint32_t a, b;
	uint32_t ts_base = in->iss;
	uint32_t sack_base = outbound ? in->peer_isn : in->iss;

	memset(o, 0, sizeof(*o));
	for (item = strtok_r(s, ",", &save); item;
			item = strtok_r(NULL, ",", &save)) {
		n = tokenize(item, tok, MAX_TOK);
		if (n == 0)
			return false;
		if (!strcmp(tok[0], "nop") || !strcmp(tok[0], "eol")) {
			continue;
		} else if (!strcmp(tok[0], "mss") && n == 2 &&
				parse_u32(tok[1], &a)) {
			o->present |= DT_NET_TCPOPT_F_MSS;
			o->mss = (uint16_t)a;
		} else if (!strcmp(tok[0], "wscale") && n == 2 &&
				parse_u32(tok[1], &a)) {
			o->present |= DT_NET_TCPOPT_F_WSCALE;
			o->wscale = (uint8_t)a;
		} else if (!strcmp(tok[0], "sackOK") && n == 1) {
			o->present |= DT_NET_TCPOPT_F_SACK_PERM;
		} else if (!strcmp(tok[0], "TS") && n == 5 &&
				!strcmp(tok[1], "val") && !strcmp(tok[3], "ecr") &&
				parse_u32(tok[2], &a) && parse_u32(tok[4], &b)) {
			o->present |= DT_NET_TCPOPT_F_TS;
			o->ts_val = outbound ? a + ts_base : a;
			o->ts_ecr = outbound ? b : b + ts_base;
		} else if (!strcmp(tok[0], "sack") && n >= 2 &&
				n <= 1 + DT_NET_TCP_SACK_MAX) {
			o->present |= DT_NET_TCPOPT_F_SACK;
			for (i = 1; i < n; i++) {
				char *colon = strchr(tok[i], ':');

				if (!colon)
					return false;
				*colon = 0;
				if (!parse_u32(tok[i], &a) ||
						!parse_u32(colon + 1, &b))
					return false;
				o->sack[o->n_sack].left = a + sack_base;
				o->sack[o->n_sack].right = b + sack_base;
				o->n_sack++;
			}
		} else {
			return false;
		}
	}
	return true;
}

struct seg_spec {
	uint8_t flags;
	uint32_t start, end, len;
	bool has_ack, has_win, opts_any, has_opts;
	uint32_t ack, win, exts, exts0;
	struct dt_net_tcp_opts opts;
};

/* "<flags> s:e(len) [ack N] [win N] [exts N] [exts0 N] [<opts>|<...>]" */
static bool
parse_seg(struct interp *in, char *s, bool outbound, struct seg_spec *sp)
{
	char *lt = strchr(s, '<'), *gt, *tok[MAX_TOK];
	int n, i;

	memset(sp, 0, sizeof(*sp));
	sp->exts = 1;
	if (lt) {
		gt = strrchr(lt, '>');
		if (!gt)
			return false;
		*lt = 0;
		*gt = 0;
		if (!strcmp(lt + 1, "...")) {
			sp->opts_any = true;
		} else {
			sp->has_opts = true;
			if (!parse_opts(in, lt + 1, outbound, &sp->opts))
				return false;
		}
	}
	n = tokenize(s, tok, MAX_TOK);
	if (n < 2 || !parse_flags(tok[0], &sp->flags))
		return false;
	if (sscanf(tok[1], "%u:%u(%u)", &sp->start, &sp->end, &sp->len) != 3 ||
			sp->end - sp->start != sp->len)
		return false;
	for (i = 2; i + 1 < n; i += 2) {
		if (!strcmp(tok[i], "ack")) {
			sp->has_ack = parse_u32(tok[i + 1], &sp->ack);
		} else if (!strcmp(tok[i], "win")) {
			sp->has_win = parse_u32(tok[i + 1], &sp->win);
		} else if (!strcmp(tok[i], "exts")) {
			if (!parse_u32(tok[i + 1], &sp->exts) || sp->exts == 0 ||
					sp->exts > DT_TCP_SEG_MAX_EXT)
				return false;
		} else if (!strcmp(tok[i], "exts0")) {
			/* Empty extents after the payload's (issue 25 #3). */
			if (!parse_u32(tok[i + 1], &sp->exts0) ||
					sp->exts0 > DT_TCP_SEG_MAX_EXT)
				return false;
		} else {
			return false;
		}
	}
	return i == n;
}

/* ---- script commands ---- */

static void
cmd_inbound(struct interp *in, char *rest)
{
	struct seg_spec sp;
	struct dt_tcp_extent ext[DT_TCP_SEG_MAX_EXT];
	struct dt_tcp_seg seg;
	uint8_t buf[DT_NET_TCP_HLEN_MAX];
	struct dt_net_tcp_hdr th;
	uint32_t i, off = 0, piece;
	size_t hl;
	bool busy;
	int v;

	if (!parse_seg(in, rest, false, &sp)) {
		fail(in, "bad inbound segment");
		return;
	}
	memset(&th, 0, sizeof(th));
	th.sport = in->tuple.rport;
	th.dport = in->tuple.lport;
	th.seq = sp.start + in->peer_isn;
	th.ack = sp.has_ack ? sp.ack + in->iss : 0;
	th.flags = sp.flags;
	th.win = (uint16_t)(sp.has_win ? sp.win : 65535);
	th.opts = sp.opts;
	/* Through the wire format, as the data plane would. */
	hl = dt_net_tcp_build(buf, sizeof(buf), &th);
	memset(&seg, 0, sizeof(seg));
	if (hl == 0 || dt_net_tcp_parse(buf, hl, hl + sp.len, &seg.th) !=
			DT_NET_OK) {
		fail(in, "inbound header does not encode");
		return;
	}
	seg.n_ext = 0;
	for (i = 0; i < sp.exts + sp.exts0; i++) {
		if (i < sp.exts && off == sp.len)
			continue;	/* no payload: no payload extent */
		piece = i >= sp.exts ? 0 : i + 1 == sp.exts ? sp.len - off :
			sp.len / sp.exts;
		if (seg.n_ext == DT_TCP_SEG_MAX_EXT) {
			fail(in, "more than %d extents", DT_TCP_SEG_MAX_EXT);
			return;
		}
		if (in->n_rx == MAX_REC) {
			fail(in, "too many payload records");
			return;
		}
		in->rx[in->n_rx] = (struct rx_rec){ .rel = sp.start + off,
			.len = piece };
		ext[seg.n_ext++] = (struct dt_tcp_extent){
			.ref = &in->rx[in->n_rx], .off = 0, .len = piece };
		in->n_rx++;
		off += piece;
	}
	seg.ext = ext;
	if ((sp.flags & DT_NET_TCP_SYN) && in->cfg.sack_ok)
		in->sack_on = (sp.opts.present & DT_NET_TCPOPT_F_SACK_PERM) != 0;
	busy = in->conn_init && in->conn.state != DT_TCP_CLOSED;
	if (sp.len > 0 && busy) {
		in->trig_r = (struct range){ th.seq, th.seq + sp.len };
		in->trig = dt_tcp_seq_gt(th.seq, in->conn.rcv_nxt);
	}
	if (busy && in->conn.tuple.rport == in->tuple.rport) {
		dt_tcp_input(&in->conn, &seg, in->now, &in->out);
	} else if (in->listening) {
		/* The one connection object is the spare while it is free. */
		if (!busy)
			ensure_conn(in);
		v = dt_tcp_listen_input(&in->lst, &in->tuple, &seg,
			busy ? NULL : &in->conn, in->now, &in->out);
		in->last_verdict = v;
	} else {
		dt_tcp_rst_closed(&seg, &in->out);
	}
	collect_all(in);
}

static void
cmd_outbound(struct interp *in, char *rest)
{
	struct seg_spec sp;
	struct q_seg *q;
	const struct dt_tcp_tx_seg *s;
	char got[256];
	uint64_t pos;
	unsigned int i;
	const struct tx_rec *tr;

	if (!parse_seg(in, rest, true, &sp)) {
		fail(in, "bad outbound segment");
		return;
	}
	if (in->out_n == 0) {
		fail(in, "expected a segment, none was sent");
		return;
	}
	q = &in->outq[in->out_head];
	in->out_head = (in->out_head + 1) % MAX_Q;
	in->out_n--;
	s = &q->seg;
	seg_str(in, s, got, sizeof(got));
	if (q->t + in->tol < in->now || q->t > in->now + in->tol)
		fail(in, "segment sent at %.6f, expected at %.6f: %s",
			q->t / 1e6, in->now / 1e6, got);
	if (s->th.flags != sp.flags || s->th.seq - in->iss != sp.start ||
			s->len != sp.len ||
			(sp.has_ack && s->th.ack - in->peer_isn != sp.ack) ||
			(sp.has_win && s->th.win != sp.win))
		fail(in, "segment mismatch, got: %s", got);
	if (!sp.opts_any) {
		const struct dt_net_tcp_opts *o = &s->th.opts;

		if (o->present != sp.opts.present ||
				((o->present & DT_NET_TCPOPT_F_MSS) &&
					o->mss != sp.opts.mss) ||
				((o->present & DT_NET_TCPOPT_F_WSCALE) &&
					o->wscale != sp.opts.wscale) ||
				((o->present & DT_NET_TCPOPT_F_TS) &&
					(o->ts_val != sp.opts.ts_val ||
					o->ts_ecr != sp.opts.ts_ecr)) ||
				o->n_sack != sp.opts.n_sack ||
				memcmp(o->sack, sp.opts.sack,
					sizeof(o->sack[0]) * o->n_sack))
			fail(in, "options mismatch, got: %s", got);
	}
	/* Payload slices must be the application stream at this sequence. */
	pos = (uint64_t)(s->th.seq - in->iss - 1);
	for (i = 0; i < s->n_ext; i++) {
		tr = s->ext[i].ref;
		if (tr < in->tx || tr >= in->tx + in->n_tx ||
				s->ext[i].off + s->ext[i].len > tr->len ||
				tr->stream_off + s->ext[i].off != pos) {
			fail(in, "payload slice %u does not match the stream", i);
			break;
		}
		pos += s->ext[i].len;
	}
}

static bool
parse_range(const char *s, uint32_t *a, uint32_t *b)
{
	return sscanf(s, "%u:%u", a, b) == 2;
}

static void
cmd_event(struct interp *in, char **tok, int n)
{
	struct q_ev *q;
	const struct dt_tcp_event *ev;
	const struct rx_rec *r;
	uint32_t a, b, x, y;
	const char *name;

	if (n < 1) {
		fail(in, "bad event line");
		return;
	}
	if (in->ev_n == 0) {
		fail(in, "expected event %s, none", tok[0]);
		return;
	}
	q = &in->evq[in->ev_head];
	in->ev_head = (in->ev_head + 1) % MAX_Q;
	in->ev_n--;
	ev = &q->ev;
	name = ev->type < sizeof(ev_names) / sizeof(ev_names[0]) ?
		ev_names[ev->type] : "?";
	if (strcmp(name, tok[0])) {
		fail(in, "expected event %s, got %s", tok[0], name);
		return;
	}
	if (q->t + in->tol < in->now || q->t > in->now + in->tol)
		fail(in, "event %s at %.6f, expected at %.6f", name, q->t / 1e6,
			in->now / 1e6);
	switch (ev->type) {
	case DT_TCP_EV_DATA:
		r = ev->ext.ref;
		x = r->rel + ev->ext.off;
		y = x + ev->ext.len;
		if (n != 2 || !parse_range(tok[1], &a, &b) || a != x || b != y)
			fail(in, "data %u:%u delivered", x, y);
		if (x != in->rx_next_rel)
			fail(in, "data at %u, stream is at %u", x, in->rx_next_rel);
		if (ev->ext.off + ev->ext.len > r->len)
			fail(in, "data extent beyond its buffer");
		in->rx_next_rel = y;
		break;
	case DT_TCP_EV_FREE:
		r = ev->ext.ref;
		if (n != 2 || !parse_range(tok[1], &a, &b) || a != r->rel ||
				b != r->rel + r->len)
			fail(in, "freed buffer is %u:%u", r->rel, r->rel + r->len);
		break;
	case DT_TCP_EV_SENT:
		if (n != 3 || !parse_u32(tok[1], &a) || !parse_u32(tok[2], &b) ||
				a != ev->bytes || b != ev->count)
			fail(in, "sent %llu %u", (unsigned long long)ev->bytes,
				ev->count);
		break;
	case DT_TCP_EV_ERROR:
		if (n != 2 || strcmp(tok[1], ev->err == DT_TCP_ERR_TIMEOUT ?
				"timeout" : ev->err == DT_TCP_ERR_DATA_LOST ?
				"data_lost" : "refused"))
			fail(in, "error reason %u", ev->err);
		break;
	default:
		if (n != 1)
			fail(in, "event %s takes no argument", name);
		break;
	}
}

static bool
cfg_bool(const char *v)
{
	return !strcmp(v, "on") || !strcmp(v, "1");
}

static void
cmd_cfg(struct interp *in, char **tok, int n)
{
	struct dt_tcp_cfg *c = &in->cfg;
	uint32_t v;
	int i;

	for (i = 0; i + 1 < n; i += 2) {
		const char *k = tok[i];
		bool num = parse_u32(tok[i + 1], &v);

		if (!strcmp(k, "mss") && num) c->mss = (uint16_t)v;
		else if (!strcmp(k, "wscale") && num) c->wscale = (uint8_t)v;
		else if (!strcmp(k, "wsopt")) c->wscale_ok = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "sack")) c->sack_ok = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "ts")) c->ts_ok = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "nagle")) c->nagle = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "delack")) c->delack = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "keepalive")) c->keepalive = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "rcvspace") && num) c->rcv_space = v;
		else if (!strcmp(k, "rto_init_ms") && num) c->rto_init_us = v * 1000ull;
		else if (!strcmp(k, "rto_min_ms") && num) c->rto_min_us = v * 1000ull;
		else if (!strcmp(k, "rto_max_ms") && num) c->rto_max_us = v * 1000ull;
		else if (!strcmp(k, "delack_ms") && num) c->delack_us = v * 1000ull;
		else if (!strcmp(k, "msl_ms") && num) c->msl_us = v * 1000ull;
		else if (!strcmp(k, "ka_idle_ms") && num) c->keepalive_idle_us = v * 1000ull;
		else if (!strcmp(k, "ka_intvl_ms") && num) c->keepalive_intvl_us = v * 1000ull;
		else if (!strcmp(k, "ka_probes") && num) c->keepalive_probes = (uint8_t)v;
		else if (!strcmp(k, "syn_retries") && num) c->syn_retries = (uint8_t)v;
		else if (!strcmp(k, "max_retries") && num) c->max_retries = (uint8_t)v;
		else if (!strcmp(k, "chack_limit") && num) c->challenge_ack_limit = (uint16_t)v;
		else if (!strcmp(k, "txq") && num && v && v <= TXQ_CAP) in->txq_cap = (uint16_t)v;
		else if (!strcmp(k, "ooo") && num && v && v <= DT_TCP_OOO_MAX) in->ooo_cap = (uint16_t)v;
		else if (!strcmp(k, "peer_isn") && num) in->peer_isn = v;
		else if (!strcmp(k, "iss") && num) { in->iss = v; in->iss_fixed = true; }
		else if (!strcmp(k, "synq") && num && v && v <= 16) in->synq_cap = (uint16_t)v;
		else if (!strcmp(k, "synack_retries") && num) in->synack_retries = (int)v;
		else if (!strcmp(k, "cookies")) in->no_cookies = !cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "tol_us") && num) in->tol = v;
		else if (!strcmp(k, "rack")) c->rack = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "ackdefer")) c->ack_defer = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "autotune")) c->rcv_autotune = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "tso") && num) c->tso_max = v;
		else if (!strcmp(k, "fin_wait2_ms") && num) c->fin_wait2_us = v * 1000ull;
		else if (!strcmp(k, "cc") && !strcmp(tok[i + 1], "newreno")) c->cc = &dt_tcp_cc_newreno;
		else if (!strcmp(k, "cc") && !strcmp(tok[i + 1], "cubic")) c->cc = &dt_tcp_cc_cubic;
		else fail(in, "bad cfg %s", k);
	}
	if (i != n)
		fail(in, "cfg needs key value pairs");
}

static const struct {
	const char *name;
	size_t off;
} fields[] = {
	{ "cwnd", offsetof(struct dt_tcp_conn, cwnd) },
	{ "ssthresh", offsetof(struct dt_tcp_conn, ssthresh) },
	{ "rto", offsetof(struct dt_tcp_conn, rto) },
	{ "srtt", offsetof(struct dt_tcp_conn, srtt) },
	{ "rttvar", offsetof(struct dt_tcp_conn, rttvar) },
	{ "snd_wnd", offsetof(struct dt_tcp_conn, snd_wnd) },
	{ "rcv_space", offsetof(struct dt_tcp_conn, rcv_space) },
	{ "sacked", offsetof(struct dt_tcp_conn, lr.sacked) },
	{ "pipe", offsetof(struct dt_tcp_conn, lr.pipe) },
	{ "rtxs", offsetof(struct dt_tcp_conn, lr.n_rtx) },
	{ "dsacks", offsetof(struct dt_tcp_conn, lr.n_dsack) },
	{ "tlps", offsetof(struct dt_tcp_conn, lr.n_tlp) },
	{ "rack_losses", offsetof(struct dt_tcp_conn, lr.n_rack_lost) },
};

/* expect state X | expect cwnd N | expect timer K T|off | expect verdict V
 * | expect ooo N | expect smss N | expect held N (payloads not resolved) */
static void
cmd_expect(struct interp *in, char **tok, int n)
{
	const struct dt_tcp_conn *c = &in->conn;
	uint32_t v, got;
	uint64_t t;
	unsigned int k;
	int i, held = 0;

	if (n == 2 && !strcmp(tok[0], "state")) {
		const char *st = in->conn_init ?
			dt_tcp_state_str((enum dt_tcp_state)c->state) : "CLOSED";

		if (strcmp(st, tok[1]))
			fail(in, "state %s, expected %s", st, tok[1]);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "verdict")) {
		if (strcmp(dt_tcp_lst_verdict_str(in->last_verdict), tok[1]))
			fail(in, "verdict %s, expected %s",
				dt_tcp_lst_verdict_str(in->last_verdict), tok[1]);
		return;
	}
	if (n == 3 && !strcmp(tok[0], "timer")) {
		for (k = 0; k < DT_TCP_T__COUNT; k++)
			if (!strcmp(timer_names[k], tok[1]))
				break;
		if (k == DT_TCP_T__COUNT) {
			fail(in, "unknown timer %s", tok[1]);
			return;
		}
		t = 0;
		if (strcmp(tok[2], "off") && !parse_time(tok[2], &t)) {
			fail(in, "bad time %s", tok[2]);
			return;
		}
		if (in->tmr[k] != t)
			fail(in, "timer %s at %.6f, expected %s", tok[1],
				in->tmr[k] / 1e6, tok[2]);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "held") && parse_u32(tok[1], &v)) {
		for (i = 0; i < in->n_rx; i++)
			held += in->rx[i].outcome == 0;
		if ((uint32_t)held != v)
			fail(in, "%d payload buffers held, expected %u", held, v);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "ooo") && parse_u32(tok[1], &v)) {
		if (c->ooo_n != v)
			fail(in, "ooo %u, expected %u", c->ooo_n, v);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "smss") && parse_u32(tok[1], &v)) {
		if (c->smss != v)
			fail(in, "smss %u, expected %u", c->smss, v);
		return;
	}
	if (n == 2 && (!strcmp(tok[0], "rtx_segs") ||
			!strcmp(tok[0], "rtx_bytes") ||
			!strcmp(tok[0], "acks_limited") ||
			!strcmp(tok[0], "beyond_fin") ||
			!strcmp(tok[0], "nagle_holds")) && parse_u32(tok[1], &v)) {
		t = tok[0][0] == 'a' ? c->acks_limited :
			tok[0][0] == 'b' ? c->rcv_beyond_fin :
			tok[0][0] == 'n' ? c->nagle_holds :
			tok[0][4] == 's' ? c->rtx_segs : c->rtx_bytes;
		if (t != v)
			fail(in, "%s is %llu, expected %u", tok[0],
				(unsigned long long)t, v);
		return;
	}
	for (k = 0; n == 2 && k < sizeof(fields) / sizeof(fields[0]); k++) {
		if (strcmp(fields[k].name, tok[0]))
			continue;
		memcpy(&got, (const char *)c + fields[k].off, sizeof(got));
		if (!parse_u32(tok[1], &v))
			fail(in, "bad value %s", tok[1]);
		else if (got != v)
			fail(in, "%s is %u, expected %u", tok[0], got, v);
		return;
	}
	fail(in, "bad expect line");
}

static void
require_quiet(struct interp *in)
{
	char got[256];

	if (in->out_n > 0) {
		seg_str(in, &in->outq[in->out_head].seg, got, sizeof(got));
		fail(in, "unexpected segment at %.6f: %s",
			in->outq[in->out_head].t / 1e6, got);
		in->out_head = (in->out_head + in->out_n) % MAX_Q;
		in->out_n = 0;
	}
	if (in->ev_n > 0) {
		const struct dt_tcp_event *ev = &in->evq[in->ev_head].ev;

		fail(in, "unexpected event %s at %.6f", ev_names[ev->type],
			in->evq[in->ev_head].t / 1e6);
		in->ev_head = (in->ev_head + in->ev_n) % MAX_Q;
		in->ev_n = 0;
	}
}

static void
port_iss_save(struct interp *in)
{
	int i;

	if (!in->iss_known)
		return;
	for (i = 0; i < in->n_ports; i++)
		if (in->ports[i].port == in->tuple.rport)
			break;
	if (i == in->n_ports) {
		if (in->n_ports == MAX_PORTS)
			return;
		in->n_ports++;
	}
	in->ports[i].port = in->tuple.rport;
	in->ports[i].iss = in->iss;
}

static void
port_iss_load(struct interp *in)
{
	int i;

	in->iss_known = false;
	for (i = 0; i < in->n_ports; i++) {
		if (in->ports[i].port == in->tuple.rport) {
			in->iss = in->ports[i].iss;
			in->iss_known = true;
		}
	}
}

static void
cmd_app(struct interp *in, char **tok, int n)
{
	struct dt_tcp_extent e;
	uint32_t v, b = 8;
	const char *want = NULL;
	int rc = 0;

	/* "cmd args -> ERR": the expected return code. */
	if (n >= 3 && !strcmp(tok[n - 2], "->")) {
		want = tok[n - 1];
		n -= 2;
	}
	if (!strcmp(tok[0], "listen")) {
		if (n == 3 && !strcmp(tok[1], "backlog"))
			parse_u32(tok[2], &b);
		if (dt_tcp_listen(&in->lst, &in->cfg, &in->key, in->synq,
				in->synq_cap,
				(uint16_t)b))
			fail(in, "listen failed");
		if (in->synack_retries >= 0 && dt_tcp_listen_set_synack_retries(
				&in->lst, (uint8_t)in->synack_retries))
			fail(in, "bad synack_retries");
		dt_tcp_listen_set_cookies(&in->lst, !in->no_cookies, NULL);
		in->listening = true;
		ensure_conn(in);
		return;
	}
	if (!strcmp(tok[0], "unlisten")) {
		dt_tcp_listen_close(&in->lst, &in->out);
		collect_all(in);
		return;
	}
	if (!strcmp(tok[0], "rport") && n == 2 && parse_u32(tok[1], &v)) {
		/* Another peer port (listener tests): each has its ISS. */
		port_iss_save(in);
		in->tuple.rport = (uint16_t)v;
		port_iss_load(in);
		return;
	}
	if (!strcmp(tok[0], "accepted")) {
		dt_tcp_listen_accepted(&in->lst);
		return;
	}
	if (!strcmp(tok[0], "connect")) {
		ensure_conn(in);
		if (!in->iss_fixed)
			in->iss = dt_tcp_isn(&in->key, &in->tuple, in->now);
		in->iss_known = true;
		rc = dt_tcp_connect(&in->conn, &in->tuple, in->iss, in->now,
			&in->out);
	} else if (!strcmp(tok[0], "send") && n == 2 && parse_u32(tok[1], &v)) {
		if (in->n_tx == MAX_REC) {
			fail(in, "too many sends");
			return;
		}
		in->tx[in->n_tx] = (struct tx_rec){ in->stream_off, v };
		e = (struct dt_tcp_extent){ &in->tx[in->n_tx], 0, v };
		rc = dt_tcp_send(&in->conn, &e, in->now, &in->out);
		if (rc == 0) {
			in->n_tx++;
			in->stream_off += v;
		}
	} else if (!strcmp(tok[0], "close")) {
		rc = dt_tcp_close(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "close_full")) {
		rc = dt_tcp_close_full(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "abort")) {
		dt_tcp_abort(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "rcvspace") && n == 2 && parse_u32(tok[1], &v)) {
		dt_tcp_set_rcv_space(&in->conn, v, in->now, &in->out);
	} else if (!strcmp(tok[0], "keepalive") && n == 2) {
		dt_tcp_set_keepalive(&in->conn, cfg_bool(tok[1]), in->now,
			&in->out);
	} else if (!strcmp(tok[0], "output")) {
		/* End of a receive batch (cfg ackdefer): the owed ACK. */
		dt_tcp_output(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "ooolimit") && n == 2 &&
			parse_u32(tok[1], &v)) {
		dt_tcp_set_ooo_limit(&in->conn, v);
		dt_tcp_out_reset(&in->out);
	} else if (!strcmp(tok[0], "nagle") && n == 2) {
		dt_tcp_set_nagle(&in->conn, cfg_bool(tok[1]));
		dt_tcp_out_reset(&in->out);
	} else {
		fail(in, "unknown command %s", tok[0]);
		return;
	}
	if (want) {
		const char *is = rc == 0 ? "0" : rc == -ENOBUFS ? "ENOBUFS" :
			rc == -ENOTCONN ? "ENOTCONN" : rc == -EPIPE ? "EPIPE" :
			rc == -EALREADY ? "EALREADY" : rc == -EISCONN ?
			"EISCONN" : "other";

		if (strcmp(is, want))
			fail(in, "%s returned %s, expected %s", tok[0], is, want);
	} else if (rc != 0) {
		fail(in, "%s returned %d", tok[0], rc);
	}
	collect_all(in);
}

/*
 * "repeat N < SEGMENT": the same inbound segment N times at this time
 * (floods); what they draw is matched by the lines that follow.
 */
static void
cmd_repeat(struct interp *in, char *rest)
{
	char *lt = strchr(rest, '<'), copy[1024];
	uint32_t n, i;

	if (lt == NULL) {
		fail(in, "repeat needs an inbound segment");
		return;
	}
	*lt = 0;
	if (!parse_u32(strtok(rest, " \t"), &n) || n == 0) {
		fail(in, "bad repeat count");
		return;
	}
	for (i = 0; i < n && in->failures == 0; i++) {
		snprintf(copy, sizeof(copy), "%s", lt + 1);
		cmd_inbound(in, copy);
	}
}

static void
run_line(struct interp *in, char *line)
{
	char *tok[MAX_TOK], *p, *rest;
	uint64_t t;
	int n;

	p = strchr(line, '#');
	if (p)
		*p = 0;
	while (isspace((unsigned char)*line))
		line++;
	if (!*line)
		return;
	if (!strncmp(line, "cfg", 3) && isspace((unsigned char)line[3])) {
		n = tokenize(line + 4, tok, MAX_TOK);
		cmd_cfg(in, tok, n);
		return;
	}
	/* "<time> <kind> ..." */
	p = line;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (*p)
		*p++ = 0;
	if (!parse_time(line, &t)) {
		fail(in, "line must start with a time");
		return;
	}
	while (isspace((unsigned char)*p))
		p++;
	rest = p;
	if (*rest == '>') {
		advance(in, t);
		cmd_outbound(in, rest + 1);
		return;
	}
	if (*rest == '%') {
		advance(in, t);
		n = tokenize(rest + 1, tok, MAX_TOK);
		cmd_event(in, tok, n);
		return;
	}
	advance(in, t);
	require_quiet(in);
	if (*rest == '<') {
		cmd_inbound(in, rest + 1);
		return;
	}
	if (!strncmp(rest, "repeat", 6) && isspace((unsigned char)rest[6])) {
		cmd_repeat(in, rest + 7);
		return;
	}
	n = tokenize(rest, tok, MAX_TOK);
	if (n == 0) {
		fail(in, "empty command");
		return;
	}
	if (!strcmp(tok[0], "expect"))
		cmd_expect(in, tok + 1, n - 1);
	else
		cmd_app(in, tok, n);
}

static void
interp_init(struct interp *in, const char *path)
{
	unsigned int i;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->tol = 1000;
	in->txq_cap = TXQ_CAP;
	in->synq_cap = 16;
	in->synack_retries = -1;
	in->ooo_cap = DT_TCP_OOO_MAX;
	dt_tcp_cfg_default(&in->cfg);
	for (i = 0; i < sizeof(in->key.k); i++)
		in->key.k[i] = (uint8_t)(0x5a ^ (i * 37));
	in->tuple = (struct dt_tcp_tuple){ .laddr = 0xc0000201,
		.raddr = 0xc0000202, .lport = 8080, .rport = 40000 };
	in->last_verdict = -1;
	in->rx_next_rel = 1;
}

int
main(int argc, char **argv)
{
	static struct interp in;
	char line[1024];
	FILE *f;
	int i, held = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SCRIPT\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	interp_init(&in, argv[1]);
	while (fgets(line, sizeof(line), f)) {
		in.line++;
		run_line(&in, line);
	}
	fclose(f);
	in.line++;
	require_quiet(&in);
	/* CLOSED holds no reference: every payload had its outcome. */
	if (in.conn_init && in.conn.state == DT_TCP_CLOSED)
		for (i = 0; i < in.n_rx; i++)
			held += in.rx[i].outcome == 0;
	if (held)
		fail(&in, "%d payload buffers never released after CLOSED", held);
	printf("%s: %s (%d failure%s)\n", argv[1],
		in.failures ? "FAIL" : "ok", in.failures,
		in.failures == 1 ? "" : "s");
	return in.failures ? 1 : 0;
}
