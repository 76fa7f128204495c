/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal interfaces between the engine's files. Not installed.
 */
#ifndef DT_TCP_PRIV_H
#define DT_TCP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_tcp.h"

/* dt_tcp_conn.flags */
#define DT_TCP_F_TS		(1u << 0)	/* timestamps negotiated */
#define DT_TCP_F_SACK		(1u << 1)	/* SACK-permitted negotiated */
#define DT_TCP_F_WS		(1u << 2)	/* window scaling negotiated */
#define DT_TCP_F_NAGLE		(1u << 3)
#define DT_TCP_F_KEEPALIVE	(1u << 4)
#define DT_TCP_F_FIN_QUEUED	(1u << 5)	/* app closed: FIN after data */
#define DT_TCP_F_FIN_RCVD_OOO	(1u << 6)	/* peer FIN at fin_seq, pending */
#define DT_TCP_F_ACK_NOW	(1u << 7)
#define DT_TCP_F_RTT_TIMING	(1u << 8)	/* rtt_seq is being timed */
#define DT_TCP_F_RECOVERY	(1u << 9)	/* NewReno fast recovery */
#define DT_TCP_F_SIMOPEN	(1u << 10)	/* SYN_RECEIVED from SYN_SENT */
#define DT_TCP_F_SYN_RTX	(1u << 11)	/* SYN was retransmitted */
#define DT_TCP_F_RD_CLOSED	(1u << 12)	/* full close: app reads no more */
#define DT_TCP_F_DSACK		(1u << 13)	/* dsack holds a duplicate to report */
#define DT_TCP_F_ACK_DEFER	(1u << 14)	/* in dt_tcp_input: leave the ACK owed */
#define DT_TCP_F_ACK_OOO	(1u << 15)	/* this segment's ACK is not deferred */

/* dt_tcp_conn.lr.flags */
#define DT_TCP_LR_TLP		(1u << 0)	/* a loss probe is outstanding */
#define DT_TCP_LR_TLP_RTX	(1u << 1)	/* ... and it was a retransmission */
#define DT_TCP_LR_REO		(1u << 2)	/* T_PTO is RACK's reordering timer */
#define DT_TCP_LR_REORDER	(1u << 3)	/* RACK saw reordering */
#define DT_TCP_LR_DSACK_RND	(1u << 4)	/* dsack_round is valid */
#define DT_TCP_LR_PTO_REARM	(1u << 5)	/* restart the PTO at call end */

#define DT_TCP_DUPACK_THRESH 3
#define DT_TCP_TS_OPT_LEN 12		/* NOP NOP TS */
#define DT_TCP_MSS_DEFAULT 536		/* RFC 9293 3.7.1 */
#define DT_TCP_WS_MAX 14
#define DT_TCP_PAWS_IDLE_US (24ull * 24 * 3600 * 1000000)
#define DT_TCP_RTO_G_US 1000		/* clock granularity term */
#define DT_TCP_RTO_SYN_LOST_US 3000000	/* RFC 6298 5.7 */
/* Largest window a peer can offer (65535 << 14, RFC 7323 2.3): cwnd cap. */
#define DT_TCP_CWND_MAX (1u << 30)
/*
 * Smallest peer MSS taken (Linux's tcp_min_snd_mss): a smaller one is
 * raised to it, so that a peer cannot make us cut a send into 1-byte
 * segments (each costing headers, a descriptor and a timer's worth of
 * state).
 */
#define DT_TCP_MSS_MIN 48
/*
 * Sequence space of the send queue the engine looks at: data further than
 * this from snd_una cannot be in any window (at most 2^30) and is left
 * out of sequence arithmetic, which is only defined within 2^31.
 */
#define DT_TCP_TXQ_SPAN (1u << 30)

static inline bool
tcp_flag(const struct dt_tcp_conn *c, uint16_t f)
{
	return (c->flags & f) != 0;
}

static inline bool
tcp_lr_flag(const struct dt_tcp_conn *c, uint8_t f)
{
	return (c->lr.flags & f) != 0;
}

/* SACK-based loss recovery (RFC 6675) is used: SACK was negotiated. */
static inline bool
tcp_sack_on(const struct dt_tcp_conn *c)
{
	return tcp_flag(c, DT_TCP_F_SACK);
}

/* RACK-TLP runs: it needs SACK (RFC 8985 2). */
static inline bool
tcp_rack_on(const struct dt_tcp_conn *c)
{
	return tcp_sack_on(c) && c->cfg->rack;
}

