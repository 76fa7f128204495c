/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of drivers/gpu/cuda: the gpu_cuda gpudev driver, dma-buf
 * export and the CUDA copy engine. Needs an NVIDIA GPU and driver; exits 77
 * (skipped) with the reason where libcuda or a GPU is missing.
 *
 * Environment: DT_CUDA_VDEV_ARGS, e.g. "device=1" or "pci=0000:19:00.0";
 * DT_CUDA_FAULT=memop|event runs only the forced-error case with that
 * completion (it loses the process's CUDA context, so it runs alone).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_malloc.h>

#include "dt_copy.h"
#include "dt_pattern.h"
#include "dt_test.h"
#include "rte_pmd_gpu_cuda.h"

#define VDEV_NAME "gpu_cuda_t0"
#define MiB (1024u * 1024u)

/* The device under test; set once in main() before any case runs. */
static int16_t gpu_id = -1;

/* ------------------------------------------------------------- helpers */

/* The pattern the driver's check kernel knows. */
static void
pattern_fill(uint8_t *b, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = rte_pmd_gpu_cuda_pattern_byte(i, seed);
}

/*
 * Check device bytes in place with the driver's kernel; also with a wrong
 * seed, so that a kernel that finds nothing wrong cannot pass. Skipped
 * (with a note) when the kernel is not available (built without nvcc).
 */
static void
device_check(const uint8_t *d, size_t len, uint32_t seed)
{
	uint64_t bad = 1;
	int ret = rte_pmd_gpu_cuda_pattern_check(gpu_id, d, len, seed, &bad);

	if (ret == -ENOTSUP) {
		printf("  device-side pattern check not available (see log): skipped\n");
		return;
	}
	DT_CHECK_EQ(ret, 0);
	DT_CHECK_EQ(bad, 0);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_pattern_check(gpu_id, d, len, seed + 1,
		&bad), 0);
	DT_CHECK(bad > len / 2);
}

/* Host memory registered with the GPU (what the copy engine expects). */
static void *
host_buf(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len) != 0)
		return NULL;
	memset(p, 0, len);
	if (rte_gpu_mem_register(gpu_id, len, p) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void
host_buf_free(void *p)
{
	if (p == NULL)
		return;
	DT_CHECK_EQ(rte_gpu_mem_unregister(gpu_id, p), 0);
	free(p);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Printable name of a copy mode. */
static const char *
mode_name(enum dt_copy_cuda_mode mode)
{
	switch (mode) {
	case DT_COPY_CUDA_MODE_AUTO:
		return "auto";
	case DT_COPY_CUDA_MODE_PER_COPY:
		return "per-copy";
	case DT_COPY_CUDA_MODE_BATCH:
		return "batch";
	case DT_COPY_CUDA_MODE_STAGED:
		return "staged";
	case DT_COPY_CUDA_MODE_STAGED_PER_COPY:
		return "staged-per-copy";
	}
	return "?";
}

static const char *
completion_name(uint32_t c)
{
	switch (c) {
	case DT_COPY_CUDA_COMPLETION_AUTO:
		return "auto";
	case DT_COPY_CUDA_COMPLETION_EVENT:
		return "event";
	case DT_COPY_CUDA_COMPLETION_MEMOP:
		return "memop";
	}
	return "?";
}

static const char *
stage_read_name(uint32_t r)
{
	return r == DT_COPY_CUDA_STAGE_READ_HOST ? "host" :
		r == DT_COPY_CUDA_STAGE_READ_DEVICE ? "device" : "?";
}

/* How a case sets up its engine. */
struct eng_cfg {
	enum dt_copy_cuda_mode mode;
	enum dt_copy_cuda_completion completion;
	enum dt_copy_cuda_stage_read stage_read;
	int fail_memop;     /* dt_copy_cuda_engine_test_fail_memop() */
};

static const struct eng_cfg cfg_default = {
	DT_COPY_CUDA_MODE_AUTO, DT_COPY_CUDA_COMPLETION_AUTO,
	DT_COPY_CUDA_STAGE_READ_HOST, 0
};

/* An engine over [d, +len) set up as @p cfg says; NULL on failure. */
static struct dt_copy_engine *
engine_make(void *d, size_t len, const struct eng_cfg *cfg)
{
	struct dt_copy_engine *ce = dt_copy_cuda_engine_create(gpu_id, d, len);

	if (ce == NULL)
		return NULL;
	if (dt_copy_cuda_engine_set_mode(ce, cfg->mode) != 0 ||
			dt_copy_cuda_engine_set_completion(ce,
				cfg->completion) != 0 ||
			dt_copy_cuda_engine_set_stage_read(ce,
				cfg->stage_read) != 0 ||
			(cfg->fail_memop &&
			 dt_copy_cuda_engine_test_fail_memop(ce) != 0)) {
		ce->ops->destroy(ce);
		return NULL;
	}
	return ce;
}

/*
 * What a channel of @p cfg must use for completion on this GPU (an H200
 * has 64-bit stream memory operations: a memop channel that fell back to
 * events is a failure, not a skip).
 */
static uint32_t
expected_completion(const struct eng_cfg *cfg)
{
	return cfg->completion == DT_COPY_CUDA_COMPLETION_EVENT ||
		cfg->fail_memop ? DT_COPY_CUDA_COMPLETION_EVENT :
		DT_COPY_CUDA_COMPLETION_MEMOP;
}

/*
 * Driver-call accounting of a channel that has completed everything it
 * was given (@p submits submit calls): the counters agree with the
 * completion it used, and the total is the sum of the kinds.
 */
static void
check_calls(const struct dt_copy_cuda_chan_stats *xs, uint64_t submits,
	const struct eng_cfg *cfg)
{
	DT_CHECK_EQ(xs->completion, expected_completion(cfg));
	DT_CHECK_EQ(xs->driver_calls, xs->batches + xs->calls_memcpy +
		xs->calls_launch + xs->calls_event_record +
		xs->calls_event_query + xs->calls_write_value +
		xs->calls_stream_query + xs->calls_ctx);
	DT_CHECK_EQ(xs->cuda_calls, xs->batches + xs->calls_memcpy +
		xs->calls_launch);
	DT_CHECK_EQ(xs->retired_memop + xs->retired_event + xs->retired_stream,
		submits);
	if (xs->completion == DT_COPY_CUDA_COMPLETION_MEMOP) {
		/* One write per submit, and no event anywhere. */
		DT_CHECK_EQ(xs->calls_write_value, submits);
		DT_CHECK_EQ(xs->calls_event_record, 0);
		DT_CHECK_EQ(xs->calls_event_query, 0);
		DT_CHECK_EQ(xs->retired_event, 0);
		DT_CHECK(xs->retired_memop > 0);
	} else {
		DT_CHECK_EQ(xs->calls_write_value, 0);
		DT_CHECK_EQ(xs->calls_event_record, submits);
		/* Every poll with submits outstanding asks at least one event. */
		DT_CHECK(xs->calls_event_query >= xs->polls_pending);
		DT_CHECK_EQ(xs->retired_memop, 0);
	}
}

/*
 * Whether the driver has its kernels (built with nvcc, GPU runs them): the
 * staged path needs them, and without them it must fall back, not fail.
 */
static int
have_kernels(void)
{
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, 4096, 0);
	uint64_t bad = 0;
	int ret;

	if (d == NULL)
		return 0;
	ret = rte_pmd_gpu_cuda_pattern_check(gpu_id, d, 4096, 0, &bad);
	rte_gpu_mem_free(gpu_id, d);
	return ret == 0;
}

/* Poll until @p ticket completed; 0 on success, -1 on timeout (10 s). */
static int
wait_ticket(struct dt_copy_chan *ch, uint64_t ticket)
{
	double deadline = now_s() + 10.0;
	uint64_t prev = 0, c;

	for (;;) {
		c = dt_copy_completed(ch);
		if (c < prev) /* completion must be monotonic */
			return -1;
		prev = c;
		if (c >= ticket)
			return 0;
		if (now_s() > deadline)
			return -1;
	}
}

/*
 * Submit @p n ops in batches of @p batch, retrying when the event ring is
 * full; returns the last ticket, or 0 on error.
 */
static uint64_t
submit_all(struct dt_copy_chan *ch, const struct dt_copy_op *ops, size_t n,
	uint16_t batch)
{
	uint64_t ticket = 0, prev = ch->next_ticket - 1;
	size_t done = 0;
	int q;

	while (done < n) {
		uint16_t k = (uint16_t)RTE_MIN((size_t)batch, n - done);

		q = dt_copy_submit(ch, &ops[done], k, &ticket);
		if (q < 0)
			return 0;
		if (q == 0) {
			dt_copy_completed(ch);
			continue;
		}
		/* Tickets are consecutive: one per copy queued. */
		if (ticket != prev + (uint64_t)q)
			return 0;
		prev = ticket;
		done += (size_t)q;
	}
	return ticket;
}

/* Ops moving [0, total) of @p src to @p dst in @p chunk pieces, permuted. */
static struct dt_copy_op *
make_ops(void *dst, const void *src, size_t total, uint32_t chunk,
	int scatter, size_t *n_out)
{
	size_t n = (total + chunk - 1) / chunk, i, k;
	struct dt_copy_op *ops = calloc(n, sizeof(*ops));

	if (ops == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		/* 7919 is prime and n is never a multiple of it here. */
		k = scatter ? (i * 7919) % n : i;
		ops[i].dst = (uint8_t *)dst + k * chunk;
		ops[i].src = (const uint8_t *)src + k * chunk;
		ops[i].len = (uint32_t)RTE_MIN((size_t)chunk, total - k * chunk);
	}
	*n_out = n;
	return ops;
}

/* ---------------------------------------------------------------- cases */

static void
test_info(void)
{
	struct rte_gpu_info info;

	DT_REQUIRE(rte_gpu_info_get(gpu_id, &info) == 0);
	printf("  %s: %u SMs, %zu MiB, page %zu, NUMA %d, context 0x%" PRIx64 "\n",
		info.name, info.processor_count, info.total_memory >> 20,
		info.page_size, info.numa_node, info.context);
	DT_CHECK(strcmp(info.name, VDEV_NAME) == 0);
	DT_CHECK(info.processor_count > 0);
	DT_CHECK(info.total_memory >= (size_t)1 << 30);
	DT_CHECK_EQ(info.page_size, 64 * 1024);
	DT_CHECK(info.context != 0);
	DT_CHECK(info.numa_node >= -1);
	DT_CHECK_EQ(info.parent, RTE_GPU_ID_NONE);
}

static void
test_alloc_contract(void)
{
	struct rte_gpu_info info;
	uint8_t *p, *q, *r;
	int local;

	DT_REQUIRE(rte_gpu_info_get(gpu_id, &info) == 0);
	p = rte_gpu_mem_alloc(gpu_id, MiB, 0);
	q = rte_gpu_mem_alloc(gpu_id, 3 * MiB + 5, 64 * 1024);
	r = rte_gpu_mem_alloc(gpu_id, 4096, 2 * MiB);
	DT_REQUIRE(p != NULL && q != NULL && r != NULL);
	DT_CHECK_EQ((uintptr_t)q % (64 * 1024), 0);
	DT_CHECK_EQ((uintptr_t)r % (2 * MiB), 0);
	/* Exact-pointer contract (as dpdk-test-gpudev checks it). */
	DT_CHECK(rte_gpu_mem_free(gpu_id, p + 0x700) < 0);
	DT_CHECK(rte_gpu_mem_free(gpu_id, &local) < 0);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, p), 0);
	DT_CHECK(rte_gpu_mem_free(gpu_id, p) < 0);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, q), 0);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, r), 0);
	/* More than the GPU has: refused, nothing leaks. */
	DT_CHECK(rte_gpu_mem_alloc(gpu_id, info.total_memory * 2, 0) == NULL);
}

