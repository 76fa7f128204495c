/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The listener under a SYN flood: SYN cookies (MSS, window scale, SACK,
 * timestamps carried and restored; forged, altered and old ACKs refused),
 * eviction with cookies off, bounded entry lifetime, the SYN-ACK
 * retransmission budget of one timer call, RFC 5961 RSTs in SYN_RECEIVED
 * and the O(1) SYN queue with thousands of pending entries.
 */
#include <errno.h>
#include <string.h>

#include "dt_test.h"
#include "dt_tcp.h"
#include "dt_tcp_cookie.h"
#include "dt_tcp_isn.h"
#include "dt_tcp_listen.h"
#include "dt_tcp_priv.h"

#define BIG_Q 4096

static struct dt_tcp_syn_entry synq[BIG_Q];
static struct dt_tcp_out out;
static struct dt_tcp_extent txq[16];
static struct dt_tcp_ooo ooo[16];

struct fx {
	struct dt_tcp_cfg cfg;
	struct dt_tcp_isn_key key;
	struct dt_tcp_listener l;
	struct dt_tcp_conn child;
};

static void
fx_init(struct fx *f, uint16_t cap)
{
	unsigned int i;

	dt_tcp_cfg_default(&f->cfg);
	f->cfg.mss = 8960;
	for (i = 0; i < sizeof(f->key.k); i++)
		f->key.k[i] = (uint8_t)(i * 29 + 7);
	DT_CHECK_EQ(dt_tcp_listen(&f->l, &f->cfg, &f->key, synq, cap, 64), 0);
}

static void
spare_init(struct fx *f)
{
	struct dt_tcp_bufs b = { txq, 16, ooo, 16 };

	DT_CHECK_EQ(dt_tcp_conn_init(&f->child, &f->cfg, &b), 0);
}

static struct dt_tcp_tuple
tup(uint32_t n)
{
	struct dt_tcp_tuple t = {
		.laddr = 0x0a000001, .raddr = 0x0b000000 + (n >> 12),
		.lport = 80, .rport = (uint16_t)(1024 + (n & 0xfff)),
	};

	return t;
}

/* A SYN with Linux's options: MSS, SACK-permitted, TS, window scale 7. */
static enum dt_tcp_lst_verdict
syn(struct fx *f, uint32_t n, uint32_t isn, uint16_t mss, bool opts,
	uint64_t now)
{
	struct dt_tcp_tuple t = tup(n);
	struct dt_tcp_seg s;

	memset(&s, 0, sizeof(s));
	s.th.flags = DT_NET_TCP_SYN;
	s.th.seq = isn;
	s.th.win = 64240;
	s.th.opts.present = DT_NET_TCPOPT_F_MSS;
	s.th.opts.mss = mss;
	if (opts) {
		s.th.opts.present |= DT_NET_TCPOPT_F_SACK_PERM |
			DT_NET_TCPOPT_F_TS | DT_NET_TCPOPT_F_WSCALE;
		s.th.opts.ts_val = 777000;
		s.th.opts.wscale = 7;
	}
	return dt_tcp_listen_input(&f->l, &t, &s, NULL, now, &out);
}

/* The handshake's final ACK answering SYN-ACK @p sa. */
static enum dt_tcp_lst_verdict
ack(struct fx *f, uint32_t n, const struct dt_tcp_tx_seg *sa, uint64_t now,
	bool spare)
{
	struct dt_tcp_tuple t = tup(n);
	struct dt_tcp_seg s;

	memset(&s, 0, sizeof(s));
	s.th.flags = DT_NET_TCP_ACK;
	s.th.seq = sa->th.ack;
	s.th.ack = sa->th.seq + 1;
	s.th.win = 502;
	if (sa->th.opts.present & DT_NET_TCPOPT_F_TS) {
		s.th.opts.present = DT_NET_TCPOPT_F_TS;
		s.th.opts.ts_val = 777010;
		s.th.opts.ts_ecr = sa->th.opts.ts_val;
	}
	if (spare)
		spare_init(f);
	return dt_tcp_listen_input(&f->l, &t, &s, spare ? &f->child : NULL,
		now, &out);
}

