/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of net_hsplit's Linux-interface backend (iface=): the
 * port sits on the root-namespace end of a veth pair whose other end (eth0)
 * is in a network namespace with an IPv4 address, and talks to the kernel
 * there. test_iface.sh creates and removes the namespace (scripts/netns.sh)
 * and passes its names in the environment:
 *   DT_IFACE  the root-namespace end (the port's iface=)
 *   DT_NS     the namespace; its eth0 has DT_PEER_IP/24
 *   DT_TMP    a scratch folder; background commands' pids go to DT_TMP/pids
 *
 * Cases: ARP and ICMP from the kernel's ping, answered by the test (the
 * replies cross back, so ping succeeds); UDP from socat split into header
 * and copy-engine payload with good checksums, jumbo included; a frame with
 * a partial checksum (veth TX checksum offload on) completed by the NIC; a
 * TCP SYN from socat split with an empty payload segment, answered with an
 * RST the kernel accepts; UDP datagrams sent with TX checksum offload
 * received by socat (and one with a bad checksum dropped by the kernel);
 * then a printed (not asserted) measurement of frames/s from a UDP blast.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dt_copy.h"
#include "dt_net_cksum.h"
#include "dt_test.h"
#include "rte_pmd_hsplit.h"

#define PORT_NAME "net_hsplit_if0"
#define NB_RXQ 2
#define Q_TCP 0        /* TCP split; ARP, ICMP and the rest (nomatch) */
#define Q_UDP 1        /* UDP split, steered by rte_flow */
#define HDR_ROOM (RTE_PKTMBUF_HEADROOM + 2048)
#define PAY_ROOM 9216
#define PAY_NB 1024
#define MY_PORT_UDP 9000
#define PEER_PORT_UDP 9001
#define MY_PORT_TCP 5001
#define BLAST_PORT 9002
#define M_L2L3 (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN)

static const char *ifname, *ns, *tmp;
static uint16_t port;
static struct rte_ether_addr my_mac, peer_mac;
static uint32_t my_ip, peer_ip;     /* host order */
static char my_ip_s[16], peer_ip_s[16];
static struct rte_mempool *hdr_pool, *pay_pool, *tx_pool;
static void *pay_mem;
static size_t pay_len;
static struct dt_copy_engine *pay_ce;
static struct rte_flow *udp_flow;

/* Frames the responder kept for the case to look at. */
#define KEEP_MAX 64
static struct rte_mbuf *kept[KEEP_MAX];
static uint16_t kept_q[KEEP_MAX];
static unsigned int nb_kept;
static unsigned int arp_requests, echo_requests, echo_replies;

/* ---- shell helpers ---- */

static int
shell(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	if (r == -1 || !WIFEXITED(r))
		return -1;
	return WEXITSTATUS(r);
}

/*
 * Start @p cmd in the background, in a process group of its own (setsid) so
 * that it and its children can be ended together; its output goes to
 * DT_TMP/<tag>.out and its exit status to DT_TMP/<tag>.rc when it ends. The
 * group's id goes to DT_TMP/<tag>.pid and DT_TMP/pids (for the wrapper's
 * clean-up). Commands carry their own time limits as well, with timeout
 * --foreground: a plain timeout moves to a process group of its own.
 */
static void
spawn(const char *tag, const char *fmt, ...)
{
	char cmd[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	shell("rm -f %s/%s.rc; setsid sh -c '(%s) > %s/%s.out 2>&1; echo $? > %s/%s.rc.t; "
		"mv %s/%s.rc.t %s/%s.rc' < /dev/null & echo $! > %s/%s.pid; cat %s/%s.pid >> %s/pids",
		tmp, tag, cmd, tmp, tag, tmp, tag, tmp, tag, tmp, tag, tmp, tag,
		tmp, tag, tmp);
}

/* End a spawned command and its children (its process group). */
static void
spawn_kill(const char *tag)
{
	char path[512];
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/%s.pid", tmp, tag);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fscanf(f, "%d", &pid) == 1 && pid > 1)
		kill(-pid, SIGTERM);
	fclose(f);
}

/* Exit status of a spawned command, or -1 while it runs. */
static int
spawn_rc(const char *tag)
{
	char path[512];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/%s.rc", tmp, tag);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &rc) != 1)
		rc = -1;
	fclose(f);
	return rc;
}

static long
file_size(const char *tag)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tmp, tag);
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void
show_out(const char *tag)
{
	shell("sed 's/^/  %s: /' %s/%s.out 2>/dev/null", tag, tmp, tag);
}

/* Deterministic payload byte @p i. */
static inline uint8_t
pay_byte(uint32_t i)
{
	return (uint8_t)(i * 31u + 7u);
}

static int
write_payload(const char *tag, uint32_t len)
{
	char path[512];
	uint32_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, tag);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	for (i = 0; i < len; i++)
		fputc(pay_byte(i), f);
	return fclose(f);
}

/* ---- frames ---- */

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static size_t
eth_hdr(uint8_t *f, const struct rte_ether_addr *dst, uint16_t type)
{
	memcpy(f, dst->addr_bytes, 6);
	memcpy(f + 6, my_mac.addr_bytes, 6);
	put16(f + 12, type);
	return 14;
}

/* IPv4 header with a zero checksum (TX offload fills it). */
static size_t
ip_hdr(uint8_t *ip, uint8_t proto, uint16_t l4_len)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + l4_len));
	put16(ip + 4, 0x1234);
	put16(ip + 6, 0x4000);  /* DF */
	ip[8] = 64;
	ip[9] = proto;
	put32(ip + 12, my_ip);
	put32(ip + 16, peer_ip);
	return 20;
}

/* An mbuf chain holding @p len bytes of @p f in segments of at most @p seg bytes. */
static struct rte_mbuf *
mk_pkt(const uint8_t *f, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t pos = 0, n;

	while (pos < len) {
		n = RTE_MIN(seg, len - pos);
		m = rte_pktmbuf_alloc(tx_pool);
		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), f + pos, n);
		if (head == NULL)
			head = m;
		else
			rte_pktmbuf_chain(head, m);
		pos += n;
	}
	return head;
}

