/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection scale of lib/dp, devtcp <-> devtcp on one net_hsplit loopback
 * wire (client port: host memory; server port: payload split into a
 * gpu_sim region), both stacks polled from one lcore.
 *
 * Concurrent mode (default): open --conns connections over --ports server
 * ports (the client's local port space is per destination port), each
 * sends --bytes, the server answers --bytes; once every connection has
 * both, all are open at once (conns_open on both stacks is checked), then
 * all close. Checked: every connection established, its bytes delivered
 * both ways, every drop counter 0. Printed: hugepage bytes per connection
 * slot (dt_dp_stats.mem_bytes / max_conns), heap bytes, establish rate.
 *
 * --cps SECONDS: short connections (connect, --bytes each way, close),
 * --conns of them in flight, for SECONDS; prints connections per second.
 * Figures are information only (JSON line "conns_bench"), never asserted.
 */
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dt_devmem.h"
#include "dt_dp.h"
#include "dt_dp_port.h"
#include "dt_test.h"
#include "dp_fixture.h"

#define CLI_IP RTE_IPV4(10, 0, 2, 1)
#define SRV_IP RTE_IPV4(10, 0, 2, 2)
#define SRV_PORT0 6001
#define PER_PORT 20000          /* below the 28232 ephemeral ports */
#define EV_BATCH 256
#define OPEN_BATCH 256          /* handshakes in flight at most */
#define PAT_LEN 65536

static struct {
	uint32_t conns;
	uint32_t bytes;
	uint16_t ports;
	double cps_s;          /* 0: concurrent mode */
	uint32_t msl_us;       /* 0: 500 ms concurrent, 20 ms short */
	uint32_t ooo_stores;   /* 0: the stack's default */
	bool faults;           /* the wire reorders: out-of-order stores lent */
	unsigned int timeout_s;
} opt = { .conns = 5000, .bytes = 1024, .timeout_s = 60 };

static struct {
	struct dp_fixture fx;  /* ports, region, pools, pattern */
	struct dt_dp_stack *cli, *srv;
	uint64_t cli_heap, srv_heap;  /* hugepage heap bytes each stack took */
} env;

/*
 * Where the test is, for the watchdog: a run that hangs inside a library
 * call (every loop of the test has a deadline) says where before it dies,
 * instead of being killed by the harness with nothing printed.
 */
static const char *volatile phase = "start";
static unsigned int watchdog_s;

static void
watchdog(int sig)
{
	char line[160];
	int n;

	(void)sig;
	n = snprintf(line, sizeof(line),
		"watchdog: not done %u s after the start, stuck in %s\n",
		watchdog_s, phase);
	if (n > 0 && write(STDOUT_FILENO, line, (size_t)n) < 0)
		_exit(3);
	_exit(2);
}

/* Client end of a connection. */
struct cn {
	dt_dp_conn_t conn;
	uint32_t rx, acked;
	bool connected, closing, closed, err;
};

/* Server end (found by udata; a free list of them). */
struct sn {
	dt_dp_conn_t conn;
	uint32_t rx, next;
	bool sent;
};

static struct {
	struct cn *cn;         /* client slots */
	uint32_t *c_free, c_nfree;
	struct sn *sn;
	uint32_t s_free;       /* head, UINT32_MAX: none */
	uint32_t opened, connected, c_rx_done, c_acked_done, c_closed;
	uint32_t accepted, s_rx_done, s_closed;
	uint32_t errors;
	bool stop_opening;
} app;

static uint64_t
now_us(void)
{
	return rte_rdtsc() * 1000000 / rte_get_tsc_hz();
}

static int
send_pattern(struct dt_dp_stack *st, dt_dp_conn_t conn)
{
	struct dt_dp_buf b = {
		.addr = env.fx.pattern, .iova = env.fx.pattern_iova,
		.len = opt.bytes, .device = false,
	};

	return dt_dp_send(st, conn, &b);
}

/* ---- events ---- */
static void
cli_event(const struct dt_dp_event *ev)
{
	struct cn *x = ev->udata;

	if (ev->type == DT_DP_EV_DATA)
		dt_dp_release(env.cli, ev->chunk.token);
	if (x == NULL)
		return;
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		x->connected = true;
		app.connected++;
		if (send_pattern(env.cli, x->conn) != 0)
			x->err = true;
		break;
	case DT_DP_EV_SENT:
		x->acked += ev->sent.bytes;
		if (x->acked == opt.bytes)
			app.c_acked_done++;
		break;
	case DT_DP_EV_DATA:
		x->rx += ev->chunk.len;
		if (x->rx == opt.bytes)
			app.c_rx_done++;
		/* Short connections close once the answer is in. */
		if (opt.cps_s > 0 && x->rx == opt.bytes && !x->closing) {
			x->closing = true;
			if (dt_dp_close(env.cli, x->conn) != 0)
				x->err = true;
		}
		break;
	case DT_DP_EV_ERROR:
	case DT_DP_EV_RESET:
		x->err = true;
		break;
	case DT_DP_EV_CLOSED:
		x->closed = true;
		if (x->err)
			app.errors++;
		app.c_closed++;
		/* The slot serves the next short connection. */
		app.c_free[app.c_nfree++] = (uint32_t)(x - app.cn);
		break;
	default:
		break;
	}
}

