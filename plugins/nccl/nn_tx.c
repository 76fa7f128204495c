/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send path, on the stack's lcore: per message and flow, the 16-byte
 * header (host memory inside the request) then the flow's slice of NCCL's
 * buffer, both by reference (dt_dp_send: the NIC, or the software NIC's
 * copy engine, reads the bytes; nothing is copied here). A request is done
 * on a part when every flow queued its slice and lib/dp reported all of it
 * acknowledged (DT_DP_EV_SENT).
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_memory.h>

#include "nn_rt.h"

void
nn_req_part_done(struct nn_part *p, struct nn_req *r)
{
	if (r->send)
		p->s->cnt.reqs_send++;
	else
		p->s->cnt.reqs_recv++;
	if (__atomic_sub_fetch(&r->parts_left, 1, __ATOMIC_ACQ_REL) == 0)
		nn_post_event(p->comm->cq, NN_EV_DONE, r->idx, NULL);
}

static int
flow_send(struct nn_flow *f, struct nn_req *r, const struct dt_dp_buf *b)
{
	int rc;

	if (f->txt - f->txh == NN_FLOW_TXQ)
		return -DT_DP_E_FULL;
	rc = dt_dp_send(f->s->st, f->conn, b);
	if (rc != 0)
		return rc;
	f->txq[f->txt++ % NN_FLOW_TXQ] = r;
	if (r != NULL)
		r->pend[f->part->pidx]++;
	return 0;
}

void
nn_tx_hello(struct nn_flow *f)
{
	struct dt_dp_buf b = {
		.addr = &f->hello,
		.iova = rte_mem_virt2iova(&f->hello),
		.len = sizeof(f->hello),
		.device = false,
	};
	int rc;

	f->hello.magic = NN_MAGIC_HELLO;
	f->hello.flow = f->idx;
	f->hello.nflows = f->nflows;
	f->hello.comm_id = f->part->comm->id;
	rc = flow_send(f, NULL, &b);
	if (rc != 0) {
		NN_WARN("flow %u: cannot send the hello: %s", f->idx, strerror(-rc));
		nn_part_fail(f->part, -rc);
	}
}

/* Queue what fits of flow @p f's current message; false when it must wait. */
static bool
tx_flow(struct nn_flow *f, struct nn_req *r)
{
	struct nn_part *p = f->part;
	const struct nn_mr *mr = r->mr;
	struct dt_dp_buf b;
	int rc;

	if (!f->tx_hdr_sent) {
		b.addr = &r->hdr;
		b.iova = r->hdr_iova;
		b.len = sizeof(r->hdr);
		b.device = false;
		rc = flow_send(f, r, &b);
		if (rc != 0)
			goto busy;
		f->tx_hdr_sent = true;
		nn_slice(r->size, p->comm->nflows, f->idx, &f->tx_off, &f->tx_len);
		f->tx_done = 0;
	}
	while (f->tx_done < f->tx_len) {
		uint64_t off = f->tx_off + f->tx_done;

		b.addr = (void *)(r->data + off);
		b.len = (uint32_t)RTE_MIN((uint64_t)NN_PIECE, f->tx_len - f->tx_done);
		b.device = mr != NULL && mr->kind != NN_MR_HOST;
		b.iova = mr == NULL || mr->iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
			mr->iova + (r->data - mr->base) + off;
		rc = flow_send(f, r, &b);
		if (rc != 0)
			goto busy;
		f->tx_done += b.len;
	}
	f->tx_hdr_sent = false;
	f->tx_seq++;
	r->fl[p->pidx]++;
	return true;
busy:
	if (rc != -DT_DP_E_FULL) {
		NN_WARN("flow %u: send failed: %s", f->idx, strerror(-rc));
		nn_part_fail(p, -rc);
	}
	return false;
}

/* Finished requests of the part, oldest first. */
static void
tx_complete(struct nn_part *p)
{
	while (p->tail < p->head) {
		struct nn_req *r = p->fifo[p->tail % NN_REQS];

		if (r->fl[p->pidx] != p->nflows || r->pend[p->pidx] != 0)
			return;
		nn_req_part_done(p, r);
		p->tail++;
	}
}

void
nn_tx_part_progress(struct nn_part *p)
{
	uint16_t i;

	if (p->failed || p->connected != p->nflows)
		return;
	for (i = 0; i < p->nflows; i++) {
		struct nn_flow *f = p->flows[i];

		while (f->tx_seq < p->head && !p->failed &&
				tx_flow(f, p->fifo[f->tx_seq % NN_REQS]))
			;
	}
	tx_complete(p);
}

void
nn_tx_sent(struct nn_flow *f, uint32_t count)
{
	while (count-- != 0 && f->txh != f->txt) {
		struct nn_req *r = f->txq[f->txh++ % NN_FLOW_TXQ];

		if (r != NULL)
			r->pend[f->part->pidx]--;
	}
	if (f->part != NULL)
		tx_complete(f->part);
}
