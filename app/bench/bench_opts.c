/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's command line after "--": --help's text and the options'
 * parser, run before EAL starts so that a bad option is refused first, with
 * the program's name (the scale options' key table is bench_args.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "bench.h"

void
bench_usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
		"L2 loopback benchmark: TCP from port 0 (client stacks) to port 1 (server\n"
		"stacks), payload landing in device memory, beside its baselines.\n\n"
		"  --mode MODE       split: TCP, port 1 splits each frame, headers in hugepage\n"
		"                    mbufs, payload in device memory (default);\n"
		"                    copy: the same stacks without split, whole frames in host\n"
		"                    mbufs, payload then copied into device memory by the copy\n"
		"                    engine before the buffer is released;\n"
		"                    raw: no TCP, prebuilt frames of the same size received whole\n"
		"                    in host memory: the wire's L2 ceiling;\n"
		"                    raw-split: no TCP, frames split as in split;\n"
		"                    bounce: as raw, then each payload is copied into device\n"
		"                    memory by the region's copy engine (kernel TCP + cudaMemcpy);\n"
		"                    ceiling: no wire, the copy engine alone moves payload-sized\n"
		"                    chunks from host to device memory, 32 per batch;\n"
		"                    cps: short connections over the TCP stacks, each connects,\n"
		"                    sends --bytes (default 1 KiB), gets as many back, closes;\n"
		"                    --conns of them in flight (default 32 per client stack),\n"
		"                    new ones for --duration: connections per second;\n"
		"                    hold: --conns concurrent connections (default 1000, up to\n"
		"                    1000000) spread over the stacks, --bytes each way, all\n"
		"                    open at once, then closed: time to establish, memory per\n"
		"                    connection (--duration: the time limit, default 120)\n"
		"  --modes M1,M2,..  run these modes back to back\n"
		"  --compare         run split, copy and raw; print the ratios\n"
		"  --conns N         TCP connections (default %u), spread over the stacks: with\n"
		"                    one lcore both stacks share it, with 2k lcores k server\n"
		"                    stacks (main lcore first) and k client stacks\n"
		"  --bytes B         bytes per connection (K, M, G suffixes), then close; the\n"
		"                    run ends when every byte is delivered (raw modes: as many\n"
		"                    frames' payload)\n"
		"  --duration SEC    seconds per run (default 3); with --bytes, the time limit\n"
		"                    (default %u)\n"
		"  --frames N        raw modes: stop a run after N received frames\n"
		"  --mtu B           port MTU, 1500..9000 for TCP (default 1500, or what fits\n"
		"                    --frame-size)\n"
		"  --frame-size B    raw modes: Ethernet frame size without FCS (default MTU + 14)\n"
		"  --msg-size B      bytes per dt_dp_send() (default %u)\n"
		"  --tx-mem M        host (default) or device: the client sends from a region in\n"
		"                    device memory, by reference; the NIC reads it through the\n"
		"                    copy engine\n"
		"  --payload-mem M   gpu (first gpudev device, default) or host: where received\n"
		"                    payload lands\n"
		"  --rate GBPS       line rate: appended as rate= to every net_hsplit vdev (the\n"
		"                    wire is paced to it) and the reference of %%-of-line-rate\n"
		"                    (with real ports: the reference only). Without it, a\n"
		"                    port's rate= devarg, else raw's rate in the same run\n"
		"  --rss-blind       open connections without looking at the server port's RSS\n"
		"                    (by default, with several server stacks, each connection\n"
		"                    takes a source port that lands it on the next server stack)\n"
		"  --verify          check every payload byte against the sender's pattern,\n"
		"                    per connection: device bytes through the GPU's CPU mapping\n"
		"                    (gpu_sim) or by a kernel on the GPU (gpu_cuda), in batches\n"
		"                    of %u chunks; host bytes once copied; slows the receiver\n"
		"  --quiet           no live progress line\n"
		"  --json FILE       write the results as JSON (docs/bench-json.md): opened\n"
		"                    before anything runs; an interrupted run writes what it\n"
		"                    measured, with \"interrupted\": true\n",
		prog, BENCH_DEFAULT_CONNS, BENCH_BYTES_LIMIT_S, BENCH_DEFAULT_MSG,
		BENCH_VERIFY_FRAMES);
	bench_args_usage(stdout);
	printf("  --help            this text\n\n"
		"example (software NIC, simulated GPU):\n"
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

/* A byte count with an optional K, M or G suffix (powers of 1024). */
static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v;

	if (*s == '-' || *s == '\0')
		return -EINVAL;
	v = strtoull(s, &end, 0);
	switch (*end) {
	case 'K': case 'k':
		v <<= 10;
		end++;
		break;
	case 'M': case 'm':
		v <<= 20;
		end++;
		break;
	case 'G': case 'g':
		v <<= 30;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * --stacks runs the TCP modes only (split and copy unless --mode(s) says
 * otherwise); --plot draws what --stacks measured.
 */
static int
parse_scale(struct bench_opts *o, bool modes_set)
{
	unsigned int i;

	if (o->nb_stacks == 0)
		return 0;
	if (!modes_set) {
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

/* getopt_long values of the key table's options (bench_args.c). */
#define BENCH_KEY_OPT_BASE 1000

static int
parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option base_lo[] = {
		{"mode", required_argument, NULL, 'm'},
		{"modes", required_argument, NULL, 'L'},
		{"compare", no_argument, NULL, 'c'},
		{"conns", required_argument, NULL, 'C'},
		{"bytes", required_argument, NULL, 'B'},
		{"duration", required_argument, NULL, 'd'},
		{"frames", required_argument, NULL, 'n'},
		{"frame-size", required_argument, NULL, 's'},
		{"mtu", required_argument, NULL, 'M'},
		{"msg-size", required_argument, NULL, 'S'},
		{"tx-mem", required_argument, NULL, 't'},
		{"payload-mem", required_argument, NULL, 'p'},
		{"rate", required_argument, NULL, 'r'},
		{"verify", no_argument, NULL, 'v'},
		{"rss-blind", no_argument, NULL, 'R'},
		{"quiet", no_argument, NULL, 'q'},
		{"json", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
	};
	struct option lo[RTE_DIM(base_lo) + 8];
	bool modes_set = false;
	uint64_t u;
	char *end;
	int c;

	memcpy(lo, base_lo, sizeof(base_lo));
	if (bench_args_options(lo, RTE_DIM(base_lo), RTE_DIM(lo),
			BENCH_KEY_OPT_BASE) < 0)
		return -ENOSPC;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c >= BENCH_KEY_OPT_BASE) {
			if (bench_args_parse(c - BENCH_KEY_OPT_BASE, optarg, o) != 0)
				return -EINVAL;
			continue;
		}
		if (c == 'm' || c == 'L' || c == 'c')
			modes_set = true;
		switch (c) {
		case 'm':
			o->nb_modes = 1;
			if (bench_mode_parse(optarg, &o->modes[0]) != 0)
				return fprintf(stderr, "devtcp-bench: unknown --mode '%s' (split, copy, raw, raw-split, bounce, ceiling, cps, hold)\n",
					optarg), -EINVAL;
			break;
		case 'L':
			if (parse_modes(optarg, o) != 0)
				return fprintf(stderr, "devtcp-bench: bad --modes '%s' (a list of distinct modes: split, copy, raw, raw-split, bounce, ceiling, cps, hold)\n",
					optarg), -EINVAL;
			break;
		case 'c':
			o->modes[0] = BENCH_MODE_SPLIT;
			o->modes[1] = BENCH_MODE_COPY;
			o->modes[2] = BENCH_MODE_RAW;
			o->nb_modes = 3;
			break;
		case 'C':
			o->conns = strtoul(optarg, &end, 0);
			if (*end != '\0' || o->conns < 1 || o->conns > BENCH_MAX_CONNS)
				return fprintf(stderr, "devtcp-bench: bad --conns '%s' (1..%u)\n", optarg,
					BENCH_MAX_CONNS), -EINVAL;
			o->conns_set = true;
			break;
		case 'B':
			if (parse_size(optarg, &o->bytes) != 0 || o->bytes == 0)
				return fprintf(stderr, "devtcp-bench: bad --bytes '%s'\n", optarg), -EINVAL;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end != '\0' || o->duration <= 0)
				return fprintf(stderr, "devtcp-bench: bad --duration '%s'\n", optarg), -EINVAL;
			o->duration_set = true;
			break;
		case 'n':
			o->frames = strtoull(optarg, &end, 0);
			if (*end != '\0')
				return fprintf(stderr, "devtcp-bench: bad --frames '%s'\n", optarg), -EINVAL;
			break;
		case 's':
			o->frame_len = strtoul(optarg, &end, 0);
			if (*end != '\0' || o->frame_len < 64 || o->frame_len > 9014)
				return fprintf(stderr, "devtcp-bench: bad --frame-size '%s' (64..9014)\n",
					optarg), -EINVAL;
			break;
		case 'M':
			o->mtu = strtoul(optarg, &end, 0);
			if (*end != '\0' || o->mtu < 68 || o->mtu > 9000)
				return fprintf(stderr, "devtcp-bench: bad --mtu '%s' (68..9000)\n", optarg),
					-EINVAL;
			break;
		case 'S':
			if (parse_size(optarg, &u) != 0 || u == 0 || u > (1u << 20))
				return fprintf(stderr, "devtcp-bench: bad --msg-size '%s' (1..1M)\n", optarg),
					-EINVAL;
			o->msg_size = (uint32_t)u;
			break;
		case 't':
			if (strcmp(optarg, "device") == 0)
				o->tx_device = true;
			else if (strcmp(optarg, "host") == 0)
				o->tx_device = false;
			else
				return fprintf(stderr, "devtcp-bench: bad --tx-mem '%s' (host, device)\n",
					optarg), -EINVAL;
			break;
		case 'p':
			if (strcmp(optarg, "gpu") == 0)
				o->payload_host = false;
			else if (strcmp(optarg, "host") == 0)
				o->payload_host = true;
			else
				return fprintf(stderr, "devtcp-bench: bad --payload-mem '%s' (gpu, host)\n",
					optarg), -EINVAL;
			break;
		case 'r':
			o->rate_gbps = strtod(optarg, &end);
			if (*end != '\0' || !(o->rate_gbps > 0 && o->rate_gbps <= 1600))
				return fprintf(stderr, "devtcp-bench: bad --rate '%s' (Gb/s, 0..1600)\n",
					optarg), -EINVAL;
			o->rate_set = true;
			break;
		case 'v':
			o->verify = true;
			break;
		case 'R':
			o->rss_blind = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case 'h':
			bench_usage(argv[0]);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (optind != argc)
		return fprintf(stderr, "devtcp-bench: unexpected argument '%s'\n", argv[optind]), -EINVAL;
	if (parse_scale(o, modes_set) != 0)
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
