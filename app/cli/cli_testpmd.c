/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * testpmd's words for what devtcp-cli also does, so that its users' habits
 * work here:
 *   show port summary all          set promisc all|<port> on|off
 *   show config rxtx               start, stop
 * devtcp-cli has no forwarding engine: a started port receives into its TCP
 * stack. "start" starts every stopped port; "stop", like testpmd's, leaves
 * the ports started and prints each port's statistics (port stop all stops
 * them). Where a word has an equivalent here, the command runs it through
 * the parser, so there is one implementation of each.
 */
#include <stdio.h>
#include <string.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_ethdev.h>

#include "cli.h"

/* Run another command line of this console, as if typed. */
static void
run_words(struct cmdline *cl, const char *line)
{
	if (cmdline_parse(cl, line) < 0)
		cli_fail(cl, "internal: '%s' did not parse", line);
}

/* --- show port summary all --- */
struct summary_res {
	cmdline_fixed_string_t show, port, summary, all;
};

static void
summary_cb(void *res, struct cmdline *cl, void *data)
{
	char name[RTE_ETH_NAME_MAX_LEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct rte_eth_dev_info di;
	struct rte_eth_link link;
	struct rte_ether_addr ea;
	uint16_t p;

	RTE_SET_USED(res);
	RTE_SET_USED(data);
	cmdline_printf(cl, "Number of available ports: %u\n"
		"Port MAC Address       Name         Driver         Status   Link\n",
		rte_eth_dev_count_avail());
	RTE_ETH_FOREACH_DEV(p) {
		if (rte_eth_dev_info_get(p, &di) != 0 ||
				rte_eth_macaddr_get(p, &ea) != 0)
			continue;
		rte_eth_dev_get_name_by_port(p, name);
		rte_ether_format_addr(mac, sizeof(mac), &ea);
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(p, &link);
		cmdline_printf(cl, "%-4u %-17s %-12s %-14s %-8s %s\n", p, mac, name,
			di.driver_name, link.link_status ? "up" : "down",
			p < CLI_MAX_PORTS && cli_ctx_get()->port[p].started ? "started" :
			"stopped");
	}
}

static cmdline_parse_token_string_t sm_show =
	TOKEN_STRING_INITIALIZER(struct summary_res, show, "show");
static cmdline_parse_token_string_t sm_port =
	TOKEN_STRING_INITIALIZER(struct summary_res, port, "port");
static cmdline_parse_token_string_t sm_summary =
	TOKEN_STRING_INITIALIZER(struct summary_res, summary, "summary");
static cmdline_parse_token_string_t sm_all =
	TOKEN_STRING_INITIALIZER(struct summary_res, all, "all");

cmdline_parse_inst_t cli_cmd_show_port_summary = {
	.f = summary_cb,
	.help_str = "show port summary all: one line per port (MAC, name, "
		"driver, link, started)",
	.tokens = { (void *)&sm_show, (void *)&sm_port, (void *)&sm_summary,
		(void *)&sm_all, NULL },
};

/* --- set promisc all|<port> on|off --- */
struct promisc_res {
	cmdline_fixed_string_t set, promisc, all, onoff;
	uint16_t port_id;
};

static void
promisc_one(struct cmdline *cl, uint16_t p, bool on)
{
	int rc = on ? rte_eth_promiscuous_enable(p) :
		rte_eth_promiscuous_disable(p);

	if (rc != 0)
		return cli_fail(cl, "port %u: promiscuous mode %s: %s", p,
			on ? "on" : "off", rte_strerror(-rc));
	cmdline_printf(cl, "port %u: promiscuous mode %s\n", p, on ? "on" : "off");
}

static void
promisc_cb(void *res, struct cmdline *cl, void *data)
{
	struct promisc_res *r = res;

	RTE_SET_USED(data);
	if (cli_port_ok(cl, r->port_id))
		promisc_one(cl, r->port_id, strcmp(r->onoff, "on") == 0);
}

static void
promisc_all_cb(void *res, struct cmdline *cl, void *data)
{
	struct promisc_res *r = res;
	uint16_t p;

	RTE_SET_USED(data);
	RTE_ETH_FOREACH_DEV(p)
		promisc_one(cl, p, strcmp(r->onoff, "on") == 0);
}

static cmdline_parse_token_string_t pr_set =
	TOKEN_STRING_INITIALIZER(struct promisc_res, set, "set");
static cmdline_parse_token_string_t pr_promisc =
	TOKEN_STRING_INITIALIZER(struct promisc_res, promisc, "promisc");
static cmdline_parse_token_string_t pr_all =
	TOKEN_STRING_INITIALIZER(struct promisc_res, all, "all");
static cmdline_parse_token_num_t pr_id =
	TOKEN_NUM_INITIALIZER(struct promisc_res, port_id, RTE_UINT16);
static cmdline_parse_token_string_t pr_onoff =
	TOKEN_STRING_INITIALIZER(struct promisc_res, onoff, "on#off");

cmdline_parse_inst_t cli_cmd_set_promisc = {
	.f = promisc_cb,
	.help_str = "set promisc <port_id> on|off: accept frames for any MAC",
	.tokens = { (void *)&pr_set, (void *)&pr_promisc, (void *)&pr_id,
		(void *)&pr_onoff, NULL },
};

cmdline_parse_inst_t cli_cmd_set_promisc_all = {
	.f = promisc_all_cb,
	.help_str = "set promisc all on|off: the same on every port",
	.tokens = { (void *)&pr_set, (void *)&pr_promisc, (void *)&pr_all,
		(void *)&pr_onoff, NULL },
};

/* --- show config rxtx --- */
struct rxtx_res {
	cmdline_fixed_string_t show, config, rxtx;
};

static void
rxtx_port(struct cmdline *cl, uint16_t p, const struct cli_port *cp)
{
	struct rte_eth_rxq_info rq;
	struct rte_eth_txq_info tq;
	struct rte_eth_dev_info di;
	char split[96];

	if (rte_eth_dev_info_get(p, &di) != 0)
		return;
	if (cp->rxhdrs != 0)
		snprintf(split, sizeof(split), "protocol split after %s",
			cp->rxhdrs_str);
	else if (cp->nb_rxpkts != 0)
		snprintf(split, sizeof(split), "length split %u,%u", cp->rxpkts[0],
			cp->nb_rxpkts > 1 ? cp->rxpkts[1] : 2048);
	else
		snprintf(split, sizeof(split), "no split (whole frames in host "
			"memory)");
	cmdline_printf(cl, "port %u: %s, %s\n  RX queues: %u, TX queues: %u, "
		"stacks: %u\n", p, cp->started ? "started" : "stopped", split,
		di.nb_rx_queues, di.nb_tx_queues, cp->nb_stacks);
	if (cp->started && rte_eth_rx_queue_info_get(p, 0, &rq) == 0 &&
			rte_eth_tx_queue_info_get(p, 0, &tq) == 0)
		cmdline_printf(cl, "  RX desc: %u, TX desc: %u, RX offloads: 0x%"
			PRIx64 ", TX offloads: 0x%" PRIx64 "\n", rq.nb_desc, tq.nb_desc,
			rq.conf.offloads, tq.conf.offloads);
}

static void
rxtx_cb(void *res, struct cmdline *cl, void *data)
{
	uint16_t p;

	RTE_SET_USED(res);
	RTE_SET_USED(data);
	cmdline_printf(cl, "devtcp: no forwarding engine; each started port "
		"receives into its TCP stack(s)\n");
	RTE_ETH_FOREACH_DEV(p) {
		if (p >= CLI_MAX_PORTS)
			break;
		rxtx_port(cl, p, &cli_ctx_get()->port[p]);
	}
}

static cmdline_parse_token_string_t rx_show =
	TOKEN_STRING_INITIALIZER(struct rxtx_res, show, "show");
static cmdline_parse_token_string_t rx_config =
	TOKEN_STRING_INITIALIZER(struct rxtx_res, config, "config");
static cmdline_parse_token_string_t rx_rxtx =
	TOKEN_STRING_INITIALIZER(struct rxtx_res, rxtx, "rxtx");

cmdline_parse_inst_t cli_cmd_show_config_rxtx = {
	.f = rxtx_cb,
	.help_str = "show config rxtx: queues, descriptors, split and offloads "
		"of every port",
	.tokens = { (void *)&rx_show, (void *)&rx_config, (void *)&rx_rxtx, NULL },
};

/* --- start, stop --- */
struct startstop_word_res {
	cmdline_fixed_string_t word;
};

static void
start_word_cb(void *res, struct cmdline *cl, void *data)
{
	RTE_SET_USED(res);
	RTE_SET_USED(data);
	run_words(cl, "port start all\n");
	cmdline_printf(cl, "(devtcp-cli has no forwarding engine: started ports "
		"receive into their TCP stacks; 'bench start' sends)\n");
}

static void
stop_word_cb(void *res, struct cmdline *cl, void *data)
{
	RTE_SET_USED(res);
	RTE_SET_USED(data);
	run_words(cl, "show port stats all\n");
	cmdline_printf(cl, "(ports stay started, as testpmd's stop leaves them: "
		"'port stop all' stops them)\n");
}

static cmdline_parse_token_string_t sw_start =
	TOKEN_STRING_INITIALIZER(struct startstop_word_res, word, "start");
static cmdline_parse_token_string_t sw_stop =
	TOKEN_STRING_INITIALIZER(struct startstop_word_res, word, "stop");

cmdline_parse_inst_t cli_cmd_start = {
	.f = start_word_cb,
	.help_str = "start: start every stopped port (testpmd's word)",
	.tokens = { (void *)&sw_start, NULL },
};

cmdline_parse_inst_t cli_cmd_stop = {
	.f = stop_word_cb,
	.help_str = "stop: every port's statistics; the ports stay started "
		"(testpmd's word)",
	.tokens = { (void *)&sw_stop, NULL },
};
