/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's scale options as a key table (the style of
 * app/server/srv_config.c): each option names its value type, where it is
 * stored in struct bench_opts and its limits; one parser per type. The
 * older options are parsed in bench_main.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "dt_app_value.h"

/* Kinds of value. */
enum bench_key_type {
	BK_U16LIST,  /* list and ranges into uint16_t[max_n]; count at 'off2' */
	BK_STR,      /* a path or name, kept as given (argv lives on) */
};

struct bench_key {
	const char *name;
	enum bench_key_type type;
	size_t off;           /* in struct bench_opts */
	uint16_t min, max;    /* BK_U16LIST: each value */
	size_t off2;          /* BK_U16LIST: count */
	uint16_t max_n;       /* BK_U16LIST: entries */
	const char *arg;      /* what --help shows as the value */
	const char *help;
};

#define BK_LIST(n, f, cnt, lo, hi, cap, a, h) \
	{ n, BK_U16LIST, offsetof(struct bench_opts, f), lo, hi, \
		offsetof(struct bench_opts, cnt), cap, a, h }
#define BK_PATH(n, f, a, h) \
	{ n, BK_STR, offsetof(struct bench_opts, f), 0, 0, 0, 0, a, h }
static const struct bench_key bench_keys[] = {
	BK_LIST("stacks", stacks, nb_stacks, 1, BENCH_MAX_STACKS,
		BENCH_STACK_COUNTS, "N1,N2,..",
		"run the TCP modes (default split,copy) once per\n"
		"server-stack count (e.g. 1,2,4,8 or 1-4): each server\n"
		"stack on its own lcore with its own queue pair, client\n"
		"stacks on the lcores left (as many as server stacks, at\n"
		"least one); the largest N needs N+1 lcores (EAL -l or\n"
		"--lcores). Without --conns, 2 connections per server\n"
		"stack. Adds a scale table and per-stack JSON"),
	BK_PATH("plot", plot_path, "FILE.png",
		"plot the results (bench/plot_stacks.py over the JSON:\n"
		"matplotlib, else gnuplot): goodput per mode, and with\n"
		"--stacks goodput against server stacks"),
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL },
};

int
bench_args_options(struct option *lo, int n, int cap, int base)
{
	int i;

	for (i = 0; bench_keys[i].name != NULL; i++) {
		if (n + 1 >= cap)
			return -ENOSPC;
		lo[n++] = (struct option){ bench_keys[i].name, required_argument,
			NULL, base + i };
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	return n;
}

/* Distinct values in increasing order: a scale series, not a repeat list. */
static int
check_series(const uint16_t *v, uint16_t n)
{
	uint16_t i;

	for (i = 1; i < n; i++)
		if (v[i] <= v[i - 1])
			return -EINVAL;
	return 0;
}

int
bench_args_parse(int idx, const char *arg, struct bench_opts *o)
{
	const struct bench_key *k;
	const char *expect = "";
	char buf[64];
	uint8_t *base = (uint8_t *)o;
	int rc = 0;

	if (idx < 0 || (size_t)idx >= RTE_DIM(bench_keys) - 1)
		return -EINVAL;
	k = &bench_keys[idx];
	switch (k->type) {
	case BK_U16LIST:
		rc = dt_app_parse_u16_list(arg, k->min, k->max,
			(uint16_t *)(base + k->off), k->max_n,
			(uint16_t *)(base + k->off2), buf, sizeof(buf), &expect);
		if (rc == 0 && check_series((uint16_t *)(base + k->off),
				*(uint16_t *)(base + k->off2)) != 0) {
			rc = -EINVAL;
			snprintf(buf, sizeof(buf), "increasing values (at most %u)",
				k->max_n);
			expect = buf;
		}
		break;
	case BK_STR:
		if (arg[0] == '\0') {
			rc = -EINVAL;
			expect = "a file name";
		} else {
			*(const char **)(base + k->off) = arg;
		}
		break;
	}
	/* The list parser's expectation already says how many values. */
	if (rc != 0)
		fprintf(stderr, "devtcp-bench: bad --%s '%s': expected %s\n",
			k->name, arg, expect);
	return rc;
}

void
bench_args_usage(FILE *f)
{
	const struct bench_key *k;
	const char *p, *nl;
	char head[40];

	for (k = bench_keys; k->name != NULL; k++) {
		snprintf(head, sizeof(head), "--%s %s", k->name, k->arg);
		for (p = k->help; p != NULL; p = nl != NULL ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			fprintf(f, "  %-18s%.*s\n", p == k->help ? head : "",
				nl != NULL ? (int)(nl - p) : (int)strlen(p), p);
		}
	}
}