/* Fill a queue of 4, then SYNs get cookies that restore every option. */
static void
test_cookie_full_options(void)
{
	static struct fx f;
	struct dt_tcp_tx_seg sa;
	uint32_t i;

	fx_init(&f, 4);
	for (i = 0; i < 4; i++)
		DT_CHECK_EQ(syn(&f, i, 1000 + i, 1460, true, 1000),
			DT_TCP_LST_SYN_QUEUED);
	DT_CHECK_EQ(f.l.st.cookies_sent, 0);
	DT_CHECK_EQ(syn(&f, 100, 5000, 1400, true, 2000),
		DT_TCP_LST_SYN_COOKIE);
	DT_REQUIRE(out.n_segs == 1);
	sa = out.segs[0];
	/* Stateless: the queue did not grow, no timer for it. */
	DT_CHECK_EQ(f.l.synq_n, 4);
	DT_CHECK_EQ(f.l.st.synq_overflows, 1);
	DT_CHECK_EQ(f.l.st.cookies_sent, 1);
	DT_CHECK_EQ(sa.th.flags, DT_NET_TCP_SYN | DT_NET_TCP_ACK);
	DT_CHECK_EQ(sa.th.ack, 5001);
	DT_CHECK_EQ(sa.tuple.rport, tup(100).rport);
	DT_CHECK(sa.th.opts.present & DT_NET_TCPOPT_F_WSCALE);
	DT_CHECK(sa.th.opts.present & DT_NET_TCPOPT_F_SACK_PERM);
	DT_CHECK(sa.th.opts.present & DT_NET_TCPOPT_F_TS);
	DT_CHECK_EQ(sa.th.opts.ts_ecr, 777000);
	/* TSval: our clock (2 ms + offset ISS) or just below it. */
	DT_CHECK((uint32_t)(2 + sa.th.seq - sa.th.opts.ts_val) <
		DT_TCP_COOKIE_TS_MASK + 1);
	DT_CHECK_EQ(ack(&f, 100, &sa, 50000, true), DT_TCP_LST_ESTABLISHED);
	DT_CHECK_EQ(f.l.st.cookies_ok, 1);
	DT_CHECK_EQ(f.child.state, DT_TCP_ESTABLISHED);
	DT_CHECK_EQ(f.child.iss, sa.th.seq);
	DT_CHECK_EQ(f.child.irs, 5000);
	DT_CHECK_EQ(f.child.rcv_nxt, 5001);
	DT_CHECK_EQ(f.child.snd_una, sa.th.seq + 1);
	/* MSS 1400 rounds down to 1360 in the table; TS takes 12. */
	DT_CHECK_EQ(f.child.smss, 1360 - 12);
	DT_CHECK(tcp_flag(&f.child, DT_TCP_F_WS));
	DT_CHECK_EQ(f.child.snd_ws, 7);
	DT_CHECK_EQ(f.child.rcv_ws, f.cfg.wscale);
	DT_CHECK_EQ(f.child.snd_wnd, 502u << 7);
	DT_CHECK(tcp_flag(&f.child, DT_TCP_F_SACK));
	DT_CHECK(tcp_flag(&f.child, DT_TCP_F_TS));
	DT_CHECK_EQ(f.child.ts_recent, 777010);
	/* Later TSvals of the child do not go below the SYN-ACK's. */
	DT_CHECK(dt_tcp_seq_ge(dt_tcp_ts_now(&f.child, 50000), sa.th.opts.ts_val));
	DT_CHECK_EQ(f.l.synq_n, 4);
	DT_CHECK_EQ(f.l.pending, 1);
}