static void
srv_event(const struct dt_dp_event *ev)
{
	struct sn *x = ev->udata;
	uint32_t i;

	if (ev->type == DT_DP_EV_DATA)
		dt_dp_release(env.srv, ev->chunk.token);
	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		i = app.s_free;
		if (i == UINT32_MAX) {
			app.errors++;
			dt_dp_abort(env.srv, ev->conn);
			return;
		}
		x = &app.sn[i];
		app.s_free = x->next;
		memset(x, 0, sizeof(*x));
		x->conn = ev->conn;
		app.accepted++;
		dt_dp_set_udata(env.srv, ev->conn, x);
		break;
	case DT_DP_EV_DATA:
		if (x == NULL)
			break;
		x->rx += ev->chunk.len;
		if (x->rx == opt.bytes && !x->sent) {
			x->sent = true;
			app.s_rx_done++;
			if (send_pattern(env.srv, x->conn) != 0)
				app.errors++;
		}
		break;
	case DT_DP_EV_PEER_CLOSED:
		if (dt_dp_close(env.srv, ev->conn) != 0)
			app.errors++;
		break;
	case DT_DP_EV_ERROR:
	case DT_DP_EV_RESET:
		app.errors++;
		break;
	case DT_DP_EV_CLOSED:
		if (x == NULL)
			break;
		app.s_closed++;
		x->next = app.s_free;
		app.s_free = (uint32_t)(x - app.sn);
		break;
	default:
		break;
	}
}

static void
poll_both(void)
{
	struct dt_dp_event ev[EV_BATCH];
	uint16_t n, i;

	dt_dp_poll(env.cli);
	while ((n = dt_dp_events(env.cli, ev, EV_BATCH)) > 0)
		for (i = 0; i < n; i++)
			cli_event(&ev[i]);
	dt_dp_poll(env.srv);
	while ((n = dt_dp_events(env.srv, ev, EV_BATCH)) > 0)
		for (i = 0; i < n; i++)
			srv_event(&ev[i]);
}

/* Open one more connection on a free client slot: 0, or -errno. */
static int
open_one(void)
{
	struct cn *x;
	uint32_t k;
	int r;

	if (app.c_nfree == 0)
		return -ENOSPC;
	k = app.c_free[--app.c_nfree];
	x = &app.cn[k];
	memset(x, 0, sizeof(*x));
	r = dt_dp_connect(env.cli, rte_cpu_to_be_32(SRV_IP),
		(uint16_t)(SRV_PORT0 + app.opened % opt.ports), x, &x->conn);
	if (r != 0) {
		app.c_free[app.c_nfree++] = k;
		return r;
	}
	app.opened++;
	return 0;
}

static bool
run_until(bool (*cond)(void), uint64_t end)
{
	while (!cond() && now_us() < end)
		poll_both();
	return cond();
}

static bool all_exchanged(void)
{
	return app.c_rx_done == opt.conns && app.s_rx_done == opt.conns &&
		app.c_acked_done == opt.conns;
}
static bool all_closed(void)
{
	return app.c_closed == opt.conns && app.s_closed == opt.conns;
}

