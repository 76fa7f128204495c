/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct unit tests of the TCP engine: sequence arithmetic, SipHash and
 * RFC 6528 ISNs, API errors, the "more" continuation of a full output,
 * a randomized reassembly property test (every payload reference gets
 * exactly one outcome, the stream is delivered whole and in order) and
 * the CUBIC window curve (RFC 9438).
 */
#include <errno.h>
#include <string.h>

#include "dt_test.h"
#include "dt_tcp.h"
#include "dt_tcp_isn.h"

static void
test_seq_arith(void)
{
	DT_CHECK(dt_tcp_seq_lt(0xfffffff0u, 0x10));
	DT_CHECK(dt_tcp_seq_gt(0x10, 0xfffffff0u));
	DT_CHECK(dt_tcp_seq_le(5, 5));
	DT_CHECK(dt_tcp_seq_ge(5, 5));
	DT_CHECK(!dt_tcp_seq_lt(5, 5));
	DT_CHECK(dt_tcp_seq_lt(0x7ffffffeu, 0x7fffffffu));
	DT_CHECK(dt_tcp_seq_lt(0xffffffffu, 0));
	DT_CHECK_EQ(dt_tcp_seq_max(0xfffffff0u, 3), 3);
	DT_CHECK_EQ(dt_tcp_seq_min(0xfffffff0u, 3), 0xfffffff0u);
	DT_CHECK(dt_tcp_seq_in(0, 0xfffffff0u, 0x10));
	DT_CHECK(!dt_tcp_seq_in(0x10, 0xfffffff0u, 0x10));
	DT_CHECK(!dt_tcp_seq_in(7, 7, 7));
}

static void
test_siphash_vectors(void)
{
	/* Reference vectors of SipHash-2-4 (key 00..0f, message 00..len-1). */
	struct dt_tcp_isn_key k;
	uint8_t m[16];
	unsigned int i;

	for (i = 0; i < 16; i++) {
		k.k[i] = (uint8_t)i;
		m[i] = (uint8_t)i;
	}
	DT_CHECK(dt_tcp_siphash(&k, m, 0) == 0x726fdb47dd0e0e31ull);
	DT_CHECK(dt_tcp_siphash(&k, m, 15) == 0xa129ca6149be45e5ull);
}

static void
test_isn(void)
{
	struct dt_tcp_isn_key k, k2;
	struct dt_tcp_tuple t = { 0x0a000001, 0x0a000002, 80, 40000 }, u = t;
	uint32_t a;

	memset(&k, 0x11, sizeof(k));
	memset(&k2, 0x22, sizeof(k2));
	a = dt_tcp_isn(&k, &t, 1000000);
	DT_CHECK_EQ(dt_tcp_isn(&k, &t, 1000000), a);
	/* M ticks every 4 microseconds. */
	DT_CHECK_EQ(dt_tcp_isn(&k, &t, 1000004), a + 1);
	DT_CHECK_EQ(dt_tcp_isn(&k, &t, 1000003), a);
	u.rport = 40001;
	DT_CHECK(dt_tcp_isn(&k, &u, 1000000) != a);
	DT_CHECK(dt_tcp_isn(&k2, &t, 1000000) != a);
}

static struct dt_tcp_extent txq[256];
static struct dt_tcp_ooo ooo[DT_TCP_OOO_MAX];
static struct dt_tcp_out out;

static void
conn_setup(struct dt_tcp_conn *c, struct dt_tcp_cfg *cfg, uint16_t ooo_cap)
{
	struct dt_tcp_bufs b = { txq, 256, ooo, ooo_cap };

	dt_tcp_cfg_default(cfg);
	cfg->ts_ok = false;
	cfg->wscale_ok = false;
	cfg->mss = 1000;
	cfg->nagle = false;
	cfg->delack = false;
	dt_tcp_conn_init(c, cfg, &b);
}

/* Active open to ESTABLISHED with a peer whose ISN is @p irs. */
static void
establish(struct dt_tcp_conn *c, uint32_t irs, uint16_t peer_win)
{
	struct dt_tcp_tuple t = { 1, 2, 3, 4 };
	struct dt_tcp_seg s;

	memset(&s, 0, sizeof(s));
	dt_tcp_connect(c, &t, 1000, 0, &out);
	s.th.seq = irs;
	s.th.ack = 1001;
	s.th.flags = DT_NET_TCP_SYN | DT_NET_TCP_ACK;
	s.th.win = peer_win;
	s.th.opts.present = DT_NET_TCPOPT_F_MSS | DT_NET_TCPOPT_F_SACK_PERM;
	s.th.opts.mss = 1000;
	dt_tcp_input(c, &s, 1000, &out);
}

