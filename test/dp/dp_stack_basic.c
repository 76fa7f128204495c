/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dp_stack's "basic" cases: ARP and handshake, ICMP echo, RST from a
 * closed port, half-close, abort and the statistics that follow.
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

/* ---- cases ---- */
static bool tx0_connected(void) { return dps_app.tx[0].connected && dps_app.rx_next == 1; }
static bool tx0_closed(void) { return dps_app.tx[0].closed && dps_app.rx[0].closed; }
static bool tx0_refused(void) { return dps_app.tx[0].closed; }

void
test_handshake_arp(void)
{
	struct dt_dp_stats cs, ss;
	struct dt_dp_conn_stats x;

	dps_app_reset();
	dps_app.nb_tx = 1;
	DT_REQUIRE(dps_cli_open(&dps_app.tx[0], SRV_PORT, 0, 0) == 0);
	DT_REQUIRE(dps_run_until(tx0_connected, 3000));
	dt_dp_stats_get(dps_env.cli, &cs);
	dt_dp_stats_get(dps_env.srv, &ss);
	DT_CHECK(cs.arp_requests >= 1);
	DT_CHECK(cs.rx_arp >= 1);
	DT_CHECK(ss.rx_arp >= 1);
	DT_CHECK(ss.tx_arp >= 1);
	DT_CHECK_EQ(cs.conns_connected, 1);
	DT_CHECK_EQ(ss.conns_accepted, 1);
	DT_REQUIRE(dt_dp_conn_stats_get(dps_env.cli, dps_app.tx[0].conn, &x) == 0);
	DT_CHECK_EQ(x.state, DT_TCP_ESTABLISHED);
	DT_CHECK_EQ(x.tuple.raddr, rte_cpu_to_be_32(SRV_IP));
	DT_CHECK_EQ(x.tuple.rport, SRV_PORT);
	DT_REQUIRE(dt_dp_conn_stats_get(dps_env.srv, dps_app.rx[0].conn, &x) == 0);
	DT_CHECK_EQ(x.state, DT_TCP_ESTABLISHED);
	/* Close from the client: both sides reach CLOSED. */
	DT_CHECK_EQ(dt_dp_shutdown(dps_env.cli, dps_app.tx[0].conn), 0);
	DT_CHECK(dps_run_until(tx0_closed, 3000));
}

/* Server to client: HOST chunks on the client; half-close keeps data flowing. */
static struct { uint64_t got; uint32_t crc; bool peer_closed, closed; } hc;

static bool hc_peer_closed(void) { return dps_app.rx[0].peer_closed; }
static bool hc_got_all(void) { return hc.got == 30000 && hc.peer_closed; }

static void
hc_cli_drain(void)
{
	struct dt_dp_event ev;

	while (dt_dp_events(dps_env.cli, &ev, 1) == 1) {
		if (ev.type == DT_DP_EV_DATA) {
			DT_CHECK_EQ(ev.chunk.kind, DT_DP_CHUNK_HOST);
			hc.crc = rte_hash_crc(ev.chunk.addr, ev.chunk.len, hc.crc);
			hc.got += ev.chunk.len;
			dt_dp_release(dps_env.cli, ev.chunk.token);
		} else if (ev.type == DT_DP_EV_PEER_CLOSED) {
			hc.peer_closed = true;
		} else if (ev.type == DT_DP_EV_CLOSED) {
			hc.closed = true;
		} else {
			dps_cli_event(&ev);
		}
	}
}

static bool
hc_run_until(bool (*cond)(void), unsigned int ms)
{
	uint64_t end = dps_now_us() + (uint64_t)ms * 1000;

	while (dps_now_us() < end && !cond()) {
		dt_dp_poll(dps_env.cli);
		hc_cli_drain();
		dt_dp_poll(dps_env.srv);
		dps_srv_drain();
	}
	return cond();
}

static bool hc_closed(void) { return hc.closed && dps_app.rx[0].closed; }

