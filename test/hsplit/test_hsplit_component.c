/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of net_hsplit: two ports on one loopback wire with real
 * EAL. Frames built here go port 0 -> port 1 with buffer split (protocol
 * and length), checksum offloads, RSS over 4 queues, nomatch, jumbo with
 * scatter, a payload pool in a copy-engine window (DMA-mapped or not), wire
 * faults, and the configurations ethdev must reject.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "dt_copy.h"
#include "dt_test.h"
#include "hsplit_parse.h"
#include "hsplit_rss.h"
#include "hsplit_test_frames.h"
#include "rte_pmd_hsplit.h"

#define NB_RXQ 4
#define HDR_ROOM (RTE_PKTMBUF_HEADROOM + 256)
#define PAY_ROOM 2048

static uint16_t tx_port, rx_port;
static struct rte_mempool *hdr_pool, *pay_pool, *tx_pool;
static uint8_t frame[9100];

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) == 0)
		rte_eth_xstats_get_by_id(port, &id, &v, 1);
	return v;
}

/* Sum of rx_q<N>_<what> over the RX queues. */
static uint64_t
xstat_rxq_sum(const char *what)
{
	char name[RTE_ETH_XSTATS_NAME_SIZE];
	uint64_t s = 0;
	int q;

	for (q = 0; q < NB_RXQ; q++) {
		snprintf(name, sizeof(name), "rx_q%d_%s", q, what);
		s += xstat(rx_port, name);
	}
	return s;
}

static int
port_conf(uint16_t port, uint16_t nb_rxq)
{
	struct rte_eth_conf conf = { 0 };

	conf.rxmode.mtu = 9000;
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
		RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_TCP |
		RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_IPV4;
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
		RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	return rte_eth_dev_configure(port, nb_rxq, 1, &conf);
}

/* (Re)configure port 1's RX queues with @p seg (nseg 0: plain hdr_pool). */
static int
rx_setup(const struct rte_eth_rxseg_split *seg, uint16_t nseg)
{
	union rte_eth_rxseg rs[10];
	struct rte_eth_rxconf rxc = { 0 };
	uint16_t q, i;
	int ret;

	rte_eth_dev_stop(rx_port);
	for (i = 0; i < nseg; i++)
		rs[i].split = seg[i];
	if (nseg) {
		rxc.offloads = RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
		rxc.rx_seg = rs;
		rxc.rx_nseg = nseg;
	}
	for (q = 0; q < NB_RXQ; q++) {
		ret = rte_eth_rx_queue_setup(rx_port, q, 512, 0, &rxc,
			nseg ? NULL : pay_pool);
		if (ret < 0)
			return ret;
	}
	rte_eth_xstats_reset(rx_port);
	return rte_eth_dev_start(rx_port);
}

static int
rx_proto_split(uint32_t proto)
{
	struct rte_eth_rxseg_split seg[2] = {
		{ .mp = hdr_pool, .proto_hdr = proto },
		{ .mp = pay_pool },
	};

	return rx_setup(seg, 2);
}

/* An mbuf chain holding @p len bytes of frame, @p nseg segments. */
static struct rte_mbuf *
mk_pkt(const uint8_t *f, uint32_t len, unsigned int nseg, uint64_t ol)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t per = (len + nseg - 1) / nseg, pos = 0;

	while (pos < len) {
		uint32_t n = RTE_MIN(per, len - pos);

		m = rte_pktmbuf_alloc(tx_pool);
		if (m == NULL)
			return NULL;
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), f + pos, n);
		if (head == NULL)
			head = m;
		else
			rte_pktmbuf_chain(head, m);
		pos += n;
	}
	head->ol_flags = ol;
	head->l2_len = 14;
	head->l3_len = 20;
	return head;
}

#define TX_CK (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM)

static int
send1(struct rte_mbuf *m)
{
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		if (rte_eth_tx_burst(tx_port, 0, &m, 1) == 1)
			return 0;
	}
	rte_pktmbuf_free(m);
	return -1;
}

/* Collect up to @p max packets from all RX queues; queue of each in @p qid. */
static unsigned int
recv_all(struct rte_mbuf **pkts, uint16_t *qid, unsigned int max)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() / 2;
	unsigned int got = 0, k, i;
	uint16_t q;

	while (got < max && rte_get_timer_cycles() < end) {
		for (q = 0; q < NB_RXQ && got < max; q++) {
			k = rte_eth_rx_burst(rx_port, q, pkts + got,
				(uint16_t)(max - got));
			for (i = 0; i < k; i++)
				qid[got + i] = q;
			got += k;
		}
	}
	return got;
}

