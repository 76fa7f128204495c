/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Copy mode (DT_DP_RX_COPY): a port without buffer split receives whole
 * frames into host memory; the stack moves each frame's payload into
 * buffers of its payload region with the region's copy engine, so that
 * the TCP engine and the application see device buffers exactly as with a
 * split. The CPU parses the headers and may checksum the frame (host
 * bytes); it never touches the region: the engine writes it.
 *
 * Copies of one RX burst are batched: queued as the frames are parsed,
 * submitted and waited for at the end of the burst (dt_dp_copy_flush()),
 * before the burst's ACKs go out and before the application can see a
 * chunk: as a NIC completes a descriptor only after its DMA landed. The
 * host frames are freed then.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "dt_copy.h"
#include "dt_devmem.h"
#include "dt_dp_priv.h"

struct pin_arg {
	int16_t gpu;
	int rc;
};

static void
pin_chunk(struct rte_mempool *mp, void *arg, struct rte_mempool_memhdr *mh,
	unsigned int idx)
{
	struct pin_arg *a = arg;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if (a->rc == 0)
		a->rc = dt_devmem_host_register(a->gpu, mh->addr, mh->len);
}

/*
 * The copy engine reads the whole-frame pool: pinned for the region's
 * device (CUDA copies from pageable memory are staged and synchronous).
 * Once per port, by the first stack; a device that needs nothing says 0.
 */