static void
test_api_errors(void)
{
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c;
	struct dt_tcp_bufs bad = { txq, 0, ooo, 4 };
	struct dt_tcp_extent e = { NULL, 0, 10 };
	struct dt_tcp_tuple t = { 1, 2, 3, 4 };
	struct dt_tcp_seg s;

	conn_setup(&c, &cfg, 4);
	DT_CHECK_EQ(dt_tcp_conn_init(&c, &cfg, &bad), -EINVAL);
	bad.txq_cap = 4;
	bad.ooo_cap = DT_TCP_OOO_MAX + 1;
	DT_CHECK_EQ(dt_tcp_conn_init(&c, &cfg, &bad), -EINVAL);
	conn_setup(&c, &cfg, 4);
	DT_CHECK_EQ(dt_tcp_send(&c, &e, 0, &out), -ENOTCONN);
	DT_CHECK_EQ(dt_tcp_close(&c, 0, &out), -ENOTCONN);
	DT_CHECK_EQ(dt_tcp_connect(&c, &t, 1, 0, &out), 0);
	DT_CHECK_EQ(out.n_segs, 1);
	DT_CHECK_EQ(dt_tcp_connect(&c, &t, 1, 0, &out), -EISCONN);
	e.len = 0;
	DT_CHECK_EQ(dt_tcp_send(&c, &e, 0, &out), -EINVAL);
	memset(&s, 0, sizeof(s));
	s.n_ext = DT_TCP_SEG_MAX_EXT + 1;
	DT_CHECK_EQ(dt_tcp_input(&c, &s, 0, &out), -EINVAL);
	/* close in SYN_SENT: straight to CLOSED. */
	DT_CHECK_EQ(dt_tcp_close(&c, 0, &out), 0);
	DT_CHECK_EQ(c.state, DT_TCP_CLOSED);
	DT_CHECK_EQ(out.n_events, 1);
	DT_CHECK_EQ(out.events[0].type, DT_TCP_EV_CLOSED);
	DT_CHECK(strcmp(dt_tcp_state_str(DT_TCP_TIME_WAIT), "TIME_WAIT") == 0);
}

static void
test_txq_full_and_more(void)
{
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c;
	struct dt_tcp_extent e = { txq, 0, 1000 };
	struct dt_tcp_seg s;
	unsigned int i, total = 0;
	uint32_t next;

	conn_setup(&c, &cfg, 4);
	establish(&c, 5000, 65535);
	DT_REQUIRE(c.state == DT_TCP_ESTABLISHED);
	/* Open cwnd wide so more than DT_TCP_OUT_SEGS segments may go. */
	c.cwnd = 1000000;
	for (i = 0; i < 40; i++)
		DT_REQUIRE(dt_tcp_send(&c, &e, 2000, &out) == 0 || i >= 16);
	/* The first sends filled an output: some calls reported "more". */
	memset(&s, 0, sizeof(s));
	s.th.seq = 5001;
	s.th.ack = 1001;
	s.th.flags = DT_NET_TCP_ACK;
	s.th.win = 65535;
	dt_tcp_input(&c, &s, 3000, &out);
	next = c.snd_nxt;
	do {
		dt_tcp_output(&c, 3000, &out);
		total += out.n_segs;
	} while (out.more);
	DT_CHECK_EQ(c.snd_nxt - next, total * 1000);
	DT_CHECK_EQ(c.snd_nxt, 1001 + 40 * 1000);
	/* The ring holds 256 extents: the 257th send is refused. */
	for (i = 40; i < 256; i++)
		DT_REQUIRE(dt_tcp_send(&c, &e, 4000, &out) == 0);
	DT_CHECK_EQ(dt_tcp_send(&c, &e, 4000, &out), -ENOBUFS);
}

/* ---- randomized reassembly ---- */

#define STREAM 20000
#define PIECES 2000

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 11) % n);
}

struct piece {
	uint32_t off, len;
	int outcome;
};

static struct piece pieces[PIECES * 8];

/*
 * Out-of-order storage lent on demand (dt_tcp_set_ooo_store): without it,
 * out-of-order payload is freed unSACKed; with it, held; it cannot be
 * taken back while it holds extents, and the hole filled empties it.
 */
static void
ooo_seg(struct dt_tcp_conn *c, struct dt_tcp_seg *s, struct dt_tcp_extent *e,
	uint32_t seq, uint32_t len)
{
	memset(s, 0, sizeof(*s));
	s->th.seq = seq;
	s->th.ack = 1001;
	s->th.flags = DT_NET_TCP_ACK;
	s->th.win = 65535;
	*e = (struct dt_tcp_extent){ c, 0, len };
	s->ext = e;
	s->n_ext = 1;
	dt_tcp_input(c, s, 3000, &out);
}

static unsigned int
count_events(uint8_t type)
{
	unsigned int i, n = 0;

	for (i = 0; i < out.n_events; i++)
		n += out.events[i].type == type;
	return n;
}

