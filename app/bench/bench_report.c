/* SPDX-License-Identifier: BSD-3-Clause */
/* Live progress, the final table and JSON output of devtcp-bench. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devtcp_version.h"

#include "bench.h"

static double
gbps(uint64_t bytes, double s)
{
	return s > 0 ? bytes * 8.0 / s / 1e9 : 0;
}

static double
per_sec(uint64_t n, double s)
{
	return s > 0 ? n / s : 0;
}

static double
ratio(uint64_t a, uint64_t b)
{
	return b != 0 ? (double)a / b : 0;
}

/* Payload delivered per second: goodput (TCP), payload rate (raw modes). */
static double
goodput(const struct bench_result *r)
{
	return gbps(r->payload_bytes, r->seconds);
}

static double
pct_line(const struct bench_result *r)
{
	return r->line_rate_gbps > 0 ? 100.0 * goodput(r) / r->line_rate_gbps : 0;
}

/*
 * With --bytes: "  12.0 of 32.0 MiB  37%  ETA 2s", the ETA at the average
 * rate since the start of the run.
 */
static void
progress_bytes(uint64_t done, uint64_t total, double elapsed)
{
	if (total == 0)
		return;
	if (done > total)
		done = total;
	printf("  %.1f of %.1f MiB %3.0f%%", done / 1048576.0,
		total / 1048576.0, 100.0 * done / total);
	if (done == 0)
		printf("  ETA ?");
	else
		printf("  ETA %.0fs", elapsed * (double)(total - done) / done);
}

void
bench_progress(const struct bench_result *r, double elapsed,
	uint64_t bytes_done, uint64_t bytes_total)
{
	printf("  [%-9s] %5.1fs  rx %10" PRIu64 " frames  %6.2f Mfps  %7.2f Gb/s",
		bench_mode_name(r->mode), elapsed, r->rx_frames,
		per_sec(r->rx_frames, elapsed) / 1e6,
		gbps(r->rx_bytes, elapsed));
	progress_bytes(bytes_done, bytes_total, elapsed);
	printf("\n");
	fflush(stdout);
}

void
bench_tcp_progress(enum bench_mode mode, const struct bench_sample *s,
	uint64_t rtx, uint32_t done, uint32_t conns, uint64_t bytes_done,
	uint64_t bytes_total)
{
	printf("  [%-9s] %5.1fs  goodput %7.2f Gb/s  %6.3f Mpps  rtx %6" PRIu64
		"  streams done %u/%u", bench_mode_name(mode), s->t,
		gbps(s->bytes, s->dt), per_sec(s->frames, s->dt) / 1e6, rtx, done,
		conns);
	progress_bytes(bytes_done, bytes_total, s->t);
	printf("\n");
	fflush(stdout);
}

static const struct bench_result *
find_mode(const struct bench_result *res, int n, enum bench_mode m)
{
	int i;

	for (i = 0; i < n; i++)
		if (res[i].mode == m)
			return &res[i];
	return NULL;
}

/*
 * The ratios of goodput (payload per second) the JSON gives per run: the
 * product against its baselines, where both ran.
 */
static const struct {
	enum bench_mode num, den;
} ratio_pairs[] = {
	{ BENCH_MODE_SPLIT, BENCH_MODE_COPY },
	{ BENCH_MODE_SPLIT, BENCH_MODE_RAW },
	{ BENCH_MODE_COPY, BENCH_MODE_RAW },
	{ BENCH_MODE_RAW_SPLIT, BENCH_MODE_RAW },
	{ BENCH_MODE_RAW_SPLIT, BENCH_MODE_BOUNCE },
	{ BENCH_MODE_RAW_SPLIT, BENCH_MODE_CEILING },
};

/*
 * The run of mode @p m that @p r compares with: of the same server-stack
 * count when both are TCP runs (--stacks), else the first of that mode.
 */
