/* SPDX-License-Identifier: BSD-3-Clause */
/* Hashed timer wheel (see dt_dp_timer.h). */
#include <errno.h>
#include <stddef.h>

#include "dt_dp_timer.h"

int
dt_dp_tw_init(struct dt_dp_tw *w, struct dt_dp_tw_node **slots,
	uint32_t nb_slots, uint32_t tick_shift, uint64_t now)
{
	uint32_t i;

	if (slots == NULL || nb_slots == 0 || (nb_slots & (nb_slots - 1)) ||
			tick_shift > 30)
		return -EINVAL;
	for (i = 0; i < nb_slots; i++)
		slots[i] = NULL;
	w->slots = slots;
	w->mask = nb_slots - 1;
	w->shift = tick_shift;
	w->cur_tick = now >> tick_shift;
	w->armed = 0;
	return 0;
}

static void
tw_unlink(struct dt_dp_tw *w, struct dt_dp_tw_node *n)
{
	*n->pprev = n->next;
	if (n->next != NULL)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
	w->armed--;
}

void
dt_dp_tw_arm(struct dt_dp_tw *w, struct dt_dp_tw_node *n, uint64_t deadline)
{
	uint64_t tick = deadline >> w->shift;
	struct dt_dp_tw_node **head;

	/*
	 * Re-armed within the same tick (a receiver's timers move with every
	 * segment): the node already sits in the slot it would go to, since
	 * neither tick was clamped to the current one. Only the deadline moves.
	 */
	if (n->pprev != NULL && tick >= w->cur_tick &&
			(n->deadline >> w->shift) == tick) {
		n->deadline = deadline;
		return;
	}
	if (n->pprev != NULL)
		tw_unlink(w, n);
	if (tick < w->cur_tick)
		tick = w->cur_tick;
	head = &w->slots[tick & w->mask];
	n->deadline = deadline;
	n->next = *head;
	if (*head != NULL)
		(*head)->pprev = &n->next;
	*head = n;
	n->pprev = head;
	w->armed++;
}

void
dt_dp_tw_cancel(struct dt_dp_tw *w, struct dt_dp_tw_node *n)
{
	if (n->pprev != NULL)
		tw_unlink(w, n);
}

/* Fire the due nodes of one slot; false when @p max was reached. */
static bool
tw_slot(struct dt_dp_tw *w, uint32_t slot, uint64_t now, dt_dp_tw_cb_t cb,
	void *arg, unsigned int max, unsigned int *done)
{
	struct dt_dp_tw_node *n = w->slots[slot], *next;

	while (n != NULL) {
		next = n->next;
		if (n->deadline <= now) {
			if (*done >= max)
				return false;
			tw_unlink(w, n);
			(*done)++;
			cb(n, arg);
			/* A callback may have re-armed into this slot's head:
			 * continue from the saved successor, still linked. */
		}
		n = next;
	}
	return true;
}

unsigned int
dt_dp_tw_expire(struct dt_dp_tw *w, uint64_t now, dt_dp_tw_cb_t cb,
	void *arg, unsigned int max)
{
	uint64_t now_tick = now >> w->shift, t, last;
	unsigned int done = 0;

	if (w->armed == 0) {
		if (now_tick > w->cur_tick)
			w->cur_tick = now_tick;
		return 0;
	}
	/* A gap longer than a turn visits every slot once. */
	last = now_tick;
	if (now_tick - w->cur_tick > w->mask)
		last = w->cur_tick + w->mask;
	for (t = w->cur_tick; t <= last; t++) {
		if (!tw_slot(w, (uint32_t)(t & w->mask), now, cb, arg, max,
				&done)) {
			w->cur_tick = t;
			return done;
		}
	}
	w->cur_tick = now_tick;
	return done;
}
