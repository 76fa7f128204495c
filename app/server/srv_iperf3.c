/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The iperf3 consumer (srv_iperf3.h): iperf3's control protocol on a devtcp
 * stack, as iperf3's server runs it (iperf_server_api.c, iperf_api.c):
 *
 *   client                                server
 *   connect, cookie (37 bytes)  ------->
 *                               <-------  PARAM_EXCHANGE
 *   parameters (JSON)           ------->
 *                               <-------  CREATE_STREAMS
 *   N data connections, each starting with the cookie
 *                               <-------  TEST_START, TEST_RUNNING
 *   data on the streams ... TEST_END ---->
 *                               <-------  EXCHANGE_RESULTS
 *   its results (JSON)          ------->
 *                               <-------  our results (JSON), DISPLAY_RESULTS
 *   IPERF_DONE, close           ------->
 *
 * State bytes are one signed byte; a JSON message is its length (4 bytes,
 * big endian) then its text. Stream ids follow iperf_add_stream(): 1, 3,
 * 4, 5... in the order the streams were created, which both ends agree on
 * because the client opens them one after the other.
 *
 * With -R (reverse) the server sends on the streams instead: every send
 * refers to one shared, never-written hugepage buffer, a few sends in
 * flight per stream, refilled on their completion (DT_DP_EV_SENT).
 *
 * What is sent goes by reference (dt_dp_send): every control connection
 * owns a small hugepage arena, written once per message and freed when the
 * stack reports the connection CLOSED (no mbuf references it any more).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "dt_devmem.h"
#include "srv.h"
#include "srv_iperf3.h"
#include "srv_iperf3_json.h"

/* Protocol constants (iperf3's iperf.h, iperf_api.h, iperf_api.h's errors). */
#define IP3_COOKIE_SIZE 37           /* 36 characters and a NUL */
#define IP3_TEST_START 1
#define IP3_TEST_RUNNING 2
#define IP3_TEST_END 4
#define IP3_PARAM_EXCHANGE 9
#define IP3_CREATE_STREAMS 10
#define IP3_SERVER_TERMINATE 11
#define IP3_CLIENT_TERMINATE 12
#define IP3_EXCHANGE_RESULTS 13
#define IP3_DISPLAY_RESULTS 14
#define IP3_IPERF_DONE 16
#define IP3_ACCESS_DENIED ((uint8_t)-1)
#define IP3_SERVER_ERROR ((uint8_t)-2)
#define IP3_IEPROTOCOL 131           /* i_errno: "protocol does not exist" */

/* iperf3 allows 128 parallel streams (MAX_STREAMS). */
#define IP3_MAX_STREAMS 128
/* Longest JSON message kept (the client's parameters are ~300 bytes). */
#define IP3_MSG_MAX 8192
/* Longest JSON message accepted at all (the rest of one above is skipped). */
#define IP3_MSG_LIMIT (1u << 20)
/* -R: bytes per send, and sends in flight per stream (2 MiB). */
#define IP3_SEND_LEN (64u * 1024)
#define IP3_SEND_DEPTH 32
/* Bytes a control connection sends in a whole test (results of 128 streams). */
#define IP3_TX_MAX (64u * 1024)

/* What a connection is to the test. */
enum ip3_role {
	IP3_CONTROL,   /* the test's control connection */
	IP3_PENDING,   /* accepted while streams are created: its cookie decides */
	IP3_DATA,      /* a stream of the running test: payload counted (or sent) */
	IP3_DRAIN,     /* done with: data released uncounted until it closes */
};

/* Where the test is (the server's view). */
enum ip3_phase {
	IP3_IDLE,      /* no test: the next connection is a control one */
	IP3_COOKIE,    /* reading the control connection's cookie */
	IP3_PARAMS,    /* PARAM_EXCHANGE sent: reading the parameters */
	IP3_STREAMS,   /* CREATE_STREAMS sent: taking data connections */
	IP3_RUNNING,   /* TEST_RUNNING sent: counting, until TEST_END */
	IP3_RESULTS,   /* EXCHANGE_RESULTS sent: reading the client's results */
	IP3_DISPLAY,   /* our results sent: waiting for IPERF_DONE */
};

struct ip3_stream;

