/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A TCP transfer inside the console, between two local ports on one wire:
 *   bench start <conns> <bytes> [<src_port> <dst_port>]
 *   bench stop | bench show
 * The receiver listens on TCP port 5201 (iperf3's); the sender opens
 * <conns> connections, sends <bytes> of each from host memory and closes.
 * Received data is consumed like any accepted connection's (counted,
 * released, checked when "set tcp verify on" was given before the start).
 * Goodput is the bytes the receiver got over the time from the first
 * connect to the last acknowledgement. Both stacks are polled by the main
 * lcore with everything else, so the figure is a single-core one.
 *
 * Without verify the send buffers are not refilled per send: the pattern
 * costs about as much CPU as the stack, and nobody checks it.
 */
#include <stdio.h>
#include <string.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "cli.h"
#include "dt_app_error.h"
#include "dt_app_value.h"
#include "dt_dp.h"

#define CLI_BENCH_MAX_CONNS 64

static double
bench_secs(const struct cli_bench *b)
{
	uint64_t end = b->running ? rte_get_tsc_cycles() : b->end_tsc;

	return (double)(end - b->start_tsc) / rte_get_tsc_hz();
}

static void
bench_report(struct cli_ctx *ctx, const char *what)
{
	const struct cli_bench *b = &ctx->bench;
	double s = bench_secs(b);
	char v[96];

	if (!b->verify)
		snprintf(v, sizeof(v), "verify off");
	else if (b->rx_bad == 0)
		snprintf(v, sizeof(v), "verify ok, %" PRIu64 " bytes checked",
			b->verified);
	else
		snprintf(v, sizeof(v), "verify FAILED: %" PRIu64 " bad of %" PRIu64
			" bytes checked", b->rx_bad, b->verified);
	cli_notice("bench: %s: %u x %" PRIu64 " bytes, port %u -> port %u, %u "
		"done, %u failed: %" PRIu64 " bytes acknowledged, %" PRIu64
		" received in %.3f s: %.2f Gb/s (%s)", what, b->nb_conns, b->bytes,
		b->src, b->dst, b->nb_done, b->nb_failed, b->acked, b->rx_bytes, s,
		s > 0 ? b->rx_bytes * 8 / s / 1e9 : 0.0, v);
}

static void
bench_end(struct cli_ctx *ctx, const char *what)
{
	struct cli_bench *b = &ctx->bench;

	b->running = false;
	b->end_tsc = rte_get_tsc_cycles();
	if (b->listen_added)
		cli_unlisten(ctx, b->dst, CLI_BENCH_TCP_PORT);
	b->listen_added = false;
	bench_report(ctx, what);
}

void
cli_bench_conn_event(struct cli_ctx *ctx, struct cli_conn *c)
{
	struct cli_bench *b = &ctx->bench;

	if (!b->running || c->passive || c->bench_counted)
		return;
	if (c->acked == b->bytes) {
		c->bench_counted = true;
		b->nb_done++;
	} else if (c->closed) {
		c->bench_counted = true;
		b->nb_failed++;
	}
	if (b->nb_done + b->nb_failed == b->nb_conns) {
		ctx->port[b->src].inflight_cap = 0;
		bench_end(ctx, b->nb_failed ? "finished with failures" : "done");
	}
}

void
cli_bench_show(struct cmdline *cl, struct cli_ctx *ctx)
{
	RTE_SET_USED(cl);
	bench_report(ctx, ctx->bench.running ? "running" :
		ctx->bench.stopped ? "stopped" : "done");
}

