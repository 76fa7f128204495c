/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port commands, as testpmd spells them:
 *   show port info|stats|xstats <port>     clear port stats <port>
 *   port start|stop <port>
 *   set rxhdrs <port> <eth|ipv4|ipv4-tcp|off>   set rxpkts <port> <hdr,pay|off>
 *   show config rxhdrs|rxpkts
 * "set" is stored per port and applied by "port start": rxhdrs selects a
 * protocol split, rxpkts a length split (first length: header buffer bytes,
 * second: payload buffer size); payload goes to a device-memory region on
 * the first gpudev device (host memory without one). Start goes through
 * dt_dp_port_start: a split on a NIC without buffer split becomes copy mode,
 * and the start and "show port info" print what lib/dp decided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include "cli.h"
#include "dt_devmem.h"
#include "dt_dp_port.h"

#define CLI_NB_MBUFS 8192
/*
 * Host pools serve every port's RX ring, and the TCP stacks' TX headers
 * and ARP: twice the payload buffers.
 */
#define CLI_NB_HOST_MBUFS 16384
/*
 * RX descriptors: a few connections' 1 MiB windows arrive in one burst
 * from a local sender (about 700 frames each); a short ring drops them.
 */
#define CLI_NB_RXD 4096

/* --- show port info|stats|xstats <port> --- */
struct show_port_res {
	cmdline_fixed_string_t show, port, what;
	uint16_t port_id;
};

static void
offload_line(struct cmdline *cl, const struct rte_eth_dev_info *di)
{
	cmdline_printf(cl, "  RX buffer split: %s (max %u segments, multi-pool %s)\n"
		"  RX TCP checksum: %s, RX scatter: %s, TX multi-segment: %s\n",
		di->rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT ? "yes" : "no",
		di->rx_seg_capa.max_nseg, di->rx_seg_capa.multi_pools ? "yes" : "no",
		di->rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_CKSUM ? "yes" : "no",
		di->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER ? "yes" : "no",
		di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS ? "yes" : "no");
}

/* What lib/dp decided at the last port start (split or copy, checksums, TX). */
static void
show_mode(struct cmdline *cl, uint16_t p)
{
	struct dt_dp_port_mode m;
	char line[640];

	if (dt_dp_port_mode_get(p, &m) != 0)
		return;
	dt_dp_port_mode_str(&m, line, sizeof(line));
	cmdline_printf(cl, "  devtcp: %s\n", line);
}

static void
show_info(struct cmdline *cl, uint16_t p)
{
	char name[RTE_ETH_NAME_MAX_LEN] = "?", mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct rte_eth_dev_info di;
	struct rte_ether_addr ea;
	struct rte_eth_link link;
	uint16_t mtu = 0;

	if (rte_eth_dev_info_get(p, &di) != 0)
		return cli_fail(cl, "port %u: no device info", p);
	rte_eth_dev_get_name_by_port(p, name);
	rte_eth_macaddr_get(p, &ea);
	rte_ether_format_addr(mac, sizeof(mac), &ea);
	rte_eth_dev_get_mtu(p, &mtu);
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(p, &link);
	cmdline_printf(cl, "port %u: %s (driver %s)\n  MAC %s, socket %d, MTU %u, "
		"link %s\n  queues: %u RX / %u TX (max %u / %u)\n", p, name,
		di.driver_name, mac, rte_eth_dev_socket_id(p), mtu,
		link.link_status ? "up" : "down", di.nb_rx_queues, di.nb_tx_queues,
		di.max_rx_queues, di.max_tx_queues);
	offload_line(cl, &di);
	cmdline_printf(cl, "  protocol split after Eth/IPv4/TCP: %s\n",
		dt_dp_port_split_proto_supported(p, DT_DP_SPLIT_PROTO_IPV4_TCP) ?
		"yes" : "no");
	show_mode(cl, p);
}