static void
test_register_contract(void)
{
	enum { N_SMALL = 1100, SMALL = 16 * 1024 };
	uint8_t *buf = NULL, **small;
	int i, ok = 0;

	DT_REQUIRE(posix_memalign((void **)&buf, 4096, MiB) == 0);
	DT_CHECK_EQ(rte_gpu_mem_register(gpu_id, MiB, buf), 0);
	DT_CHECK(rte_gpu_mem_register(gpu_id, MiB, buf) < 0);
	DT_CHECK(rte_gpu_mem_register(gpu_id, 4096, buf + 4096) < 0);
	DT_CHECK(rte_gpu_mem_unregister(gpu_id, buf + 0x700) < 0);
	DT_CHECK_EQ(rte_gpu_mem_unregister(gpu_id, buf), 0);
	DT_CHECK(rte_gpu_mem_unregister(gpu_id, buf) < 0);
	free(buf);

	/*
	 * Many small neighbours sharing pages, as gpudev's comm list makes
	 * them (dpdk-test-gpudev registers 1026).
	 */
	small = calloc(N_SMALL, sizeof(*small));
	DT_REQUIRE(small != NULL);
	for (i = 0; i < N_SMALL; i++) {
		small[i] = rte_zmalloc(NULL, SMALL, 0);
		if (small[i] != NULL &&
				rte_gpu_mem_register(gpu_id, SMALL, small[i]) == 0)
			ok++;
	}
	DT_CHECK_EQ(ok, N_SMALL);
	for (i = 0; i < N_SMALL; i++) {
		if (small[i] != NULL)
			DT_CHECK_EQ(rte_gpu_mem_unregister(gpu_id, small[i]), 0);
		rte_free(small[i]);
	}
	free(small);
}

static void
test_cpu_map_wmb(void)
{
	uint8_t *p = rte_gpu_mem_alloc(gpu_id, MiB, 0);

	DT_REQUIRE(p != NULL);
	/* No GDRCopy: the CPU gets no mapping, and says so. */
	DT_CHECK(rte_gpu_mem_cpu_map(gpu_id, MiB, p) == NULL);
	DT_CHECK(rte_gpu_mem_cpu_unmap(gpu_id, p) < 0);
	/* Hopper orders GPUDirect writes natively, or can flush them. */
	DT_CHECK_EQ(rte_gpu_wmb(gpu_id), 0);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, p), 0);
}

static void
test_dmabuf(void)
{
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, 4 * MiB, 2 * MiB);
	struct stat st;
	int fd = -1, ret;
	int local;

	DT_REQUIRE(d != NULL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_export(99, d, 4096, &fd), -ENODEV);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_export(gpu_id, d + 100, 4096, &fd),
		-EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_export(gpu_id, d, 4097, &fd),
		-EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_export(gpu_id, d + 2 * MiB,
		4 * MiB, &fd), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_export(gpu_id, &local, 4096, &fd),
		-EINVAL);
	DT_CHECK_EQ(fd, -1);

	ret = rte_pmd_gpu_cuda_dmabuf_export(gpu_id, d + 2 * MiB, 2 * MiB, &fd);
	if (ret == -ENOTSUP) {
		printf("  dma-buf export not supported on this machine (see the log line above): export part skipped\n");
	} else {
		DT_CHECK_EQ(ret, 0);
		DT_CHECK(fd >= 0);
		if (fd >= 0) {
			DT_CHECK_EQ(fstat(fd, &st), 0);
			printf("  dma-buf fd %d, size %lld\n", fd,
				(long long)st.st_size);
			close(fd);
		}
	}
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

static void
test_engine_contract(void)
{
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, 4 * MiB, 0);
	struct dt_copy_engine *ce;
	int local;

	DT_REQUIRE(d != NULL);
	DT_CHECK(dt_copy_cuda_engine_create(99, d, MiB) == NULL);
	DT_CHECK_EQ(rte_errno, ENODEV);
	DT_CHECK(dt_copy_cuda_engine_create(gpu_id, d + MiB, 4 * MiB) == NULL);
	DT_CHECK_EQ(rte_errno, EINVAL);
	DT_CHECK(dt_copy_cuda_engine_create(gpu_id, &local, 64) == NULL);
	ce = dt_copy_cuda_engine_create(gpu_id, d + MiB, 2 * MiB);
	DT_REQUIRE(ce != NULL);
	DT_CHECK(ce->base == d + MiB && ce->len == 2 * MiB);
	DT_CHECK(strcmp(ce->ops->name, "cuda") == 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_mode(ce, 42), -EINVAL);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_mode(ce,
		DT_COPY_CUDA_MODE_PER_COPY), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_mode(ce, DT_COPY_CUDA_MODE_BATCH), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_mode(ce, DT_COPY_CUDA_MODE_STAGED), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_mode(ce,
		DT_COPY_CUDA_MODE_STAGED_PER_COPY), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_mode(ce, DT_COPY_CUDA_MODE_AUTO), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_stage_max(ce,
		DT_COPY_CUDA_STAGE_MAX_LIMIT + 1), -EINVAL);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_stage_max(ce, 0), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_stage_max(ce, 1460), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_stage_max(NULL, 1460), -EINVAL);
	ce->ops->destroy(ce);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/* Tickets, completion, partial submits and merging on one channel. */
static void
test_tickets(void)
{
	const size_t win = 8 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, win, 0);
	uint8_t *h = host_buf(win), *h2 = host_buf(4096);
	struct dt_copy_cuda_chan_stats xs0, xs;
	struct dt_copy_engine *ce = NULL;
	struct dt_copy_chan *ch = NULL;
	struct dt_copy_op ops[8];
	uint64_t t = 99, c, prev;
	int i;

	DT_REQUIRE(d != NULL && h != NULL && h2 != NULL);
	ce = dt_copy_cuda_engine_create(gpu_id, d, win);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);

	DT_CHECK_EQ(dt_copy_completed(ch), 0);
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 0, &t), 0);
	DT_CHECK_EQ(t, 0);
	/* Host to host is not a device copy. */
	ops[0] = (struct dt_copy_op){ h2, h, 64 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, &t), -EINVAL);
	DT_CHECK_EQ(ch->stats.errors, 1);
	/* Straddling the end of the window. */
	ops[0] = (struct dt_copy_op){ d + win - 10, h, 100 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, &t), -EFAULT);
	DT_CHECK_EQ(ch->stats.errors, 2);
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, NULL), -EFAULT);
	/* A valid prefix is queued, the bad op is left for the next call. */
	ops[0] = (struct dt_copy_op){ d, h, 100 };
	ops[1] = (struct dt_copy_op){ h2, d + 4096, 100 };
	ops[2] = (struct dt_copy_op){ h2, h, 100 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 3, &t), 2);
	DT_CHECK_EQ(t, 2);
	DT_CHECK_EQ(dt_copy_submit(ch, &ops[2], 1, &t), -EINVAL);
	DT_CHECK_EQ(t, 2);

	/* 8 contiguous copies become one. */
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs0) == 0);
	for (i = 0; i < 8; i++)
		ops[i] = (struct dt_copy_op){ d + MiB + i * 1500,
			h + MiB + i * 1500, 1500 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 8, &t), 8);
	DT_CHECK_EQ(t, 10);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	DT_CHECK_EQ(xs.merged - xs0.merged, 1);
	DT_CHECK_EQ(xs.cuda_calls - xs0.cuda_calls, 1);
	DT_CHECK_EQ(xs.unpinned, 0);

	DT_CHECK_EQ(wait_ticket(ch, 10), 0);
	DT_CHECK_EQ(dt_copy_completed(ch), 10);

	/* Many in flight: completion is monotonic and never runs ahead. */
	prev = 10;
	for (i = 0; i < 200; i++) {
		ops[0] = (struct dt_copy_op){ d + (i % 4) * 2 * MiB,
			h + (i % 4) * 2 * MiB, 2 * MiB };
		if (dt_copy_submit(ch, ops, 1, &t) != 1)
			break;
		c = dt_copy_completed(ch);
		DT_CHECK(c >= prev && c <= t);
		prev = c;
	}
	DT_CHECK_EQ(i, 200);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	DT_CHECK_EQ(dt_copy_completed(ch), 210);
	DT_CHECK_EQ(ch->stats.copies, 210);
	DT_CHECK_EQ(dt_copy_cuda_chan_drain(ch), 0);

	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	host_buf_free(h);
	host_buf_free(h2);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/*
 * Host -> device in @p up-byte pieces (scattered order, so nothing merges),
 * device -> host in @p down-byte pieces, then compare.
 */
static void
roundtrip_cfg(const struct eng_cfg *cfg, uint32_t up, uint32_t down)
{
	enum dt_copy_cuda_mode mode = cfg->mode;
	const size_t total = 24 * MiB + 777;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, total, 0);
	uint8_t *src = host_buf(total), *dst = host_buf(total);
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_op *ops_up = NULL, *ops_down = NULL;
	struct dt_copy_engine *ce = NULL;
	struct dt_copy_chan *ch = NULL;
	size_t n_up = 0, n_down = 0;
	uint64_t t;

	DT_REQUIRE(d != NULL && src != NULL && dst != NULL);
	pattern_fill(src, total, up ^ down);
	ops_up = make_ops(d, src, total, up, 1, &n_up);
	ops_down = make_ops(dst, d, total, down, 0, &n_down);
	DT_REQUIRE(ops_up != NULL && ops_down != NULL);
	ce = engine_make(d, total, cfg);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);

	t = submit_all(ch, ops_up, n_up, 32);
	DT_CHECK_EQ(t, n_up);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	device_check(d, total, up ^ down);
	t = submit_all(ch, ops_down, n_down, 64);
	DT_CHECK_EQ(t, n_up + n_down);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	DT_CHECK(memcmp(src, dst, total) == 0);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	printf("  %s/%s/%s%s up %u B x %zu, down %u B x %zu: %" PRIu64 " merged copies, %" PRIu64 " CUDA calls (%" PRIu64 " batched), %" PRIu64 " staged in %" PRIu64 " launches; %" PRIu64 " driver calls, %" PRIu64 " polls (%" PRIu64 " pending)\n",
		mode_name(mode), completion_name(xs.completion),
		stage_read_name(xs.stage_read),
		cfg->fail_memop ? " (memop failed)" : "", up, n_up, down,
		n_down, xs.merged, xs.cuda_calls, xs.batches, xs.staged,
		xs.stage_launches, xs.driver_calls, xs.polls,
		xs.polls_pending);
	DT_CHECK_EQ(xs.unpinned, 0);
	check_calls(&xs, ch->stats.calls, cfg);
	/* Never the batch call where the mode says one call per copy. */
	if (mode == DT_COPY_CUDA_MODE_PER_COPY ||
			mode == DT_COPY_CUDA_MODE_STAGED_PER_COPY)
		DT_CHECK_EQ(xs.batches, 0);
	/* The host-read staged path needs no copy call for its groups. */
	if (xs.stage_read == DT_COPY_CUDA_STAGE_READ_HOST)
		DT_CHECK(xs.calls_memcpy <= xs.merged - xs.staged);
	else if (xs.staged > 0)
		DT_CHECK(xs.calls_memcpy >= xs.stage_launches);
	/* Staging only where asked for, and then for every small upload. */
	if (mode == DT_COPY_CUDA_MODE_BATCH || mode == DT_COPY_CUDA_MODE_PER_COPY)
		DT_CHECK_EQ(xs.staged, 0);
	else if (have_kernels() && up <= DT_COPY_CUDA_STAGE_MAX_DEFAULT)
		/* A lone last copy is cheaper direct: at most one. */
		DT_CHECK_EQ(xs.staged + xs.stage_full * 32 + 1 >= n_up, 1);
	DT_CHECK_EQ(ch->stats.bytes, 2 * total);
	DT_CHECK_EQ(dt_copy_cuda_chan_drain(ch), 0);

	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	free(ops_up);
	free(ops_down);
	host_buf_free(src);
	host_buf_free(dst);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

