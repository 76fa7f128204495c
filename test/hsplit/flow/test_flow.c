/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Unit tests of the software NIC's rte_flow (drivers/net/hsplit/hsplit_flow.c)
 * without EAL: the ops are called directly on a fake port (zeroed rte_eth_dev
 * and rte_eth_dev_data), and classification is driven with hand-made
 * hsplit_pkt_info records.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_ptype.h>
#include <rte_flow.h>
#include <ethdev_driver.h>

#include "dt_test.h"
#include "hsplit_flow.h"

#define NB_RXQ 8

/** A port as far as hsplit_flow.c can tell. */
struct fake_port {
	struct rte_eth_dev dev;
	struct rte_eth_dev_data data;
	struct hsplit_flow_table table;
	const struct rte_flow_ops *ops;
};

/* The PMD's accessor, here for the fake port. */
struct hsplit_flow_table *
hsplit_dev_flow_table(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

static struct fake_port *
port_new(uint16_t nb_rxq)
{
	struct fake_port *p = calloc(1, sizeof(*p));

	if (p == NULL)
		abort();
	p->dev.data = &p->data;
	p->data.nb_rx_queues = nb_rxq;
	p->data.dev_private = &p->table;
	snprintf(p->data.name, sizeof(p->data.name), "fake_hsplit");
	hsplit_flow_table_init(&p->table);
	if (hsplit_flow_ops_get(&p->dev, &p->ops) != 0 || p->ops == NULL)
		abort();
	return p;
}

static void
port_free(struct fake_port *p)
{
	hsplit_flow_table_fini(&p->table);
	free(p);
}

/* ---- rule builders ---------------------------------------------------- */

static const struct rte_flow_attr attr_in = { .ingress = 1 };

/** Everything a test rule may need, kept alive while the rule is used. */
struct rule {
	struct rte_flow_attr attr;
	struct rte_flow_item_eth eth, eth_m;
	struct rte_flow_item_ipv4 ip, ip_m, ip_last;
	struct rte_flow_item_tcp tcp, tcp_m;
	struct rte_flow_item_udp udp, udp_m;
	struct rte_flow_action_queue queue;
	struct rte_flow_action_rss rss;
	uint16_t rss_q[HSPLIT_FLOW_RSS_QUEUES_MAX + 1];
	struct rte_flow_item pattern[8];
	struct rte_flow_action actions[4];
	struct rte_flow_error err;
};

/** ETH / IPV4 src dst / TCP src dst  ->  QUEUE q (default masks). */
static void
rule_tcp5(struct rule *r, uint32_t prio, uint32_t sip, uint32_t dip,
	uint16_t sport, uint16_t dport, uint16_t q)
{
	memset(r, 0, sizeof(*r));
	r->attr = attr_in;
	r->attr.priority = prio;
	r->ip.hdr.src_addr = rte_cpu_to_be_32(sip);
	r->ip.hdr.dst_addr = rte_cpu_to_be_32(dip);
	r->tcp.hdr.src_port = rte_cpu_to_be_16(sport);
	r->tcp.hdr.dst_port = rte_cpu_to_be_16(dport);
	r->queue.index = q;
	r->pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	r->pattern[1] = (struct rte_flow_item){
		.type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &r->ip };
	r->pattern[2] = (struct rte_flow_item){
		.type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &r->tcp };
	r->pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
	r->actions[0] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &r->queue };
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

/** ETH / IPV4 / TCP dst  ->  QUEUE q (only the destination port matters). */
static void
rule_dport(struct rule *r, uint32_t prio, uint16_t dport, uint16_t q)
{
	memset(r, 0, sizeof(*r));
	r->attr = attr_in;
	r->attr.priority = prio;
	r->tcp.hdr.dst_port = rte_cpu_to_be_16(dport);
	r->tcp_m.hdr.dst_port = RTE_BE16(0xffff);
	r->queue.index = q;
	r->pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	r->pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	r->pattern[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_TCP,
		.spec = &r->tcp, .mask = &r->tcp_m };
	r->pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
	r->actions[0] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &r->queue };
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

/** Turns the fate of @p r into RSS over @p n queues. */
static void
rule_set_rss(struct rule *r, const uint16_t *q, uint32_t n)
{
	memcpy(r->rss_q, q, n * sizeof(*q));
	r->rss = (struct rte_flow_action_rss){
		.func = RTE_ETH_HASH_FUNCTION_DEFAULT,
		.types = RTE_ETH_RSS_NONFRAG_IPV4_TCP,
		.queue_num = n, .queue = r->rss_q,
	};
	r->actions[0] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &r->rss };
}

static int
do_validate(struct fake_port *p, struct rule *r)
{
	memset(&r->err, 0, sizeof(r->err));
	rte_errno = 0;
	return p->ops->validate(&p->dev, &r->attr, r->pattern, r->actions,
		&r->err);
}

