/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stack's lcore: commands from NCCL's threads (ring in), lib/dp's poll
 * and events, the receive and send progress of the parts living here, and
 * completions back (rings out). Nothing here waits for NCCL.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "nn_rt.h"

#define NN_CMD_BURST 32
#define NN_EV_BURST 64

void
nn_post_event(struct rte_ring *r, uint32_t type, int32_t val, void *obj)
{
	struct nn_msg m = { .type = type, .val = val, .obj = obj };

	/* The rings are sized for every event a comm can have in flight. */
	while (rte_ring_mp_enqueue_elem(r, &m, sizeof(m)) != 0)
		rte_pause();
}

/* The comm dies: NCCL's next test() of any of its requests fails. */
void
nn_part_fail(struct nn_part *p, int err)
{
	struct dt_dp_stats st;

	if (p->failed)
		return;
	p->failed = true;
	dt_dp_stats_get(p->s->st, &st);
	NN_INFO("%s comm failed (%s); stack %u: rx %" PRIu64 " tx %" PRIu64
		" frames, drops: no_conn %" PRIu64 " cksum %" PRIu64 " tx_no_mbuf %"
		PRIu64 " tx_ring_full %" PRIu64 " synq %" PRIu64 " events_overflow %"
		PRIu64 ", throttled %" PRIu64, p->comm->send ? "send" : "receive",
		strerror(err), p->s->idx, st.rx_frames, st.tx_frames, st.drop_no_conn,
		st.drop_l4_cksum, st.drop_tx_no_mbuf, st.drop_tx_ring_full,
		st.drop_synq_full, st.events_overflow, st.rx_throttled);
	nn_post_event(p->comm->cq, NN_EV_ERROR, err, NULL);
}

void
nn_comm_unref(struct nn_comm *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		nn_unpack_free(c);
		rte_ring_free(c->cq);
		rte_free(c);
	}
}

void
nn_listener_unref(struct nn_listener *l)
{
	if (__atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		rte_ring_free(l->cq);
		rte_free(l);
	}
}

static int16_t
wire_get(struct nn_stack *s)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(s->wire_free); i++)
		if (s->wire_free[i] != 0) {
			unsigned int b = __builtin_ctzll(s->wire_free[i]);

			s->wire_free[i] &= ~(1ull << b);
			return (int16_t)(i * 64 + b);
		}
	return -1;
}

static void
flow_free(struct nn_flow *f)
{
	/* Chunks it still holds go back to the stack (the window's buffers). */
	nn_rx_drop_all(f);
	if (f->wire_slot >= 0)
		f->s->wire_free[f->wire_slot / 64] |= 1ull << (f->wire_slot % 64);
	rte_free(f);
}

static void
part_free(struct nn_stack *s, struct nn_part *p)
{
	uint16_t i;

	for (i = 0; i < s->nb_parts; i++)
		if (s->parts[i] == p) {
			s->parts[i] = s->parts[--s->nb_parts];
			break;
		}
	for (i = 0; i < p->nflows; i++)
		flow_free(p->flows[i]);
	if (p->comm->unpack != NULL) {
		nn_urel_flush(s, p);
		nn_release_forget(s, p->comm);
	}
	rte_free(p->urel);
	nn_comm_unref(p->comm);
	rte_free(p);
}

static void
loose_remove(struct nn_stack *s, struct nn_flow *f)
{
	uint16_t i;

	for (i = 0; i < s->nb_loose; i++)
		if (s->loose[i] == f) {
			s->loose[i] = s->loose[--s->nb_loose];
			return;
		}
}

static void
part_add(struct nn_stack *s, struct nn_part *p)
{
	if (s->nb_parts == RTE_DIM(s->parts)) {
		nn_part_fail(p, ENOSPC);
		return;
	}
	s->parts[s->nb_parts++] = p;
}

static void
cmd_connect(struct nn_stack *s, struct nn_part *p)
{
	struct nn_comm *c = p->comm;
	uint16_t i;
	int rc;

	part_add(s, p);
	for (i = 0; i < p->nflows; i++) {
		struct nn_flow *f = p->flows[i];

		rc = dt_dp_connect(s->st, c->peer.ipv4, c->peer.port +
			f->idx % RTE_MAX(c->peer.nports, 1), f, &f->conn);
		if (rc != 0) {
			NN_WARN("connect: flow %u: %s", f->idx, strerror(-rc));
			/* This flow and those not tried have no connection to close. */
			for (; i < p->nflows; i++) {
				p->flows[i]->closed = true;
				p->flows_closed++;
			}
			nn_post_event(c->cq, NN_EV_PART_READY, rc, NULL);
			p->ready_sent = true;
			nn_part_fail(p, -rc);
			return;
		}
	}
}

