/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP modes of devtcp-bench: N connections from client stacks (lib/dp)
 * on port 0 to server stacks on port 1, over whatever wire joins them.
 *
 * split - port 1 splits every frame: headers in hugepage mbufs, payload in
 *         the payload region (device memory), delivered as DEVICE chunks.
 *         The CPU never reads or copies payload (--verify reads it through
 *         the region's CPU alias, or checks it with a kernel on the GPU).
 * copy  - the same stacks, port 1 without split: whole frames in host mbufs,
 *         delivered as HOST chunks; the bench copies each into device memory
 *         (the landing region) with the region's copy engine and releases
 *         the chunk once its copy has landed. The bounce-buffer baseline.
 * In both, a HOST chunk (payload the NIC left in a header buffer) is copied
 * the same way: the receiver lands every payload byte in device memory, and
 * what it had to copy is counted.
 *
 * Lcores: with one, every stack is polled in turn on it; otherwise S server
 * stacks (one queue pair of port 1 each, RSS across them) run on the first
 * S lcores, main first, and C client stacks on the next C: by default
 * S = C = half the lcores; with --stacks, S as asked and C = min(S, lcores
 * left). The main lcore also prints progress and keeps the clock.
 *
 * Streams: byte o of a connection is byte (start + o) % BENCH_TCP_PAT_LEN
 * of a pattern buffer whose byte i is dt_pattern_byte(i); start depends on
 * the client's local port, so both ends derive it with no shared state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "bench_tcp_priv.h"

/* ------------------------------------------------------------- loops */

static void
side_poll(struct bt_side *s)
{
	struct bt_run *run = s->run;
	struct dt_dp_event ev[BT_EV_BATCH];
	uint64_t t0 = rte_rdtsc(), now;
	uint16_t n, i;
	uint32_t k;
	int nf, got;

	if (!s->server)
		bench_tcp_cli_open(s);
	nf = dt_dp_poll(s->st);
	got = nf;
	do {
		n = dt_dp_events(s->st, ev, BT_EV_BATCH);
		for (i = 0; i < n; i++) {
			if (s->server)
				bench_tcp_srv_event(s, &ev[i]);
			else
				bench_tcp_cli_event(s, &ev[i]);
		}
		got += n;
	} while (n > 0);
	if (s->server) {
		bench_tcp_copy_flush(s);
		/*
		 * Nothing came: check what the verifier holds now, or held
		 * chunks could keep the window shut and the sender waiting.
		 */
		if (got == 0 && s->ver_rx != NULL && s->ver_rx->nheld != 0)
			bench_verify_flush(s->ver_rx);
		/*
		 * Held chunks count against the receive window (half the RX
		 * ring over all connections): check and release them long
		 * before a full verification batch, or the window shuts and
		 * the figure is the verifier's, not the path's.
		 */
		if (s->ver_rx != NULL && s->ver_rx->nheld >= BT_VERIFY_HOLD)
			bench_verify_flush(s->ver_rx);
		if (got != 0) {
			s->frames += (uint64_t)nf;
			s->cycles += rte_rdtsc() - t0;
		}
		return;
	}
	if (run->stop_sending && s->nb_shut < s->nb)
		for (k = 0; k < s->nb; k++)
			if (!s->conns[k].shut)
				bench_tcp_cli_fill(s, &s->conns[k]);
	now = rte_rdtsc();
	if (now >= s->next_sample) {
		for (k = 0; k < s->nb; k++)
			bench_tcp_cli_sample(s, &s->conns[k]);
		s->next_sample = now + run->hz;
	}
}

static bool
run_done(struct bt_run *run)
{
	return __atomic_load_n(&run->cli_closed, __ATOMIC_ACQUIRE) >= run->conns &&
		__atomic_load_n(&run->srv_closed, __ATOMIC_ACQUIRE) >=
		__atomic_load_n(&run->srv_accepted, __ATOMIC_ACQUIRE);
}

/* The live counters of every side: payload, frames received, retransmissions. */
void
bench_tcp_run_totals(const struct bt_run *run, uint64_t *bytes, uint64_t *frames,
	uint64_t *rtx)
{
	unsigned int i;

	*bytes = *frames = *rtx = 0;
	for (i = 0; i < run->nb_sides; i++) {
		*bytes += run->sides[i].rx_bytes;
		*frames += run->sides[i].frames;
		*rtx += run->sides[i].retransmits;
	}
}

/* Main lcore, between polls: the clock, the limits, the samples and the progress line. */
static void
run_tick(struct bt_run *run)
{
	const struct bench_opts *o = run->env->opts;
	uint64_t now = rte_rdtsc(), bytes, frames, rtx;
	double t = (double)(now - run->t0) / run->hz;
	const struct bench_sample *smp;

	if (!run->stop_sending && (*run->env->quit ||
			(o->bytes == 0 && t >= o->duration))) {
		run->stop_sending = true;
		run->t_stop = now;
	}
	if (o->bytes != 0 && t >= o->duration) {
		fprintf(stderr, "devtcp-bench: %s: not done after %.0f s (--duration is the time limit with --bytes)\n",
			bench_mode_name(run->mode), o->duration);
		run->abort = true;
	}
	if (run->stop_sending && now - run->t_stop > BT_DRAIN_S * run->hz) {
		fprintf(stderr, "devtcp-bench: %s: connections still open %d s after the senders stopped\n",
			bench_mode_name(run->mode), BT_DRAIN_S);
		run->abort = true;
	}
	if (now < run->t_next_print)
		return;
	run->t_next_print += run->hz;
	/* A sample a second, --quiet or not; the line shows its rates. */
	bench_tcp_run_totals(run, &bytes, &frames, &rtx);
	smp = bench_sample_take(run->res, &run->sp, t, bytes, frames, rtx);
	if (o->quiet || smp == NULL)
		return;
	bench_tcp_progress(run->mode, smp, rtx,
		__atomic_load_n(&run->srv_eof, __ATOMIC_RELAXED), run->conns,
		bytes, o->bytes * run->conns);
}

static int
lcore_loop(void *arg)
{
	struct bt_lcore *l = arg;
	struct bt_run *run = l->run;
	unsigned int i;

	while (!run->abort) {
		for (i = 0; i < l->nb; i++)
			side_poll(l->sides[i]);
		if (l->main)
			run_tick(run);
		if (run_done(run))
			break;
	}
	return 0;
}

/* ------------------------------------------------------------- set-up */

static int
tcp_ports_start(const struct bench_tcp_env *env, enum bench_mode mode,
	uint16_t ns, uint16_t nc)
{
	const struct bench_opts *o = env->opts;
	struct dt_dp_port_conf pc;
	char err[256];
	int r;

	/* A queue pair per stack: RSS must not spread onto unpolled queues. */
	memset(&pc, 0, sizeof(pc));
	pc.nb_rxq = nc;
	pc.nb_txq = nc;
	pc.nb_rxd = BT_NB_DESC;
	pc.nb_txd = BT_NB_DESC;
	pc.mtu = o->mtu;
	pc.hdr_pool = env->c_pool;
	pc.tx_cksum = true;
	pc.tx_multi_seg = true;
	r = dt_dp_port_start(env->cport, &pc, err, sizeof(err));
	if (r != 0) {
		fprintf(stderr, "devtcp-bench: client port %u: %s\n", env->cport, err);
		return r;
	}
	pc.nb_rxq = ns;
	pc.nb_txq = ns;
	if (mode == BENCH_MODE_SPLIT) {
		pc.split = DT_DP_SPLIT_PROTO;
		pc.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
		pc.hdr_pool = env->s_hdr;
		pc.pay_pool = dt_devmem_region_pool(env->rx_region);
	} else {
		pc.hdr_pool = env->s_whole;
	}
	r = dt_dp_port_start(env->sport, &pc, err, sizeof(err));
	if (r != 0) {
		fprintf(stderr, "devtcp-bench: server port %u: %s\n", env->sport, err);
		dt_dp_port_stop(env->cport);
	}
	return r;
}

/*
 * Receive window per connection: what the receive buffers hold, shared by
 * the connections, 1 MiB at most. Past it the NIC would run out of buffers
 * and drop: TCP recovers, but the figure is then that of recovery.
 */
static uint32_t
tcp_window(const struct bench_tcp_env *env, enum bench_mode mode,
	uint32_t conns)
{
	const struct rte_mempool *mp = mode == BENCH_MODE_SPLIT ?
		dt_devmem_region_pool(env->rx_region) : env->s_whole;
	uint64_t bufs = mp->size > 2 * BT_NB_DESC ? mp->size - BT_NB_DESC : mp->size / 2;
	uint64_t w = bufs / 2 * 1024 / conns;
	/*
	 * And what the server's RX ring holds: frames beyond it are missed
	 * before the stack sees them. Half the ring, in MSS-sized frames.
	 */
	uint64_t ring = (uint64_t)BT_NB_DESC / 2 * (env->opts->mtu - 40) /
		conns;

	w = RTE_MIN(w, ring);

	return (uint32_t)RTE_MAX(RTE_MIN(w, (uint64_t)1 << 20), (uint64_t)65536);
}

static struct dt_dp_stack *
tcp_stack_new(const struct bench_tcp_env *env, enum bench_mode mode,
	bool server, uint16_t q, uint32_t conns)
{
	struct dt_dp_stack_conf sc;
	struct dt_dp_stack *st;

	dt_dp_stack_conf_default(&sc);
	sc.port_id = server ? env->sport : env->cport;
	sc.rxq = q;
	sc.txq = q;
	sc.ipv4 = rte_cpu_to_be_32(server ? BT_SRV_IP : BT_CLI_IP);
	/* Any server stack may get every connection (RSS decides). */
	sc.max_conns = conns + 8;
	sc.backlog = (uint16_t)RTE_MIN(conns + 8, UINT16_MAX);
	sc.window = tcp_window(env, mode, conns);
	sc.hdr_pool = server ? env->s_hdr : env->c_pool;
	sc.shell_pool = server ? env->s_shell : env->c_shell;
	sc.region = server && mode == BENCH_MODE_SPLIT ? env->rx_region : NULL;
	sc.tx_cksum_offload = true;
	/*
	 * Short TIME_WAIT, since a run ends when every connection has closed
	 * (goodput is counted to the last byte, not to the close): 0.5 s. At
	 * 40 ms (MSL 20 ms) a client lcore descheduled for longer under
	 * stress-ng (8 lcores and 2 CPU hogs on 2 CPUs) met the server's
	 * retransmitted FIN after its TIME_WAIT: drop_no_conn, in 50 of 50
	 * stress-suite runs of bench_tcp_4stacks_verify (issue 25).
	 */
	sc.tcp.msl_us = 250000;
	st = dt_dp_stack_create(&sc);
	if (st == NULL)
		fprintf(stderr, "devtcp-bench: cannot create the %s stack on queue %u: %s\n",
			server ? "server" : "client", q, rte_strerror(rte_errno));
	return st;
}

static struct bench_verifier *
tcp_verifier(const struct bench_tcp_env *env, struct bt_side *s,
	struct dt_devmem_region *r, const uint8_t *alias, bool tokens)
{
	struct bench_verifier *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	v->check = env->check;
	v->alias = alias;
	v->region_base = (uintptr_t)dt_devmem_region_base(r);
	v->gpu_id = dt_devmem_region_gpu_id(r);
	v->res = &s->vres;
	if (tokens) {
		v->release = bench_tcp_release_tokens;
		v->release_arg = s;
	}
	return v;
}

static int
tcp_sides_create(const struct bench_tcp_env *env, struct bt_run *run,
	enum bench_mode mode)
{
	const struct bench_opts *o = env->opts;
	uint16_t i, k = run->ncli;

	for (i = 0; i < run->nsrv + run->ncli; i++) {
		struct bt_side *s = &run->sides[i];
		bool server = i < run->nsrv;
		uint16_t q = server ? i : i - run->nsrv;

		s->run = run;
		s->server = server;
		s->st = tcp_stack_new(env, mode, server, q, run->conns);
		if (s->st == NULL)
			return -rte_errno;
		run->nb_sides++;
		if (server) {
			s->cap = run->conns;
			/* Slices of whole cache lines, as bench_tcp_land() fills them. */
			s->land_len = RTE_ALIGN_FLOOR(run->land_len / run->nsrv,
				RTE_CACHE_LINE_SIZE);
			s->land_base = run->land_base + (uintptr_t)q * s->land_len;
			if (dt_dp_listen(s->st, BT_SRV_PORT) != 0)
				return -EADDRINUSE;
		} else {
			s->cap = run->conns / k + (q < run->conns % k);
			s->to_open = s->cap;
		}
		s->conns = calloc(RTE_MAX(s->cap, 1u), sizeof(s->conns[0]));
		if (s->conns == NULL)
			return -ENOMEM;
		if (server && o->verify) {
			s->ver_rx = tcp_verifier(env, s, env->rx_region,
				env->rx_alias, true);
			s->ver_land = tcp_verifier(env, s, env->land_region,
				env->land_alias, false);
			if (s->ver_rx == NULL || s->ver_land == NULL)
				return -ENOMEM;
		}
	}
	/* The openers spread their connections with it (bench_tcp_cli_connect). */
	run->srss_ok = run->nsrv > 1 && !o->rss_blind &&
		dt_dp_port_rss_get(env->sport, &run->srss) == 0 &&
		run->srss.reta_size != 0;
	return 0;
}

static void
tcp_sides_free(struct bt_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nb_sides; i++) {
		struct bt_side *s = &run->sides[i];

		dt_dp_stack_destroy(s->st);
		dt_copy_chan_close(s->ch);
		free(s->ver_rx);
		free(s->ver_land);
		free(s->conns);
	}
	run->nb_sides = 0;
}

