/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * devtcp's sans-IO TCP engine (RFC 9293 with RFC 5681/6582/6298/7323/2018/
 * 5961/6528; SACK loss recovery RFC 6675/2883, RACK-TLP RFC 8985, PRR
 * RFC 6937, CUBIC RFC 9438).
 *
 * A connection is a struct the caller owns. Every entry point takes the
 * current time (microseconds, monotonic) and a struct dt_tcp_out that it
 * overwrites with what the call produced: segments to send, events for the
 * application and timer changes. The engine never reads a clock, never
 * does I/O and never touches payload bytes: payload is passed by reference
 * as extents {ref, off, len}, in and out.
 *
 * Ownership of received payload: every reference handed in with a segment
 * gets exactly one outcome, either a DT_TCP_EV_DATA event (the application
 * now owns it; the extent may have been trimmed) or a DT_TCP_EV_FREE event
 * (the engine dropped it; the caller frees it). Out-of-order payload is
 * held until one of the two happens; DT_TCP_EV_CLOSED means none is held.
 *
 * Ownership of sent payload: extents passed to dt_tcp_send() stay the
 * caller's memory; the engine references them until acknowledged, then
 * reports them completed, in order, with DT_TCP_EV_SENT. After
 * DT_TCP_EV_CLOSED none is referenced any more.
 */
#ifndef DT_TCP_H
#define DT_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_net_tcp.h"
#include "dt_tcp_seq.h"

/**
 * Max payload extents in one inbound segment: one frame's chain, or the
 * frames lib/dp coalesces from one RX burst (half a burst of header-split
 * frames, one payload extent each).
 */
#define DT_TCP_SEG_MAX_EXT 16
/**
 * Max out-of-order extents a connection may hold (the caller's
 * dt_tcp_bufs.ooo_cap is its actual capacity). Payload is referenced, never
 * coalesced: each received segment is one extent (its own buffer), so a
 * capacity below the receive window in segments drops out-of-order
 * segments unSACKed and the sender must wait for its RTO. Callers size it
 * from their window: window / segment size plus some slack.
 */
#define DT_TCP_OOO_MAX 16384
/**
 * Max send-buffer extents referenced by one outbound segment of at most
 * one MSS: with a header that is 5 buffers, within every NIC's limit for a
 * frame that is not segmented (ice: 8, ICE_TX_MTU_SEG_MAX).
 */
#define DT_TCP_TX_MSS_EXT 4
/**
 * Max send-buffer extents referenced by one outbound segment: a TSO burst
 * (dt_tcp_cfg.tso_max) may reference this many. With its header that is 8
 * buffers: no MSS of the burst spans more than ice's 8 (ICE_TX_MTU_SEG_MAX).
 */
#define DT_TCP_TX_MAX_EXT 7
/**
 * MSS segments one TSO burst is at most (Linux's gso_max_segs for a
 * device): with a small MSS a burst stays a few dozen frames for the NIC.
 */
#define DT_TCP_TSO_SEGS_MAX 64
/** Segments one call can emit before it sets dt_tcp_out.more. */
#define DT_TCP_OUT_SEGS 16
/**
 * Events one call can emit. Every payload extent gets exactly one DATA or
 * FREE event in its life, and one call only ends the lives of the extents
 * of its own segment and of those held out of order, plus a few events
 * without payload (CONNECTED, SENT, PEER_CLOSED, RESET, ERROR, CLOSED).
 */
#define DT_TCP_OUT_EVENTS (DT_TCP_SEG_MAX_EXT + DT_TCP_OOO_MAX + 16)

/** A piece of payload by reference: @c len bytes at offset @c off of @c ref. */
struct dt_tcp_extent {
	void *ref;	/**< the caller's buffer (an mbuf, a token) */
	uint32_t off;	/**< offset of the bytes in it */
	uint32_t len;	/**< bytes */
};

/** A connection's addresses and ports, host order. */
struct dt_tcp_tuple {
	uint32_t laddr;	/**< local IPv4 address */
	uint32_t raddr;	/**< remote IPv4 address */
	uint16_t lport;	/**< local port */
	uint16_t rport;	/**< remote port */
};

