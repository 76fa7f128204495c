/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection-scale modes of devtcp-bench, over the same server and
 * client stacks as the TCP modes (bench_tcp.c: one stack per lcore, one
 * queue pair each, RSS over the server port's queues):
 *
 * cps  - short connections: each client stack keeps its share of --conns
 *        in flight; each connects, sends --bytes (default 1 KiB), the server
 *        answers as many, the client closes once the answer is in. New ones
 *        are opened for --duration; connections per second = connections
 *        that completed cleanly / seconds until the last one closed.
 * hold - --conns concurrent connections spread over the client stacks;
 *        each sends --bytes and gets as many back; once every connection
 *        has exchanged, all are open at once (each stack's conns_open is
 *        read), then all close. Reported: time to establish, memory per
 *        connection (the stacks' hugepage bytes over N, the libc heap's
 *        growth over N).
 *
 * Every byte is checked against the send pattern (both ends receive whole
 * frames in host memory). Stream bytes of a connection: the request is
 * pattern[start, start + B), the answer pattern[start + B, start + 2B);
 * start derives from the client's port, so both ends know it.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "bench_conns_priv.h"


static size_t
bc_heap_now(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* ------------------------------------------------------------- loops */

static void
side_phase(struct bc_side *s)
{
	struct bc_run *run = s->run;
	struct dt_dp_stats ds;

	if (run->phase >= BC_COUNT && !s->counted) {
		dt_dp_stats_get(s->st, &ds);
		s->conns_open_peak = ds.conns_open;
		s->counted = true;
		__atomic_fetch_add(&run->sides_counted, 1, __ATOMIC_RELEASE);
	}
	if (run->phase == BC_CLOSE && !s->server && !s->closed_all)
		bench_conns_cli_close_some(s);
}

static void
side_poll(struct bc_side *s)
{
	struct dt_dp_event ev[BC_EV_BATCH];
	uint16_t n, i;

	if (s->run->mode == BENCH_MODE_HOLD)
		side_phase(s);
	if (!s->server)
		bench_conns_cli_open(s);
	s->frames += (uint64_t)dt_dp_poll(s->st);
	while ((n = dt_dp_events(s->st, ev, BC_EV_BATCH)) > 0)
		for (i = 0; i < n; i++) {
			if (s->server)
				bench_conns_srv_event(s, &ev[i]);
			else
				bench_conns_cli_event(s, &ev[i]);
		}
}

/* Sums over the sides of one kind (main lcore; the counters are live). */
struct bc_sums {
	uint64_t opened, connected, exchanged, completed, closed, failed;
	uint64_t bytes, frames, rtx;
};

static void
run_sums(const struct bc_run *run, bool server, struct bc_sums *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < run->nb_sides; i++) {
		const struct bc_side *s = &run->sides[i];

		if (s->server != server)
			continue;
		t->opened += s->opened;
		t->connected += s->connected;
		t->exchanged += s->exchanged;
		t->completed += s->completed;
		t->closed += s->closed;
		t->failed += s->failed;
		t->bytes += s->rx_bytes;
		t->frames += s->frames;
		t->rtx += s->retransmits;
	}
}

static bool
run_done(const struct bc_run *run, const struct bc_sums *c,
	const struct bc_sums *sv)
{
	if (run->mode == BENCH_MODE_HOLD && run->phase != BC_CLOSE)
		return false;
	if (run->mode == BENCH_MODE_CPS && !run->stop_opening)
		return false;
	return c->closed == c->opened && sv->closed == sv->opened &&
		(run->mode == BENCH_MODE_CPS || c->opened == run->conns ||
			run->stop_opening);
}

static void
run_progress(const struct bc_run *run, const struct bench_sample *smp,
	uint64_t done, const struct bc_sums *c, const struct bc_sums *sv)
{
	if (run->mode == BENCH_MODE_CPS)
		printf("  [%-9s] %5.1fs  %8.0f conn/s  completed %" PRIu64
			"  in flight %" PRIu64 "  failed %" PRIu64 "  rtx %" PRIu64 "\n",
			bench_mode_name(run->mode), smp->t,
			smp->dt > 0 ? (double)done / smp->dt : 0,
			c->completed, c->opened - c->closed,
			c->failed + sv->failed, c->rtx + sv->rtx);
	else
		printf("  [%-9s] %5.1fs  established %" PRIu64 "/%u  exchanged %"
			PRIu64 "  closed %" PRIu64 "  failed %" PRIu64 "  rtx %" PRIu64
			"\n", bench_mode_name(run->mode), smp->t, c->connected,
			run->conns, c->exchanged, c->closed, c->failed + sv->failed,
			c->rtx + sv->rtx);
	fflush(stdout);
}

/* Main lcore, between polls: the clock, the phases, samples, progress. */
static bool
run_tick(struct bc_run *run)
{
	const struct bench_opts *o = run->env->opts;
	uint64_t now = rte_rdtsc();
	double t = (double)(now - run->t0) / run->hz;
	const struct bench_sample *smp;
	struct bc_sums c, sv;

	run_sums(run, false, &c);
	run_sums(run, true, &sv);
	if (!run->stop_opening && (*run->env->quit ||
			(run->mode == BENCH_MODE_CPS && t >= o->duration))) {
		run->stop_opening = true;
		run->t_stop = now;
	}
	if (run->mode == BENCH_MODE_HOLD) {
		if (run->t_est == 0 && c.connected == run->conns)
			run->t_est = now;
		/*
		 * Every one exchanged both ways or gone (failed: reported
		 * then), or a signal: count, then close.
		 */
		if (run->phase == BC_RUN && ((c.opened == run->conns &&
				c.exchanged + c.closed == run->conns &&
				sv.exchanged + sv.closed >= sv.opened) ||
				(run->stop_opening && c.opened == c.connected))) {
			run->t_xchg = now;
			run->heap_peak = bc_heap_now();
			run->phase = BC_COUNT;
		}
		if (run->phase == BC_COUNT && __atomic_load_n(&run->sides_counted,
				__ATOMIC_ACQUIRE) == run->nb_sides)
			run->phase = BC_CLOSE;
	}
	if (run_done(run, &c, &sv)) {
		__atomic_store_n(&run->t_end, now, __ATOMIC_RELEASE);
		return true;
	}
	if (t >= run->limit_s || (run->t_stop != 0 &&
			now - run->t_stop > (uint64_t)BC_DRAIN_S * run->hz)) {
		fprintf(stderr, "devtcp-bench: %s: not done after %.1f s: %" PRIu64
			" of %" PRIu64 " client connections closed, %" PRIu64
			" established, %" PRIu64 " exchanged\n",
			bench_mode_name(run->mode), t, c.closed, c.opened,
			c.connected, c.exchanged);
		run->abort = true;
		return true;
	}
	if (now < run->t_next_print)
		return false;
	run->t_next_print += run->hz;
	/* Samples: payload both ways, frames both stacks received. */
	smp = bench_sample_take(run->res, &run->sp, t, c.bytes + sv.bytes,
		c.frames + sv.frames, c.rtx + sv.rtx);
	if (!o->quiet && smp != NULL)
		run_progress(run, smp, c.completed - run->done_shown, &c, &sv);
	run->done_shown = c.completed;
	return false;
}

static int
lcore_loop(void *arg)
{
	struct bc_lcore *l = arg;
	struct bc_run *run = l->run;
	unsigned int i;
	bool done = false;

	while (!run->abort && !done) {
		for (i = 0; i < l->nb; i++)
			side_poll(l->sides[i]);
		if (l->main)
			done = run_tick(run);
		else
			done = __atomic_load_n(&run->t_end, __ATOMIC_ACQUIRE) != 0;
	}
	return 0;
}

/* ------------------------------------------------------------- set-up */

static int
bc_ports_start(const struct bench_tcp_env *env, uint16_t ns, uint16_t nc)
{
	struct dt_dp_port_conf pc;
	char err[256];
	int r;

	memset(&pc, 0, sizeof(pc));
	pc.nb_rxq = nc;
	pc.nb_txq = nc;
	pc.nb_rxd = BC_NB_DESC;
	pc.nb_txd = BC_NB_DESC;
	pc.mtu = env->opts->mtu;
	pc.hdr_pool = env->c_pool;
	pc.tx_cksum = true;
	pc.tx_multi_seg = true;
	r = dt_dp_port_start(env->cport, &pc, err, sizeof(err));
	if (r != 0) {
		fprintf(stderr, "devtcp-bench: client port %u: %s\n", env->cport, err);
		return r;
	}
	/* Whole frames in host memory: both ends read what they check. */
	pc.nb_rxq = ns;
	pc.nb_txq = ns;
	pc.hdr_pool = env->s_whole;
	r = dt_dp_port_start(env->sport, &pc, err, sizeof(err));
	if (r != 0) {
		fprintf(stderr, "devtcp-bench: server port %u: %s\n", env->sport, err);
		dt_dp_port_stop(env->cport);
	}
	return r;
}

/*
 * Slots of each stack. hold: a client stack its share, a server stack
 * its share of the RSS spread with room for the imbalance (a table that
 * is too small shows as drop_conn_table_full and failed connections).
 * cps: the connections in flight, plus the client's TIME_WAIT.
 */
static uint32_t
bc_slots(const struct bc_run *run, bool server, uint32_t share)
{
	uint64_t n;

	if (run->mode == BENCH_MODE_HOLD)
		n = server ? (run->nsrv == 1 ? run->conns :
			(uint64_t)run->conns / run->nsrv * 5 / 4 + 1024) : share;
	else
		n = server ? (uint64_t)run->conns + 1024 : share + BC_TW_SLACK;
	return (uint32_t)RTE_MIN(n + 64, (uint64_t)run->conns + 2048 +
		(server ? 0 : BC_TW_SLACK));
}

static struct dt_dp_stack *
bc_stack_new(const struct bc_run *run, bool server, uint16_t q,
	uint32_t slots)
{
	const struct bench_tcp_env *env = run->env;
	struct dt_dp_stack_conf sc;
	struct dt_dp_stack *st;

	dt_dp_stack_conf_default(&sc);
	sc.port_id = server ? env->sport : env->cport;
	sc.rxq = q;
	sc.txq = q;
	sc.ipv4 = rte_cpu_to_be_32(server ? BC_SRV_IP : BC_CLI_IP);
	sc.max_conns = slots;
	sc.backlog = 4096;
	/* A little data each: a small window and send queue per connection. */
	sc.window = 65536;
	sc.txq_cap = 4;
	sc.hdr_pool = server ? env->s_whole : env->c_pool;
	sc.shell_pool = server ? env->s_shell : env->c_shell;
	sc.tx_cksum_offload = true;
	/*
	 * cps: TIME_WAIT of 40 ms, short connections reuse ports and slots.
	 * hold: 1 s, longer than a FIN sent again while thousands close (a
	 * busy or time-shared lcore answers late): no RST for a late FIN.
	 */
	sc.tcp.msl_us = run->mode == BENCH_MODE_HOLD ? 500000 : 20000;
	sc.tcp.delack_us = 1000;
	st = dt_dp_stack_create(&sc);
	if (st == NULL)
		fprintf(stderr, "devtcp-bench: cannot create the %s stack on queue %u (%u connection slots): %s\n",
			server ? "server" : "client", q, slots,
			rte_strerror(rte_errno));
	return st;
}

static int
bc_sides_create(struct bc_run *run)
{
	uint16_t i, p;
	uint32_t k;

	for (i = 0; i < run->nsrv + run->ncli; i++) {
		struct bc_side *s = &run->sides[i];
		bool server = i < run->nsrv;
		uint16_t q = server ? i : (uint16_t)(i - run->nsrv);
		uint32_t share = server ? 0 : run->conns / run->ncli +
			(q < run->conns % run->ncli);

		s->run = run;
		s->server = server;
		s->q = q;
		s->quota = share;
		s->cap = bc_slots(run, server, share);
		s->st = bc_stack_new(run, server, q, s->cap);
		if (s->st == NULL)
			return -ENOMEM;
		run->nb_sides++;
		s->c = calloc(s->cap, sizeof(s->c[0]));
		if (s->c == NULL)
			return -ENOMEM;
		for (k = 0; k < s->cap; k++)
			s->c[k].next_free = k + 1 < s->cap ? k + 1 : UINT32_MAX;
		s->free_head = 0;
		if (!server)
			continue;
		for (p = 0; p < run->nports; p++)
			if (dt_dp_listen(s->st, (uint16_t)(BC_SRV_PORT0 + p)) != 0)
				return -EADDRINUSE;
	}
	return 0;
}

static void
bc_sides_free(struct bc_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nb_sides; i++) {
		dt_dp_stack_destroy(run->sides[i].st);
		free(run->sides[i].c);
	}
	run->nb_sides = 0;
}

