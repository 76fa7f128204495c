/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component tests of the per-lcore TCP stack (lib/dp) over two net_hsplit
 * ports on one loopback wire: port 0 = client stack (host-memory RX),
 * port 1 = server stack (RX split: headers in hugepages, payload in a
 * gpu_sim payload region). Cases are picked on the command line after
 * "--": basic (ARP, handshake, ICMP echo, RST, half-close, abort), transfer
 * (64 MiB on one lcore, 16 x 4 MiB on two lcores; DT_DP_TEST_BIG=1: 1 GiB
 * and 100 x 10 MiB), short (16 MiB, then 4 x 2 MiB, one lcore), faults (same under wire loss/reorder/dup), exhaust
 * (few device buffers, an application that holds chunks), window (zero
 * window and persist while chunks are held).
 *
 * Byte-exactness: the client sends slices of a pattern buffer; both sides
 * compute CRC32C over the stream in order, the server reading DEVICE
 * chunks through the region's CPU alias (verification code only) and HOST
 * chunks directly. Rates are printed for information only.
 *
 * This file: options, set-up and main. The applications are in
 * dp_stack_app.c, the drivers and shared checks in dp_stack_run.c, the
 * cases in dp_stack_basic.c and dp_stack_transfer.c (dp_stack.h).
 */
#include <getopt.h>
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

/* ---- options ---- */
struct dp_stack_opt dps_opt = {
	.mtu = 1500, .server_bufs = 16384, .window = 1u << 20, .verify = true
};

/* ---- environment and application state (dp_stack.h) ---- */
struct dp_stack_env dps_env;
struct dp_stack_app dps_app;

/*
 * The checks of every dp_stack_*.c file count here (dt_test.h: the program
 * builds with DT_TEST_STATE_EXTERN): one static state per file would leave
 * their failures out of dt_test_summary().
 */
struct dt_test_state dt_test_state;

/* ---- set-up ---- */
static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "case", required_argument, NULL, 'c' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "split-len", required_argument, NULL, 's' },
		{ "server-bufs", required_argument, NULL, 'b' },
		{ "window", required_argument, NULL, 'w' },
		{ "no-verify", no_argument, NULL, 'n' },
		{ "no-ts", no_argument, NULL, 't' },
		{ "expect-spill", no_argument, NULL, 'S' },
		{ "expect-host", no_argument, NULL, 'H' },
		{ "expect-gro", no_argument, NULL, 'G' },
		{ "no-gro", no_argument, NULL, 'g' },
		{ "no-sack", no_argument, NULL, 'k' },
		{ "expect-tso", no_argument, NULL, 'T' },
		{ "expect-no-tso", no_argument, NULL, 'N' },
		{ "expect-copy", no_argument, NULL, 'C' },
		{ "tx-device", no_argument, NULL, 'D' },
		{ "expect-held", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			strncat(dps_opt.cases, optarg, sizeof(dps_opt.cases) -
				strlen(dps_opt.cases) - 2);
			strcat(dps_opt.cases, ",");
			break;
		case 'm':
			dps_opt.mtu = (uint16_t)atoi(optarg);
			break;
		case 's':
			dps_opt.split_len = atoi(optarg);
			break;
		case 'b':
			dps_opt.server_bufs = (uint32_t)atoi(optarg);
			break;
		case 'w':
			dps_opt.window = (uint32_t)atoi(optarg);
			break;
		case 'n':
			dps_opt.verify = false;
			break;
		case 't':
			dps_opt.no_ts = true;
			break;
		case 'S':
			dps_opt.expect_spill = true;
			break;
		case 'H':
			dps_opt.expect_host = true;
			break;
		case 'G':
			dps_opt.expect_gro = true;
			break;
		case 'g':
			dps_opt.no_gro = true;
			break;
		case 'k':
			dps_opt.no_sack = true;
			break;
		case 'T':
			dps_opt.expect_tso = 1;
			break;
		case 'N':
			dps_opt.expect_tso = -1;
			break;
		case 'D':
			dps_opt.tx_device = true;
			break;
		case 'L':
			dps_opt.expect_held = true;
			break;
		case 'C':
			dps_opt.expect_copy = true;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

static bool
want(const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "%s,", name);
	return dps_opt.cases[0] == '\0' || strstr(dps_opt.cases, key) != NULL;
}

