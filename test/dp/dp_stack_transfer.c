/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dp_stack's transfer cases: bulk transfers (one and two lcores),
 * the short transfer of the capability profiles, a real RTT, a faulty
 * wire, few device buffers and a closed window.
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

void
test_transfer(void)
{
	uint64_t one = dps_big() ? (1ull << 30) : (64ull << 20);
	unsigned int nmany = dps_big() ? 100 : 16;
	uint64_t each = dps_big() ? (10ull << 20) : (4ull << 20);
	struct dt_dp_stats cs, ss;

	dps_app_reset();
	dps_transfer("single", 1, one, false, dps_big() ? 100 : 50);
	dps_app_reset();
	dps_transfer("many", nmany, each, true, dps_big() ? 100 : 50);
	dt_dp_stats_get(dps_env.cli, &cs);
	dt_dp_stats_get(dps_env.srv, &ss);
	dps_check_no_drops(&cs);
	dps_check_no_drops(&ss);
	dps_check_split_mismatch(&ss);
}

/*
 * A short transfer on one lcore (16 MiB, then 4 x 2 MiB at once): the
 * capability-profile cases run it on each NIC profile and option mix.
 */
void
test_transfer_short(void)
{
	struct dt_dp_stats cs, ss;

	dps_app_reset();
	dps_transfer("single", 1, 16ull << 20, false, 50);
	dps_app_reset();
	dps_transfer("many", 4, 2ull << 20, false, 50);
	dt_dp_stats_get(dps_env.cli, &cs);
	dt_dp_stats_get(dps_env.srv, &ss);
	dps_check_no_drops(&cs);
	dps_check_no_drops(&ss);
	dps_check_split_mismatch(&ss);
}

/*
 * At a real RTT (net_hsplit's delay line, delay_us= on both ports, set by
 * meson: RTT_MIN_US at least) with 1 % of the data frames reordered by one
 * frame: lower bounds only. The handshake and the smoothed RTT take at
 * least the RTT; CUBIC's window grows well past its initial window; and
 * RACK's reordering window (min_rtt / 4 here: far above the one-frame
 * reordering) lets every reordered segment arrive: no retransmission.
 */
#define RTT_MIN_US 16000

void
test_delay_rtt(void)
{
	uint64_t t0, t_conn = 0, end;
	uint32_t cwnd0 = 0, cwnd_max = 0, srtt_max = 0;
	uint64_t rtx = 0, id, reordered = 0;
	struct dt_dp_conn_stats x;
	struct dps_tx_conn *t = &dps_app.tx[0];

	dps_app_reset();
	dps_app.nb_tx = 1;
	t0 = dps_now_us();
	DT_REQUIRE(dps_cli_open(t, SRV_PORT, 8ull << 20, 0) == 0);
	end = t0 + 30000000;
	while (dps_now_us() < end && !(dps_srv_all_closed(1) && dps_cli_all_closed())) {
		dps_poll_both();
		if (t->connected && t_conn == 0)
			t_conn = dps_now_us();
		if (!t->closed && dt_dp_conn_stats_get(dps_env.cli, t->conn, &x) == 0 &&
				x.state == DT_TCP_ESTABLISHED) {
			if (cwnd0 == 0)
				cwnd0 = x.cwnd;
			cwnd_max = RTE_MAX(cwnd_max, x.cwnd);
			srtt_max = RTE_MAX(srtt_max, x.srtt_us);
			rtx = RTE_MAX(rtx, x.retransmits);
		}
	}
	dps_run_until(dps_cli_all_closed, 500);
	dps_srv_release_all();
	printf("  handshake %" PRIu64 " us, srtt up to %u us, cwnd %u -> %u, "
		"retransmits %" PRIu64 ", %" PRIu64 " of %u bytes acked in %.3f s\n",
		t_conn - t0, srtt_max, cwnd0, cwnd_max, rtx, t->acked, 8u << 20,
		(dps_now_us() - t0) / 1e6);
	DT_CHECK_EQ(t->acked, 8ull << 20);
	DT_CHECK(dps_app.rx_next == 1 && dps_app.rx[0].bytes == (8ull << 20) &&
		dps_app.rx[0].crc == t->crc);
	DT_CHECK(t_conn != 0 && t_conn - t0 >= RTT_MIN_US);
	DT_CHECK(srtt_max >= RTT_MIN_US);
	DT_CHECK(cwnd0 > 0 && cwnd_max >= 8 * cwnd0);
	DT_CHECK_EQ(rtx, 0);
	/* The wire did reorder (else no retransmission proves nothing). */
	DT_CHECK(rte_eth_xstats_get_id_by_name(dps_env.fx.cport, "wire_reorder", &id) == 0 &&
		rte_eth_xstats_get_by_id(dps_env.fx.cport, &id, &reordered, 1) == 1 &&
		reordered > 0);
	printf("  frames reordered by the wire: %" PRIu64 "\n", reordered);
}

