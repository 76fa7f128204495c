/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plays NCCL's part against libnccl-net-devtcp.so: two processes (forked
 * here), each with its own configuration (its end of a veth pair, its
 * --file-prefix), dlopen the plugin, exchange listen handles over a
 * socketpair (NCCL's bootstrap), connect and accept both ways, then run a
 * case: messages of given sizes and tags, byte-checked on arrival (host
 * buffers directly, gpu_sim buffers through rte_gpu_mem_cpu_map).
 *
 * usage: nccl_harness PLUGIN CASE [VERSION]
 *   CASE: sizes | sizes-dev | sizes-unpack (NCCL_HARNESS_UNPACK=1: the harness
 *         plays NCCL's unpack kernel) | pipe (NCCL's 8-deep pipeline) | many |
 *         protos (unpack: NCCL's LL, LL128 and Simple buffers per comm) |
 *         bidir | trunc | close | kill | loss |
 *         refused | stall | pattern (NCCL's request pattern; figures, and with
 *         NCCL_HARNESS_PATTERN_CHECK=1 a test) | bench (goodput, not a test)
 *   VERSION: v11 (default), v12, v10 or v8: the symbol the harness takes;
 *            from v10 on, init gets a profiler callback and every isend and
 *            irecv a phandle (nccl_netprof.c), whose events are checked
 * Environment: NCCL_HARNESS_CONFIG_A/B (configuration files),
 * NCCL_HARNESS_EAL_A/B (EAL lines), set by run_harness.sh.
 * Exit 0 when both processes passed; the parent reports which one failed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_gpudev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "nccl_net.h"
#include "nccl_netprof.h"
#include "nn_abi.h"
#include "nn_stats.h"

#define MIB (1024u * 1024u)
#define MAX_INFLIGHT 32

/*
 * NCCL's device-side unpack, played here (NCCL_HARNESS_UNPACK=1): accept
 * gets a device handle as NCCL gives one; when a receive completes, the
 * harness does what NCCL's kernel would (copy each entry of the receive's
 * slot from the payload region into the buffer, through gpu_sim's CPU
 * mappings), then calls irecvConsumed.
 */
#define UNPACK_COMMS 8
#define UNPACK_REQS 256
#define UNPACK_BUFS 64

struct unpack_comm {
	void *comm;
	struct nn_net_device_handle dh;
	uint64_t recvs;          /* its Simple receives so far: slot = recvs % 16 */
	/*
	 * protos case: the connection's Simple buffer, registered after its
	 * LL and LL128 ones as NCCL does; receives elsewhere are LL/LL128,
	 * which NCCL's kernel reads in place (no slot). NULL: all Simple.
	 */
	uint8_t *simple;
	size_t simple_len;
};

struct unpack_req {
	void *req, *comm;
	uint8_t *dst;            /* the receive buffer, as the plugin got it */
	uint16_t slot;
	bool direct;             /* LL/LL128: no slot, the plugin wrote dst */
};

struct unpack_buf {
	uint8_t *p, *cpu;
	size_t len;
};

struct unpack_state {
	uint8_t *region_cpu;     /* the payload region, CPU side */
	struct unpack_comm comms[UNPACK_COMMS];
	struct unpack_req reqs[UNPACK_REQS];
	struct unpack_buf bufs[UNPACK_BUFS];
	uint64_t entries, bytes; /* what the harness unpacked */
	uint64_t direct;         /* LL/LL128 receives (protos case) */
	/*
	 * NCCL_HARNESS_UNPACK_LAG=k: irecvConsumed comes k receives late, as
	 * NCCL's kernel consumes a step while later ones are in flight.
	 */
	unsigned int lag, nlate;
	void *late_comm[16], *late_req[16];
	/*
	 * NCCL_HARNESS_UNPACK_SKIP=1 (with LAG >= 1): every second receive
	 * gets no irecvConsumed of its own (the next one's covers it: NCCL
	 * consumes a comm's receives in order). The lag holds receives' chunks
	 * (their TCP window): it must stay below what the window takes.
	 */
	bool skip;
	uint64_t nconsumed;
};

struct side {
	int role;                /* 0: A, 1: B */
	int sock;                /* to the peer process */
	struct net net;
	void *lib;               /* the plugin (dlopen handle) */
	void *lcomm, *scomm, *rcomm;
	int16_t gpu;
	const char *name;
	char peer_handle[NN_HANDLE_MAXSIZE];
};

/* Stall reports the plugin logged (lines with "pending for"); stall case. */
static unsigned int stall_reports;
/* Comm summaries ("... closed: N requests, ...") and finalize reports. */
static unsigned int comm_summaries, stack_reports;
/* [nccl] profile reports of stack 0's loop with a poll count above 0. */
static unsigned int profile_reports;
/* The plugin's watchdog ("watchdog: N requests outstanding, none completed"). */
static unsigned int watchdog_reports;

static void
logger(int level, unsigned long flags, const char *file, int line,
	const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (strstr(text, " pending for ") != NULL)
		__atomic_fetch_add(&stall_reports, 1, __ATOMIC_RELAXED);
	if (strstr(text, "watchdog: ") != NULL &&
			strstr(text, " requests outstanding, none completed") != NULL)
		__atomic_fetch_add(&watchdog_reports, 1, __ATOMIC_RELAXED);
	if (strstr(text, "closed: ") != NULL && strstr(text, " requests, ") != NULL)
		__atomic_fetch_add(&comm_summaries, 1, __ATOMIC_RELAXED);
	if (strncmp(text, "NET/devtcp : stack 0 (lcore ", 28) == 0)
		__atomic_fetch_add(&stack_reports, 1, __ATOMIC_RELAXED);
	{
		const char *pr = strstr(text, "NET/devtcp : stack 0 loop (profile): ");
		unsigned long long polls = 0;
		double secs = 0;

		if (pr != NULL && sscanf(pr + 37, "%lf s in %llu polls", &secs, &polls) == 2 &&
				secs > 0 && polls > 0)
			__atomic_fetch_add(&profile_reports, 1, __ATOMIC_RELAXED);
	}
	if (level > NN_LOG_WARN && getenv("NCCL_HARNESS_VERBOSE") == NULL)
		return;
	fprintf(stderr, "[nccl-log %d] %s\n", level, text);
}

#define FAIL(s, ...) do { \
	fprintf(stderr, "FAIL %s: ", (s)->name); \
	fprintf(stderr, __VA_ARGS__); \
	fprintf(stderr, "\n"); \
	fflush(stdout); \
	_exit(1); \
} while (0)

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ----------------------------------------------------- the plugin calls */

static struct unpack_comm *
unpack_comm_of(struct unpack_state *u, void *comm)
{
	unsigned int i;

	for (i = 0; i < UNPACK_COMMS; i++)
		if (u->comms[i].comm == comm)
			return &u->comms[i];
	return NULL;
}

static nn_result_t
p_accept(struct net *n, void *l, void **rc)
{
	struct nn_net_device_handle *dh = NULL;
	struct unpack_comm *uc = NULL;
	nn_result_t r;
	void *dc = NULL;

	if (n->up != NULL) {
		/* As NCCL: a handle of the unpack type, one per receive comm. */
		uc = unpack_comm_of(n->up, NULL);
		if (uc == NULL)
			return nn_ncclInternalError;
		memset(uc, 0, sizeof(*uc));
		uc->dh.netDeviceType = NN_NET_DEVICE_UNPACK;
		uc->dh.netDeviceVersion = NN_NET_UNPACK_VERSION;
		dh = &uc->dh;
		dc = dh;
	}
	r = net_accept(n, l, rc, &dc);
	if (uc != NULL && r == nn_ncclSuccess && *rc != NULL)
		uc->comm = *rc;
	return r;
}

static nn_result_t
p_irecv(struct net *n, void *c, void *d, size_t sz, int tag, void *mh,
	void **req)
{
	struct unpack_comm *uc;
	unsigned int i;
	nn_result_t rc;

	rc = net_irecv(n, c, d, sz, tag, mh, req);
	if (n->up == NULL || rc != nn_ncclSuccess || *req == NULL ||
			(uc = unpack_comm_of(n->up, c)) == NULL)
		return rc;
	for (i = 0; i < UNPACK_REQS && n->up->reqs[i].req != NULL; i++)
		;
	if (i == UNPACK_REQS)
		return nn_ncclInternalError;
	n->up->reqs[i] = (struct unpack_req){ .req = *req, .comm = c, .dst = d };
	/* Simple receive k of the comm: slot k % 16, as NCCL's kernel counts. */
	if (uc->simple != NULL && ((uint8_t *)d < uc->simple ||
			(uint8_t *)d >= uc->simple + uc->simple_len))
		n->up->reqs[i].direct = true;
	else
		n->up->reqs[i].slot = (uint16_t)(uc->recvs++ % NN_UNPACK_DEPTH);
	return rc;
}

static uint8_t *
unpack_cpu(struct unpack_state *u, uint8_t *p, uint64_t off, uint32_t len)
{
	unsigned int i;

	for (i = 0; i < UNPACK_BUFS; i++)
		if (u->bufs[i].p != NULL && p >= u->bufs[i].p &&
				p + off + len <= u->bufs[i].p + u->bufs[i].len)
			return u->bufs[i].cpu + (p - u->bufs[i].p) + off;
	return NULL;
}

/*
 * NCCL's kernel for receive @p ur: every entry of its slot, from the
 * region into the buffer; then the plugin may take its chunks back.
 */
static nn_result_t
unpack_run(struct net *n, struct unpack_req *ur)
{
	struct unpack_state *u = n->up;
	struct unpack_comm *uc = unpack_comm_of(u, ur->comm);
	const struct nn_unpack_handle *h;
	const struct nn_unpack_meta *m;
	uint64_t i, cnt;
	uint8_t *d;

	if (uc == NULL || uc->dh.handle == NULL) {
		fprintf(stderr, "unpack: a receive on a comm without a device handle\n");
		return nn_ncclInternalError;
	}
	h = uc->dh.handle;
	m = h->meta;
	cnt = __atomic_load_n(&m->cnt[ur->slot], __ATOMIC_ACQUIRE);
	if (cnt > NN_UNPACK_ENTRIES) {
		fprintf(stderr, "unpack: slot %u has %" PRIu64 " entries\n", ur->slot, cnt);
		return nn_ncclInternalError;
	}
	for (i = 0; i < cnt; i++) {
		const union nn_unpack_entry *e = &m->mem[ur->slot][i];

		d = unpack_cpu(u, ur->dst, e->dst_off, e->len);
		if (d == NULL) {
			fprintf(stderr, "unpack: entry %" PRIu64 " {%u, %u, %" PRIu64
				"} leaves the receive buffer\n", i, e->src_off, e->len,
				e->dst_off);
			return nn_ncclInternalError;
		}
		memcpy(d, u->region_cpu + e->src_off, e->len);
		u->bytes += e->len;
	}
	u->entries += cnt;
	return nn_ncclSuccess;
}

/* irecvConsumed for the oldest receives until at most @p keep wait. */
static nn_result_t
unpack_consume_late(struct net *n, unsigned int keep)
{
	struct unpack_state *u = n->up;
	nn_result_t rc = nn_ncclSuccess;
	unsigned int i;

	while (u->nlate > keep && rc == nn_ncclSuccess) {
		/*
		 * Skip mode drops every second one unnamed while a later one
		 * waits behind it, which will name it (the last is named).
		 */
		if (!u->skip || (u->nconsumed++ & 1) || u->nlate == 1)
			rc = net_consumed(n, u->late_comm[0], u->late_req[0]);
		for (i = 1; i < u->nlate; i++) {
			u->late_comm[i - 1] = u->late_comm[i];
			u->late_req[i - 1] = u->late_req[i];
		}
		u->nlate--;
	}
	return rc;
}

static nn_result_t
p_test(struct net *n, void *req, int *done, int *size)
{
	nn_result_t rc = net_test(n, req, done, size);
	unsigned int i;

	if (n->up == NULL || rc != nn_ncclSuccess || !*done)
		return rc;
	for (i = 0; i < UNPACK_REQS; i++)
		if (n->up->reqs[i].req == req) {
			struct unpack_state *u = n->up;

			if (!u->reqs[i].direct)
				rc = unpack_run(n, &u->reqs[i]);
			else
				u->direct++;
			u->reqs[i].req = NULL;
			if (rc != nn_ncclSuccess)
				break;
			u->late_comm[u->nlate] = u->reqs[i].comm;
			u->late_req[u->nlate++] = req;
			rc = unpack_consume_late(n, u->lag);
			break;
		}
	return rc;
}

/* ------------------------------------------------------ peer messages */

static void
xsend(struct side *s, const void *b, size_t n)
{
	if (write(s->sock, b, n) != (ssize_t)n)
		FAIL(s, "bootstrap write: %s", strerror(errno));
}

static void
xrecv(struct side *s, void *b, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(s->sock, (char *)b + got, n - got);
		if (r <= 0)
			FAIL(s, "bootstrap read: %s", r == 0 ? "peer gone" : strerror(errno));
		got += r;
	}
}