void
test_half_close(void)
{
	struct dt_dp_buf b = { .addr = NULL, .iova = RTE_BAD_IOVA, .device = false };
	uint32_t crc = 0;

	dps_app_reset();
	memset(&hc, 0, sizeof(hc));
	dps_app.nb_tx = 1;
	DT_REQUIRE(dps_cli_open(&dps_app.tx[0], SRV_PORT, 0, 0) == 0);
	DT_REQUIRE(dps_run_until(tx0_connected, 3000));
	DT_CHECK_EQ(dt_dp_shutdown(dps_env.cli, dps_app.tx[0].conn), 0);
	/* Swap in a server handler that does not close on PEER_CLOSED. */
	while (!dps_app.rx[0].peer_closed) {
		struct dt_dp_event ev;

		dt_dp_poll(dps_env.cli);
		hc_cli_drain();
		dt_dp_poll(dps_env.srv);
		while (dt_dp_events(dps_env.srv, &ev, 1) == 1) {
			if (ev.type == DT_DP_EV_PEER_CLOSED)
				dps_app.rx[0].peer_closed = true;
			else
				dps_srv_event(&ev);
		}
	}
	DT_CHECK(hc_peer_closed());
	/* Half-closed: the server still sends 30000 bytes. */
	b.addr = dps_env.fx.pattern + 100;
	b.iova = dps_env.fx.pattern_iova + 100;
	b.len = 20000;
	DT_CHECK_EQ(dt_dp_send(dps_env.srv, dps_app.rx[0].conn, &b), 0);
	crc = rte_hash_crc(dps_env.fx.pattern + 100, 20000, crc);
	b.addr = dps_env.fx.pattern + 20100;
	b.iova = dps_env.fx.pattern_iova + 20100;
	b.len = 10000;
	DT_CHECK_EQ(dt_dp_send(dps_env.srv, dps_app.rx[0].conn, &b), 0);
	crc = rte_hash_crc(dps_env.fx.pattern + 20100, 10000, crc);
	DT_CHECK_EQ(dt_dp_close(dps_env.srv, dps_app.rx[0].conn), 0);
	DT_CHECK(hc_run_until(hc_got_all, 3000));
	DT_CHECK_EQ(hc.got, 30000);
	DT_CHECK_EQ(hc.crc, crc);
	DT_CHECK(hc_run_until(hc_closed, 3000));
}

static bool abort_done(void) { return dps_app.tx[0].closed && dps_app.rx[0].closed; }

void
test_abort(void)
{
	dps_app_reset();
	dps_app.nb_tx = 1;
	DT_REQUIRE(dps_cli_open(&dps_app.tx[0], SRV_PORT, 0, 0) == 0);
	DT_REQUIRE(dps_run_until(tx0_connected, 3000));
	DT_CHECK_EQ(dt_dp_abort(dps_env.cli, dps_app.tx[0].conn), 0);
	DT_CHECK(dps_run_until(abort_done, 3000));
	DT_CHECK(dps_app.rx[0].reset);
	DT_CHECK(!dps_app.tx[0].reset);
	/* The id is stale now. */
	DT_CHECK_EQ(dt_dp_abort(dps_env.cli, dps_app.tx[0].conn), -DT_DP_E_BADCONN);
}

void
test_rst_closed_port(void)
{
	struct dt_dp_stats before, after;

	dps_app_reset();
	dps_app.nb_tx = 1;
	dt_dp_stats_get(dps_env.srv, &before);
	DT_REQUIRE(dps_cli_open(&dps_app.tx[0], SRV_PORT + 1, 0, 0) == 0);
	DT_CHECK(dps_run_until(tx0_refused, 3000));
	DT_CHECK(dps_app.tx[0].refused);
	DT_CHECK(!dps_app.tx[0].connected);
	dt_dp_stats_get(dps_env.srv, &after);
	DT_CHECK_EQ(after.tx_rst - before.tx_rst, 1);
	DT_CHECK_EQ(after.drop_no_conn - before.drop_no_conn, 1);
}

