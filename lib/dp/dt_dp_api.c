/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application API (dt_dp.h): events, listen, connect, send, release,
 * shutdown/close/abort. Every call runs on the stack's lcore; output the
 * engine produces goes to the TX buffer, flushed by the next poll.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dt_dp_priv.h"

uint16_t
dt_dp_events(struct dt_dp_stack *st, struct dt_dp_event *ev, uint16_t n)
{
	uint32_t avail = st->ev_tail - st->ev_head, i;
	struct dt_dp_conn *c;

	if (n > avail)
		n = (uint16_t)avail;
	for (i = 0; i < n; i++) {
		ev[i] = st->evq[(st->ev_head + i) & st->ev_mask];
		/*
		 * User data as it is now, not as it was when the event was
		 * queued: the application may have set it since (after
		 * ACCEPTED). A connection already gone keeps the queued value.
		 */
		c = ev[i].conn != 0 ? dt_dp_conn_get(st, ev[i].conn) : NULL;
		if (c != NULL)
			ev[i].udata = c->udata;
		/*
		 * ACCEPTED ends the batch: the application attaches its user
		 * data before it is handed the connection's next events.
		 */
		if (ev[i].type == DT_DP_EV_ACCEPTED) {
			n = (uint16_t)(i + 1);
			break;
		}
	}
	st->ev_head += n;
	/*
	 * Drained: start again at the ring's first entries, which are still
	 * in cache. Walking the whole ring (sized for the worst case, often
	 * megabytes) would make every event a write to a cold line.
	 */
	if (st->ev_head == st->ev_tail)
		st->ev_head = st->ev_tail = 0;
	return n;
}

int
dt_dp_listen(struct dt_dp_stack *st, uint16_t port)
{
	struct dt_tcp_lst_stats keep;
	struct dt_dp_lst *l;
	int r;

	if (port == 0)
		return -EINVAL;
	if (dt_dp_lst_find(st, port) != NULL)
		return -EADDRINUSE;
	l = dt_dp_lst_find(st, 0);
	if (l == NULL)
		return -DT_DP_E_FULL;
	if (l->synq == NULL) {
		l->synq = rte_zmalloc("dt_dp_synq",
			sizeof(l->synq[0]) * st->synq_cap, 0);
		if (l->synq == NULL)
			return -ENOMEM;
		st->st.mem_bytes += sizeof(l->synq[0]) * st->synq_cap;
	}
	keep = l->l.st;
	r = dt_tcp_listen(&l->l, &st->tcp_cfg, &st->isn_key, l->synq,
		st->synq_cap, st->conf.backlog);
	if (r != 0)
		return r;
	/* Counters stay monotonic when a slot is reused. */
	l->l.st = keep;
	/* Steer the port's SYNs to this queue before anything can come. */
	r = dt_dp_steer_ref(st, port);
	if (r != 0) {
		dt_tcp_listen_close(&l->l, &st->out);
		return r;
	}
	l->port = port;
	return 0;
}

int
dt_dp_unlisten(struct dt_dp_stack *st, uint16_t port)
{
	struct dt_dp_lst *l = port != 0 ? dt_dp_lst_find(st, port) : NULL;

	if (l == NULL)
		return -ENOENT;
	dt_tcp_listen_close(&l->l, &st->out);
	l->port = 0;
	dt_dp_steer_unref(st, port);
	return 0;
}

int
dt_dp_connect(struct dt_dp_stack *st, uint32_t raddr, uint16_t rport,
	void *udata, dt_dp_conn_t *conn)
{
	return dt_dp_connect_rss(st, raddr, rport, udata, conn, NULL);
}

