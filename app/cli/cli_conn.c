/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-cli's connection model and event loop (the commands over it are
 * cli_tcp.c's and cli_bench.c's): lib/dp stacks per port, the console's
 * numbered connections, their send buffers and requests, and the poll
 * that turns stack events into counts, pattern checks and notices.
 *
 * Stacks: one per port that is both started and addressed, all polled by the
 * main lcore (see cli.h). Received data is consumed at once: counted,
 * optionally checked against the stream pattern (dt_pattern.h; device bytes
 * through the payload region's CPU alias, the one read the zero-touch rule
 * allows), and released so that the window reopens.
 *
 * Sends write the stream pattern (the byte at stream offset o is
 * dt_pattern_byte(o)) into a 64 KiB send buffer, in hugepage memory or, for
 * "device", in a device-memory region of the port written through its CPU
 * alias, and hand it to the stack by reference (dt_dp_send). The buffer
 * goes back to the port's free list when DT_DP_EV_SENT counts it complete.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cmdline_rdline.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "cli.h"
#include "dt_app_error.h"
#include "dt_app_value.h"
#include "dt_devmem.h"
#include "dt_dp.h"
#include "dt_pattern.h"


#define CLI_EVENTS 64
#define CLI_SHELLS 16384
/*
 * TIME_WAIT is 2 MSL: half a second keeps it a real state (visible in
 * "show tcp conns") without making scripts wait a minute for CLOSED.
 */
#define CLI_MSL_US 500000

void
cli_notice(const char *fmt, ...)
{
	struct cli_ctx *ctx = cli_ctx_get();
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ctx->cl == NULL)
		return;
	if (!ctx->interactive) {
		cmdline_printf(ctx->cl, "%s\n", buf);
		return;
	}
	/* Over the prompt line, then the prompt and what was typed again. */
	cmdline_printf(ctx->cl, "\r\033[K%s\n", buf);
	rdline_redisplay(cmdline_get_rdline(ctx->cl));
}

/*
 * The stream pattern from stream offset @p off: byte i is
 * dt_pattern_byte(off + i), computed by addition (the product grows by the
 * multiplier per byte) so that filling and checking stay cheap.
 */
static void
pattern_fill(uint8_t *p, uint32_t len, uint32_t off)
{
	uint32_t v = off * DT_PATTERN_MUL, i;

	for (i = 0; i < len; i++, v += DT_PATTERN_MUL)
		p[i] = (uint8_t)(v >> 24);
}

static uint32_t
pattern_bad(const uint8_t *p, uint32_t len, uint32_t off)
{
	uint32_t v = off * DT_PATTERN_MUL, i, bad = 0;

	for (i = 0; i < len; i++, v += DT_PATTERN_MUL)
		bad += p[i] != (uint8_t)(v >> 24);
	return bad;
}

/*
 * A bench connection moved on (sent, closed, aborted): the bench's
 * accounting, through the context's hook, so that this file never calls
 * back into cli_bench.c.
 */
static void
bench_event(struct cli_ctx *ctx, struct cli_conn *c)
{
	if (ctx->bench_conn_event != NULL)
		ctx->bench_conn_event(ctx, c);
}

/* --- connections --- */

struct cli_conn *
cli_conn_by_id(struct cli_ctx *ctx, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < CLI_MAX_CONNS; i++)
		if (ctx->conns[i].used && ctx->conns[i].id == id)
			return &ctx->conns[i];
	return NULL;
}

struct cli_conn *
cli_conn_new(struct cli_ctx *ctx, uint16_t port, uint64_t conn)
{
	struct cli_conn *c = NULL;
	unsigned int i;

	for (i = 0; i < CLI_MAX_CONNS && c == NULL; i++)
		if (!ctx->conns[i].used)
			c = &ctx->conns[i];
	/* Table full: forget the oldest closed connection. */
	for (i = 0; i < CLI_MAX_CONNS && c == NULL; i++)
		if (ctx->conns[i].closed)
			c = &ctx->conns[i];
	for (; i < CLI_MAX_CONNS; i++)
		if (ctx->conns[i].closed && ctx->conns[i].id < c->id)
			c = &ctx->conns[i];
	if (c == NULL)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->id = ++ctx->next_conn_id;
	c->port_id = port;
	c->conn = conn;
	c->fill = true;
	c->last.state = DT_TCP_SYN_SENT;
	return c;
}

