/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-bench: the L2 loopback benchmark. Two ports back to back; port 0
 * sends to port 1.
 *
 * TCP modes (bench_tcp.c): N connections from client stacks (lib/dp) on
 * port 0 to server stacks on port 1. "split" is the product: port 1 splits
 * every frame, headers in hugepage mbufs, payload in device memory, handed
 * to the application as DEVICE chunks. "copy" is the same stack without
 * split: whole frames in host mbufs, every payload byte then copied into
 * device memory by the copy engine before its buffer is released.
 *
 * Raw-frame modes (bench_l2.c, bench_copy.c), no TCP stack: port 0 sends
 * prebuilt Ethernet/IPv4/TCP frames. "raw" receives them whole into host
 * memory: the wire's L2 ceiling. "raw-split" splits them as split does.
 * The GPU baselines: "bounce" receives whole frames and then copies each
 * payload into device memory with the region's copy engine (what an
 * application on kernel TCP does with cudaMemcpy); "ceiling" runs the copy
 * engine alone on payload-sized chunks, without the wire.
 */
#ifndef BENCH_H
#define BENCH_H

#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dt_copy.h"
#include "dt_devmem.h"
#include "dt_pattern.h"

#define BENCH_BURST 32
/* Ethernet + IPv4 + TCP headers of the bench's frames (no options). */
#define BENCH_HDR_LEN (14 + 20 + 20)
#define BENCH_TX_FRAMES 4096   /* distinct prebuilt frames cycled by TX */
#define BENCH_VERIFY_FRAMES 1024 /* frames held per device verification batch */
#define BENCH_VERIFY_SEGS (BENCH_VERIFY_FRAMES * 8) /* segments per batch */
#define BENCH_CEIL_BATCH 32    /* copies per submit in ceiling mode */

/* Most server stacks of a TCP run, and most counts one --stacks list gives. */
#define BENCH_MAX_STACKS 16
#define BENCH_STACK_COUNTS 8
/* Most connections of a run (cps: in flight; hold: open at once). */
#define BENCH_MAX_CONNS 1000000
/* Most bytes each way of a cps/hold connection. */
#define BENCH_CONNS_MAX_BYTES 65536

enum bench_mode {
	BENCH_MODE_SPLIT,      /* TCP, server RX split into device memory */
	BENCH_MODE_COPY,       /* TCP, server RX whole, payload copied to the device */
	BENCH_MODE_RAW_SPLIT,  /* raw frames, RX split into device memory */
	BENCH_MODE_RAW,        /* raw frames, RX whole into host memory */
	BENCH_MODE_BOUNCE,     /* RX whole, then payload copied to the device */
	BENCH_MODE_CEILING,    /* copy engine alone: host chunks to the device */
	BENCH_MODE_CPS,        /* TCP, short connections: connect, B each way, close */
	BENCH_MODE_HOLD,       /* TCP, N concurrent connections, B each way */
	BENCH_MODE_MAX,
};

struct bench_opts {
	enum bench_mode modes[BENCH_MODE_MAX]; /* run back to back, in order */
	unsigned int nb_modes;
	bool modes_set;          /* --mode, --modes or --compare given */
	double duration;         /* seconds per run (--bytes: the time limit) */
	bool duration_set;
	uint64_t frames;         /* stop after this many received (0: duration) */
	/* TCP modes */
	uint32_t conns;          /* connections, spread over the stacks */
	uint64_t bytes;          /* per connection (0: send for --duration) */
	uint32_t msg_size;       /* bytes per dt_dp_send() */
	bool tx_device;          /* send from a region in device memory */
	double rate_gbps;        /* line rate: --rate, or the port's rate= devarg */
	bool rate_set;           /* --rate given (paces net_hsplit ports) */
	uint16_t frame_len;      /* Ethernet frame without FCS */
	uint16_t mtu;
	bool payload_host;       /* payload region in host memory, not on the GPU */
	int16_t gpu_id;
	bool verify;             /* check every payload byte (CPU alias or GPU kernel) */
	bool rss_blind;          /* --rss-blind: connect without the server's RSS */
	bool quiet;              /* no live progress line */
	const char *json_path;
	uint16_t tx_port, rx_port;
	bool conns_set;          /* --conns given (else 2 per server stack with --stacks) */
	/* --stacks: the TCP modes run once per server-stack count, in order. */
	uint16_t stacks[BENCH_STACK_COUNTS];
	uint16_t nb_stacks;      /* 0: no --stacks (stacks from the lcores) */
	const char *plot_path;   /* --plot: PNG of goodput against stacks */
};