static struct rte_flow *
do_create(struct fake_port *p, struct rule *r)
{
	memset(&r->err, 0, sizeof(r->err));
	rte_errno = 0;
	return p->ops->create(&p->dev, &r->attr, r->pattern, r->actions,
		&r->err);
}

/**
 * Both validate and create refuse @p r with @p code, error type @p type and
 * a message containing @p word; create leaves the table untouched.
 */
static bool
refused(struct fake_port *p, struct rule *r, int code,
	enum rte_flow_error_type type, const char *word)
{
	uint32_t before = p->table.nb_rules;
	bool ok = true;
	int ret;

	ret = do_validate(p, r);
	if (ret != -code || rte_errno != code || r->err.type != type ||
			r->err.message == NULL ||
			strstr(r->err.message, word) == NULL) {
		fprintf(stderr, "validate: ret %d errno %d type %d msg '%s' "
			"(want %d, %d, '%s')\n", ret, rte_errno, r->err.type,
			r->err.message ? r->err.message : "(null)", -code,
			type, word);
		ok = false;
	}
	if (do_create(p, r) != NULL || rte_errno != code ||
			r->err.type != type || p->table.nb_rules != before) {
		fprintf(stderr, "create: errno %d type %d\n", rte_errno,
			r->err.type);
		ok = false;
	}
	return ok;
}

/* ---- packet infos ----------------------------------------------------- */

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0xaa };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0xbb };

static struct hsplit_pkt_info
pkt_l4(uint32_t l4ptype, uint8_t proto, uint32_t sip, uint32_t dip,
	uint16_t sport, uint16_t dport)
{
	struct hsplit_pkt_info pi = {
		.ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | l4ptype,
		.l2_len = RTE_ETHER_HDR_LEN, .l3_len = 20,
		.l4_len = proto == IPPROTO_TCP ? 20 : 8,
		.ether_type = RTE_ETHER_TYPE_IPV4,
		.ip_proto = proto,
		.src_ip = rte_cpu_to_be_32(sip), .dst_ip = rte_cpu_to_be_32(dip),
		.src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport),
	};

	memcpy(pi.dst_mac, mac_a, 6);
	memcpy(pi.src_mac, mac_b, 6);
	return pi;
}

static struct hsplit_pkt_info
pkt_tcp(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport)
{
	return pkt_l4(RTE_PTYPE_L4_TCP, IPPROTO_TCP, sip, dip, sport, dport);
}

static struct hsplit_pkt_info
pkt_udp(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport)
{
	return pkt_l4(RTE_PTYPE_L4_UDP, IPPROTO_UDP, sip, dip, sport, dport);
}

/** Queue chosen for @p pi, or -1 when no rule matches. */
static int
classify(const struct fake_port *p, const struct hsplit_pkt_info *pi,
	uint32_t hash)
{
	uint16_t q = 0xdead;
	int hit = hsplit_flow_classify(&p->table, pi, hash, &q);

	if (!hit)
		return q == 0xdead ? -1 : -2; /* -2: queue written on a miss */
	return q;
}

#define IP_A RTE_IPV4(10, 0, 0, 1)
#define IP_B RTE_IPV4(10, 0, 0, 2)
#define IP_C UINT32_C(0xc0a80107) /* 192.168.1.7; RTE_IPV4 overflows int */

/* ---- cases ------------------------------------------------------------ */

static void
test_ops_table(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct rte_flow_error err;
	struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };

	DT_CHECK(p->ops->validate != NULL);
	DT_CHECK(p->ops->create != NULL);
	DT_CHECK(p->ops->destroy != NULL);
	DT_CHECK(p->ops->flush != NULL);
	DT_CHECK(p->ops->query != NULL);
	DT_CHECK_EQ(p->ops->query(&p->dev, NULL, &count, NULL, &err), -ENOTSUP);
	DT_CHECK(strstr(err.message, "query") != NULL);
	DT_CHECK_EQ(p->ops->isolate(&p->dev, 0, &err), 0);
	DT_CHECK_EQ(p->ops->isolate(&p->dev, 1, &err), -ENOTSUP);
	DT_CHECK(strstr(err.message, "isolated") != NULL);
	port_free(p);
}

