/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor of the staged copy path, shared by the copy engine (host code,
 * dt_copy_cuda.c) and the scatter kernel (gpu_cuda_kernels.cu). Internal to
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

/* Threads per block of the scatter kernel (one block per descriptor). */
#define GPU_CUDA_SCATTER_BLOCK 128u

#endif /* GPU_CUDA_SCATTER_H */
