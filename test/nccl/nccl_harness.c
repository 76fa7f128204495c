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

#include "nccl_harness.h"
#include "nccl_net.h"
#include "nccl_netprof.h"
#include "nn_abi.h"
#include "nn_stats.h"

/* Stall reports the plugin logged (lines with "pending for"); stall case. */
unsigned int stall_reports;
/* Comm summaries ("... closed: N requests, ...") and finalize reports. */
unsigned int comm_summaries, stack_reports;
/* [nccl] profile reports of stack 0's loop with a poll count above 0. */
unsigned int profile_reports;
/* The plugin's watchdog ("watchdog: N requests outstanding, none completed"). */
unsigned int watchdog_reports;

void
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

double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------ peer messages */

void
xsend(struct side *s, const void *b, size_t n)
{
	if (write(s->sock, b, n) != (ssize_t)n)
		FAIL(s, "bootstrap write: %s", strerror(errno));
}

void
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

void
barrier(struct side *s)
{
	char c = 'b';

	xsend(s, &c, 1);
	xrecv(s, &c, 1);
}

/* ------------------------------------------------------------ buffers */

/* A buffer of @p len bytes, host or gpu_sim, not registered. */
void
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

void
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

void
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

void
fill(struct buf *b, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		b->cpu[i] = pat(seed, i);
}

void
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

void
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
nn_result_t
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

void
post_send(struct side *s, void *comm, struct buf *b, size_t len, int tag,
	void **req)
{
	*req = NULL;
	while (*req == NULL)
		if (net_isend(&s->net, comm, b->p, len, tag, b->mh, req) != nn_ncclSuccess)
			FAIL(s, "isend(%zu) failed", len);
}

void
post_recv(struct side *s, void *comm, struct buf *b, size_t room, int tag,
	void **req)
{
	*req = NULL;
	while (*req == NULL)
		if (p_irecv(&s->net, comm, b->p, room, tag, b->mh, req) != nn_ncclSuccess)
			FAIL(s, "irecv(%zu) failed", room);
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

