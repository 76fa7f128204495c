/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sender-side engine tests that need more than a script can say: a send
 * queue holding more than 2^32 bytes (payload by reference, nothing is
 * allocated) sent and acknowledged in full with the virtual clock, across
 * two wraps of the sequence space, then the FIN.
 */
#include <string.h>

#include "dt_test.h"
#include "dt_tcp.h"

#define BIG_SENDS 3
#define BIG_LEN 1610612736u		/* 1.5 GiB per send: 4.5 GiB queued */
#define PEER_MSS 65000
#define ACKQ 65536			/* segment ends awaiting their ACK */

static struct dt_tcp_extent txq[8];
static struct dt_tcp_ooo ooo[4];
static struct dt_tcp_out out;
/* The sends' references: distinct objects, never dereferenced. */
static char refs[BIG_SENDS];
static uint32_t ackq[ACKQ];

struct big_run {
	struct dt_tcp_conn c;
	uint64_t now;
	uint64_t sent;		/* stream bytes sent (first transmissions) */
	uint64_t acked;		/* bytes reported by SENT events */
	uint32_t sends_done;
	unsigned int ack_head, ack_n;
	unsigned int bad_slices, rtx, fins, closed;
};

static void
big_seg_in(struct dt_tcp_seg *s, uint32_t ack, uint32_t seq, uint8_t flags)
{
	memset(s, 0, sizeof(*s));
	s->th.seq = seq;
	s->th.ack = ack;
	s->th.flags = flags;
	s->th.win = 65535;	/* << 14: a 1 GiB window */
}

/* Check and queue what one call produced. */
static void
big_collect(struct big_run *r)
{
	const struct dt_tcp_tx_seg *t;
	uint64_t pos;
	unsigned int i, k;

	for (i = 0; i < out.n_events; i++) {
		if (out.events[i].type == DT_TCP_EV_SENT) {
			r->acked += out.events[i].bytes;
			r->sends_done += out.events[i].count;
		}
		if (out.events[i].type == DT_TCP_EV_CLOSED ||
				out.events[i].type == DT_TCP_EV_ERROR)
			r->closed++;
	}
	for (i = 0; i < out.n_segs; i++) {
		t = &out.segs[i];
		if (t->th.flags & DT_NET_TCP_FIN)
			r->fins++;
		if (t->len == 0 && !(t->th.flags & DT_NET_TCP_FIN))
			continue;
		/* First transmissions only, in stream order. */
		if (t->th.seq != (uint32_t)(r->c.iss + 1 + r->sent)) {
			r->rtx++;
			continue;
		}
		pos = r->sent;
		for (k = 0; k < t->n_ext; k++) {
			const char *ref = t->ext[k].ref;

			if (ref < refs || ref >= refs + BIG_SENDS ||
					(uint64_t)(ref - refs) * BIG_LEN +
					t->ext[k].off != pos)
				r->bad_slices++;
			pos += t->ext[k].len;
		}
		if (pos != r->sent + t->len)
			r->bad_slices++;
		r->sent += t->len;
		if (r->ack_n < ACKQ) {
			ackq[(r->ack_head + r->ack_n) % ACKQ] = t->th.seq +
				t->len + ((t->th.flags & DT_NET_TCP_FIN) ? 1 : 0);
			r->ack_n++;
		}
	}
}

static void
big_output(struct big_run *r)
{
	do {
		dt_tcp_output(&r->c, r->now, &out);
		big_collect(r);
	} while (out.more);
}

static void
test_txq_beyond_2g(void)
{
	static struct big_run r;
	struct dt_tcp_bufs b = { txq, 8, ooo, 4 };
	struct dt_tcp_tuple tu = { 1, 2, 3, 4 };
	const uint32_t irs = 7000, iss = 0xfffff000u;
	const uint64_t total = (uint64_t)BIG_SENDS * BIG_LEN;
	struct dt_tcp_extent e;
	struct dt_tcp_seg s;
	struct dt_tcp_cfg cfg;
	unsigned int i, idle = 0;

	memset(&r, 0, sizeof(r));
	dt_tcp_cfg_default(&cfg);
	cfg.ts_ok = false;
	cfg.sack_ok = false;
	cfg.mss = PEER_MSS;
	cfg.wscale = 14;
	cfg.nagle = false;
	DT_REQUIRE(dt_tcp_conn_init(&r.c, &cfg, &b) == 0);
	dt_tcp_connect(&r.c, &tu, iss, 0, &out);
	big_seg_in(&s, iss + 1, irs, DT_NET_TCP_SYN | DT_NET_TCP_ACK);
	s.th.opts.present = DT_NET_TCPOPT_F_MSS | DT_NET_TCPOPT_F_WSCALE;
	s.th.opts.mss = PEER_MSS;
	s.th.opts.wscale = 14;
	r.now = 1000;
	dt_tcp_input(&r.c, &s, r.now, &out);
	DT_REQUIRE(r.c.state == DT_TCP_ESTABLISHED);
	/* Open the scaled window. */
	big_seg_in(&s, iss + 1, irs + 1, DT_NET_TCP_ACK);
	dt_tcp_input(&r.c, &s, r.now, &out);
	for (i = 0; i < BIG_SENDS; i++) {
		e = (struct dt_tcp_extent){ &refs[i], 0, BIG_LEN };
		DT_REQUIRE(dt_tcp_send(&r.c, &e, r.now, &out) == 0);
		big_collect(&r);
		big_output(&r);
	}
	DT_CHECK_EQ(r.c.txq_bytes, total);
	DT_CHECK_EQ(dt_tcp_close(&r.c, r.now, &out), 0);
	big_collect(&r);
	/* The peer acknowledges every segment, 10 us apart. */
	while (r.closed == 0 && idle < 4) {
		if (r.ack_n == 0) {
			big_output(&r);
			idle += r.ack_n == 0;
			continue;
		}
		idle = 0;
		r.now += 10;
		big_seg_in(&s, ackq[r.ack_head], irs + 1, DT_NET_TCP_ACK);
		r.ack_head = (r.ack_head + 1) % ACKQ;
		r.ack_n--;
		dt_tcp_input(&r.c, &s, r.now, &out);
		big_collect(&r);
		big_output(&r);
		if (r.c.state == DT_TCP_FIN_WAIT_2)
			break;
	}
	DT_CHECK_EQ(r.sent, total);
	DT_CHECK_EQ(r.acked, total);
	DT_CHECK_EQ(r.sends_done, BIG_SENDS);
	DT_CHECK_EQ(r.bad_slices, 0);
	DT_CHECK_EQ(r.rtx, 0);
	DT_CHECK_EQ(r.closed, 0);
	DT_CHECK_EQ(r.fins, 1);
	DT_CHECK_EQ(r.c.txq_bytes, 0);
	DT_CHECK_EQ(r.c.txq_n, 0);
	DT_CHECK_EQ(r.c.state, DT_TCP_FIN_WAIT_2);
	/* 4.5 GiB + SYN + FIN later, in sequence space. */
	DT_CHECK_EQ(r.c.snd_una, (uint32_t)(iss + 2 + total));
	DT_CHECK(r.c.cwnd <= (1u << 30));
}

int
main(void)
{
	DT_RUN(test_txq_beyond_2g);
	return dt_test_summary();
}
