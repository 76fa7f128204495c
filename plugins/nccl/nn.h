/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the devtcp NCCL net plugin.
 *
 * Threads. NCCL calls the plugin from its own threads (the proxy thread for
 * the data path). The TCP stacks run on EAL lcores of their own
 * (rte_eal_remote_launch) and are the only threads that call lib/dp. The two
 * sides meet through rte_rings only:
 *  - commands in: one ring per stack, NCCL threads enqueue (multi-producer),
 *    the stack's lcore dequeues;
 *  - completions out: one ring per comm or listener, the lcores enqueue,
 *    the NCCL thread that tests the comm dequeues.
 * Every object is owned by one side at a time; the ring transfer is the
 * hand-over (release on enqueue, acquire on dequeue). NCCL's threads never
 * wait for a stack on the data path: isend/irecv enqueue, test dequeues.
 *
 * A comm is K TCP flows. A send comm's flows are spread over the stacks
 * (flow i on stack i % stacks); the part of a comm on one stack is an
 * nn_part, owned by that stack's lcore.
 *
 * Wire format (nn_wire.h), per flow: a hello {magic, flow index, flows,
 * comm id} once, then per message a header {magic, tag, size} followed by
 * this flow's slice of the message (nn_slice()). Every flow carries every header, so
 * each stack learns the size without talking to the others. Headers arrive
 * in device memory like any payload; the region's copy engine brings their
 * 16 bytes to host memory (the CPU never reads the region).
 */
#ifndef NN_H
#define NN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "dt_dp.h"
#include "dt_devmem.h"
#include "nn_abi.h"
#include "nn_config.h"
#include "nn_wire.h"

#define NN_REQS 64               /* requests in flight per comm (NCCL uses <= 32) */
#define NN_NETPROF_EVENTS 8      /* profiler events per request (nn_netprof.c) */
#define NN_CONN_MRS 3            /* NCCL's buffers per connection: LL, LL128, Simple */
#define NN_FLOW_CHUNKS 4096      /* received chunks a flow holds (power of 2) */
#define NN_FLOW_TXQ 1024         /* sends a flow has queued (power of 2) */
#define NN_RELEASE_Q 65536       /* chunks waiting for their copy (power of 2) */
#define NN_UREL_Q 16384          /* per unpack part: 8 receives x 2048 entries */
#define NN_PIECE (256u * 1024u)  /* largest single dt_dp_send */
#define NN_MAX_LISTENERS 64
#define NN_WIRE_SLOTS 1024       /* accepted flows per stack */

/* NCCL's connection handle (<= NN_HANDLE_MAXSIZE bytes). */
struct nn_handle {
	uint32_t magic;
	uint32_t ipv4;       /* network order */
	uint16_t port;       /* host order: the listener's first port */
	uint16_t nflows;
	/*
	 * Ports port .. port + nports - 1, one per stack of the listener (0:
	 * one). Flow i connects to port + i % nports: a comm's flows spread
	 * evenly over the accepting stacks (RSS over one shared port can put
	 * most of them on one stack).
	 */
	uint16_t nports;
	uint16_t pad;
	uint64_t stage;      /* connect side only: the comm being connected */
};

/* Messages on the rings. */
enum nn_msg_type {
	/* commands, to a stack */
	NN_CMD_LISTEN,       /* obj: listener */
	NN_CMD_UNLISTEN,     /* obj: listener */
	NN_CMD_CONNECT,      /* obj: part */
	NN_CMD_ATTACH,       /* obj: part (accepted flows join their comm) */
	NN_CMD_SEND,         /* obj: part, val: request index */
	NN_CMD_RECV,         /* obj: part, val: request index */
	NN_CMD_CLOSE,        /* obj: part */
	NN_CMD_ABORT_FLOW,   /* obj: flow never attached (closeListen) */
	/* completions, to NCCL's side */
	NN_EV_LISTENING,     /* val: 0 or -errno */
	NN_EV_HELLO,         /* obj: flow that sent its hello */
	NN_EV_PART_READY,    /* val: 0 or -errno */
	NN_EV_DONE,          /* val: request index */
	NN_EV_ERROR,         /* val: errno; the comm is dead */
};

struct nn_msg {
	uint32_t type;
	int32_t val;
	void *obj;
};

struct nn_stack;
struct nn_comm;

/* Memory registered by NCCL. */
enum nn_mr_kind {
	NN_MR_HOST,          /* CPU memory */
	NN_MR_SIM,           /* gpu_sim device memory */
	NN_MR_CUDA,          /* CUDA device memory */
};