static const struct bench_result *
ratio_partner(const struct bench_result *res, int n,
	const struct bench_result *r, enum bench_mode m)
{
	int i;

	for (i = 0; i < n; i++)
		if (res[i].mode == m && (!bench_mode_is_tcp(m) ||
				!bench_mode_is_tcp(r->mode) ||
				res[i].server_stacks == r->server_stacks))
			return &res[i];
	return NULL;
}

void
bench_set_line_rate(const struct bench_opts *o, struct bench_result *res, int n)
{
	const struct bench_result *raw = find_mode(res, n, BENCH_MODE_RAW);
	double ref = 0;
	const char *src = "none";
	int i;

	if (o->rate_gbps > 0) {
		ref = o->rate_gbps;
		src = "configured";
	} else if (raw != NULL && raw->seconds > 0 && raw->rx_bytes != 0) {
		/* The wire's L2 ceiling: raw's frame bytes per second. */
		ref = gbps(raw->rx_bytes, raw->seconds);
		src = "raw";
	}
	for (i = 0; i < n; i++) {
		/* The ceiling has no wire: no line rate to compare with. */
		res[i].line_rate_gbps = res[i].mode == BENCH_MODE_CEILING ? 0 : ref;
		res[i].line_rate_src = res[i].mode == BENCH_MODE_CEILING ?
			"none" : src;
	}
}

static void
print_ratios(const struct bench_result *res, int n)
{
	const struct bench_result *tsplit, *tcopy, *split, *raw, *bounce, *ceiling;

	tsplit = find_mode(res, n, BENCH_MODE_SPLIT);
	tcopy = find_mode(res, n, BENCH_MODE_COPY);
	split = find_mode(res, n, BENCH_MODE_RAW_SPLIT);
	raw = find_mode(res, n, BENCH_MODE_RAW);
	bounce = find_mode(res, n, BENCH_MODE_BOUNCE);
	ceiling = find_mode(res, n, BENCH_MODE_CEILING);
	if (n < 2)
		return;
	printf("\n");
	if (tsplit != NULL && tcopy != NULL && goodput(tcopy) > 0) {
		printf("split / copy goodput:             %.2f\n",
			goodput(tsplit) / goodput(tcopy));
		printf("receive cycles per packet:        split %.0f, copy %.0f (%.2fx)\n",
			ratio(tsplit->rx_cycles, tsplit->rx_frames),
			ratio(tcopy->rx_cycles, tcopy->rx_frames),
			ratio(tsplit->rx_cycles, tsplit->rx_frames) > 0 ?
				ratio(tcopy->rx_cycles, tcopy->rx_frames) /
				ratio(tsplit->rx_cycles, tsplit->rx_frames) : 0);
		printf("bytes copied per payload byte:    split %.2f, copy %.2f\n",
			ratio(tsplit->cpu_copy_bytes, tsplit->payload_bytes),
			ratio(tcopy->cpu_copy_bytes, tcopy->payload_bytes));
	}
	if (raw != NULL && goodput(raw) > 0) {
		if (tsplit != NULL)
			printf("split / raw L2 payload rate:      %.2f\n",
				goodput(tsplit) / goodput(raw));
		if (tcopy != NULL)
			printf("copy / raw L2 payload rate:       %.2f\n",
				goodput(tcopy) / goodput(raw));
	}
	if (split == NULL)
		return;
	if (raw != NULL && raw->rx_frames != 0 && raw->seconds > 0)
		printf("raw-split / raw frame rate:       %.2f\n",
			per_sec(split->rx_frames, split->seconds) /
			per_sec(raw->rx_frames, raw->seconds));
	if (bounce != NULL && bounce->payload_bytes != 0 && bounce->seconds > 0)
		printf("raw-split / bounce payload rate:  %.2f\n",
			goodput(split) / goodput(bounce));
	if (ceiling != NULL && ceiling->payload_bytes != 0 && ceiling->seconds > 0)
		printf("raw-split / copy-engine ceiling:  %.2f  (ceiling: %.2f Gb/s in %u-byte copies)\n",
			goodput(split) / goodput(ceiling), goodput(ceiling),
			ceiling->rx_frames ? (unsigned int)(ceiling->payload_bytes /
				ceiling->rx_frames) : 0u);
}

