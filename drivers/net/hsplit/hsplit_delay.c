/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "hsplit_delay.h"
#include "hsplit_prng.h"

void
hsplit_delay_init(struct hsplit_delay *d, uint32_t delay_us,
	uint32_t jitter_us, uint64_t tsc_hz, uint64_t seed, uint16_t stream)
{
	memset(d, 0, sizeof(*d));
	d->delay_tsc = (uint64_t)delay_us * tsc_hz / 1000000u;
	d->jitter_tsc = (uint64_t)jitter_us * tsc_hz / 1000000u;
	/* Its own sequence: the faults' draws stay what they were. */
	hsplit_prng_seed(&d->prng, seed ^ 0x64656c6179ull, stream);
}

uint64_t
hsplit_delay_due(struct hsplit_delay *d, uint64_t now)
{
	uint64_t due = now + d->delay_tsc;

	if (d->jitter_tsc != 0)
		due += hsplit_prng_next(&d->prng) % (d->jitter_tsc + 1);
	/* Jitter never reorders: a frame is not due before the one ahead. */
	if (due < d->last_due)
		due = d->last_due;
	/* 0 means "no delay" on a wire buffer. */
	if (due == 0)
		due = 1;
	d->last_due = due;
	return due;
}
