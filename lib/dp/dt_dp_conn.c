/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection slots and the 4-tuple table of a stack: open addressing with
 * linear probing over connection indices (no locks, no allocation on the
 * data path), slot free list, generations for stale ids, work lists.
 */
#include <errno.h>
#include <string.h>

#include <rte_jhash.h>

#include "dt_dp_priv.h"

static inline uint32_t
tuple_hash(const struct dt_tcp_tuple *t)
{
	return rte_jhash_3words(t->laddr, t->raddr,
		(uint32_t)t->lport << 16 | t->rport, 0x5bd1e995);
}

static inline bool
tuple_eq(const struct dt_tcp_tuple *a, const struct dt_tcp_tuple *b)
{
	return a->laddr == b->laddr && a->raddr == b->raddr &&
		a->lport == b->lport && a->rport == b->rport;
}

struct dt_dp_conn *
dt_dp_conn_get(struct dt_dp_stack *st, dt_dp_conn_t id)
{
	uint32_t idx = (uint32_t)id, gen = (uint32_t)(id >> 32);
	struct dt_dp_conn *c;

	if (idx >= st->conf.max_conns)
		return NULL;
	c = &st->conns[idx];
	if (c->gen != gen || c->cs != DT_DP_CS_LIVE)
		return NULL;
	return c;
}

struct dt_dp_conn *
dt_dp_conn_lookup(struct dt_dp_stack *st, const struct dt_tcp_tuple *t)
{
	uint32_t i = tuple_hash(t) & st->ht_mask, v;
	struct dt_dp_conn *c;

	while ((v = st->ht[i]) != 0) {
		c = &st->conns[v - 1];
		if (tuple_eq(&c->tcp.tuple, t))
			return c;
		i = (i + 1) & st->ht_mask;
	}
	return NULL;
}

int
dt_dp_conn_insert(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	uint32_t i = tuple_hash(&c->tcp.tuple) & st->ht_mask;

	while (st->ht[i] != 0) {
		if (tuple_eq(&st->conns[st->ht[i] - 1].tcp.tuple, &c->tcp.tuple))
			return -EEXIST;
		i = (i + 1) & st->ht_mask;
	}
	st->ht[i] = c->idx + 1;
	c->cs = DT_DP_CS_LIVE;
	st->st.conns_open++;
	return 0;
}

/* Take @p c out of the table (backward-shift deletion). */
void
dt_dp_conn_remove(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	uint32_t i = tuple_hash(&c->tcp.tuple) & st->ht_mask, j, h;

	while (st->ht[i] != 0 && st->ht[i] != c->idx + 1)
		i = (i + 1) & st->ht_mask;
	if (st->ht[i] == 0)
		return;
	st->ht[i] = 0;
	j = i;
	for (;;) {
		j = (j + 1) & st->ht_mask;
		if (st->ht[j] == 0)
			break;
		h = tuple_hash(&st->conns[st->ht[j] - 1].tcp.tuple) & st->ht_mask;
		if (((j - h) & st->ht_mask) >= ((j - i) & st->ht_mask)) {
			st->ht[i] = st->ht[j];
			st->ht[j] = 0;
			i = j;
		}
	}
	if (st->st.conns_open > 0)
		st->st.conns_open--;
}

/* A fresh CLOSED connection with its queues, or NULL when none is free. */
struct dt_dp_conn *
dt_dp_conn_alloc(struct dt_dp_stack *st)
{
	struct dt_tcp_bufs bufs;
	struct dt_dp_conn *c;
	uint32_t idx = st->free_head;

	if (idx == UINT32_MAX)
		return NULL;
	c = &st->conns[idx];
	st->free_head = c->next_free;
	bufs.txq = c->txq;
	bufs.txq_cap = st->conf.txq_cap;
	/* Out-of-order storage is lent when needed (dt_dp_ooo_store_take). */
	bufs.ooo = NULL;
	bufs.ooo_cap = 0;
	if (dt_tcp_conn_init(&c->tcp, &st->tcp_cfg, &bufs) != 0) {
		c->next_free = st->free_head;
		st->free_head = idx;
		return NULL;
	}
	c->cs = DT_DP_CS_SPARE;
	c->flags = 0;
	c->listen_port = 0;
	c->udata = NULL;
	c->held_bytes = 0;
	c->ooo_seen = 0;
	c->ack_owed = false;
	c->held_since = 0;
	c->nexthop = 0;
	c->neigh = NULL;
	c->flow = NULL;
	c->s_head = 0;
	c->s_n = 0;
	c->s_acked = 0;
	c->s_sub = 0;
	c->rx_bytes = c->tx_bytes = c->rx_device_bytes = c->rx_host_bytes = 0;
	memset(&c->tw, 0, sizeof(c->tw));
	return c;
}