/* ------------------------------------------------------------- results */

static void
bc_collect(struct bc_run *run, struct bench_result *res)
{
	struct bench_conns_result *cr = &res->cr;
	struct rte_eth_stats es;
	struct dt_dp_stats ds;
	unsigned int i;

	res->server_stacks = run->nsrv;
	res->client_stacks = run->ncli;
	res->seconds = (double)((run->t_end != 0 ? run->t_end : rte_rdtsc()) -
		run->t0) / run->hz;
	cr->bytes = run->bytes;
	cr->server_ports = run->nports;
	cr->in_flight = run->mode == BENCH_MODE_CPS ? run->conns : 0;
	cr->heap_bytes = run->heap_peak > run->heap0 ?
		run->heap_peak - run->heap0 : 0;
	/* A sanitizer's allocator leaves mallinfo2() all zero. */
	cr->heap_measured = run->heap0 != 0;
	if (run->t_est != 0)
		cr->establish_s = (double)(run->t_est - run->t0) / run->hz;
	if (run->t_xchg != 0)
		cr->exchange_s = (double)(run->t_xchg - run->t0) / run->hz;
	if (run->t_xchg != 0 && run->t_end != 0)
		cr->close_s = (double)(run->t_end - run->t_xchg) / run->hz;
	for (i = 0; i < run->nb_sides; i++) {
		struct bc_side *s = &run->sides[i];
		struct bench_conns_stack *cs;
		uint64_t drops;

		dt_dp_stats_get(s->st, &ds);
		bench_tcp_report_drops(run->mode, s->server, s->q, &ds);
		drops = bench_tcp_stack_drops(&ds) + ds.drop_ooo_no_store;
		res->stack_drops += drops;
		res->events_overflow += ds.events_overflow;
		res->tcp_errors += s->errors;
		res->retransmits += s->retransmits;
		cr->failed += s->failed;
		cr->bad_bytes += s->bad_bytes;
		cr->open_waits += s->open_waits;
		cs = s->server ? &cr->srv[s->q] : &cr->cli[s->q];
		*cs = (struct bench_conns_stack){ .lcore = run->lcore_of[i],
			.conns = s->opened, .completed = s->completed,
			.failed = s->failed, .conns_open_peak = s->conns_open_peak,
			.slots = s->cap, .mem_bytes = ds.mem_bytes, .drops = drops,
			.retransmits = s->retransmits };
		if (s->server) {
			cr->srv_mem_bytes += ds.mem_bytes;
			cr->srv_slots += s->cap;
			cr->srv_open_peak += s->conns_open_peak;
			cr->accepted += s->opened;
			res->rx_frames += ds.rx_frames;
			res->stack_cycles += ds.rx_cycles;
			res->payload_bytes += s->rx_bytes;
			res->stack[s->q] = (struct bench_stack_result){
				.lcore = run->lcore_of[i], .conns = s->opened,
				.rx_frames = ds.rx_frames,
				.payload_bytes = s->rx_bytes,
				.stack_cycles = ds.rx_cycles, .drops = drops };
		} else {
			cr->cli_mem_bytes += ds.mem_bytes;
			cr->cli_slots += s->cap;
			cr->cli_open_peak += s->conns_open_peak;
			cr->answer_bytes += s->rx_bytes;
			res->tx_frames += ds.tx_frames;
			res->conns += s->opened;
			res->conns_done += s->completed;
		}
	}
	res->sent_bytes = res->payload_bytes;
	if (rte_eth_stats_get(run->env->sport, &es) == 0)
		res->missed = es.imissed + es.rx_nombuf;
	if (rte_eth_stats_get(run->env->cport, &es) == 0)
		res->missed += es.imissed + es.rx_nombuf;
}