static void
cmd_attach(struct nn_stack *s, struct nn_part *p)
{
	uint16_t i;

	for (i = 0; i < p->nflows; i++) {
		loose_remove(s, p->flows[i]);
		p->flows[i]->part = p;
		if (p->flows[i]->closed)
			p->flows_closed++;
		if (p->flows[i]->dead)
			nn_part_fail(p, p->flows[i]->err);
	}
	p->attached = true;
	part_add(s, p);
}

/* A flow's engine counters, kept past its close for the finalize report. */
static void
flow_account(struct nn_stack *s, struct nn_flow *f)
{
	struct dt_dp_conn_stats cs;

	if (f->accounted || dt_dp_conn_stats_get(s->st, f->conn, &cs) != 0)
		return;
	f->accounted = true;
	s->cnt.flows++;
	s->cnt.rx_bytes += cs.rx_bytes;
	s->cnt.tx_bytes += cs.tx_bytes;
	s->cnt.rtx_segs += cs.retransmits;
	s->cnt.rtx_bytes += cs.retransmit_bytes;
	s->cnt.nagle_holds += cs.nagle_holds;
	s->cnt.rtos += cs.rtos;
	s->cnt.tlps += cs.tlps;
	s->cnt.dsacks += cs.dsacks;
	s->cnt.rack_losses += cs.rack_losses;
	if (cs.srtt_us > s->cnt.srtt_max_us)
		s->cnt.srtt_max_us = cs.srtt_us;
}

static void
cmd_close(struct nn_stack *s, struct nn_part *p)
{
	uint16_t i;

	p->closing = true;
	for (i = 0; i < p->nflows; i++) {
		struct nn_flow *f = p->flows[i];

		nn_rx_drop_all(f);
		if (f->closed)
			continue;
		flow_account(s, f);
		/* A failed comm has nothing left to deliver: RST at once. */
		if (p->failed || f->dead || dt_dp_close(s->st, f->conn) != 0)
			dt_dp_abort(s->st, f->conn);
	}
	if (p->flows_closed == p->nflows)
		part_free(s, p);
}

static void
cmd_listen(struct nn_stack *s, struct nn_listener *l, bool on)
{
	uint16_t i;
	int rc;

	if (on) {
		rc = s->nb_lsn == NN_MAX_LISTENERS ? -ENOSPC :
			dt_dp_listen(s->st, nn_listener_port(l, s));
		if (rc == 0)
			s->lsn[s->nb_lsn++] = l;
		nn_post_event(l->cq, NN_EV_LISTENING, rc, NULL);
		if (rc != 0)
			nn_listener_unref(l);
		return;
	}
	dt_dp_unlisten(s->st, nn_listener_port(l, s));
	for (i = 0; i < s->nb_lsn; i++)
		if (s->lsn[i] == l) {
			s->lsn[i] = s->lsn[--s->nb_lsn];
			break;
		}
	/* Flows still saying hello: nobody will accept them now. */
	for (i = 0; i < s->nb_loose; i++) {
		struct nn_flow *f = s->loose[i];

		if (f->lsn == l && !f->reported) {
			f->orphan = true;
			f->lsn = NULL;
			if (!f->closed)
				dt_dp_abort(s->st, f->conn);
		}
	}
	nn_listener_unref(l);
}

static void
cmd_request(struct nn_part *p, int32_t idx)
{
	struct nn_req *r = &p->comm->reqs[idx];

	r->t_seen[p->pidx] = rte_rdtsc();
	p->fifo[p->head % NN_REQS] = r;
	p->head++;
}

