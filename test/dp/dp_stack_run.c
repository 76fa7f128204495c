/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driving test_dp_stack's two stacks (dp_stack.h): polling on one or two
 * lcores, whole transfers, and the checks every case shares (drop
 * counters, split mode, receive coalescing).
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

/* ---- drivers ---- */
void
dps_poll_both(void)
{
	dt_dp_poll(dps_env.cli);
	dps_cli_drain();
	dt_dp_poll(dps_env.srv);
	dps_srv_drain();
}

/* Poll both stacks on this lcore until @p cond or @p ms pass. */
bool
dps_run_until(bool (*cond)(void), unsigned int ms)
{
	uint64_t end = dps_now_us() + (uint64_t)ms * 1000;

	while (dps_now_us() < end) {
		dps_poll_both();
		if (cond())
			return true;
	}
	return cond();
}

static int
cli_lcore(void *arg)
{
	RTE_SET_USED(arg);
	while (!dps_app.cli_done && dps_now_us() < dps_app.deadline) {
		dt_dp_poll(dps_env.cli);
		dps_cli_drain();
		if (dps_cli_all_closed())
			dps_app.cli_done = true;
	}
	return 0;
}

void
dps_app_reset(void)
{
	memset(&dps_app, 0, sizeof(dps_app));
}

void
dps_print_stats(const char *who, const struct dt_dp_stats *s)
{
	printf("  %s: rx %" PRIu64 " tx %" PRIu64 " tcp %" PRIu64
		" chunks dev %" PRIu64 " host %" PRIu64 " spill %" PRIu64
		" arp_req %" PRIu64 " drops: cksum %" PRIu64 "/%" PRIu64
		" no_conn %" PRIu64 " tx_nombuf %" PRIu64 " tx_full %" PRIu64
		" neigh %" PRIu64 " hdr_dev %" PRIu64 " overflow %" PRIu64
		" throttled %" PRIu64 " cyc/frame %.0f\n",
		who, s->rx_frames, s->tx_frames, s->rx_tcp, s->device_chunks,
		s->host_chunks, s->rx_hdr_spill, s->arp_requests, s->drop_l4_cksum,
		s->drop_l4_cksum_unknown, s->drop_no_conn, s->drop_tx_no_mbuf,
		s->drop_tx_ring_full, s->drop_no_neighbour, s->drop_hdr_in_device,
		s->events_overflow, s->rx_throttled,
		s->rx_frames ? (double)s->rx_cycles / s->rx_frames : 0.0);
}

bool
dps_big(void)
{
	const char *e = getenv("DT_DP_TEST_BIG");

	return e != NULL && e[0] == '1';
}

/* Every drop counter of a fault-free run is zero. */
void
dps_check_no_drops(const struct dt_dp_stats *s)
{
	DT_CHECK_EQ(s->drop_not_ipv4, 0);
	DT_CHECK_EQ(s->drop_bad_ip, 0);
	DT_CHECK_EQ(s->drop_ip_fragment, 0);
	DT_CHECK_EQ(s->drop_not_for_us, 0);
	DT_CHECK_EQ(s->drop_bad_tcp, 0);
	DT_CHECK_EQ(s->drop_l4_cksum, 0);
	DT_CHECK_EQ(s->drop_l4_cksum_unknown, 0);
	DT_CHECK_EQ(s->drop_conn_table_full, 0);
	DT_CHECK_EQ(s->drop_hdr_in_device, 0);
	DT_CHECK_EQ(s->drop_unsupported_proto, 0);
	DT_CHECK_EQ(s->drop_tx_no_mbuf, 0);
	/* The stack holds admitted output back instead of dropping it. */
	DT_CHECK_EQ(s->drop_tx_ring_full, 0);
	DT_CHECK_EQ(s->drop_no_neighbour, 0);
	DT_CHECK_EQ(s->drop_too_many_segs, 0);
	DT_CHECK_EQ(s->drop_bad_arp, 0);
	DT_CHECK_EQ(s->drop_synq_full, 0);
}

/*
 * Header-length mismatch of a length split (the NIC profile and the TCP
 * options decide it): spilled headers read through the CPU map, or
 * payload left in the header buffer as HOST chunks, with the payload still
 * in device memory.
 */
void
dps_check_split_mismatch(const struct dt_dp_stats *s)
{
	printf("  split: rx_hdr_spill %" PRIu64 " host_chunks %" PRIu64
		" device_chunks %" PRIu64 "\n", s->rx_hdr_spill, s->host_chunks,
		s->device_chunks);
	if (dps_opt.expect_spill) {
		DT_CHECK(s->rx_hdr_spill > 0);
		DT_CHECK(s->device_chunks > 0);
	}
	if (dps_opt.expect_host) {
		DT_CHECK(s->host_chunks > 0);
		DT_CHECK(s->device_chunks > 0);
		DT_CHECK_EQ(s->rx_hdr_spill, 0);
	}
}

/* A transfer ran out of time: say where each connection stands. */
static void
dump_stuck(unsigned int n)
{
	struct dt_dp_conn_stats x;
	unsigned int i;

	for (i = 0; i < n && i < 8; i++) {
		struct dps_tx_conn *t = &dps_app.tx[i];

		if (dt_dp_conn_stats_get(dps_env.cli, t->conn, &x) != 0) {
			printf("  conn %u: gone (acked %" PRIu64 ")\n", i, t->acked);
			continue;
		}
		printf("  conn %u: state %s queued %" PRIu64 " acked %" PRIu64
			" snd_wnd %u cwnd %u srtt %u rtx %" PRIu64 "\n", i,
			dt_tcp_state_str(x.state), t->queued, t->acked, x.snd_wnd,
			x.cwnd, x.srtt_us, x.retransmits);
	}
	for (i = 0; i < dps_app.rx_next && i < 8; i++) {
		if (dt_dp_conn_stats_get(dps_env.srv, dps_app.rx[i].conn, &x) != 0)
			continue;
		printf("  srv %u: state %s bytes %" PRIu64 " held %u rcv_wnd %u\n",
			i, dt_tcp_state_str(x.state), dps_app.rx[i].bytes,
			x.held_bytes, x.rcv_wnd);
	}
}

