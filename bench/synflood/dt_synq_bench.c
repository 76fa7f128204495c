/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The listener's cost per segment against the SYN queue's size (the engine
 * alone, no I/O): a SYN that is queued, a duplicate SYN found among the
 * pending entries, a SYN answered with a cookie once the queue is full, the
 * cookie's final ACK validated into a connection, and a timer call that
 * retransmits a budget of SYN-ACKs. Flat figures across sizes mean O(1).
 * Prints one JSON object per size; wall-clock figures, rough on a shared VM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt_tcp.h"
#include "dt_tcp_listen.h"

#define COOKIE_SYNS 200000

static struct dt_tcp_out out;
static struct dt_tcp_extent txq[4];
static struct dt_tcp_ooo ooo[4];

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static struct dt_tcp_tuple
tup(uint32_t n)
{
	struct dt_tcp_tuple t = { 0x0a000001, 0x0b000000 + (n >> 16), 80,
		(uint16_t)n };

	return t;
}

static enum dt_tcp_lst_verdict
syn(struct dt_tcp_listener *l, uint32_t n, uint64_t now)
{
	struct dt_tcp_tuple t = tup(n);
	struct dt_tcp_seg s;

	memset(&s, 0, sizeof(s));
	s.th.flags = DT_NET_TCP_SYN;
	s.th.seq = n * 2654435761u;
	s.th.win = 64240;
	s.th.opts.present = DT_NET_TCPOPT_F_MSS | DT_NET_TCPOPT_F_SACK_PERM |
		DT_NET_TCPOPT_F_TS | DT_NET_TCPOPT_F_WSCALE;
	s.th.opts.mss = 1460;
	s.th.opts.wscale = 7;
	s.th.opts.ts_val = n;
	return dt_tcp_listen_input(l, &t, &s, NULL, now, &out);
}

static void
run(uint16_t cap)
{
	struct dt_tcp_syn_entry *q = calloc(cap, sizeof(*q));
	static struct dt_tcp_tx_seg sa[1024];
	struct dt_tcp_listener l;
	struct dt_tcp_isn_key k;
	struct dt_tcp_cfg cfg;
	struct dt_tcp_conn c;
	struct dt_tcp_bufs b = { txq, 4, ooo, 4 };
	double t0, q_ns, dup_ns, ck_ns, ack_ns, tmo_ns;
	uint32_t i, ok = 0, tmo_segs = 0;
	struct dt_tcp_seg s;
	struct dt_tcp_tuple t;

	if (q == NULL)
		exit(1);
	dt_tcp_cfg_default(&cfg);
	memset(&k, 0x3c, sizeof(k));
	dt_tcp_listen(&l, &cfg, &k, q, cap, 0xffff);
	t0 = now_ns();
	for (i = 0; i < cap; i++)
		syn(&l, i, 1000);
	q_ns = (now_ns() - t0) / cap;
	t0 = now_ns();
	for (i = 0; i < cap; i++)
		syn(&l, i, 2000);
	dup_ns = (now_ns() - t0) / cap;
	t0 = now_ns();
	for (i = 0; i < COOKIE_SYNS; i++) {
		syn(&l, cap + i, 3000);
		if (i < 1024)
			sa[i] = out.segs[0];
	}
	ck_ns = (now_ns() - t0) / COOKIE_SYNS;
	memset(&s, 0, sizeof(s));
	s.th.flags = DT_NET_TCP_ACK;
	s.th.opts.present = DT_NET_TCPOPT_F_TS;
	t0 = now_ns();
	for (i = 0; i < 1024; i++) {
		t = tup(cap + i);
		s.th.seq = sa[i].th.ack;
		s.th.ack = sa[i].th.seq + 1;
		s.th.opts.ts_ecr = sa[i].th.opts.ts_val;
		s.th.opts.ts_val = cap + i + 1;
		dt_tcp_conn_init(&c, &cfg, &b);
		ok += dt_tcp_listen_input(&l, &t, &s, &c, 4000, &out) ==
			DT_TCP_LST_ESTABLISHED;
	}
	ack_ns = (now_ns() - t0) / 1024;
	t0 = now_ns();
	for (i = 0; i < 64 && l.deadline; i++) {
		dt_tcp_listen_timeout(&l, l.deadline, &out);
		tmo_segs += out.n_segs;
	}
	tmo_ns = tmo_segs ? (now_ns() - t0) / tmo_segs : 0;
	printf("{\"synq\": %u, \"ns_syn_queued\": %.0f, \"ns_syn_duplicate\": %.0f, "
		"\"ns_syn_cookie\": %.0f, \"ns_cookie_ack\": %.0f, "
		"\"cookie_acks_ok\": %u, \"ns_synack_rtx\": %.0f, "
		"\"cookies_sent\": %llu}\n", cap, q_ns, dup_ns, ck_ns, ack_ns, ok,
		tmo_ns, (unsigned long long)l.st.cookies_sent);
	free(q);
	if (ok != 1024 || l.st.cookies_sent != COOKIE_SYNS)
		exit(1);
}

int
main(void)
{
	static const uint16_t caps[] = { 128, 1024, 16384, DT_TCP_SYNQ_MAX };
	unsigned int i;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		run(caps[i]);
	return 0;
}
