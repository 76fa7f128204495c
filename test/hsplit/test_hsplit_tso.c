/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSO on net_hsplit's loopback wire. Port 0 sends one TSO frame: a host
 * header mbuf (Ethernet, IPv4, TCP with a timestamp option; ACK, PSH, FIN
 * and CWR set; a sequence number that wraps within the frame) chained to
 * payload buffers in gpu_sim device memory, whose address the CPU cannot
 * read (the guard is checked first: a load through it kills a child).
 * Port 1 receives whole frames in host memory, and every segment is
 * checked: its length and place (segment boundaries), IPv4 total length
 * and id, sequence number, options, flags (CWR only on the first, PSH and
 * FIN only on the last), IPv4 and TCP checksums recomputed here, and every
 * payload byte against what was written through the GPU's CPU alias. Then
 * a frame outside the profile's limits is refused and counted.
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
#include "dt_test_eth.h"

#define MSS 1448
#define PAY_PER_BUF 8000
#define PAY_BUFS 4
#define PAY_LEN (3 * PAY_PER_BUF + 1234)       /* 17 full segments + 618 */
#define NSEG ((PAY_LEN + MSS - 1) / MSS)
#define L4_LEN 32                               /* TCP + timestamps */
#define HDRS (RTE_ETHER_HDR_LEN + 20 + L4_LEN)
#define SEQ0 0xfffff000u                       /* wraps in segment 2 */
#define IP_ID0 0xfffe                          /* wraps too */
#define FLAGS (RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG | \
	RTE_TCP_CWR_FLAG)

static struct {
	uint16_t tx_port, rx_port;
	struct rte_mempool *tx_pool, *rx_pool;
	struct dt_devmem_region *region;
	const uint8_t *alias;
	uintptr_t base;
	struct rte_mbuf *rx[NSEG + 8];
	uint16_t nb_rx;
} ts;

static uint8_t
pay_byte(uint32_t i)
{
	return (uint8_t)(i * 13 + (i >> 9));
}