static int
send_pkt(struct rte_mbuf *m)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz();

	if (m == NULL)
		return -1;
	while (rte_eth_tx_burst(port, 0, &m, 1) == 0) {
		if (rte_get_timer_cycles() > end) {
			rte_pktmbuf_free(m);
			return -1;
		}
	}
	return 0;
}

/* A UDP datagram to the namespace, checksums by TX offload unless @p bad. */
static struct rte_mbuf *
mk_udp(uint16_t sport, uint16_t dport, uint32_t len, int bad)
{
	static uint8_t f[9100];
	uint8_t *ip, *udp;
	struct rte_mbuf *m;
	uint32_t i;

	eth_hdr(f, &peer_mac, RTE_ETHER_TYPE_IPV4);
	ip = f + 14;
	ip_hdr(ip, IPPROTO_UDP, (uint16_t)(8 + len));
	udp = ip + 20;
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, (uint16_t)(8 + len));
	put16(udp + 6, 0xdead);  /* garbage: the offload overwrites it */
	for (i = 0; i < len; i++)
		udp[8 + i] = pay_byte(i);
	if (bad) {
		put16(ip + 10, dt_net_ipv4_hdr_cksum(ip, 20));
		put16(udp + 6, 0x0bad);
	}
	/* Several segments: the NIC gathers them. */
	m = mk_pkt(f, 14 + 20 + 8 + len, 1500);
	if (m != NULL && !bad) {
		m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
			RTE_MBUF_F_TX_UDP_CKSUM;
		m->l2_len = 14;
		m->l3_len = 20;
	}
	return m;
}

/* Answer an ARP request for my_ip. */
static void
arp_reply(const uint8_t *req)
{
	uint8_t f[60] = { 0 };
	struct rte_ether_addr dst;

	memcpy(dst.addr_bytes, req + 6, 6);
	eth_hdr(f, &dst, RTE_ETHER_TYPE_ARP);
	put16(f + 14, 1);         /* Ethernet */
	put16(f + 16, 0x0800);    /* IPv4 */
	f[18] = 6;
	f[19] = 4;
	put16(f + 20, 2);         /* reply */
	memcpy(f + 22, my_mac.addr_bytes, 6);
	put32(f + 28, my_ip);
	memcpy(f + 32, req + 22, 6);  /* sender of the request */
	memcpy(f + 38, req + 28, 4);
	send_pkt(mk_pkt(f, sizeof(f), 64));
}

/* Echo reply from an echo request (@p len bytes at @p req): IP checksum by offload. */
static void
echo_reply(const uint8_t *req, uint32_t len)
{
	uint8_t f[2048];
	struct rte_mbuf *m;
	uint32_t ihl = (uint32_t)(req[14] & 0xf) * 4, tot = get16(req + 16);
	uint8_t *ip = f + 14, *icmp;

	if (len > sizeof(f) || 14 + tot > len)
		return;
	memcpy(f, req, 14 + tot);
	memcpy(f, req + 6, 6);
	memcpy(f + 6, my_mac.addr_bytes, 6);
	memcpy(ip + 12, req + 14 + 16, 4);
	memcpy(ip + 16, req + 14 + 12, 4);
	ip[8] = 64;
	put16(ip + 10, 0);
	icmp = ip + ihl;
	icmp[0] = 0;  /* echo reply */
	put16(icmp + 2, 0);
	put16(icmp + 2, dt_net_cksum(icmp, tot - ihl));
	m = mk_pkt(f, 14 + tot, 2048);
	if (m == NULL)
		return;
	m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	m->l2_len = 14;
	m->l3_len = (uint8_t)ihl;
	if (send_pkt(m) == 0)
		echo_replies++;
}

/*
 * The test's host: answers ARP and ICMP echo for my_ip, keeps other frames
 * for the case (up to KEEP_MAX), frees the rest.
 */
static void
handle(struct rte_mbuf *m, uint16_t q)
{
	uint8_t buf[2048];
	const uint8_t *f;
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));

	/* Headers live in the first (host) segment; nomatch frames are all host. */
	f = rte_pktmbuf_read(m, 0, RTE_MIN(len, (uint32_t)m->data_len), buf);
	if (f != NULL && len >= 42 && get16(f + 12) == RTE_ETHER_TYPE_ARP &&
			get16(f + 20) == 1 && get32(f + 38) == my_ip) {
		arp_requests++;
		arp_reply(f);
		rte_pktmbuf_free(m);
		return;
	}
	if (f != NULL && m->nb_segs == 1 && len >= 42 &&
			get16(f + 12) == RTE_ETHER_TYPE_IPV4 && f[23] == IPPROTO_ICMP &&
			get32(f + 30) == my_ip &&
			f[14 + (f[14] & 0xf) * 4] == 8) {
		echo_requests++;
		echo_reply(f, len);
		rte_pktmbuf_free(m);
		return;
	}
	if (nb_kept < KEEP_MAX) {
		kept_q[nb_kept] = q;
		kept[nb_kept++] = m;
	} else {
		rte_pktmbuf_free(m);
	}
}

static void
drop_kept(void)
{
	while (nb_kept > 0)
		rte_pktmbuf_free(kept[--nb_kept]);
}

/* Poll both queues for @p ms or until @p done() says so. */
static void
service(unsigned int ms, int (*done)(void))
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;
	struct rte_mbuf *pk[32];
	uint16_t q, k, i;

	while (rte_get_timer_cycles() < end) {
		for (q = 0; q < NB_RXQ; q++) {
			k = rte_eth_rx_burst(port, q, pk, RTE_DIM(pk));
			for (i = 0; i < k; i++)
				handle(pk[i], q);
		}
		if (done != NULL && done())
			return;
	}
}

static uint64_t
xstat(const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) == 0)
		rte_eth_xstats_get_by_id(port, &id, &v, 1);
	return v;
}

/* Kept frame @p i's UDP/TCP header at @p l4 (first segment); NULL if not IPv4 TCP/UDP. */
static const uint8_t *
kept_l4(unsigned int i, uint8_t proto)
{
	const struct rte_mbuf *m = kept[i];
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	if (m->data_len < 34 || get16(f + 12) != RTE_ETHER_TYPE_IPV4 ||
			f[23] != proto)
		return NULL;
	if (m->data_len < 14 + (f[14] & 0xf) * 4 + 8)
		return NULL;
	return f + 14 + (f[14] & 0xf) * 4;
}

