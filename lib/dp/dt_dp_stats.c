/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-stack and per-connection statistics, connection walk. */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "dt_dp_priv.h"

void
dt_dp_stats_get(const struct dt_dp_stack *st, struct dt_dp_stats *s)
{
	const struct dt_tcp_lst_stats *l;
	unsigned int i;

	*s = st->st;
	/* The engine counts on its listeners; a slot keeps its counts. */
	for (i = 0; i < DT_DP_MAX_LISTENERS; i++) {
		l = &st->lst[i].l.st;
		s->synq_overflows += l->synq_overflows;
		s->synq_evicted += l->synq_evicted;
		s->synq_expired += l->synq_expired;
		s->synq_rst_freed += l->synq_rst;
		s->synq_challenge_acks += l->challenge_acks;
		s->synacks_sent += l->synacks_sent;
		s->synacks_rtx += l->synacks_rtx;
		s->syncookies_sent += l->cookies_sent;
		s->syncookies_ok += l->cookies_ok;
		s->syncookies_bad += l->cookies_bad;
	}
}

static void
conn_stats(const struct dt_dp_conn *c, struct dt_dp_conn_stats *s)
{
	const struct dt_tcp_conn *t = &c->tcp;

	memset(s, 0, sizeof(*s));
	s->state = t->state;
	s->tuple.laddr = rte_cpu_to_be_32(t->tuple.laddr);
	s->tuple.raddr = rte_cpu_to_be_32(t->tuple.raddr);
	s->tuple.lport = t->tuple.lport;
	s->tuple.rport = t->tuple.rport;
	s->rx_bytes = c->rx_bytes;
	s->tx_bytes = c->tx_bytes;
	s->rx_device_bytes = c->rx_device_bytes;
	s->rx_host_bytes = c->rx_host_bytes;
	s->retransmits = t->rtx_segs;
	s->retransmit_bytes = t->rtx_bytes;
	s->acks_limited = t->acks_limited;
	s->nagle_holds = t->nagle_holds;
	s->rtos = t->lr.n_rto;
	s->tlps = t->lr.n_tlp;
	s->dsacks = t->lr.n_dsack;
	s->rack_losses = t->lr.n_rack_lost;
	s->held_bytes = c->held_bytes;
	s->rcv_wnd = dt_tcp_seq_gt(t->rcv_adv, t->rcv_nxt) ?
		t->rcv_adv - t->rcv_nxt : 0;
	s->snd_wnd = t->snd_wnd;
	s->cwnd = t->cwnd;
	s->srtt_us = t->srtt;
}

int
dt_dp_conn_stats_get(struct dt_dp_stack *st, dt_dp_conn_t conn,
	struct dt_dp_conn_stats *s)
{
	struct dt_dp_conn *c = dt_dp_conn_get(st, conn);

	if (c == NULL)
		return -DT_DP_E_BADCONN;
	conn_stats(c, s);
	return 0;
}

void
dt_dp_conn_foreach(struct dt_dp_stack *st,
	void (*fn)(dt_dp_conn_t conn, const struct dt_dp_conn_stats *s, void *arg),
	void *arg)
{
	struct dt_dp_conn_stats s;
	uint32_t i;

	for (i = 0; i < st->conf.max_conns; i++) {
		if (st->conns[i].cs != DT_DP_CS_LIVE)
			continue;
		conn_stats(&st->conns[i], &s);
		fn(dt_dp_conn_id(&st->conns[i]), &s, arg);
	}
}
