/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's side of the plugin: the entry points of ncclNet_v8, v10 and v11.
 * They run on NCCL's threads and talk to the stacks only through rings
 * (nn.h): commands go to a stack's ring, completions come back on the
 * comm's ring and are collected by test(). Only listen() waits, for the
 * stacks to confirm the port is open (microseconds; control path).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_pause.h>

#include "dt_app_value.h"
#include "nn_rt.h"
#include "nn_stats.h"

#define NN_EXPORT __attribute__((visibility("default")))
#define NN_CQ_SIZE 4096
#define NN_LISTEN_WAIT_MS 2000

static struct nn_rt *
rt_or_fail(void)
{
	struct nn_rt *rt = nn_rt_get();

	if (rt == NULL)
		NN_WARN("called before a successful init");
	return rt;
}

static void
cmd(struct nn_stack *s, uint32_t type, int32_t val, void *obj)
{
	/* The stack's lcore drains its ring on every loop: this never waits long. */
	nn_post_event(s->cmd, type, val, obj);
}

static nn_result_t
nn_init(nn_logger_t log)
{
	int rc = nn_rt_init(log);

	return rc == 0 ? nn_ncclSuccess : nn_ncclSystemError;
}

static nn_result_t
nn_devices(int *ndev)
{
	*ndev = nn_rt_get() != NULL ? 1 : 0;
	return nn_ncclSuccess;
}

static nn_result_t
nn_props(int dev, struct nn_props_v11 *p)
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
	return nn_ncclSuccess;
}

static nn_result_t
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
		cmd(rt->stacks[i], NN_CMD_LISTEN, 0, l);
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
			cmd(rt->stacks[i], NN_CMD_UNLISTEN, 0, l);
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