static void
barrier(struct side *s)
{
	char c = 'b';

	xsend(s, &c, 1);
	xrecv(s, &c, 1);
}

/* ------------------------------------------------------------ buffers */

struct buf {
	uint8_t *p;          /* what the plugin gets */
	uint8_t *cpu;        /* where the harness reads and writes it */
	size_t len;
	bool dev;
	void *mh;
};

/* A buffer of @p len bytes, host or gpu_sim, not registered. */
static void
buf_new_noreg(struct side *s, struct buf *b, size_t len, bool dev)
{
	size_t alloc = len ? len : 1;

	memset(b, 0, sizeof(*b));
	b->len = len;
	b->dev = dev;
	if (dev) {
		b->p = rte_gpu_mem_alloc(s->gpu, alloc, 0);
		if (b->p == NULL)
			FAIL(s, "rte_gpu_mem_alloc(%zu) failed", alloc);
		b->cpu = rte_gpu_mem_cpu_map(s->gpu, alloc, b->p);
		if (b->cpu == NULL)
			FAIL(s, "rte_gpu_mem_cpu_map failed");
	} else {
		b->p = malloc(alloc);
		b->cpu = b->p;
		if (b->p == NULL)
			FAIL(s, "malloc(%zu)", alloc);
	}
}

static void
buf_new(struct side *s, struct buf *b, size_t len, bool dev, void *comm)
{
	size_t alloc = len ? len : 1;

	buf_new_noreg(s, b, len, dev);
	if (net_regmr(&s->net, comm, b->p, alloc, dev ? NN_PTR_CUDA : NN_PTR_HOST,
			&b->mh) != nn_ncclSuccess)
		FAIL(s, "regMr(%zu bytes, %s) failed", alloc, dev ? "device" : "host");
	if (s->net.up != NULL) {
		unsigned int i;

		for (i = 0; i < UNPACK_BUFS && s->net.up->bufs[i].p != NULL; i++)
			;
		if (i == UNPACK_BUFS)
			FAIL(s, "unpack: more than %d buffers", UNPACK_BUFS);
		s->net.up->bufs[i] = (struct unpack_buf){ b->p, b->cpu, alloc };
	}
}

