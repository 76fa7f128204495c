/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the harness's files share (nccl_harness.c: set-up, buffers, peer
 * messages, main; nccl_unpack_play.c: NCCL's unpack kernel played;
 * nccl_cases.c and nccl_pattern.c: the cases).
 */
#ifndef NCCL_HARNESS_H
#define NCCL_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "nccl_net.h"
#include "nn_abi.h"

#define MIB (1024u * 1024u)
#define MAX_INFLIGHT 32

/*
 * NCCL's device-side unpack, played here (NCCL_HARNESS_UNPACK=1): accept
 * gets a device handle as NCCL gives one; when a receive completes, the
 * harness does what NCCL's kernel would (copy each entry of the receive's
 * slot from the payload region into the buffer, through gpu_sim's CPU
 * mappings), then calls irecvConsumed.
 */
#define UNPACK_COMMS 8
#define UNPACK_REQS 256
#define UNPACK_BUFS 64

struct unpack_comm {
	void *comm;
	struct nn_net_device_handle dh;
	uint64_t recvs;          /* its Simple receives so far: slot = recvs % 16 */
	/*
	 * protos case: the connection's Simple buffer, registered after its
	 * LL and LL128 ones as NCCL does; receives elsewhere are LL/LL128,
	 * which NCCL's kernel reads in place (no slot). NULL: all Simple.
	 */
	uint8_t *simple;
	size_t simple_len;
};

struct unpack_req {
	void *req, *comm;
	uint8_t *dst;            /* the receive buffer, as the plugin got it */
	uint16_t slot;
	bool direct;             /* LL/LL128: no slot, the plugin wrote dst */
};

struct unpack_buf {
	uint8_t *p, *cpu;
	size_t len;
};

struct unpack_state {
	uint8_t *region_cpu;     /* the payload region, CPU side */
	struct unpack_comm comms[UNPACK_COMMS];
	struct unpack_req reqs[UNPACK_REQS];
	struct unpack_buf bufs[UNPACK_BUFS];
	uint64_t entries, bytes; /* what the harness unpacked */
	uint64_t direct;         /* LL/LL128 receives (protos case) */
	/*
	 * NCCL_HARNESS_UNPACK_LAG=k: irecvConsumed comes k receives late, as
	 * NCCL's kernel consumes a step while later ones are in flight.
	 */
	unsigned int lag, nlate;
	void *late_comm[16], *late_req[16];
	/*
	 * NCCL_HARNESS_UNPACK_SKIP=1 (with LAG >= 1): every second receive
	 * gets no irecvConsumed of its own (the next one's covers it: NCCL
	 * consumes a comm's receives in order). The lag holds receives' chunks
	 * (their TCP window): it must stay below what the window takes.
	 */
	bool skip;
	uint64_t nconsumed;
};

struct side {
	int role;                /* 0: A, 1: B */
	int sock;                /* to the peer process */
	struct net net;
	void *lib;               /* the plugin (dlopen handle) */
	void *lcomm, *scomm, *rcomm;
	int16_t gpu;
	const char *name;
	char peer_handle[NN_HANDLE_MAXSIZE];
};

/* Stall reports the plugin logged (lines with "pending for"); stall case. */
extern unsigned int stall_reports;
/* Comm summaries ("... closed: N requests, ...") and finalize reports. */
extern unsigned int comm_summaries, stack_reports;
/* [nccl] profile reports of stack 0's loop with a poll count above 0. */
extern unsigned int profile_reports;
/* The plugin's watchdog ("watchdog: N requests outstanding, none completed"). */
extern unsigned int watchdog_reports;

#define FAIL(s, ...) do { \
	fprintf(stderr, "FAIL %s: ", (s)->name); \
	fprintf(stderr, __VA_ARGS__); \
	fprintf(stderr, "\n"); \
	fflush(stdout); \
	_exit(1); \
} while (0)

struct buf {
	uint8_t *p;          /* what the plugin gets */
	uint8_t *cpu;        /* where the harness reads and writes it */
	size_t len;
	bool dev;
	void *mh;
};

/* nccl_harness.c: clock, peer messages, buffers, set-up, requests. */
double now_s(void);
void xsend(struct side *s, const void *b, size_t n);
void xrecv(struct side *s, void *b, size_t n);
void barrier(struct side *s);
void buf_new_noreg(struct side *s, struct buf *b, size_t len, bool dev);
void buf_new(struct side *s, struct buf *b, size_t len, bool dev, void *comm);
void buf_free(struct side *s, struct buf *b, void *comm);
void fill(struct buf *b, size_t len, uint32_t seed);
void check(struct side *s, const struct buf *b, size_t len, uint32_t seed,
	const char *what);
void connect_both(struct side *s);
nn_result_t wait_req(struct side *s, void *req, int *size);
void post_send(struct side *s, void *comm, struct buf *b, size_t len, int tag,
	void **req);
void post_recv(struct side *s, void *comm, struct buf *b, size_t room, int tag,
	void **req);
/* nccl_unpack_play.c: the calls NCCL's unpack changes, the kernel played. */
struct unpack_comm *unpack_comm_of(struct unpack_state *u, void *comm);
nn_result_t p_accept(struct net *n, void *l, void **rc);
nn_result_t p_irecv(struct net *n, void *c, void *d, size_t sz, int tag, void *mh,
	void **req);
nn_result_t p_test(struct net *n, void *req, int *done, int *size);
void unpack_start(struct side *s, const struct nn_props_v12 *p);
void unpack_report(struct side *s);
/* nccl_cases.c */
void case_sizes(struct side *s, bool dev, bool bidir, size_t max_size);
uint64_t port_losses(struct side *s);
uint64_t port_xstat_sum(struct side *s, const char *key);
void port_xstats(struct side *s);
void case_many(struct side *s);
void case_trunc(struct side *s);
void case_close(struct side *s);
void case_kill(struct side *s);
void case_refused(struct side *s);
void case_stall(struct side *s);
void case_finalize(struct side *s);
void case_protos(struct side *s);
void case_pipe(struct side *s);
/* nccl_pattern.c */
void case_bench(struct side *s);
void spread_check(struct side *s);
void case_pattern(struct side *s);
/* NCCL's logger played: counts the plugin's reports (the counters above). */
void logger(int level, unsigned long flags, const char *file, int line,
	const char *fmt, ...);

#endif /* NCCL_HARNESS_H */
