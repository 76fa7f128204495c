/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Component test of rte_flow on the software NIC: two net_hsplit ports on
 * one loopback wire; rules installed through the public rte_flow API on the
 * receiving port steer frames sent by the other port to the rules' queues.
 * EAL arguments come from the command line (see meson.build); exits 77 when
 * the two ports are not there.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_flow.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "dt_test.h"

#define NB_RXQ 4
#define NB_DESC 256
#define PAYLOAD 64
#define IP_A RTE_IPV4(10, 1, 0, 1)
#define IP_B RTE_IPV4(10, 1, 0, 2)

struct ctx {
	uint16_t tx_port;
	uint16_t rx_port;
	struct rte_mempool *mp;
};

/** What arrived for one sent frame. */
struct arrival {
	int queue;       /**< -1: not received */
	int hashed;      /**< RTE_MBUF_F_RX_RSS_HASH set */
	uint32_t hash;
};

/* DT_RUN takes void (*)(void): the cases find the ports here. */
static struct ctx *the_ctx;

static int
reta_all_zero(uint16_t port, uint16_t reta_size)
{
	struct rte_eth_rss_reta_entry64 reta[RTE_ETH_RSS_RETA_SIZE_512 /
		RTE_ETH_RETA_GROUP_SIZE];
	unsigned int i;

	if (reta_size == 0 || reta_size > RTE_ETH_RSS_RETA_SIZE_512)
		return -EINVAL;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < reta_size / RTE_ETH_RETA_GROUP_SIZE; i++)
		reta[i].mask = UINT64_MAX;
	return rte_eth_dev_rss_reta_update(port, reta, reta_size);
}

static int
port_setup(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t q;
	int ret;

	/*
	 * RSS on, so that frames carry a hash (an RSS rule spreads with it),
	 * but a redirection table of zeros: frames no rule matches stay on
	 * queue 0.
	 */
	ret = rte_eth_dev_info_get(port, &info);
	if (ret < 0)
		return ret;
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
		(RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV4_UDP);
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	ret = rte_eth_dev_configure(port, NB_RXQ, 1, &conf);
	if (ret < 0)
		return ret;
	ret = reta_all_zero(port, info.reta_size);
	if (ret < 0)
		return ret;
	for (q = 0; q < NB_RXQ; q++) {
		ret = rte_eth_rx_queue_setup(port, q, NB_DESC,
			rte_eth_dev_socket_id(port), NULL, mp);
		if (ret < 0)
			return ret;
	}
	ret = rte_eth_tx_queue_setup(port, 0, NB_DESC,
		rte_eth_dev_socket_id(port), NULL);
	if (ret < 0)
		return ret;
	return rte_eth_dev_start(port);
}

/** An Ethernet/IPv4/TCP-or-UDP frame with valid checksums. */
static struct rte_mbuf *
frame(struct rte_mempool *mp, uint8_t proto, uint32_t sip, uint32_t dip,
	uint16_t sport, uint16_t dport)
{
	uint16_t l4len = proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr) :
		sizeof(struct rte_udp_hdr);
	uint16_t len = sizeof(struct rte_ether_hdr) +
		sizeof(struct rte_ipv4_hdr) + l4len + PAYLOAD;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	uint8_t *l4;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	memset(eh, 0, len);
	eh->dst_addr.addr_bytes[0] = 0x02;
	eh->dst_addr.addr_bytes[5] = 0xbb;
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = 0xaa;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(len - sizeof(*eh));
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(sip);
	ip->dst_addr = rte_cpu_to_be_32(dip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	l4 = (uint8_t *)(ip + 1);
	if (proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)l4;

		th->src_port = rte_cpu_to_be_16(sport);
		th->dst_port = rte_cpu_to_be_16(dport);
		th->data_off = 5 << 4;
		th->tcp_flags = RTE_TCP_ACK_FLAG;
		th->rx_win = RTE_BE16(65535);
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	} else {
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)l4;

		uh->src_port = rte_cpu_to_be_16(sport);
		uh->dst_port = rte_cpu_to_be_16(dport);
		uh->dgram_len = rte_cpu_to_be_16(l4len + PAYLOAD);
		uh->dgram_cksum = rte_ipv4_udptcp_cksum(ip, uh);
	}
	return m;
}

