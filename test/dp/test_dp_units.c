/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/dp's pure pieces: the timer wheel, the neighbour
 * table logic and the receive-coalescing rule (no EAL).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dt_dp_gro.h"
#include "dt_dp_neigh.h"
#include "dt_dp_timer.h"
#include "dt_test.h"

#define NODES 64

struct tnode {
	struct dt_dp_tw_node n;
	int fired;
	uint64_t fired_at;
};

static struct tnode tn[NODES];
static uint64_t tw_now;
static struct dt_dp_tw *rearm_w;

static void
on_fire(struct dt_dp_tw_node *n, void *arg)
{
	struct tnode *t = (struct tnode *)n;

	(void)arg;
	t->fired++;
	t->fired_at = tw_now;
	DT_CHECK(n->deadline <= tw_now);
}

static void
on_fire_rearm(struct dt_dp_tw_node *n, void *arg)
{
	on_fire(n, arg);
	if (((struct tnode *)n)->fired < 3)
		dt_dp_tw_arm(rearm_w, n, tw_now + 500);
}

static void
test_tw_basic(void)
{
	struct dt_dp_tw_node *slots[16];
	struct dt_dp_tw w;
	unsigned int i, total = 0;

	memset(tn, 0, sizeof(tn));
	DT_CHECK_EQ(dt_dp_tw_init(&w, slots, 12, 4, 0), -EINVAL);
	DT_REQUIRE(dt_dp_tw_init(&w, slots, 16, 4, 1000) == 0);
	/* Deadlines within a turn, beyond several turns, and in the past. */
	for (i = 0; i < NODES; i++)
		dt_dp_tw_arm(&w, &tn[i].n, 1000 + i * 37);
	dt_dp_tw_arm(&w, &tn[0].n, 500);
	DT_CHECK_EQ(w.armed, NODES);
	dt_dp_tw_cancel(&w, &tn[5].n);
	dt_dp_tw_cancel(&w, &tn[5].n);
	DT_CHECK(!dt_dp_tw_armed(&tn[5].n));
	for (tw_now = 1000; tw_now <= 1000 + NODES * 37 + 100; tw_now += 7)
		total += dt_dp_tw_expire(&w, tw_now, on_fire, NULL, 1000);
	DT_CHECK_EQ(total, NODES - 1);
	for (i = 0; i < NODES; i++) {
		if (i == 5) {
			DT_CHECK_EQ(tn[i].fired, 0);
			continue;
		}
		DT_CHECK_EQ(tn[i].fired, 1);
		/* Fired no later than one step after the deadline. */
		DT_CHECK(tn[i].fired_at < tn[i].n.deadline + 7 ||
			tn[i].n.deadline < 1000);
	}
	DT_CHECK_EQ(w.armed, 0);
}

static void
test_tw_gap_budget_rearm(void)
{
	struct dt_dp_tw_node *slots[8];
	struct dt_dp_tw w;
	unsigned int i, n;

	memset(tn, 0, sizeof(tn));
	DT_REQUIRE(dt_dp_tw_init(&w, slots, 8, 3, 0) == 0);
	for (i = 0; i < 10; i++)
		dt_dp_tw_arm(&w, &tn[i].n, 100 + i * 1000);
	/* A long gap: everything due fires, bounded by the budget. */
	tw_now = 20000;
	n = dt_dp_tw_expire(&w, tw_now, on_fire, NULL, 4);
	DT_CHECK_EQ(n, 4);
	n = dt_dp_tw_expire(&w, tw_now, on_fire, NULL, 100);
	DT_CHECK_EQ(n, 6);
	for (i = 0; i < 10; i++)
		DT_CHECK_EQ(tn[i].fired, 1);
	/* Re-arming from the callback. */
	rearm_w = &w;
	dt_dp_tw_arm(&w, &tn[20].n, tw_now + 10);
	for (i = 0; i < 100; i++) {
		tw_now += 100;
		dt_dp_tw_expire(&w, tw_now, on_fire_rearm, NULL, 100);
	}
	DT_CHECK_EQ(tn[20].fired, 3);
	DT_CHECK(!dt_dp_tw_armed(&tn[20].n));
	/* Far future: not fired early after many turns. */
	dt_dp_tw_arm(&w, &tn[30].n, tw_now + 100000);
	for (i = 0; i < 99; i++) {
		tw_now += 1000;
		dt_dp_tw_expire(&w, tw_now, on_fire, NULL, 100);
	}
	DT_CHECK_EQ(tn[30].fired, 0);
	tw_now += 2000;
	dt_dp_tw_expire(&w, tw_now, on_fire, NULL, 100);
	DT_CHECK_EQ(tn[30].fired, 1);
}

