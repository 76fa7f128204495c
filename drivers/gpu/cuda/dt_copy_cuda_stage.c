/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA copy engine, staged copies: small host->device copies are packed by
 * the CPU into a pinned, device-mapped ring and one launch of the scatter
 * kernel (gpu_cuda_kernels.cu) moves them to their destinations, refusing
 * any outside the engine's window or the ring. One launch per submit
 * instead of a driver call per copy.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "dt_copy_cuda_priv.h"

/* --------------------------------------------------------------- staging */

/*
 * Whether run @p r may be staged: host to device, its source memory the
 * CPU can read (not an allocation of this device outside the window, which
 * dt_copy.h would call host memory too), and small: at most stage_max
 * bytes, or at most DT_COPY_CUDA_STAGE_MAX_LIMIT when the source was never
 * registered. A direct copy of unregistered memory is synchronous, through
 * CUDA's bounce buffer; staged, it costs one CPU memcpy into the pinned
 * ring. That is what lets the payload pieces of a 9000-byte MTU (4 KiB
 * device buffers, or a whole 8960-byte payload when its buffers are
 * contiguous) be staged from a wire that nobody registered, while
 * registered sources keep the measured stage_max (the direct batch is as
 * fast above it). The caller holds p->lock for reading.
 */
static inline int
dt_copy_cuda_stageable(const struct dt_copy_cuda_chan *ch,
	const struct dt_copy_cuda_run *r)
{
	const struct gpu_cuda_priv *p = ch->e->p;

	if (r->dir != DT_COPY_CUDA_HTOD ||
			gpu_cuda_ranges_find(&p->allocs, r->src, 1) >= 0)
		return 0;
	if (r->len <= ch->stage_max)
		return 1;
	return r->len <= DT_COPY_CUDA_STAGE_MAX_LIMIT &&
		!gpu_cuda_ranges_covered(&p->regs, r->src, r->len);
}

/*
 * Find @p need bytes in the staging ring, reaping completed submits once
 * if it is full. A group never wraps: the ring's tail end is skipped (and
 * freed with the group). 0 and *pos, or -ENOSPC.
 */
int
dt_copy_cuda_stage_reserve(struct dt_copy_cuda_chan *ch, size_t need,
	uint64_t *pos)
{
	uint64_t off, start;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		off = ch->stage_head % DT_COPY_CUDA_STAGE_RING;
		start = ch->stage_head;
		if (off + need > DT_COPY_CUDA_STAGE_RING)
			start += DT_COPY_CUDA_STAGE_RING - off;
		if (start + need - ch->stage_tail <= DT_COPY_CUDA_STAGE_RING) {
			*pos = start;
			return 0;
		}
		if (tries == 0)
			dt_copy_cuda_reap(ch);
	}
	return -ENOSPC;
}

/* A staged call failed: this channel goes on with the direct path only. */
static void
dt_copy_cuda_stage_off(struct dt_copy_cuda_chan *ch, const char *what,
	CUresult res)
{
	GPU_CUDA_LOG(WARNING, "copy engine: staged copies: %s failed (%s); this channel now issues small host->device copies directly",
		what, gpu_cuda_strerror(&ch->e->p->api, res));
	ch->use_stage = 0;
}

/*
 * The scatter kernel over @p n descriptors at @p descs_d, bytes in the ring
 * at @p ring_d; it refuses (and records) any copy outside the engine's
 * window or the ring. The context is current.
 */
static CUresult
dt_copy_cuda_scatter_launch(struct dt_copy_cuda_chan *ch, CUdeviceptr descs_d,
	uint32_t n, CUdeviceptr ring_d)
{
	struct gpu_cuda_priv *p = ch->e->p;
	unsigned long long win = (unsigned long long)(uintptr_t)ch->e->head.base;
	unsigned long long win_len = ch->e->head.len;
	unsigned int ring_len = DT_COPY_CUDA_STAGE_RING;
	void *args[7] = { &descs_d, &n, &ring_d, &ring_len, &win, &win_len,
		&ch->serr_d };

	ch->xs.cuda_calls++;
	ch->xs.calls_launch++;
	return DT_COPY_CUDA_TIMED(ch, p->api.cuLaunchKernel(p->fn_scatter,
		n, 1, 1, GPU_CUDA_SCATTER_BLOCK, 1, 1, 0, ch->stream, args,
		NULL));
}

/*
 * Issue the small host->device runs of ch->runs as one staged group: pack
 * their descriptors and bytes into the host ring and scatter them with one
 * kernel launch, which reads the host ring through its device mapping
 * (stage_zc) or a device ring that one copy call filled first. The runs
 * staged leave ch->runs; the others stay, in order, for the direct path,
 * and so do all of them when staging is not possible now (ring full, fewer
 * than two candidates) or fails. The context is current.
 */