static void
roundtrip(enum dt_copy_cuda_mode mode, uint32_t up, uint32_t down)
{
	struct eng_cfg cfg = cfg_default;

	cfg.mode = mode;
	roundtrip_cfg(&cfg, up, down);
}

static void
test_roundtrip_1500_9000(void)
{
	roundtrip(DT_COPY_CUDA_MODE_AUTO, 1500, 9000);
}

static void
test_roundtrip_9000_1500(void)
{
	roundtrip(DT_COPY_CUDA_MODE_AUTO, 9000, 1500);
}

static void
test_roundtrip_per_copy(void)
{
	roundtrip(DT_COPY_CUDA_MODE_PER_COPY, 1500, 9000);
}

static void
test_roundtrip_batch(void)
{
	roundtrip(DT_COPY_CUDA_MODE_BATCH, 1500, 9000);
}

/* Staged small uploads, one call per other copy (no cuMemcpyBatchAsync). */
static void
test_roundtrip_staged_per_copy(void)
{
	roundtrip(DT_COPY_CUDA_MODE_STAGED_PER_COPY, 1500, 9000);
	roundtrip(DT_COPY_CUDA_MODE_STAGED_PER_COPY, 9000, 1500);
}

static void
test_roundtrip_staged_odd(void)
{
	roundtrip(DT_COPY_CUDA_MODE_STAGED, 1461, 4093);
	roundtrip(DT_COPY_CUDA_MODE_STAGED, 4096, 777);
}

/* Staged groups copied to a device ring first (the two-call path). */
static void
test_roundtrip_stage_read_device(void)
{
	struct eng_cfg cfg = cfg_default;

	cfg.stage_read = DT_COPY_CUDA_STAGE_READ_DEVICE;
	roundtrip_cfg(&cfg, 1500, 9000);
	cfg.mode = DT_COPY_CUDA_MODE_STAGED;
	roundtrip_cfg(&cfg, 1461, 4093);
}

/* Completion by events, as chosen, and as the fall-back of a failed write. */
static void
test_roundtrip_events(void)
{
	struct eng_cfg cfg = cfg_default;

	cfg.completion = DT_COPY_CUDA_COMPLETION_EVENT;
	roundtrip_cfg(&cfg, 1500, 9000);
	cfg.stage_read = DT_COPY_CUDA_STAGE_READ_DEVICE;
	roundtrip_cfg(&cfg, 1500, 9000);
	cfg = cfg_default;
	cfg.fail_memop = 1;
	roundtrip_cfg(&cfg, 1500, 9000);
	cfg.completion = DT_COPY_CUDA_COMPLETION_MEMOP;
	roundtrip_cfg(&cfg, 9000, 1500);
}

/* First byte where @p a and @p b differ, or SIZE_MAX. */
static size_t
first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return SIZE_MAX;
}

/* One copy of @p len bytes on a fresh CUDA engine over [win, +len). */
static int
engine_copy(void *win, void *dst, const void *src, size_t len)
{
	struct dt_copy_engine *ce = dt_copy_cuda_engine_create(gpu_id, win, len);
	struct dt_copy_chan *ch;
	struct dt_copy_op *ops;
	size_t n = 0;
	uint64_t t;
	int ret = -1;

	if (ce == NULL) {
		printf("  dt_copy_cuda_engine_create(%p, %zu) failed: %s\n", win,
			len, rte_strerror(rte_errno));
		return -1;
	}
	ch = dt_copy_chan_open(ce);
	ops = make_ops(dst, src, len, 64 * 1024, 0, &n);
	if (ch != NULL && ops != NULL) {
		t = submit_all(ch, ops, n, 32);
		if (t == 0)
			printf("  submit of %zu copies failed\n", n);
		else if (wait_ticket(ch, t) != 0)
			printf("  copies did not complete within 10 s\n");
		else
			ret = 0;
	}
	free(ops);
	if (ch != NULL)
		dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	return ret;
}

/*
 * dma-buf import: A exported, imported as B; bytes written through B read
 * back through A. The dt_devmem region part is not here: test_gpu_cuda does
 * not link dt_devmem.
 */
static void
test_dmabuf_import(void)
{
	const size_t len = 8 * MiB;
	uint8_t *a = rte_gpu_mem_alloc(gpu_id, len, 2 * MiB);
	uint8_t *src = host_buf(len), *dst = host_buf(len);
	uint8_t *b = NULL;
	void *out = (void *)&out;
	int fd = -1, ret, local;
	size_t diff;

	DT_REQUIRE(a != NULL && src != NULL && dst != NULL);
	/* Contract checks that need no dma-buf. */
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_import(99, 0, len, &out), -ENODEV);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_import(gpu_id, -1, len, &out),
		-EBADF);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_release(99, a), -ENODEV);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_release(gpu_id, a), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_release(gpu_id, &local), -EINVAL);

	ret = rte_pmd_gpu_cuda_dmabuf_export(gpu_id, a, len, &fd);
	if (ret == -ENOTSUP) {
		printf("  dma-buf export not supported on this machine: import case skipped\n");
		goto out;
	}
	DT_CHECK_EQ(ret, 0);
	if (ret != 0 || fd < 0)
		goto out;
	printf("  exported A=%p (%zu bytes) as dma-buf fd %d, lseek size %lld\n",
		(void *)a, len, fd, (long long)lseek(fd, 0, SEEK_END));
	/* Size and argument checks against a real dma-buf. */
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_import(gpu_id, fd, 0, &out), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_import(gpu_id, fd, len - 100, &out),
		-EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_import(gpu_id, fd, len / 2, &out),
		-EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_import(gpu_id, fd, len, NULL),
		-EINVAL);

	ret = rte_pmd_gpu_cuda_dmabuf_import(gpu_id, fd, len, &out);
	if (ret == -ENOTSUP) {
		printf("  DMABUF-IMPORT-UNSUPPORTED: the CUDA driver refuses dma-buf import here (see the gpu_cuda log line): import case skipped\n");
		goto out;
	}
	DT_CHECK_EQ(ret, 0);
	if (ret != 0)
		goto out;
	b = out;
	printf("  imported fd %d as B=%p (%s A=%p)\n", fd, (void *)b,
		b == a ? "same address as" : "differs from", (void *)a);
	/* The caller's fd is still the caller's: closing it is fine now. */
	DT_CHECK_EQ(close(fd), 0);
	fd = -1;
	/* Only the release call frees an import. */
	DT_CHECK(rte_gpu_mem_free(gpu_id, b) < 0);

	pattern_fill(src, len, 0x1a2b3c4d);
	memset(dst, 0, len);
	/* host -> B through an engine on B, B checked by the kernel. */
	DT_CHECK_EQ(engine_copy(b, b, src, len), 0);
	device_check(b, len, 0x1a2b3c4d);
	/* host <- A through an engine on A: same physical memory. */
	DT_CHECK_EQ(engine_copy(a, dst, a, len), 0);
	diff = first_diff(src, dst, len);
	if (diff != SIZE_MAX)
		printf("  A differs from what was written through B at byte %zu\n",
			diff);
	DT_CHECK(diff == SIZE_MAX);
	if (diff == SIZE_MAX)
		printf("  DMABUF-IMPORT-OK: %zu bytes written through B read back byte-exact through A\n",
			len);

	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_release(gpu_id, b), 0);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_release(gpu_id, b), -EINVAL);
	b = NULL;
	printf("  dt_devmem region from a dma-buf: not tested here (test_gpu_cuda does not link dt_devmem)\n");
out:
	if (b != NULL)
		DT_CHECK_EQ(rte_pmd_gpu_cuda_dmabuf_release(gpu_id, b), 0);
	if (fd >= 0)
		close(fd);
	host_buf_free(src);
	host_buf_free(dst);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, a), 0);
}

/*
 * Staged copies land byte for byte and touch nothing else: odd sizes,
 * unaligned sources and destinations, registered and unregistered
 * sources, submits of 2..2000 copies (several staged groups per submit,
 * more bytes than the staging ring), rounds in flight over the same
 * destinations (the last one wins), tickets and completion as before.
 * The whole window is read back and compared with an image kept by the CPU.
 */
