/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-cli: a testpmd-style console on DPDK's cmdline library. One
 * context per process; the command modules (ports, flows, device memory,
 * TCP, bench) reach it through cli_ctx_get(), since cmdline callbacks carry no
 * pointer of the application's.
 *
 * TCP: the console owns one lib/dp stack per started port that has an
 * address ("set ip"), and polls every stack from the main lcore, the thread
 * that also runs the commands: between input characters in interactive mode
 * (cmdline_poll), between commands and during "sleep"/"wait" in scripted
 * mode. One thread is what lib/dp asks for (every call on a stack from its
 * lcore), so commands call the stacks directly, with no mailbox or lock.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_log.h>

extern int cli_logtype;
#define CLI_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, cli_logtype, "cli: " fmt "\n", ##__VA_ARGS__)

#define CLI_MAX_PORTS 8
#define CLI_MAX_FLOWS 64
#define CLI_MAX_SEGS 2
#define CLI_MAX_CONNS 256      /* connections the console tracks at once */
#define CLI_MAX_LISTEN 16      /* TCP ports listened on per stack */
#define CLI_MAX_STACKS 8       /* stacks (queue pairs) per port */
#define CLI_SLOT_SIZE (64u * 1024) /* one send buffer (one dt_dp_send) */
#define CLI_SLOTS 64           /* send buffers per port (host and device) */
#define CLI_CONN_INFLIGHT 32   /* sends one connection has queued at most */
#define CLI_CONN_REQS 16       /* "tcp send" requests waiting per connection */
#define CLI_BENCH_TCP_PORT 5201

struct dt_dp_stack;

/* Per-port settings stored by "set" and applied by "port start". */
struct cli_port {
	uint32_t rxhdrs;             /* cumulative RTE_PTYPE mask of segment 0, 0: unset */
	char rxhdrs_str[64];
	uint16_t rxpkts[CLI_MAX_SEGS]; /* segment lengths, 0: unset */
	uint16_t nb_rxpkts;
	struct dt_devmem_region *region; /* payload region of a split start */
	bool started;
	/* TCP ("set ip"): the stack exists while started and addressed. */
	uint32_t ipv4, netmask;      /* network order, 0: no address */
	uint8_t prefix_len;
	struct dt_dp_stack *stack;   /* stacks[0]; NULL: the port has none */
	/*
	 * "set stacks": one stack per RX/TX queue pair, RSS across them;
	 * listeners on every stack, connects spread over them.
	 */
	struct dt_dp_stack *stacks[CLI_MAX_STACKS];
	uint16_t nb_stacks;          /* created */
	uint16_t stacks_conf;        /* asked for ("set stacks"), 0: one */
	uint16_t nb_queues;          /* queue pairs the port started with */
	uint16_t next_sq;            /* the stack of the next connect */
	uint16_t listen[CLI_MAX_LISTEN]; /* TCP ports, re-listened on re-create */
	uint16_t nb_listen;
	const uint8_t *rx_alias;     /* CPU alias of region, for "set tcp verify" */
	/*
	 * Send buffers: slot i is host_slots + i * CLI_SLOT_SIZE in hugepage
	 * memory, or the same offset of tx_region in device memory. Shared by
	 * the port's connections through a free list; a connection returns its
	 * slots in order as DT_DP_EV_SENT counts its sends complete.
	 */
	uint8_t *host_slots;
	struct dt_devmem_region *tx_region; /* created by the first device send */
	uint8_t *tx_alias;           /* its CPU alias: the pattern is written there */
	uint16_t free_slot[CLI_SLOTS];
	uint16_t nb_free;
	/*
	 * Send buffers one connection may hold (0: CLI_CONN_INFLIGHT); a bench
	 * shares the port's slots out so that every connection sends at once.
	 */
	uint16_t inflight_cap;
	/* "show port stats": the counters last shown, for the rates. */
	struct rte_eth_stats last;
	uint64_t last_tsc;
};

/* One "tcp send": bytes of the stream pattern from host or device memory. */
struct cli_send_req {
	uint64_t bytes, done;        /* requested, handed to the stack */
	bool device;
};

