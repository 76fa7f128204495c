/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two ends of devtcp-bench's TCP streams (bench_tcp.c has the modes'
 * overview): the server takes DEVICE chunks as they are and lands HOST
 * chunks in device memory with the copy engine, verifying both with
 * --verify; the client opens its connections, keeps them fed with the
 * send pattern and shuts them down when done.
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
#include <rte_malloc.h>

#include "bench_tcp_priv.h"

/* Hand [addr, addr + len) at pattern position @p pos to @p v, split where the pattern wraps. */
static void
bt_verify_range(struct bench_verifier *v, uintptr_t addr, uint32_t len,
	uint32_t pos)
{
	uint32_t n;

	while (len != 0) {
		n = RTE_MIN(len, BENCH_TCP_PAT_LEN - pos);
		bench_verify_add(v, addr, n, pos);
		addr += n;
		len -= n;
		pos = 0;
	}
}

/* Verifier callback: the checked chunks go back to the stack. */
void
bench_tcp_release_tokens(void *arg, const uint64_t *tok, uint32_t n)
{
	struct bt_side *s = arg;
	uint32_t i;

	for (i = 0; i < n; i++)
		dt_dp_release(s->st, tok[i]);
}

/* ------------------------------------------------------------- server */

/*
 * Copy the queued HOST chunks into the landing region, wait for them to
 * land, release them, then hand the landed bytes to the verifier.
 */
void
bench_tcp_copy_flush(struct bt_side *s)
{
	uint64_t ticket = 0;
	uint32_t done = 0, i;
	int q = 0;

	if (s->nops == 0)
		return;
	while (done < s->nops) {
		q = dt_copy_submit(s->ch, s->ops + done,
			(uint16_t)(s->nops - done), &ticket);
		if (q < 0)
			break;
		if (q == 0)             /* every slot in flight: let some land */
			dt_copy_completed(s->ch);
		done += (uint32_t)q;
	}
	if (q < 0) {
		if (s->copy_errors++ == 0)
			fprintf(stderr, "devtcp-bench: copy engine refused a copy of %u bytes (%p -> %p): %s\n",
				s->ops[done].len, s->ops[done].src,
				s->ops[done].dst, rte_strerror(-q));
		s->run->abort = true;
	}
	if (done != 0)
		dt_copy_wait(s->ch, ticket);
	for (i = 0; i < s->nops; i++)
		dt_dp_release(s->st, s->tok[i]);
	if (s->ver_land != NULL && q >= 0)
		for (i = 0; i < s->nvs; i++)
			bench_verify_add(s->ver_land, s->vs[i].addr,
				s->vs[i].len, s->vs[i].stream_off);
	s->nops = 0;
	s->nvs = 0;
}

/* A HOST chunk: queue its copy into the landing region (a ring). */
void
bench_tcp_land(struct bt_side *s, const struct dt_dp_chunk *ch, uint32_t pos)
{
	uint32_t len = ch->len, n;
	uintptr_t dst;

	if (s->land_off + len > s->land_len) {
		/* Wrapping: what the verifier holds there must be checked first. */
		bench_tcp_copy_flush(s);
		if (s->ver_land != NULL)
			bench_verify_flush(s->ver_land);
		s->land_off = 0;
	}
	if (s->nops == BT_COPY_BATCH)
		bench_tcp_copy_flush(s);
	dst = s->land_base + s->land_off;
	s->ops[s->nops] = (struct dt_copy_op){ .dst = (void *)dst,
		.src = ch->addr, .len = len };
	s->tok[s->nops++] = ch->token;
	while (len != 0) {
		n = RTE_MIN(len, BENCH_TCP_PAT_LEN - pos);
		s->vs[s->nvs++] = (struct bench_vseg){ .addr = dst, .len = n,
			.stream_off = pos };
		dst += n;
		len -= n;
		pos = 0;
	}
	s->land_off += RTE_ALIGN_CEIL(ch->len, RTE_CACHE_LINE_SIZE);
}

static struct bt_conn *
bt_find(struct bt_side *s, dt_dp_conn_t id)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (s->conns[i].id == id)
			return &s->conns[i];
	return NULL;
}

