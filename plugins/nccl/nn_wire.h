/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's wire protocol, per flow: a hello {magic, flow index,
 * flows, comm id} once, then per message a header {magic, tag, size}
 * followed by this flow's slice of the message (nn_slice()). Everything
 * here is read from the network: the functions are pure (no DPDK, no
 * I/O) so that test/fuzz/fuzz_nccl_wire.c can feed them anything.
 */
#ifndef NN_WIRE_H
#define NN_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#define NN_MAX_FLOWS 16
#define NN_SLICE_ALIGN 4096u     /* slices are multiples of this */
#define NN_WIRE_LEN 16
#define NN_PENDING_COMMS 8       /* comms a listener assembles at once */

#define NN_MAGIC_HELLO 0x444e4e48u   /* "HNND" */
#define NN_MAGIC_MSG 0x444e4e4du     /* "MNND" */
#define NN_MAGIC_HANDLE 0x544e4e44u

/* On the wire (little-endian hosts only, as NCCL itself). */
struct nn_wire_hello {
	uint32_t magic;
	uint16_t flow;
	uint16_t nflows;
	uint64_t comm_id;
};

struct nn_wire_msg {
	uint32_t magic;
	int32_t tag;
	uint64_t size;
};

/* Byte at NN_SLICE_ALIGN block @p blk of a message of @p size (or its end). */
static inline uint64_t
nn_slice_at(uint64_t blk, uint64_t size)
{
	if (blk > size / NN_SLICE_ALIGN)
		return size;
	return blk * NN_SLICE_ALIGN < size ? blk * NN_SLICE_ALIGN : size;
}

/*
 * Slice of a message carried by flow @p i of @p k: ceil(size / k) rounded
 * up to NN_SLICE_ALIGN, counted in blocks so that no size the peer may
 * claim overflows (in bytes, a size near 2^64 wrapped and gave a slice
 * beyond the message).
 */
static inline void
nn_slice(uint64_t size, uint16_t k, uint16_t i, uint64_t *off, uint64_t *len)
{
	uint64_t blocks = size / NN_SLICE_ALIGN + (size % NN_SLICE_ALIGN != 0);
	uint64_t per = blocks / k + (blocks % k != 0);
	uint64_t a = nn_slice_at(i * per, size);

	*off = a;
	*len = nn_slice_at((uint64_t)(i + 1) * per, size) - a;
}

/**
 * A hello record (@p rec, NN_WIRE_LEN bytes as received).
 * @return 0 and *h, or -EPROTO (no devtcp hello: wrong magic, 0 or more
 *	than NN_MAX_FLOWS flows, flow index beyond them)
 */
int nn_wire_hello_parse(const uint8_t *rec, struct nn_wire_hello *h);

/* What flow @p flow of @p nflows does with one message. */
struct nn_wire_rx {
	int32_t tag;
	uint64_t size;       /* the sender's */
	uint64_t off, len;   /* this flow's slice of the message */
	uint64_t fit;        /* of len, bytes that go into the buffer */
	bool truncated;      /* size beyond the buffer: EMSGSIZE */
};

/**
 * A message header record @p rec for a receive of @p room bytes.
 * @return 0 and *rx, or -EPROTO (wrong magic: the stream is out of sync)
 */
int nn_wire_msg_parse(const uint8_t *rec, uint16_t nflows, uint16_t flow,
	uint64_t room, struct nn_wire_rx *rx);

/*
 * A receive's header as its flows saw it: every flow carries every header
 * and they must agree, or the flows slice different messages and the
 * receive completes with bytes from neither. Zeroed at post; the flows of
 * one receive may run on different lcores (atomic).
 */
struct nn_wire_agree {
	uint64_t size1;      /* the first header's size + 1 (0: none yet) */
	uint64_t tag1;       /* its (uint32_t)tag + 1 */
};

/**
 * Check @p rx against the receive's first header (or make it the first).
 * @return 0, or -EPROTO (another flow said another size or tag)
 */
int nn_wire_agree(struct nn_wire_agree *a, const struct nn_wire_rx *rx);

/* A comm being assembled from its flows' hellos (slot free: got 0). */
struct nn_wire_pending {
	uint64_t comm_id;
	uint16_t nflows;     /* every hello of the comm says the same */
	uint16_t got;
	uint32_t have;       /* bit i: flow i said hello */
};

/**
 * Take hello @p h into the slots @p p[0..n): the comm's slot, else a
 * free one.
 * @return the slot, with *complete set once every flow 0..nflows-1 said
 *	hello (the caller then frees the slot: got = 0); -1: rejected (no
 *	free slot, a flow twice, or a flow count other than the comm's)
 */
int nn_wire_pending_add(struct nn_wire_pending *p, unsigned int n,
	const struct nn_wire_hello *h, bool *complete);

#endif /* NN_WIRE_H */