static void
commands(struct nn_stack *s)
{
	struct nn_msg m[NN_CMD_BURST];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst_elem(s->cmd, m, sizeof(m[0]),
		NN_CMD_BURST, NULL);
	for (i = 0; i < n; i++) {
		switch (m[i].type) {
		case NN_CMD_LISTEN:
			cmd_listen(s, m[i].obj, true);
			break;
		case NN_CMD_UNLISTEN:
			cmd_listen(s, m[i].obj, false);
			break;
		case NN_CMD_CONNECT:
			cmd_connect(s, m[i].obj);
			break;
		case NN_CMD_ATTACH:
			cmd_attach(s, m[i].obj);
			break;
		case NN_CMD_SEND:
		case NN_CMD_RECV:
			cmd_request(m[i].obj, m[i].val);
			break;
		case NN_CMD_CLOSE:
			cmd_close(s, m[i].obj);
			break;
		case NN_CMD_ABORT_FLOW: {
			struct nn_flow *f = m[i].obj;

			f->orphan = true;
			if (f->closed) {
				loose_remove(s, f);
				flow_free(f);
			} else {
				dt_dp_abort(s->st, f->conn);
			}
			break;
		}
		}
	}
}

static void
ev_accepted(struct nn_stack *s, const struct dt_dp_event *ev)
{
	struct nn_listener *l = NULL;
	struct nn_flow *f;
	uint16_t i;

	for (i = 0; i < s->nb_lsn; i++)
		if (nn_listener_port(s->lsn[i], s) == ev->listen_port)
			l = s->lsn[i];
	f = l == NULL || s->nb_loose == RTE_DIM(s->loose) ? NULL :
		rte_zmalloc("nn_flow", sizeof(*f), RTE_CACHE_LINE_SIZE);
	if (f != NULL)
		f->wire_slot = wire_get(s);
	if (f == NULL || f->wire_slot < 0) {
		if (f != NULL)
			rte_free(f);
		NN_WARN("accept: %s: connection refused", l == NULL ?
			"no listener on that port" : "too many connections on this stack");
		dt_dp_abort(s->st, ev->conn);
		return;
	}
	f->wire = s->wire_area + f->wire_slot * NN_WIRE_LEN;
	f->s = s;
	f->lsn = l;
	f->conn = ev->conn;
	f->connected = true;
	s->loose[s->nb_loose++] = f;
	dt_dp_set_udata(s->st, ev->conn, f);
}

static void
flow_dead(struct nn_flow *f, int err, const char *why)
{
	if (f->dead)
		return;
	NN_INFO("flow %u of a %s comm: %s (%s)", f->idx,
		f->part == NULL ? "new" : f->part->comm->send ? "send" : "receive",
		why, strerror(err));
	f->dead = true;
	f->err = err;
	if (f->part != NULL)
		nn_part_fail(f->part, err);
}

static void
ev_closed(struct nn_stack *s, struct nn_flow *f)
{
	struct nn_part *p = f->part;

	f->closed = true;
	if (p == NULL) {
		if (f->orphan || !f->reported) {
			/* Never handed out (or given up): nobody else knows it. */
			loose_remove(s, f);
			flow_free(f);
		}
		return;
	}
	p->flows_closed++;
	if (!p->closing)
		flow_dead(f, f->err ? f->err : ECONNRESET, "connection closed");
	else if (p->flows_closed == p->nflows)
		part_free(s, p);
}

static void
ev_connected(struct nn_stack *s, struct nn_flow *f)
{
	struct nn_part *p = f->part;

	f->connected = true;
	nn_tx_hello(f);
	if (++p->connected == p->nflows && !p->ready_sent) {
		p->ready_sent = true;
		nn_post_event(p->comm->cq, NN_EV_PART_READY, 0, NULL);
	}
}

static void
event(struct nn_stack *s, const struct dt_dp_event *ev)
{
	struct nn_flow *f = ev->udata;

	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		ev_accepted(s, ev);
		return;
	case DT_DP_EV_DATA:
		if (f == NULL || f->dead || (f->part != NULL && f->part->closing))
			dt_dp_release(s->st, ev->chunk.token);
		else
			nn_rx_chunk(f, &ev->chunk);
		return;
	default:
		break;
	}
	if (f == NULL)
		return;
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		ev_connected(s, f);
		break;
	case DT_DP_EV_SENT:
		nn_tx_sent(f, ev->sent.count);
		break;
	case DT_DP_EV_PEER_CLOSED:
		f->peer_closed = true;
		flow_account(s, f);   /* while the connection is still there */
		break;
	case DT_DP_EV_RESET:
		flow_dead(f, ECONNRESET, "reset by the peer");
		break;
	case DT_DP_EV_ERROR:
		if (f->part != NULL && !f->part->ready_sent) {
			f->part->ready_sent = true;
			nn_post_event(f->part->comm->cq, NN_EV_PART_READY,
				-ev->err, NULL);
		}
		flow_dead(f, ev->err, "connection error");
		break;
	case DT_DP_EV_CLOSED:
		ev_closed(s, f);
		break;
	}
}