/*
 * Re-arms within one tick keep the node where it is and only move its
 * deadline (the per-segment fast path): later or earlier, it still fires
 * at its new deadline and the armed count does not drift. A re-arm to the
 * same slot one wheel round later is a different tick and must wait.
 */
static void
test_tw_rearm_same_tick(void)
{
	struct dt_dp_tw_node *slots[8];
	struct dt_dp_tw w;
	unsigned int i;

	memset(tn, 0, sizeof(tn));
	/* 16 us ticks, 8 slots: one round is 128 us. */
	DT_REQUIRE(dt_dp_tw_init(&w, slots, 8, 4, 0) == 0);
	dt_dp_tw_arm(&w, &tn[0].n, 100);
	dt_dp_tw_arm(&w, &tn[1].n, 101);
	dt_dp_tw_arm(&w, &tn[0].n, 110);        /* same tick, later */
	dt_dp_tw_arm(&w, &tn[2].n, 140);
	dt_dp_tw_arm(&w, &tn[2].n, 130);        /* same tick, earlier */
	dt_dp_tw_arm(&w, &tn[3].n, 20);
	dt_dp_tw_arm(&w, &tn[3].n, 20 + 128);   /* same slot, next round */
	DT_CHECK_EQ(w.armed, 4);
	DT_CHECK_EQ(tn[0].n.deadline, 110);
	DT_CHECK_EQ(tn[2].n.deadline, 130);
	for (tw_now = 0; tw_now <= 200; tw_now++)
		dt_dp_tw_expire(&w, tw_now, on_fire, NULL, 100);
	for (i = 0; i < 4; i++)
		DT_CHECK_EQ(tn[i].fired, 1);
	DT_CHECK_EQ(tn[1].fired_at, 101);
	DT_CHECK_EQ(tn[0].fired_at, 110);
	DT_CHECK_EQ(tn[2].fired_at, 130);
	DT_CHECK_EQ(tn[3].fired_at, 148);
	DT_CHECK_EQ(w.armed, 0);
	/* A re-arm while due (tick before the current one) still relinks. */
	dt_dp_tw_arm(&w, &tn[4].n, 150);
	dt_dp_tw_arm(&w, &tn[4].n, 151);
	tw_now = 300;
	DT_CHECK_EQ(dt_dp_tw_expire(&w, tw_now, on_fire, NULL, 100), 1);
	DT_CHECK_EQ(tn[4].fired, 1);
	DT_CHECK_EQ(w.armed, 0);
}

/* ---- neighbours ---- */
static struct {
	uint32_t req[64];
	unsigned int nb_req, nb_drop, nb_timeout;
} nv;

static void
n_req(uint32_t ip, void *arg)
{
	(void)arg;
	if (nv.nb_req < 64)
		nv.req[nv.nb_req] = ip;
	nv.nb_req++;
}

static void
n_drop(void *f, void *arg)
{
	(void)f;
	(void)arg;
	nv.nb_drop++;
}

static void
n_timeout(uint32_t ip, void *arg)
{
	(void)ip;
	(void)arg;
	nv.nb_timeout++;
}

static const struct dt_dp_neigh_ops nops = {
	.request = n_req, .drop = n_drop, .timeout = n_timeout,
};

