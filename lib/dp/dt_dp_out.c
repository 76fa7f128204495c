/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Applying what the TCP engine produced: segments become frames, events
 * become application events (payload extents become chunks), deadlines go
 * to the timer wheel. Also send completion (SENT only once no TX shell
 * references the buffer) and the per-poll work lists.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dt_devmem.h"
#include "dt_dp_priv.h"

struct dt_dp_event *
dt_dp_ev_push(struct dt_dp_stack *st, uint8_t type, struct dt_dp_conn *c)
{
	struct dt_dp_event *ev;

	if (dt_dp_ev_room(st) == 0) {
		/* Must not happen: poll keeps room for its worst case. */
		st->st.events_overflow++;
		ev = &st->ev_scratch;
	} else {
		ev = &st->evq[st->ev_tail & st->ev_mask];
		st->ev_tail++;
	}
	ev->type = type;
	ev->conn = c != NULL ? dt_dp_conn_id(c) : 0;
	ev->udata = c != NULL ? c->udata : NULL;
	return ev;
}

void
dt_dp_conn_rearm(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	uint64_t d = dt_tcp_next_deadline(&c->tcp);

	if (d == 0)
		dt_dp_tw_cancel(&st->tw, &c->tw);
	else if (!dt_dp_tw_armed(&c->tw) || c->tw.deadline != d)
		dt_dp_tw_arm(&st->tw, &c->tw, d);
}

/* A DATA extent: the mbuf now belongs to the application as a chunk. */
static void
ev_data(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_extent *e)
{
	struct rte_mbuf *m = e->ref;
	struct dt_dp_mbuf_meta *meta = dt_dp_meta(st, m);
	/* Address arithmetic only: payload bytes are never read here. */
	uint8_t *addr = (uint8_t *)m->buf_addr + m->data_off + e->off;
	struct dt_dp_event *ev = dt_dp_ev_push(st, DT_DP_EV_DATA, c);
	struct dt_dp_chunk *ch = &ev->chunk;

	meta->conn_idx = c->idx;
	meta->gen = c->gen;
	meta->len = e->len;
	ch->addr = addr;
	ch->len = e->len;
	ch->token = (uint64_t)(uintptr_t)m;
	if (st->region_pool != NULL && m->pool == st->region_pool) {
		ch->kind = DT_DP_CHUNK_DEVICE;
		ch->region = st->conf.region;
		ch->offset = (uint64_t)((uintptr_t)addr - st->region_base);
		c->rx_device_bytes += e->len;
		st->st.device_chunks++;
	} else {
		ch->kind = DT_DP_CHUNK_HOST;
		ch->region = NULL;
		ch->offset = 0;
		c->rx_host_bytes += e->len;
		st->st.host_chunks++;
	}
	c->held_bytes += e->len;
	c->rx_bytes += e->len;
}

/* Engine CLOSED: out of the table; CLOSED for the app once shells are back. */
static void
conn_engine_closed(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	if (c->cs != DT_DP_CS_LIVE)
		return;
	dt_dp_conn_remove(st, c);
	dt_dp_tw_cancel(&st->tw, &c->tw);
	c->cs = DT_DP_CS_ZOMBIE;
	dt_dp_conn_list_add(st, c, DT_DP_CF_ZLIST);
}

static int
err_code(uint8_t e)
{
	switch (e) {
	case DT_TCP_ERR_REFUSED:
		return ECONNREFUSED;
	case DT_TCP_ERR_TIMEOUT:
		return ETIMEDOUT;
	case DT_TCP_ERR_DATA_LOST:
		return ECONNABORTED;
	default:
		return EIO;
	}
}

static void
out_event(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_event *e)
{
	struct dt_dp_event *ev;

	if (e->type == DT_TCP_EV_FREE) {
		rte_pktmbuf_free_seg(e->ext.ref);
		/* Out-of-order bytes dropped: the window may grow back. */
		if (c != NULL && c->cs == DT_DP_CS_LIVE)
			dt_dp_conn_list_add(st, c, DT_DP_CF_DIRTY);
		return;
	}
	if (c == NULL)
		return;
	switch (e->type) {
	case DT_TCP_EV_CONNECTED:
		if (c->flags & DT_DP_CF_PASSIVE) {
			ev = dt_dp_ev_push(st, DT_DP_EV_ACCEPTED, c);
			ev->listen_port = c->listen_port;
			st->st.conns_accepted++;
		} else {
			dt_dp_ev_push(st, DT_DP_EV_CONNECTED, c);
			st->st.conns_connected++;
		}
		break;
	case DT_TCP_EV_DATA:
		ev_data(st, c, &e->ext);
		break;
	case DT_TCP_EV_SENT:
		c->s_acked = (uint16_t)(c->s_acked + e->count);
		c->tx_bytes += e->bytes;
		dt_dp_conn_complete(st, c);
		break;
	case DT_TCP_EV_PEER_CLOSED:
		dt_dp_ev_push(st, DT_DP_EV_PEER_CLOSED, c);
		break;
	case DT_TCP_EV_RESET:
		dt_dp_ev_push(st, DT_DP_EV_RESET, c);
		break;
	case DT_TCP_EV_ERROR:
		ev = dt_dp_ev_push(st, DT_DP_EV_ERROR, c);
		ev->err = err_code(e->err);
		if (e->err == DT_TCP_ERR_DATA_LOST)
			st->st.rst_data_after_close++;
		break;
	case DT_TCP_EV_CLOSED:
		conn_engine_closed(st, c);
		break;
	default:
		break;
	}
}