/* ---- set-up ---- */
static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "conns", required_argument, NULL, 'n' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "ports", required_argument, NULL, 'p' },
		{ "cps", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "msl-us", required_argument, NULL, 'm' },
		{ "ooo-stores", required_argument, NULL, 'o' },
		{ "faults", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			opt.conns = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			opt.bytes = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			opt.ports = (uint16_t)atoi(optarg);
			break;
		case 'c':
			opt.cps_s = atof(optarg);
			break;
		case 't':
			opt.timeout_s = (unsigned int)atoi(optarg);
			break;
		case 'm':
			opt.msl_us = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			opt.ooo_stores = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			opt.faults = true;
			break;
		default:
			return -1;
		}
	}
	if (opt.conns == 0 || opt.bytes == 0 || opt.bytes > PAT_LEN) {
		printf("--conns >= 1, 1 <= --bytes <= %u\n", PAT_LEN);
		return -1;
	}
	/*
	 * TIME_WAIT (2 MSL) outlasts the peer's FINs sent again while
	 * 100,000 close at once; short connections reuse their slots sooner.
	 */
	if (opt.msl_us == 0)
		opt.msl_us = opt.cps_s > 0 ? 20000 : 500000;
	if (opt.ports == 0)
		opt.ports = (uint16_t)((opt.conns + PER_PORT - 1) / PER_PORT);
	return 0;
}

static int
ports_start(void)
{
	struct dt_dp_port_conf pc;
	char err[256];
	int r;

	memset(&pc, 0, sizeof(pc));
	pc.nb_rxq = 1;
	pc.nb_txq = 1;
	pc.nb_rxd = 4096;
	pc.nb_txd = 4096;
	pc.mtu = 1500;
	pc.hdr_pool = env.fx.c_pool;
	pc.tx_cksum = true;
	pc.tx_multi_seg = true;
	r = dt_dp_port_start(env.fx.cport, &pc, err, sizeof(err));
	if (r != 0) {
		printf("client port: %s\n", err);
		return r;
	}
	pc.hdr_pool = env.fx.s_hdr;
	pc.pay_pool = dt_devmem_region_pool(env.fx.region);
	pc.split = DT_DP_SPLIT_PROTO;
	pc.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
	r = dt_dp_port_start(env.fx.sport, &pc, err, sizeof(err));
	if (r != 0)
		printf("server port: %s\n", err);
	return r;
}

static struct dt_dp_stack *
stack_new(uint16_t port, uint32_t ip, struct rte_mempool *hdr,
	struct rte_mempool *shell, struct dt_devmem_region *region,
	uint32_t max_conns)
{
	struct dt_dp_stack_conf sc;

	dt_dp_stack_conf_default(&sc);
	sc.port_id = port;
	sc.ipv4 = rte_cpu_to_be_32(ip);
	sc.max_conns = max_conns;
	sc.backlog = 4096;
	/* A little data each: a small send queue per connection. */
	sc.txq_cap = 4;
	sc.hdr_pool = hdr;
	sc.shell_pool = shell;
	sc.region = region;
	sc.tcp.msl_us = opt.msl_us;
	sc.ooo_stores = opt.ooo_stores;
	sc.tcp.delack_us = 1000;
	return dt_dp_stack_create(&sc);
}

/* Hugepage heap bytes in use, all sockets. */
static uint64_t
heap_used(void)
{
	struct rte_malloc_socket_stats ms;
	unsigned int i;
	uint64_t sum = 0;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &ms) == 0)
			sum += ms.heap_allocsz_bytes;
	return sum;
}

/* This test's send pattern (its own, not dt_pattern_byte()). */
static uint8_t
pattern_byte(uint32_t i)
{
	return (uint8_t)(i * 131 + 7);
}