static void
test_neigh_resolve(void)
{
	struct dt_dp_neigh e[8];
	struct dt_dp_neigh_held hold[16];
	struct dt_dp_neigh_tbl t;
	struct dt_dp_neigh_conf c = { .retry_us = 100, .max_retries = 3,
		.reachable_us = 10000 };
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };
	int frames[17];
	struct dt_dp_neigh *n;
	bool created;
	int i;

	memset(&nv, 0, sizeof(nv));
	DT_REQUIRE(dt_dp_neigh_init(&t, e, 8, hold, 16, &c) == 0);
	n = dt_dp_neigh_resolve(&t, 0x0a000002, 0, &created);
	DT_REQUIRE(n != NULL);
	DT_CHECK(created);
	DT_CHECK_EQ(n->state, DT_DP_NEIGH_INCOMPLETE);
	DT_CHECK(dt_dp_neigh_resolve(&t, 0x0a000002, 10, &created) == n);
	DT_CHECK(!created);
	for (i = 0; i < 16; i++)
		DT_CHECK_EQ(dt_dp_neigh_hold(&t, n, &frames[i]), 0);
	DT_CHECK_EQ(dt_dp_neigh_hold(&t, n, &frames[i]), -ENOBUFS);
	DT_CHECK_EQ(t.hold_used, 16);
	/* One retry, then the reply: every held frame, in order. */
	dt_dp_neigh_tick(&t, 100, &nops);
	DT_CHECK_EQ(nv.nb_req, 1);
	n = dt_dp_neigh_learn(&t, 0x0a000002, mac, 150, false);
	DT_REQUIRE(n != NULL);
	DT_CHECK_EQ(n->nb_held, 16);
	for (i = 0; i < 16; i++)
		DT_CHECK(dt_dp_neigh_unhold(&t, n) == &frames[i]);
	DT_CHECK(dt_dp_neigh_unhold(&t, n) == NULL);
	DT_CHECK_EQ(t.hold_used, 0);
	DT_CHECK_EQ(n->state, DT_DP_NEIGH_REACHABLE);
	DT_CHECK(memcmp(n->mac, mac, 6) == 0);
	/* Learning an unknown sender only when asked to create. */
	DT_CHECK(dt_dp_neigh_learn(&t, 0x0a000003, mac, 150, false) == NULL);
	DT_CHECK(dt_dp_neigh_learn(&t, 0x0a000003, mac, 150, true) != NULL);
	DT_CHECK(dt_dp_neigh_find(&t, 0x0a000003) != NULL);
	/* Refresh after reachable_us; unanswered, the entry goes. */
	nv.nb_req = 0;
	dt_dp_neigh_tick(&t, 10200, &nops);
	DT_CHECK_EQ(nv.nb_req, 2);
	DT_CHECK(dt_dp_neigh_find(&t, 0x0a000002) != NULL);
	dt_dp_neigh_tick(&t, 10300, &nops);
	dt_dp_neigh_tick(&t, 10400, &nops);
	DT_CHECK_EQ(nv.nb_req, 6);
	dt_dp_neigh_tick(&t, 10500, &nops);
	DT_CHECK(dt_dp_neigh_find(&t, 0x0a000002) == NULL);
	DT_CHECK(dt_dp_neigh_find(&t, 0x0a000003) == NULL);
	DT_CHECK_EQ(nv.nb_timeout, 2);
	DT_CHECK_EQ(t.used, 0);
}

/*
 * The hold queue is one pool for every entry: a burst of 64 connections'
 * SYNs to one neighbour waits whole (the old per-entry queue kept 8 and
 * dropped 56), entries share it, each keeps its order, and slots come
 * back when an entry resolves or times out.
 */
