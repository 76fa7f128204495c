/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's batched payload verifier (app/bench/bench_verify.c) with
 * the CPU backend: segments are collected, mbufs held until their batch is
 * checked, batches flush when full, and a wrong byte is caught and counted
 * once per segment. The GPU backend takes the same batches (gpu_cuda tests
 * run its kernel on a GPU machine).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "bench.h"
#include "dt_test.h"

#define BUF_LEN (1u << 20)

static uint8_t *region;
static struct rte_mempool *pool;

static struct bench_verifier *
new_verifier(struct bench_result *res)
{
	struct bench_verifier *v = calloc(1, sizeof(*v));

	if (v == NULL)
		abort();
	v->check = bench_verify_cpu;
	v->alias = region;
	v->region_base = (uintptr_t)region;
	v->res = res;
	return v;
}

/* region[i] holds stream offset 1000 + i. */
static void
fill(void)
{
	uint32_t i;

	for (i = 0; i < BUF_LEN; i++)
		region[i] = dt_pattern_byte(1000 + i);
}

static void
test_good_and_bad(void)
{
	struct bench_result res = { 0 };
	struct bench_verifier *v = new_verifier(&res);

	fill();
	bench_verify_add(v, (uintptr_t)region, 1460, 1000);
	bench_verify_add(v, (uintptr_t)region + 5000, 777, 6000);
	DT_CHECK_EQ(res.verify_batches, 0);
	bench_verify_flush(v);
	DT_CHECK_EQ(res.verify_batches, 1);
	DT_CHECK_EQ(res.verified_bytes, 1460 + 777);
	DT_CHECK_EQ(res.verify_errors, 0);

	/* One wrong byte in one segment; a misplaced segment is all wrong. */
	region[100] ^= 0x5a;
	bench_verify_add(v, (uintptr_t)region, 1460, 1000);
	bench_verify_add(v, (uintptr_t)region + 4096, 512, 1001 + 4096);
	bench_verify_add(v, (uintptr_t)region + 8192, 512, 1000 + 8192);
	bench_verify_flush(v);
	DT_CHECK_EQ(res.verify_errors, 2);
	DT_CHECK(res.verified_bytes < 1460 + 777 + 1460 + 512 + 512);
	/* An empty flush checks nothing. */
	bench_verify_flush(v);
	DT_CHECK_EQ(res.verify_batches, 2);
	free(v);
}

static void
test_batching(void)
{
	struct bench_result res = { 0 };
	struct bench_verifier *v = new_verifier(&res);
	struct rte_mbuf *m;
	unsigned int i, in_use0;

	fill();
	in_use0 = rte_mempool_in_use_count(pool);
	/* Frames are held until their batch is checked, then freed. */
	for (i = 0; i < BENCH_VERIFY_FRAMES - 1; i++) {
		m = rte_pktmbuf_alloc(pool);
		DT_REQUIRE(m != NULL);
		bench_verify_add(v, (uintptr_t)region + i * 64, 64, 1000 + i * 64);
		bench_verify_hold(v, m);
	}
	DT_CHECK_EQ(res.verify_batches, 0);
	DT_CHECK_EQ(rte_mempool_in_use_count(pool), in_use0 + i);
	m = rte_pktmbuf_alloc(pool);
	DT_REQUIRE(m != NULL);
	bench_verify_hold(v, m);
	DT_CHECK_EQ(res.verify_batches, 1);
	DT_CHECK_EQ(res.verified_bytes, (uint64_t)(BENCH_VERIFY_FRAMES - 1) * 64);
	DT_CHECK_EQ(rte_mempool_in_use_count(pool), in_use0);
	DT_CHECK_EQ(v->nseg, 0);
	DT_CHECK_EQ(v->nheld, 0);

	/* A full descriptor table flushes by itself before taking more. */
	for (i = 0; i < BENCH_VERIFY_SEGS + 3; i++)
		bench_verify_add(v, (uintptr_t)region + (i % 1000) * 16, 16,
			1000 + (i % 1000) * 16);
	DT_CHECK_EQ(res.verify_batches, 2);
	DT_CHECK_EQ(v->nseg, 3);
	bench_verify_flush(v);
	DT_CHECK_EQ(res.verify_errors, 0);
	DT_CHECK_EQ(res.verified_bytes, (uint64_t)(BENCH_VERIFY_FRAMES - 1) * 64 +
		(uint64_t)(BENCH_VERIFY_SEGS + 3) * 16);
	free(v);
}

int
main(int argc, char **argv)
{
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	region = malloc(BUF_LEN);
	pool = rte_pktmbuf_pool_create("tbv_pool", 2048, 0, 0, 256,
		SOCKET_ID_ANY);
	if (region == NULL || pool == NULL) {
		fprintf(stderr, "no memory for the test\n");
		return 1;
	}
	DT_RUN(test_good_and_bad);
	DT_RUN(test_batching);
	ret = dt_test_summary();
	rte_mempool_free(pool);
	free(region);
	rte_eal_cleanup();
	return ret;
}