static void
free_all(struct rte_mbuf **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_pktmbuf_free(p[i]);
}

static int
payload_ok(const struct rte_mbuf *m, uint32_t hdr, uint32_t n)
{
	uint32_t i = 0;

	for (; m != NULL && i < n; m = m->next) {
		const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t k;

		for (k = 0; k < m->data_len; k++, hdr = hdr ? hdr - 1 : 0) {
			if (hdr)
				continue;
			if (d[k] != tf_pay(i++))
				return 0;
		}
	}
	return i == n;
}

static struct tf_opts
tcp(uint16_t sport, uint16_t payload, int cksum)
{
	return (struct tf_opts){ .proto = 6, .src = 0x0a000001,
		.dst = 0x0a000002, .sport = sport, .dport = 5001,
		.payload = payload, .cksum = (uint8_t)cksum };
}

#define NPKT 64
#define M_TCP (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_TCP)

static void
test_proto_split_rss(void)
{
	struct rte_mbuf *pk[NPKT];
	uint16_t qid[NPKT];
	uint8_t ref[1100];
	unsigned int got, i, per_q[NB_RXQ] = { 0 }, used = 0;

	DT_REQUIRE(rx_proto_split(M_TCP) == 0);
	for (i = 0; i < NPKT; i++) {
		struct tf_opts o = tcp((uint16_t)(1000 + i), 1000, 0);
		uint32_t len = tf_build(frame, &o);

		DT_REQUIRE(send1(mk_pkt(frame, len, 1, TX_CK)) == 0);
	}
	got = recv_all(pk, qid, NPKT);
	DT_CHECK_EQ(got, NPKT);
	for (i = 0; i < got; i++) {
		struct rte_mbuf *m = pk[i];
		struct tf_opts o = tcp(rte_be_to_cpu_16(*(const uint16_t *)
			(rte_pktmbuf_mtod(m, const uint8_t *) + 34)), 1000, 1);
		struct hsplit_pkt_info pi;
		uint32_t h;

		tf_build(ref, &o);
		DT_CHECK_EQ(m->nb_segs, 2);
		DT_CHECK_EQ(m->pkt_len, 1054);
		DT_CHECK_EQ(m->data_len, 54);
		DT_CHECK(m->pool == hdr_pool);
		DT_CHECK(m->next != NULL && m->next->pool == pay_pool);
		DT_CHECK(m->next != NULL && m->next->data_len == 1000);
		/* Headers as sent, with the checksums the TX offload filled in. */
		DT_CHECK(memcmp(rte_pktmbuf_mtod(m, void *), ref, 54) == 0);
		DT_CHECK(payload_ok(m, 54, 1000));
		DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
		DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		DT_CHECK_EQ(m->packet_type, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP);
		DT_CHECK(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH);
		hsplit_parse(ref, 1054, &pi);
		DT_REQUIRE(hsplit_rss_hash(&pi, RTE_ETH_RSS_NONFRAG_IPV4_TCP,
			hsplit_rss_default_key, &h) == 1);
		DT_CHECK_EQ(m->hash.rss, h);
		DT_CHECK_EQ(qid[i], (h % HSPLIT_RETA_SIZE) % NB_RXQ);
		per_q[qid[i]]++;
	}
	for (i = 0; i < NB_RXQ; i++)
		used += per_q[i] > 0;
	DT_CHECK(used >= 3);
	free_all(pk, got);
	DT_CHECK_EQ(xstat_rxq_sum("split_packets"), NPKT);
	DT_CHECK_EQ(xstat_rxq_sum("header_bytes"), NPKT * 54);
	DT_CHECK_EQ(xstat_rxq_sum("payload_bytes"), NPKT * 1000);
	DT_CHECK_EQ(xstat_rxq_sum("nomatch_packets"), 0);
	DT_CHECK_EQ(xstat_rxq_sum("copy_bytes"), 0); /* host memory: no engine */
}

