/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ingest_take: a C client of devtcp-server's ingest mode (dt_client.h), for
 * the tests and as an example. It takes the streams of one listen port,
 * hashes each through the region's CPU alias (gpu_sim) and prints one line
 * per stream event:
 *   open STREAM offset O
 *   stream STREAM offset O bytes B sha256 H      (FIN)
 *   reset STREAM offset O bytes B err E
 *
 * usage: ingest_take SOCKET PORT [--quota N] [--streams N] [--timeout SEC]
 *                    [--hold] [--die-after BYTES] [--name NAME]
 *   --hold          keep every token until SIGUSR1 (flow control test)
 *   --die-after B   SIGKILL itself after B payload bytes
 *   --hostile       right after attaching, before it holds anything, write
 *                   random tokens into every token ring and then an index
 *                   far past the ring (what a broken or hostile client can
 *                   do to shared memory); then take its streams normally
 * Exit: 0 when --streams streams ended, 2 on timeout, 3 refused (the
 * reason on stderr as "refused: CODE MESSAGE"), 4 the server went away.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dt_app_sha256.h"
#include "dt_client.h"
#include "dt_client_priv.h"

#define MAX_STREAMS 256
#define BURST 64

struct stream {
	uint64_t id;
	uint64_t offset, bytes;
	struct dt_app_sha256 sha;
	bool used;
};

static volatile sig_atomic_t release_now;

static void
on_usr1(int sig)
{
	(void)sig;
	release_now = 1;
}

static struct stream *
find(struct stream *t, uint64_t id, bool create)
{
	int i;

	for (i = 0; i < MAX_STREAMS; i++)
		if (t[i].used && t[i].id == id)
			return &t[i];
	for (i = 0; create && i < MAX_STREAMS; i++)
		if (!t[i].used) {
			memset(&t[i], 0, sizeof(t[i]));
			t[i].used = true;
			t[i].id = id;
			dt_app_sha256_init(&t[i].sha);
			return &t[i];
		}
	return NULL;
}

/*
 * Scribble on the token rings behind the library's back: 1000 random
 * tokens per ring, then an index 10 rings ahead. The server must count
 * them and go on; this client holds nothing yet, so nothing of its own is
 * given back by mistake.
 */