int
dt_dp_connect_rss(struct dt_dp_stack *st, uint32_t raddr, uint16_t rport,
	void *udata, dt_dp_conn_t *conn, const struct dt_dp_peer_rss *peer)
{
	uint32_t ra = rte_be_to_cpu_32(raddr);
	struct dt_tcp_tuple t;
	struct dt_dp_conn *c;
	int r;

	if (rport == 0 || ra == 0 || conn == NULL)
		return -EINVAL;
	if (dt_dp_nexthop(st, ra) == 0)
		return -ENETUNREACH;
	/* Thousands of opens in one go: SYNs wait, never dropped. */
	if (dt_dp_tx_room_work(st) < 2 * DT_TCP_OUT_SEGS)
		return -ENOBUFS;
	st->now = dt_dp_now_us(st);
	t.laddr = st->ip;
	t.raddr = ra;
	t.rport = rport;
	if (peer != NULL && (peer->key == NULL || peer->reta == NULL ||
			peer->reta_size == 0))
		return -EINVAL;
	r = dt_dp_rss_pick_port(st, ra, rport, peer, &t.lport);
	if (r != 0)
		return r;
	c = dt_dp_conn_alloc(st);
	if (c == NULL)
		return -DT_DP_E_FULL;
	c->udata = udata;
	c->nexthop = dt_dp_nexthop(st, ra);
	c->tcp.tuple = t;
	if (dt_dp_conn_insert(st, c) != 0) {
		dt_dp_conn_release_slot(st, c);
		return -DT_DP_E_NOPORT;
	}
	/* The rule exists before the SYN leaves: the SYN-ACK finds it. */
	r = dt_dp_steer_conn_add(st, c);
	if (r != 0) {
		dt_dp_conn_remove(st, c);
		dt_dp_conn_release_slot(st, c);
		return r;
	}
	r = dt_tcp_connect(&c->tcp, &t, dt_tcp_isn(&st->isn_key, &t, st->now),
		st->now, &st->out);
	if (r != 0) {
		dt_dp_conn_remove(st, c);
		dt_dp_conn_release_slot(st, c);
		return r;
	}
	*conn = dt_dp_conn_id(c);
	dt_dp_out_apply(st, c, &c->tcp.tuple);
	return 0;
}

int
dt_dp_set_udata(struct dt_dp_stack *st, dt_dp_conn_t conn, void *udata)
{
	struct dt_dp_conn *c = dt_dp_conn_get(st, conn);

	if (c == NULL)
		return -DT_DP_E_BADCONN;
	c->udata = udata;
	return 0;
}

