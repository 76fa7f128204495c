/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's request pattern (8 slots each way, irecv first) and the goodput
 * bench, with the spread of a comm's flows over the stacks.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mempool.h>

#include "nccl_harness.h"
#include "nccl_netprof.h"
#include "nn_stats.h"

static void pattern_stats(struct side *s, uint64_t *v);

/*
 * Not a test: A streams N messages of S bytes to B (4 in flight, as NCCL's
 * pipeline keeps several), device buffers; B prints goodput as JSON.
 * NCCL_HARNESS_BENCH="N S" (default "32 16777216").
 */
void
case_bench(struct side *s)
{
	const char *env = getenv("NCCL_HARNESS_BENCH");
	unsigned long n = 32, size = 16 * MIB, i, done = 0;
	struct buf b[4];
	void *req[4] = { NULL };
	double t0;
	int got, k;

	if (env != NULL)
		sscanf(env, "%lu %lu", &n, &size);
	for (k = 0; k < 4; k++)
		buf_new(s, &b[k], size, true, s->role == 0 ? s->scomm : s->rcomm);
	if (s->role == 0)
		for (k = 0; k < 4; k++)
			fill(&b[k], size, (uint32_t)k);
	barrier(s);
	t0 = now_s();
	for (i = 0; i < n + 4; i++) {
		k = (int)(i % 4);
		if (req[k] != NULL) {
			if (wait_req(s, req[k], &got) != nn_ncclSuccess)
				FAIL(s, "bench: request %lu failed", i - 4);
			done++;
			req[k] = NULL;
		}
		if (i >= n)
			continue;
		if (s->role == 0)
			post_send(s, s->scomm, &b[k], size, (int)i, &req[k]);
		else
			post_recv(s, s->rcomm, &b[k], size, (int)i, &req[k]);
	}
	if (s->role == 1) {
		double t = now_s() - t0;

		check(s, &b[(n - 1) % 4], size, (uint32_t)((n - 1) % 4), "last message");
		printf("{\"bench\": \"nccl-harness\", \"messages\": %lu, \"bytes\": %lu, "
			"\"seconds\": %.3f, \"Gbps\": %.3f}\n", done, done * size, t,
			done * size * 8 / t / 1e9);
	}
	barrier(s);
	{
		uint64_t v[NN_STAT__COUNT];

		usleep(100000);
		pattern_stats(s, v);
	}
}

/*
 * NCCL's pattern (what its net proxy drives per channel): NCCL_STEPS (8)
 * slots per direction, every irecv posted before the isends, both
 * directions at once, requests of 512 KiB to 4 MiB, test() polled on the
 * oldest request of each direction, a slot reposted as soon as it is done.
 * Prints per-request latency and goodput (JSON, rough figures); with
 * NCCL_HARNESS_PATTERN_CHECK=1 it also fails when the plugin's stacks
 * report stalls that this pattern must not cause (pattern_check()).
 * NCCL_HARNESS_PATTERN="N" messages per direction (default 48);
 * NCCL_HARNESS_PATTERN_HOLD_MS=T: a completed receive slot is posted again
 * only T ms later (NCCL waits for the GPU to consume it), so the sender
 * runs ahead and the flows' windows close; NCCL_HARNESS_PATTERN_DEV=1:
 * buffers in (simulated) device memory, as NCCL's with GPUDirect.
 */
#define PAT_SLOTS 8

