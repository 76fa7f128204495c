/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of net_hsplit's delay line (delay_us=, jitter_us=) on a
 * loopback wire, in real time: port 0 delays what it sends by DELAY0_US
 * plus up to JITTER0_US, port 1 by DELAY1_US. Frames carry a sequence
 * number and the TSC they were sent at. Only lower bounds are asserted (a
 * loaded machine may add any delay, never remove one): no frame arrives
 * before its delay, a ping-pong round trip takes at least both delays, and
 * jitter never reorders frames. The delay line's xstat counts the frames.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_test.h"
#include "rte_pmd_hsplit.h"

#define DELAY0_US 3000
#define JITTER0_US 2000
#define DELAY1_US 2000
#define NB_FRAMES 200
#define ETHERTYPE_TEST 0x88b5  /* IEEE local experimental: no split rule */
#define WAIT_US 2000000        /* give up on a frame after this long */

struct stamp {
	uint32_t seq;
	uint64_t tsc;
} __rte_packed;

static uint16_t p0, p1;
static struct rte_mempool *pool;
static uint64_t us_tsc;

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) == 0)
		rte_eth_xstats_get_by_id(port, &id, &v, 1);
	return v;
}

static struct rte_mbuf *
frame(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	struct stamp *s;
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, 64);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, 64);
	eh = (struct rte_ether_hdr *)p;
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(ETHERTYPE_TEST);
	s = (struct stamp *)(eh + 1);
	s->seq = seq;
	s->tsc = rte_rdtsc();
	return m;
}

static int
send1(uint16_t port, uint32_t seq)
{
	struct rte_mbuf *m = frame(seq);

	if (m == NULL)
		return -ENOMEM;
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -EBUSY;
	}
	return 0;
}

/* Poll @p port for one frame; its stamp and when it came. -1: none in time. */
static int
recv1(uint16_t port, struct stamp *st, uint64_t *at)
{
	uint64_t end = rte_rdtsc() + WAIT_US * us_tsc;
	struct rte_mbuf *m;

	while (rte_rdtsc() < end) {
		/* The sender's TX path gets its turn too (it may hold frames). */
		rte_eth_tx_burst(port == p1 ? p0 : p1, 0, NULL, 0);
		if (rte_eth_rx_burst(port, 0, &m, 1) == 1) {
			*at = rte_rdtsc();
			memcpy(st, rte_pktmbuf_mtod_offset(m, void *,
				sizeof(struct rte_ether_hdr)), sizeof(*st));
			rte_pktmbuf_free(m);
			return 0;
		}
	}
	return -1;
}

/* One way, a stream of frames: none before its delay, none out of order. */
static void
one_way(uint16_t from, uint16_t to, uint32_t delay_us)
{
	uint64_t at, min_us = UINT64_MAX, max_us = 0, d;
	uint64_t xbefore = xstat(from, "wire_delayed");
	struct stamp st;
	uint32_t i, j, got = 0, early = 0, order = 0, next = 0;

	/* Eight at a time: frames wait in the wire, not in the test. */
	for (i = 0; i < NB_FRAMES; i += 8) {
		for (j = 0; j < 8; j++)
			DT_REQUIRE(send1(from, i + j) == 0);
		for (j = 0; j < 8 && recv1(to, &st, &at) == 0; j++) {
			d = (at - st.tsc) / us_tsc;
			early += d < delay_us;
			order += st.seq != next;
			next = st.seq + 1;
			min_us = RTE_MIN(min_us, d);
			max_us = RTE_MAX(max_us, d);
			got++;
		}
	}
	printf("  %u -> %u: %u frames, one-way %" PRIu64 "..%" PRIu64 " us (delay %u us)\n",
		from, to, got, min_us, max_us, delay_us);
	DT_CHECK_EQ(got, NB_FRAMES);
	DT_CHECK_EQ(early, 0);
	DT_CHECK_EQ(order, 0);
	DT_CHECK_EQ(xstat(from, "wire_delayed") - xbefore, NB_FRAMES);
}

static void
test_delay_port0(void)
{
	one_way(p0, p1, DELAY0_US);
}

static void
test_delay_port1(void)
{
	one_way(p1, p0, DELAY1_US);
}

/* Ping-pong: the round trip takes both delays at least. */
static void
test_round_trip(void)
{
	uint64_t t0, at, rtt, min_rtt = UINT64_MAX;
	struct stamp st;
	int i;

	for (i = 0; i < 10; i++) {
		t0 = rte_rdtsc();
		DT_REQUIRE(send1(p0, 1000 + i) == 0);
		DT_REQUIRE(recv1(p1, &st, &at) == 0);
		DT_CHECK_EQ(st.seq, 1000 + i);
		DT_REQUIRE(send1(p1, 2000 + i) == 0);
		DT_REQUIRE(recv1(p0, &st, &at) == 0);
		DT_CHECK_EQ(st.seq, 2000 + i);
		rtt = (at - t0) / us_tsc;
		min_rtt = RTE_MIN(min_rtt, rtt);
	}
	printf("  round trip >= %" PRIu64 " us (delays %u + %u us)\n", min_rtt,
		DELAY0_US, DELAY1_US);
	DT_CHECK(min_rtt >= DELAY0_US + DELAY1_US);
}

/* Frames in the delay line when the receiver stops are freed, not leaked. */
static void
test_stop_with_frames_held(void)
{
	struct rte_mempool *wp = rte_pmd_hsplit_wire_pool(p0);
	int i;

	DT_REQUIRE(wp != NULL);
	for (i = 0; i < 16; i++)
		DT_REQUIRE(send1(p0, 3000 + i) == 0);
	/* Not due yet: on the wire, in port 1's RX ring. */
	DT_CHECK(rte_mempool_avail_count(wp) <= wp->size - 16);
	DT_REQUIRE(rte_eth_dev_stop(p1) == 0);
	DT_CHECK_EQ(rte_mempool_avail_count(wp), wp->size);
	DT_REQUIRE(rte_eth_dev_start(p1) == 0);
}

static int
port_up(uint16_t port)
{
	struct rte_eth_conf conf = { 0 };

	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
			rte_eth_rx_queue_setup(port, 0, 1024, 0, NULL, pool) != 0 ||
			rte_eth_tx_queue_setup(port, 0, 1024, 0, NULL) != 0)
		return -1;
	return rte_eth_dev_start(port);
}

int
main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (rte_eth_dev_get_port_by_name("net_hsplit_dl0", &p0) != 0 ||
			rte_eth_dev_get_port_by_name("net_hsplit_dl1", &p1) != 0) {
		fprintf(stderr, "ports net_hsplit_dl0/dl1 not found (devargs delay_us= refused?)\n");
		return 1;
	}
	us_tsc = rte_get_tsc_hz() / 1000000;
	pool = rte_pktmbuf_pool_create("dl_pool", 4096, 64, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || port_up(p0) != 0 || port_up(p1) != 0) {
		fprintf(stderr, "port setup failed\n");
		return 1;
	}
	DT_RUN(test_delay_port0);
	DT_RUN(test_delay_port1);
	DT_RUN(test_round_trip);
	DT_RUN(test_stop_with_frames_held);
	rte_eth_dev_stop(p0);
	rte_eth_dev_stop(p1);
	rte_eal_cleanup();
	return dt_test_summary();
}
