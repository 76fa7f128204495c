/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's command line after "--": --help's text and the options'
 * parser, run before EAL starts so that a bad option is refused first, with
 * the program's name (the options themselves are bench_args.c's key table).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "bench.h"

void
bench_usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
		"L2 loopback benchmark: TCP from port 0 (client stacks) to port 1 (server\n"
		"stacks), payload landing in device memory, beside its baselines.\n\n",
		prog);
	bench_args_usage(stdout);
	printf("\nexample (software NIC, simulated GPU):\n"
		"  %s -l 0-1 --in-memory --no-pci --vdev=net_hsplit0,wire=w \\\n"
		"     --vdev=net_hsplit1,wire=w --vdev=gpu_sim0,size=256M -- --compare\n"
		"example (software NIC, CUDA GPU, raw-frame baselines):\n"
		"  %s -l 0-1 --in-memory --no-pci --vdev=net_hsplit0,wire=w \\\n"
		"     --vdev=net_hsplit1,wire=w --vdev=gpu_cuda0 -- \\\n"
		"     --modes raw-split,raw,bounce,ceiling --verify\n"
		"example (scale: 1, 2 and 4 server stacks, 2 connections each):\n"
		"  %s --lcores '0-7' --in-memory --no-pci --vdev=net_hsplit0,wire=w \\\n"
		"     --vdev=net_hsplit1,wire=w --vdev=gpu_sim0,size=256M -- \\\n"
		"     --stacks 1,2,4 --duration 3 --json scale.json --plot scale.png\n",
		prog, prog, prog);
}

/*
 * --stacks runs the TCP modes only (split and copy unless --mode(s) says
 * otherwise); --plot draws what --stacks measured.
 */
static int
parse_scale(struct bench_opts *o)
{
	unsigned int i;

	if (o->nb_stacks == 0)
		return 0;
	if (!o->modes_set) {
		o->modes[0] = BENCH_MODE_SPLIT;
		o->modes[1] = BENCH_MODE_COPY;
		o->nb_modes = 2;
	}
	for (i = 0; i < o->nb_modes; i++)
		if (!bench_mode_is_tcp(o->modes[i]))
			return fprintf(stderr, "devtcp-bench: --stacks runs the TCP modes (split, copy); '%s' has no stacks\n",
				bench_mode_name(o->modes[i])), -EINVAL;
	return 0;
}

bool
bench_has_tcp_mode(const struct bench_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nb_modes; i++)
		if (bench_mode_is_tcp(o->modes[i]))
			return true;
	return false;
}

static bool
has_conns_mode(const struct bench_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nb_modes; i++)
		if (bench_mode_is_conns(o->modes[i]))
			return true;
	return false;
}

/*
 * The stream modes keep their 4096 connections; cps and hold take up to
 * BENCH_MAX_CONNS, and small exchanges (--bytes, default 1 KiB).
 */
static int
check_conns_opts(const struct bench_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nb_modes; i++)
		if (!bench_mode_is_conns(o->modes[i]) && bench_mode_is_tcp(o->modes[i]) &&
				o->conns > 4096)
			return fprintf(stderr, "devtcp-bench: --conns %u: mode %s takes 1..4096 (cps and hold up to %u)\n",
				o->conns, bench_mode_name(o->modes[i]),
				BENCH_MAX_CONNS), -EINVAL;
	if (has_conns_mode(o) && o->bytes > BENCH_CONNS_MAX_BYTES)
		return fprintf(stderr, "devtcp-bench: --bytes %" PRIu64 ": cps and hold exchange at most %u bytes each way\n",
			o->bytes, BENCH_CONNS_MAX_BYTES), -EINVAL;
	return 0;
}

static int
parse_args(int argc, char **argv, struct bench_opts *o)
{
	struct option lo[40];
	int c, rc;

	if (bench_args_options(lo, RTE_DIM(lo)) < 0)
		return -ENOSPC;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		rc = c == '?' ? -EINVAL : bench_args_parse(c, optarg, o);
		if (rc == 1) {
			bench_usage(argv[0]);
			exit(0);
		}
		if (rc != 0)
			return -EINVAL;
	}
	if (optind != argc)
		return fprintf(stderr, "devtcp-bench: unexpected argument '%s'\n", argv[optind]), -EINVAL;
	if (parse_scale(o) != 0)
		return -EINVAL;
	/* Raw frames of the TCP frames' size: full-sized segments at the MTU. */
	if (o->mtu == 0)
		o->mtu = o->frame_len != 0 ?
			RTE_MAX(o->frame_len - RTE_ETHER_HDR_LEN, RTE_ETHER_MTU) :
			RTE_ETHER_MTU;
	if (o->frame_len == 0)
		o->frame_len = o->mtu + RTE_ETHER_HDR_LEN;
	if (o->frame_len > o->mtu + RTE_ETHER_HDR_LEN)
		return fprintf(stderr, "devtcp-bench: --frame-size %u exceeds --mtu %u\n",
			o->frame_len, o->mtu), -EINVAL;
	if (bench_has_tcp_mode(o) && o->mtu < RTE_ETHER_MTU)
		return fprintf(stderr, "devtcp-bench: --mtu %u: the TCP modes take 1500..9000\n",
			o->mtu), -EINVAL;
	if (check_conns_opts(o) != 0)
		return -EINVAL;
	if (o->bytes != 0 && !o->duration_set && !has_conns_mode(o))
		o->duration = BENCH_BYTES_LIMIT_S;
	/* --bytes for the raw modes: the frames carrying as much payload. */
	if (o->bytes != 0 && o->frames == 0 && bench_payload_len(o) != 0)
		o->frames = (o->bytes * o->conns + bench_payload_len(o) - 1) /
			bench_payload_len(o);
	return 0;
}

/* The options after "--", read before EAL starts (as "devtcp-bench ..."). */
int
bench_opts_parse(int argc, char **argv, struct bench_opts *o)
{
	int dash = 1, rc;
	char *dd;

	while (dash < argc && strcmp(argv[dash], "--") != 0)
		dash++;
	if (dash == argc)
		return parse_args(1, (char *[]){ argv[0], NULL }, o);
	dd = argv[dash];
	argv[dash] = (char *)"devtcp-bench";
	rc = parse_args(argc - dash, argv + dash, o);
	argv[dash] = dd;
	optind = 0; /* EAL's getopt starts afresh */
	return rc;
}