static void
test_neigh_hold_pool(void)
{
	struct dt_dp_neigh e[8];
	struct dt_dp_neigh_held hold[128];
	struct dt_dp_neigh_tbl t;
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 7 };
	struct dt_dp_neigh *a, *b;
	int frames[200];
	bool created;
	int i;

	memset(&nv, 0, sizeof(nv));
	DT_REQUIRE(dt_dp_neigh_init(&t, e, 8, hold, 128, NULL) == 0);
	a = dt_dp_neigh_resolve(&t, 0x0a000002, 0, &created);
	b = dt_dp_neigh_resolve(&t, 0x0a000005, 0, &created);
	DT_REQUIRE(a != NULL && b != NULL);
	for (i = 0; i < 64; i++)
		DT_CHECK_EQ(dt_dp_neigh_hold(&t, a, &frames[i]), 0);
	/* Interleaved holds keep each entry's own order. */
	for (i = 64; i < 128; i++)
		DT_CHECK_EQ(dt_dp_neigh_hold(&t, (i & 1) ? b : a, &frames[i]), 0);
	DT_CHECK_EQ(dt_dp_neigh_hold(&t, a, &frames[128]), -ENOBUFS);
	DT_CHECK_EQ(a->nb_held, 96);
	DT_CHECK_EQ(b->nb_held, 32);
	a = dt_dp_neigh_learn(&t, 0x0a000002, mac, 10, false);
	DT_REQUIRE(a != NULL);
	for (i = 0; i < 128; i++)
		if (i < 64 || !(i & 1))
			DT_CHECK(dt_dp_neigh_unhold(&t, a) == &frames[i]);
	DT_CHECK(dt_dp_neigh_unhold(&t, a) == NULL);
	/* The freed slots take new frames for b. */
	for (i = 128; i < 128 + 96; i++)
		DT_CHECK_EQ(dt_dp_neigh_hold(&t, b, &frames[i - 100]), 0);
	DT_CHECK_EQ(t.hold_used, 128);
	/* b times out: its frames are dropped, every slot free again. */
	for (i = 1; i <= 3; i++)
		dt_dp_neigh_tick(&t, (uint64_t)i * 1000000, &nops);
	DT_CHECK_EQ(nv.nb_drop, 128);
	DT_CHECK_EQ(t.hold_used, 0);
	DT_CHECK(dt_dp_neigh_find(&t, 0x0a000005) == NULL);
	b = dt_dp_neigh_resolve(&t, 0x0a000009, 4000000, &created);
	DT_REQUIRE(b != NULL);
	for (i = 0; i < 128; i++)
		DT_CHECK_EQ(dt_dp_neigh_hold(&t, b, &frames[i]), 0);
	dt_dp_neigh_flush(&t, &nops);
	DT_CHECK_EQ(nv.nb_drop, 256);
	DT_CHECK_EQ(t.hold_used, 0);
}

static void
test_neigh_timeout_full(void)
{
	struct dt_dp_neigh e[8];
	struct dt_dp_neigh_held hold[4];
	struct dt_dp_neigh_tbl t;
	struct dt_dp_neigh *n;
	int frames[4];
	bool created;
	uint32_t ip;
	unsigned int k;

	memset(&nv, 0, sizeof(nv));
	DT_REQUIRE(dt_dp_neigh_init(&t, e, 8, hold, 4, NULL) == 0);
	n = dt_dp_neigh_resolve(&t, 1, 0, &created);
	DT_REQUIRE(n != NULL);
	dt_dp_neigh_hold(&t, n, &frames[0]);
	dt_dp_neigh_hold(&t, n, &frames[1]);
	for (k = 1; k <= 3; k++)
		dt_dp_neigh_tick(&t, k * 1000000ull, &nops);
	DT_CHECK_EQ(nv.nb_req, 2);
	DT_CHECK_EQ(nv.nb_drop, 2);
	DT_CHECK_EQ(nv.nb_timeout, 1);
	DT_CHECK(dt_dp_neigh_find(&t, 1) == NULL);
	/* A full table refuses new entries but keeps finding old ones. */
	for (ip = 100; ip < 107; ip++)
		DT_CHECK(dt_dp_neigh_resolve(&t, ip, 0, &created) != NULL);
	DT_CHECK(dt_dp_neigh_resolve(&t, 200, 0, &created) == NULL);
	for (ip = 100; ip < 107; ip++)
		DT_CHECK(dt_dp_neigh_find(&t, ip) != NULL);
	dt_dp_neigh_flush(&t, &nops);
	DT_CHECK(dt_dp_neigh_find(&t, 100) == NULL);
}

/* ------------------------------------------------- receive coalescing */

static const struct dt_tcp_tuple gro_t = {
	.laddr = 0x0a000001, .raddr = 0x0a000002, .lport = 5201, .rport = 40000,
};