/* A TCP connection as the console numbers it ("tcp send <id>"). */
struct cli_conn {
	bool used;
	uint32_t id;                 /* 1, 2, ...: never reused in a run */
	uint16_t port_id;            /* whose stack */
	uint16_t sq;                 /* which of the port's stacks */
	uint64_t conn;               /* dt_dp_conn_t */
	bool passive;                /* accepted (a sink: consumed and counted) */
	bool bench;                  /* opened or accepted by "bench start" */
	bool connected;              /* CONNECTED or ACCEPTED seen */
	bool closed;                 /* CLOSED seen: the stack forgot it */
	bool close_req;              /* close once every request is queued */
	bool close_sent;             /* dt_dp_close called */
	bool peer_closed;
	bool verify;                 /* check received bytes against the pattern */
	bool fill;                   /* write the pattern into send buffers */
	bool bench_counted;          /* bench sender: counted done or failed */
	const char *why;             /* how it ended: reset, refused, ... */
	struct cli_send_req req[CLI_CONN_REQS];
	uint16_t req_head, nb_req;
	uint16_t fl[CLI_CONN_INFLIGHT]; /* slots of queued sends, oldest first */
	uint16_t fl_head, nb_fl;
	uint64_t queued, acked;      /* stream bytes handed to / acked by the stack */
	uint64_t rx_bytes, rx_bad;   /* received (released at once), mismatches */
	uint64_t verified;
	struct {                     /* last statistics read, kept after close */
		uint8_t state;
		uint32_t laddr, raddr;
		uint16_t lport, rport;
		uint32_t snd_wnd, rcv_wnd, cwnd, srtt_us;
		uint64_t retransmits;
	} last;
};

/* "bench start": sender and receiver stacks, progress. */
struct cli_bench {
	bool running, ran;
	bool stopped;                /* by "bench stop" */
	bool listen_added;           /* we listen on the receiver for it */
	uint16_t src, dst;           /* ports */
	uint32_t nb_conns, nb_done, nb_failed;
	uint64_t bytes;              /* per connection */
	uint64_t start_tsc, end_tsc;
	uint64_t acked, rx_bytes, rx_bad, verified;
	bool verify;
};

/* A flow rule created with "flow create". */
struct cli_flow {
	bool used;
	uint16_t port;
	uint32_t id;
	struct rte_flow *flow;
	char text[256];
};

struct cli_ctx {
	struct cli_port port[CLI_MAX_PORTS];
	struct cli_flow flows[CLI_MAX_FLOWS];
	uint32_t next_flow_id[CLI_MAX_PORTS];
	struct rte_mempool *hdr_pool, *whole_pool;
	unsigned int errors;         /* commands that failed */
	bool quit;
	/* TCP */
	struct cmdline *cl;          /* where notices go */
	bool interactive;            /* notices redraw the prompt */
	struct rte_mempool *shell_pool; /* TX payload attachments */
	struct cli_conn conns[CLI_MAX_CONNS];
	uint32_t next_conn_id;
	bool verify;                 /* "set tcp verify on" */
	struct cli_bench bench;
	/*
	 * A bench connection moved on (sent, closed, aborted): the bench's
	 * accounting (cli_bench_conn_event), set by cli_main.c so that the
	 * connection model (cli_conn.c) never calls back into cli_bench.c.
	 */
	void (*bench_conn_event)(struct cli_ctx *ctx, struct cli_conn *c);
};

/* cli_ctx.c: the process's one context (cmdline callbacks carry none). */
struct cli_ctx *cli_ctx_get(void);
/* SIGINT/SIGTERM arrived: long commands return, the console leaves. */
bool cli_interrupted(void);
void cli_ctx_set(struct cli_ctx *ctx);

