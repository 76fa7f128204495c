/* SPDX-License-Identifier: BSD-3-Clause */
/* The plugin's wire protocol: parse and validate (nn_wire.h). */
#include <errno.h>
#include <string.h>

#include "nn_wire.h"

int
nn_wire_hello_parse(const uint8_t *rec, struct nn_wire_hello *h)
{
	memcpy(h, rec, sizeof(*h));
	if (h->magic != NN_MAGIC_HELLO || h->nflows == 0 ||
			h->nflows > NN_MAX_FLOWS || h->flow >= h->nflows)
		return -EPROTO;
	return 0;
}

int
nn_wire_msg_parse(const uint8_t *rec, uint16_t nflows, uint16_t flow,
	uint64_t room, struct nn_wire_rx *rx)
{
	struct nn_wire_msg m;
	uint64_t left;

	memcpy(&m, rec, sizeof(m));
	memset(rx, 0, sizeof(*rx));
	if (m.magic != NN_MAGIC_MSG)
		return -EPROTO;
	rx->tag = m.tag;
	rx->size = m.size;
	nn_slice(m.size, nflows, flow, &rx->off, &rx->len);
	/* What lies beyond the buffer is read and dropped: truncated. */
	left = room > rx->off ? room - rx->off : 0;
	rx->fit = left < rx->len ? left : rx->len;
	rx->truncated = m.size > room;
	return 0;
}

static int
agree_one(uint64_t *seen, uint64_t v)
{
	uint64_t none = 0;

	if (__atomic_compare_exchange_n(seen, &none, v, false,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return 0;
	return none == v ? 0 : -EPROTO;
}

int
nn_wire_agree(struct nn_wire_agree *a, const struct nn_wire_rx *rx)
{
	/* A size of 2^64 - 1 reads as "none": it is truncated anyway. */
	if (agree_one(&a->size1, rx->size + 1) != 0 ||
			agree_one(&a->tag1, (uint64_t)(uint32_t)rx->tag + 1) != 0)
		return -EPROTO;
	return 0;
}

static int
pending_slot(struct nn_wire_pending *p, unsigned int n, uint64_t id)
{
	int free_slot = -1;
	unsigned int i;

	/* Flows arrive in any order: a slot is keyed by comm id. */
	for (i = 0; i < n; i++) {
		if (p[i].got != 0 && p[i].comm_id == id)
			return (int)i;
		if (p[i].got == 0 && free_slot < 0)
			free_slot = (int)i;
	}
	return free_slot;
}

int
nn_wire_pending_add(struct nn_wire_pending *p, unsigned int n,
	const struct nn_wire_hello *h, bool *complete)
{
	int slot = pending_slot(p, n, h->comm_id);
	struct nn_wire_pending *s;

	*complete = false;
	if (slot < 0 || h->nflows == 0 || h->nflows > NN_MAX_FLOWS ||
			h->flow >= h->nflows)
		return -1;
	s = &p[slot];
	if (s->got == 0) {
		s->comm_id = h->comm_id;
		s->nflows = h->nflows;
		s->have = 0;
	}
	/*
	 * A peer that lies about the flow count (or says hello twice) would
	 * have the comm built from flows that never came.
	 */
	if (h->nflows != s->nflows || (s->have & (1u << h->flow)))
		return -1;
	s->have |= 1u << h->flow;
	s->got++;
	*complete = s->got == s->nflows;
	return slot;
}
