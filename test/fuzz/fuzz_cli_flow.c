/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over devtcp-cli's own command parser: the rule text of
 * "flow create|validate" (app/cli/cli_flow_parse.c), what a user or a
 * script types after the port. DPDK's cmdline library tokenises the rest
 * of the line; its tokens are DPDK's own code, not fuzzed here.
 *
 * Input: the text (at most the cmdline's multi-word token, 4095 bytes;
 * cut at the first NUL). Judged: a rule is accepted only when every word
 * of the text was part of it (the last one is "end", nothing is left over
 * or silently dropped); an accepted rule written back in the grammar
 * parses to the same rule; a refused one says why. A broken property
 * abort()s.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli_flow_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME "fuzz_cli_flow"
#include "fuzz_check.h"

#define FZ_TEXT_MAX 4096

/* The words of @p s as the parser cuts them (" \t"), all of them. */
static int
count_words(const char *s, const char **last, size_t *last_len)
{
	int n = 0;
	size_t k;

	for (;;) {
		s += strspn(s, " \t");
		if (*s == '\0')
			return n;
		k = strcspn(s, " \t");
		*last = s;
		*last_len = k;
		n++;
		s += k;
	}
}

static int
put(char *out, size_t cap, size_t *at, const char *fmt, const char *a)
{
	int n = snprintf(out + *at, cap - *at, fmt, a);

	FZ_CHECK(n >= 0 && (size_t)n < cap - *at);
	*at += (size_t)n;
	return 0;
}

static void
put_ip(char *out, size_t cap, size_t *at, const char *what, uint32_t mask,
	uint32_t addr)
{
	char ip[INET_ADDRSTRLEN], w[64];

	if (mask == 0)
		return;
	FZ_CHECK(inet_ntop(AF_INET, &addr, ip, sizeof(ip)) != NULL);
	snprintf(w, sizeof(w), " %s is %s", what, ip);
	put(out, cap, at, "%s", w);
}

static void
put_port(char *out, size_t cap, size_t *at, const char *what, uint16_t mask,
	uint16_t be)
{
	char w[32];

	if (mask == 0)
		return;
	snprintf(w, sizeof(w), " %s is %u", what, ntohs(be));
	put(out, cap, at, "%s", w);
}

/* @p f in the grammar. */
static void
write_rule(const struct flow_spec *f, char *out, size_t cap)
{
	const struct rte_flow_item_tcp *t = &f->tcp, *tm = &f->tcp_mask;
	const struct rte_flow_item_udp *u = &f->udp, *um = &f->udp_mask;
	bool tcp = f->l4 == FLOW_L4_TCP;
	size_t at = 0;
	char q[16];
	uint16_t i;

	put(out, cap, &at, "%s", "ingress pattern eth / ipv4");
	put_ip(out, cap, &at, "src", f->ip_mask.hdr.src_addr, f->ip.hdr.src_addr);
	put_ip(out, cap, &at, "dst", f->ip_mask.hdr.dst_addr, f->ip.hdr.dst_addr);
	put(out, cap, &at, "%s", " /");
	if (f->l4 != FLOW_L4_NONE) {
		put(out, cap, &at, " %s", tcp ? "tcp" : "udp");
		put_port(out, cap, &at, "src",
			tcp ? tm->hdr.src_port : um->hdr.src_port,
			tcp ? t->hdr.src_port : u->hdr.src_port);
		put_port(out, cap, &at, "dst",
			tcp ? tm->hdr.dst_port : um->hdr.dst_port,
			tcp ? t->hdr.dst_port : u->hdr.dst_port);
		put(out, cap, &at, "%s", " /");
	}
	put(out, cap, &at, "%s", " end actions");
	if (!f->rss) {
		snprintf(q, sizeof(q), "%u", f->queue);
		put(out, cap, &at, " queue index %s", q);
	} else {
		put(out, cap, &at, "%s", " rss");
		if (f->nb_rss_queues != 0)
			put(out, cap, &at, "%s", " queues");
		for (i = 0; i < f->nb_rss_queues; i++) {
			snprintf(q, sizeof(q), "%u", f->rss_queues[i]);
			put(out, cap, &at, " %s", q);
		}
		if (f->nb_rss_queues != 0)
			put(out, cap, &at, "%s", " end");
	}
	put(out, cap, &at, "%s", " / end");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[FZ_TEXT_MAX], copy[FZ_TEXT_MAX], back[FZ_TEXT_MAX];
	struct flow_spec f, g;
	const char *why = NULL, *last = NULL;
	size_t n = size < FZ_TEXT_MAX - 1 ? size : FZ_TEXT_MAX - 1, last_len = 0;
	int words;

	memcpy(text, data, n);
	text[n] = '\0';
	memcpy(copy, text, n + 1);
	words = count_words(text, &last, &last_len);
	if (cli_flow_parse(copy, &f, &why) != 0) {
		FZ_CHECK(why != NULL && why[0] != '\0');
		return 0;
	}
	/* Every word was the rule's: none left over, none dropped. */
	FZ_CHECK(words <= FLOW_MAX_WORDS);
	FZ_CHECK(last != NULL && last_len == 3 && memcmp(last, "end", 3) == 0);
	FZ_CHECK(f.nb_rss_queues <= FLOW_MAX_RSS_QUEUES);
	FZ_CHECK(!f.rss || f.queue == 0);
	write_rule(&f, back, sizeof(back));
	FZ_CHECK(cli_flow_parse(back, &g, &why) == 0);
	FZ_CHECK(memcmp(&f, &g, sizeof(f)) == 0);
	return 0;
}
