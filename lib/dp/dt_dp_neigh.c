/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour table logic (see dt_dp_neigh.h). */
#include <errno.h>
#include <string.h>

#include "dt_dp_neigh.h"

#define NEIGH_RETRY_US 1000000ull
#define NEIGH_RETRIES 3
#define NEIGH_REACHABLE_US 60000000ull

/* Every slot of the hold pool on the free list. */
static void
hold_reset(struct dt_dp_neigh_tbl *t)
{
	uint32_t i;

	for (i = 0; i < t->hold_cap; i++) {
		t->hold[i].frame = NULL;
		t->hold[i].next = i + 1 < t->hold_cap ? i + 1 : DT_DP_NEIGH_NIL;
	}
	t->hold_free = t->hold_cap ? 0 : DT_DP_NEIGH_NIL;
	t->hold_used = 0;
}

int
dt_dp_neigh_init(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *e,
	uint32_t nb, struct dt_dp_neigh_held *hold, uint32_t nb_hold,
	const struct dt_dp_neigh_conf *conf)
{
	if (e == NULL || nb < 2 || (nb & (nb - 1)) ||
			(hold == NULL && nb_hold != 0) ||
			nb_hold >= DT_DP_NEIGH_NIL)
		return -EINVAL;
	memset(e, 0, sizeof(*e) * nb);
	t->e = e;
	t->mask = nb - 1;
	t->used = 0;
	t->hold = hold;
	t->hold_cap = nb_hold;
	hold_reset(t);
	memset(&t->conf, 0, sizeof(t->conf));
	if (conf != NULL)
		t->conf = *conf;
	if (t->conf.retry_us == 0)
		t->conf.retry_us = NEIGH_RETRY_US;
	if (t->conf.max_retries == 0)
		t->conf.max_retries = NEIGH_RETRIES;
	if (t->conf.reachable_us == 0)
		t->conf.reachable_us = NEIGH_REACHABLE_US;
	return 0;
}

/* Slot of @p ip, or of the first free slot of its probe chain. */
static struct dt_dp_neigh *
neigh_slot(struct dt_dp_neigh_tbl *t, uint32_t ip)
{
	uint32_t i = dt_dp_neigh_hash(ip) & t->mask, k;

	for (k = 0; k <= t->mask; k++, i = (i + 1) & t->mask)
		if (t->e[i].state == DT_DP_NEIGH_FREE || t->e[i].ip == ip)
			return &t->e[i];
	return NULL;
}

struct dt_dp_neigh *
dt_dp_neigh_find(struct dt_dp_neigh_tbl *t, uint32_t ip)
{
	struct dt_dp_neigh *n = neigh_slot(t, ip);

	return n != NULL && n->state != DT_DP_NEIGH_FREE ? n : NULL;
}

static struct dt_dp_neigh *
neigh_new(struct dt_dp_neigh_tbl *t, uint32_t ip)
{
	struct dt_dp_neigh *n;

	/* Keep a free slot so probe chains end. */
	if (t->used + 1 > t->mask)
		return NULL;
	n = neigh_slot(t, ip);
	if (n == NULL)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->ip = ip;
	n->held_head = DT_DP_NEIGH_NIL;
	n->held_tail = DT_DP_NEIGH_NIL;
	t->used++;
	return n;
}

/* Remove @p n and re-insert the rest of its cluster (linear probing). */
static void
neigh_remove(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *n)
{
	uint32_t i = (uint32_t)(n - t->e), j = i, h;

	n->state = DT_DP_NEIGH_FREE;
	t->used--;
	for (;;) {
		j = (j + 1) & t->mask;
		if (t->e[j].state == DT_DP_NEIGH_FREE)
			return;
		h = dt_dp_neigh_hash(t->e[j].ip) & t->mask;
		/* Move j back to i when i lies on j's probe path. */
		if (((j - h) & t->mask) >= ((j - i) & t->mask)) {
			t->e[i] = t->e[j];
			t->e[j].state = DT_DP_NEIGH_FREE;
			i = j;
		}
	}
}

