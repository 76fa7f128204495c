/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the sans-IO TCP engine (lib/tcp) as a stateful harness.
 *
 * The input is a configuration header and a script of steps, decoded by
 * fz_step(): segments from the peer (arbitrary flags, sequence and ack
 * numbers relative to the connection's own variables or absolute, window,
 * options, SACK blocks, payload length split into extents), time advances
 * (small steps, to the next deadline, large jumps) and application calls
 * (send, release of receive space, close, full close, abort, connect,
 * out-of-order limit, keepalive, Nagle). Two connections: slot 0 is
 * accepted by a listener (several peer ports can sit in its SYN queue),
 * slot 1 is an active open. The harness plays the peer of both.
 *
 * After every call it checks the contract of dt_tcp.h and the invariants
 * every TCP must keep (fz_check_*); a broken one prints what and abort()s:
 *  - every payload extent handed in gets exactly one DATA or FREE, and none
 *    is held after CLOSED or at the end of the input (everything aborted);
 *  - DATA is in order and contiguous from IRS + 1, never beyond a FIN the
 *    engine holds, never after PEER_CLOSED; nothing stays held out of
 *    order once the FIN is consumed;
 *  - held out-of-order extents are sorted, disjoint, beyond rcv_nxt, and
 *    are extents still awaiting their outcome;
 *  - snd_una <= snd_nxt <= snd_max;
 *  - outbound payload lies inside the right edge the peer advertised in an
 *    acceptable ACK (one byte past it: a zero-window probe), and is the
 *    application's stream at the right offset;
 *  - SACK blocks sent (after a D-SACK, RFC 2883) lie above the cumulative
 *    ACK and describe data held (or resolved by that very call); the
 *    sender's scoreboard holds only data in flight;
 *  - cwnd stays below 2^30 and below 16 segments plus twice the bytes
 *    acknowledged so far;
 *  - timer actions agree with the connection's deadlines; outbound headers
 *    survive a build/parse round trip.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_net_tcp.h"
#include "dt_tcp.h"
#include "dt_tcp_isn.h"
#include "dt_tcp_listen.h"
#include "dt_tcp_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_SLOTS 2
#define FZ_OOO_CAP 64
#define FZ_TXQ_CAP 256
#define FZ_SYNQ 8
#define FZ_REC 2048
#define FZ_TX_REC 1024
#define FZ_MAX_PAYLOAD 16384
#define FZ_CWND_CEIL (1u << 30)
#define FZ_LADDR 0x0a000001u
#define FZ_RADDR 0x0a000002u
#define FZ_LPORT 8080
#define FZ_PORT0 40000		/* slot 0's peers: 40000..40007 */
#define FZ_PORT1 9000		/* slot 1 connects to it */
#define FZ_LPORT1 50000

/* One payload extent handed to the engine. */
struct fz_rx {
	uint32_t seq;
	uint32_t len;
	uint8_t slot;
	uint8_t outcome;	/* 0 pending, 1 DATA, 2 FREE */
	uint16_t gen;		/* the slot's connection generation */
	uint16_t call;		/* call number that resolved it */
};

/* One send: bytes [off, off + len) of the slot's application stream. */
struct fz_tx {
	uint64_t off;
	uint32_t len;
	uint8_t slot;
	uint16_t gen;
};

struct fz_slot {
	struct dt_tcp_conn c;
	struct dt_tcp_extent txq[FZ_TXQ_CAP];
	struct dt_tcp_ooo ooo[FZ_OOO_CAP];
	bool init;		/* dt_tcp_conn_init() done */
	uint16_t gen;
	uint64_t tmr[DT_TCP_T__COUNT];
	/* The harness's view of the connection. */
	bool open;		/* CONNECTED seen, CLOSED not yet */
	bool peer_closed;
	uint32_t deliv;		/* next sequence DATA must start at */
	bool edge_ok;
	uint32_t edge;		/* highest right edge the peer advertised */
	uint32_t wnd_max;	/* largest window it offered (scaled) */
	uint64_t acked;		/* bytes snd_una advanced over, bounded */
	uint64_t stream;	/* application bytes queued */
	uint32_t peer_iss;	/* the peer's ISN (its SYN's sequence) */
	uint32_t syn_win_max;	/* largest window in a SYN of the peer */
	uint32_t last_ts;	/* TSval of our last segment */
	bool ack_owed;		/* ack_defer: dt_tcp_output() owed */
};

struct fz_env {
	struct dt_tcp_cfg cfg;
	struct dt_tcp_isn_key key;
	struct dt_tcp_listener lst;
	struct dt_tcp_syn_entry synq[FZ_SYNQ];
	struct fz_slot s[FZ_SLOTS];
	uint64_t now;
	uint64_t lst_tmr[DT_TCP_T__COUNT];
	uint32_t synack_seq[8];	/* last SYN-ACK per slot-0 peer port */
	bool synack_seen[8];
	struct fz_rx rx[FZ_REC];
	unsigned int n_rx;
	struct fz_tx tx[FZ_TX_REC];
	unsigned int n_tx;
	uint16_t call;
	uint16_t ooo_cap;
	uint16_t txq_cap;
	/* Input cursor. */
	const uint8_t *p;
	size_t left;
	struct dt_tcp_out out;
};

static struct fz_env env;

#define FZ_FAIL(...) do { \
	fprintf(stderr, "fuzz_tcp: invariant broken (%s:%d): ", \
		__FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); \
	fprintf(stderr, "\n"); \
	abort(); \
} while (0)

/*
 * Engine invariants by name. FUZZ_TCP_LAX=name,name (or "all") in the
 * environment makes those report once and go on instead of abort(), so a
 * long run can look past a known bug. The harness's own bookkeeping
 * (exactly-once outcomes, references) is always fatal.
 */
enum fz_key {
	FZ_K_WINDOW,	/* output beyond the peer's window */
	FZ_K_CWND,	/* cwnd above its bound */
	FZ_K_SACK,	/* SACK blocks not describing held data */
	FZ_K_FIN,	/* data beyond / after the peer's FIN */
	FZ_K_LOST,	/* rcv_nxt moved over data never delivered */
	FZ_K__COUNT
};