static struct nn_comm *
comm_new(struct nn_rt *rt, bool send, uint16_t nflows, uint16_t nparts)
{
	char name[RTE_RING_NAMESIZE];
	struct nn_comm *c;
	uint32_t n;
	uint16_t i;

	c = rte_zmalloc("nn_comm", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL)
		return NULL;
	n = __atomic_fetch_add(&rt->next_comm, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof(name), "nn_c%c%u", send ? 's' : 'r', n);
	c->cq = rte_ring_create_elem(name, sizeof(struct nn_msg), NN_CQ_SIZE,
		SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (c->cq == NULL) {
		NN_WARN("cannot create a comm ring: %s", rte_strerror(rte_errno));
		rte_free(c);
		return NULL;
	}
	c->send = send;
	c->id = rt->id_salt ^ ((uint64_t)n << 1);
	c->nflows = nflows;
	c->nparts = nparts;
	c->refs = 1;
	for (i = 0; i < NN_REQS; i++) {
		c->reqs[i].comm = c;
		c->reqs[i].idx = i;
	}
	return c;
}

static struct nn_part *
part_new(struct nn_comm *c, struct nn_stack *s, uint16_t pidx)
{
	struct nn_part *p = rte_zmalloc("nn_part", sizeof(*p), RTE_CACHE_LINE_SIZE);

	if (p == NULL)
		return NULL;
	p->comm = c;
	p->s = s;
	p->pidx = pidx;
	if (c->unpack != NULL) {
		p->urel = rte_zmalloc("nn_urel", NN_UREL_Q * sizeof(*p->urel),
			RTE_CACHE_LINE_SIZE);
		if (p->urel == NULL)
			NN_WARN("no unpack release queue for a part (%s): its chunks "
				"wait in the stack's", rte_strerror(rte_errno));
	}
	c->parts[pidx] = p;
	c->refs++;
	return p;
}

/* A comm whose parts were never handed to a stack. */
static void
comm_drop(struct nn_comm *c)
{
	uint16_t i, j;

	for (i = 0; i < c->nparts; i++) {
		if (c->parts[i] == NULL)
			continue;
		for (j = 0; j < c->parts[i]->nflows; j++)
			rte_free(c->parts[i]->flows[j]);
		rte_free(c->parts[i]->urel);
		rte_free(c->parts[i]);
	}
	nn_unpack_free(c);
	rte_ring_free(c->cq);
	rte_free(c);
}

static struct nn_comm *
connect_start(struct nn_rt *rt, const struct nn_handle *h)
{
	uint16_t nparts = RTE_MIN(h->nflows, rt->nb_stacks), i;
	struct nn_comm *c;

	c = comm_new(rt, true, h->nflows, nparts);
	if (c == NULL)
		return NULL;
	c->peer = *h;
	c->t_start = rte_get_timer_cycles();
	for (i = 0; i < nparts; i++)
		if (part_new(c, rt->stacks[i], i) == NULL)
			goto fail;
	for (i = 0; i < h->nflows; i++) {
		struct nn_part *p = c->parts[i % nparts];
		struct nn_flow *f = rte_zmalloc("nn_flow", sizeof(*f),
			RTE_CACHE_LINE_SIZE);

		if (f == NULL)
			goto fail;
		p->flows[p->nflows++] = f;
		f->wire_slot = -1;   /* a send flow receives nothing */
		f->s = p->s;
		f->part = p;
		f->idx = i;
		f->nflows = h->nflows;
	}
	for (i = 0; i < nparts; i++)
		cmd(c->parts[i]->s, NN_CMD_CONNECT, 0, c->parts[i]);
	return c;
fail:
	NN_WARN("connect: out of memory");
	comm_drop(c);
	return NULL;
}

/* What a comm carried, once, when NCCL closes it (NCCL_DEBUG=INFO). */
static void
comm_log_summary(const struct nn_comm *c)
{
	double hz = (double)rte_get_timer_hz();
	double span;

	if (c->n_done == 0)
		return;
	span = (double)(c->t_last_done - c->t_first_post) / hz;
	NN_INFO("%s comm %" PRIx64 " closed: %" PRIu64 " requests, %" PRIu64
		" bytes, request latency mean %.1f us max %.1f us, first post to "
		"last completion %.3f s (%.2f Gb/s over that span)",
		c->send ? "send" : "receive", c->id, c->n_done, c->bytes_done,
		(double)c->lat_sum / c->n_done / hz * 1e6,
		(double)c->lat_max / hz * 1e6, span,
		span > 0 ? c->bytes_done * 8 / span / 1e9 : 0.0);
}

static void
comm_close(struct nn_comm *c)
{
	uint16_t i;

	comm_log_summary(c);
	for (i = 0; i < c->nparts; i++)
		cmd(c->parts[i]->s, NN_CMD_CLOSE, 0, c->parts[i]);
	nn_comm_unref(c);
}

/* Collect the comm's completions; NCCL's thread only. */
static void
comm_drain(struct nn_comm *c)
{
	struct nn_msg m[32];
	unsigned int n, i;

	while ((n = rte_ring_sc_dequeue_burst_elem(c->cq, m, sizeof(m[0]),
			RTE_DIM(m), NULL)) != 0) {
		for (i = 0; i < n; i++) {
			switch (m[i].type) {
			case NN_EV_DONE:
				c->reqs[m[i].val].done = true;
				break;
			case NN_EV_ERROR:
				if (c->err == 0)
					c->err = m[i].val;
				break;
			case NN_EV_PART_READY:
				if (m[i].val < 0 && c->err == 0)
					c->err = -m[i].val;
				else if (m[i].val == 0)
					c->parts_ready++;
				break;
			}
		}
	}
}

static nn_result_t
err_result(int err)
{
	return err == ECONNRESET || err == EPIPE || err == ECONNABORTED ||
		err == ECONNREFUSED ? nn_ncclRemoteError : nn_ncclSystemError;
}

static const char *
err_text(int err)
{
	switch (err) {
	case ECONNRESET:
		return "connection reset or closed by the peer";
	case ETIMEDOUT:
		return "peer unreachable: retransmissions timed out (peer killed or link down?)";
	case ECONNREFUSED:
		return "connection refused by the peer";
	case ENOBUFS:
		return "payload region exhausted (raise [devmem] buffers or lower [limits] window)";
	case EPROTO:
		return "protocol error: the peer is not a devtcp plugin of this version";
	default:
		return strerror(err);
	}
}

static void
comm_log_error(struct nn_comm *c, const char *what)
{
	char ip[32];

	if (c->err_logged)
		return;
	c->err_logged = true;
	NN_WARN("%s comm (peer %s:%u): %s: %s", c->send ? "send" : "receive",
		c->send ? dt_app_ipv4_str(c->peer.ipv4, ip, sizeof(ip)) : "-",
		c->send ? c->peer.port : 0, what, err_text(c->err));
}

static nn_result_t
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
		c = connect_start(rt, h);
		if (c == NULL)
			return nn_ncclSystemError;
		h->stage = (uintptr_t)c;
		return nn_ncclSuccess;
	}
	comm_drain(c);
	if (c->err == 0 && rte_get_timer_cycles() - c->t_start >
			rte_get_timer_hz() * rt->cfg.connect_timeout_ms / 1000)
		c->err = ETIMEDOUT;
	if (c->err != 0) {
		comm_log_error(c, "connect failed");
		h->stage = 0;
		comm_close(c);
		return err_result(c->err == ETIMEDOUT ? ETIMEDOUT : c->err);
	}
	if (c->parts_ready < c->nparts)
		return nn_ncclSuccess;
	h->stage = 0;
	*send_comm = c;
	return nn_ncclSuccess;
}

static struct nn_comm *
accept_build(struct nn_rt *rt, struct nn_listener *l, int slot,
	struct nn_net_device_handle *dh)
{
	struct nn_flow **fl = l->pending_flows[slot];
	uint16_t nflows = fl[0]->nflows, i, j, nparts = 0;
	struct nn_stack *st[NN_MAX_FLOWS];
	struct nn_comm *c;

