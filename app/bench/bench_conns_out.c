/* SPDX-License-Identifier: BSD-3-Clause */
/* The connection-scale modes' table and JSON object (cps, hold). */
#include <stdio.h>

#include "bench.h"

static double
per_s(uint64_t n, double s)
{
	return s > 0 ? n / s : 0;
}

static double
per_conn(uint64_t bytes, uint64_t conns)
{
	return conns != 0 ? (double)bytes / conns : 0;
}

/* "a/b/c": one figure of each stack of a side. */
static void
per_stack(const struct bench_conns_stack *st, unsigned int n, bool rate,
	double s, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && i < BENCH_MAX_STACKS && off < len; i++)
		off += snprintf(buf + off, len - off, rate ? "%s%.0f" : "%s%.0f",
			i ? "/" : "", rate ? per_s(st[i].completed, s) :
				(double)st[i].conns);
}

void
bench_print_conns(const struct bench_result *res, int n)
{
	char cli[200], srv[200], rate[24];
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		const struct bench_result *r = &res[i];
		const struct bench_conns_result *cr = &r->cr;

		if (!bench_mode_is_conns(r->mode))
			continue;
		if (!any)
			printf("\n%-5s %7s %8s %9s %7s %8s %8s %-22s %-22s\n", "mode",
				"srv/cli", "conns", "conn/s", "failed", "retrans",
				"drops", "client conn/s per stack",
				"server accepted per stack");
		any = true;
		per_stack(cr->cli, r->client_stacks, true, r->seconds, cli,
			sizeof(cli));
		per_stack(cr->srv, r->server_stacks, false, r->seconds, srv,
			sizeof(srv));
		snprintf(rate, sizeof(rate), "%.0f", per_s(r->conns_done, r->seconds));
		if (r->mode == BENCH_MODE_HOLD)
			snprintf(cli, sizeof(cli), "-");
		printf("%-5s %3u/%-3u %8u %9s %7" PRIu64 " %8" PRIu64 " %8" PRIu64
			" %-22s %-22s\n", bench_mode_name(r->mode), r->server_stacks,
			r->client_stacks, r->conns,
			r->mode == BENCH_MODE_HOLD ? "-" : rate,
			cr->failed, r->retransmits, r->stack_drops + r->missed, cli, srv);
		if (r->mode == BENCH_MODE_HOLD)
			printf("      hold: %u connections, %u B each way, %" PRIu64
				"/%" PRIu64 " open at once (client/server); established in %.3f s, "
				"exchanged by %.3f s, closed %.3f s later; hugepage bytes per "
				"connection: server stacks %.0f, client stacks %.0f (%" PRIu64
				"+%" PRIu64 " slots); libc heap %.0f B per connection\n",
				r->conns, cr->bytes, cr->cli_open_peak, cr->srv_open_peak,
				cr->establish_s, cr->exchange_s, cr->close_s,
				per_conn(cr->srv_mem_bytes, r->conns),
				per_conn(cr->cli_mem_bytes, r->conns), cr->srv_slots,
				cr->cli_slots, per_conn(cr->heap_bytes, r->conns));
	}
	if (any)
		printf("conns: cps: opened, hold: held; conn/s: connections that exchanged\n"
			"--bytes each way and closed cleanly, per second of the run (until the\n"
			"last closed); drops: every stack drop counter and the ports' missed frames\n");
}

static void
write_stacks(FILE *f, const char *key, const struct bench_conns_stack *st,
	unsigned int n, double s)
{
	unsigned int i;

	fprintf(f, "\"%s\": [", key);
	for (i = 0; i < n && i < BENCH_MAX_STACKS; i++)
		fprintf(f, "%s{\"stack\": %u, \"lcore\": %u, \"conns\": %" PRIu64
			", \"completed\": %" PRIu64 ", \"conns_per_s\": %.1f, "
			"\"failed\": %" PRIu64 ", \"conns_open_peak\": %" PRIu64 ", "
			"\"slots\": %u, \"mem_bytes\": %" PRIu64 ", \"drops\": %" PRIu64
			", \"retransmits\": %" PRIu64 "}", i ? ", " : "", i,
			st[i].lcore, st[i].conns, st[i].completed,
			per_s(st[i].completed, s), st[i].failed,
			st[i].conns_open_peak, st[i].slots, st[i].mem_bytes,
			st[i].drops, st[i].retransmits);
	fprintf(f, "]");
}

void
bench_write_json_conns(FILE *f, const struct bench_result *r)
{
	const struct bench_conns_result *cr = &r->cr;

	fprintf(f, "\"conns_scale\": {\"bytes_each_way\": %u, \"in_flight\": %u, "
		"\"server_ports\": %u, \"opened\": %u, \"completed\": %u, "
		"\"accepted\": %" PRIu64 ", \"failed\": %" PRIu64 ", "
		"\"bad_bytes\": %" PRIu64 ", \"request_bytes\": %" PRIu64 ", "
		"\"answer_bytes\": %" PRIu64 ", \"open_waits\": %" PRIu64 ", "
		"\"conns_per_s\": %.1f, \"establish_s\": %.6f, \"exchange_s\": %.6f, "
		"\"close_s\": %.6f, \"server_mem_bytes\": %" PRIu64 ", "
		"\"client_mem_bytes\": %" PRIu64 ", \"server_slots\": %" PRIu64 ", "
		"\"client_slots\": %" PRIu64 ", \"server_open_peak\": %" PRIu64 ", "
		"\"client_open_peak\": %" PRIu64 ", "
		"\"server_mem_per_conn\": %.1f, \"client_mem_per_conn\": %.1f, "
		"\"mem_per_slot\": %.1f, \"heap_bytes\": %" PRIu64 ", "
		"\"heap_per_conn\": %.1f, \"heap_measured\": %s, ",
		cr->bytes, cr->in_flight, cr->server_ports, r->conns, r->conns_done,
		cr->accepted, cr->failed, cr->bad_bytes, r->payload_bytes,
		cr->answer_bytes, cr->open_waits, per_s(r->conns_done, r->seconds),
		cr->establish_s, cr->exchange_s, cr->close_s, cr->srv_mem_bytes,
		cr->cli_mem_bytes, cr->srv_slots, cr->cli_slots, cr->srv_open_peak,
		cr->cli_open_peak, per_conn(cr->srv_mem_bytes, r->conns),
		per_conn(cr->cli_mem_bytes, r->conns),
		per_conn(cr->srv_mem_bytes + cr->cli_mem_bytes,
			cr->srv_slots + cr->cli_slots),
		cr->heap_bytes, per_conn(cr->heap_bytes, r->conns),
		cr->heap_measured ? "true" : "false");
	write_stacks(f, "server", cr->srv, r->server_stacks, r->seconds);
	fprintf(f, ", ");
	write_stacks(f, "client", cr->cli, r->client_stacks, r->seconds);
	fprintf(f, "}");
}
