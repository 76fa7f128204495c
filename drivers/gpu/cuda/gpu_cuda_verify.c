/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verification of device memory on the device: a kernel compares bytes in
 * place with the test pattern, so checking what a copy engine landed needs
 * neither a CPU mapping nor a copy back.
 */
#include <errno.h>
#include <inttypes.h>

#include <rte_common.h>

#include "gpu_cuda_priv.h"
#include "rte_pmd_gpu_cuda.h"

#ifdef GPU_CUDA_HAVE_KERNELS
/* The fatbin nvcc built from gpu_cuda_kernels.cu (see meson.build). */
extern const unsigned char gpu_cuda_kernels_fatbin[];
extern const size_t gpu_cuda_kernels_fatbin_len;

#define GPU_CUDA_CHECK_BLOCK 256u

/* Load the module once per device; the context is current. */
int
gpu_cuda_kernels_load(struct gpu_cuda_priv *p)
{
	CUresult res = CUDA_SUCCESS;

	rte_rwlock_write_lock(&p->lock);
	if (p->module == NULL) {
		res = p->api.cuModuleLoadData(&p->module,
			gpu_cuda_kernels_fatbin);
		if (res == CUDA_SUCCESS)
			res = p->api.cuModuleGetFunction(&p->fn_pattern_check,
				p->module, "gpu_cuda_pattern_check");
		if (res == CUDA_SUCCESS)
			res = p->api.cuModuleGetFunction(&p->fn_verify_segments,
				p->module, "gpu_cuda_verify_segments");
		if (res == CUDA_SUCCESS)
			res = p->api.cuModuleGetFunction(&p->fn_scatter,
				p->module, "gpu_cuda_scatter");
		if (res == CUDA_SUCCESS)
			res = p->api.cuModuleGetFunction(&p->fn_gather,
				p->module, "gpu_cuda_gather");
		if (res == CUDA_SUCCESS)
			res = p->api.cuModuleGetFunction(&p->fn_trap,
				p->module, "gpu_cuda_trap");
		if (res != CUDA_SUCCESS && p->module != NULL) {
			p->api.cuModuleUnload(p->module);
			p->module = NULL;
		}
	}
	rte_rwlock_write_unlock(&p->lock);
	if (res == CUDA_SUCCESS)
		return 0;
	GPU_CUDA_LOG(ERR, "loading the embedded kernels (sm_90 + PTX) failed: %s",
		gpu_cuda_strerror(&p->api, res));
	return -ENOTSUP;
}

/* Launch the check on its own stream and wait for the count. */
static int
gpu_cuda_pattern_launch(struct gpu_cuda_priv *p, const void *ptr,
	unsigned long long len, unsigned int seed, uint64_t *bad)
{
	unsigned long long bad_h = 0;
	unsigned int grid;
	CUdeviceptr buf = (CUdeviceptr)(uintptr_t)ptr, bad_d = 0;
	CUstream s = NULL;
	CUresult res;
	void *args[] = { &buf, &len, &seed, &bad_d };

	grid = (unsigned int)RTE_MIN((len + GPU_CUDA_CHECK_BLOCK - 1) /
		GPU_CUDA_CHECK_BLOCK, 4096ull);
	res = p->api.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemAlloc(&bad_d, sizeof(bad_h));
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemsetD8Async(bad_d, 0, sizeof(bad_h), s);
	if (res == CUDA_SUCCESS)
		res = p->api.cuLaunchKernel(p->fn_pattern_check, grid, 1, 1,
			GPU_CUDA_CHECK_BLOCK, 1, 1, 0, s, args, NULL);
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemcpyDtoHAsync(&bad_h, bad_d, sizeof(bad_h), s);
	if (res == CUDA_SUCCESS)
		res = p->api.cuStreamSynchronize(s);
	if (bad_d != 0)
		p->api.cuMemFree(bad_d);
	if (s != NULL)
		p->api.cuStreamDestroy(s);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "pattern check kernel failed: %s",
			gpu_cuda_strerror(&p->api, res));
		return -EIO;
	}
	*bad = bad_h;
	return 0;
}

int
rte_pmd_gpu_cuda_pattern_check(int16_t dev_id, const void *ptr, size_t len,
	uint32_t seed, uint64_t *mismatches)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	int idx, pushed, ret;

	if (p == NULL)
		return -ENODEV;
	rte_rwlock_read_lock(&p->lock);
	idx = gpu_cuda_ranges_find(&p->allocs, (uintptr_t)ptr, len);
	rte_rwlock_read_unlock(&p->lock);
	if (idx < 0 || len == 0 || mismatches == NULL) {
		GPU_CUDA_LOG(ERR, "pattern_check: [%p, +%zu) is not inside one allocation of gpudev %d",
			ptr, len, dev_id);
		return -EINVAL;
	}
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	ret = gpu_cuda_kernels_load(p);
	if (ret == 0)
		ret = gpu_cuda_pattern_launch(p, ptr, len, seed, mismatches);
	gpu_cuda_ctx_leave(p, pushed);
	return ret;
}

/* Segments per block-grid: one block per segment, up to this many blocks. */
#define GPU_CUDA_VERIFY_GRID_MAX 4096u