/** The eleven states of RFC 9293 3.3.2. */
enum dt_tcp_state {
	DT_TCP_CLOSED,
	DT_TCP_LISTEN,
	DT_TCP_SYN_SENT,
	DT_TCP_SYN_RECEIVED,
	DT_TCP_ESTABLISHED,
	DT_TCP_FIN_WAIT_1,
	DT_TCP_FIN_WAIT_2,
	DT_TCP_CLOSE_WAIT,
	DT_TCP_CLOSING,
	DT_TCP_LAST_ACK,
	DT_TCP_TIME_WAIT,
	DT_TCP_STATE__COUNT
};

/**
 * State name.
 * @param st  the state
 * @return its name ("ESTABLISHED"...), a static string
 */
const char *dt_tcp_state_str(enum dt_tcp_state st);

/** An inbound segment: parsed header plus payload extents in order. */
struct dt_tcp_seg {
	struct dt_net_tcp_hdr th;		/**< ports are not used */
	const struct dt_tcp_extent *ext;	/**< payload, may be NULL */
	uint16_t n_ext;				/**< <= DT_TCP_SEG_MAX_EXT */
};

/** An outbound segment; the caller fills in ports, IP and checksums. */
struct dt_tcp_tx_seg {
	struct dt_net_tcp_hdr th;	/**< seq, ack, flags, win, opts */
	uint32_t len;			/**< payload bytes */
	uint8_t n_ext;	/**< entries of ext */
	struct dt_tcp_extent ext[DT_TCP_TX_MAX_EXT]; /**< slices of sends */
	/**
	 * SYN-ACKs of a listener (dt_tcp_listen_input() and
	 * dt_tcp_listen_timeout()): the tuple of the half-open connection
	 * the segment belongs to, so that the caller addresses a
	 * retransmission without matching sequence numbers. All zero in
	 * every other segment (the caller knows the connection).
	 */
	struct dt_tcp_tuple tuple;
};

/** Events for the application. */
enum dt_tcp_ev_type {
	DT_TCP_EV_CONNECTED,	/**< handshake completed */
	DT_TCP_EV_DATA,		/**< @c ext: next in-order payload */
	DT_TCP_EV_FREE,		/**< @c ext.ref: payload dropped by the engine */
	DT_TCP_EV_SENT,		/**< @c bytes acked, @c count sends completed */
	DT_TCP_EV_PEER_CLOSED,	/**< FIN received after all data */
	DT_TCP_EV_RESET,	/**< connection reset by the peer */
	DT_TCP_EV_ERROR,	/**< @c err: DT_TCP_ERR_* */
	DT_TCP_EV_CLOSED,	/**< reached CLOSED; no reference is held */
};

/** Reasons of DT_TCP_EV_ERROR. */
enum dt_tcp_err {
	DT_TCP_ERR_NONE,
	DT_TCP_ERR_REFUSED,	/**< RST answered our SYN */
	/** Retransmissions, keepalives or zero-window probes unanswered */
	DT_TCP_ERR_TIMEOUT,
	/** New data arrived after dt_tcp_close_full(): RST sent (RFC 9293 3.6.1) */
	DT_TCP_ERR_DATA_LOST,
};

/** One application event. */
struct dt_tcp_event {
	uint8_t type;		/**< enum dt_tcp_ev_type */
	uint8_t err;		/**< enum dt_tcp_err */
	uint32_t count;	/**< SENT: sends completed */
	uint64_t bytes;	/**< SENT: bytes acknowledged */
	struct dt_tcp_extent ext;	/**< DATA, FREE: the extent */
};

/**
 * Timers; each object has at most one deadline per kind. Connection
 * timers are the kinds below DT_TCP_T_CONN__COUNT plus DT_TCP_T_PTO
 * (added after the listener's kind so that older values keep their
 * meaning); dt_tcp_conn.timers is indexed by kind and its DT_TCP_T_SYNQ
 * slot stays 0.
 */
enum dt_tcp_timer {
	DT_TCP_T_RTX,		/**< retransmission (SYN, data, FIN) */
	DT_TCP_T_PERSIST,	/**< zero-window probe */
	DT_TCP_T_DELACK,	/**< delayed ACK */
	DT_TCP_T_KEEPALIVE,
	DT_TCP_T_TIMEWAIT,	/**< 2 MSL; FIN_WAIT_2 idle timeout */
	DT_TCP_T_CONN__COUNT,
	DT_TCP_T_SYNQ = DT_TCP_T_CONN__COUNT,	/**< listener SYN-ACK rtx */
	/** RFC 8985 loss detection: tail loss probe or RACK reordering. */
	DT_TCP_T_PTO,
	DT_TCP_T__COUNT
};

