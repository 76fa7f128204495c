/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the plugin says about itself through NCCL's logger: the stall
 * report of a late request, the stacks' and the port's counters (stall
 * reports and the watchdog, at WARNING) and the summary at the last
 * finalize (at INFO). Reads lcore state unsynchronised: snapshots.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "nn_report.h"

static uint32_t
rt_stall_ms(void)
{
	struct nn_rt *rt = nn_rt_get();

	return rt != NULL ? rt->cfg.stall_report_ms : 0;
}

/*
 * [nccl] profile = yes: where the stack's lcore spent its loop, per step,
 * with lib/dp's own processing of received bursts (inside the dp step).
 */
static void
prof_log(const struct nn_stack *s, const struct dt_dp_stats *st, double tsc_us)
{
	const uint64_t *c = s->prof_cyc;
	uint64_t tot = c[NN_PROF_CMDS] + c[NN_PROF_DP] + c[NN_PROF_EVENTS] +
		c[NN_PROF_PROGRESS];
	double pct = tot != 0 ? 100.0 / (double)tot : 0.0;

	NN_INFO("stack %u loop (profile): %.3f s in %" PRIu64 " polls (%.0f ns each): "
		"commands %.1f%%, dp_poll %.1f%% (lib/dp RX processing %.1f%%), "
		"events %.1f%%, progress %.1f%% (TSC %.0f MHz)", s->idx, (double)tot / tsc_us / 1e6,
		s->polls, s->polls != 0 ? (double)tot / tsc_us * 1e3 / (double)s->polls : 0.0,
		c[NN_PROF_CMDS] * pct, c[NN_PROF_DP] * pct, st->rx_cycles * pct,
		c[NN_PROF_EVENTS] * pct, c[NN_PROF_PROGRESS] * pct, tsc_us);
}

/*
 * The port's xstats, names and values (freed by the caller); 0 when there
 * are none or they cannot be read.
 */
static int
port_xstats_fetch(const struct nn_rt *rt, struct rte_eth_xstat_name **names,
	struct rte_eth_xstat **xs)
{
	int cnt = rte_eth_xstats_get_names(rt->port_id, NULL, 0);

	*names = NULL;
	*xs = NULL;
	if (cnt <= 0)
		return 0;
	*names = calloc(cnt, sizeof(**names));
	*xs = calloc(cnt, sizeof(**xs));
	if (*names == NULL || *xs == NULL ||
			rte_eth_xstats_get_names(rt->port_id, *names, cnt) != cnt ||
			rte_eth_xstats_get(rt->port_id, *xs, cnt) != cnt)
		return 0;
	return cnt;
}

/* The port's non-zero error and drop counters, in one line. */
static void
nn_port_report(struct nn_rt *rt)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	char line[480];
	int cnt, i, n = 0;

	cnt = port_xstats_fetch(rt, &names, &xs);
	line[0] = '\0';
	for (i = 0; i < cnt && n >= 0 && n < (int)sizeof(line); i++)
		if (xs[i].value != 0 &&
				(strstr(names[xs[i].id].name, "drop") != NULL ||
				 strstr(names[xs[i].id].name, "err") != NULL ||
				 strstr(names[xs[i].id].name, "miss") != NULL))
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				names[xs[i].id].name, xs[i].value);
	NN_WARN("  port %s: drop/error counters:%s", rt->name,
		line[0] ? line : " none");
	/* And what shows waiting rather than dropping. */
	line[0] = '\0';
	n = 0;
	for (i = 0; i < cnt && n >= 0 && n < (int)sizeof(line); i++)
		if (xs[i].value != 0 &&
				(strstr(names[xs[i].id].name, "no_") != NULL ||
				 strstr(names[xs[i].id].name, "full") != NULL ||
				 strstr(names[xs[i].id].name, "busy") != NULL ||
				 strstr(names[xs[i].id].name, "wait") != NULL) &&
				strstr(names[xs[i].id].name, "drop") == NULL)
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				names[xs[i].id].name, xs[i].value);
	NN_WARN("  port %s: wait counters:%s", rt->name, line[0] ? line : " none");
	nn_pools_line(rt, line, sizeof(line));
	NN_WARN("  %s", line);
	free(names);
	free(xs);
}