/* testpmd's throughput block: rates since the previous "show port stats". */
static void
show_rates(struct cmdline *cl, struct cli_port *cp, const struct rte_eth_stats *s)
{
	uint64_t now = rte_get_tsc_cycles(), hz = rte_get_tsc_hz();
	double secs = cp->last_tsc ? (double)(now - cp->last_tsc) / hz : 0;

	if (secs > 0)
		cmdline_printf(cl, "  Throughput (since last show, %.1f s)\n"
			"  Rx-pps: %12.0f  Rx-bps: %14.0f\n"
			"  Tx-pps: %12.0f  Tx-bps: %14.0f\n", secs,
			(s->ipackets - cp->last.ipackets) / secs,
			(s->ibytes - cp->last.ibytes) * 8.0 / secs,
			(s->opackets - cp->last.opackets) / secs,
			(s->obytes - cp->last.obytes) * 8.0 / secs);
	else
		cmdline_printf(cl, "  Throughput: from the next show on\n");
	cp->last = *s;
	cp->last_tsc = now;
}

static void
show_stats(struct cmdline *cl, uint16_t p)
{
	struct rte_eth_stats s;

	if (rte_eth_stats_get(p, &s) != 0)
		return cli_fail(cl, "port %u: no statistics", p);
	cmdline_printf(cl, "port %u statistics\n"
		"  RX-packets: %" PRIu64 "  RX-bytes: %" PRIu64 "  RX-missed: %" PRIu64
		"  RX-errors: %" PRIu64 "  RX-nombuf: %" PRIu64 "\n"
		"  TX-packets: %" PRIu64 "  TX-bytes: %" PRIu64 "  TX-errors: %" PRIu64
		"\n", p, s.ipackets, s.ibytes, s.imissed, s.ierrors, s.rx_nombuf,
		s.opackets, s.obytes, s.oerrors);
	show_rates(cl, &cli_ctx_get()->port[p], &s);
}

static void
show_xstats(struct cmdline *cl, uint16_t p)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *vals;
	int n, i;

	n = rte_eth_xstats_get_names(p, NULL, 0);
	if (n < 0)
		return cli_fail(cl, "port %u: no xstats", p);
	names = calloc(n + 1, sizeof(*names));
	vals = calloc(n + 1, sizeof(*vals));
	if (names != NULL && vals != NULL &&
			rte_eth_xstats_get_names(p, names, n) == n &&
			rte_eth_xstats_get(p, vals, n) == n) {
		cmdline_printf(cl, "port %u xstats\n", p);
		for (i = 0; i < n; i++)
			cmdline_printf(cl, "  %s: %" PRIu64 "\n", names[i].name,
				vals[i].value);
	} else {
		cli_fail(cl, "port %u: cannot read xstats", p);
	}
	free(names);
	free(vals);
}

static void
show_port_cb(void *res, struct cmdline *cl, void *data)
{
	struct show_port_res *r = res;

	if (!cli_port_ok(cl, r->port_id))
		return;
	if (strcmp(r->what, "info") == 0)
		show_info(cl, r->port_id);
	else if (strcmp(r->what, "stats") == 0)
		show_stats(cl, r->port_id);
	else
		show_xstats(cl, r->port_id);
}

static cmdline_parse_token_string_t sp_show =
	TOKEN_STRING_INITIALIZER(struct show_port_res, show, "show");
static cmdline_parse_token_string_t sp_port =
	TOKEN_STRING_INITIALIZER(struct show_port_res, port, "port");
static cmdline_parse_token_string_t sp_what =
	TOKEN_STRING_INITIALIZER(struct show_port_res, what, "info#stats#xstats");