void
dt_copy_cuda_stage(struct dt_copy_cuda_chan *ch)
{
	struct gpu_cuda_priv *p = ch->e->p;
	struct gpu_cuda_scatter_desc *desc;
	uint32_t i, j, n = 0, base, c;
	CUdeviceptr descs_d, ring_d;
	size_t need = 0, sz;
	uint64_t pos, t_pack;
	CUresult res;
	uint8_t *h;

	/*
	 * The CPU reads sources now, not in stream order: while a
	 * device->host copy of an earlier submit may still be writing host
	 * memory, stage nothing.
	 */
	if (ch->done < ch->dtoh_ticket) {
		dt_copy_cuda_reap(ch);
		if (ch->done < ch->dtoh_ticket)
			return;
	}
	rte_rwlock_read_lock(&p->lock);
	for (i = 0; i < ch->nruns; i++) {
		/* Descriptor, bytes, and up to 15 bytes of alignment. */
		sz = sizeof(*desc) + ch->runs[i].len + 15;
		ch->staged[i] = dt_copy_cuda_stageable(ch, &ch->runs[i]) &&
			need + sz <= DT_COPY_CUDA_STAGE_GROUP_MAX;
		if (ch->staged[i]) {
			need += sz;
			n++;
		}
	}
	rte_rwlock_read_unlock(&p->lock);
	/* One copy alone is cheaper as one direct call than as two. */
	if (n < 2)
		return;
	need = RTE_ALIGN_CEIL(need, 16);
	if (dt_copy_cuda_stage_reserve(ch, need, &pos) != 0) {
		ch->xs.stage_full++;
		return;
	}
	base = (uint32_t)(pos % DT_COPY_CUDA_STAGE_RING);
	h = ch->stage_h + base;
	desc = (struct gpu_cuda_scatter_desc *)h;
	c = n * sizeof(*desc);
	t_pack = rte_rdtsc();
	for (i = 0, j = 0; i < ch->nruns; i++) {
		const struct dt_copy_cuda_run *r = &ch->runs[i];

		if (!ch->staged[i])
			continue;
		/*
		 * base and the ring are 16-byte aligned: make the staged
		 * bytes agree with the destination modulo 16, so that the
		 * kernel copies 16 bytes at a time on both sides.
		 */
		c += (uint32_t)((r->dst - c) & 15);
		desc[j].dst = r->dst;
		desc[j].off = base + c;
		desc[j].len = (uint32_t)r->len;
		memcpy(h + c, (const void *)r->src, r->len);
		c += (uint32_t)r->len;
		j++;
	}
	ch->xs.cycles_pack += rte_rdtsc() - t_pack;
	if (ch->stage_zc) {
		/* The kernel reads the bytes where the CPU put them. */
		ring_d = ch->stage_hd;
	} else {
		ring_d = ch->stage_d;
		ch->xs.cuda_calls++;
		ch->xs.calls_memcpy++;
		res = DT_COPY_CUDA_TIMED(ch, p->api.cuMemcpyHtoDAsync(
			ring_d + base, h, c, ch->stream));
		if (res != CUDA_SUCCESS) {
			dt_copy_cuda_stage_off(ch, "cuMemcpyHtoDAsync of the staging ring", res);
			return;
		}
	}
	descs_d = ring_d + base;
	/* The GPU may read the ring from now on: the space is in use. */
	ch->stage_head = pos + need;
	res = dt_copy_cuda_scatter_launch(ch, descs_d, n, ring_d);
	if (res != CUDA_SUCCESS) {
		dt_copy_cuda_stage_off(ch, "cuLaunchKernel of the scatter kernel", res);
		return;
	}
	ch->xs.stage_launches++;
	ch->xs.staged += n;
	for (i = 0, j = 0; i < ch->nruns; i++)
		if (!ch->staged[i])
			ch->runs[j++] = ch->runs[i];
	ch->nruns = j;
}

/*
 * Staging rings and the scatter kernel, used by staging in the AUTO, STAGED
 * and STAGED_PER_COPY modes and by gathers in every mode; the context is
 * current. Failing here is not an error: the channel then issues every copy
 * directly, and says so once.
 * Where the host ring cannot be mapped for the kernel, it is copied to a
 * device ring first.
 */