static void
test_rss_reta(void)
{
	struct rte_eth_rss_reta_entry64 reta[HSPLIT_RETA_SIZE / 64];
	struct rte_mbuf *pk[16];
	uint16_t qid[16];
	unsigned int i, got;

	DT_REQUIRE(rx_proto_split(M_TCP) == 0);
	/* Everything to queue 2. */
	for (i = 0; i < RTE_DIM(reta); i++) {
		reta[i].mask = UINT64_MAX;
		memset(reta[i].reta, 0, sizeof(reta[i].reta));
		for (got = 0; got < 64; got++)
			reta[i].reta[got] = 2;
	}
	DT_REQUIRE(rte_eth_dev_rss_reta_update(rx_port, reta, HSPLIT_RETA_SIZE) == 0);
	memset(reta, 0, sizeof(reta));
	reta[3].mask = 1;
	DT_REQUIRE(rte_eth_dev_rss_reta_query(rx_port, reta, HSPLIT_RETA_SIZE) == 0);
	DT_CHECK_EQ(reta[3].reta[0], 2);
	reta[0].mask = 1;
	reta[0].reta[0] = NB_RXQ;
	DT_CHECK(rte_eth_dev_rss_reta_update(rx_port, reta, HSPLIT_RETA_SIZE) < 0);
	for (i = 0; i < 16; i++) {
		struct tf_opts o = tcp((uint16_t)(7000 + i), 100, 1);

		DT_REQUIRE(send1(mk_pkt(frame, tf_build(frame, &o), 1, 0)) == 0);
	}
	got = recv_all(pk, qid, 16);
	DT_CHECK_EQ(got, 16);
	for (i = 0; i < got; i++)
		DT_CHECK_EQ(qid[i], 2);
	free_all(pk, got);
}

