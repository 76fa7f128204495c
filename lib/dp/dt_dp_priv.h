/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private structures of the per-lcore stack (lib/dp). One struct
 * dt_dp_stack per lcore; nothing here is shared between stacks.
 */
#ifndef DT_DP_PRIV_H
#define DT_DP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "dt_copy.h"
#include "dt_dp.h"
#include "dt_dp_gro.h"
#include "dt_dp_log.h"
#include "dt_dp_neigh.h"
#include "dt_dp_steer.h"
#include "dt_dp_timer.h"
#include "dt_net_arp.h"
#include "dt_tcp.h"
#include "dt_tcp_isn.h"
#include "dt_tcp_listen.h"

#define DT_DP_BURST 32                /**< frames per RX burst */
/*
 * TX buffer: frames wait here for the NIC. Past DT_DP_TXBUF_SOFT frames the
 * stack slows receiving and sending down (dt_dp_tx_room() is 0); the ring
 * holds far more so that the output of work already admitted (a timer, a
 * frame taken after a stall) is kept, not dropped.
 */
#define DT_DP_TXBUF_SOFT 2048
#define DT_DP_TXBUF 16384             /**< frames the TX ring holds (power of 2) */
#define DT_DP_MAX_LISTENERS 16
#define DT_DP_NEIGH_SIZE 256
/*
 * Frames the neighbour hold queue keeps while addresses resolve: at least
 * DT_DP_NEIGH_HOLD_MIN, else a SYN or SYN-ACK and a retransmission of each
 * connection plus slack, at most DT_DP_NEIGH_HOLD_MAX.
 */
#define DT_DP_NEIGH_HOLD_MIN 1024
#define DT_DP_NEIGH_HOLD_MAX 65536
#define DT_DP_TW_SLOTS 4096
#define DT_DP_TW_SHIFT 10             /**< ~1 ms ticks */
#define DT_DP_NEIGH_TICK_US 10000     /**< neighbour timers checked every 10 ms */
/** RX slows down while the TX buffer is full, for at most this long. */
#define DT_DP_TX_STALL_US 5000
/** Past this, a stalled stack goes on even if the TX ring must drop. */
#define DT_DP_TX_STALL_HARD_US 100000
#define DT_DP_HDR_MAX 192             /**< Ethernet + IPv4 + TCP headers, at most */
#define DT_DP_RSS_KEY_MAX 64
#define DT_DP_RETA_MAX 512
#define DT_DP_EPH_LO 32768
#define DT_DP_EPH_HI 60999
/** Copy mode: payload copies (and host frames) one flush holds, at most. */
#define DT_DP_COPY_OPS 256
/** Frames owning their payload: engines a stack copies from, at most. */
#define DT_DP_TXC_CHANS 4
/** ... and device copies (frames to sum) one TX flush batches, at most. */
#define DT_DP_TXC_OPS 256

/** A copy engine's channel writing device payload into frames. */
struct dt_dp_txc_chan {
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	bool gather;                /**< the header pool is its gather target */
	uint16_t n;                 /**< copies queued */
	struct dt_copy_op ops[DT_DP_TXC_OPS];
	struct dt_dp_send *snd[DT_DP_TXC_OPS]; /**< the send each one reads */
};

/** A frame whose checksum waits for its copies. */
struct dt_dp_txc_frame {
	struct rte_mbuf *m;
	uint32_t pseudo;
	uint16_t l4_off;
};
/**
 * Application events one received frame can cause, at most, besides the
 * DATA events of out-of-order extents already held (st->ooo_held): one per
 * payload extent of the frame (delivered now, or held and delivered later
 * in the same burst) plus events without payload.
 */
#define DT_DP_EV_PER_FRAME (DT_TCP_SEG_MAX_EXT + 8)
/**
 * Payload extents of one coalesced frame (NIC LRO), at most: it enters the
 * engine as up to DT_DP_LRO_EXT_MAX / DT_TCP_SEG_MAX_EXT segments, each
 * with the events of one frame.
 */
#define DT_DP_LRO_EXT_MAX 64
#define DT_DP_LRO_PIECES (DT_DP_LRO_EXT_MAX / DT_TCP_SEG_MAX_EXT)
/** Out-of-order extents per connection beyond window / (3/4 MSS). */
#define DT_DP_OOO_SLACK 32
/**
 * Out-of-order extents all connections of a stack may hold together, in
 * per-connection capacities (at most DT_DP_OOO_STACK_MAX extents): the
 * event queue keeps room for the DATA events of every one of them.
 */