void
bench_print_table(const struct bench_result *res, int n)
{
	const char *src = "none";
	double rate = 0;
	char conns[16], pct[16], stk[16];
	int i;

	for (i = 0; i < n && bench_mode_is_conns(res[i].mode); i++)
		;
	if (i == n)
		return;         /* cps, hold only: bench_print_conns() */
	printf("\n%-10s %5s %9s %7s %8s %8s %8s %8s %8s %8s %9s\n",
		"mode", "conns", "goodput", "% line", "Mpkt/s", "cyc/pkt",
		"stk cyc", "copied", "retrans", "missed", "verified");
	printf("%-10s %5s %9s %7s %8s %8s %8s %8s %8s %8s %9s\n",
		"", "", "Gb/s", "", "", "(rx)", "(rx)", "B/B", "", "", "");
	for (i = 0; i < n; i++) {
		const struct bench_result *r = &res[i];

		if (bench_mode_is_conns(r->mode))
			continue;	/* their own table: bench_print_conns() */
		if (bench_mode_is_tcp(r->mode)) {
			snprintf(conns, sizeof(conns), "%u", r->conns);
			snprintf(stk, sizeof(stk), "%.0f",
				ratio(r->stack_cycles, r->rx_frames));
		} else {
			snprintf(conns, sizeof(conns), "-");
			snprintf(stk, sizeof(stk), "-");
		}
		if (r->line_rate_gbps > 0) {
			snprintf(pct, sizeof(pct), "%.1f", pct_line(r));
			rate = r->line_rate_gbps;
			src = r->line_rate_src;
		} else {
			snprintf(pct, sizeof(pct), "-");
		}
		printf("%-10s %5s %9.2f %7s %8.3f %8.0f %8s %8.2f %8" PRIu64
			" %8" PRIu64 " %9s\n",
			bench_mode_name(r->mode), conns, goodput(r), pct,
			per_sec(r->rx_frames, r->seconds) / 1e6,
			ratio(r->rx_cycles, r->rx_frames),
			stk,
			ratio(r->cpu_copy_bytes, r->payload_bytes),
			r->retransmits, r->missed,
			r->verified_bytes == 0 && r->verify_errors == 0 ? "-" :
				(r->verify_errors ? "FAILED" : "ok"));
	}
	printf("goodput: payload delivered per second (raw modes: payload of the frames)\n");
	if (rate > 0)
		printf("%% line: of %.2f Gb/s (%s)\n", rate, src[0] == 'r' ?
			"raw L2 ceiling of this run" : "configured rate");
	else
		printf("%% line: no line rate to compare with (add --rate G, or a raw "
			"run: --modes split,raw)\n");
	printf("Mpkt/s: frames received per second, in millions\n"
		"cyc/pkt: TSC cycles of the receive lcore's poll work per received frame,\n"
		"  the software NIC's receive included; stk cyc: lib/dp's own part\n"
		"copied B/B: payload bytes the CPU copied after receive per payload byte\n"
		"retrans: TCP segments the senders sent again (loss, reordering, timeouts)\n"
		"missed: frames the receiving port dropped for want of a descriptor or\n"
		"  buffer (its imissed); raw sends as fast as it can, so its receiver\n"
		"  misses by design and this can exceed the frames it received\n"
		"verified: every payload byte checked against the pattern (--verify)\n");
	if (find_mode(res, n, BENCH_MODE_CEILING) != NULL)
		printf("(ceiling: no wire; frames are payload-sized copies)\n");
	print_ratios(res, n);
}

