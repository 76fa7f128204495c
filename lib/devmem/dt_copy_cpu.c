/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU copy engine: synchronous copies through the window's CPU-side
 * mapping (the simulator's device-side mapping, or the memory itself for
 * host memory). It is the software NIC's "DMA engine" on machines without
 * a GPU.
 *
 * Simulated completion latency (dt_copy_cpu_engine_set_latency(), or
 * DT_COPY_CPU_LATENCY_US in the environment): the bytes are still copied
 * when submit runs, but completed() reports a submit's tickets only once
 * its latency has passed on the TSC, as an asynchronous engine (a CUDA
 * event per submit) would. Each submit is one record in a ring per
 * channel; a full ring makes submit return 0 (the caller retries later),
 * as the CUDA engine's event ring does.
 *
 * Gathers (dt_copy.h) are the same synchronous copies, checked as a GPU's
 * gather kernel checks them: source in the window, destination in one of
 * the channel's targets. That is what lets CI run a software NIC's
 * transmit gather, and its refusals, without a GPU.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "dt_copy_private.h"

/* Submits a channel keeps in flight under a simulated latency. */
#define DT_COPY_CPU_RING 1024

struct dt_copy_cpu_engine {
	struct dt_copy_engine ce;   /* first: the common head */
	uintptr_t cpu_side;         /* the window as this engine reaches it */
	uint32_t nb_chans;          /* open channels, to catch early destroy */
	uint32_t latency_us;        /* simulated completion latency; 0: none */
};

/* One submit waiting for its simulated completion. */
struct dt_copy_cpu_pend {
	uint64_t ticket;            /* last ticket of the submit */
	uint64_t due;               /* TSC from which it is complete */
};

struct dt_copy_cpu_chan {
	struct dt_copy_chan ch;     /* first: the common head */
	uint64_t lat_tsc;           /* latency in TSC cycles; 0: synchronous */
	uint64_t done;              /* highest ticket reported complete */
	uint32_t head, tail;        /* free-running indexes into pend[] */
	struct dt_copy_gather_targets tgt; /* where gathers may write */
	struct dt_copy_cpu_pend pend[DT_COPY_CPU_RING];
};

static inline struct dt_copy_cpu_engine *
cpu_engine(struct dt_copy_engine *ce)
{
	return container_of(ce, struct dt_copy_cpu_engine, ce);
}

/*
 * Address the CPU may use for [p, p + len): the CPU-side alias when the
 * range is inside the window, p itself when it is wholly outside.
 * -EFAULT when it straddles a boundary or wraps the address space: part
 * of it would be a device address the CPU must not touch.
 */
static inline int
cpu_xlate(const struct dt_copy_cpu_engine *e, uintptr_t p, uint32_t len,
	uintptr_t *out)
{
	uintptr_t base = (uintptr_t)e->ce.base;
	size_t wlen = e->ce.len;
	uintptr_t off = p - base;   /* huge when p < base */

	if (off < wlen) {
		if (len > wlen - off)
			return -EFAULT;
		*out = e->cpu_side + off;
		return 0;
	}
	if (p + len < p)
		return -EFAULT;
	if (p < base && len > base - p)
		return -EFAULT;
	*out = p;
	return 0;
}

static struct dt_copy_chan *
cpu_chan_open(struct dt_copy_engine *ce)
{
	struct dt_copy_cpu_chan *c;

	c = rte_zmalloc("dt_copy_cpu_chan", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		DT_COPY_LOG(ERR, "cpu engine [%p, +%zu): channel allocation failed: out of memory",
			ce->base, ce->len);
		rte_errno = ENOMEM;
		return NULL;
	}
	c->ch.ce = ce;
	/* Ticket 0 means "nothing yet", so completed() starts at 0. */
	c->ch.next_ticket = 1;
	c->lat_tsc = (uint64_t)__atomic_load_n(&cpu_engine(ce)->latency_us,
		__ATOMIC_RELAXED) * rte_get_tsc_hz() / 1000000;
	__atomic_fetch_add(&cpu_engine(ce)->nb_chans, 1, __ATOMIC_RELAXED);
	return &c->ch;
}

static inline struct dt_copy_cpu_chan *
cpu_chan(struct dt_copy_chan *ch)
{
	return container_of(ch, struct dt_copy_cpu_chan, ch);
}