/* Copy the batch to the GPU, launch the check and wait for its counts. */
static int
gpu_cuda_verify_launch(struct gpu_cuda_priv *p,
	const struct rte_pmd_gpu_cuda_verify_seg *segs, unsigned int n,
	uint64_t *bad_bytes, uint64_t *bad_segs)
{
	unsigned long long counts[2] = { 0, 0 };
	size_t seg_bytes = (size_t)n * sizeof(*segs);
	CUdeviceptr segs_d = 0, counts_d = 0, bb_d, bs_d;
	unsigned int grid = RTE_MIN(n, GPU_CUDA_VERIFY_GRID_MAX);
	CUstream s = NULL;
	CUresult res;
	void *args[] = { &segs_d, &n, &bb_d, &bs_d };

	res = p->api.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemAlloc(&segs_d, seg_bytes);
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemAlloc(&counts_d, sizeof(counts));
	bb_d = counts_d;
	bs_d = counts_d + sizeof(counts[0]);
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemcpyHtoDAsync(segs_d, segs, seg_bytes, s);
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemsetD8Async(counts_d, 0, sizeof(counts), s);
	if (res == CUDA_SUCCESS)
		res = p->api.cuLaunchKernel(p->fn_verify_segments, grid, 1, 1,
			GPU_CUDA_CHECK_BLOCK, 1, 1, 0, s, args, NULL);
	if (res == CUDA_SUCCESS)
		res = p->api.cuMemcpyDtoHAsync(counts, counts_d, sizeof(counts), s);
	if (res == CUDA_SUCCESS)
		res = p->api.cuStreamSynchronize(s);
	if (counts_d != 0)
		p->api.cuMemFree(counts_d);
	if (segs_d != 0)
		p->api.cuMemFree(segs_d);
	if (s != NULL)
		p->api.cuStreamDestroy(s);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "verify_segments kernel failed: %s",
			gpu_cuda_strerror(&p->api, res));
		return -EIO;
	}
	*bad_bytes = counts[0];
	if (bad_segs != NULL)
		*bad_segs = counts[1];
	return 0;
}

int
rte_pmd_gpu_cuda_verify_segments(int16_t dev_id,
	const struct rte_pmd_gpu_cuda_verify_seg *segs, uint32_t n,
	uint64_t *bad_bytes, uint64_t *bad_segs)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	uint32_t i, bad = UINT32_MAX;
	int pushed, ret;

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "verify_segments: gpudev %d is not a gpu_cuda device",
			dev_id);
		return -ENODEV;
	}
	if (segs == NULL || bad_bytes == NULL || n == 0 ||
			n > RTE_PMD_GPU_CUDA_VERIFY_MAX) {
		GPU_CUDA_LOG(ERR, "verify_segments: bad arguments (%u segments, 1..%u)",
			n, RTE_PMD_GPU_CUDA_VERIFY_MAX);
		return -EINVAL;
	}
	/* A kernel reading outside our allocations would kill the context. */
	rte_rwlock_read_lock(&p->lock);
	for (i = 0; i < n && bad == UINT32_MAX; i++)
		if (segs[i].len == 0 || gpu_cuda_ranges_find(&p->allocs,
				(uintptr_t)segs[i].addr, segs[i].len) < 0)
			bad = i;
	rte_rwlock_read_unlock(&p->lock);
	if (bad != UINT32_MAX) {
		GPU_CUDA_LOG(ERR, "verify_segments: segment %u [0x%" PRIx64 ", +%u) is empty or not inside one allocation of gpudev %d",
			bad, segs[bad].addr, segs[bad].len, dev_id);
		return -EINVAL;
	}
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	ret = gpu_cuda_kernels_load(p);
	if (ret == 0)
		ret = gpu_cuda_verify_launch(p, segs, n, bad_bytes, bad_segs);
	gpu_cuda_ctx_leave(p, pushed);
	return ret;
}

#else /* !GPU_CUDA_HAVE_KERNELS */

int
rte_pmd_gpu_cuda_pattern_check(int16_t dev_id, const void *ptr, size_t len,
	uint32_t seed, uint64_t *mismatches)
{
	GPU_CUDA_LOG(ERR, "pattern_check: gpu_cuda was built without nvcc, so it has no kernels");
	return -ENOTSUP;
}

#endif /* GPU_CUDA_HAVE_KERNELS */

#ifndef GPU_CUDA_HAVE_KERNELS
int
gpu_cuda_kernels_load(struct gpu_cuda_priv *p)
{
	RTE_SET_USED(p);
	GPU_CUDA_LOG(WARNING, "gpu_cuda was built without nvcc, so it has no kernels");
	return -ENOTSUP;
}

int
rte_pmd_gpu_cuda_verify_segments(int16_t dev_id,
	const struct rte_pmd_gpu_cuda_verify_seg *segs, uint32_t n,
	uint64_t *bad_bytes, uint64_t *bad_segs)
{
	RTE_SET_USED(dev_id);
	RTE_SET_USED(segs);
	RTE_SET_USED(n);
	RTE_SET_USED(bad_bytes);
	RTE_SET_USED(bad_segs);
	GPU_CUDA_LOG(ERR, "verify_segments: gpu_cuda was built without nvcc, so it has no kernels");
	return -ENOTSUP;
}
#endif
