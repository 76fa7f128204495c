/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's profiler callback played by the harness (nccl_netprof.c): each
 * isend/irecv gets a phandle of its own, as NCCL's proxy steps do; the
 * callback checks what the plugin starts under it and counts starts and
 * stops, and a request's events must all be stopped when test() ends it.
 */
#ifndef NCCL_NETPROF_H
#define NCCL_NETPROF_H

#include <stddef.h>
#include <stdint.h>

#include "nn_abi.h"

/** The callback init hands the plugin (ncclProfilerCallback_t). */
nn_result_t netprof_cb(void **ehandle, int type, void *phandle,
	int64_t plugin_id, void *ext);

/** A phandle for a request about to be posted (@p send, @p size bytes). */
void *netprof_phandle(int send, size_t size);

/**
 * The plugin answered the post of @p ph with request @p req (NULL: it
 * would block; then nothing may have started under @p ph).
 * @return 0, or -1 with the reason in @p why
 */
int netprof_posted(void *ph, void *req, char *why, size_t len);

/**
 * test() ended request @p req (done or failed): its events must be
 * started and stopped in pairs, one per flow (at most 8), their lengths
 * adding up to the request's size.
 * @return 0, or -1 with the reason in @p why
 */
int netprof_ended(void *req, char *why, size_t len);

/** Totals: requests posted with a phandle, events started, stopped. */
void netprof_totals(uint64_t *reqs, uint64_t *starts, uint64_t *stops);

#endif /* NCCL_NETPROF_H */
