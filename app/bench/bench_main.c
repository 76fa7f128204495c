/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench: L2 loopback benchmark (see bench.h).
 *
 * usage: devtcp-bench [EAL args] -- [options]; --help lists the options.
 * The wire is whatever the two ports are: the software NIC's loopback wire
 * (--vdev=net_hsplit0,wire=w --vdev=net_hsplit1,wire=w) or two cabled ports.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "bench.h"
#include "dt_devmem.h"
#include "dt_dp_port.h"
#include "rte_pmd_hsplit.h"

RTE_LOG_REGISTER(bench_logtype, devtcp.bench, INFO);
#define BLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, bench_logtype, "bench: " fmt "\n", ##__VA_ARGS__)

#define NB_MBUFS 16384
#define HDR_ROOM 256
#define CEIL_CHUNKS 1024       /* distinct source chunks of the ceiling */

/* Set by SIGINT/SIGTERM: the only state a signal handler may touch. */
static volatile sig_atomic_t bench_quit;

static void
on_signal(int sig)
{
	(void)sig;
	bench_quit = 1;
}

static const char *const mode_names[BENCH_MODE_MAX] = {
	[BENCH_MODE_RAW_SPLIT] = "raw-split",
	[BENCH_MODE_RAW] = "raw",
	[BENCH_MODE_BOUNCE] = "bounce",
	[BENCH_MODE_CEILING] = "ceiling",
};

const char *
bench_mode_name(enum bench_mode m)
{
	return m < BENCH_MODE_MAX ? mode_names[m] : "?";
}

static void
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
		"L2 loopback benchmark: port 0 sends TCP/IPv4 frames to port 1.\n\n"
		"  --mode MODE       raw-split: port 1 splits each frame, headers in hugepage\n"
		"                    mbufs, payload in device memory (default);\n"
		"                    raw: port 1 receives whole frames in host memory;\n"
		"                    bounce: as raw, then each payload is copied into device\n"
		"                    memory by the region's copy engine (kernel TCP + cudaMemcpy);\n"
		"                    ceiling: no wire, the copy engine alone moves payload-sized\n"
		"                    chunks from host to device memory, 32 per batch\n"
		"  --compare         run raw-split, raw, bounce and ceiling; print the ratios\n"
		"  --duration SEC    seconds per run (default 3)\n"
		"  --frames N        stop a run after N received frames\n"
		"  --frame-size B    Ethernet frame size without FCS (default 1514)\n"
		"  --mtu B           port MTU (default: fits the frame size; up to 9000)\n"
		"  --payload-mem M   gpu (first gpudev device, default) or host\n"
		"  --verify          check every payload byte: device bytes through the GPU's\n"
		"                    CPU mapping (gpu_sim) or by a kernel on the GPU (gpu_cuda),\n"
		"                    in batches of %u frames; slows the receiver\n"
		"  --quiet           no live progress line\n"
		"  --json FILE       write the results as JSON\n"
		"  --help            this text\n\n"
		"example (software NIC, simulated GPU):\n"
		"  %s -l 0-1 --in-memory --no-pci --vdev=net_hsplit0,wire=w \\\n"
		"     --vdev=net_hsplit1,wire=w --vdev=gpu_sim0,size=256M -- --compare\n"
		"example (software NIC, CUDA GPU):\n"
		"  %s -l 0-1 --in-memory --no-pci --vdev=net_hsplit0,wire=w \\\n"
		"     --vdev=net_hsplit1,wire=w --vdev=gpu_cuda0 -- --compare --verify\n",
		prog, BENCH_VERIFY_FRAMES, prog, prog);
}

