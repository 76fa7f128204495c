/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The software NIC's PRNG (faults, delay-line jitter): deterministic for a
 * seed, one state per user, no shared state. Pure: unit tests link it.
 */
#ifndef HSPLIT_PRNG_H
#define HSPLIT_PRNG_H

#include <stdint.h>

/** Next draw of state @p s (xorshift64*). */
uint64_t hsplit_prng_next(uint64_t *s);

/** Seed @p s from @p seed and a stream number @p qid (never 0). */
void hsplit_prng_seed(uint64_t *s, uint64_t seed, uint16_t qid);

#endif /* HSPLIT_PRNG_H */
