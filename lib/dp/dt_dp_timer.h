/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Hashed timer wheel of a stack: one node per timed object (a connection
 * holds one node armed at its earliest engine deadline). Pure C, no EAL:
 * times are microseconds supplied by the caller; unit-tested alone.
 *
 * Arming and cancelling are O(1). Expiry walks the slots from the last
 * processed tick to now; a node further away than one turn of the wheel
 * stays in its slot until its round comes (its deadline is compared).
 */
#ifndef DT_DP_TIMER_H
#define DT_DP_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A timed object's link; embed it, zero-initialise it. */
struct dt_dp_tw_node {
	struct dt_dp_tw_node *next;
	struct dt_dp_tw_node **pprev;  /**< NULL: not armed */
	uint64_t deadline;             /**< microseconds */
};

/** The wheel. */
struct dt_dp_tw {
	struct dt_dp_tw_node **slots;
	uint32_t mask;                 /**< slots - 1 (a power of two) */
	uint32_t shift;                /**< tick = 2^shift microseconds */
	uint64_t cur_tick;             /**< ticks before this one are done */
	uint32_t armed;                /**< nodes armed */
};

/** Called for an expired node (already unlinked; may re-arm it). */
typedef void (*dt_dp_tw_cb_t)(struct dt_dp_tw_node *n, void *arg);

/**
 * Set up @p w over @p slots (@p nb_slots heads, a power of two), with
 * ticks of 2^@p tick_shift microseconds, starting at @p now.
 * @return 0, or -EINVAL
 */
int dt_dp_tw_init(struct dt_dp_tw *w, struct dt_dp_tw_node **slots,
	uint32_t nb_slots, uint32_t tick_shift, uint64_t now);

/** Whether @p n is armed. */
static inline bool
dt_dp_tw_armed(const struct dt_dp_tw_node *n)
{
	return n->pprev != NULL;
}

/** Arm (or move) @p n to @p deadline; a deadline in the past fires next. */
void dt_dp_tw_arm(struct dt_dp_tw *w, struct dt_dp_tw_node *n,
	uint64_t deadline);

/** Disarm @p n (no-op when not armed). */
void dt_dp_tw_cancel(struct dt_dp_tw *w, struct dt_dp_tw_node *n);

/**
 * Run @p cb for nodes whose deadline is <= @p now, at most @p max of them
 * (the rest fire on a later call).
 * @return the number of callbacks made
 */
unsigned int dt_dp_tw_expire(struct dt_dp_tw *w, uint64_t now,
	dt_dp_tw_cb_t cb, void *arg, unsigned int max);

#ifdef __cplusplus
}
#endif

#endif /* DT_DP_TIMER_H */