static const char *const fz_key_names[FZ_K__COUNT] = {
	[FZ_K_WINDOW] = "window",
	[FZ_K_CWND] = "cwnd",
	[FZ_K_SACK] = "sack",
	[FZ_K_FIN] = "fin",
	[FZ_K_LOST] = "lost",
};

static unsigned int fz_lax;		/* bit per enum fz_key */
static bool fz_trace;			/* FUZZ_TCP_TRACE: a line per call */
static unsigned int fz_lax_seen;

#define FZ_BUG(key, ...) do { \
	if (!(fz_lax & (1u << (key)))) \
		FZ_FAIL(__VA_ARGS__); \
	if (!(fz_lax_seen & (1u << (key)))) { \
		fz_lax_seen |= 1u << (key); \
		fprintf(stderr, "fuzz_tcp: lax %s (%s:%d): ", \
			fz_key_names[key], __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
	} \
} while (0)

/* ---- input decoding: past the end everything reads as zero ---- */

static uint8_t
rd8(void)
{
	if (env.left == 0)
		return 0;
	env.left--;
	return *env.p++;
}

static uint16_t
rd16(void)
{
	uint16_t hi = rd8();

	return (uint16_t)(hi << 8 | rd8());
}

static uint32_t
rd32(void)
{
	uint32_t hi = rd16();

	return hi << 16 | rd16();
}

/* ---- bookkeeping of what the engine produced ---- */

static bool
state_synced(uint8_t st)
{
	return st != DT_TCP_CLOSED && st != DT_TCP_LISTEN &&
		st != DT_TCP_SYN_SENT;
}

static bool
state_fin_rcvd(uint8_t st)
{
	return st == DT_TCP_CLOSE_WAIT || st == DT_TCP_LAST_ACK ||
		st == DT_TCP_CLOSING || st == DT_TCP_TIME_WAIT;
}

/*
 * The peer's FIN consumed while out-of-order data stays held: whatever
 * breaks then (held data at or below rcv_nxt, SACK blocks at the ACK) is
 * that one bug, reported under its name.
 */
static unsigned int
key_or_fin(const struct dt_tcp_conn *c, unsigned int key)
{
	return state_fin_rcvd(c->state) && c->ooo_n > 0 ? FZ_K_FIN : key;
}

static struct fz_rx *
rx_of(const void *ref)
{
	const struct fz_rx *r = ref;

	if (r < env.rx || r >= env.rx + env.n_rx)
		FZ_FAIL("event names an unknown payload reference %p", ref);
	return (struct fz_rx *)(uintptr_t)r;
}

/* Every extent of the slot's current connection has had its outcome. */
static void
check_none_held(unsigned int slot, const char *when)
{
	unsigned int i;

	for (i = 0; i < env.n_rx; i++)
		if (env.rx[i].slot == slot && env.rx[i].gen == env.s[slot].gen &&
				env.rx[i].outcome == 0)
			FZ_FAIL("%s: payload %u+%u of slot %u still held", when,
				env.rx[i].seq, env.rx[i].len, slot);
}

static void
ev_data(struct fz_slot *s, unsigned int slot, const struct dt_tcp_event *ev,
	bool fin_held, uint32_t fin_seq)
{
	struct fz_rx *r = rx_of(ev->ext.ref);
	uint32_t start = r->seq + ev->ext.off;

	if (r->slot != slot || r->gen != s->gen)
		FZ_FAIL("DATA of slot %u carries payload of slot %u", slot,
			r->slot);
	if (ev->ext.len == 0 || ev->ext.off > r->len ||
			ev->ext.len > r->len - ev->ext.off)
		FZ_FAIL("DATA %u+%u outside its extent of %u bytes",
			ev->ext.off, ev->ext.len, r->len);
	if (!s->open)
		FZ_FAIL("DATA before CONNECTED on slot %u", slot);
	if (s->peer_closed)
		FZ_BUG(FZ_K_FIN, "DATA after PEER_CLOSED on slot %u", slot);
	if (start != s->deliv)
		FZ_FAIL("DATA out of order on slot %u: starts at %u, next is %u",
			slot, start, s->deliv);
	if (fin_held && dt_tcp_seq_gt(start + ev->ext.len, fin_seq))
		FZ_BUG(FZ_K_FIN, "DATA %u+%u beyond the peer's FIN at %u (slot %u)",
			start, ev->ext.len, fin_seq, slot);
	s->deliv += ev->ext.len;
}

static void
collect_events(unsigned int slot, const struct dt_tcp_out *out,
	bool fin_held, uint32_t fin_seq)
{
	struct fz_slot *s = &env.s[slot];
	const struct dt_tcp_event *ev;
	struct fz_rx *r;
	unsigned int i;

	for (i = 0; i < out->n_events; i++) {
		ev = &out->events[i];
		if (fz_trace)
			fprintf(stderr, "fuzz_tcp:   event %u off %u len %u\n",
				ev->type, ev->ext.off, ev->ext.len);
		switch (ev->type) {
		case DT_TCP_EV_CONNECTED:
			if (s->open)
				FZ_FAIL("second CONNECTED on slot %u", slot);
			s->open = true;
			s->deliv = s->c.irs + 1;
			break;
		case DT_TCP_EV_DATA:
		case DT_TCP_EV_FREE:
			/* Both end the extent's life. */
			if (ev->type == DT_TCP_EV_DATA)
				ev_data(s, slot, ev, fin_held, fin_seq);
			r = rx_of(ev->ext.ref);
			if (r->outcome)
				FZ_FAIL("payload %u+%u got a second outcome",
					r->seq, r->len);
			r->outcome = ev->type == DT_TCP_EV_DATA ? 1 : 2;
			r->call = env.call;
			break;
		case DT_TCP_EV_PEER_CLOSED:
			if (s->peer_closed)
				FZ_FAIL("second PEER_CLOSED on slot %u", slot);
			s->peer_closed = true;
			break;
		case DT_TCP_EV_CLOSED:
			s->open = false;
			break;
		case DT_TCP_EV_SENT:
		case DT_TCP_EV_RESET:
		case DT_TCP_EV_ERROR:
			break;
		default:
			FZ_FAIL("unknown event type %u", ev->type);
		}
	}
}