/** True when @p kind is a connection timer (see enum dt_tcp_timer). */
static inline bool
dt_tcp_timer_is_conn(unsigned int kind)
{
	return kind < DT_TCP_T_CONN__COUNT || kind == DT_TCP_T_PTO;
}

/** A timer change: arm at @c deadline, or cancel when it is 0. */
struct dt_tcp_timer_action {
	uint8_t kind;		/**< enum dt_tcp_timer */
	uint64_t deadline;	/**< microseconds; 0 = cancelled */
};

/** What one call produced. Overwritten by every entry point. */
struct dt_tcp_out {
	uint16_t n_segs;	/**< entries of segs */
	uint16_t n_events;	/**< entries of events */
	uint16_t n_timers;	/**< entries of timers */
	/** Segment array filled: send them, then call dt_tcp_output(). */
	bool more;
	/**
	 * dt_tcp_input() with dt_tcp_cfg.ack_defer: an ACK is owed and was
	 * not sent; call dt_tcp_output() once the batch of received
	 * segments is processed (it sends one ACK for all of them).
	 */
	bool ack_pending;
	struct dt_tcp_tx_seg segs[DT_TCP_OUT_SEGS];	/**< segments to send, in order */
	struct dt_tcp_event events[DT_TCP_OUT_EVENTS];	/**< events for the application, in order */
	struct dt_tcp_timer_action timers[DT_TCP_T__COUNT];	/**< timers to arm or cancel */
};

struct dt_tcp_conn;

/**
 * Congestion control, pluggable (like Linux's tcp_congestion_ops). The
 * engine runs loss detection and recovery (NewReno RFC 6582 without SACK;
 * RFC 6675 with PRR RFC 6937 and RACK-TLP RFC 8985 with SACK); the ops
 * decide the windows. Implementations read and write the conn's cwnd and
 * ssthresh and may keep state in cc_priv. They get the time as an
 * argument or from the caller's calls; they never read a clock.
 */
struct dt_tcp_cc_ops {
	const char *name;	/**< for logs and statistics ("newreno", "cubic") */
	/** Set the initial cwnd/ssthresh once the handshake completes. */
	void (*init)(struct dt_tcp_conn *c);
	/** ssthresh after a loss (fast retransmit or RTO). */
	uint32_t (*ssthresh)(const struct dt_tcp_conn *c);
	/** @p acked new bytes acknowledged outside recovery. */
	void (*cong_avoid)(struct dt_tcp_conn *c, uint32_t acked,
		uint64_t now);
	/** Optional: retransmission timeout happened (cwnd already reset). */
	void (*on_rto)(struct dt_tcp_conn *c);
	/**
	 * Optional: a loss episode begins at @p now (fast recovery, RACK or
	 * TLP loss); called right after ssthresh() was applied.
	 */
	void (*on_loss)(struct dt_tcp_conn *c, uint64_t now);
};

/** NewReno (RFC 5681 slow start / congestion avoidance). */
extern const struct dt_tcp_cc_ops dt_tcp_cc_newreno;
/** CUBIC (RFC 9438), integer arithmetic; the default. */
extern const struct dt_tcp_cc_ops dt_tcp_cc_cubic;

