/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the server does with received payload ([consumer] mode):
 *  - discard: count the chunk, give its buffer back at once;
 *  - verify: check every byte against the stream test pattern and/or hash
 *    the stream (SHA-256, logged on close). Device bytes are read through
 *    the region's CPU alias (verification code only: the zero-touch rule
 *    allows nothing else); without an alias, set-up falls back to discard;
 *  - ring: hand each chunk to the consumer lcore (the main lcore) through a
 *    ring, standing in for a GPU kernel; it hands the tokens back through a
 *    second ring, and the stack's lcore releases them (dt_dp_release must be
 *    called from the stack's lcore);
 *  - iperf3: iperf3's server (srv_iperf3.c), which takes the stack's events
 *    itself;
 *  - ingest: other processes take the streams (srv_ingest*.c), which takes
 *    the stack's events itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "dt_devmem.h"
#include "dt_pattern.h"
#include "srv.h"
#include "srv_ingest.h"
#include "srv_iperf3.h"

#define SRV_RING_BURST 64

int
srv_consumer_init(struct srv_stack *s)
{
	const struct srv_config *c = &s->app->cfg;
	char name[RTE_RING_NAMESIZE];

	if (c->consumer == SRV_CONSUMER_IPERF3)
		return srv_iperf3_init(s);
	if (c->consumer == SRV_CONSUMER_INGEST)
		return srv_ingest_stack_init(s);
	if (c->consumer != SRV_CONSUMER_RING)
		return 0;
	snprintf(name, sizeof(name), "srv_to_cons%u", s->queue);
	s->to_consumer = rte_ring_create(name, c->ring_size, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "srv_from_cons%u", s->queue);
	s->from_consumer = rte_ring_create(name, c->ring_size, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (s->to_consumer == NULL || s->from_consumer == NULL) {
		fprintf(stderr, "cannot create the consumer rings (%u entries): %s\n",
			c->ring_size, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

void
srv_consumer_fini(struct srv_stack *s)
{
	srv_consumer_poll(s);
	rte_ring_free(s->to_consumer);
	rte_ring_free(s->from_consumer);
	s->to_consumer = s->from_consumer = NULL;
}

static void
verify_bytes(struct srv_stack *s, struct srv_stream *ss, const uint8_t *p,
	uint32_t len)
{
	const struct srv_config *c = &s->app->cfg;
	uint32_t i, off = (uint32_t)ss->bytes;

	if (c->verify_pattern) {
		for (i = 0; i < len; i++)
			if (p[i] != dt_pattern_byte(off + i))
				ss->bad_bytes++;
		s->cs.verified_bytes += len;
	}
	if (c->verify_sha256)
		dt_app_sha256_update(&ss->sha, p, len);
}

void
srv_consumer_data(struct srv_stack *s, struct srv_stream *ss,
	const struct dt_dp_chunk *ch)
{
	const struct srv_ctx *ctx = s->app;

	s->cs.chunks++;
	s->cs.bytes += ch->len;
	if (ch->kind == DT_DP_CHUNK_DEVICE)
		s->cs.device_bytes += ch->len;
	else
		s->cs.host_bytes += ch->len;
	switch (ctx->cfg.consumer) {
	case SRV_CONSUMER_VERIFY:
		verify_bytes(s, ss, ch->kind == DT_DP_CHUNK_DEVICE ?
			(const uint8_t *)ctx->alias + ch->offset :
			(const uint8_t *)ch->addr, ch->len);
		break;
	case SRV_CONSUMER_RING:
		if (rte_ring_enqueue(s->to_consumer,
				(void *)(uintptr_t)ch->token) == 0) {
			ss->bytes += ch->len;
			return;
		}
		s->cs.ring_full++; /* the consumer lags: give the buffer back now */
		break;
	case SRV_CONSUMER_DISCARD:
	case SRV_CONSUMER_IPERF3: /* srv_iperf3_event() takes its chunks */
	case SRV_CONSUMER_INGEST: /* srv_ingest_event() takes its chunks */
		break;
	}
	ss->bytes += ch->len;
	dt_dp_release(s->st, ch->token);
}

void
srv_consumer_closed(struct srv_stack *s, struct srv_stream *ss)
{
	const struct srv_config *c = &s->app->cfg;
	uint8_t d[DT_APP_SHA256_LEN];
	char hex[65] = "-";
	bool ok = ss->bad_bytes == 0;
	double secs;

	if (c->consumer == SRV_CONSUMER_VERIFY && c->verify_sha256) {
		dt_app_sha256_final(&ss->sha, d);
		dt_app_sha256_hex(d, hex);
	}
	if (c->consumer == SRV_CONSUMER_VERIFY) {
		s->cs.bad_bytes += ss->bad_bytes;
		if (ok)
			s->cs.streams_ok++;
		else
			s->cs.streams_bad++;
	}
	secs = (double)(rte_rdtsc() - ss->start_tsc) / rte_get_tsc_hz();
	SRV_LOG(INFO, "stack %u: stream %" PRIx64 " closed: %" PRIu64 " bytes%s%s"
		"%s in %.3f s (%.3f Gb/s)", s->queue, ss->conn, ss->bytes,
		c->consumer == SRV_CONSUMER_VERIFY && c->verify_pattern ?
		(ok ? ", pattern ok" : ", PATTERN MISMATCH") : "",
		c->consumer == SRV_CONSUMER_VERIFY && c->verify_sha256 ?
		", sha256 " : "",
		c->consumer == SRV_CONSUMER_VERIFY && c->verify_sha256 ? hex : "",
		secs, secs > 0 ? ss->bytes * 8 / secs / 1e9 : 0);
}

/* Stack lcore: release the tokens the consumer is done with. */
void
srv_consumer_poll(struct srv_stack *s)
{
	void *tok[SRV_RING_BURST];
	unsigned int n, i;

	if (s->from_consumer == NULL)
		return;
	do {
		n = rte_ring_dequeue_burst(s->from_consumer, tok, SRV_RING_BURST, NULL);
		for (i = 0; i < n; i++)
			dt_dp_release(s->st, (uint64_t)(uintptr_t)tok[i]);
	} while (n == SRV_RING_BURST);
}

/*
 * Consumer lcore: take chunks, "consume" them (a GPU kernel would run on
 * the device addresses here), hand their tokens back.
 */
int
srv_consumer_lcore(void *arg)
{
	struct srv_stack *s = arg;
	void *tok[SRV_RING_BURST];
	unsigned int n, done;

	if (s->to_consumer == NULL)
		return 0;
	n = rte_ring_dequeue_burst(s->to_consumer, tok, SRV_RING_BURST, NULL);
	done = n == 0 ? 0 : rte_ring_enqueue_burst(s->from_consumer, tok, n, NULL);
	s->cs.ring_done += done;
	/* from_consumer has the size of to_consumer: it never refuses. */
	return 0;
}
