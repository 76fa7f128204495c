/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The first end-to-end proof of the split receive path, and its guard.
 *
 * Port 0 sends TCP/IPv4 frames (checksums left to the NIC's TX offload) over
 * the software NIC's loopback wire to port 1, which splits them: headers in
 * a hugepage mbuf, payload in simulated GPU memory. The test checks the
 * chain shape, the NIC's checksum and ptype verdicts and every payload byte
 * through the GPU's CPU alias; then it shows that the CPU touching the
 * payload through the address the stack sees (a load, a store, an mbuf dump)
 * kills the process: the zero-touch rule is enforced, not hoped for.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "dt_devmem.h"
#include "dt_dp_port.h"
#include "dt_test.h"

#define NB_FRAMES 64
#define HDRS (RTE_ETHER_HDR_LEN + 20 + 20)

struct zt_ctx {
	uint16_t tx_port, rx_port;
	struct rte_mempool *tx_pool, *hdr_pool;
	struct dt_devmem_region *region;
	const uint8_t *alias;
	uintptr_t base;
	size_t len;
	struct rte_mbuf *rx[NB_FRAMES];
	uint16_t nb_rx;
};

static struct zt_ctx zt;

static uint8_t
payload_byte(unsigned int frame, unsigned int i)
{
	return (uint8_t)(frame * 131 + i * 7 + (i >> 8));
}

/* Payload length of frame @p k: varied so chains of 1..3 buffers appear. */
static uint16_t
payload_len(unsigned int k)
{
	return (uint16_t)(1 + (k * 97) % 1460);
}

/* A frame whose IPv4 and TCP checksums the NIC fills in (TX offload). */
static struct rte_mbuf *
make_frame(unsigned int k)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(zt.tx_pool);
	uint16_t plen = payload_len(k), i;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *tcp;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, HDRS + plen);
	memset(eth, 0, HDRS);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(20 + 20 + plen);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	/* 192.168.1.x: RTE_IPV4(192, ...) shifts an int into its sign bit. */
	ip->src_addr = rte_cpu_to_be_32(UINT32_C(0xc0a80101));
	ip->dst_addr = rte_cpu_to_be_32(UINT32_C(0xc0a80102));
	tcp = (struct rte_tcp_hdr *)(ip + 1);
	tcp->src_port = rte_cpu_to_be_16(1000 + k);
	tcp->dst_port = rte_cpu_to_be_16(80);
	tcp->sent_seq = rte_cpu_to_be_32(k);
	tcp->data_off = 5 << 4;
	tcp->tcp_flags = RTE_TCP_ACK_FLAG;
	p = (uint8_t *)(tcp + 1);
	for (i = 0; i < plen; i++)
		p[i] = payload_byte(k, i);
	/* DPDK's offload convention: the TCP field holds the pseudo-header sum. */
	tcp->cksum = rte_ipv4_phdr_cksum(ip, RTE_MBUF_F_TX_IPV4 |
		RTE_MBUF_F_TX_TCP_CKSUM);
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = 20;
	m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
		RTE_MBUF_F_TX_TCP_CKSUM;
	return m;
}