#define DT_DP_OOO_SHARE 64
#define DT_DP_OOO_STACK_MAX (1u << 18)
/** Application events one timer, API call or completion causes, at most. */
#define DT_DP_EV_PER_CALL 8

/** Life of a connection slot. */
enum dt_dp_cs {
	DT_DP_CS_FREE = 0,
	DT_DP_CS_SPARE,     /**< initialised, handed to a listener as spare */
	DT_DP_CS_LIVE,      /**< in the table, driven by the engine */
	DT_DP_CS_ZOMBIE,    /**< engine CLOSED; waits for TX shells to return */
};

/** Bits of dt_dp_conn.flags. */
#define DT_DP_CF_PASSIVE   (1u << 0) /**< child of a listener */
#define DT_DP_CF_DIRTY     (1u << 1) /**< receive space to re-announce */
#define DT_DP_CF_PENDING   (1u << 2) /**< acked sends wait for shells */
#define DT_DP_CF_OUTPUT    (1u << 3) /**< engine has more to send */
#define DT_DP_CF_ZLIST     (1u << 4) /**< on the zombie list */
#define DT_DP_CF_FIN_STAGED (1u << 5) /**< close() waits for staged sends */
#define DT_DP_CF_CLOSE_FULL (1u << 6) /**< close(), not shutdown(): reads no more */
#define DT_DP_CF_STEER_REF (1u << 7)  /**< holds a ref on its listen port's rule */

/** One send of the application, referenced by TX shell mbufs. */
struct dt_dp_send {
	/** refcnt = 1 (ours) + shell mbufs in flight. */
	struct rte_mbuf_ext_shared_info shinfo;
	void *addr;
	uint64_t iova;
	uint32_t len;
	bool device;
	/** device: the engine that reads it into frames (dt_dp_txcopy.c) */
	struct dt_copy_engine *ce;
};

/** A connection slot. */
struct dt_dp_conn {
	struct dt_tcp_conn tcp;
	struct dt_dp_tw_node tw;
	uint32_t idx;
	uint32_t gen;
	uint8_t cs;                 /**< enum dt_dp_cs */
	uint8_t flags;              /**< DT_DP_CF_* */
	uint16_t listen_port;
	uint32_t next_free;
	void *udata;
	uint32_t held_bytes;        /**< delivered, not released */
	uint32_t nexthop;           /**< host order */
	struct dt_dp_neigh *neigh;  /**< cached neighbour entry */
	struct rte_flow *flow;      /**< 5-tuple steering rule (active open) */
	/* Sends: ring parallel to the engine's send queue. */
	struct dt_dp_send *sends;
	uint16_t s_head;
	uint16_t s_n;
	uint16_t s_acked;           /**< head sends the engine completed */
	uint16_t s_sub;             /**< head sends handed to the engine; the
	                             *   rest wait for room in the TX buffer */
	struct dt_tcp_extent *txq;
	uint16_t ooo_seen;          /**< tcp.ooo_n as counted in st->ooo_held */
	bool ack_owed;              /**< on st->ack_list: ACK after this burst */
	uint64_t held_since;        /**< acked head send waits for shells since (us), 0: not */
	/* Statistics. */
	uint64_t rx_bytes, tx_bytes, rx_device_bytes, rx_host_bytes;
};

/** A listening port. */
struct dt_dp_lst {
	uint16_t port;              /**< host order; 0: slot unused */
	struct dt_tcp_listener l;
	struct dt_tcp_syn_entry *synq;
};

/**
 * A listening port whose steering rule includes this stack's queue: held
 * while the stack listens on it and while children accepted there live
 * (their segments follow the same rule, even after unlisten).
 */
struct dt_dp_steer_ref {
	uint16_t port;              /**< host order; 0: unused */
	uint32_t refs;
};

/** Per-chunk bookkeeping in received mbufs (an mbuf dynamic field). */
struct dt_dp_mbuf_meta {
	uint32_t conn_idx;
	uint32_t gen;
	uint32_t len;
};