/* The side's copy channel, opened on the lcore that uses it. */
static int
lcore_entry(void *arg)
{
	struct bt_lcore *l = arg;
	struct bt_run *run = l->run;
	unsigned int i;

	for (i = 0; i < l->nb; i++) {
		struct bt_side *s = l->sides[i];

		if (!s->server || s->ch != NULL)
			continue;
		s->ch = dt_copy_chan_open(dt_devmem_region_engine(
			run->env->land_region));
		if (s->ch == NULL) {
			fprintf(stderr, "devtcp-bench: cannot open a copy channel: %s\n",
				rte_strerror(rte_errno));
			run->abort = true;
			return rte_errno != 0 ? -rte_errno : -EIO;
		}
	}
	return lcore_loop(l);
}

const char *
bench_tcp_stacks_check(uint16_t server_stacks, unsigned int nb_lcores,
	char *buf, size_t len)
{
	if (server_stacks < 1 || server_stacks > BT_MAX_STACKS) {
		snprintf(buf, len, "%u server stacks: 1..%u are supported",
			server_stacks, BT_MAX_STACKS);
		return buf;
	}
	/* One lcore polls one server and one client stack in turn. */
	if (server_stacks == 1 || nb_lcores > server_stacks)
		return NULL;
	snprintf(buf, len, "%u server stacks need %u lcores (one each, and at least one for the client stacks); EAL has %u: give more with -l or --lcores (e.g. --lcores '0-%u' or, on fewer CPUs, '0@0,1@1,...')",
		server_stacks, server_stacks + 1u, nb_lcores, server_stacks);
	return buf;
}