/* Low 32 bits of the time in microseconds, for transmit-time marks. */
static inline uint32_t
tcp_now32(uint64_t now)
{
	return (uint32_t)now;
}

/*
 * End of the queued data the engine may address: txq_seq plus the queued
 * bytes, at most DT_TCP_TXQ_SPAN of them (the queue itself may hold more
 * than 2^32 bytes; the rest comes into view as the ACKs advance).
 */
static inline uint32_t
tcp_data_end(const struct dt_tcp_conn *c)
{
	return c->txq_seq + (c->txq_bytes < DT_TCP_TXQ_SPAN ?
		(uint32_t)c->txq_bytes : DT_TCP_TXQ_SPAN);
}

/* The whole queue is in view: the FIN may follow tcp_data_end(). */
static inline bool
tcp_txq_all_in_view(const struct dt_tcp_conn *c)
{
	return c->txq_bytes <= DT_TCP_TXQ_SPAN;
}

/* Our FIN is due after the data, which is all in view. */
static inline bool
tcp_fin_pending(const struct dt_tcp_conn *c)
{
	return tcp_flag(c, DT_TCP_F_FIN_QUEUED) && tcp_txq_all_in_view(c);
}

/* Sequence of our FIN (valid with tcp_fin_pending()). */
static inline uint32_t
tcp_fin_seq(const struct dt_tcp_conn *c)
{
	return tcp_data_end(c);
}

/* True when our FIN has been sent and acknowledged. */
static inline bool
tcp_fin_acked(const struct dt_tcp_conn *c)
{
	return tcp_fin_pending(c) &&
		dt_tcp_seq_gt(c->snd_una, tcp_fin_seq(c));
}

/* Synchronized states (RFC 9293 3.5): a SYN of each side was acked. */
static inline bool
tcp_synchronized(const struct dt_tcp_conn *c)
{
	return c->state >= DT_TCP_ESTABLISHED;
}

/* dt_tcp_conn.c */
struct dt_tcp_event *dt_tcp_event_add(struct dt_tcp_out *out, uint8_t type);
void dt_tcp_set_state(struct dt_tcp_conn *c, enum dt_tcp_state st);
void dt_tcp_enter_closed(struct dt_tcp_conn *c, struct dt_tcp_out *out);
void dt_tcp_become_established(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out);
void dt_tcp_negotiate(struct dt_tcp_conn *c, const struct dt_net_tcp_opts *o,
	uint64_t now);
void dt_tcp_call_end(struct dt_tcp_conn *c, const uint64_t *before, uint64_t now,
	struct dt_tcp_out *out);
void dt_tcp_enter_time_wait(struct dt_tcp_conn *c, uint64_t now);

/* dt_tcp_input.c */
void dt_tcp_input_seg(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg,
	uint64_t now, struct dt_tcp_out *out);
void dt_tcp_free_payload(const struct dt_tcp_seg *seg, struct dt_tcp_out *out);
uint32_t dt_tcp_seg_payload_len(const struct dt_tcp_seg *seg);

/* dt_tcp_ack.c */
bool dt_tcp_ack_process(struct dt_tcp_conn *c, const struct dt_tcp_seg *seg,
	uint32_t plen, uint64_t now, struct dt_tcp_out *out);
bool dt_tcp_challenge_ack(struct dt_tcp_conn *c, uint64_t now);

/* dt_tcp_sack.c: what one ACK said (filled by dt_tcp_sack_input). */
struct tcp_ack_info {
	uint32_t old_una;
	uint32_t sacked_before;	/* lr.sacked before the ACK */
	uint32_t new_hi;	/* highest newly SACKed end (new_any) */
	bool new_any;		/* the SACK blocks told something new */
	bool dsack;		/* the first block was a D-SACK */
	struct dt_tcp_seq_range dsack_r;
};

void dt_tcp_sack_input(struct dt_tcp_conn *c, const struct dt_net_tcp_hdr *th,
	struct tcp_ack_info *ai);
void dt_tcp_sb_trim(struct dt_tcp_conn *c);
void dt_tcp_sb_clear(struct dt_tcp_conn *c);
uint32_t dt_tcp_sb_sacked_in(const struct dt_tcp_conn *c, uint32_t a,
	uint32_t b);
uint32_t dt_tcp_sb_lost_edge(const struct dt_tcp_conn *c);
void dt_tcp_sack_ack(struct dt_tcp_conn *c, const struct tcp_ack_info *ai,
	bool dupack, uint64_t now, struct dt_tcp_out *out);
