/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptors of the staged copy path and of gathers, shared by the copy
 * engine (host code, dt_copy_cuda_stage.c, dt_copy_cuda_gather.c) and the
 * scatter and gather kernels (gpu_cuda_kernels.cu). Internal to
 * drivers/gpu/cuda.
 */
#ifndef GPU_CUDA_SCATTER_H
#define GPU_CUDA_SCATTER_H

#include <stdint.h>

/*
 * One staged copy: @c len bytes at offset @c off of the channel's device
 * staging ring go to device address @c dst. The engine places each copy in
 * the ring so that off % 16 == dst % 16: the kernel then moves the aligned
 * middle with 16-byte loads and stores whatever the destination's
 * alignment. 16 bytes, the same layout in host and device code.
 */
struct gpu_cuda_scatter_desc {
	uint64_t dst;
	uint32_t off;
	uint32_t len;
};

/*
 * What the scatter kernel refused: a descriptor whose destination leaves
 * the engine's window, or whose bytes leave the staging ring, is not
 * copied (a write there would fault and take the whole CUDA context, and
 * NCCL's work in it, down); the kernel counts it and keeps the first one
 * here, in pinned host memory the host polls. 32 bytes.
 */
struct gpu_cuda_scatter_err {
	uint32_t bad;        /* descriptors refused (atomic on the device) */
	uint32_t first;      /* set by the one that recorded below */
	uint32_t off;
	uint32_t len;
	uint64_t dst;
	uint64_t pad;
};

/* Threads per block of the scatter kernel (one block per descriptor). */
#define GPU_CUDA_SCATTER_BLOCK 128u

/*
 * One gathered copy (dt_copy_cuda_gather.c, gpu_cuda_gather in
 * gpu_cuda_kernels.cu): @c len bytes from device address @c src (inside the
 * engine's window) to host address @c dst, inside gather target @c tgt of
 * the channel (registered, device-mapped host memory at the same address).
 * 24 bytes, the same layout in host and device code.
 */
struct gpu_cuda_gather_desc {
	uint64_t dst;
	uint64_t src;
	uint32_t len;
	uint32_t tgt;
};

/* A gather target as the kernel checks it: [base, base + len). */
struct gpu_cuda_gather_tgt {
	uint64_t base;
	uint64_t len;
};

#endif /* GPU_CUDA_SCATTER_H */
