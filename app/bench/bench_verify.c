/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batched verification of payload in device memory (see struct
 * bench_verifier). Collecting descriptors and holding mbufs is the same for
 * every backend; only the check differs: through the region's CPU alias
 * (gpu_sim, host regions) or by a kernel on the GPU (gpu_cuda, which has no
 * CPU mapping). This is verification code, outside the measured data path:
 * the zero-touch rule allows reading device bytes through a CPU mapping here.
 */
#include <stdio.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "bench.h"

int
bench_verify_cpu(struct bench_verifier *v, uint64_t *bad_bytes,
	uint64_t *bad_segs)
{
	uint64_t bb = 0, bs = 0;
	uint32_t k, i;

	for (k = 0; k < v->nseg; k++) {
		const struct bench_vseg *s = &v->seg[k];
		const uint8_t *p = v->alias + (s->addr - v->region_base);
		uint64_t bad = 0;

		for (i = 0; i < s->len; i++)
			bad += p[i] != dt_pattern_byte(s->stream_off + i);
		bb += bad;
		bs += bad != 0;
	}
	*bad_bytes = bb;
	*bad_segs = bs;
	return 0;
}

void
bench_verify_flush(struct bench_verifier *v)
{
	struct bench_result *r = v->res;
	uint64_t bad_bytes = 0, bad_segs = 0;
	int ret;

	if (v->nseg != 0) {
		ret = v->check(v, &bad_bytes, &bad_segs);
		r->verify_batches++;
		if (ret < 0) {
			/* Nothing was checked: every segment counts as failed. */
			fprintf(stderr, "devtcp-bench: device verification of %u segments failed: %s\n",
				v->nseg, rte_strerror(-ret));
			r->verify_errors += v->nseg;
		} else {
			r->verified_bytes += v->seg_bytes - bad_bytes;
			r->verify_errors += bad_segs;
		}
	}
	v->nseg = 0;
	v->seg_bytes = 0;
	if (v->nheld != 0 && v->release != NULL) {
		v->release(v->release_arg, v->held, v->nheld);
	} else if (v->nheld != 0) {
		uint32_t i;

		for (i = 0; i < v->nheld; i++)
			rte_pktmbuf_free((struct rte_mbuf *)(uintptr_t)v->held[i]);
	}
	v->nheld = 0;
}

void
bench_verify_add(struct bench_verifier *v, uintptr_t addr, uint32_t len,
	uint32_t stream_off)
{
	struct bench_vseg *s;

	if (len == 0)
		return;
	if (v->nseg == BENCH_VERIFY_SEGS)
		bench_verify_flush(v);
	s = &v->seg[v->nseg++];
	s->addr = addr;
	s->len = len;
	s->stream_off = stream_off;
	v->seg_bytes += len;
}

void
bench_verify_hold(struct bench_verifier *v, struct rte_mbuf *m)
{
	bench_verify_hold_token(v, (uint64_t)(uintptr_t)m);
}

void
bench_verify_hold_token(struct bench_verifier *v, uint64_t token)
{
	v->held[v->nheld++] = token;
	if (v->nheld == BENCH_VERIFY_FRAMES)
		bench_verify_flush(v);
}
