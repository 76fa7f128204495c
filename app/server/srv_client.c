/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sender role ([client]): open the configured connections, push a
 * generated pattern stream (or a file) on each, close, and log the bytes and
 * SHA-256 sent, so that a receiver's log can be compared with it.
 *
 * Sends are by reference (dt_dp_send): a pattern connection owns a few host
 * buffers (slots) that are refilled once their send completed (DT_DP_EV_SENT
 * counts sends in order); a file is read once into hugepage memory and every
 * connection sends slices of it.
 *
 * With --send-device the file (or the pattern) is prepared once in a payload
 * region in device memory, written through the region's CPU alias as an
 * application would stage data on the GPU, and every send refers to device
 * addresses: the NIC gathers the payload with its copy engine, the CPU never
 * reads it on the send path (the SHA-256 logged is taken through the alias).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "dt_app_value.h"
#include "dt_devmem.h"
#include "dt_pattern.h"
#include "srv.h"

#define SRV_CLIENT_SLOTS 32

static int
load_file(struct srv_ctx *ctx)
{
	const char *path = ctx->cfg.client_file;
	struct stat sb;
	ssize_t n;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size == 0) {
		fprintf(stderr, "%s: [client] file: cannot read '%s': %s\n",
			ctx->cfg.path, path, fd < 0 ? strerror(errno) : "empty file");
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	ctx->send_buf = rte_malloc("srv_file", sb.st_size, 64);
	if (ctx->send_buf == NULL) {
		close(fd);
		fprintf(stderr, "no hugepage memory for '%s' (%zu bytes)\n", path,
			(size_t)sb.st_size);
		return -ENOMEM;
	}
	while (got < (size_t)sb.st_size &&
			(n = read(fd, ctx->send_buf + got, sb.st_size - got)) > 0)
		got += n;
	close(fd);
	ctx->send_buf_len = got;
	ctx->send_buf_iova = rte_malloc_virt2iova(ctx->send_buf);
	return got == (size_t)sb.st_size ? 0 : -EIO;
}

/* Largest multiple of a cache line a region buffer may be: buffers abut. */
#define SRV_SEND_BUF_SIZE 65472u

/*
 * --send-device: a region of abutting buffers used as one flat device
 * buffer of @p len bytes, filled from the file (or with the stream pattern)
 * through its CPU alias.
 */
