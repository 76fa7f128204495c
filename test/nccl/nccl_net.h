/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's calls as NCCL makes them, whatever ncclNet version the
 * harness took (nccl_net.c): v8, v10, v11 or v12. Versions 10+ get the
 * harness's profiler callback and a phandle per isend/irecv
 * (nccl_netprof.h), as NCCL gives them.
 */
#ifndef NCCL_NET_H
#define NCCL_NET_H

#include <stddef.h>

#include "nn_abi.h"

struct unpack_state;

/* The plugin through one table, whatever version was taken. */
struct net {
	int version;
	const struct nn_net_v8 *v8;
	const struct nn_net_v10 *v10;
	const struct nn_net_v11 *v11;
	const struct nn_net_v12 *v12;
	void *ctx;
	struct unpack_state *up; /* NULL: NCCL does not unpack */
};

/** Take ncclNetPlugin_v@p version from @p lib; 0, or -1 when it has none. */
int net_open(struct net *n, void *lib, int version);
nn_result_t net_init(struct net *n, nn_logger_t log);
/** Properties in v12's layout (older versions: what they have; rail and plane undefined). */
nn_result_t net_props(struct net *n, struct nn_props_v12 *p);
nn_result_t net_listen(struct net *n, void *h, void **l);
nn_result_t net_connect(struct net *n, void *h, void **sc);
nn_result_t net_accept(struct net *n, void *l, void **rc, void **dc);
nn_result_t net_regmr(struct net *n, void *c, void *d, size_t sz, int type,
	void **mh);
nn_result_t net_deregmr(struct net *n, void *c, void *mh);
nn_result_t net_isend(struct net *n, void *c, void *d, size_t sz, int tag,
	void *mh, void **req);
nn_result_t net_irecv(struct net *n, void *c, void *d, size_t sz, int tag,
	void *mh, void **req);
/** irecvConsumed of @p req (NULL in a version's table: ncclInternalError). */
nn_result_t net_consumed(struct net *n, void *c, void *req);
nn_result_t net_test(struct net *n, void *req, int *done, int *size);
/** closeSend (@p which 0), closeRecv (1) or closeListen (2); NULL @p c: nothing. */
nn_result_t net_close(struct net *n, void *c, int which);
/** finalize (v11+; ncclInvalidUsage before). */
nn_result_t net_finalize(struct net *n);

#endif /* NCCL_NET_H */