	for (i = 0; i < nflows; i++) {
		for (j = 0; j < nparts && st[j] != fl[i]->s; j++)
			;
		if (j == nparts)
			st[nparts++] = fl[i]->s;
	}
	c = comm_new(rt, false, nflows, nparts);
	if (c == NULL)
		return NULL;
	/*
	 * NCCL hands a device handle to the receive side of each connection
	 * it will unpack (none for its bootstrap): set up before the parts
	 * see a byte. On failure the flows, still the stacks', are aborted.
	 */
	if (rt->unpack && dh != NULL && dh->netDeviceType == NN_NET_DEVICE_UNPACK) {
		int rc = nn_unpack_open(rt, c, dh);

		if (rc != 0) {
			NN_WARN("accept: no device-side unpack for the new comm: %s",
				strerror(-rc));
			for (i = 0; i < nflows; i++)
				cmd(fl[i]->s, NN_CMD_ABORT_FLOW, 0, fl[i]);
			comm_drop(c);
			return NULL;
		}
	}
	for (j = 0; j < nparts; j++)
		if (part_new(c, st[j], j) == NULL) {
			comm_drop(c);
			return NULL;
		}
	for (i = 0; i < nflows; i++)
		for (j = 0; j < nparts; j++)
			if (st[j] == fl[i]->s) {
				struct nn_part *p = c->parts[j];

				p->flows[p->nflows++] = fl[i];
			}
	for (j = 0; j < nparts; j++)
		cmd(st[j], NN_CMD_ATTACH, 0, c->parts[j]);
	return c;
}

