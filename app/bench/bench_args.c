/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's options after "--" as one key table (the style of
 * app/server/srv_config.c): each option names its value type, where it is
 * stored in struct bench_opts, its limits and its help; one parser per
 * type, and --help is printed from the same table. What the options mean
 * together (defaults, cross-checks) is bench_opts.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "bench.h"
#include "dt_app_value.h"

/* Kinds of value. */
enum bench_key_type {
	BK_UINT,     /* unsigned integer in [min, max], 'size' bytes wide */
	BK_SIZE,     /* byte count with K, M, G suffixes, as BK_UINT */
	BK_DOUBLE,   /* real number in (min, max] */
	BK_FLAG,     /* no value: the bool at 'off' set */
	BK_CHOICE,   /* one of two words: 'yes' sets the bool at 'off', 'no' clears it */
	BK_MODE,     /* one mode: the run's only one */
	BK_MODES,    /* a list of distinct modes (BK_FLAG-like with 'fixed') */
	BK_U16LIST,  /* list and ranges into uint16_t[max_n]; count at 'off2' */
	BK_STR,      /* a path or name, kept as given (argv lives on) */
	BK_HELP,     /* --help */
};

/* No bool to set when the option is given. */
#define BK_NONE SIZE_MAX

struct bench_key {
	const char *name;
	enum bench_key_type type;
	size_t off;           /* in struct bench_opts */
	size_t size;          /* BK_UINT, BK_SIZE: width of the field */
	uint64_t min, max;    /* BK_UINT, BK_SIZE, BK_U16LIST: limits */
	double dmin, dmax;    /* BK_DOUBLE: limits, (dmin, dmax] */
	size_t off2;          /* BK_U16LIST: count; else a bool set when given (BK_NONE) */
	uint16_t max_n;       /* BK_U16LIST: entries */
	const char *yes, *no; /* BK_CHOICE: the words; BK_MODES: 'yes' the fixed list */
	const char *arg;      /* what --help shows as the value (NULL: none) */
	const char *help;     /* lines; a %u in one is 'hval' */
	unsigned int hval;
};

#define BO_OFF(f) offsetof(struct bench_opts, f)
#define BO_SIZE(f) sizeof(((struct bench_opts *)0)->f)
#define BK_NUM(t, n, f, lo, hi, set, a, h, hv) \
	{ .name = n, .type = t, .off = BO_OFF(f), .size = BO_SIZE(f), \
		.min = lo, .max = hi, .off2 = set, .arg = a, .help = h, .hval = hv }
#define BK_REAL(n, f, lo, hi, set, a, h, hv) \
	{ .name = n, .type = BK_DOUBLE, .off = BO_OFF(f), .dmin = lo, .dmax = hi, \
		.off2 = set, .arg = a, .help = h, .hval = hv }
#define BK_BOOL(t, n, f, y, no_, a, h, hv) \
	{ .name = n, .type = t, .off = BO_OFF(f), .off2 = BK_NONE, .yes = y, \
		.no = no_, .arg = a, .help = h, .hval = hv }
#define BK_MODESET(n, fixed, a, h) \
	{ .name = n, .type = BK_MODES, .off2 = BO_OFF(modes_set), .yes = fixed, \
		.arg = a, .help = h }
#define BK_LIST(n, f, cnt, lo, hi, cap, a, h) \
	{ .name = n, .type = BK_U16LIST, .off = BO_OFF(f), .min = lo, .max = hi, \
		.off2 = BO_OFF(cnt), .max_n = cap, .arg = a, .help = h }
#define BK_PATH(n, f, a, h) \
	{ .name = n, .type = BK_STR, .off = BO_OFF(f), .off2 = BK_NONE, \
		.arg = a, .help = h }

