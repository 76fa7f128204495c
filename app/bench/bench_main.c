/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench: L2 loopback benchmark (see bench.h).
 *
 * usage: devtcp-bench [EAL args] -- [options]; --help lists the options.
 * The wire is whatever the two ports are: the software NIC's loopback wire
 * (--vdev=net_hsplit0,wire=w --vdev=net_hsplit1,wire=w) or two cabled ports.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dt_app_eal.h"
#include "bench.h"
#include "dt_devmem.h"
#include "rte_pmd_hsplit.h"

RTE_LOG_REGISTER(bench_logtype, devtcp.bench, INFO);
#define BLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, bench_logtype, "bench: " fmt "\n", ##__VA_ARGS__)

#define NB_MBUFS 16384
#define HDR_ROOM 256
#define CEIL_CHUNKS 1024       /* distinct source chunks of the ceiling */
#define LAND_BUFS 8192         /* landing region of copied HOST chunks: 16 MiB */

/* The signal (SIGINT/SIGTERM) that stops the runs: the only state a signal handler may touch. */
static volatile sig_atomic_t bench_quit;

static void
on_signal(int sig)
{
	bench_quit = sig;
}

/*
 * --rate before EAL sees its arguments: append rate= to every net_hsplit
 * vdev that has none, so the loopback wire is paced to the rate the run
 * reports against. Returns a new argv (the caller keeps it until EAL is
 * cleaned up, then rate_argv_free()), or NULL when nothing changes. The
 * strings it allocates are also listed after the argv's NULL: EAL's getopt
 * may permute the argv itself.
 */
static char **
rate_to_devargs(int argc, char **argv, int *new_argc)
{
	const char *rate = NULL;
	char **nv;
	int i, dd = argc;
	bool vdev_next = false;
	int n_new = 0;

	for (i = 1; i < argc; i++) {
		if (dd == argc && strcmp(argv[i], "--") == 0) {
			dd = i;
			continue;
		}
		if (dd == argc)
			continue;
		if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc)
			rate = argv[i + 1];
		else if (strncmp(argv[i], "--rate=", 7) == 0)
			rate = argv[i] + 7;
	}
	if (rate == NULL)
		return NULL;
	nv = calloc(2 * (size_t)argc + 2, sizeof(*nv));
	if (nv == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *dev = NULL;

		nv[i] = argv[i];
		if (i >= dd)
			continue;
		if (vdev_next)
			dev = a;
		else if (strncmp(a, "--vdev=", 7) == 0)
			dev = a + 7;
		vdev_next = strcmp(a, "--vdev") == 0;
		if (dev == NULL || strncmp(dev, RTE_PMD_HSPLIT_DRIVER_NAME,
				strlen(RTE_PMD_HSPLIT_DRIVER_NAME)) != 0 ||
				strstr(dev, "rate=") != NULL)
			continue;
		if (asprintf(&nv[i], "%s,rate=%s", a, rate) < 0) {
			nv[i] = argv[i];
			continue;
		}
		nv[argc + 1 + n_new++] = nv[i];
	}
	*new_argc = argc;
	return nv;
}

static void
rate_argv_free(char **nv, int argc)
{
	int i;

	if (nv == NULL)
		return;
	for (i = argc + 1; nv[i] != NULL; i++)
		free(nv[i]);
	free(nv);
}

/* The rate= devarg of a net_hsplit port (Gb/s), or 0. */
static double
port_devarg_rate(uint16_t port)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	const char *p;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL)
		return 0;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return 0;
	for (p = da->args; (p = strstr(p, "rate=")) != NULL; p += 5)
		if (p == da->args || p[-1] == ',')
			return strtod(p + 5, NULL);
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
	struct bench_out out;           /* where --json goes, claimed before EAL */
	char gpu_name[RTE_DEV_NAME_MAX_LEN];
	/* What the modes run with; the TCP modes' own below. */
	struct bench_env env;
	struct rte_mempool *c_pool, *c_shell, *s_shell;
	struct dt_devmem_region *land, *tx_region;
	void *land_alias;
	uint8_t *tx_host;
};

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
		bench_place_pool_socket(o->rx_port,
			o->payload_host ? RTE_GPU_ID_NONE : o->gpu_id));
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
	int socket = bench_place_pool_socket(o->rx_port,
		o->payload_host ? RTE_GPU_ID_NONE : o->gpu_id);
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
		/* HOST chunks the TCP modes copy: header buffers (length split). */
		ctx->reg.pool[3] = ctx->hdr_pool;
		ctx->reg.buf = ctx->ceil_src;
		ctx->reg.buf_len = ctx->ceil_stride * CEIL_CHUNKS;
		ctx->setup.host_registered = bench_gpu_register(o->gpu_id, &ctx->reg);
	}
	return o->verify ? create_verifier(ctx) : 0;
}

