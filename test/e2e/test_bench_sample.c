/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's per-second samples (app/bench/bench_sample.c), no EAL:
 * samples tile the run (each starts where the last ended), their counts
 * add up to the totals given, an empty interval is refused, a counter that
 * went backwards (a failed run zeroes its figures) adds nothing, and the
 * array grows past its first allocation.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "dt_test.h"

static void
test_tiling(void)
{
	struct bench_result r = { .mode = BENCH_MODE_SPLIT };
	struct bench_sampler sp = { 0 };
	const struct bench_sample *s;
	uint64_t bytes = 0, sum = 0;
	uint32_t i;

	/* 100 intervals: more than the first allocation holds. */
	for (i = 1; i <= 100; i++) {
		bytes += 1000 * i;
		s = bench_sample_take(&r, &sp, i * 0.5, bytes, 2 * i, i / 10);
		DT_REQUIRE(s != NULL);
		DT_CHECK_EQ(s->bytes, 1000ull * i);
	}
	DT_CHECK_EQ(r.nb_samples, 100u);
	for (i = 0; i < r.nb_samples; i++) {
		DT_CHECK(r.samples[i].dt > 0.49 && r.samples[i].dt < 0.51);
		DT_CHECK(i == 0 || r.samples[i].t - r.samples[i].dt ==
			r.samples[i - 1].t);
		sum += r.samples[i].bytes;
	}
	DT_CHECK_EQ(sum, bytes);
	DT_CHECK_EQ(r.samples[0].t - r.samples[0].dt, 0.0);
	DT_CHECK_EQ(r.samples[99].frames, 2ull);
	DT_CHECK_EQ(r.samples[99].retransmits, 10ull - 9);
	bench_samples_free(&r);
	DT_CHECK(r.samples == NULL && r.nb_samples == 0 && r.samples_cap == 0);
}

static void
test_empty_and_backwards(void)
{
	struct bench_result r = { .mode = BENCH_MODE_SPLIT };
	struct bench_sampler sp = { 0 };
	const struct bench_sample *s;

	DT_CHECK(bench_sample_take(&r, &sp, 0, 10, 1, 0) == NULL);
	DT_REQUIRE(bench_sample_take(&r, &sp, 1.0, 5000, 10, 3) != NULL);
	DT_CHECK(bench_sample_take(&r, &sp, 1.0, 6000, 11, 3) == NULL);
	DT_CHECK(bench_sample_take(&r, &sp, 0.5, 6000, 11, 3) == NULL);
	/* A failed run zeroed its counters: the interval counts nothing. */
	s = bench_sample_take(&r, &sp, 1.25, 0, 0, 0);
	DT_REQUIRE(s != NULL);
	DT_CHECK(s->bytes == 0 && s->frames == 0 && s->retransmits == 0);
	DT_CHECK(s->dt == 0.25);
	DT_CHECK_EQ(r.nb_samples, 2u);
	bench_samples_free(&r);
}

int
main(void)
{
	DT_RUN(test_tiling);
	DT_RUN(test_empty_and_backwards);
	return dt_test_summary();
}