static void
hdr_roundtrip(const struct dt_tcp_tx_seg *g)
{
	uint8_t buf[DT_NET_TCP_HLEN_MAX];
	struct dt_net_tcp_hdr back;
	size_t n = dt_net_tcp_build(buf, sizeof(buf), &g->th);

	if (n == 0 || dt_net_tcp_parse(buf, n, n + g->len, &back) != DT_NET_OK ||
			back.seq != g->th.seq || back.ack != g->th.ack ||
			back.flags != g->th.flags || back.win != g->th.win ||
			back.opts.present != g->th.opts.present)
		FZ_FAIL("outbound header does not survive build/parse");
}

/* Is [lo, hi) covered by held extents or extents resolved in this call? */
static bool
range_held(const struct fz_slot *s, unsigned int slot, uint32_t lo, uint32_t hi)
{
	uint32_t pos = lo;
	bool moved = true;
	unsigned int i;

	/* Few extents: advance pos through any one that covers it. */
	while (dt_tcp_seq_lt(pos, hi) && moved) {
		moved = false;
		for (i = 0; i < s->c.ooo_n; i++) {
			const struct dt_tcp_ooo *o = &s->c.ooo[i];

			if (dt_tcp_seq_le(o->seq, pos) &&
					dt_tcp_seq_gt(o->seq + o->ext.len, pos)) {
				pos = o->seq + o->ext.len;
				moved = true;
			}
		}
		for (i = 0; i < env.n_rx; i++) {
			const struct fz_rx *r = &env.rx[i];

			if (r->slot != slot || r->outcome == 0 ||
					r->call != env.call)
				continue;
			if (dt_tcp_seq_le(r->seq, pos) &&
					dt_tcp_seq_gt(r->seq + r->len, pos)) {
				pos = r->seq + r->len;
				moved = true;
			}
		}
	}
	return !dt_tcp_seq_lt(pos, hi);
}

static void
check_sack(const struct fz_slot *s, unsigned int slot,
	const struct dt_tcp_tx_seg *g)
{
	const struct dt_net_tcp_opts *o = &g->th.opts;
	const struct dt_net_tcp_sack_block *b;
	unsigned int i = 0;

	if (!(o->present & DT_NET_TCPOPT_F_SACK))
		return;
	if (!(g->th.flags & DT_NET_TCP_ACK))
		FZ_FAIL("SACK option without ACK");
	/* RFC 2883: a first block below the ACK or inside the second. */
	if (o->n_sack > 0 && (dt_tcp_seq_le(o->sack[0].right, g->th.ack) ||
			(o->n_sack > 1 &&
			dt_tcp_seq_ge(o->sack[0].left, o->sack[1].left) &&
			dt_tcp_seq_le(o->sack[0].right, o->sack[1].right))))
		i = 1;
	for (; i < o->n_sack; i++) {
		b = &o->sack[i];
		if (!dt_tcp_seq_lt(b->left, b->right) ||
				!dt_tcp_seq_gt(b->left, g->th.ack))
			FZ_BUG(key_or_fin(&s->c, FZ_K_SACK),
				"SACK block %u:%u not above the ACK %u",
				b->left, b->right, g->th.ack);
		if (!range_held(s, slot, b->left, b->right))
			FZ_BUG(key_or_fin(&s->c, FZ_K_SACK),
				"SACK block %u:%u (ack %u) describes data not held",
				b->left, b->right, g->th.ack);
	}
}

static void
check_tx_payload(const struct fz_slot *s, unsigned int slot,
	const struct dt_tcp_tx_seg *g)
{
	uint32_t sum = 0, end, limit;
	uint64_t want;
	unsigned int i;

	if (g->n_ext > DT_TCP_TX_MAX_EXT)
		FZ_FAIL("segment with %u extents", g->n_ext);
	for (i = 0; i < g->n_ext; i++) {
		const struct fz_tx *t = g->ext[i].ref;

		if (t < env.tx || t >= env.tx + env.n_tx || t->slot != slot ||
				t->gen != s->gen)
			FZ_FAIL("outbound extent of an unknown send");
		if (g->ext[i].off > t->len || g->ext[i].len > t->len -
				g->ext[i].off || g->ext[i].len == 0)
			FZ_FAIL("outbound extent outside its send");
		want = t->off + g->ext[i].off;
		/* Stream byte k has sequence iss + 1 + k (mod 2^32). */
		if ((uint32_t)(s->c.iss + 1 + want) != g->th.seq + sum)
			FZ_FAIL("outbound payload at seq %u is stream byte %llu",
				g->th.seq + sum, (unsigned long long)want);
		sum += g->ext[i].len;
	}
	if (sum != g->len)
		FZ_FAIL("segment length %u, extents %u", g->len, sum);
	if (g->len == 0 || !s->edge_ok)
		return;
	end = g->th.seq + g->len;
	/*
	 * The highest edge offered, or (RFC 9293 3.8.6.2.1: usable window
	 * SND.UNA + SND.WND, and an ACK may move SND.UNA without updating
	 * SND.WND) snd_una plus the largest window offered.
	 */
	limit = s->edge;
	if (dt_tcp_seq_gt(s->c.snd_una + s->wnd_max, limit))
		limit = s->c.snd_una + s->wnd_max;
	/* One byte beyond the window: a zero-window probe. */
	if (dt_tcp_seq_gt(end, limit) && !(g->len == 1 && end == limit + 1))
		FZ_BUG(FZ_K_WINDOW, "segment %u+%u beyond the peer's window edge %u "
			"(snd_una %u snd_wnd %u)", g->th.seq, g->len, limit,
			s->c.snd_una, s->c.snd_wnd);
}