void
cli_conn_refresh(struct cli_ctx *ctx, struct cli_conn *c)
{
	struct dt_dp_stack *st = cli_conn_stack(ctx, c);
	struct dt_dp_conn_stats s;

	if (c->closed || st == NULL ||
			dt_dp_conn_stats_get(st, c->conn, &s) != 0)
		return;
	c->last.state = s.state;
	c->last.laddr = s.tuple.laddr;
	c->last.raddr = s.tuple.raddr;
	c->last.lport = s.tuple.lport;
	c->last.rport = s.tuple.rport;
	c->last.snd_wnd = s.snd_wnd;
	c->last.rcv_wnd = s.rcv_wnd;
	c->last.cwnd = s.cwnd;
	c->last.srtt_us = s.srtt_us;
	c->last.retransmits = s.retransmits;
}

/* Give the oldest @p n queued send buffers back to the port. */
static void
slots_return(struct cli_port *cp, struct cli_conn *c, uint32_t n)
{
	while (n-- > 0 && c->nb_fl > 0) {
		cp->free_slot[cp->nb_free++] = c->fl[c->fl_head];
		c->fl_head = (c->fl_head + 1) % CLI_CONN_INFLIGHT;
		c->nb_fl--;
	}
}

/* The stack forgot the connection (CLOSED, or the stack went away). */
static void
conn_gone(struct cli_ctx *ctx, struct cli_conn *c, const char *why)
{
	slots_return(&ctx->port[c->port_id], c, UINT32_MAX);
	c->nb_req = 0;
	c->closed = true;
	c->last.state = DT_TCP_CLOSED;
	if (why != NULL && c->why == NULL)
		c->why = why;
}

struct dt_dp_stack *
cli_conn_stack(const struct cli_ctx *ctx, const struct cli_conn *c)
{
	const struct cli_port *cp = &ctx->port[c->port_id];

	return c->sq < cp->nb_stacks ? cp->stacks[c->sq] : NULL;
}

uint16_t
cli_next_stack(struct cli_ctx *ctx, uint16_t port)
{
	struct cli_port *cp = &ctx->port[port];
	uint16_t sq = cp->next_sq < cp->nb_stacks ? cp->next_sq : 0;

	cp->next_sq = (uint16_t)(sq + 1 < cp->nb_stacks ? sq + 1 : 0);
	return sq;
}

uint16_t
cli_port_stacks(const struct cli_ctx *ctx, uint16_t port)
{
	uint16_t n = ctx->port[port].stacks_conf;

	return n ? n : 1;
}

void
cli_conn_push(struct cli_ctx *ctx, struct cli_conn *c)
{
	struct cli_port *cp = &ctx->port[c->port_id];
	struct dt_dp_stack *st = cli_conn_stack(ctx, c);
	int rc;

	if (c->closed || st == NULL)
		return;
	while (c->connected && c->nb_req > 0 && !c->close_sent) {
		struct cli_send_req *r = &c->req[c->req_head];
		uint32_t len = (uint32_t)RTE_MIN((uint64_t)CLI_SLOT_SIZE,
			r->bytes - r->done);
		struct dt_dp_buf b = { .len = len, .device = r->device };
		uint16_t slot;
		uint8_t *cpu;

		if (c->nb_fl >= (cp->inflight_cap ? cp->inflight_cap :
				CLI_CONN_INFLIGHT) || cp->nb_free == 0)
			return; /* SENT events give buffers back */
		slot = cp->free_slot[cp->nb_free - 1];
		if (r->device) {
			b.addr = (uint8_t *)dt_devmem_region_base(cp->tx_region) +
				(size_t)slot * CLI_SLOT_SIZE;
			b.iova = dt_devmem_region_iova(cp->tx_region);
			if (b.iova != RTE_BAD_IOVA)
				b.iova += (size_t)slot * CLI_SLOT_SIZE;
			/* Device bytes: the CPU writes them through the alias only. */
			cpu = cp->tx_alias + (size_t)slot * CLI_SLOT_SIZE;
		} else {
			b.addr = cp->host_slots + (size_t)slot * CLI_SLOT_SIZE;
			b.iova = rte_mem_virt2iova(b.addr);
			cpu = b.addr;
		}
		if (c->fill)
			pattern_fill(cpu, len, (uint32_t)c->queued);
		rc = dt_dp_send(st, c->conn, &b);
		if (rc == -DT_DP_E_FULL)
			return;
		if (rc != 0) {
			cli_notice("conn %u: send failed: %s; %" PRIu64 " bytes "
				"dropped", c->id, rte_strerror(-rc), r->bytes - r->done);
			c->nb_req = 0;
			break;
		}
		cp->nb_free--;
		c->fl[(c->fl_head + c->nb_fl) % CLI_CONN_INFLIGHT] = slot;
		c->nb_fl++;
		r->done += len;
		c->queued += len;
		if (r->done == r->bytes) {
			c->req_head = (c->req_head + 1) % CLI_CONN_REQS;
			c->nb_req--;
		}
	}
	/* Close is FIN after queued data: once every request is queued. */
	if (c->close_req && c->nb_req == 0 && !c->close_sent) {
		rc = dt_dp_close(st, c->conn);
		c->close_sent = true;
		if (rc != 0)
			cli_notice("conn %u: close failed: %s", c->id, rte_strerror(-rc));
	}
}

