/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP commands over lib/dp's stack:
 *   set ip <port> <addr>/<len>        the stack's address (before tcp commands)
 *   set tcp verify on|off             check received bytes against the pattern
 *   tcp listen <tcp_port> [port <port_id>]
 *   tcp connect <ip> <tcp_port> [port <port_id>]
 *   tcp send <conn> <bytes> [host|device]
 *   tcp close|abort <conn>
 *   show tcp conns|stats
 *   sleep <ms>, wait [<ms>]           poll the stacks (scripts let traffic flow)
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

#include <cmdline_parse_ipaddr.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <cmdline_rdline.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "cli.h"
#include "dt_app_value.h"
#include "dt_devmem.h"
#include "dt_dp.h"

#define CLI_EVENTS 64
#define CLI_SHELLS 16384
/*
 * TIME_WAIT is 2 MSL: half a second keeps it a real state (visible in
 * "show tcp conns") without making scripts wait a minute for CLOSED.
 */
#define CLI_MSL_US 500000
#define CLI_WAIT_MS 10000     /* "wait" without a limit */
#define CLI_PATTERN_MUL 2654435761u /* dt_pattern_byte's multiplier */

void
cli_notice(const char *fmt, ...)
{
	struct cli_ctx *ctx = cli_ctx();
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
	uint32_t v = off * CLI_PATTERN_MUL, i;

	for (i = 0; i < len; i++, v += CLI_PATTERN_MUL)
		p[i] = (uint8_t)(v >> 24);
}

static uint32_t
pattern_bad(const uint8_t *p, uint32_t len, uint32_t off)
{
	uint32_t v = off * CLI_PATTERN_MUL, i, bad = 0;

	for (i = 0; i < len; i++, v += CLI_PATTERN_MUL)
		bad += p[i] != (uint8_t)(v >> 24);
	return bad;
}

static const char *
ip_str(uint32_t be, char *buf, size_t len)
{
	return dt_app_ipv4_str(be, buf, len);
}

/* --- connections --- */

static struct cli_conn *
conn_by_id(struct cli_ctx *ctx, uint32_t id)
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

static void
conn_refresh(struct cli_ctx *ctx, struct cli_conn *c)
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
	bool device, const char **why)
{
	struct cli_port *cp = &ctx->port[c->port_id];
	static char msg[160];
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

		if (rc.gpu_id < 0) {
			*why = "no gpudev device for a device-memory send buffer "
				"(add --vdev=gpu_sim0,size=256M)";
			return -ENODEV;
		}
		snprintf(name, sizeof(name), "cli_tx%u", c->port_id);
		rc.name = name;
		r = dt_devmem_region_create(&rc, &cp->tx_region);
		if (r != 0) {
			snprintf(msg, sizeof(msg), "cannot create the device send "
				"buffers: %s", rte_strerror(-r));
			*why = msg;
			return r;
		}
		cp->tx_alias = dt_devmem_region_cpu_map(cp->tx_region);
		if (cp->tx_alias == NULL) {
			snprintf(msg, sizeof(msg), "the device cannot map its memory "
				"for the CPU (%s): no pattern can be written into it",
				rte_strerror(rte_errno));
			*why = msg;
			dt_devmem_region_destroy(cp->tx_region);
			cp->tx_region = NULL;
			return -ENOTSUP;
		}
	}
	if (c->nb_req == CLI_CONN_REQS) {
		*why = "too many sends waiting on this connection (wait first)";
		return -ENOBUFS;
	}
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

static void
conn_desc(const struct cli_conn *c, char *buf, size_t len)
{
	char l[32], r[32];

	snprintf(buf, len, "%s:%u %s %s:%u", ip_str(c->last.laddr, l, sizeof(l)),
		c->last.lport, c->passive ? "<-" : "->",
		ip_str(c->last.raddr, r, sizeof(r)), c->last.rport);
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
		conn_refresh(ctx, c);
		conn_desc(c, d, sizeof(d));
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
		conn_refresh(ctx, c);
		conn_desc(c, d, sizeof(d));
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
			cli_bench_conn_event(ctx, c);
		break;
	case DT_DP_EV_PEER_CLOSED:
		/* Nothing more comes: close once our own data is queued. */
		conn_refresh(ctx, c);
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
			cli_bench_conn_event(ctx, c);
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

static bool
have_stacks(const struct cli_ctx *ctx)
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
		if (have_stacks(ctx))
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
	struct cli_ctx *ctx = cli_ctx();
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
			ip_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len);
	else
		cmdline_printf(cl, "port %u: %u TCP stacks at %s/%u (RSS across "
			"queues 0-%u)\n", port, cp->nb_stacks,
			ip_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len,
			cp->nb_stacks - 1);
	return 0;
}