static cmdline_parse_token_num_t sp_id =
	TOKEN_NUM_INITIALIZER(struct show_port_res, port_id, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_show_port = {
	.f = show_port_cb,
	.help_str = "show port info|stats|xstats <port_id>: capabilities "
		"(buffer split, checksums), counters or extended counters",
	.tokens = { (void *)&sp_show, (void *)&sp_port, (void *)&sp_what,
		(void *)&sp_id, NULL },
};

/* --- clear port stats <port> --- */
struct clear_res {
	cmdline_fixed_string_t clear, port, stats;
	uint16_t port_id;
};

static void
clear_cb(void *res, struct cmdline *cl, void *data)
{
	struct clear_res *r = res;

	if (!cli_port_ok(cl, r->port_id))
		return;
	rte_eth_stats_reset(r->port_id);
	rte_eth_xstats_reset(r->port_id);
	cmdline_printf(cl, "port %u: statistics cleared\n", r->port_id);
}

static cmdline_parse_token_string_t cs_clear =
	TOKEN_STRING_INITIALIZER(struct clear_res, clear, "clear");
static cmdline_parse_token_string_t cs_port =
	TOKEN_STRING_INITIALIZER(struct clear_res, port, "port");
static cmdline_parse_token_string_t cs_stats =
	TOKEN_STRING_INITIALIZER(struct clear_res, stats, "stats");
static cmdline_parse_token_num_t cs_id =
	TOKEN_NUM_INITIALIZER(struct clear_res, port_id, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_clear_stats = {
	.f = clear_cb,
	.help_str = "clear port stats <port_id>: reset counters and xstats",
	.tokens = { (void *)&cs_clear, (void *)&cs_port, (void *)&cs_stats,
		(void *)&cs_id, NULL },
};

/* --- port start|stop <port> --- */
struct startstop_res {
	cmdline_fixed_string_t port, op;
	uint16_t port_id;
};

static int
ensure_pools(struct cli_ctx *ctx)
{
	if (ctx->hdr_pool == NULL)
		ctx->hdr_pool = rte_pktmbuf_pool_create("cli_hdr", CLI_NB_HOST_MBUFS, 256,
			0, 256 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	if (ctx->whole_pool == NULL)
		ctx->whole_pool = rte_pktmbuf_pool_create("cli_whole", CLI_NB_HOST_MBUFS,
			256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return ctx->hdr_pool != NULL && ctx->whole_pool != NULL ? 0 : -ENOMEM;
}

static int
ensure_region(struct cmdline *cl, struct cli_port *cp, uint16_t p,
	uint16_t buf_size)
{
	struct dt_devmem_region_conf rc = {
		.gpu_id = rte_gpu_find_next(0, RTE_GPU_ID_ANY),
		.port_id = p,
		.nb_bufs = CLI_NB_MBUFS,
		.buf_size = buf_size,
		.cache_size = 256,
		.socket_id = rte_eth_dev_socket_id(p),
	};
	char name[DT_DEVMEM_NAME_MAX + 1];
	int rc_;

	if (cp->region != NULL)
		return 0;
	if (rc.gpu_id < 0)
		rc.gpu_id = RTE_GPU_ID_NONE;
	snprintf(name, sizeof(name), "cli_pay%u", p);
	rc.name = name;
	rc_ = dt_devmem_region_create(&rc, &cp->region);
	if (rc_ != 0)
		cli_fail(cl, "port %u: cannot create the payload region: %s", p,
			rte_strerror(-rc_));
	return rc_;
}

static void
port_start(struct cmdline *cl, struct cli_ctx *ctx, uint16_t p)
{
	struct cli_port *cp = &ctx->port[p];
	/* Checksums and multi-segment TX: the stack chains payload by reference. */
	uint16_t nq = cli_port_stacks(ctx, p);
	/* One queue pair per stack; RSS spreads connections over them. */
	struct dt_dp_port_conf c = { .nb_rxq = nq, .nb_txq = nq, .tx_cksum = true,
		.tx_multi_seg = true, .nb_rxd = CLI_NB_RXD };
	uint16_t pay = 2048;
	char err[256];
	int rc;

	if (ensure_pools(ctx) != 0)
		return cli_fail(cl, "cannot create mbuf pools: %s",
			rte_strerror(rte_errno));
	c.hdr_pool = ctx->whole_pool;
	if (cp->rxhdrs != 0) {
		c.split = DT_DP_SPLIT_PROTO;
		c.split_proto = cp->rxhdrs;
	} else if (cp->nb_rxpkts != 0) {
		c.split = DT_DP_SPLIT_LEN;
		c.split_len = cp->rxpkts[0];
		if (cp->nb_rxpkts > 1)
			pay = cp->rxpkts[1];
	}
	if (c.split != DT_DP_SPLIT_NONE) {
		if (ensure_region(cl, cp, p, pay) != 0)
			return;
		c.hdr_pool = ctx->hdr_pool;
		c.pay_pool = dt_devmem_region_pool(cp->region);
	}
	rc = dt_dp_port_start(p, &c, err, sizeof(err));
	if (rc != 0)
		return cli_fail(cl, "%s", err);
	cp->started = true;
	cp->nb_queues = nq;
	/* Without a gpudev device the region is host memory: say which. */
	cmdline_printf(cl, "port %u: started (%s%s)\n", p,
		c.split == DT_DP_SPLIT_PROTO ? "protocol split, payload in " :
		c.split == DT_DP_SPLIT_LEN ? "length split, payload in " :
		"whole frames in host memory", c.split == DT_DP_SPLIT_NONE ? "" :
		dt_devmem_region_gpu_id(cp->region) != RTE_GPU_ID_NONE ?
		"device memory" : "host memory: no GPU, add --vdev=gpu_sim0,size=64M");
	/* The split asked for may have become copy mode or a length split. */
	show_mode(cl, p);
	cli_stack_create(cl, p);
}

static void
startstop_cb(void *res, struct cmdline *cl, void *data)
{
	struct startstop_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();

	if (!cli_port_ok(cl, r->port_id))
		return;
	/* As testpmd: a port already in the state asked for is no error. */
	if (ctx->port[r->port_id].started == (strcmp(r->op, "start") == 0)) {
		cmdline_printf(cl, "port %u: already %s\n", r->port_id,
			strcmp(r->op, "start") == 0 ? "started (port stop first to "
			"apply new settings)" : "stopped");
		return;
	}
	if (strcmp(r->op, "start") == 0)
		return port_start(cl, ctx, r->port_id);
	/* The stack owns the queues: it goes first (its connections abort). */
	cli_stack_destroy(r->port_id);
	if (dt_dp_port_stop(r->port_id) != 0)
		return cli_fail(cl, "port %u: stop failed", r->port_id);
	ctx->port[r->port_id].started = false;
	cmdline_printf(cl, "port %u: stopped\n", r->port_id);
}

static cmdline_parse_token_string_t ss_port =
	TOKEN_STRING_INITIALIZER(struct startstop_res, port, "port");
static cmdline_parse_token_string_t ss_op =
	TOKEN_STRING_INITIALIZER(struct startstop_res, op, "start#stop");
static cmdline_parse_token_num_t ss_id =
	TOKEN_NUM_INITIALIZER(struct startstop_res, port_id, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_port_start_stop = {
	.f = startstop_cb,
	.help_str = "port start|stop <port_id>: start applies set rxhdrs/rxpkts "
		"(buffer split into device memory)",
	.tokens = { (void *)&ss_port, (void *)&ss_op, (void *)&ss_id, NULL },
};

/*
 * "all" in place of a port id, as testpmd takes it: show port info|stats|
 * xstats all, clear port stats all, port start|stop all. Each runs the
 * single-port command on every port in turn.
 */
struct port_all_res {
	cmdline_fixed_string_t w1, w2, w3, all;
};

static void
show_port_all_cb(void *res, struct cmdline *cl, void *data)
{
	struct port_all_res *r = res;
	struct show_port_res one;
	uint16_t p;

	snprintf(one.what, sizeof(one.what), "%s", r->w3);
	RTE_ETH_FOREACH_DEV(p) {
		if (p >= CLI_MAX_PORTS)
			break;
		one.port_id = p;
		show_port_cb(&one, cl, data);
	}
}

static void
clear_all_cb(void *res, struct cmdline *cl, void *data)
{
	struct clear_res one;
	uint16_t p;

	RTE_SET_USED(res);
	RTE_ETH_FOREACH_DEV(p) {
		if (p >= CLI_MAX_PORTS)
			break;
		one.port_id = p;
		clear_cb(&one, cl, data);
	}
}

static void
startstop_all_cb(void *res, struct cmdline *cl, void *data)
{
	struct port_all_res *r = res;
	struct startstop_res one;
	uint16_t p;

	snprintf(one.op, sizeof(one.op), "%s", r->w2);
	RTE_ETH_FOREACH_DEV(p) {
		if (p >= CLI_MAX_PORTS)
			break;
		one.port_id = p;
		startstop_cb(&one, cl, data);
	}
}

static cmdline_parse_token_string_t pa_all =
	TOKEN_STRING_INITIALIZER(struct port_all_res, all, "all");
static cmdline_parse_token_string_t pa_show =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w1, "show");
static cmdline_parse_token_string_t pa_show_port =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w2, "port");
static cmdline_parse_token_string_t pa_show_what =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w3, "info#stats#xstats");
static cmdline_parse_token_string_t pa_clear =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w1, "clear");
static cmdline_parse_token_string_t pa_clear_port =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w2, "port");
static cmdline_parse_token_string_t pa_clear_stats =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w3, "stats");
static cmdline_parse_token_string_t pa_port =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w1, "port");
static cmdline_parse_token_string_t pa_op =
	TOKEN_STRING_INITIALIZER(struct port_all_res, w2, "start#stop");