static void
test_ooo_store(void)
{
	struct dt_tcp_bufs b = { txq, 256, NULL, 0 };
	const uint32_t irs = 5000;
	struct dt_tcp_extent e;
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c;
	struct dt_tcp_seg s;

	conn_setup(&c, &cfg, 4);
	DT_CHECK_EQ(dt_tcp_conn_init(&c, &cfg, &b), 0);
	DT_CHECK(c.ooo == NULL && c.ooo_cap == 0);
	b.ooo_cap = 4;
	DT_CHECK_EQ(dt_tcp_conn_init(&c, &cfg, &b), -EINVAL);
	b.ooo_cap = 0;
	DT_REQUIRE(dt_tcp_conn_init(&c, &cfg, &b) == 0);
	establish(&c, irs, 65535);
	DT_REQUIRE(c.state == DT_TCP_ESTABLISHED);
	/* No storage: freed, nothing SACKed. */
	ooo_seg(&c, &s, &e, irs + 1 + 1000, 500);
	DT_CHECK_EQ(c.ooo_n, 0);
	DT_CHECK_EQ(count_events(DT_TCP_EV_FREE), 1);
	DT_CHECK_EQ(c.sack_n, 0);
	DT_CHECK_EQ(dt_tcp_set_ooo_store(&c, ooo, 0), -EINVAL);
	DT_CHECK_EQ(dt_tcp_set_ooo_store(&c, NULL, 4), -EINVAL);
	DT_CHECK_EQ(dt_tcp_set_ooo_store(&c, ooo, DT_TCP_OOO_MAX + 1), -EINVAL);
	DT_CHECK_EQ(dt_tcp_set_ooo_store(&c, ooo, 4), 0);
	ooo_seg(&c, &s, &e, irs + 1 + 1000, 500);
	DT_CHECK_EQ(c.ooo_n, 1);
	DT_CHECK_EQ(c.ooo_bytes, 500);
	DT_CHECK_EQ(count_events(DT_TCP_EV_FREE), 0);
	/* Held extents live in it: not taken back. */
	DT_CHECK_EQ(dt_tcp_set_ooo_store(&c, NULL, 0), -EBUSY);
	DT_CHECK(c.ooo == ooo && c.ooo_n == 1);
	/* The hole filled: both delivered in order, the store empty. */
	ooo_seg(&c, &s, &e, irs + 1, 1000);
	DT_CHECK_EQ(count_events(DT_TCP_EV_DATA), 2);
	DT_CHECK_EQ(c.rcv_nxt, irs + 1 + 1500);
	DT_CHECK_EQ(c.ooo_n, 0);
	DT_CHECK_EQ(dt_tcp_set_ooo_store(&c, NULL, 0), 0);
	DT_CHECK(c.ooo == NULL && c.ooo_cap == 0 && c.ooo_lim == 0);
}

static void
test_random_reassembly(void)
{
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c;
	struct dt_tcp_seg s;
	struct dt_tcp_extent ext[DT_TCP_SEG_MAX_EXT];
	const uint32_t irs = 0xffffd000u;	/* wraps during the stream */
	uint32_t delivered = 0, off, len, k, n_p = 0, j, round;
	struct piece *p;
	unsigned int i;
	bool ok = true;

	conn_setup(&c, &cfg, 16);
	cfg.rcv_space = 1 << 20;
	c.rcv_space = cfg.rcv_space;
	establish(&c, irs, 65535);
	DT_REQUIRE(c.state == DT_TCP_ESTABLISHED);
	for (round = 0; round < 2000 && delivered < STREAM; round++) {
		/* Random pieces around what is missing, some old, some dup. */
		memset(&s, 0, sizeof(s));
		/* A quarter of the time the piece covers the next byte. */
		if (rnd(4) == 0)
			off = delivered > 200 ? delivered - rnd(200) : 0;
		else
			off = delivered + rnd(6000);
		if (off >= STREAM)
			off = STREAM - 1;
		len = 1 + rnd(2500);
		if (off + len > STREAM)
			len = STREAM - off;
		k = 1 + rnd(4);
		s.th.seq = irs + 1 + off;
		s.th.ack = 1001;
		s.th.flags = DT_NET_TCP_ACK;
		s.th.win = 65535;
		s.ext = ext;
		for (j = 0; j < k && len > 0; j++) {
			uint32_t l = j + 1 == k ? len : 1 + rnd(len);

			if (l > len)
				l = len;
			DT_REQUIRE(n_p < sizeof(pieces) / sizeof(pieces[0]));
			p = &pieces[n_p++];
			p->off = off;
			p->len = l;
			ext[s.n_ext++] = (struct dt_tcp_extent){ p, 0, l };
			off += l;
			len -= l;
		}
		dt_tcp_input(&c, &s, 2000 + round, &out);
		for (i = 0; i < out.n_events; i++) {
			const struct dt_tcp_event *ev = &out.events[i];

			if (ev->type != DT_TCP_EV_DATA && ev->type != DT_TCP_EV_FREE)
				continue;
			p = ev->ext.ref;
			if (p->outcome)
				ok = false;
			p->outcome = ev->type;
			if (ev->type == DT_TCP_EV_DATA) {
				if (p->off + ev->ext.off != delivered ||
						ev->ext.off + ev->ext.len > p->len)
					ok = false;
				delivered += ev->ext.len;
			}
		}
		DT_CHECK_EQ(c.rcv_nxt, irs + 1 + delivered);
		/* Keep the window open, as the application returns buffers. */
		dt_tcp_set_rcv_space(&c, 1 << 20, 2000 + round, &out);
	}
	DT_CHECK(ok);
	DT_CHECK_EQ(delivered, STREAM);
	/* Anything still queued is beyond the stream end: none. */
	DT_CHECK_EQ(c.ooo_n, 0);
	for (j = 0; j < n_p; j++)
		if (!pieces[j].outcome)
			ok = false;
	DT_CHECK(ok);
}

