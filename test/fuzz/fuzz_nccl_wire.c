/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the NCCL plugin's wire protocol
 * (plugins/nccl/nn_wire.c): the per-flow hello, the listener's grouping of
 * flows into comms, and the 16-byte {magic, tag, size} message header with
 * the slice, fit and agreement rules the receive path applies to it. The
 * peer is untrusted: flows come late, out of order, twice, lying about
 * their count or their sizes.
 *
 * Input: byte 0: flows of the receiving comm (1 + b % 16); byte 1: hello
 * records to take (b % 32), then that many 16-byte hellos (as on the
 * wire); then messages until the input ends, each: 4 bytes little-endian,
 * the receive buffer's room (up to 128 KiB), then per flow 0..K-1 a 16-byte
 * header and up to its slice's length of payload bytes (the input running
 * out leaves the receive pending, as a stalled stream does).
 *
 * Judged: a comm the grouping completes has exactly flows 0..nflows-1,
 * each once, all saying the same count (nn_accept builds it from them);
 * a slice starts on NN_SLICE_ALIGN, lies inside the message, and the bytes
 * the buffer takes stay inside it (the buffer is allocated at exactly its
 * room: ASan catches an overrun); the slices of agreeing headers tile the
 * message; a header beyond the room is truncated (EMSGSIZE); headers that
 * disagree fail the receive (EPROTO); a receive that completes without
 * error holds exactly the bytes sent. A broken property abort()s.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME "fuzz_nccl_wire"
#include "fuzz_check.h"

#define FZ_ROOM_MAX (1u << 17)

struct fz_in {
	const uint8_t *p;
	size_t n;
};

static bool
take(struct fz_in *in, size_t len, const uint8_t **out)
{
	if (in->n < len)
		return false;
	*out = in->p;
	in->p += len;
	in->n -= len;
	return true;
}

/* The listener's side: hellos grouped into comms (nn_accept()). */
static void
fz_hellos(struct fz_in *in, unsigned int count)
{
	struct nn_wire_pending pend[NN_PENDING_COMMS];
	struct nn_wire_hello flows[NN_PENDING_COMMS][NN_MAX_FLOWS], h;
	bool there[NN_PENDING_COMMS][NN_MAX_FLOWS], complete;
	const uint8_t *rec;
	unsigned int i, k;
	int slot;

	memset(pend, 0, sizeof(pend));
	memset(there, 0, sizeof(there));
	for (i = 0; i < count && take(in, NN_WIRE_LEN, &rec); i++) {
		if (nn_wire_hello_parse(rec, &h) != 0)
			continue;
		FZ_CHECK(h.nflows >= 1 && h.nflows <= NN_MAX_FLOWS &&
			h.flow < h.nflows);
		slot = nn_wire_pending_add(pend, NN_PENDING_COMMS, &h, &complete);
		if (slot < 0)
			continue;
		FZ_CHECK(slot < NN_PENDING_COMMS && !there[slot][h.flow]);
		flows[slot][h.flow] = h;
		there[slot][h.flow] = true;
		if (!complete)
			continue;
		/* accept_build(): flows 0..fl[0].nflows - 1, all present. */
		FZ_CHECK(there[slot][0]);
		for (k = 0; k < flows[slot][0].nflows; k++) {
			FZ_CHECK(there[slot][k]);
			FZ_CHECK(flows[slot][k].nflows == flows[slot][0].nflows);
			FZ_CHECK(flows[slot][k].comm_id == flows[slot][0].comm_id);
		}
		for (; k < NN_MAX_FLOWS; k++)
			FZ_CHECK(!there[slot][k]);
		pend[slot].got = 0;
		memset(there[slot], 0, sizeof(there[slot]));
	}
}

/* One receive of @p room bytes over @p k flows; false: input ran out. */
static bool
fz_message(struct fz_in *in, uint16_t k, uint32_t room)
{
	struct nn_wire_rx rx[NN_MAX_FLOWS];
	struct nn_wire_agree agree;
	uint8_t *buf = malloc(room ? room : 1), *sent = calloc(1, room + 1);
	bool failed = false, agreed = true, pending = false;
	const uint8_t *rec, *pay;
	uint64_t covered = 0, avail;
	uint16_t i, j;

	FZ_CHECK(buf != NULL && sent != NULL);
	memset(&agree, 0, sizeof(agree));
	for (i = 0; i < k && !failed; i++) {
		if (!take(in, NN_WIRE_LEN, &rec)) {
			pending = true;
			break;
		}
		if (nn_wire_msg_parse(rec, k, i, room, &rx[i]) != 0) {
			failed = true;      /* EPROTO: out of sync */
			break;
		}
		FZ_CHECK(rx[i].off <= rx[i].size &&
			rx[i].len <= rx[i].size - rx[i].off);
		FZ_CHECK(rx[i].off % NN_SLICE_ALIGN == 0 ||
			rx[i].off == rx[i].size);
		FZ_CHECK(rx[i].fit <= rx[i].len);
		FZ_CHECK(rx[i].fit == 0 || rx[i].off + rx[i].fit <= room);
		FZ_CHECK(rx[i].truncated == (rx[i].size > room));
		if (nn_wire_agree(&agree, &rx[i]) != 0) {
			FZ_CHECK(rx[i].size != rx[0].size ||
				rx[i].tag != rx[0].tag);
			agreed = false;
			failed = true;
			break;
		}
		FZ_CHECK(rx[i].size == rx[0].size || rx[0].size == UINT64_MAX ||
			rx[i].size == UINT64_MAX);
		/* The payload: what fits lands, the rest is read and dropped. */
		avail = in->n < rx[i].len ? in->n : rx[i].len;
		if (!take(in, (size_t)avail, &pay) || avail < rx[i].len)
			pending = true;
		if (rx[i].fit != 0) {
			uint64_t land = avail < rx[i].fit ? avail : rx[i].fit;

			memcpy(buf + rx[i].off, pay, (size_t)land);
			memcpy(sent + rx[i].off, pay, (size_t)land);
		}
		if (pending)
			break;
	}
	if (!failed && !pending && agreed && !rx[0].truncated) {
		/* Agreeing slices tile the message, in flow order. */
		for (j = 0; j < k; j++) {
			FZ_CHECK(rx[j].size == rx[0].size);
			FZ_CHECK(rx[j].len == 0 || rx[j].off == covered);
			covered += rx[j].len;
		}
		FZ_CHECK(covered == rx[0].size);
		FZ_CHECK(rx[0].size <= room);
		/* Completed: exactly the bytes sent. */
		FZ_CHECK(memcmp(buf, sent, (size_t)rx[0].size) == 0);
	}
	free(buf);
	free(sent);
	return !pending;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	const uint8_t *b;
	uint32_t room;
	uint16_t k;

	if (!take(&in, 2, &b))
		return 0;
	k = (uint16_t)(1 + b[0] % NN_MAX_FLOWS);
	fz_hellos(&in, b[1] % 32u);
	while (take(&in, 4, &b)) {
		room = ((uint32_t)b[0] | (uint32_t)b[1] << 8 |
			(uint32_t)b[2] << 16 | (uint32_t)b[3] << 24) % (FZ_ROOM_MAX + 1);
		if (!fz_message(&in, k, room))
			break;
	}
	return 0;
}