static int
setup(void)
{
	static const struct dp_fixture_conf fc = {
		.prefix = "dpc", .region_bufs = 16384,
		.cli_mbufs = 32768, .cli_shells = 16384,
		.srv_hdrs = 32768, .srv_shells = 16384,
		.pattern_len = PAT_LEN, .pattern_byte = pattern_byte,
	};
	uint64_t h0;
	uint32_t i, slots = opt.conns;
	int r;

	r = dp_fixture_setup(&env.fx, &fc);
	if (r != 0)
		return r;
	app.cn = calloc(slots, sizeof(app.cn[0]));
	app.c_free = calloc(slots, sizeof(app.c_free[0]));
	app.sn = calloc(2ull * slots, sizeof(app.sn[0]));
	if (app.cn == NULL || app.c_free == NULL || app.sn == NULL)
		return -ENOMEM;
	for (i = 0; i < slots; i++)
		app.c_free[i] = slots - 1 - i;
	app.c_nfree = slots;
	for (i = 0; i < 2 * slots; i++)
		app.sn[i].next = i + 1 < 2 * slots ? i + 1 : UINT32_MAX;
	app.s_free = 0;
	r = ports_start();
	if (r != 0)
		return r;
	/* Server: the client's TIME_WAIT makes it close first, so 2x. */
	h0 = heap_used();
	env.cli = stack_new(env.fx.cport, CLI_IP, env.fx.c_pool, env.fx.c_shell, NULL,
		slots + 64);
	env.cli_heap = heap_used() - h0;
	h0 = heap_used();
	env.srv = stack_new(env.fx.sport, SRV_IP, env.fx.s_hdr, env.fx.s_shell,
		env.fx.region, 2 * slots + 64);
	if (env.cli == NULL || env.srv == NULL)
		return -rte_errno;
	for (i = 0; i < opt.ports; i++) {
		r = dt_dp_listen(env.srv, (uint16_t)(SRV_PORT0 + i));
		if (r != 0)
			return r;
	}
	/* SYN queues of the listeners included. */
	env.srv_heap = heap_used() - h0;
	return 0;
}

static void
count_state(dt_dp_conn_t conn, const struct dt_dp_conn_stats *s, void *arg)
{
	uint32_t *h = arg;

	RTE_SET_USED(conn);
	h[s->state < 16 ? s->state : 15]++;
}

/* Where the connections stand (a run that did not finish). */
static void
dump_states(const char *who, struct dt_dp_stack *st)
{
	uint32_t h[16] = { 0 };
	unsigned int i;

	dt_dp_conn_foreach(st, count_state, h);
	printf("  %s: closed %u/%u, live connections by state:", who,
		st == env.cli ? app.c_closed : app.s_closed, opt.conns);
	for (i = 0; i < 16; i++)
		if (h[i] != 0)
			printf(" %s %u", dt_tcp_state_str((enum dt_tcp_state)i), h[i]);
	printf("\n");
}

/* Every drop counter of a clean wire is zero. */
static void
check_no_drops(const char *who, const struct dt_dp_stats *s)
{
	printf("  %s: drops bad_tcp %" PRIu64 " no_conn %" PRIu64
		" table_full %" PRIu64 " synq_full %" PRIu64 " tx_nombuf %" PRIu64
		" tx_full %" PRIu64 " neigh %" PRIu64 " neigh_hold %" PRIu64
		" ooo_no_store %" PRIu64 " overflow %" PRIu64 "\n", who,
		s->drop_bad_tcp, s->drop_no_conn, s->drop_conn_table_full,
		s->drop_synq_full, s->drop_tx_no_mbuf, s->drop_tx_ring_full,
		s->drop_no_neighbour, s->drop_neigh_hold_full,
		s->drop_ooo_no_store, s->events_overflow);
	DT_CHECK_EQ(s->drop_not_ipv4, 0);
	DT_CHECK_EQ(s->drop_bad_ip, 0);
	DT_CHECK_EQ(s->drop_ip_fragment, 0);
	DT_CHECK_EQ(s->drop_not_for_us, 0);
	DT_CHECK_EQ(s->drop_bad_tcp, 0);
	DT_CHECK_EQ(s->drop_l4_cksum, 0);
	DT_CHECK_EQ(s->drop_l4_cksum_unknown, 0);
	/* A lost last ACK: the peer's FIN again after TIME_WAIT (RST). */
	if (!opt.faults)
		DT_CHECK_EQ(s->drop_no_conn, 0);
	DT_CHECK_EQ(s->drop_conn_table_full, 0);
	DT_CHECK_EQ(s->drop_hdr_in_device, 0);
	DT_CHECK_EQ(s->drop_unsupported_proto, 0);
	DT_CHECK_EQ(s->drop_tx_no_mbuf, 0);
	DT_CHECK_EQ(s->drop_tx_ring_full, 0);
	DT_CHECK_EQ(s->drop_no_neighbour, 0);
	DT_CHECK_EQ(s->drop_too_many_segs, 0);
	DT_CHECK_EQ(s->drop_bad_arp, 0);
	DT_CHECK_EQ(s->drop_synq_full, 0);
	DT_CHECK_EQ(s->drop_neigh_hold_full, 0);
	/* Under reordering, few stores: payload freed unacked, sent again. */
	if (!opt.faults)
		DT_CHECK_EQ(s->drop_ooo_no_store, 0);
	DT_CHECK_EQ(s->events_overflow, 0);
	DT_CHECK_EQ(s->ooo_stores_used, 0);
}