/* One connection (the udata of every connection of the stack). */
struct ip3_conn {
	bool used;
	bool closing;                /* dt_dp_close() called */
	uint8_t role;                /* enum ip3_role */
	dt_dp_conn_t conn;
	uint32_t cookie_have;        /* PENDING: cookie bytes so far */
	char cookie[IP3_COOKIE_SIZE];
	struct ip3_stream *stream;   /* DATA (and DRAIN until the test ends) */
	uint32_t inflight;           /* -R: sends not completed yet */
	uint8_t *tx;                 /* CONTROL: what it sends, by reference */
	uint64_t tx_iova;
	uint32_t tx_used;
};

/* One stream of the test. */
struct ip3_stream {
	uint32_t id;                 /* iperf3's stream id */
	uint64_t bytes;              /* payload received (-R: queued) while the test ran */
	uint64_t retransmits;        /* -R: segments sent again, at TEST_END */
	struct ip3_conn *c;          /* NULL once its connection closed */
};

/* The mode's state on one stack. */
struct srv_iperf3 {
	struct ip3_conn *conns;      /* max_conns entries */
	uint32_t nb_conns;
	uint8_t *deny;               /* one ACCESS_DENIED byte, shared, never written again */
	uint64_t deny_iova;
	uint8_t *payload;            /* -R: what every send carries, never written again */
	uint64_t payload_iova;
	/* The test. */
	enum ip3_phase phase;
	struct ip3_conn *ctl;
	uint64_t number;             /* tests begun */
	char cookie[IP3_COOKIE_SIZE];
	uint32_t parallel;
	bool reverse;                /* -R: the server sends */
	double duration;             /* the client's -t, for the log */
	struct ip3_stream streams[IP3_MAX_STREAMS];
	uint32_t nb_streams;
	uint64_t start_tsc, end_tsc;
	/* Control reader: the message being read. */
	bool json_body;              /* its JSON text (else a fixed-size head) */
	uint32_t want, have;         /* its size, bytes read (stored up to IP3_MSG_MAX) */
	uint8_t msg[IP3_MSG_MAX + 1];
	char out[IP3_TX_MAX];        /* our results, being written */
};

/*
 * Control-plane parsing: the CPU reads the bytes of a control message or a
 * cookie. Device bytes are read through the payload region's CPU alias, as
 * verification code does; payload of a data connection never comes here.
 */
static const uint8_t *
ctl_bytes(const struct srv_stack *s, const struct dt_dp_chunk *ch)
{
	if (ch->kind == DT_DP_CHUNK_HOST)
		return ch->addr;
	return (const uint8_t *)s->app->alias + ch->offset;
}

static void
conn_close(struct srv_stack *s, struct ip3_conn *c)
{
	if (!c->closing) {
		c->closing = true;
		dt_dp_close(s->st, c->conn);
	}
}

/* Send @p len bytes on @p c from its arena (copied there: sends are by reference). */
static int
ctl_send(struct srv_stack *s, struct ip3_conn *c, const void *p, uint32_t len)
{
	struct dt_dp_buf b;
	int rc;

	if (c->tx == NULL || len > IP3_TX_MAX - c->tx_used) {
		SRV_LOG(ERR, "iperf3: control connection %" PRIx64 ": no room for "
			"a %u-byte message", c->conn, len);
		return -ENOSPC;
	}
	memcpy(c->tx + c->tx_used, p, len);
	b.addr = c->tx + c->tx_used;
	b.iova = c->tx_iova == RTE_BAD_IOVA ? RTE_BAD_IOVA : c->tx_iova + c->tx_used;
	b.len = len;
	b.device = false;
	rc = dt_dp_send(s->st, c->conn, &b);
	if (rc != 0) {
		SRV_LOG(ERR, "iperf3: control connection %" PRIx64 ": send failed: %s",
			c->conn, strerror(-rc));
		return rc;
	}
	/* Each message keeps its bytes until the connection closed. */
	c->tx_used += RTE_ALIGN_CEIL(len, 8);
	if (c->tx_used > IP3_TX_MAX)
		c->tx_used = IP3_TX_MAX;
	return 0;
}

static int
ctl_state(struct srv_stack *s, struct ip3_conn *c, uint8_t state)
{
	return ctl_send(s, c, &state, 1);
}