static void
cpu_chan_close(struct dt_copy_chan *ch)
{
	/*
	 * Copies are synchronous: nothing can be outstanding (a simulated
	 * latency only delays what completed() says).
	 */
	__atomic_fetch_sub(&cpu_engine(ch->ce)->nb_chans, 1, __ATOMIC_RELAXED);
	rte_free(container_of(ch, struct dt_copy_cpu_chan, ch));
}

/*
 * Addresses the CPU uses for copy @p op; -EFAULT when it may not be made.
 * A gather's copy must read the window and write one of the channel's
 * targets, as the device would check them.
 */
static inline int
cpu_op_xlate(const struct dt_copy_cpu_engine *e,
	const struct dt_copy_cpu_chan *c, const struct dt_copy_op *op,
	int gather, uintptr_t *dst, uintptr_t *src)
{
	if (gather) {
		uintptr_t off = (uintptr_t)op->src - (uintptr_t)e->ce.base;

		if (off >= e->ce.len || op->len > e->ce.len - off ||
				dt_copy_gather_targets_find(&c->tgt, op->dst,
					op->len) < 0)
			return -EFAULT;
		*src = e->cpu_side + off;
		*dst = (uintptr_t)op->dst;
		return 0;
	}
	if (cpu_xlate(e, (uintptr_t)op->dst, op->len, dst) < 0 ||
			cpu_xlate(e, (uintptr_t)op->src, op->len, src) < 0)
		return -EFAULT;
	return 0;
}

/* Submit or gather: the same synchronous copies, checked differently. */
static int
cpu_queue(struct dt_copy_chan *ch, const struct dt_copy_op *ops, uint16_t n,
	uint64_t *ticket, int gather)
{
	const struct dt_copy_cpu_engine *e = cpu_engine(ch->ce);
	struct dt_copy_cpu_chan *c = cpu_chan(ch);
	uint64_t bytes = 0;
	uint16_t i;

	if (c->lat_tsc != 0 && n != 0 && c->head - c->tail == DT_COPY_CPU_RING) {
		/* Ring full: retire what is due, else ask for a retry. */
		ch->ce->ops->completed(ch);
		if (c->head - c->tail == DT_COPY_CPU_RING) {
			if (ticket != NULL)
				*ticket = ch->next_ticket - 1;
			return 0;
		}
	}
	for (i = 0; i < n; i++) {
		uintptr_t dst, src;

		if (cpu_op_xlate(e, c, &ops[i], gather, &dst, &src) < 0)
			break;
		rte_memcpy((void *)dst, (const void *)src, ops[i].len);
		bytes += ops[i].len;
	}
	if (i == 0) {
		if (n == 0)
			return 0;
		ch->stats.errors++;
		return -EFAULT;
	}
	ch->next_ticket += i;
	if (c->lat_tsc != 0) {
		struct dt_copy_cpu_pend *p = &c->pend[c->head++ % DT_COPY_CPU_RING];

		p->ticket = ch->next_ticket - 1;
		p->due = rte_rdtsc() + c->lat_tsc;
	} else {
		c->done = ch->next_ticket - 1;
	}
	ch->stats.calls++;
	ch->stats.copies += i;
	ch->stats.bytes += bytes;
	if (ticket != NULL)
		*ticket = ch->next_ticket - 1;
	return i;
}

static int
cpu_submit(struct dt_copy_chan *ch, const struct dt_copy_op *ops, uint16_t n,
	uint64_t *ticket)
{
	return cpu_queue(ch, ops, n, ticket, 0);
}

/*
 * One "device operation" here is one call: the copies are made in it, so
 * the engine checks what a GPU's gather kernel would before writing.
 */
static int
cpu_gather(struct dt_copy_chan *ch, const struct dt_copy_op *ops, uint16_t n,
	uint64_t *ticket)
{
	return cpu_queue(ch, ops, n, ticket, 1);
}

/* A target is host memory: never a range that touches the window. */
static int
cpu_gather_target(struct dt_copy_chan *ch, void *base, size_t len)
{
	const struct dt_copy_engine *ce = ch->ce;
	uintptr_t b = (uintptr_t)base, w = (uintptr_t)ce->base;

	if (len == 0 || b + len < b || (b < w + ce->len && w < b + len))
		return -EINVAL;
	return dt_copy_gather_targets_add(&cpu_chan(ch)->tgt, base, len);
}