static void
test_setup(void)
{
	struct dt_devmem_region_conf rc = {
		.name = "zt_payload", .nb_bufs = 1024, .buf_size = 1024,
		.cache_size = 0, .socket_id = SOCKET_ID_ANY,
	};
	struct dt_dp_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	char err[256];
	int16_t gpu;

	DT_REQUIRE(rte_eth_dev_count_avail() == 2);
	zt.tx_port = rte_eth_find_next(0);
	zt.rx_port = rte_eth_find_next(zt.tx_port + 1);
	gpu = rte_gpu_find_next(0, RTE_GPU_ID_ANY);
	DT_REQUIRE(gpu >= 0);
	rc.gpu_id = gpu;
	rc.port_id = zt.rx_port;
	DT_REQUIRE(dt_devmem_region_create(&rc, &zt.region) == 0);
	zt.alias = dt_devmem_region_cpu_map(zt.region);
	DT_REQUIRE(zt.alias != NULL);
	zt.base = (uintptr_t)dt_devmem_region_base(zt.region);
	zt.len = dt_devmem_region_len(zt.region);
	zt.tx_pool = rte_pktmbuf_pool_create("zt_tx", 2048, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	zt.hdr_pool = rte_pktmbuf_pool_create("zt_hdr", 2048, 0, 0,
		128 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	DT_REQUIRE(zt.tx_pool != NULL && zt.hdr_pool != NULL);

	pc.hdr_pool = zt.tx_pool;
	pc.tx_cksum = true;
	DT_REQUIRE(dt_dp_port_start(zt.tx_port, &pc, err, sizeof(err)) == 0);
	pc.split = DT_DP_SPLIT_PROTO;
	pc.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
	pc.hdr_pool = zt.hdr_pool;
	pc.pay_pool = dt_devmem_region_pool(zt.region);
	pc.tx_cksum = false;
	DT_REQUIRE(dt_dp_port_start(zt.rx_port, &pc, err, sizeof(err)) == 0);
}

static void
test_send_receive(void)
{
	struct rte_mbuf *tx[NB_FRAMES];
	uint64_t deadline;
	unsigned int k, sent = 0;

	for (k = 0; k < NB_FRAMES; k++) {
		tx[k] = make_frame(k);
		DT_REQUIRE(tx[k] != NULL);
	}
	deadline = rte_rdtsc() + 5 * rte_get_tsc_hz();
	while ((sent < NB_FRAMES || zt.nb_rx < NB_FRAMES) && rte_rdtsc() < deadline) {
		if (sent < NB_FRAMES)
			sent += rte_eth_tx_burst(zt.tx_port, 0, tx + sent,
				NB_FRAMES - sent);
		zt.nb_rx += rte_eth_rx_burst(zt.rx_port, 0, zt.rx + zt.nb_rx,
			NB_FRAMES - zt.nb_rx);
	}
	DT_CHECK_EQ(sent, NB_FRAMES);
	DT_CHECK_EQ(zt.nb_rx, NB_FRAMES);
}

static bool
in_region(const void *p, uint32_t len)
{
	return (uintptr_t)p >= zt.base && (uintptr_t)p + len <= zt.base + zt.len;
}

/* Frame k: header segment then payload segments, all payload on the GPU. */
static void
check_frame(const struct rte_mbuf *m)
{
	const struct rte_tcp_hdr *tcp = rte_pktmbuf_mtod_offset(m,
		const struct rte_tcp_hdr *, RTE_ETHER_HDR_LEN + 20);
	unsigned int k = rte_be_to_cpu_32(tcp->sent_seq), off = 0;
	const struct rte_mbuf *s;

	DT_REQUIRE(k < NB_FRAMES);
	DT_CHECK_EQ(m->pkt_len, HDRS + payload_len(k));
	DT_CHECK_EQ(m->data_len, HDRS);
	DT_CHECK(m->pool == zt.hdr_pool);
	DT_CHECK((m->packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_TCP);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	DT_CHECK_EQ(m->nb_segs, 1 + (payload_len(k) + 1023) / 1024);
	for (s = m->next; s != NULL; s = s->next) {
		const uint8_t *dev = rte_pktmbuf_mtod(s, const uint8_t *);
		const uint8_t *cpu = zt.alias + ((uintptr_t)dev - zt.base);
		unsigned int i;

		DT_CHECK(RTE_MBUF_HAS_PINNED_EXTBUF(s));
		DT_REQUIRE(in_region(dev, s->data_len));
		for (i = 0; i < s->data_len; i++, off++)
			if (cpu[i] != payload_byte(k, off)) {
				DT_CHECK(cpu[i] == payload_byte(k, off));
				return;
			}
	}
	DT_CHECK_EQ(off, payload_len(k));
}

static void
test_payload_in_device_memory(void)
{
	uint16_t i;

	for (i = 0; i < zt.nb_rx; i++)
		check_frame(zt.rx[i]);
}

enum touch { TOUCH_LOAD, TOUCH_STORE, TOUCH_DUMP };

/* Run @p how in a child; return the signal that killed it (0: none). */
static int
touch_in_child(enum touch how)
{
	struct rte_mbuf *m = zt.rx[0];
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		volatile uint8_t *p = rte_pktmbuf_mtod(m->next, volatile uint8_t *);
		FILE *null = fopen("/dev/null", "w");

		if (how == TOUCH_LOAD)
			status = p[0];
		else if (how == TOUCH_STORE)
			p[0] = 0x5a;
		else
			rte_pktmbuf_dump(null, m, m->pkt_len);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void
test_zero_touch_guard(void)
{
	DT_REQUIRE(zt.nb_rx > 0 && zt.rx[0]->next != NULL);
	DT_CHECK_EQ(touch_in_child(TOUCH_LOAD), SIGSEGV);
	DT_CHECK_EQ(touch_in_child(TOUCH_STORE), SIGSEGV);
	DT_CHECK_EQ(touch_in_child(TOUCH_DUMP), SIGSEGV);
}

static void
test_teardown(void)
{
	rte_pktmbuf_free_bulk(zt.rx, zt.nb_rx);
	DT_CHECK_EQ(dt_dp_port_stop(zt.rx_port), 0);
	DT_CHECK_EQ(dt_dp_port_stop(zt.tx_port), 0);
	DT_CHECK_EQ(dt_devmem_region_cpu_unmap(zt.region), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(zt.region), 0);
	rte_mempool_free(zt.tx_pool);
	rte_mempool_free(zt.hdr_pool);
}

int
main(int argc, char **argv)
{
	int rc;

	if (rte_eal_init(argc, argv) < 0)
		DT_TEST_SKIP("EAL init failed (hugepages?)");
	DT_RUN(test_setup);
	if (dt_test_state.failed_cases == 0) {
		DT_RUN(test_send_receive);
		DT_RUN(test_payload_in_device_memory);
		DT_RUN(test_zero_touch_guard);
		DT_RUN(test_teardown);
	}
	rc = dt_test_summary();
	rte_eal_cleanup();
	return rc;
}
