/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LISTEN (RFC 9293 3.10.7.2): SYN queue of half-open entries, SYN-ACK
 * retransmission, and the child connection built when the handshake's
 * final ACK arrives.
 */
#include <errno.h>
#include <string.h>

#include "dt_tcp_listen.h"
#include "dt_tcp_priv.h"

static const char *const verdict_names[DT_TCP_LST__COUNT] = {
	[DT_TCP_LST_IGNORED] = "ignored",
	[DT_TCP_LST_SYN_QUEUED] = "syn_queued",
	[DT_TCP_LST_SYN_RETRANS] = "syn_retransmitted",
	[DT_TCP_LST_SYNQ_FULL] = "synq_full",
	[DT_TCP_LST_ESTABLISHED] = "established",
	[DT_TCP_LST_BACKLOG_FULL] = "backlog_full",
	[DT_TCP_LST_RST_SENT] = "rst_sent",
};

const char *
dt_tcp_lst_verdict_str(enum dt_tcp_lst_verdict v)
{
	if ((unsigned int)v >= DT_TCP_LST__COUNT)
		return "?";
	return verdict_names[v];
}

int
dt_tcp_listen(struct dt_tcp_listener *l, const struct dt_tcp_cfg *cfg,
	const struct dt_tcp_isn_key *key, struct dt_tcp_syn_entry *synq,
	uint16_t synq_cap, uint16_t backlog)
{
	if (synq == NULL || synq_cap == 0 || backlog == 0 ||
			cfg->wscale > DT_TCP_WS_MAX)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->cfg = cfg;
	l->key = key;
	l->synq = synq;
	l->synq_cap = synq_cap;
	l->backlog = backlog;
	l->state = DT_TCP_LISTEN;
	return 0;
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
	uint16_t i;

	for (i = 0; i < l->synq_n; i++)
		if (tuple_eq(&l->synq[i].tuple, t))
			return &l->synq[i];
	return NULL;
}

static void
synq_remove(struct dt_tcp_listener *l, struct dt_tcp_syn_entry *e)
{
	*e = l->synq[--l->synq_n];
}

static uint64_t
synq_earliest(const struct dt_tcp_listener *l)
{
	uint64_t d = 0;
	uint16_t i;

	for (i = 0; i < l->synq_n; i++)
		if (d == 0 || l->synq[i].deadline < d)
			d = l->synq[i].deadline;
	return d;
}

static void
synack_send(const struct dt_tcp_listener *l, const struct dt_tcp_syn_entry *e,
	uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_tcp_cfg *cfg = l->cfg;
	struct dt_tcp_tx_seg *seg = tcp_seg_new(out);
	struct dt_net_tcp_opts *o;

	if (seg == NULL)
		return;
	o = &seg->th.opts;
	seg->tuple = e->tuple;
	seg->th.seq = e->iss;
	seg->th.ack = e->irs + 1;
	seg->th.flags = DT_NET_TCP_SYN | DT_NET_TCP_ACK;
	seg->th.win = (uint16_t)(cfg->rcv_space < 0xffff ? cfg->rcv_space :
		0xffff);
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
}

static void
synq_fill(struct dt_tcp_listener *l, struct dt_tcp_syn_entry *e,
	const struct dt_tcp_tuple *t, const struct dt_net_tcp_hdr *th,
	uint64_t now)
{
	memset(e, 0, sizeof(*e));
	e->tuple = *t;
	e->iss = dt_tcp_isn(l->key, t, now);
	e->irs = th->seq;
	e->opts = th->opts.present;
	e->peer_mss = th->opts.mss;
	e->peer_ws = th->opts.wscale;
	e->peer_win = th->win;
	e->ts_recent = th->opts.ts_val;
	e->sent_at = now;
	e->deadline = now + l->cfg->rto_init_us;
}

/* Turn @p c (CLOSED) into the SYN_RECEIVED child of entry @p e. */
static void
child_init(const struct dt_tcp_listener *l, const struct dt_tcp_syn_entry *e,
	struct dt_tcp_conn *c, uint64_t now)
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
	c->rcv_adv = c->rcv_nxt + (l->cfg->rcv_space < 0xffff ?
		l->cfg->rcv_space : 0xffff);
	tcp_negotiate(c, &o, now);
	c->snd_wnd = e->peer_win;
	c->max_snd_wnd = e->peer_win;
	c->snd_wl1 = e->irs;
	c->snd_wl2 = e->iss;
	/* The listener's SYN-ACK retransmissions count as the child's. */
	c->rtx_segs = e->retries;
	if (e->retries)
		c->flags |= DT_TCP_F_SYN_RTX;
	else
		tcp_rtt_sample(c, now - e->sent_at);
	tcp_set_state(c, DT_TCP_SYN_RECEIVED);
}