/* A data frame as the peer sends it: ACK, timestamps, 1448 bytes. */
static struct dt_net_tcp_hdr
gro_hdr(uint32_t seq)
{
	struct dt_net_tcp_hdr h;

	memset(&h, 0, sizeof(h));
	h.sport = gro_t.rport;
	h.dport = gro_t.lport;
	h.seq = seq;
	h.ack = 77;
	h.hdr_len = 32;
	h.flags = DT_NET_TCP_ACK;
	h.win = 500;
	h.opts.present = DT_NET_TCPOPT_F_TS;
	h.opts.ts_val = 1000;
	h.opts.ts_ecr = 2000;
	return h;
}

static struct dt_tcp_extent gro_ext[2 * DT_TCP_SEG_MAX_EXT];

static void
test_gro_candidate(void)
{
	struct dt_net_tcp_hdr h = gro_hdr(1);

	DT_CHECK(dt_dp_gro_candidate(&h, 1448, true));
	/* Only a checksum the NIC verified. */
	DT_CHECK(!dt_dp_gro_candidate(&h, 1448, false));
	/* Payload needed: a pure ACK is processed alone. */
	DT_CHECK(!dt_dp_gro_candidate(&h, 0, true));
	h.flags = DT_NET_TCP_ACK | DT_NET_TCP_PSH;
	DT_CHECK(dt_dp_gro_candidate(&h, 100, true));
	h.flags = DT_NET_TCP_ACK | DT_NET_TCP_FIN;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.flags = DT_NET_TCP_ACK | DT_NET_TCP_SYN;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.flags = DT_NET_TCP_ACK | DT_NET_TCP_RST;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.flags = DT_NET_TCP_ACK | DT_NET_TCP_URG;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.flags = DT_NET_TCP_PSH;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.flags = DT_NET_TCP_ACK;
	/* SACK blocks, other known or unknown options: alone. */
	h.opts.present = DT_NET_TCPOPT_F_TS | DT_NET_TCPOPT_F_SACK;
	h.opts.n_sack = 1;
	h.hdr_len = 44;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.opts.present = DT_NET_TCPOPT_F_TS;
	h.opts.n_sack = 0;
	h.hdr_len = 36;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.opts.present = DT_NET_TCPOPT_F_MSS;
	h.hdr_len = 24;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	h.opts.present = 0;
	DT_CHECK(!dt_dp_gro_candidate(&h, 100, true));
	/* No options at all. */
	h.hdr_len = 20;
	DT_CHECK(dt_dp_gro_candidate(&h, 100, true));
}