static nn_result_t
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
			cmd(f->s, NN_CMD_ABORT_FLOW, 0, f);
			continue;
		}
		l->pending_flows[slot][f->idx] = f;
		if (complete) {
			/* All flows are in, sorted by index. */
			struct nn_comm *c = accept_build(rt, l, slot,
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

static nn_result_t
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
	*mhandle = mr;
	return nn_ncclSuccess;
}

static nn_result_t
nn_reg_mr_dmabuf(void *comm, void *data, size_t size, int type,
	uint64_t offset, int fd, void **mhandle)
{
	/* The buffer is reached at its CUDA address; the dma-buf is not needed. */
	return nn_reg_mr(comm, data, size, type, mhandle);
}

static nn_result_t
nn_dereg_mr(void *comm, void *mhandle)
{
	struct nn_rt *rt = nn_rt_get();

	if (rt != NULL)
		nn_mr_dereg(rt, mhandle);
	return nn_ncclSuccess;
}

static struct nn_req *
req_new(struct nn_comm *c)
{
	uint16_t i, k;

	for (k = 0; k < NN_REQS; k++) {
		i = (c->free_hint + k) % NN_REQS;
		if (!c->reqs[i].used) {
			struct nn_req *r = &c->reqs[i];

			c->free_hint = (i + 1) % NN_REQS;
			memset(&r->hdr, 0, sizeof(*r) - offsetof(struct nn_req, hdr));
			r->used = true;
			r->done = false;
			r->seq = c->next_seq++;
			r->parts_left = c->nparts;
			r->t_post = rte_get_timer_cycles();
			r->stall_logged = false;
			r->await_consume = false;
			return r;
		}
	}
	return NULL;
}

static void
req_count_post(void)
{
	struct nn_rt *rt = nn_rt_get();

	__atomic_fetch_add(&rt->reqs_posted, 1, __ATOMIC_RELAXED);
}

static void
req_post(struct nn_comm *c, struct nn_req *r, uint32_t type)
{
	uint16_t i;

	for (i = 0; i < c->nparts; i++)
		cmd(c->parts[i]->s, type, r->idx, c->parts[i]);
}

static nn_result_t
nn_isend_common(void *send_comm, void *data, size_t size, int tag,
	void *mhandle, void **request)
{
	struct nn_comm *c = send_comm;
	struct nn_req *r;

	nn_count_call(NN_CALL_ISEND);
	*request = NULL;
	comm_drain(c);
	if (c->err != 0) {
		comm_log_error(c, "send");
		return err_result(c->err);
	}
	r = req_new(c);
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
	req_post(c, r, NN_CMD_SEND);
	req_count_post();
	*request = r;
	return nn_ncclSuccess;
}

static nn_result_t
nn_irecv_common(void *recv_comm, int n, void **data, size_t size, int *tags,
	void **mhandles, void **request)
{
	struct nn_comm *c = recv_comm;
	struct nn_req *r;

	nn_count_call(NN_CALL_IRECV);
	*request = NULL;
	if (n != 1) {
		NN_WARN("irecv: %d buffers in one receive (maxRecvs is 1)", n);
		return nn_ncclInternalError;
	}
	comm_drain(c);
	if (c->err != 0) {
		comm_log_error(c, "receive");
		return err_result(c->err);
	}
	r = req_new(c);
	if (r == NULL)
		return nn_ncclSuccess;
	r->send = false;
	r->data = (uintptr_t)data[0];
	r->size = size;
	r->tag = tags != NULL ? tags[0] : 0;
	r->mr = mhandles != NULL ? mhandles[0] : NULL;
	if (c->unpack != NULL) {
		/* Every receive takes the next slot, a zero-byte one too. */
		r->uslot = (uint16_t)(c->unpack_posted++ % NN_UNPACK_DEPTH);
		r->unpack_n = 0;
	}
	req_post(c, r, NN_CMD_RECV);
	req_count_post();
	*request = r;
	return nn_ncclSuccess;
}

static nn_result_t
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

static uint32_t
rt_stall_ms(void)
{
	struct nn_rt *rt = nn_rt_get();

	return rt != NULL ? rt->cfg.stall_report_ms : 0;
}

/*
 * [nccl] profile = yes: where the stack's lcore spent its loop, per step,
 * with lib/dp's own processing of received bursts (inside the dp step).
 */
static void
prof_log(const struct nn_stack *s, const struct dt_dp_stats *st, double tsc_us)
{
	const uint64_t *c = s->prof_cyc;
	uint64_t tot = c[NN_PROF_CMDS] + c[NN_PROF_DP] + c[NN_PROF_EVENTS] +
		c[NN_PROF_PROGRESS];
	double pct = tot != 0 ? 100.0 / (double)tot : 0.0;

	NN_INFO("stack %u loop (profile): %.3f s in %" PRIu64 " polls (%.0f ns each): "
		"commands %.1f%%, dp_poll %.1f%% (lib/dp RX processing %.1f%%), "
		"events %.1f%%, progress %.1f%% (TSC %.0f MHz)", s->idx, (double)tot / tsc_us / 1e6,
		s->polls, s->polls != 0 ? (double)tot / tsc_us * 1e3 / (double)s->polls : 0.0,
		c[NN_PROF_CMDS] * pct, c[NN_PROF_DP] * pct, st->rx_cycles * pct,
		c[NN_PROF_EVENTS] * pct, c[NN_PROF_PROGRESS] * pct, tsc_us);
}

/*
 * The port's xstats, names and values (freed by the caller); 0 when there
 * are none or they cannot be read.
 */
static int
port_xstats_fetch(const struct nn_rt *rt, struct rte_eth_xstat_name **names,
	struct rte_eth_xstat **xs)
{
	int cnt = rte_eth_xstats_get_names(rt->port_id, NULL, 0);

	*names = NULL;
	*xs = NULL;
	if (cnt <= 0)
		return 0;
	*names = calloc(cnt, sizeof(**names));
	*xs = calloc(cnt, sizeof(**xs));
	if (*names == NULL || *xs == NULL ||
			rte_eth_xstats_get_names(rt->port_id, *names, cnt) != cnt ||
			rte_eth_xstats_get(rt->port_id, *xs, cnt) != cnt)
		return 0;
	return cnt;
}

/* The port's non-zero error and drop counters, in one line. */
static void
nn_port_report(struct nn_rt *rt)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	char line[480];
	int cnt, i, n = 0;

	cnt = port_xstats_fetch(rt, &names, &xs);
	line[0] = '\0';
	for (i = 0; i < cnt && n >= 0 && n < (int)sizeof(line); i++)
		if (xs[i].value != 0 &&
				(strstr(names[xs[i].id].name, "drop") != NULL ||
				 strstr(names[xs[i].id].name, "err") != NULL ||
				 strstr(names[xs[i].id].name, "miss") != NULL))
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				names[xs[i].id].name, xs[i].value);
	NN_WARN("  port %s: drop/error counters:%s", rt->name,
		line[0] ? line : " none");
	/* And what shows waiting rather than dropping. */
	line[0] = '\0';
	n = 0;
	for (i = 0; i < cnt && n >= 0 && n < (int)sizeof(line); i++)
		if (xs[i].value != 0 &&
				(strstr(names[xs[i].id].name, "no_") != NULL ||
				 strstr(names[xs[i].id].name, "full") != NULL ||
				 strstr(names[xs[i].id].name, "busy") != NULL ||
				 strstr(names[xs[i].id].name, "wait") != NULL) &&
				strstr(names[xs[i].id].name, "drop") == NULL)
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				names[xs[i].id].name, xs[i].value);
	NN_WARN("  port %s: wait counters:%s", rt->name, line[0] ? line : " none");
	nn_pools_line(rt, line, sizeof(line));
	NN_WARN("  %s", line);
	free(names);
	free(xs);
}

/* Counters of a stack that say why a segment went nowhere. */
static const struct {
	const char *name;
	size_t off;
} nn_dp_why[] = {
#define NN_DPW(f) { #f, offsetof(struct dt_dp_stats, f) }
	NN_DPW(drop_bad_ip), NN_DPW(drop_not_for_us), NN_DPW(drop_bad_tcp),
	NN_DPW(drop_l4_cksum), NN_DPW(drop_no_conn), NN_DPW(drop_tx_no_mbuf),
	NN_DPW(drop_tx_ring_full), NN_DPW(drop_no_neighbour),
	NN_DPW(drop_too_many_segs), NN_DPW(drop_l4_cksum_unknown),
	NN_DPW(drop_hdr_in_device), NN_DPW(events_overflow),
	NN_DPW(rx_throttled), NN_DPW(steer_errors), NN_DPW(tx_rst),
	NN_DPW(rx_host_queue),
#undef NN_DPW
};