static void
test_validate_accepts(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct rule r;
	static const uint16_t q3[] = { 1, 2, 3 };

	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	DT_CHECK_EQ(do_validate(p, &r), 0);
	/* validate installs nothing */
	DT_CHECK_EQ(p->table.nb_rules, 0);
	DT_CHECK_EQ(p->table.view[p->table.cur].nb, 0);

	rule_dport(&r, 7, 443, NB_RXQ - 1);
	DT_CHECK_EQ(do_validate(p, &r), 0);
	rule_set_rss(&r, q3, 3);
	DT_CHECK_EQ(do_validate(p, &r), 0);

	/* VOID items and actions are skipped, lower layers may be omitted */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.pattern[0].type = RTE_FLOW_ITEM_TYPE_VOID;
	r.actions[1].type = RTE_FLOW_ACTION_TYPE_VOID;
	r.actions[2].type = RTE_FLOW_ACTION_TYPE_END;
	DT_CHECK_EQ(do_validate(p, &r), 0);
	r.pattern[0] = r.pattern[2];  /* TCP alone */
	r.pattern[1].type = RTE_FLOW_ITEM_TYPE_END;
	DT_CHECK_EQ(do_validate(p, &r), 0);

	/* empty pattern: catch-all */
	r.pattern[0].type = RTE_FLOW_ITEM_TYPE_END;
	DT_CHECK_EQ(do_validate(p, &r), 0);

	/* UDP */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.udp.hdr.dst_port = RTE_BE16(4789);
	r.pattern[2] = (struct rte_flow_item){
		.type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &r.udp };
	DT_CHECK_EQ(do_validate(p, &r), 0);

	/* 'last' that is zero or equal to spec is not a range */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.pattern[1].last = &r.ip_last;
	DT_CHECK_EQ(do_validate(p, &r), 0);
	r.ip_last = r.ip;
	DT_CHECK_EQ(do_validate(p, &r), 0);

	/* masks on matchable fields: all ones or zero */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.ip_m.hdr.dst_addr = RTE_BE32(0xffffffff);
	r.ip_m.hdr.next_proto_id = 0xff;
	r.ip.hdr.next_proto_id = IPPROTO_TCP;
	r.pattern[1].mask = &r.ip_m;
	DT_CHECK_EQ(do_validate(p, &r), 0);
	port_free(p);
}

static void
test_attr_refusals(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct rule r;

	rule_dport(&r, 0, 80, 1);
	r.attr.egress = 1;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS,
		"egress"));
	r.attr.ingress = 0;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS,
		"egress"));

	rule_dport(&r, 0, 80, 1);
	r.attr.transfer = 1;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER,
		"transfer"));

	rule_dport(&r, 0, 80, 1);
	r.attr.ingress = 0;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_INGRESS,
		"ingress"));

	rule_dport(&r, 0, 80, 1);
	r.attr.group = 1;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP,
		"group"));

	rule_dport(&r, 0, 80, 1);
	DT_CHECK_EQ(p->ops->validate(&p->dev, NULL, r.pattern, r.actions,
		&r.err), -EINVAL);
	DT_CHECK_EQ(r.err.type, RTE_FLOW_ERROR_TYPE_ATTR);
	DT_CHECK_EQ(p->ops->validate(&p->dev, &r.attr, NULL, r.actions,
		&r.err), -EINVAL);
	DT_CHECK_EQ(r.err.type, RTE_FLOW_ERROR_TYPE_ITEM_NUM);
	DT_CHECK_EQ(p->ops->validate(&p->dev, &r.attr, r.pattern, NULL,
		&r.err), -EINVAL);
	DT_CHECK_EQ(r.err.type, RTE_FLOW_ERROR_TYPE_ACTION_NUM);
	port_free(p);
}

static void
test_item_refusals(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct rule r;

	/* partial mask: a /24 prefix */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.ip_m.hdr.src_addr = RTE_BE32(0xffffff00);
	r.pattern[1].mask = &r.ip_m;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		"IPV4 src_addr: partial mask"));
	DT_CHECK(r.err.cause == &r.pattern[1]);

	rule_dport(&r, 0, 80, 1);
	r.tcp_m.hdr.dst_port = RTE_BE16(0xff00);
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		"TCP dst_port: partial mask"));

	/* masked fields the NIC cannot match */
	rule_dport(&r, 0, 80, 1);
	r.tcp_m.hdr.tcp_flags = 0xff;
	r.tcp.hdr.tcp_flags = RTE_TCP_SYN_FLAG;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		"TCP tcp_flags"));
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.ip_m = rte_flow_item_ipv4_mask;
	r.ip_m.hdr.time_to_live = 0xff;
	r.pattern[1].mask = &r.ip_m;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		"IPV4 time_to_live"));
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.udp_m.hdr.dgram_len = RTE_BE16(0xffff);
	r.pattern[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_UDP,
		.spec = &r.udp, .mask = &r.udp_m };
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		"UDP dgram_len"));

	/* a real range */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.ip_last = r.ip;
	r.ip_last.hdr.dst_addr = rte_cpu_to_be_32(IP_B + 10);
	r.pattern[1].last = &r.ip_last;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		"last"));

	/* mask or last without spec */
	rule_dport(&r, 0, 80, 1);
	r.pattern[1].mask = &rte_flow_item_ipv4_mask;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		"without spec"));

	/* order: TCP before IPV4, IPV4 twice, ETH after IPV4 */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.pattern[1] = (struct rte_flow_item){
		.type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &r.tcp };
	r.pattern[2] = (struct rte_flow_item){
		.type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &r.ip };
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		"out of order"));
	DT_CHECK(r.err.cause == &r.pattern[2]);
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.pattern[2] = r.pattern[1];
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		"out of order"));
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.pattern[0] = r.pattern[1];
	r.pattern[1].type = RTE_FLOW_ITEM_TYPE_ETH;
	r.pattern[1].spec = NULL;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		"out of order"));

	/* unsupported items are named */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.pattern[1].type = RTE_FLOW_ITEM_TYPE_VLAN;
	r.pattern[1].spec = NULL;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM,
		"pattern item VLAN not supported"));
	r.pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM,
		"pattern item IPV6 not supported"));
	r.pattern[1].type = (enum rte_flow_item_type)-5; /* PMD-private */
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM,
		"not supported"));

	/* contradictions can never match: refused */
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.eth.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	r.eth_m.hdr.ether_type = RTE_BE16(0xffff);
	r.pattern[0].spec = &r.eth;
	r.pattern[0].mask = &r.eth_m;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		"contradicts"));
	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	r.ip.hdr.next_proto_id = IPPROTO_UDP;
	r.ip_m = rte_flow_item_ipv4_mask;
	r.ip_m.hdr.next_proto_id = 0xff;
	r.pattern[1].mask = &r.ip_m;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		"TCP item contradicts"));
	port_free(p);
}