int
cli_conn_send(struct cli_ctx *ctx, struct cli_conn *c, uint64_t bytes,
	bool device, struct dt_app_error *err)
{
	struct cli_port *cp = &ctx->port[c->port_id];
	uint16_t i;

	if (device && cp->tx_region == NULL) {
		struct dt_devmem_region_conf rc = {
			.gpu_id = rte_gpu_find_next(0, RTE_GPU_ID_ANY),
			.port_id = c->port_id,
			.nb_bufs = CLI_SLOTS * 2,
			.buf_size = CLI_SLOT_SIZE / 2,
			.cache_size = 0,
			.socket_id = rte_eth_dev_socket_id(c->port_id),
		};
		char name[DT_DEVMEM_NAME_MAX + 1];
		int r;

		if (rc.gpu_id < 0)
			return dt_app_error_set(err, -ENODEV, "no gpudev device for a "
				"device-memory send buffer (add --vdev=gpu_sim0,size=256M)");
		snprintf(name, sizeof(name), "cli_tx%u", c->port_id);
		rc.name = name;
		r = dt_devmem_region_create(&rc, &cp->tx_region);
		if (r != 0)
			return dt_app_error_set(err, r, "cannot create the device "
				"send buffers: %s", rte_strerror(-r));
		cp->tx_alias = dt_devmem_region_cpu_map(cp->tx_region);
		if (cp->tx_alias == NULL) {
			r = dt_app_error_set(err, -ENOTSUP, "the device cannot map its "
				"memory for the CPU (%s): no pattern can be written into it",
				rte_strerror(rte_errno));
			dt_devmem_region_destroy(cp->tx_region);
			cp->tx_region = NULL;
			return r;
		}
	}
	if (c->nb_req == CLI_CONN_REQS)
		return dt_app_error_set(err, -ENOBUFS, "too many sends waiting on "
			"this connection (wait first)");
	i = (c->req_head + c->nb_req) % CLI_CONN_REQS;
	c->req[i].bytes = bytes;
	c->req[i].done = 0;
	c->req[i].device = device;
	c->nb_req++;
	cli_conn_push(ctx, c);
	return 0;
}

/* --- events --- */

static void
consume(struct cli_ctx *ctx, struct cli_port *cp, struct cli_conn *c,
	const struct dt_dp_chunk *ch)
{
	const uint8_t *p = NULL;

	if (c->verify) {
		if (ch->kind == DT_DP_CHUNK_HOST) {
			p = ch->addr;
		} else {
			if (cp->rx_alias == NULL && cp->region != NULL)
				cp->rx_alias = dt_devmem_region_cpu_map(cp->region);
			if (cp->rx_alias == NULL) {
				cli_notice("conn %u: verify off: the device cannot map "
					"its memory for the CPU", c->id);
				c->verify = false;
			} else {
				p = cp->rx_alias + ch->offset;
			}
		}
	}
	if (p != NULL) {
		uint32_t bad = pattern_bad(p, ch->len, (uint32_t)c->rx_bytes);

		c->rx_bad += bad;
		c->verified += ch->len;
		if (c->bench) {
			ctx->bench.rx_bad += bad;
			ctx->bench.verified += ch->len;
		}
	}
	c->rx_bytes += ch->len;
	if (c->bench)
		ctx->bench.rx_bytes += ch->len;
}

