/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server port's RSS as the bench's openers see it: with the receiver's
 * key and redirection table, each client connection picks a source port
 * that lands it on the server stack whose turn it is (dt_dp_connect_rss),
 * so every server stack carries its share instead of what chance gives
 * (issue 21: one of 8 stacks took no connection of 16).
 */
#include <string.h>

#include <rte_ethdev.h>

#include "bench.h"

int
bench_rss_get(uint16_t port, struct bench_rss *r)
{
	struct rte_eth_rss_reta_entry64 reta[BENCH_RSS_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_conf rc;
	struct rte_eth_dev_info info;
	uint16_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (info.hash_key_size > sizeof(r->key) || info.reta_size == 0 ||
			info.reta_size > BENCH_RSS_RETA_MAX)
		return -ENOTSUP;
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = r->key;
	rc.rss_key_len = info.hash_key_size;
	ret = rte_eth_dev_rss_hash_conf_get(port, &rc);
	if (ret != 0)
		return ret;
	r->l4 = (rc.rss_hf & RTE_ETH_RSS_NONFRAG_IPV4_TCP) != 0;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < info.reta_size / RTE_ETH_RETA_GROUP_SIZE; i++)
		reta[i].mask = UINT64_MAX;
	ret = rte_eth_dev_rss_reta_query(port, reta, info.reta_size);
	if (ret != 0)
		return ret;
	for (i = 0; i < info.reta_size; i++)
		r->reta[i] = reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i %
			RTE_ETH_RETA_GROUP_SIZE];
	r->reta_size = info.reta_size;
	return 0;
}