/* Other MSS and options: every table step, no window scaling, no SACK. */
static void
test_cookie_mss_table(void)
{
	static const uint16_t in[] = { 1460, 1459, 536, 535, 100, 9000, 4100,
		1220 };
	static const uint16_t want[] = { 1460, 1440, 536, 48, 48, 8960, 4036,
		1220 };
	static struct fx f;
	struct dt_tcp_tx_seg sa;
	unsigned int i;

	fx_init(&f, 1);
	f.cfg.ts_ok = false;
	DT_CHECK_EQ(syn(&f, 0, 1, 1460, true, 0), DT_TCP_LST_SYN_QUEUED);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		DT_CHECK_EQ(syn(&f, 10 + i, 42, in[i], true, 0),
			DT_TCP_LST_SYN_COOKIE);
		DT_REQUIRE(out.n_segs == 1);
		sa = out.segs[0];
		/* Without timestamps a cookie cannot keep WS or SACK. */
		DT_CHECK_EQ(sa.th.opts.present, DT_NET_TCPOPT_F_MSS);
		DT_CHECK_EQ(ack(&f, 10 + i, &sa, 1000, true),
			DT_TCP_LST_ESTABLISHED);
		DT_CHECK_EQ(f.child.smss, want[i]);
		DT_CHECK(!tcp_flag(&f.child, DT_TCP_F_WS));
		DT_CHECK(!tcp_flag(&f.child, DT_TCP_F_SACK));
		DT_CHECK(!tcp_flag(&f.child, DT_TCP_F_TS));
		DT_CHECK_EQ(f.child.snd_wnd, 502);
		dt_tcp_listen_accepted(&f.l);
	}
	DT_CHECK_EQ(f.l.st.cookies_ok, i);
	DT_CHECK_EQ(f.l.st.cookies_bad, 0);
}

/* Forged, altered, misdirected and old ACKs are refused with a RST. */
static void
test_cookie_refused(void)
{
	static struct fx f;
	struct dt_tcp_tx_seg sa, bad;
	uint64_t t0 = 10 * DT_TCP_COOKIE_SLOT_US + 5000000;

	fx_init(&f, 1);
	/* No flood yet: a stray ACK is not even tried as a cookie. */
	memset(&bad, 0, sizeof(bad));
	bad.th.seq = 0x1234;
	bad.th.ack = 99;
	DT_CHECK_EQ(ack(&f, 7, &bad, t0, true), DT_TCP_LST_RST_SENT);
	DT_CHECK_EQ(f.l.st.cookies_bad, 0);
	DT_CHECK_EQ(syn(&f, 0, 1, 1460, true, t0), DT_TCP_LST_SYN_QUEUED);
	DT_CHECK_EQ(syn(&f, 7, 3000, 1460, true, t0), DT_TCP_LST_SYN_COOKIE);
	DT_REQUIRE(out.n_segs == 1);
	sa = out.segs[0];
	/* A blind guess of the cookie. */
	bad = sa;
	bad.th.seq ^= 0x00010000;
	DT_CHECK_EQ(ack(&f, 7, &bad, t0 + 1000, true), DT_TCP_LST_RST_SENT);
	DT_REQUIRE(out.n_segs == 1);
	DT_CHECK(out.segs[0].th.flags & DT_NET_TCP_RST);
	/* Another peer ISN (the ACK's seq). */
	bad = sa;
	bad.th.ack++;
	DT_CHECK_EQ(ack(&f, 7, &bad, t0 + 1000, true), DT_TCP_LST_RST_SENT);
	/* Another tuple replaying the same numbers. */
	DT_CHECK_EQ(ack(&f, 8, &sa, t0 + 1000, true), DT_TCP_LST_RST_SENT);
	/* Option bits altered in TSecr (window shift 7 -> 14). */
	bad = sa;
	bad.th.opts.ts_val = (bad.th.opts.ts_val & ~DT_TCP_COOKIE_TS_MASK) |
		14 | 0x10;
	DT_CHECK_EQ(ack(&f, 7, &bad, t0 + 1000, true), DT_TCP_LST_RST_SENT);
	/* Timestamps offered in the SYN, dropped in the ACK. */
	bad = sa;
	bad.th.opts.present &= (uint8_t)~DT_NET_TCPOPT_F_TS;
	DT_CHECK_EQ(ack(&f, 7, &bad, t0 + 1000, true), DT_TCP_LST_RST_SENT);
	DT_CHECK_EQ(f.l.st.cookies_bad, 5);
	DT_CHECK_EQ(f.l.st.cookies_ok, 0);
	/* Too old: two slots later. A new cookie keeps validation on. */
	DT_CHECK_EQ(syn(&f, 9, 3000, 1460, true, t0 + 2 * DT_TCP_COOKIE_SLOT_US),
		DT_TCP_LST_SYN_COOKIE);
	DT_CHECK_EQ(ack(&f, 7, &sa, t0 + 2 * DT_TCP_COOKIE_SLOT_US, true),
		DT_TCP_LST_RST_SENT);
	DT_CHECK_EQ(f.l.st.cookies_bad, 6);
	/* Still young enough in the next slot: accepted. */
	DT_CHECK_EQ(ack(&f, 7, &sa, t0 + DT_TCP_COOKIE_SLOT_US, true),
		DT_TCP_LST_ESTABLISHED);
	DT_CHECK_EQ(f.l.st.cookies_ok, 1);
	/* Cookies off: nothing is validated, a full queue evicts. */
	dt_tcp_listen_set_cookies(&f.l, false, NULL);
	DT_CHECK_EQ(ack(&f, 7, &sa, t0 + DT_TCP_COOKIE_SLOT_US, true),
		DT_TCP_LST_RST_SENT);
	DT_CHECK_EQ(f.l.st.cookies_ok, 1);
}