static void
hostile(struct dt_client *c)
{
	uint32_t i, k, n = c->w.ring_size;

	srand((unsigned int)getpid());
	for (i = 0; i < c->w.nb_stacks; i++) {
		struct dt_client_pair *p = &c->pairs[i];

		for (k = 0; k < 1000; k++) {
			p->tok[p->tok_head & (n - 1)] = (uint32_t)rand();
			p->tok_head++;
			if ((k + 1) % (n / 2) == 0)
				__atomic_store_n(&p->tok_idx->head, p->tok_head,
					__ATOMIC_RELEASE);
		}
		__atomic_store_n(&p->tok_idx->head, p->tok_head, __ATOMIC_RELEASE);
		usleep(20000);
		p->tok_head += 10 * n;
		__atomic_store_n(&p->tok_idx->head, p->tok_head, __ATOMIC_RELEASE);
	}
	printf("hostile: scribbled on %u token rings\n", c->w.nb_stacks);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
usage(const char *p)
{
	fprintf(stderr, "usage: %s SOCKET PORT [--quota N] [--streams N] [--timeout SEC] [--hold] [--hostile] [--die-after BYTES] [--name NAME]\n", p);
	exit(1);
}

/* One event; returns 1 when a stream ended. */
static int
on_chunk(struct dt_client *c, struct stream *t, const struct dt_client_chunk *ch,
	const uint8_t *alias)
{
	uint8_t d[DT_APP_SHA256_LEN];
	char hex[65];
	struct stream *s = find(t, ch->stream, ch->kind == DT_CLIENT_OPEN);

	(void)c;
	if (s == NULL)
		return 0;
	switch (ch->kind) {
	case DT_CLIENT_OPEN:
		s->offset = ch->stream_offset;
		printf("open %" PRIx64 " offset %" PRIu64 "%s\n", ch->stream,
			s->offset, ch->reoffered ? " reoffered" : "");
		return 0;
	case DT_CLIENT_DATA:
		dt_app_sha256_update(&s->sha, ch->host ? ch->addr :
			alias + ch->offset, ch->len);
		s->bytes += ch->len;
		return 0;
	case DT_CLIENT_FIN:
		dt_app_sha256_final(&s->sha, d);
		dt_app_sha256_hex(d, hex);
		printf("stream %" PRIx64 " offset %" PRIu64 " bytes %" PRIu64 " sha256 %s\n",
			ch->stream, s->offset, s->bytes, hex);
		s->used = false;
		return 1;
	default:
		printf("reset %" PRIx64 " offset %" PRIu64 " bytes %" PRIu64 " err %d\n",
			ch->stream, s->offset, s->bytes, ch->err);
		s->used = false;
		return 1;
	}
}

int
main(int argc, char **argv)
{
	static struct stream t[MAX_STREAMS];
	static struct dt_client_chunk held[1 << 16];
	struct dt_client_conf conf = { 0 };
	struct dt_client_chunk ch[BURST];
	struct dt_client_error err;
	struct dt_client_stats st;
	struct dt_client *c;
	uint64_t total = 0, die_after = 0;
	unsigned int want = 1, ended = 0, nheld = 0;
	double timeout = 60, t0;
	bool hold = false, bad = false;
	const uint8_t *alias;
	int i, n, rc = 2;

	if (argc < 3)
		usage(argv[0]);
	conf.path = argv[1];
	conf.port = (uint16_t)atoi(argv[2]);
	for (i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--hold") == 0)
			hold = true;
		else if (strcmp(argv[i], "--hostile") == 0)
			bad = true;
		else if (i + 1 >= argc)
			usage(argv[0]);
		else if (strcmp(argv[i], "--quota") == 0)
			conf.quota = (uint32_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "--streams") == 0)
			want = (unsigned int)atoi(argv[++i]);
		else if (strcmp(argv[i], "--timeout") == 0)
			timeout = atof(argv[++i]);
		else if (strcmp(argv[i], "--die-after") == 0)
			die_after = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--name") == 0)
			conf.name = argv[++i];
		else
			usage(argv[0]);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGUSR1, on_usr1);
	if (dt_client_attach(&conf, &c, &err) != 0) {
		fprintf(stderr, "refused: %d %s\n", err.code, err.message);
		return 3;
	}
	dt_client_stats_get(c, &st);
	alias = dt_client_cpu_alias(c);
	printf("attached id %u stacks %u quota %u mem %s len %" PRIu64 "\n",
		st.client_id, st.nb_stacks, st.ring_size,
		dt_client_mem(c) == DT_CLIENT_MEM_CPU ? "cpu" : "cuda",
		dt_client_region_len(c));
	if (bad)
		hostile(c);
	if (alias == NULL) {
		fprintf(stderr, "the region has no CPU alias here: cannot hash\n");
		dt_client_detach(c);
		return 1;
	}
	t0 = now_s();
	while (ended < want && now_s() - t0 < timeout) {
		/* Batches as a GPU consumer takes them (the call spins a little). */
		n = dt_client_poll_batch(c, ch, BURST, BURST / 4, 100);
		if (n == -ESHUTDOWN) {
			printf("server gone\n");
			rc = 4;
			break;
		}
		for (i = 0; i < n; i++) {
			ended += on_chunk(c, t, &ch[i], alias);
			if (ch[i].kind != DT_CLIENT_DATA)
				continue;
			total += ch[i].len;
			if (hold && nheld < sizeof(held) / sizeof(held[0]))
				held[nheld++] = ch[i];
			else
				dt_client_release(c, &ch[i], 1);
		}
		if (die_after != 0 && total >= die_after) {
			printf("dying after %" PRIu64 " bytes\n", total);
			raise(SIGKILL);
		}
		if (release_now && nheld > 0) {
			printf("releasing %u held chunks\n", nheld);
			for (i = 0; i < (int)nheld; i += BURST)
				dt_client_release(c, &held[i],
					(uint16_t)(nheld - i < BURST ? nheld - i : BURST));
			nheld = 0;
			hold = false;
		}
		if (n == 0)
			usleep(50);
	}
	if (ended >= want)
		rc = 0;
	dt_client_stats_get(c, &st);
	printf("done: %u streams ended, %" PRIu64 " chunks, %" PRIu64 " bytes, %" PRIu64
		" host bytes, %u held\n", ended, st.chunks, st.bytes, st.host_bytes, st.held);
	dt_client_detach(c);
	return rc;
}