struct dt_dp_stack {
	struct dt_dp_stack_conf conf;
	struct dt_tcp_cfg tcp_cfg;
	struct dt_tcp_isn_key isn_key;
	uint32_t ip;                /**< host order */
	uint32_t netmask;           /**< host order */
	uint32_t gateway;           /**< host order */
	uint8_t mac[6];
	uint16_t mtu;               /**< the port's, clamped to what the NIC carries */
	bool lro;                   /**< the port coalesces TCP frames (RX LRO) */
	/** TSO: payload bytes one burst may carry (dt_tcp_cfg.tso_max), 0: off. */
	uint32_t tso_max;
	bool tx_linear;            /* the port has no multi-segment TX (dt_dp_linear.c) */
	uint32_t linear_mss;       /* tx_linear: the MSS one header buffer holds */
	bool tx_no_cleanup;        /* the PMD has no tx_done_cleanup (dt_dp_tx.c) */
	bool tx_reclaim_warned;
	uint64_t pend_since;       /* sends wait for shells since (us), 0: none */
	/* The PMD keeps sent mbufs: frames own their payload (dt_dp_txheld.c). */
	bool tx_held;
	/* Frames owning their payload (dt_dp_txcopy.c). */
	uint8_t txc_nchan;
	uint16_t txc_nfr;
	struct dt_dp_txc_chan txc[DT_DP_TXC_CHANS];
	struct dt_dp_txc_frame txc_fr[DT_DP_TXC_OPS];
	/* A frame the PMD refuses at the head of the queue (dt_dp_txrefuse.c). */
	struct rte_mbuf *rf_head;
	uint32_t rf_tries;
	uint64_t rf_since;          /* us */
	uint64_t rf_oerrors;        /* the port's oerrors when it started */
	bool rf_warned;             /* a refused frame other than TSO was said */
	/* Copy mode (dt_dp_copy.c): the port has no split, a region is set. */
	bool rx_copy;
	uint32_t copy_room;         /**< payload bytes one region buffer holds */
	struct dt_copy_chan *copy_ch;
	uint32_t cp_n;              /**< copies queued this burst */
	uint32_t cp_nsrc;           /**< host frames they read */
	struct dt_copy_op cp_ops[DT_DP_COPY_OPS];
	struct rte_mbuf *cp_src[DT_DP_COPY_OPS];
	unsigned int lcore;

	/* Payload region behind the RX queue. */
	struct rte_mempool *region_pool;
	uintptr_t region_base;
	const uint8_t *region_alias; /**< CPU map, for spilled headers only */
	bool alias_tried;
	int meta_off;               /**< dynfield offset of dt_dp_mbuf_meta */

	/* Time. */
	uint64_t tsc0;
	uint64_t tsc_per_us;
	uint64_t now;               /**< microseconds, this poll */

	/* RSS of the port, for connect()'s local port. */
	uint16_t nb_rxq;
	bool rss_l4;
	/* rte_softrss() reads the key as 32-bit words: keep it aligned. */
	uint8_t rss_key[DT_DP_RSS_KEY_MAX] __rte_aligned(8);
	uint16_t reta_size;
	uint16_t reta[DT_DP_RETA_MAX];
	uint16_t eph_next;

	/* What the port's stacks share (neighbours), NULL: port not started
	 * by dt_dp_port_start(). */
	struct dt_dp_port_sh *psh;
	/* Steering (port started with a host queue), else sh is NULL. */
	struct dt_dp_port_sh *sh;
	bool host_rx;               /**< polls queue 0: ARP/ICMP of the port */
	uint32_t neigh_gen_seen;    /**< psh->neigh_gen last synchronised */
	struct dt_dp_steer_ref steer_ref[2 * DT_DP_MAX_LISTENERS];

	/* Connections. */
	struct dt_dp_conn *conns;
	uint32_t free_head;         /**< UINT32_MAX: none */
	uint32_t *ht;               /**< idx + 1, 0: empty */
	uint32_t ht_mask;
	struct dt_dp_conn *spare;
	struct dt_dp_conn *rx_last; /**< last RX lookup hit (valid while LIVE) */
	/* Frames of the burst coalescing into one segment (rx_burst flushes). */
	struct dt_dp_gro_run gro;
	/* Header buffers the burst emptied, freed in one bulk after it. */
	struct rte_mbuf *rx_free[DT_DP_BURST];
	uint16_t n_rx_free;
	struct dt_dp_lst lst[DT_DP_MAX_LISTENERS];
	uint16_t synq_cap;

	/* Work lists (connection indices). */
	/* Each list holds up to 2 * max_conns (a stale entry per slot, plus one). */
	uint32_t *l_dirty, n_dirty;
	uint32_t *l_pend, n_pend;
	uint32_t *l_out, n_out;
	uint32_t *l_zomb, n_zomb;