/*
 * Under flood a cookie's final ACK and first data may be lost: later data
 * cannot validate (its seq is not ISN + 1) and is dropped unanswered, not
 * reset, so that the retransmission from ISN + 1 establishes.
 */
static void
test_cookie_lost_ack(void)
{
	static struct fx f;
	struct dt_tcp_tx_seg sa;
	struct dt_tcp_tuple t = tup(5);
	struct dt_tcp_extent x = { &f, 0, 1000 };
	struct dt_tcp_seg s;

	fx_init(&f, 1);
	DT_CHECK_EQ(syn(&f, 0, 1, 1460, true, 0), DT_TCP_LST_SYN_QUEUED);
	DT_CHECK_EQ(syn(&f, 5, 70000, 1460, true, 0), DT_TCP_LST_SYN_COOKIE);
	DT_REQUIRE(out.n_segs == 1);
	sa = out.segs[0];
	memset(&s, 0, sizeof(s));
	s.th.flags = DT_NET_TCP_ACK | DT_NET_TCP_PSH;
	s.th.ack = sa.th.seq + 1;
	s.th.win = 502;
	s.th.opts.present = DT_NET_TCPOPT_F_TS;
	s.th.opts.ts_val = 777020;
	s.th.opts.ts_ecr = sa.th.opts.ts_val;
	s.ext = &x;
	s.n_ext = 1;
	/* The second 1000 bytes, the first ones lost. */
	s.th.seq = 70001 + 1000;
	spare_init(&f);
	DT_CHECK_EQ(dt_tcp_listen_input(&f.l, &t, &s, &f.child, 1000, &out),
		DT_TCP_LST_IGNORED);
	DT_CHECK_EQ(out.n_segs, 0);
	DT_REQUIRE(out.n_events == 1);
	DT_CHECK_EQ(out.events[0].type, DT_TCP_EV_FREE);
	DT_CHECK_EQ(f.l.st.cookies_bad, 1);
	/* A FIN beyond: the same. */
	s.n_ext = 0;
	s.th.flags = DT_NET_TCP_ACK | DT_NET_TCP_FIN;
	DT_CHECK_EQ(dt_tcp_listen_input(&f.l, &t, &s, &f.child, 1000, &out),
		DT_TCP_LST_IGNORED);
	DT_CHECK_EQ(out.n_segs, 0);
	/* The retransmission of the first bytes validates and is delivered. */
	s.th.flags = DT_NET_TCP_ACK | DT_NET_TCP_PSH;
	s.th.seq = 70001;
	s.n_ext = 1;
	DT_CHECK_EQ(dt_tcp_listen_input(&f.l, &t, &s, &f.child, 2000, &out),
		DT_TCP_LST_ESTABLISHED);
	DT_CHECK_EQ(f.child.rcv_nxt, 70001 + 1000);
	DT_CHECK_EQ(f.l.st.cookies_ok, 1);
}