void
test_icmp_echo(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dps_env.fx.c_pool), *rx[8];
	struct rte_ether_addr cmac, smac;
	struct dt_dp_stats before, after;
	uint8_t *p, *ip, *ic;
	uint64_t end;
	uint16_t n = 0, i, ck;
	uint32_t a;

	DT_REQUIRE(m != NULL);
	rte_eth_macaddr_get(dps_env.fx.cport, &cmac);
	rte_eth_macaddr_get(dps_env.fx.sport, &smac);
	p = (uint8_t *)rte_pktmbuf_append(m, 14 + 20 + 8 + 56);
	memcpy(p, smac.addr_bytes, 6);
	memcpy(p + 6, cmac.addr_bytes, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	ip = p + 14;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = 0;
	ip[3] = 20 + 8 + 56;
	ip[8] = 64;
	ip[9] = 1;
	a = rte_cpu_to_be_32(CLI_IP);
	memcpy(ip + 12, &a, 4);
	a = rte_cpu_to_be_32(SRV_IP);
	memcpy(ip + 16, &a, 4);
	ck = dt_net_ipv4_hdr_cksum(ip, 20);
	ip[10] = (uint8_t)(ck >> 8);
	ip[11] = (uint8_t)ck;
	ic = ip + 20;
	memset(ic, 0, 64);
	ic[0] = 8;
	ic[4] = 0x12;
	ic[5] = 0x34;
	ic[7] = 7;
	for (i = 8; i < 64; i++)
		ic[i] = (uint8_t)i;
	ck = dt_net_cksum(ic, 64);
	ic[2] = (uint8_t)(ck >> 8);
	ic[3] = (uint8_t)ck;
	dt_dp_stats_get(dps_env.srv, &before);
	DT_REQUIRE(rte_eth_tx_burst(dps_env.fx.cport, 0, &m, 1) == 1);
	/* Poll the server only; read the reply off the client's queue. */
	end = dps_now_us() + 2000000;
	while (n == 0 && dps_now_us() < end) {
		dt_dp_poll(dps_env.srv);
		dps_srv_drain();
		n = rte_eth_rx_burst(dps_env.fx.cport, 0, rx, 8);
	}
	DT_REQUIRE(n >= 1);
	p = rte_pktmbuf_mtod(rx[0], uint8_t *);
	DT_CHECK(memcmp(p, cmac.addr_bytes, 6) == 0);
	DT_CHECK(memcmp(p + 6, smac.addr_bytes, 6) == 0);
	ip = p + 14;
	ic = ip + 20;
	memcpy(&a, ip + 12, 4);
	DT_CHECK_EQ(rte_be_to_cpu_32(a), SRV_IP);
	memcpy(&a, ip + 16, 4);
	DT_CHECK_EQ(rte_be_to_cpu_32(a), CLI_IP);
	DT_CHECK(dt_net_ipv4_hdr_cksum_ok(ip, 20));
	DT_CHECK_EQ(ic[0], 0);
	DT_CHECK_EQ(ic[5], 0x34);
	DT_CHECK_EQ(ic[7], 7);
	DT_CHECK_EQ(dt_net_cksum(ic, 64), 0);
	DT_CHECK_EQ(rx[0]->pkt_len, 14 + 20 + 64);
	for (i = 0; i < n; i++)
		rte_pktmbuf_free(rx[i]);
	dt_dp_stats_get(dps_env.srv, &after);
	DT_CHECK_EQ(after.rx_icmp - before.rx_icmp, 1);
	DT_CHECK_EQ(after.tx_icmp - before.tx_icmp, 1);
}

void
test_stats_sanity(void)
{
	struct dt_dp_stats cs, ss;

	dt_dp_stats_get(dps_env.cli, &cs);
	dt_dp_stats_get(dps_env.srv, &ss);
	dps_check_no_drops(&cs);
	/* The server answered one SYN to a closed port: its only drop. */
	ss.drop_no_conn = 0;
	dps_check_no_drops(&ss);
	DT_CHECK_EQ(cs.events_overflow, 0);
	DT_CHECK_EQ(ss.events_overflow, 0);
	DT_CHECK_EQ(cs.conns_open, 0);
	DT_CHECK_EQ(ss.conns_open, 0);
	DT_CHECK(ss.device_chunks > 0 || ss.host_chunks == 0);
	dps_print_stats("client", &cs);
	dps_print_stats("server", &ss);
}
