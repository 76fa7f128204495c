/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The slot table of one ingest ring pair: which node each descriptor given
 * to a client names until its token comes back. The tokens are written by
 * the client, so this is remote input: a token names a slot and the
 * generation it was given at, and only a slot given out and not yet
 * returned, at that generation, gives its node back (each once). Pure (no
 * EAL): the stack lcore's data path and test/fuzz/fuzz_ingest.c share it.
 */
#ifndef SRV_INGEST_SLOTS_H
#define SRV_INGEST_SLOTS_H

#include <stdint.h>

#include "dt_client_proto.h"
#include "srv_ingest.h"

/**
 * Give a free slot to @p node (the caller checked p->nb_free > 0).
 * @return the token the descriptor carries.
 */
static inline uint32_t
srv_ing_slot_give(struct srv_ingest_pair *p, uint32_t node)
{
	uint32_t slot = p->free_slots[--p->nb_free];

	p->slots[slot].node = node;
	/* 15 bits: the client marks a held slot with gen + 1 in 16. */
	p->slots[slot].gen = (uint16_t)((p->slots[slot].gen + 1) & 0x7fff);
	p->held++;
	return dt_client_token(slot, p->slots[slot].gen);
}

/**
 * A token the client gave back.
 * @return the node its slot named (the slot is free again), or
 *         SRV_INGEST_NONE for a token of a slot the client does not hold
 *         (counted in p->bad_tokens).
 */
static inline uint32_t
srv_ing_slot_take(struct srv_ingest_pair *p, uint32_t ring_size, uint32_t tok)
{
	uint32_t slot = tok & 0xffff, node;
	struct srv_ingest_slot *sl;

	if (slot >= ring_size) {
		p->bad_tokens++;
		return SRV_INGEST_NONE;
	}
	sl = &p->slots[slot];
	if (sl->node == SRV_INGEST_NONE || sl->gen != (uint16_t)(tok >> 16)) {
		p->bad_tokens++;
		return SRV_INGEST_NONE;
	}
	node = sl->node;
	sl->node = SRV_INGEST_NONE;
	p->free_slots[p->nb_free++] = slot;
	p->held--;
	return node;
}

/**
 * Tokens to read now, given the client's token ring head @p head. A head
 * more than a ring ahead of p->tok_tail is one the client cannot have
 * written: skip to it, count it, read nothing.
 */
static inline uint32_t
srv_ing_tok_avail(struct srv_ingest_pair *p, uint32_t ring_size, uint32_t head)
{
	if (head - p->tok_tail > ring_size) {
		p->bad_tokens++;
		p->tok_tail = head;
		return 0;
	}
	return head - p->tok_tail;
}

#endif /* SRV_INGEST_SLOTS_H */
