/* SPDX-License-Identifier: BSD-3-Clause */
#include "hsplit_prng.h"

/* xorshift64*: fast, deterministic for a seed, no shared state. */
uint64_t
hsplit_prng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

void
hsplit_prng_seed(uint64_t *s, uint64_t seed, uint16_t qid)
{
	/* splitmix64 of (seed, queue): never 0, distinct per queue. */
	uint64_t z = seed + 0x9e3779b97f4a7c15ull * (qid + 1u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	*s = z ? z : 1;
}