/*
 * Memory per connection slot: out-of-order storage is lent, not owned, so
 * a slot costs its tables and queues (under 4 KiB with a 1 MiB window and
 * a 4-send queue), not a window's worth of extents (~24 KiB); checked
 * from 10,000 connections, where the stack's fixed part is amortised. Counted by
 * the heap, not by the stack's own figure (which must not exceed it).
 */
#define SLOT_BUDGET 4096
static void
check_memory(const struct dt_dp_stats *cs, const struct dt_dp_stats *ss)
{
	double c = (double)env.cli_heap / (opt.conns + 64);
	double s = (double)env.srv_heap / (2.0 * opt.conns + 64);

	printf("  heap per slot: client %.0f B, server %.0f B (budget %u)\n",
		c, s, SLOT_BUDGET);
	/* A stack's fixed part (TX ring, timer wheel) weighs on small runs. */
	if (opt.conns >= 10000) {
		DT_CHECK(c <= SLOT_BUDGET);
		DT_CHECK(s <= SLOT_BUDGET);
	}
	DT_CHECK(cs->mem_bytes > 0 && cs->mem_bytes <= env.cli_heap);
	DT_CHECK(ss->mem_bytes > 0 && ss->mem_bytes <= env.srv_heap);
}

/* ---- the two modes ---- */
static void
test_concurrent(void)
{
	uint64_t t0, t_est, t_x, t_end, end, heap0;
	struct dt_dp_stats cs, ss;
	struct mallinfo2 mi;
	uint32_t i;

	mi = mallinfo2();
	heap0 = mi.uordblks;
	end = now_us() + (uint64_t)opt.timeout_s * 1000000;
	t0 = now_us();
	/* A bounded number of handshakes in flight: SYN queue, TX ring. */
	while (app.opened < opt.conns && now_us() < end) {
		while (app.opened < opt.conns &&
				app.opened - app.connected < OPEN_BATCH)
			if (open_one() != 0)
				break;
		poll_both();
	}
	while (app.connected < opt.conns && now_us() < end)
		poll_both();
	t_est = now_us();
	DT_CHECK_EQ(app.opened, opt.conns);
	DT_CHECK_EQ(app.connected, opt.conns);
	DT_CHECK(run_until(all_exchanged, end));
	t_x = now_us();
	dt_dp_stats_get(env.cli, &cs);
	dt_dp_stats_get(env.srv, &ss);
	/* All of them open at once, both ends. */
	DT_CHECK_EQ(cs.conns_open, opt.conns);
	DT_CHECK_EQ(ss.conns_open, opt.conns);
	DT_CHECK_EQ(app.accepted, opt.conns);
	for (i = 0; i < opt.conns; i++) {
		if (app.cn[i].rx != opt.bytes || app.cn[i].acked != opt.bytes ||
				app.cn[i].err) {
			printf("  conn %u: rx %u acked %u err %d\n", i,
				app.cn[i].rx, app.cn[i].acked, app.cn[i].err);
			DT_CHECK(false);
			break;
		}
		/* All at once, as an application would: the stack paces FINs. */
		if (dt_dp_close(env.cli, app.cn[i].conn) != 0)
			DT_CHECK(false);
	}
	if (!run_until(all_closed, end)) {
		dump_states("client", env.cli);
		dump_states("server", env.srv);
		DT_CHECK(false);
	}
	t_end = now_us();
	DT_CHECK_EQ(app.errors, 0);
	dt_dp_stats_get(env.cli, &cs);
	dt_dp_stats_get(env.srv, &ss);
	check_no_drops("client", &cs);
	check_no_drops("server", &ss);
	check_memory(&cs, &ss);
	if (opt.faults)
		DT_CHECK(cs.ooo_stores_lent + ss.ooo_stores_lent > 0);
	mi = mallinfo2();
	printf("  %u connections over %u server ports, %u B each way: "
		"established in %.3f s (%.0f/s), exchanged %.3f s, closed %.3f s\n",
		opt.conns, opt.ports, opt.bytes, (t_est - t0) / 1e6,
		opt.conns / ((t_est - t0 + 1) / 1e6), (t_x - t_est) / 1e6,
		(t_end - t_x) / 1e6);
	printf("  memory: client stack %" PRIu64 " B (%.0f B per slot), server "
		"stack %" PRIu64 " B (%.0f B per slot), ooo stores %" PRIu64
		"+%" PRIu64 " lent %" PRIu64 "+%" PRIu64 " none free %" PRIu64
		"+%" PRIu64 ", process heap (malloc) %.0f B per conn\n",
		cs.mem_bytes, (double)cs.mem_bytes / (opt.conns + 64),
		ss.mem_bytes, (double)ss.mem_bytes / (2.0 * opt.conns + 64),
		cs.ooo_stores, ss.ooo_stores, cs.ooo_stores_lent,
		ss.ooo_stores_lent, cs.drop_ooo_no_store, ss.drop_ooo_no_store,
		(double)(mi.uordblks - heap0) / opt.conns);
	printf("{\"conns_bench\": {\"mode\": \"concurrent\", \"conns\": %u, "
		"\"bytes\": %u, \"establish_per_s\": %.0f, \"cli_mem_bytes\": %"
		PRIu64 ", \"srv_mem_bytes\": %" PRIu64 ", \"cli_bytes_per_slot\": %.0f, "
		"\"srv_bytes_per_slot\": %.0f}}\n", opt.conns, opt.bytes,
		opt.conns / ((t_est - t0 + 1) / 1e6), cs.mem_bytes, ss.mem_bytes,
		(double)cs.mem_bytes / (opt.conns + 64),
		(double)ss.mem_bytes / (2.0 * opt.conns + 64));
}