/** Per-stack (or per-listener) settings; shared, read-only. */
struct dt_tcp_cfg {
	uint16_t mss;		/**< MSS we advertise (MTU - 40) */
	/**
	 * Largest segment we send, options included in the frame's room
	 * (0: no cap but mss): a NIC that takes one buffer per frame. What
	 * we receive (mss, advertised) is not limited by it.
	 */
	uint16_t snd_mss_max;
	uint8_t wscale;		/**< our receive window shift, 0..14 */
	bool wscale_ok;		/**< offer window scaling */
	bool sack_ok;		/**< offer SACK-permitted */
	bool ts_ok;		/**< offer timestamps */
	bool nagle;		/**< Nagle's algorithm */
	bool delack;		/**< delayed ACKs */
	bool keepalive;		/**< keepalive on new connections */
	uint8_t syn_retries;	/**< SYN / SYN-ACK retransmissions */
	/**
	 * Data retransmissions before timeout, and unanswered zero-window
	 * probes before timeout (like Linux's tcp_retries2).
	 */
	uint8_t max_retries;
	uint8_t keepalive_probes;	/**< keepalive probes unanswered before the connection times out */
	/**
	 * ACKs per second and connection in reply to segments failing a
	 * check (RFC 5961 7): challenge ACKs, ACKs of unsent data, ACKs to
	 * out-of-window or PAWS-failed segments without new data.
	 */
	uint16_t challenge_ack_limit;
	uint32_t rcv_space;	/**< initial free receive capacity, bytes */
	uint64_t rto_init_us;	/**< RFC 6298: 1 s */
	uint64_t rto_min_us;	/**< lower bound of the RTO */
	uint64_t rto_max_us;	/**< upper bound of the RTO */
	uint64_t delack_us;	/**< delayed-ACK timeout */
	uint64_t msl_us;	/**< TIME_WAIT lasts 2 MSL */
	uint64_t keepalive_idle_us;	/**< idle time before the first keepalive probe */
	uint64_t keepalive_intvl_us;	/**< time between keepalive probes */
	const struct dt_tcp_cc_ops *cc;	/**< NULL: NewReno */
	/** FIN_WAIT_2 without traffic for this long: RST and close; 0 off. */
	uint64_t fin_wait2_us;
	bool rack;		/**< RACK-TLP loss detection (needs SACK) */
	/**
	 * Batch ACKs of in-order data: dt_tcp_input() sends no pure ACK for
	 * them (data segments still carry one) but sets
	 * dt_tcp_out.ack_pending, and the caller calls dt_tcp_output() after
	 * the receive burst, so one ACK answers all the in-order segments of
	 * the connection in it. A poll-mode receiver that falls behind then
	 * sends an ACK per burst, not per segment (what Linux's GRO
	 * achieves). An out-of-order segment and one that fills a hole are
	 * still acknowledged at once, one ACK each (RFC 5681 4.2): a sender
	 * without SACK counts duplicate ACKs to detect a loss, and each SACK
	 * option reports the segment that triggered it (RFC 2018 4). With
	 * SACK, a segment that tells nothing the batch's ACK will not (one
	 * that only extends the run the first block reports, a duplicate,
	 * one dropped at the out-of-order limit) waits for that ACK, as
	 * Linux's SACK compression does; a new run, a merge of runs or a
	 * filled hole does not. Off by default.
	 */
	bool ack_defer;
	/**
	 * TCP segmentation offload: payload bytes one outbound segment may
	 * carry, 0 (or anything up to the MSS) for one MSS per segment. The
	 * caller hands a segment longer than the connection's dt_tcp_conn
	 * .smss to a NIC that cuts it into smss-sized segments. A burst is
	 * cut at a multiple of smss and never carries more than the
	 * congestion window, the peer's window, sender SWS avoidance and
	 * Nagle's algorithm would let go as MSS segments right now (its short
	 * tail goes only when an MSS segment of that size would). What the
	 * send loop sends may be a burst, also data sent again after an RTO;
	 * fast retransmit, SACK holes and loss probes stay one MSS.
	 */
	uint32_t tso_max;
	/**
	 * Receive-window autotuning on connections without SACK: the window
	 * advertised starts at 64 KiB and grows, once per receiver RTT, to
	 * twice what arrived in order during it (plus 16 MSS), up to the
	 * caller's capacity; Linux does the same for all its connections
	 * (tcp_rcv_space_adjust). A sender without SACK repairs one loss
	 * per RTT (NewReno), so a window far beyond what it uses only lets
	 * its flight grow to where a window holds several losses and the
	 * repair ends in an RTO and go-back-N over the whole flight. With
	 * SACK the whole capacity is advertised from the start. Off by
	 * default.
	 */
	bool rcv_autotune;
};

/**
 * Fill @p cfg with defaults (RFC values; MSS 1460, wscale 7, all on,
 * CUBIC, RACK-TLP, FIN_WAIT_2 timeout 60 s).
 * @param[out] cfg  filled with the defaults
 */
void dt_tcp_cfg_default(struct dt_tcp_cfg *cfg);

/** An out-of-order extent, kept sorted by @c seq. */
struct dt_tcp_ooo {
	uint32_t seq;	/**< sequence number of the first byte */
	struct dt_tcp_extent ext;	/**< the bytes */
};

/** SACK blocks a receiver remembers (RFC 2018 4: most recent first). */
#define DT_TCP_SACK_BLK_MAX 4
/** Ranges of the send queue the peer SACKed (RFC 6675 scoreboard). */
#define DT_TCP_SACK_SB_MAX 8
/** Transmit-time marks kept for RACK (RFC 8985), bounded. */
#define DT_TCP_XMIT_LOG_MAX 16