static int
parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option lo[] = {
		{"mode", required_argument, NULL, 'm'},
		{"compare", no_argument, NULL, 'c'},
		{"duration", required_argument, NULL, 'd'},
		{"frames", required_argument, NULL, 'n'},
		{"frame-size", required_argument, NULL, 's'},
		{"mtu", required_argument, NULL, 'M'},
		{"payload-mem", required_argument, NULL, 'p'},
		{"verify", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
		{"json", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (strcmp(optarg, "raw-split") == 0)
				o->mode = BENCH_MODE_RAW_SPLIT;
			else if (strcmp(optarg, "raw") == 0)
				o->mode = BENCH_MODE_RAW;
			else if (strcmp(optarg, "bounce") == 0)
				o->mode = BENCH_MODE_BOUNCE;
			else if (strcmp(optarg, "ceiling") == 0)
				o->mode = BENCH_MODE_CEILING;
			else
				return fprintf(stderr, "unknown --mode '%s' (raw-split, raw, bounce, ceiling)\n",
					optarg), -EINVAL;
			break;
		case 'c':
			o->compare = true;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end != '\0' || o->duration <= 0)
				return fprintf(stderr, "bad --duration '%s'\n", optarg), -EINVAL;
			break;
		case 'n':
			o->frames = strtoull(optarg, &end, 0);
			if (*end != '\0')
				return fprintf(stderr, "bad --frames '%s'\n", optarg), -EINVAL;
			break;
		case 's':
			o->frame_len = strtoul(optarg, &end, 0);
			if (*end != '\0' || o->frame_len < 64 || o->frame_len > 9014)
				return fprintf(stderr, "bad --frame-size '%s' (64..9014)\n",
					optarg), -EINVAL;
			break;
		case 'M':
			o->mtu = strtoul(optarg, &end, 0);
			if (*end != '\0' || o->mtu < 68 || o->mtu > 9000)
				return fprintf(stderr, "bad --mtu '%s' (68..9000)\n", optarg),
					-EINVAL;
			break;
		case 'p':
			if (strcmp(optarg, "gpu") == 0)
				o->payload_host = false;
			else if (strcmp(optarg, "host") == 0)
				o->payload_host = true;
			else
				return fprintf(stderr, "bad --payload-mem '%s' (gpu, host)\n",
					optarg), -EINVAL;
			break;
		case 'v':
			o->verify = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (optind != argc)
		return fprintf(stderr, "unexpected argument '%s'\n", argv[optind]), -EINVAL;
	if (o->mtu == 0)
		o->mtu = RTE_MAX(o->frame_len - RTE_ETHER_HDR_LEN, RTE_ETHER_MTU);
	if (o->frame_len > o->mtu + RTE_ETHER_HDR_LEN)
		return fprintf(stderr, "--frame-size %u exceeds --mtu %u\n",
			o->frame_len, o->mtu), -EINVAL;
	return 0;
}

/* Everything a bench process holds; one per process, on main's stack. */
struct bench_ctx {
	struct bench_opts opts;
	struct rte_mempool *tx_pool, *hdr_pool, *whole_pool;
	struct dt_devmem_region *region;
	void *alias;
	unsigned int tx_lcore;
	bool cuda;                      /* the payload GPU is a gpu_cuda device */
	struct bench_verifier *ver;     /* with --verify */
	uint8_t *ceil_src;              /* ceiling's host chunks */
	size_t ceil_stride;
	struct bench_gpu_reg reg;       /* host memory registered with a CUDA GPU */
	struct bench_setup setup;
	char gpu_name[RTE_DEV_NAME_MAX_LEN];
};

static uint64_t
xstat_sum(uint16_t port, const char *suffix)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *vals;
	size_t sl = strlen(suffix);
	uint64_t sum = 0;
	int n, i;

	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return 0;
	names = calloc(n, sizeof(*names));
	vals = calloc(n, sizeof(*vals));
	if (names != NULL && vals != NULL &&
			rte_eth_xstats_get_names(port, names, n) == n &&
			rte_eth_xstats_get(port, vals, n) == n) {
		for (i = 0; i < n; i++) {
			size_t l = strlen(names[i].name);

			if (strncmp(names[i].name, "rx_q", 4) == 0 && l >= sl &&
					strcmp(names[i].name + l - sl, suffix) == 0)
				sum += vals[i].value;
		}
	}
	free(names);
	free(vals);
	return sum;
}

