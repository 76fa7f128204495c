/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's profiler on the plugin's requests (nn_netprof.c): the net-plugin
 * events of NCCL's own IB transport, one per TCP flow of a request (IB:
 * one per QP), started at isend/irecv and stopped when test() finds the
 * request done or failed. NCCL's threads only.
 */
#ifndef NN_NETPROF_H
#define NN_NETPROF_H

#include "nn_rt.h"

/**
 * Start request @p r's events, one per flow of its comm, under NCCL's
 * @p phandle (the proxy step's; NULL: NCCL profiles nothing here).
 */
void nn_netprof_start(struct nn_comm *c, struct nn_req *r, void *phandle);

/** Stop every event nn_netprof_start() started for @p r (none: nothing). */
void nn_netprof_stop(struct nn_req *r);

#endif /* NN_NETPROF_H */
