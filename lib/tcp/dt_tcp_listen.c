/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LISTEN (RFC 9293 3.10.7.2): SYN queue of half-open entries, SYN-ACK
 * retransmission, and the child connection built when the handshake's
 * final ACK arrives; SYN cookies when the queue is full (RFC 4987), RSTs
 * in SYN_RECEIVED per RFC 5961 3.
 *
 * The SYN queue is the caller's array of entries, threaded three ways:
 * a hash table by 4-tuple (bucket heads stored in the entries themselves),
 * a FIFO per retry level and a free list. Entries of one level all wait
 * the same RTO (rto_init << level, capped), so each FIFO is in deadline
 * order: the earliest deadline is the least of the level heads, expiry and
 * retransmission take heads, and the oldest entry (for eviction) is the
 * head of the highest non-empty level. Every operation is O(1) in the
 * queue's size.
 */
#include <errno.h>
#include <string.h>

#include "dt_tcp_cookie.h"
#include "dt_tcp_listen.h"
#include "dt_tcp_priv.h"

#define SYNQ_NONE 0xffffu
/* Tells the bucket hash's input from the ISN's and the cookie's. */
#define BUCKET_TAG 0xb7
#define CHACK_WINDOW_US 1000000

static const char *const verdict_names[DT_TCP_LST__COUNT] = {
	[DT_TCP_LST_IGNORED] = "ignored",
	[DT_TCP_LST_SYN_QUEUED] = "syn_queued",
	[DT_TCP_LST_SYN_RETRANS] = "syn_retransmitted",
	[DT_TCP_LST_SYNQ_FULL] = "synq_full",
	[DT_TCP_LST_ESTABLISHED] = "established",
	[DT_TCP_LST_BACKLOG_FULL] = "backlog_full",
	[DT_TCP_LST_RST_SENT] = "rst_sent",
	[DT_TCP_LST_SYN_COOKIE] = "syn_cookie",
	[DT_TCP_LST_RST_FREED] = "rst_freed",
	[DT_TCP_LST_CHALLENGE_ACK] = "challenge_ack",
};

const char *
dt_tcp_lst_verdict_str(enum dt_tcp_lst_verdict v)
{
	if ((unsigned int)v >= DT_TCP_LST__COUNT)
		return "?";
	return verdict_names[v];
}

/* ---- the SYN queue: hash, level FIFOs, free list ---- */

static void
synq_reset(struct dt_tcp_listener *l)
{
	uint16_t i;

	for (i = 0; i < l->synq_cap; i++) {
		memset(&l->synq[i], 0, sizeof(l->synq[i]));
		l->synq[i].bucket = SYNQ_NONE;
		l->synq[i].hnext = SYNQ_NONE;
		l->synq[i].prev = SYNQ_NONE;
		l->synq[i].next = i + 1 < l->synq_cap ? (uint16_t)(i + 1) :
			(uint16_t)SYNQ_NONE;
	}
	for (i = 0; i < DT_TCP_SYNQ_LEVELS; i++) {
		l->lvl[i].head = SYNQ_NONE;
		l->lvl[i].tail = SYNQ_NONE;
	}
	l->free_head = 0;
	l->synq_n = 0;
}

/* Keyed, so that a flooder cannot aim its tuples at one bucket. */
static uint16_t
synq_bucket(const struct dt_tcp_listener *l, const struct dt_tcp_tuple *t)
{
	uint8_t msg[13];
	uint32_t h;

	memcpy(msg, &t->laddr, 4);
	memcpy(msg + 4, &t->raddr, 4);
	memcpy(msg + 8, &t->lport, 2);
	memcpy(msg + 10, &t->rport, 2);
	msg[12] = BUCKET_TAG;
	h = (uint32_t)dt_tcp_siphash(l->key, msg, sizeof(msg));
	return (uint16_t)(((uint64_t)h * l->synq_cap) >> 32);
}