static void
staged_exact(enum dt_copy_cuda_stage_read stage_read)
{
	enum { ROUNDS = 3, N = 5000 };
	static const uint32_t sizes[] = { 1, 2, 15, 16, 17, 31, 100, 1459,
		1460, 1500, 4097, 8960, 9000, 16383, 16384 };
	static const uint16_t batches[] = { 2, 3, 7, 32, 64, 255, 256, 257,
		600, 2000 };
	const size_t win = 32 * MiB, src_len = 24 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, win, 0);
	uint8_t *img = host_buf(win), *expect = malloc(win);
	uint8_t *hx = host_buf(64 * 1024);
	uint8_t *src[ROUNDS] = { host_buf(src_len), malloc(src_len),
		host_buf(src_len) };
	struct dt_copy_op *ops = calloc(N, sizeof(*ops)), op;
	size_t *doff = calloc(N, sizeof(size_t)), *soff = calloc(N, sizeof(size_t));
	uint32_t *len = calloc(N, sizeof(uint32_t));
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	uint64_t t = 0, prev, c, cmax = 0;
	size_t i, k, dpos = 0, spos = 0, bad;
	uint32_t rnd = 12345;
	unsigned int r, b = 0;
	int q;

	DT_REQUIRE(d != NULL && img != NULL && expect != NULL && hx != NULL);
	DT_REQUIRE(src[0] != NULL && src[1] != NULL && src[2] != NULL);
	DT_REQUIRE(ops != NULL && doff != NULL && soff != NULL && len != NULL);
	/* Layout: sizes in turn, random gaps of 0..47 bytes on both sides. */
	for (i = 0; i < N; i++) {
		rnd = rnd * 1103515245u + 12345u;
		len[i] = sizes[i % RTE_DIM(sizes)];
		dpos += (rnd >> 8) % 48;
		spos += (rnd >> 16) % 48;
		doff[i] = dpos;
		soff[i] = spos;
		dpos += len[i];
		spos += len[i];
	}
	DT_REQUIRE(dpos + 64 * 1024 < 20 * MiB && spos <= src_len);
	for (r = 0; r < ROUNDS; r++)
		pattern_fill(src[r], src_len, 1000 + r);

	ce = dt_copy_cuda_engine_create(gpu_id, d, win);
	DT_REQUIRE(ce != NULL);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_mode(ce, DT_COPY_CUDA_MODE_STAGED), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_stage_max(ce,
		DT_COPY_CUDA_STAGE_MAX_LIMIT), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_stage_read(ce, stage_read), 0);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);

	/* Background: the whole window, one large (direct) copy. */
	pattern_fill(img, win, 99);
	memcpy(expect, img, win);
	op = (struct dt_copy_op){ d, img, (uint32_t)win };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	prev = t;

	/* Rounds in scattered order, submitted without waiting. */
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < N; i++) {
			k = (i * 7919) % N;
			ops[i] = (struct dt_copy_op){ d + doff[k],
				src[r] + soff[k], len[k] };
			memcpy(expect + doff[k], src[r] + soff[k], len[k]);
		}
		for (i = 0; i < N; i += (size_t)q) {
			uint16_t n = (uint16_t)RTE_MIN((size_t)batches[b++ %
				RTE_DIM(batches)], N - i);

			q = dt_copy_submit(ch, &ops[i], n, &t);
			DT_REQUIRE(q >= 0);
			if (q == 0) { /* all events in flight: poll, retry */
				dt_copy_completed(ch);
				continue;
			}
			DT_CHECK_EQ(t, prev + (uint64_t)q);
			prev = t;
			c = dt_copy_completed(ch);
			DT_CHECK(c >= cmax && c <= t);
			cmax = c;
		}
	}
	DT_CHECK_EQ(t, 1 + (uint64_t)ROUNDS * N);

	/*
	 * A device->host copy still in flight writes the source of the next
	 * submit's small uploads: they must read it after it landed.
	 */
	op = (struct dt_copy_op){ hx, d, 64 * 1024 };
	memset(hx, 0, 64 * 1024);
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	for (i = 0; i < 8; i++) {
		ops[i] = (struct dt_copy_op){ d + 20 * MiB + i * 1111,
			hx + i * 1000, 1000 };
		memcpy(expect + 20 * MiB + i * 1111, expect + i * 1000, 1000);
	}
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 8, &t), 8);

	/* Everything lands; then the whole window comes back. */
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	DT_CHECK_EQ(dt_copy_completed(ch), t);
	memset(img, 0, win);
	op = (struct dt_copy_op){ img, d, (uint32_t)win };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	bad = first_diff(img, expect, win);
	if (bad != SIZE_MAX) {
		for (k = 0; k < N; k++)
			if (bad >= doff[k] && bad < doff[k] + len[k])
				break;
		printf("  first wrong byte at window offset %zu (copy %zu: dst +%zu, len %u, src +%zu)\n",
			bad, k, k < N ? doff[k] : 0, k < N ? len[k] : 0,
			k < N ? soff[k] : 0);
	}
	DT_CHECK_EQ(bad, SIZE_MAX);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	printf("  stage_read %s, completion %s: %u rounds x %u copies (1..16384 B, unaligned): %" PRIu64 " merged, %" PRIu64 " staged in %" PRIu64 " launches, %" PRIu64 " groups direct (ring full), %" PRIu64 " CUDA calls, %" PRIu64 " driver calls\n",
		stage_read_name(xs.stage_read), completion_name(xs.completion),
		ROUNDS, N, xs.merged, xs.staged, xs.stage_launches,
		xs.stage_full, xs.cuda_calls, xs.driver_calls);
	DT_CHECK_EQ(xs.stage_read, stage_read);
	check_calls(&xs, ch->stats.calls, &cfg_default);
	if (have_kernels())
		DT_CHECK(xs.staged > (uint64_t)N);
	DT_CHECK_EQ(dt_copy_cuda_chan_drain(ch), 0);

	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	free(ops);
	free(doff);
	free(soff);
	free(len);
	free(expect);
	host_buf_free(img);
	host_buf_free(hx);
	host_buf_free(src[0]);
	free(src[1]);
	host_buf_free(src[2]);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

static void
test_staged_exact(void)
{
	staged_exact(DT_COPY_CUDA_STAGE_READ_HOST);
}

static void
test_staged_exact_read_device(void)
{
	staged_exact(DT_COPY_CUDA_STAGE_READ_DEVICE);
}

/*
 * Completion order and what it promises: one device->host copy per submit,
 * each into its own slice of a host buffer; whenever completed() returns T,
 * the slices of tickets <= T already hold their bytes (the completion word
 * is written after the copies, and read before the bytes), and T never
 * goes back or runs ahead of what was submitted.
 */
static void
completion_order(const struct eng_cfg *cfg)
{
	enum { K = 512, SLICE = 64 * 1024 };
	const size_t len = (size_t)K * SLICE;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = host_buf(len), *dst = host_buf(len);
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	struct dt_copy_op op;
	uint64_t t0 = 0, t, c, seen = 0;
	unsigned int k, bad = 0, advances = 0;
	double deadline;

	DT_REQUIRE(d != NULL && src != NULL && dst != NULL);
	pattern_fill(src, len, 4242);
	ce = engine_make(d, len, cfg);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ d, src, (uint32_t)len };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t0), 1);
	DT_CHECK_EQ(wait_ticket(ch, t0), 0);
	memset(dst, 0, len);
	seen = t0;
	for (k = 0; k < K; k++) {
		op = (struct dt_copy_op){ dst + (size_t)k * SLICE,
			d + (size_t)k * SLICE, SLICE };
		DT_REQUIRE(dt_copy_submit(ch, &op, 1, &t) == 1);
		DT_CHECK_EQ(t, t0 + k + 1);
		c = dt_copy_completed(ch);
		DT_CHECK(c >= seen && c <= t);
		for (; seen < c; seen++, advances++)
			if (memcmp(dst + (seen - t0) * SLICE,
					src + (seen - t0) * SLICE, SLICE) != 0)
				bad++;
	}
	deadline = now_s() + 10.0;
	while (seen < t && now_s() < deadline) {
		c = dt_copy_completed(ch);
		DT_CHECK(c >= seen && c <= t);
		for (; seen < c; seen++)
			if (memcmp(dst + (seen - t0) * SLICE,
					src + (seen - t0) * SLICE, SLICE) != 0)
				bad++;
	}
	DT_CHECK_EQ(seen, t);
	DT_CHECK_EQ(bad, 0);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	printf("  %s%s: %u device->host submits, %u completions seen while submitting, %u slices wrong when their ticket completed; %" PRIu64 " polls, %" PRIu64 " driver calls (%" PRIu64 " stream queries)\n",
		completion_name(xs.completion),
		cfg->fail_memop ? " (memop failed)" : "", K, advances, bad,
		xs.polls, xs.driver_calls, xs.calls_stream_query);
	check_calls(&xs, ch->stats.calls, cfg);
	DT_CHECK_EQ(dt_copy_cuda_chan_drain(ch), 0);
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	host_buf_free(src);
	host_buf_free(dst);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

static void
test_completion_order(void)
{
	struct eng_cfg cfg = cfg_default;

	completion_order(&cfg);
	cfg.completion = DT_COPY_CUDA_COMPLETION_EVENT;
	completion_order(&cfg);
	cfg = cfg_default;
	cfg.fail_memop = 1;
	completion_order(&cfg);
}

/*
 * Device to device: a pattern uploaded to A, moved A -> B in scattered
 * pieces (some contiguous, merged), B read back; with both completions.
 */
static void
device_to_device(const struct eng_cfg *cfg)
{
	const size_t half = 16 * MiB + 4096, len = 2 * half;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = host_buf(half), *dst = host_buf(half);
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_op *ops = NULL, op;
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	size_t n = 0, nd, diff;
	uint64_t t;

	DT_REQUIRE(d != NULL && src != NULL && dst != NULL);
	pattern_fill(src, half, 777);
	ce = engine_make(d, len, cfg);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ d, src, (uint32_t)half };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	/*
	 * No wait: stream order puts the D2D copies after the upload. The
	 * first quarter in scattered 9000-byte pieces (nothing merges), the
	 * rest in contiguous 4 KiB pieces (merged into a few copies).
	 */
	ops = make_ops(d + half, d, half / 4, 9000, 1, &n);
	DT_REQUIRE(ops != NULL);
	t = submit_all(ch, ops, n, 48);
	DT_CHECK(t != 0);
	nd = n;
	free(ops);
	ops = make_ops(d + half + half / 4, d + half / 4, half - half / 4, 4096,
		0, &n);
	DT_REQUIRE(ops != NULL);
	t = submit_all(ch, ops, n, 64);
	DT_CHECK(t != 0);
	nd += n;
	op = (struct dt_copy_op){ dst, d + half, (uint32_t)half };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	diff = first_diff(src, dst, half);
	if (diff != SIZE_MAX)
		printf("  B differs from A at byte %zu\n", diff);
	DT_CHECK_EQ(diff, SIZE_MAX);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	printf("  %s: %zu device->device copies (9000 B scattered, 4 KiB contiguous): %" PRIu64 " merged, %" PRIu64 " CUDA calls, %" PRIu64 " driver calls\n",
		completion_name(xs.completion), nd, xs.merged, xs.cuda_calls,
		xs.driver_calls);
	DT_CHECK(xs.merged < nd);
	DT_CHECK_EQ(xs.staged, 0);
	check_calls(&xs, ch->stats.calls, cfg);
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	free(ops);
	host_buf_free(src);
	host_buf_free(dst);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

static void
test_device_to_device(void)
{
	struct eng_cfg cfg = cfg_default;

	device_to_device(&cfg);
	cfg.completion = DT_COPY_CUDA_COMPLETION_EVENT;
	device_to_device(&cfg);
}

/*
 * The poll path of a memop channel makes no driver call: with a large copy
 * outstanding, fewer than DT_COPY_CUDA_STALL_POLLS polls cost nothing; an
 * event channel asks the driver on every one of them. Also: the engine's
 * list of channel counters sees both channels, in open order.
 */
