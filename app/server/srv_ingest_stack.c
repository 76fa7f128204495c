/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ingest consumer on a stack's lcore: every chunk and stream event
 * becomes a node on its stream's list and leaves as a descriptor when the
 * stream's client has a free slot; a node's buffer goes back to lib/dp only
 * when the client gives its token back. So a client that keeps its tokens
 * closes its own streams' TCP windows and nothing is dropped; a client that
 * dies leaves its nodes here, to be reset or offered to another client.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "srv.h"
#include "srv_ingest.h"
#include "srv_ingest_slots.h"

#define NONE SRV_INGEST_NONE

static inline uint32_t
load_acq(const volatile uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void
store_rel(volatile uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint16_t
stack_index(const struct srv_stack *s)
{
	return (uint16_t)(s - s->app->stacks);
}

int
srv_ingest_stack_init(struct srv_stack *s)
{
	const struct srv_config *c = &s->app->cfg;
	struct srv_ingest_stack *is = calloc(1, sizeof(*is));
	uint32_t i;

	if (is == NULL)
		return -ENOMEM;
	s->ing = is;
	/*
	 * Every chunk holds a payload or header buffer until it is given
	 * back, and each stream adds at most an OPEN and an end: a pool of
	 * that size never runs out, so no acknowledged byte waits for a node.
	 */
	is->nb_nodes = c->buffers + c->header_buffers + 3 * c->max_conns;
	is->nodes = calloc(is->nb_nodes, sizeof(*is->nodes));
	is->free_nodes = calloc(is->nb_nodes, sizeof(*is->free_nodes));
	is->nb_streams = c->max_conns;
	is->streams = calloc(is->nb_streams, sizeof(*is->streams));
	is->active = calloc(is->nb_streams, sizeof(*is->active));
	if (is->nodes == NULL || is->free_nodes == NULL || is->streams == NULL ||
			is->active == NULL)
		return -ENOMEM;
	for (i = 0; i < is->nb_nodes; i++)
		is->free_nodes[i] = is->nb_nodes - 1 - i;
	is->nb_free_nodes = is->nb_nodes;
	return 0;
}

/* ---- nodes and stream lists --------------------------------------------- */

static uint32_t
node_new(struct srv_ingest_stack *is, uint32_t sidx, uint16_t flags)
{
	struct srv_ingest_node *n;
	uint32_t idx;

	if (is->nb_free_nodes == 0) {
		is->no_node++;
		return NONE;
	}
	idx = is->free_nodes[--is->nb_free_nodes];
	n = &is->nodes[idx];
	memset(n, 0, sizeof(*n));
	n->flags = flags;
	n->stream = sidx;
	n->prev = n->next = NONE;
	return idx;
}

static void
node_append(struct srv_ingest_stack *is, uint32_t idx)
{
	struct srv_ingest_node *n = &is->nodes[idx];
	struct srv_ingest_stream *st = &is->streams[n->stream];

	n->prev = st->tail;
	if (st->tail != NONE)
		is->nodes[st->tail].next = idx;
	else
		st->head = idx;
	st->tail = idx;
	if (st->first_pending == NONE)
		st->first_pending = idx;
	is->pending++;
}

/* Take @p idx off its stream's list and free it. */
static void
node_drop(struct srv_ingest_stack *is, uint32_t idx)
{
	struct srv_ingest_node *n = &is->nodes[idx];
	struct srv_ingest_stream *st = &is->streams[n->stream];

	if (n->prev != NONE)
		is->nodes[n->prev].next = n->next;
	else
		st->head = n->next;
	if (n->next != NONE)
		is->nodes[n->next].prev = n->prev;
	else
		st->tail = n->prev;
	if (st->first_pending == idx)
		st->first_pending = n->next;
	if (!n->given)
		is->pending--;
	is->free_nodes[is->nb_free_nodes++] = idx;
}

/* Free every node of stream @p sidx, DATA buffers back to lib/dp; how many. */
static uint32_t
stream_drain(struct srv_stack *s, uint32_t sidx)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_stream *st = &is->streams[sidx];
	uint32_t released = 0;

	while (st->head != NONE) {
		struct srv_ingest_node *n = &is->nodes[st->head];

		if (n->flags & DT_CLIENT_F_DATA) {
			dt_dp_release(s->st, n->dp_token);
			released++;
		}
		node_drop(is, st->head);
	}
	return released;
}

/* ---- streams ------------------------------------------------------------ */

static uint32_t
stream_new(struct srv_ingest_stack *is, dt_dp_conn_t conn)
{
	uint32_t i;

	for (i = 0; i < is->nb_streams; i++) {
		struct srv_ingest_stream *st = &is->streams[i];

		if (st->used)
			continue;
		memset(st, 0, sizeof(*st));
		st->used = true;
		st->conn = conn;
		st->serial = ++is->serial;
		st->client = NONE;
		st->head = st->tail = st->first_pending = NONE;
		is->active[is->nb_active++] = i;
		is->unassigned++;
		return i;
	}
	return NONE;
}

static void
client_unref(struct srv_ingest *ing, uint32_t ci)
{
	__atomic_fetch_sub(&ing->clients[ci].streams, 1, __ATOMIC_RELAXED);
}

/* Free a stream whose connection is gone and whose nodes are all back. */
static void
stream_maybe_free(struct srv_stack *s, uint32_t sidx)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_stream *st = &is->streams[sidx];
	uint32_t i;

	if (!st->used || !st->dp_closed || st->head != NONE)
		return;
	if (st->client != NONE)
		client_unref(s->app->ingest, st->client);
	else if (!st->ended)
		is->unassigned--;
	st->used = false;
	for (i = 0; i < is->nb_active; i++)
		if (is->active[i] == sidx) {
			is->active[i] = is->active[--is->nb_active];
			break;
		}
}