/* The port's non-zero counters of this stack's RX and TX queues. */
static void
nn_stack_queues_report(const struct nn_stack *s)
{
	struct nn_rt *rt = s->rt;
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	char line[480], rxp[16], txp[16];
	int cnt, i, n;

	snprintf(rxp, sizeof(rxp), "rx_q%u_", rt->nb_stacks > 1 ? s->idx + 1 : s->idx);
	snprintf(txp, sizeof(txp), "tx_q%u_", s->idx);
	cnt = port_xstats_fetch(rt, &names, &xs);
	n = snprintf(line, sizeof(line), "  stack %u queues:", s->idx);
	for (i = 0; i < cnt && n > 0 && n < (int)sizeof(line); i++)
		if (xs[i].value != 0 &&
				(strncmp(names[xs[i].id].name, rxp, strlen(rxp)) == 0 ||
				 strncmp(names[xs[i].id].name, txp, strlen(txp)) == 0))
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				names[xs[i].id].name, xs[i].value);
	NN_WARN("%s", line);
	free(names);
	free(xs);
}

/* One stack's frame counts and every non-zero counter of nn_dp_why. */
void
nn_stack_report(const struct nn_stack *s)
{
	struct dt_dp_stats st;
	char line[480];
	unsigned int i;
	int n;

	dt_dp_stats_get(s->st, &st);
	n = snprintf(line, sizeof(line), "  stack %u: rx %" PRIu64 " tx %" PRIu64
		" frames, tcp rx %" PRIu64 ";", s->idx, st.rx_frames, st.tx_frames,
		st.rx_tcp);
	for (i = 0; i < RTE_DIM(nn_dp_why) && n > 0 && n < (int)sizeof(line); i++) {
		uint64_t v = *(const uint64_t *)((const char *)&st + nn_dp_why[i].off);

		if (v != 0)
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				nn_dp_why[i].name, v);
	}
	NN_WARN("%s", line);
	nn_stack_queues_report(s);
}

/* The TCP state of a flow's connection (a snapshot, read unsynchronised). */
static void
nn_flow_tcp_report(const struct nn_flow *f)
{
	struct dt_dp_conn_stats cs;

	if (f->closed || dt_dp_conn_stats_get(f->s->st, f->conn, &cs) != 0)
		return;
	NN_WARN("    flow %u tcp %s: snd_wnd %u cwnd %u rcv_wnd %u held %u srtt %u us; "
		"rx %" PRIu64 " tx %" PRIu64 " bytes; retransmitted %" PRIu64
		" (RTOs %u TLPs %u D-SACKs %u)", f->idx,
		dt_tcp_state_str((enum dt_tcp_state)cs.state), cs.snd_wnd, cs.cwnd,
		cs.rcv_wnd, cs.held_bytes, cs.srtt_us, cs.rx_bytes, cs.tx_bytes,
		cs.retransmits, cs.rtos, cs.tlps, cs.dsacks);
}

/*
 * A request pending for [nccl] stall_report ms: say where it stands, once, so that a
 * hang (NCCL itself only waits) comes with the state of its flows. Fields
 * of the lcores are read without synchronisation: a diagnostic snapshot;
 * polls not moving between two reports means the stack's lcore is stuck
 * (in a copy wait, for example), not waiting for the peer.
 */
static void
nn_stall_report(struct nn_comm *c, struct nn_req *r)
{
	struct nn_rt *rt = nn_rt_get();
	char line[480];
	uint16_t i, j;
	int n;

	NN_WARN("%s request %u (message %" PRIu64 ", %" PRIu64 " bytes) pending "
		"for %u ms; %u part(s) of the comm not done", r->send ? "send" :
		"receive", r->idx, r->seq, r->size, rt_stall_ms(),
		__atomic_load_n(&r->parts_left, __ATOMIC_RELAXED));
	for (i = 0; i < c->nparts; i++) {
		const struct nn_part *p = c->parts[i];
		const struct nn_stack *s = p->s;

		n = snprintf(line, sizeof(line), "  stack %u: polls %" PRIu64
			", part head %" PRIu64 " tail %" PRIu64 "%s;", s->idx, s->polls,
			p->head, p->tail, p->failed ? " FAILED" : "");
		for (j = 0; j < p->nflows && n > 0 && n < (int)sizeof(line); j++) {
			const struct nn_flow *f = p->flows[j];

			if (c->send)
				n += snprintf(line + n, sizeof(line) - n, " flow %u: "
					"tx_seq %" PRIu64 " queued %" PRIu64 "/%" PRIu64
					" unacked %u;", f->idx, f->tx_seq, f->tx_done, f->tx_len,
					r->pend[p->pidx]);
			else
				n += snprintf(line + n, sizeof(line) - n, " flow %u: "
					"rx_seq %" PRIu64 " hdr %d got %" PRIu64 "/%" PRIu64
					" chunks %u wire_wait %d;", f->idx, f->rx_seq, f->have_hdr,
					f->rx_done, f->rx_len, f->qt - f->qh, f->wire_wait);
		}
		NN_WARN("%s", line);
		for (j = 0; j < p->nflows; j++)
			nn_flow_tcp_report(p->flows[j]);
		nn_stack_report(s);
	}
	if (rt != NULL)
		nn_port_report(rt);
}

