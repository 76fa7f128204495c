/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench: the L2 loopback benchmark. Port 0 sends raw Ethernet/IPv4/
 * TCP frames over the wire to port 1, which either splits them (headers in
 * hugepage mbufs, payload in device memory through the NIC's copy engine) or
 * receives them whole into host memory, the baseline of the same wire.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#define BENCH_BURST 32
#define BENCH_TX_FRAMES 4096   /* distinct prebuilt frames cycled by TX */

enum bench_mode {
	BENCH_MODE_RAW_SPLIT,  /* raw frames, RX split into device memory */
	BENCH_MODE_RAW,        /* raw frames, RX whole into host memory */
	BENCH_MODE_MAX,
};

struct bench_opts {
	enum bench_mode mode;
	bool compare;            /* run every mode back to back */
	double duration;         /* seconds per run */
	uint64_t frames;         /* stop after this many received (0: duration) */
	uint16_t frame_len;      /* Ethernet frame without FCS */
	uint16_t mtu;
	bool payload_host;       /* payload region in host memory, not on the GPU */
	int16_t gpu_id;
	bool verify;             /* check every payload byte through the CPU alias */
	bool quiet;              /* no live progress line */
	const char *json_path;
	uint16_t tx_port, rx_port;
};

/* What one run measured. */
struct bench_result {
	enum bench_mode mode;
	double seconds;
	uint64_t tx_frames, rx_frames, rx_bytes, payload_bytes;
	uint64_t split_frames;      /* received with a device-memory payload segment */
	uint64_t copy_bytes;        /* payload bytes the NIC moved by copy engine */
	uint64_t cksum_bad, missed, verify_errors, verified_bytes;
	uint64_t rx_cycles;         /* TSC cycles spent in the RX loop's work */
	uint64_t tsc_hz;
};

/* Run context shared by the TX and RX lcores of one run. */
struct bench_run {
	const struct bench_opts *opts;
	struct rte_mempool *tx_pool;
	struct rte_mbuf *tx_frames[BENCH_TX_FRAMES];
	const uint8_t *alias;       /* CPU alias of the payload region (verification) */
	uintptr_t region_base;
	size_t region_len;
	volatile bool stop;
	struct bench_result res;
};

const char *bench_mode_name(enum bench_mode m);

/* bench_l2.c */
int bench_build_frames(struct bench_run *run);
void bench_free_frames(struct bench_run *run);
int bench_tx_loop(void *arg);
void bench_rx_poll(struct bench_run *run, uint64_t deadline_tsc);
uint8_t bench_pattern(uint32_t stream_off);

/* bench_report.c */
void bench_progress(const struct bench_result *r, double elapsed);
void bench_print_table(const struct bench_result *res, int n);
int bench_write_json(const char *path, const struct bench_opts *o,
	const struct bench_result *res, int n);

#endif /* BENCH_H */
