/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sender-side engine tests that need more than a script can say: a send
 * queue holding more than 2^32 bytes (payload by reference, nothing is
 * allocated) sent and acknowledged in full with the virtual clock, across
 * two wraps of the sequence space, then the FIN; and cwnd bounds that
 * need a window state a script cannot reach briefly (CUBIC congestion
 * avoidance, a flood of duplicate ACKs in NewReno recovery).
 */
#include <string.h>

#include "dt_test.h"
#include "dt_tcp.h"

#define BIG_SENDS 3
#define BIG_LEN 1610612736u		/* 1.5 GiB per send: 4.5 GiB queued */
#define PEER_MSS 65000
#define ACKQ 65536			/* segment ends awaiting their ACK */

static struct dt_tcp_extent txq[8];
static struct dt_tcp_ooo ooo[4];
static struct dt_tcp_out out;
/* The sends' references: distinct objects, never dereferenced. */
static char refs[BIG_SENDS];
static uint32_t ackq[ACKQ];

struct big_run {
	struct dt_tcp_conn c;
	uint64_t now;
	uint64_t sent;		/* stream bytes sent (first transmissions) */
	uint64_t acked;		/* bytes reported by SENT events */
	uint32_t sends_done;
	unsigned int ack_head, ack_n;
	unsigned int bad_slices, rtx, fins, closed;
};

static void
big_seg_in(struct dt_tcp_seg *s, uint32_t ack, uint32_t seq, uint8_t flags)
{
	memset(s, 0, sizeof(*s));
	s->th.seq = seq;
	s->th.ack = ack;
	s->th.flags = flags;
	s->th.win = 65535;	/* << 14: a 1 GiB window */
}

/* Check and queue what one call produced. */
static void
big_collect(struct big_run *r)
{
	const struct dt_tcp_tx_seg *t;
	uint64_t pos;
	unsigned int i, k;

	for (i = 0; i < out.n_events; i++) {
		if (out.events[i].type == DT_TCP_EV_SENT) {
			r->acked += out.events[i].bytes;
			r->sends_done += out.events[i].count;
		}
		if (out.events[i].type == DT_TCP_EV_CLOSED ||
				out.events[i].type == DT_TCP_EV_ERROR)
			r->closed++;
	}
	for (i = 0; i < out.n_segs; i++) {
		t = &out.segs[i];
		if (t->th.flags & DT_NET_TCP_FIN)
			r->fins++;
		if (t->len == 0 && !(t->th.flags & DT_NET_TCP_FIN))
			continue;
		/* First transmissions only, in stream order. */
		if (t->th.seq != (uint32_t)(r->c.iss + 1 + r->sent)) {
			r->rtx++;
			continue;
		}
		pos = r->sent;
		for (k = 0; k < t->n_ext; k++) {
			const char *ref = t->ext[k].ref;

			if (ref < refs || ref >= refs + BIG_SENDS ||
					(uint64_t)(ref - refs) * BIG_LEN +
					t->ext[k].off != pos)
				r->bad_slices++;
			pos += t->ext[k].len;
		}
		if (pos != r->sent + t->len)
			r->bad_slices++;
		r->sent += t->len;
		if (r->ack_n < ACKQ) {
			ackq[(r->ack_head + r->ack_n) % ACKQ] = t->th.seq +
				t->len + ((t->th.flags & DT_NET_TCP_FIN) ? 1 : 0);
			r->ack_n++;
		}
	}
}

static void
big_output(struct big_run *r)
{
	do {
		dt_tcp_output(&r->c, r->now, &out);
		big_collect(r);
	} while (out.more);
}

static void
test_txq_beyond_2g(void)
{
	static struct big_run r;
	struct dt_tcp_bufs b = { txq, 8, ooo, 4 };
	struct dt_tcp_tuple tu = { 1, 2, 3, 4 };
	const uint32_t irs = 7000, iss = 0xfffff000u;
	const uint64_t total = (uint64_t)BIG_SENDS * BIG_LEN;
	struct dt_tcp_extent e;
	struct dt_tcp_seg s;
	struct dt_tcp_cfg cfg;
	unsigned int i, idle = 0;

	memset(&r, 0, sizeof(r));
	dt_tcp_cfg_default(&cfg);
	cfg.ts_ok = false;
	cfg.sack_ok = false;
	cfg.mss = PEER_MSS;
	cfg.wscale = 14;
	cfg.nagle = false;
	DT_REQUIRE(dt_tcp_conn_init(&r.c, &cfg, &b) == 0);
	dt_tcp_connect(&r.c, &tu, iss, 0, &out);
	big_seg_in(&s, iss + 1, irs, DT_NET_TCP_SYN | DT_NET_TCP_ACK);
	s.th.opts.present = DT_NET_TCPOPT_F_MSS | DT_NET_TCPOPT_F_WSCALE;
	s.th.opts.mss = PEER_MSS;
	s.th.opts.wscale = 14;
	r.now = 1000;
	dt_tcp_input(&r.c, &s, r.now, &out);
	DT_REQUIRE(r.c.state == DT_TCP_ESTABLISHED);
	/* Open the scaled window. */
	big_seg_in(&s, iss + 1, irs + 1, DT_NET_TCP_ACK);
	dt_tcp_input(&r.c, &s, r.now, &out);
	for (i = 0; i < BIG_SENDS; i++) {
		e = (struct dt_tcp_extent){ &refs[i], 0, BIG_LEN };
		DT_REQUIRE(dt_tcp_send(&r.c, &e, r.now, &out) == 0);
		big_collect(&r);
		big_output(&r);
	}
	DT_CHECK_EQ(r.c.txq_bytes, total);
	DT_CHECK_EQ(dt_tcp_close(&r.c, r.now, &out), 0);
	big_collect(&r);
	/* The peer acknowledges every segment, 10 us apart. */
	while (r.closed == 0 && idle < 4) {
		if (r.ack_n == 0) {
			big_output(&r);
			idle += r.ack_n == 0;
			continue;
		}
		idle = 0;
		r.now += 10;
		big_seg_in(&s, ackq[r.ack_head], irs + 1, DT_NET_TCP_ACK);
		r.ack_head = (r.ack_head + 1) % ACKQ;
		r.ack_n--;
		dt_tcp_input(&r.c, &s, r.now, &out);
		big_collect(&r);
		big_output(&r);
		if (r.c.state == DT_TCP_FIN_WAIT_2)
			break;
	}
	DT_CHECK_EQ(r.sent, total);
	DT_CHECK_EQ(r.acked, total);
	DT_CHECK_EQ(r.sends_done, BIG_SENDS);
	DT_CHECK_EQ(r.bad_slices, 0);
	DT_CHECK_EQ(r.rtx, 0);
	DT_CHECK_EQ(r.closed, 0);
	DT_CHECK_EQ(r.fins, 1);
	DT_CHECK_EQ(r.c.txq_bytes, 0);
	DT_CHECK_EQ(r.c.txq_n, 0);
	DT_CHECK_EQ(r.c.state, DT_TCP_FIN_WAIT_2);
	/* 4.5 GiB + SYN + FIN later, in sequence space. */
	DT_CHECK_EQ(r.c.snd_una, (uint32_t)(iss + 2 + total));
	DT_CHECK(r.c.cwnd <= (1u << 30));
}