void dt_tcp_sack_enter_recovery(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out);
void dt_tcp_sack_loss_marked(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out);
void dt_tcp_sack_xmit_holes(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out);
void dt_tcp_lr_sent(struct dt_tcp_conn *c, uint32_t seq, uint32_t used,
	uint64_t now);
void dt_tcp_lr_on_rto(struct dt_tcp_conn *c);

/* dt_tcp_rack.c */
void dt_tcp_rack_ack(struct dt_tcp_conn *c, const struct tcp_ack_info *ai,
	uint64_t now);
bool dt_tcp_rack_detect(struct dt_tcp_conn *c, uint64_t now);
bool dt_tcp_tlp_ack(struct dt_tcp_conn *c, const struct tcp_ack_info *ai,
	uint64_t now);
void dt_tcp_tlp_done(struct dt_tcp_conn *c);
void dt_tcp_lr_timer_update(struct dt_tcp_conn *c, uint64_t now);
void dt_tcp_on_pto(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out);
void dt_tcp_xlog_push(struct dt_tcp_conn *c, uint32_t end, uint64_t now);
void dt_tcp_cc_loss(struct dt_tcp_conn *c, uint64_t now);

/* dt_tcp_cc_newreno.c */
void dt_tcp_cc_init_window(struct dt_tcp_conn *c);
void dt_tcp_cc_cong_avoid(struct dt_tcp_conn *c, uint32_t acked, uint64_t now);

/* dt_tcp_rx.c */
void dt_tcp_rx_payload(struct dt_tcp_conn *c, uint32_t seq,
	const struct dt_tcp_seg *seg, uint64_t now, struct dt_tcp_out *out);
void dt_tcp_ooo_flush(struct dt_tcp_conn *c, struct dt_tcp_out *out);
void dt_tcp_rx_fin(struct dt_tcp_conn *c, uint32_t seq, uint32_t fin,
	struct dt_tcp_out *out);
void dt_tcp_rx_after_fin(struct dt_tcp_conn *c, uint32_t seq, uint32_t plen,
	const struct dt_tcp_seg *seg, struct dt_tcp_out *out);
void dt_tcp_dsack_note(struct dt_tcp_conn *c, uint32_t s, uint32_t e);
unsigned int dt_tcp_sack_blocks(struct dt_tcp_conn *c,
	struct dt_net_tcp_sack_block *b, unsigned int max);
uint32_t dt_tcp_rcv_wnd(const struct dt_tcp_conn *c);
uint16_t dt_tcp_rcv_wnd_field(struct dt_tcp_conn *c);
uint32_t dt_tcp_rcv_edge_candidate(const struct dt_tcp_conn *c);

/* dt_tcp_output.c */
struct dt_tcp_tx_seg *dt_tcp_seg_new(struct dt_tcp_out *out);
void dt_tcp_output_run(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out);
void dt_tcp_send_syn(struct dt_tcp_conn *c, uint64_t now, struct dt_tcp_out *out);
uint32_t dt_tcp_send_at(struct dt_tcp_conn *c, uint32_t seq, uint64_t now,
	struct dt_tcp_out *out);
uint32_t dt_tcp_send_len(struct dt_tcp_conn *c, uint32_t seq, uint32_t len,
	uint64_t now, struct dt_tcp_out *out);
void dt_tcp_send_ack(struct dt_tcp_conn *c, uint32_t seq, uint64_t now,
	struct dt_tcp_out *out);
void dt_tcp_send_rst(struct dt_tcp_out *out, uint32_t seq, uint32_t ack,
	bool with_ack);
void dt_tcp_rst_reply(const struct dt_tcp_seg *seg, struct dt_tcp_out *out);
uint32_t dt_tcp_ts_now(const struct dt_tcp_conn *c, uint64_t now);

/* dt_tcp_timer.c */
void dt_tcp_timer_set(struct dt_tcp_conn *c, enum dt_tcp_timer k,
	uint64_t deadline);
void dt_tcp_rtx_restart(struct dt_tcp_conn *c, uint64_t now);
void dt_tcp_rtt_sample(struct dt_tcp_conn *c, uint64_t rtt_us);
void dt_tcp_timers_update(struct dt_tcp_conn *c, uint64_t now);
void dt_tcp_fin_wait2_update(struct dt_tcp_conn *c, uint64_t now);
void dt_tcp_timers_run(struct dt_tcp_conn *c, uint64_t now,
	struct dt_tcp_out *out);
void dt_tcp_timer_diff(const uint64_t *before, const uint64_t *after,
	unsigned int first_kind, unsigned int n, struct dt_tcp_out *out);

#endif /* DT_TCP_PRIV_H */