/* Frames every stack took (the samples' count; dt_dp_poll()'s returns). */
static uint64_t
bc_frames(const struct bc_run *run)
{
	unsigned int i;
	uint64_t n = 0;

	for (i = 0; i < run->nb_sides; i++)
		n += run->sides[i].frames;
	return n;
}

/* The lcores: servers on the first S (main first), clients on the next C. */
static unsigned int
bc_place(struct bc_run *run, struct bc_lcore *lc, unsigned int nlc)
{
	const struct bench_tcp_env *env = run->env;
	unsigned int i;

	for (i = 0; i < nlc; i++) {
		lc[i].run = run;
		lc[i].main = i == 0;
	}
	for (i = 0; i < run->nb_sides; i++) {
		struct bc_lcore *l = &lc[nlc == 1 ? 0 : i];

		l->sides[l->nb++] = &run->sides[i];
		run->lcore_of[i] = env->lcores[nlc == 1 ? 0 : i];
	}
	return nlc;
}

static int
bc_launch(struct bc_run *run, struct bc_lcore *lc, unsigned int nlc)
{
	const struct bench_tcp_env *env = run->env;
	unsigned int i;
	int r = 0;

	run->t0 = rte_rdtsc();
	run->t_next_print = run->t0 + run->hz;
	for (i = 1; i < nlc; i++) {
		r = rte_eal_remote_launch(lcore_loop, &lc[i], env->lcores[i]);
		if (r != 0) {
			fprintf(stderr, "devtcp-bench: cannot launch lcore %u: %s\n",
				env->lcores[i], rte_strerror(-r));
			run->abort = true;
			nlc = i;
			break;
		}
	}
	if (!run->abort)
		lcore_loop(&lc[0]);
	for (i = 1; i < nlc; i++)
		rte_eal_wait_lcore(env->lcores[i]);
	return r;
}