static void
buf_free(struct side *s, struct buf *b, void *comm)
{
	unsigned int i;

	for (i = 0; s->net.up != NULL && i < UNPACK_BUFS; i++)
		if (s->net.up->bufs[i].p == b->p)
			s->net.up->bufs[i].p = NULL;
	net_deregmr(&s->net, comm, b->mh);
	if (b->dev) {
		/* Device registrations stay cached in the plugin: keep the memory. */
		rte_gpu_mem_cpu_unmap(s->gpu, b->p);
	} else {
		free(b->p);
	}
}

static uint8_t
pat(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u + (uint32_t)(i >> 11);

	return (uint8_t)(x ^ (x >> 13) ^ (x >> 24));
}

static void
fill(struct buf *b, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		b->cpu[i] = pat(seed, i);
}

static void
check(struct side *s, const struct buf *b, size_t len, uint32_t seed,
	const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b->cpu[i] != pat(seed, i))
			FAIL(s, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what,
				i, len, b->cpu[i], pat(seed, i));
}

/* ------------------------------------------------------------ set-up */

static void
open_plugin(struct side *s, const char *path, const char *ver)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (lib == NULL)
		FAIL(s, "dlopen %s: %s", path, dlerror());
	s->lib = lib;
	if (net_open(&s->net, lib, atoi(ver + 1)) != 0)
		FAIL(s, "no ncclNetPlugin_%s in %s", ver, path);
}

static void
connect_both(struct side *s)
{
	char mine[NN_HANDLE_MAXSIZE], peer[NN_HANDLE_MAXSIZE];
	double t0 = now_s();
	nn_result_t rc;

	if (net_listen(&s->net, mine, &s->lcomm) != nn_ncclSuccess)
		FAIL(s, "listen failed");
	xsend(s, mine, sizeof(mine));
	xrecv(s, peer, sizeof(peer));
	memcpy(s->peer_handle, peer, sizeof(peer));
	s->scomm = s->rcomm = NULL;
	while (s->scomm == NULL || s->rcomm == NULL) {
		if (s->scomm == NULL) {
			rc = net_connect(&s->net, peer, &s->scomm);
			if (rc != nn_ncclSuccess)
				FAIL(s, "connect failed (%d)", rc);
		}
		if (s->rcomm == NULL) {
			rc = p_accept(&s->net, s->lcomm, &s->rcomm);
			if (rc != nn_ncclSuccess)
				FAIL(s, "accept failed (%d)", rc);
		}
		if (now_s() - t0 > 60)
			FAIL(s, "connect/accept: no comm after 60 s");
		usleep(100);
	}
	/*
	 * As NCCL's proxy does: the listen comm goes once its connection is
	 * accepted, while the comms carry traffic (a stack that stops
	 * listening must not move the flows of the stacks that stay).
	 */
	if (net_close(&s->net, s->lcomm, 2) != nn_ncclSuccess)
		FAIL(s, "closeListen failed");
	s->lcomm = NULL;
}

/* Test until done; returns NCCL's result. */
static nn_result_t
wait_req(struct side *s, void *req, int *size)
{
	int done = 0;
	nn_result_t rc;

	for (;;) {
		rc = p_test(&s->net, req, &done, size);
		if (rc != nn_ncclSuccess || done)
			return rc;
		usleep(20);
	}
}

static void
post_send(struct side *s, void *comm, struct buf *b, size_t len, int tag,
	void **req)
{
	*req = NULL;
	while (*req == NULL)
		if (net_isend(&s->net, comm, b->p, len, tag, b->mh, req) != nn_ncclSuccess)
			FAIL(s, "isend(%zu) failed", len);
}

static void
post_recv(struct side *s, void *comm, struct buf *b, size_t room, int tag,
	void **req)
{
	*req = NULL;
	while (*req == NULL)
		if (p_irecv(&s->net, comm, b->p, room, tag, b->mh, req) != nn_ncclSuccess)
			FAIL(s, "irecv(%zu) failed", room);
}

/* ------------------------------------------------------------- cases */

static const size_t sizes_list[] = {
	0, 1, 4096, 1 * MIB, 64 * MIB, 16 * MIB + 5, 1000003, 12345, 4097,
	65537, 3,
};

/*
 * One message each way per size, both directions at once when @p bidir;
 * the receive buffer is larger than the message (NCCL's size is a maximum):
 * test() must return the sender's size.
 */
