/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw frame generation (TX lcore) and reception (RX lcore) of devtcp-bench.
 *
 * TX cycles through BENCH_TX_FRAMES prebuilt frames, taking a reference on
 * each before the burst so the PMD's free does not recycle them: the sender
 * costs no per-frame copy and the measured path is the wire and the receiver.
 * Each frame's payload is a pattern of its TCP sequence number, so the
 * receiver can check every byte without any state shared with the sender.
 */
#include <assert.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "bench.h"

#define HDR_LEN (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + \
	sizeof(struct rte_tcp_hdr))
static_assert(HDR_LEN == BENCH_HDR_LEN, "BENCH_HDR_LEN is the frames' header");

uint32_t
bench_payload_len(const struct bench_opts *o)
{
	return o->frame_len > HDR_LEN ? o->frame_len - HDR_LEN : 0;
}

static void
build_frame(uint8_t *f, uint16_t frame_len, uint32_t seq)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(ip + 1);
	uint8_t *pay = (uint8_t *)(tcp + 1);
	uint16_t plen = frame_len - HDR_LEN;
	uint16_t i;

	memset(f, 0, HDR_LEN);
	memcpy(&eth->dst_addr, "\x02\x00\x00\x00\x00\x02", RTE_ETHER_ADDR_LEN);
	memcpy(&eth->src_addr, "\x02\x00\x00\x00\x00\x01", RTE_ETHER_ADDR_LEN);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(frame_len - RTE_ETHER_HDR_LEN);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2));
	tcp->src_port = rte_cpu_to_be_16(40000);
	tcp->dst_port = rte_cpu_to_be_16(5001);
	tcp->sent_seq = rte_cpu_to_be_32(seq);
	tcp->data_off = (sizeof(*tcp) / 4) << 4;
	tcp->tcp_flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
	tcp->rx_win = rte_cpu_to_be_16(65535);
	for (i = 0; i < plen; i++)
		pay[i] = dt_pattern_byte(seq + i);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	tcp->cksum = rte_ipv4_udptcp_cksum(ip, tcp);
}

int
bench_build_frames(struct bench_run *run)
{
	uint16_t len = run->opts->frame_len;
	uint32_t plen = len - HDR_LEN;
	unsigned int k;

	for (k = 0; k < BENCH_TX_FRAMES; k++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(run->tx_pool);
		uint8_t *f;

		if (m == NULL)
			return -ENOMEM;
		f = (uint8_t *)rte_pktmbuf_append(m, len);
		if (f == NULL) {
			rte_pktmbuf_free(m);
			return -EINVAL;
		}
		build_frame(f, len, k * plen);
		run->tx_frames[k] = m;
	}
	return 0;
}

void
bench_free_frames(struct bench_run *run)
{
	unsigned int k;

	for (k = 0; k < BENCH_TX_FRAMES; k++) {
		rte_pktmbuf_free(run->tx_frames[k]);
		run->tx_frames[k] = NULL;
	}
}

int
bench_tx_loop(void *arg)
{
	struct bench_run *run = arg;
	uint16_t port = run->opts->tx_port;
	unsigned int next = 0;

	while (!run->stop) {
		struct rte_mbuf *burst[BENCH_BURST];
		uint16_t i, sent;

		for (i = 0; i < BENCH_BURST; i++) {
			burst[i] = run->tx_frames[(next + i) % BENCH_TX_FRAMES];
			rte_mbuf_refcnt_update(burst[i], 1);
		}
		sent = rte_eth_tx_burst(port, 0, burst, BENCH_BURST);
		/* Drop the references of what the NIC did not take. */
		for (i = sent; i < BENCH_BURST; i++)
			rte_mbuf_refcnt_update(burst[i], -1);
		next = (next + sent) % BENCH_TX_FRAMES;
		run->res.tx_frames += sent;
	}
	return 0;
}