/** A sequence range [start, end). */
struct dt_tcp_seq_range {
	uint32_t start;	/**< first sequence number */
	uint32_t end;	/**< one past the last */
};

/** Data from the previous mark's end up to @c end was sent at @c ts. */
struct dt_tcp_xmit_mark {
	uint32_t end;	/**< end sequence of the data sent */
	uint32_t ts;		/**< low 32 bits of the send time, us */
};

/**
 * Sender loss-recovery state: SACK scoreboard (RFC 6675), PRR (RFC 6937),
 * RACK-TLP (RFC 8985) and counters. Touched on ACKs with SACK blocks and
 * in recovery; kept apart from the hot fields.
 */
struct dt_tcp_lr {
	struct dt_tcp_seq_range sb[DT_TCP_SACK_SB_MAX];	/**< sorted */
	struct dt_tcp_xmit_mark xlog[DT_TCP_XMIT_LOG_MAX];	/**< ring */
	uint8_t sb_n;	/**< valid entries of sb */
	uint8_t xlog_head;	/**< oldest entry of xlog */
	uint8_t xlog_n;	/**< entries of xlog */
	uint8_t reo_wnd_mult;	/**< RACK reordering window multiplier */
	uint8_t reo_persist;	/**< RACK: recoveries the reordering window stays widened */
	uint8_t flags;		/**< DT_TCP_LR_* (private) */
	uint32_t sacked;	/**< bytes in sb */
	uint32_t high_rxt;	/**< RFC 6675 HighRxt */
	uint32_t lost_end;	/**< RACK: un-SACKed data below is lost */
	uint32_t pipe;		/**< RFC 6675 pipe, during recovery */
	uint32_t prr_delivered;	/**< RFC 6937 prr_delivered */
	uint32_t prr_out;	/**< RFC 6937 prr_out */
	uint32_t recover_fs;	/**< RFC 6937 RecoverFS: bytes in flight when recovery began */
	uint32_t fack;		/**< highest SACKed or acked sequence */
	uint32_t rack_end;	/**< RACK.end_seq */
	uint32_t rack_ts;	/**< RACK.xmit_ts (low 32 bits, us) */
	uint32_t rack_rtt;	/**< RACK.rtt, us */
	uint32_t min_rtt;	/**< us, 0 = none */
	uint32_t dsack_round;	/**< RACK: snd_max when the reordering window last grew on a D-SACK */
	uint32_t rtx_hi;	/**< end of the highest retransmitted data */
	uint32_t tlp_end;	/**< TLP.end_seq (valid with LR_TLP) */
	uint32_t tlp_start;	/**< TLP: start of the probed data */
	uint32_t tlp_ts;	/**< when the probe was sent (low 32 bits) */
	uint32_t n_rtx;		/**< segments retransmitted */
	uint32_t n_dsack;	/**< D-SACKs: spurious retransmissions */
	uint32_t n_tlp;		/**< tail loss probes sent */
	uint32_t n_rack_lost;	/**< loss episodes RACK started */
	uint32_t n_rto;		/**< retransmission timeouts of data */
};

/** Caller storage for a connection's queues. */
struct dt_tcp_bufs {
	struct dt_tcp_extent *txq;	/**< send queue ring */
	uint16_t txq_cap;	/**< entries of txq */
	/**
	 * Out-of-order queue, or NULL with ooo_cap 0: storage attached
	 * later with dt_tcp_set_ooo_store() (until then out-of-order payload
	 * is freed, unSACKed, and the peer sends it again).
	 */
	struct dt_tcp_ooo *ooo;	/**< out-of-order queue */
	uint16_t ooo_cap;		/**< <= DT_TCP_OOO_MAX */
};

/**
 * A connection. Allocated by the caller, set up by dt_tcp_conn_init();
 * fields are the engine's (read-only for the caller, except from
 * congestion-control ops, which own cwnd, ssthresh and cc_priv).
 */
