/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw-frame modes of devtcp-bench, no TCP stack: a second lcore sends
 * prebuilt frames from port 0 (bench_l2.c) while the main lcore receives
 * them on port 1 as the mode says.
 *
 * raw       - whole frames into host memory: the wire's L2 ceiling.
 * raw-split - frames split as split does: headers in hugepage mbufs,
 *             payload in the payload region.
 * bounce    - whole frames, each payload then copied into device memory by
 *             the region's copy engine (bench_copy.c).
 * ceiling   - the copy engine alone, no ports and no sender (bench_copy.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>

#include "bench.h"
#include "dt_dp_port.h"

static const struct bench_mode_ops *raw_ops(enum bench_mode mode);

static int
start_ports(const struct bench_raw_env *env, enum bench_mode mode)
{
	const struct bench_opts *o = env->opts;
	struct dt_dp_port_conf tx = {
		.nb_rxq = 1, .nb_txq = 1, .mtu = o->mtu,
		.hdr_pool = env->whole_pool,
	};
	struct dt_dp_port_conf rx = tx;
	char err[256];
	int rc;

	if (mode == BENCH_MODE_RAW_SPLIT) {
		rx.split = DT_DP_SPLIT_PROTO;
		rx.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
		rx.hdr_pool = env->hdr_pool;
		rx.pay_pool = dt_devmem_region_pool(env->region);
	}
	rc = dt_dp_port_start(o->rx_port, &rx, err, sizeof(err));
	if (rc == 0 && o->tx_port != o->rx_port)
		rc = dt_dp_port_start(o->tx_port, &tx, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "devtcp-bench: %s\n", err);
	return rc;
}

static void
stop_ports(const struct bench_opts *o)
{
	dt_dp_port_stop(o->tx_port);
	if (o->tx_port != o->rx_port)
		dt_dp_port_stop(o->rx_port);
}

/* Receive for one mode until @p deadline (or --frames). */
static void
poll_mode(struct bench_run *run, enum bench_mode mode, uint64_t deadline)
{
	raw_ops(mode)->poll(run, deadline);
}

/*
 * Receive what is still on the wire so the next run starts clean; what it
 * receives counts in this run, handled as the mode handles every frame.
 */
static void
drain(struct bench_run *run, enum bench_mode mode)
{
	uint64_t hz = rte_get_tsc_hz();

	poll_mode(run, mode, rte_rdtsc() + hz / 20);
}

/* The copy modes' own channel on the region's engine. */
static int
open_channel(struct bench_run *run)
{
	run->ch = dt_copy_chan_open(run->engine);
	if (run->ch == NULL) {
		fprintf(stderr, "devtcp-bench: cannot open a channel on copy engine %s: %s\n",
			run->engine->ops->name, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static void
close_channel(struct bench_run *run)
{
	run->res.copy_bytes = run->ch->stats.bytes;
	run->res.cpu_copy_bytes = run->ch->stats.bytes;
	dt_copy_chan_close(run->ch);
	run->ch = NULL;
}

/* Payload so far: the ceiling counts its chunks as it goes, their bytes at the end. */
static uint64_t
raw_bytes(const struct bench_run *run)
{
	if (run->res.mode == BENCH_MODE_CEILING)
		return run->res.rx_frames * bench_payload_len(run->opts);
	return run->res.payload_bytes;
}

/* A sample of a raw-frame run from its counters now (@p start: its TSC). */
static const struct bench_sample *
raw_sample(struct bench_run *run, struct bench_sampler *sp, uint64_t start)
{
	double t = (double)(rte_rdtsc() - start) / rte_get_tsc_hz();

	return bench_sample_take(&run->res, sp, t, raw_bytes(run),
		run->res.rx_frames, 0);
}

/* Once a second: the sample, and the live line unless --quiet. */
static void
raw_tick(struct bench_run *run, struct bench_sampler *sp, uint64_t start)
{
	const struct bench_opts *o = run->opts;
	const struct bench_sample *smp = raw_sample(run, sp, start);

	if (o->quiet || smp == NULL)
		return;
	/* --bytes: the frames carrying as much payload (bench_opts.c). */
	bench_progress(&run->res, smp->t, raw_bytes(run), o->bytes != 0 ?
		o->frames * bench_payload_len(o) : 0);
}

/* The ceiling: no ports, no sender; the copy engine alone. */
static int
run_ceiling(const struct bench_raw_env *env, struct bench_run *run)
{
	const struct bench_opts *o = env->opts;
	uint64_t hz = rte_get_tsc_hz(), start, end, next;
	struct bench_sampler sp = { 0 };
	int rc;

	rc = open_channel(run);
	if (rc != 0)
		return rc;
	rc = bench_ceiling_start(run);
	if (rc != 0) {
		close_channel(run);
		return rc;
	}
	start = rte_rdtsc();
	end = start + (uint64_t)(o->duration * hz);
	for (next = start + hz; !*env->quit && !run->failed; next += hz) {
		bench_ceiling_poll(run, RTE_MIN(next, end));
		raw_tick(run, &sp, start);
		if (rte_rdtsc() >= end ||
				(o->frames != 0 && run->res.rx_frames >= o->frames))
			break;
	}
	bench_ceiling_finish(run);
	run->res.seconds = (double)(rte_rdtsc() - start) / hz;
	raw_sample(run, &sp, start);
	close_channel(run);
	return 0;
}

static int
run_mode(const struct bench_raw_env *env, struct bench_run *run,
	enum bench_mode mode)
{
	const struct bench_opts *o = env->opts;
	struct rte_eth_stats st;
	uint64_t hz = rte_get_tsc_hz(), start, end, next;
	struct bench_sampler sp = { 0 };
	int rc;

	memset(&run->res, 0, sizeof(run->res));
	run->res.mode = mode;
	run->res.tsc_hz = hz;
	run->stop = false;
	run->failed = false;
	run->bounce_off = 0;
	if (mode == BENCH_MODE_CEILING)
		return run_ceiling(env, run);

	rc = start_ports(env, mode);
	if (rc != 0)
		return rc;
	if (mode == BENCH_MODE_BOUNCE) {
		rc = open_channel(run);
		if (rc != 0) {
			stop_ports(o);
			return rc;
		}
	}
	rte_eth_stats_reset(o->rx_port);
	rte_eth_xstats_reset(o->rx_port);

	rc = rte_eal_remote_launch(bench_tx_loop, run, env->tx_lcore);
	if (rc != 0) {
		if (run->ch != NULL)
			close_channel(run);
		stop_ports(o);
		return rc;
	}
	start = rte_rdtsc();
	end = start + (uint64_t)(o->duration * hz);
	for (next = start + hz; !*env->quit && !run->failed; next += hz) {
		poll_mode(run, mode, RTE_MIN(next, end));
		raw_tick(run, &sp, start);
		if (rte_rdtsc() >= end ||
				(o->frames != 0 && run->res.rx_frames >= o->frames))
			break;
	}
	run->res.seconds = (double)(rte_rdtsc() - start) / hz;
	run->stop = true;
	rte_eal_wait_lcore(env->tx_lcore);
	drain(run, mode);
	/* The last interval takes what the drain received: the samples add up. */
	raw_sample(run, &sp, start);

	/* The NIC's copies (split) or the bench's own (bounce). */
	run->res.nic_copy_bytes = bench_xstat_sum(o->rx_port, "_copy_bytes");
	if (run->ch != NULL)
		close_channel(run);
	else
		run->res.copy_bytes = run->res.nic_copy_bytes;
	if (rte_eth_stats_get(o->rx_port, &st) == 0)
		run->res.missed = st.imissed + st.rx_nombuf;
	stop_ports(o);
	return 0;
}


/* The mode's run: its figures land in the run context's result, then in @p res. */
static int
raw_run(struct bench_env *env, enum bench_mode mode, uint16_t server_stacks,
	struct bench_result *res)
{
	struct bench_run *run = env->raw.run;
	int rc;

	RTE_SET_USED(server_stacks);
	rc = run_mode(&env->raw, run, mode);
	*res = run->res;
	return rc;
}

const struct bench_mode_ops bench_mode_raw = {
	.run = raw_run, .poll = bench_rx_poll,
};
const struct bench_mode_ops bench_mode_raw_split = {
	.run = raw_run, .poll = bench_rx_poll,
};
const struct bench_mode_ops bench_mode_bounce = {
	.run = raw_run, .poll = bench_bounce_poll,
};
const struct bench_mode_ops bench_mode_ceiling = {
	.run = raw_run, .poll = bench_ceiling_poll,
};

static const struct bench_mode_ops *
raw_ops(enum bench_mode mode)
{
	switch (mode) {
	case BENCH_MODE_RAW_SPLIT:
		return &bench_mode_raw_split;
	case BENCH_MODE_BOUNCE:
		return &bench_mode_bounce;
	case BENCH_MODE_CEILING:
		return &bench_mode_ceiling;
	default:
		return &bench_mode_raw;
	}
}
