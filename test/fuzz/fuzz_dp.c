/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: lib/dp's receive path with crafted frames, on the
 * software header-split NIC (net_hsplit, loopback wire) and a gpu_sim
 * payload region whose device mapping the CPU cannot touch (DESIGN rule
 * 1: a stray load of payload is a crash here).
 *
 * EAL starts once in LLVMFuzzerInitialize() (--in-memory --no-pci and the
 * vdevs). Port 0 is the wire's raw end: the harness transmits the input's
 * frames on it and reads what the stack answers (answering its ARP
 * requests). Port 1 splits Ethernet/IPv4/TCP headers into host mbufs and
 * payload into the region; a fresh stack polls it for each input, listens
 * on port 5001 and is destroyed at the end.
 *
 * Input: records until the end. A record is a flags byte and then either
 * a frame (16-bit length, bytes) or, with FZ_F_APP, one application call
 * byte. Frame flags ask the harness to make the frame acceptable so that
 * the fuzzer gets past the filters: real MACs, a right IPv4 header and TCP
 * checksum, the IPv4 total length of the frame, the ACK of the stack's last
 * segment. Checks: no sanitizer report, no CPU access to device memory,
 * every DATA chunk lies inside the region (device) or is host memory, and
 * once the stack is destroyed every header and payload mbuf is back in its
 * pool (nothing leaked, nothing freed twice: the counts match exactly).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dt_devmem.h"
#include "dt_dp.h"
#include "dt_dp_port.h"
#include "dt_net_bytes.h"
#include "dt_net_cksum.h"
#include "dt_net_eth.h"
#include "dt_net_tcp.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CLI_IP 0x0a000101u	/* 10.0.1.1, the peer */
#define FZ_SRV_IP 0x0a000102u	/* 10.0.1.2, the stack */
#define FZ_LISTEN 5001
#define FZ_FRAME_MAX 9018
#define FZ_FRAMES_MAX 64	/* per input: keeps an execution short */
#define FZ_HELD_MAX 256
#define FZ_NB_BUFS 2048
#define FZ_RXD 512

/* Record flags. */
#define FZ_F_MAC (1u << 0)	/* our MACs in the Ethernet header */
#define FZ_F_IPCK (1u << 1)	/* IPv4 header checksum right */
#define FZ_F_L4CK (1u << 2)	/* TCP checksum right (IPv4 total length) */
#define FZ_F_ACK (1u << 3)	/* TCP ack = end of the stack's last segment */
#define FZ_F_TOTLEN (1u << 4)	/* IPv4 total length = what the frame has */
#define FZ_F_HOLD (1u << 5)	/* keep this record's chunks unreleased */
#define FZ_F_APP (1u << 7)	/* an application call, not a frame */

#define FZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_dp: %s:%d: broken: %s: ", __FILE__, \
			__LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		abort(); \
	} \
} while (0)

static struct {
	uint16_t wport, sport;	/* wire end, stack's port */
	struct rte_mempool *w_pool, *s_hdr, *s_shell;
	struct dt_devmem_region *region;
	uintptr_t region_base;
	uint64_t region_len;
	uint8_t wmac[6], smac[6];
	uint8_t *tx_buf;	/* host payload for sends */
	uint64_t tx_iova;
	/* Per input. */
	struct dt_dp_stack *st;
	uint64_t held[FZ_HELD_MAX];
	unsigned int n_held;
	dt_dp_conn_t conn;	/* last accepted */
	uint32_t last_end;	/* the stack's last seq + len (+SYN/FIN) */
	bool hold;
	bool trace;		/* FUZZ_DP_TRACE: events and counters */
} fz;

static struct rte_mempool *
pool_new(const char *name, unsigned int n, uint16_t room)
{
	struct rte_mempool *p = rte_pktmbuf_pool_create(name, n, 0, 0, room,
		SOCKET_ID_ANY);

	FZ_CHECK(p != NULL, "pool %s: %s", name, rte_strerror(rte_errno));
	return p;
}