static void
test_poll_cost(void)
{
	enum { POLLS = 500 };
	const size_t len = 1024 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	struct dt_copy_cuda_chan_stats a, b, all[3];
	struct dt_copy_engine *ce;
	struct dt_copy_chan *mch, *ech;
	struct dt_copy_op op;
	uint64_t t, pend_m, pend_e;
	int i;

	DT_REQUIRE(d != NULL);
	ce = dt_copy_cuda_engine_create(gpu_id, d, len);
	DT_REQUIRE(ce != NULL);
	mch = dt_copy_chan_open(ce);
	DT_REQUIRE(mch != NULL);
	DT_CHECK_EQ(dt_copy_cuda_engine_set_completion(ce,
		DT_COPY_CUDA_COMPLETION_EVENT), 0);
	ech = dt_copy_chan_open(ce);
	DT_REQUIRE(ech != NULL);
	DT_CHECK_EQ(dt_copy_cuda_engine_chan_stats(ce, NULL, 0), 2);
	DT_CHECK_EQ(dt_copy_cuda_engine_chan_stats(ce, all, 3), 2);
	DT_CHECK_EQ(all[0].completion, DT_COPY_CUDA_COMPLETION_MEMOP);
	DT_CHECK_EQ(all[1].completion, DT_COPY_CUDA_COMPLETION_EVENT);
	DT_CHECK_EQ(dt_copy_cuda_engine_chan_stats(NULL, all, 3), -EINVAL);

	/* Half the window onto the other half: some 0.5 ms of GPU work. */
	op = (struct dt_copy_op){ d + len / 2, d, (uint32_t)(len / 2) };
	DT_CHECK_EQ(dt_copy_submit(mch, &op, 1, &t), 1);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(mch, &a) == 0);
	for (i = 0; i < POLLS; i++)
		dt_copy_completed(mch);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(mch, &b) == 0);
	pend_m = b.polls_pending - a.polls_pending;
	DT_CHECK_EQ(b.polls - a.polls, POLLS);
	DT_CHECK_EQ(b.driver_calls - a.driver_calls, 0);
	DT_CHECK_EQ(wait_ticket(mch, t), 0);

	DT_CHECK_EQ(dt_copy_submit(ech, &op, 1, &t), 1);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ech, &a) == 0);
	for (i = 0; i < POLLS; i++)
		dt_copy_completed(ech);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ech, &b) == 0);
	pend_e = b.polls_pending - a.polls_pending;
	DT_CHECK(b.calls_event_query - a.calls_event_query >= pend_e);
	DT_CHECK(pend_e > 0);
	printf("  %d polls with a 512 MiB copy in flight: memop %" PRIu64 " pending, 0 driver calls; event %" PRIu64 " pending, %" PRIu64 " driver calls\n",
		POLLS, pend_m, pend_e, b.driver_calls - a.driver_calls);
	DT_CHECK_EQ(wait_ticket(ech, t), 0);
	DT_CHECK_EQ(dt_copy_cuda_engine_chan_stats(ce, all, 3), 2);
	dt_copy_chan_close(mch);
	DT_CHECK_EQ(dt_copy_cuda_engine_chan_stats(ce, all, 3), 1);
	DT_CHECK_EQ(all[0].completion, DT_COPY_CUDA_COMPLETION_EVENT);
	dt_copy_chan_close(ech);
	DT_CHECK_EQ(dt_copy_cuda_engine_chan_stats(ce, all, 3), 0);
	ce->ops->destroy(ce);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/* Unregistered host memory still copies correctly, and is counted. */
static void
test_unpinned(void)
{
	const size_t len = 2 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = malloc(len), *dst = host_buf(len);
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_engine *ce = NULL;
	struct dt_copy_chan *ch = NULL;
	struct dt_copy_op op;
	uint64_t t = 0;

	DT_REQUIRE(d != NULL && src != NULL && dst != NULL);
	pattern_fill(src, len, 7);
	ce = dt_copy_cuda_engine_create(gpu_id, d, len);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ d, src, (uint32_t)len };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	op = (struct dt_copy_op){ dst, d, (uint32_t)len };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	DT_CHECK(memcmp(src, dst, len) == 0);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	DT_CHECK_EQ(xs.unpinned, 1);
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	free(src);
	host_buf_free(dst);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/*
 * The payload pieces of a 9000-byte MTU (4 KiB device buffers, and whole
 * 8960-byte payloads where buffers are contiguous) from host memory that
 * nobody registered: staged (one CPU memcpy into the pinned ring), never
 * copied directly (synchronous, through CUDA's bounce buffer), in the
 * default mode; the same pieces from registered memory keep the direct
 * batch (stage_max applies to them).
 */