/*
 * Receive coalescing (dt_dp_stack_conf.no_rx_gro off): bulk data in bursts
 * went into the engine as merged runs, two frames each at least, and the
 * transfer that just passed its byte checks ran through them.
 */
static void
check_gro(const struct dt_dp_stats *s)
{
	printf("  gro: %" PRIu64 " runs, %" PRIu64 " frames (%.2f per run), rx %"
		PRIu64 " frames\n", s->rx_gro_runs, s->rx_gro_frames,
		s->rx_gro_runs > 0 ? (double)s->rx_gro_frames / s->rx_gro_runs : 0.,
		s->rx_frames);
	if (dps_opt.no_gro) {
		DT_CHECK_EQ(s->rx_gro_runs, 0);
		DT_CHECK_EQ(s->rx_gro_frames, 0);
	}
	if (dps_opt.expect_gro) {
		DT_CHECK(s->rx_gro_runs > 0);
		DT_CHECK(s->rx_gro_frames >= 2 * s->rx_gro_runs);
		DT_CHECK(s->rx_gro_frames <= s->rx_frames);
	}
}

/*
 * Transfer @p total bytes on each of @p n connections, client to server,
 * on one lcore or two; check byte-exactness and print the rate.
 */
void
dps_transfer(const char *name, unsigned int n, uint64_t total, bool two_lcores,
	unsigned int limit_s)
{
	struct dt_dp_stats cs, ss;
	uint64_t t0, t1, bytes = 0;
	unsigned int i, lcore;

	dps_app.nb_tx = n;
	dps_app.deadline = dps_now_us() + (uint64_t)limit_s * 1000000;
	dps_app.rx_next = 0;
	for (i = 0; i < n; i++)
		DT_REQUIRE(dps_cli_open(&dps_app.tx[i], SRV_PORT, total, i) == 0);
	t0 = dps_now_us();
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (two_lcores) {
		DT_REQUIRE(lcore < RTE_MAX_LCORE);
		DT_REQUIRE(rte_eal_remote_launch(cli_lcore, NULL, lcore) == 0);
		while (dps_now_us() < dps_app.deadline && !dps_app.srv_done) {
			dt_dp_poll(dps_env.srv);
			dps_srv_drain();
			if (dps_srv_all_closed(n))
				dps_app.srv_done = true;
		}
		rte_eal_wait_lcore(lcore);
	} else {
		while (dps_now_us() < dps_app.deadline &&
				!(dps_srv_all_closed(n) && dps_cli_all_closed()))
			dps_poll_both();
	}
	t1 = dps_now_us();
	if (dps_now_us() >= dps_app.deadline)
		dump_stuck(n);
	/* Let the last ACKs and closings settle. */
	dps_run_until(dps_cli_all_closed, 500);
	dps_srv_release_all();
	for (i = 0; i < n; i++) {
		struct dps_tx_conn *t = &dps_app.tx[i];
		struct dps_rx_conn *r = NULL;
		struct dt_dp_conn_stats x;
		unsigned int k;

		for (k = 0; k < dps_app.rx_next; k++)
			if (dps_app.rx[k].bytes > 0 && dps_app.rx[k].crc == t->crc &&
					dps_app.rx[k].bytes == t->total)
				r = &dps_app.rx[k];
		DT_CHECK(t->connected);
		DT_CHECK_EQ(t->acked, total);
		DT_CHECK(t->closed);
		DT_CHECK(r != NULL);
		if (r != NULL) {
			DT_CHECK(r->closed);
			DT_CHECK(r->peer_closed);
		}
		DT_CHECK(dt_dp_conn_stats_get(dps_env.cli, t->conn, &x) != 0);
		bytes += t->acked;
	}
	DT_CHECK_EQ(dps_app.rx_next, n);
	for (i = 0; i < dps_app.rx_next; i++)
		DT_CHECK_EQ(dps_app.rx[i].bytes, total);
	dt_dp_stats_get(dps_env.cli, &cs);
	dt_dp_stats_get(dps_env.srv, &ss);
	DT_CHECK_EQ(cs.events_overflow, 0);
	DT_CHECK_EQ(ss.events_overflow, 0);
	printf("  %s: %u x %" PRIu64 " bytes, %s lcore(s), MTU %u: %.3f s, %.2f Gb/s\n",
		name, n, total, two_lcores ? "two" : "one", dps_opt.mtu,
		(t1 - t0) / 1e6, bytes * 8.0 / ((t1 - t0) * 1e3));
	dps_print_stats("client", &cs);
	dps_print_stats("server", &ss);
	check_gro(&ss);
	dp_test_check_tso(dps_env.fx.cport, &cs, dps_opt.expect_tso);
	dp_test_check_copy(dps_env.fx.sport, &ss, dps_opt.expect_copy);
	if (dps_opt.tx_device)
		dp_txdev_check(dps_env.fx.cport, &cs, bytes);
	dp_test_check_held(&cs, dps_opt.expect_held);
}