static const size_t pat_sizes[] = {
	512 * 1024, 1 * MIB, 2 * MIB, 4 * MIB, 512 * 1024 + 5, 3 * MIB + 4097,
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct pat_dir {
	struct buf b[PAT_SLOTS];
	void *req[PAT_SLOTS];
	double t_post[PAT_SLOTS];
	unsigned long posted, done;
	double *lat;
	uint64_t bytes;
};

static size_t
pat_size(unsigned long m)
{
	return pat_sizes[m % (sizeof(pat_sizes) / sizeof(pat_sizes[0]))];
}

static void
pat_post(struct side *s, struct pat_dir *d, bool send, unsigned long n)
{
	unsigned long m = d->posted;
	int k = (int)(m % PAT_SLOTS);

	if (m >= n || d->req[k] != NULL)
		return;
	if (send)
		post_send(s, s->scomm, &d->b[k], pat_size(m), (int)m, &d->req[k]);
	else
		post_recv(s, s->rcomm, &d->b[k], 4 * MIB + 8192, (int)m, &d->req[k]);
	d->t_post[k] = now_s();
	d->posted++;
}

/* Test the oldest request of @p d; true when it completed. */
static bool
pat_test(struct side *s, struct pat_dir *d, bool send)
{
	unsigned long m = d->done;
	int k = (int)(m % PAT_SLOTS), done = 0, got = -1;

	if (d->req[k] == NULL)
		return false;
	if (p_test(&s->net, d->req[k], &done, &got) != nn_ncclSuccess)
		FAIL(s, "pattern: %s %lu failed", send ? "send" : "receive", m);
	if (!done)
		return false;
	d->lat[m] = now_s() - d->t_post[k];
	d->req[k] = NULL;
	d->done++;
	d->bytes += pat_size(m);
	if (!send) {
		if (got != (int)pat_size(m))
			FAIL(s, "pattern: receive %lu: test() said %d, want %zu", m, got,
				pat_size(m));
		check(s, &d->b[k], pat_size(m), (uint32_t)(k + (1 - s->role) * 50),
			"pattern message");
	}
	return true;
}

static void
pat_report(struct side *s, const char *what, struct pat_dir *d, double t)
{
	unsigned long n = d->done;

	qsort(d->lat, n, sizeof(double), cmp_double);
	printf("{\"bench\": \"nccl-pattern\", \"side\": \"%s\", \"dir\": \"%s\", "
		"\"requests\": %lu, \"bytes\": %" PRIu64 ", \"seconds\": %.3f, "
		"\"Gbps\": %.3f, \"lat_ms_p50\": %.3f, \"lat_ms_p90\": %.3f, "
		"\"lat_ms_max\": %.3f}\n", s->name, what, n, d->bytes, t,
		d->bytes * 8 / t / 1e9, d->lat[n / 2] * 1e3, d->lat[n * 9 / 10] * 1e3,
		d->lat[n - 1] * 1e3);
}

/* The plugin's counters (nn_stats.h), summed over its stacks. */
static void
pattern_stats(struct side *s, uint64_t *v)
{
	nn_stats_fn fn = (nn_stats_fn)dlsym(s->lib, "devtcp_nccl_stats");
	int i;

	if (fn == NULL)
		FAIL(s, "pattern: the plugin exports no devtcp_nccl_stats");
	if (fn(v, NN_STAT__COUNT) != NN_STAT__COUNT)
		FAIL(s, "pattern: devtcp_nccl_stats gave fewer than %d counters",
			NN_STAT__COUNT);
	printf("%s: stacks:", s->name);
	for (i = 0; i < NN_STAT__COUNT; i++)
		printf(" %s %" PRIu64, nn_stat_names[i], v[i]);
	printf("\n");
	if (getenv("NCCL_HARNESS_VERBOSE") != NULL)
		port_xstats(s);
}

static void
pattern_check(struct side *s)
{
	uint64_t v[NN_STAT__COUNT];

	pattern_stats(s, v);
	if (getenv("NCCL_HARNESS_PATTERN_CHECK") == NULL)
		return;
	if (v[NN_STAT_TX_FRAMES] == 0 || v[NN_STAT_RX_FRAMES] == 0)
		FAIL(s, "pattern: the stacks counted no frames");
	/*
	 * A message's last segment (and the next message's 16-byte header
	 * behind it) must leave at once: NCCL completes a send only when it
	 * is acknowledged, so a tail Nagle holds for an ACK costs a round
	 * trip per request.
	 */
	if (v[NN_STAT_NAGLE_HOLDS] != 0)
		FAIL(s, "pattern: Nagle held a message tail %" PRIu64 " times",
			v[NN_STAT_NAGLE_HOLDS]);
	/*
	 * What the flows have in flight (4 x NCCL_HARNESS_WINDOW, 512 KiB in
	 * the test: ~1450 frames, plus ACKs) fits the AF_PACKET ring (4096
	 * frames): a frame the kernel dropped there means the ring is smaller
	 * than configured (LRO caps it at 1024) and costs a retransmission.
	 */
	if (port_xstat_sum(s, "kernel_drops") != 0)
		FAIL(s, "pattern: the kernel dropped %" PRIu64 " frames at the "
			"AF_PACKET ring", port_xstat_sum(s, "kernel_drops"));
}

/*
 * With several stacks a comm's flows spread evenly over the receiving
 * stacks (one listen port per stack): each stack received at least half
 * of an even share of the payload chunks. RSS over one shared port left
 * some stack without a flow in most 4-stack runs.
 */
void
spread_check(struct side *s)
{
	uint64_t v[NN_STAT__COUNT];

	pattern_stats(s, v);
	if (v[NN_STAT_STACKS] < 2)
		return;
	if (v[NN_STAT_RX_CHUNKS] == 0)
		FAIL(s, "spread: the stacks received no payload chunks");
	if (v[NN_STAT_RX_CHUNKS_MIN] * v[NN_STAT_STACKS] * 2 < v[NN_STAT_RX_CHUNKS])
		FAIL(s, "spread: a stack received %" PRIu64 " of %" PRIu64
			" payload chunks over %" PRIu64 " stacks",
			v[NN_STAT_RX_CHUNKS_MIN], v[NN_STAT_RX_CHUNKS],
			v[NN_STAT_STACKS]);
}

void
case_pattern(struct side *s)
{
	const char *env = getenv("NCCL_HARNESS_PATTERN");
	unsigned long n = 48;
	struct pat_dir tx, rx;
	double t0, rx_hold_s = 0, rx_due = 0;
	bool dev;
	int k;

	if (env != NULL)
		n = strtoul(env, NULL, 0);
	env = getenv("NCCL_HARNESS_PATTERN_HOLD_MS");
	if (env != NULL)
		rx_hold_s = strtod(env, NULL) / 1e3;
	memset(&tx, 0, sizeof(tx));
	memset(&rx, 0, sizeof(rx));
	tx.lat = calloc(n, sizeof(double));
	rx.lat = calloc(n, sizeof(double));
	if (tx.lat == NULL || rx.lat == NULL || n == 0)
		FAIL(s, "pattern: no memory");
	dev = getenv("NCCL_HARNESS_PATTERN_DEV") != NULL;
	for (k = 0; k < PAT_SLOTS; k++) {
		buf_new(s, &tx.b[k], 4 * MIB, dev, s->scomm);
		buf_new(s, &rx.b[k], 4 * MIB + 8192, dev, s->rcomm);
		fill(&tx.b[k], 4 * MIB, (uint32_t)(k + s->role * 50));
	}
	/* NCCL posts its receives first. */
	for (k = 0; k < PAT_SLOTS; k++)
		pat_post(s, &rx, false, n);
	barrier(s);
	t0 = now_s();
	for (k = 0; k < PAT_SLOTS; k++)
		pat_post(s, &tx, true, n);
	while (tx.done < n || rx.done < n) {
		bool any = false;

		if (pat_test(s, &tx, true)) {
			pat_post(s, &tx, true, n);
			any = true;
		}
		if (rx_hold_s > 0 && rx_due == 0 && pat_test(s, &rx, false)) {
			/* NCCL reposts a slot once the GPU consumed it. */
			rx_due = now_s() + rx_hold_s;
			any = true;
		} else if (rx_hold_s == 0 && pat_test(s, &rx, false)) {
			pat_post(s, &rx, false, n);
			any = true;
		}
		if (rx_due != 0 && now_s() >= rx_due) {
			pat_post(s, &rx, false, n);
			rx_due = 0;
			any = true;
		}
		if (any)
			continue;
		if (now_s() - t0 > 120)
			FAIL(s, "pattern: stuck at %lu sent, %lu received of %lu", tx.done,
				rx.done, n);
		/* NCCL's proxy spins on its own core; here it would take a stack's CPU. */
		usleep(20);
	}
	pat_report(s, "send", &tx, now_s() - t0);
	pat_report(s, "recv", &rx, now_s() - t0);
	barrier(s);
	pattern_check(s);
	for (k = 0; k < PAT_SLOTS; k++) {
		buf_free(s, &tx.b[k], s->scomm);
		buf_free(s, &rx.b[k], s->rcomm);
	}
	free(tx.lat);
	free(rx.lat);
}