/* A separate cookie secret: cookies of one key fail under another. */
static void
test_cookie_key(void)
{
	static struct fx f;
	struct dt_tcp_isn_key k2;
	struct dt_tcp_cookie_opts o = { .mss = 1460,
		.present = DT_NET_TCPOPT_F_MSS };
	struct dt_tcp_tuple t = tup(3);
	uint32_t c;

	fx_init(&f, 1);
	memset(&k2, 0x77, sizeof(k2));
	c = dt_tcp_cookie_make(&f.key, &t, 10, 0, &o);
	DT_CHECK(dt_tcp_cookie_check(&f.key, &t, 10, c, false, 0, 0, &o));
	DT_CHECK(!dt_tcp_cookie_check(&k2, &t, 10, c, false, 0, 0, &o));
	DT_CHECK(!dt_tcp_cookie_check(&f.key, &t, 11, c, false, 0, 0, &o));
	/* Not the ISN of the same tuple (domain-separated hash inputs). */
	DT_CHECK(c != dt_tcp_isn(&f.key, &t, 0));
	dt_tcp_listen_set_cookies(&f.l, true, &k2);
	DT_CHECK_EQ(syn(&f, 0, 1, 1460, false, 0), DT_TCP_LST_SYN_QUEUED);
	DT_CHECK_EQ(syn(&f, 3, 10, 1460, false, 0), DT_TCP_LST_SYN_COOKIE);
	DT_REQUIRE(out.n_segs == 1);
	DT_CHECK(out.segs[0].th.seq != c);
	DT_CHECK(dt_tcp_cookie_check(&k2, &t, 10, out.segs[0].th.seq, false, 0,
		0, &o));
}

/* Cookies off: the oldest entry makes room for a new SYN. */
static void
test_evict_oldest(void)
{
	static struct fx f;
	struct dt_tcp_tx_seg sa[5];
	uint32_t i;

	fx_init(&f, 4);
	dt_tcp_listen_set_cookies(&f.l, false, NULL);
	for (i = 0; i < 4; i++) {
		DT_CHECK_EQ(syn(&f, i, 100 * i, 1460, false, i * 1000),
			DT_TCP_LST_SYN_QUEUED);
		sa[i] = out.segs[0];
	}
	DT_CHECK_EQ(syn(&f, 4, 400, 1460, false, 5000), DT_TCP_LST_SYNQ_FULL);
	DT_REQUIRE(out.n_segs == 1);
	sa[4] = out.segs[0];
	DT_CHECK_EQ(f.l.synq_n, 4);
	DT_CHECK_EQ(f.l.st.synq_evicted, 1);
	DT_CHECK_EQ(f.l.st.synq_overflows, 1);
	/* The first one is gone, the others and the new one complete. */
	DT_CHECK_EQ(ack(&f, 0, &sa[0], 6000, true), DT_TCP_LST_RST_SENT);
	for (i = 1; i < 5; i++)
		DT_CHECK_EQ(ack(&f, i, &sa[i], 6000, true),
			DT_TCP_LST_ESTABLISHED);
	DT_CHECK_EQ(f.l.synq_n, 0);
	DT_CHECK_EQ(f.l.deadline, 0);
}

/*
 * An entry's life: DT_TCP_SYNACK_RETRIES retransmissions (1, 3, 7, 15 s)
 * and it is freed at 31 s (was 6 retransmissions and 123 s).
 */
static void
test_lifetime(void)
{
	static const uint64_t at[] = { 1, 3, 7, 15 };
	static struct fx f;
	unsigned int i;

	fx_init(&f, 4);
	DT_CHECK_EQ(syn(&f, 0, 1, 1460, false, 0), DT_TCP_LST_SYN_QUEUED);
	DT_CHECK_EQ(f.l.st.synacks_sent, 1);
	for (i = 0; i < 4; i++) {
		DT_CHECK_EQ(f.l.deadline, at[i] * 1000000);
		dt_tcp_listen_timeout(&f.l, f.l.deadline, &out);
		DT_CHECK_EQ(out.n_segs, 1);
	}
	DT_CHECK_EQ(f.l.deadline, 31000000);
	dt_tcp_listen_timeout(&f.l, f.l.deadline, &out);
	DT_CHECK_EQ(out.n_segs, 0);
	DT_CHECK_EQ(f.l.synq_n, 0);
	DT_CHECK_EQ(f.l.deadline, 0);
	DT_CHECK_EQ(f.l.st.synacks_sent, 5);
	DT_CHECK_EQ(f.l.st.synacks_rtx, 4);
	DT_CHECK_EQ(f.l.st.synq_expired, 1);
	DT_CHECK_EQ(dt_tcp_listen_set_synack_retries(&f.l, DT_TCP_SYNQ_LEVELS),
		-EINVAL);
	DT_CHECK_EQ(dt_tcp_listen_set_synack_retries(&f.l, 1), 0);
	DT_CHECK_EQ(syn(&f, 0, 1, 1460, false, 40000000), DT_TCP_LST_SYN_QUEUED);
	dt_tcp_listen_timeout(&f.l, f.l.deadline, &out);
	DT_CHECK_EQ(out.n_segs, 1);
	DT_CHECK_EQ(f.l.deadline, 43000000);
}