void
cli_conn_desc(const struct cli_conn *c, char *buf, size_t len)
{
	char l[32], r[32];

	snprintf(buf, len, "%s:%u %s %s:%u", dt_app_ipv4_str(c->last.laddr, l, sizeof(l)),
		c->last.lport, c->passive ? "<-" : "->",
		dt_app_ipv4_str(c->last.raddr, r, sizeof(r)), c->last.rport);
}

static void
handle_event(struct cli_ctx *ctx, uint16_t port, uint16_t sq,
	const struct dt_dp_event *ev)
{
	struct cli_port *cp = &ctx->port[port];
	struct dt_dp_stack *st = cp->stacks[sq];
	struct cli_conn *c = ev->udata;
	char d[96];
	unsigned int i;

	if (ev->type == DT_DP_EV_ACCEPTED) {
		c = cli_conn_new(ctx, port, ev->conn);
		if (c == NULL) {
			dt_dp_abort(st, ev->conn);
			cli_notice("port %u: connection on TCP port %u aborted: %u "
				"connections open already", port, ev->listen_port,
				CLI_MAX_CONNS);
			return;
		}
		c->sq = sq;
		c->passive = true;
		c->connected = true;
		c->bench = ctx->bench.running && port == ctx->bench.dst &&
			ev->listen_port == CLI_BENCH_TCP_PORT;
		c->verify = c->bench ? ctx->bench.verify : ctx->verify;
		dt_dp_set_udata(st, ev->conn, c);
		cli_conn_refresh(ctx, c);
		cli_conn_desc(c, d, sizeof(d));
		if (!c->bench)
			cli_notice("conn %u: accepted on port %u: %s", c->id, port, d);
		return;
	}
	if (c == NULL) {
		if (ev->type == DT_DP_EV_DATA)
			dt_dp_release(st, ev->chunk.token);
		return;
	}
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		c->connected = true;
		cli_conn_refresh(ctx, c);
		cli_conn_desc(c, d, sizeof(d));
		if (!c->bench)
			cli_notice("conn %u: established: %s", c->id, d);
		cli_conn_push(ctx, c);
		break;
	case DT_DP_EV_DATA:
		consume(ctx, cp, c, &ev->chunk);
		dt_dp_release(st, ev->chunk.token);
		break;
	case DT_DP_EV_SENT:
		slots_return(cp, c, ev->sent.count);
		c->acked += ev->sent.bytes;
		if (c->bench)
			ctx->bench.acked += ev->sent.bytes;
		cli_conn_push(ctx, c);
		/* The freed buffers may be what another connection waits for. */
		for (i = 0; i < CLI_MAX_CONNS && cp->nb_free > 0; i++) {
			struct cli_conn *o = &ctx->conns[i];

			if (o->used && o != c && o->port_id == port && o->nb_req > 0)
				cli_conn_push(ctx, o);
		}
		if (c->bench)
			bench_event(ctx, c);
		break;
	case DT_DP_EV_PEER_CLOSED:
		/* Nothing more comes: close once our own data is queued. */
		cli_conn_refresh(ctx, c);
		c->peer_closed = true;
		c->close_req = true;
		cli_conn_push(ctx, c);
		break;
	case DT_DP_EV_RESET:
		c->why = "reset by peer";
		if (!c->bench)
			cli_notice("conn %u: reset by peer", c->id);
		break;
	case DT_DP_EV_ERROR:
		c->why = strerror(ev->err);
		if (!c->bench)
			cli_notice("conn %u: failed: %s", c->id, c->why);
		break;
	case DT_DP_EV_CLOSED:
		conn_gone(ctx, c, NULL);
		if (!c->bench)
			cli_notice("conn %u: closed%s%s: %" PRIu64 " bytes sent and "
				"acknowledged, %" PRIu64 " received", c->id,
				c->why ? ", " : "", c->why ? c->why : "", c->acked,
				c->rx_bytes);
		if (c->bench)
			bench_event(ctx, c);
		break;
	default:
		break;
	}
}

unsigned int
cli_poll(struct cli_ctx *ctx)
{
	struct dt_dp_event ev[CLI_EVENTS];
	unsigned int frames = 0;
	uint16_t p, n, i;

	uint16_t sq;

	for (p = 0; p < CLI_MAX_PORTS; p++) {
		for (sq = 0; sq < ctx->port[p].nb_stacks; sq++) {
			struct dt_dp_stack *st = ctx->port[p].stacks[sq];

			frames += dt_dp_poll(st);
			/* Events are bounded: drain them after every poll. */
			do {
				n = dt_dp_events(st, ev, CLI_EVENTS);
				for (i = 0; i < n && ctx->port[p].nb_stacks > sq; i++)
					handle_event(ctx, p, sq, &ev[i]);
			} while (n > 0 && ctx->port[p].nb_stacks > sq);
		}
	}
	return frames;
}