void
bench_print_notes(const struct bench_setup *su, const struct bench_result *res,
	int n)
{
	if (find_mode(res, n, BENCH_MODE_SPLIT) == NULL ||
			find_mode(res, n, BENCH_MODE_COPY) == NULL ||
			su->engine == NULL || strcmp(su->engine, "cpu") != 0)
		return;
	/* Why the headline ratio is near 1 on this machine. */
	printf("\nnote: split / copy near 1 is expected here. The payload memory "
		"is %s,\n"
		"  filled by the CPU (copy engine 'cpu'): split's payload is moved by "
		"one CPU\n"
		"  memcpy inside the software NIC, copy's by one in the receiver. "
		"Split's gain\n"
		"  (no CPU copy, no pass through host memory) needs a NIC that writes "
		"GPU\n"
		"  memory by DMA (docs/nics.md, docs/gpu.md).\n",
		su->gpu_name != NULL && strcmp(su->gpu_name, "host") != 0 ?
		"a simulated GPU's\n  (host memory behind a no-access mapping)" :
		"host memory (no GPU)");
}

/* A TCP run's stacks and each server stack's figures (empty otherwise). */
static void
write_json_stacks(FILE *f, const struct bench_result *r)
{
	unsigned int i;

	fprintf(f, "\"server_stacks\": %u, \"client_stacks\": %u, "
		"\"mpps\": %.6f, \"drops\": %" PRIu64 ", \"per_stack\": [",
		r->server_stacks, r->client_stacks,
		per_sec(r->rx_frames, r->seconds) / 1e6,
		r->stack_drops + r->missed);
	for (i = 0; i < r->server_stacks && i < BENCH_MAX_STACKS; i++) {
		const struct bench_stack_result *st = &r->stack[i];

		fprintf(f, "%s{\"stack\": %u, \"lcore\": %u, \"conns\": %u, "
			"\"rx_frames\": %" PRIu64 ", \"payload_bytes\": %" PRIu64 ", "
			"\"goodput_gbps\": %.4f, \"rx_cycles_per_frame\": %.1f, "
			"\"stack_cycles_per_frame\": %.1f, \"drops\": %" PRIu64 ", "
			"\"rx_bursts\": %" PRIu64 ", \"rx_gro_runs\": %" PRIu64 ", "
			"\"rx_gro_frames\": %" PRIu64 "}",
			i ? ", " : "", i, st->lcore, st->conns, st->rx_frames,
			st->payload_bytes, gbps(st->payload_bytes, r->seconds),
			ratio(st->rx_cycles, st->rx_frames),
			ratio(st->stack_cycles, st->rx_frames), st->drops,
			st->rx_bursts, st->gro_runs, st->gro_frames);
	}
	fprintf(f, "]");
}

/* "a/b/c" of one per-stack figure, cycles per frame. */
static void
per_stack_str(const struct bench_result *r, bool stack_only, char *buf,
	size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < r->server_stacks && i < BENCH_MAX_STACKS && off < len; i++) {
		const struct bench_stack_result *st = &r->stack[i];

		off += snprintf(buf + off, len - off, "%s%.0f", i ? "/" : "",
			ratio(stack_only ? st->stack_cycles : st->rx_cycles,
				st->rx_frames));
	}
}