static void
test_unpinned_jumbo_staged(void)
{
	static const uint32_t piece[] = { 4096, 8960 };
	const size_t total = 4 * MiB + 333;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, total, 0);
	uint8_t *src = malloc(total), *reg = host_buf(total);
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_op *ops;
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	unsigned int k, pass;
	size_t n;
	uint64_t t;

	DT_REQUIRE(d != NULL && src != NULL && reg != NULL);
	if (!have_kernels()) {
		printf("  no scatter kernel (built without nvcc): staging not tested\n");
		goto out;
	}
	for (k = 0; k < RTE_DIM(piece); k++)
		for (pass = 0; pass < 2; pass++) {
			uint8_t *h = pass == 0 ? src : reg;

			pattern_fill(h, total, piece[k] + pass);
			ops = make_ops(d, h, total, piece[k], 1, &n);
			DT_REQUIRE(ops != NULL);
			ce = dt_copy_cuda_engine_create(gpu_id, d, total);
			DT_REQUIRE(ce != NULL);
			ch = dt_copy_chan_open(ce);
			DT_REQUIRE(ch != NULL);
			t = submit_all(ch, ops, n, 32);
			DT_CHECK_EQ(t, n);
			DT_CHECK_EQ(wait_ticket(ch, t), 0);
			device_check(d, total, piece[k] + pass);
			DT_CHECK(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
			printf("  %s, %u B x %zu: %" PRIu64 " staged, %" PRIu64 " unpinned direct, %" PRIu64 " CUDA calls\n",
				pass == 0 ? "unregistered" : "registered", piece[k],
				n, xs.staged, xs.unpinned, xs.cuda_calls);
			if (pass == 0) {
				/* A lone copy per submit may go direct: at most one per 32. */
				DT_CHECK(xs.staged + xs.stage_full * 32 + n / 32 + 1 >= n);
				DT_CHECK(xs.unpinned <= n / 32 + 1);
			} else {
				DT_CHECK_EQ(xs.staged, 0);
				DT_CHECK_EQ(xs.unpinned, 0);
			}
			dt_copy_chan_close(ch);
			ce->ops->destroy(ce);
			free(ops);
		}
out:
	free(src);
	host_buf_free(reg);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/* Figures only: GB/s host -> device for a few chunk sizes and modes. */
static double
bench_one(uint8_t *d, uint8_t *h, size_t total, uint32_t chunk,
	uint32_t gap, enum dt_copy_cuda_mode mode, size_t win,
	struct dt_copy_cuda_chan_stats *xs,
	enum dt_copy_cuda_stage_read stage_read)
{
	struct dt_copy_engine *ce = dt_copy_cuda_engine_create(gpu_id, d, win);
	struct dt_copy_chan *ch;
	struct dt_copy_op *ops;
	size_t n = total / chunk, i;
	double t0, dt = -1;
	uint64_t t;

	ops = calloc(n, sizeof(*ops));
	if (ce == NULL || ops == NULL)
		goto out;
	dt_copy_cuda_engine_set_mode(ce, mode);
	dt_copy_cuda_engine_set_stage_read(ce, stage_read);
	/* The staged column stages every size it can, to show the crossover. */
	if (mode == DT_COPY_CUDA_MODE_STAGED)
		dt_copy_cuda_engine_set_stage_max(ce, DT_COPY_CUDA_STAGE_MAX_LIMIT);
	for (i = 0; i < n; i++)
		ops[i] = (struct dt_copy_op){ d + i * (chunk + gap),
			h + i * chunk, chunk };
	ch = dt_copy_chan_open(ce);
	if (ch == NULL)
		goto out;
	t0 = now_s();
	t = submit_all(ch, ops, n, 32);
	if (t != 0 && wait_ticket(ch, t) == 0)
		dt = now_s() - t0;
	if (xs != NULL)
		dt_copy_cuda_chan_stats_get(ch, xs);
	dt_copy_chan_close(ch);
out:
	free(ops);
	if (ce != NULL)
		ce->ops->destroy(ce);
	return dt > 0 ? (double)n * chunk / dt / 1e9 : 0.0;
}

static void
test_throughput(void)
{
	static const uint32_t chunks[] = { 1460, 1500, 4096, 9000, 16384,
		65536, MiB };
	const size_t total = 64 * MiB, win = 80 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, win, 0);
	uint8_t *h = host_buf(total);
	struct dt_copy_cuda_chan_stats xs;
	unsigned int i;

	DT_REQUIRE(d != NULL && h != NULL);
	printf("  host->device, 64 MiB per run, 32 copies per submit (GB/s):\n");
	printf("  %8s %12s %12s %12s %14s %14s %14s\n", "chunk",
		"contiguous", "scattered", "scattered", "scattered",
		"scattered", "staged copies");
	printf("  %8s %12s %12s %12s %14s %14s %14s\n", "", "(merged)",
		"(staged)", "(staged,", "(batch call)", "(call/copy)",
		"(of all)");
	printf("  %8s %12s %12s %12s\n", "", "", "(1 call)", "2 calls)");
	printf("  (staged: stage_max %u for this column; auto stages up to %u B)\n",
		DT_COPY_CUDA_STAGE_MAX_LIMIT, DT_COPY_CUDA_STAGE_MAX_DEFAULT);
	for (i = 0; i < RTE_DIM(chunks); i++) {
		uint32_t gap = 256; /* breaks contiguity, keeps 256-B alignment */
		const enum dt_copy_cuda_stage_read hr =
			DT_COPY_CUDA_STAGE_READ_HOST;
		double a, s, s2, b, c;

		memset(&xs, 0, sizeof(xs));
		a = bench_one(d, h, total, chunks[i], 0,
			DT_COPY_CUDA_MODE_AUTO, win, NULL, hr);
		s = bench_one(d, h, total, chunks[i], gap,
			DT_COPY_CUDA_MODE_STAGED, win, &xs, hr);
		s2 = bench_one(d, h, total, chunks[i], gap,
			DT_COPY_CUDA_MODE_STAGED, win, NULL,
			DT_COPY_CUDA_STAGE_READ_DEVICE);
		b = bench_one(d, h, total, chunks[i], gap,
			DT_COPY_CUDA_MODE_BATCH, win, NULL, hr);
		c = bench_one(d, h, total, chunks[i], gap,
			DT_COPY_CUDA_MODE_PER_COPY, win, NULL, hr);

		printf("  %8u %12.2f %12.2f %12.2f %14.2f %14.2f %7" PRIu64 "/%-6" PRIu64 "\n",
			chunks[i], a, s, s2, b, c, xs.staged,
			total / chunks[i]);
		DT_CHECK(a > 0 && s > 0 && s2 > 0 && b > 0 && c > 0);
	}
	host_buf_free(h);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/*
 * Figures only: several threads on one CUDA context, each with its own
 * channel of one shared engine, as devtcp's stacks run (issue 9). Each
 * submits scattered 1460-byte host->device copies, 32 per submit, and
 * polls completion after each submit as a NIC queue does. Printed per
 * configuration: aggregate GB/s, and per copy the driver calls and the
 * CPU time of submit + poll.
 */
struct scale_arg {
	struct dt_copy_engine *ce;
	uint8_t *d;
	const uint8_t *h;
	size_t n;             /* copies */
	double secs;          /* wall time of this thread's loop */
	double sub_secs;      /* of which inside dt_copy_submit() */
	uint64_t subs;        /* submit calls */
	struct dt_copy_cuda_chan_stats xs;
	int ok;
};

#define SCALE_CHUNK 1460u
#define SCALE_GAP 52u      /* 1512-byte stride: like 2 KiB mbufs, unmerged */

static void *
scale_thread(void *v)
{
	struct scale_arg *a = v;
	struct dt_copy_chan *ch = dt_copy_chan_open(a->ce);
	struct dt_copy_op ops[32];
	size_t done = 0, i;
	uint64_t t = 0;
	double t0, ts;
	int q;

	if (ch == NULL)
		return NULL;
	t0 = now_s();
	while (done < a->n) {
		for (i = 0; i < 32; i++) {
			size_t k = (done + i) % a->n;

			ops[i] = (struct dt_copy_op){
				a->d + k * (SCALE_CHUNK + SCALE_GAP),
				a->h + k * SCALE_CHUNK, SCALE_CHUNK };
		}
		ts = now_s();
		q = dt_copy_submit(ch, ops, 32, &t);
		a->sub_secs += now_s() - ts;
		a->subs++;
		if (q < 0)
			break;
		done += (size_t)q;
		dt_copy_completed(ch);
	}
	a->ok = done >= a->n && wait_ticket(ch, t) == 0;
	a->secs = now_s() - t0;
	dt_copy_cuda_chan_stats_get(ch, &a->xs);
	dt_copy_chan_close(ch);
	return NULL;
}

/*
 * Start thread @p i on a CPU of its own (CPU i + 1 of those this machine
 * has): EAL pinned the main thread to one CPU (-l 0), and threads it
 * starts inherit that, so unpinned they would all share it.
 */
static int
scale_spawn(pthread_t *tid, struct scale_arg *a, unsigned int i)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET((i + 1) % (ncpu > 0 ? (unsigned int)ncpu : 1u), &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	ret = pthread_create(tid, &attr, scale_thread, a);
	pthread_attr_destroy(&attr);
	return ret;
}

static void
test_scale_threads(void)
{
	static const unsigned int nthreads[] = { 1, 2, 4, 8 };
	static const struct {
		enum dt_copy_cuda_mode m;
		enum dt_copy_cuda_completion c;
		enum dt_copy_cuda_stage_read r;
	} cfgs[] = {
		{ DT_COPY_CUDA_MODE_AUTO, DT_COPY_CUDA_COMPLETION_EVENT,
			DT_COPY_CUDA_STAGE_READ_DEVICE },
		{ DT_COPY_CUDA_MODE_AUTO, DT_COPY_CUDA_COMPLETION_MEMOP,
			DT_COPY_CUDA_STAGE_READ_DEVICE },
		{ DT_COPY_CUDA_MODE_AUTO, DT_COPY_CUDA_COMPLETION_EVENT,
			DT_COPY_CUDA_STAGE_READ_HOST },
		{ DT_COPY_CUDA_MODE_AUTO, DT_COPY_CUDA_COMPLETION_MEMOP,
			DT_COPY_CUDA_STAGE_READ_HOST },
		{ DT_COPY_CUDA_MODE_BATCH, DT_COPY_CUDA_COMPLETION_MEMOP,
			DT_COPY_CUDA_STAGE_READ_HOST },
	};
	const size_t per = 65536; /* copies per thread: 91 MiB */
	const size_t dlen = per * (SCALE_CHUNK + SCALE_GAP);
	const size_t hlen = per * SCALE_CHUNK;
	struct scale_arg arg[8];
	pthread_t tid[8];
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, 8 * dlen, 0);
	uint8_t *h = host_buf(8 * hlen);
	double hz = (double)rte_get_tsc_hz();
	unsigned int c, k, i;

	DT_REQUIRE(d != NULL && h != NULL);
	pattern_fill(h, 8 * hlen, 5);
	printf("  threads x (%zu scattered %u-byte host->device copies, 32 per submit, one poll per submit), one engine:\n",
		per, SCALE_CHUNK);
	printf("  (us/submit: CPU time inside dt_copy_submit(); of it, driver: inside libcuda calls, pack: the staging memcpy)\n");
	printf("  %-6s %-6s %-7s %7s %8s %10s %10s %9s %9s %8s %8s %8s\n",
		"mode", "compl", "stage", "threads", "GB/s", "calls/copy",
		"polls/copy", "us/copy", "us/submit", "driver", "pack",
		"ctx/sub");
	for (c = 0; c < RTE_DIM(cfgs); c++)
		for (k = 0; k < RTE_DIM(nthreads); k++) {
			struct eng_cfg cfg = cfg_default;
			struct dt_copy_engine *ce;
			uint64_t calls = 0, polls = 0, copies = 0, ctx = 0;
			uint64_t subs = 0, nsub = 0, cyd = 0, cyp = 0;
			double tmax = 0, tsum = 0, tsub = 0;
			int ok = 1;

			cfg.mode = cfgs[c].m;
			cfg.completion = cfgs[c].c;
			cfg.stage_read = cfgs[c].r;
			ce = engine_make(d, 8 * dlen, &cfg);
			DT_REQUIRE(ce != NULL);
			for (i = 0; i < nthreads[k]; i++) {
				arg[i] = (struct scale_arg){ ce, d + i * dlen,
					h + i * hlen, per, 0, 0, 0, { 0 }, 0 };
				if (scale_spawn(&tid[i], &arg[i], i) != 0)
					ok = 0;
			}
			for (i = 0; i < nthreads[k]; i++) {
				pthread_join(tid[i], NULL);
				ok &= arg[i].ok;
				tmax = RTE_MAX(tmax, arg[i].secs);
				tsum += arg[i].secs;
				calls += arg[i].xs.driver_calls;
				polls += arg[i].xs.polls;
				ctx += arg[i].xs.calls_ctx;
				tsub += arg[i].sub_secs;
				nsub += arg[i].subs;
				cyd += arg[i].xs.cycles_driver;
				cyp += arg[i].xs.cycles_pack;
				subs += arg[i].xs.calls_write_value +
					arg[i].xs.calls_event_record;
				copies += per;
			}
			ce->ops->destroy(ce);
			DT_CHECK(ok);
			printf("  %-6s %-6s %-7s %7u %8.2f %10.3f %10.3f %9.3f %9.2f %8.2f %8.2f %8.2f\n",
				mode_name(cfg.mode),
				completion_name(cfg.completion),
				stage_read_name(cfg.stage_read), nthreads[k],
				tmax > 0 ? copies * SCALE_CHUNK / tmax / 1e9 : 0.0,
				(double)calls / copies, (double)polls / copies,
				tsum * 1e6 / copies,
				nsub > 0 ? tsub * 1e6 / nsub : 0.0,
				nsub > 0 ? cyd * 1e6 / hz / nsub : 0.0,
				nsub > 0 ? cyp * 1e6 / hz / nsub : 0.0,
				subs > 0 ? (double)ctx / subs : 0.0);
		}
	host_buf_free(h);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/*
 * Forced error (DT_CUDA_FAULT=memop|event, a process of its own): copies
 * queued behind a kernel that traps fail on the GPU. They must never be
 * reported complete, the channel must find out by polling alone (memop:
 * cuStreamQuery after DT_COPY_CUDA_STALL_POLLS polls without progress;
 * event: cuEventQuery), and then refuse work and fail its drain.
 */
static void
fault(enum dt_copy_cuda_completion completion)
{
	const size_t len = 8 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = host_buf(len);
	struct dt_copy_cuda_chan_stats xs;
	struct eng_cfg cfg = cfg_default;
	struct dt_copy_op ops[32], op;
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	uint64_t before, t, c, cmax = 0, polls = 0;
	double deadline;
	int i, stopped = 0, ret;

	DT_REQUIRE(d != NULL && src != NULL);
	cfg.completion = completion;
	ce = engine_make(d, len, &cfg);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ d, src, (uint32_t)(len / 2) };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &before), 1);
	DT_CHECK_EQ(wait_ticket(ch, before), 0);

	ret = dt_copy_cuda_chan_test_fault(ch);
	if (ret == -ENOTSUP) {
		printf("  no kernels (built without nvcc): fault case skipped\n");
		goto out;
	}
	DT_CHECK_EQ(ret, 0);
	/* Behind the trap: a staged group and a large direct copy. */
	for (i = 0; i < 32; i++)
		ops[i] = (struct dt_copy_op){ d + len / 2 + i * 2000,
			src + i * 1500, 1460 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 32, &t), 32);
	op = (struct dt_copy_op){ d + len / 2 + MiB, src, (uint32_t)MiB };
	ret = dt_copy_submit(ch, &op, 1, &t);
	/* The trap may already have struck: then the submit says so. */
	DT_CHECK(ret == 1 || ret == -EIO);
	deadline = now_s() + 10.0;
	while (now_s() < deadline) {
		c = dt_copy_completed(ch);
		polls++;
		cmax = RTE_MAX(cmax, c);
		if (dt_copy_submit(ch, ops, 0, NULL) == -EIO) {
			stopped = 1;
			break;
		}
	}
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	printf("  %s: channel stopped %s after %" PRIu64 " polls; highest completed ticket %" PRIu64 " (last good %" PRIu64 "); %" PRIu64 " stream queries, %" PRIu64 " event queries\n",
		completion_name(xs.completion), stopped ? "by itself" : "NOT",
		polls, cmax, before, xs.calls_stream_query,
		xs.calls_event_query);
	DT_CHECK(stopped);
	DT_CHECK_EQ(dt_copy_chan_failed(ch), -EIO);
	DT_CHECK_EQ(cmax, before);
	DT_CHECK_EQ(dt_copy_completed(ch), before);
	DT_CHECK_EQ(xs.completion, expected_completion(&cfg));
	if (xs.completion == DT_COPY_CUDA_COMPLETION_MEMOP && ret == 1)
		DT_CHECK(xs.calls_stream_query >= 1);
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), -EIO);
	DT_CHECK_EQ(dt_copy_cuda_chan_drain(ch), -EIO);
	DT_CHECK_EQ(dt_copy_completed(ch), before);
out:
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	/* The context is lost: nothing more to check with it. */
}

/*
 * A staged copy whose destination leaves the window (a corrupted
 * descriptor) reaches the scatter kernel: the kernel must refuse it, not
 * fault (a fault loses the process's whole CUDA context, NCCL's work in
 * it too). Its ticket never completes, the channel stops and counts it,
 * and the context lives on: a new channel's copies land. Both ring
 * readings (the kernel reading host memory, and a device ring).
 */
/*
 * Poll a channel that was given a copy its kernel must refuse (ticket
 * @p bad) until it stops, for 5 s at most; that ticket never completes.
 * 1 when it stopped.
 */
static int
wait_stopped(struct dt_copy_chan *ch, uint64_t bad)
{
	double deadline = now_s() + 5.0;

	while (now_s() < deadline) {
		DT_CHECK(dt_copy_completed(ch) < bad);
		if (dt_copy_chan_failed(ch) == -EIO)
			return 1;
	}
	return 0;
}