/* The first two ports with a stack, unless given. */
static int
bench_ports(struct cmdline *cl, struct cli_ctx *ctx, bool given,
	uint16_t *src, uint16_t *dst)
{
	uint16_t p, n = 0, found[2];

	if (given) {
		if (!cli_port_ok(cl, *src) || !cli_port_ok(cl, *dst))
			return -EINVAL;
		if (*src == *dst || ctx->port[*src].stack == NULL ||
				ctx->port[*dst].stack == NULL) {
			cli_fail(cl, "bench start: ports %u and %u must differ and both "
				"have a TCP stack (set ip, port start)", *src, *dst);
			return -EINVAL;
		}
		return 0;
	}
	for (p = 0; p < CLI_MAX_PORTS && n < 2; p++)
		if (ctx->port[p].stack != NULL)
			found[n++] = p;
	if (n < 2) {
		cli_fail(cl, "bench start: needs two ports with a TCP stack on one "
			"wire (set ip <port_id> <addr>/<len>, port start <port_id>)");
		return -EINVAL;
	}
	*src = found[0];
	*dst = found[1];
	return 0;
}

/* --- bench start <conns> <bytes> [<src_port> <dst_port>] --- */
struct bench_start_res {
	cmdline_fixed_string_t bench, start;
	uint32_t conns;
	cmdline_fixed_string_t bytes;
	uint16_t src, dst;
};

static void
bench_start_cb(void *res, struct cmdline *cl, void *data)
{
	struct bench_start_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
	struct cli_bench *b = &ctx->bench;
	uint16_t src = r->src, dst = r->dst;
	struct dt_app_error err;
	const char *expect;
	char eb[64], ip[32];
	uint64_t bytes;
	uint32_t i;
	int rc;

	if (b->running)
		return cli_fail(cl, "bench start: a bench is running (bench stop "
			"first)");
	if (r->conns == 0 || r->conns > CLI_BENCH_MAX_CONNS)
		return cli_fail(cl, "bench start: expected 1 to %u connections, "
			"got %u", CLI_BENCH_MAX_CONNS, r->conns);
	if (dt_app_parse_size(r->bytes, 1, 1ULL << 40, &bytes, eb, sizeof(eb),
			&expect) != 0)
		return cli_fail(cl, "bench start: expected %s, got '%s'", expect,
			r->bytes);
	if (bench_ports(cl, ctx, data != NULL, &src, &dst) != 0)
		return;
	rc = cli_listen(ctx, dst, CLI_BENCH_TCP_PORT);
	if (rc != 0 && rc != -EEXIST)
		return cli_fail(cl, "bench start: cannot listen on port %u TCP "
			"port %u: %s", dst, CLI_BENCH_TCP_PORT, rte_strerror(-rc));
	memset(b, 0, sizeof(*b));
	b->listen_added = rc == 0;
	b->src = src;
	b->dst = dst;
	b->nb_conns = r->conns;
	b->bytes = bytes;
	ctx->port[src].inflight_cap = (uint16_t)RTE_MAX(1u,
		RTE_MIN((unsigned int)CLI_CONN_INFLIGHT, CLI_SLOTS / r->conns));
	b->verify = ctx->verify;
	b->running = true;
	b->ran = true;
	b->start_tsc = rte_get_tsc_cycles();
	cmdline_printf(cl, "bench: %u connection%s port %u -> port %u (%s:%u), "
		"%" PRIu64 " bytes each, verify %s\n", r->conns,
		r->conns == 1 ? "" : "s", src, dst,
		dt_app_ipv4_str(ctx->port[dst].ipv4, ip, sizeof(ip)),
		CLI_BENCH_TCP_PORT, bytes, b->verify ? "on" : "off");
	for (i = 0; i < r->conns; i++) {
		struct cli_conn *c = cli_conn_new(ctx, src, 0);
		dt_dp_conn_t conn;

		if (c == NULL) {
			cli_fail(cl, "bench start: connection table full after %u "
				"connections", i);
			b->nb_conns = i;
			break;
		}
		c->bench = true;
		c->fill = b->verify;
		/* Spread over the sender's stacks (each picks a port RSS maps back). */
		c->sq = cli_next_stack(ctx, src);
		rc = dt_dp_connect(ctx->port[src].stacks[c->sq],
			ctx->port[dst].ipv4, CLI_BENCH_TCP_PORT, c, &conn);
		if (rc != 0) {
			c->used = false;
			cli_fail(cl, "bench start: connect %u: %s", i, rte_strerror(-rc));
			b->nb_conns = i;
			break;
		}
		c->conn = conn;
		if (cli_conn_send(ctx, c, bytes, false, &err) != 0)
			cli_notice("bench: conn %u: %s", c->id, err.msg);
		c->close_req = true;
	}
	if (b->nb_conns == 0)
		bench_end(ctx, "failed");
}