static void
test_gro_run(void)
{
	struct dt_dp_gro_run r;
	struct dt_net_tcp_hdr h = gro_hdr(1000), x;
	struct dt_tcp_tuple t;
	struct dt_tcp_seg seg;
	int conn;
	uint16_t i;

	for (i = 0; i < sizeof(gro_ext) / sizeof(gro_ext[0]); i++) {
		gro_ext[i].ref = &gro_ext[i];
		gro_ext[i].off = i;
		gro_ext[i].len = 1448;
	}
	memset(&r, 0, sizeof(r));
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &h, 1), DT_DP_GRO_NO_RUN);
	dt_dp_gro_start(&r, &gro_t, &h, 1448, gro_ext, 1, &conn);
	DT_CHECK_EQ(r.n_frames, 1);
	DT_CHECK(r.conn == &conn);
	/* Contiguous, same fields: joins; TSval may grow. */
	x = gro_hdr(2448);
	x.opts.ts_val = 1001;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_JOIN);
	dt_dp_gro_append(&r, &x, 1448, gro_ext + 1, 1);
	DT_CHECK_EQ(r.n_frames, 2);
	DT_CHECK_EQ(r.len, 2896);
	DT_CHECK_EQ(r.th.opts.ts_val, 1001);
	/* A hole, an overlap, a retransmission of the run's start. */
	x = gro_hdr(3896 + 1);
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_SEQ);
	x.seq = 3896 - 100;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_SEQ);
	x.seq = 1000;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_SEQ);
	/* Every field of the 4-tuple. */
	x = gro_hdr(3896);
	t = gro_t;
	t.rport++;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &t, &x, 1), DT_DP_GRO_OTHER_CONN);
	t = gro_t;
	t.lport++;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &t, &x, 1), DT_DP_GRO_OTHER_CONN);
	t = gro_t;
	t.raddr++;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &t, &x, 1), DT_DP_GRO_OTHER_CONN);
	t = gro_t;
	t.laddr++;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &t, &x, 1), DT_DP_GRO_OTHER_CONN);
	/* ACK, window, options. */
	x.ack++;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_ACK);
	x = gro_hdr(3896);
	x.win++;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_WIN);
	x = gro_hdr(3896);
	x.opts.ts_val = 1001;
	x.opts.ts_ecr++;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_OPTS);
	x = gro_hdr(3896);
	x.opts.ts_val = 1000;	/* older than the run's last (1001) */
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_OPTS);
	x = gro_hdr(3896);
	x.opts.present = 0;
	x.hdr_len = 20;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_OPTS);
	/* Extents: up to DT_TCP_SEG_MAX_EXT in all. */
	x = gro_hdr(3896);
	x.opts.ts_val = 1001;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, DT_TCP_SEG_MAX_EXT - 1),
		DT_DP_GRO_EXT);
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, DT_TCP_SEG_MAX_EXT - 2),
		DT_DP_GRO_JOIN);
	for (i = 2; i < DT_TCP_SEG_MAX_EXT; i++) {
		x = gro_hdr(1000 + i * 1448);
		x.opts.ts_val = 1001;
		DT_REQUIRE(dt_dp_gro_match(&r, &gro_t, &x, 1) == DT_DP_GRO_JOIN);
		dt_dp_gro_append(&r, &x, 1448, gro_ext + i, 1);
	}
	x = gro_hdr(1000 + DT_TCP_SEG_MAX_EXT * 1448);
	x.opts.ts_val = 1001;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_EXT);
	/* The segment: first seq, every extent in order, the last TSval. */
	dt_dp_gro_seg(&r, &seg);
	DT_CHECK_EQ(seg.th.seq, 1000);
	DT_CHECK_EQ(seg.th.ack, 77);
	DT_CHECK_EQ(seg.th.flags, DT_NET_TCP_ACK);
	DT_CHECK_EQ(seg.n_ext, DT_TCP_SEG_MAX_EXT);
	for (i = 0; i < DT_TCP_SEG_MAX_EXT; i++)
		DT_CHECK(seg.ext[i].ref == &gro_ext[i] && seg.ext[i].off == i);
	DT_CHECK_EQ(r.len, DT_TCP_SEG_MAX_EXT * 1448u);
}

/* A PSH ends the run; sequence numbers wrap. */
static void
test_gro_psh_wrap(void)
{
	struct dt_dp_gro_run r;
	struct dt_net_tcp_hdr h = gro_hdr(0xfffffa00u), x;
	struct dt_tcp_seg seg;

	memset(&r, 0, sizeof(r));
	dt_dp_gro_start(&r, &gro_t, &h, 0x600, gro_ext, 1, NULL);
	x = gro_hdr(0);
	x.flags |= DT_NET_TCP_PSH;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_JOIN);
	dt_dp_gro_append(&r, &x, 100, gro_ext + 1, 1);
	dt_dp_gro_seg(&r, &seg);
	DT_CHECK_EQ(seg.th.flags, DT_NET_TCP_ACK | DT_NET_TCP_PSH);
	DT_CHECK_EQ(seg.th.seq, 0xfffffa00u);
	x = gro_hdr(100);
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_PSH);
	/* TSval wraps too: 0xffffffff then 2 is newer. */
	memset(&r, 0, sizeof(r));
	h = gro_hdr(1);
	h.opts.ts_val = 0xffffffffu;
	dt_dp_gro_start(&r, &gro_t, &h, 10, gro_ext, 1, NULL);
	x = gro_hdr(11);
	x.opts.ts_val = 2;
	DT_CHECK_EQ(dt_dp_gro_match(&r, &gro_t, &x, 1), DT_DP_GRO_JOIN);
}

/*
 * The header template: a frame's bytes equal the run's first frame's but
 * for IPv4 length, id and checksum, TCP seq, flags, checksum and TSval.
 */
