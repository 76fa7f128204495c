/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-server and devtcp-send: the per-process context and the modules
 * that fill it (arguments, set-up, placement report, telemetry, stacks,
 * consumers, sender).
 */
#ifndef SRV_H
#define SRV_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_errno.h>
#include <rte_flow.h>
#include <rte_log.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "dt_app_sha256.h"
#include "dt_dp.h"
#include "dt_dp_port.h"
#include "srv_config.h"

extern int srv_logtype;
#define SRV_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, srv_logtype, "devtcp: " fmt "\n", ##__VA_ARGS__)

/** Program options (after "--"). */
struct srv_opts {
	const char *config;      /**< --config FILE */
	bool check_only;         /**< --check: validate the file and exit */
	double duration;         /**< --duration SEC: stop after SEC (0: until a signal) */
	double drain;            /**< --drain SEC: longest graceful close at exit */
	bool send_role;          /**< devtcp-send */
	bool send_device;        /**< --send-device: send from device memory */
	const char *capture;     /**< --capture FILE: headers-only pcapng */
};

/** Per-stream state of the consumer (the connection's udata). */
struct srv_stream {
	bool used;
	uint64_t conn;
	uint64_t bytes;
	uint64_t bad_bytes;      /**< pattern mismatches */
	uint64_t start_tsc;      /**< accepted at, for the closing log's rate */
	struct dt_app_sha256 sha;
	/* sender side */
	uint64_t to_send, queued, acked;
	uint32_t inflight;       /**< sends not yet completed */
	uint8_t *slots;          /**< pattern sender: nslots x chunk bytes */
	uint64_t slots_iova;
	uint32_t nslots, next_slot;
	bool fin_sent;
	bool connected;          /**< sender: CONNECTED seen */
	int err;                 /**< sender: errno of an ERROR event */
};

/** Consumer counters (one set per stack; copied into the snapshot). */
struct srv_consumer_stats {
	uint64_t chunks, bytes, device_bytes, host_bytes;
	uint64_t verified_bytes, bad_bytes, streams_ok, streams_bad;
	uint64_t ring_full, ring_done;
};

struct srv_ctx;
struct srv_iperf3;
struct srv_ingest;
struct srv_ingest_stack;

/** Host memory ranges registered with the GPU, at most. */
#define SRV_GPU_REGS 64

/** Connections copied per stack into the telemetry snapshot, at most. */
#define SRV_SNAP_CONNS 64

/** One connection in the telemetry snapshot. */
struct srv_conn_snap {
	uint64_t conn;
	struct dt_dp_conn_stats st;
};

/** One TCP stack (one lcore, one queue pair). */
struct srv_stack {
	struct srv_ctx *app;
	struct dt_dp_stack *st;
	unsigned int lcore;
	uint16_t port_id, queue;
	bool client;                /**< the sender role */
	struct srv_stream *streams; /**< max_conns entries */
	uint32_t nb_streams;
	struct rte_ring *to_consumer, *from_consumer; /**< ring consumer */
	struct srv_iperf3 *iperf3;  /**< iperf3 consumer (srv_iperf3.c) */
	struct srv_ingest_stack *ing; /**< ingest consumer (srv_ingest_stack.c) */
	struct srv_consumer_stats cs;
	/* Snapshot for telemetry, written by the stack's lcore. */
	rte_spinlock_t snap_lock;
	struct dt_dp_stats snap_stats;
	struct srv_consumer_stats snap_cs;
	uint32_t snap_conns;        /**< connections open */
	struct srv_conn_snap snap_conn[SRV_SNAP_CONNS];
	uint64_t snap_tsc;          /**< last snapshot */
	bool done;                  /**< loop left */
};

