/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Copy engines: the only way devtcp moves payload bytes into or out of
 * device memory.
 *
 * A copy engine owns one memory window (a device-memory region as the stack
 * sees it). The software NIC and the data plane never load or store payload
 * bytes of such a window with the CPU; they submit {dst, src, len} batches to
 * the engine on a channel and poll for completion, as a NIC's DMA engine or a
 * GPU copy engine would.
 *
 * Channels are single-threaded: each RX/TX queue (or lcore) opens its own, so
 * submit and completion need no locks. Copies on one channel complete in
 * ticket order: when dt_copy_completed() returns T, every copy with a ticket
 * <= T has landed.
 *
 * Implementations: the CPU engine (host memory, and simulated GPU memory
 * through the simulator's device-side mapping) in this library; a CUDA engine
 * (batched asynchronous copies on a stream) plugs in through the same ops.
 *
 * Gather (optional): many device-to-host copies into host memory that the
 * device writes directly (a NIC's registered wire buffers) as one device
 * operation, for a transmit burst; each channel declares the host ranges
 * its gathers may write, and a copy outside them is refused.
 *
 * The registry maps an address range to its engine so that a driver holding
 * an mbuf can find how to reach its buffer. It lives in a named memzone so
 * that every copy of this code in the process (the application and a plugin
 * PMD) sees the same table. Ranges are registered and removed while the ports
 * that use them are stopped.
 */
#ifndef DT_COPY_H
#define DT_COPY_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_pause.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One copy. Either side may be host memory or a device address of the engine's window. */
struct dt_copy_op {
	void *dst;        /**< where the bytes go */
	const void *src;  /**< where they come from */
	uint32_t len;     /**< how many */
};

struct dt_copy_engine;
struct dt_copy_chan;

/** Operations a copy engine implements. */
struct dt_copy_engine_ops {
	const char *name;  /**< for logs and reports ("cpu", "cuda", ...) */
	/** Open a channel for one thread; NULL with rte_errno set on failure. */
	struct dt_copy_chan *(*chan_open)(struct dt_copy_engine *ce);
	/** Close a channel, waiting for its outstanding copies. */
	void (*chan_close)(struct dt_copy_chan *ch);
	/**
	 * Queue @p n copies. Returns the number queued (0..n) or a negative
	 * errno; *ticket receives the ticket of the last one queued.
	 *
	 * Copies are queued in order. An engine stops at the first copy it
	 * cannot do: it returns how many it queued before it, or, when that
	 * copy is the first of the batch, -EFAULT (a range straddling the
	 * window boundary) or -EINVAL, counting it in stats.errors. A caller
	 * that gets a short count resubmits the rest, and so learns which
	 * copy was refused. @p ticket may be NULL.
	 */
	int (*submit)(struct dt_copy_chan *ch, const struct dt_copy_op *ops,
		uint16_t n, uint64_t *ticket);
	/** Highest ticket known complete; never blocks. */
	uint64_t (*completed)(struct dt_copy_chan *ch);
	/**
	 * Optional (NULL: never): 0 while the channel works, or a negative
	 * errno once it stopped for good (a copy failed on the device): its
	 * outstanding tickets will then never complete. Never blocks.
	 */
	int (*failed)(struct dt_copy_chan *ch);
	/** Free the engine (all channels closed). */
	void (*destroy)(struct dt_copy_engine *ce);
	/**
	 * Optional (NULL: the engine has no gather; use submit). Let this
	 * channel's gathers write host memory [@p base, @p base + @p len), a
	 * gather target: memory the engine's device can write directly (on a
	 * GPU: host memory registered with it and mapped at the same address).
	 * Returns 0, -ENOSPC (DT_COPY_GATHER_TARGETS reached), -EINVAL, or
	 * -ENOTSUP when this channel cannot gather (then use submit) or the
	 * device cannot write that range.
	 */
	int (*gather_target)(struct dt_copy_chan *ch, void *base, size_t len);
	/**
	 * Optional (NULL when gather_target is). Queue @p n copies from the
	 * engine's window to the channel's gather targets as ONE device
	 * operation (a GPU: one kernel launch whose completion is known by the
	 * same means as a submit's). Tickets follow submit's: one per copy, in
	 * the channel's single sequence, completed in order.
	 *
	 * Each copy's source must lie inside the window and its destination
	 * inside one target. A copy that does not is refused as submit refuses
	 * one: the engine queues the copies before it and returns their count,
	 * or -EFAULT (counted in stats.errors) when it is the first. An engine
	 * may also take a prefix for want of room (a count < @p n) or nothing
	 * (0: retry after a poll); the caller resubmits the rest. A copy that
	 * got past these checks and still leaves the window or the targets on
	 * the device (a bug) is not made: the channel stops (failed()).
	 */
	int (*gather)(struct dt_copy_chan *ch, const struct dt_copy_op *ops,
		uint16_t n, uint64_t *ticket);
};

/**
 * Gather targets one channel holds at most (after merging adjacent ones: a
 * mempool on fragmented hugepages has a chunk per page or so).
 */
#define DT_COPY_GATHER_TARGETS 32

/** A channel's gather targets (engines embed it; see dt_copy_engine_ops.gather_target). */
struct dt_copy_gather_targets {
	uint32_t n;                   /**< entries of @c t in use */
	/** The targets: [base, base + len) each. */
	struct {
		uintptr_t base;       /**< start of the host range */
		size_t len;           /**< its length in bytes */
	} t[DT_COPY_GATHER_TARGETS];
};

/**
 * Add [@p base, @p base + @p len) to @p t: a range already inside one
 * target is not added again, and one that starts where a target ends (or
 * ends where one starts) extends it, so that a pool's consecutive chunks
 * take one slot. Every byte of a merged target was added, so checked by
 * the engine, as a range of its own.
 * @return 0, -EINVAL (empty or wrapping range), -ENOSPC (table full)
 */
static inline int
dt_copy_gather_targets_add(struct dt_copy_gather_targets *t, const void *base,
	size_t len)
{
	uintptr_t b = (uintptr_t)base;
	uint32_t i;

	if (len == 0 || b + len < b)
		return -EINVAL;
	for (i = 0; i < t->n; i++) {
		if (b - t->t[i].base < t->t[i].len &&
				len <= t->t[i].len - (b - t->t[i].base))
			return 0;
		if (b == t->t[i].base + t->t[i].len) {
			t->t[i].len += len;
			return 0;
		}
		if (b + len == t->t[i].base) {
			t->t[i].base = b;
			t->t[i].len += len;
			return 0;
		}
	}
	if (t->n == DT_COPY_GATHER_TARGETS)
		return -ENOSPC;
	t->t[t->n].base = b;
	t->t[t->n].len = len;
	t->n++;
	return 0;
}

/**
 * Index of the target of @p t that holds all of [@p a, @p a + @p len), or
 * -1. Written so that nothing overflows.
 */
static inline int
dt_copy_gather_targets_find(const struct dt_copy_gather_targets *t,
	const void *a, size_t len)
{
	uintptr_t p = (uintptr_t)a;
	uint32_t i;

	for (i = 0; i < t->n; i++)
		if (p - t->t[i].base < t->t[i].len &&
				len <= t->t[i].len - (p - t->t[i].base))
			return (int)i;
	return -1;
}

/** Counters of one channel; read by xstats and benchmarks. */
struct dt_copy_stats {
	uint64_t calls;   /**< submit calls that queued something */
	uint64_t copies;  /**< copies queued */
	uint64_t bytes;   /**< bytes queued */
	uint64_t errors;  /**< copies refused */
};

/** Common head of every channel; engines embed it first. */
struct dt_copy_chan {
	struct dt_copy_engine *ce; /**< the engine it was opened on */
	uint64_t next_ticket;   /**< ticket the next copy will get */
	struct dt_copy_stats stats; /**< what it queued and refused */
};

/** Common head of every engine; engines embed it first. */
struct dt_copy_engine {
	const struct dt_copy_engine_ops *ops; /**< its implementation */
	void *base;             /**< start of the device window (address the stack sees) */
	size_t len;             /**< length of the window */
};

/** Open a channel on @p ce for the calling thread; NULL with rte_errno set. */
static inline struct dt_copy_chan *
dt_copy_chan_open(struct dt_copy_engine *ce)
{
	return ce->ops->chan_open(ce);
}

/** Close a channel (NULL is a no-op), waiting for its outstanding copies. */
static inline void
dt_copy_chan_close(struct dt_copy_chan *ch)
{
	if (ch != NULL)
		ch->ce->ops->chan_close(ch);
}

/** Queue copies on a channel; see dt_copy_engine_ops.submit. */
static inline int
dt_copy_submit(struct dt_copy_chan *ch, const struct dt_copy_op *ops,
	uint16_t n, uint64_t *ticket)
{
	return ch->ce->ops->submit(ch, ops, n, ticket);
}

/** Highest ticket known complete on @p ch (0 before the first copy); never blocks. */
static inline uint64_t
dt_copy_completed(struct dt_copy_chan *ch)
{
	return ch->ce->ops->completed(ch);
}

/**
 * Whether @p ch stopped for good (see dt_copy_engine_ops.failed).
 * @return 0 while it works, else a negative errno: tickets not complete
 *         by now never will be.
 */
static inline int
dt_copy_chan_failed(struct dt_copy_chan *ch)
{
	return ch->ce->ops->failed != NULL ? ch->ce->ops->failed(ch) : 0;
}

/** Whether @p ch's engine gathers (dt_copy_engine_ops.gather). */
static inline int
dt_copy_has_gather(const struct dt_copy_chan *ch)
{
	return ch->ce->ops->gather != NULL && ch->ce->ops->gather_target != NULL;
}

/**
 * Let @p ch's gathers write host range [@p base, @p base + @p len); see
 * dt_copy_engine_ops.gather_target.
 * @return 0, or a negative errno (-ENOTSUP: no gather on this channel)
 */
static inline int
dt_copy_gather_target(struct dt_copy_chan *ch, void *base, size_t len)
{
	if (!dt_copy_has_gather(ch))
		return -ENOTSUP;
	return ch->ce->ops->gather_target(ch, base, len);
}

/**
 * Queue @p n copies from the engine's window to @p ch's gather targets as
 * one device operation; see dt_copy_engine_ops.gather.
 */
static inline int
dt_copy_gather(struct dt_copy_chan *ch, const struct dt_copy_op *ops,
	uint16_t n, uint64_t *ticket)
{
	if (!dt_copy_has_gather(ch))
		return -ENOTSUP;
	return ch->ce->ops->gather(ch, ops, n, ticket);
}

/**
 * Busy-wait until the copy with @p ticket (and every earlier one on the
 * channel) has landed. For control paths and tests; a poll loop calls
 * dt_copy_completed() instead.
 */
static inline void
dt_copy_wait(struct dt_copy_chan *ch, uint64_t ticket)
{
	while (dt_copy_completed(ch) < ticket)
		rte_pause();
}

/**
 * Create a CPU copy engine for a window.
 *
 * It copies synchronously with the CPU: a range inside
 * [@p base, @p base + @p len) is reached at the same offset from
 * @p cpu_side; any other address is host memory and used as is. A copy
 * range that straddles the window boundary is refused (-EFAULT). Tickets
 * start at 1 and increase by one per copy; every copy has completed when
 * submit returns (unless a simulated latency is set:
 * dt_copy_cpu_engine_set_latency()).
 *
 * @param base      start of the window as the stack sees it
 * @param len       its length
 * @param cpu_side  where the engine may load/store the same bytes (the
 *                  simulator's device-side mapping); equal to @p base for
 *                  host memory
 * @return the engine, or NULL with rte_errno set
 */
struct dt_copy_engine *dt_copy_cpu_engine_create(void *base, size_t len,
	void *cpu_side);

/** Environment variable: simulated completion latency of new CPU engines, in µs. */
#define DT_COPY_CPU_LATENCY_ENV "DT_COPY_CPU_LATENCY_US"
/** Largest simulated completion latency, in µs. */
#define DT_COPY_CPU_LATENCY_MAX_US 1000000u

/**
 * Give a CPU engine a simulated completion latency, to reproduce an
 * asynchronous engine (a CUDA event round trip is some 10-30 µs) on a
 * machine without a GPU. Bytes are still copied when submit runs;
 * dt_copy_completed() reports a submit's tickets only @p us microseconds
 * (TSC) after it. Each channel keeps up to 1024 submits in flight; past
 * that submit returns 0 until the oldest is due. Channels take the value
 * when they are opened: set it before the ports that use the engine start.
 * An engine's initial value comes from DT_COPY_CPU_LATENCY_US (default 0).
 *
 * @param ce  a CPU engine
 * @param us  the latency in microseconds (0: none)
 * @return 0, or -EINVAL (not a CPU engine, or @p us over
 *         DT_COPY_CPU_LATENCY_MAX_US)
 */
int dt_copy_cpu_engine_set_latency(struct dt_copy_engine *ce, uint32_t us);

/**
 * The simulated completion latency of a CPU engine.
 * @param ce  the engine
 * @return microseconds (0 for none, or for another kind of engine)
 */
uint32_t dt_copy_cpu_engine_latency(const struct dt_copy_engine *ce);

/**
 * Destroy an engine created by any implementation (NULL is a no-op).
 * Its channels must be closed. An engine still in the registry is removed
 * from it first (and that is logged as a caller bug).
 * @param ce  the engine, or NULL
 */
void dt_copy_engine_destroy(struct dt_copy_engine *ce);

/** Number of slots of the registry: regions alive at once in a process. */
#define DT_COPY_REGISTRY_MAX 32

/**
 * Register @p ce as the engine for its window [ce->base, ce->base + ce->len).
 * @param ce  the engine
 * @return 0, -EEXIST on overlap, -ENOSPC when the table is full, or -rte_errno.
 */
int dt_copy_registry_add(struct dt_copy_engine *ce);

/**
 * Register @p ce for one more window, [@p base, @p base + @p len), besides
 * (or instead of) its own: for an engine whose copies need nothing of a
 * window (CUDA copies by unified addresses) and that serves many buffers,
 * so that a driver opens one channel on it, not one per buffer.
 * @param ce    the engine
 * @param base  start of the window
 * @param len   its length
 * @return 0, -EEXIST on overlap, -ENOSPC when the table is full, -EINVAL.
 */
int dt_copy_registry_add_range(struct dt_copy_engine *ce, const void *base,
	size_t len);

/**
 * Remove an engine (every window of it) from the registry.
 * @param ce  the engine
 * @return 0, or -ENOENT when it is not there
 */
int dt_copy_registry_del(struct dt_copy_engine *ce);

/**
 * Engine whose window holds [addr, addr + len), or NULL when the range is
 * host memory that the CPU may touch (no engine registered for it).
 * A range straddling a window boundary also returns NULL with rte_errno
 * set to EFAULT; callers must treat that as an error, not as host memory.
 * A plain host-memory answer sets rte_errno to 0, so the test is reliable.
 * Lock-free: a short scan of the table, fit for the TX fast path. A
 * @p len of 0 is looked up as one byte.
 * @param addr  start of the range
 * @param len   its length
 * @return the engine, or NULL (host memory, or rte_errno EFAULT)
 */
struct dt_copy_engine *dt_copy_registry_lookup(const void *addr, size_t len);

/**
 * Same search as dt_copy_registry_lookup() with an explicit result, for
 * callers that prefer not to test rte_errno.
 *
 * @param addr     start of the range
 * @param len      its length
 * @param[out] ce  the engine, or NULL for host memory
 * @return 0 (engine or host memory), or -EFAULT when [addr, addr + len)
 *         straddles a window boundary (*ce is then NULL).
 */
int dt_copy_registry_find(const void *addr, size_t len,
	struct dt_copy_engine **ce);

/**
 * Engines registered now (for teardown checks and telemetry).
 * @return their number
 */
unsigned int dt_copy_registry_count(void);

#ifdef __cplusplus
}
#endif

#endif /* DT_COPY_H */