static void
stage_bad(enum dt_copy_cuda_stage_read rd)
{
	const size_t len = 2 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = host_buf(len), *back = host_buf(4096);
	struct dt_copy_cuda_chan_stats xs;
	struct eng_cfg cfg = cfg_default;
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch, *ch2;
	struct dt_copy_op op;
	uint64_t good, bad = 0, t;
	int ret, stopped;

	DT_REQUIRE(d != NULL && src != NULL && back != NULL);
	if (!have_kernels()) {
		printf("  no kernels: case skipped\n");
		goto out;
	}
	cfg.stage_read = rd;
	/* The window is the first half: the second half is "outside". */
	ce = engine_make(d, len / 2, &cfg);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	memset(src, 0x3c, 4096);
	op = (struct dt_copy_op){ d, src, 4096 };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &good), 1);
	DT_CHECK_EQ(wait_ticket(ch, good), 0);
	ret = dt_copy_cuda_chan_test_stage_bad(ch,
		(uintptr_t)d + len / 2 + 4096, 1460, &bad);
	DT_REQUIRE(ret == 0);
	stopped = wait_stopped(ch, bad);
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), -EIO);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	printf("  stage_read %s: channel %s, %" PRIu64 " refused, completed %" PRIu64 " (refused ticket %" PRIu64 ")\n",
		rd == DT_COPY_CUDA_STAGE_READ_HOST ? "host" : "device",
		stopped ? "stopped" : "NOT stopped", xs.stage_refused,
		dt_copy_completed(ch), bad);
	DT_CHECK(stopped);
	DT_CHECK_EQ(dt_copy_chan_failed(ch), -EIO);
	DT_CHECK_EQ(xs.stage_refused, 1);
	DT_CHECK(dt_copy_completed(ch) < bad);
	/* The context is alive: a fresh channel copies there and back. */
	ch2 = dt_copy_chan_open(ce);
	DT_REQUIRE(ch2 != NULL);
	DT_CHECK_EQ(dt_copy_chan_failed(ch2), 0);
	op = (struct dt_copy_op){ d + 8192, src, 4096 };
	DT_CHECK_EQ(dt_copy_submit(ch2, &op, 1, &t), 1);
	op = (struct dt_copy_op){ back, d + 8192, 4096 };
	DT_CHECK_EQ(dt_copy_submit(ch2, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch2, t), 0);
	DT_CHECK(memcmp(back, src, 4096) == 0);
	dt_copy_chan_close(ch2);
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
out:
	rte_gpu_mem_free(gpu_id, d);
	host_buf_free(src);
	host_buf_free(back);
}

static void
test_stage_bad_host(void)
{
	stage_bad(DT_COPY_CUDA_STAGE_READ_HOST);
}

static void
test_stage_bad_device(void)
{
	stage_bad(DT_COPY_CUDA_STAGE_READ_DEVICE);
}

/*
 * Gather (dt_copy.h's gather op), as net_hsplit's TX uses it: pieces of a
 * device window (odd offsets and lengths, MTU-sized and tiny, source and
 * destination agreeing modulo 16 or not) into registered "wire buffers" at
 * a header's offset, in one launch per call; every byte checked, and the
 * bytes around each piece untouched. Then the CPU's refusals (destination
 * outside the targets, source outside the window, straddling), the prefix
 * rule, and the kernel's own refusal of a descriptor that got past the
 * CPU (the channel stops, the context lives).
 */
#define GATHER_FRAMES 96u
#define GATHER_WB 9216u

static void
gather_case(const struct eng_cfg *cfg)
{
	const size_t len = 4 * MiB, win = len / 2;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = host_buf(win), *wire = host_buf(GATHER_FRAMES * GATHER_WB);
	uint8_t *other = host_buf(4096), *unreg = malloc(4096);
	static const uint32_t lens[] = { 8948, 1448, 1, 17, 4096, 9000, 63, 2 };
	struct dt_copy_op ops[GATHER_FRAMES], op;
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_chan *ch, *ch2;
	struct dt_copy_engine *ce;
	uint64_t t, last = 0, calls = 0, bad = 0;
	uint32_t i, done = 0, soff;
	int q, stopped;

	DT_REQUIRE(d != NULL && src != NULL && wire != NULL && other != NULL &&
		unreg != NULL);
	if (!have_kernels()) {
		printf("  no kernels: case skipped\n");
		goto out;
	}
	ce = engine_make(d, win, cfg);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	DT_REQUIRE(dt_copy_has_gather(ch));
	pattern_fill(src, win, 77);
	op = (struct dt_copy_op){ d, src, (uint32_t)win };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	/* Targets: registered host memory only, never the window. */
	DT_CHECK_EQ(dt_copy_gather_target(ch, unreg, 4096), -ENOTSUP);
	DT_CHECK_EQ(dt_copy_gather_target(ch, d + 4096, 4096), -EINVAL);
	DT_CHECK_EQ(dt_copy_gather_target(ch, wire,
		GATHER_FRAMES * GATHER_WB), 0);
	memset(wire, 0xee, GATHER_FRAMES * GATHER_WB);
	for (i = 0; i < GATHER_FRAMES; i++) {
		/* A header's offset (54 + i % 19), a source that wanders. */
		soff = (uint32_t)((i * 12347u + (i % 3 == 0 ? 0 : i)) %
			(win - 9000));
		ops[i] = (struct dt_copy_op){ wire + i * GATHER_WB + 54 + i % 19,
			d + soff, lens[i % RTE_DIM(lens)] };
	}
	while (done < GATHER_FRAMES) {
		q = dt_copy_gather(ch, ops + done,
			(uint16_t)(GATHER_FRAMES - done), &t);
		DT_REQUIRE(q >= 0);
		if (q == 0) {
			dt_copy_completed(ch);
			continue;
		}
		calls++;
		DT_CHECK_EQ(t, ch->next_ticket - 1);
		done += (uint32_t)q;
		last = t;
	}
	DT_CHECK_EQ(wait_ticket(ch, last), 0);
	for (i = 0; i < GATHER_FRAMES; i++) {
		const uint8_t *w = (const uint8_t *)ops[i].dst;

		DT_CHECK(memcmp(w, src + ((const uint8_t *)ops[i].src - d),
			ops[i].len) == 0);
		DT_CHECK_EQ(w[-1], 0xee);
		DT_CHECK_EQ(w[ops[i].len], 0xee);
	}
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	printf("  %s/%s: %u copies in %" PRIu64 " gather(s), %" PRIu64 " launches, %" PRIu64 " driver calls\n",
		mode_name(cfg->mode), stage_read_name(xs.stage_read),
		GATHER_FRAMES, calls, xs.gather_launches, xs.driver_calls);
	DT_CHECK_EQ(xs.gather_launches, calls);
	DT_CHECK_EQ(xs.gathered, GATHER_FRAMES);
	check_calls(&xs, 1 + calls, cfg);

	/* The CPU refuses: nothing queued, nothing written, counted. */
	op = (struct dt_copy_op){ other, d, 64 };
	DT_CHECK_EQ(dt_copy_gather(ch, &op, 1, &t), -EFAULT);
	op = (struct dt_copy_op){ wire, d + win - 8, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, &op, 1, &t), -EFAULT);
	op = (struct dt_copy_op){ wire + GATHER_FRAMES * GATHER_WB - 8, d, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, &op, 1, &t), -EFAULT);
	op = (struct dt_copy_op){ wire, src, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, &op, 1, &t), -EFAULT);
	DT_CHECK_EQ(ch->stats.errors, 4);
	DT_CHECK_EQ(t, last);
	/* A batch stops at the refused copy. */
	ops[0] = (struct dt_copy_op){ wire + 8, d + 3, 100 };
	ops[1] = (struct dt_copy_op){ other, d, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 2, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	DT_CHECK(memcmp(wire + 8, src + 3, 100) == 0);
	DT_CHECK_EQ(dt_copy_chan_failed(ch), 0);

	/* The kernel refuses what got past the CPU: source outside. */
	op = (struct dt_copy_op){ wire + 4096, d + win + 4096, 1460 };
	memset(wire + 4096, 0xee, 1460);
	DT_REQUIRE(dt_copy_cuda_chan_test_gather_bad(ch, &op, &bad) == 0);
	stopped = wait_stopped(ch, bad);
	DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
	DT_CHECK(stopped);
	DT_CHECK_EQ(xs.stage_refused, 1);
	DT_CHECK(dt_copy_completed(ch) < bad);
	DT_CHECK_EQ(wire[4096], 0xee);
	/* ... and the context is alive: a fresh channel gathers. */
	ch2 = dt_copy_chan_open(ce);
	DT_REQUIRE(ch2 != NULL);
	DT_CHECK_EQ(dt_copy_gather_target(ch2, wire, GATHER_WB), 0);
	op = (struct dt_copy_op){ wire + 4096, d + 5, 1460 };
	DT_CHECK_EQ(dt_copy_gather(ch2, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch2, t), 0);
	DT_CHECK(memcmp(wire + 4096, src + 5, 1460) == 0);
	dt_copy_chan_close(ch2);
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
out:
	rte_gpu_mem_free(gpu_id, d);
	host_buf_free(src);
	host_buf_free(wire);
	host_buf_free(other);
	free(unreg);
}

static void
test_gather(void)
{
	gather_case(&cfg_default);
}

/* Descriptors copied to a device ring first (two calls per gather). */
static void
test_gather_read_device(void)
{
	struct eng_cfg cfg = cfg_default;

	cfg.stage_read = DT_COPY_CUDA_STAGE_READ_DEVICE;
	gather_case(&cfg);
}

/* A mode without staging still gathers; completion by events. */
static void
test_gather_per_copy_events(void)
{
	struct eng_cfg cfg = cfg_default;

	cfg.mode = DT_COPY_CUDA_MODE_PER_COPY;
	cfg.completion = DT_COPY_CUDA_COMPLETION_EVENT;
	gather_case(&cfg);
}

/*
 * An engine over any device address of the device's context
 * (dt_copy_cuda_engine_create_any(), what the NCCL plugin needs for
 * buffers it did not allocate): its window is one small buffer, yet it
 * copies host->device, device->device and device->host into another
 * allocation, and gathers from there into registered host memory; a
 * context other than the primary one is refused.
 */