/* Whether [p, p+len) lies in the payload region (device memory). */
static inline bool
in_region(const struct bench_run *run, const void *p, uint32_t len)
{
	uintptr_t a = (uintptr_t)p;

	return run->region_len != 0 && a >= run->region_base &&
		a + len <= run->region_base + run->region_len;
}

/*
 * Check every payload byte of @p m. Host bytes are checked here; device
 * bytes are handed to the verifier, which checks them in batches (through
 * the region's CPU alias or on the GPU) and frees @p m afterwards.
 *
 * @return true when the verifier holds @p m (the caller must not free it)
 */
static bool
verify_frame(struct bench_run *run, struct rte_mbuf *m)
{
	struct bench_verifier *v = run->ver;
	const struct rte_tcp_hdr *tcp;
	uint32_t seq, off = 0;
	const struct rte_mbuf *s;
	bool device = false;

	if (m->data_len < HDR_LEN) {
		run->res.verify_errors++;
		return false;
	}
	tcp = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *,
		RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr));
	seq = rte_be_to_cpu_32(tcp->sent_seq);
	for (s = m; s != NULL; off += s->data_len, s = s->next) {
		const uint8_t *p = rte_pktmbuf_mtod(s, const uint8_t *);
		uint32_t skip = off < HDR_LEN ? RTE_MIN(HDR_LEN - off, s->data_len) : 0;
		uint32_t i;

		if (s->data_len == skip)
			continue;
		if (in_region(run, p, s->data_len)) {
			/* Device memory: never read here (zero touch). */
			bench_verify_add(v, (uintptr_t)p + skip, s->data_len - skip,
				seq + off + skip - HDR_LEN);
			device = true;
			continue;
		}
		for (i = skip; i < s->data_len; i++) {
			if (p[i] != dt_pattern_byte(seq + off + i - HDR_LEN)) {
				run->res.verify_errors++;
				goto out;
			}
		}
		run->res.verified_bytes += s->data_len - skip;
	}
out:
	if (device)
		bench_verify_hold(v, m);
	return device;
}

void
bench_account_frame(struct bench_run *run, const struct rte_mbuf *m)
{
	run->res.rx_frames++;
	run->res.rx_bytes += m->pkt_len;
	if (m->pkt_len > HDR_LEN)
		run->res.payload_bytes += m->pkt_len - HDR_LEN;
	if (m->nb_segs > 1 && m->next->data_len != 0 &&
			in_region(run, rte_pktmbuf_mtod(m->next, void *),
				m->next->data_len))
		run->res.split_frames++;
	if ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
			RTE_MBUF_F_RX_L4_CKSUM_BAD ||
			(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
			RTE_MBUF_F_RX_IP_CKSUM_BAD)
		run->res.cksum_bad++;
}

void
bench_rx_poll(struct bench_run *run, uint64_t deadline)
{
	const struct bench_opts *o = run->opts;
	struct rte_mbuf *burst[BENCH_BURST], *done[BENCH_BURST];
	uint16_t n, i, nd;
	uint64_t t0;

	/*
	 * Cycles count from before a non-empty rx_burst: they include the
	 * software NIC's receive work (split, payload copy), which a hardware
	 * NIC would do itself.
	 */
	while (rte_rdtsc() < deadline) {
		t0 = rte_rdtsc();
		n = rte_eth_rx_burst(o->rx_port, 0, burst, BENCH_BURST);
		if (n == 0)
			continue;
		for (i = 0, nd = 0; i < n; i++) {
			bench_account_frame(run, burst[i]);
			if (!o->verify || !verify_frame(run, burst[i]))
				done[nd++] = burst[i];
		}
		rte_pktmbuf_free_bulk(done, nd);
		run->res.rx_cycles += rte_rdtsc() - t0;
		if (o->frames != 0 && run->res.rx_frames >= o->frames)
			break;
	}
	/* Check what is held and give its buffers back before the caller looks. */
	if (run->ver != NULL)
		bench_verify_flush(run->ver);
}