/* One server stack's share of a TCP run. */
struct bench_stack_result {
	unsigned int lcore;
	uint32_t conns;             /* connections it accepted */
	uint64_t rx_frames, payload_bytes;
	uint64_t rx_cycles;         /* its lcore's poll work (bench_result.rx_cycles) */
	uint64_t stack_cycles;      /* lib/dp's own */
	uint64_t drops;             /* every drop counter of the stack */
	uint64_t rx_bursts;         /* RX bursts with frames (lib/dp) */
	uint64_t gro_runs;          /* engine segments merged from 2+ frames */
	uint64_t gro_frames;        /* frames in those */
};

/* One stack's share of a connection-scale run (cps, hold). */
struct bench_conns_stack {
	unsigned int lcore;
	uint64_t conns;             /* opened (client) / accepted (server) */
	uint64_t completed;         /* exchanged both ways and closed cleanly */
	uint64_t failed;
	uint64_t conns_open_peak;   /* hold: dt_dp_stats.conns_open with all open */
	uint32_t slots;             /* connection table size */
	uint64_t mem_bytes;         /* dt_dp_stats.mem_bytes */
	uint64_t drops;             /* every drop counter of the stack */
	uint64_t retransmits;
};

/* What the connection-scale modes measure besides struct bench_result's. */
struct bench_conns_result {
	uint32_t bytes;             /* each way, per connection */
	uint32_t in_flight;         /* cps: connections kept open at once */
	uint16_t server_ports;      /* listening ports (the port space per port) */
	uint64_t accepted;          /* by the server stacks */
	uint64_t failed;            /* either end: refused, reset, short, mismatched */
	uint64_t bad_bytes;         /* received bytes that differ from the pattern */
	uint64_t answer_bytes;      /* delivered to the clients */
	uint64_t open_waits;        /* connects put off (TX room, slots, ports) */
	double establish_s;         /* hold: until the last one was established */
	double exchange_s;          /* hold: until the last one had exchanged */
	double close_s;             /* hold: from then until all had closed */
	uint64_t srv_mem_bytes, cli_mem_bytes; /* the stacks' hugepage bytes */
	uint64_t srv_slots, cli_slots;
	uint64_t srv_open_peak, cli_open_peak;  /* hold: open at once */
	uint64_t heap_bytes;        /* hold: libc heap growth with all open */
	bool heap_measured;         /* mallinfo2 reports the heap (not under ASan) */
	struct bench_conns_stack srv[BENCH_MAX_STACKS], cli[BENCH_MAX_STACKS];
};

/*
 * One per-second sample of a run: what the live line shows for the interval
 * (t - dt, t], taken with or without the line (--quiet).
 */
struct bench_sample {
	double t;                   /* end of the interval, seconds from the run's start */
	double dt;                  /* length of the interval, seconds */
	uint64_t bytes;             /* payload delivered in it */
	uint64_t frames;            /* frames received in it */
	uint64_t retransmits;       /* client segments retransmitted in it */
};

/* Where the next sample starts: the totals at the previous one. */
struct bench_sampler {
	double t;
	uint64_t bytes, frames, retransmits;
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
	uint64_t copy_errors;       /* bench copies refused or failed (bounce, ceiling) */
	uint64_t verify_batches;    /* device verification batches run */
	/* TCP modes (zero in the raw-frame modes) */
	uint32_t conns;             /* connections opened */
	uint32_t conns_done;        /* connections that delivered all and closed */
	uint64_t sent_bytes;        /* payload the clients saw acknowledged */
	uint64_t device_bytes, host_bytes;   /* delivered in DEVICE / HOST chunks */
	uint64_t device_chunks, host_chunks;
	uint64_t nic_copy_bytes;    /* payload the NIC's receive path copied (xstats) */
	uint64_t cpu_copy_bytes;    /* payload copied after receive (copy, bounce, HOST chunks) */
	uint64_t retransmits;       /* client connections' retransmitted segments */
	uint64_t stack_cycles;      /* lib/dp's own RX processing cycles (server) */
	/* Client stacks' transmit cycles: frame building, the NIC's tx_burst. */
	uint64_t tx_stack_cycles, tx_burst_cycles;
	uint64_t tx_tso_bursts, tx_tso_segs;
	/*
	 * The client NIC's transmit copies (its tx_q xstats): chunks with
	 * device payload and their start-to-wire TSC cycles, its copy-engine
	 * calls, and how many of them were one-launch gathers.
	 */
	uint64_t nic_tx_copy_chunks, nic_tx_copy_cycles;
	uint64_t nic_tx_copy_calls, nic_tx_copy_gathers;
	uint64_t stack_drops;       /* every drop counter of both stacks, summed */
	uint64_t tcp_errors;        /* resets, errors, refused sends */
	uint64_t events_overflow;   /* must be 0 */
	double line_rate_gbps;      /* reference of pct_line_rate (0: none) */
	const char *line_rate_src;  /* "configured", "raw" or "none" */
	/* TCP modes: the stacks of the run and each server stack's figures. */
	uint16_t server_stacks, client_stacks;
	struct bench_stack_result stack[BENCH_MAX_STACKS];
	struct bench_conns_result cr; /* cps, hold */
	/* Per-second samples (bench_sample.c), owned by the result. */
	struct bench_sample *samples;
	uint32_t nb_samples, samples_cap;
	uint32_t samples_lost;      /* not kept: out of memory (said on stderr) */
	bool interrupted;           /* SIGINT/SIGTERM came during this run */
};