void
dt_copy_cuda_stage_init(struct dt_copy_cuda_chan *ch)
{
	struct gpu_cuda_priv *p = ch->e->p;
	const struct gpu_cuda_api *api = &p->api;
	const char *what = "cuMemHostAlloc";
	CUresult res = CUDA_SUCCESS;
	void *h = NULL;
	int want_stage;

	want_stage = (ch->e->mode == DT_COPY_CUDA_MODE_AUTO ||
			ch->e->mode == DT_COPY_CUDA_MODE_STAGED ||
			ch->e->mode == DT_COPY_CUDA_MODE_STAGED_PER_COPY) &&
		ch->e->stage_max != 0;
	ch->xs.stage_read = ch->e->stage_read;
	if (gpu_cuda_kernels_load(p) != 0 || p->fn_scatter == NULL) {
		if (want_stage)
			GPU_CUDA_LOG(WARNING, "copy engine: no scatter kernel (see above): small host->device copies are issued directly");
		return;
	}
	if (api->cuMemHostAlloc == NULL || api->cuMemFreeHost == NULL) {
		GPU_CUDA_LOG(WARNING, "copy engine: libcuda lacks cuMemHostAlloc/cuMemFreeHost: no staging, no gathers");
		return;
	}
	if (ch->xs.stage_read == DT_COPY_CUDA_STAGE_READ_HOST) {
		res = dt_copy_cuda_host_alloc_mapped(ch,
			DT_COPY_CUDA_STAGE_RING, &h, &ch->stage_hd, &what);
		if (res == CUDA_SUCCESS) {
			ch->stage_zc = 1;
		} else {
			GPU_CUDA_LOG(WARNING, "copy engine: %s of a device-mapped staging ring failed (%s): staged groups are copied to the device before the scatter",
				what, gpu_cuda_strerror(api, res));
			ch->xs.stage_read = DT_COPY_CUDA_STAGE_READ_DEVICE;
		}
	}
	if (!ch->stage_zc) {
		/* The two-call path: a pinned ring and a device ring. */
		what = "cuMemHostAlloc";
		res = api->cuMemHostAlloc(&h, DT_COPY_CUDA_STAGE_RING, 0);
		if (res == CUDA_SUCCESS) {
			ch->stage_h = h;
			what = "cuMemAlloc";
			res = api->cuMemAlloc(&ch->stage_d,
				DT_COPY_CUDA_STAGE_RING);
		}
	} else {
		ch->stage_h = h;
	}
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(WARNING, "copy engine: %s of a %u-byte staging ring failed (%s): small host->device copies are issued directly",
			what, DT_COPY_CUDA_STAGE_RING, gpu_cuda_strerror(api, res));
		if (ch->stage_h != NULL)
			api->cuMemFreeHost(ch->stage_h);
		ch->stage_h = NULL;
		ch->stage_hd = 0;
		ch->stage_d = 0;
		ch->stage_zc = 0;
		return;
	}
	what = "the scatter kernel's error record";
	res = dt_copy_cuda_host_alloc_mapped(ch, 64, &h, &ch->serr_d, &what);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(WARNING, "copy engine: %s failed (%s): small host->device copies are issued directly",
			what, gpu_cuda_strerror(api, res));
		return;
	}
	memset(h, 0, 64);
	ch->serr_h = h;
	/*
	 * Gathers write host memory at the address the CPU uses: only where
	 * registered host memory has the same address on the device.
	 */
	ch->use_gather = p->fn_gather != NULL && p->can_use_host_ptr;
	if (!want_stage)
		return;
	ch->stage_max = ch->e->stage_max;
	ch->use_stage = 1;
}

int
dt_copy_cuda_chan_test_stage_bad(struct dt_copy_chan *dch, uintptr_t dst,
	uint32_t len, uint64_t *ticket)
{
	struct gpu_cuda_scatter_desc *desc;
	struct dt_copy_cuda_chan *ch;
	CUdeviceptr ring_d;
	uint64_t pos, last;
	uint32_t base, slot;
	size_t need;
	int pushed, ret;

	if (dch == NULL || dch->ce->ops != &dt_copy_cuda_ops || len == 0 ||
			len > DT_COPY_CUDA_STAGE_MAX_LIMIT)
		return -EINVAL;
	ch = dt_copy_cuda_chan(dch);
	if (!ch->use_stage)
		return -ENOTSUP;
	if (ch->sub_head - ch->sub_tail == DT_COPY_CUDA_RING)
		return -EBUSY;
	ret = dt_copy_cuda_enter(ch, &pushed);
	if (ret != 0)
		return ret;
	need = RTE_ALIGN_CEIL(sizeof(*desc) + len, 16);
	ret = dt_copy_cuda_stage_reserve(ch, need, &pos);
	if (ret == 0) {
		base = (uint32_t)(pos % DT_COPY_CUDA_STAGE_RING);
		desc = (struct gpu_cuda_scatter_desc *)(ch->stage_h + base);
		desc->dst = dst;
		desc->off = base + (uint32_t)sizeof(*desc);
		desc->len = len;
		memset(desc + 1, 0xa5, len);
		ring_d = ch->stage_zc ? ch->stage_hd : ch->stage_d;
		if (!ch->stage_zc && ch->e->p->api.cuMemcpyHtoDAsync(ring_d + base,
				desc, need, ch->stream) != CUDA_SUCCESS)
			ret = -EIO;
	}
	if (ret == 0) {
		ch->stage_head = pos + need;
		if (dt_copy_cuda_scatter_launch(ch, ring_d + base, 1, ring_d) !=
				CUDA_SUCCESS)
			ret = -EIO;
	}
	if (ret == 0) {
		/* One ticket stands for the refused copy. */
		slot = ch->sub_head % DT_COPY_CUDA_RING;
		last = ch->head.next_ticket;
		ret = dt_copy_cuda_mark(ch, slot, last);
		if (ret == 0) {
			ch->sub_ticket[slot] = last;
			ch->sub_stage[slot] = ch->stage_head;
			ch->sub_head++;
			ch->head.next_ticket++;
			*ticket = last;
		}
	}
	dt_copy_cuda_leave(ch, pushed);
	return ret;
}