struct nn_mr {
	uintptr_t base;
	size_t len;
	enum nn_mr_kind kind;
	uintptr_t dev_side;          /* NN_MR_SIM: the simulated DMA mapping */
	struct dt_copy_engine *tx_ce; /* device kinds: engine in the registry */
	uint64_t iova;               /* of base, or RTE_BAD_IOVA */
	uint32_t refs;
};

/* One request (isend, or irecv of one buffer: maxRecvs is 1). */
struct nn_req {
	struct nn_comm *comm;
	uint16_t idx;
	bool used;           /* NCCL side */
	bool done;           /* NCCL side: its NN_EV_DONE was seen */
	bool send;
	uint64_t seq;        /* message number on the comm */
	uintptr_t data;
	uint64_t size;       /* send: size; recv: room */
	int32_t tag;
	struct nn_mr *mr;
	uint64_t t_post;     /* NCCL side: timer cycles at isend/irecv */
	bool stall_logged;   /* NCCL side: the stall report was given */
	bool await_consume;  /* NCCL side, unpack: done, kept until irecvConsumed */
	uint8_t netprof_n;    /* NCCL side: profiler events started (nn_netprof.c) */
	bool unpack;          /* recv: NCCL's kernel unpacks it (else gathered) */
	void *netprof_ev[NN_NETPROF_EVENTS]; /* NCCL side: their handles */
	/* Filled by the lcores. */
	struct nn_wire_msg hdr __rte_aligned(16); /* send: sent by reference on each flow */
	uint64_t hdr_iova;
	uint32_t parts_left; /* atomic: parts not finished */
	int32_t err;         /* atomic: first errno (0: none), EMSGSIZE: truncated */
	struct nn_wire_agree agree; /* recv: the header every flow must carry */
	uint64_t rsize;      /* recv: size the sender sent */
	int32_t rtag;
	/* Per part index (each written by that part's lcore only). */
	uint32_t pend[NN_MAX_FLOWS];     /* send: dt_dp_send not yet acked */
	uint16_t fl[NN_MAX_FLOWS];       /* flows that queued / received their slice */
	uint64_t wait_ch[NN_MAX_FLOWS];  /* recv: tickets its copies end at */
	uint64_t wait_cu[NN_MAX_FLOWS];
	/* recv, unpack mode: its slot of the comm's meta area, entries used */
	uint16_t uslot;
	uint32_t unpack_n;               /* atomic: entries reserved */
	uint64_t t_seen[NN_MAX_FLOWS];   /* recv: TSC the part's lcore took it */
	uint64_t t_copied[NN_MAX_FLOWS]; /* recv: TSC its last copy was submitted */
};

/* One TCP connection of a comm. Owned by its stack's lcore. */
struct nn_flow {
	struct nn_stack *s;
	struct nn_part *part;        /* NULL until attached */
	struct nn_listener *lsn;     /* accepted flows: their listener */
	dt_dp_conn_t conn;
	uint16_t idx;                /* flow index in the comm */
	uint16_t nflows;
	uint64_t comm_id;            /* from the hello */
	bool connected, hello_seen, closed, dead;
	bool peer_closed;            /* FIN received */
	bool reported;               /* handed to the listener's side (NN_EV_HELLO) */
	bool orphan;                 /* free it when it closes */
	bool discard;                /* rx: rest of this slice does not fit: drop it */
	bool accounted;              /* its counters are in the stack's */
	uint64_t tx_off, tx_len;     /* send: its slice of message tx_seq */
	int err;
	/* receive: chunks delivered, not yet consumed */
	struct dt_dp_chunk q[NN_FLOW_CHUNKS];
	uint32_t qh, qt;             /* free-running, qt - qh chunks */
	uint32_t qoff;               /* consumed bytes of q[qh] */
	uint64_t q_tregion, q_tcuda; /* last copy tickets reading q[qh] */
	const struct nn_comm *q_uc;  /* unpack: q[qh] is read by NCCL's kernel */
	uint64_t q_useq;             /* for that comm's message q_useq */
	uint8_t *wire;               /* NN_WIRE_LEN bytes in the stack's wire area */
	int16_t wire_slot;           /* its slot; -1: none (connect side) */
	uint32_t wire_got;           /* bytes of the current wire record submitted */
	bool wire_wait;              /* copies into wire in flight */
	struct dt_copy_chan *wire_ch;
	uint64_t wire_ticket;
	bool have_hdr;               /* rx: header of message rx_seq parsed */
	bool rx_begun;               /* rx: its request seen, slice set */
	uint64_t rx_seq;             /* message this flow receives */
	uint64_t rx_done;            /* bytes of its slice landed */
	uint64_t rx_off, rx_len;     /* its slice */
	uint64_t rx_fit;             /* of rx_len, what the buffer takes */
	/* send */
	uint64_t tx_seq;             /* message this flow sends */
	uint64_t tx_done;            /* bytes of its slice queued */
	bool tx_hdr_sent;
	struct nn_req *txq[NN_FLOW_TXQ]; /* per dt_dp_send, the request (NULL: hello) */
	uint32_t txh, txt;
	struct nn_wire_hello hello;  /* connect side: sent by reference */
};

