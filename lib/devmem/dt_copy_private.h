/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the dt_copy library: its log type and helpers shared by the
 * engine and the registry.
 */
#ifndef DT_COPY_PRIVATE_H
#define DT_COPY_PRIVATE_H

#include <rte_log.h>

#include "dt_copy.h"

extern int dt_copy_logtype;

#define DT_COPY_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, dt_copy_logtype, "dt_copy: " fmt "\n", \
		##__VA_ARGS__)

/** Remove @p ce from the registry if it is there; 0 or -ENOENT. */
int dt_copy_registry_forget(struct dt_copy_engine *ce);

#endif /* DT_COPY_PRIVATE_H */