bool
cli_have_stacks(const struct cli_ctx *ctx)
{
	uint16_t p;

	for (p = 0; p < CLI_MAX_PORTS; p++)
		if (ctx->port[p].stack != NULL)
			return true;
	return false;
}

void
cli_poll_for(struct cli_ctx *ctx, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_get_tsc_cycles() < end && !cli_interrupted()) {
		if (cli_have_stacks(ctx))
			cli_poll(ctx);
		else
			rte_delay_us_sleep(1000);
	}
}

bool
cli_busy(const struct cli_ctx *ctx, char *why, size_t len)
{
	unsigned int i;

	if (ctx->bench.running) {
		snprintf(why, len, "bench running (%u of %u connections done)",
			ctx->bench.nb_done + ctx->bench.nb_failed, ctx->bench.nb_conns);
		return true;
	}
	for (i = 0; i < CLI_MAX_CONNS; i++) {
		const struct cli_conn *c = &ctx->conns[i];

		if (!c->used || c->closed)
			continue;
		if (!c->connected) {
			snprintf(why, len, "conn %u connecting", c->id);
			return true;
		}
		if (c->nb_req > 0 || c->nb_fl > 0) {
			snprintf(why, len, "conn %u: %" PRIu64 " bytes not yet "
				"acknowledged", c->id, c->queued - c->acked);
			return true;
		}
		if (c->close_sent) {
			snprintf(why, len, "conn %u closing (%s)", c->id,
				dt_tcp_state_str(c->last.state));
			return true;
		}
	}
	return false;
}

/* --- stacks --- */

int
cli_listen(struct cli_ctx *ctx, uint16_t port, uint16_t tcp_port)
{
	struct cli_port *cp = &ctx->port[port];
	uint16_t i;
	int rc;

	for (i = 0; i < cp->nb_listen; i++)
		if (cp->listen[i] == tcp_port)
			return -EEXIST;
	if (cp->nb_listen == CLI_MAX_LISTEN)
		return -ENOSPC;
	/* Every stack listens: RSS may bring a connection to any of them. */
	for (i = 0; i < cp->nb_stacks; i++) {
		rc = dt_dp_listen(cp->stacks[i], tcp_port);
		if (rc != 0) {
			while (i-- > 0)
				dt_dp_unlisten(cp->stacks[i], tcp_port);
			return rc;
		}
	}
	cp->listen[cp->nb_listen++] = tcp_port;
	return 0;
}

void
cli_unlisten(struct cli_ctx *ctx, uint16_t port, uint16_t tcp_port)
{
	struct cli_port *cp = &ctx->port[port];
	uint16_t i;

	for (i = 0; i < cp->nb_listen; i++)
		if (cp->listen[i] == tcp_port) {
			uint16_t k;

			cp->listen[i] = cp->listen[--cp->nb_listen];
			for (k = 0; k < cp->nb_stacks; k++)
				dt_dp_unlisten(cp->stacks[k], tcp_port);
			return;
		}
}

