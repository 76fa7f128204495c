/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comms and requests on NCCL's side (NCCL's threads): a comm's parts and
 * flows built for connect and accept, handed to the stacks by command,
 * their completions collected from the comm's ring, and closed again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "dt_app_value.h"
#include "nn_comm.h"

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

struct nn_comm *
nn_comm_connect(struct nn_rt *rt, const struct nn_handle *h)
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
		nn_cmd(c->parts[i]->s, NN_CMD_CONNECT, 0, c->parts[i]);
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

void
nn_comm_close(struct nn_comm *c)
{
	uint16_t i;

	comm_log_summary(c);
	for (i = 0; i < c->nparts; i++)
		nn_cmd(c->parts[i]->s, NN_CMD_CLOSE, 0, c->parts[i]);
	nn_comm_unref(c);
}

/* Collect the comm's completions; NCCL's thread only. */
void
nn_comm_drain(struct nn_comm *c)
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

nn_result_t
nn_err_result(int err)
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

void
nn_comm_log_error(struct nn_comm *c, const char *what)
{
	char ip[32];

	if (c->err_logged)
		return;
	c->err_logged = true;
	NN_WARN("%s comm (peer %s:%u): %s: %s", c->send ? "send" : "receive",
		c->send ? dt_app_ipv4_str(c->peer.ipv4, ip, sizeof(ip)) : "-",
		c->send ? c->peer.port : 0, what, err_text(c->err));
}

struct nn_comm *
nn_comm_accept(struct nn_rt *rt, struct nn_listener *l, int slot,
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
				nn_cmd(fl[i]->s, NN_CMD_ABORT_FLOW, 0, fl[i]);
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
		nn_cmd(st[j], NN_CMD_ATTACH, 0, c->parts[j]);
	return c;
}

struct nn_req *
nn_req_new(struct nn_comm *c)
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
			r->netprof_n = 0;
			r->unpack = false;
			return r;
		}
	}
	return NULL;
}

void
nn_req_post(struct nn_comm *c, struct nn_req *r, uint32_t type)
{
	uint16_t i;

	for (i = 0; i < c->nparts; i++)
		nn_cmd(c->parts[i]->s, type, r->idx, c->parts[i]);
	__atomic_fetch_add(&nn_rt_get()->reqs_posted, 1, __ATOMIC_RELAXED);
}

void
nn_req_account(struct nn_comm *c, const struct nn_req *r)
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