static void
collect_segs(int slot, const struct dt_tcp_out *out)
{
	const struct dt_tcp_tx_seg *g;
	unsigned int i, v;

	for (i = 0; i < out->n_segs; i++) {
		g = &out->segs[i];
		hdr_roundtrip(g);
		if (slot < 0) {
			/* Listener: SYN-ACKs and RSTs name their tuple. */
			v = (unsigned int)(g->tuple.rport - FZ_PORT0);
			if ((g->th.flags & (DT_NET_TCP_SYN | DT_NET_TCP_ACK)) ==
					(DT_NET_TCP_SYN | DT_NET_TCP_ACK)) {
				if (g->tuple.lport != FZ_LPORT || v >= 8 ||
						g->tuple.raddr != FZ_RADDR)
					FZ_FAIL("SYN-ACK without its tuple");
				env.synack_seq[v] = g->th.seq;
				env.synack_seen[v] = true;
			}
			if (g->len)
				FZ_FAIL("listener segment with payload");
			continue;
		}
		if (g->th.opts.present & DT_NET_TCPOPT_F_TS)
			env.s[slot].last_ts = g->th.opts.ts_val;
		if (fz_trace)
			fprintf(stderr, "fuzz_tcp:   out flags %02x seq %u+%u "
				"ack %u sack %u: %u:%u %u:%u\n", g->th.flags,
				g->th.seq, g->len, g->th.ack, g->th.opts.n_sack,
				g->th.opts.sack[0].left, g->th.opts.sack[0].right,
				g->th.opts.sack[1].left, g->th.opts.sack[1].right);
		check_tx_payload(&env.s[slot], (unsigned int)slot, g);
		check_sack(&env.s[slot], (unsigned int)slot, g);
	}
}

static void
collect_timers(uint64_t *tmr, const struct dt_tcp_out *out)
{
	unsigned int i;

	unsigned int k;

	for (i = 0; i < out->n_timers; i++) {
		k = out->timers[i].kind;
		if (k >= DT_TCP_T__COUNT)
			FZ_FAIL("timer kind %u", k);
		/* A child's handshake also moves the listener's deadline. */
		if (k == DT_TCP_T_SYNQ)
			env.lst_tmr[k] = out->timers[i].deadline;
		else
			tmr[k] = out->timers[i].deadline;
	}
}

/* State of a slot before a call, for the checks after it. */
struct fz_pre {
	bool synced;
	uint32_t una;
	uint32_t max;
	bool fin_held;
	uint32_t fin_seq;
};

static void
pre_take(unsigned int slot, struct fz_pre *pre)
{
	const struct dt_tcp_conn *c = &env.s[slot].c;

	pre->synced = env.s[slot].init && state_synced(c->state);
	pre->una = c->snd_una;
	pre->max = c->snd_max;
	pre->fin_held = pre->synced && (c->flags & DT_TCP_F_FIN_RCVD_OOO);
	pre->fin_seq = c->fin_seq;
}

static void
check_conn(unsigned int slot, const struct fz_pre *pre)
{
	struct fz_slot *s = &env.s[slot];
	const struct dt_tcp_conn *c = &s->c;
	uint64_t bound;
	uint32_t d;
	unsigned int k, i;

	if (!s->init)
		return;
	if (fz_trace)
		fprintf(stderr, "fuzz_tcp: t=%llu call %u slot %u %s una %u nxt %u "
			"max %u wnd %u cwnd %u ssthresh %u rcv_nxt %u ooo %u "
			"acked %llu\n", (unsigned long long)env.now, env.call,
			slot, dt_tcp_state_str(c->state), c->snd_una,
			c->snd_nxt, c->snd_max, c->snd_wnd, c->cwnd,
			c->ssthresh, c->rcv_nxt, c->ooo_n,
			(unsigned long long)s->acked);
	for (i = 0; fz_trace && i < c->ooo_n; i++)
		fprintf(stderr, "fuzz_tcp:   held %u+%u\n", c->ooo[i].seq,
			c->ooo[i].ext.len);
	for (k = 0; k < DT_TCP_T__COUNT; k++)
		if (dt_tcp_timer_is_conn(k) && s->tmr[k] != c->timers[k])
			FZ_FAIL("slot %u timer %u: actions say %llu, conn %llu",
				slot, k, (unsigned long long)s->tmr[k],
				(unsigned long long)c->timers[k]);
	if (c->state == DT_TCP_CLOSED) {
		check_none_held(slot, "CLOSED");
		return;
	}
	if (!state_synced(c->state))
		return;
	if (dt_tcp_seq_gt(c->snd_una, c->snd_nxt) ||
			dt_tcp_seq_gt(c->snd_nxt, c->snd_max))
		FZ_FAIL("slot %u: snd_una %u snd_nxt %u snd_max %u out of order",
			slot, c->snd_una, c->snd_nxt, c->snd_max);
	if (c->ooo_n > c->ooo_cap)
		FZ_FAIL("ooo_n %u above capacity %u", c->ooo_n, c->ooo_cap);
	for (i = 0; i < c->ooo_n; i++) {
		struct fz_rx *r = rx_of(c->ooo[i].ext.ref);

		if (r->outcome != 0 || r->slot != slot)
			FZ_FAIL("held extent %u already has its outcome", i);
		if (c->ooo[i].seq != r->seq + c->ooo[i].ext.off ||
				c->ooo[i].ext.len == 0 ||
				c->ooo[i].ext.off + c->ooo[i].ext.len > r->len)
			FZ_FAIL("held extent %u does not match its payload", i);
		/* (After the FIN: reported below, under its own name.) */
		if (!dt_tcp_seq_gt(c->ooo[i].seq, c->rcv_nxt) &&
				key_or_fin(c, FZ_K__COUNT) != FZ_K_FIN)
			FZ_FAIL("held extent at %u not beyond rcv_nxt %u",
				c->ooo[i].seq, c->rcv_nxt);
		if (i > 0 && dt_tcp_seq_lt(c->ooo[i].seq,
				c->ooo[i - 1].seq + c->ooo[i - 1].ext.len))
			FZ_FAIL("held extents %u and %u overlap or unsorted",
				i - 1, i);
	}
	if (state_fin_rcvd(c->state) && c->ooo_n != 0)
		FZ_BUG(FZ_K_FIN,
			"slot %u in %s with %u out-of-order extents still held",
			slot, dt_tcp_state_str(c->state), c->ooo_n);
	if (s->open && s->deliv != c->rcv_nxt - (state_fin_rcvd(c->state) ?
			1 : 0) && !(c->flags & DT_TCP_F_RD_CLOSED))
		FZ_BUG(FZ_K_LOST, "slot %u: delivered up to %u, rcv_nxt %u", slot,
			s->deliv, c->rcv_nxt);
	/* The scoreboard (RFC 6675) holds only data in flight, SACKed. */
	for (i = 0; i < c->lr.sb_n && i < DT_TCP_SACK_SB_MAX; i++)
		if (!dt_tcp_seq_le(c->snd_una, c->lr.sb[i].start) ||
				!dt_tcp_seq_lt(c->lr.sb[i].start, c->lr.sb[i].end) ||
				!dt_tcp_seq_le(c->lr.sb[i].end, c->snd_max))
			FZ_BUG(FZ_K_SACK, "slot %u: scoreboard %u:%u outside "
				"snd_una %u .. snd_max %u", slot,
				c->lr.sb[i].start, c->lr.sb[i].end, c->snd_una,
				c->snd_max);
	if (c->lr.sacked > c->snd_max - c->snd_una)
		FZ_BUG(FZ_K_SACK, "slot %u: %u bytes SACKed, %u in flight", slot,
			c->lr.sacked, c->snd_max - c->snd_una);
	/* Bytes acknowledged: never more than was in flight. */
	if (pre->synced && dt_tcp_seq_gt(c->snd_una, pre->una)) {
		d = c->snd_una - pre->una;
		s->acked += d < pre->max - pre->una ? d : pre->max - pre->una;
	}
	if (c->state >= DT_TCP_ESTABLISHED) {
		bound = 16ull * (c->smss > 536 ? c->smss : 536) + 2 * s->acked;
		if (c->cwnd > FZ_CWND_CEIL || c->cwnd > bound)
			FZ_BUG(FZ_K_CWND,
				"slot %u: cwnd %u above %llu (acked %llu, smss %u)",
				slot, c->cwnd, (unsigned long long)(bound <
				FZ_CWND_CEIL ? bound : FZ_CWND_CEIL),
				(unsigned long long)s->acked, c->smss);
	}
}