/* Whether a mode of the run sends raw frames from a second lcore. */
static bool
needs_sender(const struct bench_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nb_modes; i++)
		if (bench_mode_flags(o->modes[i]) & BENCH_MODE_F_SENDER)
			return true;
	return false;
}

/*
 * What the TCP modes add: the client's pools, the send pattern (host
 * memory, and with --tx-mem device a region filled through its copy
 * engine: the CPU never writes device memory), the landing region that
 * HOST chunks are copied into.
 */
static int
create_tcp(struct bench_ctx *ctx)
{
	const struct bench_opts *o = &ctx->opts;
	struct bench_tcp_env *env = &ctx->env.tcp;
	int socket = bench_place_pool_socket(o->rx_port,
		o->payload_host ? RTE_GPU_ID_NONE : o->gpu_id);
	struct dt_devmem_region_conf rc = {
		.name = "bench_land",
		.gpu_id = o->payload_host ? RTE_GPU_ID_NONE : o->gpu_id,
		.port_id = o->rx_port,
		.nb_bufs = LAND_BUFS,
		.buf_size = 2048,
		.cache_size = 0,
		.socket_id = socket,
	};
	struct dt_copy_chan *ch;
	struct dt_copy_op op;
	uint64_t ticket = 0;
	unsigned int lc;
	uint32_t i;
	int r;

	ctx->c_pool = rte_pktmbuf_pool_create("bench_cli", NB_MBUFS, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	ctx->c_shell = rte_pktmbuf_pool_create("bench_cshell", NB_MBUFS, 256, 0,
		0, socket);
	ctx->s_shell = rte_pktmbuf_pool_create("bench_sshell", 4096, 256, 0, 0,
		socket);
	ctx->tx_host = rte_malloc_socket("bench_pattern", BENCH_TCP_PAT_LEN, 4096,
		socket);
	if (ctx->c_pool == NULL || ctx->c_shell == NULL || ctx->s_shell == NULL ||
			ctx->tx_host == NULL) {
		BLOG(ERR, "cannot create the TCP modes' host pools: %s",
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (i = 0; i < BENCH_TCP_PAT_LEN; i++)
		ctx->tx_host[i] = dt_pattern_byte(i);
	r = dt_devmem_region_create(&rc, &ctx->land);
	if (r != 0) {
		BLOG(ERR, "cannot create the landing region: %s", rte_strerror(-r));
		return r;
	}
	if (o->tx_device) {
		rc.name = "bench_send";
		rc.port_id = o->tx_port;
		rc.nb_bufs = BENCH_TCP_PAT_LEN / rc.buf_size + 1;
		r = dt_devmem_region_create(&rc, &ctx->tx_region);
		if (r != 0) {
			BLOG(ERR, "cannot create the send region: %s", rte_strerror(-r));
			return r;
		}
		ch = dt_copy_chan_open(dt_devmem_region_engine(ctx->tx_region));
		if (ch == NULL)
			return -rte_errno;
		op.dst = dt_devmem_region_base(ctx->tx_region);
		op.src = ctx->tx_host;
		op.len = BENCH_TCP_PAT_LEN;
		r = dt_copy_submit(ch, &op, 1, &ticket);
		if (r == 1)
			dt_copy_wait(ch, ticket);
		dt_copy_chan_close(ch);
		if (r != 1) {
			BLOG(ERR, "cannot fill the send region: %s",
				rte_strerror(r < 0 ? -r : EIO));
			return r < 0 ? r : -EIO;
		}
	}
	if (o->verify && !ctx->cuda) {
		ctx->land_alias = dt_devmem_region_cpu_map(ctx->land);
		if (ctx->land_alias == NULL)
			return -rte_errno;
	}
	env->opts = o;
	env->cport = o->tx_port;
	env->sport = o->rx_port;
	env->lcores[env->nb_lcores++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(lc)
		env->lcores[env->nb_lcores++] = lc;
	env->c_pool = ctx->c_pool;
	env->c_shell = ctx->c_shell;
	env->s_shell = ctx->s_shell;
	env->s_hdr = ctx->hdr_pool;
	env->s_whole = ctx->whole_pool;
	env->rx_region = ctx->region;
	env->land_region = ctx->land;
	env->rx_alias = ctx->alias;
	env->land_alias = ctx->land_alias;
	env->check = ctx->cuda ? bench_verify_cuda : bench_verify_cpu;
	env->tx_host = ctx->tx_host;
	env->tx_host_iova = rte_malloc_virt2iova(ctx->tx_host);
	env->tx_region = ctx->tx_region;
	env->quit = &bench_quit;
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
	if (ctx->tx_lcore >= RTE_MAX_LCORE && needs_sender(o)) {
		fprintf(stderr, "devtcp-bench: the raw-frame modes need two lcores (e.g. -l 0-1): "
			"one receives, one sends\n");
		return -EINVAL;
	}
	/* The configured line rate: --rate, else the sender's rate= devarg. */
	if (!o->rate_set)
		o->rate_gbps = port_devarg_rate(o->tx_port);
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
	if (ctx->land_alias != NULL)
		dt_devmem_region_cpu_unmap(ctx->land);
	dt_devmem_region_destroy(ctx->land);
	dt_devmem_region_destroy(ctx->tx_region);
	rte_free(ctx->tx_host);
	rte_mempool_free(ctx->s_shell);
	rte_mempool_free(ctx->c_shell);
	rte_mempool_free(ctx->c_pool);
	if (ctx->alias != NULL)
		dt_devmem_region_cpu_unmap(ctx->region);
	if (ctx->region != NULL)
		dt_devmem_region_destroy(ctx->region);
	rte_mempool_free(ctx->whole_pool);
	rte_mempool_free(ctx->hdr_pool);
	rte_mempool_free(ctx->tx_pool);
}

static const struct bench_mode_ops *const mode_ops[BENCH_MODE_MAX] = {
	[BENCH_MODE_SPLIT] = &bench_mode_split,
	[BENCH_MODE_COPY] = &bench_mode_copy,
	[BENCH_MODE_RAW_SPLIT] = &bench_mode_raw_split,
	[BENCH_MODE_RAW] = &bench_mode_raw,
	[BENCH_MODE_BOUNCE] = &bench_mode_bounce,
	[BENCH_MODE_CEILING] = &bench_mode_ceiling,
	[BENCH_MODE_CPS] = &bench_mode_cps,
	[BENCH_MODE_HOLD] = &bench_mode_hold,
};

/* Whether a run's figures are trustworthy; says why not on stderr. */
static bool
result_ok(const struct bench_opts *o, const struct bench_result *r)
{
	const struct bench_mode_ops *ops = mode_ops[r->mode];
	bool ok = true;

	if (r->verify_errors != 0 || r->copy_errors != 0) {
		fprintf(stderr, "devtcp-bench: %s: %" PRIu64 " verification errors, %"
			PRIu64 " copy errors\n", bench_mode_name(r->mode),
			r->verify_errors, r->copy_errors);
		ok = false;
	}
	if (ops->ok != NULL && !ops->ok(o, r))
		ok = false;
	return ok;
}

/* One run of mode @p m at @p server_stacks into @p r. */
static int
run_one(struct bench_ctx *ctx, enum bench_mode m, uint16_t server_stacks,
	struct bench_result *r)
{
	memset(r, 0, sizeof(*r));
	r->mode = m;
	r->tsc_hz = rte_get_tsc_hz();
	return mode_ops[m]->run(&ctx->env, m, server_stacks, r);
}

/* --stacks needs its lcores before anything is set up. */
static int
check_lcores(const struct bench_opts *o)
{
	char why[320];
	unsigned int i;

	for (i = 0; i < o->nb_stacks; i++)
		if (bench_tcp_stacks_check(o->stacks[i], rte_lcore_count(), why,
				sizeof(why)) != NULL) {
			fprintf(stderr, "devtcp-bench: --stacks: %s\n", why);
			return -EINVAL;
		}
	return 0;
}

static void
place_report(const struct bench_ctx *ctx)
{
	const struct bench_opts *o = &ctx->opts;
	struct rte_mempool *const pools[] = { ctx->tx_pool, ctx->hdr_pool,
		ctx->whole_pool, ctx->c_pool, ctx->c_shell, ctx->s_shell,
		ctx->region != NULL ? dt_devmem_region_pool(ctx->region) : NULL };
	unsigned int lcores[RTE_MAX_LCORE], nb = 0, lc;
	struct bench_place_in in = {
		.tx_port = o->tx_port, .rx_port = o->rx_port,
		.gpu_id = o->payload_host ? RTE_GPU_ID_NONE : o->gpu_id,
		.lcores = lcores, .pools = pools, .nb_pools = RTE_DIM(pools),
	};

	lcores[nb++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(lc)
		lcores[nb++] = lc;
	in.nb_lcores = nb;
	bench_place_report(&in);
}

/* The JSON (a temporary file when only --plot asks for it) and the plot. */
static int
write_outputs(struct bench_ctx *ctx, const struct bench_result *res, int n)
{
	const struct bench_opts *o = &ctx->opts;
	char tmp[] = "/tmp/devtcp-bench-XXXXXX.json";
	const char *path = ctx->out.path;
	int rc = 0, fd = ctx->out.fd;

	if (fd < 0 && o->plot_path != NULL) {
		fd = mkstemps(tmp, 5);
		if (fd < 0) {
			fprintf(stderr, "devtcp-bench: --plot: cannot create %s: %s\n",
				tmp, strerror(errno));
			return -errno;
		}
		path = tmp;
	}
	if (fd < 0)
		return 0;
	rc = bench_write_json(fd, o, &ctx->setup, res, n);
	if (rc != 0)
		fprintf(stderr, "devtcp-bench: cannot write %s: %s\n", path,
			strerror(-rc));
	else if (fd == ctx->out.fd)
		ctx->out.written = true;
	/* A plot of what an interrupted run measured would look complete. */
	if (rc == 0 && o->plot_path != NULL && ctx->setup.signal == 0)
		rc = bench_plot(path, o->plot_path);
	else if (rc == 0 && o->plot_path != NULL)
		fprintf(stderr, "devtcp-bench: --plot: no plot of partial results\n");
	if (path == tmp) {
		close(fd);
		unlink(tmp);
	}
	return rc;
}

/* The start of the program, as the JSON's utc_time. */
static void
utc_now(char *buf, size_t len)
{
	struct tm tm;
	time_t now = time(NULL);

	if (gmtime_r(&now, &tm) == NULL ||
			strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "unknown");
}

/* What a signal left: a partial JSON, said so, and the shell's 128 + signal. */
static int
interrupted_exit(int sig, int n, int planned)
{
	fflush(stdout);
	fprintf(stderr, "devtcp-bench: interrupted by %s: results are partial (%d of %d runs%s)\n",
		sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal",
		n, planned, n > 0 ? ", the last one cut short" : "");
	return 128 + sig;
}

int
main(int argc, char **argv)
{
	struct bench_ctx ctx = {
		.opts = { .modes = { BENCH_MODE_SPLIT }, .nb_modes = 1,
			.duration = 3, .conns = BENCH_DEFAULT_CONNS,
			.msg_size = BENCH_DEFAULT_MSG },
	};
	struct bench_result *res = NULL;
	struct bench_run run = { .opts = &ctx.opts };
	char **rate_argv, **argv_given;
	int n = 0, rc, i, rate_argc = 0, argc0, planned;
	unsigned int k, si;

	/* The command line as given, for the JSON (EAL's getopt reorders argv). */
	argv_given = calloc(argc + 1, sizeof(*argv_given));
	if (argv_given == NULL)
		return 1;
	memcpy(argv_given, argv, argc * sizeof(*argv));
	ctx.setup.argv = argv_given;
	ctx.setup.argc = argc;
	utc_now(ctx.setup.utc_time, sizeof(ctx.setup.utc_time));
	/* --rate paces the software NIC: it must reach the vdevs' devargs. */
	rate_argv = rate_to_devargs(argc, argv, &rate_argc);
	argc0 = argc;
	if (rate_argv != NULL) {
		argc = rate_argc;
		argv = rate_argv;
	}
	dt_app_eal_help(argc, argv, bench_usage);
	/* Options and a --json that cannot be written: refused before EAL. */
	if (bench_opts_parse(argc, argv, &ctx.opts) != 0 ||
			bench_out_claim(argc, argv, &ctx.out) != 0) {
		rate_argv_free(rate_argv, argc0);
		free(argv_given);
		return 2;
	}
	rc = dt_app_eal_init(argc, argv, "devtcp-bench");
	if (rc < 0) {
		bench_out_release(&ctx.out);
		rate_argv_free(rate_argv, argc0);
		free(argv_given);
		return 1;
	}
	argc -= rc;
	argv += rc;
	argv[0] = (char *)"devtcp-bench";
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = check_lcores(&ctx.opts);
	if (rc == 0) {
		/* A run per mode, and per stack count for the TCP modes. */
		res = calloc((size_t)ctx.opts.nb_modes *
			RTE_MAX(ctx.opts.nb_stacks, 1u), sizeof(*res));
		if (res == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = find_ports_and_gpu(&ctx);
	if (rc == 0)
		rc = create_pools(&ctx);
	if (rc == 0 && bench_has_tcp_mode(&ctx.opts))
		rc = create_tcp(&ctx);
	if (rc == 0)
		place_report(&ctx);
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
		ctx.env.raw = (struct bench_raw_env){
			.opts = &ctx.opts, .run = &run,
			.hdr_pool = ctx.hdr_pool, .whole_pool = ctx.whole_pool,
			.region = ctx.region, .tx_lcore = ctx.tx_lcore,
			.quit = &bench_quit,
		};
		rc = bench_build_frames(&run);
	}
	/* --stacks: every mode at each stack count, smallest count first. */
	for (si = 0; rc == 0 && si < RTE_MAX(ctx.opts.nb_stacks, 1u); si++)
		for (k = 0; rc == 0 && k < ctx.opts.nb_modes && !bench_quit; k++) {
			enum bench_mode m = ctx.opts.modes[k];

			/* The raw-frame modes have no stacks. */
			rc = run_one(&ctx, m, bench_mode_is_tcp(m) &&
				ctx.opts.nb_stacks ? ctx.opts.stacks[si] : 0,
				&res[n]);
			if (rc != 0) {
				bench_samples_free(&res[n]);
				break;
			}
			/* The loop starts no run after a signal: it came during this one. */
			res[n++].interrupted = bench_quit != 0;
		}
	ctx.setup.signal = bench_quit;
	planned = (int)(ctx.opts.nb_modes * RTE_MAX(ctx.opts.nb_stacks, 1u));
	if (n > 0) {
		bench_set_line_rate(&ctx.opts, res, n);
		bench_print_table(res, n);
		bench_print_notes(&ctx.setup, res, n);
		if (ctx.opts.nb_stacks != 0)
			bench_print_scale(res, n);
		bench_print_conns(res, n);
	}
	if (n > 0 || (res != NULL && ctx.setup.signal != 0)) {
		if (write_outputs(&ctx, res, n) != 0)
			rc = -EIO;
		/* A run cut short has not delivered what was asked: no false alarm. */
		for (i = 0; i < n; i++)
			if (!res[i].interrupted && !result_ok(&ctx.opts, &res[i]))
				rc = -EIO;
	}
	for (i = 0; i < n; i++)
		bench_samples_free(&res[i]);
	free(res);
	bench_free_frames(&run);
	cleanup(&ctx);
	bench_out_release(&ctx.out);
	rte_eal_cleanup();
	rate_argv_free(rate_argv, argc0);
	free(argv_given);
	if (ctx.setup.signal != 0)
		return interrupted_exit(ctx.setup.signal, n, planned);
	return rc == 0 ? 0 : 1;
}