static bool
tuple_eq(const struct dt_tcp_tuple *a, const struct dt_tcp_tuple *b)
{
	return a->laddr == b->laddr && a->raddr == b->raddr &&
		a->lport == b->lport && a->rport == b->rport;
}

static struct dt_tcp_syn_entry *
synq_find(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t)
{
	uint16_t i = l->synq[synq_bucket(l, t)].bucket;

	while (i != SYNQ_NONE) {
		if (tuple_eq(&l->synq[i].tuple, t))
			return &l->synq[i];
		i = l->synq[i].hnext;
	}
	return NULL;
}

static uint16_t
synq_idx(const struct dt_tcp_listener *l, const struct dt_tcp_syn_entry *e)
{
	return (uint16_t)(e - l->synq);
}

static uint64_t
level_rto(const struct dt_tcp_listener *l, uint8_t level)
{
	uint64_t rto = l->cfg->rto_init_us << level;

	return rto > l->cfg->rto_max_us ? l->cfg->rto_max_us : rto;
}

/* Append @p e to the FIFO of its level, due one level RTO from @p now. */
static void
level_push(struct dt_tcp_listener *l, struct dt_tcp_syn_entry *e,
	uint64_t now)
{
	uint16_t i = synq_idx(l, e), tail = l->lvl[e->retries].tail;

	e->deadline = now + level_rto(l, e->retries);
	e->prev = tail;
	e->next = SYNQ_NONE;
	if (tail == SYNQ_NONE)
		l->lvl[e->retries].head = i;
	else
		l->synq[tail].next = i;
	l->lvl[e->retries].tail = i;
}

static void
level_unlink(struct dt_tcp_listener *l, struct dt_tcp_syn_entry *e)
{
	if (e->prev == SYNQ_NONE)
		l->lvl[e->retries].head = e->next;
	else
		l->synq[e->prev].next = e->next;
	if (e->next == SYNQ_NONE)
		l->lvl[e->retries].tail = e->prev;
	else
		l->synq[e->next].prev = e->prev;
}

static struct dt_tcp_syn_entry *
synq_alloc(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t)
{
	struct dt_tcp_syn_entry *e;
	uint16_t i = l->free_head, b;

	if (i == SYNQ_NONE)
		return NULL;
	e = &l->synq[i];
	l->free_head = e->next;
	b = synq_bucket(l, t);
	e->tuple = *t;
	e->hnext = l->synq[b].bucket;
	l->synq[b].bucket = i;
	e->in_use = 1;
	l->synq_n++;
	return e;
}

static void
synq_free(struct dt_tcp_listener *l, struct dt_tcp_syn_entry *e)
{
	uint16_t i = synq_idx(l, e);
	uint16_t *p = &l->synq[synq_bucket(l, &e->tuple)].bucket;

	while (*p != i)
		p = &l->synq[*p].hnext;
	*p = e->hnext;
	level_unlink(l, e);
	e->in_use = 0;
	e->hnext = SYNQ_NONE;
	e->prev = SYNQ_NONE;
	e->next = l->free_head;
	l->free_head = i;
	l->synq_n--;
}

/* The level whose head is due first, or -1 when the queue is empty. */
static int
synq_first_level(const struct dt_tcp_listener *l)
{
	uint64_t d = 0;
	int k, best = -1;

	for (k = 0; k < DT_TCP_SYNQ_LEVELS; k++) {
		uint16_t h = l->lvl[k].head;

		if (h != SYNQ_NONE && (best < 0 || l->synq[h].deadline < d)) {
			d = l->synq[h].deadline;
			best = k;
		}
	}
	return best;
}

static uint64_t
synq_earliest(const struct dt_tcp_listener *l)
{
	int k = synq_first_level(l);

	return k < 0 ? 0 : l->synq[l->lvl[k].head].deadline;
}