struct dt_tcp_conn {
	/* Send sequence space. */
	uint32_t iss;	/**< initial send sequence number */
	uint32_t snd_una;	/**< oldest unacknowledged sequence number */
	uint32_t snd_nxt;	/**< next sequence number to send */
	uint32_t snd_max;	/**< highest sequence sent + 1 */
	uint32_t snd_wnd;	/**< scaled peer window */
	uint32_t snd_wl1;	/**< segment sequence of the last window update */
	uint32_t snd_wl2;	/**< segment ack of the last window update */
	uint32_t max_snd_wnd;	/**< largest window the peer offered */
	/* Receive sequence space. */
	uint32_t irs;	/**< initial receive sequence number */
	uint32_t rcv_nxt;	/**< next sequence number expected */
	uint32_t rcv_adv;	/**< right edge we advertised */
	uint32_t rcv_space;	/**< free receive capacity, bytes */
	uint32_t rcv_space_max;	/**< largest receive capacity seen, bytes */
	/* Window autotuning (dt_tcp_cfg.rcv_autotune), 0 before data. */
	uint32_t rcv_wcap;	/**< window advertised at most, bytes */
	uint32_t rcv_wcap_got;	/**< new payload bytes this RTT */
	uint32_t rcv_rtt_got;	/**< new payload bytes this RTT sample */
	uint32_t rcv_rtt_need;	/**< bytes that end this RTT sample */
	uint32_t rcv_rtt;	/**< receiver's RTT estimate (least sample), us */
	uint64_t rcv_wcap_at;	/**< when this RTT's count began, us */
	uint64_t rcv_rtt_at;	/**< when the RTT sample began, us */
	uint32_t fin_seq;	/**< peer FIN, when DT_TCP_F_FIN_RCVD_OOO */
	/* Congestion control. */
	uint32_t cwnd;	/**< congestion window, bytes */
	uint32_t ssthresh;	/**< slow-start threshold, bytes */
	uint32_t recover;	/**< RFC 6582 recover: snd_max when recovery started */
	/* RTT (RFC 6298), microseconds. */
	uint32_t srtt;	/**< smoothed RTT */
	uint32_t rttvar;	/**< RTT variation */
	uint32_t rto;	/**< retransmission timeout */
	uint32_t rtt_seq;	/**< sequence whose acknowledgment ends the RTT sample */
	uint64_t rtt_start;	/**< when that sample started */
	/* Timestamps (RFC 7323). */
	uint32_t ts_recent;	/**< TS.Recent: the peer timestamp to echo */
	uint32_t ts_offset;	/**< added to our clock in TSval (the ISS) */
	uint64_t ts_recent_at;	/**< when ts_recent was last updated (PAWS idle check) */
	uint64_t last_rx;	/**< when a segment last arrived (keepalive) */
	uint64_t chack_start;	/**< challenge ACK rate window start */
	/**
	 * Replies not sent because cfg challenge_ack_limit per second was
	 * reached (RFC 5961 7): challenge ACKs, ACKs of unsent data, ACKs
	 * to out-of-window or PAWS-failed segments.
	 */
	uint64_t acks_limited;
	uint16_t chack_count;	/**< challenge ACKs sent in the current window */
	/**
	 * Payload bytes per segment we send: the peer's MSS (raised to 48,
	 * Linux's tcp_min_snd_mss, when it announces less) capped by ours,
	 * less the timestamp option.
	 */
	uint16_t smss;
	uint16_t flags;		/**< DT_TCP_F_* (private) */
	uint8_t state;		/**< enum dt_tcp_state */
	uint8_t snd_ws;	/**< peer's window shift */
	uint8_t rcv_ws;	/**< our window shift */
	uint8_t dupacks;	/**< duplicate ACKs in a row */
	uint8_t backoff;	/**< RTO doublings in a row */
	uint8_t probes;		/**< zero-window probes in a row (backoff) */
	/**
	 * Zero-window probes the peer left unanswered: no acceptable ACK
	 * since; at cfg max_retries the connection times out.
	 */
	uint8_t probes_out;
	uint8_t ka_probes;	/**< keepalive probes unanswered */
	uint8_t delack_segs;	/**< segments received since our last ACK */
	/* Send queue: ring of caller extents, from snd_una onwards. */
	struct dt_tcp_extent *txq;	/**< send queue: ring of caller extents */
	uint16_t txq_cap;	/**< entries of txq */
	uint16_t txq_head;	/**< index of the oldest extent */
	uint16_t txq_n;	/**< extents queued */
	uint32_t txq_head_off;	/**< acked bytes of the head extent */
	uint32_t txq_seq;	/**< sequence of the first unacked byte */
	/**
	 * Queued bytes from txq_seq: 64 bits, a queue may exceed the
	 * sequence space; only the first DT_TCP_TXQ_SPAN bytes (2^30) take
	 * part in sequence arithmetic at any time.
	 */
	uint64_t txq_bytes;
	/* Out-of-order queue. */
	struct dt_tcp_ooo *ooo;	/**< out-of-order queue */
	uint16_t ooo_cap;	/**< entries of ooo */
	uint16_t ooo_n;	/**< extents held */
	uint16_t ooo_lim;	/**< extents held at most now (dt_tcp_set_ooo_limit) */
	uint8_t sack_n;		/**< valid entries of sack_blk */
	uint32_t ooo_bytes;	/**< payload bytes held out of order */
	/**
	 * SACK blocks to report (RFC 2018 4): each a maximal contiguous run
	 * of the out-of-order queue, the one holding the most recently
	 * received segment first, then the others by recency of change.
	 */
	struct dt_tcp_seq_range sack_blk[DT_TCP_SACK_BLK_MAX];
	/** RFC 2883 D-SACK: a duplicate to report first in the next ACK. */
	struct dt_tcp_seq_range dsack;
	uint64_t timers[DT_TCP_T__COUNT];	/**< deadlines, 0 = off */
	const struct dt_tcp_cfg *cfg;	/**< the connection's configuration */
	const struct dt_tcp_cc_ops *cc;	/**< congestion control */
	uint64_t cc_priv[4];	/**< congestion control's own state */
	struct dt_tcp_tuple tuple;	/**< addresses and ports */
	struct dt_tcp_lr lr;	/**< loss recovery (SACK, RACK-TLP, PRR) */
	/**
	 * Retransmissions, whatever triggered them (RTO, fast retransmit,
	 * SACK/RACK recovery, tail loss probe, SYN/SYN-ACK/FIN again, a
	 * repeated zero-window probe): segments that carried sequence space
	 * already sent once, and the payload bytes among it that had been
	 * sent before. Counted where segments are built, never inferred.
	 */
	uint64_t rtx_segs;
	uint64_t rtx_bytes;	/**< of those, payload bytes sent before */
	/**
	 * Payload bytes freed because they lie beyond the peer's FIN (RFC
	 * 9293 3.10.7.4: the stream ends at the FIN): held out of order when
	 * the FIN came, or arriving after it.
	 */
	uint64_t rcv_beyond_fin;
	/**
	 * Times Nagle's algorithm held the queue's small tail back until
	 * the data in flight was acknowledged (cfg nagle).
	 */
	uint64_t nagle_holds;
};

