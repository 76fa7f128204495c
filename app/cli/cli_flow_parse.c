/* SPDX-License-Identifier: BSD-3-Clause */
/* The rule text of "flow create|validate" (cli_flow_parse.h). */
#include <errno.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "cli_flow_parse.h"

/*
 * Cut @p s into words. More than @p cap is -1: the words past the cap
 * used to be dropped unseen, and a rule of exactly @p cap words followed
 * by anything was accepted as if the rest had not been typed.
 */
static int
split_words(char *s, char **w, int cap)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, " \t", &save); t != NULL;
			t = strtok_r(NULL, " \t", &save)) {
		if (n == cap)
			return -EINVAL;
		w[n++] = t;
	}
	return n;
}

static int
parse_ip_field(const char *v, bool src, struct flow_spec *f, const char **why)
{
	struct in_addr a;

	if (inet_pton(AF_INET, v, &a) != 1) {
		*why = "bad IPv4 address";
		return -EINVAL;
	}
	if (src) {
		f->ip.hdr.src_addr = a.s_addr;
		f->ip_mask.hdr.src_addr = UINT32_MAX;
	} else {
		f->ip.hdr.dst_addr = a.s_addr;
		f->ip_mask.hdr.dst_addr = UINT32_MAX;
	}
	return 0;
}

static int
parse_port_field(const char *v, bool src, struct flow_spec *f, const char **why)
{
	unsigned long port;
	rte_be16_t be;
	char *end;

	port = strtoul(v, &end, 10);
	if (*end != '\0' || end == v || port > 65535) {
		*why = "bad TCP/UDP port";
		return -EINVAL;
	}
	be = htons(port);
	if (f->l4 == FLOW_L4_TCP && src) {
		f->tcp.hdr.src_port = be;
		f->tcp_mask.hdr.src_port = UINT16_MAX;
	} else if (f->l4 == FLOW_L4_TCP) {
		f->tcp.hdr.dst_port = be;
		f->tcp_mask.hdr.dst_port = UINT16_MAX;
	} else if (src) {
		f->udp.hdr.src_port = be;
		f->udp_mask.hdr.src_port = UINT16_MAX;
	} else {
		f->udp.hdr.dst_port = be;
		f->udp_mask.hdr.dst_port = UINT16_MAX;
	}
	return 0;
}

/* "src is A" / "dst is B" of an item, until "/". Returns words used or -1. */
static int
parse_fields(char **w, int n, struct flow_spec *f, bool ip, const char **why)
{
	int i = 0;

	while (i < n && strcmp(w[i], "/") != 0) {
		bool src = strcmp(w[i], "src") == 0;

		if ((!src && strcmp(w[i], "dst") != 0) || i + 2 >= n ||
				strcmp(w[i + 1], "is") != 0) {
			*why = "expected 'src is VALUE' or 'dst is VALUE'";
			return -EINVAL;
		}
		if ((ip ? parse_ip_field(w[i + 2], src, f, why) :
				parse_port_field(w[i + 2], src, f, why)) != 0)
			return -EINVAL;
		i += 3;
	}
	return i;
}

static int
expect_word(char **w, int n, int *i, const char *word)
{
	if (*i >= n || strcmp(w[*i], word) != 0)
		return -EINVAL;
	(*i)++;
	return 0;
}

static int
parse_u16(const char *v, uint16_t *out)
{
	unsigned long x;
	char *end;

	x = strtoul(v, &end, 10);
	if (*end != '\0' || end == v || x > UINT16_MAX)
		return -EINVAL;
	*out = (uint16_t)x;
	return 0;
}

/* "queue index N / end" or "rss [queues Q... end] / end". */
static int
parse_actions(char **w, int n, int i, struct flow_spec *f, const char **why)
{
	if (i < n && strcmp(w[i], "rss") == 0) {
		f->rss = true;
		i++;
		if (i < n && strcmp(w[i], "queues") == 0) {
			for (i++; i < n && strcmp(w[i], "end") != 0; i++) {
				if (f->nb_rss_queues == FLOW_MAX_RSS_QUEUES ||
						parse_u16(w[i], &f->rss_queues[f->nb_rss_queues]) != 0) {
					*why = "bad rss queue list (numbers, at most 16, then 'end')";
					return -EINVAL;
				}
				f->nb_rss_queues++;
			}
			if (expect_word(w, n, &i, "end") || f->nb_rss_queues == 0) {
				*why = "rss queues: expected queue numbers then 'end'";
				return -EINVAL;
			}
		}
	} else {
		if (expect_word(w, n, &i, "queue") || expect_word(w, n, &i, "index") ||
				i >= n)
			return -EINVAL;
		if (parse_u16(w[i++], &f->queue) != 0) {
			*why = "bad queue index";
			return -EINVAL;
		}
	}
	if (expect_word(w, n, &i, "/") || expect_word(w, n, &i, "end") || i != n)
		return -EINVAL;
	return 0;
}

/* Parse from "ingress" to the final "end". */
static int
parse_rule(char **w, int n, struct flow_spec *f, const char **why)
{
	const char *usage = "expected 'ingress pattern eth / ipv4 ... / "
		"[tcp|udp ... /] end actions queue index N | rss [queues Q... end] / end'";
	int i = 0, k;

	memset(f, 0, sizeof(*f));
	*why = usage;
	if (expect_word(w, n, &i, "ingress") || expect_word(w, n, &i, "pattern") ||
			expect_word(w, n, &i, "eth") || expect_word(w, n, &i, "/") ||
			expect_word(w, n, &i, "ipv4"))
		return -EINVAL;
	k = parse_fields(w + i, n - i, f, true, why);
	if (k < 0)
		return -EINVAL;
	i += k;
	if (expect_word(w, n, &i, "/"))
		return -EINVAL;
	if (i < n && (strcmp(w[i], "tcp") == 0 || strcmp(w[i], "udp") == 0)) {
		f->l4 = strcmp(w[i], "tcp") == 0 ? FLOW_L4_TCP : FLOW_L4_UDP;
		i++;
		k = parse_fields(w + i, n - i, f, false, why);
		if (k < 0)
			return -EINVAL;
		i += k;
		if (expect_word(w, n, &i, "/"))
			return -EINVAL;
	}
	if (expect_word(w, n, &i, "end") || expect_word(w, n, &i, "actions"))
		return -EINVAL;
	if (parse_actions(w, n, i, f, why) != 0) {
		if (*why == NULL)
			*why = usage;
		return -EINVAL;
	}
	return 0;
}

int
cli_flow_parse(char *text, struct flow_spec *f, const char **why)
{
	char *w[FLOW_MAX_WORDS];
	int n = split_words(text, w, FLOW_MAX_WORDS);

	if (n < 0) {
		memset(f, 0, sizeof(*f));
		*why = "too many words (a rule has at most 64)";
		return -EINVAL;
	}
	return parse_rule(w, n, f, why);
}