static int
load_device(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	struct dt_devmem_region_conf rc = {
		.name = "srv_send",
		.gpu_id = ctx->gpu_id,
		.port_id = ctx->client_port_id,
		.buf_size = SRV_SEND_BUF_SIZE,
		.socket_id = SOCKET_ID_ANY,
	};
	struct stat sb;
	size_t len, got = 0, i;
	ssize_t n;
	int fd = -1, r;

	if (c->client_file[0] != '\0') {
		fd = open(c->client_file, O_RDONLY);
		if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size == 0) {
			fprintf(stderr, "%s: [client] file: cannot read '%s': %s\n",
				c->path, c->client_file,
				fd < 0 ? strerror(errno) : "empty file");
			if (fd >= 0)
				close(fd);
			return -EINVAL;
		}
		len = sb.st_size;
	} else {
		len = c->client_bytes ? c->client_bytes : 64ULL << 20;
	}
	rc.nb_bufs = (uint32_t)((len + SRV_SEND_BUF_SIZE - 1) / SRV_SEND_BUF_SIZE);
	r = dt_devmem_region_create(&rc, &ctx->send_region);
	if (r == 0) {
		ctx->send_alias = dt_devmem_region_cpu_map(ctx->send_region);
		if (ctx->send_alias == NULL)
			r = -rte_errno;
	}
	if (r != 0) {
		fprintf(stderr, "--send-device: no device buffer of %zu bytes on gpu "
			"'%s': %s\n", len, c->gpu, rte_strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (fd >= 0) {
		while (got < len && (n = read(fd, ctx->send_alias + got,
				len - got)) > 0)
			got += n;
		close(fd);
		if (got != len)
			return -EIO;
	} else {
		for (i = 0; i < len; i++)
			ctx->send_alias[i] = dt_pattern_byte((uint32_t)i);
	}
	ctx->send_buf = dt_devmem_region_base(ctx->send_region);
	ctx->send_buf_iova = RTE_BAD_IOVA;
	ctx->send_buf_len = len;
	SRV_LOG(INFO, "sender: %zu bytes staged in device memory (region %s, gpu "
		"'%s'), sent by reference", len,
		dt_devmem_region_name(ctx->send_region), c->gpu);
	return 0;
}

static int
open_conn(struct srv_stack *s, struct srv_stream *ss)
{
	const struct srv_ctx *ctx = s->app;
	const struct srv_config *c = &ctx->cfg;
	dt_dp_conn_t conn;
	int rc;

	memset(ss, 0, sizeof(*ss));
	ss->used = true;
	dt_app_sha256_init(&ss->sha);
	ss->to_send = ctx->send_buf != NULL && c->client_bytes == 0 ?
		ctx->send_buf_len : c->client_bytes ? c->client_bytes : 64ULL << 20;
	if (ctx->send_buf != NULL && ss->to_send > ctx->send_buf_len)
		ss->to_send = ctx->send_buf_len;
	if (ctx->send_buf == NULL) {
		ss->nslots = RTE_MIN(SRV_CLIENT_SLOTS, c->txq_cap);
		ss->slots = rte_malloc("srv_slots", (size_t)ss->nslots *
			c->client_chunk, 64);
		if (ss->slots == NULL)
			return -ENOMEM;
		ss->slots_iova = rte_malloc_virt2iova(ss->slots);
	}
	rc = dt_dp_connect(s->st, c->client_raddr, c->client_rport, ss, &conn);
	if (rc != 0)
		return rc;
	ss->conn = conn;
	return 0;
}

int
srv_client_start(struct srv_stack *s)
{
	struct srv_ctx *ctx = s->app;
	const struct srv_config *c = &ctx->cfg;
	unsigned int i;
	int rc;

	if (ctx->opts.send_device) {
		rc = load_device(ctx);
		if (rc != 0)
			return rc;
	} else if (c->client_file[0] != '\0') {
		rc = load_file(ctx);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < c->client_conns && i < s->nb_streams; i++) {
		rc = open_conn(s, &s->streams[i]);
		if (rc != 0) {
			fprintf(stderr, "sender: connect to port %u failed: %s\n",
				c->client_rport, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Queue sends until the slots, the send queue or the stream run out. */
static void
push(struct srv_stack *s, struct srv_stream *ss)
{
	const struct srv_ctx *ctx = s->app;
	uint32_t chunk = ctx->cfg.client_chunk;

	while (ss->queued < ss->to_send && !ss->fin_sent) {
		uint32_t len = RTE_MIN((uint64_t)chunk, ss->to_send - ss->queued);
		struct dt_dp_buf b = { .len = len, .device = false };
		uint32_t i;

		if (ss->slots != NULL) {
			if (ss->inflight >= ss->nslots)
				return;
			b.addr = ss->slots + (size_t)ss->next_slot * chunk;
			b.iova = ss->slots_iova + (size_t)ss->next_slot * chunk;
			for (i = 0; i < len; i++)
				((uint8_t *)b.addr)[i] =
					dt_pattern_byte((uint32_t)(ss->queued + i));
		} else {
			b.addr = ctx->send_buf + ss->queued;
			b.iova = ctx->send_buf_iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
				ctx->send_buf_iova + ss->queued;
			b.device = ctx->send_region != NULL;
		}
		if (dt_dp_send(s->st, ss->conn, &b) != 0)
			return; /* full: SENT events make room */
		/* Device bytes are hashed through the CPU alias (checking only). */
		dt_app_sha256_update(&ss->sha, b.device ? ctx->send_alias +
			ss->queued : (const uint8_t *)b.addr, len);
		ss->queued += len;
		ss->inflight++;
		if (ss->slots != NULL)
			ss->next_slot = (ss->next_slot + 1) % ss->nslots;
	}
	if (ss->queued == ss->to_send && !ss->fin_sent) {
		dt_dp_close(s->st, ss->conn);
		ss->fin_sent = true;
	}
}

/*
 * Why a stream that never connected failed, from the stack's counters:
 * the ARP request went unanswered, or the SYN did (nobody listening, or a
 * server on another wire: a loopback wire lives inside one process).
 */
static void
explain_no_connect(struct srv_stack *s, const struct srv_stream *ss)
{
	const struct srv_config *c = &s->app->cfg;
	struct dt_dp_stats st;
	char a[32];

	dt_dp_stats_get(s->st, &st);
	dt_app_ipv4_str(c->client_raddr, a, sizeof(a));
	if (st.arp_timeouts != 0 || (st.arp_requests != 0 && st.rx_arp == 0))
		SRV_LOG(ERR, "sender: no ARP reply from %s after %" PRIu64
			" request(s): nothing on the wire answers for it (a server "
			"on a loopback wire must run in this process: see "
			"config/loopback.ini)", a, st.arp_requests);
	else if (ss->err == ECONNREFUSED)
		SRV_LOG(ERR, "sender: %s:%u refused the connection (RST): nothing "
			"listens on that port", a, c->client_rport);
	else
		SRV_LOG(ERR, "sender: no SYN-ACK from %s:%u (%s)", a,
			c->client_rport, ss->err ? strerror(ss->err) : "no answer");
}

static void
finish(struct srv_stack *s, struct srv_stream *ss, bool ok)
{
	uint8_t d[DT_APP_SHA256_LEN];
	struct dt_dp_stats st;
	char hex[65];

	if (!ok && !ss->connected)
		explain_no_connect(s, ss);
	dt_app_sha256_final(&ss->sha, d);
	dt_app_sha256_hex(d, hex);
	SRV_LOG(INFO, "sender: stream %" PRIx64 " %s: %" PRIu64 " of %" PRIu64
		" bytes acknowledged, sha256 %s", ss->conn, ok ? "done" : "FAILED",
		ss->acked, ss->to_send, hex);
	dt_dp_stats_get(s->st, &st);
	SRV_LOG(INFO, "sender: stack TSO so far: %" PRIu64 " bursts, %" PRIu64
		" segments", st.tx_tso_bursts, st.tx_tso_segs);
	if (ok)
		s->cs.streams_ok++;
	else
		s->cs.streams_bad++;
	rte_free(ss->slots);
	ss->slots = NULL;
	ss->used = false; /* a later CLOSED finds it done */
}

void
srv_client_event(struct srv_stack *s, const struct dt_dp_event *ev)
{
	struct srv_stream *ss = ev->udata;

	if (ss == NULL || (!ss->used && ev->type != DT_DP_EV_DATA))
		return;
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		ss->connected = true;
		push(s, ss);
		break;
	case DT_DP_EV_SENT:
		ss->inflight -= ev->sent.count;
		ss->acked += ev->sent.bytes;
		s->cs.bytes += ev->sent.bytes;
		push(s, ss);
		break;
	case DT_DP_EV_DATA:
		dt_dp_release(s->st, ev->chunk.token);
		break;
	case DT_DP_EV_ERROR:
	case DT_DP_EV_RESET:
		SRV_LOG(ERR, "sender: stream %" PRIx64 " %s", ss->conn,
			ev->type == DT_DP_EV_RESET ? "reset by the server" :
			strerror(ev->err));
		if (ev->type == DT_DP_EV_ERROR)
			ss->err = ev->err;
		ss->to_send = 0;
		break;
	case DT_DP_EV_PEER_CLOSED:
		/* The server closed after our FIN: the stream is complete. */
		if (ss->fin_sent && ss->acked == ss->to_send)
			finish(s, ss, true);
		break;
	case DT_DP_EV_CLOSED:
		if (ss->used)
			finish(s, ss, ss->acked == ss->to_send && ss->to_send != 0);
		break;
	default:
		break;
	}
}

/*
 * A peer that never answers ARP: give up once the neighbour table has timed
 * out (3 requests, 1 s apart), as Linux's connect() fails with EHOSTUNREACH,
 * instead of retrying the SYN (and its ARP) for two minutes.
 */
void
srv_client_check_arp(struct srv_stack *s)
{
	struct dt_dp_stats st;
	unsigned int i;

	dt_dp_stats_get(s->st, &st);
	if (st.arp_timeouts == 0)
		return;
	for (i = 0; i < s->nb_streams; i++) {
		struct srv_stream *ss = &s->streams[i];

		if (!ss->used || ss->connected)
			continue;
		ss->err = EHOSTUNREACH;
		finish(s, ss, false);
		dt_dp_abort(s->st, ss->conn);
	}
}

bool
srv_client_done(const struct srv_stack *s)
{
	return s->cs.streams_ok + s->cs.streams_bad >= s->app->cfg.client_conns;
}