static void
test_gro_hdr_same(void)
{
	static const uint8_t frame[66] = {
		/* Ethernet */
		2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
		/* IPv4: 20 bytes, DF, TTL 64, TCP */
		0x45, 0, 0x05, 0xdc, 0x12, 0x34, 0x40, 0, 64, 6, 0xab, 0xcd,
		10, 0, 0, 2, 10, 0, 0, 1,
		/* TCP: ports, seq, ack, doff 8, ACK, window, cksum, urp */
		0x9c, 0x40, 0x14, 0x51, 0, 0, 0x03, 0xe8, 0, 0, 0, 77,
		0x80, 0x10, 0x01, 0xf4, 0xee, 0xee, 0, 0,
		/* NOP, NOP, TS val 1000 ecr 2000 */
		1, 1, 8, 10, 0, 0, 0x03, 0xe8, 0, 0, 0x07, 0xd0,
	};
	/* Bytes that may differ: IP len 16-17, id 18-19, cksum 24-25; TCP
	 * seq 38-41, flags 47, cksum 50-51, TSval 58-61. */
	static const uint8_t may_differ[] = { 16, 17, 18, 19, 24, 25, 38, 39,
		40, 41, 47, 50, 51, 58, 59, 60, 61 };
	struct dt_dp_gro_run r;
	struct dt_net_tcp_hdr h = gro_hdr(1000);
	uint8_t x[66];
	unsigned int i, k;
	bool free_byte;

	memset(&r, 0, sizeof(r));
	dt_dp_gro_start(&r, &gro_t, &h, 1448, gro_ext, 1, NULL);
	DT_CHECK_EQ(r.hlen, 0);
	dt_dp_gro_template(&r, frame, 14, 20);
	DT_REQUIRE(r.hlen == 66);
	DT_CHECK(dt_dp_gro_hdr_same(&r, frame));
	for (i = 0; i < sizeof(frame); i++) {
		memcpy(x, frame, sizeof(x));
		x[i] ^= 0x01;
		free_byte = false;
		for (k = 0; k < sizeof(may_differ); k++)
			free_byte = free_byte || may_differ[k] == i;
		if (dt_dp_gro_hdr_same(&r, x) != free_byte) {
			printf("  byte %u: same %d, may differ %d\n", i,
				dt_dp_gro_hdr_same(&r, x), free_byte);
			DT_CHECK(false);
		}
	}
	/* Another option layout (TS, NOP, NOP), IP options: no template. */
	memcpy(x, frame, sizeof(x));
	x[54] = 8;
	x[55] = 10;
	dt_dp_gro_template(&r, x, 14, 20);
	DT_CHECK_EQ(r.hlen, 0);
	DT_CHECK(!dt_dp_gro_hdr_same(&r, frame));
	dt_dp_gro_template(&r, frame, 14, 24);
	DT_CHECK_EQ(r.hlen, 0);
	dt_dp_gro_template(&r, NULL, 14, 20);
	DT_CHECK_EQ(r.hlen, 0);
	/* No options: 54 bytes compared. */
	h.hdr_len = 20;
	h.opts.present = 0;
	dt_dp_gro_start(&r, &gro_t, &h, 1448, gro_ext, 1, NULL);
	memcpy(x, frame, sizeof(x));
	x[46] = 0x50;
	dt_dp_gro_template(&r, x, 14, 20);
	DT_REQUIRE(r.hlen == 54);
	DT_CHECK(dt_dp_gro_hdr_same(&r, x));
	x[53] ^= 1;	/* urgent pointer */
	DT_CHECK(!dt_dp_gro_hdr_same(&r, x));
}

int
main(void)
{
	DT_RUN(test_tw_basic);
	DT_RUN(test_tw_gap_budget_rearm);
	DT_RUN(test_tw_rearm_same_tick);
	DT_RUN(test_neigh_resolve);
	DT_RUN(test_neigh_hold_pool);
	DT_RUN(test_neigh_timeout_full);
	DT_RUN(test_gro_candidate);
	DT_RUN(test_gro_run);
	DT_RUN(test_gro_psh_wrap);
	DT_RUN(test_gro_hdr_same);
	return dt_test_summary();
}
