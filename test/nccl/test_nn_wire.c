/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the NCCL plugin's wire protocol (plugins/nccl/nn_wire.c):
 * what fuzz_nccl_wire judges, as fixed cases, and the peers that lie
 * (issue 25): a flow count that differs between a comm's hellos used to
 * complete the comm with flows that never came (nn_accept() then built
 * it from NULL flows); headers that differ between a message's flows
 * used to complete the receive with bytes of neither; a size near 2^64
 * overflowed the slice computation.
 */
#include <errno.h>
#include <string.h>

#include "dt_test.h"
#include "nn_wire.h"

static struct nn_wire_hello
hello(uint16_t flow, uint16_t nflows, uint64_t id)
{
	return (struct nn_wire_hello){ .magic = NN_MAGIC_HELLO, .flow = flow,
		.nflows = nflows, .comm_id = id };
}

static void
test_hello_parse(void)
{
	struct nn_wire_hello h = hello(1, 2, 7), got;

	DT_CHECK_EQ(nn_wire_hello_parse((const uint8_t *)&h, &got), 0);
	DT_CHECK(got.flow == 1 && got.nflows == 2 && got.comm_id == 7);
	h = hello(2, 2, 7);
	DT_CHECK_EQ(nn_wire_hello_parse((const uint8_t *)&h, &got), -EPROTO);
	h = hello(0, NN_MAX_FLOWS + 1, 7);
	DT_CHECK_EQ(nn_wire_hello_parse((const uint8_t *)&h, &got), -EPROTO);
	h = hello(0, 1, 7);
	h.magic ^= 1;
	DT_CHECK_EQ(nn_wire_hello_parse((const uint8_t *)&h, &got), -EPROTO);
}

/* Two comms interleaved, flows out of order: each completes once. */
static void
test_pending_order(void)
{
	struct nn_wire_pending p[NN_PENDING_COMMS];
	struct nn_wire_hello h;
	bool done;
	int a, b;

	memset(p, 0, sizeof(p));
	h = hello(1, 2, 10);
	a = nn_wire_pending_add(p, NN_PENDING_COMMS, &h, &done);
	DT_CHECK(a >= 0 && !done);
	h = hello(0, 1, 11);
	b = nn_wire_pending_add(p, NN_PENDING_COMMS, &h, &done);
	DT_CHECK(b >= 0 && b != a && done);
	p[b].got = 0;
	h = hello(0, 2, 10);
	DT_CHECK_EQ(nn_wire_pending_add(p, NN_PENDING_COMMS, &h, &done), a);
	DT_CHECK(done);
}

/* A flow that says another count, or says hello twice, is refused. */
static void
test_pending_lies(void)
{
	struct nn_wire_pending p[NN_PENDING_COMMS];
	struct nn_wire_hello h;
	bool done;
	int a;

	memset(p, 0, sizeof(p));
	h = hello(0, 4, 9);
	a = nn_wire_pending_add(p, NN_PENDING_COMMS, &h, &done);
	DT_CHECK(a >= 0 && !done);
	h = hello(1, 2, 9);
	DT_CHECK_EQ(nn_wire_pending_add(p, NN_PENDING_COMMS, &h, &done), -1);
	DT_CHECK(!done);
	h = hello(0, 4, 9);
	DT_CHECK_EQ(nn_wire_pending_add(p, NN_PENDING_COMMS, &h, &done), -1);
	h = hello(1, 4, 9);
	DT_CHECK_EQ(nn_wire_pending_add(p, NN_PENDING_COMMS, &h, &done), a);
	DT_CHECK(!done && p[a].got == 2);
}

static void
msg(uint8_t *rec, int32_t tag, uint64_t size)
{
	struct nn_wire_msg m = { .magic = NN_MAGIC_MSG, .tag = tag,
		.size = size };

	memcpy(rec, &m, sizeof(m));
}

/* Slices tile the message; what is beyond the room is dropped. */
static void
test_msg_slices(void)
{
	uint8_t rec[NN_WIRE_LEN];
	struct nn_wire_rx rx;
	uint64_t at = 0;
	uint16_t i;

	msg(rec, 3, 12345);
	for (i = 0; i < 4; i++) {
		DT_CHECK_EQ(nn_wire_msg_parse(rec, 4, i, 20000, &rx), 0);
		DT_CHECK(rx.off == at && rx.fit == rx.len && !rx.truncated);
		at += rx.len;
	}
	DT_CHECK_EQ(at, 12345);
	DT_CHECK_EQ(nn_wire_msg_parse(rec, 2, 1, 4096, &rx), 0);
	DT_CHECK(rx.off == 8192 && rx.len == 12345 - 8192 && rx.fit == 0 &&
		rx.truncated);
	rec[0] ^= 1;
	DT_CHECK_EQ(nn_wire_msg_parse(rec, 2, 1, 4096, &rx), -EPROTO);
}

/*
 * Sizes near 2^64 (a peer may claim any): the slices still tile the
 * message. In bytes, ceil(size / k) wrapped (fuzz_nccl_wire: a slice
 * beyond the message, a flow waiting for 2^64 bytes).
 */
static void
test_slice_huge(void)
{
	static const uint64_t sizes[] = { UINT64_MAX, UINT64_MAX - 4095,
		UINT64_MAX - 4096, (1ull << 63) + 5 };
	uint64_t off, len, at;
	unsigned int s;
	uint16_t k, i;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (k = 1; k <= NN_MAX_FLOWS; k++) {
			at = 0;
			for (i = 0; i < k; i++) {
				nn_slice(sizes[s], k, i, &off, &len);
				DT_CHECK(len == 0 || off == at);
				DT_CHECK(off <= sizes[s] && len <= sizes[s] - off);
				at = off + len;
			}
			DT_CHECK(at == sizes[s]);
		}
}

/* Every flow must carry the same header. */
static void
test_msg_agree(void)
{
	struct nn_wire_agree ag;
	uint8_t rec[NN_WIRE_LEN];
	struct nn_wire_rx rx;

	memset(&ag, 0, sizeof(ag));
	msg(rec, -5, 8192);
	DT_CHECK_EQ(nn_wire_msg_parse(rec, 2, 0, 8192, &rx), 0);
	DT_CHECK_EQ(nn_wire_agree(&ag, &rx), 0);
	DT_CHECK_EQ(nn_wire_agree(&ag, &rx), 0);
	msg(rec, -5, 5000);
	DT_CHECK_EQ(nn_wire_msg_parse(rec, 2, 1, 8192, &rx), 0);
	DT_CHECK_EQ(nn_wire_agree(&ag, &rx), -EPROTO);
	msg(rec, 6, 8192);
	DT_CHECK_EQ(nn_wire_msg_parse(rec, 2, 1, 8192, &rx), 0);
	DT_CHECK_EQ(nn_wire_agree(&ag, &rx), -EPROTO);
}

int
main(void)
{
	DT_RUN(test_hello_parse);
	DT_RUN(test_pending_order);
	DT_RUN(test_pending_lies);
	DT_RUN(test_msg_slices);
	DT_RUN(test_slice_huge);
	DT_RUN(test_msg_agree);
	return dt_test_summary();
}