static void
case_sizes(struct side *s, bool dev, bool bidir, size_t max_size)
{
	size_t i, n = sizeof(sizes_list) / sizeof(sizes_list[0]);
	struct buf sb, rb;
	bool sender = s->role == 0 || bidir, receiver = s->role == 1 || bidir;

	buf_new(s, &sb, max_size, dev, s->scomm);
	buf_new(s, &rb, max_size + 8192, dev, s->rcomm);
	for (i = 0; i < n; i++) {
		size_t len = sizes_list[i];
		uint32_t seed = (uint32_t)(i * 977 + s->role * 13 + 1);
		uint32_t pseed = (uint32_t)(i * 977 + (1 - s->role) * 13 + 1);
		void *sr = NULL, *rr = NULL;
		double t0 = now_s();
		int got = -1;

		if (len > max_size)
			continue;
		if (sender)
			fill(&sb, len, seed);
		if (receiver) {
			memset(rb.cpu, 0xee, len + 16);
			post_recv(s, s->rcomm, &rb, len + 4096, (int)i, &rr);
		}
		if (sender)
			post_send(s, s->scomm, &sb, len, (int)i, &sr);
		if (sender && wait_req(s, sr, NULL) != nn_ncclSuccess)
			FAIL(s, "send of %zu bytes failed", len);
		if (receiver) {
			if (wait_req(s, rr, &got) != nn_ncclSuccess)
				FAIL(s, "receive of %zu bytes failed", len);
			if (got != (int)len)
				FAIL(s, "receive of %zu bytes: test() said %d", len, got);
			check(s, &rb, len, pseed, "received message");
			if (rb.cpu[len] != 0xee)
				FAIL(s, "byte past the %zu-byte message overwritten", len);
		}
		printf("%s: %s%zu bytes %s in %.3f s\n", s->name, dev ? "device " : "",
			len, bidir ? "both ways" : receiver ? "received" : "sent",
			now_s() - t0);
		barrier(s);
	}
	buf_free(s, &sb, s->scomm);
	buf_free(s, &rb, s->rcomm);
}

/* Frames the port's fault injection dropped (xstats named *loss*). */
static uint64_t
port_losses(struct side *s)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	uint64_t sum = 0;
	int n, i;

	n = rte_eth_xstats_get_names(0, NULL, 0);
	if (n <= 0)
		FAIL(s, "port 0 has no xstats");
	names = calloc(n, sizeof(*names));
	xs = calloc(n, sizeof(*xs));
	if (names == NULL || xs == NULL ||
			rte_eth_xstats_get_names(0, names, n) != n ||
			rte_eth_xstats_get(0, xs, n) != n)
		FAIL(s, "cannot read port 0's xstats");
	for (i = 0; i < n; i++)
		if (strstr(names[xs[i].id].name, "loss") != NULL && xs[i].value != 0) {
			printf("%s: %s = %" PRIu64 "\n", s->name, names[xs[i].id].name,
				xs[i].value);
			sum += xs[i].value;
		}
	free(names);
	free(xs);
	return sum;
}

/* Sum of port 0's xstats whose name contains @p key. */
static uint64_t
port_xstat_sum(struct side *s, const char *key)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	uint64_t sum = 0;
	int n, i, found = 0;

	n = rte_eth_xstats_get_names(0, NULL, 0);
	if (n <= 0)
		FAIL(s, "port 0 has no xstats");
	names = calloc(n, sizeof(*names));
	xs = calloc(n, sizeof(*xs));
	if (names == NULL || xs == NULL ||
			rte_eth_xstats_get_names(0, names, n) != n ||
			rte_eth_xstats_get(0, xs, n) != n)
		FAIL(s, "cannot read port 0's xstats");
	for (i = 0; i < n; i++)
		if (strstr(names[xs[i].id].name, key) != NULL) {
			sum += xs[i].value;
			found = 1;
		}
	free(names);
	free(xs);
	if (!found)
		FAIL(s, "port 0 has no xstat named *%s*", key);
	return sum;
}

/* Every non-zero xstat of port 0 (diagnostics). */
static void
port_xstats(struct side *s)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	int n, i;

	n = rte_eth_xstats_get_names(0, NULL, 0);
	if (n <= 0)
		return;
	names = calloc(n, sizeof(*names));
	xs = calloc(n, sizeof(*xs));
	if (names != NULL && xs != NULL &&
			rte_eth_xstats_get_names(0, names, n) == n &&
			rte_eth_xstats_get(0, xs, n) == n)
		for (i = 0; i < n; i++)
			if (xs[i].value != 0)
				printf("%s: xstat %s = %" PRIu64 "\n", s->name,
					names[xs[i].id].name, xs[i].value);
	free(names);
	free(xs);
}

/* MAX_INFLIGHT requests posted before any is tested, in both directions. */
static void
case_many(struct side *s)
{
	struct buf sb[MAX_INFLIGHT], rb[MAX_INFLIGHT];
	void *sr[MAX_INFLIGHT], *rr[MAX_INFLIGHT];
	size_t len[MAX_INFLIGHT];
	int i, round, got;

	for (i = 0; i < MAX_INFLIGHT; i++) {
		len[i] = (size_t)(i * 7919 % 200000) + (i % 3 == 0 ? 0 : 1);
		/* 6 device send buffers: each is a copy-engine window for the NIC (<= 8). */
		buf_new(s, &sb[i], len[i], i % 6 == 1, s->scomm);
		buf_new(s, &rb[i], len[i] + 100, i % 2 == 0, s->rcomm);
	}
	for (round = 0; round < 3; round++) {
		for (i = 0; i < MAX_INFLIGHT; i++) {
			fill(&sb[i], len[i], (uint32_t)(round * 100 + i + s->role * 7));
			post_recv(s, s->rcomm, &rb[i], len[i] + 100, 1000 + i, &rr[i]);
		}
		for (i = 0; i < MAX_INFLIGHT; i++)
			post_send(s, s->scomm, &sb[i], len[i], 1000 + i, &sr[i]);
		/* Test in reverse order: completion order is not NCCL's problem. */
		for (i = MAX_INFLIGHT - 1; i >= 0; i--) {
			if (wait_req(s, rr[i], &got) != nn_ncclSuccess || got != (int)len[i])
				FAIL(s, "request %d: receive failed or wrong size (%d, want %zu)",
					i, got, len[i]);
			check(s, &rb[i], len[i],
				(uint32_t)(round * 100 + i + (1 - s->role) * 7), "in-flight message");
		}
		for (i = 0; i < MAX_INFLIGHT; i++)
			if (wait_req(s, sr[i], NULL) != nn_ncclSuccess)
				FAIL(s, "request %d: send failed", i);
		barrier(s);
	}
	for (i = 0; i < MAX_INFLIGHT; i++) {
		buf_free(s, &sb[i], s->scomm);
		buf_free(s, &rb[i], s->rcomm);
	}
	printf("%s: %d x %d requests in flight both ways, checked\n", s->name,
		3, MAX_INFLIGHT);
}