/* Collect one call's output for @p slot (-1: the listener), then more. */
static void
finish_call(int slot, const struct fz_pre *pre)
{
	struct dt_tcp_out *out = &env.out;
	struct fz_slot *s;

	for (;;) {
		if (slot < 0) {
			collect_segs(slot, out);
			collect_timers(env.lst_tmr, out);
			if (env.lst_tmr[DT_TCP_T_SYNQ] != env.lst.deadline)
				FZ_FAIL("listener timer action %llu, deadline %llu",
					(unsigned long long)
					env.lst_tmr[DT_TCP_T_SYNQ],
					(unsigned long long)env.lst.deadline);
			if (out->n_events)
				FZ_FAIL("listener call with events");
			return;
		}
		s = &env.s[slot];
		/* Events first: SACK blocks may name what this call freed. */
		collect_events((unsigned int)slot, out, pre->fin_held,
			pre->fin_seq);
		collect_segs(slot, out);
		collect_timers(s->tmr, out);
		if (out->ack_pending)
			s->ack_owed = true;
		if (!out->more || s->c.state == DT_TCP_CLOSED)
			break;
		dt_tcp_output(&s->c, env.now, out);
	}
	check_conn((unsigned int)slot, pre);
}

/* ---- the calls ---- */

static void
slot_init(unsigned int slot)
{
	struct fz_slot *s = &env.s[slot];
	struct dt_tcp_bufs b = {
		.txq = s->txq, .txq_cap = env.txq_cap,
		.ooo = s->ooo, .ooo_cap = env.ooo_cap,
	};

	if (s->init && s->c.state != DT_TCP_CLOSED)
		return;
	if (s->init)
		check_none_held(slot, "connection reuse");
	if (dt_tcp_conn_init(&s->c, &env.cfg, &b) != 0)
		FZ_FAIL("dt_tcp_conn_init failed");
	s->init = true;
	s->gen++;
	memset(s->tmr, 0, sizeof(s->tmr));
	s->open = false;
	s->peer_closed = false;
	s->edge_ok = false;
	s->acked = 0;
	s->ack_owed = false;
	s->syn_win_max = 0;
	s->stream = 0;
}

static void
flush_acks(void)
{
	struct fz_pre pre;
	unsigned int i;

	for (i = 0; i < FZ_SLOTS; i++) {
		if (!env.s[i].ack_owed)
			continue;
		env.s[i].ack_owed = false;
		if (env.s[i].c.state == DT_TCP_CLOSED)
			continue;
		pre_take(i, &pre);
		env.call++;
		dt_tcp_output(&env.s[i].c, env.now, &env.out);
		finish_call((int)i, &pre);
	}
}

/* The window @p wnd from @p ack the peer offers in an acceptable ACK. */
static void
edge_offer(struct fz_slot *s, uint32_t ack, uint32_t wnd)
{
	if (!s->edge_ok || dt_tcp_seq_gt(ack + wnd, s->edge))
		s->edge = ack + wnd;
	if (!s->edge_ok || wnd > s->wnd_max)
		s->wnd_max = wnd;
	s->edge_ok = true;
}

static uint32_t
rd_rel(uint32_t base, uint8_t mode)
{
	if ((mode & 3) == 3)
		return rd32();
	return base + (uint32_t)(int32_t)(int16_t)rd16();
}