/* The attached client of @p port with the fewest streams, or NONE. */
static uint32_t
pick_client(struct srv_ingest *ing, uint16_t port)
{
	uint32_t i, best = NONE, best_n = UINT32_MAX;

	for (i = 0; i < SRV_INGEST_MAX_CLIENTS; i++) {
		struct srv_ingest_client *cl = &ing->clients[i];
		uint32_t n;

		if (load_acq(&cl->state) != ING_ATTACHED || cl->port != port)
			continue;
		n = __atomic_load_n(&cl->streams, __ATOMIC_RELAXED);
		if (n < best_n) {
			best = i;
			best_n = n;
		}
	}
	return best;
}

static bool
stream_assign(struct srv_stack *s, uint32_t sidx)
{
	struct srv_ingest *ing = s->app->ingest;
	struct srv_ingest_stream *st = &s->ing->streams[sidx];
	uint32_t ci = pick_client(ing, (uint16_t)st->open_info);

	if (ci == NONE)
		return false;
	st->client = ci;
	__atomic_fetch_add(&ing->clients[ci].streams, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ing->clients[ci].streams_total, 1, __ATOMIC_RELAXED);
	s->ing->unassigned--;
	return true;
}

/* Queue the stream's end (FIN, or RESET with @p err) once. */
static void
stream_end(struct srv_stack *s, uint32_t sidx, uint16_t flags, int err)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_stream *st = &is->streams[sidx];
	uint32_t idx;

	if (st->ended)
		return;
	st->ended = true;
	idx = node_new(is, sidx, flags);
	if (idx == NONE)
		return;
	is->nodes[idx].len = (uint32_t)err;
	if (st->client == NONE && st->head == NONE) {
		/* Nobody took it and nothing is queued: no one to tell. */
		is->free_nodes[is->nb_free_nodes++] = idx;
		is->unassigned--;
		st->client = NONE;
		return;
	}
	node_append(is, idx);
}

/* ---- events --------------------------------------------------------------- */

