/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Passive open: a listener in LISTEN with a SYN queue of half-open entries
 * (not full connections, so a SYN flood costs only entries) and an accept
 * backlog. When a handshake completes, the listener turns a caller-supplied
 * spare connection into the child.
 *
 * Data-plane use: look the 4-tuple up in the connection table; on a miss,
 * pass the segment to the listener of the port with a spare; when the
 * verdict is DT_TCP_LST_ESTABLISHED the spare is now a live connection to
 * insert in the table (and the next spare is needed); without a listener,
 * dt_tcp_rst_closed().
 *
 * SYN flood defence (RFC 4987): every operation on the SYN queue is O(1)
 * (pending entries are hashed by 4-tuple with a keyed hash, so a flooder
 * cannot build long chains; expiry runs from per-retry-level FIFOs).
 * An entry lives a bounded time: dt_tcp_listen.synack_retries
 * retransmissions (DT_TCP_SYNACK_RETRIES by default), then it is freed.
 * When the queue is full a SYN is answered with a SYN cookie
 * (dt_tcp_cookie.h) and costs no state at all; with cookies off the oldest
 * entry is evicted instead. A RST at exactly rcv_nxt frees its entry and an
 * in-window one draws a challenge ACK (RFC 5961 3.2).
 */
#ifndef DT_TCP_LISTEN_H
#define DT_TCP_LISTEN_H

#include <stdint.h>

#include "dt_tcp.h"
#include "dt_tcp_isn.h"

/**
 * Default SYN-ACK retransmissions of a half-open entry: SYN-ACKs at 0, 1,
 * 3, 7 and 15 s (RTO 1 s doubling) and the entry is freed at 31 s. Linux
 * uses 5 (freed at 63 s) and FreeBSD's syncache 3; four keeps a legitimate
 * peer behind two lost SYN-ACKs well served while a spoofed SYN pins an
 * entry half as long as on Linux and a quarter of the former 123 s. With
 * cookies a peer whose handshake outlives its entry still gets in: its
 * own SYN retransmission is answered again.
 */
#define DT_TCP_SYNACK_RETRIES 4
/** Retry levels of the SYN queue: synack_retries is at most this - 1. */
#define DT_TCP_SYNQ_LEVELS 8
/** Max entries of a SYN queue (indices are 16 bits, one value is "none"). */
#define DT_TCP_SYNQ_MAX 0xfffe

/** A half-open connection (SYN received, SYN-ACK sent). */
struct dt_tcp_syn_entry {
	struct dt_tcp_tuple tuple;
	uint64_t deadline;	/**< SYN-ACK retransmission */
	uint64_t sent_at;	/**< first SYN-ACK, for the RTT sample */
	uint32_t iss;
	uint32_t irs;
	uint32_t ts_recent;
	uint16_t peer_mss;
	uint16_t peer_win;
	uint8_t peer_ws;
	uint8_t opts;		/**< DT_NET_TCPOPT_F_* the peer offered */
	uint8_t retries;	/**< also its retry level */
	uint8_t in_use;
	/* Links (indices into the SYN queue, DT_TCP_SYNQ_MAX + 1: none). */
	uint16_t hnext;		/**< next entry of its hash chain */
	uint16_t prev;		/**< its retry level's FIFO */
	uint16_t next;		/**< its retry level's FIFO, or the free list */
	/**
	 * Head of hash bucket number (this entry's index): the buckets
	 * live in the entries so that the caller's storage is all there is.
	 */
	uint16_t bucket;
};

/** Listener counters (the data plane exports them). */
struct dt_tcp_lst_stats {
	uint64_t synacks_sent;	/**< every SYN-ACK, first or again, cookies too */
	uint64_t synacks_rtx;	/**< SYN-ACKs sent again (timer, duplicate SYN) */
	uint64_t synq_overflows;/**< SYNs that found the SYN queue full */
	uint64_t synq_evicted;	/**< entries dropped for a new SYN (cookies off) */
	uint64_t synq_expired;	/**< entries dropped after their last SYN-ACK */
	uint64_t synq_rst;	/**< entries freed by a RST at rcv_nxt */
	uint64_t challenge_acks;/**< RFC 5961 challenge ACKs to in-window RSTs */
	uint64_t cookies_sent;	/**< SYN-ACKs carrying a SYN cookie */
	uint64_t cookies_ok;	/**< final ACKs validated as cookies */
	uint64_t cookies_bad;	/**< ACKs that failed cookie validation */
};

/** A listener. Fields are the engine's; the caller reads deadline, st. */
struct dt_tcp_listener {
	const struct dt_tcp_cfg *cfg;
	const struct dt_tcp_isn_key *key;
	const struct dt_tcp_isn_key *cookie_key;
	struct dt_tcp_syn_entry *synq;
	uint16_t synq_cap;
	uint16_t synq_n;
	uint16_t backlog;	/**< children not yet accepted, max */
	uint16_t pending;	/**< children not yet accepted */
	uint8_t state;		/**< DT_TCP_LISTEN or DT_TCP_CLOSED */
	uint8_t synack_retries;
	bool cookies;		/**< SYN cookies when the queue is full */
	uint16_t free_head;
	uint16_t chack_count;
	uint64_t chack_start;
	/** ACKs are tried as cookies until then (cookies sent recently). */
	uint64_t cookie_until;
	uint64_t deadline;	/**< earliest SYN queue deadline */
	/** Entries by retry level, each FIFO in deadline order. */
	struct {
		uint16_t head;
		uint16_t tail;
	} lvl[DT_TCP_SYNQ_LEVELS];
	struct dt_tcp_lst_stats st;
};

