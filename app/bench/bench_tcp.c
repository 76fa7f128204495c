/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP modes of devtcp-bench: N connections from client stacks (lib/dp)
 * on port 0 to server stacks on port 1, over whatever wire joins them.
 *
 * split - port 1 splits every frame: headers in hugepage mbufs, payload in
 *         the payload region (device memory), delivered as DEVICE chunks.
 *         The CPU never reads or copies payload (--verify reads it through
 *         the region's CPU alias, or checks it with a kernel on the GPU).
 * copy  - the same stacks, port 1 without split: whole frames in host mbufs,
 *         delivered as HOST chunks; the bench copies each into device memory
 *         (the landing region) with the region's copy engine and releases
 *         the chunk once its copy has landed. The bounce-buffer baseline.
 * In both, a HOST chunk (payload the NIC left in a header buffer) is copied
 * the same way: the receiver lands every payload byte in device memory, and
 * what it had to copy is counted.
 *
 * Lcores: with one, every stack is polled in turn on it; otherwise S server
 * stacks (one queue pair of port 1 each, RSS across them) run on the first
 * S lcores, main first, and C client stacks on the next C: by default
 * S = C = half the lcores; with --stacks, S as asked and C = min(S, lcores
 * left). The main lcore also prints progress and keeps the clock.
 *
 * Streams: byte o of a connection is byte (start + o) % BENCH_TCP_PAT_LEN
 * of a pattern buffer whose byte i is dt_pattern_byte(i); start depends on
 * the client's local port, so both ends derive it with no shared state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "bench.h"
#include "dt_dp.h"
#include "dt_dp_port.h"

#define BT_CLI_IP RTE_IPV4(10, 0, 0, 1)
#define BT_SRV_IP RTE_IPV4(10, 0, 0, 2)
#define BT_SRV_PORT 5001
#define BT_EV_BATCH 64
#define BT_COPY_BATCH 128        /* HOST chunks copied per engine batch */
#define BT_MAX_STACKS BENCH_MAX_STACKS /* per side */
#define BT_NB_DESC 2048          /* RX/TX descriptors per queue */
#define BT_VERIFY_HOLD (BT_NB_DESC / 8) /* held chunks that trigger a check */
#define BT_DRAIN_S 10            /* after --duration: most seconds to finish */

/* One connection as the bench sees it (client or server end). */
struct bt_conn {
	dt_dp_conn_t id;
	uint32_t start;          /* pattern offset of stream byte 0 */
	uint64_t total;          /* client: bytes to send (UINT64_MAX: until stopped) */
	uint64_t queued, acked;  /* client */
	uint64_t rx;             /* server: bytes delivered */
	uint64_t rtx;            /* client: retransmits counted so far */
	bool connected, shut, peer_closed, closed, failed;
};

struct bt_run;

/* One stack and the connections on it; touched by its lcore only. */
struct bt_side {
	struct bt_run *run;
	struct dt_dp_stack *st;
	bool server;
	struct bt_conn *conns;
	uint32_t cap;            /* slots in conns[] */
	uint32_t nb;             /* opened (client) / accepted (server) */
	uint32_t to_open;        /* client: connections this stack opens */
	uint32_t nb_connected, nb_shut;
	uint64_t next_sample;    /* client: TSC of the next retransmit sample */
	/* Server: verification and the copies of HOST chunks. */
	struct bench_verifier *ver_rx;   /* DEVICE chunks, in the RX region */
	struct bench_verifier *ver_land; /* landed copies, in the landing region */
	struct bench_result vres;        /* where both verifiers account */
	struct dt_copy_chan *ch;
	uint32_t nops, nvs;
	/* This stack's slice of the landing region (stacks never share one). */
	uintptr_t land_base;
	size_t land_len;
	uint64_t land_off;
	struct dt_copy_op ops[BT_COPY_BATCH];
	uint64_t tok[BT_COPY_BATCH];
	struct bench_vseg vs[2 * BT_COPY_BATCH]; /* a chunk may wrap the pattern */
	/* Counters, read by the main lcore for the progress line. */
	volatile uint64_t rx_bytes, frames, retransmits;
	uint64_t cycles;         /* server: poll work that received or handled something */
	uint64_t device_bytes, host_bytes, copy_errors, errors;
};

/* State of one run, shared by its lcores. */
struct bt_run {
	const struct bench_tcp_env *env;
	enum bench_mode mode;
	uint32_t conns;
	uint16_t nsrv, ncli;     /* server and client stacks */
	uint64_t hz, t0, t_stop, t_eof, t_next_print;
	struct bench_result *res;  /* the run's samples go there (main lcore) */
	struct bench_sampler sp;   /* where the next sample starts */
	uint8_t *tx_base;        /* the send pattern: host or device address */
	uint64_t tx_iova;
	bool tx_device;
	uintptr_t land_base;
	size_t land_len;
	volatile bool stop_sending, abort;
	uint32_t cli_closed, srv_accepted, srv_closed, srv_eof; /* __atomic */
	struct bt_side sides[2 * BT_MAX_STACKS];
	unsigned int lcore_of[2 * BT_MAX_STACKS]; /* the lcore polling each side */
	struct dt_dp_port_rss srss; /* the server port's RSS (several server stacks) */
	bool srss_ok;
	unsigned int nb_sides;
};

/* What one lcore polls. */
struct bt_lcore {
	struct bt_run *run;
	struct bt_side *sides[2 * BT_MAX_STACKS];
	unsigned int nb;
	bool main;
};

static inline uint32_t
bt_start(uint16_t client_port)
{
	return (uint32_t)((client_port * 7919u) % BENCH_TCP_PAT_LEN);
}

/* Hand [addr, addr + len) at pattern position @p pos to @p v, split where the pattern wraps. */
static void
bt_verify_range(struct bench_verifier *v, uintptr_t addr, uint32_t len,
	uint32_t pos)
{
	uint32_t n;

	while (len != 0) {
		n = RTE_MIN(len, BENCH_TCP_PAT_LEN - pos);
		bench_verify_add(v, addr, n, pos);
		addr += n;
		len -= n;
		pos = 0;
	}
}

/* Verifier callback: the checked chunks go back to the stack. */
static void
bt_release_tokens(void *arg, const uint64_t *tok, uint32_t n)
{
	struct bt_side *s = arg;
	uint32_t i;

	for (i = 0; i < n; i++)
		dt_dp_release(s->st, tok[i]);
}

/* ------------------------------------------------------------- server */

/*
 * Copy the queued HOST chunks into the landing region, wait for them to
 * land, release them, then hand the landed bytes to the verifier.
 */
static void
bt_copy_flush(struct bt_side *s)
{
	uint64_t ticket = 0;
	uint32_t done = 0, i;
	int q = 0;

	if (s->nops == 0)
		return;
	while (done < s->nops) {
		q = dt_copy_submit(s->ch, s->ops + done,
			(uint16_t)(s->nops - done), &ticket);
		if (q < 0)
			break;
		if (q == 0)             /* every slot in flight: let some land */
			dt_copy_completed(s->ch);
		done += (uint32_t)q;
	}
	if (q < 0) {
		if (s->copy_errors++ == 0)
			fprintf(stderr, "devtcp-bench: copy engine refused a copy of %u bytes (%p -> %p): %s\n",
				s->ops[done].len, s->ops[done].src,
				s->ops[done].dst, rte_strerror(-q));
		s->run->abort = true;
	}
	if (done != 0)
		dt_copy_wait(s->ch, ticket);
	for (i = 0; i < s->nops; i++)
		dt_dp_release(s->st, s->tok[i]);
	if (s->ver_land != NULL && q >= 0)
		for (i = 0; i < s->nvs; i++)
			bench_verify_add(s->ver_land, s->vs[i].addr,
				s->vs[i].len, s->vs[i].stream_off);
	s->nops = 0;
	s->nvs = 0;
}

/* A HOST chunk: queue its copy into the landing region (a ring). */
static void
bt_land(struct bt_side *s, const struct dt_dp_chunk *ch, uint32_t pos)
{
	uint32_t len = ch->len, n;
	uintptr_t dst;

	if (s->land_off + len > s->land_len) {
		/* Wrapping: what the verifier holds there must be checked first. */
		bt_copy_flush(s);
		if (s->ver_land != NULL)
			bench_verify_flush(s->ver_land);
		s->land_off = 0;
	}
	if (s->nops == BT_COPY_BATCH)
		bt_copy_flush(s);
	dst = s->land_base + s->land_off;
	s->ops[s->nops] = (struct dt_copy_op){ .dst = (void *)dst,
		.src = ch->addr, .len = len };
	s->tok[s->nops++] = ch->token;
	while (len != 0) {
		n = RTE_MIN(len, BENCH_TCP_PAT_LEN - pos);
		s->vs[s->nvs++] = (struct bench_vseg){ .addr = dst, .len = n,
			.stream_off = pos };
		dst += n;
		len -= n;
		pos = 0;
	}
	s->land_off += RTE_ALIGN_CEIL(ch->len, RTE_CACHE_LINE_SIZE);
}

static struct bt_conn *
bt_find(struct bt_side *s, dt_dp_conn_t id)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (s->conns[i].id == id)
			return &s->conns[i];
	return NULL;
}

