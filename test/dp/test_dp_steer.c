/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of steering (DESIGN rule 3) over two net_hsplit ports on
 * one loopback wire. The server port runs in steered mode: queue 0 takes
 * whole frames in host memory, queues 1 and 2 split payload into a gpu_sim
 * region and receive only the TCP flows the stacks' rte_flow rules send
 * them. Server stack A owns queue 1 and also polls queue 0 (ARP, ICMP,
 * unsteered traffic, the port's neighbours); stack B owns queue 2 and
 * learns neighbours from A; stack C owns queue 3. All stacks are polled
 * from one lcore.
 *
 * Checks: a port one stack listens on lands on that stack only; a port
 * both listen on is spread over both (RSS action); an actively opened
 * connection of B gets its replies on B's queue (5-tuple rule); transfers
 * are byte-exact; a stack that stops listening moves no established flow
 * of the stacks that still listen (CRC32C; device chunks read through the region's CPU
 * alias, verification only); ARP and ICMP are handled on queue 0 by A;
 * frames that match no rule (UDP, TCP to a closed port) reach queue 0 in
 * host memory and never a device queue (NIC and stack counters).
 *
 * --rss-only (a port without rte_flow, net_hsplit caps=noflow): the same
 * set-up is not refused; lib/dp steers by RSS alone and says so
 * (dt_dp_port_mode.steer_why). Checks: every stack listening on one port,
 * connections spread by RSS, byte-exact, no RST and no rule; active opens
 * of B and of A (which polls queue 0 too) come back to them; ICMP, UDP and
 * closed-port TCP are served by whichever stack RSS gives them to.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>

#include "dt_devmem.h"
#include "dt_dp.h"
#include "dt_dp_port.h"
#include "dt_test.h"
#include "dp_fixture.h"
#include "dp_raw.h"

#define CLI_IP RTE_IPV4(10, 0, 1, 1)
#define SRV_IP RTE_IPV4(10, 0, 1, 2)
#define PORT_A 5001       /* A listens */
#define PORT_B 5002       /* B listens */
#define PORT_AB 5003      /* both listen: RSS over queues 1 and 2 */
#define PORT_CLI 7001     /* the client listens; B connects */
#define PORT_ABC 5004     /* A, B and C listen; C leaves */
#define NB_ABC 12
#define NB_AB 16
#define MAX_C 64
#define PAT_LEN ((1u << 20) + 4093)
#define SLICE (64u * 1024)
#define XFER (256u * 1024)

enum { CLI, SA, SB, SC, NB_ST };

struct conn {
	bool used, connected, peer_closed, closed, shut;
	int st;                /* stack index */
	dt_dp_conn_t id;
	uint16_t lport;        /* listen port (passive) or remote port */
	uint64_t total, queued, acked, rx_bytes, dev_bytes;
	uint32_t start, tx_crc, rx_crc;
};

static struct {
	struct dp_fixture fx;  /* ports, region (CPU-mapped), pools, pattern */
	struct dt_dp_stack *st[NB_ST];
	struct conn c[MAX_C];
	unsigned int nb_c;
	uint8_t cli_mac[6], srv_mac[6];
	bool hold;             /* connected clients send nothing yet */
	bool rss_only;         /* --rss-only: the port has no rte_flow */
} env;

static uint64_t
now_us(void)
{
	return rte_rdtsc() * 1000000 / rte_get_tsc_hz();
}

static struct conn *
conn_new(int st, dt_dp_conn_t id, uint16_t lport, uint64_t total)
{
	struct conn *c;

	if (env.nb_c >= MAX_C)
		return NULL;
	c = &env.c[env.nb_c++];
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->st = st;
	c->id = id;
	c->lport = lport;
	c->total = total;
	c->shut = total == 0;
	c->start = (env.nb_c * 7919u) % PAT_LEN;
	return c;
}

static void
fill(struct conn *c)
{
	struct dt_dp_buf b;
	uint32_t pos, len;

	while (c->connected && c->queued < c->total && !env.hold) {
		pos = (uint32_t)((c->start + c->queued) % PAT_LEN);
		len = (uint32_t)RTE_MIN((uint64_t)SLICE, c->total - c->queued);
		len = RTE_MIN(len, PAT_LEN - pos);
		b.addr = env.fx.pattern + pos;
		b.iova = env.fx.pattern_iova + pos;
		b.len = len;
		b.device = false;
		if (dt_dp_send(env.st[c->st], c->id, &b) != 0)
			break;
		c->tx_crc = rte_hash_crc(env.fx.pattern + pos, len, c->tx_crc);
		c->queued += len;
	}
	if (c->connected && !c->shut && c->acked == c->total && !env.hold) {
		c->shut = true;
		DT_CHECK_EQ(dt_dp_shutdown(env.st[c->st], c->id), 0);
	}
}

static void
on_data(struct conn *c, struct dt_dp_stack *st, const struct dt_dp_chunk *ch)
{
	const uint8_t *p = ch->addr;

	if (ch->kind == DT_DP_CHUNK_DEVICE) {
		/* Verification only: through the CPU alias, never ch->addr. */
		p = env.fx.alias + ch->offset;
		c->dev_bytes += ch->len;
	}
	c->rx_crc = rte_hash_crc(p, ch->len, c->rx_crc);
	c->rx_bytes += ch->len;
	dt_dp_release(st, ch->token);
}

/* Accepted connections echo nothing: they receive, or (client) send XFER. */
static void
on_event(int si, const struct dt_dp_event *ev)
{
	struct dt_dp_stack *st = env.st[si];
	struct conn *c = ev->udata;

	switch (ev->type) {
	case DT_DP_EV_ACCEPTED:
		c = conn_new(si, ev->conn, ev->listen_port,
			si == CLI ? XFER / 2 : 0);
		DT_REQUIRE(c != NULL);
		c->connected = true;
		dt_dp_set_udata(st, ev->conn, c);
		fill(c);
		break;
	case DT_DP_EV_CONNECTED:
		c->connected = true;
		fill(c);
		break;
	case DT_DP_EV_SENT:
		c->acked += ev->sent.bytes;
		fill(c);
		break;
	case DT_DP_EV_DATA:
		if (c == NULL) {
			dt_dp_release(st, ev->chunk.token);
			break;
		}
		on_data(c, st, &ev->chunk);
		break;
	case DT_DP_EV_PEER_CLOSED:
		c->peer_closed = true;
		/* close() sends our FIN after what is queued: no shutdown()
		 * afterwards (the connection may be gone by the last SENT). */
		c->shut = true;
		DT_CHECK_EQ(dt_dp_close(st, ev->conn), 0);
		break;
	case DT_DP_EV_CLOSED:
		if (c != NULL)
			c->closed = true;
		break;
	case DT_DP_EV_ERROR:
	case DT_DP_EV_RESET:
		printf("  stack %d: %s on a connection (err %d)\n", si,
			ev->type == DT_DP_EV_RESET ? "reset" : "error", ev->err);
		DT_CHECK(false);
		break;
	default:
		break;
	}
}

static void
poll_all(void)
{
	struct dt_dp_event ev[64];
	uint16_t n, i;
	int s;

	for (s = 0; s < NB_ST; s++) {
		dt_dp_poll(env.st[s]);
		do {
			n = dt_dp_events(env.st[s], ev, RTE_DIM(ev));
			for (i = 0; i < n; i++)
				on_event(s, &ev[i]);
		} while (n > 0);
	}
}

static bool
all_closed(void)
{
	unsigned int i;

	for (i = 0; i < env.nb_c; i++)
		if (!env.c[i].closed)
			return false;
	return true;
}

static bool
run_until(bool (*cond)(void), unsigned int ms)
{
	uint64_t end = now_us() + (uint64_t)ms * 1000;

	while (now_us() < end) {
		poll_all();
		if (cond())
			return true;
	}
	return cond();
}

static bool never(void) { return false; }

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = 0;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
			rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

static void
stats(int s, struct dt_dp_stats *x)
{
	dt_dp_stats_get(env.st[s], x);
}

/* ---- set-up ---- */
static struct dt_dp_stack *
stack_new(uint16_t port, uint32_t ip, uint16_t q, bool host_queue,
	struct rte_mempool *hdr, struct rte_mempool *shell,
	struct dt_devmem_region *region)
{
	struct dt_dp_stack_conf sc;

	dt_dp_stack_conf_default(&sc);
	sc.port_id = port;
	sc.rxq = q;
	sc.txq = q > 0 ? q - 1 : 0;
	sc.host_queue = host_queue;
	sc.ipv4 = rte_cpu_to_be_32(ip);
	sc.max_conns = 128;
	sc.hdr_pool = hdr;
	sc.shell_pool = shell;
	sc.region = region;
	sc.tcp.msl_us = 20000;
	sc.tcp.delack_us = 1000;
	return dt_dp_stack_create(&sc);
}

/* What lib/dp decided for the server port, as the reports print it. */
static void
check_decision(void)
{
	struct dt_dp_port_mode m;
	char line[640];

	DT_REQUIRE(dt_dp_port_mode_get(env.fx.sport, &m) == 0);
	dt_dp_port_mode_str(&m, line, sizeof(line));
	printf("  server port: %s\n", line);
	DT_CHECK_EQ(m.steered, !env.rss_only);
	DT_CHECK_EQ(m.steer_why[0] != '\0', env.rss_only);
	if (env.rss_only) {
		DT_CHECK(strstr(line, "steering=rss") != NULL);
		DT_CHECK(strstr(line, "no rte_flow") != NULL);
		DT_CHECK(strstr(line, "RSS alone") != NULL);
	}
}

static int
setup(void)
{
	static const struct dp_fixture_conf fc = {
		.prefix = "dps", .region_bufs = 16384, .cpu_map = true,
		.cli_mbufs = 16384, .cli_shells = 16384,
		.srv_hdrs = 16384, .srv_hosts = 4096, .srv_shells = 8192,
		.pattern_len = PAT_LEN,
	};
	struct dt_dp_port_conf pc;
	struct rte_ether_addr mac;
	char err[256];
	int r;

	r = dp_fixture_setup(&env.fx, &fc);
	if (r != 0)
		return r;

	memset(&pc, 0, sizeof(pc));
	pc.nb_rxq = 1;
	pc.nb_txq = 2;          /* queue 1: the test's raw frames */
	pc.hdr_pool = env.fx.c_pool;
	pc.tx_cksum = true;
	pc.tx_multi_seg = true;
	r = dt_dp_port_start(env.fx.cport, &pc, err, sizeof(err));
	if (r != 0) {
		printf("client port: %s\n", err);
		return r;
	}
	pc.nb_rxq = 4;
	pc.nb_txq = 3;
	pc.hdr_pool = env.fx.s_hdr;
	pc.pay_pool = dt_devmem_region_pool(env.fx.region);
	pc.split = DT_DP_SPLIT_PROTO;
	pc.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
	pc.host_queue = true;
	pc.host_pool = env.fx.s_host;
	if (env.rss_only) {     /* steer_strict: refused, the reason said */
		pc.steer_strict = true;
		DT_CHECK_EQ(dt_dp_port_start(env.fx.sport, &pc, err, sizeof(err)),
			-ENOTSUP);
		DT_CHECK(strstr(err, "no rte_flow") != NULL);
		pc.steer_strict = false;
	}
	r = dt_dp_port_start(env.fx.sport, &pc, err, sizeof(err));
	if (r != 0) {
		printf("server port: %s\n", err);
		return r;
	}
	check_decision();
	rte_eth_macaddr_get(env.fx.cport, &mac);
	memcpy(env.cli_mac, mac.addr_bytes, 6);
	rte_eth_macaddr_get(env.fx.sport, &mac);
	memcpy(env.srv_mac, mac.addr_bytes, 6);
	env.st[CLI] = stack_new(env.fx.cport, CLI_IP, 0, false, env.fx.c_pool,
		env.fx.c_shell, NULL);
	env.st[SA] = stack_new(env.fx.sport, SRV_IP, 1, true, env.fx.s_hdr,
		env.fx.s_shell, env.fx.region);
	env.st[SB] = stack_new(env.fx.sport, SRV_IP, 2, false, env.fx.s_hdr,
		env.fx.s_shell, env.fx.region);
	env.st[SC] = stack_new(env.fx.sport, SRV_IP, 3, false, env.fx.s_hdr,
		env.fx.s_shell, env.fx.region);
	if (env.st[CLI] == NULL || env.st[SA] == NULL || env.st[SB] == NULL ||
			env.st[SC] == NULL)
		return -rte_errno;
	return 0;
}

/* ---- raw frames from the client port's spare TX queue ---- */
static void
raw_send(uint8_t proto, uint16_t dport, uint16_t plen)
{
	DT_REQUIRE(dp_raw_send(env.fx.cport, 1, env.fx.c_pool, env.srv_mac,
		env.cli_mac, CLI_IP, SRV_IP, proto, dport, plen) == 0);
}

/* ---- cases ---- */

/* @p n client connections to @p port, XFER bytes each. */
static void
clients_connect(uint16_t port, unsigned int n)
{
	struct conn *c;

	while (n-- > 0) {
		c = conn_new(CLI, 0, port, XFER);
		DT_REQUIRE(c != NULL);
		DT_REQUIRE(dt_dp_connect(env.st[CLI], rte_cpu_to_be_32(SRV_IP),
			port, c, &c->id) == 0);
	}
}

/* A server connection received what client connection @p c sent. */
static bool
crc_matched(const struct conn *c)
{
	unsigned int j;

	for (j = 0; j < env.nb_c; j++)
		if (env.c[j].st != CLI && env.c[j].rx_crc == c->tx_crc)
			return true;
	return false;
}
static void
test_listen_steering(void)
{
	struct dt_dp_stats a0, b0, a, b, cl;
	unsigned int i, on_a = 0, on_b = 0;
	struct conn *c;

	DT_CHECK_EQ(dt_dp_listen(env.st[SA], PORT_A), 0);
	DT_CHECK_EQ(dt_dp_listen(env.st[SB], PORT_B), 0);
	DT_CHECK_EQ(dt_dp_listen(env.st[SA], PORT_AB), 0);
	DT_CHECK_EQ(dt_dp_listen(env.st[SB], PORT_AB), 0);
	stats(SA, &a0);
	stats(SB, &b0);
	clients_connect(PORT_A, 2);
	clients_connect(PORT_B, 2);
	clients_connect(PORT_AB, NB_AB);
	DT_CHECK(run_until(all_closed, 20000));
	for (i = 0; i < env.nb_c; i++) {
		c = &env.c[i];
		if (c->st == CLI)
			continue;
		/* Passive side: landed on the right stack, byte-exact. */
		if (c->lport == PORT_A)
			DT_CHECK_EQ(c->st, SA);
		if (c->lport == PORT_B)
			DT_CHECK_EQ(c->st, SB);
		if (c->lport == PORT_AB)
			*(c->st == SA ? &on_a : &on_b) += 1;
		DT_CHECK_EQ(c->rx_bytes, XFER);
		DT_CHECK_EQ(c->dev_bytes, XFER);
	}
	for (i = 0; i < env.nb_c; i++) {
		c = &env.c[i];
		if (c->st != CLI)
			continue;
		DT_CHECK_EQ(c->acked, XFER);
		DT_CHECK(crc_matched(c));
	}
	printf("  port %u spread: %u on A, %u on B\n", PORT_AB, on_a, on_b);
	DT_CHECK_EQ(on_a + on_b, NB_AB);
	DT_CHECK(on_a > 0 && on_b > 0);
	stats(SA, &a);
	stats(SB, &b);
	stats(CLI, &cl);
	/* ARP on queue 0, handled by A; B learned the client from A. */
	DT_CHECK(a.rx_arp > 0);
	DT_CHECK(a.rx_host_queue > 0);
	DT_CHECK_EQ(b.rx_arp, 0);
	DT_CHECK_EQ(b.rx_host_queue, 0);
	DT_CHECK(b.neigh_shared > 0);
	DT_CHECK(b.device_chunks > b0.device_chunks);
	DT_CHECK(a.device_chunks > a0.device_chunks);
	DT_CHECK_EQ(a.host_chunks + b.host_chunks, 0);
	DT_CHECK_EQ(a.drop_no_conn + b.drop_no_conn, 0);
	DT_CHECK_EQ(a.steer_errors + b.steer_errors, 0);
	DT_CHECK_EQ(a.events_overflow + b.events_overflow, 0);
	DT_CHECK_EQ(cl.tx_rst + a.tx_rst + b.tx_rst, 0);
	printf("  A: rx %" PRIu64 " (queue 0: %" PRIu64 ") arp %" PRIu64
		" rules %" PRIu64 "; B: rx %" PRIu64 " neigh from A %" PRIu64
		" arp requests %" PRIu64 "\n", a.rx_frames, a.rx_host_queue,
		a.rx_arp, a.steer_rules, b.rx_frames, b.neigh_shared,
		b.arp_requests);
	DT_CHECK_EQ(dt_dp_unlisten(env.st[SA], PORT_A), 0);
	DT_CHECK_EQ(dt_dp_unlisten(env.st[SB], PORT_B), 0);
	DT_CHECK_EQ(dt_dp_unlisten(env.st[SA], PORT_AB), 0);
	DT_CHECK_EQ(dt_dp_unlisten(env.st[SB], PORT_AB), 0);
	env.nb_c = 0;
}

static unsigned int
count_passive(uint16_t port, int st, bool open_only)
{
	unsigned int i, n = 0;

	for (i = 0; i < env.nb_c; i++)
		if (env.c[i].st != CLI && env.c[i].lport == port &&
				(st < 0 || env.c[i].st == st) &&
				!(open_only && env.c[i].closed))
			n++;
	return n;
}

static bool
abc_accepted(void)
{
	return count_passive(PORT_ABC, -1, false) == NB_ABC;
}

static bool
c_conns_closed(void)
{
	return count_passive(PORT_ABC, SC, true) == 0;
}

/*
 * Three stacks listen on one port; connections spread over them and stay
 * idle. C closes its own and stops listening: its queue leaves the RSS
 * rule. Then A's and B's connections transfer: none may have moved (a
 * shrunk queue list re-hashes about half of them onto the wrong stack:
 * no_conn drops, RSTs).
 */
static void
test_listener_leaves(void)
{
	struct dt_dp_stats a0, b0, a, b;
	unsigned int i, on_c = 0, kept = 0;
	struct conn *c;

	DT_CHECK_EQ(dt_dp_listen(env.st[SA], PORT_ABC), 0);
	DT_CHECK_EQ(dt_dp_listen(env.st[SB], PORT_ABC), 0);
	DT_CHECK_EQ(dt_dp_listen(env.st[SC], PORT_ABC), 0);
	env.hold = true;
	clients_connect(PORT_ABC, NB_ABC);
	DT_REQUIRE(run_until(abc_accepted, 5000));
	for (i = 0; i < env.nb_c; i++) {
		c = &env.c[i];
		if (c->st == SC) {
			/* The client sees our FIN, closes; nothing was sent. */
			c->shut = true;
			c->total = 0;
			DT_CHECK_EQ(dt_dp_close(env.st[SC], c->id), 0);
			on_c++;
		}
	}
	DT_REQUIRE(run_until(c_conns_closed, 5000));
	DT_CHECK_EQ(dt_dp_unlisten(env.st[SC], PORT_ABC), 0);
	run_until(never, 200);  /* past C's TIME-WAIT: its queue has left */
	stats(SA, &a0);
	stats(SB, &b0);
	env.hold = false;
	for (i = 0; i < env.nb_c; i++)
		if (env.c[i].st == CLI && !env.c[i].closed)
			fill(&env.c[i]);
	DT_CHECK(run_until(all_closed, 20000));
	for (i = 0; i < env.nb_c; i++) {
		c = &env.c[i];
		if (c->st == SA || c->st == SB) {
			DT_CHECK_EQ(c->rx_bytes, XFER);
			kept++;
		}
	}
	stats(SA, &a);
	stats(SB, &b);
	printf("  %u connections on C closed before it left, %u on A and B kept\n",
		on_c, kept);
	DT_CHECK_EQ(kept + on_c, NB_ABC);
	DT_CHECK_EQ(a.drop_no_conn - a0.drop_no_conn, 0);
	DT_CHECK_EQ(b.drop_no_conn - b0.drop_no_conn, 0);
	DT_CHECK_EQ(a.tx_rst - a0.tx_rst + b.tx_rst - b0.tx_rst, 0);
	DT_CHECK_EQ(dt_dp_unlisten(env.st[SA], PORT_ABC), 0);
	DT_CHECK_EQ(dt_dp_unlisten(env.st[SB], PORT_ABC), 0);
	env.nb_c = 0;
}

/*
 * Stack @p sb opens a connection: the client's segments come back to it
 * (B: queue 2; A, steered by RSS alone: queue 1 or 0), none to @p sa.
 */
static void
active_open(int sb, int sa)
{
	struct dt_dp_stats a0, b0, a, b;
	struct conn *c, *s = NULL;
	unsigned int i;

	DT_CHECK_EQ(dt_dp_listen(env.st[CLI], PORT_CLI), 0);
	stats(sa, &a0);
	stats(sb, &b0);
	c = conn_new(sb, 0, PORT_CLI, XFER);
	DT_REQUIRE(c != NULL);
	DT_REQUIRE(dt_dp_connect(env.st[sb], rte_cpu_to_be_32(CLI_IP), PORT_CLI,
		c, &c->id) == 0);
	DT_CHECK(run_until(all_closed, 20000));
	for (i = 0; i < env.nb_c; i++)
		if (env.c[i].st == CLI)
			s = &env.c[i];
	DT_REQUIRE(s != NULL);
	/* B -> client, and the client's XFER/2 back into B's device queue. */
	DT_CHECK_EQ(s->rx_bytes, XFER);
	DT_CHECK_EQ(s->rx_crc, c->tx_crc);
	DT_CHECK_EQ(c->rx_bytes, XFER / 2);
	DT_CHECK_EQ(c->dev_bytes, XFER / 2);
	DT_CHECK_EQ(c->rx_crc, s->tx_crc);
	stats(sa, &a);
	stats(sb, &b);
	DT_CHECK_EQ(a.rx_tcp, a0.rx_tcp);
	DT_CHECK(b.rx_tcp > b0.rx_tcp);
	DT_CHECK_EQ(b.steer_rules, b0.steer_rules + (env.rss_only ? 0 : 1));
	DT_CHECK_EQ(b.steer_errors, 0);
	DT_CHECK_EQ(b.drop_no_conn, 0);
	DT_CHECK_EQ(dt_dp_unlisten(env.st[CLI], PORT_CLI), 0);
	env.nb_c = 0;
}

static void
test_active_open(void)
{
	active_open(SB, SA);
	if (env.rss_only)
		active_open(SA, SB);
}

/*
 * RSS alone: A, B and C listen on one port; connections land on whichever
 * stack RSS picks, every byte arrives, nothing is reset.
 */
static void
test_rss_listen(void)
{
	struct dt_dp_stats x[NB_ST];
	unsigned int i, on[NB_ST] = {0}, used = 0;
	struct conn *c;
	int s;

	for (s = SA; s <= SC; s++)
		DT_CHECK_EQ(dt_dp_listen(env.st[s], PORT_AB), 0);
	clients_connect(PORT_AB, NB_AB);
	DT_CHECK(run_until(all_closed, 20000));
	for (i = 0; i < env.nb_c; i++) {
		c = &env.c[i];
		if (c->st != CLI) {
			on[c->st]++;
			DT_CHECK_EQ(c->rx_bytes, XFER);
			DT_CHECK_EQ(c->dev_bytes, XFER);
		} else {
			DT_CHECK_EQ(c->acked, XFER);
			DT_CHECK(crc_matched(c));
		}
	}
	for (s = SA; s <= SC; s++) {
		stats(s, &x[s]);
		used += on[s] > 0;
		DT_CHECK_EQ(x[s].drop_no_conn + x[s].tx_rst, 0);
		DT_CHECK_EQ(x[s].steer_rules + x[s].steer_errors, 0);
		DT_CHECK_EQ(x[s].events_overflow, 0);
		DT_CHECK_EQ(dt_dp_unlisten(env.st[s], PORT_AB), 0);
	}
	printf("  RSS alone: %u on A (queue 0: %" PRIu64 " frames), %u on B, %u on C\n",
		on[SA], x[SA].rx_host_queue, on[SB], on[SC]);
	DT_CHECK_EQ(on[SA] + on[SB] + on[SC], NB_AB);
	DT_CHECK(used >= 2);
	env.nb_c = 0;
}

/* RSS alone: ICMP, UDP and closed-port TCP are served by some stack. */
static void
test_rss_host(void)
{
	struct dt_dp_stats x, c0, cl;
	int64_t d[4] = {0};
	int s, k;

	run_until(never, 50);
	stats(CLI, &c0);
	for (k = -1; k <= 1; k += 2) {
		for (s = SA; s <= SC; s++) {
			stats(s, &x);
			d[0] += k * (int64_t)x.rx_icmp;
			d[1] += k * (int64_t)x.drop_unsupported_proto;
			d[2] += k * (int64_t)x.drop_no_conn;
			d[3] += k * (int64_t)x.tx_rst;
		}
		if (k < 0) {
			raw_send(IPPROTO_ICMP, 0, 56);
			raw_send(IPPROTO_UDP, 9999, 1000);
			raw_send(IPPROTO_TCP, 6000, 1000);
			run_until(never, 100);
		}
	}
	stats(CLI, &cl);
	DT_CHECK(d[0] == 1 && d[1] == 1 && d[2] == 1 && d[3] == 1);
	DT_CHECK_EQ(cl.rx_icmp, c0.rx_icmp + 1);     /* the echo reply */
}

/* ICMP echo and frames no rule matches: queue 0, host memory only. */
static void
test_host_queue(void)
{
	struct dt_dp_stats a0, b0, c0, a, b, cl;
	uint64_t split1, split2, pay1, pay2, avail;
	struct rte_mempool *pay = dt_devmem_region_pool(env.fx.region);

	run_until(never, 50);
	stats(SA, &a0);
	stats(SB, &b0);
	stats(CLI, &c0);
	split1 = xstat(env.fx.sport, "rx_q1_split_packets");
	split2 = xstat(env.fx.sport, "rx_q2_split_packets");
	pay1 = xstat(env.fx.sport, "rx_q1_payload_bytes");
	pay2 = xstat(env.fx.sport, "rx_q2_payload_bytes");
	avail = rte_mempool_avail_count(pay);
	DT_REQUIRE(split1 != UINT64_MAX && split2 != UINT64_MAX);
	raw_send(IPPROTO_ICMP, 0, 56);
	raw_send(IPPROTO_UDP, 9999, 1000);
	raw_send(IPPROTO_TCP, 6000, 1000);    /* nobody listens: RST */
	raw_send(IPPROTO_TCP, PORT_A, 1000);  /* unlistened since: RST */
	run_until(never, 100);
	stats(SA, &a);
	stats(SB, &b);
	stats(CLI, &cl);
	DT_CHECK_EQ(a.rx_icmp, a0.rx_icmp + 1);
	DT_CHECK_EQ(a.tx_icmp, a0.tx_icmp + 1);
	DT_CHECK_EQ(cl.rx_icmp, c0.rx_icmp + 1);     /* the echo reply */
	DT_CHECK_EQ(a.drop_unsupported_proto, a0.drop_unsupported_proto + 1);
	DT_CHECK_EQ(a.drop_no_conn, a0.drop_no_conn + 2);
	DT_CHECK_EQ(a.tx_rst, a0.tx_rst + 2);
	DT_CHECK_EQ(a.rx_host_queue, a0.rx_host_queue + 4);
	DT_CHECK_EQ(b.rx_frames, b0.rx_frames);
	/* The NIC split nothing and wrote no payload into device memory. */
	DT_CHECK_EQ(xstat(env.fx.sport, "rx_q1_split_packets"), split1);
	DT_CHECK_EQ(xstat(env.fx.sport, "rx_q2_split_packets"), split2);
	DT_CHECK_EQ(xstat(env.fx.sport, "rx_q1_payload_bytes"), pay1);
	DT_CHECK_EQ(xstat(env.fx.sport, "rx_q2_payload_bytes"), pay2);
	DT_CHECK_EQ(rte_mempool_avail_count(pay), avail);
	/* And the stacks read no device memory for them. */
	DT_CHECK_EQ(a.drop_hdr_in_device + b.drop_hdr_in_device, 0);
	DT_CHECK_EQ(a.rx_hdr_spill + b.rx_hdr_spill, 0);
	DT_CHECK_EQ(a.device_chunks, a0.device_chunks);
	DT_CHECK_EQ(a.host_chunks, a0.host_chunks);
}

int
main(int argc, char **argv)
{
	int r = rte_eal_init(argc, argv), s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (r < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	env.rss_only = argc - r > 1 && strcmp(argv[r + 1], "--rss-only") == 0;
	r = setup();
	if (r == -ENODEV)
		DT_TEST_SKIP("needs two net_hsplit ports and a gpu_sim device");
	if (r != 0) {
		printf("set-up failed: %s\n", rte_strerror(-r));
		return 1;
	}
	if (env.rss_only) {
		DT_RUN(test_rss_listen);
		DT_RUN(test_active_open);
		DT_RUN(test_rss_host);
	} else {
		DT_RUN(test_listen_steering);
		DT_RUN(test_listener_leaves);
		DT_RUN(test_active_open);
		DT_RUN(test_host_queue);
	}
	for (s = NB_ST - 1; s >= 0; s--)
		dt_dp_stack_destroy(env.st[s]);
	r = dp_fixture_teardown(&env.fx);
	DT_CHECK_EQ(r, 0);
	r = dt_test_summary();
	rte_eal_cleanup();
	return r;
}
