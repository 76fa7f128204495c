/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters the plugin exports for tests and diagnostics (not NCCL's API):
 * devtcp_nccl_stats(v, n) fills v[0 .. min(n, NN_STAT__COUNT)) with the
 * sums over the process's stacks and returns how many it filled.
 */
#ifndef NN_STATS_H
#define NN_STATS_H

#include <stdint.h>

enum nn_stat {
	NN_STAT_RTX_SEGS,        /* segments sent again (any trigger) */
	NN_STAT_NAGLE_HOLDS,     /* small tails Nagle held until an ACK */
	NN_STAT_TX_FRAMES,
	NN_STAT_RX_FRAMES,
	NN_STAT_DROPS,           /* every dt_dp_stats drop_* counter, summed */
	NN_STAT_RX_THROTTLED,
	NN_STAT_STACKS,          /* stacks of the process (not a sum) */
	NN_STAT_RX_CHUNKS,       /* payload chunks received into device memory */
	NN_STAT_RX_CHUNKS_MIN,   /* the same, of the stack that received least */
	NN_STAT_WIRE_FREE,       /* software NIC wire buffers free (not a sum) */
	NN_STAT_WIRE_SIZE,       /* and in its pool */
	NN_STAT__COUNT
};

static const char *const nn_stat_names[NN_STAT__COUNT] = {
	"rtx_segs", "nagle_holds", "tx_frames", "rx_frames", "dp_drops", "rx_throttled",
	"stacks", "rx_chunks", "rx_chunks_min", "wire_free", "wire_size",
};

/** Fill @p v with up to @p n counters; @return how many were filled. */
typedef int (*nn_stats_fn)(uint64_t *v, unsigned int n);

#endif /* NN_STATS_H */