/* Counters of a stack that say why a segment went nowhere. */
static const struct {
	const char *name;
	size_t off;
} nn_dp_why[] = {
#define NN_DPW(f) { #f, offsetof(struct dt_dp_stats, f) }
	NN_DPW(drop_bad_ip), NN_DPW(drop_not_for_us), NN_DPW(drop_bad_tcp),
	NN_DPW(drop_l4_cksum), NN_DPW(drop_no_conn), NN_DPW(drop_tx_no_mbuf),
	NN_DPW(drop_tx_ring_full), NN_DPW(drop_no_neighbour),
	NN_DPW(drop_too_many_segs), NN_DPW(drop_l4_cksum_unknown),
	NN_DPW(drop_hdr_in_device), NN_DPW(events_overflow),
	NN_DPW(rx_throttled), NN_DPW(steer_errors), NN_DPW(tx_rst),
	NN_DPW(rx_host_queue),
#undef NN_DPW
};

/* The port's non-zero counters of this stack's RX and TX queues. */
static void
nn_stack_queues_report(const struct nn_stack *s)
{
	struct nn_rt *rt = s->rt;
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	char line[480], rxp[16], txp[16];
	int cnt, i, n;

	snprintf(rxp, sizeof(rxp), "rx_q%u_", rt->nb_stacks > 1 ? s->idx + 1 : s->idx);
	snprintf(txp, sizeof(txp), "tx_q%u_", s->idx);
	cnt = port_xstats_fetch(rt, &names, &xs);
	n = snprintf(line, sizeof(line), "  stack %u queues:", s->idx);
	for (i = 0; i < cnt && n > 0 && n < (int)sizeof(line); i++)
		if (xs[i].value != 0 &&
				(strncmp(names[xs[i].id].name, rxp, strlen(rxp)) == 0 ||
				 strncmp(names[xs[i].id].name, txp, strlen(txp)) == 0))
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				names[xs[i].id].name, xs[i].value);
	NN_WARN("%s", line);
	free(names);
	free(xs);
}

/* One stack's frame counts and every non-zero counter of nn_dp_why. */
void
nn_stack_report(const struct nn_stack *s)
{
	struct dt_dp_stats st;
	char line[480];
	unsigned int i;
	int n;

	dt_dp_stats_get(s->st, &st);
	n = snprintf(line, sizeof(line), "  stack %u: rx %" PRIu64 " tx %" PRIu64
		" frames, tcp rx %" PRIu64 ";", s->idx, st.rx_frames, st.tx_frames,
		st.rx_tcp);
	for (i = 0; i < RTE_DIM(nn_dp_why) && n > 0 && n < (int)sizeof(line); i++) {
		uint64_t v = *(const uint64_t *)((const char *)&st + nn_dp_why[i].off);

		if (v != 0)
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				nn_dp_why[i].name, v);
	}
	NN_WARN("%s", line);
	nn_stack_queues_report(s);
}

/* The TCP state of a flow's connection (a snapshot, read unsynchronised). */
static void
nn_flow_tcp_report(const struct nn_flow *f)
{
	struct dt_dp_conn_stats cs;

	if (f->closed || dt_dp_conn_stats_get(f->s->st, f->conn, &cs) != 0)
		return;
	NN_WARN("    flow %u tcp %s: snd_wnd %u cwnd %u rcv_wnd %u held %u srtt %u us; "
		"rx %" PRIu64 " tx %" PRIu64 " bytes; retransmitted %" PRIu64
		" (RTOs %u TLPs %u D-SACKs %u)", f->idx,
		dt_tcp_state_str((enum dt_tcp_state)cs.state), cs.snd_wnd, cs.cwnd,
		cs.rcv_wnd, cs.held_bytes, cs.srtt_us, cs.rx_bytes, cs.tx_bytes,
		cs.retransmits, cs.rtos, cs.tlps, cs.dsacks);
}

