/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-second samples of a run: the figures of the live line, kept for the
 * JSON whether the line is printed or not (--quiet). A run's samples tile
 * its time: each starts where the previous one ended, the last one ends
 * when the run's counters stopped, so they add up to the run's totals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define BENCH_SAMPLES_MIN 16

static int
samples_grow(struct bench_result *r)
{
	uint32_t cap = r->samples_cap ? 2 * r->samples_cap : BENCH_SAMPLES_MIN;
	struct bench_sample *s;

	s = realloc(r->samples, (size_t)cap * sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	r->samples = s;
	r->samples_cap = cap;
	return 0;
}

/* A counter's growth; one a failed run zeroed grew by nothing. */
static uint64_t
since(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

const struct bench_sample *
bench_sample_take(struct bench_result *r, struct bench_sampler *sp, double t,
	uint64_t bytes, uint64_t frames, uint64_t retransmits)
{
	struct bench_sample *s;

	if (t <= sp->t)
		return NULL;
	if (r->nb_samples == r->samples_cap && samples_grow(r) != 0) {
		/* Nothing silent: the JSON then lacks the tail, and says so here. */
		if (r->samples_lost++ == 0)
			fprintf(stderr, "devtcp-bench: %s: out of memory for per-second samples after %u: the JSON's are incomplete\n",
				bench_mode_name(r->mode), r->nb_samples);
		return NULL;
	}
	s = &r->samples[r->nb_samples++];
	*s = (struct bench_sample){ .t = t, .dt = t - sp->t,
		.bytes = since(bytes, sp->bytes),
		.frames = since(frames, sp->frames),
		.retransmits = since(retransmits, sp->retransmits) };
	*sp = (struct bench_sampler){ .t = t, .bytes = bytes, .frames = frames,
		.retransmits = retransmits };
	return s;
}

void
bench_samples_free(struct bench_result *r)
{
	free(r->samples);
	r->samples = NULL;
	r->nb_samples = 0;
	r->samples_cap = 0;
}