/* ACCESS_DENIED, as iperf3 answers a client while a test runs; then FIN. */
static void
deny(struct srv_stack *s, struct ip3_conn *c, const char *why)
{
	struct srv_iperf3 *ip = s->iperf3;
	struct dt_dp_buf b = {
		.addr = ip->deny, .iova = ip->deny_iova, .len = 1, .device = false,
	};

	SRV_LOG(INFO, "iperf3: connection %" PRIx64 " refused (ACCESS_DENIED): %s",
		c->conn, why);
	c->role = IP3_DRAIN;
	/* Half-close only: the client's cookie may still come, read nothing. */
	if (dt_dp_send(s->st, c->conn, &b) != 0 || dt_dp_shutdown(s->st, c->conn) != 0)
		conn_close(s, c);
}

static double
test_seconds(const struct srv_iperf3 *ip)
{
	uint64_t end = ip->end_tsc != 0 ? ip->end_tsc : rte_rdtsc();

	if (ip->start_tsc == 0)
		return 0;
	return (double)(end - ip->start_tsc) / rte_get_tsc_hz();
}

/*
 * The test is over (IPERF_DONE) or abandoned (@p why): close what is left
 * of it, and the next connection starts a new one.
 */
static void
test_finish(struct srv_stack *s, const char *why)
{
	struct srv_iperf3 *ip = s->iperf3;
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < ip->nb_streams; i++) {
		struct ip3_stream *st = &ip->streams[i];

		total += st->bytes;
		if (st->c != NULL) {
			/* Detached: the slot serves the next test. */
			st->c->stream = NULL;
			st->c->role = IP3_DRAIN;
			/*
			 * A finished test's streams were half-closed at TEST_END
			 * and close when the client's FIN comes: its socket
			 * buffers may still be draining, and a close now would
			 * answer that data with RST.
			 */
			if (why != NULL)
				conn_close(s, st->c);
			st->c = NULL;
		}
	}
	if (why != NULL)
		SRV_LOG(INFO, "iperf3: test %" PRIu64 " abandoned: %s (%u stream(s), "
			"%" PRIu64 " bytes received)", ip->number, why, ip->nb_streams,
			total);
	if (ip->ctl != NULL) {
		ip->ctl->role = IP3_DRAIN;
		conn_close(s, ip->ctl);
	}
	ip->ctl = NULL;
	ip->phase = IP3_IDLE;
}

/* Refuse the test as iperf3 refuses what it cannot do: SERVER_ERROR. */
static void
server_error(struct srv_stack *s, const char *why)
{
	struct srv_iperf3 *ip = s->iperf3;
	uint8_t m[9];
	uint32_t v;

	m[0] = IP3_SERVER_ERROR;
	v = htonl(IP3_IEPROTOCOL);       /* i_errno */
	memcpy(m + 1, &v, 4);
	v = htonl(EOPNOTSUPP);           /* errno */
	memcpy(m + 5, &v, 4);
	ctl_send(s, ip->ctl, m, sizeof(m));
	test_finish(s, why);
}

/* ------------------------------------------------------------ messages */

/* The client's parameters (@p len bytes of JSON in ip->msg). */
static void
on_params(struct srv_stack *s, uint32_t len)
{
	struct srv_iperf3 *ip = s->iperf3;
	struct ip3_params pr;

	if (len > IP3_MSG_MAX) {
		server_error(s, "parameters too long");
		return;
	}
	ip->msg[len] = '\0';
	if (srv_iperf3_parse_params((const char *)ip->msg, (const char *)ip->msg + len,
			&pr) != 0) {
		server_error(s, "parameters are not a JSON object");
		return;
	}
	if (pr.udp || pr.sctp) {
		server_error(s, "only TCP tests are supported (the client asked for "
			"UDP or SCTP)");
		return;
	}
	if (pr.bidir) {
		server_error(s, "bidirectional tests are not supported (the client "
			"asked for --bidir)");
		return;
	}
	if (pr.parallel < 1 || pr.parallel > IP3_MAX_STREAMS) {
		server_error(s, "parallel streams out of range");
		return;
	}
	ip->parallel = (uint32_t)pr.parallel;
	ip->reverse = pr.reverse;
	ip->duration = pr.time;
	SRV_LOG(INFO, "iperf3: test %" PRIu64 ": %u stream(s), TCP, %s "
		"sending, %.0f s", ip->number, ip->parallel,
		ip->reverse ? "server" : "client", ip->duration);
	if (ctl_state(s, ip->ctl, IP3_CREATE_STREAMS) != 0) {
		test_finish(s, "cannot send CREATE_STREAMS");
		return;
	}
	ip->phase = IP3_STREAMS;
}

