/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of devtcp-bench's TCP modes share (bench_tcp.c: the run,
 * its loops and set-up; bench_tcp_ends.c: the server and client ends'
 * event handling; bench_tcp_stats.c: the run's figures). Not for the other
 * modes: they see bench.h only.
 */
#ifndef BENCH_TCP_PRIV_H
#define BENCH_TCP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "dt_dp.h"
#include "dt_dp_port.h"

#include "dt_dp_port.h"

#define BT_CLI_IP RTE_IPV4(10, 0, 0, 1)
#define BT_SRV_IP RTE_IPV4(10, 0, 0, 2)
#define BT_SRV_PORT 5001
#define BT_EV_BATCH 64
#define BT_COPY_BATCH 128        /* HOST chunks copied per engine batch */
#define BT_MAX_STACKS BENCH_MAX_STACKS /* per side */
#define BT_NB_DESC 2048          /* RX/TX descriptors per queue */
#define BT_VERIFY_HOLD (BT_NB_DESC / 8) /* held chunks that trigger a check */
#define BT_DRAIN_S 10            /* after --duration: most seconds to finish */

/* One connection as the bench sees it (client or server end). */
struct bt_conn {
	dt_dp_conn_t id;
	uint32_t start;          /* pattern offset of stream byte 0 */
	uint64_t total;          /* client: bytes to send (UINT64_MAX: until stopped) */
	uint64_t queued, acked;  /* client */
	uint64_t rx;             /* server: bytes delivered */
	uint64_t rtx;            /* client: retransmits counted so far */
	bool connected, shut, peer_closed, closed, failed;
};

struct bt_run;

/* One stack and the connections on it; touched by its lcore only. */
struct bt_side {
	struct bt_run *run;
	struct dt_dp_stack *st;
	bool server;
	struct bt_conn *conns;
	uint32_t cap;            /* slots in conns[] */
	uint32_t nb;             /* opened (client) / accepted (server) */
	uint32_t to_open;        /* client: connections this stack opens */
	uint32_t nb_connected, nb_shut;
	uint64_t next_sample;    /* client: TSC of the next retransmit sample */
	/* Server: verification and the copies of HOST chunks. */
	struct bench_verifier *ver_rx;   /* DEVICE chunks, in the RX region */
	struct bench_verifier *ver_land; /* landed copies, in the landing region */
	struct bench_result vres;        /* where both verifiers account */
	struct dt_copy_chan *ch;
	uint32_t nops, nvs;
	/* This stack's slice of the landing region (stacks never share one). */
	uintptr_t land_base;
	size_t land_len;
	uint64_t land_off;
	struct dt_copy_op ops[BT_COPY_BATCH];
	uint64_t tok[BT_COPY_BATCH];
	struct bench_vseg vs[2 * BT_COPY_BATCH]; /* a chunk may wrap the pattern */
	/* Counters, read by the main lcore for the progress line. */
	volatile uint64_t rx_bytes, frames, retransmits;
	uint64_t cycles;         /* server: poll work that received or handled something */
	uint64_t device_bytes, host_bytes, copy_errors, errors;
};

/* State of one run, shared by its lcores. */
struct bt_run {
	const struct bench_tcp_env *env;
	enum bench_mode mode;
	uint32_t conns;
	uint16_t nsrv, ncli;     /* server and client stacks */
	uint64_t hz, t0, t_stop, t_eof, t_next_print;
	struct bench_result *res;  /* the run's samples go there (main lcore) */
	struct bench_sampler sp;   /* where the next sample starts */
	uint8_t *tx_base;        /* the send pattern: host or device address */
	uint64_t tx_iova;
	bool tx_device;
	uintptr_t land_base;
	size_t land_len;
	volatile bool stop_sending, abort;
	uint32_t cli_closed, srv_accepted, srv_closed, srv_eof; /* __atomic */
	struct bt_side sides[2 * BT_MAX_STACKS];
	unsigned int lcore_of[2 * BT_MAX_STACKS]; /* the lcore polling each side */
	struct dt_dp_port_rss srss; /* the server port's RSS (several server stacks) */
	bool srss_ok;
	unsigned int nb_sides;
};

/* What one lcore polls. */
struct bt_lcore {
	struct bt_run *run;
	struct bt_side *sides[2 * BT_MAX_STACKS];
	unsigned int nb;
	bool main;
};

static inline uint32_t
bt_start(uint16_t client_port)
{
	return (uint32_t)((client_port * 7919u) % BENCH_TCP_PAT_LEN);
}

/* bench_tcp_ends.c: the connection ends */
/* Verifier callback: the checked chunks go back to the stack. */
void bench_tcp_release_tokens(void *arg, const uint64_t *tok, uint32_t n);
/*
 * Copy the queued HOST chunks into the landing region, wait for them to
 * land, release them, then hand the landed bytes to the verifier.
 */
void bench_tcp_copy_flush(struct bt_side *s);
/* A HOST chunk: queue its copy into the landing region (a ring). */
void bench_tcp_land(struct bt_side *s, const struct dt_dp_chunk *ch,
	uint32_t pos);
/* The server end: accepts, chunks (verified, HOST ones landed), closes. */
void bench_tcp_srv_event(struct bt_side *s, const struct dt_dp_event *ev);
/* Queue sends on @p c until the stack refuses more; FIN once all is queued. */
void bench_tcp_cli_fill(struct bt_side *s, struct bt_conn *c);
/* Retransmissions of @p c since the last sample (its stats go with it). */
void bench_tcp_cli_sample(struct bt_side *s, struct bt_conn *c);
/*
 * Connection g of the run (client stack ci's j-th is g = ci + j * clients)
 * goes to server stack g % servers: a source port the server's RSS sends
 * there, so every server stack carries its share.
 */
int bench_tcp_cli_connect(struct bt_side *s, struct bt_conn *c);
/* Open the client stack's next connections, as many as it may now. */
void bench_tcp_cli_open(struct bt_side *s);
/* The client end: connected, acknowledged (sent more), closed, errors. */
void bench_tcp_cli_event(struct bt_side *s, const struct dt_dp_event *ev);

/* bench_tcp.c, bench_tcp_stats.c: the run's counters and figures */
/* The live counters of every side: payload, frames received, retransmissions. */
void bench_tcp_run_totals(const struct bt_run *run, uint64_t *bytes,
	uint64_t *frames, uint64_t *rtx);
/* Everything the run measured, once every lcore is back. */
void bench_tcp_collect(struct bt_run *run, struct bench_result *res);
/*
 * The interval from the last sample to the end of the run: every lcore is
 * back and the counters are final, so the samples add up to the run.
 */
void bench_tcp_last_sample(struct bt_run *run);

#endif /* BENCH_TCP_PRIV_H */