/*
 * 64 entries due at once: a timer call sends at most DT_TCP_OUT_SEGS and
 * the rest stay due, untouched, for the next call. Over every round each
 * entry gets exactly one SYN-ACK per retry (was: 16 sent, 64 advanced).
 */
static void
test_rtx_budget(void)
{
	static struct fx f;
	uint8_t seen[64];
	uint64_t round_sent, now;
	unsigned int i, r, calls;

	fx_init(&f, 64);
	for (i = 0; i < 64; i++)
		DT_CHECK_EQ(syn(&f, i, i, 1460, false, 0), DT_TCP_LST_SYN_QUEUED);
	for (r = 0; r < DT_TCP_SYNACK_RETRIES; r++) {
		now = f.l.deadline;
		memset(seen, 0, sizeof(seen));
		round_sent = 0;
		for (calls = 0; f.l.deadline && f.l.deadline <= now &&
				calls < 16; calls++) {
			dt_tcp_listen_timeout(&f.l, now, &out);
			DT_CHECK(out.n_segs <= DT_TCP_OUT_SEGS);
			DT_CHECK_EQ(out.more, f.l.deadline <= now);
			for (i = 0; i < out.n_segs; i++)
				seen[out.segs[i].tuple.rport - 1024]++;
			round_sent += out.n_segs;
		}
		DT_CHECK_EQ(round_sent, 64);
		DT_CHECK_EQ(calls, 64 / DT_TCP_OUT_SEGS);
		for (i = 0; i < 64; i++) {
			DT_CHECK_EQ(seen[i], 1);
			DT_CHECK_EQ(synq[i].retries, r + 1);
		}
	}
	DT_CHECK_EQ(f.l.st.synacks_rtx, 64 * DT_TCP_SYNACK_RETRIES);
	DT_CHECK_EQ(f.l.st.synacks_sent, 64 * (DT_TCP_SYNACK_RETRIES + 1));
	dt_tcp_listen_timeout(&f.l, f.l.deadline, &out);
	DT_CHECK_EQ(f.l.synq_n, 0);
	DT_CHECK_EQ(f.l.st.synq_expired, 64);
}

/* RST counters and the listener-wide challenge ACK limit. */
static void
test_rst_counters(void)
{
	static struct fx f;
	struct dt_tcp_tuple t = tup(1);
	struct dt_tcp_seg s;
	unsigned int i;

	fx_init(&f, 4);
	f.cfg.challenge_ack_limit = 2;
	DT_CHECK_EQ(syn(&f, 1, 1000, 1460, true, 0), DT_TCP_LST_SYN_QUEUED);
	memset(&s, 0, sizeof(s));
	s.th.flags = DT_NET_TCP_RST;
	s.th.seq = 1500;
	for (i = 0; i < 3; i++) {
		DT_CHECK_EQ(dt_tcp_listen_input(&f.l, &t, &s, NULL, 1000, &out),
			DT_TCP_LST_CHALLENGE_ACK);
		DT_CHECK_EQ(out.n_segs, i < 2 ? 1 : 0);
	}
	DT_CHECK_EQ(f.l.st.challenge_acks, 2);
	s.th.seq = 1001;
	DT_CHECK_EQ(dt_tcp_listen_input(&f.l, &t, &s, NULL, 2000, &out),
		DT_TCP_LST_RST_FREED);
	DT_CHECK_EQ(out.n_segs, 0);
	DT_CHECK_EQ(f.l.st.synq_rst, 1);
	DT_CHECK_EQ(f.l.synq_n, 0);
	/* RST for nothing pending. */
	DT_CHECK_EQ(dt_tcp_listen_input(&f.l, &t, &s, NULL, 2000, &out),
		DT_TCP_LST_IGNORED);
}