/* Our results: what get_results() of the client needs, per stream. */
static void
send_results(struct srv_stack *s)
{
	struct srv_iperf3 *ip = s->iperf3;
	double secs = test_seconds(ip);
	size_t n, cap = sizeof(ip->out);
	uint64_t total = 0;
	uint32_t i, len;
	char *o = ip->out + 4;

	cap -= 8; /* the length and DISPLAY_RESULTS */
	n = snprintf(o, cap, "{\"cpu_util_total\":0,\"cpu_util_user\":0,"
		"\"cpu_util_system\":0,\"sender_has_retransmits\":%d,\"streams\":[",
		ip->reverse ? 1 : 0);
	for (i = 0; i < ip->nb_streams && n < cap; i++) {
		const struct ip3_stream *st = &ip->streams[i];

		total += st->bytes;
		n += snprintf(o + n, cap - n, "%s{\"id\":%u,\"bytes\":%" PRIu64
			",\"retransmits\":%" PRId64 ",\"jitter\":0,\"errors\":0,"
			"\"omitted_errors\":0,\"packets\":0,\"omitted_packets\":0,"
			"\"start_time\":0,\"end_time\":%.6f}", i == 0 ? "" : ",",
			st->id, st->bytes,
			ip->reverse ? (int64_t)st->retransmits : (int64_t)-1, secs);
	}
	if (n < cap)
		n += snprintf(o + n, cap - n, "]}");
	if (n >= cap) {
		test_finish(s, "results too long");
		return;
	}
	len = htonl((uint32_t)n);
	memcpy(ip->out, &len, 4);
	ip->out[4 + n] = (char)IP3_DISPLAY_RESULTS;
	SRV_LOG(INFO, "iperf3: test %" PRIu64 " done: %u stream(s), %" PRIu64
		" bytes %s in %.3f s (%.2f Gb/s)", ip->number, ip->nb_streams,
		total, ip->reverse ? "sent" : "received", secs,
		secs > 0 ? total * 8 / secs / 1e9 : 0);
	for (i = 0; i < ip->nb_streams; i++)
		SRV_LOG(INFO, "iperf3: test %" PRIu64 " stream %u: %" PRIu64 " bytes",
			ip->number, ip->streams[i].id, ip->streams[i].bytes);
	s->cs.streams_ok += ip->nb_streams;
	if (ctl_send(s, ip->ctl, ip->out, 4 + n + 1) != 0) {
		test_finish(s, "cannot send the results");
		return;
	}
	ip->phase = IP3_DISPLAY;
}

/* TEST_END: the counts freeze; the streams get our FIN (they send no more). */
static void
on_test_end(struct srv_stack *s)
{
	struct srv_iperf3 *ip = s->iperf3;
	uint32_t i;

	ip->end_tsc = rte_rdtsc();
	for (i = 0; i < ip->nb_streams; i++) {
		struct ip3_conn *c = ip->streams[i].c;
		struct dt_dp_conn_stats cst;

		if (c != NULL) {
			if (ip->reverse && dt_dp_conn_stats_get(s->st, c->conn,
					&cst) == 0)
				ip->streams[i].retransmits = cst.retransmits;
			c->role = IP3_DRAIN;
			if (!c->closing)
				dt_dp_shutdown(s->st, c->conn);
		}
	}
	if (ctl_state(s, ip->ctl, IP3_EXCHANGE_RESULTS) != 0) {
		test_finish(s, "cannot send EXCHANGE_RESULTS");
		return;
	}
	ip->phase = IP3_RESULTS;
	ip->json_body = false;
	ip->want = 4;
}