static uint64_t
cpu_completed(struct dt_copy_chan *ch)
{
	struct dt_copy_cpu_chan *c = cpu_chan(ch);
	uint64_t now;

	if (c->head == c->tail)
		return c->done;
	now = rte_rdtsc();
	while (c->head != c->tail) {
		const struct dt_copy_cpu_pend *p = &c->pend[c->tail % DT_COPY_CPU_RING];

		if ((int64_t)(now - p->due) < 0)
			break;
		c->done = p->ticket;
		c->tail++;
	}
	return c->done;
}

static void
cpu_destroy(struct dt_copy_engine *ce)
{
	struct dt_copy_cpu_engine *e = cpu_engine(ce);
	uint32_t open = __atomic_load_n(&e->nb_chans, __ATOMIC_RELAXED);

	if (open != 0)
		DT_COPY_LOG(ERR, "cpu engine [%p, +%zu) destroyed with %u channel(s) still open",
			ce->base, ce->len, open);
	rte_free(e);
}

/* DT_COPY_CPU_LATENCY_US: decimal microseconds; anything else is ignored (logged). */
static uint32_t
dt_copy_cpu_latency_env(void)
{
	const char *v = getenv(DT_COPY_CPU_LATENCY_ENV);
	unsigned long us;
	char *end;

	if (v == NULL || v[0] == '\0')
		return 0;
	errno = 0;
	us = strtoul(v, &end, 10);
	if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 ||
			us > DT_COPY_CPU_LATENCY_MAX_US) {
		DT_COPY_LOG(ERR, DT_COPY_CPU_LATENCY_ENV "=%s ignored: expected microseconds from 0 to %u",
			v, DT_COPY_CPU_LATENCY_MAX_US);
		return 0;
	}
	return (uint32_t)us;
}

static const struct dt_copy_engine_ops dt_copy_cpu_ops = {
	.name = "cpu",
	.chan_open = cpu_chan_open,
	.chan_close = cpu_chan_close,
	.submit = cpu_submit,
	.completed = cpu_completed,
	.destroy = cpu_destroy,
	.gather_target = cpu_gather_target,
	.gather = cpu_gather,
};

struct dt_copy_engine *
dt_copy_cpu_engine_create(void *base, size_t len, void *cpu_side)
{
	struct dt_copy_cpu_engine *e;

	if (base == NULL || cpu_side == NULL || len == 0 ||
	    (uintptr_t)base + len < (uintptr_t)base ||
	    (uintptr_t)cpu_side + len < (uintptr_t)cpu_side) {
		DT_COPY_LOG(ERR, "cpu engine: invalid window base=%p len=%zu cpu_side=%p",
			base, len, cpu_side);
		rte_errno = EINVAL;
		return NULL;
	}
	e = rte_zmalloc("dt_copy_cpu_engine", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL) {
		DT_COPY_LOG(ERR, "cpu engine [%p, +%zu): allocation failed: out of memory",
			base, len);
		rte_errno = ENOMEM;
		return NULL;
	}
	e->ce.ops = &dt_copy_cpu_ops;
	e->ce.base = base;
	e->ce.len = len;
	e->cpu_side = (uintptr_t)cpu_side;
	e->latency_us = dt_copy_cpu_latency_env();
	if (e->latency_us != 0)
		DT_COPY_LOG(INFO, "cpu engine [%p, +%zu): simulated completion latency %u us (" DT_COPY_CPU_LATENCY_ENV ")",
			base, len, e->latency_us);
	return &e->ce;
}

int
dt_copy_cpu_engine_set_latency(struct dt_copy_engine *ce, uint32_t us)
{
	if (ce == NULL || strcmp(ce->ops->name, dt_copy_cpu_ops.name) != 0 || us > DT_COPY_CPU_LATENCY_MAX_US)
		return -EINVAL;
	/* Channels opened from now on take it. */
	__atomic_store_n(&cpu_engine(ce)->latency_us, us, __ATOMIC_RELAXED);
	return 0;
}

uint32_t
dt_copy_cpu_engine_latency(const struct dt_copy_engine *ce)
{
	if (ce == NULL || strcmp(ce->ops->name, dt_copy_cpu_ops.name) != 0)
		return 0;
	return __atomic_load_n(&container_of(ce, const struct dt_copy_cpu_engine,
		ce)->latency_us, __ATOMIC_RELAXED);
}