static void
test_action_refusals(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct rule r;
	uint16_t many[HSPLIT_FLOW_RSS_QUEUES_MAX + 1] = { 0 };
	static const uint16_t bad[] = { 0, 1, NB_RXQ };
	static const uint8_t key[40];

	rule_dport(&r, 0, 80, NB_RXQ);
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"QUEUE index"));
	rule_dport(&r, 0, 80, 1);
	r.actions[0].conf = NULL;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"QUEUE"));

	/* the queue count is the port's at the time of the call */
	rule_dport(&r, 0, 80, 3);
	p->data.nb_rx_queues = 2;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"QUEUE index"));
	p->data.nb_rx_queues = NB_RXQ;
	DT_CHECK_EQ(do_validate(p, &r), 0);

	/* two fates */
	rule_dport(&r, 0, 80, 1);
	r.actions[1] = r.actions[0];
	r.actions[2].type = RTE_FLOW_ACTION_TYPE_END;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
		"more than one fate"));
	DT_CHECK(r.err.cause == &r.actions[1]);
	rule_set_rss(&r, bad, 2);
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
		"more than one fate"));

	/* no fate */
	rule_dport(&r, 0, 80, 1);
	r.actions[0].type = RTE_FLOW_ACTION_TYPE_VOID;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
		"no fate"));

	/* unsupported actions are named */
	rule_dport(&r, 0, 80, 1);
	r.actions[0] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_DROP };
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
		"action DROP not supported"));
	rule_dport(&r, 0, 80, 1);
	r.actions[1] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_MARK };
	r.actions[2].type = RTE_FLOW_ACTION_TYPE_END;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
		"action MARK not supported"));
	DT_CHECK(r.err.cause == &r.actions[1]);
	r.actions[1].type = RTE_FLOW_ACTION_TYPE_COUNT;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
		"action COUNT not supported"));

	/* RSS configurations */
	rule_dport(&r, 0, 80, 1);
	rule_set_rss(&r, bad, 3);
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"RSS queue index"));
	DT_CHECK(r.err.cause == &r.rss.queue[2]);
	rule_set_rss(&r, bad, 0);
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"empty queue list"));
	rule_set_rss(&r, bad, 2);
	r.rss.func = RTE_ETH_HASH_FUNCTION_SIMPLE_XOR;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"RSS func"));
	rule_set_rss(&r, bad, 2);
	r.rss.level = 2;
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"RSS level"));
	rule_set_rss(&r, many, RTE_DIM(many));
	DT_CHECK(refused(p, &r, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"longer than"));
	rule_set_rss(&r, bad, 2);
	r.rss.key_len = 40;
	DT_CHECK(refused(p, &r, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
		"key_len"));
	/* a key and types are accepted (the port's hash is used) */
	r.rss.key = key;
	r.rss.func = RTE_ETH_HASH_FUNCTION_TOEPLITZ;
	DT_CHECK_EQ(do_validate(p, &r), 0);
	rule_set_rss(&r, many, HSPLIT_FLOW_RSS_QUEUES_MAX);
	DT_CHECK_EQ(do_validate(p, &r), 0);
	port_free(p);
}