static void
on_accepted(struct srv_stack *s, const struct dt_dp_event *ev)
{
	struct srv_ingest_stack *is = s->ing;
	struct dt_dp_conn_stats cs;
	uint32_t sidx, idx;

	sidx = s->app->stop ? NONE : stream_new(is, ev->conn);
	if (sidx == NONE) {
		dt_dp_abort(s->st, ev->conn);
		return;
	}
	dt_dp_set_udata(s->st, ev->conn, &is->streams[sidx]);
	memset(&cs, 0, sizeof(cs));
	dt_dp_conn_stats_get(s->st, ev->conn, &cs);
	is->streams[sidx].open_info = (uint64_t)cs.tuple.raddr << 32 |
		(uint64_t)cs.tuple.rport << 16 | ev->listen_port;
	idx = node_new(is, sidx, DT_CLIENT_F_OPEN);
	if (idx != NONE) {
		is->nodes[idx].offset = is->streams[sidx].open_info;
		node_append(is, idx);
	}
	if (!stream_assign(s, sidx) && s->app->cfg.ingest_no_client_reset) {
		SRV_LOG(INFO, "stack %u: connection %" PRIx64 " on port %u reset: no ingest client attached for it",
			s->queue, ev->conn, ev->listen_port);
		stream_drain(s, sidx);
		is->streams[sidx].ended = true;
		is->unassigned--;
		is->resets++;
		dt_dp_abort(s->st, ev->conn);
	}
}

static void
on_data(struct srv_stack *s, uint32_t sidx, const struct dt_dp_chunk *ch)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_node *n;
	uint32_t idx;

	if (is->streams[sidx].ended) {
		/* Reset by us (its client died): events queued before the abort. */
		dt_dp_release(s->st, ch->token);
		is->dropped_after_reset++;
		return;
	}
	idx = node_new(is, sidx, DT_CLIENT_F_DATA |
		(ch->kind == DT_DP_CHUNK_HOST ? DT_CLIENT_F_HOST : 0));
	if (idx == NONE) {
		/* Cannot happen (pool sized to every buffer); counted if it does. */
		dt_dp_release(s->st, ch->token);
		return;
	}
	n = &is->nodes[idx];
	n->dp_token = ch->token;
	n->offset = ch->offset;
	n->host = ch->kind == DT_DP_CHUNK_HOST ? ch->addr : NULL;
	n->len = ch->len;
	node_append(is, idx);
	s->cs.chunks++;
	s->cs.bytes += ch->len;
	if (ch->kind == DT_DP_CHUNK_DEVICE)
		s->cs.device_bytes += ch->len;
	else
		s->cs.host_bytes += ch->len;
}

void
srv_ingest_event(struct srv_stack *s, const struct dt_dp_event *ev)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_stream *st = ev->udata;
	uint32_t sidx = st == NULL ? NONE : (uint32_t)(st - is->streams);

	if (ev->type == DT_DP_EV_ACCEPTED) {
		on_accepted(s, ev);
		return;
	}
	if (sidx == NONE) {
		if (ev->type == DT_DP_EV_DATA)
			dt_dp_release(s->st, ev->chunk.token);
		return;
	}
	switch (ev->type) {
	case DT_DP_EV_DATA:
		on_data(s, sidx, &ev->chunk);
		break;
	case DT_DP_EV_PEER_CLOSED:
		/* Closed when the client takes the FIN (node_returned). */
		stream_end(s, sidx, DT_CLIENT_F_FIN, 0);
		break;
	case DT_DP_EV_RESET:
		stream_end(s, sidx, DT_CLIENT_F_RESET, ECONNRESET);
		break;
	case DT_DP_EV_ERROR:
		stream_end(s, sidx, DT_CLIENT_F_RESET | DT_CLIENT_F_ERROR, ev->err);
		break;
	case DT_DP_EV_CLOSED:
		stream_end(s, sidx, DT_CLIENT_F_RESET, ECONNABORTED);
		st->dp_closed = true;
		stream_maybe_free(s, sidx);
		break;
	default:
		break;
	}
}

/* ---- the rings -------------------------------------------------------------- */