/* The oldest entry: the head of the highest non-empty level. */
static struct dt_tcp_syn_entry *
synq_oldest(struct dt_tcp_listener *l)
{
	int k;

	for (k = DT_TCP_SYNQ_LEVELS - 1; k >= 0; k--)
		if (l->lvl[k].head != SYNQ_NONE)
			return &l->synq[l->lvl[k].head];
	return NULL;
}

/* ---- set-up ---- */

int
dt_tcp_listen(struct dt_tcp_listener *l, const struct dt_tcp_cfg *cfg,
	const struct dt_tcp_isn_key *key, struct dt_tcp_syn_entry *synq,
	uint16_t synq_cap, uint16_t backlog)
{
	if (synq == NULL || synq_cap == 0 || synq_cap > DT_TCP_SYNQ_MAX ||
			backlog == 0 || cfg->wscale > DT_TCP_WS_MAX)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->cfg = cfg;
	l->key = key;
	l->cookie_key = key;
	l->cookies = true;
	l->synack_retries = DT_TCP_SYNACK_RETRIES;
	l->synq = synq;
	l->synq_cap = synq_cap;
	l->backlog = backlog;
	l->state = DT_TCP_LISTEN;
	synq_reset(l);
	return 0;
}

int
dt_tcp_listen_set_cookies(struct dt_tcp_listener *l, bool on,
	const struct dt_tcp_isn_key *key)
{
	l->cookies = on;
	l->cookie_key = key != NULL ? key : l->key;
	if (!on)
		l->cookie_until = 0;
	return 0;
}

int
dt_tcp_listen_set_synack_retries(struct dt_tcp_listener *l, uint8_t retries)
{
	if (retries >= DT_TCP_SYNQ_LEVELS || l->synq_n != 0)
		return -EINVAL;
	l->synack_retries = retries;
	return 0;
}

/* ---- segments ---- */

static uint16_t
synack_win(const struct dt_tcp_cfg *cfg)
{
	return (uint16_t)(cfg->rcv_space < 0xffff ? cfg->rcv_space : 0xffff);
}

/* SYN-ACK for @p e. @return false when the output is full (out->more set). */
static bool
synack_send(struct dt_tcp_listener *l, const struct dt_tcp_syn_entry *e,
	uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_tcp_cfg *cfg = l->cfg;
	struct dt_tcp_tx_seg *seg = dt_tcp_seg_new(out);
	struct dt_net_tcp_opts *o;

	if (seg == NULL)
		return false;
	o = &seg->th.opts;
	seg->tuple = e->tuple;
	seg->th.seq = e->iss;
	seg->th.ack = e->irs + 1;
	seg->th.flags = DT_NET_TCP_SYN | DT_NET_TCP_ACK;
	seg->th.win = synack_win(cfg);
	o->present = DT_NET_TCPOPT_F_MSS;
	o->mss = cfg->mss;
	if (cfg->wscale_ok && (e->opts & DT_NET_TCPOPT_F_WSCALE)) {
		o->present |= DT_NET_TCPOPT_F_WSCALE;
		o->wscale = cfg->wscale;
	}
	if (cfg->sack_ok && (e->opts & DT_NET_TCPOPT_F_SACK_PERM))
		o->present |= DT_NET_TCPOPT_F_SACK_PERM;
	if (cfg->ts_ok && (e->opts & DT_NET_TCPOPT_F_TS)) {
		o->present |= DT_NET_TCPOPT_F_TS;
		/* The child's timestamp offset is its ISS. */
		o->ts_val = (uint32_t)(now / 1000) + e->iss;
		o->ts_ecr = e->ts_recent;
	}
	l->st.synacks_sent++;
	return true;
}