void
bench_print_scale(const struct bench_result *res, int n)
{
	char rx[160], stk[160];
	const struct bench_result *one;
	int i;

	for (i = 0; i < n && (!bench_mode_is_tcp(res[i].mode) ||
			bench_mode_is_conns(res[i].mode)); i++)
		;
	if (i == n)
		return;         /* no stream run: nothing to scale */
	printf("\n%6s %-6s %5s %9s %8s %-24s %-24s %8s %8s\n", "stacks",
		"mode", "conns", "goodput", "Mpkt/s", "rx cyc/pkt per stack",
		"stk cyc/pkt per stack", "retrans", "drops");
	printf("%6s %-6s %5s %9s\n", "srv/cli", "", "", "Gb/s");
	for (i = 0; i < n; i++) {
		const struct bench_result *r = &res[i];
		char sc[16];

		if (!bench_mode_is_tcp(r->mode) || bench_mode_is_conns(r->mode))
			continue;
		per_stack_str(r, false, rx, sizeof(rx));
		per_stack_str(r, true, stk, sizeof(stk));
		snprintf(sc, sizeof(sc), "%u/%u", r->server_stacks,
			r->client_stacks);
		printf("%6s %-6s %5u %9.2f %8.3f %-24s %-24s %8" PRIu64 " %8" PRIu64
			"\n", sc, bench_mode_name(r->mode), r->conns, goodput(r),
			per_sec(r->rx_frames, r->seconds) / 1e6, rx, stk,
			r->retransmits, r->stack_drops + r->missed);
	}
	printf("rx cyc/pkt: the server stack's lcore poll work per received frame (NIC\n"
		"receive included); stk cyc/pkt: lib/dp's own; drops: every stack drop\n"
		"counter and the port's missed frames\n");
	/* Scaling against the first (smallest) stack count of the same mode. */
	for (i = 0; i < n; i++) {
		const struct bench_result *r = &res[i];
		int j;

		one = NULL;
		for (j = 0; j < i; j++)
			if (res[j].mode == r->mode) {
				one = &res[j];
				break;
			}
		if (one == NULL || goodput(one) <= 0 || !bench_mode_is_tcp(r->mode) ||
				bench_mode_is_conns(r->mode))
			continue;
		printf("%-5s goodput(%u stacks) / goodput(%u): %.2f\n",
			bench_mode_name(r->mode), r->server_stacks,
			one->server_stacks, goodput(r) / goodput(one));
	}
}

/* @p str as a JSON string: quotes, backslashes and control bytes escaped. */
static void
json_str(FILE *f, const char *str)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)(str != NULL ? str : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Where the figures come from: program version, command line, time, signal. */
static void
write_json_provenance(FILE *f, const struct bench_setup *su)
{
	int i;

	fprintf(f, "  \"version\": ");
	json_str(f, DEVTCP_VERSION);
	fprintf(f, ",\n  \"command_line\": [");
	for (i = 0; i < su->argc; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, su->argv[i]);
	}
	fprintf(f, "],\n  \"utc_time\": ");
	json_str(f, su->utc_time);
	fprintf(f, ",\n  \"interrupted\": %s,\n  \"signal\": ",
		su->signal != 0 ? "true" : "false");
	if (su->signal != 0)
		json_str(f, su->signal == SIGINT ? "SIGINT" :
			su->signal == SIGTERM ? "SIGTERM" : "other");
	else
		fprintf(f, "null");
	fprintf(f, ",\n");
}

/* A run's ratios to the runs it is compared with (goodput over goodput). */
static void
write_json_ratios(FILE *f, const struct bench_result *res, int n,
	const struct bench_result *r)
{
	const struct bench_result *d;
	unsigned int k;
	bool first = true;

	fprintf(f, "\"ratios\": {");
	for (k = 0; k < RTE_DIM(ratio_pairs); k++) {
		if (ratio_pairs[k].num != r->mode)
			continue;
		d = ratio_partner(res, n, r, ratio_pairs[k].den);
		if (d == NULL)
			continue;
		fprintf(f, "%s\"%s/%s\": ", first ? "" : ", ",
			bench_mode_name(r->mode), bench_mode_name(d->mode));
		if (goodput(d) > 0)
			fprintf(f, "%.6f", goodput(r) / goodput(d));
		else
			fprintf(f, "null");
		first = false;
	}
	fprintf(f, "}");
}