int
bench_tcp_run(const struct bench_tcp_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res)
{
	const struct bench_opts *o = env->opts;
	struct bt_lcore *lc = NULL;
	struct bt_run *run;
	unsigned int i, nlc;
	uint16_t ns, nc;
	char why[256];
	int r;

	if (server_stacks == 0) {
		ns = (uint16_t)(env->nb_lcores >= 2 ?
			RTE_MIN(env->nb_lcores / 2, (unsigned int)BT_MAX_STACKS) : 1);
		nc = ns;
	} else {
		if (bench_tcp_stacks_check(server_stacks, env->nb_lcores, why,
				sizeof(why)) != NULL) {
			fprintf(stderr, "devtcp-bench: %s\n", why);
			return -EINVAL;
		}
		ns = server_stacks;
		nc = env->nb_lcores >= 2 ? (uint16_t)RTE_MIN(
			(unsigned int)ns, env->nb_lcores - ns) : 1;
	}
	run = calloc(1, sizeof(*run));
	nlc = env->nb_lcores >= 2 ? (unsigned int)ns + nc : 1u;
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
	/* --stacks without --conns: two connections per server stack. */
	run->conns = server_stacks != 0 && !o->conns_set ? 2u * ns : o->conns;
	run->hz = rte_get_tsc_hz();
	run->land_base = (uintptr_t)dt_devmem_region_base(env->land_region);
	run->land_len = dt_devmem_region_len(env->land_region);
	if (o->tx_device) {
		run->tx_base = dt_devmem_region_base(env->tx_region);
		run->tx_iova = dt_devmem_region_iova(env->tx_region);
		run->tx_device = true;
	} else {
		run->tx_base = (uint8_t *)(uintptr_t)env->tx_host;
		run->tx_iova = env->tx_host_iova;
	}
	r = tcp_ports_start(env, mode, ns, nc);
	if (r != 0)
		goto out;
	rte_eth_stats_reset(env->sport);
	rte_eth_xstats_reset(env->sport);
	rte_eth_xstats_reset(env->cport);
	rte_eth_xstats_reset(env->cport);
	r = tcp_sides_create(env, run, mode);
	if (r != 0)
		goto stop;

	/* Servers on the first k lcores (main first), clients on the next k. */
	for (i = 0; i < nlc; i++) {
		lc[i].run = run;
		lc[i].main = i == 0;
	}
	for (i = 0; i < run->nb_sides; i++) {
		struct bt_lcore *l = &lc[nlc == 1 ? 0 : i];

		l->sides[l->nb++] = &run->sides[i];
		run->lcore_of[i] = env->lcores[nlc == 1 ? 0 : i];
	}
	run->res = res;
	run->t0 = rte_rdtsc();
	run->t_next_print = run->t0 + run->hz;
	for (i = 1; i < nlc; i++) {
		r = rte_eal_remote_launch(lcore_entry, &lc[i], env->lcores[i]);
		if (r != 0) {
			fprintf(stderr, "devtcp-bench: cannot launch lcore %u: %s\n",
				env->lcores[i], rte_strerror(-r));
			run->abort = true;
			nlc = i;
			break;
		}
	}
	if (!run->abort)
		lcore_entry(&lc[0]);
	else
		run->abort = true;
	for (i = 1; i < nlc; i++)
		rte_eal_wait_lcore(env->lcores[i]);
	/* Every lcore is back: what the servers hold goes back to the stacks. */
	for (i = 0; i < run->nb_sides; i++) {
		struct bt_side *s = &run->sides[i];

		if (!s->server)
			continue;
		if (s->ch != NULL)
			bench_tcp_copy_flush(s);
		if (s->ver_rx != NULL)
			bench_verify_flush(s->ver_rx);
		if (s->ver_land != NULL)
			bench_verify_flush(s->ver_land);
	}
	bench_tcp_collect(run, res);
	bench_tcp_last_sample(run);
	/* An aborted run still reports what it measured, as a failed one. */
	if (run->abort)
		res->tcp_errors++;
stop:
	tcp_sides_free(run);
	dt_dp_port_stop(env->cport);
	dt_dp_port_stop(env->sport);
out:
	free(lc);
	free(run);
	return r;
}