/* A connection without SACK, established with 10 x 1000 bytes queued. */
static void
small_setup(struct dt_tcp_conn *c, struct dt_tcp_cfg *cfg,
	const struct dt_tcp_cc_ops *cc)
{
	struct dt_tcp_bufs b = { txq, 8, ooo, 4 };
	struct dt_tcp_tuple tu = { 1, 2, 3, 4 };
	struct dt_tcp_extent e = { &refs[0], 0, 10000 };
	struct dt_tcp_seg s;

	dt_tcp_cfg_default(cfg);
	cfg->ts_ok = false;
	cfg->sack_ok = false;
	cfg->wscale_ok = false;
	cfg->mss = 1000;
	cfg->nagle = false;
	cfg->cc = cc;
	dt_tcp_conn_init(c, cfg, &b);
	dt_tcp_connect(c, &tu, 100, 0, &out);
	big_seg_in(&s, 101, 5000, DT_NET_TCP_SYN | DT_NET_TCP_ACK);
	s.th.opts.present = DT_NET_TCPOPT_F_MSS;
	s.th.opts.mss = 1000;
	dt_tcp_input(c, &s, 10000, &out);
	dt_tcp_send(c, &e, 20000, &out);
}

/*
 * CUBIC in congestion avoidance: an old ACK (below snd_una, within a
 * window) changes nothing; it used to count as ~2^32 bytes acked and the
 * Reno-friendly estimate took cwnd to hundreds of megabytes.
 */
static void
test_old_ack_cubic(void)
{
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c;
	struct dt_tcp_seg s;
	uint32_t cwnd;

	small_setup(&c, &cfg, &dt_tcp_cc_cubic);
	DT_REQUIRE(c.state == DT_TCP_ESTABLISHED);
	DT_CHECK_EQ(c.snd_max, 101 + 4000);
	c.ssthresh = c.cwnd;	/* congestion avoidance from here */
	big_seg_in(&s, 2101, 5001, DT_NET_TCP_ACK);
	dt_tcp_input(&c, &s, 30000, &out);
	cwnd = c.cwnd;
	DT_CHECK(cwnd >= 4000 && cwnd <= 6000);
	big_seg_in(&s, 1101, 5001, DT_NET_TCP_ACK);
	dt_tcp_input(&c, &s, 31000, &out);
	DT_CHECK_EQ(c.cwnd, cwnd);
	DT_CHECK_EQ(c.snd_una, 2101);
	DT_CHECK_EQ(out.n_segs, 0);
}

/*
 * NewReno recovery: each further duplicate ACK inflates cwnd by an SMSS
 * (RFC 5681 3.2 step 4), but no more of them can be genuine than segments
 * in flight: 1000 duplicates of a 4-segment flight leave cwnd at most
 * ssthresh + flight + 3 SMSS.
 */
static void
test_dupack_flood_newreno(void)
{
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c;
	struct dt_tcp_seg s;
	unsigned int i;

	small_setup(&c, &cfg, &dt_tcp_cc_newreno);
	DT_REQUIRE(c.state == DT_TCP_ESTABLISHED);
	DT_REQUIRE(c.snd_max == 101 + 4000);
	for (i = 0; i < 1003; i++) {
		big_seg_in(&s, 101, 5001, DT_NET_TCP_ACK);
		dt_tcp_input(&c, &s, 30000 + i, &out);
	}
	DT_CHECK(c.ssthresh == 2000);
	DT_CHECK(c.cwnd <= c.ssthresh + (c.snd_max - c.snd_una) + 3000);
	DT_CHECK(c.snd_max - c.snd_una <= 10000);
}

int
main(void)
{
	DT_RUN(test_txq_beyond_2g);
	DT_RUN(test_old_ack_cubic);
	DT_RUN(test_dupack_flood_newreno);
	return dt_test_summary();
}