/** Source port of a received frame (both L4 headers start with it). */
static uint16_t
rx_sport(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	const rte_be16_t *ports = (const rte_be16_t *)
		((const uint8_t *)ip + rte_ipv4_hdr_len(ip));

	return rte_be_to_cpu_16(ports[0]);
}

/**
 * Sends @p n frames (source ports @p sport0 + i) and returns, per source
 * port, where each arrived in @p got.
 */
static void
send_and_receive(struct ctx *c, uint8_t proto, uint16_t sport0,
	uint16_t dport, unsigned int n, struct arrival *got)
{
	struct rte_mbuf *tx[64], *rx[64];
	uint64_t deadline;
	unsigned int i, sent = 0, seen = 0;
	uint16_t q, k, nb;

	for (i = 0; i < n; i++) {
		got[i].queue = -1;
		tx[i] = frame(c->mp, proto, IP_A, IP_B,
			(uint16_t)(sport0 + i), dport);
		DT_REQUIRE(tx[i] != NULL);
	}
	deadline = rte_get_timer_cycles() + rte_get_timer_hz();
	while (sent < n && rte_get_timer_cycles() < deadline)
		sent += rte_eth_tx_burst(c->tx_port, 0, tx + sent,
			(uint16_t)(n - sent));
	DT_CHECK_EQ(sent, n);
	if (sent < n)
		rte_pktmbuf_free_bulk(tx + sent, n - sent);
	while (seen < sent && rte_get_timer_cycles() < deadline) {
		for (q = 0; q < NB_RXQ; q++) {
			nb = rte_eth_rx_burst(c->rx_port, q, rx, RTE_DIM(rx));
			for (k = 0; k < nb; k++) {
				unsigned int idx = rx_sport(rx[k]) - sport0;

				if (idx < n) {
					got[idx].queue = q;
					got[idx].hashed = !!(rx[k]->ol_flags &
						RTE_MBUF_F_RX_RSS_HASH);
					got[idx].hash = rx[k]->hash.rss;
					seen++;
				}
				rte_pktmbuf_free(rx[k]);
			}
		}
	}
	DT_CHECK_EQ(seen, sent);
}

static struct rte_flow *
rule_5tuple(uint16_t port, uint16_t sport, uint16_t dport, uint16_t queue,
	struct rte_flow_error *err)
{
	const struct rte_flow_attr attr = { .ingress = 1 };
	const struct rte_flow_item_ipv4 ip = { .hdr = {
		.src_addr = RTE_BE32(IP_A), .dst_addr = RTE_BE32(IP_B) } };
	const struct rte_flow_item_tcp tcp = { .hdr = {
		.src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport) } };
	const struct rte_flow_action_queue q = { .index = queue };
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	return rte_flow_create(port, &attr, pattern, actions, err);
}

static struct rte_flow *
rule_udp_dport_rss(uint16_t port, uint16_t dport, struct rte_flow_error *err)
{
	static const uint16_t queues[] = { 1, 2 };
	const struct rte_flow_attr attr = { .ingress = 1 };
	const struct rte_flow_item_udp udp = { .hdr = {
		.dst_port = rte_cpu_to_be_16(dport) } };
	const struct rte_flow_item_udp mask = { .hdr = {
		.dst_port = RTE_BE16(0xffff) } };
	const struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.queue_num = RTE_DIM(queues), .queue = queues,
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp, .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	return rte_flow_create(port, &attr, pattern, actions, err);
}

static void
test_api_refusals(void)
{
	struct ctx *c = the_ctx;
	struct rte_flow_error err;
	const struct rte_flow_attr egress = { .egress = 1 };
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_END } };
	const struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END } };
	const struct rte_flow_action_queue q = { .index = NB_RXQ };
	const struct rte_flow_action bad_q[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END } };
	const struct rte_flow_attr in = { .ingress = 1 };

	DT_CHECK_EQ(rte_flow_validate(c->rx_port, &egress, pattern, bad_q,
		&err), -ENOTSUP);
	DT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS);
	DT_CHECK_EQ(rte_flow_validate(c->rx_port, &in, pattern, drop, &err),
		-ENOTSUP);
	DT_CHECK(err.message != NULL && strstr(err.message, "DROP") != NULL);
	DT_CHECK(rte_flow_create(c->rx_port, &in, pattern, bad_q, &err) == NULL);
	DT_CHECK_EQ(rte_errno, EINVAL);
	DT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ACTION_CONF);
}