/* The part of a comm on one stack. Owned by the stack's lcore. */
struct nn_part {
	struct nn_comm *comm;
	struct nn_stack *s;
	uint16_t pidx;               /* index in comm->parts */
	uint16_t nflows;
	struct nn_flow *flows[NN_MAX_FLOWS];
	uint16_t connected;
	struct nn_req *fifo[NN_REQS]; /* requests, by sequence */
	uint64_t head, tail;         /* [tail, head) posted, not finished here */
	bool closing, attached, ready_sent, failed;
	uint16_t flows_closed;
	/*
	 * Unpack: chunks NCCL's kernel may still read, in the part's own
	 * queue (a stack-wide one would hold every other comm's chunks
	 * behind one whose data the GPU has not consumed yet).
	 */
	struct nn_release *urel;     /* NN_UREL_Q entries, or NULL */
	uint32_t urel_h, urel_t;
};

/* A send or receive comm. */
struct nn_comm {
	bool send;
	uint64_t id;
	uint16_t nflows;
	uint16_t nparts;
	struct nn_part *parts[NN_MAX_FLOWS];
	struct rte_ring *cq;         /* completions to NCCL's side */
	uint32_t refs;               /* atomic: parts alive + NCCL's reference */
	/* NCCL side */
	uint64_t next_seq;
	uint16_t parts_ready;
	int err;                     /* errno from NN_EV_ERROR */
	char why[160];
	struct nn_req reqs[NN_REQS];
	uint16_t free_hint;
	struct nn_handle peer;
	uint64_t t_start;            /* connect: TSC of the first call */
	bool err_logged;
	/* NCCL side: what completed, for the summary at close */
	uint64_t n_done, bytes_done, lat_sum, lat_max;
	/* Unpack mode (nn_unpack.c): NULL when NCCL's kernel does not unpack. */
	struct nn_unpack *unpack;
	uint64_t unpack_posted;      /* NCCL side: receives given a slot */
	/* NCCL side: MRs registered before the first receive (nn_unpack_wants) */
	struct nn_mr *conn_mr[NN_CONN_MRS];
	uint8_t nconn_mr;            /* registered so far (more than 3: 4) */
	bool recv_seen;              /* a receive was posted */
	uint64_t unpack_consumed;    /* atomic: messages NCCL's kernel consumed */
	uint64_t t_first_post, t_last_done;
};

/* A listening endpoint. */
struct nn_listener {
	uint16_t port;               /* stack i listens on port + i */
	struct rte_ring *cq;         /* NN_EV_LISTENING, NN_EV_HELLO */
	uint32_t refs;               /* atomic: stacks listening + NCCL */
	uint16_t acks;
	int err;
	/* NCCL side: flows that said hello, grouped by comm id */
	struct nn_wire_pending pend[NN_PENDING_COMMS];
	struct nn_flow *pending_flows[NN_PENDING_COMMS][NN_MAX_FLOWS];
	bool closing;
};

/*
 * Chunk waiting for the copies that read it: a chunk's pieces can go to
 * both of the stack's channels (the end of one message's payload to the
 * CUDA gather, the next header to the region's engine), so it waits for
 * the last ticket of each (0: none on that channel).
 */
struct nn_release {
	uint64_t token;
	uint64_t t_region;           /* on nn_stack.ch */
	uint64_t t_cuda;             /* on nn_stack.cuda_ch */
	const struct nn_comm *uc;    /* unpack: until uc consumed message useq */
	uint64_t useq;
};

/*
 * What a stack did, for the report at the last finalize (nn_stats_log):
 * flows add their engine counters when they close, copy channels theirs
 * when the lcore stops. Written by the stack's lcore only.
 */