/** What the listener did with a segment (one counter each). */
enum dt_tcp_lst_verdict {
	/**
	 * Dropped: a RST for nothing pending or out of window, a flagless
	 * segment, a SYN+FIN, data/FIN that failed cookie validation (its
	 * peer's retransmission from ISN + 1 may still validate), or a final
	 * ACK the half-open connection does not accept (no timestamp once
	 * negotiated, PAWS, out of window: answered with an ACK where RFC
	 * 9293 asks for one; the entry stays, the spare stays CLOSED)
	 */
	DT_TCP_LST_IGNORED,
	DT_TCP_LST_SYN_QUEUED,	/**< new SYN, SYN-ACK sent */
	DT_TCP_LST_SYN_RETRANS,	/**< duplicate SYN, SYN-ACK sent again */
	/**
	 * SYN queue full, cookies off: the oldest half-open entry was
	 * dropped for this SYN, which is queued and answered.
	 */
	DT_TCP_LST_SYNQ_FULL,
	DT_TCP_LST_ESTABLISHED,	/**< handshake done: the spare is the child */
	DT_TCP_LST_BACKLOG_FULL,/**< final ACK dropped: backlog full or no spare */
	DT_TCP_LST_RST_SENT,	/**< unexpected ACK (or bad cookie): RST */
	DT_TCP_LST_SYN_COOKIE,	/**< SYN queue full: SYN-ACK with a cookie */
	DT_TCP_LST_RST_FREED,	/**< RST at rcv_nxt: half-open entry freed */
	DT_TCP_LST_CHALLENGE_ACK,/**< in-window RST: challenge ACK (or limited) */
	DT_TCP_LST__COUNT
};

/**
 * Enter LISTEN, SYN cookies on, DT_TCP_SYNACK_RETRIES.
 * @param key       secret of the ISNs, the SYN queue's hash and (unless
 *	dt_tcp_listen_set_cookies() gives another) the cookies
 * @param synq      storage for @p synq_cap half-open entries
 * @param synq_cap  1 .. DT_TCP_SYNQ_MAX
 * @param backlog   max children established but not yet accepted
 * @return 0 or -EINVAL
 */
int dt_tcp_listen(struct dt_tcp_listener *l, const struct dt_tcp_cfg *cfg,
	const struct dt_tcp_isn_key *key, struct dt_tcp_syn_entry *synq,
	uint16_t synq_cap, uint16_t backlog);

/**
 * SYN cookies on or off (on by default).
 * @param key secret of the cookies (kept by pointer), NULL: the listener's
 * @return 0
 */
int dt_tcp_listen_set_cookies(struct dt_tcp_listener *l, bool on,
	const struct dt_tcp_isn_key *key);

/**
 * SYN-ACK retransmissions before a half-open entry is freed.
 * @return 0 or -EINVAL (above DT_TCP_SYNQ_LEVELS - 1)
 */
int dt_tcp_listen_set_synack_retries(struct dt_tcp_listener *l,
	uint8_t retries);

/**
 * Process a segment of tuple @p t that matched no connection.
 * @param spare a dt_tcp_conn_init()ed CLOSED connection, or NULL
 * @return the verdict; on DT_TCP_LST_ESTABLISHED @p spare is the child,
 *	in ESTABLISHED (or beyond, if the ACK carried a FIN), and @p out holds
 *	its actions too (DT_TCP_EV_CONNECTED, data...)
 */
enum dt_tcp_lst_verdict dt_tcp_listen_input(struct dt_tcp_listener *l,
	const struct dt_tcp_tuple *t, const struct dt_tcp_seg *seg,
	struct dt_tcp_conn *spare, uint64_t now, struct dt_tcp_out *out);

/**
 * Retransmit SYN-ACKs due by @p now, free entries past their last one.
 * Sends at most DT_TCP_OUT_SEGS; when more are due it sets out->more and
 * leaves them due (deadline still <= @p now): call again.
 */
void dt_tcp_listen_timeout(struct dt_tcp_listener *l, uint64_t now,
	struct dt_tcp_out *out);

/** The application accepted one child: frees a backlog slot. */
void dt_tcp_listen_accepted(struct dt_tcp_listener *l);

/** Leave LISTEN; half-open entries are forgotten. */
void dt_tcp_listen_close(struct dt_tcp_listener *l, struct dt_tcp_out *out);

/** Verdict name, for counters. */
const char *dt_tcp_lst_verdict_str(enum dt_tcp_lst_verdict v);

#endif /* DT_TCP_LISTEN_H */
