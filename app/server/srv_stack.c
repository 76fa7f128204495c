/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stacks: creation from the configuration, the per-lcore poll loop
 * (lib/dp's dt_dp_poll, then its events), telemetry snapshots, and the
 * graceful stop: no more accepts, close every connection, wait for them to
 * close (at most --drain seconds), destroy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "dt_app_value.h"
#include "srv.h"
#include "srv_ingest.h"
#include "srv_iperf3.h"

#define SRV_EVENTS 64
#define SRV_SNAP_PERIOD_MS 100

static int
stack_create(struct srv_ctx *ctx, struct srv_stack *s)
{
	const struct srv_config *c = &ctx->cfg;
	const struct srv_stack_cfg *sc = s->client ? &c->client : &c->stack;
	struct dt_dp_stack_conf conf;
	unsigned int i;
	int rc;

	dt_dp_stack_conf_default(&conf);
	conf.port_id = s->port_id;
	conf.rxq = s->queue;
	conf.txq = s->queue;
	conf.ipv4 = sc->ipv4;
	conf.netmask = sc->netmask;
	conf.gateway = sc->gateway;
	conf.max_conns = c->max_conns;
	conf.backlog = sc->backlog;
	conf.window = c->window;
	conf.txq_cap = c->txq_cap;
	conf.hdr_pool = s->client ? ctx->client_pool : ctx->hdr_pool;
	conf.shell_pool = ctx->shell_pool;
	conf.region = s->client ? NULL : ctx->region;
	conf.tx_cksum_offload = c->port[s->client ? c->client.port :
		c->stack.port].tx_cksum;
	/* Short keepalive timers let a test watch probes in seconds. */
	conf.tcp.keepalive = c->keepalive;
	if (c->keepalive_idle_ms != 0)
		conf.tcp.keepalive_idle_us = (uint64_t)c->keepalive_idle_ms * 1000;
	if (c->keepalive_intvl_ms != 0)
		conf.tcp.keepalive_intvl_us = (uint64_t)c->keepalive_intvl_ms * 1000;
	if (c->keepalive_probes != 0)
		conf.tcp.keepalive_probes = (uint8_t)c->keepalive_probes;
	s->st = dt_dp_stack_create(&conf);
	if (s->st == NULL) {
		fprintf(stderr, "cannot create the TCP stack on port %u queue %u: %s "
			"(the log line above says why)\n", s->port_id, s->queue,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	s->nb_streams = c->max_conns;
	s->streams = calloc(s->nb_streams, sizeof(*s->streams));
	if (s->streams == NULL)
		return -ENOMEM;
	if (s->client)
		return srv_client_start(s);
	rc = srv_consumer_init(s);
	for (i = 0; rc == 0 && i < sc->nb_listen; i++) {
		rc = dt_dp_listen(s->st, sc->listen[i]);
		if (rc != 0)
			fprintf(stderr, "cannot listen on TCP port %u: %s\n",
				sc->listen[i], rte_strerror(-rc));
		else if (s->queue == 0)
			SRV_LOG(INFO, "listening on %s:%u",
				dt_app_ipv4_str(sc->ipv4, (char[32]){0}, 32),
				sc->listen[i]);
	}
	return rc;
}

int
srv_stacks_create(struct srv_ctx *ctx)
{
	unsigned int i, n = ctx->nb_stacks + (ctx->cfg.has_client ? 1 : 0);
	int rc;

	for (i = 0; i < n; i++) {
		rc = stack_create(ctx, &ctx->stacks[i]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static struct srv_stream *
stream_new(struct srv_stack *s, uint64_t conn)
{
	uint32_t i;

	for (i = 0; i < s->nb_streams; i++) {
		struct srv_stream *ss = &s->streams[i];

		if (!ss->used) {
			memset(ss, 0, sizeof(*ss));
			ss->used = true;
			ss->conn = conn;
			ss->start_tsc = rte_rdtsc();
			dt_app_sha256_init(&ss->sha);
			return ss;
		}
	}
	return NULL;
}

/* Who connected: the peer's address and port, as a server's log says. */
static void
log_accepted(struct srv_stack *s, const struct dt_dp_event *ev)
{
	struct dt_dp_conn_stats cs;
	char a[32] = "?";

	memset(&cs, 0, sizeof(cs));
	if (dt_dp_conn_stats_get(s->st, ev->conn, &cs) == 0)
		dt_app_ipv4_str(cs.tuple.raddr, a, sizeof(a));
	SRV_LOG(INFO, "stack %u: connection %" PRIx64 " from %s:%u accepted on "
		"port %u", s->queue, ev->conn, a, cs.tuple.rport, ev->listen_port);
}

static void
server_event(struct srv_stack *s, const struct dt_dp_event *ev)
{
	struct srv_stream *ss = ev->udata;

	if (s->iperf3 != NULL) {
		srv_iperf3_event(s, ev);
		return;
	}
	if (s->ing != NULL) {
		srv_ingest_event(s, ev);
		return;
	}
	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		ss = stream_new(s, ev->conn);
		if (ss == NULL || s->app->stop) {
			dt_dp_abort(s->st, ev->conn);
			return;
		}
		dt_dp_set_udata(s->st, ev->conn, ss);
		log_accepted(s, ev);
		break;
	case DT_DP_EV_DATA:
		if (ss != NULL)
			srv_consumer_data(s, ss, &ev->chunk);
		else
			dt_dp_release(s->st, ev->chunk.token);
		break;
	case DT_DP_EV_PEER_CLOSED:
		dt_dp_close(s->st, ev->conn);
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		SRV_LOG(INFO, "stack %u: connection %" PRIx64 " %s (%s)", s->queue,
			ev->conn, ev->type == DT_DP_EV_RESET ? "reset by peer" : "failed",
			ev->type == DT_DP_EV_ERROR ? strerror(ev->err) : "RST");
		break;
	case DT_DP_EV_CLOSED:
		if (ss != NULL) {
			srv_consumer_closed(s, ss);
			ss->used = false;
		}
		break;
	default:
		break;
	}
}

static void
snap_conn(dt_dp_conn_t conn, const struct dt_dp_conn_stats *st, void *arg)
{
	struct srv_stack *s = arg;

	if (s->snap_conns < SRV_SNAP_CONNS) {
		s->snap_conn[s->snap_conns].conn = conn;
		s->snap_conn[s->snap_conns].st = *st;
	}
	s->snap_conns++;
}

void
srv_stack_snapshot(struct srv_stack *s)
{
	rte_spinlock_lock(&s->snap_lock);
	dt_dp_stats_get(s->st, &s->snap_stats);
	s->snap_cs = s->cs;
	s->snap_conns = 0;
	dt_dp_conn_foreach(s->st, snap_conn, s);
	rte_spinlock_unlock(&s->snap_lock);
	s->snap_tsc = rte_rdtsc();
}

/* One poll and its events; returns the connections still open. */
static void
stack_poll(struct srv_stack *s)
{
	struct dt_dp_event ev[SRV_EVENTS];
	uint16_t n, i;

	dt_dp_poll(s->st);
	do {
		n = dt_dp_events(s->st, ev, SRV_EVENTS);
		for (i = 0; i < n; i++) {
			if (s->client)
				srv_client_event(s, &ev[i]);
			else
				server_event(s, &ev[i]);
		}
	} while (n > 0);
	if (s->ing != NULL)
		srv_ingest_stack_poll(s);
	else if (!s->client)
		srv_consumer_poll(s);
	if (rte_rdtsc() - s->snap_tsc > rte_get_tsc_hz() / 1000 * SRV_SNAP_PERIOD_MS) {
		srv_stack_snapshot(s);
		if (s->client)
			srv_client_check_arp(s);
	}
}

static void
close_one(dt_dp_conn_t conn, const struct dt_dp_conn_stats *st, void *arg)
{
	(void)st;
	dt_dp_close(arg, conn);
}

static void
count_unclosed(dt_dp_conn_t conn, const struct dt_dp_conn_stats *st, void *arg)
{
	(void)conn;
	if (st->state != DT_TCP_TIME_WAIT)
		(*(uint32_t *)arg)++;
}

/*
 * Connections the drain waits for: not those in TIME_WAIT. Their closing
 * handshake is done and the stack goes with the process, as a Linux
 * program's sockets leave TIME_WAIT to the kernel; waiting for them held
 * every active closer (devtcp-send) for the whole --drain.
 */
static uint32_t
unclosed_conns(struct srv_stack *s)
{
	uint32_t n = 0;

	dt_dp_conn_foreach(s->st, count_unclosed, &n);
	return n;
}

/* Poll every stack of this lcore until stop, then drain them. */
static int
lcore_loop(void *arg)
{
	struct srv_ctx *ctx = arg;
	unsigned int lc = rte_lcore_id(), i, n = ctx->nb_stacks +
		(ctx->cfg.has_client ? 1 : 0);
	uint64_t deadline;
	bool busy;

	while (!ctx->stop)
		for (i = 0; i < n; i++)
			if (ctx->stacks[i].lcore == lc)
				stack_poll(&ctx->stacks[i]);
	for (i = 0; i < n; i++) {
		struct srv_stack *s = &ctx->stacks[i];
		const struct srv_stack_cfg *sc = s->client ? &ctx->cfg.client :
			&ctx->cfg.stack;
		unsigned int j;

		if (s->lcore != lc)
			continue;
		for (j = 0; j < sc->nb_listen; j++)
			dt_dp_unlisten(s->st, sc->listen[j]);
		dt_dp_conn_foreach(s->st, close_one, s->st);
	}
	deadline = rte_rdtsc() + (uint64_t)(ctx->opts.drain * rte_get_tsc_hz());
	do {
		busy = false;
		for (i = 0; i < n; i++) {
			if (ctx->stacks[i].lcore != lc)
				continue;
			stack_poll(&ctx->stacks[i]);
			busy |= unclosed_conns(&ctx->stacks[i]) != 0;
		}
	} while (busy && rte_rdtsc() < deadline);
	for (i = 0; i < n; i++) {
		struct srv_stack *s = &ctx->stacks[i];
		uint32_t left;

		if (s->lcore != lc)
			continue;
		left = busy ? unclosed_conns(s) : 0;
		if (left != 0)
			SRV_LOG(WARNING, "stack %u (%s): %u connection(s) not "
				"closed within --drain %.1f s", s->queue,
				s->client ? "client" : "server", left,
				ctx->opts.drain);
		s->done = true;
	}
	return 0;
}

static bool
lcore_used(const struct srv_ctx *ctx, unsigned int lc)
{
	unsigned int i, n = ctx->nb_stacks + (ctx->cfg.has_client ? 1 : 0);

	for (i = 0; i < n; i++)
		if (ctx->stacks[i].lcore == lc)
			return true;
	return false;
}

/* Main lcore: the ring consumer, the stop conditions. */
static void
control_loop(struct srv_ctx *ctx)
{
	uint64_t end = ctx->opts.duration > 0 ? ctx->start_tsc +
		(uint64_t)(ctx->opts.duration * rte_get_tsc_hz()) : UINT64_MAX;
	struct srv_stack *cl = ctx->cfg.has_client ?
		&ctx->stacks[ctx->nb_stacks] : NULL;
	unsigned int i;

	while (!*ctx->quit && rte_rdtsc() < end) {
		for (i = 0; i < ctx->nb_stacks; i++)
			srv_consumer_lcore(&ctx->stacks[i]);
		srv_ingest_poll(ctx);
		if (ctx->opts.send_role && cl != NULL && srv_client_done(cl))
			break;
		rte_pause();
	}
	SRV_LOG(INFO, "stopping: closing connections (at most %.1f s)",
		ctx->opts.drain);
}

int
srv_stacks_run(struct srv_ctx *ctx)
{
	unsigned int lc, main_lc = rte_get_main_lcore();
	int rc;

	RTE_LCORE_FOREACH_WORKER(lc) {
		if (!lcore_used(ctx, lc))
			continue;
		rc = rte_eal_remote_launch(lcore_loop, ctx, lc);
		if (rc != 0) {
			ctx->stop = true;
			rte_eal_mp_wait_lcore();
			return rc;
		}
	}
	if (lcore_used(ctx, main_lc)) {
		/* Stacks on the main lcore: it polls them and watches for stop. */
		while (!*ctx->quit && !ctx->stop) {
			unsigned int i;

			for (i = 0; i < ctx->nb_stacks + (ctx->cfg.has_client ? 1 : 0); i++)
				if (ctx->stacks[i].lcore == main_lc)
					stack_poll(&ctx->stacks[i]);
			for (i = 0; i < ctx->nb_stacks; i++)
				srv_consumer_lcore(&ctx->stacks[i]);
			srv_ingest_poll(ctx);
			if (ctx->opts.duration > 0 && rte_rdtsc() > ctx->start_tsc +
					(uint64_t)(ctx->opts.duration * rte_get_tsc_hz()))
				break;
			if (ctx->opts.send_role &&
					srv_client_done(&ctx->stacks[ctx->nb_stacks]))
				break;
		}
		ctx->stop = true;
		lcore_loop(ctx);
	} else {
		control_loop(ctx);
		ctx->stop = true;
	}
	rte_eal_mp_wait_lcore();
	return 0;
}

/*
 * Nothing silent: at exit, per stack, what it took and every drop counter
 * that is not 0 (with several stacks, how RSS spread the connections).
 */
static void
stack_report(const struct srv_stack *s)
{
#define SRV_DROP(f) { #f, d.f }
	struct dt_dp_stats d;
	char buf[512];
	size_t n = 0;
	unsigned int i;

	dt_dp_stats_get(s->st, &d);
	{
		const struct { const char *name; uint64_t v; } c[] = {
			SRV_DROP(drop_not_ipv4), SRV_DROP(drop_bad_ip),
			SRV_DROP(drop_ip_fragment), SRV_DROP(drop_not_for_us),
			SRV_DROP(drop_bad_tcp), SRV_DROP(drop_l4_cksum),
			SRV_DROP(drop_no_conn), SRV_DROP(drop_conn_table_full),
			SRV_DROP(drop_hdr_in_device),
			SRV_DROP(drop_unsupported_proto),
			SRV_DROP(drop_tx_no_mbuf), SRV_DROP(drop_tx_ring_full),
			SRV_DROP(drop_tx_linear),
			SRV_DROP(drop_no_neighbour),
			SRV_DROP(drop_neigh_hold_full),
			SRV_DROP(drop_l4_cksum_unknown),
			SRV_DROP(drop_too_many_segs), SRV_DROP(drop_bad_arp),
			SRV_DROP(drop_synq_full), SRV_DROP(events_overflow),
			SRV_DROP(drop_copy_no_buf), SRV_DROP(rx_copy_errors),
			SRV_DROP(tx_device_refused), SRV_DROP(tx_copy_errors),
			/* Not drops, but what lib/dp changed at run time. */
			SRV_DROP(tx_tso_refused), SRV_DROP(tx_refused_dropped),
			SRV_DROP(tx_held_switch),
		};

		buf[0] = '\0';
		for (i = 0; i < RTE_DIM(c) && n < sizeof(buf); i++)
			if (c[i].v != 0)
				n += snprintf(buf + n, sizeof(buf) - n, " %s %" PRIu64,
					c[i].name, c[i].v);
	}
#undef SRV_DROP
	SRV_LOG(INFO, "stack %u (%s, queue %u): %" PRIu64 " frames in, %" PRIu64
		" connections accepted, %" PRIu64 " connected; drops:%s",
		s->queue, s->client ? "client" : "server", s->queue, d.rx_frames,
		d.conns_accepted, d.conns_connected, n ? buf : " none");
	if (d.tx_copy_bytes != 0)
		SRV_LOG(INFO, "stack %u: %" PRIu64 " bytes of device payload copied into frames by the copy engine",
			s->queue, d.tx_copy_bytes);
	if (d.rx_copy_bytes != 0)
		SRV_LOG(INFO, "stack %u: copy mode: %" PRIu64 " payload bytes copied into device memory in %" PRIu64 " buffers",
			s->queue, d.rx_copy_bytes, d.rx_copy_chunks);
}

void
srv_stacks_destroy(struct srv_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < SRV_MAX_STACKS + 1; i++) {
		struct srv_stack *s = &ctx->stacks[i];

		if (s->st != NULL) {
			srv_stack_snapshot(s);
			stack_report(s);
			if (s->ing != NULL)
				srv_ingest_stack_fini(s);
			else if (!s->client)
				srv_consumer_fini(s);
			dt_dp_stack_destroy(s->st);
			s->st = NULL;
			/* After the stack: no mbuf references its buffers now. */
			srv_iperf3_fini(s);
		}
		free(s->streams);
		s->streams = NULL;
	}
}
