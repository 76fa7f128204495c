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
 * The connection model and event loop they drive are cli_conn.c's.
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
#include "dt_app_error.h"
#include "dt_app_value.h"
#include "dt_devmem.h"
#include "dt_dp.h"


#define CLI_WAIT_MS 10000     /* "wait" without a limit */

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
	struct cli_ctx *ctx = cli_ctx_get();
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
		dt_app_ipv4_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len,
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
	struct cli_ctx *ctx = cli_ctx_get();

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
	cli_ctx_get()->verify = strcmp(r->onoff, "on") == 0;
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
			dt_app_ipv4_str(ctx->port[p].ipv4, ip, sizeof(ip)), tp,
			ctx->port[p].stack ? "" : " (from port start)");
}

static void
listen_cb(void *res, struct cmdline *cl, void *data)
{
	struct listen_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
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
	return -ENETUNREACH;
}

static void
connect_cb(void *res, struct cmdline *cl, void *data)
{
	struct connect_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
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
	} else if (!cli_have_stacks(ctx)) {
		return cli_fail(cl, "tcp connect: no TCP stack: set ip <port_id> "
			"<addr>/<len> and port start <port_id> first");
	} else {
		p = route(ctx, ip);
		if (p < 0)
			return cli_fail(cl, "tcp connect: no port's subnet holds %s "
				"(add 'port <port_id>')", dt_app_ipv4_str(ip, a, sizeof(a)));
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
			dt_app_ipv4_str(ip, a, sizeof(a)), r->tcp_port, p, rte_strerror(-rc));
	}
	c->conn = conn;
	cli_conn_refresh(ctx, c);
	cli_conn_desc(c, d, sizeof(d));
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
	struct cli_conn *c = cli_conn_by_id(cli_ctx_get(), id);

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
	struct cli_ctx *ctx = cli_ctx_get();
	bool device = data != NULL && strcmp(r->kind, "device") == 0;
	struct dt_app_error err;
	const char *expect;
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
	if (cli_conn_send(ctx, c, n, device, &err) != 0)
		return cli_fail(cl, "tcp send: connection %u: %s", r->id, err.msg);
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
	struct cli_ctx *ctx = cli_ctx_get();
	struct cli_conn *c;
	int rc;

	RTE_SET_USED(data);
	c = open_conn(cl, r->op[0] == 'a' ? "tcp abort" : "tcp close", r->id);
	if (c == NULL)
		return;
	cli_conn_refresh(ctx, c);
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
		cli_conn_refresh(ctx, c);
		snprintf(lp, sizeof(lp), "%s:%u", dt_app_ipv4_str(c->last.laddr, l,
			sizeof(l)), c->last.lport);
		snprintf(rp, sizeof(rp), "%s:%u", dt_app_ipv4_str(c->last.raddr, r,
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
				dt_app_ipv4_str(cp->ipv4, ip, sizeof(ip)), cp->prefix_len);
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
		show_conns(cl, cli_ctx_get(), data != NULL);
	else
		show_stats(cl, cli_ctx_get());
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
	cli_poll_for(cli_ctx_get(), r->ms);
}

static void
wait_cb(void *res, struct cmdline *cl, void *data)
{
	struct sleep_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
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
