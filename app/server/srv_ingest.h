/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-server's ingest consumer ([consumer] mode = ingest): other
 * processes attach over a Unix socket (dt_client.h) and take the streams.
 *
 * Who runs what: the main lcore owns the control socket (accept, hello,
 * credentials, refusals, a client's end) and the clients table; each stack
 * lcore owns its streams, the chunks they hold and its ring pair of each
 * client. They meet through each client's state word only: the main lcore
 * publishes a client (ATTACHED) after filling it, and marks it DYING when
 * its socket ends; every stack then takes back what the client held and
 * says so in its pair's reclaimed word; the main lcore frees the client
 * once every running stack has.
 */
#ifndef SRV_INGEST_H
#define SRV_INGEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dt_client_proto.h"
#include "dt_devmem_provider.h"
#include "dt_dp.h"

struct srv_ctx;
struct srv_stack;

#define SRV_INGEST_MAX_CLIENTS 64
#define SRV_INGEST_NONE UINT32_MAX

/** Client states (srv_ingest_client.state). */
enum srv_ingest_state {
	ING_FREE = 0,
	ING_ATTACHED = 1,
	ING_DYING = 2,
};

/** One slot of a ring pair: the node a descriptor names, while given out. */
struct srv_ingest_slot {
	uint32_t node;     /**< SRV_INGEST_NONE: free */
	uint16_t gen;
};

/** A client's ring pair on one stack, as the server sees it. */
struct srv_ingest_pair {
	struct dt_client_ring_idx *desc_idx, *tok_idx;
	struct dt_client_desc *desc;
	const volatile uint32_t *tok;
	uint8_t *linear;
	uint32_t desc_head;        /**< next descriptor (stack lcore) */
	uint32_t tok_tail;         /**< next token (stack lcore) */
	struct srv_ingest_slot *slots;
	uint32_t *free_slots;      /**< stack of free slot numbers */
	uint32_t nb_free;
	uint32_t held;             /**< slots given out now (telemetry) */
	uint64_t bad_tokens;       /**< tokens of slots the client does not hold */
	volatile uint32_t reclaimed; /**< stack done with a DYING client */
};

/** One attached process. */
struct srv_ingest_client {
	volatile uint32_t state;   /**< enum srv_ingest_state */
	uint32_t id;               /**< attach counter: unique per process run */
	uint16_t port;             /**< the listen port it serves */
	int fd;                    /**< control socket */
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool bye;                  /**< it said goodbye before its socket ended */
	char name[DT_CLIENT_NAME_LEN];
	uint32_t ring_size;
	void *shm;
	size_t shm_len;
	volatile uint32_t streams; /**< streams assigned now (atomic) */
	uint64_t streams_total;    /**< assigned since attach (atomic) */
	uint64_t attach_tsc;
	struct srv_ingest_pair pair[DT_CLIENT_MAX_STACKS];
};

/** Counters of the control side (main lcore). */
struct srv_ingest_stats {
	uint64_t attached, detached, died;
	uint64_t refused_version, refused_full, refused_port, refused_cred;
	uint64_t refused_other;        /**< malformed hello, no answer in time, no memory */
};

/** A connection that has not said hello yet. */
struct srv_ingest_pending {
	int fd;
	uint64_t tsc;
};

#define SRV_INGEST_PENDING 16

/** The whole ingest consumer (ctx->ingest). */
struct srv_ingest {
	struct srv_ctx *app;
	int lfd;                   /**< listening socket */
	struct dt_devmem_ipc ipc;  /**< the region, for every client */
	uint32_t next_id;
	uint32_t linear_size;      /**< bytes of a linear slot: a header buffer's room */
	uint64_t next_tsc;         /**< control polls are spaced out */
	struct srv_ingest_stats st;
	struct srv_ingest_pending pend[SRV_INGEST_PENDING];
	struct srv_ingest_client clients[SRV_INGEST_MAX_CLIENTS];
};

/** A chunk or a stream event held by a stack until its client gives it back. */
struct srv_ingest_node {
	uint64_t dp_token;         /**< DATA: dt_dp_release() it */
	uint64_t offset;           /**< DATA: region offset; OPEN: peer/ports */
	const void *host;          /**< HOST DATA: the bytes */
	uint32_t len;
	uint16_t flags;            /**< DT_CLIENT_F_* */
	uint32_t prev, next;       /**< the stream's list */
	uint32_t stream;           /**< index in the stack's stream table */
	bool given;                /**< in a client's hands (has a slot) */
};

/** A stream on one stack. */
struct srv_ingest_stream {
	bool used;
	bool dp_closed;            /**< CLOSED seen: the connection is gone */
	bool ended;                /**< FIN/RESET node queued */
	dt_dp_conn_t conn;
	uint32_t serial;           /**< the client's stream number */
	uint32_t client;           /**< index in clients[], or SRV_INGEST_NONE */
	uint32_t head, tail;       /**< node list, oldest first */
	uint32_t first_pending;    /**< first node not given out, or NONE */
	uint64_t open_info;        /**< OPEN descriptor's offset */
	uint64_t consumed;         /**< bytes given back by clients */
};

/** A stack's part (srv_stack.ing). */
struct srv_ingest_stack {
	struct srv_ingest_node *nodes;
	uint32_t nb_nodes, *free_nodes, nb_free_nodes;
	struct srv_ingest_stream *streams;
	uint32_t nb_streams;
	uint32_t *active, nb_active; /**< used stream indices */
	uint32_t serial;
	uint32_t unassigned;       /**< active streams without a client */
	uint64_t pending;          /**< nodes waiting for a slot */
	/* counters */
	uint64_t descs, data_bytes, host_copy_bytes, tokens, reoffered, resets;
	uint64_t no_node;          /**< must stay 0: the node pool is sized to every buffer */
	uint64_t reclaimed_chunks;
	uint64_t dropped_after_reset; /**< chunks of a stream reset with its dead client */
};

/* srv_ingest.c (main lcore) */
int srv_ingest_init(struct srv_ctx *ctx);
void srv_ingest_poll(struct srv_ctx *ctx);
void srv_ingest_fini(struct srv_ctx *ctx);

struct rte_tel_data;
/** /devtcp/ingest: the counters and every client (telemetry thread). */
void srv_ingest_telemetry(const struct srv_ctx *ctx, struct rte_tel_data *d);

/* srv_ingest_stack.c (stack lcores) */
int srv_ingest_stack_init(struct srv_stack *s);
void srv_ingest_stack_fini(struct srv_stack *s);
/** Take a stack event; true when it was the ingest consumer's. */
void srv_ingest_event(struct srv_stack *s, const struct dt_dp_event *ev);
/** Tokens back, dying clients, streams to assign, descriptors out. */
void srv_ingest_stack_poll(struct srv_stack *s);

#endif /* SRV_INGEST_H */
