/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ends of devtcp-bench's cps and hold connections (bench_conns.c has
 * the modes' overview): connection slots on a free list, the exchange of
 * B bytes each way checked against the pattern, the server's accepts and
 * the client's opens and closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "bench_conns_priv.h"

/* ------------------------------------------------------------- slots */

static struct bc_conn *
slot_get(struct bc_side *s)
{
	struct bc_conn *c;
	uint32_t i = s->free_head;

	if (i == UINT32_MAX)
		return NULL;
	c = &s->c[i];
	s->free_head = c->next_free;
	memset(c, 0, sizeof(*c));
	c->used = 1;
	return c;
}

static void
slot_put(struct bc_side *s, struct bc_conn *c)
{
	c->used = 0;
	c->next_free = s->free_head;
	s->free_head = (uint32_t)(c - s->c);
}

/* ------------------------------------------------------------- data */

static int
bc_send(struct bc_side *s, struct bc_conn *c, uint32_t off)
{
	const struct bench_tcp_env *env = s->run->env;
	struct dt_dp_buf b = {
		.addr = (void *)(uintptr_t)(env->tx_host + c->start + off),
		.iova = env->tx_host_iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
			env->tx_host_iova + c->start + off,
		.len = s->run->bytes,
		.device = false,
	};

	return dt_dp_send(s->st, c->id, &b);
}

/* Check a received chunk against its stream's bytes; false on a mismatch. */
static bool
bc_check(struct bc_side *s, struct bc_conn *c, const struct dt_dp_chunk *ch,
	uint32_t off)
{
	const uint8_t *want = s->run->env->tx_host + c->start + off + c->rx;
	const uint8_t *got = ch->addr;
	uint32_t i, bad = 0;

	if (ch->kind != DT_DP_CHUNK_HOST || c->rx + ch->len > s->run->bytes) {
		s->bad_bytes += ch->len;
		return false;
	}
	if (memcmp(got, want, ch->len) == 0)
		return true;
	for (i = 0; i < ch->len; i++)
		bad += got[i] != want[i];
	s->bad_bytes += bad;
	return false;
}

static void
bc_sample_rtx(struct bc_side *s, struct bc_conn *c)
{
	struct dt_dp_conn_stats cs;

	if (dt_dp_conn_stats_get(s->st, c->id, &cs) == 0)
		s->retransmits += cs.retransmits;
}

static void
bc_fail(struct bc_side *s, struct bc_conn *c, const char *why)
{
	if (c->failed)
		return;
	c->failed = 1;
	if (s->errors++ == 0)
		fprintf(stderr, "devtcp-bench: %s: %s stack %u: %s\n",
			bench_mode_name(s->run->mode),
			s->server ? "server" : "client", s->q, why);
}

/* Both directions done on this end: counted once. */
static void
bc_maybe_exchanged(struct bc_side *s, struct bc_conn *c)
{
	if (c->counted || c->failed || c->rx != s->run->bytes ||
			c->acked != s->run->bytes)
		return;
	c->counted = 1;
	s->exchanged++;
	if (!s->server && s->run->mode == BENCH_MODE_CPS && !c->closing) {
		/* Short connections close once both directions are done. */
		c->closing = 1;
		s->inflight--;
		bc_sample_rtx(s, c);
		if (dt_dp_close(s->st, c->id) != 0)
			bc_fail(s, c, "close refused");
	}
}

static void
bc_closed(struct bc_side *s, struct bc_conn *c)
{
	if (!s->server && !c->closing)
		s->inflight--;
	if (c->fin_wait) {
		c->fin_wait = 0;
		s->fin_waits--;
	}
	if (!c->failed && c->counted)
		s->completed++;
	else
		s->failed++;
	s->closed++;
	slot_put(s, c);
}

/* ------------------------------------------------------------- server */