static void
rd_opts(struct dt_net_tcp_opts *o, uint8_t bits, const struct dt_tcp_conn *c,
	uint32_t ts_ecr)
{
	unsigned int i, n;
	uint32_t base = c->snd_una;

	memset(o, 0, sizeof(*o));
	if (bits & 1) {
		o->present |= DT_NET_TCPOPT_F_MSS;
		o->mss = rd16();
	}
	if (bits & 2) {
		o->present |= DT_NET_TCPOPT_F_WSCALE;
		o->wscale = rd8();
	}
	if (bits & 4)
		o->present |= DT_NET_TCPOPT_F_SACK_PERM;
	if (bits & 8) {
		o->present |= DT_NET_TCPOPT_F_TS;
		o->ts_val = (uint32_t)(env.now / 1000) + rd8();
		o->ts_ecr = ts_ecr;
	}
	n = (bits >> 4) & 7;
	n = n > DT_NET_TCP_SACK_MAX ? DT_NET_TCP_SACK_MAX : n;
	for (i = 0; i < n; i++) {
		/* Deltas, each scaled by a shift: far blocks are reachable. */
		int32_t dl = (int16_t)rd16();
		uint32_t dr = rd16();
		uint8_t sh = rd8();

		o->sack[i].left = base + (uint32_t)dl * (1u << ((sh & 15) * 2));
		o->sack[i].right = o->sack[i].left + (dr << ((sh >> 4) * 2));
	}
	if (n) {
		o->present |= DT_NET_TCPOPT_F_SACK;
		o->n_sack = (uint8_t)n;
	}
	/* Keep the option space honest: the wire carries 40 bytes. */
	while (o->n_sack > 0 && dt_net_tcp_opts_len(o) == 0)
		o->n_sack--;
	if (o->n_sack == 0)
		o->present &= (uint8_t)~DT_NET_TCPOPT_F_SACK;
	if (dt_net_tcp_opts_len(o) == 0)
		o->present = 0;
}

static void
op_segment(uint8_t op)
{
	unsigned int slot = (op >> 4) & 1, v = 0, i, n_ext;
	struct fz_slot *s = &env.s[slot];
	struct dt_tcp_extent ext[DT_TCP_SEG_MAX_EXT];
	struct dt_tcp_tuple t;
	struct dt_tcp_seg seg;
	struct fz_pre pre;
	uint32_t seq_base, ack_base, len, off, piece, edge, wnd;
	uint8_t smode, amode, bits, cnt;
	bool live, acceptable;
	int target;
	enum dt_tcp_lst_verdict verdict;

	memset(&seg, 0, sizeof(seg));
	seg.th.flags = rd8();
	smode = rd8();
	if (slot == 0)
		v = (smode >> 2) & 7;
	t = slot == 0 ?
		(struct dt_tcp_tuple){ FZ_LADDR, FZ_RADDR, FZ_LPORT,
			(uint16_t)(FZ_PORT0 + v) } :
		(struct dt_tcp_tuple){ FZ_LADDR, FZ_RADDR, FZ_LPORT1, FZ_PORT1 };
	live = s->init && s->c.state != DT_TCP_CLOSED &&
		s->c.tuple.rport == t.rport;
	/* Relative to the receiver's variables, or the peer's own ISN. */
	if (live && state_synced(s->c.state))
		seq_base = (smode & 3) == 2 ? s->c.irs + 1 : s->c.rcv_nxt;
	else
		seq_base = s->peer_iss + ((seg.th.flags & DT_NET_TCP_SYN) ? 0 : 1);
	if ((smode & 3) == 1)
		seq_base += (uint32_t)rd16() << 8;
	seg.th.seq = rd_rel(seq_base, smode);
	amode = rd8();
	if (live)
		ack_base = (amode & 3) == 0 ? s->c.snd_una :
			(amode & 3) == 1 ? s->c.snd_nxt : s->c.snd_max;
	else
		ack_base = slot == 0 && env.synack_seen[v] ?
			env.synack_seq[v] + 1 : 0;
	seg.th.ack = rd_rel(ack_base, amode);
	seg.th.win = rd16();
	bits = rd8();
	rd_opts(&seg.th.opts, bits, &s->c, s->last_ts);
	len = rd16() % (FZ_MAX_PAYLOAD + 1);
	cnt = (amode & 0x80) ? rd8() : 0;
	/* The peer's SYN fixes its ISN (relative modes follow it). */
	if ((seg.th.flags & DT_NET_TCP_SYN) && !(seg.th.flags & DT_NET_TCP_ACK)) {
		s->peer_iss = seg.th.seq;
		if (seg.th.win > s->syn_win_max)
			s->syn_win_max = seg.th.win;
	}
	/* Through the wire format, as the data plane would. */
	{
		uint8_t buf[DT_NET_TCP_HLEN_MAX];
		size_t hl = dt_net_tcp_build(buf, sizeof(buf), &seg.th);

		if (hl == 0 || dt_net_tcp_parse(buf, hl, hl + len, &seg.th) !=
				DT_NET_OK)
			FZ_FAIL("inbound header does not encode");
	}
	if (slot == 0 && !live && s->init && s->c.state != DT_TCP_CLOSED) {
		/* Slot 0 busy with another peer port: no spare. */
		target = -1;
	} else if (slot == 0 && !live) {
		slot_init(0);
		target = -2;
	} else {
		target = live ? 1 : 0;
	}
	n_ext = len ? 1 + cnt % DT_TCP_SEG_MAX_EXT : 0;
	if (env.n_rx + n_ext > FZ_REC) {
		env.left = 0;	/* records full: the input ends here */
		return;
	}
	for (i = 0, off = 0; i < n_ext; i++) {
		piece = i + 1 == n_ext ? len - off : len / n_ext;
		if (piece == 0)
			continue;
		env.rx[env.n_rx] = (struct fz_rx){ .seq = seg.th.seq +
			((seg.th.flags & DT_NET_TCP_SYN) ? 1 : 0) + off,
			.len = piece, .slot = (uint8_t)slot, .gen = s->gen };
		ext[seg.n_ext++] = (struct dt_tcp_extent){
			.ref = &env.rx[env.n_rx], .off = 0, .len = piece };
		env.n_rx++;
		off += piece;
	}
	seg.ext = seg.n_ext ? ext : NULL;

	/* Acceptable ACK (RFC 9293 3.10.7.4): its window is an offer. */
	acceptable = live && state_synced(s->c.state) &&
		(seg.th.flags & DT_NET_TCP_ACK) &&
		dt_tcp_seq_ge(seg.th.ack, s->c.snd_una) &&
		dt_tcp_seq_le(seg.th.ack, s->c.snd_max);
	if (live && s->c.state == DT_TCP_SYN_SENT &&
			(seg.th.flags & DT_NET_TCP_SYN))
		acceptable = true;	/* SYN-ACK, or simultaneous open */
	edge = (seg.th.flags & DT_NET_TCP_SYN) ? s->c.iss + 1 : seg.th.ack;
	wnd = (seg.th.flags & DT_NET_TCP_SYN) ? seg.th.win :
		(uint32_t)seg.th.win << s->c.snd_ws;

	if (fz_trace)
		fprintf(stderr, "fuzz_tcp:   in slot %u flags %02x seq %u+%u ack %u "
			"win %u opts %02x target %d acceptable %d\n", slot,
			seg.th.flags, seg.th.seq, len, seg.th.ack, seg.th.win,
			seg.th.opts.present, target, acceptable);
	pre_take(slot, &pre);
	env.call++;
	if (target == 1) {
		if (dt_tcp_input(&s->c, &seg, env.now, &env.out) != 0)
			FZ_FAIL("dt_tcp_input refused a valid segment");
		if (acceptable)
			edge_offer(s, edge, wnd);
		finish_call((int)slot, &pre);
		return;
	}
	if (slot == 1 || !env.lst.state) {
		dt_tcp_rst_closed(&seg, &env.out);
		for (i = 0; i < env.out.n_events; i++)
			if (env.out.events[i].type != DT_TCP_EV_FREE)
				FZ_FAIL("closed-port answer with an event");
		collect_events(slot, &env.out, false, 0);
		collect_segs(slot == 1 ? 1 : 0, &env.out);
		return;
	}
	verdict = dt_tcp_listen_input(&env.lst, &t, &seg,
		target == -2 ? &s->c : NULL, env.now, &env.out);
	if (verdict == DT_TCP_LST_ESTABLISHED) {
		if (target != -2)
			FZ_FAIL("listener established without a spare");
		if (s->c.tuple.rport != t.rport)
			FZ_FAIL("child with another tuple");
		/* The SYN's window and the final ACK's are offers. */
		edge_offer(s, s->c.iss + 1, s->syn_win_max);
		if (dt_tcp_seq_ge(seg.th.ack, s->c.snd_una) &&
				dt_tcp_seq_le(seg.th.ack, s->c.snd_max))
			edge_offer(s, seg.th.ack,
				(uint32_t)seg.th.win << s->c.snd_ws);
		dt_tcp_listen_accepted(&env.lst);
		env.synack_seen[v] = false;
		finish_call(0, &pre);
		return;
	}
	/* Not established: only FREEs for the payload, segments, timers. */
	for (i = 0; i < env.out.n_events; i++)
		if (env.out.events[i].type != DT_TCP_EV_FREE)
			FZ_FAIL("listener verdict %s with an event",
				dt_tcp_lst_verdict_str(verdict));
	collect_events(0, &env.out, false, 0);
	env.out.n_events = 0;
	finish_call(-1, &pre);
}