	/* Timers. */
	struct dt_dp_tw tw;
	struct dt_dp_tw_node **tw_slots;
	uint64_t neigh_next_tick;

	/* Neighbours. */
	struct dt_dp_neigh_tbl neigh;
	struct dt_dp_neigh neigh_e[DT_DP_NEIGH_SIZE];
	struct dt_dp_neigh_held *neigh_hold; /**< the hold queue's slots */

	/* Connections owing an ACK for segments of the current RX burst. */
	uint32_t ack_list[DT_DP_BURST];
	uint32_t n_ack;

	/*
	 * Out-of-order stores (ooo_cap extents each), lent to a connection
	 * while it holds payload out of order: a stack of free ones.
	 */
	struct dt_tcp_ooo *ooo_store;
	struct dt_tcp_ooo **ooo_free;
	uint32_t ooo_nfree;
	/* Out-of-order extents: per connection, for the stack, held now. */
	uint16_t ooo_cap;
	uint32_t ooo_budget;
	uint32_t ooo_held;

	/* Events for the application. */
	struct dt_dp_event *evq;
	uint32_t ev_mask;
	uint32_t ev_head;           /**< next to hand out */
	uint32_t ev_tail;           /**< next to fill */
	struct dt_dp_event ev_scratch; /**< written when the queue is full */

	/* TX ring, flushed once per poll. */
	uint32_t txb_head;          /**< oldest frame */
	uint32_t txb_n;             /**< frames waiting */
	uint16_t ip_id;
	uint64_t tx_progress;       /**< last poll the NIC took frames (or none waited) */
	struct rte_mbuf *txb[DT_DP_TXBUF];

	struct dt_dp_stats st;
	struct dt_tcp_out out;
};

/* ---- time ---- */
uint64_t dt_dp_now_us(struct dt_dp_stack *st);

/* ---- events (dt_dp_api.c) ---- */
static inline uint32_t
dt_dp_ev_room(const struct dt_dp_stack *st)
{
	return st->ev_mask + 1 - (st->ev_tail - st->ev_head);
}
struct dt_dp_event *dt_dp_ev_push(struct dt_dp_stack *st, uint8_t type,
	struct dt_dp_conn *c);