/* The kept UDP datagram to @p dport, or -1. */
static int
find_udp(uint16_t dport)
{
	const uint8_t *u;
	unsigned int i;

	for (i = 0; i < nb_kept; i++)
		if ((u = kept_l4(i, IPPROTO_UDP)) != NULL && get16(u + 2) == dport)
			return (int)i;
	return -1;
}

/* Payload of a split frame equals the pattern; read through the engine's CPU side (same memory here). */
static int
split_payload_ok(const struct rte_mbuf *m, uint32_t len)
{
	const struct rte_mbuf *s;
	uint32_t i = 0, k;

	for (s = m->next; s != NULL; s = s->next) {
		const uint8_t *d = rte_pktmbuf_mtod(s, const uint8_t *);

		if ((uintptr_t)d < (uintptr_t)pay_mem ||
				(uintptr_t)d + s->data_len > (uintptr_t)pay_mem + pay_len)
			return 0;
		for (k = 0; k < s->data_len; k++, i++)
			if (d[k] != pay_byte(i))
				return 0;
	}
	return i == len;
}

/* ---- cases ---- */

static int
ping_done(void)
{
	return spawn_rc("ping") >= 0;
}

/* ARP and ICMP from the kernel; the test's replies cross back. */
static void
test_ping_arp(void)
{
	int rc;

	arp_requests = echo_requests = echo_replies = 0;
	shell("ip -n %s neigh flush dev eth0 >/dev/null 2>&1", ns);
	spawn("ping", "ip netns exec %s ping -n -c 3 -i 0.2 -w 4 %s", ns, my_ip_s);
	service(4500, ping_done);
	rc = spawn_rc("ping");
	if (rc != 0)
		show_out("ping");
	DT_CHECK(arp_requests >= 1);
	DT_CHECK_EQ(echo_requests, 3);
	DT_CHECK_EQ(echo_replies, 3);
	DT_CHECK_EQ(rc, 0);  /* the kernel took our ARP and echo replies */
	DT_CHECK(xstat("iface_rx_frames") >= 4);
	DT_CHECK(xstat("iface_tx_frames") >= 4);
	drop_kept();
}

static int
have_udp(void)
{
	return find_udp(MY_PORT_UDP) >= 0;
}

/* One datagram of @p len bytes from socat in the namespace; split on Q_UDP. */
static void
udp_rx_one(uint32_t len, int expect_completed)
{
	char tag[32];
	struct rte_mbuf *m;
	uint64_t compl0 = xstat("iface_rx_csum_completed");
	uint64_t split0 = xstat("rx_q1_split_packets");
	int i;

	snprintf(tag, sizeof(tag), "pay%u", len);
	DT_REQUIRE(write_payload(tag, len) == 0);
	DT_REQUIRE(shell("ip netns exec %s timeout 3 socat -u -b %u OPEN:%s/%s "
		"UDP4-SENDTO:%s:%u,sourceport=40000", ns, len + 1, tmp, tag,
		my_ip_s, MY_PORT_UDP) == 0);
	service(1000, have_udp);
	i = find_udp(MY_PORT_UDP);
	DT_REQUIRE(i >= 0);
	m = kept[i];
	DT_CHECK_EQ(kept_q[i], Q_UDP);
	DT_CHECK_EQ(m->pkt_len, 42 + len);
	DT_CHECK_EQ(m->nb_segs, 2);
	DT_CHECK_EQ(m->data_len, 42);   /* Ethernet + IPv4 + UDP */
	DT_CHECK(m->next != NULL && m->next->pool == pay_pool);
	DT_CHECK(split_payload_ok(m, len));
	DT_CHECK((m->packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_UDP);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	DT_CHECK_EQ(xstat("rx_q1_split_packets") - split0, 1);
	DT_CHECK_EQ(xstat("iface_rx_csum_completed") - compl0, expect_completed);
	DT_CHECK_EQ(xstat("rx_q1_l4_cksum_errors"), 0);
	drop_kept();
}

/* UDP from the kernel, split into header mbuf + copy-engine payload. */
static void
test_udp_rx_split(void)
{
	uint64_t copy0 = xstat("rx_q1_copy_bytes");

	/* The kernel knows our MAC from ARP; make it permanent for the rest. */
	DT_REQUIRE(shell("ip -n %s neigh replace %s lladdr %02x:%02x:%02x:%02x:%02x:%02x "
		"dev eth0 nud permanent", ns, my_ip_s, RTE_ETHER_ADDR_BYTES(&my_mac)) == 0);
	udp_rx_one(100, 0);
	udp_rx_one(1472, 0);
	udp_rx_one(8000, 0);  /* jumbo: MTU 9000 on both ends */
	DT_CHECK_EQ(xstat("rx_q1_copy_bytes") - copy0, 100 + 1472 + 8000);
	DT_CHECK_EQ(xstat("iface_rx_truncated"), 0);
}

/* veth TX checksum offload on: a CHECKSUM_PARTIAL frame, completed by the NIC. */
static void
test_udp_rx_partial_cksum(void)
{
	DT_REQUIRE(shell("ip netns exec %s ethtool -K eth0 tx on >/dev/null", ns) == 0);
	udp_rx_one(700, 1);
	shell("ip netns exec %s ethtool -K eth0 tx off >/dev/null", ns);
}

/* Sixteen UDP flows, interleaved, with a per-flow sequence number. */
static const char fan_py[] =
	"import socket, struct, sys, time\n"
	"ip, port, flows, n = sys.argv[1], int(sys.argv[2]), 16, 40\n"
	"ss = []\n"
	"for f in range(flows):\n"
	"    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
	"    s.bind(('', 43000 + f))\n"
	"    ss.append(s)\n"
	"for i in range(n):\n"
	"    for f in range(flows):\n"
	"        ss[f].sendto(struct.pack('!HH', f, i) + bytes(200), (ip, port))\n"
	"    time.sleep(0.001)\n";
#define FAN_FLOWS 16
#define FAN_N 40

/* One datagram of the fanout case: in its flow's order? */
static int
fan_take(const struct rte_mbuf *m, uint16_t *next)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *), *d;
	uint16_t sport, fl, i;

	if (m->data_len != 42 || m->next == NULL || m->next->data_len < 4 ||
			get16(f + 12) != RTE_ETHER_TYPE_IPV4 || f[23] != IPPROTO_UDP ||
			get16(f + 36) != MY_PORT_UDP)
		return 0;
	sport = get16(f + 34);
	d = rte_pktmbuf_mtod(m->next, const uint8_t *);
	fl = get16(d);
	i = get16(d + 2);
	if (sport != 43000 + fl || fl >= FAN_FLOWS || i != next[fl])
		return -1;
	next[fl]++;
	return 1;
}