/* Fire timers due by @p t in deadline order, then set the clock. */
static void
advance(uint64_t t)
{
	struct fz_pre pre;
	uint64_t d;
	unsigned int i, k, who;

	for (;;) {
		d = 0;
		who = 0;
		for (i = 0; i < FZ_SLOTS; i++)
			for (k = 0; k < DT_TCP_T__COUNT; k++)
				if (env.s[i].init && dt_tcp_timer_is_conn(k) &&
						env.s[i].tmr[k] &&
						(d == 0 || env.s[i].tmr[k] < d)) {
					d = env.s[i].tmr[k];
					who = i;
				}
		if (env.lst.deadline && (d == 0 || env.lst.deadline < d)) {
			d = env.lst.deadline;
			who = FZ_SLOTS;
		}
		if (d == 0 || d > t)
			break;
		if (d > env.now)
			env.now = d;
		env.call++;
		if (who == FZ_SLOTS) {
			dt_tcp_listen_timeout(&env.lst, env.now, &env.out);
			finish_call(-1, &pre);
			continue;
		}
		pre_take(who, &pre);
		dt_tcp_timeout(&env.s[who].c, env.now, &env.out);
		finish_call((int)who, &pre);
	}
	if (t > env.now)
		env.now = t;
}

static uint64_t
next_deadline(void)
{
	uint64_t d = env.lst.deadline, x;
	unsigned int i;

	for (i = 0; i < FZ_SLOTS; i++) {
		if (!env.s[i].init)
			continue;
		x = dt_tcp_next_deadline(&env.s[i].c);
		if (x && (d == 0 || x < d))
			d = x;
	}
	return d;
}

