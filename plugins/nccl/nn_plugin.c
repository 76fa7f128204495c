/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's side of the plugin: the entry points every ncclNet version shares
 * (nn_versions.c adapts them to each version's table). They run on NCCL's
 * threads and talk to the stacks only through rings (nn.h): commands go to
 * a stack's ring, completions come back on the comm's ring and are
 * collected by test(). Only listen() waits, for the stacks to confirm the
 * port is open (microseconds; control path).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_pause.h>

#include "dt_app_value.h"
#include "nn_comm.h"
#include "nn_plugin.h"
#include "nn_netprof.h"
#include "nn_report.h"

#define NN_LISTEN_WAIT_MS 2000

static struct nn_rt *
rt_or_fail(void)
{
	struct nn_rt *rt = nn_rt_get();

	if (rt == NULL)
		NN_WARN("called before a successful init");
	return rt;
}

nn_result_t
nn_init(nn_logger_t log, nn_prof_cb_t prof)
{
	int rc = nn_rt_init(log);

	if (rc != 0)
		return nn_ncclSystemError;
	/* Every communicator's init hands the same callback: keep the last. */
	if (prof != NULL)
		nn_rt_get()->prof_cb = prof;
	return nn_ncclSuccess;
}

nn_result_t
nn_devices(int *ndev)
{
	*ndev = nn_rt_get() != NULL ? 1 : 0;
	return nn_ncclSuccess;
}

nn_result_t
nn_props(int dev, struct nn_props_v12 *p)
{
	struct nn_rt *rt = rt_or_fail();
	struct rte_ether_addr mac;

	if (rt == NULL || dev != 0)
		return nn_ncclInvalidArgument;
	memset(p, 0, sizeof(*p));
	p->name = rt->name;
	p->pciPath = rt->pci_path[0] ? rt->pci_path : NULL;
	if (rte_eth_macaddr_get(rt->port_id, &mac) == 0)
		memcpy(&p->guid, mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	p->ptrSupport = rt->ptr_support;
	p->regIsGlobal = 0;
	p->forceFlush = 0;
	p->speed = rt->speed;
	p->port = 0;
	p->latency = 0;
	p->maxComms = 65536;
	p->maxRecvs = 1;
	p->netDeviceType = rt->unpack ? NN_NET_DEVICE_UNPACK : NN_NET_DEVICE_HOST;
	p->netDeviceVersion = rt->unpack ? NN_NET_UNPACK_VERSION : 0;
	p->vProps.ndevs = 1;
	p->vProps.devs[0] = 0;
	p->maxP2pBytes = (size_t)1 << 30;
	p->maxCollBytes = (size_t)1 << 30;
	p->maxMultiRequestSize = 1;
	p->railId = rt->cfg.rail != NN_CFG_ID_UNSET ? (int16_t)rt->cfg.rail :
		NN_NET_ID_UNDEF;
	p->planeId = rt->cfg.plane != NN_CFG_ID_UNSET ? (int16_t)rt->cfg.plane :
		NN_NET_ID_UNDEF;
	return nn_ncclSuccess;
}

nn_result_t
nn_listen(int dev, void *handle, void **listen_comm)
{
	struct nn_rt *rt = rt_or_fail();
	struct nn_handle *h = handle;
	struct nn_listener *l;
	struct nn_msg m;
	uint64_t deadline;
	uint16_t i, acks = 0;
	char name[RTE_RING_NAMESIZE];
	uint32_t n;
	int err = 0;

	if (rt == NULL)
		return nn_ncclInternalError;
	l = rte_zmalloc("nn_listener", sizeof(*l), RTE_CACHE_LINE_SIZE);
	if (l == NULL)
		return nn_ncclSystemError;
	n = __atomic_fetch_add(&rt->next_port, 1, __ATOMIC_RELAXED);
	/* A block of NN_MAX_STACKS ports: stack i listens on port + i. */
	l->port = rt->cfg.port_base + (n % (8192 / NN_MAX_STACKS)) * NN_MAX_STACKS;
	snprintf(name, sizeof(name), "nn_l%u", n);
	l->cq = rte_ring_create_elem(name, sizeof(struct nn_msg), NN_CQ_SIZE,
		SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (l->cq == NULL) {
		NN_WARN("listen: cannot create a ring: %s", rte_strerror(rte_errno));
		rte_free(l);
		return nn_ncclSystemError;
	}
	l->refs = rt->nb_stacks + 1;
	for (i = 0; i < rt->nb_stacks; i++)
		nn_cmd(rt->stacks[i], NN_CMD_LISTEN, 0, l);
	deadline = rte_get_timer_cycles() + rte_get_timer_hz() * NN_LISTEN_WAIT_MS / 1000;
	while (acks < rt->nb_stacks && rte_get_timer_cycles() < deadline) {
		if (rte_ring_sc_dequeue_elem(l->cq, &m, sizeof(m)) != 0) {
			rte_pause();
			continue;
		}
		acks++;
		if (m.val != 0)
			err = -m.val;
	}
	if (acks < rt->nb_stacks || err != 0) {
		NN_WARN("listen on TCP port %u failed: %s", l->port,
			acks < rt->nb_stacks ? "the stacks did not answer" : strerror(err));
		/* Stacks that listen stop again; the last reference frees it. */
		l->closing = true;
		for (i = 0; i < rt->nb_stacks; i++)
			nn_cmd(rt->stacks[i], NN_CMD_UNLISTEN, 0, l);
		return nn_ncclSystemError;
	}
	memset(h, 0, NN_HANDLE_MAXSIZE);
	h->magic = NN_MAGIC_HANDLE;
	h->ipv4 = rt->cfg.ipv4;
	h->port = l->port;
	h->nports = rt->nb_stacks;
	h->nflows = rt->cfg.flows;
	*listen_comm = l;
	NN_INFO("listening on %s:%u..%u (%u flows per comm)",
		dt_app_ipv4_str(h->ipv4, (char[32]){0}, 32), h->port,
		h->port + h->nports - 1, h->nflows);
	return nn_ncclSuccess;
}

nn_result_t
nn_connect(int dev, void *handle, void **send_comm, void **dev_comm)
{
	struct nn_rt *rt = rt_or_fail();
	struct nn_handle *h = handle;
	struct nn_comm *c;

	nn_count_call(NN_CALL_CONNECT);

	*send_comm = NULL;
	if (rt == NULL)
		return nn_ncclInternalError;
	if (h->magic != NN_MAGIC_HANDLE || h->nflows == 0 ||
			h->nflows > NN_MAX_FLOWS) {
		NN_WARN("connect: not a devtcp handle (magic 0x%x, %u flows)",
			h->magic, h->nflows);
		return nn_ncclInvalidUsage;
	}
	c = (struct nn_comm *)(uintptr_t)h->stage;
	if (c == NULL) {
		c = nn_comm_connect(rt, h);
		if (c == NULL)
			return nn_ncclSystemError;
		h->stage = (uintptr_t)c;
		return nn_ncclSuccess;
	}
	nn_comm_drain(c);
	if (c->err == 0 && rte_get_timer_cycles() - c->t_start >
			rte_get_timer_hz() * rt->cfg.connect_timeout_ms / 1000)
		c->err = ETIMEDOUT;
	if (c->err != 0) {
		nn_comm_log_error(c, "connect failed");
		h->stage = 0;
		nn_comm_close(c);
		return nn_err_result(c->err == ETIMEDOUT ? ETIMEDOUT : c->err);
	}
	if (c->parts_ready < c->nparts)
		return nn_ncclSuccess;
	h->stage = 0;
	*send_comm = c;
	return nn_ncclSuccess;
}

nn_result_t
nn_accept(void *listen_comm, void **recv_comm, void **dev_comm)
{
	struct nn_rt *rt = rt_or_fail();
	struct nn_listener *l = listen_comm;
	struct nn_msg m;
	struct nn_wire_hello h;
	bool complete;
	struct nn_flow *f;
	int slot;

	nn_count_call(NN_CALL_ACCEPT);

	*recv_comm = NULL;
	if (rt == NULL)
		return nn_ncclInternalError;
	nn_unpack_gc(rt);
	while (rte_ring_sc_dequeue_elem(l->cq, &m, sizeof(m)) == 0) {
		if (m.type != NN_EV_HELLO)
			continue;
		f = m.obj;
		h = (struct nn_wire_hello){ .magic = NN_MAGIC_HELLO, .flow = f->idx,
			.nflows = f->nflows, .comm_id = f->comm_id };
		slot = nn_wire_pending_add(l->pend, RTE_DIM(l->pend), &h, &complete);
		if (slot < 0) {
			NN_WARN("accept: unexpected flow %u of %u of comm %" PRIx64
				": dropped", f->idx, f->nflows, f->comm_id);
			nn_cmd(f->s, NN_CMD_ABORT_FLOW, 0, f);
			continue;
		}
		l->pending_flows[slot][f->idx] = f;
		if (complete) {
			/* All flows are in, sorted by index. */
			struct nn_comm *c = nn_comm_accept(rt, l, slot,
				dev_comm != NULL ? *dev_comm : NULL);

			l->pend[slot].got = 0;
			memset(l->pending_flows[slot], 0, sizeof(l->pending_flows[slot]));
			if (c == NULL)
				return nn_ncclSystemError;
			*recv_comm = c;
			return nn_ncclSuccess;
		}
	}
	return nn_ncclSuccess;
}

nn_result_t
nn_reg_mr(void *comm, void *data, size_t size, int type, void **mhandle)
{
	struct nn_rt *rt = rt_or_fail();
	struct nn_mr *mr;
	int rc;

	nn_count_call(NN_CALL_REGMR);

	if (rt == NULL)
		return nn_ncclInternalError;
	rc = nn_mr_reg(rt, data, size, type,
		comm != NULL && ((struct nn_comm *)comm)->send, &mr);
	if (rc != 0)
		return nn_ncclSystemError;
	if (comm != NULL && !nn_unpack_note_mr(comm, mr)) {
		nn_mr_dereg(rt, mr);
		return nn_ncclInvalidUsage;   /* NCCL falls back to its buffers */
	}
	*mhandle = mr;
	return nn_ncclSuccess;
}

nn_result_t
nn_reg_mr_dmabuf(void *comm, void *data, size_t size, int type,
	uint64_t offset, int fd, void **mhandle)
{
	/* The buffer is reached at its CUDA address; the dma-buf is not needed. */
	return nn_reg_mr(comm, data, size, type, mhandle);
}

nn_result_t
nn_dereg_mr(void *comm, void *mhandle)
{
	struct nn_rt *rt = nn_rt_get();

	if (rt != NULL)
		nn_mr_dereg(rt, mhandle);
	return nn_ncclSuccess;
}

nn_result_t
nn_isend(void *send_comm, void *data, size_t size, int tag,
	void *mhandle, void *phandle, void **request)
{
	struct nn_comm *c = send_comm;
	struct nn_req *r;

	nn_count_call(NN_CALL_ISEND);
	*request = NULL;
	nn_comm_drain(c);
	if (c->err != 0) {
		nn_comm_log_error(c, "send");
		return nn_err_result(c->err);
	}
	r = nn_req_new(c);
	if (r == NULL)
		return nn_ncclSuccess;   /* would block: NCCL retries */
	r->send = true;
	r->data = (uintptr_t)data;
	r->size = size;
	r->tag = tag;
	r->mr = mhandle;
	r->hdr.magic = NN_MAGIC_MSG;
	r->hdr.tag = tag;
	r->hdr.size = size;
	r->hdr_iova = rte_mem_virt2iova(&r->hdr);
	nn_netprof_start(c, r, phandle);
	nn_req_post(c, r, NN_CMD_SEND);
	*request = r;
	return nn_ncclSuccess;
}

nn_result_t
nn_irecv(void *recv_comm, int n, void **data, size_t size, int *tags,
	void **mhandles, void **phandles, void **request)
{
	struct nn_comm *c = recv_comm;
	struct nn_req *r;

	nn_count_call(NN_CALL_IRECV);
	*request = NULL;
	if (n != 1) {
		NN_WARN("irecv: %d buffers in one receive (maxRecvs is 1)", n);
		return nn_ncclInternalError;
	}
	nn_comm_drain(c);
	if (c->err != 0) {
		nn_comm_log_error(c, "receive");
		return nn_err_result(c->err);
	}
	r = nn_req_new(c);
	if (r == NULL)
		return nn_ncclSuccess;
	r->send = false;
	r->data = (uintptr_t)data[0];
	r->size = size;
	r->tag = tags != NULL ? tags[0] : 0;
	r->mr = mhandles != NULL ? mhandles[0] : NULL;
	r->unpack = c->unpack != NULL && nn_unpack_wants(c, r->mr);
	c->recv_seen = true;
	if (r->unpack) {
		/* Every Simple receive takes the next slot, a zero-byte one too. */
		r->uslot = (uint16_t)(c->unpack_posted++ % NN_UNPACK_DEPTH);
		r->unpack_n = 0;
	}
	nn_netprof_start(c, r, phandles != NULL ? phandles[0] : NULL);
	nn_req_post(c, r, NN_CMD_RECV);
	*request = r;
	return nn_ncclSuccess;
}

nn_result_t
nn_iflush(void *recv_comm, int n, void **data, int *sizes, void **mhandles,
	void **request)
{
	/*
	 * Nothing to flush: test() reports a receive only once the GPU copy
	 * that wrote NCCL's buffer has completed (its event), so the bytes are
	 * visible to any later kernel.
	 */
	*request = NULL;
	return nn_ncclSuccess;
}

nn_result_t
nn_test(void *request, int *done, int *sizes)
{
	struct nn_req *r = request;
	struct nn_comm *c = r->comm;

	*done = 0;
	nn_count_call(NN_CALL_TEST);
	nn_comm_drain(c);
	if (r->done) {
		nn_netprof_stop(r);
		if (!r->send && r->err == EMSGSIZE) {
			NN_WARN("message truncated: the peer sent %" PRIu64 " bytes, the "
				"receive buffer holds %" PRIu64 " (mismatched sizes between ranks?)",
				r->rsize, r->size);
			r->used = false;
			return nn_ncclInvalidUsage;
		}
		if (!r->send && r->rtag != r->tag)
			NN_INFO("receive with tag %d got a message tagged %d",
				r->tag, r->rtag);
		if (sizes != NULL)
			sizes[0] = (int)(r->send ? r->size : r->rsize);
		nn_req_account(c, r);
		__atomic_fetch_add(&nn_rt_get()->reqs_done, 1, __ATOMIC_RELAXED);
		if (!r->send && c->unpack != NULL) {
			/*
			 * Kept until irecvConsumed: its chunks wait for the
			 * kernel; a gathered one (LL, LL128) too, for NCCL names
			 * every receive in irecvConsumed, and a reused request
			 * would consume a later message.
			 */
			if (r->unpack)
				nn_unpack_publish(r);
			r->await_consume = true;
		} else {
			r->used = false;
		}
		*done = 1;
		return nn_ncclSuccess;
	}
	if (c->err != 0) {
		nn_netprof_stop(r);
		nn_comm_log_error(c, r->send ? "send failed" : "receive failed");
		return nn_err_result(c->err);
	}
	nn_stall_check(c, r);
	return nn_ncclSuccess;
}

/*
 * NCCL's kernel is done with receive @p request (unpack mode): its chunks,
 * and those of every earlier receive of the comm (NCCL consumes in order),
 * may go back to the NIC; the lcores read the count as they release.
 */
nn_result_t
nn_irecv_consumed(void *recv_comm, int n, void *request)
{
	struct nn_comm *c = recv_comm;
	struct nn_req *r = request;
	unsigned int i;

	if (c == NULL || r == NULL || c->unpack == NULL)
		return nn_ncclSuccess;
	if (r->seq + 1 > c->unpack_consumed)
		__atomic_store_n(&c->unpack_consumed, r->seq + 1, __ATOMIC_RELEASE);
	/* In order: earlier receives NCCL did not name are consumed too. */
	for (i = 0; i < NN_REQS; i++) {
		struct nn_req *q = &c->reqs[i];

		if (q->used && q->await_consume && q->seq <= r->seq) {
			q->await_consume = false;
			q->used = false;
		}
	}
	return nn_ncclSuccess;
}

nn_result_t
nn_close_comm(void *comm)
{
	struct nn_comm *c = comm;
	unsigned int i;

	if (c != NULL) {
		/* Requests NCCL gives up on: their profiler events end here. */
		for (i = 0; i < NN_REQS; i++)
			if (c->reqs[i].used)
				nn_netprof_stop(&c->reqs[i]);
		nn_comm_close(c);
	}
	nn_unpack_gc(nn_rt_get());
	return nn_ncclSuccess;
}

nn_result_t
nn_close_listen(void *listen_comm)
{
	struct nn_rt *rt = nn_rt_get();
	struct nn_listener *l = listen_comm;
	uint16_t i, j;

	if (rt == NULL || l == NULL)
		return nn_ncclSuccess;
	l->closing = true;
	for (i = 0; i < RTE_DIM(l->pend); i++)
		for (j = 0; j < NN_MAX_FLOWS && l->pend[i].got != 0; j++)
			if (l->pending_flows[i][j] != NULL)
				nn_cmd(l->pending_flows[i][j]->s, NN_CMD_ABORT_FLOW, 0,
					l->pending_flows[i][j]);
	for (i = 0; i < rt->nb_stacks; i++)
		nn_cmd(rt->stacks[i], NN_CMD_UNLISTEN, 0, l);
	nn_listener_unref(l);
	return nn_ncclSuccess;
}