/* A state byte from the client. */
static void
on_state(struct srv_stack *s, uint8_t b)
{
	struct srv_iperf3 *ip = s->iperf3;
	char why[64];

	if (b == IP3_TEST_END && ip->phase == IP3_RUNNING) {
		on_test_end(s);
	} else if (b == IP3_IPERF_DONE && ip->phase == IP3_DISPLAY) {
		test_finish(s, NULL);
	} else if (b == IP3_CLIENT_TERMINATE) {
		test_finish(s, "the client terminated it");
	} else {
		snprintf(why, sizeof(why), "unexpected state %d from the client",
			(int8_t)b);
		test_finish(s, why);
	}
}

/* One whole message of the control connection is in ip->msg. */
static void
ctl_message(struct srv_stack *s)
{
	struct srv_iperf3 *ip = s->iperf3;
	uint32_t len;

	switch (ip->phase) {
	case IP3_COOKIE:
		memcpy(ip->cookie, ip->msg, IP3_COOKIE_SIZE);
		ip->cookie[IP3_COOKIE_SIZE - 1] = '\0';
		SRV_LOG(INFO, "iperf3: test %" PRIu64 ": control connection %" PRIx64
			", cookie %s", ip->number, ip->ctl->conn, ip->cookie);
		if (ctl_state(s, ip->ctl, IP3_PARAM_EXCHANGE) != 0) {
			test_finish(s, "cannot send PARAM_EXCHANGE");
			return;
		}
		ip->phase = IP3_PARAMS;
		ip->json_body = false;
		ip->want = 4;
		return;
	case IP3_PARAMS:
	case IP3_RESULTS:
		if (!ip->json_body) {
			memcpy(&len, ip->msg, 4);
			len = ntohl(len);
			if (len == 0 || len > IP3_MSG_LIMIT) {
				test_finish(s, "JSON message of a bad length");
				return;
			}
			ip->json_body = true;
			ip->want = len;
			return;
		}
		len = ip->want;
		ip->json_body = false;
		if (ip->phase == IP3_PARAMS) {
			ip->want = 1;
			on_params(s, len);
		} else {
			/* The client's own results: nothing in them we need. */
			ip->want = 1;
			send_results(s);
		}
		return;
	default:
		ip->want = 1;
		on_state(s, ip->msg[0]);
		return;
	}
}

/* Bytes of the control connection, in order, cut into messages. */
static void
ctl_feed(struct srv_stack *s, const uint8_t *p, uint32_t len)
{
	struct srv_iperf3 *ip = s->iperf3;
	struct ip3_conn *ctl = ip->ctl;

	while (len > 0 && ip->ctl == ctl && ip->phase != IP3_IDLE) {
		uint32_t n = RTE_MIN(len, ip->want - ip->have);

		if (ip->have < IP3_MSG_MAX)
			memcpy(ip->msg + ip->have, p,
				RTE_MIN(n, IP3_MSG_MAX - ip->have));
		ip->have += n;
		p += n;
		len -= n;
		if (ip->have == ip->want) {
			ctl_message(s);
			ip->have = 0;
		}
	}
}

/* ---------------------------------------------------------- connections */

/* -R: keep IP3_SEND_DEPTH sends in flight on a stream while the test runs. */
static void
stream_fill(struct srv_stack *s, struct ip3_conn *c)
{
	struct srv_iperf3 *ip = s->iperf3;
	struct dt_dp_buf b = {
		.addr = ip->payload, .iova = ip->payload_iova, .len = IP3_SEND_LEN,
		.device = false,
	};

	while (ip->phase == IP3_RUNNING && c->role == IP3_DATA &&
			c->stream != NULL && c->inflight < IP3_SEND_DEPTH) {
		if (dt_dp_send(s->st, c->conn, &b) != 0)
			return; /* full: the next SENT event refills */
		c->inflight++;
		c->stream->bytes += IP3_SEND_LEN;
	}
}