static void
test_create_destroy_flush(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct hsplit_pkt_info pi80 = pkt_tcp(IP_A, IP_B, 1000, 80);
	struct hsplit_pkt_info pi81 = pkt_tcp(IP_A, IP_B, 1000, 81);
	struct rule r80, r81;
	struct rte_flow *f80, *f81;
	struct rte_flow_error err;

	DT_CHECK_EQ(classify(p, &pi80, 0), -1);
	rule_dport(&r80, 0, 80, 5);
	rule_dport(&r81, 0, 81, 6);
	f80 = do_create(p, &r80);
	f81 = do_create(p, &r81);
	DT_REQUIRE(f80 != NULL && f81 != NULL);
	DT_CHECK(f80 != f81);
	DT_CHECK_EQ(p->table.nb_rules, 2);
	DT_CHECK_EQ(classify(p, &pi80, 0), 5);
	DT_CHECK_EQ(classify(p, &pi81, 0), 6);

	DT_CHECK_EQ(p->ops->destroy(&p->dev, f80, &err), 0);
	DT_CHECK_EQ(p->table.nb_rules, 1);
	DT_CHECK_EQ(classify(p, &pi80, 0), -1);
	DT_CHECK_EQ(classify(p, &pi81, 0), 6);

	/* stale and foreign handles */
	rte_errno = 0;
	DT_CHECK_EQ(p->ops->destroy(&p->dev, f80, &err), -EINVAL);
	DT_CHECK_EQ(rte_errno, EINVAL);
	DT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_HANDLE);
	DT_CHECK_EQ(p->ops->destroy(&p->dev, (struct rte_flow *)&r80, &err),
		-EINVAL);
	DT_CHECK_EQ(p->ops->destroy(&p->dev,
		(struct rte_flow *)((char *)f81 + 1), &err), -EINVAL);
	DT_CHECK_EQ(p->ops->destroy(&p->dev, NULL, &err), -EINVAL);
	DT_CHECK_EQ(classify(p, &pi81, 0), 6);

	f80 = do_create(p, &r80);
	DT_REQUIRE(f80 != NULL);
	DT_CHECK_EQ(classify(p, &pi80, 0), 5);
	DT_CHECK_EQ(p->ops->flush(&p->dev, &err), 0);
	DT_CHECK_EQ(p->table.nb_rules, 0);
	DT_CHECK_EQ(classify(p, &pi80, 0), -1);
	DT_CHECK_EQ(classify(p, &pi81, 0), -1);
	DT_CHECK_EQ(p->ops->destroy(&p->dev, f81, &err), -EINVAL);
	/* flushing an empty table is fine */
	DT_CHECK_EQ(p->ops->flush(&p->dev, &err), 0);

	/* fini empties the table */
	DT_REQUIRE(do_create(p, &r80) != NULL);
	hsplit_flow_table_fini(&p->table);
	DT_CHECK_EQ(classify(p, &pi80, 0), -1);
	port_free(p);
}

static void
test_classify_5tuple(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct hsplit_pkt_info pi, base = pkt_tcp(IP_A, IP_B, 1000, 80);
	struct rule r;
	unsigned int i;

	rule_tcp5(&r, 0, IP_A, IP_B, 1000, 80, 3);
	DT_REQUIRE(do_create(p, &r) != NULL);

	/* every hash: QUEUE ignores it */
	for (i = 0; i < 64; i++)
		DT_CHECK_EQ(classify(p, &base, i * 0x9e3779b9u), 3);
	/* MACs are not in the rule (empty ETH item) */
	pi = base;
	pi.dst_mac[0] ^= 0xff;
	pi.src_mac[5] ^= 0xff;
	DT_CHECK_EQ(classify(p, &pi, 0), 3);

	/* one field off: no match */
	pi = base; pi.src_ip = rte_cpu_to_be_32(IP_C);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	pi = base; pi.dst_ip = rte_cpu_to_be_32(IP_C);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	pi = base; pi.src_port = rte_cpu_to_be_16(1001);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	pi = base; pi.dst_port = rte_cpu_to_be_16(8080);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	/* swapped direction */
	pi = pkt_tcp(IP_B, IP_A, 80, 1000);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	/* same 5 numbers over UDP */
	pi = pkt_udp(IP_A, IP_B, 1000, 80);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	/* a fragment carries no L4 header */
	pi = base;
	pi.ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_FRAG;
	pi.is_fragment = 1;
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	/* an IPv6 frame with equal low words is not IPv4 */
	pi = base;
	pi.ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP;
	pi.ether_type = RTE_ETHER_TYPE_IPV6;
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	/* IPv4 with options and a VLAN tag still matches */
	pi = base;
	pi.ptype = RTE_PTYPE_L2_ETHER_VLAN | RTE_PTYPE_L3_IPV4_EXT |
		RTE_PTYPE_L4_TCP;
	pi.l2_len = RTE_ETHER_HDR_LEN + 4;
	pi.l3_len = 24;
	DT_CHECK_EQ(classify(p, &pi, 0), 3);

	/* many flows, one hits */
	for (i = 0; i < 2000; i++) {
		uint16_t sp = (uint16_t)(900 + i % 200);
		uint32_t dip = IP_B + i / 200;

		pi = pkt_tcp(IP_A, dip, sp, 80);
		DT_CHECK_EQ(classify(p, &pi, i),
			sp == 1000 && dip == IP_B ? 3 : -1);
	}
	port_free(p);
}

