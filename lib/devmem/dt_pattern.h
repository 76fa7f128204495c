/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The stream test pattern: the byte a test sender puts at each offset of a
 * byte stream, so that a receiver checks every payload byte from its stream
 * offset alone (for TCP, the sequence number), with no state shared with
 * the sender.
 *
 * One definition for host code (C) and device code (CUDA): benchmarks fill
 * and check on the CPU, and gpu_cuda's verification kernel checks in place
 * in device memory with this same function. Header only, no includes beyond
 * <stdint.h>, so that nvcc compiles it too.
 */
#ifndef DT_PATTERN_H
#define DT_PATTERN_H

#include <stdint.h>

#ifdef __CUDACC__
#define DT_PATTERN_FN __host__ __device__ static inline
#else
#define DT_PATTERN_FN static inline
#endif

/**
 * The pattern's multiplier (Knuth's 2^32 / phi): byte o is the top byte of
 * o * DT_PATTERN_MUL, so a filler may step the product by it per byte.
 */
#define DT_PATTERN_MUL 2654435761u

/**
 * Byte at offset @p stream_off of the test stream. A multiplicative hash
 * (Knuth's 2^32 / phi), so that neighbouring bytes differ and a shifted or
 * misplaced copy is caught; offsets wrap at 2^32 like TCP sequence numbers.
 */
DT_PATTERN_FN uint8_t
dt_pattern_byte(uint32_t stream_off)
{
	return (uint8_t)((stream_off * DT_PATTERN_MUL) >> 24);
}

#endif /* DT_PATTERN_H */
