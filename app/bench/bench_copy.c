/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU baselines of devtcp-bench, both through the payload region's copy
 * engine on a channel of the bench's own (the NIC has its own channels):
 *
 * bounce  - port 1 receives whole frames into host mbufs (as raw does); then,
 *           per burst, every frame's payload is copied into the region in one
 *           batch, and the mbufs are freed only once the batch has landed.
 *           This is an application on kernel TCP that cudaMemcpy()s what it
 *           received, the path header split removes.
 * ceiling - no wire: the engine moves payload-sized chunks from registered
 *           host memory into the region, in batches of BENCH_CEIL_BATCH with
 *           several batches in flight. Chunks are spaced on both sides so
 *           that the engine cannot merge them into one large copy: the
 *           figure is the ceiling for copies of that size, as split makes.
 *
 * Both write the region at raw offsets: in these modes no NIC queue uses
 * the region's pool, so its buffers are free to serve as copy targets.
 */
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_tcp.h>

#include "bench.h"

/* Segments of one received frame the bounce copies (9014 B in 2 KiB mbufs: 5). */
#define BOUNCE_SEGS_MAX 16

int
bench_copy_all(struct bench_run *run, const struct dt_copy_op *ops,
	uint32_t n, uint64_t *ticket)
{
	uint32_t done = 0;
	int q;

	while (done < n) {
		q = dt_copy_submit(run->ch, ops + done,
			(uint16_t)RTE_MIN(n - done, (uint32_t)UINT16_MAX), ticket);
		if (q < 0) {
			if (!run->failed)
				fprintf(stderr, "devtcp-bench: copy engine %s refused a copy of %u bytes (%p -> %p): %s\n",
					run->engine->ops->name, ops[done].len,
					ops[done].src, ops[done].dst,
					rte_strerror(-q));
			run->res.copy_errors++;
			run->failed = true;
			return q;
		}
		/* 0: all the engine's slots are in flight; let some land. */
		if (q == 0)
			dt_copy_completed(run->ch);
		done += (uint32_t)q;
	}
	return 0;
}

/* Sequence number of a received frame (headers are in its first segment). */
static inline uint32_t
frame_seq(const struct rte_mbuf *m)
{
	const struct rte_tcp_hdr *tcp = rte_pktmbuf_mtod_offset(m,
		const struct rte_tcp_hdr *, BENCH_HDR_LEN - sizeof(*tcp));

	return rte_be_to_cpu_32(tcp->sent_seq);
}

/*
 * Copy ops for the payload of @p m to [dst, dst + payload): one per segment
 * part after the headers. Returns the number of ops, or 0 when the frame
 * has more segments than BOUNCE_SEGS_MAX.
 */
static uint32_t
bounce_ops(const struct rte_mbuf *m, uint8_t *dst, struct dt_copy_op *ops)
{
	const struct rte_mbuf *s;
	uint32_t off = 0, n = 0, skip;

	for (s = m; s != NULL; off += s->data_len, s = s->next) {
		skip = off < BENCH_HDR_LEN ?
			RTE_MIN(BENCH_HDR_LEN - off, (uint32_t)s->data_len) : 0;
		if (s->data_len == skip)
			continue;
		if (n == BOUNCE_SEGS_MAX)
			return 0;
		ops[n].dst = dst;
		ops[n].src = rte_pktmbuf_mtod_offset(s, const uint8_t *, skip);
		ops[n].len = s->data_len - skip;
		dst += ops[n].len;
		n++;
	}
	return n;
}

void
bench_bounce_poll(struct bench_run *run, uint64_t deadline)
{
	const struct bench_opts *o = run->opts;
	struct rte_mbuf *burst[BENCH_BURST];
	struct dt_copy_op ops[BENCH_BURST * BOUNCE_SEGS_MAX];
	struct bench_vseg dsc[BENCH_BURST];
	uint32_t nops, ndsc, k, plen, nf;
	uint64_t t0, ticket = 0;
	uint16_t n, i;

	while (rte_rdtsc() < deadline && !run->failed) {
		t0 = rte_rdtsc();
		n = rte_eth_rx_burst(o->rx_port, 0, burst, BENCH_BURST);
		if (n == 0)
			continue;
		nops = 0;
		ndsc = 0;
		for (i = 0; i < n; i++) {
			bench_account_frame(run, burst[i]);
			if (burst[i]->pkt_len <= BENCH_HDR_LEN)
				continue;
			plen = burst[i]->pkt_len - BENCH_HDR_LEN;
			if (run->bounce_off + plen > run->region_len) {
				/*
				 * Wrap to the start of the region: what the
				 * verifier holds from there on must be checked
				 * before it is overwritten. It holds only
				 * copies that landed (added after each wait).
				 */
				if (run->ver != NULL)
					bench_verify_flush(run->ver);
				run->bounce_off = 0;
			}
			nf = bounce_ops(burst[i],
				(uint8_t *)(run->region_base + run->bounce_off),
				&ops[nops]);
			if (nf == 0) {
				run->res.copy_errors++;
				continue;
			}
			nops += nf;
			dsc[ndsc].addr = run->region_base + run->bounce_off;
			dsc[ndsc].len = plen;
			dsc[ndsc].stream_off = frame_seq(burst[i]);
			ndsc++;
			run->bounce_off += RTE_ALIGN_CEIL(plen, RTE_CACHE_LINE_SIZE);
		}
		/* One batch per burst, then wait: the mbufs are the sources. */
		if (nops != 0 && bench_copy_all(run, ops, nops, &ticket) == 0)
			dt_copy_wait(run->ch, ticket);
		rte_pktmbuf_free_bulk(burst, n);
		if (run->ver != NULL && !run->failed)
			for (k = 0; k < ndsc; k++)
				bench_verify_add(run->ver, dsc[k].addr, dsc[k].len,
					dsc[k].stream_off);
		run->res.rx_cycles += rte_rdtsc() - t0;
		if (o->frames != 0 && run->res.rx_frames >= o->frames)
			break;
	}
	if (run->ver != NULL)
		bench_verify_flush(run->ver);
}