static cmdline_parse_token_string_t bs_bench =
	TOKEN_STRING_INITIALIZER(struct bench_start_res, bench, "bench");
static cmdline_parse_token_string_t bs_start =
	TOKEN_STRING_INITIALIZER(struct bench_start_res, start, "start");
static cmdline_parse_token_num_t bs_conns =
	TOKEN_NUM_INITIALIZER(struct bench_start_res, conns, RTE_UINT32);
static cmdline_parse_token_string_t bs_bytes =
	TOKEN_STRING_INITIALIZER(struct bench_start_res, bytes, NULL);
static cmdline_parse_token_num_t bs_src =
	TOKEN_NUM_INITIALIZER(struct bench_start_res, src, RTE_UINT16);
static cmdline_parse_token_num_t bs_dst =
	TOKEN_NUM_INITIALIZER(struct bench_start_res, dst, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_bench_start = {
	.f = bench_start_cb,
	.help_str = "bench start <conns> <bytes>: TCP transfer between the first "
		"two started ports (bytes per connection, K/M/G), Gb/s at the end",
	.tokens = { (void *)&bs_bench, (void *)&bs_start, (void *)&bs_conns,
		(void *)&bs_bytes, NULL },
};

cmdline_parse_inst_t cli_cmd_bench_start_ports = {
	.f = bench_start_cb,
	.data = (void *)1,
	.help_str = "bench start <conns> <bytes> <src_port> <dst_port>: the same "
		"between the ports given",
	.tokens = { (void *)&bs_bench, (void *)&bs_start, (void *)&bs_conns,
		(void *)&bs_bytes, (void *)&bs_src, (void *)&bs_dst, NULL },
};

/* --- bench stop|show --- */
struct bench_res {
	cmdline_fixed_string_t bench, what;
};

static void
bench_cb(void *res, struct cmdline *cl, void *data)
{
	struct bench_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
	unsigned int i;

	RTE_SET_USED(data);
	if (!ctx->bench.ran)
		return cli_fail(cl, "bench %s: no bench started (bench start "
			"<conns> <bytes>)", r->what);
	if (strcmp(r->what, "show") == 0)
		return cli_bench_show(cl, ctx);
	if (!ctx->bench.running)
		return cli_fail(cl, "bench stop: the bench is over (bench show)");
	/* Abort both ends: a stopped bench leaves nothing behind. */
	for (i = 0; i < CLI_MAX_CONNS; i++) {
		struct cli_conn *c = &ctx->conns[i];

		if (c->used && c->bench && !c->closed &&
				cli_conn_stack(ctx, c) != NULL) {
			dt_dp_abort(cli_conn_stack(ctx, c), c->conn);
			c->nb_req = 0;
			c->why = "bench stopped";
		}
	}
	ctx->bench.stopped = true;
	bench_end(ctx, "stopped");
}

static cmdline_parse_token_string_t bb_bench =
	TOKEN_STRING_INITIALIZER(struct bench_res, bench, "bench");
static cmdline_parse_token_string_t bb_what =
	TOKEN_STRING_INITIALIZER(struct bench_res, what, "stop#show");

cmdline_parse_inst_t cli_cmd_bench_stop_show = {
	.f = bench_cb,
	.help_str = "bench stop|show: abort the bench's connections, or report "
		"its progress (bytes, seconds, Gb/s)",
	.tokens = { (void *)&bb_bench, (void *)&bb_what, NULL },
};