static void
synq_fill(struct dt_tcp_listener *l, struct dt_tcp_syn_entry *e,
	const struct dt_net_tcp_hdr *th, uint64_t now)
{
	e->iss = dt_tcp_isn(l->key, &e->tuple, now);
	e->irs = th->seq;
	e->opts = th->opts.present;
	e->peer_mss = th->opts.mss;
	e->peer_ws = th->opts.wscale;
	e->peer_win = th->win;
	e->ts_recent = th->opts.ts_val;
	e->sent_at = now;
	e->retries = 0;
	level_push(l, e, now);
}

/* Turn @p c (CLOSED) into the SYN_RECEIVED child of entry @p e. */
static void
child_init(const struct dt_tcp_listener *l, const struct dt_tcp_syn_entry *e,
	bool cookie, struct dt_tcp_conn *c, uint64_t now)
{
	struct dt_net_tcp_opts o;

	memset(&o, 0, sizeof(o));
	o.present = e->opts;
	o.mss = e->peer_mss;
	o.wscale = e->peer_ws;
	o.ts_val = e->ts_recent;
	c->cfg = l->cfg;
	c->tuple = e->tuple;
	c->iss = e->iss;
	c->irs = e->irs;
	c->snd_una = e->iss;
	c->snd_nxt = e->iss + 1;
	c->snd_max = e->iss + 1;
	c->txq_seq = e->iss + 1;
	c->ts_offset = e->iss;
	c->recover = e->iss;
	c->rcv_nxt = e->irs + 1;
	c->rcv_adv = c->rcv_nxt + synack_win(l->cfg);
	dt_tcp_negotiate(c, &o, now);
	c->snd_wnd = e->peer_win;
	c->max_snd_wnd = e->peer_win;
	c->snd_wl1 = e->irs;
	c->snd_wl2 = e->iss;
	/* The listener's SYN-ACK retransmissions count as the child's. */
	c->rtx_segs = e->retries;
	if (e->retries)
		c->flags |= DT_TCP_F_SYN_RTX;
	else if (!cookie)
		dt_tcp_rtt_sample(c, now - e->sent_at);
	dt_tcp_set_state(c, DT_TCP_SYN_RECEIVED);
}

static bool
challenge_ack_allowed(struct dt_tcp_listener *l, uint64_t now)
{
	/* RFC 5961 7: rate-limited, listener-wide. */
	if (l->chack_start == 0 || now - l->chack_start >= CHACK_WINDOW_US) {
		l->chack_start = now ? now : 1;
		l->chack_count = 0;
	}
	if (l->chack_count >= l->cfg->challenge_ack_limit)
		return false;
	l->chack_count++;
	return true;
}

static void
challenge_ack_send(struct dt_tcp_listener *l, const struct dt_tcp_syn_entry *e,
	uint64_t now, struct dt_tcp_out *out)
{
	struct dt_tcp_tx_seg *seg = dt_tcp_seg_new(out);
	struct dt_net_tcp_opts *o;

	if (seg == NULL)
		return;
	o = &seg->th.opts;
	seg->tuple = e->tuple;
	seg->th.seq = e->iss + 1;
	seg->th.ack = e->irs + 1;
	seg->th.flags = DT_NET_TCP_ACK;
	seg->th.win = synack_win(l->cfg);
	if (l->cfg->ts_ok && (e->opts & DT_NET_TCPOPT_F_TS)) {
		o->present |= DT_NET_TCPOPT_F_TS;
		o->ts_val = (uint32_t)(now / 1000) + e->iss;
		o->ts_ecr = e->ts_recent;
	}
	l->st.challenge_acks++;
}

/*
 * The child did not accept the final ACK (RFC 7323 3.2: no timestamp
 * once negotiated, dropped silently; 5.3 R1: PAWS; RFC 9293 3.10.7.4:
 * out of window; both answered with an ACK): no handshake. The spare
 * goes back to what it was (it took no payload in SYN_RECEIVED) and
 * the entry stays, its SYN-ACK timer running; the ACK the child owed
 * is sent on the listener's challenge-ACK budget.
 */