static void
ports_start(void)
{
	struct dt_dp_port_conf pc;
	char err[256];

	memset(&pc, 0, sizeof(pc));
	pc.nb_rxq = 1;
	pc.nb_txq = 1;
	pc.nb_rxd = FZ_RXD;
	pc.nb_txd = FZ_RXD;
	pc.hdr_pool = fz.w_pool;
	FZ_CHECK(dt_dp_port_start(fz.wport, &pc, err, sizeof(err)) == 0,
		"wire port: %s", err);
	pc.hdr_pool = fz.s_hdr;
	pc.pay_pool = dt_devmem_region_pool(fz.region);
	pc.split = DT_DP_SPLIT_PROTO;
	pc.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
	pc.tx_cksum = true;
	pc.tx_multi_seg = true;
	FZ_CHECK(dt_dp_port_start(fz.sport, &pc, err, sizeof(err)) == 0,
		"stack port: %s", err);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *eal[] = {
		(*argv)[0], "--in-memory", "--no-pci", "-l", "0", "-m", "512",
		"--log-level=*:error",
		"--vdev=net_hsplit_fzdp0,wire=fzdp_wire",
		"--vdev=net_hsplit_fzdp1,wire=fzdp_wire",
		"--vdev=gpu_sim_fzdp,size=32M",
	};
	struct dt_devmem_region_conf rc;
	struct rte_ether_addr mac;
	int16_t gpu;

	fz.trace = getenv("FUZZ_DP_TRACE") != NULL;
	FZ_CHECK(rte_eal_init(RTE_DIM(eal), eal) >= 0, "EAL: %s",
		rte_strerror(rte_errno));
	FZ_CHECK(rte_eth_dev_count_avail() == 2, "two net_hsplit ports");
	fz.wport = rte_eth_find_next(0);
	fz.sport = rte_eth_find_next(fz.wport + 1);
	gpu = rte_gpu_find_next(0, RTE_GPU_ID_ANY);
	FZ_CHECK(gpu >= 0, "no gpu_sim device");
	memset(&rc, 0, sizeof(rc));
	rc.name = "fzdp_payload";
	rc.gpu_id = gpu;
	rc.port_id = fz.sport;
	rc.nb_bufs = FZ_NB_BUFS;
	rc.buf_size = 2048;
	rc.socket_id = SOCKET_ID_ANY;
	FZ_CHECK(dt_devmem_region_create(&rc, &fz.region) == 0, "region");
	fz.region_base = (uintptr_t)dt_devmem_region_base(fz.region);
	fz.region_len = (uint64_t)FZ_NB_BUFS * 2048 + 2048;
	fz.w_pool = pool_new("fzdp_wire", 4096, RTE_MBUF_DEFAULT_BUF_SIZE +
		FZ_FRAME_MAX);
	fz.s_hdr = pool_new("fzdp_hdr", 4096, RTE_PKTMBUF_HEADROOM + 256);
	fz.s_shell = pool_new("fzdp_shell", 2048, 0);
	fz.tx_buf = rte_malloc("fzdp_tx", 65536, 64);
	FZ_CHECK(fz.tx_buf != NULL, "tx buffer");
	memset(fz.tx_buf, 0x5a, 65536);
	fz.tx_iova = rte_malloc_virt2iova(fz.tx_buf);
	ports_start();
	rte_eth_macaddr_get(fz.wport, &mac);
	memcpy(fz.wmac, mac.addr_bytes, 6);
	rte_eth_macaddr_get(fz.sport, &mac);
	memcpy(fz.smac, mac.addr_bytes, 6);
	return 0;
}

/* ---- the wire's end: what the stack sent ---- */