static void
test_setup(void)
{
	struct dt_devmem_region_conf rc = {
		.name = "tso_payload", .nb_bufs = 64, .buf_size = 8192,
		.cache_size = 0, .socket_id = SOCKET_ID_ANY,
	};
	struct dt_dp_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mtu = 1500,
		.tx_cksum = true, .tx_multi_seg = true };
	struct rte_eth_conf conf;
	char err[256];
	int16_t gpu;

	DT_REQUIRE(rte_eth_dev_count_avail() == 2);
	ts.tx_port = rte_eth_find_next(0);
	ts.rx_port = rte_eth_find_next(ts.tx_port + 1);
	gpu = rte_gpu_find_next(0, RTE_GPU_ID_ANY);
	DT_REQUIRE(gpu >= 0);
	rc.gpu_id = gpu;
	rc.port_id = ts.tx_port;
	DT_REQUIRE(dt_devmem_region_create(&rc, &ts.region) == 0);
	ts.alias = dt_devmem_region_cpu_map(ts.region);
	DT_REQUIRE(ts.alias != NULL);
	ts.base = (uintptr_t)dt_devmem_region_base(ts.region);
	ts.tx_pool = rte_pktmbuf_pool_create("tso_tx", 256, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	ts.rx_pool = rte_pktmbuf_pool_create("tso_rx", 1024, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	DT_REQUIRE(ts.tx_pool != NULL && ts.rx_pool != NULL);
	pc.hdr_pool = ts.tx_pool;
	DT_REQUIRE(dt_dp_port_start(ts.tx_port, &pc, err, sizeof(err)) == 0);
	/* The NIC offers TSO (caps=full): port start turned it on. */
	DT_REQUIRE(rte_eth_dev_conf_get(ts.tx_port, &conf) == 0);
	DT_CHECK(conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	pc.hdr_pool = ts.rx_pool;
	DT_REQUIRE(dt_dp_port_start(ts.rx_port, &pc, err, sizeof(err)) == 0);
}

/* The header mbuf: DPDK's TSO convention, pseudo-header without length. */
static struct rte_mbuf *
tso_header(uint16_t segsz)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(ts.tx_pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *tcp;
	uint8_t *opt;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, HDRS);
	memset(eth, 0, HDRS);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(20 + L4_LEN + PAY_LEN);
	ip->packet_id = rte_cpu_to_be_16(IP_ID0);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(UINT32_C(0xc0a80101));
	ip->dst_addr = rte_cpu_to_be_32(UINT32_C(0xc0a80102));
	tcp = (struct rte_tcp_hdr *)(ip + 1);
	tcp->src_port = rte_cpu_to_be_16(4321);
	tcp->dst_port = rte_cpu_to_be_16(80);
	tcp->sent_seq = rte_cpu_to_be_32(SEQ0);
	tcp->recv_ack = rte_cpu_to_be_32(77);
	tcp->data_off = (L4_LEN / 4) << 4;
	tcp->tcp_flags = FLAGS;
	tcp->rx_win = rte_cpu_to_be_16(5000);
	opt = (uint8_t *)(tcp + 1);
	opt[0] = 1;
	opt[1] = 1;
	opt[2] = 8;
	opt[3] = 10;
	memset(opt + 4, 0x42, 8);
	m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 |
		RTE_MBUF_F_TX_IP_CKSUM;
	tcp->cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = 20;
	m->l4_len = L4_LEN;
	m->tso_segsz = segsz;
	return m;
}

/* Header + payload buffers from the device region, filled through the alias. */
static struct rte_mbuf *
tso_frame(uint16_t segsz)
{
	struct rte_mempool *dp = dt_devmem_region_pool(ts.region);
	struct rte_mbuf *m = tso_header(segsz), *last = m, *d;
	uint32_t off = 0, n, i;
	uint8_t *cpu;

	for (i = 0; m != NULL && i < PAY_BUFS; i++) {
		d = rte_pktmbuf_alloc(dp);
		if (d == NULL) {
			rte_pktmbuf_free(m);
			return NULL;
		}
		n = RTE_MIN((uint32_t)PAY_PER_BUF, (uint32_t)PAY_LEN - off);
		cpu = (uint8_t *)ts.alias + ((uintptr_t)rte_pktmbuf_mtod(d,
			uint8_t *) - ts.base);
		for (uint32_t k = 0; k < n; k++)
			cpu[k] = pay_byte(off + k);
		d->data_len = (uint16_t)n;
		last->next = d;
		last = d;
		m->nb_segs++;
		m->pkt_len += n;
		off += n;
	}
	return m;
}

/* The device address the stack sees is no-access: a CPU load kills. */
static void
test_guard(void)
{
	struct rte_mbuf *m = tso_frame(MSS);
	int status;
	pid_t pid;

	DT_REQUIRE(m != NULL && m->next != NULL);
	pid = fork();
	if (pid == 0) {
		volatile uint8_t *p = rte_pktmbuf_mtod(m->next, volatile uint8_t *);

		status = p[0];
		_exit(status == 0x7f ? 3 : 0);
	}
	DT_REQUIRE(pid > 0 && waitpid(pid, &status, 0) == pid);
	DT_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	rte_pktmbuf_free(m);
}

/* Send @p m, take what port 1 receives for a while. */
static void
send_recv(struct rte_mbuf *m, unsigned int want)
{
	uint64_t deadline = rte_rdtsc() + 2 * rte_get_tsc_hz();
	uint16_t sent = 0;

	ts.nb_rx = 0;
	while (rte_rdtsc() < deadline && (sent == 0 || ts.nb_rx < want)) {
		if (sent == 0)
			sent = rte_eth_tx_burst(ts.tx_port, 0, &m, 1);
		else
			rte_eth_tx_burst(ts.tx_port, 0, NULL, 0);
		ts.nb_rx += rte_eth_rx_burst(ts.rx_port, 0, ts.rx + ts.nb_rx,
			(uint16_t)(RTE_DIM(ts.rx) - ts.nb_rx));
	}
	DT_CHECK_EQ(sent, 1);
}

/* Segment @p k as a NIC must have cut it. */
static void
check_seg(const struct rte_mbuf *m, uint32_t k)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const struct rte_tcp_hdr *tcp = (const void *)(ip + 1);
	const uint8_t *opt = (const uint8_t *)(tcp + 1), *pay = opt + 12;
	uint32_t len = RTE_MIN((uint32_t)MSS, (uint32_t)PAY_LEN - k * MSS), i;
	uint8_t want = RTE_TCP_ACK_FLAG;

	if (k == 0)
		want |= RTE_TCP_CWR_FLAG;
	if (k == NSEG - 1)
		want |= RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG;
	DT_REQUIRE(m->nb_segs == 1 && m->pkt_len == HDRS + len);
	DT_CHECK_EQ(rte_be_to_cpu_16(ip->total_length), 20 + L4_LEN + len);
	DT_CHECK_EQ(rte_be_to_cpu_16(ip->packet_id), (uint16_t)(IP_ID0 + k));
	DT_CHECK_EQ(rte_be_to_cpu_32(tcp->sent_seq), (uint32_t)(SEQ0 + k * MSS));
	DT_CHECK_EQ(rte_be_to_cpu_32(tcp->recv_ack), 77);
	DT_CHECK_EQ(tcp->tcp_flags, want);
	DT_CHECK_EQ(tcp->data_off, (L4_LEN / 4) << 4);
	DT_CHECK(opt[2] == 8 && opt[3] == 10 && opt[4] == 0x42 && opt[11] == 0x42);
	/* Checksums recomputed here, and the receiving NIC's verdicts. */
	DT_CHECK_EQ(rte_ipv4_cksum(ip), 0);
	DT_CHECK_EQ(rte_ipv4_udptcp_cksum_verify(ip, tcp), 0);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	for (i = 0; i < len; i++)
		if (pay[i] != pay_byte(k * MSS + i)) {
			DT_CHECK_EQ(pay[i], pay_byte(k * MSS + i));
			return;
		}
}