static enum dt_tcp_lst_verdict
listen_ack(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg, struct dt_tcp_conn *spare, uint64_t now,
	struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	struct dt_tcp_syn_entry *e = synq_find(l, t);
	uint64_t none[DT_TCP_T__COUNT] = { 0 };

	if (e == NULL || (th->flags & DT_NET_TCP_SYN) || th->ack != e->iss + 1) {
		tcp_free_payload(seg, out);
		tcp_send_rst(out, th->ack, 0, false);
		return DT_TCP_LST_RST_SENT;
	}
	if (spare == NULL || spare->state != DT_TCP_CLOSED ||
			l->pending >= l->backlog) {
		/* Keep the entry: the SYN-ACK timer retries later. */
		tcp_free_payload(seg, out);
		return DT_TCP_LST_BACKLOG_FULL;
	}
	child_init(l, e, spare, now);
	synq_remove(l, e);
	l->pending++;
	tcp_input(spare, seg, now, out);
	tcp_call_end(spare, none, now, out);
	return DT_TCP_LST_ESTABLISHED;
}

static enum dt_tcp_lst_verdict
listen_syn(struct dt_tcp_listener *l, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg, uint64_t now, struct dt_tcp_out *out)
{
	const struct dt_net_tcp_hdr *th = &seg->th;
	struct dt_tcp_syn_entry *e = synq_find(l, t);

	/* Data on a SYN is not accepted (no TCP Fast Open). */
	tcp_free_payload(seg, out);
	if (e != NULL && e->irs == th->seq) {
		synack_send(l, e, now, out);
		return DT_TCP_LST_SYN_RETRANS;
	}
	if (e == NULL) {
		if (l->synq_n == l->synq_cap)
			return DT_TCP_LST_SYNQ_FULL;
		e = &l->synq[l->synq_n++];
	}
	synq_fill(l, e, t, th, now);
	synack_send(l, e, now, out);
	return DT_TCP_LST_SYN_QUEUED;
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
		tcp_free_payload(seg, out);
		tcp_rst_reply(seg, out);
		return DT_TCP_LST_RST_SENT;
	}
	if (f & DT_NET_TCP_RST) {
		tcp_free_payload(seg, out);
		v = DT_TCP_LST_IGNORED;
	} else if (f & DT_NET_TCP_ACK) {
		v = listen_ack(l, t, seg, spare, now, out);
	} else if (f & DT_NET_TCP_SYN) {
		v = listen_syn(l, t, seg, now, out);
	} else {
		tcp_free_payload(seg, out);
		v = DT_TCP_LST_IGNORED;
	}
	l->deadline = synq_earliest(l);
	tcp_timer_diff(&before, &l->deadline, DT_TCP_T_SYNQ, 1, out);
	return v;
}

void
dt_tcp_listen_timeout(struct dt_tcp_listener *l, uint64_t now,
	struct dt_tcp_out *out)
{
	uint64_t before = l->deadline;
	struct dt_tcp_syn_entry *e;
	uint16_t i = 0;

	dt_tcp_out_reset(out);
	while (i < l->synq_n) {
		e = &l->synq[i];
		if (e->deadline > now) {
			i++;
			continue;
		}
		if (e->retries >= l->cfg->syn_retries) {
			synq_remove(l, e);
			continue;
		}
		e->retries++;
		synack_send(l, e, now, out);
		e->deadline = now + (l->cfg->rto_init_us << e->retries);
		if (e->deadline - now > l->cfg->rto_max_us)
			e->deadline = now + l->cfg->rto_max_us;
		i++;
	}
	l->deadline = synq_earliest(l);
	tcp_timer_diff(&before, &l->deadline, DT_TCP_T_SYNQ, 1, out);
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
	l->synq_n = 0;
	l->state = DT_TCP_CLOSED;
	l->deadline = 0;
	tcp_timer_diff(&before, &l->deadline, DT_TCP_T_SYNQ, 1, out);
}