cmdline_parse_inst_t cli_cmd_show_port_all = {
	.f = show_port_all_cb,
	.help_str = "show port info|stats|xstats all: the same for every port",
	.tokens = { (void *)&pa_show, (void *)&pa_show_port, (void *)&pa_show_what,
		(void *)&pa_all, NULL },
};

cmdline_parse_inst_t cli_cmd_clear_stats_all = {
	.f = clear_all_cb,
	.help_str = "clear port stats all: reset every port's counters",
	.tokens = { (void *)&pa_clear, (void *)&pa_clear_port,
		(void *)&pa_clear_stats, (void *)&pa_all, NULL },
};

cmdline_parse_inst_t cli_cmd_port_start_stop_all = {
	.f = startstop_all_cb,
	.help_str = "port start|stop all: start or stop every port",
	.tokens = { (void *)&pa_port, (void *)&pa_op, (void *)&pa_all, NULL },
};

/* --- set rxhdrs|rxpkts <port> <value> --- */
struct set_res {
	cmdline_fixed_string_t set, what;
	uint16_t port_id;
	cmdline_fixed_string_t value;
};

static int
parse_rxhdrs(const char *v, uint32_t *mask)
{
	static const struct { const char *name; uint32_t mask; } hdrs[] = {
		{"eth", RTE_PTYPE_L2_ETHER},
		{"ipv4", RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN},
		{"ipv4-tcp", DT_DP_SPLIT_PROTO_IPV4_TCP},
		{"off", 0},
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(hdrs); i++)
		if (strcmp(v, hdrs[i].name) == 0) {
			*mask = hdrs[i].mask;
			return 0;
		}
	return -EINVAL;
}