/* The run's per-second samples: the live line's figures of each interval. */
static void
write_json_samples(FILE *f, const struct bench_result *r)
{
	uint32_t i;

	fprintf(f, "\"samples\": [");
	for (i = 0; i < r->nb_samples; i++) {
		const struct bench_sample *s = &r->samples[i];

		fprintf(f, "%s\n      {\"t\": %.9f, \"dt\": %.9f, \"bytes\": %" PRIu64
			", \"frames\": %" PRIu64 ", \"retransmits\": %" PRIu64
			", \"goodput_gbps\": %.6f, \"mpps\": %.6f, "
			"\"retransmits_per_s\": %.3f}", i ? "," : "", s->t, s->dt,
			s->bytes, s->frames, s->retransmits, gbps(s->bytes, s->dt),
			per_sec(s->frames, s->dt) / 1e6,
			per_sec(s->retransmits, s->dt));
	}
	fprintf(f, "]");
}

/* @p fd rewritten from its start (a regular file is truncated first). */
static FILE *
json_stream(int fd)
{
	struct stat st;
	FILE *f;
	int d;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			(lseek(fd, 0, SEEK_SET) < 0 || ftruncate(fd, 0) != 0))
		return NULL;
	d = dup(fd);
	if (d < 0)
		return NULL;
	f = fdopen(d, "w");
	if (f == NULL)
		close(d);
	return f;
}