/* Whether a stream run delivered everything and closed; says why not on stderr. */
static bool
tcp_ok(const struct bench_opts *o, const struct bench_result *r)
{
	const char *m = bench_mode_name(r->mode);
	bool ok = true;

	if (r->conns_done != r->conns || r->tcp_errors != 0 ||
			r->events_overflow != 0) {
		fprintf(stderr, "devtcp-bench: %s: %u of %u connections delivered everything and closed; %"
			PRIu64 " connection errors, %" PRIu64 " event overflows\n",
			m, r->conns_done, r->conns, r->tcp_errors, r->events_overflow);
		ok = false;
	}
	if (o->bytes != 0 && r->payload_bytes != o->bytes * r->conns) {
		fprintf(stderr, "devtcp-bench: %s: delivered %" PRIu64 " of %" PRIu64 " bytes\n",
			m, r->payload_bytes, o->bytes * r->conns);
		ok = false;
	}
	return ok;
}

static int
tcp_mode_run(struct bench_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res)
{
	return bench_tcp_run(&env->tcp, mode, server_stacks, res);
}

const struct bench_mode_ops bench_mode_split = {
	.run = tcp_mode_run, .ok = tcp_ok,
};
const struct bench_mode_ops bench_mode_copy = {
	.run = tcp_mode_run, .ok = tcp_ok,
};