static void
srv_data(struct bt_side *s, struct bt_conn *c, const struct dt_dp_chunk *ch)
{
	uint32_t pos = (uint32_t)((c->start + c->rx % BENCH_TCP_PAT_LEN) %
		BENCH_TCP_PAT_LEN);

	c->rx += ch->len;
	s->rx_bytes += ch->len;
	if (ch->kind == DT_DP_CHUNK_DEVICE) {
		s->device_bytes += ch->len;
		if (s->ver_rx == NULL) {
			dt_dp_release(s->st, ch->token);
			return;
		}
		/* Address only: the verifier reads through the CPU alias or on the GPU. */
		bt_verify_range(s->ver_rx, (uintptr_t)ch->addr, ch->len, pos);
		bench_verify_hold_token(s->ver_rx, ch->token);
		return;
	}
	s->host_bytes += ch->len;
	bench_tcp_land(s, ch, pos);
}

void
bench_tcp_srv_event(struct bt_side *s, const struct dt_dp_event *ev)
{
	struct bt_run *run = s->run;
	struct bt_conn *c = ev->udata;
	struct dt_dp_conn_stats cs;

	/* Events queued before ACCEPTED was handled carry no user data yet. */
	if (c == NULL && ev->type != DT_DP_EV_ACCEPTED)
		c = bt_find(s, ev->conn);
	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		if (s->nb == s->cap ||
				dt_dp_conn_stats_get(s->st, ev->conn, &cs) != 0) {
			s->errors++;
			dt_dp_abort(s->st, ev->conn);
			return;
		}
		c = &s->conns[s->nb++];
		memset(c, 0, sizeof(*c));
		c->id = ev->conn;
		c->connected = true;
		c->start = bt_start(cs.tuple.rport);
		dt_dp_set_udata(s->st, ev->conn, c);
		__atomic_fetch_add(&run->srv_accepted, 1, __ATOMIC_RELAXED);
		break;
	case DT_DP_EV_DATA:
		if (c == NULL) {
			s->errors++;
			dt_dp_release(s->st, ev->chunk.token);
			return;
		}
		srv_data(s, c, &ev->chunk);
		break;
	case DT_DP_EV_PEER_CLOSED:
		if (c != NULL && !c->peer_closed) {
			c->peer_closed = true;
			/* The last stream delivered: the run's clock stops. */
			if (__atomic_add_fetch(&run->srv_eof, 1, __ATOMIC_ACQ_REL) ==
					run->conns)
				run->t_eof = rte_rdtsc();
		}
		dt_dp_close(s->st, ev->conn);
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		s->errors++;
		if (c != NULL)
			c->failed = true;
		break;
	case DT_DP_EV_CLOSED:
		if (c != NULL && !c->closed) {
			c->closed = true;
			__atomic_fetch_add(&run->srv_closed, 1, __ATOMIC_RELEASE);
		}
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------- client */

/* Queue sends on @p c until the stack refuses more; FIN once all is queued. */
void
bench_tcp_cli_fill(struct bt_side *s, struct bt_conn *c)
{
	struct bt_run *run = s->run;
	const struct bench_opts *o = run->env->opts;
	struct dt_dp_buf b;
	uint32_t pos, len;
	int r;

	while (c->connected && !c->shut && !c->failed) {
		if (c->queued == c->total || run->stop_sending) {
			r = dt_dp_shutdown(s->st, c->id);
			if (r != 0 && s->errors++ == 0)
				fprintf(stderr, "devtcp-bench: shutdown: %s\n",
					rte_strerror(-r));
			c->shut = true;
			s->nb_shut++;
			return;
		}
		pos = (uint32_t)((c->start + c->queued % BENCH_TCP_PAT_LEN) %
			BENCH_TCP_PAT_LEN);
		len = (uint32_t)RTE_MIN((uint64_t)o->msg_size,
			c->total - c->queued);
		len = RTE_MIN(len, BENCH_TCP_PAT_LEN - pos);
		b.addr = run->tx_base + pos;
		b.iova = run->tx_iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
			run->tx_iova + pos;
		b.len = len;
		b.device = run->tx_device;
		r = dt_dp_send(s->st, c->id, &b);
		if (r == -DT_DP_E_FULL)
			return;
		if (r != 0) {
			if (s->errors++ == 0)
				fprintf(stderr, "devtcp-bench: send: %s\n",
					rte_strerror(-r));
			c->failed = true;
			return;
		}
		c->queued += len;
	}
}

/* Retransmissions of @p c since the last sample (its stats go with it). */
void
bench_tcp_cli_sample(struct bt_side *s, struct bt_conn *c)
{
	struct dt_dp_conn_stats cs;

	if (c->closed || dt_dp_conn_stats_get(s->st, c->id, &cs) != 0)
		return;
	if (cs.retransmits > c->rtx) {
		s->retransmits += cs.retransmits - c->rtx;
		c->rtx = cs.retransmits;
	}
}

/*
 * Open this stack's connections: one first, the rest once it is up, so
 * that the neighbour is resolved and no SYN waits in (or overflows) the
 * ARP hold queue and then for a retransmission timeout.
 */
/*
 * Connection g of the run (client stack ci's j-th is g = ci + j * clients)
 * goes to server stack g % servers: a source port the server's RSS sends
 * there, so every server stack carries its share.
 */
int
bench_tcp_cli_connect(struct bt_side *s, struct bt_conn *c)
{
	struct bt_run *run = s->run;
	uint32_t ci = (uint32_t)(s - run->sides) - run->nsrv;
	struct dt_dp_peer_rss pr;

	if (!run->srss_ok)
		return dt_dp_connect(s->st, rte_cpu_to_be_32(BT_SRV_IP),
			BT_SRV_PORT, c, &c->id);
	pr.key = run->srss.key;
	pr.reta = run->srss.reta;
	pr.reta_size = run->srss.reta_size;
	pr.l4 = run->srss.l4;
	pr.queue = (uint16_t)((ci + s->nb * run->ncli) % run->nsrv);
	return dt_dp_connect_rss(s->st, rte_cpu_to_be_32(BT_SRV_IP),
		BT_SRV_PORT, c, &c->id, &pr);
}

void
bench_tcp_cli_open(struct bt_side *s)
{
	struct bt_run *run = s->run;
	struct dt_dp_conn_stats cs;
	struct bt_conn *c;
	int r;

	while (s->nb < s->to_open && (s->nb == 0 || s->nb_connected > 0)) {
		c = &s->conns[s->nb];
		memset(c, 0, sizeof(*c));
		c->total = run->env->opts->bytes != 0 ? run->env->opts->bytes :
			UINT64_MAX;
		r = bench_tcp_cli_connect(s, c);
		if (r == 0)
			r = dt_dp_conn_stats_get(s->st, c->id, &cs);
		if (r != 0) {
			fprintf(stderr, "devtcp-bench: connect: %s\n",
				rte_strerror(-r));
			s->errors++;
			/* Never opened: counts as closed so the run can end. */
			s->to_open--;
			__atomic_fetch_add(&run->cli_closed, 1, __ATOMIC_RELEASE);
			continue;
		}
		c->start = bt_start(cs.tuple.lport);
		s->nb++;
	}
}

void
bench_tcp_cli_event(struct bt_side *s, const struct dt_dp_event *ev)
{
	struct bt_conn *c = ev->udata;

	if (c == NULL) {
		if (ev->type == DT_DP_EV_DATA)
			dt_dp_release(s->st, ev->chunk.token);
		return;
	}
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		c->connected = true;
		s->nb_connected++;
		bench_tcp_cli_fill(s, c);
		break;
	case DT_DP_EV_SENT:
		c->acked += ev->sent.bytes;
		bench_tcp_cli_fill(s, c);
		break;
	case DT_DP_EV_DATA:
		dt_dp_release(s->st, ev->chunk.token);
		break;
	case DT_DP_EV_PEER_CLOSED:
		bench_tcp_cli_sample(s, c);
		dt_dp_close(s->st, ev->conn);
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		if (s->errors++ == 0)
			fprintf(stderr, "devtcp-bench: connection %s: %s\n",
				ev->type == DT_DP_EV_RESET ? "reset" : "error",
				ev->type == DT_DP_EV_ERROR ? strerror(ev->err) :
					"by the peer");
		c->failed = true;
		break;
	case DT_DP_EV_CLOSED:
		if (!c->closed) {
			c->closed = true;
			__atomic_fetch_add(&s->run->cli_closed, 1,
				__ATOMIC_RELEASE);
		}
		break;
	default:
		break;
	}
}

