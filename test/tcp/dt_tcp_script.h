/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the script runner (dt_tcp_script*.c) share: the
 * interpreter's state and the functions one file calls in another. The
 * overview of what a run checks is at the top of dt_tcp_script.c.
 */
#ifndef DT_TCP_SCRIPT_H
#define DT_TCP_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dt_net_tcp.h"
#include "dt_tcp.h"
#include "dt_tcp_isn.h"
#include "dt_tcp_listen.h"

#define MAX_Q 256
#define MAX_REC 4096
#define MAX_TOK 32
#define TXQ_CAP 64
#define MAX_PORTS 16

struct rx_rec {
	uint32_t rel;		/* relative sequence of the extent's first byte */
	uint32_t len;
	int outcome;		/* 0 held/pending, 1 data, 2 freed */
};

struct tx_rec {
	uint64_t stream_off;	/* application stream offset of byte 0 */
	uint32_t len;
};

struct range {
	uint32_t l;
	uint32_t r;
};

/* Primary blocks remembered, like a receiver's (RFC 2018 4): as many as
 * one option can carry. */
#define SACK_HIST DT_NET_TCP_SACK_MAX

struct q_seg {
	uint64_t t;
	struct dt_tcp_tx_seg seg;
};

struct q_ev {
	uint64_t t;
	struct dt_tcp_event ev;
};

struct interp {
	const char *path;
	int line;
	int failures;
	uint64_t now;
	uint64_t tol;
	struct dt_tcp_cfg cfg;
	struct dt_tcp_isn_key key;
	struct dt_tcp_tuple tuple;
	struct dt_tcp_conn conn;
	struct dt_tcp_extent txq[TXQ_CAP];
	struct dt_tcp_ooo ooo[DT_TCP_OOO_MAX];
	uint16_t txq_cap;
	uint16_t ooo_cap;
	bool conn_init;
	struct dt_tcp_listener lst;
	struct dt_tcp_syn_entry synq[16];
	bool listening;
	int last_verdict;
	uint64_t tmr[DT_TCP_T__COUNT];
	bool iss_known;
	bool iss_fixed;
	struct { uint16_t port; uint32_t iss; } ports[MAX_PORTS];
	int n_ports;
	uint16_t synq_cap;
	int synack_retries;	/* -1: the listener's default */
	bool no_cookies;
	uint32_t iss;
	uint32_t peer_isn;
	struct q_seg outq[MAX_Q];
	int out_head, out_n;
	struct q_ev evq[MAX_Q];
	int ev_head, ev_n;
	struct rx_rec rx[MAX_REC];
	int n_rx;
	struct tx_rec tx[MAX_REC];
	int n_tx;
	uint64_t stream_off;
	uint32_t rx_next_rel;	/* next relative seq a DATA event must start at */
	/* RFC 2018 check: SACK negotiated, last inbound data, reported. */
	bool sack_on;
	bool trig;		/* trig_r arrived out of order, not yet acked */
	struct range trig_r;
	struct range hist[SACK_HIST];	/* primary blocks, latest first */
	int n_hist;
	struct dt_tcp_out out;
};

/* A segment line parsed (parse_seg()), before it is built or matched. */
struct seg_spec {
	uint8_t flags;
	uint32_t start, end, len;
	bool has_ack, has_win, opts_any, has_opts;
	uint32_t ack, win, exts, exts0;
	struct dt_net_tcp_opts opts;
};

/* Timer names as scripts spell them ("expect timer K T"). */
extern const char *const timer_names[DT_TCP_T__COUNT];
/* dt_tcp_script_check.c */
void
fail(struct interp *in, const char *fmt, ...);

void
seg_str(const struct interp *in, const struct dt_tcp_tx_seg *s, char *buf,
	size_t cap);

void
sack_check(struct interp *in, const struct dt_tcp_tx_seg *s);

void
collect_all(struct interp *in);

void
ensure_conn(struct interp *in);

void
advance(struct interp *in, uint64_t t);

/* dt_tcp_script_parse.c */
int
tokenize(char *s, char **tok, int max);

bool
parse_u32(const char *s, uint32_t *v);

bool
parse_time(const char *s, uint64_t *t);

bool
parse_seg(struct interp *in, char *s, bool outbound, struct seg_spec *sp);

bool
parse_range(const char *s, uint32_t *a, uint32_t *b);

/* dt_tcp_script_keys.c */
bool
cfg_bool(const char *v);

void
cmd_cfg(struct interp *in, char **tok, int n);

void
cmd_expect(struct interp *in, char **tok, int n);

#endif /* DT_TCP_SCRIPT_H */