int
bench_write_json(int fd, const struct bench_opts *o,
	const struct bench_setup *su, const struct bench_result *res, int n)
{
	FILE *f = json_stream(fd);
	unsigned int k;
	int i;

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n");
	write_json_provenance(f, su);
	fprintf(f, "  \"frame_len\": %u,\n  \"mtu\": %u,\n  \"payload_memory\": \"%s\",\n"
		"  \"payload_len\": %u,\n  \"gpu\": \"%s\",\n  \"copy_engine\": \"%s\",\n"
		"  \"host_memory_registered\": %s,\n  \"verify\": \"%s\",\n"
		"  \"conns\": %u,\n  \"bytes_per_conn\": %" PRIu64 ",\n"
		"  \"duration\": %.3f,\n  \"msg_size\": %u,\n  \"tx_memory\": \"%s\",\n"
		"  \"configured_rate_gbps\": %.3f,\n  \"lcores\": %u,\n  \"stacks\": [",
		o->frame_len, o->mtu,
		o->payload_host ? "host" : "gpu", bench_payload_len(o),
		su->gpu_name != NULL ? su->gpu_name : "",
		su->engine != NULL ? su->engine : "",
		su->host_registered ? "true" : "false",
		su->verify_on != NULL ? su->verify_on : "off",
		o->conns, o->bytes, o->duration, o->msg_size,
		o->tx_device ? "device" : "host", o->rate_gbps, rte_lcore_count());
	for (k = 0; k < o->nb_stacks; k++)
		fprintf(f, "%s%u", k ? ", " : "", o->stacks[k]);
	fprintf(f, "],\n  \"modes\": [");
	for (k = 0; k < o->nb_modes; k++)
		fprintf(f, "%s\"%s\"", k ? ", " : "", bench_mode_name(o->modes[k]));
	fprintf(f, "],\n  \"runs\": [\n");
	for (i = 0; i < n; i++) {
		const struct bench_result *r = &res[i];
		char pct[32];

		if (r->line_rate_gbps > 0)
			snprintf(pct, sizeof(pct), "%.3f", pct_line(r));
		else
			snprintf(pct, sizeof(pct), "null");
		fprintf(f, "    {\"mode\": \"%s\", \"tcp\": %s, \"seconds\": %.6f, "
			"\"conns\": %u, \"conns_done\": %u, "
			"\"tx_frames\": %" PRIu64 ", \"rx_frames\": %" PRIu64 ", "
			"\"rx_bytes\": %" PRIu64 ", \"payload_bytes\": %" PRIu64 ", "
			"\"sent_bytes\": %" PRIu64 ", "
			"\"device_bytes\": %" PRIu64 ", \"host_bytes\": %" PRIu64 ", "
			"\"device_chunks\": %" PRIu64 ", \"host_chunks\": %" PRIu64 ", "
			"\"split_frames\": %" PRIu64 ", \"copy_engine_bytes\": %" PRIu64 ", "
			"\"nic_copy_bytes\": %" PRIu64 ", \"cpu_copy_bytes\": %" PRIu64 ", "
			"\"cpu_copy_per_payload_byte\": %.4f, "
			"\"frames_per_sec\": %.1f, \"gbps\": %.4f, \"payload_gbps\": %.4f, "
			"\"goodput_gbps\": %.4f, \"line_rate_gbps\": %.4f, "
			"\"line_rate_source\": \"%s\", \"pct_line_rate\": %s, "
			"\"rx_cycles_per_frame\": %.1f, \"stack_cycles_per_frame\": %.1f, "
			"\"tx_stack_cycles_per_kbyte\": %.1f, "
			"\"tx_burst_cycles_per_kbyte\": %.1f, "
			"\"tx_tso_bursts\": %" PRIu64 ", \"tx_tso_segs\": %" PRIu64 ", "
			"\"nic_tx_copy_chunks\": %" PRIu64 ", "
			"\"nic_tx_copy_latency_us\": %.1f, "
			"\"nic_tx_copy_calls\": %" PRIu64 ", "
			"\"nic_tx_copy_gathers\": %" PRIu64 ", "
			"\"retransmits\": %" PRIu64 ", \"missed\": %" PRIu64 ", "
			"\"cksum_bad\": %" PRIu64 ", \"stack_drops\": %" PRIu64 ", "
			"\"tcp_errors\": %" PRIu64 ", \"events_overflow\": %" PRIu64 ", "
			"\"verified_bytes\": %" PRIu64 ", "
			"\"verify_errors\": %" PRIu64 ", \"verify_batches\": %" PRIu64 ", "
			"\"copy_errors\": %" PRIu64 ", \"interrupted\": %s, ",
			bench_mode_name(r->mode),
			bench_mode_is_tcp(r->mode) ? "true" : "false", r->seconds,
			r->conns, r->conns_done, r->tx_frames,
			r->rx_frames, r->rx_bytes, r->payload_bytes, r->sent_bytes,
			r->device_bytes, r->host_bytes, r->device_chunks,
			r->host_chunks, r->split_frames, r->copy_bytes,
			r->nic_copy_bytes, r->cpu_copy_bytes,
			ratio(r->cpu_copy_bytes, r->payload_bytes),
			per_sec(r->rx_frames, r->seconds),
			gbps(r->rx_bytes, r->seconds), goodput(r), goodput(r),
			r->line_rate_gbps,
			r->line_rate_src != NULL ? r->line_rate_src : "none", pct,
			ratio(r->rx_cycles, r->rx_frames),
			ratio(r->stack_cycles, r->rx_frames),
			1000.0 * ratio(r->tx_stack_cycles, r->sent_bytes),
			1000.0 * ratio(r->tx_burst_cycles, r->sent_bytes),
			r->tx_tso_bursts, r->tx_tso_segs,
			r->nic_tx_copy_chunks,
			r->tsc_hz != 0 ? 1e6 * ratio(r->nic_tx_copy_cycles,
				r->nic_tx_copy_chunks) / (double)r->tsc_hz : 0.0,
			r->nic_tx_copy_calls, r->nic_tx_copy_gathers,
			r->retransmits, r->missed, r->cksum_bad, r->stack_drops,
			r->tcp_errors, r->events_overflow, r->verified_bytes,
			r->verify_errors, r->verify_batches, r->copy_errors,
			r->interrupted ? "true" : "false");
		write_json_stacks(f, r);
		fprintf(f, ", ");
		if (bench_mode_is_conns(r->mode)) {
			bench_write_json_conns(f, r);
			fprintf(f, ", ");
		}
		write_json_ratios(f, res, n, r);
		fprintf(f, ", ");
		write_json_samples(f, r);
		fprintf(f, "}%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}
