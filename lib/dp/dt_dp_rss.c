/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * connect()'s local port: one whose reply 4-tuple the NIC's RSS (Toeplitz
 * over the port's key, then the redirection table) sends to this stack's
 * RX queue, so that a connection's segments all reach the lcore that owns
 * it.
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_thash.h>

#include "dt_dp_log.h"
#include "dt_dp_port.h"
#include "dt_dp_priv.h"

int
dt_dp_port_rss_get(uint16_t port, struct dt_dp_port_rss *r)
{
	struct rte_eth_rss_reta_entry64 reta[RTE_DIM(r->reta) / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_conf rc;
	struct rte_eth_dev_info info;
	uint16_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (info.nb_rx_queues <= 1)
		return 0;
	if (info.hash_key_size > sizeof(r->key) ||
			info.reta_size > RTE_DIM(r->reta) || info.reta_size == 0) {
		DT_DP_LOG(ERR, "port %u: RSS key %u bytes / RETA %u entries unsupported",
			port, info.hash_key_size, info.reta_size);
		return -ENOTSUP;
	}
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = r->key;
	rc.rss_key_len = info.hash_key_size;
	ret = rte_eth_dev_rss_hash_conf_get(port, &rc);
	if (ret != 0) {
		DT_DP_LOG(ERR, "port %u: cannot read the RSS key: %s", port,
			rte_strerror(-ret));
		return ret;
	}
	r->key_len = info.hash_key_size;
	r->l4 = (rc.rss_hf & RTE_ETH_RSS_NONFRAG_IPV4_TCP) != 0;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < info.reta_size / RTE_ETH_RETA_GROUP_SIZE; i++)
		reta[i].mask = UINT64_MAX;
	ret = rte_eth_dev_rss_reta_query(port, reta, info.reta_size);
	if (ret != 0) {
		DT_DP_LOG(ERR, "port %u: cannot read the RSS table: %s", port,
			rte_strerror(-ret));
		return ret;
	}
	for (i = 0; i < info.reta_size; i++)
		r->reta[i] = reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i %
			RTE_ETH_RETA_GROUP_SIZE];
	r->reta_size = info.reta_size;
	return 0;
}

int
dt_dp_rss_init(struct dt_dp_stack *st)
{
	struct dt_dp_port_rss r;
	struct rte_eth_dev_info info;
	int ret;

	st->eph_next = (uint16_t)(DT_DP_EPH_LO +
		rte_rand_max(DT_DP_EPH_HI - DT_DP_EPH_LO + 1));
	ret = rte_eth_dev_info_get(st->conf.port_id, &info);
	if (ret != 0)
		return ret;
	st->nb_rxq = info.nb_rx_queues;
	if (st->nb_rxq <= 1)
		return 0;
	ret = dt_dp_port_rss_get(st->conf.port_id, &r);
	if (ret != 0)
		return ret;
	RTE_BUILD_BUG_ON(sizeof(r.key) > DT_DP_RSS_KEY_MAX);
	RTE_BUILD_BUG_ON(RTE_DIM(r.reta) > DT_DP_RETA_MAX);
	memcpy(st->rss_key, r.key, sizeof(r.key));
	memcpy(st->reta, r.reta, sizeof(r.reta));
	st->reta_size = r.reta_size;
	st->rss_l4 = r.l4;
	return 0;
}

/* Queue the NIC picks for a reply from raddr:rport to us:lport (host order). */
static uint16_t
rss_queue(const struct dt_dp_stack *st, uint32_t raddr, uint16_t rport,
	uint16_t lport)
{
	uint32_t t[3] = { raddr, st->ip, (uint32_t)rport << 16 | lport };
	uint32_t h = rte_softrss(t, st->rss_l4 ? 3 : 2, st->rss_key);

	return st->reta[h % st->reta_size];
}

/* Queue the peer's NIC picks for a segment from us:lport to raddr:rport. */
static uint16_t
peer_queue(const struct dt_dp_stack *st, const struct dt_dp_peer_rss *peer,
	uint32_t raddr, uint16_t rport, uint16_t lport)
{
	uint32_t t[3] = { st->ip, raddr, (uint32_t)lport << 16 | rport };
	uint32_t h = rte_softrss(t, peer->l4 ? 3 : 2, peer->key);

	return peer->reta[h % peer->reta_size];
}

int
dt_dp_rss_pick_port(struct dt_dp_stack *st, uint32_t raddr, uint16_t rport,
	const struct dt_dp_peer_rss *peer, uint16_t *lport)
{
	const uint32_t range = DT_DP_EPH_HI - DT_DP_EPH_LO + 1;
	struct dt_tcp_tuple t = { .laddr = st->ip, .raddr = raddr,
		.rport = rport };
	uint32_t k;
	uint16_t p;

	for (k = 0; k < range; k++) {
		p = st->eph_next;
		st->eph_next = p >= DT_DP_EPH_HI ? DT_DP_EPH_LO : (uint16_t)(p + 1);
		if (st->sh != NULL) {
			/* Steered by a 5-tuple rule: ports apart per queue. */
			if (p % st->sh->nb_rxq != st->conf.rxq)
				continue;
		} else if (st->nb_rxq > 1) {
			uint16_t q = rss_queue(st, raddr, rport, p);

			/* The host_queue stack of a port steered by RSS alone polls queue 0 too. */
			if (q != st->conf.rxq && !(st->host_rx && q == 0))
				continue;
		}
		if (peer != NULL && peer_queue(st, peer, raddr, rport, p) != peer->queue)
			continue;
		t.lport = p;
		if (dt_dp_conn_lookup(st, &t) != NULL || dt_dp_lst_find(st, p) != NULL)
			continue;
		*lport = p;
		return 0;
	}
	return -DT_DP_E_NOPORT;
}
