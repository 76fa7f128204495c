/* SPDX-License-Identifier: BSD-3-Clause */
/* Live progress, the final table and JSON output of devtcp-bench. */
#include <errno.h>
#include <stdio.h>

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
cycles_per_frame(const struct bench_result *r)
{
	return r->rx_frames ? (double)r->rx_cycles / r->rx_frames : 0;
}

void
bench_progress(const struct bench_result *r, double elapsed)
{
	printf("  [%-9s] %5.1fs  rx %10" PRIu64 " frames  %6.2f Mfps  %7.2f Gb/s\n",
		bench_mode_name(r->mode), elapsed, r->rx_frames,
		per_sec(r->rx_frames, elapsed) / 1e6,
		gbps(r->rx_bytes, elapsed));
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

void
bench_print_table(const struct bench_result *res, int n)
{
	const struct bench_result *split, *raw, *bounce, *ceiling;
	int i;

	printf("\n%-10s %12s %10s %9s %9s %11s %10s %8s %8s %9s\n",
		"mode", "rx frames", "Mframes/s", "Gb/s", "pay Gb/s",
		"copy-eng GB", "cyc/frame", "missed", "ck bad", "verified");
	for (i = 0; i < n; i++) {
		const struct bench_result *r = &res[i];

		printf("%-10s %12" PRIu64 " %10.3f %9.2f %9.2f %11.3f %10.0f %8" PRIu64
			" %8" PRIu64 " %9s\n",
			bench_mode_name(r->mode), r->rx_frames,
			per_sec(r->rx_frames, r->seconds) / 1e6,
			gbps(r->rx_bytes, r->seconds),
			gbps(r->payload_bytes, r->seconds),
			r->copy_bytes / 1e9, cycles_per_frame(r), r->missed,
			r->cksum_bad,
			r->verified_bytes == 0 && r->verify_errors == 0 ? "-" :
				(r->verify_errors ? "FAILED" : "ok"));
	}
	if (find_mode(res, n, BENCH_MODE_CEILING) != NULL)
		printf("(ceiling: no wire; frames are payload-sized copies, Gb/s counts their bytes)\n");
	split = find_mode(res, n, BENCH_MODE_RAW_SPLIT);
	raw = find_mode(res, n, BENCH_MODE_RAW);
	bounce = find_mode(res, n, BENCH_MODE_BOUNCE);
	ceiling = find_mode(res, n, BENCH_MODE_CEILING);
	if (split == NULL || n < 2)
		return;
	printf("\n");
	if (raw != NULL && raw->rx_frames != 0 && raw->seconds > 0)
		printf("split / no-split frame rate:      %.2f\n",
			per_sec(split->rx_frames, split->seconds) /
			per_sec(raw->rx_frames, raw->seconds));
	if (bounce != NULL && bounce->payload_bytes != 0 && bounce->seconds > 0)
		printf("split / bounce payload rate:      %.2f\n",
			gbps(split->payload_bytes, split->seconds) /
			gbps(bounce->payload_bytes, bounce->seconds));
	if (ceiling != NULL && ceiling->payload_bytes != 0 && ceiling->seconds > 0)
		printf("split / copy-engine ceiling:      %.2f  (ceiling: %.2f Gb/s in %u-byte copies)\n",
			gbps(split->payload_bytes, split->seconds) /
			gbps(ceiling->payload_bytes, ceiling->seconds),
			gbps(ceiling->payload_bytes, ceiling->seconds),
			ceiling->rx_frames ? (unsigned int)(ceiling->payload_bytes /
				ceiling->rx_frames) : 0u);
}

int
bench_write_json(const char *path, const struct bench_opts *o,
	const struct bench_setup *su, const struct bench_result *res, int n)
{
	FILE *f = fopen(path, "w");
	int i;

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"frame_len\": %u,\n  \"mtu\": %u,\n  \"payload_memory\": \"%s\",\n"
		"  \"payload_len\": %u,\n  \"gpu\": \"%s\",\n  \"copy_engine\": \"%s\",\n"
		"  \"host_memory_registered\": %s,\n  \"verify\": \"%s\",\n"
		"  \"runs\": [\n", o->frame_len, o->mtu,
		o->payload_host ? "host" : "gpu", bench_payload_len(o),
		su->gpu_name != NULL ? su->gpu_name : "",
		su->engine != NULL ? su->engine : "",
		su->host_registered ? "true" : "false",
		su->verify_on != NULL ? su->verify_on : "off");
	for (i = 0; i < n; i++) {
		const struct bench_result *r = &res[i];

		fprintf(f, "    {\"mode\": \"%s\", \"seconds\": %.6f, "
			"\"tx_frames\": %" PRIu64 ", \"rx_frames\": %" PRIu64 ", "
			"\"rx_bytes\": %" PRIu64 ", \"payload_bytes\": %" PRIu64 ", "
			"\"split_frames\": %" PRIu64 ", \"copy_engine_bytes\": %" PRIu64 ", "
			"\"frames_per_sec\": %.1f, \"gbps\": %.4f, \"payload_gbps\": %.4f, "
			"\"rx_cycles_per_frame\": %.1f, \"missed\": %" PRIu64 ", "
			"\"cksum_bad\": %" PRIu64 ", \"verified_bytes\": %" PRIu64 ", "
			"\"verify_errors\": %" PRIu64 ", \"verify_batches\": %" PRIu64 ", "
			"\"copy_errors\": %" PRIu64 "}%s\n",
			bench_mode_name(r->mode), r->seconds, r->tx_frames,
			r->rx_frames, r->rx_bytes, r->payload_bytes,
			r->split_frames, r->copy_bytes,
			per_sec(r->rx_frames, r->seconds),
			gbps(r->rx_bytes, r->seconds),
			gbps(r->payload_bytes, r->seconds), cycles_per_frame(r),
			r->missed, r->cksum_bad, r->verified_bytes,
			r->verify_errors, r->verify_batches, r->copy_errors,
			i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}
