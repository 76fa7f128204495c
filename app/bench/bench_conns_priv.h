/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of devtcp-bench's connection-scale modes share
 * (bench_conns.c: the run, its loops, set-up and figures;
 * bench_conns_ends.c: the connection slots and both ends' events).
 */
#ifndef BENCH_CONNS_PRIV_H
#define BENCH_CONNS_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "dt_dp.h"
#include "dt_dp_port.h"

#define BC_CLI_IP RTE_IPV4(10, 0, 3, 1)
#define BC_SRV_IP RTE_IPV4(10, 0, 3, 2)
#define BC_SRV_PORT0 6101
/* Connections per server port: below what the ephemeral range gives. */
#define BC_PER_PORT 19000
#define BC_EV_BATCH 128
#define BC_NB_DESC 512           /* per queue: 8 queues fit the 16k pools */
#define BC_OPEN_BATCH 48         /* hold: exchanges in flight per client stack (8 x 128 overran 512-descriptor rings on the H200) */
#define BC_TW_SLACK 16384        /* cps: client slots in TIME_WAIT (400k/s a stack) */
#define BC_DRAIN_S 10            /* cps: after --duration, to finish */
#define BC_HOLD_LIMIT_S 120      /* hold without --duration */
#define BC_MAX_SIDES (2 * BENCH_MAX_STACKS)
#define BC_DEFAULT_BYTES 1024    /* each way, without --bytes */

/* One end of a connection; slots are reused through a free list. */
struct bc_conn {
	dt_dp_conn_t id;
	uint32_t start;          /* pattern offset of the request */
	uint32_t rx, acked;      /* bytes received, own bytes acknowledged */
	uint32_t next_free;
	uint8_t used, connected, closing, failed, counted;
	uint8_t fin_wait;        /* hold: closed by us, the peer's FIN not in yet */
};

enum bc_phase {
	BC_RUN,                  /* opening / exchanging */
	BC_COUNT,                /* hold: every side reads its conns_open */
	BC_CLOSE,                /* hold: every connection closes */
};

struct bc_run;

/* One stack; touched by its lcore only (counters read by main). */
struct bc_side {
	struct bc_run *run;
	struct dt_dp_stack *st;
	bool server;
	uint16_t q;
	struct bc_conn *c;
	uint32_t cap, free_head;
	uint32_t quota;          /* client: hold: connections to open; cps: in flight */
	uint32_t inflight;       /* client: opened, not yet closing */
	bool first_up;           /* client: a connection came up (neighbour known) */
	bool counted, closed_all;
	uint32_t close_next;     /* hold: next slot to close */
	uint32_t fin_waits;      /* hold: closes in flight */
	uint64_t conns_open_peak;
	/* Read by the main lcore. */
	volatile uint64_t opened, connected, exchanged, completed, closed;
	volatile uint64_t failed, bad_bytes, rx_bytes, frames, retransmits;
	uint64_t errors, open_waits;
};

struct bc_run {
	const struct bench_tcp_env *env;
	enum bench_mode mode;
	uint32_t conns;          /* hold: N; cps: in flight over all client stacks */
	uint32_t bytes;          /* each way */
	uint16_t nsrv, ncli, nports;
	uint64_t hz, t0, t_stop, t_est, t_xchg, t_end, t_next_print;
	double limit_s;
	struct bench_result *res;
	struct bench_sampler sp;
	volatile bool stop_opening, abort;
	volatile int phase;      /* enum bc_phase */
	uint32_t sides_counted;  /* __atomic */
	size_t heap0, heap_peak;
	uint64_t done_shown;     /* completed at the last progress line */
	struct bc_side sides[BC_MAX_SIDES];
	unsigned int lcore_of[BC_MAX_SIDES];
	unsigned int nb_sides;
};

struct bc_lcore {
	struct bc_run *run;
	struct bc_side *sides[BC_MAX_SIDES];
	unsigned int nb;
	bool main;
};

static inline uint32_t
bc_start(const struct bc_run *run, uint16_t cport, uint16_t sport)
{
	return (uint32_t)(((uint32_t)cport * 7919u + sport * 131u) %
		(BENCH_TCP_PAT_LEN - 2 * run->bytes));
}

/* bench_conns_ends.c: the connection ends */
/* The server end: accepts, the request checked, the answer sent, closes. */
void bench_conns_srv_event(struct bc_side *s, const struct dt_dp_event *ev);
/* Open the client stack's next connections, as many as it may now. */
void bench_conns_cli_open(struct bc_side *s);
/* The client end: connected (request sent), the answer checked, closes. */
void bench_conns_cli_event(struct bc_side *s, const struct dt_dp_event *ev);
/*
 * hold: every connection of this client stack closes, BC_OPEN_BATCH at a
 * time: all at once, the FINs and their answers overflow the RX rings and
 * the figure becomes that of recovery.
 */
void bench_conns_cli_close_some(struct bc_side *s);

#endif /* BENCH_CONNS_PRIV_H */
