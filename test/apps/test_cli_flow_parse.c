/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of devtcp-cli's flow rule parser (app/cli/cli_flow_parse.c),
 * no EAL: accepted forms, and the rule of more than 64 words (issue 25),
 * whose words past the 64th were dropped unseen.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "cli_flow_parse.h"
#include "dt_test.h"

static int
parse(const char *text, struct flow_spec *f, const char **why)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s", text);
	*why = NULL;
	return cli_flow_parse(buf, f, why);
}

static void
test_tcp_5tuple(void)
{
	struct flow_spec f;
	const char *why;

	DT_CHECK_EQ(parse("ingress pattern eth / ipv4 src is 10.0.0.1 / tcp "
		"dst is 5201 / end actions queue index 3 / end", &f, &why), 0);
	DT_CHECK(f.l4 == FLOW_L4_TCP && !f.rss && f.queue == 3);
	DT_CHECK(f.ip.hdr.src_addr == htonl(0x0a000001) &&
		f.ip_mask.hdr.src_addr == UINT32_MAX && f.ip_mask.hdr.dst_addr == 0);
	DT_CHECK(f.tcp.hdr.dst_port == htons(5201) &&
		f.tcp_mask.hdr.src_port == 0);
	DT_CHECK_EQ(parse("ingress pattern eth / ipv4 / end actions rss queues "
		"0 1 end / end", &f, &why), 0);
	DT_CHECK(f.rss && f.nb_rss_queues == 2 && f.rss_queues[1] == 1);
	DT_CHECK(parse("ingress pattern eth / ipv4 / end actions queue index 1 "
		"/ end more", &f, &why) != 0 && why != NULL);
}

/* Words for a rule of @p repeats "src is A" fields, then @p tail. */
static void
long_rule(char *buf, size_t len, int repeats, const char *tail)
{
	size_t at = (size_t)snprintf(buf, len, "ingress pattern eth / ipv4");
	int i;

	for (i = 0; i < repeats; i++)
		at += (size_t)snprintf(buf + at, len - at, " src is 10.0.0.1");
	snprintf(buf + at, len - at, " / end actions queue index 2 / end%s",
		tail);
}

static void
test_too_many_words(void)
{
	char text[2048];
	struct flow_spec f;
	const char *why;

	/* 5 + 3 x 17 + 8 = 64 words: the most a rule has. */
	long_rule(text, sizeof(text), 17, "");
	DT_CHECK_EQ(parse(text, &f, &why), 0);
	/* One more word: refused, not accepted without it. */
	long_rule(text, sizeof(text), 17, " extra");
	DT_CHECK(parse(text, &f, &why) != 0);
	DT_CHECK(why != NULL && strcmp(why,
		"too many words (a rule has at most 64)") == 0);
}

int
main(void)
{
	DT_RUN(test_tcp_5tuple);
	DT_RUN(test_too_many_words);
	return dt_test_summary();
}
