/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Watchdog of the plugin ([nccl] stall_report ms, off at 0): a thread that
 * wakes every stall_report ms and, when requests are outstanding but none
 * completed since the last wake-up, logs what NCCL and the stacks did
 * meanwhile: NCCL's calls into the plugin (isend, irecv, test) and each
 * stack's polls and frames. A request stall report (nn_test) needs NCCL
 * to test a request; this one does not: it tells a proxy thread that no
 * longer calls the plugin from a stack lcore that no longer polls.
 */
#include <inttypes.h>
#include <pthread.h>
#include <time.h>

#include "nn.h"
#include "nn_report.h"
#include "nn_rt.h"

struct nn_wd_snap {
	uint64_t calls[NN_CALL__COUNT];
	uint64_t posted, done;
	uint64_t polls[NN_MAX_STACKS];
	uint64_t frames[NN_MAX_STACKS];
	uint64_t throttled[NN_MAX_STACKS]; /* polls that took no frame */
	uint64_t tx_full[NN_MAX_STACKS];   /* segments the NIC did not take */
};

static const char *const nn_call_names[NN_CALL__COUNT] = {
	"isend", "irecv", "test", "regMr", "connect", "accept",
};

static void
wd_snap(struct nn_rt *rt, struct nn_wd_snap *s)
{
	struct dt_dp_stats st;
	unsigned int i;

	for (i = 0; i < NN_CALL__COUNT; i++)
		s->calls[i] = __atomic_load_n(&rt->calls[i], __ATOMIC_RELAXED);
	s->posted = __atomic_load_n(&rt->reqs_posted, __ATOMIC_RELAXED);
	s->done = __atomic_load_n(&rt->reqs_done, __ATOMIC_RELAXED);
	for (i = 0; i < rt->nb_stacks; i++) {
		/* Unsynchronised reads of the lcores' counters: a snapshot. */
		s->polls[i] = rt->stacks[i]->polls;
		dt_dp_stats_get(rt->stacks[i]->st, &st);
		s->frames[i] = st.rx_frames + st.tx_frames;
		s->throttled[i] = st.rx_throttled;
		s->tx_full[i] = st.drop_tx_ring_full;
	}
}

static void
wd_report(struct nn_rt *rt, const struct nn_wd_snap *a,
	const struct nn_wd_snap *b)
{
	char line[400];
	unsigned int i;
	int n = 0;

	for (i = 0; i < NN_CALL__COUNT && n >= 0 && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " %s +%" PRIu64,
			nn_call_names[i], b->calls[i] - a->calls[i]);
	NN_WARN("watchdog: %" PRIu64 " requests outstanding, none completed in "
		"%u ms; NCCL's calls meanwhile:%s", b->posted - b->done,
		rt->cfg.stall_report_ms, line);
	for (i = 0; i < rt->nb_stacks; i++)
		NN_WARN("watchdog:   stack %u (lcore %u): polls +%" PRIu64
			", frames +%" PRIu64 ", throttled +%" PRIu64 ", tx not taken +%"
			PRIu64 "%s", i, rt->stacks[i]->lcore,
			b->polls[i] - a->polls[i], b->frames[i] - a->frames[i],
			b->throttled[i] - a->throttled[i], b->tx_full[i] - a->tx_full[i],
			b->polls[i] == a->polls[i] && rt->stacks[i]->running ?
			": STUCK (not polling)" : "");
	for (i = 0; i < rt->nb_stacks; i++)
		nn_stack_report(rt->stacks[i]);
	nn_port_xstats_log(rt, true);
	{
		char pl[256];

		nn_pools_line(rt, pl, sizeof(pl));
		NN_WARN("watchdog:   %s", pl);
	}
}

static void *
wd_main(void *arg)
{
	struct nn_rt *rt = arg;
	struct nn_wd_snap a, b;
	struct timespec ts = {
		.tv_sec = rt->cfg.stall_report_ms / 1000,
		.tv_nsec = (long)(rt->cfg.stall_report_ms % 1000) * 1000000,
	};
	bool told = false;

	wd_snap(rt, &a);
	for (;;) {
		nanosleep(&ts, NULL);
		wd_snap(rt, &b);
		if (b.done == a.done && b.posted > b.done && !rt->paused) {
			if (!told)
				wd_report(rt, &a, &b);
			told = true;   /* once per stall */
		} else {
			told = false;
		}
		a = b;
	}
	return NULL;
}

void
nn_watchdog_start(struct nn_rt *rt)
{
	pthread_t t;

	if (rt->cfg.stall_report_ms == 0)
		return;
	if (pthread_create(&t, NULL, wd_main, rt) != 0) {
		NN_WARN("cannot start the watchdog thread: stall reports only from test()");
		return;
	}
	pthread_setname_np(t, "devtcp-nccl-wd");
	pthread_detach(t);
}