struct bench_verifier;

/*
 * Checks a batch of device-memory segments against the pattern; sets
 * *bad_bytes and *bad_segs. 0, or a negative errno (the batch is then
 * counted as failed).
 */
typedef int (*bench_verify_fn)(struct bench_verifier *v, uint64_t *bad_bytes,
	uint64_t *bad_segs);

/* One payload range in the region to check: byte i is dt_pattern_byte(stream_off + i). */
struct bench_vseg {
	uint64_t addr;
	uint32_t len;
	uint32_t stream_off;
};

/*
 * Verification of payload in device memory, in batches: received frames
 * hand their device segments in and their mbufs are held (the buffers must
 * not be reused before they are checked); a batch is checked at once by the
 * backend (through the region's CPU alias, or by a kernel on the GPU), then
 * the mbufs are freed.
 */
struct bench_verifier {
	bench_verify_fn check;
	const uint8_t *alias;       /* CPU alias of the region (CPU backend) */
	uintptr_t region_base;
	int16_t gpu_id;             /* gpudev of the region (GPU backend) */
	uint32_t nseg, nheld;
	uint64_t seg_bytes;         /* bytes in seg[0, nseg) */
	struct bench_result *res;   /* where a flush accounts */
	/*
	 * Without @c release, held[] are mbufs, freed after the check; with it,
	 * they are tokens of received chunks (lib/dp), handed to @c release.
	 */
	void (*release)(void *arg, const uint64_t *tok, uint32_t n);
	void *release_arg;
	struct bench_vseg seg[BENCH_VERIFY_SEGS];
	uint64_t held[BENCH_VERIFY_FRAMES];
};

/* Run context shared by the TX and RX lcores of one run. */
struct bench_run {
	const struct bench_opts *opts;
	struct rte_mempool *tx_pool;
	struct rte_mbuf *tx_frames[BENCH_TX_FRAMES];
	uintptr_t region_base;
	size_t region_len;
	struct bench_verifier *ver; /* NULL without --verify */
	struct dt_copy_engine *engine; /* the region's (bounce, ceiling) */
	struct dt_copy_chan *ch;    /* the bench's own channel on it, per run */
	uint8_t *ceil_src;          /* ceiling: host chunks holding the pattern */
	size_t ceil_stride;         /* distance between chunks, both sides */
	uint32_t ceil_chunks;       /* chunks in ceil_src */
	size_t bounce_off;          /* bounce: next free offset in the region */
	/* Ceiling state: chunks are counted from the start of the run. */
	uint64_t ceil_ticket0;      /* channel ticket before the first chunk */
	uint64_t ceil_sub;          /* chunks submitted */
	uint64_t ceil_verq;         /* chunks handed to the verifier */
	uint64_t ceil_flushed;      /* chunks known verified */
	uint32_t ceil_slots;        /* destination slots in the region */
	uint32_t ceil_inflight;     /* most chunks in flight */
	bool failed;                /* a copy failed: the run stops */
	volatile bool stop;
	struct bench_result res;
};