static void
progress(struct nn_stack *s)
{
	uint16_t i;

	for (i = 0; i < s->nb_loose; i++)
		if (!s->loose[i]->hello_seen && !s->loose[i]->dead)
			nn_rx_progress(s->loose[i]);
	for (i = 0; i < s->nb_parts; i++) {
		struct nn_part *p = s->parts[i];

		if (p->closing)
			continue;
		if (p->comm->send)
			nn_tx_part_progress(p);
		else
			nn_rx_part_progress(p);
	}
	nn_rx_flush(s);
	nn_release_progress(s);
}

static void
chan_account(struct dt_copy_stats *sum, const struct dt_copy_chan *ch)
{
	if (ch == NULL)
		return;
	sum->calls += ch->stats.calls;
	sum->copies += ch->stats.copies;
	sum->bytes += ch->stats.bytes;
	sum->errors += ch->stats.errors;
}

/* [nccl] profile: the cycles since @p t go to @p step; returns now. */
static inline uint64_t
prof_mark(struct nn_stack *s, unsigned int step, uint64_t t)
{
	uint64_t now;

	if (likely(!s->prof))
		return 0;
	now = rte_rdtsc();
	s->prof_cyc[step] += now - t;
	return now;
}

static void
poll_once(struct nn_stack *s, struct dt_dp_event *ev)
{
	uint64_t t = s->prof ? rte_rdtsc() : 0;
	uint16_t n, i;

	commands(s);
	t = prof_mark(s, NN_PROF_CMDS, t);
	dt_dp_poll(s->st);
	t = prof_mark(s, NN_PROF_DP, t);
	while ((n = dt_dp_events(s->st, ev, NN_EV_BURST)) != 0)
		for (i = 0; i < n; i++)
			event(s, &ev[i]);
	t = prof_mark(s, NN_PROF_EVENTS, t);
	progress(s);
	prof_mark(s, NN_PROF_PROGRESS, t);
	s->polls++;
}

static bool
parts_closing(const struct nn_stack *s)
{
	uint16_t i;

	for (i = 0; i < s->nb_parts; i++)
		if (s->parts[i]->closing)
			return true;
	return rte_ring_count(s->cmd) != 0;
}

int
nn_lcore_main(void *arg)
{
	struct nn_stack *s = arg;
	struct nn_rt *rt = s->rt;
	struct dt_dp_event ev[NN_EV_BURST];
	uint64_t deadline;

	s->ch = dt_copy_chan_open(dt_devmem_region_engine(rt->region));
	if (s->ch == NULL) {
		NN_WARN("stack %u: cannot open a copy channel on the payload region: %s",
			s->idx, rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (rt->gpu_cuda) {
		struct dt_copy_engine *ce = nn_cuda_engine_create(rt, NULL, 0);

		s->cuda_ch = ce == NULL ? NULL : dt_copy_chan_open(ce);
		if (s->cuda_ch == NULL)
			NN_WARN("stack %u: no CUDA gather channel: receives into "
				"CUDA buffers will fail", s->idx);
	}
	s->prof = rt->cfg.profile;
	s->b_region.ch = s->ch;
	s->b_region.n = 0;
	s->b_cuda.ch = s->cuda_ch;
	s->b_cuda.n = 0;
	while (s->running)
		poll_once(s, ev);
	/*
	 * Stopping (the last finalize): what NCCL closed just before is
	 * finished first, FINs out and counters kept, for half a second at
	 * most.
	 */
	deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 2;
	do
		poll_once(s, ev);
	while (parts_closing(s) && rte_get_timer_cycles() < deadline);
	/* Copies in flight land before their chunks go back. */
	nn_rx_drain(s);
	chan_account(&s->cnt.region_ch, s->ch);
	chan_account(&s->cnt.cuda_ch, s->cuda_ch);
	if (s->cuda_ch != NULL) {
		/* The gather engine is this lcore run's own: it goes too. */
		struct dt_copy_engine *ce = s->cuda_ch->ce;

		dt_copy_chan_close(s->cuda_ch);
		ce->ops->destroy(ce);
		s->cuda_ch = NULL;
	}
	dt_copy_chan_close(s->ch);
	s->ch = NULL;
	return 0;
}
