/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA copy engine, gathers (dt_copy.h's gather op): the device->host
 * copies of a transmit burst, from the engine's window into a NIC's wire
 * buffers, as ONE launch of the gather kernel (gpu_cuda_kernels.cu) instead
 * of a DMA call per frame. The wire buffers are host memory registered with
 * the device and mapped at the same address (the channel's gather
 * targets), so the kernel's threads store into them over PCIe directly.
 *
 * Each gather puts the channel's targets and one descriptor per copy into
 * the staging ring (dt_copy_cuda_stage.c), launches the kernel over them
 * and ends like a submit: the write of its last ticket into the completion
 * word (or its event), which also frees its ring space. The CPU checks
 * every copy before the launch and refuses as submit does; the kernel
 * checks again and refuses without writing (the channel then stops), as
 * the scatter kernel does for staged copies.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_rwlock.h>

#include "dt_copy_cuda_priv.h"

int
dt_copy_cuda_gather_target(struct dt_copy_chan *dch, void *base, size_t len)
{
	struct dt_copy_cuda_chan *ch = dt_copy_cuda_chan(dch);
	struct gpu_cuda_priv *p = ch->e->p;
	uintptr_t b = (uintptr_t)base;
	int reg;

	if (len == 0 || b + len < b ||
			(!ch->e->any && dt_copy_cuda_overlaps(&ch->e->head, b,
				len)))
		return -EINVAL;
	if (!ch->use_gather)
		return -ENOTSUP;
	/* Only registered (mapped) host memory: any other write faults. */
	rte_rwlock_read_lock(&p->lock);
	reg = gpu_cuda_ranges_find(&p->regs, b, len) >= 0 ||
		gpu_cuda_ranges_covered(&p->regs, b, len);
	rte_rwlock_read_unlock(&p->lock);
	if (!reg)
		return -ENOTSUP;
	return dt_copy_gather_targets_add(&ch->tgt, base, len);
}

/*
 * How many leading copies of @p ops may be gathered: source inside the
 * window, destination inside a target (kept in ch->gtgt[]).
 */
static uint16_t
dt_copy_cuda_gather_check(struct dt_copy_cuda_chan *ch,
	const struct dt_copy_op *ops, uint16_t n)
{
	uint16_t i;
	int t;

	for (i = 0; i < n; i++) {
		/* An any-address engine's sources are the caller's word. */
		if (!ch->e->any && !dt_copy_cuda_inside(&ch->e->head,
				(uintptr_t)ops[i].src, ops[i].len))
			break;
		t = dt_copy_gather_targets_find(&ch->tgt, ops[i].dst,
			ops[i].len);
		if (t < 0)
			break;
		ch->gtgt[i] = (uint8_t)t;
	}
	return i;
}

/* The kernel over @p n descriptors after the targets at @p tbl_d. */
static CUresult
dt_copy_cuda_gather_launch(struct dt_copy_cuda_chan *ch, CUdeviceptr tbl_d,
	uint32_t n)
{
	struct gpu_cuda_priv *p = ch->e->p;
	unsigned long long win = ch->e->any ? 0 :
		(unsigned long long)(uintptr_t)ch->e->head.base;
	unsigned long long win_len = ch->e->any ? ~0ull : ch->e->head.len;
	unsigned int ntgt = ch->tgt.n;
	CUdeviceptr descs_d = tbl_d + ntgt * sizeof(struct gpu_cuda_gather_tgt);
	void *args[7] = { &descs_d, &n, &tbl_d, &ntgt, &win, &win_len,
		&ch->serr_d };

	ch->xs.cuda_calls++;
	ch->xs.calls_launch++;
	return DT_COPY_CUDA_TIMED(ch, p->api.cuLaunchKernel(p->fn_gather,
		n, 1, 1, GPU_CUDA_SCATTER_BLOCK, 1, 1, 0, ch->stream, args,
		NULL));
}

/*
 * Write the targets and @p n descriptors into the ring and launch; the
 * context is current. 1 when queued, 0 when the ring has no room now,
 * -EIO (the channel stopped) when a CUDA call failed.
 */
static int
dt_copy_cuda_gather_issue(struct dt_copy_cuda_chan *ch,
	const struct dt_copy_op *ops, uint16_t n)
{
	const struct gpu_cuda_api *api = &ch->e->p->api;
	struct gpu_cuda_gather_desc *desc;
	struct gpu_cuda_gather_tgt *tbl;
	size_t tsz = ch->tgt.n * sizeof(*tbl);
	size_t need = RTE_ALIGN_CEIL(tsz + n * sizeof(*desc), 16);
	CUdeviceptr ring_d;
	uint32_t base, i;
	uint64_t pos;
	CUresult res;

	if (dt_copy_cuda_stage_reserve(ch, need, &pos) != 0) {
		ch->xs.stage_full++;
		return 0;
	}
	base = (uint32_t)(pos % DT_COPY_CUDA_STAGE_RING);
	tbl = (struct gpu_cuda_gather_tgt *)(ch->stage_h + base);
	for (i = 0; i < ch->tgt.n; i++) {
		tbl[i].base = ch->tgt.t[i].base;
		tbl[i].len = ch->tgt.t[i].len;
	}
	desc = (struct gpu_cuda_gather_desc *)(ch->stage_h + base + tsz);
	for (i = 0; i < n; i++) {
		desc[i].dst = (uintptr_t)ops[i].dst;
		desc[i].src = (uintptr_t)ops[i].src;
		desc[i].len = ops[i].len;
		desc[i].tgt = ch->gtgt[i];
	}
	ring_d = ch->stage_zc ? ch->stage_hd : ch->stage_d;
	res = CUDA_SUCCESS;
	if (!ch->stage_zc) {
		ch->xs.cuda_calls++;
		ch->xs.calls_memcpy++;
		res = DT_COPY_CUDA_TIMED(ch, api->cuMemcpyHtoDAsync(
			ring_d + base, tbl, need, ch->stream));
	}
	/* The GPU may read the ring from now on: the space is in use. */
	ch->stage_head = pos + need;
	if (res == CUDA_SUCCESS)
		res = dt_copy_cuda_gather_launch(ch, ring_d + base, n);
	if (res == CUDA_SUCCESS)
		return 1;
	dt_copy_cuda_gpu_failed(ch, res);
	return -EIO;
}

/* Queue @p n checked copies as one gather and mark its completion. */
static int
dt_copy_cuda_gather_queue(struct dt_copy_cuda_chan *ch,
	const struct dt_copy_op *ops, uint16_t n)
{
	uint32_t slot = ch->sub_head % DT_COPY_CUDA_RING;
	uint64_t last = ch->head.next_ticket + n - 1;
	int pushed, r;

	r = dt_copy_cuda_enter(ch, &pushed);
	if (r != 0)
		return r;
	r = dt_copy_cuda_gather_issue(ch, ops, n);
	if (r > 0)
		r = dt_copy_cuda_mark(ch, slot, last);
	dt_copy_cuda_leave(ch, pushed);
	if (r != 0)
		return r;
	ch->sub_ticket[slot] = last;
	ch->sub_stage[slot] = ch->stage_head;
	/* It writes host memory: staging waits for it (stream order). */
	ch->dtoh_ticket = last;
	ch->sub_head++;
	return n;
}

int
dt_copy_cuda_gather(struct dt_copy_chan *dch, const struct dt_copy_op *ops,
	uint16_t n, uint64_t *ticket)
{
	struct dt_copy_cuda_chan *ch = dt_copy_cuda_chan(dch);
	uint64_t bytes = 0;
	uint16_t k, i;
	int q;

	if (ticket != NULL)
		*ticket = dch->next_ticket - 1;
	if (ch->failed)
		return -EIO;
	if (n == 0)
		return 0;
	k = dt_copy_cuda_gather_check(ch, ops,
		RTE_MIN(n, (uint16_t)DT_COPY_CUDA_GATHER_MAX));
	if (k == 0) {
		/* The refused copy is reported when it comes first (dt_copy.h). */
		dch->stats.errors++;
		return -EFAULT;
	}
	if (ch->sub_head - ch->sub_tail == DT_COPY_CUDA_RING &&
			(dt_copy_cuda_completed(dch),
			ch->sub_head - ch->sub_tail == DT_COPY_CUDA_RING)) {
		ch->xs.ring_full++;
		return 0;
	}
	q = dt_copy_cuda_gather_queue(ch, ops, k);
	if (q <= 0)
		return q;
	for (i = 0; i < k; i++)
		bytes += ops[i].len;
	dch->next_ticket += k;
	dch->stats.calls++;
	dch->stats.copies += k;
	dch->stats.bytes += bytes;
	ch->xs.gather_launches++;
	ch->xs.gathered += k;
	if (ticket != NULL)
		*ticket = dch->next_ticket - 1;
	return k;
}

int
dt_copy_cuda_chan_test_gather_bad(struct dt_copy_chan *dch,
	const struct dt_copy_op *op, uint64_t *ticket)
{
	struct dt_copy_cuda_chan *ch;
	int q;

	if (dch == NULL || dch->ce->ops != &dt_copy_cuda_ops || op == NULL ||
			ticket == NULL)
		return -EINVAL;
	ch = dt_copy_cuda_chan(dch);
	if (!ch->use_gather)
		return -ENOTSUP;
	if (ch->failed)
		return -EIO;
	if (ch->sub_head - ch->sub_tail == DT_COPY_CUDA_RING)
		return -EBUSY;
	/* As if the CPU's check had passed it, against the first target. */
	ch->gtgt[0] = 0;
	q = dt_copy_cuda_gather_queue(ch, op, 1);
	if (q == 0)
		return -ENOSPC;
	if (q < 0)
		return q;
	*ticket = dch->next_ticket++;
	return 0;
}