static void
shinfo_noop_free(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

/*
 * Device payload that no copy engine reaches (no region's window holds
 * it), or whose engine gives no channel: the NIC could still gather it,
 * but a port that needs it written into the frame (no multi-segment TX,
 * no TX checksum offload, a PMD keeping sent mbufs) cannot take it.
 * Refused, counted, and said once per stack.
 */
static int
send_device_refused(struct dt_dp_stack *st, int why)
{
	if (st->st.tx_device_refused++ == 0)
		DT_DP_LOG(WARNING, "port %u: send from device memory refused: the port needs the payload written into its frames (%s) and %s",
			st->conf.port_id, st->tx_linear ? "no multi-segment TX" :
			!st->conf.tx_cksum_offload ? "no TX checksum offload" :
			"the PMD keeps sent mbufs",
			why == -EFAULT ? "no copy engine's window holds the buffer" :
			"no copy-engine channel is free");
	return -ENOTSUP;
}

int
dt_dp_send(struct dt_dp_stack *st, dt_dp_conn_t conn,
	const struct dt_dp_buf *buf)
{
	struct dt_dp_conn *c = dt_dp_conn_get(st, conn);
	struct dt_tcp_extent ext;
	struct dt_dp_send *s;
	int r;

	if (c == NULL)
		return -DT_DP_E_BADCONN;
	if (buf == NULL || buf->addr == NULL || buf->len == 0)
		return -EINVAL;
	if (c->s_n >= st->conf.txq_cap)
		return -DT_DP_E_FULL;
	s = &c->sends[(c->s_head + c->s_n) % st->conf.txq_cap];
	s->ce = NULL;
	/*
	 * The engine that may have to write it into frames: known now, for
	 * any port, since a port can start needing it later (tx_held).
	 */
	if (buf->device) {
		r = dt_dp_txc_engine(st, buf, &s->ce);
		if (r != 0 && (!st->conf.tx_cksum_offload || st->tx_linear ||
				st->tx_held))
			return send_device_refused(st, r);
	}
	s->addr = buf->addr;
	s->iova = buf->iova;
	s->len = buf->len;
	s->device = buf->device;
	s->shinfo.free_cb = shinfo_noop_free;
	s->shinfo.fcb_opaque = NULL;
	rte_mbuf_ext_refcnt_set(&s->shinfo, 1);
	if (c->flags & DT_DP_CF_FIN_STAGED)
		return -EPIPE;
	if (c->s_sub < c->s_n || dt_dp_tx_room_work(st) < 2 * DT_TCP_OUT_SEGS) {
		/* TX buffer full (NIC queue full): stage it, no drop. */
		if (c->tcp.state != DT_TCP_ESTABLISHED &&
				c->tcp.state != DT_TCP_CLOSE_WAIT)
			return -DT_DP_E_STATE;
		c->s_n++;
		dt_dp_conn_list_add(st, c, DT_DP_CF_OUTPUT);
		return 0;
	}
	ext.ref = s;
	ext.off = 0;
	ext.len = buf->len;
	st->now = dt_dp_now_us(st);
	r = dt_tcp_send(&c->tcp, &ext, st->now, &st->out);
	if (r != 0) {
		if (r == -ENOBUFS)
			return -DT_DP_E_FULL;
		if (r == -ENOTCONN)
			return -DT_DP_E_STATE;
		return r;
	}
	c->s_n++;
	c->s_sub++;
	dt_dp_out_apply(st, c, &c->tcp.tuple);
	return 0;
}

void
dt_dp_release(struct dt_dp_stack *st, uint64_t token)
{
	struct rte_mbuf *m = (struct rte_mbuf *)(uintptr_t)token;
	struct dt_dp_mbuf_meta *meta;
	struct dt_dp_conn *c;

	if (m == NULL)
		return;
	meta = dt_dp_meta(st, m);
	if (meta->conn_idx < st->conf.max_conns) {
		c = &st->conns[meta->conn_idx];
		if (c->gen == meta->gen && (c->cs == DT_DP_CS_LIVE ||
				c->cs == DT_DP_CS_ZOMBIE)) {
			c->held_bytes -= RTE_MIN(meta->len, c->held_bytes);
			if (c->cs == DT_DP_CS_LIVE)
				dt_dp_conn_list_add(st, c, DT_DP_CF_DIRTY);
		}
	}
	rte_pktmbuf_free_seg(m);
}

static int
do_close(struct dt_dp_stack *st, dt_dp_conn_t conn, bool full)
{
	struct dt_dp_conn *c = dt_dp_conn_get(st, conn);
	int r;

	if (c == NULL)
		return -DT_DP_E_BADCONN;
	if (full)
		c->flags |= DT_DP_CF_CLOSE_FULL;
	if (c->flags & DT_DP_CF_FIN_STAGED)
		return -EALREADY;
	if (c->s_sub < c->s_n) {
		/* FIN goes after the staged sends (close_full then too). */
		c->flags |= DT_DP_CF_FIN_STAGED;
		return 0;
	}
	if (dt_dp_tx_room_work(st) < 2 * DT_TCP_OUT_SEGS) {
		/*
		 * TX buffer full (an application closing thousands at once):
		 * the FIN waits on the output list instead of being dropped.
		 */
		c->flags |= DT_DP_CF_FIN_STAGED;
		dt_dp_conn_list_add(st, c, DT_DP_CF_OUTPUT);
		return 0;
	}
	st->now = dt_dp_now_us(st);
	r = full ? dt_tcp_close_full(&c->tcp, st->now, &st->out) :
		dt_tcp_close(&c->tcp, st->now, &st->out);
	if (r == -ENOTCONN)
		return -DT_DP_E_STATE;
	if (r != 0)
		return r;
	dt_dp_out_apply(st, c, &c->tcp.tuple);
	return 0;
}

int
dt_dp_shutdown(struct dt_dp_stack *st, dt_dp_conn_t conn)
{
	return do_close(st, conn, false);
}

int
dt_dp_close(struct dt_dp_stack *st, dt_dp_conn_t conn)
{
	int r = do_close(st, conn, true);

	/* Closing twice (after shutdown) is not an error for close. */
	return r == -EALREADY ? 0 : r;
}

int
dt_dp_abort(struct dt_dp_stack *st, dt_dp_conn_t conn)
{
	struct dt_dp_conn *c = dt_dp_conn_get(st, conn);

	if (c == NULL)
		return -DT_DP_E_BADCONN;
	st->now = dt_dp_now_us(st);
	dt_tcp_abort(&c->tcp, st->now, &st->out);
	dt_dp_out_apply(st, c, &c->tcp.tuple);
	return 0;
}
