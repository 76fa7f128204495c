/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device code of gpu_cuda, compiled by nvcc into a fatbin that the driver
 * embeds and loads with cuModuleLoadData (no CUDA runtime needed).
 */
#include <stdint.h>

#include "dt_pattern.h"
#include "gpu_cuda_scatter.h"
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

/* Record a descriptor a kernel refused, once, where the host polls it. */
__device__ static void
gpu_cuda_refuse(struct gpu_cuda_scatter_err *err, uint64_t dst, uint32_t off,
	uint32_t len)
{
	atomicAdd(&err->bad, 1u);
	if (atomicCAS(&err->first, 0u, 1u) == 0u) {
		err->dst = dst;
		err->off = off;
		err->len = len;
	}
	/* Seen by the host before the submit's word. */
	__threadfence_system();
}

/*
 * Staged copies (dt_copy_cuda_stage.c): the engine packed the bytes of many small
 * host->device copies into the staging ring and copied them, with these
 * descriptors, to the device in one call; this scatters them to their
 * destinations. One block per descriptor (grid-strided), threads strided
 * over the copy. Source and destination agree modulo 16 (the engine placed
 * them so), so a few head bytes bring both to 16-byte alignment and the
 * middle moves in uint4 loads and stores; the tail goes byte by byte.
 */
extern "C" __global__ void
gpu_cuda_scatter(const struct gpu_cuda_scatter_desc *descs, unsigned int n,
	const unsigned char *stage, unsigned int stage_len,
	unsigned long long win, unsigned long long win_len,
	struct gpu_cuda_scatter_err *err)
{
	unsigned int s;

	for (s = blockIdx.x; s < n; s += gridDim.x) {
		unsigned char *dst = (unsigned char *)(uintptr_t)descs[s].dst;
		const unsigned char *src = stage + descs[s].off;
		uint32_t len = descs[s].len;
		uint32_t head = (uint32_t)((16u - ((uintptr_t)dst & 15u)) & 15u);
		unsigned long long woff = (unsigned long long)(uintptr_t)dst - win;
		uint32_t nvec, i;
		const uint4 *vs;
		uint4 *vd;

		/* Every thread of the block decides alike: no barrier needed. */
		if (woff >= win_len || len > win_len - woff ||
				descs[s].off > stage_len ||
				len > stage_len - descs[s].off) {
			if (threadIdx.x == 0)
				gpu_cuda_refuse(err, descs[s].dst, descs[s].off,
					len);
			continue;
		}

		if (head > len)
			head = len;
		if (threadIdx.x < head)
			dst[threadIdx.x] = src[threadIdx.x];
		nvec = (len - head) / 16u;
		vs = (const uint4 *)(src + head);
		vd = (uint4 *)(dst + head);
		for (i = threadIdx.x; i < nvec; i += blockDim.x)
			vd[i] = vs[i];
		for (i = head + nvec * 16u + threadIdx.x; i < len; i += blockDim.x)
			dst[i] = src[i];
	}
}

/*
 * Gathers (dt_copy_cuda_gather.c): each descriptor moves one copy from the
 * engine's window in device memory to registered, device-mapped host
 * memory (a NIC's wire buffers), so that a burst of frames is one launch
 * instead of a DMA call per frame. One block per descriptor (grid-strided),
 * threads strided over the copy. Stores go over PCIe: the destination is
 * brought to 16-byte alignment by a few head bytes and written in uint4
 * stores, whatever the source's alignment (16-byte loads when it agrees,
 * byte loads from the cache when not). A descriptor whose source leaves
 * the window or whose destination leaves its target is not copied (a
 * stray write to host memory would fault the context or corrupt the
 * process): it is counted in @p err and the host stops the channel.
 */
extern "C" __global__ void
gpu_cuda_gather(const struct gpu_cuda_gather_desc *descs, unsigned int n,
	const struct gpu_cuda_gather_tgt *tgts, unsigned int ntgt,
	unsigned long long win, unsigned long long win_len,
	struct gpu_cuda_scatter_err *err)
{
	unsigned int s;

	for (s = blockIdx.x; s < n; s += gridDim.x) {
		unsigned char *dst = (unsigned char *)(uintptr_t)descs[s].dst;
		const unsigned char *src =
			(const unsigned char *)(uintptr_t)descs[s].src;
		uint32_t len = descs[s].len, t = descs[s].tgt;
		unsigned long long soff = (unsigned long long)(uintptr_t)src - win;
		unsigned long long doff;
		uint32_t head, nvec, i, j;
		const unsigned char *ss;
		uint4 *vd;

		/* Every thread of the block decides alike: no barrier needed. */
		doff = t < ntgt ? (unsigned long long)(uintptr_t)dst - tgts[t].base : 0;
		if (soff >= win_len || len > win_len - soff || t >= ntgt ||
				doff >= tgts[t].len || len > tgts[t].len - doff) {
			if (threadIdx.x == 0)
				gpu_cuda_refuse(err, descs[s].dst, (uint32_t)soff,
					len);
			continue;
		}
		head = (uint32_t)((16u - ((uintptr_t)dst & 15u)) & 15u);
		if (head > len)
			head = len;
		if (threadIdx.x < head)
			dst[threadIdx.x] = src[threadIdx.x];
		nvec = (len - head) / 16u;
		ss = src + head;
		vd = (uint4 *)(dst + head);
		if (((uintptr_t)ss & 15u) == 0) {
			const uint4 *vs = (const uint4 *)ss;

			for (i = threadIdx.x; i < nvec; i += blockDim.x)
				vd[i] = vs[i];
		} else {
			for (i = threadIdx.x; i < nvec; i += blockDim.x) {
				union {
					uint4 v;
					unsigned char b[16];
				} u;

				for (j = 0; j < 16u; j++)
					u.b[j] = ss[i * 16u + j];
				vd[i] = u.v;
			}
		}
		for (i = head + nvec * 16u + threadIdx.x; i < len; i += blockDim.x)
			dst[i] = src[i];
	}
	/* The host reads the bytes once the submit's word moves. */
	__threadfence_system();
}

/*
 * For tests (dt_copy_cuda_chan_test_fault()): fail on the GPU, as a copy
 * to a bad address would, so that the engine's error path can be checked.
 */
extern "C" __global__ void
gpu_cuda_trap(void)
{
	asm volatile("trap;");
}