/*
 * Two RX queues: two RX sockets in a fanout group (iface_rx_sockets=0).
 * Sixteen flows from the namespace spread over both sockets, and every
 * datagram reaches Q_UDP (rte_flow) in its flow's order though only Q_UDP
 * is polled: the socket of the unpolled queue 0 is drained by queue 1 in
 * turn (without that, the flows hashed to it never arrive).
 */
static void
test_fanout(void)
{
	uint16_t next[FAN_FLOWS] = { 0 };
	struct rte_mbuf *pk[32];
	uint64_t hz = rte_get_timer_hz(), t0, quiet = 0;
	unsigned int got = 0, bad = 0, i;
	char path[512];
	uint16_t k;
	FILE *f;
	int r;

	DT_CHECK_EQ(xstat("iface_rx_sockets"), NB_RXQ);
	snprintf(path, sizeof(path), "%s/fan.py", tmp);
	f = fopen(path, "w");
	DT_REQUIRE(f != NULL);
	fputs(fan_py, f);
	DT_REQUIRE(fclose(f) == 0);
	rte_eth_xstats_reset(port);
	spawn("fan", "ip netns exec %s timeout --foreground 10 python3 %s %s %u",
		ns, path, my_ip_s, MY_PORT_UDP);
	t0 = rte_get_timer_cycles();
	while (got < FAN_FLOWS * FAN_N && rte_get_timer_cycles() - t0 < 5 * hz) {
		k = rte_eth_rx_burst(port, Q_UDP, pk, RTE_DIM(pk));
		for (i = 0; i < k; i++) {
			r = fan_take(pk[i], next);
			got += r == 1;
			bad += r < 0;
		}
		if (k)
			rte_pktmbuf_free_bulk(pk, k);
		/* The sender is done: give the rings 200 ms more. */
		if (k == 0 && spawn_rc("fan") >= 0) {
			if (quiet == 0)
				quiet = rte_get_timer_cycles();
			else if (rte_get_timer_cycles() - quiet > hz / 5)
				break;
		}
	}
	t0 = rte_get_timer_cycles();
	while (spawn_rc("fan") < 0 && rte_get_timer_cycles() - t0 < 3 * hz)
		rte_delay_ms(10);
	if (spawn_rc("fan") != 0)
		show_out("fan");
	DT_CHECK_EQ(spawn_rc("fan"), 0);
	DT_CHECK_EQ(bad, 0);            /* out of its flow's order */
	DT_CHECK_EQ(got, FAN_FLOWS * FAN_N);
	DT_CHECK_EQ(xstat("iface_rx_sockets_used"), NB_RXQ);
	DT_CHECK(xstat("iface_rx_drains") > 0);
	DT_CHECK(xstat("iface_rx_drain_cycles") > 0);
	DT_CHECK_EQ(xstat("iface_rx_kernel_drops"), 0);
}

/* Stop and start again: the rings are made anew and traffic flows. */
static void
test_restart(void)
{
	DT_REQUIRE(rte_eth_dev_stop(port) == 0);
	DT_REQUIRE(rte_eth_dev_start(port) == 0);
	udp_rx_one(64, 0);
}

/* Promiscuous membership of the RX socket shows in the interface's promiscuity. */
static void
test_promisc(void)
{
	DT_CHECK_EQ(rte_eth_promiscuous_enable(port), 0);
	DT_CHECK_EQ(shell("ip -d link show %s | grep -q 'promiscuity 1'", ifname), 0);
	DT_CHECK_EQ(rte_eth_promiscuous_disable(port), 0);
	DT_CHECK_EQ(shell("ip -d link show %s | grep -q 'promiscuity 0'", ifname), 0);
}

static int
have_vlan(void)
{
	unsigned int i;

	for (i = 0; i < nb_kept; i++)
		if (kept[i]->data_len >= 18 &&
				get16(rte_pktmbuf_mtod(kept[i], uint8_t *) + 12) == RTE_ETHER_TYPE_VLAN)
			return 1;
	return 0;
}

/*
 * A frame from a VLAN interface: the kernel hands the tag over out of band
 * (TP_STATUS_VLAN_VALID); the NIC puts it back in the frame as the wire had it.
 */
static void
test_vlan_rx(void)
{
	const struct rte_mbuf *m = NULL;
	const uint8_t *f;
	unsigned int i;

	if (shell("ip -n %s link add link eth0 name eth0.100 type vlan id 100 2>/dev/null", ns) != 0) {
		printf("  (no 802.1Q in this kernel: VLAN case not run)\n");
		return;
	}
	DT_REQUIRE(shell("ip -n %s addr add 10.78.0.2/24 dev eth0.100 && "
		"ip -n %s link set eth0.100 up && "
		"ip -n %s neigh replace 10.78.0.1 lladdr %02x:%02x:%02x:%02x:%02x:%02x "
		"dev eth0.100 nud permanent && echo -n vlan | ip netns exec %s "
		"timeout 3 socat -u - UDP4-SENDTO:10.78.0.1:%u", ns, ns, ns,
		RTE_ETHER_ADDR_BYTES(&my_mac), ns, MY_PORT_UDP) == 0);
	service(1000, have_vlan);
	for (i = 0; i < nb_kept && m == NULL; i++)
		if (kept[i]->data_len >= 18 && get16(rte_pktmbuf_mtod(kept[i],
				uint8_t *) + 12) == RTE_ETHER_TYPE_VLAN)
			m = kept[i];
	DT_REQUIRE(m != NULL);
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	DT_CHECK_EQ(get16(f + 14) & 0xfff, 100);
	DT_CHECK_EQ(get16(f + 16), RTE_ETHER_TYPE_IPV4);
	DT_CHECK_EQ(m->pkt_len, 18 + 20 + 8 + 4);
	DT_CHECK((m->packet_type & RTE_PTYPE_L2_MASK) == RTE_PTYPE_L2_ETHER_VLAN);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	shell("ip -n %s link del eth0.100", ns);
	drop_kept();
}

