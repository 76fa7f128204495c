/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench's glue to the CUDA gpudev driver: registering the host memory
 * that CUDA copies read (without it every copy is staged and synchronous),
 * and verifying payload on the GPU, which has no CPU mapping. Built without
 * gpu_cuda, no device is a CUDA one and these are never reached.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_mempool.h>

#include "bench.h"
#ifdef BENCH_HAVE_GPU_CUDA
#include "rte_pmd_gpu_cuda.h"
#endif

bool
bench_gpu_is_cuda(int16_t gpu_id)
{
#ifdef BENCH_HAVE_GPU_CUDA
	static const char drv[] = "gpu_cuda";
	struct rte_gpu_info info;

	/* vdev device names start with their driver's name. */
	return gpu_id >= 0 && rte_gpu_info_get(gpu_id, &info) == 0 &&
		info.name != NULL && strncmp(info.name, drv, strlen(drv)) == 0;
#else
	RTE_SET_USED(gpu_id);
	return false;
#endif
}

#ifdef BENCH_HAVE_GPU_CUDA

/* The descriptor layouts must agree: the batch goes to the GPU as is. */
static_assert(sizeof(struct bench_vseg) ==
		sizeof(struct rte_pmd_gpu_cuda_verify_seg) &&
	offsetof(struct bench_vseg, addr) ==
		offsetof(struct rte_pmd_gpu_cuda_verify_seg, addr) &&
	offsetof(struct bench_vseg, len) ==
		offsetof(struct rte_pmd_gpu_cuda_verify_seg, len) &&
	offsetof(struct bench_vseg, stream_off) ==
		offsetof(struct rte_pmd_gpu_cuda_verify_seg, stream_off),
	"bench_vseg is rte_pmd_gpu_cuda_verify_seg");
static_assert(BENCH_VERIFY_SEGS <= RTE_PMD_GPU_CUDA_VERIFY_MAX,
	"a verification batch fits one kernel launch");

int
bench_verify_cuda(struct bench_verifier *v, uint64_t *bad_bytes,
	uint64_t *bad_segs)
{
	return rte_pmd_gpu_cuda_verify_segments(v->gpu_id,
		(const struct rte_pmd_gpu_cuda_verify_seg *)v->seg, v->nseg,
		bad_bytes, bad_segs);
}

bool
bench_gpu_register(int16_t gpu_id, struct bench_gpu_reg *r)
{
	bool all = true;
	unsigned int i;
	int ret;

	for (i = 0; i < BENCH_GPU_REG_POOLS; i++) {
		if (r->pool[i] == NULL)
			continue;
		ret = rte_pmd_gpu_cuda_mempool_register(gpu_id, r->pool[i]);
		r->pool_ok[i] = ret == 0;
		if (ret != 0) {
			fprintf(stderr, "devtcp-bench: warning: cannot register mempool %s with the GPU (%s): CUDA copies from it are synchronous and slow; figures are low\n",
				r->pool[i]->name, rte_strerror(-ret));
			all = false;
		}
	}
	if (r->buf != NULL) {
		ret = rte_pmd_gpu_cuda_host_register(gpu_id, r->buf, r->buf_len);
		r->buf_ok = ret == 0;
		if (ret != 0) {
			fprintf(stderr, "devtcp-bench: warning: cannot register the ceiling's source buffer with the GPU (%s): the ceiling is that of unpinned copies\n",
				rte_strerror(-ret));
			all = false;
		}
	}
	return all;
}

void
bench_gpu_unregister(int16_t gpu_id, struct bench_gpu_reg *r)
{
	unsigned int i;

	/* Registrations are shared by page: drop only our own. */
	for (i = 0; i < BENCH_GPU_REG_POOLS; i++) {
		if (r->pool_ok[i])
			rte_pmd_gpu_cuda_mempool_unregister(gpu_id, r->pool[i]);
		r->pool_ok[i] = false;
	}
	if (r->buf_ok)
		rte_pmd_gpu_cuda_host_unregister(gpu_id, r->buf, r->buf_len);
	r->buf_ok = false;
}

#else /* !BENCH_HAVE_GPU_CUDA */

int
bench_verify_cuda(struct bench_verifier *v, uint64_t *bad_bytes,
	uint64_t *bad_segs)
{
	RTE_SET_USED(v);
	RTE_SET_USED(bad_bytes);
	RTE_SET_USED(bad_segs);
	return -ENOTSUP;
}

bool
bench_gpu_register(int16_t gpu_id, struct bench_gpu_reg *r)
{
	RTE_SET_USED(gpu_id);
	RTE_SET_USED(r);
	return false;
}

void
bench_gpu_unregister(int16_t gpu_id, struct bench_gpu_reg *r)
{
	RTE_SET_USED(gpu_id);
	RTE_SET_USED(r);
}

#endif /* BENCH_HAVE_GPU_CUDA */
