/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The delay line of the software NIC (devargs delay_us=, jitter_us=): a
 * stand-in for netem on kernels without sch_netem.
 *
 * A frame gets a due time (TSC) when it enters the wire: now + delay + a
 * uniform draw in [0, jitter]. Due times of one sender never go backwards
 * (a draw below the previous due is raised to it), so jitter never reorders
 * frames; reorder= does that. The frame waits where it already waits, in
 * FIFO order, and is taken only once due:
 * - loopback wire: in the receiving RX queue's wire ring (the queue's
 *   ingest stops at the first frame not yet due);
 * - interface, received: the same, stamped when drained from the AF_PACKET
 *   ring;
 * - interface, sent: in the TX queue's own FIFO of wire buffers (sized for
 *   every wire buffer of the port: it cannot fill), put on the AF_PACKET
 *   ring by a later tx_burst of that queue once due.
 * No lock, no allocation per frame: each sender stamps with its own state,
 * each FIFO has one producer and one consumer thread, the same one.
 */
#ifndef HSPLIT_DELAY_H
#define HSPLIT_DELAY_H

#include <stdint.h>

/** One sender's delay line (a TX queue, or an interface's RX drain). */
struct hsplit_delay {
	uint64_t delay_tsc;   /**< 0 with jitter_tsc 0: no delay line */
	uint64_t jitter_tsc;
	uint64_t last_due;    /**< dues never go backwards */
	uint64_t prng;
};

/**
 * Set up a sender's delay line.
 * @param tsc_hz TSC frequency
 * @param seed, stream PRNG seed of the jitter (hsplit_prng_seed())
 */
void hsplit_delay_init(struct hsplit_delay *d, uint32_t delay_us,
	uint32_t jitter_us, uint64_t tsc_hz, uint64_t seed, uint16_t stream);

/** Whether the line delays at all. */
static inline int
hsplit_delay_on(const struct hsplit_delay *d)
{
	return (d->delay_tsc | d->jitter_tsc) != 0;
}

/**
 * Due time of the next frame entering the line at @p now (never below the
 * previous one). Pure but for the PRNG and last_due.
 */
uint64_t hsplit_delay_due(struct hsplit_delay *d, uint64_t now);

#endif /* HSPLIT_DELAY_H */