int
cli_stack_create(struct cmdline *cl, uint16_t port)
{
	struct cli_ctx *ctx = cli_ctx_get();
	struct cli_port *cp = &ctx->port[port];
	struct dt_dp_stack_conf sc;
	char ip[32];
	uint16_t i, k;
	int rc;

	if (cp->stack != NULL || !cp->started || cp->ipv4 == 0)
		return 0;
	if (ctx->shell_pool == NULL)
		ctx->shell_pool = rte_pktmbuf_pool_create("cli_shell", CLI_SHELLS,
			256, 0, 0, SOCKET_ID_ANY);
	if (cp->host_slots == NULL) {
		/* Aligned to a slot: a slot never straddles a hugepage. */
		cp->host_slots = rte_malloc("cli_slots", (size_t)CLI_SLOTS *
			CLI_SLOT_SIZE, CLI_SLOT_SIZE);
		for (i = 0; cp->host_slots != NULL && i < CLI_SLOTS; i++)
			cp->free_slot[i] = CLI_SLOTS - 1 - i;
		cp->nb_free = cp->host_slots != NULL ? CLI_SLOTS : 0;
	}
	if (ctx->shell_pool == NULL || cp->host_slots == NULL) {
		cli_fail(cl, "port %u: no hugepage memory for the TCP stack's "
			"buffers", port);
		return -ENOMEM;
	}
	dt_dp_stack_conf_default(&sc);
	sc.port_id = port;
	sc.ipv4 = cp->ipv4;
	sc.netmask = cp->netmask;
	sc.max_conns = CLI_MAX_CONNS;
	sc.hdr_pool = ctx->whole_pool;
	sc.shell_pool = ctx->shell_pool;
	sc.region = cp->region;
	sc.tx_cksum_offload = true;   /* port start asks for it */
	sc.tcp.msl_us = CLI_MSL_US;
	/* One stack per queue pair the port started with. */
	for (k = 0; k < RTE_MAX(cp->nb_queues, (uint16_t)1); k++) {
		sc.rxq = k;
		sc.txq = k;
		cp->stacks[k] = dt_dp_stack_create(&sc);
		if (cp->stacks[k] == NULL) {
			rc = -rte_errno;
			cli_fail(cl, "port %u: cannot create TCP stack %u: %s (the "
				"log line above says why)", port, k,
				rte_strerror(rte_errno));
			while (k-- > 0)
				dt_dp_stack_destroy(cp->stacks[k]);
			return rc;
		}
	}
	cp->nb_stacks = k;
	cp->stack = cp->stacks[0];
	cp->next_sq = 0;
	for (i = 0; i < cp->nb_listen; i++)
		for (k = 0; k < cp->nb_stacks; k++) {
			rc = dt_dp_listen(cp->stacks[k], cp->listen[i]);
			if (rc != 0)
				cli_fail(cl, "port %u: stack %u cannot listen on TCP "
					"port %u again: %s", port, k, cp->listen[i],
					rte_strerror(-rc));
		}
	if (cp->nb_stacks == 1)
		cmdline_printf(cl, "port %u: TCP stack at %s/%u\n", port,
			dt_app_ipv4_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len);
	else
		cmdline_printf(cl, "port %u: %u TCP stacks at %s/%u (RSS across "
			"queues 0-%u)\n", port, cp->nb_stacks,
			dt_app_ipv4_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len,
			cp->nb_stacks - 1);
	return 0;
}

void
cli_stack_destroy(uint16_t port)
{
	struct cli_ctx *ctx = cli_ctx_get();
	struct cli_port *cp = &ctx->port[port];
	unsigned int i;

	if (cp->stack == NULL)
		return;
	for (i = 0; i < CLI_MAX_CONNS; i++) {
		struct cli_conn *c = &ctx->conns[i];

		if (c->used && !c->closed && c->port_id == port) {
			conn_gone(ctx, c, "stack destroyed");
			if (c->bench)
				bench_event(ctx, c);
			else
				cli_notice("conn %u: aborted with port %u's TCP stack",
					c->id, port);
		}
	}
	for (i = 0; i < cp->nb_stacks; i++) {
		dt_dp_stack_destroy(cp->stacks[i]);
		cp->stacks[i] = NULL;
	}
	cp->nb_stacks = 0;
	cp->stack = NULL;
}

void
cli_tcp_cleanup(struct cli_ctx *ctx)
{
	uint16_t p;

	for (p = 0; p < CLI_MAX_PORTS; p++) {
		struct cli_port *cp = &ctx->port[p];

		cli_stack_destroy(p);
		if (cp->rx_alias != NULL)
			dt_devmem_region_cpu_unmap(cp->region);
		cp->rx_alias = NULL;
	}
}

/* After the ports stopped: nothing references the send buffers any more. */
void
cli_tcp_cleanup_buffers(struct cli_ctx *ctx)
{
	uint16_t p;

	for (p = 0; p < CLI_MAX_PORTS; p++) {
		struct cli_port *cp = &ctx->port[p];

		if (cp->tx_alias != NULL)
			dt_devmem_region_cpu_unmap(cp->tx_region);
		if (cp->tx_region != NULL && dt_devmem_region_destroy(cp->tx_region))
			CLI_LOG(ERR, "port %u: device send buffers not freed", p);
		rte_free(cp->host_slots);
		cp->tx_alias = NULL;
		cp->tx_region = NULL;
		cp->host_slots = NULL;
	}
	rte_mempool_free(ctx->shell_pool);
	ctx->shell_pool = NULL;
}