/* ---- connections (dt_dp_conn.c) ---- */
/* Before an engine call that may queue payload out of order. */
static inline void
dt_dp_ooo_limit(const struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	uint32_t free = st->ooo_held < st->ooo_budget ?
		st->ooo_budget - st->ooo_held : 0;

	dt_tcp_set_ooo_limit(&c->tcp, c->tcp.ooo_n + free);
}
void dt_dp_ooo_store_give(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_ooo_store_take(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_seg *seg);
/* After an engine call: count what the connection holds now. */
static inline void
dt_dp_ooo_account(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	st->ooo_held = st->ooo_held - c->ooo_seen + c->tcp.ooo_n;
	c->ooo_seen = c->tcp.ooo_n;
	/* Nothing out of order any more: the store goes back. */
	if (c->tcp.ooo_n == 0 && c->tcp.ooo != NULL)
		dt_dp_ooo_store_give(st, c);
}
static inline dt_dp_conn_t
dt_dp_conn_id(const struct dt_dp_conn *c)
{
	return (uint64_t)c->gen << 32 | c->idx;
}
struct dt_dp_conn *dt_dp_conn_get(struct dt_dp_stack *st, dt_dp_conn_t id);
struct dt_dp_conn *dt_dp_conn_lookup(struct dt_dp_stack *st,
	const struct dt_tcp_tuple *t);
struct dt_dp_conn *dt_dp_conn_alloc(struct dt_dp_stack *st);
int dt_dp_conn_insert(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_conn_remove(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_conn_release_slot(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_conn_list_add(struct dt_dp_stack *st, struct dt_dp_conn *c,
	uint8_t flag);
uint32_t dt_dp_conn_rcv_space(const struct dt_dp_stack *st,
	const struct dt_dp_conn *c);
struct dt_dp_lst *dt_dp_lst_find(struct dt_dp_stack *st, uint16_t port);

/* ---- engine output (dt_dp_out.c) ---- */
void dt_dp_out_apply(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_tuple *t);
void dt_dp_conn_rearm(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_conn_complete(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_tw_fire(struct dt_dp_tw_node *n, void *arg);
void dt_dp_work_lists(struct dt_dp_stack *st);
int dt_dp_conn_submit(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_finish_lists(struct dt_dp_stack *st);

/* ---- transmit (dt_dp_tx.c) ---- */
/* Room before the soft limit: what new work may still produce. */
static inline uint32_t
dt_dp_tx_room(const struct dt_dp_stack *st)
{
	return st->txb_n >= DT_DP_TXBUF_SOFT ? 0 : DT_DP_TXBUF_SOFT - st->txb_n;
}
/*
 * Room for work the stack starts itself (the application's sends and
 * closes, timers): what is left after an RX burst's worth of replies. The
 * peer drains our frames no faster than it receives; work that took the
 * whole room would stop our own receiving, and two stacks doing so wait
 * for each other (thousands of connections closing at once).
 */
#define DT_DP_TX_RX_RESERVE (DT_DP_BURST * DT_TCP_OUT_SEGS)
static inline uint32_t
dt_dp_tx_room_work(const struct dt_dp_stack *st)
{
	uint32_t room = dt_dp_tx_room(st);

	return room > DT_DP_TX_RX_RESERVE ? room - DT_DP_TX_RX_RESERVE : 0;
}
/*
 * The NIC took nothing for DT_DP_TX_STALL_US: the peer is not receiving,
 * perhaps waiting for us. One more unit of work (an RX frame, a timer) may
 * go on so that two stacks on one wire never wait for each other, as long
 * as the ring still holds its worst-case output, @p segs frames. Without
 * that bound, the frames taken in a stall (each ACK releasing a burst of
 * data) filled the ring past its end and were dropped (drop_tx_ring_full:
 * dp_transfer's sender when the receiver's lcore was descheduled for a
 * few milliseconds on a loaded machine). Past DT_DP_TX_STALL_HARD_US the
 * bound gives way: a drop (TCP sends again) beats waiting for ever.
 */
static inline bool
dt_dp_tx_stall_go(const struct dt_dp_stack *st, uint32_t segs)
{
	uint64_t idle = st->now - st->tx_progress;

	if (idle <= DT_DP_TX_STALL_US)
		return false;
	return DT_DP_TXBUF - st->txb_n >= segs || idle > DT_DP_TX_STALL_HARD_US;
}
void dt_dp_tx_push(struct dt_dp_stack *st, struct rte_mbuf *m);
void dt_dp_tx_flush(struct dt_dp_stack *st);
void dt_dp_tx_tcp(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_tuple *t, const struct dt_tcp_tx_seg *seg);
void dt_dp_tx_l2(struct dt_dp_stack *st, struct rte_mbuf *m, uint32_t dst_ip,
	struct dt_dp_neigh **cache);
uint32_t dt_dp_nexthop(const struct dt_dp_stack *st, uint32_t dst);
struct rte_eth_dev_info;
struct rte_eth_conf;
/** TSO for the port's configuration and limits (sets tso_max). */
/* dt_dp_linear.c: ports without multi-segment TX. */
void dt_dp_linear_init(struct dt_dp_stack *st, const struct rte_eth_dev_info *info);
/** Make @p m one buffer; 0, or negative when it does not fit. */
int dt_dp_linear_frame(struct dt_dp_stack *st, struct rte_mbuf *m);

/* dt_dp_txcopy.c: frames that own their payload. */
/** At send(): the engine of device buffer @p buf (its channel opened); 0 or -errno. */
int dt_dp_txc_engine(struct dt_dp_stack *st, const struct dt_dp_buf *buf,
	struct dt_copy_engine **ce);
/** Whether the frame of @p seg gets its payload written into it. */
bool dt_dp_txc_wanted(const struct dt_dp_stack *st,
	const struct dt_tcp_tx_seg *seg);
/** Write @p seg's payload into @p m (device bytes queued: *@p pending). */
int dt_dp_txc_fill(struct dt_dp_stack *st, struct rte_mbuf *m,
	const struct dt_tcp_tx_seg *seg, bool *pending);
/** Sum @p m's TCP checksum (from @p pseudo) once its copies landed. */
void dt_dp_txc_defer_cksum(struct dt_dp_stack *st, struct rte_mbuf *m,
	uint32_t pseudo, uint16_t l4_off);
/** Run the queued copies, wait for them, sum the frames that wait. */
void dt_dp_txc_flush(struct dt_dp_stack *st);
void dt_dp_txc_fini(struct dt_dp_stack *st);

/* dt_dp_txheld.c: a PMD that keeps transmitted mbufs. */
/** A connection's acknowledged sends still wait for shells (finish lists). */
void dt_dp_txheld_check(struct dt_dp_stack *st, struct dt_dp_conn *c);

/* dt_dp_txrefuse.c: a frame the PMD refuses for good. */
/** The NIC took nothing of a non-empty queue: watch its head frame. */
void dt_dp_txrefuse_check(struct dt_dp_stack *st);

void dt_dp_tso_init(struct dt_dp_stack *st, const struct rte_eth_dev_info *info,
	const struct rte_eth_conf *conf);
/** Mark header mbuf @p m of a @p payload-byte burst for the NIC to cut at @p mss. */
void dt_dp_tso_mark(struct dt_dp_stack *st, struct rte_mbuf *m, uint16_t l4_len,
	uint32_t payload, uint16_t mss);
void dt_dp_ip_cksum(struct dt_dp_stack *st, struct rte_mbuf *m,
	uint16_t l2_len, uint16_t l3_len);

/* ---- copy mode (dt_dp_copy.c) ---- */
/* Stack create: copy mode when the port is in it and a region is set. */
int dt_dp_copy_init(struct dt_dp_stack *st);
void dt_dp_copy_fini(struct dt_dp_stack *st);
/*
 * Host extents of one frame into region buffers (copies queued): @return
 * the new extent count (at most @p max), or -E2BIG (more pieces than
 * @p max) or -ENOBUFS (no region buffer): the frame dropped, counted.
 */
int dt_dp_copy_extents(struct dt_dp_stack *st, struct dt_tcp_extent *ext,
	int n, uint32_t max);
/* Submit the queued copies, wait for them, free the host frames. */
void dt_dp_copy_flush(struct dt_dp_stack *st);

/* ---- ARP (dt_dp_arp.c) ---- */
void dt_dp_arp_input(struct dt_dp_stack *st, struct rte_mbuf *m,
	uint16_t l2_len);
void dt_dp_arp_send(struct dt_dp_stack *st, uint16_t op, uint32_t tpa,
	const uint8_t *tha);
void dt_dp_arp_tick(struct dt_dp_stack *st);
void dt_dp_arp_flush(struct dt_dp_stack *st);
void dt_dp_neigh_sync(struct dt_dp_stack *st);
bool dt_dp_neigh_from_port(struct dt_dp_stack *st, struct dt_dp_neigh *n);
void dt_dp_neigh_send_held(struct dt_dp_stack *st, struct dt_dp_neigh *n);
void dt_dp_neigh_drain(struct dt_dp_stack *st);

/* ---- steering (dt_dp_steer.c) ---- */
int dt_dp_steer_ref(struct dt_dp_stack *st, uint16_t port);
void dt_dp_steer_unref(struct dt_dp_stack *st, uint16_t port);
int dt_dp_steer_conn_add(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_steer_conn_del(struct dt_dp_stack *st, struct dt_dp_conn *c);
void dt_dp_steer_release_all(struct dt_dp_stack *st);

/* ---- receive (dt_dp_rx.c) ---- */
void dt_dp_rx_frame(struct dt_dp_stack *st, struct rte_mbuf *m);
/** Hand the pending coalesced run to the engine (end of every RX burst). */
void dt_dp_gro_flush(struct dt_dp_stack *st);
/** Free the header buffers the burst emptied (end of every RX burst). */
static inline void
dt_dp_rx_free_flush(struct dt_dp_stack *st)
{
	if (st->n_rx_free > 0) {
		rte_pktmbuf_free_bulk(st->rx_free, st->n_rx_free);
		st->n_rx_free = 0;
	}
}
void dt_dp_icmp_input(struct dt_dp_stack *st, struct rte_mbuf *m,
	uint16_t l2_len, uint16_t l3_len, uint16_t ip_len);

/* ---- RSS (dt_dp_rss.c) ---- */
int dt_dp_rss_init(struct dt_dp_stack *st);
int dt_dp_rss_pick_port(struct dt_dp_stack *st, uint32_t raddr, uint16_t rport,
	const struct dt_dp_peer_rss *peer, uint16_t *lport);

static inline struct dt_dp_mbuf_meta *
dt_dp_meta(const struct dt_dp_stack *st, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, st->meta_off, struct dt_dp_mbuf_meta *);
}

#endif /* DT_DP_PRIV_H */