/* A receive smaller than the message: ncclInvalidUsage; the comm goes on. */
static void
case_trunc(struct side *s)
{
	struct buf sb, rb;
	void *sr, *rr;
	nn_result_t rc;
	int got = -1;

	buf_new(s, &sb, 100000, false, s->scomm);
	buf_new(s, &rb, 100000, true, s->rcomm);
	if (s->role == 0) {
		fill(&sb, 100000, 5);
		post_send(s, s->scomm, &sb, 100000, 7, &sr);
		if (wait_req(s, sr, NULL) != nn_ncclSuccess)
			FAIL(s, "send of the oversized message failed");
		fill(&sb, 777, 6);
		post_send(s, s->scomm, &sb, 777, 8, &sr);
		if (wait_req(s, sr, NULL) != nn_ncclSuccess)
			FAIL(s, "send after the truncated one failed");
	} else {
		memset(rb.cpu, 0xee, 100000);
		post_recv(s, s->rcomm, &rb, 4096, 7, &rr);
		rc = wait_req(s, rr, &got);
		if (rc != nn_ncclInvalidUsage)
			FAIL(s, "truncated receive: test() returned %d, want ncclInvalidUsage (%d)",
				rc, nn_ncclInvalidUsage);
		check(s, &rb, 4096, 5, "truncated message's first bytes");
		if (rb.cpu[4096] != 0xee)
			FAIL(s, "truncated receive wrote past its 4096-byte buffer");
		post_recv(s, s->rcomm, &rb, 100000, 8, &rr);
		if (wait_req(s, rr, &got) != nn_ncclSuccess || got != 777)
			FAIL(s, "message after the truncated one: failed or %d bytes", got);
		check(s, &rb, 777, 6, "message after the truncated one");
	}
	barrier(s);
	buf_free(s, &sb, s->scomm);
	buf_free(s, &rb, s->rcomm);
	printf("%s: truncation reported as ncclInvalidUsage, stream kept in step\n",
		s->name);
}

/* Payload buffers free now (the plugin's region pool). */
static unsigned int
payload_free(struct side *s)
{
	struct rte_mempool *mp = rte_mempool_lookup("nn_payload");

	if (mp == NULL)
		FAIL(s, "no mempool nn_payload (the plugin's payload region)");
	return rte_mempool_avail_count(mp);
}

/*
 * Close every comm and the listener, then a second round of comms works;
 * in the end every payload buffer is back (chunks held by closed flows
 * included: B closes with a message it never received).
 */
static void
case_close(struct side *s)
{
	unsigned int before = payload_free(s), after = 0;
	struct buf sb;
	void *sr;
	double t0;
	int round;

	for (round = 0; round < 3; round++) {
		case_sizes(s, false, true, 65537);
		if (net_close(&s->net, s->scomm, 0) != nn_ncclSuccess ||
				net_close(&s->net, s->rcomm, 1) != nn_ncclSuccess ||
				net_close(&s->net, s->lcomm, 2) != nn_ncclSuccess)
			FAIL(s, "close calls failed");
		barrier(s);
		if (round < 2)
			connect_both(s);
	}
	/* A last comm pair: A sends 1 MiB that B never receives, both close. */
	connect_both(s);
	buf_new(s, &sb, 1 * MIB, false, s->scomm);
	if (s->role == 0)
		post_send(s, s->scomm, &sb, 1 * MIB, 1, &sr);
	usleep(300000);
	barrier(s);
	net_close(&s->net, s->scomm, 0);
	net_close(&s->net, s->rcomm, 1);
	net_close(&s->net, s->lcomm, 2);
	barrier(s);
	/*
	 * The software NIC keeps a receive stash of up to 64 payload buffers
	 * per queue (HSPLIT_STASH), refilled in bulk: the free count moves by
	 * that much without a leak. The message B never received is ~720
	 * buffers: a leak of it stays visible.
	 */
	for (t0 = now_s(); now_s() - t0 < 5; usleep(10000)) {
		after = payload_free(s);
		if (after + 64 >= before)
			break;
	}
	if (after + 64 < before)
		FAIL(s, "payload buffers leaked: %u free before, %u after closing",
			before, after);
	printf("%s: 3 rounds of listen/connect/accept/transfer/close; payload "
		"buffers free %u before, %u after\n", s->name, before, after);
}

/*
 * B is killed (SIGKILL, no FIN, no RST) while A sends to it and waits for
 * a message from it: A's requests must fail with a clear error, not hang.
 */
static void
case_kill(struct side *s)
{
	struct buf sb, rb;
	void *sr, *rr;
	nn_result_t rc1, rc2;
	double t0;

	buf_new(s, &sb, 64 * MIB, false, s->scomm);
	buf_new(s, &rb, 64 * MIB, false, s->rcomm);
	if (s->role == 1) {
		/* Receive nothing while A's send is under way, then die hard. */
		char go;

		xrecv(s, &go, 1);
		usleep(300000);
		raise(SIGKILL);
	}
	fill(&sb, 64 * MIB, 9);
	post_recv(s, s->rcomm, &rb, 64 * MIB, 1, &rr);
	post_send(s, s->scomm, &sb, 64 * MIB, 1, &sr);
	xsend(s, "g", 1);
	t0 = now_s();
	rc1 = wait_req(s, sr, NULL);
	rc2 = wait_req(s, rr, NULL);
	if (rc1 == nn_ncclSuccess || rc2 == nn_ncclSuccess)
		FAIL(s, "peer killed: send returned %d, receive %d (want errors)",
			rc1, rc2);
	printf("%s: peer killed: send -> %d, receive -> %d after %.1f s\n",
		s->name, rc1, rc2, now_s() - t0);
}

/*
 * Connect to a port the peer does not listen on: its stack answers RST,
 * connect() fails with ncclRemoteError (no hang, no comm).
 */
static void
case_refused(struct side *s)
{
	struct nn_handle_view { uint32_t magic, ipv4; uint16_t port; } *h;
	char handle[NN_HANDLE_MAXSIZE];
	void *sc = NULL;
	nn_result_t rc = nn_ncclSuccess;
	double t0 = now_s();

	if (s->role == 0) {
		memcpy(handle, s->peer_handle, sizeof(handle));
		h = (void *)handle;   /* the plugin's handle: magic, ipv4, port */
		h->port += 1000;
		while (rc == nn_ncclSuccess && sc == NULL && now_s() - t0 < 30) {
			rc = net_connect(&s->net, handle, &sc);
			usleep(100);
		}
		if (rc != nn_ncclRemoteError || sc != NULL)
			FAIL(s, "connect to a closed port: result %d, comm %p (want "
				"ncclRemoteError, no comm)", rc, sc);
		printf("%s: connect to a closed port: ncclRemoteError after %.3f s\n",
			s->name, now_s() - t0);
	}
	barrier(s);
}