/* bench_modes.c: a leaf every mode file and the report may call. */
#define BENCH_MODE_F_TCP    (1u << 0) /* over lib/dp stacks */
#define BENCH_MODE_F_CONNS  (1u << 1) /* connection scale: many small exchanges */
#define BENCH_MODE_F_SENDER (1u << 2) /* raw frames sent from a second lcore */
const char *bench_mode_name(enum bench_mode m);
uint32_t bench_mode_flags(enum bench_mode m);
/* The mode named @p s into @p m; 0, or -EINVAL. */
int bench_mode_parse(const char *s, enum bench_mode *m);
/* Sum of the port's RX queue xstats named rx_q<N><suffix>. */
uint64_t bench_xstat_sum(uint16_t port, const char *suffix);
/* Sum of the port's TX queue xstats named tx_q<N><suffix>. */
uint64_t bench_xstat_sum_tx(uint16_t port, const char *suffix);

/* bench_l2.c */
int bench_build_frames(struct bench_run *run);
void bench_free_frames(struct bench_run *run);
int bench_tx_loop(void *arg);
void bench_rx_poll(struct bench_run *run, uint64_t deadline_tsc);
uint32_t bench_payload_len(const struct bench_opts *o);

void bench_account_frame(struct bench_run *run, const struct rte_mbuf *m);

/* bench_copy.c: the GPU baselines */
void bench_bounce_poll(struct bench_run *run, uint64_t deadline_tsc);
int bench_ceiling_start(struct bench_run *run);
void bench_ceiling_poll(struct bench_run *run, uint64_t deadline_tsc);
void bench_ceiling_finish(struct bench_run *run);
int bench_copy_all(struct bench_run *run, const struct dt_copy_op *ops,
	uint32_t n, uint64_t *ticket);

/* bench_verify.c */
int bench_verify_cpu(struct bench_verifier *v, uint64_t *bad_bytes,
	uint64_t *bad_segs);
void bench_verify_add(struct bench_verifier *v, uintptr_t addr, uint32_t len,
	uint32_t stream_off);
void bench_verify_hold(struct bench_verifier *v, struct rte_mbuf *m);
/* Hold a chunk's token (a verifier with a release callback). */
void bench_verify_hold_token(struct bench_verifier *v, uint64_t token);
void bench_verify_flush(struct bench_verifier *v);
static inline uint32_t
bench_verify_room(const struct bench_verifier *v)
{
	return BENCH_VERIFY_SEGS - v->nseg;
}

/* bench_gpu.c: CUDA glue (no-ops without gpu_cuda) */
bool bench_gpu_is_cuda(int16_t gpu_id);
int bench_verify_cuda(struct bench_verifier *v, uint64_t *bad_bytes,
	uint64_t *bad_segs);
#define BENCH_GPU_REG_POOLS 4
/* Host memory the copy engine reads, and what got registered with the GPU. */
struct bench_gpu_reg {
	struct rte_mempool *pool[BENCH_GPU_REG_POOLS]; /* NULL: unused slot */
	bool pool_ok[BENCH_GPU_REG_POOLS];
	void *buf;
	size_t buf_len;
	bool buf_ok;
};
/* Register everything in @p r; false when something failed (logged). */
bool bench_gpu_register(int16_t gpu_id, struct bench_gpu_reg *r);
/* Undo what bench_gpu_register() did, and only that. */
void bench_gpu_unregister(int16_t gpu_id, struct bench_gpu_reg *r);

/* bench_tcp.c: the TCP modes */
struct bench_tcp_env {
	const struct bench_opts *opts;
	uint16_t cport, sport;          /* client (port 0) and server (port 1) */
	unsigned int lcores[RTE_MAX_LCORE]; /* lcores of the run, main first */
	unsigned int nb_lcores;
	struct rte_mempool *c_pool;     /* client: RX and TX headers */
	struct rte_mempool *c_shell, *s_shell; /* attach TX payload */
	struct rte_mempool *s_hdr;      /* server: split header segments, TX headers */
	struct rte_mempool *s_whole;    /* server: whole frames (copy mode) */
	struct dt_devmem_region *rx_region;   /* split payload */
	struct dt_devmem_region *land_region; /* where HOST chunks are copied */
	const uint8_t *rx_alias, *land_alias; /* CPU aliases (--verify, CPU check) */
	bench_verify_fn check;          /* verification backend */
	const uint8_t *tx_host;         /* the send pattern in host memory */
	uint64_t tx_host_iova;
	struct dt_devmem_region *tx_region; /* the send pattern in device memory */
	volatile sig_atomic_t *quit;    /* SIGINT/SIGTERM */
};
/* Bytes of the send pattern; stream byte o of a connection is pattern byte (start + o) % it. */
#define BENCH_TCP_PAT_LEN ((4u << 20) + 4093)
/*
 * One TCP run with @p server_stacks server stacks (0: from the lcores, as
 * many as half of them) and as many client stacks as the other lcores take,
 * at most as many as server stacks.
 */