/**
 * Prepare @p c in CLOSED with @p cfg (kept by pointer) and queue storage
 * @p bufs (txq_cap >= 1, ooo_cap <= DT_TCP_OOO_MAX; ooo NULL and ooo_cap 0:
 * no out-of-order storage yet).
 * @param c  the connection
 * @param cfg  the configuration (kept by pointer: it must outlive the connection)
 * @param bufs  the queues' storage
 * @return 0 or -EINVAL
 */
int dt_tcp_conn_init(struct dt_tcp_conn *c, const struct dt_tcp_cfg *cfg,
	const struct dt_tcp_bufs *bufs);

/**
 * Active open: send SYN with initial sequence @p iss (see dt_tcp_isn()).
 * @param c  the connection
 * @param t  addresses and ports
 * @param iss  initial send sequence number
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 * @return 0, -EISCONN when not CLOSED
 */
int dt_tcp_connect(struct dt_tcp_conn *c, const struct dt_tcp_tuple *t,
	uint32_t iss, uint64_t now, struct dt_tcp_out *out);

/**
 * Process an inbound segment for @p c.
 * @param c  the connection
 * @param seg  the parsed segment and its payload extents
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 * @return 0, or -EINVAL (too many extents; nothing was done)
 */
int dt_tcp_input(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg,
	uint64_t now, struct dt_tcp_out *out);

/**
 * Queue @p ext for sending (referenced, not copied).
 * @param c  the connection
 * @param ext  the bytes to send
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 * @return 0, -ENOBUFS (queue full), -ENOTCONN (not open yet / closed),
 *	-EPIPE (we already closed), -EINVAL (empty extent)
 */
int dt_tcp_send(struct dt_tcp_conn *c, const struct dt_tcp_extent *ext,
	uint64_t now, struct dt_tcp_out *out);

/**
 * Close our direction: FIN after all queued data (half-close: receiving
 * goes on until the peer's FIN).
 * @param c  the connection
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 * @return 0, -ENOTCONN (CLOSED), -EALREADY (already closing)
 */
