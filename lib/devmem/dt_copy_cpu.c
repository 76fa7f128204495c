/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU copy engine: synchronous copies through the window's CPU-side
 * mapping (the simulator's device-side mapping, or the memory itself for
 * host memory). It is the software NIC's "DMA engine" on machines without
 * a GPU.
 */
#include <errno.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "dt_copy_private.h"

struct dt_copy_cpu_engine {
	struct dt_copy_engine ce;   /* first: the common head */
	uintptr_t cpu_side;         /* the window as this engine reaches it */
	uint32_t nb_chans;          /* open channels, to catch early destroy */
};

struct dt_copy_cpu_chan {
	struct dt_copy_chan ch;     /* first: the common head */
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
	__atomic_fetch_add(&cpu_engine(ce)->nb_chans, 1, __ATOMIC_RELAXED);
	return &c->ch;
}

static void
cpu_chan_close(struct dt_copy_chan *ch)
{
	/* Copies are synchronous: nothing can be outstanding. */
	__atomic_fetch_sub(&cpu_engine(ch->ce)->nb_chans, 1, __ATOMIC_RELAXED);
	rte_free(container_of(ch, struct dt_copy_cpu_chan, ch));
}

static int
cpu_submit(struct dt_copy_chan *ch, const struct dt_copy_op *ops, uint16_t n,
	uint64_t *ticket)
{
	const struct dt_copy_cpu_engine *e = cpu_engine(ch->ce);
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < n; i++) {
		uintptr_t dst, src;

		if (cpu_xlate(e, (uintptr_t)ops[i].dst, ops[i].len, &dst) < 0 ||
		    cpu_xlate(e, (uintptr_t)ops[i].src, ops[i].len, &src) < 0)
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
	ch->stats.calls++;
	ch->stats.copies += i;
	ch->stats.bytes += bytes;
	if (ticket != NULL)
		*ticket = ch->next_ticket - 1;
	return i;
}

static uint64_t
cpu_completed(struct dt_copy_chan *ch)
{
	return ch->next_ticket - 1;
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

static const struct dt_copy_engine_ops dt_copy_cpu_ops = {
	.name = "cpu",
	.chan_open = cpu_chan_open,
	.chan_close = cpu_chan_close,
	.submit = cpu_submit,
	.completed = cpu_completed,
	.destroy = cpu_destroy,
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
	return &e->ce;
}