int bench_tcp_run(const struct bench_tcp_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res);
/* Why @p server_stacks cannot run on @p nb_lcores lcores (NULL: it can). */
const char *bench_tcp_stacks_check(uint16_t server_stacks,
	unsigned int nb_lcores, char *buf, size_t len);
/*
 * One progress line of a TCP run: the rates of interval @p s, @p rtx
 * retransmissions so far, @p done of @p conns streams finished; with
 * --bytes (@p bytes_total != 0) also the bytes done, % and ETA.
 */
void bench_tcp_progress(enum bench_mode mode, const struct bench_sample *s,
	uint64_t rtx, uint32_t done, uint32_t conns, uint64_t bytes_done,
	uint64_t bytes_total);

/* Every drop counter of a stack, summed. */
struct dt_dp_stats;
uint64_t bench_tcp_stack_drops(const struct dt_dp_stats *s);
/* Name every drop counter of a stack that is not zero (stderr). */
void bench_tcp_report_drops(enum bench_mode mode, bool server, unsigned int q,
	const struct dt_dp_stats *d);

/*
 * bench_conns.c: the connection-scale modes (cps, hold) over
 * @p server_stacks server stacks (0: from the lcores), as bench_tcp_run().
 */
int bench_conns_run(const struct bench_tcp_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res);
/* The connection-scale table of the cps/hold runs among @p res. */
void bench_print_conns(const struct bench_result *res, int n);
/* A cps/hold run's "conns_scale" object (docs/bench-json.md) into @p f. */
void bench_write_json_conns(FILE *f, const struct bench_result *r);

/* bench_sample.c */
/*
 * Append the interval from @p sp's last sample to @p t (seconds from the
 * run's start), given the run's totals at @p t; @p sp moves on to @p t.
 * The sample, or NULL when the interval is empty or memory ran out.
 */
const struct bench_sample *bench_sample_take(struct bench_result *r,
	struct bench_sampler *sp, double t, uint64_t bytes, uint64_t frames,
	uint64_t retransmits);
void bench_samples_free(struct bench_result *r);

/* bench_report.c */
/*
 * The raw modes' live line; with --bytes (@p bytes_total != 0) also
 * @p bytes_done of it, % and ETA.
 */
void bench_progress(const struct bench_result *r, double elapsed,
	uint64_t bytes_done, uint64_t bytes_total);
void bench_print_table(const struct bench_result *res, int n);
struct bench_setup;
/* What the table cannot say: why split / copy is near 1 without a DMA NIC. */
void bench_print_notes(const struct bench_setup *su,
	const struct bench_result *res, int n);

/* What the run set up, for the JSON header. */
struct bench_setup {
	const char *gpu_name;       /* gpudev device name, or "host" */
	const char *engine;         /* the region's copy engine */
	bool host_registered;       /* host copy sources registered with the GPU */
	const char *verify_on;      /* "cpu", "gpu" or "off" */
	char *const *argv;          /* the command line as given, EAL's part included */
	int argc;
	char utc_time[32];          /* start of the program, ISO 8601 UTC */
	int signal;                 /* what interrupted the runs (0: nothing) */
};
/* The JSON document (docs/bench-json.md) into @p fd, from its start; 0 or -errno. */
int bench_write_json(int fd, const struct bench_opts *o,
	const struct bench_setup *su, const struct bench_result *res, int n);

/* bench_out.c: where the JSON goes, claimed before EAL starts. */
struct bench_out {
	const char *path;           /* --json's value (NULL: none) */
	int fd;                     /* open for writing (-1: none) */
	bool created;               /* the bench created it: removed when unwritten */
	bool written;
};
/*
 * Find --json in the program's options (after "--") and open or create it
 * for writing, without truncating it; 0 (nothing asked: @p out->fd -1), or
 * -errno with the reason printed.
 */
int bench_out_claim(int argc, char **argv, struct bench_out *out);
/* Close it; a file the bench created and never wrote is removed. */
void bench_out_release(struct bench_out *out);
/* --stacks: goodput, Mpps, cycles per packet per stack, retransmissions, drops. */
void bench_print_scale(const struct bench_result *res, int n);

