/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port decisions, private to lib/dp (dt_dp_mode.c): the copy mode's host
 * pool and the record of what a port was started with.
 */
#ifndef DT_DP_MODE_H
#define DT_DP_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dt_dp_port.h"

struct rte_eth_dev_info;
struct rte_eth_conf;
struct rte_mempool;

/* The whole-frame host pool of @p port in copy mode; NULL with @p err set. */
struct rte_mempool *dt_dp_mode_copy_pool(uint16_t port, uint16_t nb_rxq,
	uint16_t nb_rxd, uint32_t frame_len, char *err, size_t errlen);

/* The offload decisions of @p m from the configuration ethdev accepted. */
void dt_dp_mode_fill(struct dt_dp_port_mode *m,
	const struct rte_eth_dev_info *info, const struct rte_eth_conf *conf,
	uint16_t nb_rxq, bool steered);

#endif /* DT_DP_MODE_H */
