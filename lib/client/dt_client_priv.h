/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal to lib/client: the client's state. */
#ifndef DT_CLIENT_PRIV_H
#define DT_CLIENT_PRIV_H

#include <stdint.h>

#include "dt_client.h"
#include "dt_client_proto.h"

#define RTE_MIN_(a, b) ((a) < (b) ? (a) : (b))

/** One ring pair as this process sees it. */
struct dt_client_pair {
	struct dt_client_ring_idx *desc_idx, *tok_idx;
	const struct dt_client_desc *desc;
	uint32_t *tok;
	uint8_t *linear;
	uint32_t desc_tail;       /**< next descriptor to read (published per poll) */
	uint32_t tok_head;        /**< next token slot (published per release batch) */
	uint16_t *held;           /**< per slot: generation + 1 while held, 0 free */
};

struct dt_client {
	int fd;
	struct dt_client_welcome w;
	void *shm;
	void *region_map;         /**< MEMFD: the read-only mapping */
	const void *base;
	int mem;                  /**< enum dt_client_mem */
	int cuda_dev;
	void *cuda;               /**< dt_client_cuda.c's state */
	uint16_t next_pair;       /**< fairness: the pair polled first */
	uint32_t idle_polls;      /**< empty polls since the last socket check */
	struct dt_client_stats st;
	struct dt_client_pair pairs[DT_CLIENT_MAX_STACKS];
};

/** Fill @p err (may be NULL) with @p code and a message; return -code. */
int dt_client_fail(struct dt_client_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** Unmap and free everything of @p c (attach failure, detach). */
void dt_client_free(struct dt_client *c);

/** CUDA region: open the IPC handle in this process (dt_client_cuda.c). */
int dt_client_cuda_open(struct dt_client *c, struct dt_client_error *err);
void dt_client_cuda_close(struct dt_client *c);

#endif /* DT_CLIENT_PRIV_H */