int
bench_conns_run(const struct bench_tcp_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res)
{
	const struct bench_opts *o = env->opts;
	struct bc_lcore *lc;
	struct bc_run *run;
	unsigned int nlc;
	uint16_t ns, nc;
	char why[256];
	int r;

	if (server_stacks != 0 && bench_tcp_stacks_check(server_stacks,
			env->nb_lcores, why, sizeof(why)) != NULL) {
		fprintf(stderr, "devtcp-bench: %s\n", why);
		return -EINVAL;
	}
	ns = server_stacks != 0 ? server_stacks : (uint16_t)(env->nb_lcores >= 2 ?
		RTE_MIN(env->nb_lcores / 2, (unsigned int)BENCH_MAX_STACKS) : 1);
	nc = env->nb_lcores >= 2 ? (uint16_t)RTE_MIN((unsigned int)ns,
		env->nb_lcores - ns) : 1;
	nlc = env->nb_lcores >= 2 ? (unsigned int)ns + nc : 1u;
	run = calloc(1, sizeof(*run));
	lc = calloc(nlc, sizeof(*lc));
	if (run == NULL || lc == NULL) {
		free(run);
		free(lc);
		return -ENOMEM;
	}
	run->env = env;
	run->mode = mode;
	run->nsrv = ns;
	run->ncli = nc;
	run->res = res;
	run->bytes = o->bytes != 0 ? (uint32_t)o->bytes : BC_DEFAULT_BYTES;
	run->hz = rte_get_tsc_hz();
	/* cps without --conns: 32 in flight per client stack. */
	run->conns = o->conns_set ? o->conns :
		(mode == BENCH_MODE_CPS ? 32u * nc : 1000u);
	if (run->conns < nc)
		run->conns = nc;
	run->nports = (uint16_t)RTE_MAX(2u, (run->conns + BC_PER_PORT - 1) /
		BC_PER_PORT);
	run->limit_s = mode == BENCH_MODE_HOLD ? (o->duration_set ?
		o->duration : BC_HOLD_LIMIT_S) : o->duration + BC_DRAIN_S + 5;
	run->heap0 = bc_heap_now();
	r = bc_ports_start(env, ns, nc);
	if (r != 0)
		goto out;
	rte_eth_stats_reset(env->sport);
	rte_eth_stats_reset(env->cport);
	r = bc_sides_create(run);
	if (r == 0)
		r = bc_launch(run, lc, bc_place(run, lc, nlc));
	if (r == 0) {
		bc_collect(run, res);
		bench_sample_take(res, &run->sp,
			(double)(rte_rdtsc() - run->t0) / run->hz,
			res->payload_bytes + res->cr.answer_bytes,
			bc_frames(run), res->retransmits);
		if (run->abort)
			res->tcp_errors++;
	}
	bc_sides_free(run);
	dt_dp_port_stop(env->cport);
	dt_dp_port_stop(env->sport);
out:
	free(lc);
	free(run);
	return r;
}

