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
 */
#ifndef DT_TCP_LISTEN_H
#define DT_TCP_LISTEN_H

#include <stdint.h>

#include "dt_tcp.h"
#include "dt_tcp_isn.h"

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
	uint8_t retries;
};

/** A listener. */
struct dt_tcp_listener {
	const struct dt_tcp_cfg *cfg;
	const struct dt_tcp_isn_key *key;
	struct dt_tcp_syn_entry *synq;
	uint16_t synq_cap;
	uint16_t synq_n;
	uint16_t backlog;	/**< children not yet accepted, max */
	uint16_t pending;	/**< children not yet accepted */
	uint8_t state;		/**< DT_TCP_LISTEN or DT_TCP_CLOSED */
	uint64_t deadline;	/**< earliest SYN queue deadline */
};

/** What the listener did with a segment (one counter each). */
enum dt_tcp_lst_verdict {
	DT_TCP_LST_IGNORED,	/**< RST or flagless segment: dropped */
	DT_TCP_LST_SYN_QUEUED,	/**< new SYN, SYN-ACK sent */
	DT_TCP_LST_SYN_RETRANS,	/**< duplicate SYN, SYN-ACK sent again */
	DT_TCP_LST_SYNQ_FULL,	/**< SYN dropped: SYN queue full */
	DT_TCP_LST_ESTABLISHED,	/**< handshake done: the spare is the child */
	DT_TCP_LST_BACKLOG_FULL,/**< final ACK dropped: backlog full or no spare */
	DT_TCP_LST_RST_SENT,	/**< unexpected ACK answered with RST */
	DT_TCP_LST__COUNT
};

/**
 * Enter LISTEN.
 * @param synq      storage for @p synq_cap half-open entries
 * @param backlog   max children established but not yet accepted
 * @return 0 or -EINVAL
 */
int dt_tcp_listen(struct dt_tcp_listener *l, const struct dt_tcp_cfg *cfg,
	const struct dt_tcp_isn_key *key, struct dt_tcp_syn_entry *synq,
	uint16_t synq_cap, uint16_t backlog);

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

/** Retransmit SYN-ACKs due by @p now; give up after cfg->syn_retries. */
void dt_tcp_listen_timeout(struct dt_tcp_listener *l, uint64_t now,
	struct dt_tcp_out *out);

/** The application accepted one child: frees a backlog slot. */
void dt_tcp_listen_accepted(struct dt_tcp_listener *l);

/** Leave LISTEN; half-open entries are forgotten. */
void dt_tcp_listen_close(struct dt_tcp_listener *l, struct dt_tcp_out *out);

/** Verdict name, for counters. */
const char *dt_tcp_lst_verdict_str(enum dt_tcp_lst_verdict v);

#endif /* DT_TCP_LISTEN_H */