static void
test_classify_dport(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct hsplit_pkt_info pi;
	struct rule r, r6;
	unsigned int i;

	rule_dport(&r, 0, 5201, 2);
	DT_REQUIRE(do_create(p, &r) != NULL);
	for (i = 0; i < 500; i++) {
		pi = pkt_tcp(IP_A + i, IP_C - i, (uint16_t)(1024 + i * 97),
			i % 5 ? 5201 : 5202);
		DT_CHECK_EQ(classify(p, &pi, i), i % 5 ? 2 : -1);
	}
	pi = pkt_udp(IP_A, IP_B, 1000, 5201);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	/* TCP alone (no IPV4 item) also matches TCP over IPv6 */
	rule_dport(&r6, 1, 5201, 4);
	r6.pattern[0] = r6.pattern[2];
	r6.pattern[1].type = RTE_FLOW_ITEM_TYPE_END;
	DT_REQUIRE(do_create(p, &r6) != NULL);
	pi = pkt_tcp(0, 0, 1000, 5201);
	pi.ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP;
	pi.ether_type = RTE_ETHER_TYPE_IPV6;
	DT_CHECK_EQ(classify(p, &pi, 0), 4);
	port_free(p);
}

static void
test_classify_eth(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct hsplit_pkt_info pi, arp;
	struct rule r;

	/* ARP by EtherType -> queue 0 */
	rule_dport(&r, 0, 0, 0);
	r.eth.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	r.eth_m.hdr.ether_type = RTE_BE16(0xffff);
	r.pattern[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH,
		.spec = &r.eth, .mask = &r.eth_m };
	r.pattern[1].type = RTE_FLOW_ITEM_TYPE_END;
	DT_REQUIRE(do_create(p, &r) != NULL);
	/* dst MAC b (default ETH mask: both MACs) -> queue 7 */
	rule_dport(&r, 1, 0, 7);
	memcpy(r.eth.hdr.dst_addr.addr_bytes, mac_b, 6);
	memcpy(r.eth.hdr.src_addr.addr_bytes, mac_a, 6);
	r.pattern[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH,
		.spec = &r.eth };
	r.pattern[1].type = RTE_FLOW_ITEM_TYPE_END;
	DT_REQUIRE(do_create(p, &r) != NULL);
	/* VLAN-tagged TCP -> queue 6 */
	rule_dport(&r, 2, 0, 6);
	r.eth.has_vlan = 1;
	r.eth_m.has_vlan = 1;
	r.pattern[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH,
		.spec = &r.eth, .mask = &r.eth_m };
	r.pattern[1].type = RTE_FLOW_ITEM_TYPE_TCP;
	r.pattern[2].type = RTE_FLOW_ITEM_TYPE_END;
	DT_REQUIRE(do_create(p, &r) != NULL);

	memset(&arp, 0, sizeof(arp));
	arp.ptype = RTE_PTYPE_L2_ETHER_ARP;
	arp.l2_len = RTE_ETHER_HDR_LEN;
	arp.ether_type = RTE_ETHER_TYPE_ARP;
	DT_CHECK_EQ(classify(p, &arp, 0), 0);

	pi = pkt_tcp(IP_A, IP_B, 1, 2);   /* dst a, src b */
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	memcpy(pi.dst_mac, mac_b, 6);
	memcpy(pi.src_mac, mac_a, 6);
	DT_CHECK_EQ(classify(p, &pi, 0), 7);
	pi = pkt_tcp(IP_A, IP_B, 1, 2);
	pi.ptype = RTE_PTYPE_L2_ETHER_VLAN | RTE_PTYPE_L3_IPV4 |
		RTE_PTYPE_L4_TCP;
	pi.l2_len = RTE_ETHER_HDR_LEN + 4;
	DT_CHECK_EQ(classify(p, &pi, 0), 6);
	pi = pkt_udp(IP_A, IP_B, 1, 2);
	pi.l2_len = RTE_ETHER_HDR_LEN + 4;
	pi.vlan_tags = 1;
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	/* QinQ, told by the tag count alone */
	pi = pkt_tcp(IP_A, IP_B, 1, 2);
	pi.l2_len = RTE_ETHER_HDR_LEN + 8;
	pi.vlan_tags = 2;
	DT_CHECK_EQ(classify(p, &pi, 0), 6);
	port_free(p);
}