void
cli_stack_destroy(uint16_t port)
{
	struct cli_ctx *ctx = cli_ctx();
	struct cli_port *cp = &ctx->port[port];
	unsigned int i;

	if (cp->stack == NULL)
		return;
	for (i = 0; i < CLI_MAX_CONNS; i++) {
		struct cli_conn *c = &ctx->conns[i];

		if (c->used && !c->closed && c->port_id == port) {
			conn_gone(ctx, c, "stack destroyed");
			if (c->bench)
				cli_bench_conn_event(ctx, c);
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

/* --- set ip <port> <addr>/<len> --- */
struct set_ip_res {
	cmdline_fixed_string_t set, ip;
	uint16_t port_id;
	cmdline_ipaddr_t addr;
};

static bool
port_has_open_conns(const struct cli_ctx *ctx, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < CLI_MAX_CONNS; i++)
		if (ctx->conns[i].used && !ctx->conns[i].closed &&
				ctx->conns[i].port_id == port)
			return true;
	return false;
}

static void
set_ip_cb(void *res, struct cmdline *cl, void *data)
{
	struct set_ip_res *r = res;
	struct cli_ctx *ctx = cli_ctx();
	struct cli_port *cp;
	char ip[32];

	RTE_SET_USED(data);
	if (!cli_port_ok(cl, r->port_id))
		return;
	cp = &ctx->port[r->port_id];
	if (r->addr.prefixlen < 1 || r->addr.prefixlen > 32 ||
			r->addr.addr.ipv4.s_addr == 0)
		return cli_fail(cl, "set ip: expected ADDR/LEN with LEN in [1, 32] "
			"and a non-zero address");
	/* The stack takes its address at creation: a new address, a new stack. */
	if (port_has_open_conns(ctx, r->port_id))
		return cli_fail(cl, "set ip: port %u has open connections (tcp "
			"close or tcp abort them first)", r->port_id);
	cli_stack_destroy(r->port_id);
	cp->ipv4 = r->addr.addr.ipv4.s_addr;
	cp->prefix_len = (uint8_t)r->addr.prefixlen;
	cp->netmask = rte_cpu_to_be_32(r->addr.prefixlen == 32 ? UINT32_MAX :
		~(UINT32_MAX >> r->addr.prefixlen));
	cmdline_printf(cl, "port %u: IPv4 %s/%u%s\n", r->port_id,
		ip_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len,
		cp->started ? "" : " (the TCP stack starts with the port)");
	cli_stack_create(cl, r->port_id);
}

static cmdline_parse_token_string_t si_set =
	TOKEN_STRING_INITIALIZER(struct set_ip_res, set, "set");
static cmdline_parse_token_string_t si_ip =
	TOKEN_STRING_INITIALIZER(struct set_ip_res, ip, "ip");
static cmdline_parse_token_num_t si_port =
	TOKEN_NUM_INITIALIZER(struct set_ip_res, port_id, RTE_UINT16);
static cmdline_parse_token_ipaddr_t si_addr =
	TOKEN_IPV4NET_INITIALIZER(struct set_ip_res, addr);

cmdline_parse_inst_t cli_cmd_set_ip = {
	.f = set_ip_cb,
	.help_str = "set ip <port_id> <addr>/<len>: IPv4 address of the port's "
		"TCP stack (needed before tcp commands; the stack runs while the "
		"port is started)",
	.tokens = { (void *)&si_set, (void *)&si_ip, (void *)&si_port,
		(void *)&si_addr, NULL },
};

/* --- set stacks <port_id> <n> --- */
struct set_stacks_res {
	cmdline_fixed_string_t set, stacks;
	uint16_t port_id, n;
};

static void
set_stacks_cb(void *res, struct cmdline *cl, void *data)
{
	struct set_stacks_res *r = res;
	struct cli_ctx *ctx = cli_ctx();

	RTE_SET_USED(data);
	if (!cli_port_ok(cl, r->port_id))
		return;
	if (r->n < 1 || r->n > CLI_MAX_STACKS)
		return cli_fail(cl, "set stacks: expected 1 to %u stacks",
			CLI_MAX_STACKS);
	ctx->port[r->port_id].stacks_conf = r->n;
	cmdline_printf(cl, "port %u: %u TCP stack%s (applied at the next port "
		"start)\n", r->port_id, r->n, r->n > 1 ? "s" : "");
}

static cmdline_parse_token_string_t sst_set =
	TOKEN_STRING_INITIALIZER(struct set_stacks_res, set, "set");
static cmdline_parse_token_string_t sst_stacks =
	TOKEN_STRING_INITIALIZER(struct set_stacks_res, stacks, "stacks");
static cmdline_parse_token_num_t sst_port =
	TOKEN_NUM_INITIALIZER(struct set_stacks_res, port_id, RTE_UINT16);
static cmdline_parse_token_num_t sst_n =
	TOKEN_NUM_INITIALIZER(struct set_stacks_res, n, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_set_stacks = {
	.f = set_stacks_cb,
	.help_str = "set stacks <port_id> <n>: TCP stacks of the port, one per "
		"RX/TX queue pair with RSS across them (at the next port start)",
	.tokens = { (void *)&sst_set, (void *)&sst_stacks, (void *)&sst_port,
		(void *)&sst_n, NULL },
};

/* --- set tcp verify on|off --- */
struct set_verify_res {
	cmdline_fixed_string_t set, tcp, verify, onoff;
};

static void
set_verify_cb(void *res, struct cmdline *cl, void *data)
{
	struct set_verify_res *r = res;

	RTE_SET_USED(data);
	cli_ctx()->verify = strcmp(r->onoff, "on") == 0;
	cmdline_printf(cl, "tcp verify %s (connections accepted from now on)\n",
		r->onoff);
}

static cmdline_parse_token_string_t sv_set =
	TOKEN_STRING_INITIALIZER(struct set_verify_res, set, "set");
static cmdline_parse_token_string_t sv_tcp =
	TOKEN_STRING_INITIALIZER(struct set_verify_res, tcp, "tcp");
static cmdline_parse_token_string_t sv_verify =
	TOKEN_STRING_INITIALIZER(struct set_verify_res, verify, "verify");
static cmdline_parse_token_string_t sv_onoff =
	TOKEN_STRING_INITIALIZER(struct set_verify_res, onoff, "on#off");

cmdline_parse_inst_t cli_cmd_set_tcp_verify = {
	.f = set_verify_cb,
	.help_str = "set tcp verify on|off: check received bytes against the "
		"send pattern (device bytes through the region's CPU alias)",
	.tokens = { (void *)&sv_set, (void *)&sv_tcp, (void *)&sv_verify,
		(void *)&sv_onoff, NULL },
};

/* --- tcp listen <tcp_port> [port <port_id>] --- */
struct listen_res {
	cmdline_fixed_string_t tcp, listen;
	uint16_t tcp_port;
	cmdline_fixed_string_t port;
	uint16_t port_id;
};

static void
listen_one(struct cmdline *cl, struct cli_ctx *ctx, uint16_t p, uint16_t tp)
{
	char ip[32];
	int rc = cli_listen(ctx, p, tp);

	if (rc == -EEXIST)
		cmdline_printf(cl, "port %u: listening on TCP port %u already\n", p, tp);
	else if (rc != 0)
		cli_fail(cl, "tcp listen: port %u, TCP port %u: %s", p, tp,
			rc == -ENOSPC ? "too many listening ports" : rte_strerror(-rc));
	else
		cmdline_printf(cl, "port %u: listening on %s:%u%s\n", p,
			ip_str(ctx->port[p].ipv4, ip, sizeof(ip)), tp,
			ctx->port[p].stack ? "" : " (from port start)");
}

static void
listen_cb(void *res, struct cmdline *cl, void *data)
{
	struct listen_res *r = res;
	struct cli_ctx *ctx = cli_ctx();
	unsigned int n = 0;
	uint16_t p;

	if (r->tcp_port == 0)
		return cli_fail(cl, "tcp listen: TCP port 0");
	if (data != NULL) { /* "port <port_id>" */
		if (!cli_port_ok(cl, r->port_id))
			return;
		if (ctx->port[r->port_id].ipv4 == 0)
			return cli_fail(cl, "tcp listen: port %u has no IPv4 address "
				"(set ip %u <addr>/<len> first)", r->port_id, r->port_id);
		return listen_one(cl, ctx, r->port_id, r->tcp_port);
	}
	for (p = 0; p < CLI_MAX_PORTS; p++)
		if (ctx->port[p].ipv4 != 0) {
			listen_one(cl, ctx, p, r->tcp_port);
			n++;
		}
	if (n == 0)
		cli_fail(cl, "tcp listen: no port has an IPv4 address (set ip "
			"<port_id> <addr>/<len> first)");
}

static cmdline_parse_token_string_t li_tcp =
	TOKEN_STRING_INITIALIZER(struct listen_res, tcp, "tcp");
static cmdline_parse_token_string_t li_listen =
	TOKEN_STRING_INITIALIZER(struct listen_res, listen, "listen");
static cmdline_parse_token_num_t li_tport =
	TOKEN_NUM_INITIALIZER(struct listen_res, tcp_port, RTE_UINT16);
static cmdline_parse_token_string_t li_port =
	TOKEN_STRING_INITIALIZER(struct listen_res, port, "port");
static cmdline_parse_token_num_t li_pid =
	TOKEN_NUM_INITIALIZER(struct listen_res, port_id, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_tcp_listen = {
	.f = listen_cb,
	.help_str = "tcp listen <tcp_port>: accept on every addressed port; "
		"received data is consumed and counted",
	.tokens = { (void *)&li_tcp, (void *)&li_listen, (void *)&li_tport, NULL },
};

cmdline_parse_inst_t cli_cmd_tcp_listen_port = {
	.f = listen_cb,
	.data = (void *)1,
	.help_str = "tcp listen <tcp_port> port <port_id>: accept on one port",
	.tokens = { (void *)&li_tcp, (void *)&li_listen, (void *)&li_tport,
		(void *)&li_port, (void *)&li_pid, NULL },
};

/* --- tcp connect <ip> <tcp_port> [port <port_id>] --- */
struct connect_res {
	cmdline_fixed_string_t tcp, connect;
	cmdline_ipaddr_t ip;
	uint16_t tcp_port;
	cmdline_fixed_string_t port;
	uint16_t port_id;
};

/* The stack to reach @p ip from: the first whose subnet holds it. */
static int
route(const struct cli_ctx *ctx, uint32_t ip)
{
	uint16_t p;

	for (p = 0; p < CLI_MAX_PORTS; p++) {
		const struct cli_port *cp = &ctx->port[p];

		if (cp->stack != NULL && cp->ipv4 != ip &&
				(cp->ipv4 & cp->netmask) == (ip & cp->netmask))
			return p;
	}
	return -1;
}

static void
connect_cb(void *res, struct cmdline *cl, void *data)
{
	struct connect_res *r = res;
	struct cli_ctx *ctx = cli_ctx();
	uint32_t ip = r->ip.addr.ipv4.s_addr;
	struct cli_conn *c;
	dt_dp_conn_t conn;
	char d[96], a[32];
	int p, rc;

	if (r->tcp_port == 0)
		return cli_fail(cl, "tcp connect: TCP port 0");
	if (data != NULL) {
		if (!cli_port_ok(cl, r->port_id))
			return;
		p = r->port_id;
		if (ctx->port[p].stack == NULL)
			return cli_fail(cl, "tcp connect: port %u has no TCP stack (set "
				"ip %u <addr>/<len>, port start %u)", p, p, p);
	} else if (!have_stacks(ctx)) {
		return cli_fail(cl, "tcp connect: no TCP stack: set ip <port_id> "
			"<addr>/<len> and port start <port_id> first");
	} else {
		p = route(ctx, ip);
		if (p < 0)
			return cli_fail(cl, "tcp connect: no port's subnet holds %s "
				"(add 'port <port_id>')", ip_str(ip, a, sizeof(a)));
	}
	c = cli_conn_new(ctx, p, 0);
	if (c == NULL)
		return cli_fail(cl, "tcp connect: %u connections open already",
			CLI_MAX_CONNS);
	c->verify = ctx->verify;
	c->sq = cli_next_stack(ctx, (uint16_t)p);
	rc = dt_dp_connect(ctx->port[p].stacks[c->sq], ip, r->tcp_port, c,
		&conn);
	if (rc != 0) {
		c->used = false;
		return cli_fail(cl, "tcp connect: %s:%u from port %u: %s",
			ip_str(ip, a, sizeof(a)), r->tcp_port, p, rte_strerror(-rc));
	}
	c->conn = conn;
	conn_refresh(ctx, c);
	conn_desc(c, d, sizeof(d));
	cmdline_printf(cl, "conn %u: port %u %s connecting\n", c->id, p, d);
}

static cmdline_parse_token_string_t co_tcp =
	TOKEN_STRING_INITIALIZER(struct connect_res, tcp, "tcp");
static cmdline_parse_token_string_t co_connect =
	TOKEN_STRING_INITIALIZER(struct connect_res, connect, "connect");
static cmdline_parse_token_ipaddr_t co_ip =
	TOKEN_IPV4_INITIALIZER(struct connect_res, ip);
static cmdline_parse_token_num_t co_tport =
	TOKEN_NUM_INITIALIZER(struct connect_res, tcp_port, RTE_UINT16);
static cmdline_parse_token_string_t co_port =
	TOKEN_STRING_INITIALIZER(struct connect_res, port, "port");
static cmdline_parse_token_num_t co_pid =
	TOKEN_NUM_INITIALIZER(struct connect_res, port_id, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_tcp_connect = {
	.f = connect_cb,
	.help_str = "tcp connect <ip> <tcp_port>: open a connection from the "
		"port whose subnet holds ip; prints its id",
	.tokens = { (void *)&co_tcp, (void *)&co_connect, (void *)&co_ip,
		(void *)&co_tport, NULL },
};

cmdline_parse_inst_t cli_cmd_tcp_connect_port = {
	.f = connect_cb,
	.data = (void *)1,
	.help_str = "tcp connect <ip> <tcp_port> port <port_id>: open a "
		"connection from that port",
	.tokens = { (void *)&co_tcp, (void *)&co_connect, (void *)&co_ip,
		(void *)&co_tport, (void *)&co_port, (void *)&co_pid, NULL },
};

/* Bytes requested and not yet acknowledged. */
static uint64_t
conn_pending(const struct cli_conn *c)
{
	uint64_t n = c->queued - c->acked;
	uint16_t i;

	for (i = 0; i < c->nb_req; i++) {
		const struct cli_send_req *r = &c->req[(c->req_head + i) % CLI_CONN_REQS];

		n += r->bytes - r->done;
	}
	return n;
}

/* --- tcp send <conn> <bytes> [host|device] --- */
struct send_res {
	cmdline_fixed_string_t tcp, send;
	uint32_t id;
	cmdline_fixed_string_t bytes, kind;
};

/* A connection the command may act on, or NULL after saying why. */
static struct cli_conn *
open_conn(struct cmdline *cl, const char *cmd, uint32_t id)
{
	struct cli_conn *c = conn_by_id(cli_ctx(), id);

	if (c == NULL)
		cli_fail(cl, "%s: no connection %u (show tcp conns lists them)",
			cmd, id);
	else if (c->closed)
		cli_fail(cl, "%s: connection %u is closed%s%s", cmd, id,
			c->why ? ": " : "", c->why ? c->why : "");
	else
		return c;
	return NULL;
}

static void
send_cb(void *res, struct cmdline *cl, void *data)
{
	struct send_res *r = res;
	struct cli_ctx *ctx = cli_ctx();
	bool device = data != NULL && strcmp(r->kind, "device") == 0;
	const char *expect, *why = NULL;
	struct cli_conn *c;
	char eb[64];
	uint64_t n;

	c = open_conn(cl, "tcp send", r->id);
	if (c == NULL)
		return;
	if (dt_app_parse_size(r->bytes, 1, 1ULL << 40, &n, eb, sizeof(eb),
			&expect) != 0)
		return cli_fail(cl, "tcp send: expected %s, got '%s'", expect,
			r->bytes);
	if (c->close_req)
		return cli_fail(cl, "tcp send: connection %u is closing", r->id);
	if (cli_conn_send(ctx, c, n, device, &why) != 0)
		return cli_fail(cl, "tcp send: connection %u: %s", r->id, why);
	cmdline_printf(cl, "conn %u: %" PRIu64 " bytes from %s memory queued "
		"(%" PRIu64 " not yet acknowledged)\n", c->id, n,
		device ? "device" : "host", conn_pending(c));
}

static cmdline_parse_token_string_t se_tcp =
	TOKEN_STRING_INITIALIZER(struct send_res, tcp, "tcp");
static cmdline_parse_token_string_t se_send =
	TOKEN_STRING_INITIALIZER(struct send_res, send, "send");
static cmdline_parse_token_num_t se_id =
	TOKEN_NUM_INITIALIZER(struct send_res, id, RTE_UINT32);
static cmdline_parse_token_string_t se_bytes =
	TOKEN_STRING_INITIALIZER(struct send_res, bytes, NULL);
static cmdline_parse_token_string_t se_kind =
	TOKEN_STRING_INITIALIZER(struct send_res, kind, "host#device");

cmdline_parse_inst_t cli_cmd_tcp_send = {
	.f = send_cb,
	.help_str = "tcp send <conn> <bytes>: send bytes (K, M, G suffixes) of "
		"the test pattern from host memory",
	.tokens = { (void *)&se_tcp, (void *)&se_send, (void *)&se_id,
		(void *)&se_bytes, NULL },
};

cmdline_parse_inst_t cli_cmd_tcp_send_kind = {
	.f = send_cb,
	.data = (void *)1,
	.help_str = "tcp send <conn> <bytes> host|device: from host memory, or "
		"from a device-memory buffer (pattern written through the CPU "
		"alias, sent by reference)",
	.tokens = { (void *)&se_tcp, (void *)&se_send, (void *)&se_id,
		(void *)&se_bytes, (void *)&se_kind, NULL },
};

/* --- tcp close|abort <conn> --- */
struct close_res {
	cmdline_fixed_string_t tcp, op;
	uint32_t id;
};

static void
close_cb(void *res, struct cmdline *cl, void *data)
{
	struct close_res *r = res;
	struct cli_ctx *ctx = cli_ctx();
	struct cli_conn *c;
	int rc;

	RTE_SET_USED(data);
	c = open_conn(cl, r->op[0] == 'a' ? "tcp abort" : "tcp close", r->id);
	if (c == NULL)
		return;
	conn_refresh(ctx, c);
	if (strcmp(r->op, "abort") == 0) {
		rc = dt_dp_abort(cli_conn_stack(ctx, c), c->conn);
		if (rc != 0)
			return cli_fail(cl, "tcp abort: connection %u: %s", r->id,
				rte_strerror(-rc));
		c->nb_req = 0;
		c->why = "aborted";
		cmdline_printf(cl, "conn %u: aborted (RST sent, %" PRIu64 " bytes "
			"unacknowledged dropped)\n", c->id, c->queued - c->acked);
		return;
	}
	if (c->close_req)
		return cli_fail(cl, "tcp close: connection %u is closing already",
			r->id);
	c->close_req = true;
	cli_conn_push(ctx, c);
	cmdline_printf(cl, "conn %u: closing (FIN after %" PRIu64 " bytes not "
		"yet acknowledged)\n", c->id, conn_pending(c));
}

static cmdline_parse_token_string_t cl_tcp =
	TOKEN_STRING_INITIALIZER(struct close_res, tcp, "tcp");
static cmdline_parse_token_string_t cl_op =
	TOKEN_STRING_INITIALIZER(struct close_res, op, "close#abort");
static cmdline_parse_token_num_t cl_id =
	TOKEN_NUM_INITIALIZER(struct close_res, id, RTE_UINT32);

cmdline_parse_inst_t cli_cmd_tcp_close = {
	.f = close_cb,
	.help_str = "tcp close|abort <conn>: FIN after the data sent so far, or "
		"RST now (queued data dropped)",
	.tokens = { (void *)&cl_tcp, (void *)&cl_op, (void *)&cl_id, NULL },
};

/* --- show tcp conns|stats --- */
struct show_tcp_res {
	cmdline_fixed_string_t show, tcp, what, all;
};

/* Open connections; closed ones too with @p all (kept until the table fills). */
static void
show_conns(struct cmdline *cl, struct cli_ctx *ctx, bool all)
{
	unsigned int i, n = 0, hidden = 0;
	char l[32], r[32], lp[48], rp[48], v[32];

	for (i = 0; i < CLI_MAX_CONNS; i++) {
		struct cli_conn *c = &ctx->conns[i];

		if (!c->used)
			continue;
		if (c->closed && !all) {
			hidden++;
			continue;
		}
		if (n++ == 0)
			cmdline_printf(cl, "%5s %4s %-21s %-21s %-11s %12s %12s %8s "
				"%8s %8s %8s %7s %s\n", "id", "port", "local", "remote",
				"state", "tx-acked", "rx-bytes", "snd-wnd", "rcv-wnd",
				"cwnd", "srtt-us", "retrans", "verify");
		conn_refresh(ctx, c);
		snprintf(lp, sizeof(lp), "%s:%u", ip_str(c->last.laddr, l,
			sizeof(l)), c->last.lport);
		snprintf(rp, sizeof(rp), "%s:%u", ip_str(c->last.raddr, r,
			sizeof(r)), c->last.rport);
		if (c->verified == 0 && !c->verify)
			snprintf(v, sizeof(v), "-");
		else if (c->rx_bad == 0)
			snprintf(v, sizeof(v), "ok");
		else
			snprintf(v, sizeof(v), "BAD:%" PRIu64, c->rx_bad);
		cmdline_printf(cl, "%5u %4u %-21s %-21s %-11s %12" PRIu64 " %12"
			PRIu64 " %8u %8u %8u %8u %7" PRIu64 " %s%s%s%s\n", c->id,
			c->port_id, lp, rp, dt_tcp_state_str(c->last.state), c->acked,
			c->rx_bytes, c->last.snd_wnd, c->last.rcv_wnd, c->last.cwnd,
			c->last.srtt_us, c->last.retransmits, v,
			c->bench ? " bench" : "", c->why ? " " : "",
			c->why ? c->why : "");
	}
	if (n == 0)
		cmdline_printf(cl, "no %sTCP connection\n", all ? "" : "open ");
	if (hidden != 0)
		cmdline_printf(cl, "(%u closed connection%s not shown: show tcp conns "
			"all)\n", hidden, hidden == 1 ? "" : "s");
}

#define STAT(f) { #f, offsetof(struct dt_dp_stats, f) }

static void
show_stats(struct cmdline *cl, struct cli_ctx *ctx)
{
	static const struct { const char *name; size_t off; } stats[] = {
		STAT(rx_frames), STAT(tx_frames), STAT(rx_tcp), STAT(rx_arp),
		STAT(rx_icmp), STAT(tx_arp), STAT(tx_icmp), STAT(tx_rst),
		STAT(conns_open), STAT(conns_accepted), STAT(conns_connected),
		STAT(conns_closed), STAT(drop_not_ipv4), STAT(drop_bad_ip),
		STAT(drop_ip_fragment), STAT(drop_not_for_us), STAT(drop_bad_tcp),
		STAT(drop_l4_cksum), STAT(drop_no_conn), STAT(drop_conn_table_full),
		STAT(drop_hdr_in_device), STAT(drop_unsupported_proto),
		STAT(drop_tx_no_mbuf), STAT(drop_tx_ring_full),
		STAT(drop_no_neighbour), STAT(arp_requests), STAT(arp_timeouts),
		STAT(host_chunks), STAT(device_chunks), STAT(events_overflow),
		STAT(drop_l4_cksum_unknown), STAT(drop_too_many_segs),
		STAT(drop_bad_arp), STAT(drop_synq_full), STAT(rx_hdr_spill),
		STAT(rx_throttled), STAT(rx_bursts), STAT(rx_cycles),
		STAT(neigh_held), STAT(drop_neigh_hold_full), STAT(neigh_shared),
		STAT(neigh_published), STAT(mem_bytes), STAT(ooo_stores),
		STAT(ooo_stores_used), STAT(ooo_stores_lent),
		STAT(drop_ooo_no_store), STAT(rx_coalesced), STAT(rx_gro_runs),
		STAT(rx_gro_frames), STAT(tx_tso_bursts), STAT(tx_tso_segs),
		STAT(tx_cycles), STAT(tx_burst_cycles),
	};
	struct dt_dp_stats s;
	unsigned int n = 0, i;
	uint16_t p, k;
	char ip[32];

	for (p = 0; p < CLI_MAX_PORTS; p++) {
		const struct cli_port *cp = &ctx->port[p];

		for (k = 0; k < cp->nb_stacks; k++) {
			dt_dp_stats_get(cp->stacks[k], &s);
			/* Several stacks: each names its queue. */
			cmdline_printf(cl, "port %u TCP stack %s/%u", p,
				ip_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len);
			if (cp->nb_stacks > 1)
				cmdline_printf(cl, " queue %u", k);
			cmdline_printf(cl, "\n");
			for (i = 0; i < RTE_DIM(stats); i++)
				cmdline_printf(cl, "  %s: %" PRIu64 "\n",
					stats[i].name, *(const uint64_t *)
					((const char *)&s + stats[i].off));
			n++;
		}
	}
	if (n == 0)
		cmdline_printf(cl, "no TCP stack (set ip <port_id> <addr>/<len>, "
			"port start <port_id>)\n");
}

static void
show_tcp_cb(void *res, struct cmdline *cl, void *data)
{
	struct show_tcp_res *r = res;

	RTE_SET_USED(data);
	if (strcmp(r->what, "conns") == 0)
		show_conns(cl, cli_ctx(), data != NULL);
	else
		show_stats(cl, cli_ctx());
}

static cmdline_parse_token_string_t st_show =
	TOKEN_STRING_INITIALIZER(struct show_tcp_res, show, "show");
static cmdline_parse_token_string_t st_tcp =
	TOKEN_STRING_INITIALIZER(struct show_tcp_res, tcp, "tcp");
static cmdline_parse_token_string_t st_what =
	TOKEN_STRING_INITIALIZER(struct show_tcp_res, what, "conns#stats");

cmdline_parse_inst_t cli_cmd_show_tcp = {
	.f = show_tcp_cb,
	.help_str = "show tcp conns|stats: connections (tuple, state, bytes, "
		"windows, cwnd, srtt, retransmits, verify) or stack counters",
	.tokens = { (void *)&st_show, (void *)&st_tcp, (void *)&st_what, NULL },
};

static cmdline_parse_token_string_t st_conns =
	TOKEN_STRING_INITIALIZER(struct show_tcp_res, what, "conns");
static cmdline_parse_token_string_t st_all =
	TOKEN_STRING_INITIALIZER(struct show_tcp_res, all, "all");

cmdline_parse_inst_t cli_cmd_show_tcp_all = {
	.f = show_tcp_cb,
	.data = (void *)1,
	.help_str = "show tcp conns all: closed connections too (the last ones)",
	.tokens = { (void *)&st_show, (void *)&st_tcp, (void *)&st_conns,
		(void *)&st_all, NULL },
};

/* --- sleep <ms>, wait [<ms>] --- */
struct sleep_res {
	cmdline_fixed_string_t cmd;
	uint32_t ms;
};

static void
sleep_cb(void *res, struct cmdline *cl, void *data)
{
	struct sleep_res *r = res;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	cli_poll_for(cli_ctx(), r->ms);
}

static void
wait_cb(void *res, struct cmdline *cl, void *data)
{
	struct sleep_res *r = res;
	struct cli_ctx *ctx = cli_ctx();
	unsigned int ms = data != NULL ? r->ms : CLI_WAIT_MS;
	uint64_t start = rte_get_tsc_cycles(), hz = rte_get_tsc_hz();
	uint64_t end = start + hz / 1000 * ms;
	char why[128];

	while (cli_busy(ctx, why, sizeof(why))) {
		if (cli_interrupted())
			return cli_fail(cl, "wait: interrupted");
		if (rte_get_tsc_cycles() >= end)
			return cli_fail(cl, "wait: still busy after %u ms: %s", ms, why);
		cli_poll(ctx);
	}
	cmdline_printf(cl, "idle after %" PRIu64 " ms\n",
		(rte_get_tsc_cycles() - start) * 1000 / hz);
}

static cmdline_parse_token_string_t sl_sleep =
	TOKEN_STRING_INITIALIZER(struct sleep_res, cmd, "sleep");
static cmdline_parse_token_string_t sl_wait =
	TOKEN_STRING_INITIALIZER(struct sleep_res, cmd, "wait");
static cmdline_parse_token_num_t sl_ms =
	TOKEN_NUM_INITIALIZER(struct sleep_res, ms, RTE_UINT32);

cmdline_parse_inst_t cli_cmd_sleep = {
	.f = sleep_cb,
	.help_str = "sleep <ms>: poll the TCP stacks for ms milliseconds",
	.tokens = { (void *)&sl_sleep, (void *)&sl_ms, NULL },
};

cmdline_parse_inst_t cli_cmd_wait = {
	.f = wait_cb,
	.help_str = "wait: poll until every send is acknowledged, every connect "
		"and close done and the bench finished (error after 10 s)",
	.tokens = { (void *)&sl_wait, NULL },
};

cmdline_parse_inst_t cli_cmd_wait_ms = {
	.f = wait_cb,
	.data = (void *)1,
	.help_str = "wait <ms>: the same, error after ms milliseconds",
	.tokens = { (void *)&sl_wait, (void *)&sl_ms, NULL },
};