/* ------------------------------------------------------------- ceiling */

int
bench_ceiling_start(struct bench_run *run)
{
	uint32_t batches;

	run->ceil_slots = (uint32_t)RTE_MIN(run->region_len / run->ceil_stride,
		(size_t)UINT32_MAX);
	/*
	 * In flight: up to 64 batches, and at most a quarter of the slots, so
	 * that a slot is reused only long after its copy landed (and, with
	 * --verify, after the verifier checked it).
	 */
	batches = RTE_MIN(64u, run->ceil_slots / 4 / BENCH_CEIL_BATCH);
	if (batches == 0) {
		fprintf(stderr, "devtcp-bench: ceiling: region of %zu bytes holds only %u chunks of %zu bytes; needs %u\n",
			run->region_len, run->ceil_slots, run->ceil_stride,
			4 * BENCH_CEIL_BATCH);
		return -ENOSPC;
	}
	run->ceil_inflight = batches * BENCH_CEIL_BATCH;
	run->ceil_ticket0 = dt_copy_completed(run->ch);
	run->ceil_sub = 0;
	run->ceil_verq = 0;
	run->ceil_flushed = 0;
	return 0;
}

/* Hand chunks that landed to the verifier. */
static void
ceiling_collect(struct bench_run *run, uint64_t done)
{
	uint32_t plen = bench_payload_len(run->opts);

	for (; run->ceil_verq < done; run->ceil_verq++) {
		uint64_t c = run->ceil_verq;

		bench_verify_add(run->ver, run->region_base +
			(c % run->ceil_slots) * run->ceil_stride, plen,
			(uint32_t)(c % run->ceil_chunks) * plen);
	}
}

void
bench_ceiling_poll(struct bench_run *run, uint64_t deadline)
{
	const struct bench_opts *o = run->opts;
	uint32_t plen = bench_payload_len(o), k;
	struct dt_copy_op ops[BENCH_CEIL_BATCH];
	uint64_t t0, done, c;

	while (!run->failed && (t0 = rte_rdtsc()) < deadline) {
		done = dt_copy_completed(run->ch) - run->ceil_ticket0;
		if (run->ver != NULL)
			ceiling_collect(run, done);
		run->res.rx_frames = done;
		if (o->frames != 0 && done >= o->frames)
			break;
		if (run->ceil_sub + BENCH_CEIL_BATCH - done > run->ceil_inflight)
			goto idle;
		/* Reusing a slot the verifier has not checked yet: check first. */
		if (run->ver != NULL && run->ceil_sub + BENCH_CEIL_BATCH >
				run->ceil_flushed + run->ceil_slots) {
			bench_verify_flush(run->ver);
			run->ceil_flushed = run->ceil_verq;
			if (run->ceil_sub + BENCH_CEIL_BATCH >
					run->ceil_flushed + run->ceil_slots)
				goto idle;
		}
		for (k = 0; k < BENCH_CEIL_BATCH; k++) {
			c = run->ceil_sub + k;
			ops[k].dst = (void *)(run->region_base +
				(c % run->ceil_slots) * run->ceil_stride);
			ops[k].src = run->ceil_src +
				(c % run->ceil_chunks) * run->ceil_stride;
			ops[k].len = plen;
		}
		if (bench_copy_all(run, ops, BENCH_CEIL_BATCH, NULL) != 0)
			break;
		run->ceil_sub += BENCH_CEIL_BATCH;
idle:
		run->res.rx_cycles += rte_rdtsc() - t0;
	}
}

void
bench_ceiling_finish(struct bench_run *run)
{
	uint32_t plen = bench_payload_len(run->opts);

	/* Every chunk submitted counts once it landed. */
	if (!run->failed)
		dt_copy_wait(run->ch, run->ceil_ticket0 + run->ceil_sub);
	if (run->ver != NULL) {
		if (!run->failed)
			ceiling_collect(run, run->ceil_sub);
		bench_verify_flush(run->ver);
	}
	run->res.rx_frames = run->failed ? 0 : run->ceil_sub;
	run->res.payload_bytes = run->res.rx_frames * plen;
	run->res.rx_bytes = run->res.payload_bytes;
}
