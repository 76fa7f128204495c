/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's profiler callback (init's, since ncclNet_v10) on the plugin's
 * requests. NCCL's IB transport starts one event per QP a request is
 * posted on and stops them all in test() at completion (net_ib/p2p.cc);
 * devtcp's flows are its QPs. The descriptor is NCCL's socket one
 * (ncclProfilerNetSockDescr_v1_t, plugin id NCCL_PROFILER_NET_TYPE_SOCK |
 * 1), which NCCL's profilers already decode: devtcp has no file
 * descriptors, so its fd is the flow's index in the comm; op is
 * NCCL_SOCKET_SEND (0) or NCCL_SOCKET_RECV (1); length the flow's slice
 * of the request (a receive: of its buffer, as IB gives a receive's
 * posted length).
 *
 * NCCL's callback reads the proxy state behind @p phandle on start, and
 * stops whatever handle it is given (NULL when its profiler took no
 * event): events start only with a phandle, handles start out NULL, and
 * every start is stopped once, as NCCL's transports do.
 *
 * NCCL's example profiler keeps 8 events per proxy step, unchecked (IB
 * posts on at most 8 QPs a request: MAX_QPS_PER_REQ): with more flows,
 * event k stands for flows k, k + 8, ... and its fd is k.
 */
#include <string.h>

#include <rte_common.h>

#include "nn_netprof.h"
#include "nn_wire.h"

#define NN_SOCKET_SEND 0
#define NN_SOCKET_RECV 1

void
nn_netprof_start(struct nn_comm *c, struct nn_req *r, void *phandle)
{
	struct nn_rt *rt = nn_rt_get();
	struct nn_prof_sock_descr d;
	uint16_t i, n, k;
	uint64_t off, len;

	r->netprof_n = 0;
	if (rt == NULL || rt->prof_cb == NULL || phandle == NULL)
		return;
	n = RTE_MIN(c->nflows, (uint16_t)NN_NETPROF_EVENTS);
	for (k = 0; k < n; k++) {
		memset(&d, 0, sizeof(d));
		d.type = NN_PROF_SOCKET;
		d.sock.fd = k;
		d.sock.op = r->send ? NN_SOCKET_SEND : NN_SOCKET_RECV;
		for (i = k; i < c->nflows; i += NN_NETPROF_EVENTS) {
			nn_slice(r->size, c->nflows, i, &off, &len);
			d.sock.length += len;
		}
		r->netprof_ev[k] = NULL;
		/* The profiler reads the descriptor during the call (NCCL's
		 * socket transport passes one on its stack too). */
		rt->prof_cb(&r->netprof_ev[k], NN_PROF_NET_START, phandle,
			NN_PROF_NET_TYPE_SOCK | NN_PROF_NET_SOCK_VER, &d);
		r->netprof_n = k + 1;
	}
}

void
nn_netprof_stop(struct nn_req *r)
{
	struct nn_rt *rt = nn_rt_get();
	uint16_t i;

	if (rt == NULL || rt->prof_cb == NULL)
		return;
	for (i = 0; i < r->netprof_n; i++) {
		rt->prof_cb(&r->netprof_ev[i], NN_PROF_NET_STOP, NULL, 0, NULL);
		r->netprof_ev[i] = NULL;
	}
	r->netprof_n = 0;
}
