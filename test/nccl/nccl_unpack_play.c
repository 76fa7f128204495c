/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's device-side unpack, played by the harness (NCCL_HARNESS_UNPACK=1):
 * accept gets a device handle as NCCL gives one; when a receive completes,
 * the harness does what NCCL's kernel would (copy each entry of the
 * receive's slot from the payload region into the buffer, through
 * gpu_sim's CPU mappings), then calls irecvConsumed, late as NCCL does.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mempool.h>

#include "nccl_harness.h"
#include "nccl_netprof.h"
#include "nn_stats.h"

/* ----------------------------------------------------- the plugin calls */

struct unpack_comm *
unpack_comm_of(struct unpack_state *u, void *comm)
{
	unsigned int i;

	for (i = 0; i < UNPACK_COMMS; i++)
		if (u->comms[i].comm == comm)
			return &u->comms[i];
	return NULL;
}

nn_result_t
p_accept(struct net *n, void *l, void **rc)
{
	struct nn_net_device_handle *dh = NULL;
	struct unpack_comm *uc = NULL;
	nn_result_t r;
	void *dc = NULL;

	if (n->up != NULL) {
		/* As NCCL: a handle of the unpack type, one per receive comm. */
		uc = unpack_comm_of(n->up, NULL);
		if (uc == NULL)
			return nn_ncclInternalError;
		memset(uc, 0, sizeof(*uc));
		uc->dh.netDeviceType = NN_NET_DEVICE_UNPACK;
		uc->dh.netDeviceVersion = NN_NET_UNPACK_VERSION;
		dh = &uc->dh;
		dc = dh;
	}
	r = net_accept(n, l, rc, &dc);
	if (uc != NULL && r == nn_ncclSuccess && *rc != NULL)
		uc->comm = *rc;
	return r;
}

nn_result_t
p_irecv(struct net *n, void *c, void *d, size_t sz, int tag, void *mh,
	void **req)
{
	struct unpack_comm *uc;
	unsigned int i;
	nn_result_t rc;

	rc = net_irecv(n, c, d, sz, tag, mh, req);
	if (n->up == NULL || rc != nn_ncclSuccess || *req == NULL ||
			(uc = unpack_comm_of(n->up, c)) == NULL)
		return rc;
	for (i = 0; i < UNPACK_REQS && n->up->reqs[i].req != NULL; i++)
		;
	if (i == UNPACK_REQS)
		return nn_ncclInternalError;
	n->up->reqs[i] = (struct unpack_req){ .req = *req, .comm = c, .dst = d };
	/* Simple receive k of the comm: slot k % 16, as NCCL's kernel counts. */
	if (uc->simple != NULL && ((uint8_t *)d < uc->simple ||
			(uint8_t *)d >= uc->simple + uc->simple_len))
		n->up->reqs[i].direct = true;
	else
		n->up->reqs[i].slot = (uint16_t)(uc->recvs++ % NN_UNPACK_DEPTH);
	return rc;
}

static uint8_t *
unpack_cpu(struct unpack_state *u, uint8_t *p, uint64_t off, uint32_t len)
{
	unsigned int i;

	for (i = 0; i < UNPACK_BUFS; i++)
		if (u->bufs[i].p != NULL && p >= u->bufs[i].p &&
				p + off + len <= u->bufs[i].p + u->bufs[i].len)
			return u->bufs[i].cpu + (p - u->bufs[i].p) + off;
	return NULL;
}

/*
 * NCCL's kernel for receive @p ur: every entry of its slot, from the
 * region into the buffer; then the plugin may take its chunks back.
 */
static nn_result_t
unpack_run(struct net *n, struct unpack_req *ur)
{
	struct unpack_state *u = n->up;
	struct unpack_comm *uc = unpack_comm_of(u, ur->comm);
	const struct nn_unpack_handle *h;
	const struct nn_unpack_meta *m;
	uint64_t i, cnt;
	uint8_t *d;

	if (uc == NULL || uc->dh.handle == NULL) {
		fprintf(stderr, "unpack: a receive on a comm without a device handle\n");
		return nn_ncclInternalError;
	}
	h = uc->dh.handle;
	m = h->meta;
	cnt = __atomic_load_n(&m->cnt[ur->slot], __ATOMIC_ACQUIRE);
	if (cnt > NN_UNPACK_ENTRIES) {
		fprintf(stderr, "unpack: slot %u has %" PRIu64 " entries\n", ur->slot, cnt);
		return nn_ncclInternalError;
	}
	for (i = 0; i < cnt; i++) {
		const union nn_unpack_entry *e = &m->mem[ur->slot][i];

		d = unpack_cpu(u, ur->dst, e->dst_off, e->len);
		if (d == NULL) {
			fprintf(stderr, "unpack: entry %" PRIu64 " {%u, %u, %" PRIu64
				"} leaves the receive buffer\n", i, e->src_off, e->len,
				e->dst_off);
			return nn_ncclInternalError;
		}
		memcpy(d, u->region_cpu + e->src_off, e->len);
		u->bytes += e->len;
	}
	u->entries += cnt;
	return nn_ncclSuccess;
}

