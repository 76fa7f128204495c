/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration: what the send and receive paths need to reach
 * NCCL's buffers without the CPU touching device bytes.
 *  - host memory: its IOVA, for sends by reference;
 *  - gpu_sim memory: the simulator's device-side mapping (the receive
 *    gather's destination, written by the payload region's engine) and,
 *    for a send comm, a copy engine in lib/devmem's registry through which
 *    the software NIC reads send payload;
 *  - CUDA memory: for a send comm, a CUDA copy engine in the registry (the
 *    software NIC's TX gathers from it); receives go through the stacks'
 *    CUDA channels.
 * The registry holds DT_COPY_REGISTRY_MAX windows per process: NCCL
 * registers one buffer per connection, well below that for a few peers.
 *
 * Device registrations are cached by range and kept until the process
 * ends: the software NIC caches the engines it found for a TX queue, so an
 * engine must outlive every queue that may have looked it up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_memory.h>
#include <rte_pause.h>

#include "nn_rt.h"
#include "rte_pmd_gpu_sim.h"

/*
 * CUDA multiplexes a context's streams onto CUDA_DEVICE_MAX_CONNECTIONS
 * hardware queues (8 unless set before the context exists). Streams that
 * share a queue run in order: a copy of ours queued behind NCCL's
 * persistent kernel waits for that kernel, which waits for the copy. On the
 * H200 (bench/results/2026-12-01-h200-nccl3) every 4-stack run stalled at
 * the default 8, one with 32 completed, and one with more streams than 32
 * stalled again: the likeliest reading, not a proof. Say so once.
 * Per stack: its region channel, its gather channel, its RX queue's
 * channel, and one channel per send engine in its TX queue.
 */
void
nn_cuda_streams_check(struct nn_rt *rt)
{
	const char *env = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
	unsigned int conns = env != NULL ? (unsigned int)atoi(env) : 8;
	unsigned int streams = rt->nb_stacks * (3u + rt->nb_tx_engines);

	if (conns == 0)
		conns = 8;
	if (streams <= conns || rt->streams_warned)
		return;
	rt->streams_warned = true;
	NN_WARN("about %u CUDA streams (%u stacks x (3 + %u send engines)) share "
		"CUDA_DEVICE_MAX_CONNECTIONS=%u hardware queues with NCCL's kernels: "
		"a copy queued behind a kernel that waits for it stalls the comm; set "
		"CUDA_DEVICE_MAX_CONNECTIONS=32 before the process starts CUDA, and "
		"use fewer stacks or NCCL channels if %u still exceeds it",
		streams, rt->nb_stacks, rt->nb_tx_engines, conns, streams);
}

static void
mr_lock(struct nn_rt *rt)
{
	uint32_t zero;

	do {
		zero = 0;
		rte_pause();
	} while (!__atomic_compare_exchange_n(&rt->mr_lock, &zero, 1, false,
			__ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
}

static void
mr_unlock(struct nn_rt *rt)
{
	__atomic_store_n(&rt->mr_lock, 0, __ATOMIC_RELEASE);
}

/*
 * A NIC on a bus (mlx5, ice) reads send payload itself: make the buffer
 * external memory of EAL and DMA-map it to the NIC, IOVA = VA (for GPU
 * memory the NIC's driver needs peer-memory support, nvidia-peermem or
 * dma-buf). A vdev (net_hsplit) reads through the registry instead.
 */
static void
mr_dma_map(struct nn_rt *rt, struct nn_mr *mr)
{
	struct rte_eth_dev_info info;
	uintptr_t lo = RTE_ALIGN_FLOOR(mr->base, 4096);
	uintptr_t hi = RTE_ALIGN_CEIL(mr->base + mr->len, 4096);

	if (rte_eth_dev_info_get(rt->port_id, &info) != 0 || info.device == NULL ||
			strcmp(rte_bus_name(rte_dev_bus(info.device)), "vdev") == 0)
		return;
	if (rte_extmem_register((void *)lo, hi - lo, NULL, 0, 4096) != 0 &&
			rte_errno != EEXIST) {
		NN_WARN("regMr: rte_extmem_register of [%p, +%zu) failed: %s; sends "
			"from it cannot be read by the NIC", (void *)mr->base, mr->len,
			rte_strerror(rte_errno));
		return;
	}
	if (rte_dev_dma_map(info.device, (void *)lo, lo, hi - lo) != 0) {
		NN_WARN("regMr: rte_dev_dma_map of [%p, +%zu) to the NIC failed: %s",
			(void *)mr->base, mr->len, rte_strerror(rte_errno));
		return;
	}
	mr->iova = mr->base;
}

/*
 * A CUDA send buffer: one engine for all of them (CUDA copies by unified
 * address, so an engine needs no window of its own), each buffer one more
 * window of it in the registry. net_hsplit then opens one channel, one
 * CUDA stream, per TX queue for every NCCL buffer, not one per buffer: with
 * 4 NCCL channels there were 8 per queue, and streams beyond the context's
 * hardware queues stall (nn_cuda_streams_check()).
 */
static int
mr_cuda_send(struct nn_rt *rt, struct nn_mr *mr)
{
	int rc;

	if (rt->tx_cuda_ce == NULL) {
		rt->tx_cuda_ce = nn_cuda_engine_create(rt, (void *)mr->base,
			mr->len);
		if (rt->tx_cuda_ce == NULL) {
			NN_WARN("regMr: no CUDA copy engine for send buffers: %s",
				rte_strerror(rte_errno));
			return -rte_errno;
		}
		rt->nb_tx_engines++;
		nn_cuda_streams_check(rt);
	}
	rc = dt_copy_registry_add_range(rt->tx_cuda_ce, (void *)mr->base, mr->len);
	if (rc != 0) {
		NN_WARN("regMr: cannot register device buffer [%p, +%zu) for sends: %s",
			(void *)mr->base, mr->len, strerror(-rc));
		return rc;
	}
	mr->tx_ce = rt->tx_cuda_ce;
	return 0;
}

static int
mr_device(struct nn_rt *rt, struct nn_mr *mr, bool for_send)
{
	void *dev_side = NULL;
	int rc;

	if (rt->gpu_id != RTE_GPU_ID_NONE && !rt->gpu_cuda) {
		mr->kind = NN_MR_SIM;
		rc = rte_pmd_gpu_sim_dev_side(rt->gpu_id, (void *)mr->base, mr->len,
			&dev_side);
		if (rc != 0) {
			NN_WARN("regMr: [%p, +%zu) is not gpu_sim memory of gpudev %d: %s",
				(void *)mr->base, mr->len, rt->gpu_id, strerror(-rc));
			return rc;
		}
		mr->dev_side = (uintptr_t)dev_side;
	} else {
		mr->kind = NN_MR_CUDA;
	}
	mr->iova = RTE_BAD_IOVA;
	/* Receive buffers are written by the stacks' channels: no window needed. */
	if (!for_send)
		return 0;
	mr_dma_map(rt, mr);
	if (mr->kind == NN_MR_CUDA && rt->cfg.send_engine == NN_SEND_ENGINE_SHARED)
		return mr_cuda_send(rt, mr);
	/* An engine per buffer (gpu_sim: its copies go through the buffer's mapping). */
	if (mr->kind == NN_MR_SIM)
		mr->tx_ce = dt_devmem_engine_create_default(rt->gpu_id,
			(void *)mr->base, mr->len, NULL);
	else
		mr->tx_ce = nn_cuda_engine_create(rt, (void *)mr->base, mr->len);
	if (mr->tx_ce == NULL) {
		NN_WARN("regMr: no copy engine for device buffer [%p, +%zu): %s",
			(void *)mr->base, mr->len, rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (++rt->nb_tx_engines == 8)
		NN_WARN("regMr: 8 device send buffers registered: a software NIC "
			"(net_hsplit) queue reaches at most 8 copy-engine windows");
	if (mr->kind == NN_MR_CUDA)
		nn_cuda_streams_check(rt);
	rc = dt_copy_registry_add(mr->tx_ce);
	if (rc != 0) {
		NN_WARN("regMr: cannot register device buffer [%p, +%zu) for sends: %s",
			(void *)mr->base, mr->len, strerror(-rc));
		dt_copy_engine_destroy(mr->tx_ce);
		mr->tx_ce = NULL;
		return rc;
	}
	return 0;
}

int
nn_mr_reg(struct nn_rt *rt, void *data, size_t size, int type, bool for_send,
	struct nn_mr **out)
{
	struct nn_mr *mr;
	uint16_t i;
	int rc = 0;

	if (!(type & NN_PTR_CUDA)) {
		mr = calloc(1, sizeof(*mr));
		if (mr == NULL)
			return -ENOMEM;
		mr->base = (uintptr_t)data;
		mr->len = size;
		mr->kind = NN_MR_HOST;
		mr->iova = rte_mem_virt2iova(data);
		*out = mr;
		return 0;
	}
	mr_lock(rt);
	for (i = 0; i < rt->nb_mrs; i++) {
		mr = rt->mrs[i];
		if (mr->base == (uintptr_t)data && mr->len == size &&
				(mr->tx_ce != NULL || !for_send)) {
			mr->refs++;
			*out = mr;
			goto out;
		}
	}
	if (rt->nb_mrs == RTE_DIM(rt->mrs)) {
		NN_WARN("regMr: more than %zu device buffers registered",
			RTE_DIM(rt->mrs));
		rc = -ENOSPC;
		goto out;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	mr->base = (uintptr_t)data;
	mr->len = size;
	rc = mr_device(rt, mr, for_send);
	if (rc != 0) {
		free(mr);
		goto out;
	}
	mr->refs = 1;
	rt->mrs[rt->nb_mrs++] = mr;
	*out = mr;
out:
	mr_unlock(rt);
	return rc;
}

void
nn_mr_dereg(struct nn_rt *rt, struct nn_mr *mr)
{
	if (mr == NULL)
		return;
	if (mr->kind == NN_MR_HOST) {
		free(mr);
		return;
	}
	mr_lock(rt);
	mr->refs--;   /* kept (see the file comment) */
	mr_unlock(rt);
}