/* A data connection's cookie is complete: a stream of the test, or refused. */
static void
stream_join(struct srv_stack *s, struct ip3_conn *c)
{
	struct srv_iperf3 *ip = s->iperf3;
	struct ip3_stream *st;

	c->cookie[IP3_COOKIE_SIZE - 1] = '\0';
	if (ip->phase != IP3_STREAMS || strcmp(c->cookie, ip->cookie) != 0) {
		deny(s, c, "not a stream of the running test");
		return;
	}
	if (ip->nb_streams >= ip->parallel) {
		deny(s, c, "one stream more than the test asked for");
		return;
	}
	st = &ip->streams[ip->nb_streams++];
	/* iperf_add_stream(): the first stream is 1, the next ones 3, 4, ... */
	st->id = ip->nb_streams == 1 ? 1 : ip->nb_streams + 1;
	st->bytes = 0;
	st->retransmits = 0;
	st->c = c;
	c->stream = st;
	c->role = IP3_DATA;
	if (ip->nb_streams < ip->parallel)
		return;
	if (ctl_send(s, ip->ctl, (const uint8_t[]){ IP3_TEST_START,
			IP3_TEST_RUNNING }, 2) != 0) {
		test_finish(s, "cannot send TEST_START");
		return;
	}
	ip->start_tsc = rte_rdtsc();
	ip->phase = IP3_RUNNING;
	SRV_LOG(INFO, "iperf3: test %" PRIu64 " running: %u stream(s)",
		ip->number, ip->nb_streams);
	if (ip->reverse) {
		uint32_t i;

		for (i = 0; i < ip->nb_streams; i++)
			stream_fill(s, ip->streams[i].c);
	}
}

static void
on_accepted(struct srv_stack *s, dt_dp_conn_t conn)
{
	struct srv_iperf3 *ip = s->iperf3;
	struct ip3_conn *c = NULL;
	uint32_t i;

	for (i = 0; i < ip->nb_conns; i++)
		if (!ip->conns[i].used) {
			c = &ip->conns[i];
			break;
		}
	if (c == NULL || s->app->stop) {
		dt_dp_abort(s->st, conn);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->conn = conn;
	dt_dp_set_udata(s->st, conn, c);
	switch (ip->phase) {
	case IP3_IDLE:
		c->tx = rte_malloc("srv_iperf3_tx", IP3_TX_MAX, RTE_CACHE_LINE_SIZE);
		if (c->tx == NULL) {
			SRV_LOG(ERR, "iperf3: no hugepage memory for a control "
				"connection");
			c->role = IP3_DRAIN;
			conn_close(s, c);
			return;
		}
		c->tx_iova = rte_malloc_virt2iova(c->tx);
		c->role = IP3_CONTROL;
		ip->ctl = c;
		ip->number++;
		ip->phase = IP3_COOKIE;
		ip->json_body = false;
		ip->want = IP3_COOKIE_SIZE;
		ip->have = 0;
		ip->nb_streams = 0;
		ip->parallel = 0;
		ip->start_tsc = ip->end_tsc = 0;
		SRV_LOG(INFO, "iperf3: test %" PRIu64 ": client connected "
			"(connection %" PRIx64 ")", ip->number, conn);
		break;
	case IP3_STREAMS:
		c->role = IP3_PENDING;
		break;
	default:
		deny(s, c, "a test is running");
		break;
	}
}

static void
on_data(struct srv_stack *s, struct ip3_conn *c, const struct dt_dp_chunk *ch)
{
	struct srv_iperf3 *ip = s->iperf3;
	uint32_t n, off = 0;

	s->cs.chunks++;
	s->cs.bytes += ch->len;
	if (ch->kind == DT_DP_CHUNK_DEVICE)
		s->cs.device_bytes += ch->len;
	else
		s->cs.host_bytes += ch->len;
	if (c == NULL)
		goto out;
	if (c->role == IP3_CONTROL && c == ip->ctl) {
		ctl_feed(s, ctl_bytes(s, ch), ch->len);
		goto out;
	}
	if (c->role == IP3_PENDING) {
		n = RTE_MIN(ch->len, IP3_COOKIE_SIZE - c->cookie_have);
		memcpy(c->cookie + c->cookie_have, ctl_bytes(s, ch), n);
		c->cookie_have += n;
		off = n;
		if (c->cookie_have == IP3_COOKIE_SIZE)
			stream_join(s, c);
	}
	/* Payload after the cookie: counted, never read. */
	if (c->role == IP3_DATA && c->stream != NULL && !ip->reverse)
		c->stream->bytes += ch->len - off;
out:
	dt_dp_release(s->st, ch->token);
}

static void
on_closed(struct srv_stack *s, struct ip3_conn *c)
{
	struct srv_iperf3 *ip = s->iperf3;

	c->closing = true; /* its id is stale now */
	if (c == ip->ctl)
		test_finish(s, "the control connection closed");
	if (c->stream != NULL)
		c->stream->c = NULL;
	/* No mbuf references the arena once the connection is CLOSED. */
	rte_free(c->tx);
	memset(c, 0, sizeof(*c));
}

void
srv_iperf3_event(struct srv_stack *s, const struct dt_dp_event *ev)
{
	struct srv_iperf3 *ip = s->iperf3;
	struct ip3_conn *c = ev->udata;

	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		on_accepted(s, ev->conn);
		break;
	case DT_DP_EV_DATA:
		on_data(s, c, &ev->chunk);
		break;
	case DT_DP_EV_PEER_CLOSED:
		if (c == NULL)
			break;
		if (c == ip->ctl)
			test_finish(s, "the client closed the control connection");
		conn_close(s, c);
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		SRV_LOG(INFO, "iperf3: connection %" PRIx64 " %s (%s)", ev->conn,
			ev->type == DT_DP_EV_RESET ? "reset by peer" : "failed",
			ev->type == DT_DP_EV_ERROR ? strerror(ev->err) : "RST");
		if (c != NULL && c == ip->ctl)
			test_finish(s, "the control connection failed");
		break;
	case DT_DP_EV_SENT:
		if (c != NULL) {
			c->inflight -= RTE_MIN(c->inflight, ev->sent.count);
			stream_fill(s, c);
		}
		break;
	case DT_DP_EV_CLOSED:
		if (c != NULL)
			on_closed(s, c);
		break;
	default:
		break;
	}
}