/* Hand out the stream's pending nodes while its client has slots. */
static void
stream_push(struct srv_stack *s, uint32_t sidx)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_stream *st = &is->streams[sidx];
	struct srv_ingest_client *cl = &s->app->ingest->clients[st->client];
	struct srv_ingest_pair *p = &cl->pair[stack_index(s)];
	uint32_t mask = cl->ring_size - 1, head0 = p->desc_head;

	while (st->first_pending != NONE && p->nb_free > 0) {
		uint32_t idx = st->first_pending, slot, tok;
		struct srv_ingest_node *n = &is->nodes[idx];
		struct dt_client_desc *d = &p->desc[p->desc_head & mask];

		/* Kept here: the descriptor is shared memory the client can write. */
		tok = srv_ing_slot_give(p, idx);
		slot = tok & 0xffff;
		d->offset = n->offset;
		d->aux = (n->flags & DT_CLIENT_F_OPEN) ? st->consumed : 0;
		d->len = n->len;
		d->flags = n->flags;
		d->stack = stack_index(s);
		d->stream = st->serial;
		d->token = tok;
		if (n->flags & DT_CLIENT_F_HOST) {
			/* Host bytes (the NIC's split left them in a header buffer). */
			memcpy(p->linear + (uint64_t)slot * s->app->ingest->linear_size,
				n->host, n->len);
			d->offset = 0;
			is->host_copy_bytes += n->len;
		}
		if (n->flags & DT_CLIENT_F_DATA)
			is->data_bytes += n->len;
		n->given = true;
		st->first_pending = n->next;
		is->pending--;
		p->desc_head++;
	}
	if (p->desc_head != head0) {
		is->descs += p->desc_head - head0;
		store_rel(&p->desc_idx->head, p->desc_head);
	}
}

/* A node's token came back: its buffer goes back to lib/dp. */
static void
node_returned(struct srv_stack *s, uint32_t idx)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_node *n = &is->nodes[idx];
	uint32_t sidx = n->stream;

	if (n->flags & DT_CLIENT_F_DATA) {
		dt_dp_release(s->st, n->dp_token);
		is->streams[sidx].consumed += n->len;
	}
	/* The client has taken the whole stream: only now our side closes. */
	if ((n->flags & DT_CLIENT_F_FIN) && !is->streams[sidx].dp_closed)
		dt_dp_close(s->st, is->streams[sidx].conn);
	node_drop(is, idx);
	stream_maybe_free(s, sidx);
}

static void
take_tokens(struct srv_stack *s, struct srv_ingest_client *cl,
	struct srv_ingest_pair *p)
{
	uint32_t mask = cl->ring_size - 1, n, node;

	n = srv_ing_tok_avail(p, cl->ring_size, load_acq(&p->tok_idx->head));
	for (; n > 0; n--) {
		/* One read of the client's word: checks and use see the same. */
		node = srv_ing_slot_take(p, cl->ring_size, p->tok[p->tok_tail & mask]);
		p->tok_tail++;
		if (node == SRV_INGEST_NONE)
			continue;
		node_returned(s, node);
		s->ing->tokens++;
	}
	store_rel(&p->tok_idx->tail, p->tok_tail);
}

/* ---- a client's end --------------------------------------------------------- */

static void
stream_reset_all(struct srv_stack *s, uint32_t sidx)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_stream *st = &is->streams[sidx];

	is->reclaimed_chunks += stream_drain(s, sidx);
	st->ended = true;
	if (!st->dp_closed) {
		dt_dp_abort(s->st, st->conn);
		is->resets++;
	}
}