/* bench_opts.c: the options after "--", read before EAL starts */
#define BENCH_DEFAULT_CONNS 4
#define BENCH_DEFAULT_MSG (64u * 1024)
#define BENCH_BYTES_LIMIT_S 60 /* --bytes without --duration: time limit */
/* --help's text after EAL's (EAL's usage hook). */
void bench_usage(const char *prog);
/* Parse the options after "--" of @p argv; 0, or -EINVAL (message printed). */
int bench_opts_parse(int argc, char **argv, struct bench_opts *o);
/* Whether a mode of the run is a TCP one. */
bool bench_has_tcp_mode(const struct bench_opts *o);

/* bench_args.c: every option after "--", one key table */
struct option;
/*
 * The table's options into @p lo (room for @p cap, a terminator included),
 * val = the option's index; their count, or -ENOSPC.
 */
int bench_args_options(struct option *lo, int cap);
/*
 * Parse table option @p idx with value @p arg (NULL: none) into @p o;
 * 0, 1 for --help, or -EINVAL (message printed).
 */
int bench_args_parse(int idx, const char *arg, struct bench_opts *o);
/* Help lines of the table's options. */
void bench_args_usage(FILE *f);

/* bench_plot.c: run bench/plot_stacks.py over the JSON. */
int bench_plot(const char *json_path, const char *png_path);

/* bench_place.c: the placement report (libnuma) and the pools' node. */
struct bench_place_in {
	uint16_t tx_port, rx_port;
	int16_t gpu_id;             /* RTE_GPU_ID_NONE: host payload */
	const unsigned int *lcores; /* main first */
	unsigned int nb_lcores;
	struct rte_mempool *const *pools; /* NULL entries skipped */
	unsigned int nb_pools;
};
void bench_place_report(const struct bench_place_in *in);
/* The node hugepage pools serving @p port go on (SOCKET_ID_ANY: anywhere). */
int bench_place_pool_socket(uint16_t port, int16_t gpu_id);
/* Fill line_rate_gbps/line_rate_src of every result (configured rate, else raw's). */
void bench_set_line_rate(const struct bench_opts *o, struct bench_result *res,
	int n);
/* Connection scale: many small exchanges, not a stream. */
static inline bool
bench_mode_is_conns(enum bench_mode m)
{
	return (bench_mode_flags(m) & BENCH_MODE_F_CONNS) != 0;
}

/* Over lib/dp stacks: the streams and connection scale. */
static inline bool
bench_mode_is_tcp(enum bench_mode m)
{
	return (bench_mode_flags(m) & BENCH_MODE_F_TCP) != 0;
}

/* What the raw-frame modes run with (bench_raw.c). */
struct bench_raw_env {
	const struct bench_opts *opts;
	struct bench_run *run;          /* frames, verifier, copy engine, result */
	struct rte_mempool *hdr_pool;   /* raw-split: header segments */
	struct rte_mempool *whole_pool; /* whole frames */
	struct dt_devmem_region *region; /* raw-split: payload */
	unsigned int tx_lcore;          /* the sender */
	volatile sig_atomic_t *quit;    /* SIGINT/SIGTERM */
};

/* What every mode's run is handed: set up once by bench_main.c. */
struct bench_env {
	struct bench_tcp_env tcp;       /* split, copy, cps, hold */
	struct bench_raw_env raw;       /* raw, raw-split, bounce, ceiling */
};

/*
 * A mode as bench_main.c runs it (the style of testpmd's struct
 * fwd_engine): each is defined beside the code that runs it.
 */
struct bench_mode_ops {
	/*
	 * One run into @p res (zeroed, mode and tsc_hz set) with
	 * @p server_stacks server stacks (0: from the lcores; TCP modes only).
	 * 0, or a negative errno.
	 */
	int (*run)(struct bench_env *env, enum bench_mode mode,
		uint16_t server_stacks, struct bench_result *res);
	/* Raw-frame modes: receive until @p deadline_tsc (or --frames). */
	void (*poll)(struct bench_run *run, uint64_t deadline_tsc);
	/* Whether the run's own figures are clean; says why not (NULL: no check). */
	bool (*ok)(const struct bench_opts *o, const struct bench_result *r);
};
/* bench_tcp.c */
extern const struct bench_mode_ops bench_mode_split, bench_mode_copy;
/* bench_conns.c */
extern const struct bench_mode_ops bench_mode_cps, bench_mode_hold;
/* bench_raw.c */
extern const struct bench_mode_ops bench_mode_raw, bench_mode_raw_split,
	bench_mode_bounce, bench_mode_ceiling;

#endif /* BENCH_H */