/* A command failed: print why and count it. */
void cli_fail(struct cmdline *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Port id check with a message. */
bool cli_port_ok(struct cmdline *cl, uint16_t port);

/* The command list (NULL-terminated), from each module. */
extern cmdline_parse_ctx_t cli_main_ctx[];

/* cli_port.c, cli_flow.c, cli_devmem.c: command instances */
extern cmdline_parse_inst_t cli_cmd_show_port, cli_cmd_clear_stats,
	cli_cmd_port_start_stop, cli_cmd_set_rxhdrs, cli_cmd_set_rxpkts,
	cli_cmd_show_config, cli_cmd_flow_create, cli_cmd_flow_list,
	cli_cmd_flow_destroy, cli_cmd_show_devmem, cli_cmd_show_gpu,
	cli_cmd_show_port_all, cli_cmd_clear_stats_all,
	cli_cmd_port_start_stop_all, cli_cmd_help_all, cli_cmd_flow_flush,
	cli_cmd_show_tcp_all;
/* cli_tcp.c, cli_bench.c */
extern cmdline_parse_inst_t cli_cmd_set_ip, cli_cmd_set_tcp_verify,
	cli_cmd_tcp_listen, cli_cmd_tcp_listen_port, cli_cmd_tcp_connect,
	cli_cmd_tcp_connect_port, cli_cmd_tcp_send, cli_cmd_tcp_send_kind,
	cli_cmd_tcp_close, cli_cmd_show_tcp, cli_cmd_sleep, cli_cmd_wait,
	cli_cmd_wait_ms, cli_cmd_bench_start, cli_cmd_bench_start_ports,
	cli_cmd_bench_stop_show, cli_cmd_set_stacks;
/* cli_port.c, cli_testpmd.c: testpmd's forms */
extern cmdline_parse_inst_t cli_cmd_set_rxhdrs_all, cli_cmd_set_rxpkts_all,
	cli_cmd_show_port_summary, cli_cmd_set_promisc, cli_cmd_set_promisc_all,
	cli_cmd_show_config_rxtx, cli_cmd_start, cli_cmd_stop;

/* cli_suggest.c: print the command nearest to @p line, if one is near. */
void cli_suggest(struct cmdline *cl, const char *line);

/* Notice between commands (a connection event): redraws the prompt. */
void cli_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * cli_conn.c: the connection model and event loop. A stack is created when a port is both started and
 * addressed, and destroyed before the port stops or its address changes.
 */
int cli_stack_create(struct cmdline *cl, uint16_t port);
/* Stacks a port starts with ("set stacks", default 1). */
uint16_t cli_port_stacks(const struct cli_ctx *ctx, uint16_t port);
/* The stack that owns @p c (NULL: gone). */
struct dt_dp_stack *cli_conn_stack(const struct cli_ctx *ctx,
	const struct cli_conn *c);
/* The stack of the port's next active open (round-robin). */
uint16_t cli_next_stack(struct cli_ctx *ctx, uint16_t port);
void cli_stack_destroy(uint16_t port);
/* Poll every stack once and handle its events; returns frames received. */
unsigned int cli_poll(struct cli_ctx *ctx);
/* Poll for @p ms milliseconds. */
void cli_poll_for(struct cli_ctx *ctx, unsigned int ms);
/* Whether a connection or the bench still has work in flight (for "wait"). */
bool cli_busy(const struct cli_ctx *ctx, char *why, size_t len);
/* New console connection on @p port for stack connection @p conn. */
struct cli_conn *cli_conn_new(struct cli_ctx *ctx, uint16_t port, uint64_t conn);
/*
 * Queue a send request of @p bytes; pushes what the stack takes now.
 * 0, or a negative errno with the reason in @p err.
 */
struct dt_app_error;
int cli_conn_send(struct cli_ctx *ctx, struct cli_conn *c, uint64_t bytes,
	bool device, struct dt_app_error *err);
/* Queue what the connection's requests and the port's free slots allow. */
void cli_conn_push(struct cli_ctx *ctx, struct cli_conn *c);
/* Listen on @p tcp_port on @p port's stack (remembered across re-creates). */
int cli_listen(struct cli_ctx *ctx, uint16_t port, uint16_t tcp_port);
void cli_unlisten(struct cli_ctx *ctx, uint16_t port, uint16_t tcp_port);
/* Stacks and aliases go before the ports stop, send buffers after. */
void cli_tcp_cleanup(struct cli_ctx *ctx);
void cli_tcp_cleanup_buffers(struct cli_ctx *ctx);
/* The console connection numbered @p id (NULL: none). */
struct cli_conn *cli_conn_by_id(struct cli_ctx *ctx, uint32_t id);
/* Read the stack's statistics of @p c into c->last (kept after close). */
void cli_conn_refresh(struct cli_ctx *ctx, struct cli_conn *c);
/* "laddr:lport -> raddr:rport" of @p c (<- when accepted) into @p buf. */
void cli_conn_desc(const struct cli_conn *c, char *buf, size_t len);
/* Whether any port has a stack. */
bool cli_have_stacks(const struct cli_ctx *ctx);

/* cli_bench.c: the bench's accounting (through ctx->bench_conn_event), "show bench". */
void cli_bench_conn_event(struct cli_ctx *ctx, struct cli_conn *c);
void cli_bench_show(struct cmdline *cl, struct cli_ctx *ctx);

/* Release what the commands created (flows, started ports, regions). */
void cli_flow_cleanup(struct cli_ctx *ctx);
void cli_port_cleanup(struct cli_ctx *ctx);

#endif /* CLI_H */
