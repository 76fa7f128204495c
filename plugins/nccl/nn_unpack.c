/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's device-side unpack ([nccl] unpack = yes; NCCL_NET_DEVICE_UNPACK,
 * version 0x7). Instead of gathering a receive's chunks into NCCL's buffer
 * on a CUDA stream of our own, the stacks write one entry per chunk piece
 * {offset in the payload region, length, offset in the receive buffer}
 * into the comm's meta area, and NCCL's receive kernel copies them itself
 * (GPUDirect-TCPX's way: no copy stream, no GPU operation of ours on the
 * receive path). A receive's chunks go back to the NIC once NCCL says its
 * kernel consumed it (irecvConsumed).
 *
 * Layout and protocol (NCCL 2.28's unpack_defs.h, checked in
 * ../shared/notes): the meta area has 16 slots of 2048 entries and a count
 * each; receive number k of a comm uses slot k % 16, a zero-byte one too;
 * every entry and the count are written before test() reports the receive
 * done; src_off is 32-bit from one bounce base per GPU (the payload
 * region's start); dst_off is from the irecv's data pointer. The meta area
 * is pinned host memory the GPU reads; so is the handle, which the kernel
 * also writes (head, starting at -1): GPUDirect-TCPX puts the handle in
 * device memory, but filling that needs a synchronous copy on NCCL's proxy
 * thread, which could wait behind NCCL's own kernels.
 *
 * Without CUDA (gpu_sim, the CI harness) both live in host memory: the
 * harness plays NCCL's kernel through the simulator's CPU mapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "nn_rt.h"

struct nn_unpack {
	struct nn_unpack_meta *meta;    /* as the CPU writes it */
	bool cuda;                      /* meta and handle are CUDA pinned memory */
	struct nn_unpack_handle *handle; /* as the CPU writes it */
	void *handle_dev;               /* the same, NCCL's (the GPU's) view */
	struct nn_unpack_handle host;   /* the handle itself without CUDA */
};

bool
nn_unpack_available(const struct nn_rt *rt, const char **why)
{
	if (rt->region == NULL || rt->gpu_id == RTE_GPU_ID_NONE) {
		*why = "the payload region is in host memory";
		return false;
	}
	/* NCCL's kernel dereferences what it gets: only CUDA memory will do. */
	if (!rt->gpu_cuda && rt->cfg.unpack != NN_UNPACK_HARNESS) {
		*why = "the payload region is not on a CUDA GPU (unpack = harness is for test harnesses)";
		return false;
	}
	/* Every src_off is 32-bit from the region's start. */
	if (dt_devmem_region_len(rt->region) > UINT32_MAX) {
		*why = "the payload region is larger than 4 GiB";
		return false;
	}
	return true;
}

int
nn_unpack_open(struct nn_rt *rt, struct nn_comm *c,
	struct nn_net_device_handle *dh)
{
	struct nn_unpack_handle uh;
	struct nn_unpack *u;
	void *meta_dev = NULL;
	int rc;

	/* Plain host memory: only NCCL's threads and the lcores touch it. */
	u = calloc(1, sizeof(*u));
	if (u == NULL)
		return -ENOMEM;
	u->cuda = rt->gpu_cuda;
	if (u->cuda) {
		rc = nn_cuda_host_alloc_mapped(sizeof(*u->meta),
			(void **)&u->meta, &meta_dev);
		if (rc != 0)
			goto fail;
		memset(u->meta, 0, sizeof(*u->meta));
	} else {
		u->meta = aligned_alloc(64, sizeof(*u->meta));
		if (u->meta == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		memset(u->meta, 0, sizeof(*u->meta));
		meta_dev = u->meta;
	}
	uh.meta = meta_dev;
	uh.bounce_buf = dt_devmem_region_base(rt->region);
	/* NCCL's kernel increments it before it reads slot head % 16. */
	uh.head = UINT64_MAX;
	if (u->cuda) {
		rc = nn_cuda_host_alloc_mapped(sizeof(uh), (void **)&u->handle,
			&u->handle_dev);
		if (rc != 0)
			goto fail;
	} else {
		u->handle = &u->host;
		u->handle_dev = &u->host;
	}
	*u->handle = uh;
	rte_wmb();
	dh->handle = u->handle_dev;
	dh->size = sizeof(uh);
	dh->needsProxyProgress = 1;
	c->unpack = u;
	return 0;
fail:
	if (u->cuda)
		nn_cuda_host_free(u->meta);
	else
		free(u->meta);
	free(u);
	return rc;
}

static void
unpack_destroy(struct nn_unpack *u)
{
	if (u->cuda) {
		nn_cuda_host_free(u->handle);
		nn_cuda_host_free(u->meta);
	} else {
		free(u->meta);
	}
	free(u);
}

/* A stack's lcore (an EAL worker), as opposed to one of NCCL's threads. */
static bool
on_stack_lcore(void)
{
	unsigned int lc = rte_lcore_id();

	return lc != LCORE_ID_ANY && lc != rte_get_main_lcore();
}

void
nn_unpack_free(struct nn_comm *c)
{
	struct nn_unpack *u = c->unpack;
	struct nn_rt *rt = nn_rt_get();

	if (u == NULL)
		return;
	c->unpack = NULL;
	/*
	 * cuMemFree may wait for the whole GPU, where NCCL's kernel may wait
	 * for this very lcore: the lcore hands CUDA memory to NCCL's threads.
	 */
	if (u->cuda && on_stack_lcore() && rt != NULL && rt->unpack_gc != NULL &&
			rte_ring_mp_enqueue(rt->unpack_gc, u) == 0)
		return;
	unpack_destroy(u);
}

void
nn_unpack_gc(struct nn_rt *rt)
{
	void *u;

	if (rt == NULL || rt->unpack_gc == NULL)
		return;
	while (rte_ring_sc_dequeue(rt->unpack_gc, &u) == 0)
		unpack_destroy(u);
}

int
nn_unpack_add(struct nn_req *r, uint64_t src_off, uint32_t len,
	uint64_t dst_off)
{
	struct nn_unpack *u = r->comm->unpack;
	union nn_unpack_entry *e;
	uint32_t i;

	if (src_off + len > UINT32_MAX)
		return -ERANGE;
	/*
	 * Parts on several lcores add to one slot: each takes its index. A
	 * full slot says so (the caller gathers the piece); the count goes on
	 * past the room, the published one stops at it.
	 */
	i = __atomic_fetch_add(&r->unpack_n, 1, __ATOMIC_RELAXED);
	if (i >= NN_UNPACK_ENTRIES)
		return -ENOBUFS;
	e = &u->meta->mem[r->uslot][i];
	e->src_off = (uint32_t)src_off;
	e->len = len;
	e->dst_off = dst_off;
	return 0;
}

void
nn_unpack_publish(const struct nn_req *r)
{
	struct nn_unpack *u = r->comm->unpack;
	uint32_t n = __atomic_load_n(&r->unpack_n, __ATOMIC_ACQUIRE);

	/* Pieces past the slot's room were gathered instead (nn_rx.c). */
	if (n > NN_UNPACK_ENTRIES)
		n = NN_UNPACK_ENTRIES;
	/*
	 * The entries were written by the lcores before their completions
	 * reached this thread (ring release/acquire); the count goes last,
	 * and NCCL's proxy tells the kernel only after test() returns.
	 */
	__atomic_store_n(&u->meta->cnt[r->uslot], (uint64_t)n, __ATOMIC_RELEASE);
	rte_wmb();
}

const struct nn_unpack_meta *
nn_unpack_meta(const struct nn_comm *c)
{
	return c->unpack != NULL ? c->unpack->meta : NULL;
}

/*
 * Which receives NCCL's kernel unpacks. Only its Simple protocol does
 * (src/device/prims_simple.h: loadRecvConn, waitPeer bumps the slot
 * counter, ncclNetDeviceUnpack); LL and LL128 read their own buffer,
 * flags and data together (prims_ll.h, prims_ll128.h name no unpack), so
 * their receives must be written there, as without unpack, and take no
 * slot, or the kernel's slot counter and the plugin's part ways.
 * NCCL's receive side (src/transport/net.cc, recvProxyConnect; 2.28.9 and
 * 2.30.7) registers one buffer per protocol right after accept, in
 * protocol order LL, LL128, SIMPLE (one loop, p = 0..2, over the buffers
 * it has: three for rings and trees, Simple alone or LL then Simple for
 * shared p2p buffers), before any receive; each receive then names its
 * protocol's buffer (mhandles[args->protocol]). So with 2 or 3 buffers
 * registered before the first receive, all but the last are LL/LL128.
 * Any other count is not NCCL's pattern (a harness): every receive is
 * unpacked, as before.
 */
bool
nn_unpack_wants(const struct nn_comm *c, const struct nn_mr *mr)
{
	uint8_t i;

	if (c->nconn_mr < 2 || c->nconn_mr > NN_CONN_MRS)
		return true;
	for (i = 0; i + 1 < c->nconn_mr; i++)
		if (c->conn_mr[i] == mr)
			return false;
	return true;
}

/*
 * A registration after the comm's first receive is a user buffer
 * (NCCL_LOCAL_REGISTER, graph registration: net.cc recvProxyRegBuffer).
 * NCCL's kernel still bumps its slot counter for such receives but
 * unpacks to the user buffer (or NULL for p2p), which the plugin's slots
 * cannot follow: refuse it, and NCCL, whose registration then fails
 * (handle NULL), uses its own buffers.
 */
bool
nn_unpack_note_mr(struct nn_comm *c, struct nn_mr *mr)
{
	if (c->send || c->unpack == NULL)
		return true;
	if (c->recv_seen)
		return false;
	if (c->nconn_mr < NN_CONN_MRS)
		c->conn_mr[c->nconn_mr] = mr;
	if (c->nconn_mr <= NN_CONN_MRS)
		c->nconn_mr++;
	return true;
}

/* NCCL_PAT_ENABLE=0 in NCCL's environment (its default, 2, lets PAT run). */
static bool
nccl_pat_off(void)
{
	const char *v = getenv("NCCL_PAT_ENABLE");

	return v != NULL && strtol(v, NULL, 0) == 0;
}

/*
 * Offer NCCL's device-side unpack or not. NCCL itself only checks the
 * version (src/plugin/net.cc ncclNetCheckDeviceVersion); what it does not
 * do for the plugin: PAT (AllGather/ReduceScatter, 1 GPU per node) sets
 * up its peers apart and never unpacks (src/device/prims_simple.h, PatMode
 * returns before loadRecvConn), and tuning.cc would turn PAT off only for
 * comm->netDeviceType, which nothing assigns (2.24.3 to 2.30.7). So auto
 * offers unpack on a CUDA region only with NCCL_PAT_ENABLE=0; LL and
 * LL128 need nothing: their receives are written in place
 * (nn_unpack_wants()).
 */
bool
nn_unpack_choose(const struct nn_rt *rt)
{
	const char *why = NULL;
	bool ok = rt->cfg.unpack != NN_UNPACK_NO && nn_unpack_available(rt, &why);

	switch (rt->cfg.unpack) {
	case NN_UNPACK_NO:
		return false;
	case NN_UNPACK_AUTO:
		if (!ok)
			return false;   /* host or gpu_sim region: the gather */
		if (!nccl_pat_off()) {
			NN_INFO("device-side unpack available but not offered: NCCL's PAT "
				"kernels never unpack and NCCL does not turn PAT off for it; "
				"set NCCL_PAT_ENABLE=0 to get it (LL, LL128 and Simple all work)");
			return false;
		}
		break;
	default:
		if (!ok) {
			NN_WARN("%s: unpack = %s, but %s: NCCL gets no device-side unpack",
				rt->cfg.path, rt->cfg.unpack == NN_UNPACK_YES ? "yes" :
				"harness", why);
			return false;
		}
		if (rt->gpu_cuda && !nccl_pat_off())
			NN_WARN("device-side unpack offered while NCCL may run PAT (1 GPU "
				"per node), whose kernels never unpack: set NCCL_PAT_ENABLE=0");
		break;
	}
	NN_INFO("device-side unpack offered (NCCL_NET_DEVICE_UNPACK 0x%x): NCCL's "
		"kernel unpacks Simple receives, LL/LL128 ones are written in place "
		"(any NCCL_PROTO); buffers registered after a comm's first receive "
		"are refused (NCCL uses its own)", NN_NET_UNPACK_VERSION);
	return true;
}