static void
req_account(struct nn_comm *c, const struct nn_req *r)
{
	uint64_t now = rte_get_timer_cycles(), lat = now - r->t_post;

	if (c->n_done++ == 0)
		c->t_first_post = r->t_post;
	c->t_last_done = now;
	c->bytes_done += r->send ? r->size : RTE_MIN(r->rsize, r->size);
	c->lat_sum += lat;
	if (lat > c->lat_max)
		c->lat_max = lat;
}

static nn_result_t
nn_test(void *request, int *done, int *sizes)
{
	struct nn_req *r = request;
	struct nn_comm *c = r->comm;

	*done = 0;
	nn_count_call(NN_CALL_TEST);
	comm_drain(c);
	if (r->done) {
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
		req_account(c, r);
		__atomic_fetch_add(&nn_rt_get()->reqs_done, 1, __ATOMIC_RELAXED);
		if (!r->send && c->unpack != NULL) {
			/* Kept until irecvConsumed: its chunks wait for the kernel. */
			nn_unpack_publish(r);
			r->await_consume = true;
		} else {
			r->used = false;
		}
		*done = 1;
		return nn_ncclSuccess;
	}
	if (c->err != 0) {
		comm_log_error(c, r->send ? "send failed" : "receive failed");
		return err_result(c->err);
	}
	if (!r->stall_logged && rt_stall_ms() != 0 &&
			rte_get_timer_cycles() - r->t_post >
			rte_get_timer_hz() / 1000 * rt_stall_ms()) {
		r->stall_logged = true;
		nn_stall_report(c, r);
	}
	return nn_ncclSuccess;
}

/*
 * NCCL's kernel is done with receive @p request (unpack mode): its chunks,
 * and those of every earlier receive of the comm (NCCL consumes in order),
 * may go back to the NIC; the lcores read the count as they release.
 */
static nn_result_t
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

static nn_result_t
nn_close_comm(void *comm)
{
	if (comm != NULL)
		comm_close(comm);
	nn_unpack_gc(nn_rt_get());
	return nn_ncclSuccess;
}

static nn_result_t
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
				cmd(l->pending_flows[i][j]->s, NN_CMD_ABORT_FLOW, 0,
					l->pending_flows[i][j]);
	for (i = 0; i < rt->nb_stacks; i++)
		cmd(rt->stacks[i], NN_CMD_UNLISTEN, 0, l);
	nn_listener_unref(l);
	return nn_ncclSuccess;
}

/* ---------------------------------------------------------- versions */

static nn_result_t
nn_props_v8(int dev, struct nn_props_v8 *p8)
{
	struct nn_props_v11 p;
	nn_result_t rc = nn_props(dev, &p);

	if (rc != nn_ncclSuccess)
		return rc;
	memset(p8, 0, sizeof(*p8));
	p8->name = p.name;
	p8->pciPath = p.pciPath;
	p8->guid = p.guid;
	p8->ptrSupport = p.ptrSupport;
	p8->regIsGlobal = p.regIsGlobal;
	p8->speed = p.speed;
	p8->port = p.port;
	p8->latency = p.latency;
	p8->maxComms = p.maxComms;
	p8->maxRecvs = p.maxRecvs;
	p8->netDeviceType = p.netDeviceType;
	p8->netDeviceVersion = p.netDeviceVersion;
	return nn_ncclSuccess;
}

static nn_result_t
nn_props_v10(int dev, struct nn_props_v10 *p10)
{
	struct nn_props_v11 p;
	nn_result_t rc = nn_props(dev, &p);

	if (rc == nn_ncclSuccess)
		memcpy(p10, &p, sizeof(*p10));   /* v11 extends v10 */
	return rc;
}

static nn_result_t
nn_isend_v8(void *c, void *data, int size, int tag, void *mh, void **req)
{
	return nn_isend_common(c, data, (size_t)size, tag, mh, req);
}

static nn_result_t
nn_irecv_v8(void *c, int n, void **data, int *sizes, int *tags, void **mh,
	void **req)
{
	return nn_irecv_common(c, n, data, n >= 1 ? (size_t)sizes[0] : 0, tags,
		mh, req);
}

static nn_result_t
nn_isend_v10(void *c, void *data, size_t size, int tag, void *mh, void *ph,
	void **req)
{
	return nn_isend_common(c, data, size, tag, mh, req);
}

static nn_result_t
nn_irecv_v10(void *c, int n, void **data, size_t *sizes, int *tags, void **mh,
	void **ph, void **req)
{
	return nn_irecv_common(c, n, data, n >= 1 ? sizes[0] : 0, tags, mh, req);
}

static nn_result_t
nn_init_v10(nn_logger_t log, nn_prof_cb_t prof)
{
	return nn_init(log);
}