static void
listen_child_undo(struct dt_tcp_listener *l,
	const struct dt_tcp_syn_entry *e, struct dt_tcp_conn *spare,
	const struct dt_tcp_conn *saved, uint64_t now, struct dt_tcp_out *out)
{
	bool ack = tcp_flag(spare, DT_TCP_F_ACK_NOW);

	*spare = *saved;
	if (ack && challenge_ack_allowed(l, now))
		challenge_ack_send(l, e, now, out);
}

/* Complete a handshake with @p e: the spare becomes the child. */
static enum dt_tcp_lst_verdict
listen_child(struct dt_tcp_listener *l, struct dt_tcp_syn_entry *e,
	bool cookie, const struct dt_tcp_seg *seg, struct dt_tcp_conn *spare,
	uint64_t now, struct dt_tcp_out *out)
{
	uint64_t none[DT_TCP_T__COUNT] = { 0 };
	struct dt_tcp_conn saved;

	if (spare == NULL || spare->state != DT_TCP_CLOSED ||
			l->pending >= l->backlog) {
		/* Keep the entry: the SYN-ACK timer retries later. */
		dt_tcp_free_payload(seg, out);
		return DT_TCP_LST_BACKLOG_FULL;
	}
	saved = *spare;
	child_init(l, e, cookie, spare, now);
	dt_tcp_input_seg(spare, seg, now, out);
	if (spare->state == DT_TCP_SYN_RECEIVED) {
		listen_child_undo(l, e, spare, &saved, now, out);
		return DT_TCP_LST_IGNORED;
	}
	if (!cookie)
		synq_free(l, e);
	l->pending++;
	dt_tcp_call_end(spare, none, now, out);
	return DT_TCP_LST_ESTABLISHED;
}

/*
 * An ACK for no entry: the answer to a cookie? Only tried while cookies
 * were sent recently (no hash for every stray ACK, no window for guessing
 * when no flood is on).
 */
static bool
cookie_ack(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_net_tcp_hdr *th, uint64_t now,
	struct dt_tcp_syn_entry *e)
{
	struct dt_tcp_cookie_opts co;
	bool ts = (th->opts.present & DT_NET_TCPOPT_F_TS) != 0;

	if (!l->cookies || now >= l->cookie_until)
		return false;
	if (!dt_tcp_cookie_check(l->cookie_key, t, th->seq - 1, th->ack - 1,
			ts, th->opts.ts_ecr, now, &co)) {
		l->st.cookies_bad++;
		return false;
	}
	l->st.cookies_ok++;
	memset(e, 0, sizeof(*e));
	e->tuple = *t;
	e->iss = th->ack - 1;
	e->irs = th->seq - 1;
	e->opts = co.present;
	e->peer_mss = co.mss;
	e->peer_ws = co.wscale;
	e->ts_recent = th->opts.ts_val;
	return true;
}

static enum dt_tcp_lst_verdict
listen_ack(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg, struct dt_tcp_conn *spare, uint64_t now,
	struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	struct dt_tcp_syn_entry *e = synq_find(l, t), tmp;
	uint64_t bad = l->st.cookies_bad;

	if (e == NULL && !(th->flags & DT_NET_TCP_SYN) &&
			cookie_ack(l, t, th, now, &tmp))
		return listen_child(l, &tmp, true, seg, spare, now, out);
	/*
	 * A cookie's peer whose ACK and first segments were lost sends
	 * later data (seq beyond its ISN + 1) that cannot validate: drop it
	 * unanswered and the peer's retransmission from ISN + 1 gets in
	 * (a RST would kill a legitimate connection under flood). A pure
	 * ACK that fails is answered with RST as usual.
	 */
	if (e == NULL && l->st.cookies_bad != bad &&
			(dt_tcp_seg_payload_len(seg) > 0 ||
			(th->flags & DT_NET_TCP_FIN))) {
		dt_tcp_free_payload(seg, out);
		return DT_TCP_LST_IGNORED;
	}
	if (e == NULL || (th->flags & DT_NET_TCP_SYN) || th->ack != e->iss + 1) {
		dt_tcp_free_payload(seg, out);
		dt_tcp_send_rst(out, th->ack, 0, false);
		return DT_TCP_LST_RST_SENT;
	}
	return listen_child(l, e, false, seg, spare, now, out);
}

