/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow commands, the 5-tuple-to-queue subset of testpmd's grammar:
 *   flow create <port> ingress pattern eth / ipv4 [src is A] [dst is B] /
 *        tcp [src is X] [dst is Y] / end actions queue index N / end
 *   flow list <port>
 *   flow destroy <port> rule <id>
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_flow.h>

#include "cli.h"

#define FLOW_MAX_WORDS 48

/* What a parsed rule matches. */
struct flow_spec {
	struct rte_flow_item_ipv4 ip, ip_mask;
	struct rte_flow_item_tcp tcp, tcp_mask;
	uint16_t queue;
	bool has_tcp;
};

static int
split_words(char *s, char **w, int cap)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, " \t", &save); t != NULL && n < cap;
			t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	return n;
}

/* "src is A" / "dst is B" of an item, until "/". Returns words used or -1. */
static int
parse_fields(char **w, int n, struct flow_spec *f, bool ip, const char **why)
{
	int i = 0;

	while (i < n && strcmp(w[i], "/") != 0) {
		bool src = strcmp(w[i], "src") == 0;
		char *end;
		unsigned long port;

		if ((!src && strcmp(w[i], "dst") != 0) || i + 2 >= n + 0 ||
				strcmp(w[i + 1], "is") != 0) {
			*why = "expected 'src is VALUE' or 'dst is VALUE'";
			return -1;
		}
		if (ip) {
			struct in_addr a;

			if (inet_pton(AF_INET, w[i + 2], &a) != 1) {
				*why = "bad IPv4 address";
				return -1;
			}
			if (src) {
				f->ip.hdr.src_addr = a.s_addr;
				f->ip_mask.hdr.src_addr = UINT32_MAX;
			} else {
				f->ip.hdr.dst_addr = a.s_addr;
				f->ip_mask.hdr.dst_addr = UINT32_MAX;
			}
		} else {
			port = strtoul(w[i + 2], &end, 10);
			if (*end != '\0' || port > 65535) {
				*why = "bad TCP port";
				return -1;
			}
			if (src) {
				f->tcp.hdr.src_port = htons(port);
				f->tcp_mask.hdr.src_port = UINT16_MAX;
			} else {
				f->tcp.hdr.dst_port = htons(port);
				f->tcp_mask.hdr.dst_port = UINT16_MAX;
			}
		}
		i += 3;
	}
	return i;
}

static int
expect_word(char **w, int n, int *i, const char *word)
{
	if (*i >= n || strcmp(w[*i], word) != 0)
		return -1;
	(*i)++;
	return 0;
}

/* Parse from "ingress" to the final "end". */
static int
parse_rule(char **w, int n, struct flow_spec *f, const char **why)
{
	int i = 0, k;
	char *end;

	memset(f, 0, sizeof(*f));
	*why = "expected 'ingress pattern eth / ipv4 ... / tcp ... / end "
		"actions queue index N / end'";
	if (expect_word(w, n, &i, "ingress") || expect_word(w, n, &i, "pattern") ||
			expect_word(w, n, &i, "eth") || expect_word(w, n, &i, "/") ||
			expect_word(w, n, &i, "ipv4"))
		return -1;
	k = parse_fields(w + i, n - i, f, true, why);
	if (k < 0)
		return -1;
	i += k;
	if (expect_word(w, n, &i, "/"))
		return -1;
	if (i < n && strcmp(w[i], "tcp") == 0) {
		i++;
		f->has_tcp = true;
		k = parse_fields(w + i, n - i, f, false, why);
		if (k < 0)
			return -1;
		i += k;
		if (expect_word(w, n, &i, "/"))
			return -1;
	}
	if (expect_word(w, n, &i, "end") || expect_word(w, n, &i, "actions") ||
			expect_word(w, n, &i, "queue") || expect_word(w, n, &i, "index") ||
			i >= n)
		return -1;
	f->queue = strtoul(w[i++], &end, 10);
	if (*end != '\0') {
		*why = "bad queue index";
		return -1;
	}
	if (expect_word(w, n, &i, "/") || expect_word(w, n, &i, "end") || i != n)
		return -1;
	return 0;
}

static struct rte_flow *
create(uint16_t port, const struct flow_spec *f, struct rte_flow_error *err)
{
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &f->ip, .mask = &f->ip_mask },
		{ .type = f->has_tcp ? RTE_FLOW_ITEM_TYPE_TCP : RTE_FLOW_ITEM_TYPE_END,
			.spec = &f->tcp, .mask = &f->tcp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue q = { .index = f->queue };
	struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

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
	struct cli_ctx *ctx = cli_ctx();
	char buf[sizeof(r->rest)], *w[FLOW_MAX_WORDS];
	struct rte_flow_error err = { .message = NULL };
	struct flow_spec f;
	const char *why;
	unsigned int i;
	int n;

	if (!cli_port_ok(cl, r->port_id))
		return;
	snprintf(buf, sizeof(buf), "%s", r->rest);
	n = split_words(buf, w, FLOW_MAX_WORDS);
	if (parse_rule(w, n, &f, &why) != 0)
		return cli_fail(cl, "flow create: %s", why);
	for (i = 0; i < CLI_MAX_FLOWS && ctx->flows[i].used; i++)
		;
	if (i == CLI_MAX_FLOWS)
		return cli_fail(cl, "flow create: %d rules at most", CLI_MAX_FLOWS);
	ctx->flows[i].flow = create(r->port_id, &f, &err);
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
	TOKEN_STRING_INITIALIZER(struct flow_create_res, create, "create");
static cmdline_parse_token_num_t fc_id =
	TOKEN_NUM_INITIALIZER(struct flow_create_res, port_id, RTE_UINT16);
static cmdline_parse_token_string_t fc_rest =
	TOKEN_STRING_INITIALIZER(struct flow_create_res, rest, TOKEN_STRING_MULTI);

cmdline_parse_inst_t cli_cmd_flow_create = {
	.f = flow_create_cb,
	.help_str = "flow create <port_id> ingress pattern eth / ipv4 [src is A] "
		"[dst is B] / tcp [src is X] [dst is Y] / end actions queue index N / end",
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
	struct cli_ctx *ctx = cli_ctx();
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
	struct cli_ctx *ctx = cli_ctx();
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

void
cli_flow_cleanup(struct cli_ctx *ctx)
{
	struct rte_flow_error err;
	unsigned int i;

	for (i = 0; i < CLI_MAX_FLOWS; i++)
		if (ctx->flows[i].used)
			rte_flow_destroy(ctx->flows[i].port, ctx->flows[i].flow, &err);
}