static const struct bench_key bench_keys[] = {
	{ .name = "mode", .type = BK_MODE, .off2 = BO_OFF(modes_set),
		.arg = "MODE", .help =
		"split: TCP, port 1 splits each frame, headers in hugepage\n"
		"mbufs, payload in device memory (default);\n"
		"copy: the same stacks without split, whole frames in host\n"
		"mbufs, payload then copied into device memory by the copy\n"
		"engine before the buffer is released;\n"
		"raw: no TCP, prebuilt frames of the same size received whole\n"
		"in host memory: the wire's L2 ceiling;\n"
		"raw-split: no TCP, frames split as in split;\n"
		"bounce: as raw, then each payload is copied into device\n"
		"memory by the region's copy engine (kernel TCP + cudaMemcpy);\n"
		"ceiling: no wire, the copy engine alone moves payload-sized\n"
		"chunks from host to device memory, 32 per batch;\n"
		"cps: short connections over the TCP stacks, each connects,\n"
		"sends --bytes (default 1 KiB), gets as many back, closes;\n"
		"--conns of them in flight (default 32 per client stack),\n"
		"new ones for --duration: connections per second;\n"
		"hold: --conns concurrent connections (default 1000, up to\n"
		"1000000) spread over the stacks, --bytes each way, all\n"
		"open at once, then closed: time to establish, memory per\n"
		"connection (--duration: the time limit, default 120)" },
	BK_MODESET("modes", NULL, "M1,M2,..", "run these modes back to back"),
	BK_MODESET("compare", "split,copy,raw", NULL,
		"run split, copy and raw; print the ratios"),
	BK_NUM(BK_UINT, "conns", conns, 1, BENCH_MAX_CONNS, BO_OFF(conns_set), "N",
		"TCP connections (default %u), spread over the stacks: with\n"
		"one lcore both stacks share it, with 2k lcores k server\n"
		"stacks (main lcore first) and k client stacks",
		BENCH_DEFAULT_CONNS),
	BK_NUM(BK_SIZE, "bytes", bytes, 1, UINT64_MAX, BK_NONE, "B",
		"bytes per connection (K, M, G suffixes), then close; the\n"
		"run ends when every byte is delivered (raw modes: as many\n"
		"frames' payload)", 0),
	BK_REAL("duration", duration, 0, 1e12, BO_OFF(duration_set), "SEC",
		"seconds per run (default 3); with --bytes, the time limit\n"
		"(default %u)", BENCH_BYTES_LIMIT_S),
	BK_NUM(BK_UINT, "frames", frames, 0, UINT64_MAX, BK_NONE, "N",
		"raw modes: stop a run after N received frames", 0),
	BK_NUM(BK_UINT, "mtu", mtu, 68, 9000, BK_NONE, "B",
		"port MTU, 1500..9000 for TCP (default 1500, or what fits\n"
		"--frame-size)", 0),
	BK_NUM(BK_UINT, "frame-size", frame_len, 64, 9014, BK_NONE, "B",
		"raw modes: Ethernet frame size without FCS (default MTU + 14)", 0),
	BK_NUM(BK_SIZE, "msg-size", msg_size, 1, 1u << 20, BK_NONE, "B",
		"bytes per dt_dp_send() (default %u)", BENCH_DEFAULT_MSG),
	BK_BOOL(BK_CHOICE, "tx-mem", tx_device, "device", "host", "M",
		"host (default) or device: the client sends from a region in\n"
		"device memory, by reference; the NIC reads it through the\n"
		"copy engine", 0),
	BK_BOOL(BK_CHOICE, "payload-mem", payload_host, "host", "gpu", "M",
		"gpu (first gpudev device, default) or host: where received\n"
		"payload lands", 0),
	BK_REAL("rate", rate_gbps, 0, 1600, BO_OFF(rate_set), "GBPS",
		"line rate: appended as rate= to every net_hsplit vdev (the\n"
		"wire is paced to it) and the reference of %%-of-line-rate\n"
		"(with real ports: the reference only). Without it, a\n"
		"port's rate= devarg, else raw's rate in the same run", 0),
	BK_BOOL(BK_FLAG, "rss-blind", rss_blind, NULL, NULL, NULL,
		"open connections without looking at the server port's RSS\n"
		"(by default, with several server stacks, each connection\n"
		"takes a source port that lands it on the next server stack)", 0),
	BK_BOOL(BK_FLAG, "verify", verify, NULL, NULL, NULL,
		"check every payload byte against the sender's pattern,\n"
		"per connection: device bytes through the GPU's CPU mapping\n"
		"(gpu_sim) or by a kernel on the GPU (gpu_cuda), in batches\n"
		"of %u chunks; host bytes once copied; slows the receiver",
		BENCH_VERIFY_FRAMES),
	BK_BOOL(BK_FLAG, "quiet", quiet, NULL, NULL, NULL,
		"no live progress line", 0),
	BK_PATH("json", json_path, "FILE",
		"write the results as JSON (docs/bench-json.md): opened\n"
		"before anything runs; an interrupted run writes what it\n"
		"measured, with \"interrupted\": true"),
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
	{ .name = "help", .type = BK_HELP, .off2 = BK_NONE, .help = "this text" },
	{ .name = NULL },
};

int
bench_args_options(struct option *lo, int cap)
{
	int i, n = 0;

	for (i = 0; bench_keys[i].name != NULL; i++) {
		const struct bench_key *k = &bench_keys[i];

		if (n + 1 >= cap)
			return -ENOSPC;
		lo[n++] = (struct option){ k->name, k->arg != NULL ?
			required_argument : no_argument, NULL, i };
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

/* A list of distinct modes into o->modes. */
static int
parse_modes(const char *list, struct bench_opts *o)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	o->nb_modes = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		if (o->nb_modes == BENCH_MODE_MAX ||
				bench_mode_parse(tok, &o->modes[o->nb_modes]) != 0)
			return -EINVAL;
		for (i = 0; i < o->nb_modes; i++)
			if (o->modes[i] == o->modes[o->nb_modes])
				return -EINVAL;
		o->nb_modes++;
	}
	return o->nb_modes > 0 ? 0 : -EINVAL;
}

/* Store @p v in the field of @p k, whatever its width. */
static void
store_uint(const struct bench_key *k, uint8_t *base, uint64_t v)
{
	switch (k->size) {
	case sizeof(uint16_t):
		*(uint16_t *)(base + k->off) = (uint16_t)v;
		break;
	case sizeof(uint32_t):
		*(uint32_t *)(base + k->off) = (uint32_t)v;
		break;
	default:
		*(uint64_t *)(base + k->off) = v;
		break;
	}
}