static void
test_cps(void)
{
	uint64_t t0, stop, end;
	struct dt_dp_stats cs, ss;
	double s;

	t0 = now_us();
	stop = t0 + (uint64_t)(opt.cps_s * 1e6);
	end = stop + (uint64_t)opt.timeout_s * 1000000;
	phase = "cps: opening";
	while (now_us() < stop) {
		while (open_one() == 0)
			;
		poll_both();
	}
	/* No more opens: the ones in flight finish. */
	opt.conns = app.opened;
	phase = "cps: closing";
	DT_CHECK(run_until(all_closed, end));
	phase = "cps: counters";
	s = (now_us() - t0) / 1e6;
	DT_CHECK_EQ(app.errors, 0);
	DT_CHECK_EQ(app.c_rx_done, app.opened);
	DT_CHECK_EQ(app.s_rx_done, app.opened);
	dt_dp_stats_get(env.cli, &cs);
	dt_dp_stats_get(env.srv, &ss);
	check_no_drops("client", &cs);
	check_no_drops("server", &ss);
	printf("  %u short connections (%u B each way) in %.2f s: %.0f "
		"connections/s, one lcore polling both stacks (rough)\n",
		app.opened, opt.bytes, s, app.opened / s);
	printf("{\"conns_bench\": {\"mode\": \"cps\", \"conns\": %u, "
		"\"bytes\": %u, \"seconds\": %.2f, \"cps\": %.0f}}\n",
		app.opened, opt.bytes, s, app.opened / s);
}

int
main(int argc, char **argv)
{
	int r = rte_eal_init(argc, argv);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (r < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	if (parse_args(argc - r, argv + r) != 0)
		return 1;
	signal(SIGALRM, watchdog);
	watchdog_s = opt.timeout_s + (unsigned int)opt.cps_s + 60u;
	alarm(watchdog_s);
	phase = "setup";
	r = setup();
	if (r == -ENODEV)
		DT_TEST_SKIP("needs two net_hsplit ports and a gpu_sim device");
	if (r != 0) {
		printf("set-up failed: %s\n", rte_strerror(-r));
		return 1;
	}
	if (opt.cps_s > 0)
		DT_RUN(test_cps);
	else {
		phase = "concurrent";
		DT_RUN(test_concurrent);
	}
	phase = "tear-down";
	dt_dp_stack_destroy(env.cli);
	dt_dp_stack_destroy(env.srv);
	r = dp_fixture_teardown(&env.fx);
	DT_CHECK_EQ(r, 0);
	r = dt_test_summary();
	rte_eal_cleanup();
	return r;
}