static void
arp_answer(const uint8_t *p, uint16_t len)
{
	struct rte_mbuf *m;
	uint8_t *q;

	if (len < 42 || dt_net_get_be16(p + 12) != DT_NET_ETH_TYPE_ARP ||
			dt_net_get_be16(p + 20) != 1 ||
			dt_net_get_be32(p + 38) != FZ_CLI_IP)
		return;
	m = rte_pktmbuf_alloc(fz.w_pool);
	FZ_CHECK(m != NULL, "wire pool empty");
	q = (uint8_t *)rte_pktmbuf_append(m, 42);
	memcpy(q, p + 6, 6);
	memcpy(q + 6, fz.wmac, 6);
	memcpy(q + 12, p + 12, 8);
	dt_net_put_be16(q + 20, 2);
	memcpy(q + 22, fz.wmac, 6);
	dt_net_put_be32(q + 28, FZ_CLI_IP);
	memcpy(q + 32, p + 22, 10);
	if (rte_eth_tx_burst(fz.wport, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* Remember where the stack's last TCP segment ends, for FZ_F_ACK. */
static void
note_tcp(const struct rte_mbuf *m, const uint8_t *p, uint16_t len)
{
	struct dt_net_tcp_hdr th;
	uint32_t ihl, tot;

	if (len < 34 || dt_net_get_be16(p + 12) != DT_NET_ETH_TYPE_IPV4 ||
			p[23] != DT_NET_IPPROTO_TCP)
		return;
	ihl = (p[14] & 0xfu) * 4;
	tot = dt_net_get_be16(p + 16);
	if (ihl < 20 || tot < ihl || 14u + ihl > len ||
			dt_net_tcp_parse(p + 14 + ihl, len - 14 - ihl, tot - ihl,
				&th) != DT_NET_OK)
		return;
	if (fz.trace)
		fprintf(stderr, "fuzz_dp: stack sent flags %02x seq %u ack %u len %u\n",
			th.flags, th.seq, th.ack, tot - ihl - th.hdr_len);
	fz.last_end = th.seq + (tot - ihl - th.hdr_len) +
		((th.flags & DT_NET_TCP_SYN) ? 1 : 0) +
		((th.flags & DT_NET_TCP_FIN) ? 1 : 0);
	(void)m;
}

static void
wire_drain(void)
{
	struct rte_mbuf *pk[32];
	uint16_t n, i;

	do {
		n = rte_eth_rx_burst(fz.wport, 0, pk, RTE_DIM(pk));
		for (i = 0; i < n; i++) {
			/* The wire end has no split: whole frames in host memory. */
			const uint8_t *p = rte_pktmbuf_mtod(pk[i], const uint8_t *);

			arp_answer(p, pk[i]->data_len);
			note_tcp(pk[i], p, pk[i]->data_len);
			rte_pktmbuf_free(pk[i]);
		}
	} while (n > 0);
}

/* ---- the application ---- */

static void
chunk_check(const struct dt_dp_chunk *ch)
{
	uintptr_t a = (uintptr_t)ch->addr;

	FZ_CHECK(ch->len > 0, "empty chunk");
	if (ch->kind == DT_DP_CHUNK_DEVICE) {
		FZ_CHECK(a >= fz.region_base && a + ch->len <=
			fz.region_base + fz.region_len &&
			ch->offset == a - fz.region_base,
			"device chunk %p+%u outside the region", ch->addr,
			ch->len);
	} else {
		FZ_CHECK(ch->kind == DT_DP_CHUNK_HOST, "chunk kind %u",
			ch->kind);
		/* Host chunks are CPU-readable: ASan checks the range. */
		volatile uint8_t x = ((const uint8_t *)ch->addr)[ch->len - 1];
		(void)x;
	}
}

static void
events_drain(void)
{
	struct dt_dp_event ev[64];
	uint16_t n, i;

	do {
		n = dt_dp_events(fz.st, ev, RTE_DIM(ev));
		for (i = 0; i < n; i++) {
			if (fz.trace)
				fprintf(stderr, "fuzz_dp: event %u conn %llx len %u\n",
					ev[i].type, (unsigned long long)ev[i].conn,
					ev[i].type == DT_DP_EV_DATA ?
					ev[i].chunk.len : 0);
			if (ev[i].type == DT_DP_EV_ACCEPTED)
				fz.conn = ev[i].conn;
			if (ev[i].type != DT_DP_EV_DATA)
				continue;
			chunk_check(&ev[i].chunk);
			if (fz.hold && fz.n_held < FZ_HELD_MAX)
				fz.held[fz.n_held++] = ev[i].chunk.token;
			else
				dt_dp_release(fz.st, ev[i].chunk.token);
		}
	} while (n > 0);
}

static void
poll_some(unsigned int n)
{
	while (n--) {
		dt_dp_poll(fz.st);
		events_drain();
		wire_drain();
	}
}

static void
app_call(uint8_t what)
{
	struct dt_dp_buf b = { fz.tx_buf, fz.tx_iova, 0, false };
	unsigned int i;

	switch (what & 7) {
	case 0:
		b.len = 1u + (uint32_t)(what >> 3) * 1500;
		dt_dp_send(fz.st, fz.conn, &b);
		break;
	case 1:
		dt_dp_shutdown(fz.st, fz.conn);
		break;
	case 2:
		dt_dp_close(fz.st, fz.conn);
		break;
	case 3:
		dt_dp_abort(fz.st, fz.conn);
		break;
	case 4:
		for (i = 0; i < fz.n_held; i++)
			dt_dp_release(fz.st, fz.held[i]);
		fz.n_held = 0;
		break;
	case 5:
		dt_dp_unlisten(fz.st, FZ_LISTEN);
		break;
	default:
		poll_some(1u + (what >> 3));
		break;
	}
}

/* ---- frames ---- */

static void
frame_fix(uint8_t *p, uint16_t len, uint8_t fl)
{
	uint32_t l3 = 14, ihl, tot, pseudo;
	uint8_t *t;

	if ((fl & FZ_F_MAC) && len >= 14) {
		memcpy(p, fz.smac, 6);
		memcpy(p + 6, fz.wmac, 6);
	}
	if (len < 14 + 20)
		return;
	if (dt_net_get_be16(p + 12) == DT_NET_ETH_TYPE_VLAN)
		l3 = 18;
	if (len < l3 + 20 || (p[l3] >> 4) != 4)
		return;
	ihl = (p[l3] & 0xfu) * 4;
	if (fl & FZ_F_TOTLEN)
		dt_net_put_be16(p + l3 + 2, (uint16_t)(len - l3));
	tot = dt_net_get_be16(p + l3 + 2);
	if (ihl >= 20 && l3 + ihl <= len && (fl & FZ_F_IPCK)) {
		dt_net_put_be16(p + l3 + 10, 0);
		dt_net_put_be16(p + l3 + 10, dt_net_ipv4_hdr_cksum(p + l3, ihl));
	}
	if (ihl < 20 || p[l3 + 9] != DT_NET_IPPROTO_TCP || tot < ihl + 20 ||
			l3 + tot > len)
		return;
	t = p + l3 + ihl;
	if (fl & FZ_F_ACK)
		dt_net_put_be32(t + 8, fz.last_end);
	if (fl & FZ_F_L4CK) {
		pseudo = dt_net_ipv4_pseudo_sum(dt_net_get_be32(p + l3 + 12),
			dt_net_get_be32(p + l3 + 16), DT_NET_IPPROTO_TCP,
			(uint16_t)(tot - ihl));
		dt_net_put_be16(t + 16, dt_net_l4_cksum(pseudo, t, tot - ihl,
			16));
	}
}

static void
frame_send(const uint8_t *b, uint16_t len, uint8_t fl)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(fz.w_pool);
	uint8_t *p;

	FZ_CHECK(m != NULL, "wire pool empty");
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	FZ_CHECK(p != NULL, "frame of %u bytes", len);
	memcpy(p, b, len);
	frame_fix(p, len, fl);
	if (rte_eth_tx_burst(fz.wport, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
	fz.hold = (fl & FZ_F_HOLD) != 0;
	poll_some(2);
}

static struct dt_dp_stack *
stack_new(void)
{
	struct dt_dp_stack_conf sc;

	dt_dp_stack_conf_default(&sc);
	sc.port_id = fz.sport;
	sc.ipv4 = rte_cpu_to_be_32(FZ_SRV_IP);
	sc.netmask = rte_cpu_to_be_32(0xffffff00);
	sc.max_conns = 8;
	sc.window = 65536;
	sc.txq_cap = 64;
	sc.hdr_pool = fz.s_hdr;
	sc.shell_pool = fz.s_shell;
	sc.region = fz.region;
	sc.tcp.msl_us = 1000;
	sc.tcp.delack_us = 1000;
	sc.isn_key[0] = 1;
	sc.isn_key[1] = 2;
	return dt_dp_stack_create(&sc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mempool *pay = dt_devmem_region_pool(fz.region);
	unsigned int hdr0, pay0, shell0, frames = 0;
	size_t i = 0;
	uint16_t len;
	uint8_t fl;

	/*
	 * Counted with the port stopped: the NIC's stash of spare mbufs and
	 * frames in flight on the wire go back to their pools then, so the
	 * counts are exact.
	 */
	wire_drain();
	FZ_CHECK(rte_eth_dev_stop(fz.sport) == 0, "port stop");
	hdr0 = rte_mempool_avail_count(fz.s_hdr);
	pay0 = rte_mempool_avail_count(pay);
	shell0 = rte_mempool_avail_count(fz.s_shell);
	FZ_CHECK(rte_eth_dev_start(fz.sport) == 0, "port start");
	fz.st = stack_new();
	FZ_CHECK(fz.st != NULL, "stack: %s", rte_strerror(rte_errno));
	FZ_CHECK(dt_dp_listen(fz.st, FZ_LISTEN) == 0, "listen");
	fz.n_held = 0;
	fz.conn = 0;
	fz.last_end = 0;
	fz.hold = false;
	while (i < size && frames < FZ_FRAMES_MAX) {
		fl = data[i++];
		if (fl & FZ_F_APP) {
			if (i < size)
				app_call(data[i++]);
			continue;
		}
		if (size - i < 2)
			break;
		len = (uint16_t)(data[i] << 8 | data[i + 1]);
		i += 2;
		len = (uint16_t)RTE_MIN((size_t)len, size - i);
		len = RTE_MIN(len, (uint16_t)FZ_FRAME_MAX);
		if (len == 0)
			continue;
		frame_send(data + i, len, fl);
		i += len;
		frames++;
	}
	poll_some(2);
	if (fz.trace) {
		struct dt_dp_stats sts;

		dt_dp_stats_get(fz.st, &sts);
		fprintf(stderr, "fuzz_dp: rx %llu tcp %llu arp %llu icmp %llu "
			"tx %llu dev_chunks %llu host_chunks %llu no_conn %llu "
			"cksum %llu bad_ip %llu not_for_us %llu\n",
			(unsigned long long)sts.rx_frames,
			(unsigned long long)sts.rx_tcp,
			(unsigned long long)sts.rx_arp,
			(unsigned long long)sts.rx_icmp,
			(unsigned long long)sts.tx_frames,
			(unsigned long long)sts.device_chunks,
			(unsigned long long)sts.host_chunks,
			(unsigned long long)sts.drop_no_conn,
			(unsigned long long)sts.drop_l4_cksum,
			(unsigned long long)sts.drop_bad_ip,
			(unsigned long long)sts.drop_not_for_us);
	}
	for (i = 0; i < fz.n_held; i++)
		dt_dp_release(fz.st, fz.held[i]);
	dt_dp_stack_destroy(fz.st);
	fz.st = NULL;
	wire_drain();
	FZ_CHECK(rte_eth_dev_stop(fz.sport) == 0, "port stop");
	FZ_CHECK(rte_mempool_avail_count(fz.s_hdr) == hdr0,
		"header mbufs: %u before, %u after", hdr0,
		rte_mempool_avail_count(fz.s_hdr));
	FZ_CHECK(rte_mempool_avail_count(pay) == pay0,
		"payload mbufs: %u before, %u after", pay0,
		rte_mempool_avail_count(pay));
	FZ_CHECK(rte_mempool_avail_count(fz.s_shell) == shell0,
		"shell mbufs: %u before, %u after", shell0,
		rte_mempool_avail_count(fz.s_shell));
	FZ_CHECK(rte_eth_dev_start(fz.sport) == 0, "port start");
	return 0;
}