static void
out_segs(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_tuple *t, const struct dt_tcp_out *out)
{
	const struct dt_tcp_tx_seg *seg;
	uint64_t t0;
	uint16_t i;

	if (out->n_segs == 0)
		return;
	t0 = rte_rdtsc();
	for (i = 0; i < out->n_segs; i++) {
		seg = &out->segs[i];
		dt_dp_tx_tcp(st, c, t, seg);
	}
	st->st.tx_cycles += rte_rdtsc() - t0;
}

/* One call's output. */
static void
out_once(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_tuple *t)
{
	const struct dt_tcp_out *out = &st->out;
	uint16_t i;

	out_segs(st, c, t, out);
	for (i = 0; i < out->n_events; i++)
		out_event(st, c, &out->events[i]);
	if (c != NULL)
		dt_dp_ooo_account(st, c);
	if (c != NULL && c->cs == DT_DP_CS_LIVE)
		dt_dp_conn_rearm(st, c);
}

void
dt_dp_out_apply(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_tuple *t)
{
	out_once(st, c, t);
	while (st->out.more && c != NULL && c->cs == DT_DP_CS_LIVE) {
		if (dt_dp_tx_room(st) < 2 * DT_TCP_OUT_SEGS) {
			/* TX buffer full: go on after the next flush. */
			dt_dp_conn_list_add(st, c, DT_DP_CF_OUTPUT);
			return;
		}
		dt_tcp_output(&c->tcp, st->now, &st->out);
		out_once(st, c, t);
	}
}

static inline bool
send_in_flight(const struct dt_dp_send *s)
{
	return rte_mbuf_ext_refcnt_read(&s->shinfo) > 1;
}

void
dt_dp_conn_complete(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	uint16_t cap = st->conf.txq_cap;
	struct dt_dp_send *s;
	struct dt_dp_event *ev;
	uint32_t count = 0;
	uint64_t bytes = 0;

	while (c->s_acked > 0) {
		s = &c->sends[c->s_head];
		if (send_in_flight(s))
			break;
		count++;
		bytes += s->len;
		c->s_head = (uint16_t)((c->s_head + 1) % cap);
		c->s_n--;
		c->s_sub--;
		c->s_acked--;
	}
	if (count > 0) {
		c->held_since = 0;
		ev = dt_dp_ev_push(st, DT_DP_EV_SENT, c);
		ev->sent.count = count;
		ev->sent.bytes = bytes;
	}
	if (c->s_acked > 0)
		dt_dp_conn_list_add(st, c, DT_DP_CF_PENDING);
}

void
dt_dp_tw_fire(struct dt_dp_tw_node *n, void *arg)
{
	struct dt_dp_stack *st = arg;
	struct dt_dp_conn *c = container_of(n, struct dt_dp_conn, tw);

	if (c->cs != DT_DP_CS_LIVE)
		return;
	dt_tcp_timeout(&c->tcp, st->now, &st->out);
	dt_dp_out_apply(st, c, &c->tcp.tuple);
}

/*
 * Hand staged sends to the engine while the TX buffer has room, then a
 * close() that waited for them. Backpressure: a full TX buffer (the NIC's
 * queue is full) holds new data back instead of dropping segments.
 * @return 0 when nothing is staged any more, 1 when the conn is queued again.
 */