static void
test_segments(void)
{
	struct rte_mbuf *m = tso_frame(MSS);
	uint32_t k;

	DT_REQUIRE(m != NULL);
	rte_eth_xstats_reset(ts.tx_port);
	send_recv(m, NSEG);
	DT_CHECK_EQ(ts.nb_rx, NSEG);
	for (k = 0; k < ts.nb_rx && k < NSEG; k++)
		check_seg(ts.rx[k], k);
	rte_pktmbuf_free_bulk(ts.rx, ts.nb_rx);
	DT_CHECK_EQ(dt_test_xstat(ts.tx_port, "tx_q0_tso_frames"), 1);
	DT_CHECK_EQ(dt_test_xstat(ts.tx_port, "tx_q0_tso_segs"), NSEG);
	/* Payload came through the copy engine (device memory). */
	DT_CHECK_EQ(dt_test_xstat(ts.tx_port, "tx_q0_copy_bytes"), PAY_LEN);
	/*
	 * gpu_sim's engine gathers: every segment's payload went into the
	 * wire buffers in one gather, the whole burst's one device operation.
	 */
	DT_CHECK_EQ(dt_test_xstat(ts.tx_port, "tx_q0_copy_gathers"), 1);
	DT_CHECK_EQ(dt_test_xstat(ts.tx_port, "tx_q0_copy_calls"), 1);
}

/* An MSS the profile refuses (full: 64..9728): dropped whole, counted. */
static void
test_limits(void)
{
	struct rte_mbuf *m = tso_frame(9729);

	DT_REQUIRE(m != NULL);
	rte_eth_xstats_reset(ts.tx_port);
	send_recv(m, 0);
	DT_CHECK_EQ(ts.nb_rx, 0);
	DT_CHECK_EQ(dt_test_xstat(ts.tx_port, "tx_q0_drop_tso_bad"), 1);
	DT_CHECK_EQ(dt_test_xstat(ts.tx_port, "tx_q0_tso_frames"), 0);
}

int
main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	DT_RUN(test_setup);
	DT_RUN(test_guard);
	DT_RUN(test_segments);
	DT_RUN(test_limits);
	dt_dp_port_stop(ts.rx_port);
	dt_dp_port_stop(ts.tx_port);
	DT_CHECK_EQ(dt_devmem_region_cpu_unmap(ts.region), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(ts.region), 0);
	return dt_test_summary();
}
