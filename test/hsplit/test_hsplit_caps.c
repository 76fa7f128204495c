/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_hsplit capability profiles through ethdev (caps=full|mlx5|ice|notso|linear):
 * what rte_eth_dev_info_get and rte_eth_buffer_split_get_supported_hdr_ptypes
 * report, and which split configurations ethdev and the PMD accept, as
 * DPDK 22.11 does for mlx5 and ice; TSO and each NIC's TX limits. Ports:
 * 0 full, 1 mlx5, 2 ice, 3 notso, 4 and 5 linear on one wire (meson).
 */
#include <errno.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_test.h"

#define TCP4 (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_TCP)
#define SCTP4 (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_SCTP)

static struct rte_mempool *hdr_mp, *pay_mp;

static int
has_ptype(uint16_t port, uint32_t mask)
{
	uint32_t pt[64];
	int n = rte_eth_buffer_split_get_supported_hdr_ptypes(port, pt, 64);
	int i;

	if (n < 0)
		return n;
	for (i = 0; i < n && i < 64; i++)
		if (pt[i] == mask)
			return 1;
	return 0;
}

static int
configure(uint16_t port)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT |
		RTE_ETH_RX_OFFLOAD_SCATTER;
	return rte_eth_dev_configure(port, 1, 1, &conf);
}

/* Set up RX queue 0 with @p n segments: proto (seg0 proto_hdr) or length. */
static int
split_setup(uint16_t port, unsigned int n, int proto, uint16_t off1)
{
	union rte_eth_rxseg seg[4];
	struct rte_eth_rxconf rc;
	unsigned int i;

	memset(seg, 0, sizeof(seg));
	memset(&rc, 0, sizeof(rc));
	for (i = 0; i < n; i++) {
		seg[i].split.mp = i == 0 ? hdr_mp : pay_mp;
		seg[i].split.length = i == 0 ? 64 : 1024;
	}
	if (proto) {
		seg[0].split.length = 0;
		seg[0].split.proto_hdr = TCP4;
		seg[n - 1].split.length = 0;
	}
	seg[1].split.offset = off1;
	if (off1)
		seg[1].split.length = 1024 - off1;
	rc.rx_seg = seg;
	rc.rx_nseg = (uint16_t)n;
	return rte_eth_rx_queue_setup(port, 0, 256, rte_socket_id(), &rc, NULL);
}

static void
test_full(void)
{
	struct rte_eth_dev_info di;

	DT_REQUIRE(rte_eth_dev_info_get(0, &di) == 0);
	DT_CHECK_EQ(di.rx_seg_capa.max_nseg, 8);
	DT_CHECK_EQ(has_ptype(0, TCP4), 1);
	DT_CHECK_EQ(has_ptype(0, SCTP4), 0);
	DT_REQUIRE(configure(0) == 0);
	DT_CHECK_EQ(split_setup(0, 2, 1, 0), 0);
	DT_CHECK_EQ(split_setup(0, 2, 0, 0), 0);
}

static void
test_mlx5(void)
{
	struct rte_eth_dev_info di;

	DT_REQUIRE(rte_eth_dev_info_get(1, &di) == 0);
	DT_CHECK_EQ(di.rx_seg_capa.max_nseg, 32);
	DT_CHECK_EQ(di.rx_seg_capa.multi_pools, 1);
	DT_CHECK_EQ(di.rx_seg_capa.offset_allowed, 1);
	DT_CHECK_EQ(di.rx_seg_capa.offset_align_log2, 0);
	DT_CHECK(di.rx_queue_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT);
	DT_CHECK(di.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_CKSUM);
	/* No ptypes op: ethdev answers -ENOTSUP and refuses proto_hdr. */
	DT_CHECK_EQ(has_ptype(1, TCP4), -ENOTSUP);
	DT_REQUIRE(configure(1) == 0);
	DT_CHECK(split_setup(1, 2, 1, 0) != 0);
	DT_CHECK_EQ(split_setup(1, 2, 0, 0), 0);
	DT_CHECK_EQ(split_setup(1, 3, 0, 0), 0);
	DT_CHECK_EQ(split_setup(1, 2, 0, 64), 0);
}

static void
test_ice(void)
{
	struct rte_eth_dev_info di;

	DT_REQUIRE(rte_eth_dev_info_get(2, &di) == 0);
	DT_CHECK_EQ(di.rx_seg_capa.max_nseg, 2);
	DT_CHECK_EQ(di.rx_seg_capa.multi_pools, 1);
	DT_CHECK_EQ(di.rx_seg_capa.offset_allowed, 0);
	DT_CHECK(di.rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT);
	DT_CHECK_EQ(has_ptype(2, TCP4), 1);
	DT_CHECK_EQ(has_ptype(2, SCTP4), 1);
	DT_REQUIRE(configure(2) == 0);
	DT_CHECK_EQ(split_setup(2, 2, 1, 0), 0);
	/* Protocol split only, two segments, no offsets. */
	DT_CHECK_EQ(split_setup(2, 2, 0, 0), -EINVAL);
	DT_CHECK(split_setup(2, 3, 0, 0) != 0);
	DT_CHECK(split_setup(2, 2, 1, 64) != 0);
}