int dt_tcp_close(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out);

/**
 * Full close (RFC 9293 3.6.1, RFC 1122 4.2.2.13 "half-duplex close"): like
 * dt_tcp_close(), and the application will read nothing more. Data the
 * peer sends afterwards beyond what was already received cannot be
 * delivered: the engine frees it, answers with a RST (so the peer learns
 * that data was lost instead of waiting for a window), reports
 * DT_TCP_EV_ERROR (DT_TCP_ERR_DATA_LOST) and goes CLOSED. Retransmissions
 * of old data and the peer's FIN are handled as usual. Also valid after
 * dt_tcp_close() (it then only stops receiving).
 * @param c  the connection
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 * @return 0, -ENOTCONN (CLOSED)
 */
int dt_tcp_close_full(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out);

/**
 * Abort: RST to the peer when synchronized, then CLOSED.
 * @param c  the connection
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 */
void dt_tcp_abort(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out);

/**
 * The caller's free receive capacity changed to @p bytes (free device
 * buffers for this connection). The engine also deducts payload it
 * accepts until the next call. May send a window update.
 * @param c  the connection
 * @param bytes  free receive capacity, bytes
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 */
void dt_tcp_set_rcv_space(struct dt_tcp_conn *c, uint32_t bytes, uint64_t now,
	struct dt_tcp_out *out);

/**
 * Hold at most @p lim out-of-order extents (at most the queue's capacity)
 * from now on: a caller that shares a budget of held extents between
 * connections lowers it before dt_tcp_input(). Extents already held stay;
 * out-of-order payload beyond the limit is freed (the peer sends it
 * again).
 * @param c  the connection
 * @param lim  extents held at most
 */
void dt_tcp_set_ooo_limit(struct dt_tcp_conn *c, uint32_t lim);

/**
 * Attach out-of-order storage @p ooo of @p cap extents (cap <=
 * DT_TCP_OOO_MAX), or detach it (NULL, 0), while the connection holds no
 * out-of-order extent: a caller that shares storage between connections
 * lends it only while data is out of order. The limit becomes @p cap.
 * @param c  the connection
 * @param ooo  the storage, or NULL
 * @param cap  its entries (0 with NULL)
 * @return 0, -EBUSY (extents held: storage unchanged), -EINVAL
 */
int dt_tcp_set_ooo_store(struct dt_tcp_conn *c, struct dt_tcp_ooo *ooo,
	uint16_t cap);

/**
 * Run every timer of @p c whose deadline is <= @p now.
 * @param c  the connection
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 */
void dt_tcp_timeout(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out);

/**
 * Send again from snd_una now, as an RTO would but without its congestion
 * response (cwnd, ssthresh and backoff kept: the loss was local): for a
 * caller whose NIC refused segments already handed out, so that their
 * data goes again without waiting for the RTO. Nothing outstanding: no-op.
 * @param c  the connection
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 */
void dt_tcp_retransmit_now(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out);

/**
 * Send what windows allow (after dt_tcp_out.more was set).
 * @param c  the connection
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 */
void dt_tcp_output(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out);

/**
 * Turn keepalive on or off for @p c.
 * @param c  the connection
 * @param on  true: on
 * @param now  the current time, microseconds
 * @param[out] out  segments to send, events and timers (reset first)
 */
void dt_tcp_set_keepalive(struct dt_tcp_conn *c, bool on, uint64_t now,
	struct dt_tcp_out *out);

/**
 * Turn Nagle's algorithm on or off for @p c.
 * @param c  the connection
 * @param on  true: on
 */
void dt_tcp_set_nagle(struct dt_tcp_conn *c, bool on);

/**
 * Earliest armed deadline of @p c.
 * @param c  the connection
 * @return the deadline, 0 when none
 */
uint64_t dt_tcp_next_deadline(const struct dt_tcp_conn *c);

/**
 * Answer a segment for which no connection or listener exists (RFC 9293
 * 3.10.7.1): RST unless it is one; its payload is reported freed.
 * @param seg  the parsed segment and its payload extents
 * @param[out] out  segments to send, events and timers (reset first)
 */
void dt_tcp_rst_closed(const struct dt_tcp_seg *seg, struct dt_tcp_out *out);

/**
 * Reset @p out to empty (entry points do it themselves).
 * @param[out] out  the output to empty
 */
void dt_tcp_out_reset(struct dt_tcp_out *out);

#endif /* DT_TCP_H */