/*
 * A request pending for [nccl] stall_report ms: say where it stands, once, so that a
 * hang (NCCL itself only waits) comes with the state of its flows. Fields
 * of the lcores are read without synchronisation: a diagnostic snapshot;
 * polls not moving between two reports means the stack's lcore is stuck
 * (in a copy wait, for example), not waiting for the peer.
 */
static void
stall_report(struct nn_comm *c, struct nn_req *r)
{
	struct nn_rt *rt = nn_rt_get();
	char line[480];
	uint16_t i, j;
	int n;

	NN_WARN("%s request %u (message %" PRIu64 ", %" PRIu64 " bytes) pending "
		"for %u ms; %u part(s) of the comm not done", r->send ? "send" :
		"receive", r->idx, r->seq, r->size, rt_stall_ms(),
		__atomic_load_n(&r->parts_left, __ATOMIC_RELAXED));
	for (i = 0; i < c->nparts; i++) {
		const struct nn_part *p = c->parts[i];
		const struct nn_stack *s = p->s;

		n = snprintf(line, sizeof(line), "  stack %u: polls %" PRIu64
			", part head %" PRIu64 " tail %" PRIu64 "%s;", s->idx, s->polls,
			p->head, p->tail, p->failed ? " FAILED" : "");
		for (j = 0; j < p->nflows && n > 0 && n < (int)sizeof(line); j++) {
			const struct nn_flow *f = p->flows[j];

			if (c->send)
				n += snprintf(line + n, sizeof(line) - n, " flow %u: "
					"tx_seq %" PRIu64 " queued %" PRIu64 "/%" PRIu64
					" unacked %u;", f->idx, f->tx_seq, f->tx_done, f->tx_len,
					r->pend[p->pidx]);
			else
				n += snprintf(line + n, sizeof(line) - n, " flow %u: "
					"rx_seq %" PRIu64 " hdr %d got %" PRIu64 "/%" PRIu64
					" chunks %u wire_wait %d;", f->idx, f->rx_seq, f->have_hdr,
					f->rx_done, f->rx_len, f->qt - f->qh, f->wire_wait);
		}
		NN_WARN("%s", line);
		for (j = 0; j < p->nflows; j++)
			nn_flow_tcp_report(p->flows[j]);
		nn_stack_report(s);
	}
	if (rt != NULL)
		nn_port_report(rt);
}

void
nn_port_xstats_log(struct nn_rt *rt, bool stall)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	char line[400];
	int cnt, i, n = 0;

	cnt = port_xstats_fetch(rt, &names, &xs);
	line[0] = '\0';
	for (i = 0; i < cnt; i++) {
		const char *nm = names[xs[i].id].name;

		if (xs[i].value == 0)
			continue;
		/* A stall report gives each stack's queues on its own lines. */
		if (stall && (strncmp(nm, "rx_q", 4) == 0 || strncmp(nm, "tx_q", 4) == 0))
			continue;
		if (n > (int)sizeof(line) - 64) {
			if (stall)
				NN_WARN("  port %s:%s", rt->name, line);
			else
				NN_INFO("  port %s:%s", rt->name, line);
			n = 0;
			line[0] = '\0';
		}
		n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64, nm,
			xs[i].value);
	}
	if (n > 0 && stall)
		NN_WARN("  port %s:%s", rt->name, line);
	else if (n > 0)
		NN_INFO("  port %s:%s", rt->name, line);
	free(names);
	free(xs);
}

/*
 * The stacks' counters (lcores stopped: read safely), through NCCL's
 * logger at INFO: what a slow or failed run needs to be explained.
 */