int
dt_dp_conn_submit(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	uint16_t cap = st->conf.txq_cap;
	struct dt_tcp_extent ext;
	struct dt_dp_send *s;

	while (c->s_sub < c->s_n && c->cs == DT_DP_CS_LIVE) {
		if (dt_dp_tx_room_work(st) < 2 * DT_TCP_OUT_SEGS) {
			dt_dp_conn_list_add(st, c, DT_DP_CF_OUTPUT);
			return 1;
		}
		s = &c->sends[(c->s_head + c->s_sub) % cap];
		ext.ref = s;
		ext.off = 0;
		ext.len = s->len;
		if (dt_tcp_send(&c->tcp, &ext, st->now, &st->out) != 0) {
			/* Connection went away meanwhile: drop the staged rest. */
			c->s_n = c->s_sub;
			break;
		}
		c->s_sub++;
		dt_dp_out_apply(st, c, &c->tcp.tuple);
	}
	if ((c->flags & DT_DP_CF_FIN_STAGED) && c->s_sub == c->s_n &&
			c->cs == DT_DP_CS_LIVE) {
		c->flags &= (uint8_t)~DT_DP_CF_FIN_STAGED;
		if (((c->flags & DT_DP_CF_CLOSE_FULL) ?
				dt_tcp_close_full(&c->tcp, st->now, &st->out) :
				dt_tcp_close(&c->tcp, st->now, &st->out)) == 0)
			dt_dp_out_apply(st, c, &c->tcp.tuple);
	}
	return 0;
}

/* Process the first @p n0 entries of a list; keep what was added meanwhile. */
static void
list_compact(uint32_t *l, uint32_t *n, uint32_t n0, uint32_t kept)
{
	uint32_t i;

	for (i = n0; i < *n; i++)
		l[kept++] = l[i];
	*n = kept;
}

/* Start of a poll: window updates after releases, deferred output. */
void
dt_dp_work_lists(struct dt_dp_stack *st)
{
	uint32_t i, n0, kept = 0;
	struct dt_dp_conn *c;

	n0 = st->n_dirty;
	for (i = 0; i < n0; i++) {
		c = &st->conns[st->l_dirty[i]];
		c->flags &= (uint8_t)~DT_DP_CF_DIRTY;
		if (c->cs != DT_DP_CS_LIVE)
			continue;
		dt_tcp_set_rcv_space(&c->tcp, dt_dp_conn_rcv_space(st, c),
			st->now, &st->out);
		dt_dp_out_apply(st, c, &c->tcp.tuple);
	}
	list_compact(st->l_dirty, &st->n_dirty, n0, 0);

	n0 = st->n_out;
	for (i = 0; i < n0; i++) {
		c = &st->conns[st->l_out[i]];
		if (c->cs != DT_DP_CS_LIVE) {
			c->flags &= (uint8_t)~DT_DP_CF_OUTPUT;
			continue;
		}
		if (dt_dp_tx_room_work(st) < 2 * DT_TCP_OUT_SEGS) {
			/*
			 * No room: the rest waits as it is, not visited one by
			 * one (100,000 closing connections on the list).
			 */
			memmove(&st->l_out[kept], &st->l_out[i],
				sizeof(st->l_out[0]) * (n0 - i));
			kept += n0 - i;
			break;
		}
		c->flags &= (uint8_t)~DT_DP_CF_OUTPUT;
		if (dt_dp_conn_submit(st, c) != 0)
			continue;
		dt_tcp_output(&c->tcp, st->now, &st->out);
		dt_dp_out_apply(st, c, &c->tcp.tuple);
	}
	list_compact(st->l_out, &st->n_out, n0, kept);
}

/* A zombie whose shells are all back: final SENT, then CLOSED. */
static bool
zombie_done(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	uint16_t i, cap = st->conf.txq_cap;

	for (i = 0; i < c->s_n; i++)
		if (send_in_flight(&c->sends[(c->s_head + i) % cap]))
			return false;
	dt_dp_conn_complete(st, c);
	c->flags &= (uint8_t)~DT_DP_CF_PENDING;
	dt_dp_ev_push(st, DT_DP_EV_CLOSED, c);
	st->st.conns_closed++;
	dt_dp_conn_release_slot(st, c);
	return true;
}

/* End of a poll, after the TX flush: completions, zombies. */
void
dt_dp_finish_lists(struct dt_dp_stack *st)
{
	uint32_t i, n0, kept = 0;
	struct dt_dp_conn *c;

	n0 = st->n_pend;
	for (i = 0; i < n0; i++) {
		c = &st->conns[st->l_pend[i]];
		c->flags &= (uint8_t)~DT_DP_CF_PENDING;
		if (c->cs == DT_DP_CS_LIVE) {
			dt_dp_conn_complete(st, c);
			if (c->s_acked > 0 && st->tx_no_cleanup)
				dt_dp_txheld_check(st, c);
		}
	}
	list_compact(st->l_pend, &st->n_pend, n0, 0);

	n0 = st->n_zomb;
	for (i = 0; i < n0; i++) {
		c = &st->conns[st->l_zomb[i]];
		if (dt_dp_ev_room(st) < DT_DP_EV_PER_CALL || !zombie_done(st, c)) {
			st->l_zomb[kept++] = c->idx;
			continue;
		}
		c->flags &= (uint8_t)~DT_DP_CF_ZLIST;
	}
	list_compact(st->l_zomb, &st->n_zomb, n0, kept);
}