/*
 * The ceiling's source: CEIL_CHUNKS payload-sized chunks of the pattern in
 * hugepage memory, spaced like the region's targets so that no two
 * neighbours merge into one copy. Chunk j holds stream offsets j * plen on.
 */
static int
create_ceiling_source(struct bench_ctx *ctx)
{
	const struct bench_opts *o = &ctx->opts;
	uint32_t plen = bench_payload_len(o), j, i;

	ctx->ceil_stride = RTE_ALIGN_CEIL(plen, RTE_CACHE_LINE_SIZE) +
		RTE_CACHE_LINE_SIZE;
	ctx->ceil_src = rte_malloc_socket("bench_ceil_src",
		ctx->ceil_stride * CEIL_CHUNKS, 4096,
		rte_eth_dev_socket_id(o->rx_port));
	if (ctx->ceil_src == NULL) {
		BLOG(ERR, "cannot allocate %zu bytes of hugepage memory for the ceiling's source",
			ctx->ceil_stride * CEIL_CHUNKS);
		return -ENOMEM;
	}
	for (j = 0; j < CEIL_CHUNKS; j++)
		for (i = 0; i < plen; i++)
			ctx->ceil_src[j * ctx->ceil_stride + i] =
				dt_pattern_byte(j * plen + i);
	return 0;
}

/*
 * --verify checks device bytes through the region's CPU alias where the
 * device has one (gpu_sim; a host region is its own alias) and with a
 * kernel on the GPU where it does not (gpu_cuda: no GDRCopy mapping).
 */
static int
create_verifier(struct bench_ctx *ctx)
{
	const struct bench_opts *o = &ctx->opts;
	struct bench_verifier *v;

	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	v->region_base = (uintptr_t)dt_devmem_region_base(ctx->region);
	v->gpu_id = o->payload_host ? RTE_GPU_ID_NONE : o->gpu_id;
	ctx->ver = v;
	if (ctx->cuda) {
		v->check = bench_verify_cuda;
		ctx->setup.verify_on = "gpu";
		return 0;
	}
	ctx->alias = dt_devmem_region_cpu_map(ctx->region);
	if (ctx->alias == NULL) {
		BLOG(ERR, "--verify needs a CPU mapping of the payload region (or a gpu_cuda device, checked by a kernel): %s",
			rte_strerror(rte_errno));
		return -ENOTSUP;
	}
	v->alias = ctx->alias;
	v->check = bench_verify_cpu;
	ctx->setup.verify_on = "cpu";
	return 0;
}

