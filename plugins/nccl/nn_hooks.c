/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's own exports beside NCCL's tables (nn.map): hooks for the
 * harness (test/nccl) and for diagnostics, never called by NCCL.
 */
#include <string.h>

#include "nn_report.h"
#include "nn_stats.h"

#define NN_EXPORT __attribute__((visibility("default")))

/**
 * Test hook (not NCCL's): the payload region as the CPU sees it (gpu_sim's
 * alias), for a harness that plays NCCL's unpack kernel; NULL without one.
 */
NN_EXPORT void *devtcp_nccl_region_cpu(void);
void *
devtcp_nccl_region_cpu(void)
{
	struct nn_rt *rt = nn_rt_get();

	return rt != NULL && rt->region != NULL ?
		dt_devmem_region_cpu_map(rt->region) : NULL;
}

/** Test hook (not NCCL's): stop the stacks and close the port. */
NN_EXPORT void devtcp_nccl_shutdown(void);
void
devtcp_nccl_shutdown(void)
{
	nn_rt_shutdown();
}

static void
stats_conn(dt_dp_conn_t conn, const struct dt_dp_conn_stats *cs, void *arg)
{
	uint64_t *v = arg;

	v[NN_STAT_RTX_SEGS] += cs->retransmits;
	v[NN_STAT_NAGLE_HOLDS] += cs->nagle_holds;
}

/**
 * Test and diagnostic hook (not NCCL's): counters of every stack, summed
 * (nn_stats.h). It reads the stacks from the calling thread: call it when
 * the comms are quiet (after a transfer), as the harness does.
 */
NN_EXPORT int devtcp_nccl_stats(uint64_t *out, unsigned int n);
int
devtcp_nccl_stats(uint64_t *out, unsigned int n)
{
	struct nn_rt *rt = nn_rt_get();
	uint64_t v[NN_STAT__COUNT] = { 0 };
	struct dt_dp_stats st;
	unsigned int i;

	if (rt == NULL)
		return 0;
	for (i = 0; i < rt->nb_stacks; i++) {
		dt_dp_stats_get(rt->stacks[i]->st, &st);
		v[NN_STAT_TX_FRAMES] += st.tx_frames;
		v[NN_STAT_RX_FRAMES] += st.rx_frames;
		v[NN_STAT_DROPS] += nn_dp_drops(&st);
		v[NN_STAT_RX_THROTTLED] += st.rx_throttled;
		v[NN_STAT_RX_CHUNKS] += st.device_chunks;
		if (i == 0 || st.device_chunks < v[NN_STAT_RX_CHUNKS_MIN])
			v[NN_STAT_RX_CHUNKS_MIN] = st.device_chunks;
		dt_dp_conn_foreach(rt->stacks[i]->st, stats_conn, v);
	}
	v[NN_STAT_STACKS] = rt->nb_stacks;
	nn_wire_pool_count(rt, &v[NN_STAT_WIRE_FREE], &v[NN_STAT_WIRE_SIZE]);
	n = RTE_MIN(n, (unsigned int)NN_STAT__COUNT);
	memcpy(out, v, n * sizeof(v[0]));
	return (int)n;
}
