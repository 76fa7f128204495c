/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's profiler callback played by the harness. NCCL's own callback
 * (src/plugin/profiler.cc, ncclProfilerCallback) reads the proxy step
 * behind phandle on a start and hands the descriptor to the profiler; on a
 * stop it stops *ehandle. Here a start must come with one of the
 * harness's phandles, the socket descriptor family (version 1) with a
 * flow index, the request's direction and a length, and gets a handle of
 * the harness's; a stop must name a live one.
 */
#include <stdio.h>
#include <string.h>

#include "nccl_netprof.h"

#define NP_SLOTS 4096            /* requests in flight, all comms */
#define NP_EVENTS 8              /* per request: NCCL's profilers keep 8 */

struct np_req {
	int used;
	int send;
	size_t size;
	void *req;               /* the plugin's request, once posted */
	unsigned int starts, stops;
	size_t length;           /* the started events' lengths, summed */
	int bad;                 /* a start or stop broke a rule */
	char why[160];
	struct np_ev {
		struct np_req *owner;
		int live;
	} ev[NP_EVENTS];
};

static struct np_req np_reqs[NP_SLOTS];
static unsigned int np_next;
static uint64_t np_posted, np_starts, np_stops;

static void
np_bad(struct np_req *q, const char *what)
{
	if (!q->bad)
		snprintf(q->why, sizeof(q->why), "%s", what);
	q->bad = 1;
}

static nn_result_t
np_start(void **eh, struct np_req *q, int64_t id, const void *ext)
{
	const struct nn_prof_sock_descr *d = ext;

	__atomic_fetch_add(&np_starts, 1, __ATOMIC_RELAXED);
	if (q < np_reqs || q >= np_reqs + NP_SLOTS || !q->used) {
		fprintf(stderr, "netprof: a start under a phandle the harness never gave\n");
		return nn_ncclSuccess;
	}
	if (id != (int64_t)(NN_PROF_NET_TYPE_SOCK | NN_PROF_NET_SOCK_VER) || d == NULL ||
			d->type != NN_PROF_SOCKET)
		np_bad(q, "start: not a socket v1 descriptor");
	else if (d->sock.op != (q->send ? 0 : 1))
		np_bad(q, "start: op is not the request's direction");
	else if (d->sock.fd != (int)q->starts)
		np_bad(q, "start: flow indexes not 0, 1, ... in order");
	if (q->starts >= NP_EVENTS) {
		np_bad(q, "start: more than 8 events for one request");
		return nn_ncclSuccess;
	}
	q->length += d != NULL ? d->sock.length : 0;
	q->ev[q->starts] = (struct np_ev){ .owner = q, .live = 1 };
	*eh = &q->ev[q->starts];
	q->starts++;
	return nn_ncclSuccess;
}

nn_result_t
netprof_cb(void **eh, int type, void *ph, int64_t id, void *ext)
{
	struct np_ev *e;

	if (type == NN_PROF_NET_START)
		return np_start(eh, ph, id, ext);
	if (type != NN_PROF_NET_STOP) {
		fprintf(stderr, "netprof: event type %d (the plugin sends no updates)\n", type);
		return nn_ncclSuccess;
	}
	__atomic_fetch_add(&np_stops, 1, __ATOMIC_RELAXED);
	e = *eh;
	if (e == NULL || e->owner == NULL || !e->live) {
		fprintf(stderr, "netprof: a stop of no live event\n");
		return nn_ncclSuccess;
	}
	e->live = 0;
	e->owner->stops++;
	return nn_ncclSuccess;
}

void *
netprof_phandle(int send, size_t size)
{
	unsigned int k;

	for (k = 0; k < NP_SLOTS; k++) {
		struct np_req *q = &np_reqs[(np_next + k) % NP_SLOTS];

		if (!q->used) {
			np_next = (np_next + k + 1) % NP_SLOTS;
			memset(q, 0, sizeof(*q));
			q->used = 1;
			q->send = send;
			q->size = size;
			return q;
		}
	}
	return NULL;
}

int
netprof_posted(void *ph, void *req, char *why, size_t len)
{
	struct np_req *q = ph;

	if (q == NULL)
		return 0;
	if (req != NULL) {
		unsigned int k;

		/* A request the harness never saw end (close, kill cases) is reused. */
		for (k = 0; k < NP_SLOTS; k++)
			if (np_reqs[k].used && np_reqs[k].req == req)
				np_reqs[k].used = 0;
		q->req = req;
		np_posted++;
		return 0;
	}
	q->used = 0;
	if (q->starts == 0)
		return 0;
	snprintf(why, len, "%u event(s) started for a post that returned no request",
		q->starts);
	return -1;
}

int
netprof_ended(void *req, char *why, size_t len)
{
	unsigned int k;

	for (k = 0; k < NP_SLOTS; k++) {
		struct np_req *q = &np_reqs[k];

		if (!q->used || q->req != req)
			continue;
		q->used = 0;
		if (q->bad)
			snprintf(why, len, "%s", q->why);
		else if (q->starts == 0)
			snprintf(why, len, "no event started for the request");
		else if (q->stops != q->starts)
			snprintf(why, len, "%u event(s) started, %u stopped when test() "
				"ended the request", q->starts, q->stops);
		else if (q->length != q->size)
			snprintf(why, len, "the events' lengths add up to %zu, the "
				"request has %zu bytes", q->length, q->size);
		else
			return 0;
		return -1;
	}
	return 0;   /* posted without a phandle (v8) */
}

void
netprof_totals(uint64_t *reqs, uint64_t *starts, uint64_t *stops)
{
	*reqs = np_posted;
	*starts = __atomic_load_n(&np_starts, __ATOMIC_RELAXED);
	*stops = __atomic_load_n(&np_stops, __ATOMIC_RELAXED);
}
