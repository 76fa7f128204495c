/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The applications of test_dp_stack (dp_stack.h): a server that accepts,
 * checksums every chunk in stream order and may hold chunks for a while,
 * and a client that sends slices of the pattern and counts what was
 * acknowledged.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "dt_devmem.h"
#include "dt_dp.h"
#include "dt_dp_port.h"
#include "dt_net_cksum.h"
#include "dt_test.h"
#include "dp_fixture.h"
#include "dp_stack.h"
#include "dp_test_copy.h"
#include "dp_test_txdev.h"
#include "dp_test_tso.h"

uint64_t
now_us(void)
{
	return rte_rdtsc() * 1000000 / rte_get_tsc_hz();
}

/* ---- server side ---- */
void
srv_release_all(void)
{
	uint32_t i;

	for (i = 0; i < app.nb_held; i++)
		dt_dp_release(env.srv, app.held_tok[i]);
	app.nb_held = 0;
}

static void
srv_data(struct rx_conn *r, const struct dt_dp_chunk *ch)
{
	const uint8_t *p;

	if (ch->kind == DT_DP_CHUNK_DEVICE) {
		/* Verification only: through the CPU alias, never ch->addr. */
		p = env.fx.alias + ch->offset;
		r->dev_bytes += ch->len;
	} else {
		p = ch->addr;
		r->host_bytes += ch->len;
	}
	if (opt.verify)
		r->crc = rte_hash_crc(p, ch->len, r->crc);
	r->bytes += ch->len;
	if (app.hold && app.nb_held < HOLD_MAX) {
		if (app.nb_held == 0)
			app.hold_since = now_us();
		app.held_tok[app.nb_held++] = ch->token;
		if (app.nb_held > app.max_held_chunks)
			app.max_held_chunks = app.nb_held;
		if (app.nb_held >= app.hold_max)
			srv_release_all();
		return;
	}
	dt_dp_release(env.srv, ch->token);
}

void
srv_event(const struct dt_dp_event *ev)
{
	struct rx_conn *r = ev->udata;

	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		if (app.rx_next >= MAX_CONNS) {
			dt_dp_abort(env.srv, ev->conn);
			return;
		}
		r = &app.rx[app.rx_next++];
		r->used = true;
		r->accepted = true;
		r->conn = ev->conn;
		DT_CHECK_EQ(ev->listen_port, SRV_PORT);
		dt_dp_set_udata(env.srv, ev->conn, r);
		break;
	case DT_DP_EV_DATA:
		DT_REQUIRE(r != NULL);
		srv_data(r, &ev->chunk);
		break;
	case DT_DP_EV_PEER_CLOSED:
		r->peer_closed = true;
		DT_CHECK_EQ(dt_dp_close(env.srv, ev->conn), 0);
		break;
	case DT_DP_EV_RESET:
		if (r != NULL)
			r->reset = true;
		break;
	case DT_DP_EV_CLOSED:
		if (r != NULL)
			r->closed = true;
		break;
	default:
		break;
	}
}

void
srv_drain(void)
{
	struct dt_dp_event ev[EV_BATCH];
	uint16_t n, i;

	do {
		n = dt_dp_events(env.srv, ev, EV_BATCH);
		for (i = 0; i < n; i++)
			srv_event(&ev[i]);
	} while (n > 0);
	if (app.hold && app.nb_held > 0 &&
			now_us() - app.hold_since >= app.hold_us)
		srv_release_all();
}

bool
srv_all_closed(unsigned int n)
{
	unsigned int i;

	if (app.rx_next < n)
		return false;
	for (i = 0; i < app.rx_next; i++)
		if (!app.rx[i].closed)
			return false;
	return true;
}

/* ---- client side ---- */
static void
cli_fill(struct tx_conn *t)
{
	struct dt_dp_buf b;
	uint32_t pos, len;

	while (t->connected && t->queued < t->total) {
		pos = (uint32_t)((t->start + t->queued) % PAT_LEN);
		len = (uint32_t)RTE_MIN((uint64_t)SLICE, t->total - t->queued);
		len = RTE_MIN(len, PAT_LEN - pos);
		b.addr = env.fx.pattern + pos;
		b.iova = env.fx.pattern_iova + pos;
		b.len = len;
		b.device = false;
		if (opt.tx_device)
			dp_txdev_buf(&env.txdev, pos, &len, &b);
		if (dt_dp_send(env.cli, t->conn, &b) != 0)
			break;
		if (opt.verify)
			t->crc = rte_hash_crc(env.fx.pattern + pos, len, t->crc);
		t->queued += len;
	}
	if (t->connected && !t->shut && t->acked == t->total) {
		t->shut = true;
		DT_CHECK_EQ(dt_dp_shutdown(env.cli, t->conn), 0);
	}
}

void
cli_event(const struct dt_dp_event *ev)
{
	struct tx_conn *t = ev->udata;

	if (t == NULL)
		return;
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		t->connected = true;
		cli_fill(t);
		break;
	case DT_DP_EV_SENT:
		t->acked += ev->sent.bytes;
		cli_fill(t);
		break;
	case DT_DP_EV_DATA:
		dt_dp_release(env.cli, ev->chunk.token);
		break;
	case DT_DP_EV_PEER_CLOSED:
		t->peer_closed = true;
		DT_CHECK_EQ(dt_dp_close(env.cli, ev->conn), 0);
		break;
	case DT_DP_EV_ERROR:
		t->err = ev->err;
		t->refused = ev->err == ECONNREFUSED;
		break;
	case DT_DP_EV_RESET:
		t->reset = true;
		break;
	case DT_DP_EV_CLOSED:
		t->closed = true;
		break;
	default:
		break;
	}
}

void
cli_drain(void)
{
	struct dt_dp_event ev[EV_BATCH];
	uint16_t n, i;

	do {
		n = dt_dp_events(env.cli, ev, EV_BATCH);
		for (i = 0; i < n; i++)
			cli_event(&ev[i]);
	} while (n > 0);
}

bool
cli_all_closed(void)
{
	unsigned int i;

	for (i = 0; i < app.nb_tx; i++)
		if (!app.tx[i].closed)
			return false;
	return true;
}

int
cli_open(struct tx_conn *t, uint16_t port, uint64_t total, unsigned int k)
{
	memset(t, 0, sizeof(*t));
	t->total = total;
	/* Nothing to send: the test closes by hand. */
	t->shut = total == 0;
	t->start = (uint32_t)((k * 7919u) % PAT_LEN);
	return dt_dp_connect(env.cli, rte_cpu_to_be_32(SRV_IP), port, t,
		&t->conn);
}