static void
test_priority(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct hsplit_pkt_info from_a = pkt_tcp(IP_A, IP_B, 1000, 80);
	struct hsplit_pkt_info from_c = pkt_tcp(IP_C, IP_B, 1000, 80);
	struct rule wide, narrow, tie1, tie2, catchall;
	struct rte_flow *f_narrow, *f_tie1, *f_wide;
	struct rte_flow_error err;

	/* catch-all at the lowest precedence, created first */
	rule_dport(&catchall, UINT32_MAX, 0, 7);
	catchall.pattern[0].type = RTE_FLOW_ITEM_TYPE_END;
	DT_REQUIRE(do_create(p, &catchall) != NULL);
	DT_CHECK_EQ(classify(p, &from_a, 0), 7);

	rule_dport(&wide, 5, 80, 1);
	f_wide = do_create(p, &wide);
	DT_REQUIRE(f_wide != NULL);
	/* created after the wide one, but a lower priority value */
	rule_tcp5(&narrow, 2, IP_A, IP_B, 1000, 80, 2);
	f_narrow = do_create(p, &narrow);
	DT_REQUIRE(f_narrow != NULL);
	DT_CHECK_EQ(classify(p, &from_a, 0), 2);
	DT_CHECK_EQ(classify(p, &from_c, 0), 1);

	/* ties: creation order */
	rule_dport(&tie1, 1, 80, 3);
	rule_dport(&tie2, 1, 80, 4);
	f_tie1 = do_create(p, &tie1);
	DT_REQUIRE(f_tie1 != NULL);
	DT_REQUIRE(do_create(p, &tie2) != NULL);
	DT_CHECK_EQ(classify(p, &from_a, 0), 3);
	DT_CHECK_EQ(classify(p, &from_c, 0), 3);
	DT_CHECK_EQ(p->ops->destroy(&p->dev, f_tie1, &err), 0);
	DT_CHECK_EQ(classify(p, &from_a, 0), 4);
	/* re-created: now younger than tie2, and reusing tie1's slot */
	f_tie1 = do_create(p, &tie1);
	DT_REQUIRE(f_tie1 != NULL);
	DT_CHECK_EQ(classify(p, &from_a, 0), 4);

	p->ops->flush(&p->dev, &err);
	DT_REQUIRE(do_create(p, &catchall) != NULL);
	f_wide = do_create(p, &wide);
	f_narrow = do_create(p, &narrow);
	DT_REQUIRE(f_wide != NULL && f_narrow != NULL);
	DT_CHECK_EQ(p->ops->destroy(&p->dev, f_narrow, &err), 0);
	DT_CHECK_EQ(classify(p, &from_a, 0), 1);
	DT_CHECK_EQ(p->ops->destroy(&p->dev, f_wide, &err), 0);
	DT_CHECK_EQ(classify(p, &from_a, 0), 7);
	port_free(p);
}

static void
test_rss_spread(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	static const uint16_t qs[] = { 5, 1, 6 };
	unsigned int seen[NB_RXQ] = { 0 };
	struct hsplit_pkt_info pi;
	struct rule r;
	uint32_t h;

	rule_dport(&r, 0, 9000, 0);
	rule_set_rss(&r, qs, RTE_DIM(qs));
	DT_REQUIRE(do_create(p, &r) != NULL);
	for (h = 0; h < 3000; h++) {
		uint32_t hash = h * 2654435761u;
		int q;

		pi = pkt_tcp(IP_A, IP_B, (uint16_t)h, 9000);
		q = classify(p, &pi, hash);
		DT_CHECK_EQ(q, qs[hash % RTE_DIM(qs)]);
		if (q >= 0 && q < NB_RXQ)
			seen[q]++;
	}
	DT_CHECK(seen[5] > 500 && seen[1] > 500 && seen[6] > 500);
	DT_CHECK_EQ(seen[5] + seen[1] + seen[6], 3000);
	/* not matching the rule: RSS of the rule does not apply */
	pi = pkt_tcp(IP_A, IP_B, 1, 9001);
	DT_CHECK_EQ(classify(p, &pi, 1), -1);
	port_free(p);
}