static void
test_any_address(void)
{
	const size_t len = MiB;
	uint8_t *d1 = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *d2 = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = host_buf(len), *back = host_buf(len);
	uint8_t *wire = host_buf(2 * GATHER_WB);
	struct dt_copy_cuda_chan_stats xs;
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	struct dt_copy_op op[2];
	void *ctx = NULL;
	uint64_t t;

	DT_REQUIRE(d1 != NULL && d2 != NULL && src != NULL && back != NULL &&
		wire != NULL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_context(gpu_id, &ctx), 0);
	DT_CHECK(ctx != NULL);
	ce = dt_copy_cuda_engine_create_any(gpu_id, (uint8_t *)ctx + 64, d1,
		4096);
	DT_CHECK(ce == NULL && rte_errno == ENOTSUP);
	DT_CHECK(dt_copy_cuda_engine_create_any(gpu_id, NULL, d1, 0) == NULL);
	/* No window at all: an engine that is not registered. */
	ce = dt_copy_cuda_engine_create_any(gpu_id, NULL, NULL, 0);
	DT_CHECK(ce != NULL);
	dt_copy_engine_destroy(ce);
	ce = dt_copy_cuda_engine_create_any(gpu_id, ctx, d1, 4096);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	pattern_fill(src, len, 5);
	/* Host -> d1 (beyond the window), d1 -> d2, d2 -> host. */
	op[0] = (struct dt_copy_op){ d1 + 8192, src, (uint32_t)(len - 8192) };
	DT_CHECK_EQ(dt_copy_submit(ch, op, 1, &t), 1);
	op[0] = (struct dt_copy_op){ d2 + 1, d1 + 8192, 100000 };
	DT_CHECK_EQ(dt_copy_submit(ch, op, 1, &t), 1);
	op[0] = (struct dt_copy_op){ back, d2 + 1, 100000 };
	DT_CHECK_EQ(dt_copy_submit(ch, op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	DT_CHECK(memcmp(back, src, 100000) == 0);
	/* A gather from d2 (outside the window) into the wire buffers. */
	if (have_kernels()) {
		memset(wire, 0xee, 2 * GATHER_WB);
		DT_CHECK_EQ(dt_copy_gather_target(ch, wire, 2 * GATHER_WB), 0);
		op[0] = (struct dt_copy_op){ wire + 66, d2 + 1, 8948 };
		op[1] = (struct dt_copy_op){ wire + GATHER_WB + 54, d2 + 9001, 1448 };
		DT_CHECK_EQ(dt_copy_gather(ch, op, 2, &t), 2);
		DT_CHECK_EQ(wait_ticket(ch, t), 0);
		DT_CHECK(memcmp(wire + 66, src, 8948) == 0);
		DT_CHECK(memcmp(wire + GATHER_WB + 54, src + 9000, 1448) == 0);
		DT_CHECK_EQ(wire[65], 0xee);
		/* Targets are still checked. */
		op[0] = (struct dt_copy_op){ back, d2, 64 };
		DT_CHECK_EQ(dt_copy_gather(ch, op, 1, &t), -EFAULT);
		DT_REQUIRE(dt_copy_cuda_chan_stats_get(ch, &xs) == 0);
		DT_CHECK_EQ(xs.gather_launches, 1);
		DT_CHECK_EQ(xs.gathered, 2);
	}
	DT_CHECK_EQ(dt_copy_chan_failed(ch), 0);
	dt_copy_chan_close(ch);
	dt_copy_engine_destroy(ce);
	rte_gpu_mem_free(gpu_id, d1);
	rte_gpu_mem_free(gpu_id, d2);
	host_buf_free(src);
	host_buf_free(back);
	host_buf_free(wire);
}

/*
 * Close frees what is left, even under a live engine (gpudev releases the
 * device whatever close returns); the engine can still be closed and
 * destroyed afterwards. Remove then finds nothing to do.
 */
static void
test_close(void)
{
	uint8_t *leak = rte_gpu_mem_alloc(gpu_id, MiB, 0);
	void *hleak = host_buf(4096);
	struct dt_copy_engine *ce = NULL;
	struct dt_copy_chan *ch = NULL;
	struct dt_copy_op op;
	uint64_t t;

	DT_REQUIRE(leak != NULL && hleak != NULL);
	ce = dt_copy_cuda_engine_create(gpu_id, leak, MiB);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ leak, hleak, 4096 };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);
	DT_CHECK_EQ(rte_gpu_close(gpu_id), 0);
	DT_CHECK(!rte_gpu_is_valid(gpu_id));
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	DT_CHECK_EQ(rte_vdev_uninit(VDEV_NAME), 0);
	free(hleak);
}

/* The stream-pattern check on the GPU: what devtcp-bench --verify runs. */
static void
test_verify_segments(void)
{
	const size_t len = 4 * MiB;
	uint8_t *d = rte_gpu_mem_alloc(gpu_id, len, 0);
	uint8_t *src = host_buf(len);
	struct rte_pmd_gpu_cuda_verify_seg seg[3];
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	struct dt_copy_op op;
	uint64_t bb = 99, bs = 99, t = 0;
	size_t i;
	int ret;

	DT_REQUIRE(d != NULL && src != NULL);
	/* Byte i holds stream offset 0xfffff000 + i: the offsets wrap. */
	for (i = 0; i < len; i++)
		src[i] = dt_pattern_byte((uint32_t)(0xfffff000u + i));
	ce = dt_copy_cuda_engine_create(gpu_id, d, len);
	DT_REQUIRE(ce != NULL);
	ch = dt_copy_chan_open(ce);
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ .dst = d, .src = src, .len = (uint32_t)len };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	DT_CHECK_EQ(wait_ticket(ch, t), 0);

	seg[0] = (struct rte_pmd_gpu_cuda_verify_seg){ (uintptr_t)d, 1460, 0xfffff000u };
	seg[1] = (struct rte_pmd_gpu_cuda_verify_seg){ (uintptr_t)d + 10000, 9000,
		(uint32_t)(0xfffff000u + 10000) };
	seg[2] = (struct rte_pmd_gpu_cuda_verify_seg){ (uintptr_t)d + len - 777, 777,
		(uint32_t)(0xfffff000u + len - 777) };
	ret = rte_pmd_gpu_cuda_verify_segments(gpu_id, seg, 3, &bb, &bs);
	if (ret == -ENOTSUP) {
		printf("  verification kernel not available (see log): skipped\n");
		goto out;
	}
	DT_CHECK_EQ(ret, 0);
	DT_CHECK_EQ(bb, 0);
	DT_CHECK_EQ(bs, 0);
	/* A segment checked against the wrong offset is caught, and only it. */
	seg[1].stream_off++;
	DT_CHECK_EQ(rte_pmd_gpu_cuda_verify_segments(gpu_id, seg, 3, &bb, &bs), 0);
	DT_CHECK_EQ(bs, 1);
	DT_CHECK(bb > 9000 / 2 && bb <= 9000);
	/* Addresses outside the device's allocations never reach the GPU. */
	seg[0].addr = (uintptr_t)src;
	DT_CHECK_EQ(rte_pmd_gpu_cuda_verify_segments(gpu_id, seg, 3, &bb, NULL),
		-EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_verify_segments(gpu_id, seg, 0, &bb, NULL),
		-EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_verify_segments(99, seg, 1, &bb, NULL),
		-ENODEV);
out:
	dt_copy_chan_close(ch);
	ce->ops->destroy(ce);
	host_buf_free(src);
	DT_CHECK_EQ(rte_gpu_mem_free(gpu_id, d), 0);
}

/* Host ranges sharing pages register and unregister independently. */
static void
test_host_register_shared(void)
{
	uint8_t *a = rte_malloc("tcu_a", 100000, 64);
	uint8_t *b = rte_malloc("tcu_b", 100000, 64);

	DT_REQUIRE(a != NULL && b != NULL);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_host_register(gpu_id, a, 100000), 0);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_host_register(gpu_id, b, 100000), 0);
	/* Twice the same range: counted, not refused. */
	DT_CHECK_EQ(rte_pmd_gpu_cuda_host_register(gpu_id, a, 100000), 0);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_host_unregister(gpu_id, a, 100000), 0);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_host_unregister(gpu_id, a, 100000), 0);
	/* b is still pinned: the exclusive API is refused over it. */
	DT_CHECK(rte_gpu_mem_register(gpu_id, 100000, b) != 0);
	DT_CHECK_EQ(rte_pmd_gpu_cuda_host_unregister(gpu_id, b, 100000), 0);
	/* All gone: the exclusive API works again. */
	DT_CHECK_EQ(rte_gpu_mem_register(gpu_id, 100000, b), 0);
	DT_CHECK_EQ(rte_gpu_mem_unregister(gpu_id, b), 0);
	rte_free(a);
	rte_free(b);
}

static void
test_fault_memop(void)
{
	fault(DT_COPY_CUDA_COMPLETION_MEMOP);
}

static void
test_fault_event(void)
{
	fault(DT_COPY_CUDA_COMPLETION_EVENT);
}

/* ----------------------------------------------------------------- main */

static const char *
skip_reason(int err)
{
	switch (err) {
	case ELIBACC:
		return "libcuda.so.1 cannot be loaded: no NVIDIA driver on this machine";
	case ENODEV:
		return "the NVIDIA driver sees no (such) CUDA GPU";
	case ENOTSUP:
		return "the NVIDIA driver is too old (CUDA 12.0+ needed)";
	default:
		return NULL;
	}
}

int
main(int argc, char **argv)
{
	const char *args = getenv("DT_CUDA_VDEV_ARGS");
	const char *fault_mode = getenv("DT_CUDA_FAULT");
	const char *why;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	ret = rte_vdev_init(VDEV_NAME, args != NULL ? args : "");
	if (ret < 0) {
		why = skip_reason(-ret);
		rte_eal_cleanup();
		if (why != NULL)
			DT_TEST_SKIP("gpu_cuda probe failed: %s", why);
		fprintf(stderr, "gpu_cuda probe failed: %s\n", strerror(-ret));
		return 1;
	}
	gpu_id = rte_gpu_find_next(0, RTE_GPU_ID_ANY);
	if (gpu_id < 0) {
		fprintf(stderr, "gpu_cuda probed but no gpudev id\n");
		return 1;
	}
	if (fault_mode != NULL) {
		if (strcmp(fault_mode, "memop") == 0)
			DT_RUN(test_fault_memop);
		else if (strcmp(fault_mode, "event") == 0)
			DT_RUN(test_fault_event);
		else {
			fprintf(stderr, "DT_CUDA_FAULT=%s: give memop or event\n",
				fault_mode);
			return 1;
		}
		/* No cleanup through a lost context. */
		return dt_test_summary();
	}

	DT_RUN(test_info);
	DT_RUN(test_alloc_contract);
	DT_RUN(test_register_contract);
	DT_RUN(test_cpu_map_wmb);
	DT_RUN(test_dmabuf);
	DT_RUN(test_engine_contract);
	DT_RUN(test_tickets);
	DT_RUN(test_roundtrip_1500_9000);
	DT_RUN(test_roundtrip_9000_1500);
	DT_RUN(test_roundtrip_per_copy);
	DT_RUN(test_roundtrip_batch);
	DT_RUN(test_roundtrip_staged_per_copy);
	DT_RUN(test_roundtrip_staged_odd);
	DT_RUN(test_roundtrip_stage_read_device);
	DT_RUN(test_roundtrip_events);
	DT_RUN(test_staged_exact);
	DT_RUN(test_staged_exact_read_device);
	DT_RUN(test_completion_order);
	DT_RUN(test_device_to_device);
	DT_RUN(test_poll_cost);
	DT_RUN(test_unpinned);
	DT_RUN(test_unpinned_jumbo_staged);
	DT_RUN(test_verify_segments);
	DT_RUN(test_host_register_shared);
	DT_RUN(test_dmabuf_import);
	DT_RUN(test_throughput);
	DT_RUN(test_scale_threads);
	DT_RUN(test_stage_bad_host);
	DT_RUN(test_stage_bad_device);
	DT_RUN(test_gather);
	DT_RUN(test_gather_read_device);
	DT_RUN(test_gather_per_copy_events);
	DT_RUN(test_any_address);
	DT_RUN(test_close);

	ret = dt_test_summary();
	rte_eal_cleanup();
	return ret;
}