int
srv_iperf3_init(struct srv_stack *s)
{
	struct srv_ctx *ctx = s->app;
	struct srv_iperf3 *ip;

	if (ctx->alias == NULL)
		ctx->alias = dt_devmem_region_cpu_map(ctx->region);
	if (ctx->alias == NULL) {
		fprintf(stderr, "%s: [consumer] mode = iperf3 reads iperf3's control "
			"messages through a CPU alias of the payload region, and gpu "
			"'%s' cannot map its memory for the CPU (%s): use another "
			"consumer mode or a device with a CPU mapping\n",
			ctx->cfg.path, ctx->cfg.gpu, rte_strerror(rte_errno));
		return -ENOTSUP;
	}
	ip = rte_zmalloc("srv_iperf3", sizeof(*ip), RTE_CACHE_LINE_SIZE);
	if (ip != NULL) {
		ip->nb_conns = ctx->cfg.max_conns;
		ip->conns = calloc(ip->nb_conns, sizeof(*ip->conns));
		ip->deny = rte_malloc("srv_iperf3_deny", RTE_CACHE_LINE_SIZE,
			RTE_CACHE_LINE_SIZE);
		/* Zeros, as iperf3 -Z would send; nobody reads them. */
		ip->payload = rte_zmalloc("srv_iperf3_payload", IP3_SEND_LEN,
			RTE_CACHE_LINE_SIZE);
	}
	if (ip == NULL || ip->conns == NULL || ip->deny == NULL ||
			ip->payload == NULL) {
		fprintf(stderr, "iperf3 consumer: out of memory\n");
		if (ip != NULL) {
			free(ip->conns);
			rte_free(ip->deny);
			rte_free(ip->payload);
		}
		rte_free(ip);
		return -ENOMEM;
	}
	ip->deny[0] = IP3_ACCESS_DENIED;
	ip->deny_iova = rte_malloc_virt2iova(ip->deny);
	ip->payload_iova = rte_malloc_virt2iova(ip->payload);
	s->iperf3 = ip;
	return 0;
}

void
srv_iperf3_fini(struct srv_stack *s)
{
	struct srv_iperf3 *ip = s->iperf3;
	uint32_t i;

	if (ip == NULL)
		return;
	for (i = 0; i < ip->nb_conns; i++)
		rte_free(ip->conns[i].tx);
	free(ip->conns);
	rte_free(ip->deny);
	rte_free(ip->payload);
	rte_free(ip);
	s->iperf3 = NULL;
}