struct nn_stack_counters {
	uint64_t flows, rx_bytes, tx_bytes;
	uint64_t rtx_segs, rtx_bytes, nagle_holds;
	uint64_t rtos, tlps, dsacks, rack_losses;
	uint32_t srtt_max_us;
	uint64_t reqs_send, reqs_recv;   /* requests finished on this stack */
	/*
	 * Receive requests, TSC cycles: from the part seeing the request to
	 * its last copy submitted (the data's arrival), and from there to
	 * the copies' completion (the GPU's latency on the critical path).
	 */
	uint64_t rx_arrive_sum, rx_gpu_sum, rx_gpu_max, rx_timed;
	uint64_t unpack_overflow;        /* chunk pieces gathered: slot full */
	struct dt_copy_stats region_ch, cuda_ch;
};

/* Copies queued for one channel, submitted once per poll (nn_rx.c). */
#define NN_BATCH_OPS 256
struct nn_batch {
	struct dt_copy_chan *ch;
	uint16_t n;
	struct dt_copy_op ops[NN_BATCH_OPS];
};

/* Steps of a stack lcore's loop, as [nccl] profile times them. */
enum { NN_PROF_CMDS, NN_PROF_DP, NN_PROF_EVENTS, NN_PROF_PROGRESS, NN_PROF_NB };

/* One stack and its lcore. */
struct nn_stack {
	struct nn_rt *rt;
	uint16_t idx;
	unsigned int lcore;
	struct dt_dp_stack *st;
	struct rte_ring *cmd;
	struct dt_copy_chan *ch;     /* region engine channel (lcore's) */
	struct dt_copy_chan *cuda_ch; /* CUDA gathers into NCCL's buffers */
	struct nn_batch b_region, b_cuda;  /* their copies of this poll */
	struct nn_release rel[NN_RELEASE_Q];
	uint32_t rel_h, rel_t;
	bool copy_fail_logged;       /* copy_failed() said so once */
	struct nn_part *parts[256];  /* parts living here */
	uint16_t nb_parts;
	struct nn_flow *loose[256];  /* accepted flows not yet attached */
	uint16_t nb_loose;
	struct nn_listener *lsn[NN_MAX_LISTENERS];
	uint16_t nb_lsn;
	/*
	 * Host memory the region's engine copies hellos and headers into:
	 * one area per stack, registered with the GPU (a CUDA engine copies
	 * into registered memory asynchronously, unregistered through a
	 * synchronous bounce). One NN_WIRE_LEN slot per accepted flow.
	 */
	uint8_t *wire_area;
	uint64_t wire_free[NN_WIRE_SLOTS / 64]; /* bit set: slot free */
	volatile bool running;
	bool prof;                   /* [nccl] profile: prof_cyc counts */
	uint64_t polls;
	/* TSC cycles of each step of the loop (NN_PROF_*), profile only. */
	uint64_t prof_cyc[NN_PROF_NB];
	struct nn_stack_counters cnt;
};

/* Register and deregister (nn_mr.c). */
int nn_mr_reg(struct nn_rt *rt, void *data, size_t size, int type,
	bool for_send, struct nn_mr **out);
void nn_mr_dereg(struct nn_rt *rt, struct nn_mr *mr);

/* TCP port stack @p s listens on for @p l (one per stack: nn_handle). */
static inline uint16_t
nn_listener_port(const struct nn_listener *l, const struct nn_stack *s)
{
	return (uint16_t)(l->port + s->idx);
}

/* The lcore loop (nn_lcore.c). */
int nn_lcore_main(void *arg);
void nn_post_event(struct rte_ring *r, uint32_t type, int32_t val, void *obj);
void nn_part_fail(struct nn_part *p, int err);
void nn_comm_unref(struct nn_comm *c);
void nn_listener_unref(struct nn_listener *l);

/* Receive and send paths (nn_rx.c, nn_tx.c), called on the lcore. */
void nn_rx_chunk(struct nn_flow *f, const struct dt_dp_chunk *c);
void nn_rx_progress(struct nn_flow *f);
void nn_rx_drop_all(struct nn_flow *f);
void nn_rx_part_progress(struct nn_part *p);
void nn_release_progress(struct nn_stack *s);
/** A part goes away: its chunks no longer wait for NCCL's kernel. */
void nn_release_forget(struct nn_stack *s, const struct nn_comm *c);
/** A part goes away: its unpack queue moves to the stack's. */
void nn_urel_flush(struct nn_stack *s, struct nn_part *p);
/** Stopping: queued copies go out, chunks go back as their copies land (not past a stopped channel). */
void nn_rx_drain(struct nn_stack *s);
void nn_rx_flush(struct nn_stack *s);
void nn_tx_hello(struct nn_flow *f);
void nn_tx_part_progress(struct nn_part *p);
void nn_tx_sent(struct nn_flow *f, uint32_t count);
void nn_req_part_done(struct nn_part *p, struct nn_req *r);

#endif /* NN_H */