/* Give the stream to the next client from its first byte not given back. */
static void
stream_reoffer(struct srv_stack *s, uint32_t sidx)
{
	struct srv_ingest_stack *is = s->ing;
	struct srv_ingest_stream *st = &is->streams[sidx];
	uint32_t idx, n_idx;

	for (idx = st->head; idx != NONE; idx = n_idx) {
		n_idx = is->nodes[idx].next;
		if (is->nodes[idx].given) {
			is->nodes[idx].given = false;
			is->pending++;
		}
		if (is->nodes[idx].flags & DT_CLIENT_F_OPEN)
			node_drop(is, idx);
	}
	st->first_pending = st->head;
	idx = node_new(is, sidx, DT_CLIENT_F_OPEN | DT_CLIENT_F_REOFFER);
	if (idx != NONE) {
		struct srv_ingest_node *n = &is->nodes[idx];

		n->offset = st->open_info;
		/* At the front: before the data it re-offers. */
		n->prev = NONE;
		n->next = st->head;
		if (st->head != NONE)
			is->nodes[st->head].prev = idx;
		else
			st->tail = idx;
		st->head = st->first_pending = idx;
		is->pending++;
	}
	is->unassigned++;
	is->reoffered++;
}

static void
reclaim(struct srv_stack *s, uint32_t ci, struct srv_ingest_pair *p)
{
	struct srv_ingest *ing = s->app->ingest;
	struct srv_ingest_client *cl = &ing->clients[ci];
	struct srv_ingest_stack *is = s->ing;
	bool reoffer = s->app->cfg.ingest_on_exit == SRV_INGEST_EXIT_REOFFER;
	uint32_t i, k;

	/* What it gave back before it left counts: those bytes are consumed. */
	take_tokens(s, cl, p);
	for (i = 0; i < cl->ring_size; i++)
		p->slots[i].node = NONE;
	p->held = 0;
	for (k = 0; k < is->nb_active; k++) {
		uint32_t sidx = is->active[k];
		struct srv_ingest_stream *st = &is->streams[sidx];

		if (st->client != ci)
			continue;
		client_unref(ing, ci);
		st->client = NONE;
		if (st->ended && st->head == NONE) {
			/* Its end was taken: nothing is left to offer or reset. */
			if (st->dp_closed) {
				stream_maybe_free(s, sidx);
				k--;
			}
		} else if (reoffer) {
			stream_reoffer(s, sidx);
		} else {
			stream_reset_all(s, sidx);
			if (st->dp_closed) {
				stream_maybe_free(s, sidx);
				k--; /* the last active stream took this place */
			}
		}
	}
	store_rel(&p->reclaimed, 1);
}

/* ---- the poll ------------------------------------------------------------------ */

void
srv_ingest_stack_poll(struct srv_stack *s)
{
	struct srv_ingest *ing = s->app->ingest;
	struct srv_ingest_stack *is = s->ing;
	uint16_t si = stack_index(s);
	uint32_t ci, k;

	for (ci = 0; ci < SRV_INGEST_MAX_CLIENTS; ci++) {
		struct srv_ingest_client *cl = &ing->clients[ci];
		uint32_t state = load_acq(&cl->state);

		if (state == ING_ATTACHED)
			take_tokens(s, cl, &cl->pair[si]);
		else if (state == ING_DYING && !cl->pair[si].reclaimed)
			reclaim(s, ci, &cl->pair[si]);
	}
	for (k = 0; is->unassigned > 0 && k < is->nb_active; k++) {
		struct srv_ingest_stream *st = &is->streams[is->active[k]];

		if (st->client == NONE && (!st->ended || st->head != NONE))
			stream_assign(s, is->active[k]);
	}
	for (k = 0; is->pending > 0 && k < is->nb_active; k++) {
		struct srv_ingest_stream *st = &is->streams[is->active[k]];

		if (st->client != NONE && st->first_pending != NONE)
			stream_push(s, is->active[k]);
	}
}

void
srv_ingest_stack_fini(struct srv_stack *s)
{
	struct srv_ingest_stack *is = s->ing;
	uint32_t k;

	if (is == NULL)
		return;
	/* Before the stack goes: every buffer still held goes back. */
	for (k = 0; is->streams != NULL && k < is->nb_active; k++)
		stream_drain(s, is->active[k]);
	free(is->nodes);
	free(is->free_nodes);
	free(is->streams);
	free(is->active);
	free(is);
	s->ing = NULL;
}
