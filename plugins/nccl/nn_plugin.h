/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The entry points every ncclNet version shares (nn_plugin.c), in their
 * newest form; nn_versions.c adapts them to each version's table.
 */
#ifndef NN_PLUGIN_H
#define NN_PLUGIN_H

#include <stddef.h>

#include "nn_abi.h"

/**
 * init: the process context (EAL, port, stacks) on the first call; NCCL's
 * profiler callback (v10+; NULL: none) for the requests' events.
 */
nn_result_t nn_init(nn_logger_t log, nn_prof_cb_t prof);
/** devices: one device, the port, once init succeeded. */
nn_result_t nn_devices(int *ndev);
/** getProperties, newest layout; older versions copy what they know. */
nn_result_t nn_props(int dev, struct nn_props_v12 *p);
/** listen: every stack listens; @p handle gets the address and port block. */
nn_result_t nn_listen(int dev, void *handle, void **listen_comm);
/** connect, non-blocking: *send_comm stays NULL until every flow is up. */
nn_result_t nn_connect(int dev, void *handle, void **send_comm, void **dev_comm);
/** accept, non-blocking: *recv_comm stays NULL until a comm's flows are in. */
nn_result_t nn_accept(void *listen_comm, void **recv_comm, void **dev_comm);
nn_result_t nn_reg_mr(void *comm, void *data, size_t size, int type,
	void **mhandle);
nn_result_t nn_reg_mr_dmabuf(void *comm, void *data, size_t size, int type,
	uint64_t offset, int fd, void **mhandle);
nn_result_t nn_dereg_mr(void *comm, void *mhandle);
/**
 * isend: *request stays NULL when the comm's requests are all busy;
 * @p phandle: NCCL's profiler handle of the step (v10+), or NULL.
 */
nn_result_t nn_isend(void *send_comm, void *data, size_t size, int tag,
	void *mhandle, void *phandle, void **request);
/** irecv of one buffer (maxRecvs 1) of @p size bytes; @p phandles as isend's, or NULL. */
nn_result_t nn_irecv(void *recv_comm, int n, void **data, size_t size,
	int *tags, void **mhandles, void **phandles, void **request);
nn_result_t nn_iflush(void *recv_comm, int n, void **data, int *sizes,
	void **mhandles, void **request);
nn_result_t nn_test(void *request, int *done, int *sizes);
/** irecvConsumed (device-side unpack): this receive and earlier ones are done. */
nn_result_t nn_irecv_consumed(void *recv_comm, int n, void *request);
nn_result_t nn_close_comm(void *comm);
nn_result_t nn_close_listen(void *listen_comm);

#endif /* NN_PLUGIN_H */