/* irecvConsumed for the oldest receives until at most @p keep wait. */
static nn_result_t
unpack_consume_late(struct net *n, unsigned int keep)
{
	struct unpack_state *u = n->up;
	nn_result_t rc = nn_ncclSuccess;
	unsigned int i;

	while (u->nlate > keep && rc == nn_ncclSuccess) {
		/*
		 * Skip mode drops every second one unnamed while a later one
		 * waits behind it, which will name it (the last is named).
		 */
		if (!u->skip || (u->nconsumed++ & 1) || u->nlate == 1)
			rc = net_consumed(n, u->late_comm[0], u->late_req[0]);
		for (i = 1; i < u->nlate; i++) {
			u->late_comm[i - 1] = u->late_comm[i];
			u->late_req[i - 1] = u->late_req[i];
		}
		u->nlate--;
	}
	return rc;
}

nn_result_t
p_test(struct net *n, void *req, int *done, int *size)
{
	nn_result_t rc = net_test(n, req, done, size);
	unsigned int i;

	if (n->up == NULL || rc != nn_ncclSuccess || !*done)
		return rc;
	for (i = 0; i < UNPACK_REQS; i++)
		if (n->up->reqs[i].req == req) {
			struct unpack_state *u = n->up;

			if (!u->reqs[i].direct)
				rc = unpack_run(n, &u->reqs[i]);
			else
				u->direct++;
			u->reqs[i].req = NULL;
			if (rc != nn_ncclSuccess)
				break;
			u->late_comm[u->nlate] = u->reqs[i].comm;
			u->late_req[u->nlate++] = req;
			rc = unpack_consume_late(n, u->lag);
			break;
		}
	return rc;
}

/* NCCL_HARNESS_UNPACK=1: the plugin must offer unpack; the harness plays NCCL's kernel. */
void
unpack_start(struct side *s, const struct nn_props_v12 *p)
{
	static struct unpack_state up;
	void *(*region_cpu)(void);

	if (p->netDeviceType != NN_NET_DEVICE_UNPACK ||
			p->netDeviceVersion != NN_NET_UNPACK_VERSION)
		FAIL(s, "unpack: the plugin offers netDeviceType %d version 0x%x "
			"(want %d, 0x%x): is [nccl] unpack = yes set?", p->netDeviceType,
			p->netDeviceVersion, NN_NET_DEVICE_UNPACK, NN_NET_UNPACK_VERSION);
	region_cpu = (void *(*)(void))dlsym(s->lib, "devtcp_nccl_region_cpu");
	if (region_cpu == NULL || (up.region_cpu = region_cpu()) == NULL)
		FAIL(s, "unpack: no CPU view of the payload region");
	up.skip = getenv("NCCL_HARNESS_UNPACK_SKIP") != NULL;
	if (getenv("NCCL_HARNESS_UNPACK_LAG") != NULL)
		up.lag = (unsigned int)RTE_MIN(strtoul(getenv("NCCL_HARNESS_UNPACK_LAG"),
			NULL, 0), 15ul);
	s->net.up = &up;
}

/* What the harness unpacked; a run that unpacked nothing did not test it. */
void
unpack_report(struct side *s)
{
	if (s->net.up == NULL)
		return;
	if (unpack_consume_late(&s->net, 0) != nn_ncclSuccess)
		FAIL(s, "unpack: irecvConsumed failed");
	printf("%s: unpacked %" PRIu64 " entries, %" PRIu64 " bytes (NCCL's kernel, played)\n",
		s->name, s->net.up->entries, s->net.up->bytes);
	if (s->net.up->entries == 0 || s->net.up->bytes == 0)
		FAIL(s, "unpack: no receive went through the unpack entries");
}