static int
parse_rxpkts(const char *v, struct cli_port *cp)
{
	char *end;
	unsigned long a, b = 0;

	if (strcmp(v, "off") == 0) {
		cp->nb_rxpkts = 0;
		return 0;
	}
	a = strtoul(v, &end, 10);
	if (*end == ',')
		b = strtoul(end + 1, &end, 10);
	if (*end != '\0' || a == 0 || a > 1024 || b > 65535 || (b && b < 256))
		return -EINVAL;
	cp->rxpkts[0] = a;
	cp->rxpkts[1] = b;
	cp->nb_rxpkts = b ? 2 : 1;
	return 0;
}

static void
set_cb(void *res, struct cmdline *cl, void *data)
{
	struct set_res *r = res;
	struct cli_port *cp;

	if (!cli_port_ok(cl, r->port_id))
		return;
	cp = &cli_ctx_get()->port[r->port_id];
	if (strcmp(r->what, "rxhdrs") == 0) {
		if (parse_rxhdrs(r->value, &cp->rxhdrs) != 0)
			return cli_fail(cl, "set rxhdrs: unknown header list '%s' "
				"(eth, ipv4, ipv4-tcp or off)", r->value);
		snprintf(cp->rxhdrs_str, sizeof(cp->rxhdrs_str), "%.63s",
			cp->rxhdrs ? r->value : "");
	} else if (parse_rxpkts(r->value, cp) != 0) {
		return cli_fail(cl, "set rxpkts: expected HDR[,PAYLOAD] lengths "
			"(HDR 1..1024, PAYLOAD 256..65535) or off, got '%s'", r->value);
	}
	cmdline_printf(cl, "port %u: %s = %s (applied at the next port start)\n",
		r->port_id, r->what, r->value);
}

/* testpmd's "set rxhdrs|rxpkts VALUE" has no port id: every port. */
static void
set_all_cb(void *res, struct cmdline *cl, void *data)
{
	struct set_res *r = res;
	uint16_t p;

	RTE_ETH_FOREACH_DEV(p) {
		if (p >= CLI_MAX_PORTS)
			break;
		r->port_id = p;
		set_cb(r, cl, data);
	}
}

static cmdline_parse_token_string_t st_set =
	TOKEN_STRING_INITIALIZER(struct set_res, set, "set");
static cmdline_parse_token_string_t st_hdrs =
	TOKEN_STRING_INITIALIZER(struct set_res, what, "rxhdrs");
static cmdline_parse_token_string_t st_pkts =
	TOKEN_STRING_INITIALIZER(struct set_res, what, "rxpkts");
static cmdline_parse_token_num_t st_id =
	TOKEN_NUM_INITIALIZER(struct set_res, port_id, RTE_UINT16);