/*
 * 4096 pending entries: every lookup walks a short hash chain (keyed
 * hash, so a flooder cannot aim at a bucket), duplicates are found, RSTs
 * and ACKs free arbitrary entries, and a timer call only touches due
 * entries.
 */
static void
test_many_pending(void)
{
	static struct fx f;
	unsigned int i, len, longest = 0;
	uint16_t j;
	struct dt_tcp_tuple t;
	struct dt_tcp_seg s;

	fx_init(&f, BIG_Q);
	for (i = 0; i < BIG_Q; i++)
		DT_CHECK_EQ(syn(&f, i, i * 7, 1460, false, i),
			DT_TCP_LST_SYN_QUEUED);
	DT_CHECK_EQ(f.l.synq_n, BIG_Q);
	for (i = 0; i < BIG_Q; i++) {
		len = 0;
		for (j = synq[i].bucket; j != 0xffff; j = synq[j].hnext)
			len++;
		if (len > longest)
			longest = len;
	}
	/* Balls in bins: about ln n / ln ln n; 12 leaves ample margin. */
	DT_CHECK(longest <= 12);
	for (i = 0; i < BIG_Q; i += 97)
		DT_CHECK_EQ(syn(&f, i, i * 7, 1460, false, 10000),
			DT_TCP_LST_SYN_RETRANS);
	/* Full: one more SYN is a cookie. */
	DT_CHECK_EQ(syn(&f, BIG_Q, 1, 1460, false, 10000),
		DT_TCP_LST_SYN_COOKIE);
	/* Free every third by an exact RST. */
	memset(&s, 0, sizeof(s));
	s.th.flags = DT_NET_TCP_RST;
	for (i = 0; i < BIG_Q; i += 3) {
		t = tup(i);
		s.th.seq = i * 7 + 1;
		DT_CHECK_EQ(dt_tcp_listen_input(&f.l, &t, &s, NULL, 20000, &out),
			DT_TCP_LST_RST_FREED);
	}
	DT_CHECK_EQ(f.l.synq_n, BIG_Q - (BIG_Q + 2) / 3);
	/* First retransmission of half of them (created at 0..2047 us). */
	dt_tcp_listen_timeout(&f.l, 1000000 + 2047, &out);
	DT_CHECK_EQ(out.n_segs, DT_TCP_OUT_SEGS);
	DT_CHECK(out.more);
	/* Sent: the first 16 survivors (1, 2, 4, 5 .. 23); next due: 25. */
	DT_CHECK_EQ(f.l.deadline, 1000000 + 25);
	DT_CHECK_EQ(synq[23].retries, 1);
	DT_CHECK_EQ(synq[25].retries, 0);
	/* The others, the survivors: found through the hash, completed. */
	for (i = 1; i < BIG_Q; i++) {
		struct dt_tcp_tx_seg sa;

		if (i % 3 == 0)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.th.ack = i * 7 + 1;
		t = tup(i);
		/* Our ISS, from the entry (the test's SYN-ACKs are gone). */
		for (j = 0; j < BIG_Q; j++)
			if (synq[j].in_use && synq[j].tuple.rport == t.rport &&
					synq[j].tuple.raddr == t.raddr)
				break;
		DT_REQUIRE(j < BIG_Q);
		sa.th.seq = synq[j].iss;
		DT_CHECK_EQ(ack(&f, i, &sa, 30000, true),
			DT_TCP_LST_ESTABLISHED);
		dt_tcp_listen_accepted(&f.l);
	}
	DT_CHECK_EQ(f.l.synq_n, 0);
	DT_CHECK_EQ(f.l.deadline, 0);
}

int
main(void)
{
	DT_RUN(test_cookie_full_options);
	DT_RUN(test_cookie_mss_table);
	DT_RUN(test_cookie_refused);
	DT_RUN(test_cookie_lost_ack);
	DT_RUN(test_cookie_key);
	DT_RUN(test_evict_oldest);
	DT_RUN(test_lifetime);
	DT_RUN(test_rtx_budget);
	DT_RUN(test_rst_counters);
	DT_RUN(test_many_pending);
	return dt_test_summary();
}
