/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's receive path (plugins/nccl/nn_rx.c) without EAL: one flow,
 * two copy channels whose completion the test controls (the copies land at
 * submit; "completed" moves only when the test says), chunks handed in as
 * the stack would. A chunk may be read by both channels (the end of one
 * message's payload by the CUDA gather, the next header by the region's
 * engine): it must go back to the stack only when both copies completed,
 * whichever finishes last; else the NIC refills it under a pending gather.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_rt.h"

static int failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		failures++; \
		printf("FAIL %s:%d: ", __func__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

/* ------------------------------------------------ what nn_rx.c calls */

static uint64_t released[64];
static unsigned int nb_released;
static unsigned int nb_done;
static unsigned int nb_failed;
static int last_fail;

void
dt_dp_release(struct dt_dp_stack *st, uint64_t token)
{
	RTE_SET_USED(st);
	if (nb_released < RTE_DIM(released))
		released[nb_released] = token;
	nb_released++;
}

int
dt_dp_abort(struct dt_dp_stack *st, dt_dp_conn_t c)
{
	RTE_SET_USED(st);
	RTE_SET_USED(c);
	return 0;
}

void
nn_log(int level, const char *fmt, ...)
{
	va_list ap;

	RTE_SET_USED(level);
	printf("log: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void
nn_part_fail(struct nn_part *p, int err)
{
	p->failed = true;
	nb_failed++;
	last_fail = err;
	printf("part failed: %s\n", strerror(err));
}

void
nn_post_event(struct rte_ring *cq, uint32_t type, int32_t val, void *obj)
{
	RTE_SET_USED(cq);
	RTE_SET_USED(type);
	RTE_SET_USED(val);
	RTE_SET_USED(obj);
}

void
nn_req_part_done(struct nn_part *p, struct nn_req *r)
{
	RTE_SET_USED(p);
	RTE_SET_USED(r);
	nb_done++;
}

/* What nn_unpack.c calls: a host-memory "region" (nn_cuda.c's no-CUDA stubs). */
struct nn_rt *
nn_rt_get(void)
{
	return NULL;
}

static uint8_t dev[2][8192];

void *
dt_devmem_region_base(const struct dt_devmem_region *region)
{
	RTE_SET_USED(region);
	return dev;
}

size_t
dt_devmem_region_len(const struct dt_devmem_region *region)
{
	RTE_SET_USED(region);
	return sizeof(dev);
}

/* ------------------------------------------------ a gated copy engine */

struct gated_chan {
	struct dt_copy_chan head;
	uint64_t done;       /* what completed() reports: the test moves it */
	int failed;          /* what failed() reports */
};

static int
gated_submit(struct dt_copy_chan *c, const struct dt_copy_op *ops, uint16_t n,
	uint64_t *ticket)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		memcpy(ops[i].dst, ops[i].src, ops[i].len);
	c->next_ticket += n;
	c->stats.copies += n;
	if (ticket != NULL)
		*ticket = c->next_ticket - 1;
	return n;
}

static uint64_t
gated_completed(struct dt_copy_chan *c)
{
	return ((struct gated_chan *)c)->done;
}

static int
gated_failed(struct dt_copy_chan *c)
{
	return ((struct gated_chan *)c)->failed;
}

static const struct dt_copy_engine_ops gated_ops = {
	.name = "gated",
	.submit = gated_submit,
	.completed = gated_completed,
	.failed = gated_failed,
};

static void
gated_finish(struct gated_chan *g)
{
	g->done = g->head.next_ticket - 1;
}

/* ------------------------------------------------------------ the case */

static struct dt_copy_engine eng = { .ops = &gated_ops };
static struct gated_chan region_ch, cuda_ch;
static struct nn_stack stack;
static struct nn_comm comm;
static struct nn_part part;
static struct nn_flow flow;
static struct nn_mr mr_cuda = { .kind = NN_MR_CUDA };
static uint8_t wire[NN_WIRE_LEN] __rte_aligned(16);
static uint8_t dst0[4096], dst1[4096];

static void
setup(void)
{
	memset(&region_ch, 0, sizeof(region_ch));
	memset(&cuda_ch, 0, sizeof(cuda_ch));
	memset(&stack, 0, sizeof(stack));
	memset(&comm, 0, sizeof(comm));
	memset(&part, 0, sizeof(part));
	memset(&flow, 0, sizeof(flow));
	nb_released = nb_done = nb_failed = 0;
	last_fail = 0;
	region_ch.head.ce = &eng;
	region_ch.head.next_ticket = 1;
	cuda_ch.head.ce = &eng;
	cuda_ch.head.next_ticket = 1;
	stack.ch = &region_ch.head;
	stack.cuda_ch = &cuda_ch.head;
	stack.b_region.ch = stack.ch;
	stack.b_cuda.ch = stack.cuda_ch;
	comm.nflows = 1;
	part.comm = &comm;
	part.s = &stack;
	part.nflows = 1;
	part.flows[0] = &flow;
	flow.s = &stack;
	flow.part = &part;
	flow.nflows = 1;
	flow.hello_seen = true;
	flow.wire = wire;
	flow.wire_slot = -1;
}

static void
post_recv(struct nn_req *r, void *buf, uint64_t size)
{
	r->comm = &comm;
	r->data = (uintptr_t)buf;
	r->size = size;
	r->mr = &mr_cuda;
	part.fifo[part.head % NN_REQS] = r;
	part.head++;
}

static uint32_t
put_hdr(uint8_t *at, uint64_t size)
{
	struct nn_wire_msg h = { .magic = NN_MAGIC_MSG, .tag = 1, .size = size };

	memcpy(at, &h, sizeof(h));
	return sizeof(h);
}

static void
deliver(uint8_t *addr, uint32_t len, uint64_t token)
{
	struct dt_dp_chunk c = {
		.addr = addr, .len = len, .kind = DT_DP_CHUNK_DEVICE,
		.token = token, .offset = (uint64_t)(addr - &dev[0][0]),
	};

	nn_rx_chunk(&flow, &c);
}

static void
poll_once(void)
{
	nn_rx_part_progress(&part);
	nn_rx_flush(&stack);
	nn_release_progress(&stack);
}

/*
 * Message 0: header + 4096 bytes, in chunk 1 (header + 4000 bytes) and
 * chunk 2 (the last 96 bytes, then message 1's header); message 1's 4096
 * bytes in chunk 3. Chunk 2 arrives after chunk 1's payload went to the
 * CUDA channel, so its 96 bytes are a second CUDA submit; its last piece,
 * the header, goes to the region channel. The first CUDA submit and the
 * region channel complete, the second CUDA submit does not: chunk 1 may go
 * back, chunk 2 may not.
 */
static void
test_chunk_read_by_both_channels(void)
{
	static struct nn_req r0, r1;
	uint32_t i;

	setup();
	for (i = 0; i < 4096; i++) {
		dev[0][16 + i] = (uint8_t)i;
		dev[1][i] = (uint8_t)(i * 7);
	}
	put_hdr(dev[0], 4096);
	post_recv(&r0, dst0, 4096);
	post_recv(&r1, dst1, 4096);
	deliver(dev[0], NN_WIRE_LEN + 4000, 1);
	poll_once();                    /* header 0: region ticket 1 */
	CHECK(nb_released == 0, "a chunk went back before any copy completed");
	gated_finish(&region_ch);
	poll_once();                    /* 4000 bytes: CUDA ticket 1 */
	CHECK(cuda_ch.head.next_ticket == 2, "chunk 1's payload: %" PRIu64
		" CUDA copies, not 1", cuda_ch.head.next_ticket - 1);

	/* chunk 2: bytes 4000..4095 of message 0, then message 1's header */
	memmove(dev[0] + 4200, dev[0] + NN_WIRE_LEN + 4000, 96);
	put_hdr(dev[0] + 4200 + 96, 4096);
	deliver(dev[0] + 4200, 96 + NN_WIRE_LEN, 2);
	deliver(dev[1], 4096, 3);
	poll_once();                    /* 96 bytes: CUDA 2; header 1: region 2 */
	CHECK(cuda_ch.head.next_ticket == 3 && region_ch.head.next_ticket == 3,
		"copies queued: CUDA %" PRIu64 ", region %" PRIu64 " (2 each expected)",
		cuda_ch.head.next_ticket - 1, region_ch.head.next_ticket - 1);
	cuda_ch.done = 1;
	gated_finish(&region_ch);
	poll_once();
	CHECK(nb_released >= 1 && released[0] == 1,
		"chunk 1 not released once its only copy completed");
	for (i = 0; i < nb_released && i < RTE_DIM(released); i++)
		CHECK(released[i] != 2,
			"chunk 2 released while the CUDA copy reading it is pending");
	CHECK(nb_done == 0, "a receive finished before its gather completed");

	for (i = 0; i < 4; i++) {
		gated_finish(&region_ch);
		gated_finish(&cuda_ch);
		poll_once();
	}
	CHECK(nb_released == 3, "%u of 3 chunks released after all copies", nb_released);
	CHECK(nb_done == 2, "%u of 2 receives finished", nb_done);
	CHECK(memcmp(dst0, dev[0] + NN_WIRE_LEN, 4000) == 0 &&
		memcmp(dst0 + 4000, dev[0] + 4200, 96) == 0,
		"message 0's bytes differ");
	CHECK(memcmp(dst1, dev[1], 4096) == 0, "message 1's bytes differ");
}

/*
 * The CUDA channel stops for good (a copy failed on the GPU) while a
 * receive waits for its gather: the part fails with EIO, once, instead of
 * waiting forever (NCCL would hang); a failure of the region channel under
 * a pending header copy does the same.
 */
static void
test_channel_failure_fails_receive(void)
{
	static struct nn_req r0;
	int i;

	setup();
	put_hdr(dev[0], 4096);
	post_recv(&r0, dst0, 4096);
	deliver(dev[0], NN_WIRE_LEN + 4096, 1);
	poll_once();
	gated_finish(&region_ch);
	poll_once();                    /* payload queued on the CUDA channel */
	for (i = 0; i < 3; i++)
		poll_once();
	CHECK(nb_failed == 0 && nb_done == 0, "receive ended before any failure");
	cuda_ch.failed = -EIO;
	poll_once();
	CHECK(nb_failed == 1 && last_fail == EIO,
		"a stopped CUDA channel: %u part failures (errno %d), want 1 (EIO)",
		nb_failed, last_fail);
	CHECK(nb_done == 0, "a receive completed over a stopped channel");
	/* Stopping the lcore: the drain must return, chunk 1 stays held. */
	nn_rx_drain(&stack);
	CHECK(nb_released == 0, "a chunk under a failed gather went back");

	setup();
	put_hdr(dev[0], 4096);
	post_recv(&r0, dst0, 4096);
	deliver(dev[0], NN_WIRE_LEN + 4096, 1);
	poll_once();                    /* header copy on the region channel */
	region_ch.failed = -EIO;
	poll_once();
	CHECK(nb_failed == 1 && last_fail == EIO,
		"a stopped region channel under a header copy: %u part failures",
		nb_failed);
}

/*
 * Unpack mode: a received message becomes entries for NCCL's kernel
 * ({region offset, length, buffer offset}, no copy of ours), the receive
 * completes without waiting for the GPU, its count is published at test
 * time, and the chunk goes back only once NCCL says it was consumed.
 */
static void
test_unpack_entries(void)
{
	static struct nn_req r0;
	struct nn_net_device_handle dh = {
		.netDeviceType = NN_NET_DEVICE_UNPACK,
		.netDeviceVersion = NN_NET_UNPACK_VERSION,
	};
	const struct nn_unpack_handle *uh;
	const struct nn_unpack_meta *m;
	struct nn_rt rt;
	uint64_t cuda_before;
	int i;

	setup();
	memset(&rt, 0, sizeof(rt));
	rt.region = (struct dt_devmem_region *)&rt;  /* stubs ignore it */
	rt.gpu_id = 0;
	rt.cfg.unpack = NN_UNPACK_HARNESS;
	CHECK(nn_unpack_open(&rt, &comm, &dh) == 0, "nn_unpack_open failed");
	if (comm.unpack == NULL)
		return;
	uh = dh.handle;
	CHECK(dh.needsProxyProgress == 1 && dh.size == sizeof(*uh),
		"device handle: needsProxyProgress %d size %zu", dh.needsProxyProgress,
		dh.size);
	CHECK(uh->bounce_buf == (void *)dev && uh->head == UINT64_MAX,
		"unpack handle: bounce %p head %" PRIu64, uh->bounce_buf, uh->head);
	m = uh->meta;
	put_hdr(&dev[1][100], 4096);
	post_recv(&r0, dst0, 4096);
	r0.uslot = 3;
	r0.unpack = true;
	r0.seq = 0;
	deliver(&dev[1][100], NN_WIRE_LEN + 4096, 7);
	cuda_before = cuda_ch.head.next_ticket;
	poll_once();
	gated_finish(&region_ch);
	for (i = 0; i < 3; i++)
		poll_once();
	CHECK(nb_done == 1, "unpack receive: %u done, want 1 (no GPU copy to wait for)",
		nb_done);
	CHECK(cuda_ch.head.next_ticket == cuda_before,
		"unpack receive queued %" PRIu64 " gather copies, want 0",
		cuda_ch.head.next_ticket - cuda_before);
	CHECK(r0.unpack_n == 1 && m->mem[3][0].src_off == 8192 + 100 + NN_WIRE_LEN &&
		m->mem[3][0].len == 4096 && m->mem[3][0].dst_off == 0,
		"entries: %u, first {%u, %u, %" PRIu64 "}", r0.unpack_n,
		m->mem[3][0].src_off, m->mem[3][0].len, m->mem[3][0].dst_off);
	nn_unpack_publish(&r0);
	CHECK(m->cnt[3] == 1, "published count %" PRIu64 ", want 1", m->cnt[3]);
	CHECK(nb_released == 0, "the chunk went back before NCCL consumed it");
	__atomic_store_n(&comm.unpack_consumed, 1, __ATOMIC_RELEASE);
	poll_once();
	CHECK(nb_released == 1 && released[0] == 7,
		"after consumption: %u chunks released", nb_released);
	nn_unpack_free(&comm);
	CHECK(comm.unpack == NULL, "nn_unpack_free left the comm's pointer");
}

/*
 * Two unpack comms on one stack: comm A's chunk waits for NCCL to consume
 * it, comm B's was consumed. B's must go back at once: a stack-wide queue
 * held it behind A's (and a reduce over two peers needs B's window open
 * to make A's receive consumable: a deadlock).
 */
static void
test_unpack_comms_independent(void)
{
	static struct nn_comm comm2;
	static struct nn_part part2;
	static struct nn_flow flow2;
	static struct nn_req ra, rb;
	struct nn_net_device_handle dh = {
		.netDeviceType = NN_NET_DEVICE_UNPACK,
		.netDeviceVersion = NN_NET_UNPACK_VERSION,
	};
	struct nn_net_device_handle dh2 = dh;
	static struct nn_release urel_a[NN_UREL_Q], urel_b[NN_UREL_Q];
	struct nn_rt rt;
	int i;

	setup();
	memset(&comm2, 0, sizeof(comm2));
	memset(&part2, 0, sizeof(part2));
	memset(&flow2, 0, sizeof(flow2));
	memset(&rt, 0, sizeof(rt));
	rt.region = (struct dt_devmem_region *)&rt;
	rt.gpu_id = 0;
	rt.cfg.unpack = NN_UNPACK_HARNESS;
	CHECK(nn_unpack_open(&rt, &comm, &dh) == 0 &&
		nn_unpack_open(&rt, &comm2, &dh2) == 0, "nn_unpack_open failed");
	if (comm.unpack == NULL || comm2.unpack == NULL)
		return;
	comm2.nflows = 1;
	part2 = part;
	part2.comm = &comm2;
	part2.flows[0] = &flow2;
	part2.head = part2.tail = 0;
	flow2 = flow;
	flow2.part = &part2;
	part.urel = urel_a;
	part2.urel = urel_b;
	stack.parts[0] = &part;
	stack.parts[1] = &part2;
	stack.nb_parts = 2;

	put_hdr(&dev[0][0], 1024);
	put_hdr(&dev[1][0], 1024);
	post_recv(&ra, dst0, 1024);
	ra.seq = 0;
	ra.unpack = true;
	rb.unpack = true;
	rb.comm = &comm2;
	rb.data = (uintptr_t)dst1;
	rb.size = 1024;
	rb.mr = &mr_cuda;
	rb.seq = 0;
	part2.fifo[0] = &rb;
	part2.head = 1;
	deliver(&dev[0][0], NN_WIRE_LEN + 1024, 21);
	{
		struct dt_dp_chunk c = {
			.addr = &dev[1][0], .len = NN_WIRE_LEN + 1024,
			.kind = DT_DP_CHUNK_DEVICE, .token = 22, .offset = 8192,
		};

		nn_rx_chunk(&flow2, &c);
	}
	/* A's chunk is queued first. */
	for (i = 0; i < 4; i++) {
		nn_rx_part_progress(&part);
		nn_rx_part_progress(&part2);
		nn_rx_flush(&stack);
		nn_release_progress(&stack);
		gated_finish(&region_ch);
	}
	CHECK(nb_done == 2, "%u of 2 receives done", nb_done);
	/* B consumed, A not. */
	__atomic_store_n(&comm2.unpack_consumed, 1, __ATOMIC_RELEASE);
	poll_once();
	CHECK(nb_released == 1 && released[0] == 22,
		"B's chunk: %u released (first %" PRIu64 "), want 1 (22) while A's waits",
		nb_released, nb_released ? released[0] : 0);
	__atomic_store_n(&comm.unpack_consumed, 1, __ATOMIC_RELEASE);
	poll_once();
	CHECK(nb_released == 2, "after A's consumption: %u released", nb_released);
	stack.nb_parts = 0;
	nn_unpack_free(&comm);
	nn_unpack_free(&comm2);
}

/*
 * Unpack: a receive of more chunk pieces than a slot holds (2048): the
 * first 2048 become entries, the rest is gathered into the buffer as
 * without unpack, the published count stops at 2048, and the receive is
 * done only when those copies completed. 2100 one-byte chunks.
 */
static void
test_unpack_overflow(void)
{
	enum { N = 2100 };
	static struct nn_req r0;
	static uint8_t dst[N];
	struct nn_net_device_handle dh = {
		.netDeviceType = NN_NET_DEVICE_UNPACK,
		.netDeviceVersion = NN_NET_UNPACK_VERSION,
	};
	const struct nn_unpack_meta *m;
	struct nn_rt rt;
	int i;

	setup();
	memset(&rt, 0, sizeof(rt));
	rt.region = (struct dt_devmem_region *)&rt;
	rt.gpu_id = 0;
	CHECK(nn_unpack_open(&rt, &comm, &dh) == 0, "nn_unpack_open failed");
	if (comm.unpack == NULL)
		return;
	m = nn_unpack_meta(&comm);
	put_hdr(&dev[0][0], N);
	for (i = 0; i < N; i++)
		dev[0][64 + i * 2] = (uint8_t)(i * 13 + 1);
	post_recv(&r0, dst, N);
	r0.uslot = 5;
	r0.unpack = true;
	deliver(&dev[0][0], NN_WIRE_LEN, 1);
	for (i = 0; i < N; i++)
		deliver(&dev[0][64 + i * 2], 1, 100 + (uint64_t)i);
	for (i = 0; i < 200 && nb_done == 0; i++) {
		poll_once();
		gated_finish(&region_ch);
		if (i == 60)
			CHECK(nb_done == 0, "done before the gathered tail's copies completed");
		if (i >= 60)
			gated_finish(&cuda_ch);
	}
	CHECK(nb_done == 1, "the receive did not complete");
	nn_unpack_publish(&r0);
	CHECK(m->cnt[5] == NN_UNPACK_ENTRIES, "published count %" PRIu64 ", want %u",
		m->cnt[5], NN_UNPACK_ENTRIES);
	CHECK(m->mem[5][2047].dst_off == 2047 && m->mem[5][2047].len == 1,
		"entry 2047: dst_off %" PRIu64 " len %u", m->mem[5][2047].dst_off,
		m->mem[5][2047].len);
	for (i = NN_UNPACK_ENTRIES; i < N; i++)
		if (dst[i] != (uint8_t)(i * 13 + 1)) {
			CHECK(0, "gathered byte %d is 0x%x, want 0x%x", i, dst[i],
				(uint8_t)(i * 13 + 1));
			break;
		}
	CHECK(stack.cnt.unpack_overflow == N - NN_UNPACK_ENTRIES,
		"overflow count %" PRIu64 ", want %d", stack.cnt.unpack_overflow,
		N - NN_UNPACK_ENTRIES);
	__atomic_store_n(&comm.unpack_consumed, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		poll_once();
	CHECK(nb_released == N + 1, "%u of %d chunks released", nb_released, N + 1);
	nn_unpack_free(&comm);
}

int
main(void)
{
	test_chunk_read_by_both_channels();
	test_channel_failure_fails_receive();
	test_unpack_entries();
	test_unpack_comms_independent();
	test_unpack_overflow();
	if (failures != 0) {
		printf("test_nn_rx: %d failed checks\n", failures);
		return 1;
	}
	printf("test_nn_rx: ok\n");
	return 0;
}