static void
test_bad_cksum_and_nomatch(void)
{
	struct tf_opts o = tcp(5, 300, 1);
	struct rte_mbuf *pk[4];
	uint16_t qid[4];
	uint32_t len;
	unsigned int got;

	DT_REQUIRE(rx_proto_split(M_TCP) == 0);
	len = tf_build(frame, &o);
	frame[len - 1] ^= 0x5a;       /* corrupt the payload, no TX offload */
	DT_REQUIRE(send1(mk_pkt(frame, len, 1, 0)) == 0);
	got = recv_all(pk, qid, 1);
	DT_REQUIRE(got == 1);
	DT_CHECK((pk[0]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	DT_CHECK((pk[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD);
	free_all(pk, got);
	DT_CHECK_EQ(xstat_rxq_sum("l4_cksum_errors"), 1);
	/* Corrupt IP header checksum. */
	len = tf_build(frame, &o);
	frame[14 + 10] ^= 1;
	DT_REQUIRE(send1(mk_pkt(frame, len, 1, 0)) == 0);
	got = recv_all(pk, qid, 1);
	DT_REQUIRE(got == 1);
	DT_CHECK((pk[0]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_BAD);
	free_all(pk, got);
	DT_CHECK_EQ(xstat_rxq_sum("ip_cksum_errors"), 1);
	/* ARP: nomatch=host puts it whole in a header-pool buffer. */
	len = tf_build_arp(frame);
	DT_REQUIRE(send1(mk_pkt(frame, len, 1, 0)) == 0);
	got = recv_all(pk, qid, 1);
	DT_REQUIRE(got == 1);
	DT_CHECK_EQ(pk[0]->nb_segs, 1);
	DT_CHECK(pk[0]->pool == hdr_pool);
	DT_CHECK_EQ(pk[0]->data_len, 60);
	DT_CHECK_EQ(qid[0], 0);
	DT_CHECK_EQ(pk[0]->packet_type, RTE_PTYPE_L2_ETHER_ARP);
	DT_CHECK(memcmp(rte_pktmbuf_mtod(pk[0], void *), frame, 60) == 0);
	free_all(pk, got);
	DT_CHECK_EQ(xstat_rxq_sum("nomatch_packets"), 1);
	DT_CHECK_EQ(xstat_rxq_sum("split_packets"), 2);
}

static void
test_length_split(void)
{
	struct rte_eth_rxseg_split seg[2] = {
		{ .mp = hdr_pool, .length = 64 },
		{ .mp = pay_pool },
	};
	struct tf_opts o = tcp(9, 1000, 0);
	struct rte_mbuf *pk[2];
	uint16_t qid[2];
	unsigned int got;

	DT_REQUIRE(rx_setup(seg, 2) == 0);
	DT_REQUIRE(send1(mk_pkt(frame, tf_build(frame, &o), 1, TX_CK)) == 0);
	got = recv_all(pk, qid, 1);
	DT_REQUIRE(got == 1);
	DT_CHECK_EQ(pk[0]->nb_segs, 2);
	DT_CHECK_EQ(pk[0]->data_len, 64);
	DT_CHECK_EQ(pk[0]->next->data_len, 990);
	DT_CHECK(payload_ok(pk[0], 54, 1000));
	DT_CHECK((pk[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	free_all(pk, got);
	DT_CHECK_EQ(xstat_rxq_sum("header_bytes"), 64);
	DT_CHECK_EQ(xstat_rxq_sum("payload_bytes"), 990);
}

static void
test_jumbo_scatter_multiseg_tx(void)
{
	struct tf_opts o = tcp(11, 8946, 0);
	struct rte_mbuf *pk[2], *m;
	uint16_t qid[2];
	unsigned int got, n = 0;
	uint32_t len;

	DT_REQUIRE(rx_proto_split(M_TCP) == 0);
	len = tf_build(frame, &o);
	DT_CHECK_EQ(len, 9000);
	/* Sent as a 5-segment chain: MULTI_SEGS gather on TX. */
	DT_REQUIRE(send1(mk_pkt(frame, len, 5, TX_CK)) == 0);
	got = recv_all(pk, qid, 1);
	DT_REQUIRE(got == 1);
	DT_CHECK_EQ(pk[0]->pkt_len, 9000);
	DT_CHECK_EQ(pk[0]->nb_segs, 6);
	for (m = pk[0]->next; m != NULL; m = m->next, n++)
		DT_CHECK(m->pool == pay_pool && m->data_len == (m->next ? 2048 : 8946 - 4 * 2048));
	DT_CHECK_EQ(n, 5);
	DT_CHECK(payload_ok(pk[0], 54, 8946));
	DT_CHECK((pk[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	free_all(pk, got);
}

static void
test_pure_ack(void)
{
	struct tf_opts o = tcp(12, 0, 0);
	struct rte_mbuf *pk[2];
	uint16_t qid[2];

	DT_REQUIRE(rx_proto_split(M_TCP) == 0);
	DT_REQUIRE(send1(mk_pkt(frame, tf_build(frame, &o), 1, TX_CK)) == 0);
	DT_REQUIRE(recv_all(pk, qid, 1) == 1);
	DT_CHECK_EQ(pk[0]->nb_segs, 2);
	DT_CHECK_EQ(pk[0]->data_len, 54);
	DT_CHECK_EQ(pk[0]->next->data_len, 0);
	free_all(pk, 1);
}

static void
test_ethdev_rejects(void)
{
	struct rte_eth_rxseg_split seg[9];
	union rte_eth_rxseg rs[9];
	struct rte_eth_rxconf rxc = { .offloads = RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT };
	uint32_t ptypes[16];
	unsigned int i;
	int n;

	rte_eth_dev_stop(rx_port);
	n = rte_eth_buffer_split_get_supported_hdr_ptypes(rx_port, ptypes, 16);
	DT_CHECK_EQ(n, 7);
	rxc.rx_seg = rs;
	/* seg0 length 0 in a length split. */
	rs[0].split = (struct rte_eth_rxseg_split){ .mp = hdr_pool, .length = 0 };
	rs[1].split = (struct rte_eth_rxseg_split){ .mp = pay_pool };
	rxc.rx_nseg = 2;
	DT_CHECK_EQ(rte_eth_rx_queue_setup(rx_port, 0, 512, 0, &rxc, NULL), -EINVAL);
	/* SCTP header split: not in our list. */
	rs[0].split = (struct rte_eth_rxseg_split){ .mp = hdr_pool,
		.proto_hdr = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_SCTP };
	DT_CHECK_EQ(rte_eth_rx_queue_setup(rx_port, 0, 512, 0, &rxc, NULL), -EINVAL);
	/* Nine segments, the NIC does eight. */
	for (i = 0; i < 9; i++) {
		seg[i] = (struct rte_eth_rxseg_split){ .mp = pay_pool, .length = 64 };
		rs[i].split = seg[i];
	}
	rxc.rx_nseg = 9;
	DT_CHECK_EQ(rte_eth_rx_queue_setup(rx_port, 0, 512, 0, &rxc, NULL), -EINVAL);
	/* Split without BUFFER_SPLIT. */
	rxc.offloads = 0;
	rxc.rx_nseg = 2;
	DT_CHECK_EQ(rte_eth_rx_queue_setup(rx_port, 0, 512, 0, &rxc, NULL), -EINVAL);
	/* A third port on the wire. */
	DT_CHECK(rte_vdev_init("net_hsplit_c2", "wire=cw") < 0);
	/* Plain single-pool RX still works afterwards. */
	DT_CHECK_EQ(rx_setup(NULL, 0), 0);
}

/* A payload pool inside a copy-engine window: IOMMU check, then payload via the engine. */
static void
test_engine_window(void)
{
	const size_t win = 4u << 20, elt = 2048, nb = 1024;
	struct rte_eth_rxseg_split seg[2];
	struct rte_pktmbuf_extmem ext;
	struct dt_copy_engine *ce;
	struct rte_mempool *gp;
	struct rte_eth_dev_info info;
	struct tf_opts o = tcp(21, 1500, 0);
	struct rte_mbuf *pk[2];
	uint16_t qid[2];
	void *mem;

	mem = rte_malloc("ct_window", win, 4096);
	DT_REQUIRE(mem != NULL);
	ce = dt_copy_cpu_engine_create(mem, win, mem);
	DT_REQUIRE(ce != NULL);
	DT_REQUIRE(dt_copy_registry_add(ce) == 0);
	ext = (struct rte_pktmbuf_extmem){ .buf_ptr = mem,
		.buf_iova = rte_malloc_virt2iova(mem), .buf_len = win, .elt_size = elt };
	gp = rte_pktmbuf_pool_create_extbuf("ct_win_pool", nb, 0, 0, elt, 0, &ext, 1);
	DT_REQUIRE(gp != NULL);
	seg[0] = (struct rte_eth_rxseg_split){ .mp = hdr_pool, .proto_hdr = M_TCP };
	seg[1] = (struct rte_eth_rxseg_split){ .mp = gp };
	/* Not DMA-mapped to the port: refused. */
	DT_CHECK(rx_setup(seg, 2) < 0);
	DT_REQUIRE(rte_eth_dev_info_get(rx_port, &info) == 0);
	DT_REQUIRE(rte_dev_dma_map(info.device, mem, ext.buf_iova, win) == 0);
	DT_REQUIRE(rx_setup(seg, 2) == 0);
	DT_REQUIRE(send1(mk_pkt(frame, tf_build(frame, &o), 1, TX_CK)) == 0);
	DT_REQUIRE(recv_all(pk, qid, 1) == 1);
	DT_CHECK_EQ(pk[0]->nb_segs, 2);
	DT_CHECK(pk[0]->next->pool == gp);
	DT_CHECK(RTE_MBUF_HAS_PINNED_EXTBUF(pk[0]->next));
	DT_CHECK_EQ(pk[0]->next->data_len, 1500);
	/* The engine's CPU side is the same memory here: verify through it. */
	DT_CHECK(payload_ok(pk[0], 54, 1500));
	DT_CHECK((pk[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	free_all(pk, 1);
	DT_CHECK_EQ(xstat_rxq_sum("copy_bytes"), 1500);
	DT_CHECK(xstat_rxq_sum("copy_calls") >= 1);
	/* One frame with a copy: its intake-to-return time is counted. */
	DT_CHECK_EQ(xstat_rxq_sum("copy_latency_frames"), 1);
	DT_CHECK(xstat_rxq_sum("copy_latency_cycles") > 0);
	/* Back to host pools, then tear the window down. */
	DT_CHECK_EQ(rx_proto_split(M_TCP), 0);
	rte_mempool_free(gp);
	DT_CHECK_EQ(rte_dev_dma_unmap(info.device, mem, ext.buf_iova, win), 0);
	dt_copy_registry_del(ce);
	dt_copy_engine_destroy(ce);
	rte_free(mem);
}

/*
 * A copy engine whose completions the test releases: copies are done at
 * submit, but completed() reports them only once the gate opens (a GPU
 * that has not run them yet).
 */
struct gate_chan {
	struct dt_copy_chan head;
};

static volatile bool gate_open;
static uint64_t gate_released;
static unsigned int gate_opens;    /* channels opened on the gated engine */

static struct dt_copy_chan *
gate_chan_open(struct dt_copy_engine *ce)
{
	struct gate_chan *ch = rte_zmalloc("gate_chan", sizeof(*ch), 0);

	if (ch == NULL)
		return NULL;
	gate_opens++;
	ch->head.ce = ce;
	ch->head.next_ticket = 1;
	return &ch->head;
}

static void
gate_chan_close(struct dt_copy_chan *ch)
{
	rte_free(ch);
}

static int
gate_submit(struct dt_copy_chan *ch, const struct dt_copy_op *ops, uint16_t n,
	uint64_t *ticket)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		memcpy(ops[i].dst, ops[i].src, ops[i].len);
	ch->next_ticket += n;
	ch->stats.calls++;
	ch->stats.copies += n;
	if (ticket != NULL)
		*ticket = ch->next_ticket - 1;
	return n;
}

static uint64_t
gate_completed(struct dt_copy_chan *ch)
{
	if (gate_open)
		gate_released = ch->next_ticket - 1;
	return gate_released;
}

static void
gate_destroy(struct dt_copy_engine *ce)
{
	rte_free(ce);
}

static const struct dt_copy_engine_ops gate_ops = {
	.name = "gate", .chan_open = gate_chan_open,
	.chan_close = gate_chan_close, .submit = gate_submit,
	.completed = gate_completed, .destroy = gate_destroy,
};

static void
ext_free_noop(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

/*
 * TX from device memory is asynchronous: tx_burst takes frames whose
 * payload copies have not completed and returns at once; they reach the
 * wire in order, byte-exact, on a later (here: empty) tx_burst once the
 * engine reports them done. Before, tx_burst waited for every copy.
 */
static void
test_tx_async_device(void)
{
	const unsigned int n = 40;
	const uint16_t pay = 1000;
	struct rte_mbuf_ext_shared_info *sh;
	struct dt_copy_engine *ce;
	struct rte_mbuf *tx[40], *pk[40];
	uint16_t qid[40];
	struct tf_opts o;
	unsigned int i, got;
	uint32_t len;
	uint8_t *mem, *mem2, *src;

	DT_REQUIRE(rx_proto_split(M_TCP) == 0);
	mem = rte_malloc("ct_gate", n * 2048 + 4096, 4096);
	/* A second window of the same engine: the odd frames' payload. */
	mem2 = rte_malloc("ct_gate2", n * 2048 + 4096, 4096);
	ce = rte_zmalloc("gate_ce", sizeof(*ce), 0);
	sh = rte_zmalloc("gate_sh", sizeof(*sh) * n, 0);
	DT_REQUIRE(mem != NULL && mem2 != NULL && ce != NULL && sh != NULL);
	ce->ops = &gate_ops;
	ce->base = mem;
	ce->len = n * 2048 + 4096;
	DT_REQUIRE(dt_copy_registry_add(ce) == 0);
	DT_REQUIRE(dt_copy_registry_add_range(ce, mem2, n * 2048 + 4096) == 0);
	gate_open = false;
	gate_released = 0;
	gate_opens = 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(tx_pool);
		struct rte_mbuf *d = rte_pktmbuf_alloc(tx_pool);

		DT_REQUIRE(m != NULL && d != NULL);
		o = tcp((uint16_t)(100 + i), pay, 0);
		len = tf_build(frame, &o);
		memcpy(rte_pktmbuf_append(m, 54), frame, 54);
		src = (i & 1 ? mem2 : mem) + i * 2048;
		memcpy(src, frame + 54, len - 54);
		sh[i].free_cb = ext_free_noop;
		rte_mbuf_ext_refcnt_set(&sh[i], 1);
		rte_pktmbuf_attach_extbuf(d, src, RTE_BAD_IOVA, 2048, &sh[i]);
		d->data_off = 0;
		d->data_len = (uint16_t)(len - 54);
		d->pkt_len = d->data_len;
		rte_pktmbuf_chain(m, d);
		m->ol_flags = TX_CK;
		m->l2_len = 14;
		m->l3_len = 20;
		tx[i] = m;
	}
	DT_CHECK_EQ(rte_eth_tx_burst(tx_port, 0, tx, (uint16_t)n), n);
	/* Copies not complete: nothing on the wire yet, and tx_burst returned. */
	DT_CHECK_EQ(recv_all(pk, qid, n), 0);
	/* The queue's gauge says where they are. */
	DT_CHECK_EQ(xstat(tx_port, "tx_q0_in_flight"), (uint64_t)n);
	/* Both windows are one engine: the queue opened one channel on it. */
	DT_CHECK_EQ(gate_opens, 1);
	/* The copies take 5 ms at least: the latency counter must say so. */
	rte_delay_ms(5);
	gate_open = true;
	DT_CHECK_EQ(rte_eth_tx_burst(tx_port, 0, tx, 0), 0);
	DT_CHECK_EQ(xstat(tx_port, "tx_q0_in_flight"), 0);
	got = recv_all(pk, qid, n);
	DT_CHECK_EQ(got, n);
	for (i = 0; i < got; i++) {
		const struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(pk[i],
			const struct rte_tcp_hdr *, 34);

		DT_CHECK_EQ(rte_be_to_cpu_16(th->src_port), 100 + i);
		DT_CHECK(payload_ok(pk[i], 54, pay));
	}
	free_all(pk, got);
	DT_CHECK_EQ(xstat(tx_port, "tx_q0_copy_bytes"), (uint64_t)n * pay);
	DT_CHECK(xstat(tx_port, "tx_q0_copy_latency_chunks") >= 1);
	DT_CHECK(xstat(tx_port, "tx_q0_copy_latency_cycles") >=
		xstat(tx_port, "tx_q0_copy_latency_chunks") * (rte_get_tsc_hz() / 200));
	/* ... and not a start time of 0 (minutes of TSC). */
	DT_CHECK(xstat(tx_port, "tx_q0_copy_latency_cycles") <
		xstat(tx_port, "tx_q0_copy_latency_chunks") * rte_get_tsc_hz() * 10);
	dt_copy_registry_del(ce);
	/* The port's channel on the engine goes with the next stop. */
	rte_eth_dev_stop(tx_port);
	DT_CHECK_EQ(rte_eth_dev_start(tx_port), 0);
	dt_copy_engine_destroy(ce);
	rte_free(sh);
	rte_free(mem);
	rte_free(mem2);
}

static void
test_wire_faults(void)
{
	struct rte_pmd_hsplit_wire_stats ws;
	struct rte_mbuf *pk[400];
	uint16_t qid[400];
	unsigned int i, got, out_of_order = 0;
	uint16_t prev = 0;

	DT_REQUIRE(rte_vdev_init("net_hsplit_f0", "wire=fw,loss=0.1,dup=0.1,reorder=0.1,seed=7") == 0);
	DT_REQUIRE(rte_vdev_init("net_hsplit_f1", "wire=fw") == 0);
	{
		uint16_t f0, f1, save_tx = tx_port, save_rx = rx_port;
		struct rte_eth_rxconf rxc = { 0 };

		DT_REQUIRE(rte_eth_dev_get_port_by_name("net_hsplit_f0", &f0) == 0);
		DT_REQUIRE(rte_eth_dev_get_port_by_name("net_hsplit_f1", &f1) == 0);
		DT_CHECK_EQ(rte_pmd_hsplit_peer_port(f0), f1);
		DT_REQUIRE(port_conf(f0, 1) == 0 && port_conf(f1, NB_RXQ) == 0);
		DT_REQUIRE(rte_eth_tx_queue_setup(f0, 0, 512, 0, NULL) == 0);
		DT_REQUIRE(rte_eth_rx_queue_setup(f0, 0, 512, 0, &rxc, pay_pool) == 0);
		for (i = 0; i < NB_RXQ; i++)
			DT_REQUIRE(rte_eth_rx_queue_setup(f1, (uint16_t)i, 1024, 0, &rxc, pay_pool) == 0);
		DT_REQUIRE(rte_eth_tx_queue_setup(f1, 0, 512, 0, NULL) == 0);
		DT_REQUIRE(rte_eth_dev_start(f1) == 0 && rte_eth_dev_start(f0) == 0);
		tx_port = f0;
		rx_port = f1;
		for (i = 0; i < 300; i++) {
			/* One flow: one queue, so order is observable. */
			struct tf_opts o = tcp(4242, 64, 1);

			tf_build(frame, &o);
			frame[14 + 4] = (uint8_t)(i >> 8);
			frame[14 + 5] = (uint8_t)i;
			DT_REQUIRE(send1(mk_pkt(frame, 14 + 20 + 20 + 64, 1, TX_CK)) == 0);
		}
		/* A frame held for reordering leaves after 1 ms, on the next burst. */
		rte_delay_us_block(2000);
		rte_eth_tx_burst(f0, 0, NULL, 0);
		got = recv_all(pk, qid, 400);
		DT_REQUIRE(rte_pmd_hsplit_wire_stats_get(f0, &ws) == 0);
		DT_CHECK(ws.loss > 10 && ws.loss < 60);
		DT_CHECK(ws.dup > 10 && ws.dup < 60);
		DT_CHECK(ws.reorder > 10 && ws.reorder < 60);
		/* Every frame sent arrives, less the lost, plus the duplicates. */
		DT_CHECK_EQ(got, 300 - ws.loss + ws.dup);
		DT_CHECK_EQ(xstat(f0, "wire_loss"), ws.loss);
		for (i = 0; i < got; i++) {
			const uint8_t *d = rte_pktmbuf_mtod(pk[i], const uint8_t *);
			uint16_t id = (uint16_t)(d[18] << 8 | d[19]);

			if (i && id < prev)
				out_of_order++;
			prev = id;
		}
		DT_CHECK(out_of_order > 0);
		free_all(pk, got);
		rte_eth_dev_stop(f0);
		rte_eth_dev_stop(f1);
		rte_eth_dev_close(f0);
		rte_eth_dev_close(f1);
		tx_port = save_tx;
		rx_port = save_rx;
	}
}

/* rate=1 (Gb/s): tx_burst declines rather than drops; time follows the rate. */
static void
test_pacing(void)
{
	struct rte_pmd_hsplit_wire_stats ws;
	struct tf_opts o = tcp(1, 946, 1);
	uint64_t t0, us;
	uint16_t rp;
	unsigned int i, sent = 0;

	DT_REQUIRE(rte_vdev_init("net_hsplit_r0", "rate=1") == 0);
	DT_REQUIRE(rte_eth_dev_get_port_by_name("net_hsplit_r0", &rp) == 0);
	DT_REQUIRE(port_conf(rp, 1) == 0);
	DT_REQUIRE(rte_eth_tx_queue_setup(rp, 0, 512, 0, NULL) == 0);
	DT_REQUIRE(rte_eth_rx_queue_setup(rp, 0, 512, 0, NULL, pay_pool) == 0);
	DT_REQUIRE(rte_eth_dev_start(rp) == 0);
	tf_build(frame, &o);
	t0 = rte_get_timer_cycles();
	for (i = 0; i < 2000; i++) {
		struct rte_mbuf *m = mk_pkt(frame, 1000, 1, 0);

		DT_REQUIRE(m != NULL);
		while (rte_eth_tx_burst(rp, 0, &m, 1) == 0)
			;
		sent++;
	}
	us = (rte_get_timer_cycles() - t0) * 1000000 / rte_get_timer_hz();
	DT_REQUIRE(rte_pmd_hsplit_wire_stats_get(rp, &ws) == 0);
	/* 2000 x 1024 bytes of line time at 1 Gb/s = 16.4 ms, less a 64 KB bucket. */
	DT_CHECK(us >= 14000);
	DT_CHECK(ws.paced > 0);
	DT_CHECK_EQ(ws.peer_down, sent);
	DT_CHECK_EQ(ws.loss, 0);
	rte_eth_dev_stop(rp);
	rte_eth_dev_close(rp);
}

int
main(int argc, char **argv)
{
	uint16_t nb_rxq_tx = 1;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (rte_eth_dev_get_port_by_name("net_hsplit_c0", &tx_port) != 0 ||
			rte_eth_dev_get_port_by_name("net_hsplit_c1", &rx_port) != 0) {
		fprintf(stderr, "ports net_hsplit_c0/c1 not found\n");
		return 1;
	}
	hdr_pool = rte_pktmbuf_pool_create("ct_hdr", 4096, 64, 0, HDR_ROOM, 0);
	pay_pool = rte_pktmbuf_pool_create("ct_pay", 4096, 64, 0, PAY_ROOM, 0);
	tx_pool = rte_pktmbuf_pool_create("ct_tx", 4096, 64, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (hdr_pool == NULL || pay_pool == NULL || tx_pool == NULL) {
		fprintf(stderr, "mempool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (port_conf(tx_port, nb_rxq_tx) != 0 || port_conf(rx_port, NB_RXQ) != 0 ||
			rte_eth_tx_queue_setup(tx_port, 0, 512, 0, NULL) != 0 ||
			rte_eth_rx_queue_setup(tx_port, 0, 512, 0, NULL, pay_pool) != 0 ||
			rte_eth_tx_queue_setup(rx_port, 0, 512, 0, NULL) != 0 ||
			rte_eth_dev_start(tx_port) != 0) {
		fprintf(stderr, "port setup failed\n");
		return 1;
	}
	DT_RUN(test_proto_split_rss);
	DT_RUN(test_rss_reta);
	DT_RUN(test_bad_cksum_and_nomatch);
	DT_RUN(test_length_split);
	DT_RUN(test_jumbo_scatter_multiseg_tx);
	DT_RUN(test_pure_ack);
	DT_RUN(test_ethdev_rejects);
	DT_RUN(test_engine_window);
	DT_RUN(test_tx_async_device);
	DT_RUN(test_wire_faults);
	DT_RUN(test_pacing);
	rte_eth_dev_stop(tx_port);
	rte_eth_dev_stop(rx_port);
	rte_eth_dev_close(tx_port);
	rte_eth_dev_close(rx_port);
	rte_eal_cleanup();
	return dt_test_summary();
}