/* TSO offered (or not) with the NIC's TX buffer limits. */
static void
check_tso(uint16_t port, int tso, uint16_t seg_max, uint16_t mtu_seg_max)
{
	struct rte_eth_dev_info info;

	DT_REQUIRE(rte_eth_dev_info_get(port, &info) == 0);
	DT_CHECK_EQ(!!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO), tso);
	DT_CHECK_EQ(info.tx_desc_lim.nb_seg_max, seg_max);
	DT_CHECK_EQ(info.tx_desc_lim.nb_mtu_seg_max, mtu_seg_max);
}

static void
test_tso_limits(void)
{
	check_tso(0, 1, UINT16_MAX, UINT16_MAX);
	/* mlx5_set_txlimit_params with the default inline length. */
	check_tso(1, 1, 40, 40);
	/* ICE_MAX_RING_DESC, ICE_TX_MTU_SEG_MAX. */
	check_tso(2, 1, 4096, 8);
	check_tso(3, 0, UINT16_MAX, UINT16_MAX);
}

/* An xstat of @p port by name, or UINT64_MAX. */
static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
			rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* A frame of @p nseg buffers (an Ethernet broadcast, 60 bytes in all). */
static struct rte_mbuf *
frame(unsigned int nseg)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(hdr_mp), *s;
	unsigned int i;

	if (m == NULL)
		return NULL;
	memset(rte_pktmbuf_append(m, 60 / nseg), 0xff, 60 / nseg);
	for (i = 1; i < nseg; i++) {
		s = rte_pktmbuf_alloc(hdr_mp);
		if (s == NULL || rte_pktmbuf_append(s, 60 / nseg) == NULL ||
				rte_pktmbuf_chain(m, s) != 0) {
			rte_pktmbuf_free(m);
			return NULL;
		}
	}
	return m;
}

/*
 * caps=linear (af_xdp): no offloads at all, one buffer per frame; a chain
 * handed to it anyway is dropped and counted, a one-buffer frame goes.
 */
static void
test_linear(void)
{
	struct rte_eth_dev_info di;
	struct rte_eth_conf conf;
	struct rte_mbuf *m;
	uint16_t p;

	DT_REQUIRE(rte_eth_dev_info_get(4, &di) == 0);
	DT_CHECK_EQ(di.rx_offload_capa, 0);
	DT_CHECK_EQ(di.tx_offload_capa, 0);
	DT_CHECK_EQ(di.tx_desc_lim.nb_seg_max, 1);
	memset(&conf, 0, sizeof(conf));
	for (p = 4; p <= 5; p++) {
		DT_REQUIRE(rte_eth_dev_configure(p, 1, 1, &conf) == 0);
		DT_REQUIRE(rte_eth_rx_queue_setup(p, 0, 256, rte_socket_id(),
			NULL, hdr_mp) == 0);
		DT_REQUIRE(rte_eth_tx_queue_setup(p, 0, 256, rte_socket_id(),
			NULL) == 0);
		DT_REQUIRE(rte_eth_dev_start(p) == 0);
	}
	m = frame(2);
	DT_REQUIRE(m != NULL);
	DT_CHECK_EQ(rte_eth_tx_burst(4, 0, &m, 1), 1);
	m = frame(1);
	DT_REQUIRE(m != NULL);
	DT_CHECK_EQ(rte_eth_tx_burst(4, 0, &m, 1), 1);
	rte_eth_tx_burst(4, 0, &m, 0);
	DT_CHECK_EQ(xstat(4, "tx_q0_drop_multi_seg"), 1);
	DT_CHECK_EQ(xstat(4, "tx_q0_packets"), 1);
	for (p = 4; p <= 5; p++)
		rte_eth_dev_stop(p);
}

int
main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	/* meson gives the six vdevs: fewer ports is a probe that failed. */
	if (rte_eth_dev_count_avail() != 6) {
		printf("FAIL: %u ports, need six net_hsplit ports (caps=full, mlx5, ice, notso, linear x2)\n",
			rte_eth_dev_count_avail());
		return 1;
	}
	hdr_mp = rte_pktmbuf_pool_create("caps_hdr", 1024, 0, 0,
		RTE_PKTMBUF_HEADROOM + 256, rte_socket_id());
	pay_mp = rte_pktmbuf_pool_create("caps_pay", 1024, 0, 0, 1024,
		rte_socket_id());
	if (hdr_mp == NULL || pay_mp == NULL) {
		printf("cannot create the mbuf pools\n");
		return 1;
	}
	DT_RUN(test_full);
	DT_RUN(test_mlx5);
	DT_RUN(test_ice);
	DT_RUN(test_tso_limits);
	DT_RUN(test_linear);
	rte_eal_cleanup();
	return dt_test_summary();
}