static cmdline_parse_token_string_t st_value =
	TOKEN_STRING_INITIALIZER(struct set_res, value, NULL);

cmdline_parse_inst_t cli_cmd_set_rxhdrs = {
	.f = set_cb,
	.help_str = "set rxhdrs <port_id> eth|ipv4|ipv4-tcp|off: protocol split "
		"after these headers (payload to device memory) at port start",
	.tokens = { (void *)&st_set, (void *)&st_hdrs, (void *)&st_id,
		(void *)&st_value, NULL },
};

cmdline_parse_inst_t cli_cmd_set_rxpkts = {
	.f = set_cb,
	.help_str = "set rxpkts <port_id> HDR[,PAYLOAD]|off: length split, HDR "
		"bytes to host memory, the rest to PAYLOAD-byte device buffers",
	.tokens = { (void *)&st_set, (void *)&st_pkts, (void *)&st_id,
		(void *)&st_value, NULL },
};

cmdline_parse_inst_t cli_cmd_set_rxhdrs_all = {
	.f = set_all_cb,
	.help_str = "set rxhdrs eth|ipv4|ipv4-tcp|off: the same on every port "
		"(testpmd's form)",
	.tokens = { (void *)&st_set, (void *)&st_hdrs, (void *)&st_value, NULL },
};

cmdline_parse_inst_t cli_cmd_set_rxpkts_all = {
	.f = set_all_cb,
	.help_str = "set rxpkts HDR[,PAYLOAD]|off: the same on every port "
		"(testpmd's form)",
	.tokens = { (void *)&st_set, (void *)&st_pkts, (void *)&st_value, NULL },
};

/* --- show config rxhdrs|rxpkts --- */
struct showcfg_res {
	cmdline_fixed_string_t show, config, what;
};

static void
showcfg_cb(void *res, struct cmdline *cl, void *data)
{
	struct showcfg_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
	uint16_t p;

	RTE_ETH_FOREACH_DEV(p) {
		const struct cli_port *cp;

		if (p >= CLI_MAX_PORTS)
			break;
		cp = &ctx->port[p];
		if (strcmp(r->what, "rxhdrs") == 0)
			cmdline_printf(cl, "port %u: rxhdrs %s\n", p,
				cp->rxhdrs ? cp->rxhdrs_str : "off");
		else if (cp->nb_rxpkts == 0)
			cmdline_printf(cl, "port %u: rxpkts off\n", p);
		else
			cmdline_printf(cl, "port %u: rxpkts %u,%u\n", p, cp->rxpkts[0],
				cp->nb_rxpkts > 1 ? cp->rxpkts[1] : 2048);
	}
}

static cmdline_parse_token_string_t sc_show =
	TOKEN_STRING_INITIALIZER(struct showcfg_res, show, "show");
static cmdline_parse_token_string_t sc_config =
	TOKEN_STRING_INITIALIZER(struct showcfg_res, config, "config");
static cmdline_parse_token_string_t sc_what =
	TOKEN_STRING_INITIALIZER(struct showcfg_res, what, "rxhdrs#rxpkts");

cmdline_parse_inst_t cli_cmd_show_config = {
	.f = showcfg_cb,
	.help_str = "show config rxhdrs|rxpkts: the split settings of every port",
	.tokens = { (void *)&sc_show, (void *)&sc_config, (void *)&sc_what, NULL },
};

void
cli_port_cleanup(struct cli_ctx *ctx)
{
	uint16_t p;

	cli_tcp_cleanup(ctx);
	for (p = 0; p < CLI_MAX_PORTS; p++)
		if (ctx->port[p].started && dt_dp_port_stop(p) == 0)
			printf("port %u: stopped\n", p);
	/* Stopped ports hold no send buffer; DMA maps go before close. */
	cli_tcp_cleanup_buffers(ctx);
	for (p = 0; p < CLI_MAX_PORTS; p++) {
		struct cli_port *cp = &ctx->port[p];

		if (cp->region != NULL && dt_devmem_region_destroy(cp->region) != 0)
			CLI_LOG(ERR, "port %u: payload region not freed", p);
		if (cp->started || cp->region != NULL)
			rte_eth_dev_close(p);
		cp->region = NULL;
		cp->started = false;
	}
	rte_mempool_free(ctx->hdr_pool);
	rte_mempool_free(ctx->whole_pool);
}