static nn_result_t
nn_connect_v10(int dev, struct nn_comm_config *cfg, void *handle,
	void **send_comm, void **dev_comm)
{
	return nn_connect(dev, handle, send_comm, dev_comm);
}

static nn_result_t
nn_init_v11(void **ctx, uint64_t comm_id, struct nn_comm_config *cfg,
	nn_logger_t log, nn_prof_cb_t prof)
{
	nn_result_t rc = nn_init(log);

	/* One process context serves every NCCL communicator. */
	if (rc == nn_ncclSuccess && nn_rt_use() != 0)
		rc = nn_ncclSystemError;
	*ctx = rc == nn_ncclSuccess ? (void *)nn_rt_get() : NULL;
	return rc;
}

static nn_result_t
nn_listen_v11(void *ctx, int dev, void *handle, void **listen_comm)
{
	return nn_listen(dev, handle, listen_comm);
}

static nn_result_t
nn_connect_v11(void *ctx, int dev, void *handle, void **send_comm,
	void **dev_comm)
{
	return nn_connect(dev, handle, send_comm, dev_comm);
}

static nn_result_t
nn_finalize_v11(void *ctx)
{
	/*
	 * EAL cannot start twice in a process: the context stays, and the
	 * last finalize only stops the lcores (the next init restarts them).
	 */
	if (ctx != NULL)
		nn_rt_unuse();
	return nn_ncclSuccess;
}

static nn_result_t
nn_set_attr_v11(void *ctx, struct nn_net_attr *attr)
{
	return nn_ncclSuccess;
}

NN_EXPORT const struct nn_net_v8 ncclNetPlugin_v8 = {
	.name = "devtcp",
	.init = nn_init,
	.devices = nn_devices,
	.getProperties = nn_props_v8,
	.listen = nn_listen,
	.connect = nn_connect,
	.accept = nn_accept,
	.regMr = nn_reg_mr,
	.regMrDmaBuf = nn_reg_mr_dmabuf,
	.deregMr = nn_dereg_mr,
	.isend = nn_isend_v8,
	.irecv = nn_irecv_v8,
	.iflush = nn_iflush,
	.test = nn_test,
	.closeSend = nn_close_comm,
	.closeRecv = nn_close_comm,
	.closeListen = nn_close_listen,
	.getDeviceMr = NULL,
	.irecvConsumed = nn_irecv_consumed,
};

NN_EXPORT const struct nn_net_v10 ncclNetPlugin_v10 = {
	.name = "devtcp",
	.init = nn_init_v10,
	.devices = nn_devices,
	.getProperties = nn_props_v10,
	.listen = nn_listen,
	.connect = nn_connect_v10,
	.accept = nn_accept,
	.regMr = nn_reg_mr,
	.regMrDmaBuf = nn_reg_mr_dmabuf,
	.deregMr = nn_dereg_mr,
	.isend = nn_isend_v10,
	.irecv = nn_irecv_v10,
	.iflush = nn_iflush,
	.test = nn_test,
	.closeSend = nn_close_comm,
	.closeRecv = nn_close_comm,
	.closeListen = nn_close_listen,
	.getDeviceMr = NULL,
	.irecvConsumed = nn_irecv_consumed,
	.makeVDevice = NULL,
};

NN_EXPORT const struct nn_net_v11 ncclNetPlugin_v11 = {
	.name = "devtcp",
	.init = nn_init_v11,
	.devices = nn_devices,
	.getProperties = nn_props,
	.listen = nn_listen_v11,
	.connect = nn_connect_v11,
	.accept = nn_accept,
	.regMr = nn_reg_mr,
	.regMrDmaBuf = nn_reg_mr_dmabuf,
	.deregMr = nn_dereg_mr,
	.isend = nn_isend_v10,
	.irecv = nn_irecv_v10,
	.iflush = nn_iflush,
	.test = nn_test,
	.closeSend = nn_close_comm,
	.closeRecv = nn_close_comm,
	.closeListen = nn_close_listen,
	.getDeviceMr = NULL,
	.irecvConsumed = nn_irecv_consumed,
	.makeVDevice = NULL,
	.finalize = nn_finalize_v11,
	.setNetAttr = nn_set_attr_v11,
};

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
		v[NN_STAT_DROPS] += st.drop_not_ipv4 + st.drop_bad_ip +
			st.drop_ip_fragment + st.drop_not_for_us + st.drop_bad_tcp +
			st.drop_l4_cksum + st.drop_no_conn + st.drop_conn_table_full +
			st.drop_hdr_in_device + st.drop_unsupported_proto +
			st.drop_tx_no_mbuf + st.drop_tx_ring_full +
			st.drop_no_neighbour + st.drop_l4_cksum_unknown +
			st.drop_too_many_segs + st.drop_bad_arp + st.drop_synq_full +
			st.drop_neigh_hold_full;
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

/* The port's non-zero xstats, at INFO, several lines when needed. */
static void
port_xstats_line(struct nn_rt *rt)
{
	nn_port_xstats_log(rt, false);
}

