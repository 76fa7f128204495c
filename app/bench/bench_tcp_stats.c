/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The figures of a devtcp-bench TCP run: every stack's drop counters, how
 * the connections spread over the server stacks, and the result the
 * report and the JSON read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "bench_tcp_priv.h"

uint64_t
bench_tcp_stack_drops(const struct dt_dp_stats *s)
{
	return s->drop_not_ipv4 + s->drop_bad_ip + s->drop_ip_fragment +
		s->drop_not_for_us + s->drop_bad_tcp + s->drop_l4_cksum +
		s->drop_no_conn + s->drop_conn_table_full +
		s->drop_hdr_in_device + s->drop_unsupported_proto +
		s->drop_tx_no_mbuf + s->drop_tx_ring_full +
		s->drop_no_neighbour + s->drop_l4_cksum_unknown +
		s->drop_too_many_segs + s->drop_bad_arp + s->drop_synq_full +
		s->drop_neigh_hold_full;
}

/* Nothing silent: name every drop counter of a stack that is not zero. */
void
bench_tcp_report_drops(enum bench_mode mode, bool server, unsigned int q,
	const struct dt_dp_stats *d)
{
#define BT_DROP(f) { #f, d->f }
	const struct { const char *name; uint64_t v; } c[] = {
		BT_DROP(drop_not_ipv4), BT_DROP(drop_bad_ip),
		BT_DROP(drop_ip_fragment), BT_DROP(drop_not_for_us),
		BT_DROP(drop_bad_tcp), BT_DROP(drop_l4_cksum),
		BT_DROP(drop_no_conn), BT_DROP(drop_conn_table_full),
		BT_DROP(drop_hdr_in_device), BT_DROP(drop_unsupported_proto),
		BT_DROP(drop_tx_no_mbuf), BT_DROP(drop_tx_ring_full),
		BT_DROP(drop_no_neighbour), BT_DROP(drop_l4_cksum_unknown),
		BT_DROP(drop_too_many_segs), BT_DROP(drop_bad_arp),
		BT_DROP(drop_synq_full), BT_DROP(drop_neigh_hold_full),
	};
#undef BT_DROP
	unsigned int i;

	if (bench_tcp_stack_drops(d) == 0)
		return;
	fprintf(stderr, "devtcp-bench: %s: %s stack %u drops:",
		bench_mode_name(mode), server ? "server" : "client", q);
	for (i = 0; i < RTE_DIM(c); i++)
		if (c[i].v != 0)
			fprintf(stderr, " %s %" PRIu64, c[i].name + 5, c[i].v);
	fprintf(stderr, "\n");
}

/*
 * With several stacks a side, where the connections went (RSS spread on
 * the server, the openers' own queues on the client): one line, for the
 * reader and for the tests that check every stack took part.
 */
static void
report_spread(const struct bt_run *run)
{
	unsigned int i, k = run->nb_sides / 2;

	if (k < 2)
		return;
	fprintf(stderr, "devtcp-bench: %s: %u server stacks, connections accepted per stack:",
		bench_mode_name(run->mode), k);
	for (i = 0; i < k; i++)
		fprintf(stderr, " %u", run->sides[i].nb);
	fprintf(stderr, "; %u client stacks, opened per stack:", k);
	for (i = k; i < 2 * k; i++)
		fprintf(stderr, " %u", run->sides[i].nb);
	fprintf(stderr, "\n");
}