/* A SYN to a full queue, cookies on: answer it and keep nothing. */
static void
cookie_send(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_net_tcp_hdr *th, uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_tcp_cfg *cfg = l->cfg;
	struct dt_tcp_cookie_opts co = {
		.mss = th->opts.mss, .wscale = th->opts.wscale,
		.present = th->opts.present,
	};
	struct dt_tcp_syn_entry e;
	struct dt_tcp_tx_seg *seg;

	/* Only what we would accept: the cookie encodes the agreement. */
	if (!cfg->ts_ok)
		co.present &= (uint8_t)~DT_NET_TCPOPT_F_TS;
	if (!cfg->wscale_ok)
		co.present &= (uint8_t)~DT_NET_TCPOPT_F_WSCALE;
	if (!cfg->sack_ok)
		co.present &= (uint8_t)~DT_NET_TCPOPT_F_SACK_PERM;
	memset(&e, 0, sizeof(e));
	e.tuple = *t;
	e.irs = th->seq;
	e.iss = dt_tcp_cookie_make(l->cookie_key, t, th->seq, now, &co);
	e.opts = co.present;
	e.ts_recent = th->opts.ts_val;
	if (!synack_send(l, &e, now, out))
		return;
	seg = &out->segs[out->n_segs - 1];
	if (seg->th.opts.present & DT_NET_TCPOPT_F_TS)
		seg->th.opts.ts_val = dt_tcp_cookie_tsval(seg->th.opts.ts_val,
			&co);
	l->st.cookies_sent++;
	/* Validate ACKs as long as a cookie of this slot may come back. */
	l->cookie_until = (now / DT_TCP_COOKIE_SLOT_US + 2) *
		DT_TCP_COOKIE_SLOT_US;
}

static enum dt_tcp_lst_verdict
listen_syn(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg, uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	struct dt_tcp_syn_entry *e = synq_find(l, t);
	enum dt_tcp_lst_verdict v = DT_TCP_LST_SYN_QUEUED;

	/* Data on a SYN is not accepted (no TCP Fast Open). */
	dt_tcp_free_payload(seg, out);
	if (e != NULL && e->irs == th->seq) {
		if (synack_send(l, e, now, out))
			l->st.synacks_rtx++;
		return DT_TCP_LST_SYN_RETRANS;
	}
	if (e != NULL) {
		/* A new incarnation of the peer: start over at level 0. */
		level_unlink(l, e);
	} else {
		if (l->synq_n == l->synq_cap) {
			l->st.synq_overflows++;
			if (l->cookies) {
				cookie_send(l, t, th, now, out);
				return DT_TCP_LST_SYN_COOKIE;
			}
			synq_free(l, synq_oldest(l));
			l->st.synq_evicted++;
			v = DT_TCP_LST_SYNQ_FULL;
		}
		e = synq_alloc(l, t);
	}
	synq_fill(l, e, th, now);
	synack_send(l, e, now, out);
	return v;
}

/*
 * RFC 5961 3.2 for a half-open entry (SYN_RECEIVED, RCV.NXT = irs + 1,
 * RCV.WND the SYN-ACK's window): exactly RCV.NXT resets (frees the
 * entry), elsewhere in the window draws a challenge ACK, outside it the
 * RST is dropped. Without an entry there is nothing to reset.
 */