/* Back to the free list; its id goes stale. */
void
dt_dp_conn_release_slot(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	dt_dp_tw_cancel(&st->tw, &c->tw);
	/* CLOSED flushed what it held: the store goes back. */
	if (c->tcp.ooo != NULL && c->tcp.ooo_n == 0)
		dt_dp_ooo_store_give(st, c);
	/* Steering goes with the connection (a control step, not per packet). */
	if (c->flow != NULL)
		dt_dp_steer_conn_del(st, c);
	if (c->flags & DT_DP_CF_STEER_REF) {
		c->flags &= (uint8_t)~DT_DP_CF_STEER_REF;
		dt_dp_steer_unref(st, c->listen_port);
	}
	c->cs = DT_DP_CS_FREE;
	c->gen++;
	if (c->gen == 0)
		c->gen = 1;
	c->next_free = st->free_head;
	st->free_head = c->idx;
}

void
dt_dp_conn_list_add(struct dt_dp_stack *st, struct dt_dp_conn *c, uint8_t flag)
{
	if (c->flags & flag)
		return;
	c->flags |= flag;
	switch (flag) {
	case DT_DP_CF_DIRTY:
		st->l_dirty[st->n_dirty++] = c->idx;
		break;
	case DT_DP_CF_PENDING:
		st->l_pend[st->n_pend++] = c->idx;
		break;
	case DT_DP_CF_OUTPUT:
		st->l_out[st->n_out++] = c->idx;
		break;
	case DT_DP_CF_ZLIST:
		st->l_zomb[st->n_zomb++] = c->idx;
		break;
	default:
		break;
	}
}

/*
 * Lend @p c a store before a segment that will be held out of order:
 * payload that does not start at rcv_nxt. Retransmissions that overlap
 * rcv_nxt borrow one needlessly; it comes back after the call.
 */
void
dt_dp_ooo_store_take(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_seg *seg)
{
	if (c->tcp.ooo != NULL || seg->n_ext == 0 ||
			seg->th.seq == c->tcp.rcv_nxt)
		return;
	if (st->ooo_nfree == 0) {
		/* The engine frees the payload unacked: the peer sends it again. */
		st->st.drop_ooo_no_store++;
		return;
	}
	if (dt_tcp_set_ooo_store(&c->tcp, st->ooo_free[st->ooo_nfree - 1],
			st->ooo_cap) != 0)
		return;
	st->ooo_nfree--;
	st->st.ooo_stores_used++;
	st->st.ooo_stores_lent++;
}

/* Take back the store of @p c, which holds nothing out of order. */
void
dt_dp_ooo_store_give(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	struct dt_tcp_ooo *q = c->tcp.ooo;

	if (dt_tcp_set_ooo_store(&c->tcp, NULL, 0) != 0)
		return;
	st->ooo_free[st->ooo_nfree++] = q;
	st->st.ooo_stores_used--;
}

uint32_t
dt_dp_conn_rcv_space(const struct dt_dp_stack *st, const struct dt_dp_conn *c)
{
	uint64_t used = (uint64_t)c->held_bytes + c->tcp.ooo_bytes;

	return used >= st->conf.window ? 0 : (uint32_t)(st->conf.window - used);
}

struct dt_dp_lst *
dt_dp_lst_find(struct dt_dp_stack *st, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < DT_DP_MAX_LISTENERS; i++)
		if (st->lst[i].port == port)
			return &st->lst[i];
	return NULL;
}
