/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP: answer requests for our address, learn senders, send requests for
 * the neighbour table (dt_dp_neigh.c holds the logic) and a gratuitous ARP
 * at start.
 */
#include <string.h>

#include <rte_mbuf.h>

#include "dt_dp_priv.h"
#include "dt_net_arp.h"
#include "dt_net_eth.h"

#define ARP_FRAME_MIN 60

void
dt_dp_arp_send(struct dt_dp_stack *st, uint16_t op, uint32_t tpa,
	const uint8_t *tha)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(st->conf.hdr_pool);
	struct dt_net_eth eth;
	struct dt_net_arp arp;
	uint8_t *p;
	size_t n;

	if (m == NULL) {
		st->st.drop_tx_no_mbuf++;
		return;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, ARP_FRAME_MIN);
	memset(&eth, 0, sizeof(eth));
	if (tha != NULL)
		memcpy(eth.dst.b, tha, 6);
	else
		memset(eth.dst.b, 0xff, 6);
	memcpy(eth.src.b, st->mac, 6);
	eth.type = DT_NET_ETH_TYPE_ARP;
	n = dt_net_eth_build(p, DT_NET_ETH_HLEN, &eth);
	memset(&arp, 0, sizeof(arp));
	arp.op = op;
	memcpy(arp.sha.b, st->mac, 6);
	arp.spa = st->ip;
	if (tha != NULL)
		memcpy(arp.tha.b, tha, 6);
	arp.tpa = tpa;
	dt_net_arp_build(p + n, DT_NET_ARP_LEN, &arp);
	m->data_len = ARP_FRAME_MIN;
	m->pkt_len = ARP_FRAME_MIN;
	st->st.tx_arp++;
	dt_dp_tx_push(st, m);
}

/*
 * Send the frames that waited for @p n's address, oldest first, as far as
 * the TX buffer has room below its soft limit: a hold queue larger than
 * the TX ring (many connections' SYNs) drains over several polls instead
 * of overflowing it (dt_dp_neigh_drain() sends the rest).
 */
void
dt_dp_neigh_send_held(struct dt_dp_stack *st, struct dt_dp_neigh *n)
{
	uint32_t room = dt_dp_tx_room(st);
	struct rte_mbuf *m;

	while (room-- > 0 && (m = dt_dp_neigh_unhold(&st->neigh, n)) != NULL) {
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), n->mac, 6);
		st->st.neigh_held++;
		dt_dp_tx_push(st, m);
	}
}

/* Held frames of resolved neighbours that did not fit the TX buffer yet. */
void
dt_dp_neigh_drain(struct dt_dp_stack *st)
{
	struct dt_dp_neigh *n;
	uint32_t i;

	for (i = 0; i <= st->neigh.mask && st->neigh.hold_used > 0 &&
			dt_dp_tx_room(st) > 0; i++) {
		n = &st->neigh.e[i];
		if (n->state == DT_DP_NEIGH_REACHABLE && n->nb_held > 0)
			dt_dp_neigh_send_held(st, n);
	}
}

void
dt_dp_arp_input(struct dt_dp_stack *st, struct rte_mbuf *m, uint16_t l2_len)
{
	struct dt_dp_neigh *n;
	struct dt_net_arp arp;
	uint16_t cnt;
	bool for_us;

	st->st.rx_arp++;
	if (dt_net_arp_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *, l2_len),
			m->data_len - l2_len, &arp) != DT_NET_OK) {
		st->st.drop_bad_arp++;
		goto out;
	}
	if (arp.spa == 0 || arp.spa == st->ip || dt_net_eth_is_group(&arp.sha))
		goto out;       /* probe, our own address, or nonsense */
	for_us = arp.tpa == st->ip;
	/* Requests for us and replies to us create entries; other ARP only refreshes. */
	n = dt_dp_neigh_learn(&st->neigh, arp.spa, arp.sha.b, st->now, for_us);
	if (n != NULL) {
		/*
		 * The answer may be to another stack's request (the NIC picks
		 * the queue, not the asker): every stack of the port learns it.
		 * Our own entry is up to date with what we publish.
		 */
		if (st->psh != NULL) {
			cnt = dt_dp_sh_neigh_publish(st->psh, arp.spa, arp.sha.b);
			if (cnt != 0) {
				n->sh_count = cnt;
				st->st.neigh_published++;
			}
		}
		dt_dp_neigh_send_held(st, n);
	}
	if (for_us && arp.op == DT_NET_ARP_OP_REQUEST)
		dt_dp_arp_send(st, DT_NET_ARP_OP_REPLY, arp.spa, arp.sha.b);
out:
	rte_pktmbuf_free(m);
}

/*
 * Learn what the port's other stacks published. Called on every poll;
 * walks the table only when something was published since the last walk.
 */
void
dt_dp_neigh_sync(struct dt_dp_stack *st)
{
	uint32_t gen = __atomic_load_n(&st->psh->neigh_gen, __ATOMIC_ACQUIRE), i;
	struct dt_dp_neigh *n;

	if (gen == st->neigh_gen_seen)
		return;
	st->neigh_gen_seen = gen;
	for (i = 0; i <= st->neigh.mask; i++) {
		n = &st->neigh.e[i];
		if (n->state != DT_DP_NEIGH_FREE)
			dt_dp_neigh_from_port(st, n);
	}
}

/*
 * Take @p n's address from the port's shared table when it has news: an
 * unresolved entry, or an update (a refresh answered, a new MAC) since we
 * last took it. @return true when @p n was learned.
 */
bool
dt_dp_neigh_from_port(struct dt_dp_stack *st, struct dt_dp_neigh *n)
{
	uint8_t mac[6];
	uint16_t cnt;
	uint32_t ip = n->ip;

	if (!dt_dp_sh_neigh_lookup(st->psh, ip, mac, &cnt))
		return false;
	if (n->state == DT_DP_NEIGH_REACHABLE && cnt == n->sh_count)
		return false;
	n = dt_dp_neigh_learn(&st->neigh, ip, mac, st->now, false);
	if (n == NULL)
		return false;
	n->sh_count = cnt;
	st->st.neigh_shared++;
	dt_dp_neigh_send_held(st, n);
	return true;
}

static void
op_request(uint32_t ip, void *arg)
{
	struct dt_dp_stack *st = arg;

	st->st.arp_requests++;
	dt_dp_arp_send(st, DT_NET_ARP_OP_REQUEST, ip, NULL);
}

static void
op_drop(void *frame, void *arg)
{
	struct dt_dp_stack *st = arg;

	st->st.drop_no_neighbour++;
	rte_pktmbuf_free(frame);
}

static void
op_timeout(uint32_t ip, void *arg)
{
	struct dt_dp_stack *st = arg;

	st->st.arp_timeouts++;
	DT_DP_LOG(DEBUG, "port %u: no ARP answer from %u.%u.%u.%u",
		st->conf.port_id, ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff,
		ip & 0xff);
}

void
dt_dp_arp_tick(struct dt_dp_stack *st)
{
	const struct dt_dp_neigh_ops ops = {
		.request = op_request, .drop = op_drop, .timeout = op_timeout,
		.arg = st,
	};

	dt_dp_neigh_tick(&st->neigh, st->now, &ops);
}

void
dt_dp_arp_flush(struct dt_dp_stack *st)
{
	const struct dt_dp_neigh_ops ops = {
		.request = op_request, .drop = op_drop, .timeout = op_timeout,
		.arg = st,
	};

	dt_dp_neigh_flush(&st->neigh, &ops);
}