struct dt_dp_neigh *
dt_dp_neigh_resolve(struct dt_dp_neigh_tbl *t, uint32_t ip, uint64_t now,
	bool *created)
{
	struct dt_dp_neigh *n = dt_dp_neigh_find(t, ip);

	*created = false;
	if (n != NULL)
		return n;
	n = neigh_new(t, ip);
	if (n == NULL)
		return NULL;
	n->state = DT_DP_NEIGH_INCOMPLETE;
	n->retries = 1;
	n->next_retry = now + t->conf.retry_us;
	*created = true;
	return n;
}

struct dt_dp_neigh *
dt_dp_neigh_learn(struct dt_dp_neigh_tbl *t, uint32_t ip, const uint8_t mac[6],
	uint64_t now, bool create)
{
	struct dt_dp_neigh *n = dt_dp_neigh_find(t, ip);

	if (n == NULL) {
		if (!create)
			return NULL;
		n = neigh_new(t, ip);
		if (n == NULL)
			return NULL;
	}
	memcpy(n->mac, mac, 6);
	n->state = DT_DP_NEIGH_REACHABLE;
	n->retries = 0;
	n->refreshing = false;
	n->confirmed = now;
	return n;
}

int
dt_dp_neigh_hold(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *n,
	void *frame)
{
	uint32_t s = t->hold_free;

	if (s == DT_DP_NEIGH_NIL)
		return -ENOBUFS;
	t->hold_free = t->hold[s].next;
	t->hold[s].frame = frame;
	t->hold[s].next = DT_DP_NEIGH_NIL;
	if (n->nb_held == 0)
		n->held_head = s;
	else
		t->hold[n->held_tail].next = s;
	n->held_tail = s;
	n->nb_held++;
	t->hold_used++;
	return 0;
}

void *
dt_dp_neigh_unhold(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *n)
{
	uint32_t s = n->held_head;
	void *frame;

	if (n->nb_held == 0)
		return NULL;
	frame = t->hold[s].frame;
	n->held_head = t->hold[s].next;
	if (--n->nb_held == 0) {
		n->held_head = DT_DP_NEIGH_NIL;
		n->held_tail = DT_DP_NEIGH_NIL;
	}
	t->hold[s].frame = NULL;
	t->hold[s].next = t->hold_free;
	t->hold_free = s;
	t->hold_used--;
	return frame;
}

static void
neigh_drop_held(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *n,
	const struct dt_dp_neigh_ops *ops)
{
	void *f;

	while ((f = dt_dp_neigh_unhold(t, n)) != NULL)
		ops->drop(f, ops->arg);
}

/* One entry's due work; true when the entry was removed. */
static bool
neigh_tick_one(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *n, uint64_t now,
	const struct dt_dp_neigh_ops *ops)
{
	bool probing = n->state == DT_DP_NEIGH_INCOMPLETE || n->refreshing;

	if (n->state == DT_DP_NEIGH_REACHABLE && !n->refreshing &&
			now - n->confirmed >= t->conf.reachable_us) {
		n->refreshing = true;
		n->retries = 1;
		n->next_retry = now + t->conf.retry_us;
		ops->request(n->ip, ops->arg);
		return false;
	}
	if (!probing || now < n->next_retry)
		return false;
	if (n->retries >= t->conf.max_retries) {
		neigh_drop_held(t, n, ops);
		if (ops->timeout != NULL)
			ops->timeout(n->ip, ops->arg);
		neigh_remove(t, n);
		return true;
	}
	n->retries++;
	n->next_retry = now + t->conf.retry_us;
	ops->request(n->ip, ops->arg);
	return false;
}

void
dt_dp_neigh_tick(struct dt_dp_neigh_tbl *t, uint64_t now,
	const struct dt_dp_neigh_ops *ops)
{
	uint32_t i = 0;

	while (i <= t->mask) {
		/* A removal may pull a later entry into slot i: look again. */
		if (t->e[i].state != DT_DP_NEIGH_FREE &&
				neigh_tick_one(t, &t->e[i], now, ops))
			continue;
		i++;
	}
}

void
dt_dp_neigh_flush(struct dt_dp_neigh_tbl *t, const struct dt_dp_neigh_ops *ops)
{
	uint32_t i;

	for (i = 0; i <= t->mask; i++) {
		if (t->e[i].state != DT_DP_NEIGH_FREE)
			neigh_drop_held(t, &t->e[i], ops);
		t->e[i].state = DT_DP_NEIGH_FREE;
	}
	t->used = 0;
	hold_reset(t);
}