/*
 * Window after an ACK of one SMSS every 5 ms from @p t0 to @p t1: a long
 * RTT for the window, so the cubic curve, not the Reno-friendly estimate,
 * sets the window.
 */
static uint32_t
cubic_run(struct dt_tcp_conn *c, uint64_t t0, uint64_t t1)
{
	uint64_t t;
	uint32_t prev = c->cwnd;
	bool mono = true;

	for (t = t0; t < t1; t += 5000) {
		c->cc->cong_avoid(c, c->smss, t);
		if (c->cwnd < prev)
			mono = false;
		prev = c->cwnd;
	}
	DT_CHECK(mono);
	return c->cwnd;
}

/*
 * RFC 9438: ssthresh = 0.7 cwnd, fast convergence, and the cubic curve
 * from 0.7 W_max: concave up to W_max at K = cbrt(0.3 W_max / C) (4.22 s
 * for W_max = 100 segments), a plateau around it, convex beyond it.
 */
static void
test_cubic(void)
{
	struct dt_tcp_extent txq[4];
	struct dt_tcp_ooo ooo[4];
	struct dt_tcp_bufs b = { txq, 4, ooo, 4 };
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c, c2;
	const uint64_t t0 = 1000000;
	uint32_t w;

	dt_tcp_cfg_default(&cfg);
	DT_CHECK(cfg.cc == &dt_tcp_cc_cubic);
	DT_CHECK_EQ(dt_tcp_conn_init(&c, &cfg, &b), 0);
	c.smss = 1000;
	c.cc->init(&c);
	DT_CHECK_EQ(c.cwnd, 4000);
	c.cwnd = 100000;
	c.ssthresh = c.cc->ssthresh(&c);
	DT_CHECK_EQ(c.ssthresh, 70019);
	c.cc->on_loss(&c, t0);
	c.cwnd = c.ssthresh;
	c2 = c;
	/* Concave: half way to K, between 0.7 W_max and W_max. */
	w = cubic_run(&c, t0, t0 + 2100000);
	DT_CHECK(w > 80000 && w < 99000);
	/* At K: W_max, within a segment or two. */
	w = cubic_run(&c, t0 + 2100000, t0 + 4220000);
	DT_CHECK(w > 98000 && w < 101500);
	/* Convex: W_max + 0.4 (7 - 4.22)^3 segments = 108.6 segments. */
	w = cubic_run(&c, t0 + 4220000, t0 + 7000000);
	DT_CHECK(w > 105000 && w < 110000);
	/* Deterministic: the same inputs give the same window. */
	cubic_run(&c2, t0, t0 + 7000000);
	DT_CHECK_EQ(c2.cwnd, c.cwnd);
	/* Fast convergence: a loss below the last W_max lowers W_max. */
	c.cwnd = 90000;
	c.ssthresh = c.cc->ssthresh(&c);
	DT_CHECK_EQ(c.ssthresh, 63017);
	c.cc->on_loss(&c, t0 + 8000000);
	c.cwnd = c.ssthresh;
	/* W_max = 0.85 * 90000: K = cbrt(13.5 / 0.4) = 3.23 s. */
	w = cubic_run(&c, t0 + 8000000, t0 + 11230000);
	DT_CHECK(w > 75000 && w < 78000);
}

int
main(void)
{
	DT_RUN(test_seq_arith);
	DT_RUN(test_siphash_vectors);
	DT_RUN(test_isn);
	DT_RUN(test_api_errors);
	DT_RUN(test_txq_full_and_more);
	DT_RUN(test_random_reassembly);
	DT_RUN(test_ooo_store);
	DT_RUN(test_cubic);
	return dt_test_summary();
}