static void
srv_data(struct bt_side *s, struct bt_conn *c, const struct dt_dp_chunk *ch)
{
	uint32_t pos = (uint32_t)((c->start + c->rx % BENCH_TCP_PAT_LEN) %
		BENCH_TCP_PAT_LEN);

	c->rx += ch->len;
	s->rx_bytes += ch->len;
	if (ch->kind == DT_DP_CHUNK_DEVICE) {
		s->device_bytes += ch->len;
		if (s->ver_rx == NULL) {
			dt_dp_release(s->st, ch->token);
			return;
		}
		/* Address only: the verifier reads through the CPU alias or on the GPU. */
		bt_verify_range(s->ver_rx, (uintptr_t)ch->addr, ch->len, pos);
		bench_verify_hold_token(s->ver_rx, ch->token);
		return;
	}
	s->host_bytes += ch->len;
	bt_land(s, ch, pos);
}

static void
srv_event(struct bt_side *s, const struct dt_dp_event *ev)
{
	struct bt_run *run = s->run;
	struct bt_conn *c = ev->udata;
	struct dt_dp_conn_stats cs;

	/* Events queued before ACCEPTED was handled carry no user data yet. */
	if (c == NULL && ev->type != DT_DP_EV_ACCEPTED)
		c = bt_find(s, ev->conn);
	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		if (s->nb == s->cap ||
				dt_dp_conn_stats_get(s->st, ev->conn, &cs) != 0) {
			s->errors++;
			dt_dp_abort(s->st, ev->conn);
			return;
		}
		c = &s->conns[s->nb++];
		memset(c, 0, sizeof(*c));
		c->id = ev->conn;
		c->connected = true;
		c->start = bt_start(cs.tuple.rport);
		dt_dp_set_udata(s->st, ev->conn, c);
		__atomic_fetch_add(&run->srv_accepted, 1, __ATOMIC_RELAXED);
		break;
	case DT_DP_EV_DATA:
		if (c == NULL) {
			s->errors++;
			dt_dp_release(s->st, ev->chunk.token);
			return;
		}
		srv_data(s, c, &ev->chunk);
		break;
	case DT_DP_EV_PEER_CLOSED:
		if (c != NULL && !c->peer_closed) {
			c->peer_closed = true;
			/* The last stream delivered: the run's clock stops. */
			if (__atomic_add_fetch(&run->srv_eof, 1, __ATOMIC_ACQ_REL) ==
					run->conns)
				run->t_eof = rte_rdtsc();
		}
		dt_dp_close(s->st, ev->conn);
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		s->errors++;
		if (c != NULL)
			c->failed = true;
		break;
	case DT_DP_EV_CLOSED:
		if (c != NULL && !c->closed) {
			c->closed = true;
			__atomic_fetch_add(&run->srv_closed, 1, __ATOMIC_RELEASE);
		}
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------- client */

/* Queue sends on @p c until the stack refuses more; FIN once all is queued. */
static void
cli_fill(struct bt_side *s, struct bt_conn *c)
{
	struct bt_run *run = s->run;
	const struct bench_opts *o = run->env->opts;
	struct dt_dp_buf b;
	uint32_t pos, len;
	int r;

	while (c->connected && !c->shut && !c->failed) {
		if (c->queued == c->total || run->stop_sending) {
			r = dt_dp_shutdown(s->st, c->id);
			if (r != 0 && s->errors++ == 0)
				fprintf(stderr, "devtcp-bench: shutdown: %s\n",
					rte_strerror(-r));
			c->shut = true;
			s->nb_shut++;
			return;
		}
		pos = (uint32_t)((c->start + c->queued % BENCH_TCP_PAT_LEN) %
			BENCH_TCP_PAT_LEN);
		len = (uint32_t)RTE_MIN((uint64_t)o->msg_size,
			c->total - c->queued);
		len = RTE_MIN(len, BENCH_TCP_PAT_LEN - pos);
		b.addr = run->tx_base + pos;
		b.iova = run->tx_iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
			run->tx_iova + pos;
		b.len = len;
		b.device = run->tx_device;
		r = dt_dp_send(s->st, c->id, &b);
		if (r == -DT_DP_E_FULL)
			return;
		if (r != 0) {
			if (s->errors++ == 0)
				fprintf(stderr, "devtcp-bench: send: %s\n",
					rte_strerror(-r));
			c->failed = true;
			return;
		}
		c->queued += len;
	}
}

/* Retransmissions of @p c since the last sample (its stats go with it). */
static void
cli_sample(struct bt_side *s, struct bt_conn *c)
{
	struct dt_dp_conn_stats cs;

	if (c->closed || dt_dp_conn_stats_get(s->st, c->id, &cs) != 0)
		return;
	if (cs.retransmits > c->rtx) {
		s->retransmits += cs.retransmits - c->rtx;
		c->rtx = cs.retransmits;
	}
}

/*
 * Open this stack's connections: one first, the rest once it is up, so
 * that the neighbour is resolved and no SYN waits in (or overflows) the
 * ARP hold queue and then for a retransmission timeout.
 */
/*
 * Connection g of the run (client stack ci's j-th is g = ci + j * clients)
 * goes to server stack g % servers: a source port the server's RSS sends
 * there, so every server stack carries its share.
 */
static int
cli_connect(struct bt_side *s, struct bt_conn *c)
{
	struct bt_run *run = s->run;
	uint32_t ci = (uint32_t)(s - run->sides) - run->nsrv;
	struct dt_dp_peer_rss pr;

	if (!run->srss_ok)
		return dt_dp_connect(s->st, rte_cpu_to_be_32(BT_SRV_IP),
			BT_SRV_PORT, c, &c->id);
	pr.key = run->srss.key;
	pr.reta = run->srss.reta;
	pr.reta_size = run->srss.reta_size;
	pr.l4 = run->srss.l4;
	pr.queue = (uint16_t)((ci + s->nb * run->ncli) % run->nsrv);
	return dt_dp_connect_rss(s->st, rte_cpu_to_be_32(BT_SRV_IP),
		BT_SRV_PORT, c, &c->id, &pr);
}

static void
cli_open(struct bt_side *s)
{
	struct bt_run *run = s->run;
	struct dt_dp_conn_stats cs;
	struct bt_conn *c;
	int r;

	while (s->nb < s->to_open && (s->nb == 0 || s->nb_connected > 0)) {
		c = &s->conns[s->nb];
		memset(c, 0, sizeof(*c));
		c->total = run->env->opts->bytes != 0 ? run->env->opts->bytes :
			UINT64_MAX;
		r = cli_connect(s, c);
		if (r == 0)
			r = dt_dp_conn_stats_get(s->st, c->id, &cs);
		if (r != 0) {
			fprintf(stderr, "devtcp-bench: connect: %s\n",
				rte_strerror(-r));
			s->errors++;
			/* Never opened: counts as closed so the run can end. */
			s->to_open--;
			__atomic_fetch_add(&run->cli_closed, 1, __ATOMIC_RELEASE);
			continue;
		}
		c->start = bt_start(cs.tuple.lport);
		s->nb++;
	}
}

static void
cli_event(struct bt_side *s, const struct dt_dp_event *ev)
{
	struct bt_conn *c = ev->udata;

	if (c == NULL) {
		if (ev->type == DT_DP_EV_DATA)
			dt_dp_release(s->st, ev->chunk.token);
		return;
	}
	switch (ev->type) {
	case DT_DP_EV_CONNECTED:
		c->connected = true;
		s->nb_connected++;
		cli_fill(s, c);
		break;
	case DT_DP_EV_SENT:
		c->acked += ev->sent.bytes;
		cli_fill(s, c);
		break;
	case DT_DP_EV_DATA:
		dt_dp_release(s->st, ev->chunk.token);
		break;
	case DT_DP_EV_PEER_CLOSED:
		cli_sample(s, c);
		dt_dp_close(s->st, ev->conn);
		break;
	case DT_DP_EV_RESET:
	case DT_DP_EV_ERROR:
		if (s->errors++ == 0)
			fprintf(stderr, "devtcp-bench: connection %s: %s\n",
				ev->type == DT_DP_EV_RESET ? "reset" : "error",
				ev->type == DT_DP_EV_ERROR ? strerror(ev->err) :
					"by the peer");
		c->failed = true;
		break;
	case DT_DP_EV_CLOSED:
		if (!c->closed) {
			c->closed = true;
			__atomic_fetch_add(&s->run->cli_closed, 1,
				__ATOMIC_RELEASE);
		}
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------- loops */

static void
side_poll(struct bt_side *s)
{
	struct bt_run *run = s->run;
	struct dt_dp_event ev[BT_EV_BATCH];
	uint64_t t0 = rte_rdtsc(), now;
	uint16_t n, i;
	uint32_t k;
	int nf, got;

	if (!s->server)
		cli_open(s);
	nf = dt_dp_poll(s->st);
	got = nf;
	do {
		n = dt_dp_events(s->st, ev, BT_EV_BATCH);
		for (i = 0; i < n; i++) {
			if (s->server)
				srv_event(s, &ev[i]);
			else
				cli_event(s, &ev[i]);
		}
		got += n;
	} while (n > 0);
	if (s->server) {
		bt_copy_flush(s);
		/*
		 * Nothing came: check what the verifier holds now, or held
		 * chunks could keep the window shut and the sender waiting.
		 */
		if (got == 0 && s->ver_rx != NULL && s->ver_rx->nheld != 0)
			bench_verify_flush(s->ver_rx);
		/*
		 * Held chunks count against the receive window (half the RX
		 * ring over all connections): check and release them long
		 * before a full verification batch, or the window shuts and
		 * the figure is the verifier's, not the path's.
		 */
		if (s->ver_rx != NULL && s->ver_rx->nheld >= BT_VERIFY_HOLD)
			bench_verify_flush(s->ver_rx);
		if (got != 0) {
			s->frames += (uint64_t)nf;
			s->cycles += rte_rdtsc() - t0;
		}
		return;
	}
	if (run->stop_sending && s->nb_shut < s->nb)
		for (k = 0; k < s->nb; k++)
			if (!s->conns[k].shut)
				cli_fill(s, &s->conns[k]);
	now = rte_rdtsc();
	if (now >= s->next_sample) {
		for (k = 0; k < s->nb; k++)
			cli_sample(s, &s->conns[k]);
		s->next_sample = now + run->hz;
	}
}

static bool
run_done(struct bt_run *run)
{
	return __atomic_load_n(&run->cli_closed, __ATOMIC_ACQUIRE) >= run->conns &&
		__atomic_load_n(&run->srv_closed, __ATOMIC_ACQUIRE) >=
		__atomic_load_n(&run->srv_accepted, __ATOMIC_ACQUIRE);
}

/* The live counters of every side: payload, frames received, retransmissions. */
static void
run_totals(const struct bt_run *run, uint64_t *bytes, uint64_t *frames,
	uint64_t *rtx)
{
	unsigned int i;

	*bytes = *frames = *rtx = 0;
	for (i = 0; i < run->nb_sides; i++) {
		*bytes += run->sides[i].rx_bytes;
		*frames += run->sides[i].frames;
		*rtx += run->sides[i].retransmits;
	}
}

/* Main lcore, between polls: the clock, the limits, the samples and the progress line. */
static void
run_tick(struct bt_run *run)
{
	const struct bench_opts *o = run->env->opts;
	uint64_t now = rte_rdtsc(), bytes, frames, rtx;
	double t = (double)(now - run->t0) / run->hz;
	const struct bench_sample *smp;

	if (!run->stop_sending && (*run->env->quit ||
			(o->bytes == 0 && t >= o->duration))) {
		run->stop_sending = true;
		run->t_stop = now;
	}
	if (o->bytes != 0 && t >= o->duration) {
		fprintf(stderr, "devtcp-bench: %s: not done after %.0f s (--duration is the time limit with --bytes)\n",
			bench_mode_name(run->mode), o->duration);
		run->abort = true;
	}
	if (run->stop_sending && now - run->t_stop > BT_DRAIN_S * run->hz) {
		fprintf(stderr, "devtcp-bench: %s: connections still open %d s after the senders stopped\n",
			bench_mode_name(run->mode), BT_DRAIN_S);
		run->abort = true;
	}
	if (now < run->t_next_print)
		return;
	run->t_next_print += run->hz;
	/* A sample a second, --quiet or not; the line shows its rates. */
	run_totals(run, &bytes, &frames, &rtx);
	smp = bench_sample_take(run->res, &run->sp, t, bytes, frames, rtx);
	if (o->quiet || smp == NULL)
		return;
	bench_tcp_progress(run->mode, smp, rtx,
		__atomic_load_n(&run->srv_eof, __ATOMIC_RELAXED), run->conns,
		bytes, o->bytes * run->conns);
}

static int
lcore_loop(void *arg)
{
	struct bt_lcore *l = arg;
	struct bt_run *run = l->run;
	unsigned int i;

	while (!run->abort) {
		for (i = 0; i < l->nb; i++)
			side_poll(l->sides[i]);
		if (l->main)
			run_tick(run);
		if (run_done(run))
			break;
	}
	return 0;
}

/* ------------------------------------------------------------- set-up */

static int
tcp_ports_start(const struct bench_tcp_env *env, enum bench_mode mode,
	uint16_t ns, uint16_t nc)
{
	const struct bench_opts *o = env->opts;
	struct dt_dp_port_conf pc;
	char err[256];
	int r;

	/* A queue pair per stack: RSS must not spread onto unpolled queues. */
	memset(&pc, 0, sizeof(pc));
	pc.nb_rxq = nc;
	pc.nb_txq = nc;
	pc.nb_rxd = BT_NB_DESC;
	pc.nb_txd = BT_NB_DESC;
	pc.mtu = o->mtu;
	pc.hdr_pool = env->c_pool;
	pc.tx_cksum = true;
	pc.tx_multi_seg = true;
	r = dt_dp_port_start(env->cport, &pc, err, sizeof(err));
	if (r != 0) {
		fprintf(stderr, "devtcp-bench: client port %u: %s\n", env->cport, err);
		return r;
	}
	pc.nb_rxq = ns;
	pc.nb_txq = ns;
	if (mode == BENCH_MODE_SPLIT) {
		pc.split = DT_DP_SPLIT_PROTO;
		pc.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
		pc.hdr_pool = env->s_hdr;
		pc.pay_pool = dt_devmem_region_pool(env->rx_region);
	} else {
		pc.hdr_pool = env->s_whole;
	}
	r = dt_dp_port_start(env->sport, &pc, err, sizeof(err));
	if (r != 0) {
		fprintf(stderr, "devtcp-bench: server port %u: %s\n", env->sport, err);
		dt_dp_port_stop(env->cport);
	}
	return r;
}

/*
 * Receive window per connection: what the receive buffers hold, shared by
 * the connections, 1 MiB at most. Past it the NIC would run out of buffers
 * and drop: TCP recovers, but the figure is then that of recovery.
 */
static uint32_t
tcp_window(const struct bench_tcp_env *env, enum bench_mode mode,
	uint32_t conns)
{
	const struct rte_mempool *mp = mode == BENCH_MODE_SPLIT ?
		dt_devmem_region_pool(env->rx_region) : env->s_whole;
	uint64_t bufs = mp->size > 2 * BT_NB_DESC ? mp->size - BT_NB_DESC : mp->size / 2;
	uint64_t w = bufs / 2 * 1024 / conns;
	/*
	 * And what the server's RX ring holds: frames beyond it are missed
	 * before the stack sees them. Half the ring, in MSS-sized frames.
	 */
	uint64_t ring = (uint64_t)BT_NB_DESC / 2 * (env->opts->mtu - 40) /
		conns;

	w = RTE_MIN(w, ring);

	return (uint32_t)RTE_MAX(RTE_MIN(w, (uint64_t)1 << 20), (uint64_t)65536);
}

static struct dt_dp_stack *
tcp_stack_new(const struct bench_tcp_env *env, enum bench_mode mode,
	bool server, uint16_t q, uint32_t conns)
{
	struct dt_dp_stack_conf sc;
	struct dt_dp_stack *st;

	dt_dp_stack_conf_default(&sc);
	sc.port_id = server ? env->sport : env->cport;
	sc.rxq = q;
	sc.txq = q;
	sc.ipv4 = rte_cpu_to_be_32(server ? BT_SRV_IP : BT_CLI_IP);
	/* Any server stack may get every connection (RSS decides). */
	sc.max_conns = conns + 8;
	sc.backlog = (uint16_t)RTE_MIN(conns + 8, UINT16_MAX);
	sc.window = tcp_window(env, mode, conns);
	sc.hdr_pool = server ? env->s_hdr : env->c_pool;
	sc.shell_pool = server ? env->s_shell : env->c_shell;
	sc.region = server && mode == BENCH_MODE_SPLIT ? env->rx_region : NULL;
	sc.tx_cksum_offload = true;
	/* Short TIME_WAIT: a run ends when every connection has closed. */
	sc.tcp.msl_us = 20000;
	st = dt_dp_stack_create(&sc);
	if (st == NULL)
		fprintf(stderr, "devtcp-bench: cannot create the %s stack on queue %u: %s\n",
			server ? "server" : "client", q, rte_strerror(rte_errno));
	return st;
}

static struct bench_verifier *
tcp_verifier(const struct bench_tcp_env *env, struct bt_side *s,
	struct dt_devmem_region *r, const uint8_t *alias, bool tokens)
{
	struct bench_verifier *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	v->check = env->check;
	v->alias = alias;
	v->region_base = (uintptr_t)dt_devmem_region_base(r);
	v->gpu_id = dt_devmem_region_gpu_id(r);
	v->res = &s->vres;
	if (tokens) {
		v->release = bt_release_tokens;
		v->release_arg = s;
	}
	return v;
}

uint64_t
bench_tcp_stack_drops(const struct dt_dp_stats *s)
{
	return s->drop_not_ipv4 + s->drop_bad_ip + s->drop_ip_fragment +
		s->drop_not_for_us + s->drop_bad_tcp + s->drop_l4_cksum +
		s->drop_no_conn + s->drop_conn_table_full +
		s->drop_hdr_in_device + s->drop_unsupported_proto +
		s->drop_tx_no_mbuf + s->drop_tx_ring_full +
		s->drop_no_neighbour + s->drop_l4_cksum_unknown +
		s->drop_too_many_segs + s->drop_bad_arp + s->drop_synq_full +
		s->drop_neigh_hold_full;
}

/* Nothing silent: name every drop counter of a stack that is not zero. */
void
bench_tcp_report_drops(enum bench_mode mode, bool server, unsigned int q,
	const struct dt_dp_stats *d)
{
#define BT_DROP(f) { #f, d->f }
	const struct { const char *name; uint64_t v; } c[] = {
		BT_DROP(drop_not_ipv4), BT_DROP(drop_bad_ip),
		BT_DROP(drop_ip_fragment), BT_DROP(drop_not_for_us),
		BT_DROP(drop_bad_tcp), BT_DROP(drop_l4_cksum),
		BT_DROP(drop_no_conn), BT_DROP(drop_conn_table_full),
		BT_DROP(drop_hdr_in_device), BT_DROP(drop_unsupported_proto),
		BT_DROP(drop_tx_no_mbuf), BT_DROP(drop_tx_ring_full),
		BT_DROP(drop_no_neighbour), BT_DROP(drop_l4_cksum_unknown),
		BT_DROP(drop_too_many_segs), BT_DROP(drop_bad_arp),
		BT_DROP(drop_synq_full), BT_DROP(drop_neigh_hold_full),
	};
#undef BT_DROP
	unsigned int i;

	if (bench_tcp_stack_drops(d) == 0)
		return;
	fprintf(stderr, "devtcp-bench: %s: %s stack %u drops:",
		bench_mode_name(mode), server ? "server" : "client", q);
	for (i = 0; i < RTE_DIM(c); i++)
		if (c[i].v != 0)
			fprintf(stderr, " %s %" PRIu64, c[i].name + 5, c[i].v);
	fprintf(stderr, "\n");
}

/*
 * With several stacks a side, where the connections went (RSS spread on
 * the server, the openers' own queues on the client): one line, for the
 * reader and for the tests that check every stack took part.
 */
static void
report_spread(const struct bt_run *run)
{
	unsigned int i, k = run->nb_sides / 2;

	if (k < 2)
		return;
	fprintf(stderr, "devtcp-bench: %s: %u server stacks, connections accepted per stack:",
		bench_mode_name(run->mode), k);
	for (i = 0; i < k; i++)
		fprintf(stderr, " %u", run->sides[i].nb);
	fprintf(stderr, "; %u client stacks, opened per stack:", k);
	for (i = k; i < 2 * k; i++)
		fprintf(stderr, " %u", run->sides[i].nb);
	fprintf(stderr, "\n");
}

/* Everything the run measured, once every lcore is back. */
static void
tcp_collect(struct bt_run *run, struct bench_result *res)
{
	const struct bench_tcp_env *env = run->env;
	const struct bench_opts *o = env->opts;
	struct rte_eth_stats es;
	struct dt_dp_stats ds;
	unsigned int i;
	uint32_t k;

	report_spread(run);
	res->conns = run->conns;
	res->server_stacks = run->nsrv;
	res->client_stacks = run->ncli;
	res->seconds = (double)((run->t_eof != 0 ? run->t_eof : rte_rdtsc()) -
		run->t0) / run->hz;
	for (i = 0; i < run->nb_sides; i++) {
		struct bt_side *s = &run->sides[i];

		dt_dp_stats_get(s->st, &ds);
		bench_tcp_report_drops(run->mode, s->server,
			s->server ? i : i - run->nsrv, &ds);
		res->stack_drops += bench_tcp_stack_drops(&ds);
		res->events_overflow += ds.events_overflow;
		res->tcp_errors += s->errors;
		if (!s->server) {
			res->tx_frames += ds.tx_frames;
			res->tx_stack_cycles += ds.tx_cycles;
			res->tx_burst_cycles += ds.tx_burst_cycles;
			res->tx_tso_bursts += ds.tx_tso_bursts;
			res->tx_tso_segs += ds.tx_tso_segs;
			res->retransmits += s->retransmits;
			for (k = 0; k < s->nb; k++)
				res->sent_bytes += s->conns[k].acked;
			continue;
		}
		res->stack[i] = (struct bench_stack_result){
			.lcore = run->lcore_of[i], .conns = s->nb,
			.rx_frames = ds.rx_frames, .payload_bytes = s->rx_bytes,
			.rx_cycles = s->cycles, .stack_cycles = ds.rx_cycles,
			.drops = bench_tcp_stack_drops(&ds),
			.rx_bursts = ds.rx_bursts, .gro_runs = ds.rx_gro_runs,
			.gro_frames = ds.rx_gro_frames };
		res->rx_frames += ds.rx_frames;
		res->device_chunks += ds.device_chunks;
		res->host_chunks += ds.host_chunks;
		res->stack_cycles += ds.rx_cycles;
		res->cksum_bad += ds.drop_l4_cksum + ds.drop_l4_cksum_unknown;
		res->payload_bytes += s->rx_bytes;
		res->device_bytes += s->device_bytes;
		res->host_bytes += s->host_bytes;
		res->rx_cycles += s->cycles;
		res->copy_errors += s->copy_errors;
		if (s->ch != NULL)
			res->cpu_copy_bytes += s->ch->stats.bytes;
		res->verified_bytes += s->vres.verified_bytes;
		res->verify_errors += s->vres.verify_errors;
		res->verify_batches += s->vres.verify_batches;
		for (k = 0; k < s->nb; k++) {
			const struct bt_conn *c = &s->conns[k];

			if (c->peer_closed && c->closed && !c->failed &&
					(o->bytes == 0 || c->rx == o->bytes))
				res->conns_done++;
		}
	}
	/* After the stack, the CPU copied only with the bench's engine. */
	res->copy_bytes = res->cpu_copy_bytes;
	res->nic_copy_bytes = bench_xstat_sum(env->sport, "_copy_bytes");
	res->split_frames = bench_xstat_sum(env->sport, "_split_packets");
	if (rte_eth_stats_get(env->sport, &es) == 0) {
		res->rx_bytes = es.ibytes;
		res->missed = es.imissed + es.rx_nombuf;
	}
}

/*
 * The interval from the last sample to the end of the run: every lcore is
 * back and the counters are final, so the samples add up to the run.
 */
static void
tcp_last_sample(struct bt_run *run)
{
	uint64_t bytes, frames, rtx;

	run_totals(run, &bytes, &frames, &rtx);
	bench_sample_take(run->res, &run->sp,
		(double)(rte_rdtsc() - run->t0) / run->hz, bytes, frames, rtx);
}

static int
tcp_sides_create(const struct bench_tcp_env *env, struct bt_run *run,
	enum bench_mode mode)
{
	const struct bench_opts *o = env->opts;
	uint16_t i, k = run->ncli;

	for (i = 0; i < run->nsrv + run->ncli; i++) {
		struct bt_side *s = &run->sides[i];
		bool server = i < run->nsrv;
		uint16_t q = server ? i : i - run->nsrv;

		s->run = run;
		s->server = server;
		s->st = tcp_stack_new(env, mode, server, q, run->conns);
		if (s->st == NULL)
			return -rte_errno;
		run->nb_sides++;
		if (server) {
			s->cap = run->conns;
			/* Slices of whole cache lines, as bt_land() fills them. */
			s->land_len = RTE_ALIGN_FLOOR(run->land_len / run->nsrv,
				RTE_CACHE_LINE_SIZE);
			s->land_base = run->land_base + (uintptr_t)q * s->land_len;
			if (dt_dp_listen(s->st, BT_SRV_PORT) != 0)
				return -EADDRINUSE;
		} else {
			s->cap = run->conns / k + (q < run->conns % k);
			s->to_open = s->cap;
		}
		s->conns = calloc(RTE_MAX(s->cap, 1u), sizeof(s->conns[0]));
		if (s->conns == NULL)
			return -ENOMEM;
		if (server && o->verify) {
			s->ver_rx = tcp_verifier(env, s, env->rx_region,
				env->rx_alias, true);
			s->ver_land = tcp_verifier(env, s, env->land_region,
				env->land_alias, false);
			if (s->ver_rx == NULL || s->ver_land == NULL)
				return -ENOMEM;
		}
	}
	/* The openers spread their connections with it (cli_connect). */
	run->srss_ok = run->nsrv > 1 && !o->rss_blind &&
		dt_dp_port_rss_get(env->sport, &run->srss) == 0 &&
		run->srss.reta_size != 0;
	return 0;
}

static void
tcp_sides_free(struct bt_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nb_sides; i++) {
		struct bt_side *s = &run->sides[i];

		dt_dp_stack_destroy(s->st);
		dt_copy_chan_close(s->ch);
		free(s->ver_rx);
		free(s->ver_land);
		free(s->conns);
	}
	run->nb_sides = 0;
}

/* The side's copy channel, opened on the lcore that uses it. */
static int
lcore_entry(void *arg)
{
	struct bt_lcore *l = arg;
	struct bt_run *run = l->run;
	unsigned int i;

	for (i = 0; i < l->nb; i++) {
		struct bt_side *s = l->sides[i];

		if (!s->server || s->ch != NULL)
			continue;
		s->ch = dt_copy_chan_open(dt_devmem_region_engine(
			run->env->land_region));
		if (s->ch == NULL) {
			fprintf(stderr, "devtcp-bench: cannot open a copy channel: %s\n",
				rte_strerror(rte_errno));
			run->abort = true;
			return -1;
		}
	}
	return lcore_loop(l);
}

const char *
bench_tcp_stacks_check(uint16_t server_stacks, unsigned int nb_lcores,
	char *buf, size_t len)
{
	if (server_stacks < 1 || server_stacks > BT_MAX_STACKS) {
		snprintf(buf, len, "%u server stacks: 1..%u are supported",
			server_stacks, BT_MAX_STACKS);
		return buf;
	}
	/* One lcore polls one server and one client stack in turn. */
	if (server_stacks == 1 || nb_lcores > server_stacks)
		return NULL;
	snprintf(buf, len, "%u server stacks need %u lcores (one each, and at least one for the client stacks); EAL has %u: give more with -l or --lcores (e.g. --lcores '0-%u' or, on fewer CPUs, '0@0,1@1,...')",
		server_stacks, server_stacks + 1u, nb_lcores, server_stacks);
	return buf;
}

int
bench_tcp_run(const struct bench_tcp_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res)
{
	const struct bench_opts *o = env->opts;
	struct bt_lcore *lc = NULL;
	struct bt_run *run;
	unsigned int i, nlc;
	uint16_t ns, nc;
	char why[256];
	int r;

	if (server_stacks == 0) {
		ns = (uint16_t)(env->nb_lcores >= 2 ?
			RTE_MIN(env->nb_lcores / 2, (unsigned int)BT_MAX_STACKS) : 1);
		nc = ns;
	} else {
		if (bench_tcp_stacks_check(server_stacks, env->nb_lcores, why,
				sizeof(why)) != NULL) {
			fprintf(stderr, "devtcp-bench: %s\n", why);
			return -EINVAL;
		}
		ns = server_stacks;
		nc = env->nb_lcores >= 2 ? (uint16_t)RTE_MIN(
			(unsigned int)ns, env->nb_lcores - ns) : 1;
	}
	run = calloc(1, sizeof(*run));
	nlc = env->nb_lcores >= 2 ? (unsigned int)ns + nc : 1u;
	lc = calloc(nlc, sizeof(*lc));
	if (run == NULL || lc == NULL) {
		free(run);
		free(lc);
		return -ENOMEM;
	}
	run->env = env;
	run->mode = mode;
	run->nsrv = ns;
	run->ncli = nc;
	/* --stacks without --conns: two connections per server stack. */
	run->conns = server_stacks != 0 && !o->conns_set ? 2u * ns : o->conns;
	run->hz = rte_get_tsc_hz();
	run->land_base = (uintptr_t)dt_devmem_region_base(env->land_region);
	run->land_len = dt_devmem_region_len(env->land_region);
	if (o->tx_device) {
		run->tx_base = dt_devmem_region_base(env->tx_region);
		run->tx_iova = dt_devmem_region_iova(env->tx_region);
		run->tx_device = true;
	} else {
		run->tx_base = (uint8_t *)(uintptr_t)env->tx_host;
		run->tx_iova = env->tx_host_iova;
	}
	r = tcp_ports_start(env, mode, ns, nc);
	if (r != 0)
		goto out;
	rte_eth_stats_reset(env->sport);
	rte_eth_xstats_reset(env->sport);
	r = tcp_sides_create(env, run, mode);
	if (r != 0)
		goto stop;

	/* Servers on the first k lcores (main first), clients on the next k. */
	for (i = 0; i < nlc; i++) {
		lc[i].run = run;
		lc[i].main = i == 0;
	}
	for (i = 0; i < run->nb_sides; i++) {
		struct bt_lcore *l = &lc[nlc == 1 ? 0 : i];

		l->sides[l->nb++] = &run->sides[i];
		run->lcore_of[i] = env->lcores[nlc == 1 ? 0 : i];
	}
	run->res = res;
	run->t0 = rte_rdtsc();
	run->t_next_print = run->t0 + run->hz;
	for (i = 1; i < nlc; i++) {
		r = rte_eal_remote_launch(lcore_entry, &lc[i], env->lcores[i]);
		if (r != 0) {
			fprintf(stderr, "devtcp-bench: cannot launch lcore %u: %s\n",
				env->lcores[i], rte_strerror(-r));
			run->abort = true;
			nlc = i;
			break;
		}
	}
	if (!run->abort)
		lcore_entry(&lc[0]);
	else
		run->abort = true;
	for (i = 1; i < nlc; i++)
		rte_eal_wait_lcore(env->lcores[i]);
	/* Every lcore is back: what the servers hold goes back to the stacks. */
	for (i = 0; i < run->nb_sides; i++) {
		struct bt_side *s = &run->sides[i];

		if (!s->server)
			continue;
		if (s->ch != NULL)
			bt_copy_flush(s);
		if (s->ver_rx != NULL)
			bench_verify_flush(s->ver_rx);
		if (s->ver_land != NULL)
			bench_verify_flush(s->ver_land);
	}
	tcp_collect(run, res);
	tcp_last_sample(run);
	/* An aborted run still reports what it measured, as a failed one. */
	if (run->abort)
		res->tcp_errors++;
stop:
	tcp_sides_free(run);
	dt_dp_port_stop(env->cport);
	dt_dp_port_stop(env->sport);
out:
	free(lc);
	free(run);
	return r;
}

/* Whether a stream run delivered everything and closed; says why not on stderr. */
static bool
tcp_ok(const struct bench_opts *o, const struct bench_result *r)
{
	const char *m = bench_mode_name(r->mode);
	bool ok = true;

	if (r->conns_done != r->conns || r->tcp_errors != 0 ||
			r->events_overflow != 0) {
		fprintf(stderr, "devtcp-bench: %s: %u of %u connections delivered everything and closed; %"
			PRIu64 " connection errors, %" PRIu64 " event overflows\n",
			m, r->conns_done, r->conns, r->tcp_errors, r->events_overflow);
		ok = false;
	}
	if (o->bytes != 0 && r->payload_bytes != o->bytes * r->conns) {
		fprintf(stderr, "devtcp-bench: %s: delivered %" PRIu64 " of %" PRIu64 " bytes\n",
			m, r->payload_bytes, o->bytes * r->conns);
		ok = false;
	}
	return ok;
}

static int
tcp_mode_run(struct bench_env *env, enum bench_mode mode,
	uint16_t server_stacks, struct bench_result *res)
{
	return bench_tcp_run(&env->tcp, mode, server_stacks, res);
}

const struct bench_mode_ops bench_mode_split = {
	.run = tcp_mode_run, .ok = tcp_ok,
};
const struct bench_mode_ops bench_mode_copy = {
	.run = tcp_mode_run, .ok = tcp_ok,
};
