/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device code of gpu_cuda, compiled by nvcc into a fatbin that the driver
 * embeds and loads with cuModuleLoadData (no CUDA runtime needed).
 */

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