static int
ports_start(void)
{
	struct dt_dp_port_conf pc;
	char err[256];
	int r;

	memset(&pc, 0, sizeof(pc));
	pc.nb_rxq = 1;
	pc.nb_txq = 1;
	pc.nb_rxd = 4096;
	pc.nb_txd = 4096;
	pc.mtu = dps_opt.mtu;
	pc.hdr_pool = dps_env.fx.c_pool;
	pc.tx_cksum = true;
	pc.tx_multi_seg = true;
	r = dt_dp_port_start(dps_env.fx.cport, &pc, err, sizeof(err));
	if (r != 0) {
		printf("client port: %s\n", err);
		return r;
	}
	pc.hdr_pool = dps_env.fx.s_hdr;
	pc.pay_pool = dt_devmem_region_pool(dps_env.fx.region);
	if (dps_opt.split_len > 0) {
		pc.split = DT_DP_SPLIT_LEN;
		pc.split_len = (uint16_t)dps_opt.split_len;
	} else {
		pc.split = DT_DP_SPLIT_PROTO;
		pc.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
	}
	r = dt_dp_port_start(dps_env.fx.sport, &pc, err, sizeof(err));
	if (r != 0)
		printf("server port: %s\n", err);
	return r;
}

static struct dt_dp_stack *
stack_new(uint16_t port, uint32_t ip, struct rte_mempool *hdr,
	struct rte_mempool *shell, struct dt_devmem_region *region)
{
	struct dt_dp_stack_conf sc;

	dt_dp_stack_conf_default(&sc);
	sc.port_id = port;
	sc.ipv4 = rte_cpu_to_be_32(ip);
	sc.max_conns = 256;
	sc.window = dps_opt.window;
	sc.hdr_pool = hdr;
	sc.shell_pool = shell;
	sc.region = region;
	sc.tcp.msl_us = 20000;         /* short TIME_WAIT for the tests */
	sc.tcp.rto_min_us = 20000;     /* fast recovery on a lossless link */
	sc.tcp.delack_us = 1000;
	sc.tcp.ts_ok = !dps_opt.no_ts;
	sc.no_rx_gro = dps_opt.no_gro;
	sc.tcp.sack_ok = !dps_opt.no_sack;
	return dt_dp_stack_create(&sc);
}

static int
setup(void)
{
	const struct dp_fixture_conf fc = {
		.prefix = "dpt", .region_bufs = dps_opt.server_bufs, .cpu_map = true,
		.cli_mbufs = 32768, .cli_shells = 32768,
		.srv_hdrs = 32768, .srv_shells = 8192,
		.pattern_len = PAT_LEN,
	};
	int r;

	r = dp_fixture_setup(&dps_env.fx, &fc);
	if (r != 0)
		return r;
	r = ports_start();
	if (r != 0)
		return r;
	dps_env.cli = stack_new(dps_env.fx.cport, CLI_IP, dps_env.fx.c_pool, dps_env.fx.c_shell, NULL);
	dps_env.srv = stack_new(dps_env.fx.sport, SRV_IP, dps_env.fx.s_hdr, dps_env.fx.s_shell,
				dps_env.fx.region);
	if (dps_env.cli == NULL || dps_env.srv == NULL)
		return -rte_errno;
	if (dps_opt.tx_device) {
		r = dp_txdev_setup(&dps_env.txdev, &dps_env.fx, PAT_LEN);
		if (r != 0)
			return r;
	}
	return dt_dp_listen(dps_env.srv, SRV_PORT);
}
int
main(int argc, char **argv)
{
	int r = rte_eal_init(argc, argv);

	setvbuf(stdout, NULL, _IOLBF, 0);

	if (r < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	if (parse_args(argc - r, argv + r) != 0)
		return 1;
	r = setup();
	if (r == -ENODEV)
		DT_TEST_SKIP("needs two net_hsplit ports and a gpu_sim device");
	if (r != 0) {
		printf("set-up failed: %s\n", rte_strerror(-r));
		return 1;
	}
	if (want("basic")) {
		DT_RUN(test_handshake_arp);
		DT_RUN(test_icmp_echo);
		DT_RUN(test_rst_closed_port);
		DT_RUN(test_half_close);
		DT_RUN(test_abort);
		DT_RUN(test_stats_sanity);
	}
	if (want("short"))
		DT_RUN(test_transfer_short);
	if (want("transfer"))
		DT_RUN(test_transfer);
	if (want("faults"))
		DT_RUN(test_faults);
	if (want("exhaust"))
		DT_RUN(test_exhaust);
	if (want("window"))
		DT_RUN(test_window);
	/* Only when asked: needs the delay line's devargs (meson sets them). */
	if (strstr(dps_opt.cases, "delay,") != NULL)
		DT_RUN(test_delay_rtt);
	dt_dp_stack_destroy(dps_env.cli);
	dt_dp_stack_destroy(dps_env.srv);
	dp_txdev_teardown(&dps_env.txdev);
	r = dp_fixture_teardown(&dps_env.fx);
	if (r != 0)
		printf("region destroy: %s\n", rte_strerror(-r));
	DT_CHECK_EQ(r, 0);
	r = dt_test_summary();
	rte_eal_cleanup();
	return r;
}
