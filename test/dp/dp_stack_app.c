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
dps_now_us(void)
{
	return rte_rdtsc() * 1000000 / rte_get_tsc_hz();
}

/* ---- server side ---- */
void
dps_srv_release_all(void)
{
	uint32_t i;

	for (i = 0; i < dps_app.nb_held; i++)
		dt_dp_release(dps_env.srv, dps_app.held_tok[i]);
	dps_app.nb_held = 0;
}

static void
srv_data(struct dps_rx_conn *r, const struct dt_dp_chunk *ch)
{
	const uint8_t *p;

	if (ch->kind == DT_DP_CHUNK_DEVICE) {
		/* Verification only: through the CPU alias, never ch->addr. */
		p = dps_env.fx.alias + ch->offset;
		r->dev_bytes += ch->len;
	} else {
		p = ch->addr;
		r->host_bytes += ch->len;
	}
	if (dps_opt.verify)
		r->crc = rte_hash_crc(p, ch->len, r->crc);
	r->bytes += ch->len;
	if (dps_app.hold && dps_app.nb_held < HOLD_MAX) {
		if (dps_app.nb_held == 0)
			dps_app.hold_since = dps_now_us();
		dps_app.held_tok[dps_app.nb_held++] = ch->token;
		if (dps_app.nb_held > dps_app.max_held_chunks)
			dps_app.max_held_chunks = dps_app.nb_held;
		if (dps_app.nb_held >= dps_app.hold_max)
			dps_srv_release_all();
		return;
	}
	dt_dp_release(dps_env.srv, ch->token);
}

void
dps_srv_event(const struct dt_dp_event *ev)
{
	struct dps_rx_conn *r = ev->udata;

	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		if (dps_app.rx_next >= MAX_CONNS) {
			dt_dp_abort(dps_env.srv, ev->conn);
			return;
		}
		r = &dps_app.rx[dps_app.rx_next++];
		r->used = true;
		r->accepted = true;
		r->conn = ev->conn;
		DT_CHECK_EQ(ev->listen_port, SRV_PORT);
		dt_dp_set_udata(dps_env.srv, ev->conn, r);
		break;
	case DT_DP_EV_DATA:
		DT_REQUIRE(r != NULL);
		srv_data(r, &ev->chunk);
		break;
	case DT_DP_EV_PEER_CLOSED:
		r->peer_closed = true;
		DT_CHECK_EQ(dt_dp_close(dps_env.srv, ev->conn), 0);
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
dps_srv_drain(void)
{
	struct dt_dp_event ev[EV_BATCH];
	uint16_t n, i;

	do {
		n = dt_dp_events(dps_env.srv, ev, EV_BATCH);
		for (i = 0; i < n; i++)
			dps_srv_event(&ev[i]);
	} while (n > 0);
	if (dps_app.hold && dps_app.nb_held > 0 &&
			dps_now_us() - dps_app.hold_since >= dps_app.hold_us)
		dps_srv_release_all();
}

bool
dps_srv_all_closed(unsigned int n)
{
	unsigned int i;

	if (dps_app.rx_next < n)
		return false;
	for (i = 0; i < dps_app.rx_next; i++)
		if (!dps_app.rx[i].closed)
			return false;
	return true;
}

/* ---- client side ---- */
static void
cli_fill(struct dps_tx_conn *t)
{
	struct dt_dp_buf b;
	uint32_t pos, len;

	while (t->connected && t->queued < t->total) {
		pos = (uint32_t)((t->start + t->queued) % PAT_LEN);
		len = (uint32_t)RTE_MIN((uint64_t)SLICE, t->total - t->queued);
		len = RTE_MIN(len, PAT_LEN - pos);
		b.addr = dps_env.fx.pattern + pos;
		b.iova = dps_env.fx.pattern_iova + pos;
		b.len = len;
		b.device = false;
		if (dps_opt.tx_device)
			dp_txdev_buf(&dps_env.txdev, pos, &len, &b);
		if (dt_dp_send(dps_env.cli, t->conn, &b) != 0)
			break;
		if (dps_opt.verify)
			t->crc = rte_hash_crc(dps_env.fx.pattern + pos, len, t->crc);
		t->queued += len;
	}
	if (t->connected && !t->shut && t->acked == t->total) {
		t->shut = true;
		DT_CHECK_EQ(dt_dp_shutdown(dps_env.cli, t->conn), 0);
	}
}

void
dps_cli_event(const struct dt_dp_event *ev)
{
	struct dps_tx_conn *t = ev->udata;

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
		dt_dp_release(dps_env.cli, ev->chunk.token);
		break;
	case DT_DP_EV_PEER_CLOSED:
		t->peer_closed = true;
		DT_CHECK_EQ(dt_dp_close(dps_env.cli, ev->conn), 0);
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
dps_cli_drain(void)
{
	struct dt_dp_event ev[EV_BATCH];
	uint16_t n, i;

	do {
		n = dt_dp_events(dps_env.cli, ev, EV_BATCH);
		for (i = 0; i < n; i++)
			dps_cli_event(&ev[i]);
	} while (n > 0);
}

bool
dps_cli_all_closed(void)
{
	unsigned int i;

	for (i = 0; i < dps_app.nb_tx; i++)
		if (!dps_app.tx[i].closed)
			return false;
	return true;
}

int
dps_cli_open(struct dps_tx_conn *t, uint16_t port, uint64_t total, unsigned int k)
{
	memset(t, 0, sizeof(*t));
	t->total = total;
	/* Nothing to send: the test closes by hand. */
	t->shut = total == 0;
	t->start = (uint32_t)((k * 7919u) % PAT_LEN);
	return dt_dp_connect(dps_env.cli, rte_cpu_to_be_32(SRV_IP), port, t,
		&t->conn);
}