/* Everything the run measured, once every lcore is back. */
void
bench_tcp_collect(struct bt_run *run, struct bench_result *res)
{
	const struct bench_tcp_env *env = run->env;
	const struct bench_opts *o = env->opts;
	struct rte_eth_stats es;
	struct dt_dp_stats ds;
	unsigned int i;
	uint32_t k;

	report_spread(run);
	res->conns = run->conns;
	res->server_stacks = run->nsrv;
	res->client_stacks = run->ncli;
	res->seconds = (double)((run->t_eof != 0 ? run->t_eof : rte_rdtsc()) -
		run->t0) / run->hz;
	for (i = 0; i < run->nb_sides; i++) {
		struct bt_side *s = &run->sides[i];

		dt_dp_stats_get(s->st, &ds);
		bench_tcp_report_drops(run->mode, s->server,
			s->server ? i : i - run->nsrv, &ds);
		res->stack_drops += bench_tcp_stack_drops(&ds);
		res->events_overflow += ds.events_overflow;
		res->tcp_errors += s->errors;
		if (!s->server) {
			res->tx_frames += ds.tx_frames;
			res->tx_stack_cycles += ds.tx_cycles;
			res->tx_burst_cycles += ds.tx_burst_cycles;
			res->tx_tso_bursts += ds.tx_tso_bursts;
			res->tx_tso_segs += ds.tx_tso_segs;
			res->retransmits += s->retransmits;
			for (k = 0; k < s->nb; k++)
				res->sent_bytes += s->conns[k].acked;
			continue;
		}
		res->stack[i] = (struct bench_stack_result){
			.lcore = run->lcore_of[i], .conns = s->nb,
			.rx_frames = ds.rx_frames, .payload_bytes = s->rx_bytes,
			.rx_cycles = s->cycles, .stack_cycles = ds.rx_cycles,
			.drops = bench_tcp_stack_drops(&ds),
			.rx_bursts = ds.rx_bursts, .gro_runs = ds.rx_gro_runs,
			.gro_frames = ds.rx_gro_frames };
		res->rx_frames += ds.rx_frames;
		res->device_chunks += ds.device_chunks;
		res->host_chunks += ds.host_chunks;
		res->stack_cycles += ds.rx_cycles;
		res->cksum_bad += ds.drop_l4_cksum + ds.drop_l4_cksum_unknown;
		res->payload_bytes += s->rx_bytes;
		res->device_bytes += s->device_bytes;
		res->host_bytes += s->host_bytes;
		res->rx_cycles += s->cycles;
		res->copy_errors += s->copy_errors;
		if (s->ch != NULL)
			res->cpu_copy_bytes += s->ch->stats.bytes;
		/* lib/dp's copy mode (a port without split) copies after receive too. */
		res->cpu_copy_bytes += ds.rx_copy_bytes;
		res->verified_bytes += s->vres.verified_bytes;
		res->verify_errors += s->vres.verify_errors;
		res->verify_batches += s->vres.verify_batches;
		for (k = 0; k < s->nb; k++) {
			const struct bt_conn *c = &s->conns[k];

			if (c->peer_closed && c->closed && !c->failed &&
					(o->bytes == 0 || c->rx == o->bytes))
				res->conns_done++;
		}
	}
	/* After the stack, the CPU copied with the bench's engine or lib/dp's. */
	res->copy_bytes = res->cpu_copy_bytes;
	res->nic_copy_bytes = bench_xstat_sum(env->sport, "_copy_bytes");
	res->split_frames = bench_xstat_sum(env->sport, "_split_packets");
	res->nic_tx_copy_chunks = bench_xstat_sum_tx(env->cport,
		"_copy_latency_chunks");
	res->nic_tx_copy_cycles = bench_xstat_sum_tx(env->cport,
		"_copy_latency_cycles");
	res->nic_tx_copy_calls = bench_xstat_sum_tx(env->cport, "_copy_calls");
	res->nic_tx_copy_gathers = bench_xstat_sum_tx(env->cport,
		"_copy_gathers");
	if (rte_eth_stats_get(env->sport, &es) == 0) {
		res->rx_bytes = es.ibytes;
		res->missed = es.imissed + es.rx_nombuf;
	}
}

/*
 * The interval from the last sample to the end of the run: every lcore is
 * back and the counters are final, so the samples add up to the run.
 */
void
bench_tcp_last_sample(struct bt_run *run)
{
	uint64_t bytes, frames, rtx;

	bench_tcp_run_totals(run, &bytes, &frames, &rtx);
	bench_sample_take(run->res, &run->sp,
		(double)(rte_rdtsc() - run->t0) / run->hz, bytes, frames, rtx);
}