static int
create_pools(struct bench_ctx *ctx)
{
	const struct bench_opts *o = &ctx->opts;
	uint16_t whole_room = RTE_MIN(o->mtu + RTE_ETHER_HDR_LEN, RTE_MBUF_DEFAULT_DATAROOM) +
		RTE_PKTMBUF_HEADROOM;
	uint16_t tx_room = o->frame_len + RTE_PKTMBUF_HEADROOM;
	int socket = rte_eth_dev_socket_id(o->rx_port);
	struct dt_devmem_region_conf rc = {
		.name = "bench_payload",
		.gpu_id = o->payload_host ? RTE_GPU_ID_NONE : o->gpu_id,
		.port_id = o->rx_port,
		.nb_bufs = NB_MBUFS,
		.buf_size = 2048,
		.cache_size = 256,
		.socket_id = socket,
	};
	int rc_;

	ctx->tx_pool = rte_pktmbuf_pool_create("bench_tx", BENCH_TX_FRAMES + 1024,
		256, 0, tx_room, socket);
	ctx->hdr_pool = rte_pktmbuf_pool_create("bench_hdr", NB_MBUFS, 256, 0,
		HDR_ROOM + RTE_PKTMBUF_HEADROOM, socket);
	ctx->whole_pool = rte_pktmbuf_pool_create("bench_whole", NB_MBUFS, 256, 0,
		whole_room, socket);
	if (ctx->tx_pool == NULL || ctx->hdr_pool == NULL || ctx->whole_pool == NULL) {
		BLOG(ERR, "cannot create host mbuf pools: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc_ = dt_devmem_region_create(&rc, &ctx->region);
	if (rc_ != 0) {
		BLOG(ERR, "cannot create the payload region in %s memory: %s",
			o->payload_host ? "host" : "device", rte_strerror(-rc_));
		return rc_;
	}
	ctx->setup.engine = dt_devmem_region_engine(ctx->region)->ops->name;
	rc_ = create_ceiling_source(ctx);
	if (rc_ != 0)
		return rc_;
	if (ctx->cuda) {
		/* Host sources of CUDA copies: the wire (RX split), whole-frame mbufs (bounce), the ceiling's chunks. */
		ctx->reg.pool[0] = rte_pmd_hsplit_wire_pool(o->tx_port);
		ctx->reg.pool[1] = o->rx_port != o->tx_port ?
			rte_pmd_hsplit_wire_pool(o->rx_port) : NULL;
		ctx->reg.pool[2] = ctx->whole_pool;
		ctx->reg.buf = ctx->ceil_src;
		ctx->reg.buf_len = ctx->ceil_stride * CEIL_CHUNKS;
		ctx->setup.host_registered = bench_gpu_register(o->gpu_id, &ctx->reg);
	}
	return o->verify ? create_verifier(ctx) : 0;
}

static int
start_ports(struct bench_ctx *ctx, enum bench_mode mode)
{
	const struct bench_opts *o = &ctx->opts;
	struct dt_dp_port_conf tx = {
		.nb_rxq = 1, .nb_txq = 1, .mtu = o->mtu,
		.hdr_pool = ctx->whole_pool,
	};
	struct dt_dp_port_conf rx = tx;
	char err[256];
	int rc;

	if (mode == BENCH_MODE_RAW_SPLIT) {
		rx.split = DT_DP_SPLIT_PROTO;
		rx.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
		rx.hdr_pool = ctx->hdr_pool;
		rx.pay_pool = dt_devmem_region_pool(ctx->region);
	}
	rc = dt_dp_port_start(o->rx_port, &rx, err, sizeof(err));
	if (rc == 0 && o->tx_port != o->rx_port)
		rc = dt_dp_port_start(o->tx_port, &tx, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "devtcp-bench: %s\n", err);
	return rc;
}

static void
stop_ports(const struct bench_opts *o)
{
	dt_dp_port_stop(o->tx_port);
	if (o->tx_port != o->rx_port)
		dt_dp_port_stop(o->rx_port);
}

/* Receive for one mode until @p deadline (or --frames). */
static void
poll_mode(struct bench_run *run, enum bench_mode mode, uint64_t deadline)
{
	if (mode == BENCH_MODE_BOUNCE)
		bench_bounce_poll(run, deadline);
	else if (mode == BENCH_MODE_CEILING)
		bench_ceiling_poll(run, deadline);
	else
		bench_rx_poll(run, deadline);
}

/*
 * Receive what is still on the wire so the next run starts clean; what it
 * receives counts in this run, handled as the mode handles every frame.
 */
static void
drain(struct bench_run *run, enum bench_mode mode)
{
	uint64_t hz = rte_get_tsc_hz();

	poll_mode(run, mode, rte_rdtsc() + hz / 20);
}

/* The copy modes' own channel on the region's engine. */
static int
open_channel(struct bench_run *run)
{
	run->ch = dt_copy_chan_open(run->engine);
	if (run->ch == NULL) {
		fprintf(stderr, "devtcp-bench: cannot open a channel on copy engine %s: %s\n",
			run->engine->ops->name, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static void
close_channel(struct bench_run *run)
{
	run->res.copy_bytes = run->ch->stats.bytes;
	dt_copy_chan_close(run->ch);
	run->ch = NULL;
}

/* The ceiling: no ports, no sender; the copy engine alone. */
static int
run_ceiling(struct bench_ctx *ctx, struct bench_run *run)
{
	const struct bench_opts *o = &ctx->opts;
	uint64_t hz = rte_get_tsc_hz(), start, end, next;
	int rc;

	rc = open_channel(run);
	if (rc != 0)
		return rc;
	rc = bench_ceiling_start(run);
	if (rc != 0) {
		close_channel(run);
		return rc;
	}
	start = rte_rdtsc();
	end = start + (uint64_t)(o->duration * hz);
	for (next = start + hz; !bench_quit && !run->failed; next += hz) {
		bench_ceiling_poll(run, RTE_MIN(next, end));
		if (!o->quiet)
			bench_progress(&run->res, (double)(rte_rdtsc() - start) / hz);
		if (rte_rdtsc() >= end ||
				(o->frames != 0 && run->res.rx_frames >= o->frames))
			break;
	}
	bench_ceiling_finish(run);
	run->res.seconds = (double)(rte_rdtsc() - start) / hz;
	close_channel(run);
	return 0;
}

static int
run_mode(struct bench_ctx *ctx, struct bench_run *run, enum bench_mode mode)
{
	const struct bench_opts *o = &ctx->opts;
	struct rte_eth_stats st;
	uint64_t hz = rte_get_tsc_hz(), start, end, next;
	int rc;

	memset(&run->res, 0, sizeof(run->res));
	run->res.mode = mode;
	run->res.tsc_hz = hz;
	run->stop = false;
	run->failed = false;
	run->bounce_off = 0;
	if (mode == BENCH_MODE_CEILING)
		return run_ceiling(ctx, run);

	rc = start_ports(ctx, mode);
	if (rc != 0)
		return rc;
	if (mode == BENCH_MODE_BOUNCE) {
		rc = open_channel(run);
		if (rc != 0) {
			stop_ports(o);
			return rc;
		}
	}
	rte_eth_stats_reset(o->rx_port);
	rte_eth_xstats_reset(o->rx_port);

	rc = rte_eal_remote_launch(bench_tx_loop, run, ctx->tx_lcore);
	if (rc != 0) {
		if (run->ch != NULL)
			close_channel(run);
		stop_ports(o);
		return rc;
	}
	start = rte_rdtsc();
	end = start + (uint64_t)(o->duration * hz);
	for (next = start + hz; !bench_quit && !run->failed; next += hz) {
		poll_mode(run, mode, RTE_MIN(next, end));
		if (!o->quiet)
			bench_progress(&run->res, (double)(rte_rdtsc() - start) / hz);
		if (rte_rdtsc() >= end ||
				(o->frames != 0 && run->res.rx_frames >= o->frames))
			break;
	}
	run->res.seconds = (double)(rte_rdtsc() - start) / hz;
	run->stop = true;
	rte_eal_wait_lcore(ctx->tx_lcore);
	drain(run, mode);

	/* The NIC's copies (split) or the bench's own (bounce). */
	if (run->ch != NULL)
		close_channel(run);
	else
		run->res.copy_bytes = xstat_sum(o->rx_port, "_copy_bytes");
	if (rte_eth_stats_get(o->rx_port, &st) == 0)
		run->res.missed = st.imissed + st.rx_nombuf;
	stop_ports(o);
	return 0;
}

static int
find_ports_and_gpu(struct bench_ctx *ctx)
{
	struct bench_opts *o = &ctx->opts;

	if (rte_eth_dev_count_avail() < 2) {
		fprintf(stderr, "devtcp-bench: needs two ports (found %u); e.g. "
			"--vdev=net_hsplit0,wire=w --vdev=net_hsplit1,wire=w\n",
			rte_eth_dev_count_avail());
		return -ENODEV;
	}
	o->tx_port = rte_eth_find_next(0);
	o->rx_port = rte_eth_find_next(o->tx_port + 1);
	ctx->setup.gpu_name = "host";
	ctx->setup.verify_on = "off";
	if (!o->payload_host) {
		struct rte_gpu_info info;

		o->gpu_id = rte_gpu_find_next(0, RTE_GPU_ID_ANY);
		if (o->gpu_id < 0) {
			fprintf(stderr, "devtcp-bench: no gpudev device for the payload "
				"(add --vdev=gpu_sim0,size=256M or --vdev=gpu_cuda0, "
				"or --payload-mem host)\n");
			return -ENODEV;
		}
		if (rte_gpu_info_get(o->gpu_id, &info) == 0 && info.name != NULL)
			snprintf(ctx->gpu_name, sizeof(ctx->gpu_name), "%s",
				info.name);
		ctx->setup.gpu_name = ctx->gpu_name;
		ctx->cuda = bench_gpu_is_cuda(o->gpu_id);
	}
	ctx->tx_lcore = rte_get_next_lcore(-1, 1, 0);
	if (ctx->tx_lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "devtcp-bench: needs two lcores (e.g. -l 0-1): "
			"one receives, one sends\n");
		return -EINVAL;
	}
	return 0;
}

static void
cleanup(struct bench_ctx *ctx)
{
	/* Before the pools go, and before EAL cleanup closes the ports and the GPU. */
	if (ctx->cuda)
		bench_gpu_unregister(ctx->opts.gpu_id, &ctx->reg);
	rte_free(ctx->ceil_src);
	free(ctx->ver);
	if (ctx->alias != NULL)
		dt_devmem_region_cpu_unmap(ctx->region);
	if (ctx->region != NULL)
		dt_devmem_region_destroy(ctx->region);
	rte_mempool_free(ctx->whole_pool);
	rte_mempool_free(ctx->hdr_pool);
	rte_mempool_free(ctx->tx_pool);
}

int
main(int argc, char **argv)
{
	struct bench_ctx ctx = {
		.opts = { .mode = BENCH_MODE_RAW_SPLIT, .duration = 3,
			.frame_len = 1514 },
	};
	struct bench_result res[BENCH_MODE_MAX];
	struct bench_run run = { .opts = &ctx.opts };
	int n = 0, rc, i;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "devtcp-bench: EAL init failed: %s (try --help after --)\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= rc;
	argv += rc;
	argv[0] = (char *)"devtcp-bench";
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = parse_args(argc, argv, &ctx.opts);
	if (rc == 0)
		rc = find_ports_and_gpu(&ctx);
	if (rc == 0)
		rc = create_pools(&ctx);
	if (rc == 0) {
		run.tx_pool = ctx.tx_pool;
		run.region_base = (uintptr_t)dt_devmem_region_base(ctx.region);
		run.region_len = dt_devmem_region_len(ctx.region);
		run.engine = dt_devmem_region_engine(ctx.region);
		run.ver = ctx.ver;
		if (run.ver != NULL)
			run.ver->res = &run.res;
		run.ceil_src = ctx.ceil_src;
		run.ceil_stride = ctx.ceil_stride;
		run.ceil_chunks = CEIL_CHUNKS;
		rc = bench_build_frames(&run);
	}
	for (i = 0; rc == 0 && i < BENCH_MODE_MAX && !bench_quit; i++) {
		enum bench_mode m = ctx.opts.compare ? (enum bench_mode)i : ctx.opts.mode;

		rc = run_mode(&ctx, &run, m);
		if (rc == 0)
			res[n++] = run.res;
		if (!ctx.opts.compare)
			break;
	}
	if (n > 0) {
		bench_print_table(res, n);
		if (ctx.opts.json_path != NULL &&
				bench_write_json(ctx.opts.json_path, &ctx.opts,
					&ctx.setup, res, n) != 0) {
			fprintf(stderr, "devtcp-bench: cannot write %s\n",
				ctx.opts.json_path);
			rc = -EIO;
		}
		for (i = 0; i < n; i++)
			if (res[i].verify_errors != 0 || res[i].copy_errors != 0)
				rc = -EIO;
	}
	bench_free_frames(&run);
	cleanup(&ctx);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