static void
test_steering(void)
{
	struct ctx *c = the_ctx;
	struct rte_flow_error err;
	struct rte_flow *f5, *fu;
	static const uint16_t rss_q[] = { 1, 2 };
	struct arrival got[32];
	unsigned int i, on1 = 0, on2 = 0;

	/* no rule: everything lands on queue 0 (redirection table of zeros) */
	send_and_receive(c, IPPROTO_TCP, 1000, 80, 8, got);
	for (i = 0; i < 8; i++)
		DT_CHECK_EQ(got[i].queue, 0);

	f5 = rule_5tuple(c->rx_port, 1003, 80, 3, &err);
	DT_REQUIRE(f5 != NULL);
	fu = rule_udp_dport_rss(c->rx_port, 4789, &err);
	DT_REQUIRE(fu != NULL);

	/* TCP sports 1000..1007 to port 80: only 1003 matches the rule */
	send_and_receive(c, IPPROTO_TCP, 1000, 80, 8, got);
	for (i = 0; i < 8; i++)
		DT_CHECK_EQ(got[i].queue, i == 3 ? 3 : 0);
	/* same 5 numbers, other destination port: no rule */
	send_and_receive(c, IPPROTO_TCP, 1003, 81, 1, got);
	DT_CHECK_EQ(got[0].queue, 0);
	/* UDP to 4789: the RSS rule spreads them by hash over {1, 2} */
	send_and_receive(c, IPPROTO_UDP, 2000, 4789, 32, got);
	for (i = 0; i < 32; i++) {
		uint32_t h = got[i].hashed ? got[i].hash : 0;

		DT_CHECK_EQ(got[i].queue, rss_q[h % RTE_DIM(rss_q)]);
		on1 += got[i].queue == 1;
		on2 += got[i].queue == 2;
	}
	printf("     RSS rule: %u frames on queue 1, %u on queue 2 (hash %s)\n",
		on1, on2, got[0].hashed ? "delivered" : "not delivered");

	/* destroyed: back to queue 0 */
	DT_CHECK_EQ(rte_flow_destroy(c->rx_port, f5, &err), 0);
	send_and_receive(c, IPPROTO_TCP, 1003, 80, 1, got);
	DT_CHECK_EQ(got[0].queue, 0);
	DT_CHECK_EQ(rte_flow_flush(c->rx_port, &err), 0);
	send_and_receive(c, IPPROTO_UDP, 2000, 4789, 4, got);
	for (i = 0; i < 4; i++)
		DT_CHECK_EQ(got[i].queue, 0);
}

int
main(int argc, char **argv)
{
	struct ctx c = { 0 };
	uint16_t port, nb = 0;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		DT_TEST_SKIP("EAL init failed: %s", rte_strerror(rte_errno));
	RTE_ETH_FOREACH_DEV(port) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(port, &info) != 0 ||
				strcmp(info.driver_name, "net_hsplit") != 0)
			continue;
		if (nb++ == 0)
			c.tx_port = port;
		else
			c.rx_port = port;
	}
	if (nb != 2) {
		rte_eal_cleanup();
		DT_TEST_SKIP("need two net_hsplit ports on one wire, found %u",
			nb);
	}
	c.mp = rte_pktmbuf_pool_create("flow_mp", 4095, 64, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (c.mp == NULL) {
		printf("FAIL: mempool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (port_setup(c.tx_port, c.mp) < 0 || port_setup(c.rx_port, c.mp) < 0) {
		printf("FAIL: port setup: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	the_ctx = &c;
	DT_RUN(test_api_refusals);
	DT_RUN(test_steering);
	ret = dt_test_summary();
	rte_eth_dev_stop(c.rx_port);
	rte_eth_dev_stop(c.tx_port);
	rte_eth_dev_close(c.rx_port);
	rte_eth_dev_close(c.tx_port);
	rte_mempool_free(c.mp);
	rte_eal_cleanup();
	return ret;
}
