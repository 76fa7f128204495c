/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_dp_stack (test_dp_stack.c, dp_stack_*.c) share,
 * each name prefixed dps_: the options, the two stacks, the applications'
 * state and the functions one file calls in another. The overview is at the top of test_dp_stack.c.
 */
#ifndef DP_STACK_H
#define DP_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_dp.h"
#include "dp_fixture.h"
#include "dp_test_txdev.h"

#define CLI_IP RTE_IPV4(10, 0, 0, 1)
#define SRV_IP RTE_IPV4(10, 0, 0, 2)
#define SRV_PORT 5001
#define MAX_CONNS 128
#define PAT_LEN ((1u << 20) + 4093)     /* pattern period, deliberately odd */
#define SLICE (64u * 1024)             /* bytes per send */
#define EV_BATCH 64
#define HOLD_MAX 65536

/* ---- options (test_dp_stack.c) ---- */
struct dp_stack_opt {
	uint16_t mtu;
	int split_len;         /* 0: protocol split */
	uint32_t server_bufs;
	uint32_t window;
	bool verify;
	bool no_ts;            /* both stacks: no TCP timestamps (54-byte headers) */
	/* Length split (or a proto split fallen back to one): what must be seen. */
	bool expect_spill;     /* headers spilled into device memory, read via CPU map */
	bool expect_host;      /* headers shorter than the split: HOST chunks */
	bool expect_gro;       /* transfers: the server coalesced frames */
	bool no_gro;           /* both stacks: dt_dp_stack_conf.no_rx_gro */
	bool no_sack;          /* both stacks: no SACK (NewReno recovery) */
	int expect_tso;        /* transfers: 1 the client sent TSO bursts, -1 none */
	bool expect_copy;      /* transfers: the server port is in copy mode */
	bool tx_device;        /* the client sends from device memory (dp_test_txdev.h) */
	bool expect_held;      /* the client's NIC keeps sent mbufs (tx_hold=) */
	char cases[256];
};

extern struct dp_stack_opt dps_opt;

/* ---- environment ---- */
struct dp_stack_env {
	struct dp_fixture fx;  /* ports, region (CPU-mapped), pools, pattern */
	struct dt_dp_stack *cli, *srv;
	struct dp_txdev txdev; /* --tx-device: the pattern in the region */
};

extern struct dp_stack_env dps_env;

/* ---- application state ---- */
struct dps_rx_conn {
	bool used, accepted, peer_closed, closed, reset;
	dt_dp_conn_t conn;
	uint64_t bytes, host_bytes, dev_bytes;
	uint32_t crc;
};

struct dps_tx_conn {
	bool connected, shut, peer_closed, closed, refused, reset;
	int err;
	dt_dp_conn_t conn;
	uint64_t total, queued, acked;
	uint32_t start;        /* pattern offset of stream byte 0 */
	uint32_t crc;
};

struct dp_stack_app {
	struct dps_rx_conn rx[MAX_CONNS];
	struct dps_tx_conn tx[MAX_CONNS];
	unsigned int nb_tx;
	unsigned int rx_next;
	/* Server holding chunks (exhaust and window cases). */
	bool hold;
	uint32_t hold_max;     /* release everything at this many chunks */
	uint64_t hold_us;      /* ... or this long after the first */
	uint64_t hold_since;
	uint32_t nb_held;
	uint64_t held_tok[HOLD_MAX];
	uint64_t max_held_chunks;
	bool saw_zero_wnd;
	/* Completion. */
	volatile bool cli_done, srv_done;
	uint64_t deadline;
};

extern struct dp_stack_app dps_app;
/* dp_stack_app.c */
uint64_t
dps_now_us(void);

void
dps_srv_release_all(void);

void
dps_srv_event(const struct dt_dp_event *ev);

void
dps_srv_drain(void);

bool
dps_srv_all_closed(unsigned int n);

void
dps_cli_event(const struct dt_dp_event *ev);

void
dps_cli_drain(void);

bool
dps_cli_all_closed(void);

int
dps_cli_open(struct dps_tx_conn *t, uint16_t port, uint64_t total, unsigned int k);

/* dp_stack_run.c */
void
dps_poll_both(void);

bool
dps_run_until(bool (*cond)(void), unsigned int ms);

void
dps_app_reset(void);

void
dps_print_stats(const char *who, const struct dt_dp_stats *s);

bool
dps_big(void);

void
dps_check_no_drops(const struct dt_dp_stats *s);

void
dps_check_split_mismatch(const struct dt_dp_stats *s);

void
dps_transfer(const char *name, unsigned int n, uint64_t total, bool two_lcores,
	unsigned int limit_s);

/* dp_stack_basic.c */
void
test_handshake_arp(void);

void
test_half_close(void);

void
test_abort(void);

void
test_rst_closed_port(void);

void
test_icmp_echo(void);

void
test_stats_sanity(void);

/* dp_stack_transfer.c */
void
test_transfer(void);

void
test_transfer_short(void);

void
test_delay_rtt(void);

void
test_faults(void);

void
test_exhaust(void);

void
test_window(void);

#endif /* DP_STACK_H */
