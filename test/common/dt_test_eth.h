/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ethdev helpers for component tests (EAL up, ports probed).
 */
#ifndef DT_TEST_ETH_H
#define DT_TEST_ETH_H

#include <stdint.h>

#include <rte_ethdev.h>

/* Extended statistic @p name of @p port; UINT64_MAX when there is none. */
static inline uint64_t
dt_test_xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) == 0)
		rte_eth_xstats_get_by_id(port, &id, &v, 1);
	return v;
}

#endif /* DT_TEST_ETH_H */
