/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device code of gpu_cuda, compiled by nvcc into a fatbin that the driver
 * embeds and loads with cuModuleLoadData (no CUDA runtime needed).
 */
#include <stdint.h>

#include "dt_pattern.h"
#include "rte_pmd_gpu_cuda.h"

/* Same formula as rte_pmd_gpu_cuda_pattern_byte() in rte_pmd_gpu_cuda.h. */
__device__ static unsigned char
gpu_cuda_pattern_byte(unsigned long long i, unsigned int seed)
{
	unsigned int x = (unsigned int)i * 2654435761u + seed;

	return (unsigned char)(x ^ (x >> 13) ^ (x >> 24));
}

/* Count bytes of buf[0, len) that differ from the pattern, in place. */
extern "C" __global__ void
gpu_cuda_pattern_check(const unsigned char *buf, unsigned long long len,
	unsigned int seed, unsigned long long *bad)
{
	unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x +
		threadIdx.x;
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long n = 0;

	for (; i < len; i += stride)
		if (buf[i] != gpu_cuda_pattern_byte(i, seed))
			n++;
	if (n != 0)
		atomicAdd(bad, n);
}

/*
 * Check each segment against the stream test pattern: one block per
 * segment (grid-strided over the batch), threads strided over its bytes.
 * Every thread of a block runs the same iterations of the outer loop, so
 * the block-wide __syncthreads_or is reached by all of them.
 */
extern "C" __global__ void
gpu_cuda_verify_segments(const struct rte_pmd_gpu_cuda_verify_seg *segs,
	unsigned int n, unsigned long long *bad_bytes,
	unsigned long long *bad_segs)
{
	unsigned int s;

	for (s = blockIdx.x; s < n; s += gridDim.x) {
		const unsigned char *buf =
			(const unsigned char *)(uintptr_t)segs[s].addr;
		uint32_t len = segs[s].len, off = segs[s].stream_off, i;
		unsigned long long nb = 0;

		for (i = threadIdx.x; i < len; i += blockDim.x)
			if (buf[i] != dt_pattern_byte(off + i))
				nb++;
		if (nb != 0)
			atomicAdd(bad_bytes, nb);
		if (__syncthreads_or(nb != 0) && threadIdx.x == 0)
			atomicAdd(bad_segs, 1ull);
	}
}
