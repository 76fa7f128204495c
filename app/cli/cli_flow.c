/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow commands, the 5-tuple subset of testpmd's grammar:
 *   flow create|validate <port> ingress pattern eth / ipv4 [src is A]
 *        [dst is B] / [tcp|udp [src is X] [dst is Y] /] end
 *        actions queue index N / end
 *        actions rss [queues Q1 Q2 ... end] / end
 *   flow list <port>
 *   flow destroy <port> rule <id>
 *   flow flush <port>
 */
#include <stdio.h>
#include <string.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_flow.h>

#include "cli.h"
#include "cli_flow_parse.h"

/* Validate (@p validate) or create the rule of @p f on @p port. */
static struct rte_flow *
flow_apply(uint16_t port, const struct flow_spec *f, bool validate,
	struct rte_flow_error *err, int *rc)
{
	static const enum rte_flow_item_type l4_type[] = {
		[FLOW_L4_NONE] = RTE_FLOW_ITEM_TYPE_END,
		[FLOW_L4_TCP] = RTE_FLOW_ITEM_TYPE_TCP,
		[FLOW_L4_UDP] = RTE_FLOW_ITEM_TYPE_UDP,
	};
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &f->ip, .mask = &f->ip_mask },
		{ .type = l4_type[f->l4],
			.spec = f->l4 == FLOW_L4_UDP ? (const void *)&f->udp :
				(const void *)&f->tcp,
			.mask = f->l4 == FLOW_L4_UDP ? (const void *)&f->udp_mask :
				(const void *)&f->tcp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue q = { .index = f->queue };
	struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP,
		.queue_num = f->nb_rss_queues,
		.queue = f->rss_queues,
	};
	uint16_t all[FLOW_MAX_RSS_QUEUES];
	struct rte_eth_dev_info info;
	struct rte_flow_action act[] = {
		{ .type = f->rss ? RTE_FLOW_ACTION_TYPE_RSS : RTE_FLOW_ACTION_TYPE_QUEUE,
			.conf = f->rss ? (const void *)&rss : (const void *)&q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	uint16_t i;

	/* "rss" without a queue list spreads over every RX queue. */
	if (f->rss && f->nb_rss_queues == 0 &&
			rte_eth_dev_info_get(port, &info) == 0) {
		for (i = 0; i < info.nb_rx_queues && i < FLOW_MAX_RSS_QUEUES; i++)
			all[i] = i;
		rss.queue_num = i;
		rss.queue = all;
	}
	if (validate) {
		*rc = rte_flow_validate(port, &attr, pat, act, err);
		return NULL;
	}
	return rte_flow_create(port, &attr, pat, act, err);
}

struct flow_create_res {
	cmdline_fixed_string_t flow, create;
	uint16_t port_id;
	cmdline_multi_string_t rest;
};

static void
flow_create_cb(void *res, struct cmdline *cl, void *data)
{
	struct flow_create_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
	char buf[sizeof(r->rest)];
	struct rte_flow_error err = { .message = NULL };
	struct flow_spec f;
	const char *why;
	unsigned int i;
	int rc = 0;

	if (!cli_port_ok(cl, r->port_id))
		return;
	snprintf(buf, sizeof(buf), "%s", r->rest);
	if (cli_flow_parse(buf, &f, &why) != 0)
		return cli_fail(cl, "flow %s: %s", r->create, why);
	if (strcmp(r->create, "validate") == 0) {
		flow_apply(r->port_id, &f, true, &err, &rc);
		if (rc != 0)
			return cli_fail(cl, "flow validate: port %u would refuse the "
				"rule: %s", r->port_id, err.message ? err.message :
				rte_strerror(-rc));
		cmdline_printf(cl, "Flow rule validated\n");
		return;
	}
	for (i = 0; i < CLI_MAX_FLOWS && ctx->flows[i].used; i++)
		;
	if (i == CLI_MAX_FLOWS)
		return cli_fail(cl, "flow create: %d rules at most", CLI_MAX_FLOWS);
	ctx->flows[i].flow = flow_apply(r->port_id, &f, false, &err, &rc);
	if (ctx->flows[i].flow == NULL)
		return cli_fail(cl, "flow create: port %u refused the rule: %s",
			r->port_id, err.message ? err.message : rte_strerror(rte_errno));
	ctx->flows[i].used = true;
	ctx->flows[i].port = r->port_id;
	ctx->flows[i].id = ctx->next_flow_id[r->port_id]++;
	snprintf(ctx->flows[i].text, sizeof(ctx->flows[i].text), "%.255s", r->rest);
	cmdline_printf(cl, "Flow rule #%u created\n", ctx->flows[i].id);
}

static cmdline_parse_token_string_t fc_flow =
	TOKEN_STRING_INITIALIZER(struct flow_create_res, flow, "flow");
static cmdline_parse_token_string_t fc_create =
	TOKEN_STRING_INITIALIZER(struct flow_create_res, create, "create#validate");
static cmdline_parse_token_num_t fc_id =
	TOKEN_NUM_INITIALIZER(struct flow_create_res, port_id, RTE_UINT16);
static cmdline_parse_token_string_t fc_rest =
	TOKEN_STRING_INITIALIZER(struct flow_create_res, rest, TOKEN_STRING_MULTI);

cmdline_parse_inst_t cli_cmd_flow_create = {
	.f = flow_create_cb,
	.help_str = "flow create|validate <port_id> ingress pattern eth / ipv4 "
		"[src is A] [dst is B] / [tcp|udp [src is X] [dst is Y] /] end actions "
		"queue index N | rss [queues Q... end] / end",
	.tokens = { (void *)&fc_flow, (void *)&fc_create, (void *)&fc_id,
		(void *)&fc_rest, NULL },
};

struct flow_list_res {
	cmdline_fixed_string_t flow, list;
	uint16_t port_id;
};

static void
flow_list_cb(void *res, struct cmdline *cl, void *data)
{
	struct flow_list_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
	unsigned int i, n = 0;

	if (!cli_port_ok(cl, r->port_id))
		return;
	cmdline_printf(cl, "ID\tRule\n");
	for (i = 0; i < CLI_MAX_FLOWS; i++) {
		if (!ctx->flows[i].used || ctx->flows[i].port != r->port_id)
			continue;
		cmdline_printf(cl, "%u\t%s\n", ctx->flows[i].id, ctx->flows[i].text);
		n++;
	}
	cmdline_printf(cl, "(%u rule%s on port %u)\n", n, n == 1 ? "" : "s",
		r->port_id);
}

static cmdline_parse_token_string_t fl_flow =
	TOKEN_STRING_INITIALIZER(struct flow_list_res, flow, "flow");
static cmdline_parse_token_string_t fl_list =
	TOKEN_STRING_INITIALIZER(struct flow_list_res, list, "list");
static cmdline_parse_token_num_t fl_id =
	TOKEN_NUM_INITIALIZER(struct flow_list_res, port_id, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_flow_list = {
	.f = flow_list_cb,
	.help_str = "flow list <port_id>: the rules created on the port",
	.tokens = { (void *)&fl_flow, (void *)&fl_list, (void *)&fl_id, NULL },
};

struct flow_destroy_res {
	cmdline_fixed_string_t flow, destroy;
	uint16_t port_id;
	cmdline_fixed_string_t rule;
	uint32_t rule_id;
};

static void
flow_destroy_cb(void *res, struct cmdline *cl, void *data)
{
	struct flow_destroy_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
	struct rte_flow_error err = { .message = NULL };
	unsigned int i;

	for (i = 0; i < CLI_MAX_FLOWS; i++) {
		struct cli_flow *f = &ctx->flows[i];

		if (!f->used || f->port != r->port_id || f->id != r->rule_id)
			continue;
		if (rte_flow_destroy(f->port, f->flow, &err) != 0)
			return cli_fail(cl, "flow destroy: %s", err.message ?
				err.message : rte_strerror(rte_errno));
		f->used = false;
		cmdline_printf(cl, "Flow rule #%u destroyed\n", r->rule_id);
		return;
	}
	cli_fail(cl, "flow destroy: port %u has no rule #%u", r->port_id,
		r->rule_id);
}

static cmdline_parse_token_string_t fd_flow =
	TOKEN_STRING_INITIALIZER(struct flow_destroy_res, flow, "flow");
static cmdline_parse_token_string_t fd_destroy =
	TOKEN_STRING_INITIALIZER(struct flow_destroy_res, destroy, "destroy");
static cmdline_parse_token_num_t fd_id =
	TOKEN_NUM_INITIALIZER(struct flow_destroy_res, port_id, RTE_UINT16);
static cmdline_parse_token_string_t fd_rule =
	TOKEN_STRING_INITIALIZER(struct flow_destroy_res, rule, "rule");
static cmdline_parse_token_num_t fd_rid =
	TOKEN_NUM_INITIALIZER(struct flow_destroy_res, rule_id, RTE_UINT32);

cmdline_parse_inst_t cli_cmd_flow_destroy = {
	.f = flow_destroy_cb,
	.help_str = "flow destroy <port_id> rule <rule_id>",
	.tokens = { (void *)&fd_flow, (void *)&fd_destroy, (void *)&fd_id,
		(void *)&fd_rule, (void *)&fd_rid, NULL },
};

struct flow_flush_res {
	cmdline_fixed_string_t flow, flush;
	uint16_t port_id;
};

/*
 * Destroy the console's rules on a port. Not rte_flow_flush(): the TCP
 * stacks' own steering rules (listeners, active opens) must stay.
 */
static void
flow_flush_cb(void *res, struct cmdline *cl, void *data)
{
	struct flow_flush_res *r = res;
	struct cli_ctx *ctx = cli_ctx_get();
	struct rte_flow_error err = { .message = NULL };
	unsigned int i, n = 0;

	if (!cli_port_ok(cl, r->port_id))
		return;
	for (i = 0; i < CLI_MAX_FLOWS; i++) {
		struct cli_flow *f = &ctx->flows[i];

		if (!f->used || f->port != r->port_id)
			continue;
		if (rte_flow_destroy(f->port, f->flow, &err) != 0)
			return cli_fail(cl, "flow flush: rule #%u: %s", f->id,
				err.message ? err.message : rte_strerror(rte_errno));
		f->used = false;
		n++;
	}
	cmdline_printf(cl, "port %u: %u rule%s destroyed (the TCP stacks' "
		"steering rules stay)\n", r->port_id, n, n == 1 ? "" : "s");
}

static cmdline_parse_token_string_t ff_flow =
	TOKEN_STRING_INITIALIZER(struct flow_flush_res, flow, "flow");
static cmdline_parse_token_string_t ff_flush =
	TOKEN_STRING_INITIALIZER(struct flow_flush_res, flush, "flush");
static cmdline_parse_token_num_t ff_id =
	TOKEN_NUM_INITIALIZER(struct flow_flush_res, port_id, RTE_UINT16);

cmdline_parse_inst_t cli_cmd_flow_flush = {
	.f = flow_flush_cb,
	.help_str = "flow flush <port_id>: destroy every rule created here on "
		"the port",
	.tokens = { (void *)&ff_flow, (void *)&ff_flush, (void *)&ff_id, NULL },
};

void
cli_flow_cleanup(struct cli_ctx *ctx)
{
	struct rte_flow_error err;
	unsigned int i;

	for (i = 0; i < CLI_MAX_FLOWS; i++)
		if (ctx->flows[i].used)
			rte_flow_destroy(ctx->flows[i].port, ctx->flows[i].flow, &err);
}