void
nn_port_xstats_log(struct nn_rt *rt, bool stall)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	char line[400];
	int cnt, i, n = 0;

	cnt = port_xstats_fetch(rt, &names, &xs);
	line[0] = '\0';
	for (i = 0; i < cnt; i++) {
		const char *nm = names[xs[i].id].name;

		if (xs[i].value == 0)
			continue;
		/* A stall report gives each stack's queues on its own lines. */
		if (stall && (strncmp(nm, "rx_q", 4) == 0 || strncmp(nm, "tx_q", 4) == 0))
			continue;
		if (n > (int)sizeof(line) - 64) {
			if (stall)
				NN_WARN("  port %s:%s", rt->name, line);
			else
				NN_INFO("  port %s:%s", rt->name, line);
			n = 0;
			line[0] = '\0';
		}
		n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64, nm,
			xs[i].value);
	}
	if (n > 0 && stall)
		NN_WARN("  port %s:%s", rt->name, line);
	else if (n > 0)
		NN_INFO("  port %s:%s", rt->name, line);
	free(names);
	free(xs);
}

/*
 * The stacks' counters (lcores stopped: read safely), through NCCL's
 * logger at INFO: what a slow or failed run needs to be explained.
 */
void
nn_stats_log(struct nn_rt *rt)
{
	const struct nn_stack_counters *k;
	struct dt_dp_stats st;
	double tsc_us = (double)rte_get_tsc_hz() / 1e6;
	uint64_t drops;
	uint16_t i;

	for (i = 0; i < rt->nb_stacks; i++) {
		k = &rt->stacks[i]->cnt;
		dt_dp_stats_get(rt->stacks[i]->st, &st);
		drops = st.drop_not_ipv4 + st.drop_bad_ip + st.drop_ip_fragment +
			st.drop_not_for_us + st.drop_bad_tcp + st.drop_l4_cksum +
			st.drop_no_conn + st.drop_conn_table_full +
			st.drop_hdr_in_device + st.drop_unsupported_proto +
			st.drop_tx_no_mbuf + st.drop_tx_ring_full +
			st.drop_no_neighbour + st.drop_l4_cksum_unknown +
			st.drop_too_many_segs + st.drop_bad_arp + st.drop_synq_full +
			st.drop_neigh_hold_full + st.drop_ooo_no_store;
		NN_INFO("stack %u (lcore %u): polls %" PRIu64 ", rx %" PRIu64 " tx %"
			PRIu64 " frames, rx cycles/frame %.0f, drops %" PRIu64
			" (tx_ring_full %" PRIu64 " no_conn %" PRIu64 "), throttled %"
			PRIu64 "; flows %" PRIu64 ": rx %" PRIu64 " tx %" PRIu64
			" bytes, retransmitted %" PRIu64 " segments (%" PRIu64
			" bytes; RTOs %" PRIu64 ", TLPs %" PRIu64 ", D-SACKs %" PRIu64
			", RACK losses %" PRIu64 "), srtt max %u us; requests send %"
			PRIu64 " recv %" PRIu64, i, rt->stacks[i]->lcore,
			rt->stacks[i]->polls,
			st.rx_frames, st.tx_frames, st.rx_frames != 0 ?
			(double)st.rx_cycles / st.rx_frames : 0.0, drops,
			st.drop_tx_ring_full, st.drop_no_conn, st.rx_throttled,
			k->flows, k->rx_bytes, k->tx_bytes, k->rtx_segs, k->rtx_bytes,
			k->rtos, k->tlps, k->dsacks, k->rack_losses,
			k->srtt_max_us, k->reqs_send, k->reqs_recv);
		if (k->rx_timed != 0)
			NN_INFO("stack %u receives: %" PRIu64 " parts; request seen to "
				"last copy submitted (data arrival) mean %.1f us; last copy "
				"submitted to completed (GPU latency) mean %.1f us, max %.1f us",
				i, k->rx_timed, (double)k->rx_arrive_sum / k->rx_timed / tsc_us,
				(double)k->rx_gpu_sum / k->rx_timed / tsc_us,
				(double)k->rx_gpu_max / tsc_us);
		if (rt->cfg.profile)
			prof_log(rt->stacks[i], &st, tsc_us);
		NN_INFO("stack %u copies: region engine %" PRIu64 " calls %" PRIu64
			" copies %" PRIu64 " bytes %" PRIu64 " errors; CUDA gather %"
			PRIu64 " calls %" PRIu64 " copies %" PRIu64 " bytes %" PRIu64
			" errors", i, k->region_ch.calls, k->region_ch.copies,
			k->region_ch.bytes, k->region_ch.errors, k->cuda_ch.calls,
			k->cuda_ch.copies, k->cuda_ch.bytes, k->cuda_ch.errors);
		if (k->unpack_overflow != 0)
			NN_INFO("stack %u: %" PRIu64 " received chunk pieces were gathered "
				"because their receive's unpack slot was full (%u entries)",
				i, k->unpack_overflow, NN_UNPACK_ENTRIES);
	}
	port_xstats_line(rt);
	{
		char pl[256];

		nn_pools_line(rt, pl, sizeof(pl));
		NN_INFO("%s", pl);
	}
}