static int
have_syn(void)
{
	const uint8_t *t;
	unsigned int i;

	for (i = 0; i < nb_kept; i++)
		if ((t = kept_l4(i, IPPROTO_TCP)) != NULL &&
				get16(t + 2) == MY_PORT_TCP && (t[13] & 0x02))
			return 1;
	return 0;
}

static int
connect_done(void)
{
	return spawn_rc("connect") >= 0;
}

/* A SYN from the kernel: header segment only; our RST refuses the connection. */
static void
test_tcp_syn(void)
{
	const struct rte_mbuf *m = NULL;
	const uint8_t *t = NULL, *f;
	uint8_t r[54];
	struct rte_mbuf *rst;
	unsigned int i;
	uint32_t thl;
	int rc;

	spawn("connect", "ip netns exec %s timeout --foreground 5 socat -u /dev/null "
		"TCP4:%s:%u,connect-timeout=3", ns, my_ip_s, MY_PORT_TCP);
	service(2000, have_syn);
	for (i = 0; i < nb_kept; i++) {
		t = kept_l4(i, IPPROTO_TCP);
		if (t != NULL && get16(t + 2) == MY_PORT_TCP) {
			m = kept[i];
			break;
		}
	}
	DT_REQUIRE(m != NULL);
	thl = (uint32_t)(t[12] >> 4) * 4;
	DT_CHECK_EQ(kept_q[i], Q_TCP);
	DT_CHECK(t[13] == 0x02);  /* SYN alone */
	DT_CHECK_EQ(m->pkt_len, 34 + thl);
	DT_CHECK_EQ(m->nb_segs, 2);
	DT_CHECK_EQ(m->data_len, 34 + thl);
	DT_CHECK(m->next != NULL && m->next->data_len == 0);
	DT_CHECK((m->packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_TCP);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	DT_CHECK((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	DT_CHECK_EQ(xstat("rx_q0_split_packets"), 1);
	/* RST|ACK, TCP checksum by TX offload. */
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	memset(r, 0, sizeof(r));
	memcpy(r, f + 6, 6);
	memcpy(r + 6, my_mac.addr_bytes, 6);
	put16(r + 12, RTE_ETHER_TYPE_IPV4);
	ip_hdr(r + 14, IPPROTO_TCP, 20);
	put16(r + 34, MY_PORT_TCP);
	put16(r + 36, get16(t));
	put32(r + 38, 0);
	put32(r + 42, get32(t + 4) + 1);
	r[46] = 5 << 4;
	r[47] = 0x14;  /* RST|ACK */
	put16(r + 50, 0xbeef);  /* garbage: the offload overwrites it */
	rst = mk_pkt(r, sizeof(r), 64);
	DT_REQUIRE(rst != NULL);
	rst->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
		RTE_MBUF_F_TX_TCP_CKSUM;
	rst->l2_len = 14;
	rst->l3_len = 20;
	drop_kept();
	DT_REQUIRE(send_pkt(rst) == 0);
	service(3000, connect_done);
	rc = spawn_rc("connect");
	DT_CHECK(rc > 0 && rc != 124);
	/* Refused (our RST was taken), not timed out. */
	DT_CHECK_EQ(shell("grep -q 'Connection refused' %s/connect.out", tmp), 0);
	if (rc <= 0 || rc == 124)
		show_out("connect");
	drop_kept();
}

static long want_size;

static int
got_size(void)
{
	return file_size("udp_rx") >= want_size;
}

/* UDP datagrams with TX checksum offload, received by socat in the namespace. */
static void
test_udp_tx_offload(void)
{
	const uint32_t n = 8, len = 1000, jumbo = 8000;
	uint64_t tx0 = xstat("iface_tx_frames");
	long size;
	uint32_t i;
	int up = 0;

	spawn("udprecv", "ip netns exec %s timeout --foreground 10 socat -u -b 65536 "
		"UDP4-RECV:%u OPEN:%s/udp_rx,creat,trunc", ns, PEER_PORT_UDP, tmp);
	for (i = 0; i < 100 && !up; i++) {
		up = shell("ip netns exec %s ss -Hnlu 'sport = :%u' | grep -q .",
			ns, PEER_PORT_UDP) == 0;
		if (!up)
			usleep(20000);
	}
	DT_REQUIRE(up);
	/* A bad checksum first: the kernel must drop it. */
	DT_REQUIRE(send_pkt(mk_udp(41000, PEER_PORT_UDP, len, 1)) == 0);
	for (i = 0; i < n; i++)
		DT_REQUIRE(send_pkt(mk_udp(41000, PEER_PORT_UDP, len, 0)) == 0);
	DT_REQUIRE(send_pkt(mk_udp(41000, PEER_PORT_UDP, jumbo, 0)) == 0);
	want_size = (long)(n * len + jumbo);
	service(2000, got_size);
	usleep(100000);  /* a stray datagram (the bad one) would land by now */
	size = file_size("udp_rx");
	DT_CHECK_EQ(size, want_size);
	DT_CHECK_EQ(xstat("iface_tx_frames") - tx0, n + 2);
	DT_CHECK_EQ(xstat("iface_tx_too_big"), 0);
	/* What socat wrote is the pattern, datagram after datagram. */
	DT_REQUIRE(write_payload("pay1000", len) == 0);
	DT_REQUIRE(write_payload("pay8000", jumbo) == 0);
	DT_CHECK_EQ(shell("cd %s && for i in $(seq %u); do cat pay1000; done > want && "
		"cat pay8000 >> want && cmp -s want udp_rx", tmp, n), 0);
	spawn_kill("udprecv");
	drop_kept();
}

static uint64_t
ns_stat(const char *what)
{
	char path[512];
	unsigned long long v = 0;
	FILE *f;

	shell("ip netns exec %s cat /sys/class/net/eth0/statistics/%s > %s/stat",
		ns, what, tmp);
	snprintf(path, sizeof(path), "%s/stat", tmp);
	f = fopen(path, "r");
	if (f != NULL) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * Many frames through one TX queue: the ring wraps several times, slots
 * come back from the kernel, tx_burst holds back (never drops) when they
 * have not yet; the kernel on the other side gets every frame.
 */
static void
test_tx_ring_wrap(void)
{
	const uint32_t n = 4000, len = 1000;
	struct rte_mbuf *pk[32];
	uint64_t rx0 = ns_stat("rx_packets"), drop0 = ns_stat("rx_dropped");
	uint64_t tx0 = xstat("iface_tx_frames"), t0, t1, hz = rte_get_timer_hz();
	uint32_t sent = 0, i, k;
	uint16_t q;

	t0 = rte_get_timer_cycles();
	while (sent < n && rte_get_timer_cycles() - t0 < 5 * hz) {
		k = RTE_MIN((uint32_t)RTE_DIM(pk), n - sent);
		for (i = 0; i < k; i++)
			if ((pk[i] = mk_udp(41001, 9, len, 0)) == NULL)
				break;
		DT_REQUIRE(i == k);
		i = rte_eth_tx_burst(port, 0, pk, (uint16_t)k);
		sent += i;
		if (i < k)
			rte_pktmbuf_free_bulk(pk + i, k - i);
		/* ICMP port unreachable comes back: keep the RX side moving. */
		for (q = 0; q < NB_RXQ; q++) {
			k = rte_eth_rx_burst(port, q, pk, RTE_DIM(pk));
			rte_pktmbuf_free_bulk(pk, k);
		}
	}
	t1 = rte_get_timer_cycles() - t0;
	service(200, NULL);
	drop_kept();
	printf("tx: %u frames of %u bytes in %.3f s = %.0f frames/s; namespace got %" PRIu64
		", dropped %" PRIu64 "; ring full %" PRIu64 "\n", sent, 42 + len,
		(double)t1 / hz, (double)sent * hz / t1, ns_stat("rx_packets") - rx0,
		ns_stat("rx_dropped") - drop0, xstat("iface_tx_ring_full"));
	DT_CHECK_EQ(sent, n);
	DT_CHECK_EQ(xstat("iface_tx_frames") - tx0, n);
	DT_CHECK_EQ(xstat("iface_tx_ring_full"), 0);
	DT_CHECK_EQ(ns_stat("rx_packets") - rx0, n);
}

static int blast_over;

static int
blast_done(void)
{
	return blast_over = spawn_rc("blast") >= 0;
}

static unsigned long
env_ul(const char *name, unsigned long dflt, unsigned long lo, unsigned long hi)
{
	const char *v = getenv(name);
	unsigned long x;

	if (v == NULL || *v == '\0')
		return dflt;
	x = strtoul(v, NULL, 0);
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * Frames/s from a kernel UDP blast (printed, not asserted): socat senders in
 * the namespace, as fast as the kernel takes datagrams. Knobs for manual
 * runs: DT_BLAST_SECONDS (1), DT_BLAST_SIZE (UDP payload, 1400),
 * DT_BLAST_SENDERS (1).
 */
static void
test_blast_measure(void)
{
	const unsigned long secs = env_ul("DT_BLAST_SECONDS", 1, 1, 60);
	const unsigned long size = env_ul("DT_BLAST_SIZE", 1400, 1, 8900);
	const unsigned long senders = env_ul("DT_BLAST_SENDERS", 1, 1, 16);
	struct rte_mbuf *pk[64];
	uint64_t t0, t1, got = 0, first = 0, last = 0, tx0, txd0, tx, kd, qd, vd;
	uint64_t hz = rte_get_timer_hz();
	char cmd[1024];
	size_t off = 0;
	unsigned long i;
	uint16_t q, k;

	rte_eth_xstats_reset(port);
	tx0 = ns_stat("tx_packets");
	txd0 = ns_stat("tx_dropped");
	for (i = 0; i < senders && off < sizeof(cmd); i++)
		off += (size_t)snprintf(cmd + off, sizeof(cmd) - off,
			"%stimeout --foreground %lu socat -u -b %lu /dev/zero UDP4-SENDTO:%s:%u,sourceport=%lu",
			i ? " & " : "", secs, size, my_ip_s, BLAST_PORT, 42000 + i);
	spawn("blast", "ip netns exec %s sh -c \"%s; wait\"", ns, cmd);
	t0 = rte_get_timer_cycles();
	blast_over = 0;
	while (rte_get_timer_cycles() - t0 < (secs + 2) * hz) {
		for (q = 0; q < NB_RXQ; q++) {
			k = rte_eth_rx_burst(port, q, pk, RTE_DIM(pk));
			if (k) {
				if (got == 0)
					first = rte_get_timer_cycles();
				last = rte_get_timer_cycles();
				got += k;
				rte_pktmbuf_free_bulk(pk, k);
			}
		}
		if (!blast_over)
			blast_done();
		else if (rte_get_timer_cycles() - last > hz / 10)
			break;
	}
	t1 = last > first ? last - first : 1;
	tx = ns_stat("tx_packets") - tx0;
	vd = ns_stat("tx_dropped") - txd0;
	kd = xstat("iface_rx_kernel_drops");
	qd = xstat("rx_q1_drop_ring_full");
	printf("blast: %lu sender(s), kernel sent %" PRIu64 " frames of %lu bytes; port received %" PRIu64
		" in %.3f s = %.0f frames/s (%.2f Gb/s); drops: veth %" PRIu64
		", AF_PACKET ring %" PRIu64 ", queue ring %" PRIu64 ", unaccounted %" PRId64 "\n",
		senders, tx + vd, size + 42, got, (double)t1 / hz, (double)got * hz / t1,
		(double)got * (size + 42) * 8 * hz / t1 / 1e9, vd, kd, qd,
		(int64_t)tx - (int64_t)got - (int64_t)kd - (int64_t)qd);
	DT_CHECK(got > 0);
	DT_CHECK_EQ(xstat("iface_rx_truncated"), 0);
}

/* ---- set-up ---- */

static int
read_mac(const char *cmd, struct rte_ether_addr *mac)
{
	char path[512];
	unsigned int b[6];
	FILE *f;
	int i, ok;

	shell("%s > %s/mac", cmd, tmp);
	snprintf(path, sizeof(path), "%s/mac", tmp);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	ok = fscanf(f, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		&b[5]) == 6;
	fclose(f);
	for (i = 0; i < 6; i++)
		mac->addr_bytes[i] = (uint8_t)b[i];
	return ok ? 0 : -1;
}

static int
rxq_setup(uint16_t q, uint32_t proto)
{
	union rte_eth_rxseg rs[2];
	struct rte_eth_rxconf rxc = { 0 };

	memset(rs, 0, sizeof(rs));
	rs[0].split.mp = hdr_pool;
	rs[0].split.proto_hdr = proto;
	rs[1].split.mp = pay_pool;
	rxc.offloads = RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
	rxc.rx_seg = rs;
	rxc.rx_nseg = 2;
	return rte_eth_rx_queue_setup(port, q, 1024, 0, &rxc, NULL);
}

static int
port_setup(void)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	struct rte_pktmbuf_extmem ext;
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue qa = { .index = Q_UDP };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &qa },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;
	char args[64];

	snprintf(args, sizeof(args), "iface=%s", ifname);
	if (rte_vdev_init(PORT_NAME, args) != 0 ||
			rte_eth_dev_get_port_by_name(PORT_NAME, &port) != 0) {
		fprintf(stderr, "cannot create %s,%s\n", PORT_NAME, args);
		return -1;
	}
	hdr_pool = rte_pktmbuf_pool_create("if_hdr", 4096, 64, 0, HDR_ROOM, 0);
	tx_pool = rte_pktmbuf_pool_create("if_tx", 4096, 64, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	/* Payload buffers in a copy-engine window (a CPU engine over host memory). */
	pay_len = (size_t)PAY_ROOM * PAY_NB;
	pay_mem = rte_malloc("if_window", pay_len, 4096);
	if (hdr_pool == NULL || tx_pool == NULL || pay_mem == NULL)
		return -1;
	pay_ce = dt_copy_cpu_engine_create(pay_mem, pay_len, pay_mem);
	if (pay_ce == NULL || dt_copy_registry_add(pay_ce) != 0)
		return -1;
	ext = (struct rte_pktmbuf_extmem){ .buf_ptr = pay_mem,
		.buf_iova = rte_malloc_virt2iova(pay_mem), .buf_len = pay_len,
		.elt_size = PAY_ROOM };
	pay_pool = rte_pktmbuf_pool_create_extbuf("if_pay", PAY_NB, 0, 0,
		PAY_ROOM, 0, &ext, 1);
	if (pay_pool == NULL || rte_eth_dev_info_get(port, &info) != 0 ||
			rte_dev_dma_map(info.device, pay_mem, ext.buf_iova, pay_len) != 0)
		return -1;
	conf.rxmode.mtu = 9000;
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
		RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (rte_eth_dev_configure(port, NB_RXQ, 1, &conf) != 0 ||
			rxq_setup(Q_TCP, M_L2L3 | RTE_PTYPE_L4_TCP) != 0 ||
			rxq_setup(Q_UDP, M_L2L3 | RTE_PTYPE_L4_UDP) != 0 ||
			rte_eth_tx_queue_setup(port, 0, 512, 0, NULL) != 0 ||
			rte_eth_dev_start(port) != 0) {
		fprintf(stderr, "port set-up failed\n");
		return -1;
	}
	udp_flow = rte_flow_create(port, &attr, pattern, actions, &err);
	if (udp_flow == NULL) {
		fprintf(stderr, "rte_flow UDP -> queue %d: %s\n", Q_UDP,
			err.message ? err.message : "?");
		return -1;
	}
	return 0;
}

/* A number a command prints (first line). */
static int
read_u32(const char *cmd, uint32_t *v)
{
	char path[512];
	FILE *f;
	int ok;

	shell("%s > %s/num", cmd, tmp);
	snprintf(path, sizeof(path), "%s/num", tmp);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	ok = fscanf(f, "%u", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/*
 * The NIC reports what the interface carries: max_mtu is the interface's
 * MTU, read again at each query (lib/dp clamps its MTU and MSS to it), and
 * a port MTU above it is refused; coalesced TCP frames are offered as LRO.
 */
static void
test_max_mtu_follows_iface(void)
{
	struct rte_eth_dev_info info;
	uint32_t ifmtu = 0;
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cat /sys/class/net/%s/mtu", ifname);
	DT_REQUIRE(read_u32(cmd, &ifmtu) == 0);
	DT_REQUIRE(rte_eth_dev_info_get(port, &info) == 0);
	printf("  %s MTU %u: max_mtu %u, max_rx_pktlen %u\n", ifname, ifmtu,
		info.max_mtu, info.max_rx_pktlen);
	DT_CHECK_EQ(info.max_mtu, RTE_MIN(ifmtu, 9000u));
	DT_CHECK_EQ(info.max_rx_pktlen, info.max_mtu + RTE_ETHER_HDR_LEN + 8);
	DT_CHECK(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_LRO);
	DT_CHECK(info.max_lro_pkt_size >= 65535);
	/* The interface's MTU goes down: so does what the port reports. */
	DT_REQUIRE(shell("ip link set dev %s mtu 1400", ifname) == 0);
	DT_CHECK_EQ(rte_eth_dev_info_get(port, &info), 0);
	DT_CHECK_EQ(info.max_mtu, 1400);
	/* ethdev refuses an MTU above it (the port keeps its own). */
	DT_CHECK_EQ(rte_eth_dev_set_mtu(port, 1500), -EINVAL);
	DT_CHECK_EQ(shell("ip link set dev %s mtu %u", ifname, ifmtu), 0);
	DT_CHECK_EQ(rte_eth_dev_info_get(port, &info), 0);
	DT_CHECK_EQ(info.max_mtu, RTE_MIN(ifmtu, 9000u));
}

/*
 * The pool of coalesced frames exists once a port started with LRO (an
 * application registers it with its copy engine then, as the wire pool),
 * not before and not on a port without LRO.
 */
static void
test_lro_pool(void)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_mempool *mp;
	uint16_t p7;
	char args[64];

	rte_errno = 0;
	DT_CHECK(rte_pmd_hsplit_lro_pool(port) == NULL);   /* LRO off */
	DT_CHECK_EQ(rte_errno, ENOENT);
	DT_CHECK(rte_pmd_hsplit_lro_pool(RTE_MAX_ETHPORTS - 1) == NULL);
	snprintf(args, sizeof(args), "iface=%s,iface_ring=256", ifname);
	DT_REQUIRE(rte_vdev_init("net_hsplit_if7", args) == 0);
	DT_REQUIRE(rte_eth_dev_get_port_by_name("net_hsplit_if7", &p7) == 0);
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_TCP_LRO;
	conf.rxmode.max_lro_pkt_size = 65535;
	DT_REQUIRE(rte_eth_dev_configure(p7, 1, 1, &conf) == 0);
	DT_REQUIRE(rte_eth_rx_queue_setup(p7, 0, 512, 0, NULL, hdr_pool) == 0);
	DT_REQUIRE(rte_eth_tx_queue_setup(p7, 0, 512, 0, NULL) == 0);
	DT_CHECK(rte_pmd_hsplit_lro_pool(p7) == NULL);     /* not started */
	DT_REQUIRE(rte_eth_dev_start(p7) == 0);
	mp = rte_pmd_hsplit_lro_pool(p7);
	DT_CHECK(mp != NULL);
	if (mp != NULL) {
		snprintf(args, sizeof(args), "hsplit_lro_%u", p7);
		DT_CHECK(strcmp(mp->name, args) == 0);
		DT_CHECK(rte_mempool_lookup(args) == mp);
	}
	DT_CHECK_EQ(rte_eth_dev_stop(p7), 0);
	DT_CHECK_EQ(rte_eth_dev_close(p7), 0);
	DT_CHECK(rte_mempool_lookup(args) == NULL);
	rte_vdev_uninit("net_hsplit_if7");
}

/* Devargs and ethdev facts of an interface port. */
static void
test_port_basics(void)
{
	struct rte_ether_addr mac, ifmac;
	struct rte_eth_link link;
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cat /sys/class/net/%s/address", ifname);
	DT_REQUIRE(read_mac(cmd, &ifmac) == 0);
	DT_REQUIRE(rte_eth_macaddr_get(port, &mac) == 0);
	/* The interface's MAC is the port's by default. */
	DT_CHECK(rte_is_same_ether_addr(&mac, &ifmac));
	DT_CHECK_EQ(rte_eth_link_get_nowait(port, &link), 0);
	DT_CHECK_EQ(link.link_status, RTE_ETH_LINK_UP);
	/* wire= and iface= exclude each other; a missing interface is refused. */
	snprintf(cmd, sizeof(cmd), "iface=%s,wire=w", ifname);
	DT_CHECK(rte_vdev_init("net_hsplit_if9", cmd) != 0);
	DT_CHECK(rte_vdev_init("net_hsplit_if9", "iface=no_such_if0") != 0);
	DT_CHECK(rte_vdev_init("net_hsplit_if9", "iface=lo") != 0);  /* not Ethernet */
	DT_CHECK(rte_vdev_init("net_hsplit_if9", "iface_ring=128") != 0);
	snprintf(cmd, sizeof(cmd), "iface=%s,iface_ring=8", ifname);
	DT_CHECK(rte_vdev_init("net_hsplit_if9", cmd) != 0);
	/* mac= still wins over the interface's address. */
	snprintf(cmd, sizeof(cmd), "iface=%s,mac=02:00:00:00:00:08,iface_ring=256", ifname);
	DT_CHECK_EQ(rte_vdev_init("net_hsplit_if8", cmd), 0);
	{
		uint16_t p8;

		DT_REQUIRE(rte_eth_dev_get_port_by_name("net_hsplit_if8", &p8) == 0);
		DT_REQUIRE(rte_eth_macaddr_get(p8, &mac) == 0);
		DT_CHECK_EQ(mac.addr_bytes[5], 8);
		DT_CHECK_EQ(rte_vdev_uninit("net_hsplit_if8"), 0);
	}
}

int
main(int argc, char **argv)
{
	int ret;

	ifname = getenv("DT_IFACE");
	ns = getenv("DT_NS");
	tmp = getenv("DT_TMP");
	if (ifname == NULL || ns == NULL || tmp == NULL ||
			getenv("DT_MY_IP") == NULL || getenv("DT_PEER_IP") == NULL) {
		printf("SKIP: run through test_iface.sh (needs DT_IFACE, DT_NS, DT_TMP, DT_MY_IP, DT_PEER_IP)\n");
		return DT_TEST_EXIT_SKIP;
	}
	snprintf(my_ip_s, sizeof(my_ip_s), "%s", getenv("DT_MY_IP"));
	snprintf(peer_ip_s, sizeof(peer_ip_s), "%s", getenv("DT_PEER_IP"));
	if (inet_pton(AF_INET, my_ip_s, &my_ip) != 1 ||
			inet_pton(AF_INET, peer_ip_s, &peer_ip) != 1) {
		fprintf(stderr, "bad DT_MY_IP / DT_PEER_IP\n");
		return 1;
	}
	my_ip = ntohl(my_ip);
	peer_ip = ntohl(peer_ip);
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (port_setup() != 0) {
		fprintf(stderr, "set-up failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "ip netns exec %s cat /sys/class/net/eth0/address", ns);
		if (read_mac(cmd, &peer_mac) != 0 || rte_eth_macaddr_get(port, &my_mac) != 0) {
			fprintf(stderr, "cannot read the MAC addresses\n");
			return 1;
		}
	}
	DT_RUN(test_port_basics);
	DT_RUN(test_max_mtu_follows_iface);
	DT_RUN(test_lro_pool);
	DT_RUN(test_ping_arp);
	DT_RUN(test_udp_rx_split);
	DT_RUN(test_udp_rx_partial_cksum);
	DT_RUN(test_fanout);
	DT_RUN(test_vlan_rx);
	DT_RUN(test_promisc);
	DT_RUN(test_restart);
	DT_RUN(test_tcp_syn);
	DT_RUN(test_udp_tx_offload);
	DT_RUN(test_tx_ring_wrap);
	DT_RUN(test_blast_measure);
	drop_kept();
	rte_flow_destroy(port, udp_flow, NULL);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	ret = dt_test_summary();
	rte_eal_cleanup();
	return ret;
}