static void
test_capacity(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct rule r[HSPLIT_FLOW_MAX + 1];
	struct rte_flow *f[HSPLIT_FLOW_MAX];
	struct rte_flow_error err;
	struct hsplit_pkt_info pi;
	unsigned int i;

	for (i = 0; i < HSPLIT_FLOW_MAX; i++) {
		rule_dport(&r[i], i, (uint16_t)(7000 + i), i % NB_RXQ);
		f[i] = do_create(p, &r[i]);
		DT_REQUIRE(f[i] != NULL);
	}
	DT_CHECK_EQ(p->table.nb_rules, HSPLIT_FLOW_MAX);
	rule_dport(&r[i], 0, 80, 1);
	DT_CHECK(do_create(p, &r[i]) == NULL);
	DT_CHECK_EQ(rte_errno, ENOSPC);
	DT_CHECK(r[i].err.message != NULL &&
		strstr(r[i].err.message, "full") != NULL);
	/* validate does not reserve: still fine */
	DT_CHECK_EQ(do_validate(p, &r[i]), 0);
	for (i = 0; i < HSPLIT_FLOW_MAX; i++) {
		pi = pkt_tcp(IP_A, IP_B, 1, (uint16_t)(7000 + i));
		DT_CHECK_EQ(classify(p, &pi, 0), (int)(i % NB_RXQ));
	}
	/* a freed slot is reused */
	DT_CHECK_EQ(p->ops->destroy(&p->dev, f[10], &err), 0);
	f[10] = do_create(p, &r[HSPLIT_FLOW_MAX]);
	DT_CHECK(f[10] != NULL);
	pi = pkt_tcp(IP_A, IP_B, 1, 80);
	DT_CHECK_EQ(classify(p, &pi, 0), 1);
	pi = pkt_tcp(IP_A, IP_B, 1, 7010);
	DT_CHECK_EQ(classify(p, &pi, 0), -1);
	port_free(p);
}

/* ---- concurrency ------------------------------------------------------ */

struct churn {
	struct fake_port *p;
	unsigned int rounds;
	int failed;
	int stop;           /**< set by the reader; atomic */
};

/**
 * Control thread: rules that reorder the view (priority 0, other port) and
 * that reuse slots with different contents (priority 9, same port), created
 * and destroyed over and over while the reader classifies.
 */
static void *
churn_writer(void *arg)
{
	struct churn *c = arg;
	struct rule hi, lo;
	struct rte_flow_error err;
	unsigned int i;

	rule_dport(&hi, 0, 81, 2);
	rule_tcp5(&lo, 9, IP_A, IP_B, 1000, 80, 3);
	for (i = 0; !__atomic_load_n(&c->stop, __ATOMIC_RELAXED); i++) {
		struct rte_flow *fh = do_create(c->p, &hi);
		struct rte_flow *fl = do_create(c->p, &lo);

		if (fh == NULL || fl == NULL ||
				c->p->ops->destroy(&c->p->dev, fh, &err) != 0 ||
				c->p->ops->destroy(&c->p->dev, fl, &err) != 0)
			c->failed = 1;
		if (i % 64 == 63) {
			/* flush and restore the permanent rule */
			struct rule keep;

			rule_dport(&keep, 5, 80, 1);
			c->p->ops->flush(&c->p->dev, &err);
			if (do_create(c->p, &keep) == NULL)
				c->failed = 1;
		}
	}
	c->rounds = i;
	return NULL;
}

static void
test_concurrent_update(void)
{
	struct fake_port *p = port_new(NB_RXQ);
	struct hsplit_pkt_info pi80 = pkt_tcp(IP_A, IP_B, 1000, 80);
	struct hsplit_pkt_info pi81 = pkt_tcp(IP_A, IP_B, 1000, 81);
	struct churn c = { .p = p };
	unsigned long reads = 0, bad80 = 0, bad81 = 0, seen81 = 0, miss80 = 0;
	struct timespec t0, t;
	pthread_t th;
	struct rule keep;

	rule_dport(&keep, 5, 80, 1);
	DT_REQUIRE(do_create(p, &keep) != NULL);
	DT_REQUIRE(pthread_create(&th, NULL, churn_writer, &c) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int q80, q81, k;

		for (k = 0; k < 256; k++) {
			q80 = classify(p, &pi80, reads);
			q81 = classify(p, &pi81, reads);
			reads++;
			/* the flush window may hide the permanent rule, but
			 * nothing else may ever answer for port 80 */
			if (q80 == -1)
				miss80++;
			else if (q80 != 1)
				bad80++;
			if (q81 == 2)
				seen81++;
			else if (q81 != -1)
				bad81++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		(t.tv_nsec - t0.tv_nsec) < 400000000L);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("     %lu reads, %u writer rounds, port 81 rule seen %lu times, "
		"port 80 between flush and re-create %lu times\n",
		reads, c.rounds, seen81, miss80);
	DT_CHECK_EQ(c.failed, 0);
	DT_CHECK(c.rounds > 0);
	DT_CHECK_EQ(bad80, 0);
	DT_CHECK_EQ(bad81, 0);
	port_free(p);
}

int
main(void)
{
	DT_RUN(test_ops_table);
	DT_RUN(test_validate_accepts);
	DT_RUN(test_attr_refusals);
	DT_RUN(test_item_refusals);
	DT_RUN(test_action_refusals);
	DT_RUN(test_create_destroy_flush);
	DT_RUN(test_classify_5tuple);
	DT_RUN(test_classify_dport);
	DT_RUN(test_classify_eth);
	DT_RUN(test_priority);
	DT_RUN(test_rss_spread);
	DT_RUN(test_capacity);
	DT_RUN(test_concurrent_update);
	return dt_test_summary();
}