void
nn_stats_log(struct nn_rt *rt)
{
	const struct nn_stack_counters *k;
	struct dt_dp_stats st;
	double tsc_us = (double)rte_get_tsc_hz() / 1e6;
	uint64_t drops;
	uint16_t i;

	for (i = 0; i < rt->nb_stacks; i++) {
		k = &rt->stacks[i]->cnt;
		dt_dp_stats_get(rt->stacks[i]->st, &st);
		drops = nn_dp_drops(&st);
		NN_INFO("stack %u (lcore %u): polls %" PRIu64 ", rx %" PRIu64 " tx %"
			PRIu64 " frames, rx cycles/frame %.0f, drops %" PRIu64
			" (tx_ring_full %" PRIu64 " no_conn %" PRIu64 "), throttled %"
			PRIu64 "; flows %" PRIu64 ": rx %" PRIu64 " tx %" PRIu64
			" bytes, retransmitted %" PRIu64 " segments (%" PRIu64
			" bytes; RTOs %" PRIu64 ", TLPs %" PRIu64 ", D-SACKs %" PRIu64
			", RACK losses %" PRIu64 "), srtt max %u us; requests send %"
			PRIu64 " recv %" PRIu64, i, rt->stacks[i]->lcore,
			rt->stacks[i]->polls,
			st.rx_frames, st.tx_frames, st.rx_frames != 0 ?
			(double)st.rx_cycles / st.rx_frames : 0.0, drops,
			st.drop_tx_ring_full, st.drop_no_conn, st.rx_throttled,
			k->flows, k->rx_bytes, k->tx_bytes, k->rtx_segs, k->rtx_bytes,
			k->rtos, k->tlps, k->dsacks, k->rack_losses,
			k->srtt_max_us, k->reqs_send, k->reqs_recv);
		if (k->rx_timed != 0)
			NN_INFO("stack %u receives: %" PRIu64 " parts; request seen to "
				"last copy submitted (data arrival) mean %.1f us; last copy "
				"submitted to completed (GPU latency) mean %.1f us, max %.1f us",
				i, k->rx_timed, (double)k->rx_arrive_sum / k->rx_timed / tsc_us,
				(double)k->rx_gpu_sum / k->rx_timed / tsc_us,
				(double)k->rx_gpu_max / tsc_us);
		if (rt->cfg.profile)
			prof_log(rt->stacks[i], &st, tsc_us);
		NN_INFO("stack %u copies: region engine %" PRIu64 " calls %" PRIu64
			" copies %" PRIu64 " bytes %" PRIu64 " errors; CUDA gather %"
			PRIu64 " calls %" PRIu64 " copies %" PRIu64 " bytes %" PRIu64
			" errors", i, k->region_ch.calls, k->region_ch.copies,
			k->region_ch.bytes, k->region_ch.errors, k->cuda_ch.calls,
			k->cuda_ch.copies, k->cuda_ch.bytes, k->cuda_ch.errors);
		if (k->unpack_overflow != 0)
			NN_INFO("stack %u: %" PRIu64 " received chunk pieces were gathered "
				"because their receive's unpack slot was full (%u entries)",
				i, k->unpack_overflow, NN_UNPACK_ENTRIES);
	}
	nn_port_xstats_log(rt, false);
	{
		char pl[256];

		nn_pools_line(rt, pl, sizeof(pl));
		NN_INFO("%s", pl);
	}
}

uint64_t
nn_dp_drops(const struct dt_dp_stats *st)
{
	return st->drop_not_ipv4 + st->drop_bad_ip + st->drop_ip_fragment +
		st->drop_not_for_us + st->drop_bad_tcp + st->drop_l4_cksum +
		st->drop_no_conn + st->drop_conn_table_full +
		st->drop_hdr_in_device + st->drop_unsupported_proto +
		st->drop_tx_no_mbuf + st->drop_tx_ring_full +
		st->drop_no_neighbour + st->drop_l4_cksum_unknown +
		st->drop_too_many_segs + st->drop_bad_arp + st->drop_synq_full +
		st->drop_neigh_hold_full + st->drop_ooo_no_store;
}

void
nn_stall_check(struct nn_comm *c, struct nn_req *r)
{
	uint32_t ms = rt_stall_ms();

	if (r->stall_logged || ms == 0 ||
			rte_get_timer_cycles() - r->t_post <= rte_get_timer_hz() / 1000 * ms)
		return;
	r->stall_logged = true;
	stall_report(c, r);
}
