/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comms and requests on NCCL's side (nn_comm.c): what the entry points
 * (nn_plugin.c) build, post and collect. NCCL's threads only.
 */
#ifndef NN_COMM_H
#define NN_COMM_H

#include <stdint.h>

#include "nn_rt.h"

/** Completion ring of a comm or a listener: room for every event in flight. */
#define NN_CQ_SIZE 4096

/** Send command @p type to stack @p s (its lcore drains the ring every loop). */
static inline void
nn_cmd(struct nn_stack *s, uint32_t type, int32_t val, void *obj)
{
	nn_post_event(s->cmd, type, val, obj);
}

/**
 * A send comm to the listener of handle @p h: its parts and flows, each
 * part told to connect by its stack.
 * @return the comm, or NULL (logged)
 */
struct nn_comm *nn_comm_connect(struct nn_rt *rt, const struct nn_handle *h);

/**
 * The receive comm of listener @p l's complete pending slot @p slot; with
 * NCCL's device handle @p dh (or NULL) when it will unpack.
 * @return the comm, or NULL (its flows aborted; logged)
 */
struct nn_comm *nn_comm_accept(struct nn_rt *rt, struct nn_listener *l,
	int slot, struct nn_net_device_handle *dh);

/** Log the comm's summary, tell its stacks to close it, drop NCCL's reference. */
void nn_comm_close(struct nn_comm *c);

/** Collect the comm's completions and errors from its ring. */
void nn_comm_drain(struct nn_comm *c);

/** Log the comm's error once, after @p what. */
void nn_comm_log_error(struct nn_comm *c, const char *what);

/** NCCL's result for errno @p err: a remote error for the peer's doing. */
nn_result_t nn_err_result(int err);

/** A free request of comm @p c, reset, with the next sequence; NULL when all are busy. */
struct nn_req *nn_req_new(struct nn_comm *c);

/** Hand request @p r to every part of @p c with command @p type. */
void nn_req_post(struct nn_comm *c, struct nn_req *r, uint32_t type);

/** Add a completed request to its comm's summary (nn_comm_close). */
void nn_req_account(struct nn_comm *c, const struct nn_req *r);

#endif /* NN_COMM_H */