void
bench_conns_srv_event(struct bc_side *s, const struct dt_dp_event *ev)
{
	struct bc_conn *c = ev->udata;
	struct dt_dp_conn_stats cs;

	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		c = slot_get(s);
		if (c == NULL || dt_dp_conn_stats_get(s->st, ev->conn, &cs) != 0) {
			if (c != NULL)
				slot_put(s, c);
			s->failed++;
			if (s->errors++ == 0)
				fprintf(stderr, "devtcp-bench: %s: server stack %u: no slot for an accepted connection (%u)\n",
					bench_mode_name(s->run->mode), s->q, s->cap);
			dt_dp_abort(s->st, ev->conn);
			return;
		}
		c->id = ev->conn;
		c->connected = 1;
		c->start = bc_start(s->run, cs.tuple.rport, cs.tuple.lport);
		dt_dp_set_udata(s->st, ev->conn, c);
		s->opened++;
		s->connected++;
		break;
	case DT_DP_EV_DATA:
		if (c == NULL) {
			dt_dp_release(s->st, ev->chunk.token);
			s->errors++;
			return;
		}
		if (!bc_check(s, c, &ev->chunk, 0))
			bc_fail(s, c, "request bytes differ from the pattern");
		c->rx += ev->chunk.len;
		s->rx_bytes += ev->chunk.len;
		dt_dp_release(s->st, ev->chunk.token);
		/* Answered even after a mismatch: the client's side ends too. */
		if (c->rx == s->run->bytes && bc_send(s, c, s->run->bytes) != 0)
			bc_fail(s, c, "answer refused by dt_dp_send()");
		break;
	case DT_DP_EV_SENT:
		if (c == NULL)
			return;
		c->acked += (uint32_t)ev->sent.bytes;
		bc_maybe_exchanged(s, c);
		break;
	case DT_DP_EV_PEER_CLOSED:
		if (c == NULL)
			return;
		bc_maybe_exchanged(s, c);
		bc_sample_rtx(s, c);
		c->closing = 1;
		if (dt_dp_close(s->st, ev->conn) != 0)
			bc_fail(s, c, "close refused");
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		if (c != NULL)
			bc_fail(s, c, ev->type == DT_DP_EV_RESET ? "reset by the peer" :
				strerror(ev->err));
		break;
	case DT_DP_EV_CLOSED:
		if (c != NULL)
			bc_closed(s, c);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------- client */

static bool
cli_may_open(const struct bc_side *s)
{
	const struct bc_run *run = s->run;

	if (run->stop_opening || run->phase != BC_RUN)
		return false;
	/* One first: the neighbour is resolved before the rest go. */
	if (s->opened > 0 && !s->first_up)
		return false;
	if (run->mode == BENCH_MODE_CPS)
		return s->inflight < s->quota;
	/* Before the close phase, a closed connection is a failed one. */
	return s->opened < s->quota &&
		s->opened - s->exchanged - s->closed < BC_OPEN_BATCH;
}

void
bench_conns_cli_open(struct bc_side *s)
{
	struct bc_run *run = s->run;
	struct dt_dp_conn_stats cs;
	struct bc_conn *c;
	uint16_t port;
	int r;

	while (cli_may_open(s)) {
		c = slot_get(s);
		if (c == NULL) {
			s->open_waits++;
			return;
		}
		port = (uint16_t)(BC_SRV_PORT0 + s->opened % run->nports);
		r = dt_dp_connect(s->st, rte_cpu_to_be_32(BC_SRV_IP), port, c,
			&c->id);
		if (r == -ENOBUFS || r == -DT_DP_E_FULL ||
				r == -DT_DP_E_NOPORT) {
			/* TX room, table or ports in TIME_WAIT: later. */
			slot_put(s, c);
			s->open_waits++;
			return;
		}
		if (r == 0)
			r = dt_dp_conn_stats_get(s->st, c->id, &cs);
		if (r != 0) {
			slot_put(s, c);
			s->failed++;
			s->opened++;
			s->closed++;
			if (s->errors++ == 0)
				fprintf(stderr, "devtcp-bench: %s: connect: %s\n",
					bench_mode_name(run->mode), rte_strerror(-r));
			continue;
		}
		c->start = bc_start(run, cs.tuple.lport, port);
		s->opened++;
		s->inflight++;
	}
}

void
bench_conns_cli_event(struct bc_side *s, const struct dt_dp_event *ev)
{
	struct bc_conn *c = ev->udata;

	if (c == NULL) {
		if (ev->type == DT_DP_EV_DATA)
			dt_dp_release(s->st, ev->chunk.token);
		return;
	}
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		c->connected = 1;
		s->first_up = true;
		s->connected++;
		if (bc_send(s, c, 0) != 0)
			bc_fail(s, c, "request refused by dt_dp_send()");
		break;
	case DT_DP_EV_DATA:
		if (!bc_check(s, c, &ev->chunk, s->run->bytes))
			bc_fail(s, c, "answer bytes differ from the pattern");
		c->rx += ev->chunk.len;
		s->rx_bytes += ev->chunk.len;
		dt_dp_release(s->st, ev->chunk.token);
		bc_maybe_exchanged(s, c);
		break;
	case DT_DP_EV_SENT:
		c->acked += (uint32_t)ev->sent.bytes;
		bc_maybe_exchanged(s, c);
		break;
	case DT_DP_EV_PEER_CLOSED:
		if (c->fin_wait) {
			c->fin_wait = 0;
			s->fin_waits--;
		}
		/* The server closes only after the client did. */
		if (!c->closing) {
			bc_fail(s, c, "closed by the server first");
			c->closing = 1;
			s->inflight--;
			dt_dp_close(s->st, ev->conn);
		}
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		bc_fail(s, c, ev->type == DT_DP_EV_RESET ? "reset by the peer" :
			strerror(ev->err));
		break;
	case DT_DP_EV_CLOSED:
		bc_closed(s, c);
		break;
	default:
		break;
	}
}

/*
 * hold: every connection of this client stack closes, BC_OPEN_BATCH at a
 * time: all at once, the FINs and their answers overflow the RX rings and
 * the figure becomes that of recovery.
 */
void
bench_conns_cli_close_some(struct bc_side *s)
{
	struct bc_conn *c;

	while (s->close_next < s->cap && s->fin_waits < BC_OPEN_BATCH) {
		c = &s->c[s->close_next++];
		if (!c->used || c->closing)
			continue;
		c->closing = 1;
		c->fin_wait = 1;
		s->fin_waits++;
		s->inflight--;
		bc_sample_rtx(s, c);
		if (dt_dp_close(s->st, c->id) != 0)
			bc_fail(s, c, "close refused");
	}
	s->closed_all = s->close_next == s->cap;
}

