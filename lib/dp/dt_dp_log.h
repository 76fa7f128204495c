/* SPDX-License-Identifier: BSD-3-Clause */
/* Log type of the data-plane library (devtcp.dp). */
#ifndef DT_DP_LOG_H
#define DT_DP_LOG_H

#include <rte_log.h>

extern int dt_dp_logtype;

#define DT_DP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, dt_dp_logtype, "dp: " fmt "\n", ##__VA_ARGS__)

#endif /* DT_DP_LOG_H */
