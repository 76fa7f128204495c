/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule text of "flow create|validate" (the 5-tuple subset of
 * testpmd's grammar, see cli_flow.c), parsed without EAL so that
 * test/fuzz/fuzz_cli_flow.c can feed it anything a user may type.
 */
#ifndef CLI_FLOW_PARSE_H
#define CLI_FLOW_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_flow.h>

#define FLOW_MAX_WORDS 64
#define FLOW_MAX_RSS_QUEUES 16

enum flow_l4 { FLOW_L4_NONE, FLOW_L4_TCP, FLOW_L4_UDP };

/* What a parsed rule matches and does. */
struct flow_spec {
	struct rte_flow_item_ipv4 ip, ip_mask;
	struct rte_flow_item_tcp tcp, tcp_mask;
	struct rte_flow_item_udp udp, udp_mask;
	enum flow_l4 l4;
	bool rss;
	uint16_t queue;                          /* queue action */
	uint16_t rss_queues[FLOW_MAX_RSS_QUEUES]; /* rss action; none: all */
	uint16_t nb_rss_queues;
};

/**
 * Parse @p text (from "ingress" to the final "end"; cut into words in
 * place) into @p f.
 * @return 0, or -EINVAL with the reason in *why
 */
int cli_flow_parse(char *text, struct flow_spec *f, const char **why);

#endif /* CLI_FLOW_PARSE_H */