static int
parse_double(const struct bench_key *k, const char *arg, double *v,
	char *buf, size_t len, const char **expect)
{
	char *end;

	if (k->dmax >= 1e12)
		*expect = "a positive number";
	else {
		snprintf(buf, len, "a number in (%g, %g]", k->dmin, k->dmax);
		*expect = buf;
	}
	*v = strtod(arg, &end);
	return *end != '\0' || end == arg || !(*v > k->dmin && *v <= k->dmax) ?
		-EINVAL : 0;
}

static int
parse_list(const struct bench_key *k, const char *arg, uint8_t *base,
	char *buf, size_t len, const char **expect)
{
	int rc;

	rc = dt_app_parse_u16_list(arg, (uint16_t)k->min, (uint16_t)k->max,
		(uint16_t *)(base + k->off), k->max_n,
		(uint16_t *)(base + k->off2), buf, len, expect);
	if (rc == 0 && check_series((uint16_t *)(base + k->off),
			*(uint16_t *)(base + k->off2)) != 0) {
		snprintf(buf, len, "increasing values (at most %u)", k->max_n);
		*expect = buf;
		rc = -EINVAL;
	}
	return rc;
}

/* The value of @p k into @p base; 0, or -EINVAL with @p expect said. */
static int
parse_value(const struct bench_key *k, const char *arg, uint8_t *base,
	char *buf, size_t len, const char **expect)
{
	uint64_t u;
	double d;
	int rc;

	switch (k->type) {
	case BK_UINT:
	case BK_SIZE:
		rc = (k->type == BK_UINT ? dt_app_parse_uint : dt_app_parse_size)(
			arg, k->min, k->max, &u, buf, len, expect);
		if (rc == 0)
			store_uint(k, base, u);
		return rc;
	case BK_DOUBLE:
		rc = parse_double(k, arg, &d, buf, len, expect);
		if (rc == 0)
			*(double *)(base + k->off) = d;
		return rc;
	case BK_FLAG:
		*(bool *)(base + k->off) = true;
		return 0;
	case BK_CHOICE:
		snprintf(buf, len, "%s or %s", k->yes, k->no);
		*expect = buf;
		if (strcmp(arg, k->yes) != 0 && strcmp(arg, k->no) != 0)
			return -EINVAL;
		*(bool *)(base + k->off) = strcmp(arg, k->yes) == 0;
		return 0;
	case BK_MODE:
		*expect = "one of split, copy, raw, raw-split, bounce, ceiling, cps, hold";
		((struct bench_opts *)base)->nb_modes = 1;
		return bench_mode_parse(arg, &((struct bench_opts *)base)->modes[0]);
	case BK_MODES:
		*expect = "a list of distinct modes: split, copy, raw, raw-split, bounce, ceiling, cps, hold";
		return parse_modes(k->yes != NULL ? k->yes : arg,
			(struct bench_opts *)base);
	case BK_U16LIST:
		return parse_list(k, arg, base, buf, len, expect);
	case BK_STR:
		*expect = "a file name";
		if (arg[0] == '\0')
			return -EINVAL;
		*(const char **)(base + k->off) = arg;
		return 0;
	case BK_HELP:
		return -EINVAL;
	}
	return -EINVAL;
}

int
bench_args_parse(int idx, const char *arg, struct bench_opts *o)
{
	const struct bench_key *k;
	const char *expect = "";
	char buf[96];
	int rc;

	if (idx < 0 || (size_t)idx >= RTE_DIM(bench_keys) - 1)
		return -EINVAL;
	k = &bench_keys[idx];
	if (k->type == BK_HELP)
		return 1;
	rc = parse_value(k, arg, (uint8_t *)o, buf, sizeof(buf), &expect);
	if (rc != 0) {
		fprintf(stderr, "devtcp-bench: bad --%s '%s': expected %s\n",
			k->name, arg != NULL ? arg : "", expect);
		return -EINVAL;
	}
	if (k->off2 != BK_NONE && k->type != BK_U16LIST)
		*(bool *)((uint8_t *)o + k->off2) = true;
	return 0;
}

void
bench_args_usage(FILE *f)
{
	const struct bench_key *k;
	const char *p, *nl;
	char head[40], line[128];
	int l;

	for (k = bench_keys; k->name != NULL; k++) {
		snprintf(head, sizeof(head), "--%s%s%s", k->name,
			k->arg != NULL ? " " : "", k->arg != NULL ? k->arg : "");
		for (p = k->help; p != NULL; p = nl != NULL ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			l = nl != NULL ? (int)(nl - p) : (int)strlen(p);
			/* A line of the table is a format: its %u is the key's default. */
			snprintf(line, sizeof(line), "%.*s", l, p);
			fprintf(f, "  %-18s", p == k->help ? head : "");
			fprintf(f, line, k->hval);
			fputc('\n', f);
		}
	}
}