/* Whether a cps/hold run is clean; says why not on stderr. */
static bool
conns_ok(const struct bench_opts *o, const struct bench_result *r)
{
	const struct bench_conns_result *cr = &r->cr;
	const char *m = bench_mode_name(r->mode);
	bool ok = true;

	RTE_SET_USED(o);
	if (r->conns == 0 || r->conns_done != r->conns || cr->failed != 0 ||
			cr->bad_bytes != 0 || r->tcp_errors != 0 ||
			r->events_overflow != 0) {
		fprintf(stderr, "devtcp-bench: %s: %u of %u connections exchanged %u bytes each way and closed; %"
			PRIu64 " failed, %" PRIu64 " bytes differ from the pattern, %"
			PRIu64 " errors, %" PRIu64 " event overflows\n", m,
			r->conns_done, r->conns, cr->bytes, cr->failed, cr->bad_bytes,
			r->tcp_errors, r->events_overflow);
		ok = false;
	}
	if (r->mode == BENCH_MODE_HOLD && (cr->srv_open_peak != r->conns ||
			cr->cli_open_peak != r->conns)) {
		fprintf(stderr, "devtcp-bench: hold: open at once: %" PRIu64
			" client, %" PRIu64 " server connections, not %u\n",
			cr->cli_open_peak, cr->srv_open_peak, r->conns);
		ok = false;
	}
	return ok;
}

static int
conns_mode_run(struct bench_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res)
{
	return bench_conns_run(&env->tcp, mode, server_stacks, res);
}

const struct bench_mode_ops bench_mode_cps = {
	.run = conns_mode_run, .ok = conns_ok,
};
const struct bench_mode_ops bench_mode_hold = {
	.run = conns_mode_run, .ok = conns_ok,
};