static void
copy_pool_pin(struct dt_dp_stack *st)
{
	struct pin_arg a = { dt_devmem_region_gpu_id(st->conf.region), 0 };
	uint32_t zero = 0;

	if (a.gpu == RTE_GPU_ID_NONE || st->psh->copy_pool == NULL ||
			!__atomic_compare_exchange_n(&st->psh->copy_pinned, &zero, 1,
				false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	rte_mempool_mem_iter(st->psh->copy_pool, pin_chunk, &a);
	if (a.rc != 0)
		DT_DP_LOG(INFO, "port %u: copy mode: host frames not pinned for gpu %d (%s): copies are slower",
			st->conf.port_id, a.gpu, rte_strerror(-a.rc));
}

int
dt_dp_copy_init(struct dt_dp_stack *st)
{
	struct rte_mbuf *m;

	if (st->psh == NULL || st->psh->mode.rx != DT_DP_RX_COPY)
		return 0;
	if (st->conf.region == NULL) {
		DT_DP_LOG(INFO, "port %u queue %u: copy mode without a payload region: payload stays in host memory (HOST chunks)",
			st->conf.port_id, st->conf.rxq);
		return 0;
	}
	m = rte_pktmbuf_alloc(st->region_pool);
	if (m == NULL) {
		DT_DP_LOG(ERR, "port %u: copy mode: payload region %s has no free buffer",
			st->conf.port_id, dt_devmem_region_name(st->conf.region));
		return -ENOBUFS;
	}
	st->copy_room = rte_pktmbuf_tailroom(m);
	rte_pktmbuf_free(m);
	if (st->copy_room == 0)
		return -EINVAL;
	st->copy_ch = dt_copy_chan_open(dt_devmem_region_engine(st->conf.region));
	if (st->copy_ch == NULL) {
		DT_DP_LOG(ERR, "port %u: copy mode: cannot open a channel on the region's copy engine: %s",
			st->conf.port_id, rte_strerror(rte_errno));
		return -rte_errno;
	}
	st->rx_copy = true;
	copy_pool_pin(st);
	DT_DP_LOG(INFO, "port %u queue %u: copy mode: payload copied into region %s by copy engine %s (%u bytes per buffer)",
		st->conf.port_id, st->conf.rxq,
		dt_devmem_region_name(st->conf.region), st->copy_ch->ce->ops->name,
		st->copy_room);
	return 0;
}

void
dt_dp_copy_fini(struct dt_dp_stack *st)
{
	dt_dp_copy_flush(st);
	dt_copy_chan_close(st->copy_ch);
	st->copy_ch = NULL;
	st->rx_copy = false;
}

/* Wait for @p ticket; false when the channel failed for good. */
static bool
copy_wait(struct dt_dp_stack *st, uint64_t ticket)
{
	while (dt_copy_completed(st->copy_ch) < ticket) {
		if (dt_copy_chan_failed(st->copy_ch) != 0)
			return false;
		rte_pause();
	}
	return true;
}

void
dt_dp_copy_flush(struct dt_dp_stack *st)
{
	uint64_t ticket = 0;
	uint32_t done = 0, i;
	int r;

	while (done < st->cp_n) {
		r = dt_copy_submit(st->copy_ch, st->cp_ops + done,
			(uint16_t)(st->cp_n - done), &ticket);
		if (r > 0) {
			done += (uint32_t)r;
		} else if (r == 0) {
			/* The engine's queue is full: let earlier copies land. */
			if (dt_copy_chan_failed(st->copy_ch) != 0)
				break;
			rte_pause();
		} else {
			/* Refused (cannot happen for region buffers): say so, skip it. */
			st->st.rx_copy_errors++;
			DT_DP_LOG(ERR, "port %u: copy engine refused %u bytes into the payload region: %s",
				st->conf.port_id, st->cp_ops[done].len, rte_strerror(-r));
			done++;
		}
	}
	if (done < st->cp_n || (done > 0 && !copy_wait(st, ticket))) {
		st->st.rx_copy_errors += st->cp_n;
		DT_DP_LOG(ERR, "port %u: the copy engine failed: received payload lost",
			st->conf.port_id);
	}
	for (i = 0; i < st->cp_nsrc; i++)
		rte_pktmbuf_free_seg(st->cp_src[i]);
	st->cp_n = 0;
	st->cp_nsrc = 0;
}

/* The extents' mbufs go back (the frame is dropped); @return @p err. */
static int
copy_drop(struct dt_dp_stack *st, struct dt_tcp_extent *ext, int n,
	uint64_t *counter, int err)
{
	int i;

	for (i = 0; i < n; i++)
		rte_pktmbuf_free_seg(ext[i].ref);
	(*counter)++;
	return err;
}

int
dt_dp_copy_extents(struct dt_dp_stack *st, struct dt_tcp_extent *ext, int n,
	uint32_t max)
{
	struct rte_mbuf *dev[DT_DP_LRO_EXT_MAX];
	struct dt_tcp_extent out[DT_DP_LRO_EXT_MAX];
	uint32_t pieces = 0, k = 0, off, len;
	struct dt_copy_op *op;
	const uint8_t *src;
	int i;

	for (i = 0; i < n; i++)
		pieces += (ext[i].len + st->copy_room - 1) / st->copy_room;
	if (pieces > max || pieces > DT_DP_LRO_EXT_MAX)
		return copy_drop(st, ext, n, &st->st.drop_too_many_segs,
			-E2BIG);
	if (st->cp_n + pieces > DT_DP_COPY_OPS ||
			st->cp_nsrc + (uint32_t)n > DT_DP_COPY_OPS)
		dt_dp_copy_flush(st);
	if (pieces > 0 && rte_pktmbuf_alloc_bulk(st->region_pool, dev, pieces) != 0)
		return copy_drop(st, ext, n, &st->st.drop_copy_no_buf,
			-ENOBUFS);
	for (i = 0; i < n; i++) {
		src = rte_pktmbuf_mtod_offset((struct rte_mbuf *)ext[i].ref,
			const uint8_t *, ext[i].off);
		for (off = 0; off < ext[i].len; off += len, k++) {
			len = RTE_MIN(st->copy_room, ext[i].len - off);
			dev[k]->data_len = (uint16_t)len;
			dev[k]->pkt_len = len;
			/* Address arithmetic: the engine writes the bytes. */
			op = &st->cp_ops[st->cp_n++];
			op->dst = rte_pktmbuf_mtod(dev[k], void *);
			op->src = src + off;
			op->len = len;
			out[k].ref = dev[k];
			out[k].off = 0;
			out[k].len = len;
			st->st.rx_copy_bytes += len;
		}
		st->cp_src[st->cp_nsrc++] = ext[i].ref;
	}
	st->st.rx_copy_chunks += k;
	memcpy(ext, out, k * sizeof(out[0]));
	return (int)k;
}