/** Everything one process holds. */
struct srv_ctx {
	struct srv_opts opts;
	struct srv_config cfg;
	uint16_t port_id;           /**< the server's ([stack] port) */
	uint16_t client_port_id;    /**< the sender's ([client] port) */
	int16_t gpu_id;             /**< RTE_GPU_ID_NONE: host payload */
	struct rte_mempool *hdr_pool, *shell_pool, *client_pool;
	struct dt_devmem_region *region;
	void *alias;                /**< CPU alias of the region, or NULL */
	bool port_started, client_started;
	/**
	 * dt_dp_port_start() was called, even if it failed: the port's queues
	 * may hold the pools, so teardown closes it before freeing them.
	 */
	bool port_configured, client_configured;
	/** What lib/dp decided for each started port (start-up report, telemetry). */
	struct dt_dp_port_mode port_mode, client_mode;
	struct rte_flow *flows[SRV_MAX_RULES];
	struct srv_stack stacks[SRV_MAX_STACKS + 1];
	unsigned int nb_stacks;
	const volatile sig_atomic_t *quit; /**< set by SIGINT/SIGTERM */
	uint64_t start_tsc;
	volatile bool stop;         /**< the stacks close and leave their loops */
	bool telemetry_ok, pdump_ok;
	struct srv_capture *capture; /**< --capture, or NULL */
	struct srv_ingest *ingest;  /**< [consumer] mode = ingest (srv_ingest.c), or NULL */
	uint8_t *send_buf;          /**< sender: pattern or file bytes */
	uint64_t send_buf_iova;
	size_t send_buf_len;
	/**
	 * --send-device: the payload region holding what is sent (send_buf is
	 * then its device address, never touched by the CPU) and its CPU alias,
	 * through which the data was prepared and is hashed.
	 */
	struct dt_devmem_region *send_region;
	uint8_t *send_alias;
	/**
	 * Host memory the GPU's copy engine reads or writes (the software
	 * NIC's wire pools), registered with rte_gpu_mem_register() in
	 * hugepage-aligned ranges; nb_gpu_regs of them are registered.
	 */
	struct srv_gpu_reg { void *addr; size_t len; } gpu_regs[SRV_GPU_REGS];
	unsigned int nb_gpu_regs;
	uint64_t gpu_reg_bytes;
	unsigned int gpu_reg_failed; /**< ranges the GPU refused */
};

/* srv_args.c */
/** EAL usage hook: the program's own options after EAL's (--help). */
void srv_usage_hook(const char *prog);
int srv_args_split(int argc, char **argv, int *eal_argc);
int srv_args_parse(int argc, char **argv, struct srv_opts *o);

/* srv_setup.c */
int srv_setup(struct srv_ctx *ctx);
void srv_teardown(struct srv_ctx *ctx);
int srv_assign_lcores(struct srv_ctx *ctx);
int srv_check_devices(struct srv_ctx *ctx);

/* srv_placement.c */
void srv_placement_report(const struct srv_ctx *ctx);

/* srv_capture.c: headers-only pcapng of the port (--capture) */
int srv_capture_start(struct srv_ctx *ctx, const char *path);
void srv_capture_stop(struct srv_ctx *ctx);

/* srv_telemetry.c */
int srv_telemetry_register(struct srv_ctx *ctx);

/* srv_stack.c: needs lib/dp's stack */
int srv_stacks_create(struct srv_ctx *ctx);
int srv_stacks_run(struct srv_ctx *ctx);
void srv_stacks_destroy(struct srv_ctx *ctx);
void srv_stack_snapshot(struct srv_stack *s);

/* srv_consumer.c */
int srv_consumer_init(struct srv_stack *s);
void srv_consumer_fini(struct srv_stack *s);
void srv_consumer_data(struct srv_stack *s, struct srv_stream *ss,
	const struct dt_dp_chunk *chunk);
void srv_consumer_closed(struct srv_stack *s, struct srv_stream *ss);
void srv_consumer_poll(struct srv_stack *s);
int srv_consumer_lcore(void *arg);

/* srv_client.c */
int srv_client_start(struct srv_stack *s);
void srv_client_event(struct srv_stack *s, const struct dt_dp_event *ev);
bool srv_client_done(const struct srv_stack *s);
/** Give up the streams whose peer does not answer ARP (periodic). */
void srv_client_check_arp(struct srv_stack *s);

#endif /* SRV_H */
