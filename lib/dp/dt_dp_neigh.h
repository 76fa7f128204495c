/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Neighbour (ARP) table of a stack, pure C: states, resolution with
 * retries, timeouts, refresh of old entries and the frames waiting for
 * resolution. Frames are opaque pointers and ARP requests are actions for
 * the caller, so the logic is unit-tested alone.
 *
 * Waiting frames live in one bounded pool of the table (the hold queue),
 * shared by its entries and kept per entry in arrival order: a burst of
 * SYNs or SYN-ACKs of many connections to one neighbour waits whole while
 * its address resolves, instead of a few frames per entry.
 *
 * States: FREE -> INCOMPLETE (request sent, frames held) -> REACHABLE
 * (learned); INCOMPLETE gives up after max_retries requests (held frames
 * are handed back to drop); a REACHABLE entry older than reachable_us is
 * refreshed with a request while staying usable, and forgotten when the
 * refresh goes unanswered.
 */
#ifndef DT_DP_NEIGH_H
#define DT_DP_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** No slot (end of a hold list). */
#define DT_DP_NEIGH_NIL UINT32_MAX

enum dt_dp_neigh_state {
	DT_DP_NEIGH_FREE = 0,
	DT_DP_NEIGH_INCOMPLETE,
	DT_DP_NEIGH_REACHABLE,
};

/** One entry; addresses in host order. */
struct dt_dp_neigh {
	uint32_t ip;
	uint8_t mac[6];
	uint8_t state;          /**< enum dt_dp_neigh_state */
	uint8_t retries;        /**< requests sent in this resolution/refresh */
	bool refreshing;        /**< REACHABLE, refresh request outstanding */
	uint16_t sh_count;      /**< update count of the port's shared entry last taken */
	uint32_t nb_held;       /**< frames waiting (hold pool slots) */
	uint32_t held_head;     /**< oldest waiting frame's slot, or DT_DP_NEIGH_NIL */
	uint32_t held_tail;     /**< newest waiting frame's slot */
	uint64_t confirmed;     /**< last time the MAC was learned */
	uint64_t next_retry;    /**< next request (INCOMPLETE or refreshing) */
};

/** A slot of the hold pool: a waiting frame, or a free slot. */
struct dt_dp_neigh_held {
	void *frame;
	uint32_t next;          /**< next of the entry's list / free list */
};

/** Timing of the table. */
struct dt_dp_neigh_conf {
	uint64_t retry_us;      /**< between requests (default 1 s) */
	uint8_t max_retries;    /**< requests before giving up (default 3) */
	uint64_t reachable_us;  /**< refresh after this (default 60 s) */
};

/** The table: open addressing over a power-of-two array. */
struct dt_dp_neigh_tbl {
	struct dt_dp_neigh *e;
	uint32_t mask;
	uint32_t used;
	struct dt_dp_neigh_held *hold;  /**< the hold pool */
	uint32_t hold_cap;
	uint32_t hold_free;     /**< first free slot, or DT_DP_NEIGH_NIL */
	uint32_t hold_used;     /**< frames held now, all entries */
	struct dt_dp_neigh_conf conf;
};

/** Callbacks of dt_dp_neigh_tick(). */
struct dt_dp_neigh_ops {
	void (*request)(uint32_t ip, void *arg);   /**< send an ARP request */
	void (*drop)(void *frame, void *arg);      /**< a held frame is dropped */
	void (*timeout)(uint32_t ip, void *arg);   /**< resolution failed */
	void *arg;
};

/**
 * Set up @p t over @p e (@p nb entries, a power of two) with a hold pool
 * of @p nb_hold frames at @p hold; @p conf NULL or zero fields take the
 * defaults.
 * @return 0 or -EINVAL
 */
int dt_dp_neigh_init(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *e,
	uint32_t nb, struct dt_dp_neigh_held *hold, uint32_t nb_hold,
	const struct dt_dp_neigh_conf *conf);

/** The entry of @p ip, or NULL. */
struct dt_dp_neigh *dt_dp_neigh_find(struct dt_dp_neigh_tbl *t, uint32_t ip);

/**
 * The entry of @p ip, created INCOMPLETE when missing.
 * @param created  set when the caller must send the first request
 * @return the entry, or NULL when the table is full
 */
struct dt_dp_neigh *dt_dp_neigh_resolve(struct dt_dp_neigh_tbl *t,
	uint32_t ip, uint64_t now, bool *created);

/**
 * Learn @p ip at @p mac (from an ARP request or reply). A missing entry is
 * created only when @p create is set. Frames held on the entry stay there:
 * the caller takes them with dt_dp_neigh_unhold() and sends them now.
 * @return the entry (REACHABLE), or NULL when not created / table full
 */
struct dt_dp_neigh *dt_dp_neigh_learn(struct dt_dp_neigh_tbl *t, uint32_t ip,
	const uint8_t mac[6], uint64_t now, bool create);

/**
 * Hold @p frame on entry @p n (INCOMPLETE) until it resolves.
 * @return 0, or -ENOBUFS (hold pool full: the caller drops it)
 */
int dt_dp_neigh_hold(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *n,
	void *frame);

/** The oldest frame held on @p n, taken off the hold queue; NULL: none. */
void *dt_dp_neigh_unhold(struct dt_dp_neigh_tbl *t, struct dt_dp_neigh *n);

/** Retries, timeouts and refreshes due by @p now. */
void dt_dp_neigh_tick(struct dt_dp_neigh_tbl *t, uint64_t now,
	const struct dt_dp_neigh_ops *ops);

/** Forget every entry; held frames go to ops->drop. */
void dt_dp_neigh_flush(struct dt_dp_neigh_tbl *t,
	const struct dt_dp_neigh_ops *ops);

/**
 * Hash of an IPv4 address for the open-addressing tables keyed by it: a
 * stack's neighbour table and a port's shared neighbours (dt_dp_steer.c).
 * @param ip  the address, host order
 * @return the hash; callers mask it to their table size
 */
static inline uint32_t
dt_dp_neigh_hash(uint32_t ip)
{
	return (ip * 2654435761u) ^ (ip >> 16);
}

#ifdef __cplusplus
}
#endif

#endif /* DT_DP_NEIGH_H */