static enum dt_tcp_lst_verdict
listen_rst(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_net_tcp_hdr *th, uint64_t now, struct dt_tcp_out *out)
{
	struct dt_tcp_syn_entry *e = synq_find(l, t);
	uint32_t rcv_nxt;

	if (e == NULL)
		return DT_TCP_LST_IGNORED;
	rcv_nxt = e->irs + 1;
	if (th->seq == rcv_nxt) {
		synq_free(l, e);
		l->st.synq_rst++;
		return DT_TCP_LST_RST_FREED;
	}
	if (!dt_tcp_seq_in(th->seq, rcv_nxt, rcv_nxt + synack_win(l->cfg)))
		return DT_TCP_LST_IGNORED;
	if (challenge_ack_allowed(l, now))
		challenge_ack_send(l, e, now, out);
	return DT_TCP_LST_CHALLENGE_ACK;
}

enum dt_tcp_lst_verdict
dt_tcp_listen_input(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg, struct dt_tcp_conn *spare, uint64_t now,
	struct dt_tcp_out *out)
{
	uint64_t before = l->deadline;
	enum dt_tcp_lst_verdict v;
	uint8_t f = seg->th.flags;

	dt_tcp_out_reset(out);
	if (l->state != DT_TCP_LISTEN) {
		dt_tcp_free_payload(seg, out);
		dt_tcp_rst_reply(seg, out);
		return DT_TCP_LST_RST_SENT;
	}
	if (f & DT_NET_TCP_RST) {
		dt_tcp_free_payload(seg, out);
		v = listen_rst(l, t, &seg->th, now, out);
	} else if ((f & (DT_NET_TCP_SYN | DT_NET_TCP_FIN | DT_NET_TCP_ACK)) ==
			(DT_NET_TCP_SYN | DT_NET_TCP_FIN)) {
		/* SYN+FIN: a scanner's probe, discarded like Linux does. */
		dt_tcp_free_payload(seg, out);
		v = DT_TCP_LST_IGNORED;
	} else if (f & DT_NET_TCP_ACK) {
		v = listen_ack(l, t, seg, spare, now, out);
	} else if (f & DT_NET_TCP_SYN) {
		v = listen_syn(l, t, seg, now, out);
	} else {
		dt_tcp_free_payload(seg, out);
		v = DT_TCP_LST_IGNORED;
	}
	l->deadline = synq_earliest(l);
	dt_tcp_timer_diff(&before, &l->deadline, DT_TCP_T_SYNQ, 1, out);
	return v;
}

void
dt_tcp_listen_timeout(struct dt_tcp_listener *l, uint64_t now,
	struct dt_tcp_out *out)
{
	uint64_t before = l->deadline;
	struct dt_tcp_syn_entry *e;
	int k;

	dt_tcp_out_reset(out);
	/* Due entries in deadline order, one level head at a time. */
	while ((k = synq_first_level(l)) >= 0) {
		e = &l->synq[l->lvl[k].head];
		if (e->deadline > now)
			break;
		if (e->retries >= l->synack_retries) {
			synq_free(l, e);
			l->st.synq_expired++;
			continue;
		}
		/*
		 * Output full: this entry and the ones after it stay due,
		 * their retry counts and deadlines untouched.
		 */
		if (!synack_send(l, e, now, out))
			break;
		l->st.synacks_rtx++;
		level_unlink(l, e);
		e->retries++;
		level_push(l, e, now);
	}
	l->deadline = synq_earliest(l);
	dt_tcp_timer_diff(&before, &l->deadline, DT_TCP_T_SYNQ, 1, out);
}

void
dt_tcp_listen_accepted(struct dt_tcp_listener *l)
{
	if (l->pending > 0)
		l->pending--;
}

void
dt_tcp_listen_close(struct dt_tcp_listener *l, struct dt_tcp_out *out)
{
	uint64_t before = l->deadline;

	dt_tcp_out_reset(out);
	synq_reset(l);
	l->state = DT_TCP_CLOSED;
	l->deadline = 0;
	dt_tcp_timer_diff(&before, &l->deadline, DT_TCP_T_SYNQ, 1, out);
}