static void pattern_stats(struct side *s, uint64_t *v);

/*
 * Not a test: A streams N messages of S bytes to B (4 in flight, as NCCL's
 * pipeline keeps several), device buffers; B prints goodput as JSON.
 * NCCL_HARNESS_BENCH="N S" (default "32 16777216").
 */
static void
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
 * A receive the peer answers only after 1.5 s ([nccl] stall_report = 500
 * ms in the test's configuration): the plugin must report it once, with
 * its flows' state (a hang would otherwise be silent), and still deliver.
 */
static void
case_stall(struct side *s)
{
	struct buf b;
	void *req;
	int got = -1;

	buf_new(s, &b, 65536, false, s->role == 0 ? s->rcomm : s->scomm);
	if (s->role == 1) {
		fill(&b, 65536, 5);
		usleep(1500000);
		post_send(s, s->scomm, &b, 65536, 7, &req);
		if (wait_req(s, req, NULL) != nn_ncclSuccess)
			FAIL(s, "stall: send failed");
	} else {
		post_recv(s, s->rcomm, &b, 65536, 7, &req);
		if (wait_req(s, req, &got) != nn_ncclSuccess || got != 65536)
			FAIL(s, "stall: receive failed (size %d)", got);
		check(s, &b, 65536, 5, "late message");
		if (stall_reports != 1)
			FAIL(s, "stall: %u stall reports for one late receive (want 1)",
				stall_reports);
		/* No request completed for 1.5 s: the watchdog told once. */
		if (__atomic_load_n(&watchdog_reports, __ATOMIC_RELAXED) != 1)
			FAIL(s, "stall: %u watchdog reports for one stall (want 1)",
				watchdog_reports);
		printf("%s: a receive pending 1.5 s was reported once (and by the "
			"watchdog once), then arrived\n", s->name);
	}
	barrier(s);
	buf_free(s, &b, s->role == 0 ? s->rcomm : s->scomm);
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
static void
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

static void
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

/* Every worker lcore (the plugin's stacks) in @p want's state. */
static bool
workers_in(enum rte_lcore_state_t want)
{
	unsigned int lc;

	RTE_LCORE_FOREACH_WORKER(lc)
		if (rte_eal_get_lcore_state(lc) != want)
			return false;
	return true;
}

/*
 * v11 finalize after the comms closed stops the stacks' lcores (NCCL then
 * unloads the plugin; nothing may keep polling) and logs the counters; a
 * new init starts them again and a new pair of comms carries data.
 */
static void
case_finalize(struct side *s)
{
	double t0;

	if (s->net.version < 11)
		FAIL(s, "finalize: v11 and later only");
	case_sizes(s, true, true, 1 * MIB);
	net_close(&s->net, s->scomm, 0);
	net_close(&s->net, s->rcomm, 1);
	net_close(&s->net, s->lcomm, 2);
	barrier(s);
	if (!workers_in(RUNNING))
		FAIL(s, "finalize: the stack lcores were not running before finalize");
	if (net_finalize(&s->net) != nn_ncclSuccess)
		FAIL(s, "finalize failed");
	if (!workers_in(WAIT))
		FAIL(s, "finalize: a stack lcore still runs after the last finalize");
	if (__atomic_load_n(&comm_summaries, __ATOMIC_RELAXED) < 2)
		FAIL(s, "finalize: %u comm summaries logged at close, want 2",
			comm_summaries);
	if (__atomic_load_n(&stack_reports, __ATOMIC_RELAXED) != 1)
		FAIL(s, "finalize: %u stack reports logged, want 1", stack_reports);
	/* run_harness.sh: NCCL_HARNESS_PROFILE=yes is [nccl] profile = yes. */
	if (getenv("NCCL_HARNESS_PROFILE") != NULL &&
			strcmp(getenv("NCCL_HARNESS_PROFILE"), "yes") == 0 &&
			__atomic_load_n(&profile_reports, __ATOMIC_RELAXED) != 1)
		FAIL(s, "finalize: %u loop profile reports of stack 0 with polls, want 1",
			profile_reports);
	barrier(s);
	if (net_init(&s->net, logger) != nn_ncclSuccess)
		FAIL(s, "init after finalize failed");
	for (t0 = now_s(); !workers_in(RUNNING); usleep(1000))
		if (now_s() - t0 > 5)
			FAIL(s, "finalize: init did not start the stack lcores again");
	connect_both(s);
	case_sizes(s, true, true, 1 * MIB);
}


/*
 * NCCL's three buffers on each receive comm (NCCL_HARNESS_UNPACK=1): LL,
 * LL128 and Simple registered in that order before the first receive, as
 * NCCL's recvProxyConnect does, then receives of all three protocols,
 * both ways. NCCL's kernel unpacks Simple receives only: LL and LL128
 * ones must land in their buffer (checked without any unpack) and take no
 * slot (else the next Simple receive reads the wrong slot and its bytes
 * fail the check). A user-buffer registration after the first receive
 * must be refused (NCCL then uses its own buffers).
 */
static void
case_protos(struct side *s)
{
	static const size_t sz[] = { 1000, 65537, 0, 1 * MIB + 3, 4096, 300000,
		2 * MIB, 77, 512 * 1024 };
	static const char *const pname[3] = { "LL", "LL128", "Simple" };
	const unsigned int n = sizeof(sz) / sizeof(sz[0]);
	struct buf sb, rb[3], ub;
	struct unpack_comm *uc;
	unsigned int i, simple = 0;

	if (s->net.up == NULL)
		FAIL(s, "protos: needs NCCL_HARNESS_UNPACK=1");
	buf_new(s, &sb, 4 * MIB, true, s->scomm);
	for (i = 0; i < 3; i++)
		buf_new(s, &rb[i], 4 * MIB + 8192, true, s->rcomm);
	uc = unpack_comm_of(s->net.up, s->rcomm);
	if (uc == NULL)
		FAIL(s, "protos: the receive comm has no device handle");
	uc->simple = rb[2].p;
	uc->simple_len = rb[2].len;
	for (i = 0; i < 3 * n; i++) {
		size_t len = sz[i % n];
		unsigned int pr = (i * 7 / 3) % 3;
		uint32_t seed = (uint32_t)(i * 31 + s->role * 5 + 3);
		uint32_t pseed = (uint32_t)(i * 31 + (1 - s->role) * 5 + 3);
		void *sr = NULL, *rr = NULL;
		int got = -1;

		memset(rb[pr].cpu, 0xee, len + 16);
		post_recv(s, s->rcomm, &rb[pr], len + 4096, (int)i, &rr);
		if (i == 0) {
			void *mh = NULL;

			buf_new_noreg(s, &ub, 4096, true);
			if (net_regmr(&s->net, s->rcomm, ub.p, 4096, NN_PTR_CUDA, &mh) ==
					nn_ncclSuccess)
				FAIL(s, "protos: a registration after the first receive "
					"was accepted on an unpack comm");
		}
		fill(&sb, len, seed);
		post_send(s, s->scomm, &sb, len, (int)i, &sr);
		if (wait_req(s, sr, NULL) != nn_ncclSuccess)
			FAIL(s, "protos: send of %zu bytes failed", len);
		if (wait_req(s, rr, &got) != nn_ncclSuccess || got != (int)len)
			FAIL(s, "protos: %s receive of %zu bytes failed (%d)", pname[pr],
				len, got);
		check(s, &rb[pr], len, pseed, pname[pr]);
		if (rb[pr].cpu[len] != 0xee)
			FAIL(s, "protos: byte past the %zu-byte %s message overwritten",
				len, pname[pr]);
		simple += pr == 2;
		barrier(s);
	}
	if (s->net.up->direct != 3 * n - simple || s->net.up->entries == 0)
		FAIL(s, "protos: %" PRIu64 " LL/LL128 receives seen, %" PRIu64
			" entries unpacked (want %u, some)", s->net.up->direct,
			s->net.up->entries, 3 * n - simple);
	printf("%s: %u receives both ways: %u Simple unpacked (%" PRIu64
		" entries), %" PRIu64 " LL/LL128 written in place\n", s->name, 3 * n,
		simple, s->net.up->entries, s->net.up->direct);
	buf_free(s, &sb, s->scomm);
	for (i = 0; i < 3; i++)
		buf_free(s, &rb[i], s->rcomm);
}

/*
 * NCCL's pipeline: 8 receives in flight per direction (NCCL_STEPS), each
 * slot reposted once its message was checked, 40 messages of mixed sizes
 * (zero bytes to 3 MiB + 5) both ways. In unpack mode the slots of the
 * comm's meta area wrap (40 > 16) and consumption lags (UNPACK_LAG).
 */
static void
case_pipe(struct side *s)
{
	static const size_t sz[] = { 0, 1, 4096, 65537, 1 * MIB, 3 * MIB + 5,
		12345, 2 * MIB };
	enum { SLOTS = 8 };
	const unsigned int nsz = sizeof(sz) / sizeof(sz[0]);
	const char *env = getenv("NCCL_HARNESS_PIPE_MSGS");
	int MSGS = env != NULL ? atoi(env) : 40;
	struct buf sb[SLOTS], rb[SLOTS];
	void *sr[SLOTS], *rr[SLOTS];
	int m, k, got;

	for (k = 0; k < SLOTS; k++) {
		buf_new(s, &sb[k], 4 * MIB, true, s->scomm);
		buf_new(s, &rb[k], 4 * MIB, true, s->rcomm);
	}
	for (m = 0; m < SLOTS; m++)
		post_recv(s, s->rcomm, &rb[m], 4 * MIB, m, &rr[m]);
	barrier(s);
	for (m = 0; m < SLOTS; m++) {
		fill(&sb[m], sz[m % nsz], (uint32_t)(m + s->role * 1000));
		post_send(s, s->scomm, &sb[m], sz[m % nsz], m, &sr[m]);
	}
	for (m = 0; m < MSGS; m++) {
		k = m % SLOTS;
		if (wait_req(s, rr[k], &got) != nn_ncclSuccess ||
				got != (int)sz[m % nsz])
			FAIL(s, "pipe: message %d: receive failed or wrong size (%d, "
				"want %zu)", m, got, sz[m % nsz]);
		check(s, &rb[k], sz[m % nsz], (uint32_t)(m + (1 - s->role) * 1000),
			"pipelined message");
		if (wait_req(s, sr[k], NULL) != nn_ncclSuccess)
			FAIL(s, "pipe: message %d: send failed", m);
		if (m + SLOTS >= MSGS)
			continue;
		post_recv(s, s->rcomm, &rb[k], 4 * MIB, m + SLOTS, &rr[k]);
		fill(&sb[k], sz[(m + SLOTS) % nsz], (uint32_t)(m + SLOTS + s->role * 1000));
		post_send(s, s->scomm, &sb[k], sz[(m + SLOTS) % nsz], m + SLOTS, &sr[k]);
	}
	barrier(s);
	for (k = 0; k < SLOTS; k++) {
		buf_free(s, &sb[k], s->scomm);
		buf_free(s, &rb[k], s->rcomm);
	}
	printf("%s: %d messages both ways, %d in flight, checked\n", s->name,
		MSGS, SLOTS);
}

/* NCCL_HARNESS_UNPACK=1: the plugin must offer unpack; the harness plays NCCL's kernel. */
static void
unpack_start(struct side *s, const struct nn_props_v12 *p)
{
	static struct unpack_state up;
	void *(*region_cpu)(void);

	if (p->netDeviceType != NN_NET_DEVICE_UNPACK ||
			p->netDeviceVersion != NN_NET_UNPACK_VERSION)
		FAIL(s, "unpack: the plugin offers netDeviceType %d version 0x%x "
			"(want %d, 0x%x): is [nccl] unpack = yes set?", p->netDeviceType,
			p->netDeviceVersion, NN_NET_DEVICE_UNPACK, NN_NET_UNPACK_VERSION);
	region_cpu = (void *(*)(void))dlsym(s->lib, "devtcp_nccl_region_cpu");
	if (region_cpu == NULL || (up.region_cpu = region_cpu()) == NULL)
		FAIL(s, "unpack: no CPU view of the payload region");
	up.skip = getenv("NCCL_HARNESS_UNPACK_SKIP") != NULL;
	if (getenv("NCCL_HARNESS_UNPACK_LAG") != NULL)
		up.lag = (unsigned int)RTE_MIN(strtoul(getenv("NCCL_HARNESS_UNPACK_LAG"),
			NULL, 0), 15ul);
	s->net.up = &up;
}

/* What the harness unpacked; a run that unpacked nothing did not test it. */
static void
unpack_report(struct side *s)
{
	if (s->net.up == NULL)
		return;
	if (unpack_consume_late(&s->net, 0) != nn_ncclSuccess)
		FAIL(s, "unpack: irecvConsumed failed");
	printf("%s: unpacked %" PRIu64 " entries, %" PRIu64 " bytes (NCCL's kernel, played)\n",
		s->name, s->net.up->entries, s->net.up->bytes);
	if (s->net.up->entries == 0 || s->net.up->bytes == 0)
		FAIL(s, "unpack: no receive went through the unpack entries");
}

/*
 * The profiler events of the whole case: from v10 on, every request posted
 * started some and (test() checked each one as it ended) no event stays
 * open, except where the case leaves requests unfinished.
 */
static void
netprof_report(struct side *s, const char *cas)
{
	uint64_t reqs, starts, stops;

	netprof_totals(&reqs, &starts, &stops);
	printf("%s: profiler: %" PRIu64 " requests posted with a phandle, %" PRIu64
		" events started, %" PRIu64 " stopped\n", s->name, reqs, starts, stops);
	if (s->net.version < 10)
		return;
	if (starts < reqs)
		FAIL(s, "profiler: %" PRIu64 " events for %" PRIu64 " requests (want "
			"at least one each)", starts, reqs);
	/* kill: B dies with its events open. */
	if (starts != stops && strcmp(cas, "kill") != 0)
		FAIL(s, "profiler: %" PRIu64 " events started, %" PRIu64 " stopped",
			starts, stops);
}

static void
child(int role, int sock, const char *plugin, const char *cas, const char *ver)
{
	struct side s = { .role = role, .sock = sock, .name = role ? "B" : "A" };
	char key[32];
	const char *v;
	struct nn_props_v12 p;

	snprintf(key, sizeof(key), "NCCL_HARNESS_CONFIG_%c", 'A' + role);
	if ((v = getenv(key)) == NULL)
		FAIL(&s, "%s not set", key);
	setenv("DEVTCP_NCCL_CONFIG", v, 1);
	snprintf(key, sizeof(key), "NCCL_HARNESS_EAL_%c", 'A' + role);
	if ((v = getenv(key)) != NULL)
		setenv("DEVTCP_NCCL_EAL", v, 1);
	open_plugin(&s, plugin, ver);
	if (net_init(&s.net, logger) != nn_ncclSuccess)
		FAIL(&s, "init failed");
	if (net_props(&s.net, &p) != nn_ncclSuccess || p.name == NULL ||
			!(p.ptrSupport & NN_PTR_HOST) || p.maxRecvs != 1 || p.speed <= 0)
		FAIL(&s, "getProperties: bad properties");
	/* v12: no [nccl] rail or plane in the harness's files: undefined. */
	if (p.railId != NN_NET_ID_UNDEF || p.planeId != NN_NET_ID_UNDEF ||
			(s.net.version >= 10 && (p.vProps.ndevs != 1 || p.vProps.devs[0] != 0)))
		FAIL(&s, "getProperties: rail %d plane %d, %d virtual device(s) (want "
			"-1, -1, device 0 alone)", p.railId, p.planeId, p.vProps.ndevs);
	printf("%s: %s plugin %s, ptrSupport 0x%x, speed %d, pciPath %s\n", s.name,
		ver, p.name, p.ptrSupport, p.speed, p.pciPath ? p.pciPath : "(none)");
	s.gpu = 0;
	if (rte_gpu_count_avail() == 0)
		FAIL(&s, "no gpudev device (the configuration should give gpu_sim)");
	if (getenv("NCCL_HARNESS_UNPACK") != NULL)
		unpack_start(&s, &p);
	connect_both(&s);
	if (strcmp(cas, "sizes") == 0)
		case_sizes(&s, false, false, 64 * MIB);
	else if (strcmp(cas, "sizes-dev") == 0)
		case_sizes(&s, true, false, 64 * MIB);
	else if (strcmp(cas, "bidir") == 0) {
		case_sizes(&s, true, true, 16 * MIB);
		spread_check(&s);
	}
	else if (strcmp(cas, "loss") == 0) {
		case_sizes(&s, true, true, 16 * MIB + 5);
		if (port_losses(&s) == 0)
			FAIL(&s, "loss case: the port dropped no frame (loss= not applied?)");
	}
	else if (strcmp(cas, "many") == 0)
		case_many(&s);
	else if (strcmp(cas, "trunc") == 0)
		case_trunc(&s);
	else if (strcmp(cas, "close") == 0)
		case_close(&s);
	else if (strcmp(cas, "kill") == 0)
		case_kill(&s);
	else if (strcmp(cas, "refused") == 0)
		case_refused(&s);
	else if (strcmp(cas, "bench") == 0)
		case_bench(&s);
	else if (strcmp(cas, "pattern") == 0)
		case_pattern(&s);
	else if (strcmp(cas, "stall") == 0)
		case_stall(&s);
	else if (strcmp(cas, "finalize") == 0)
		case_finalize(&s);
	else if (strcmp(cas, "pipe") == 0)
		case_pipe(&s);
	else if (strcmp(cas, "protos") == 0)
		case_protos(&s);
	else if (strcmp(cas, "sizes-unpack") == 0) {
		/* NCCL posts at most 4 MiB per receive in unpack mode. */
		case_sizes(&s, true, true, 2 * MIB);
		spread_check(&s);
	}
	else
		FAIL(&s, "unknown case %s", cas);
	unpack_report(&s);
	netprof_report(&s, cas);
	if (strcmp(cas, "close") != 0) {
		net_close(&s.net, s.scomm, 0);
		net_close(&s.net, s.rcomm, 1);
		net_close(&s.net, s.lcomm, 2);
		if (strcmp(cas, "kill") != 0)
			barrier(&s);
	}
	{
		void (*shutdown_fn)(void) = (void (*)(void))dlsym(s.lib,
			"devtcp_nccl_shutdown");

		if (shutdown_fn != NULL)
			shutdown_fn();
	}
	printf("PASS %s %s\n", s.name, cas);
	fflush(stdout);
	_exit(0);
}

int
main(int argc, char **argv)
{
	const char *ver = argc > 3 ? argv[3] : "v11";
	int sv[2], st, rc = 0, i;
	pid_t pid[2];

	if (argc < 3) {
		fprintf(stderr, "usage: %s PLUGIN CASE [v8|v10|v11|v12]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	/* For the kill case, B's end also reaches us: B says when to kill it. */
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			close(sv[1 - i]);
			child(i, sv[i], argv[1], argv[2], ver);
		}
	}
	close(sv[0]);
	close(sv[1]);
	for (i = 0; i < 2; i++) {
		if (waitpid(pid[i], &st, 0) < 0)
			return 1;
		if (i == 1 && strcmp(argv[2], "kill") == 0) {
			/* B must have died by the signal, not passed or failed. */
			if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
				fprintf(stderr, "process B was not killed (status 0x%x)\n", st);
				rc = 1;
			}
			continue;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "process %c failed (status 0x%x)\n", 'A' + i, st);
			rc = 1;
			if (strcmp(argv[2], "kill") != 0 || i == 0)
				kill(pid[1 - i], SIGKILL);
		}
	}
	return rc;
}