void
test_faults(void)
{
	struct rte_eth_stats es;

	dps_app_reset();
	dps_transfer("faults_single", 1, dps_big() ? (256ull << 20) : (16ull << 20),
		false, 55);
	dps_app_reset();
	dps_transfer("faults_many", 16, dps_big() ? (10ull << 20) : (1ull << 20), true, 55);
	rte_eth_stats_get(dps_env.fx.sport, &es);
	printf("  server port: ipackets %" PRIu64 " imissed %" PRIu64
		" rx_nombuf %" PRIu64 "\n", es.ipackets, es.imissed, es.rx_nombuf);
}

/* Few device buffers, chunks held for a while: the NIC drops, TCP recovers. */
void
test_exhaust(void)
{
	struct rte_eth_stats es;

	dps_app_reset();
	dps_app.hold = true;
	/* Hold by time only: the NIC runs out of device buffers. */
	dps_app.hold_max = HOLD_MAX;
	dps_app.hold_us = 20000;
	dps_transfer("exhaust", 4, 8ull << 20, false, 55);
	rte_eth_stats_get(dps_env.fx.sport, &es);
	printf("  server port: rx_nombuf %" PRIu64 " imissed %" PRIu64
		", most chunks held at once %" PRIu64 "\n", es.rx_nombuf,
		es.imissed, dps_app.max_held_chunks);
	DT_CHECK(dps_app.max_held_chunks > 0);
	DT_CHECK(es.rx_nombuf > 0);
}

/*
 * Window closed: the app holds every chunk for 300 ms; the sender sees a
 * window below one segment (0, or the last window-scale unit) and waits.
 */
static bool
cli_zero_wnd(void)
{
	struct dt_dp_conn_stats x;

	if (dt_dp_conn_stats_get(dps_env.cli, dps_app.tx[0].conn, &x) == 0 &&
			x.state == DT_TCP_ESTABLISHED && dps_app.tx[0].acked > 0 &&
			x.snd_wnd < 1448)
		dps_app.saw_zero_wnd = true;
	return dps_app.saw_zero_wnd;
}

static bool cli_never(void) { return false; }

void
test_window(void)
{
	struct dt_dp_conn_stats x;
	struct dt_dp_stats ss;
	uint64_t acked;

	dps_app_reset();
	dps_app.hold = true;
	dps_app.hold_max = HOLD_MAX;
	dps_app.hold_us = 300000;
	dps_app.nb_tx = 1;
	dps_app.deadline = dps_now_us() + 50000000;
	DT_REQUIRE(dps_cli_open(&dps_app.tx[0], SRV_PORT, 4ull << 20, 0) == 0);
	DT_CHECK(dps_run_until(cli_zero_wnd, 3000));
	DT_REQUIRE(dt_dp_conn_stats_get(dps_env.srv, dps_app.rx[0].conn, &x) == 0);
	DT_CHECK(x.held_bytes > 0);
	/* The advertised edge never passes the capacity: exact. */
	DT_CHECK(x.held_bytes <= dps_opt.window);
	acked = dps_app.tx[0].acked;
	/* Nothing acknowledged beyond what is held while it is held. */
	DT_CHECK(acked <= x.held_bytes);
	/* The window stays closed while the app holds: no progress. */
	dps_run_until(cli_never, 100);
	DT_CHECK_EQ(dps_app.tx[0].acked, acked);
	/* Release: the window reopens and the transfer completes. */
	dps_app.hold = false;
	dps_srv_release_all();
	while (dps_now_us() < dps_app.deadline && !(dps_srv_all_closed(1) && dps_cli_all_closed()))
		dps_poll_both();
	DT_CHECK(dps_app.tx[0].closed);
	DT_CHECK_EQ(dps_app.tx[0].acked, 4ull << 20);
	DT_CHECK_EQ(dps_app.rx[0].bytes, 4ull << 20);
	DT_CHECK_EQ(dps_app.rx[0].crc, dps_app.tx[0].crc);
	dt_dp_stats_get(dps_env.srv, &ss);
	dps_print_stats("server", &ss);
	printf("  window: closed window seen %d, held %u bytes at most\n",
		dps_app.saw_zero_wnd, x.held_bytes);
	/* Length split: short headers leave payload in the header buffer
	 * (HOST chunks); long ones spill into device memory. */
	if (dps_opt.split_len > 66) {
		DT_CHECK(ss.host_chunks > 0);
		DT_CHECK(ss.device_chunks > 0);
	} else if (dps_opt.split_len > 0) {
		/* A NIC that spills headers: read through the CPU map; one
		 * that does not split such frames (net_hsplit): all host. */
		DT_CHECK(ss.rx_hdr_spill > 0 ||
			(ss.device_chunks == 0 && ss.host_chunks > 0));
	}
	dps_check_split_mismatch(&ss);
	DT_CHECK_EQ(ss.events_overflow, 0);
	dps_check_no_drops(&ss);
}