static void
op_app(uint8_t op)
{
	unsigned int slot = (op >> 4) & 1;
	struct fz_slot *s = &env.s[slot];
	struct dt_tcp_extent e;
	struct dt_tcp_tuple t = { FZ_LADDR, FZ_RADDR, FZ_LPORT1, FZ_PORT1 };
	struct fz_pre pre;
	uint32_t v;
	int rc = 0;

	switch (op & 15) {
	case 6: /* send */
		v = rd16();
		if (!s->init || env.n_tx == FZ_TX_REC || v == 0)
			return;
		env.tx[env.n_tx] = (struct fz_tx){ s->stream, v,
			(uint8_t)slot, s->gen };
		e = (struct dt_tcp_extent){ &env.tx[env.n_tx], 0, v };
		pre_take(slot, &pre);
		env.call++;
		rc = dt_tcp_send(&s->c, &e, env.now, &env.out);
		if (rc == 0) {
			env.n_tx++;
			s->stream += v;
		}
		break;
	case 7: /* release: the caller's free receive space */
		v = (uint32_t)rd16() << (op >> 5);
		if (!s->init)
			return;
		pre_take(slot, &pre);
		env.call++;
		dt_tcp_set_rcv_space(&s->c, v, env.now, &env.out);
		break;
	case 8: /* close (shutdown of our direction) */
	case 9: /* full close */
		if (!s->init)
			return;
		pre_take(slot, &pre);
		env.call++;
		if ((op & 15) == 8)
			rc = dt_tcp_close(&s->c, env.now, &env.out);
		else
			rc = dt_tcp_close_full(&s->c, env.now, &env.out);
		break;
	case 10: /* abort */
		if (!s->init)
			return;
		pre_take(slot, &pre);
		env.call++;
		dt_tcp_abort(&s->c, env.now, &env.out);
		break;
	case 11: /* output */
		if (!s->init || s->c.state == DT_TCP_CLOSED)
			return;
		pre_take(slot, &pre);
		env.call++;
		dt_tcp_output(&s->c, env.now, &env.out);
		break;
	case 12: /* active open on slot 1 */
		slot = 1;
		s = &env.s[1];
		slot_init(1);
		pre_take(1, &pre);
		env.call++;
		rc = dt_tcp_connect(&s->c, &t, rd32(), env.now, &env.out);
		if (rc != 0)
			return;
		break;
	case 13: /* out-of-order limit */
		if (s->init)
			dt_tcp_set_ooo_limit(&s->c, rd8());
		return;
	default: /* 14: keepalive or Nagle */
		if (!s->init)
			return;
		pre_take(slot, &pre);
		env.call++;
		if (op & 0x20) {
			dt_tcp_set_nagle(&s->c, (op & 0x40) != 0);
			dt_tcp_out_reset(&env.out);
		} else {
			dt_tcp_set_keepalive(&s->c, (op & 0x40) != 0,
				env.now, &env.out);
		}
		break;
	}
	(void)rc;
	finish_call((int)slot, &pre);
}

static void
fz_step(uint8_t op)
{
	uint64_t d;

	if (fz_trace)
		fprintf(stderr, "fuzz_tcp: step %02x\n", op);

	if ((op & 15) > 3 || !(op & 0x40))
		flush_acks();
	switch (op & 15) {
	case 0: case 1: case 2: case 3:
		op_segment(op);
		break;
	case 4:
		advance(env.now + (uint64_t)rd8() * 1000);
		break;
	case 5:
		d = next_deadline();
		if (d)
			advance(d > env.now ? d : env.now);
		break;
	case 15:
		advance(env.now + (uint64_t)rd16() * 10000);
		break;
	default:
		op_app(op);
		break;
	}
}

static void
fz_config(void)
{
	uint8_t b0 = rd8(), b1 = rd8(), b2 = rd8(), b3 = rd8();
	static const uint16_t mss[4] = { 1460, 536, 8960, 64 };
	static const uint16_t txq[4] = { 4, 16, 64, FZ_TXQ_CAP };

	dt_tcp_cfg_default(&env.cfg);
	env.cfg.sack_ok = b0 & 1;
	env.cfg.ts_ok = (b0 & 2) != 0;
	env.cfg.wscale_ok = (b0 & 4) != 0;
	env.cfg.cc = (b0 & 8) ? &dt_tcp_cc_cubic : &dt_tcp_cc_newreno;
	env.cfg.rack = (b0 & 16) != 0;
	env.cfg.ack_defer = (b0 & 32) != 0;
	env.cfg.nagle = (b0 & 64) != 0;
	env.cfg.delack = (b0 & 128) != 0;
	env.ooo_cap = (uint16_t)(1 + (b1 & (FZ_OOO_CAP - 1)));
	env.txq_cap = txq[(b1 >> 6) & 3];
	env.cfg.mss = mss[b2 & 3];
	env.cfg.wscale = (uint8_t)((b2 >> 2) % 15);
	env.cfg.rcv_space = (uint32_t)(1 + b3) * 4096;
	env.cfg.keepalive = (b2 & 0x80) != 0;
	env.cfg.keepalive_idle_us = 5000000;
	env.cfg.keepalive_intvl_us = 1000000;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *lax = getenv("FUZZ_TCP_LAX");
	unsigned int k;

	for (k = 0; lax != NULL && k < FZ_K__COUNT; k++)
		if (strstr(lax, fz_key_names[k]) || !strcmp(lax, "all"))
			fz_lax |= 1u << k;
	fz_trace = getenv("FUZZ_TCP_TRACE") != NULL;
	if (fz_lax)
		fprintf(stderr, "fuzz_tcp: FUZZ_TCP_LAX=%s: not fatal\n", lax);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_pre pre;
	unsigned int i;

	memset(&env, 0, offsetof(struct fz_env, out));
	dt_tcp_out_reset(&env.out);
	env.p = data;
	env.left = size;
	env.now = 1000000;
	fz_config();
	for (i = 0; i < sizeof(env.key.k); i++)
		env.key.k[i] = (uint8_t)(0xa5 ^ (i * 29));
	env.s[0].peer_iss = 0x10000000;
	env.s[1].peer_iss = 0x80000000u;
	if (dt_tcp_listen(&env.lst, &env.cfg, &env.key, env.synq, FZ_SYNQ, 2))
		FZ_FAIL("dt_tcp_listen failed");
	slot_init(0);
	while (env.left > 0)
		fz_step(rd8());
	flush_acks();
	/* The end: abort what is open; then nothing may be held. */
	for (i = 0; i < FZ_SLOTS; i++) {
		if (!env.s[i].init)
			continue;
		pre_take(i, &pre);
		env.call++;
		dt_tcp_abort(&env.s[i].c, env.now, &env.out);
		finish_call((int)i, &pre);
		if (env.s[i].c.state != DT_TCP_CLOSED)
			FZ_FAIL("slot %u not CLOSED after abort", i);
	}
	for (i = 0; i < env.n_rx; i++)
		if (env.rx[i].outcome == 0)
			FZ_FAIL("payload %u+%u of slot %u never released",
				env.rx[i].seq, env.rx[i].len, env.rx[i].slot);
	dt_tcp_listen_close(&env.lst, &env.out);
	return 0;
}
