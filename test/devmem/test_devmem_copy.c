/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of dt_copy: the CPU copy engine and the engine registry.
 *
 * The engine's window is an address range mapped with no access rights, as
 * the simulated GPU's device addresses are, and its CPU side is a separate
 * buffer: a copy that is not translated, or a translation that is wrong,
 * crashes or lands in the wrong place instead of passing.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "dt_copy.h"
#include "dt_test.h"

#define WIN_LEN (64u * 1024u)

struct window {
	uint8_t *base;  /* PROT_NONE: what the stack sees */
	uint8_t *side;  /* where the engine reaches the same bytes */
	struct dt_copy_engine *ce;
};

static int
window_open(struct window *w)
{
	w->base = mmap(NULL, WIN_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		-1, 0);
	w->side = mmap(NULL, WIN_LEN, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->base == MAP_FAILED || w->side == MAP_FAILED)
		return -1;
	w->ce = dt_copy_cpu_engine_create(w->base, WIN_LEN, w->side);
	return w->ce == NULL ? -1 : 0;
}

static void
window_close(struct window *w)
{
	dt_copy_engine_destroy(w->ce);
	munmap(w->base, WIN_LEN);
	munmap(w->side, WIN_LEN);
}

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void
test_cpu_engine_translates(void)
{
	struct window w;
	struct dt_copy_chan *ch;
	uint8_t src[3000], back[3000];
	struct dt_copy_op op;
	uint64_t ticket = 0;

	DT_REQUIRE(window_open(&w) == 0);
	ch = dt_copy_chan_open(w.ce);
	DT_REQUIRE(ch != NULL);
	DT_CHECK_EQ(dt_copy_completed(ch), 0);

	/* Host to window: lands at the same offset of the CPU side. */
	fill(src, sizeof(src), 3);
	op = (struct dt_copy_op){ w.base + 1000, src, sizeof(src) };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	DT_CHECK_EQ(ticket, 1);
	DT_CHECK_EQ(dt_copy_completed(ch), 1);
	DT_CHECK(memcmp(w.side + 1000, src, sizeof(src)) == 0);
	DT_CHECK_EQ(w.side[999], 0);
	DT_CHECK_EQ(w.side[1000 + sizeof(src)], 0);

	/* Window to host. */
	memset(back, 0, sizeof(back));
	op = (struct dt_copy_op){ back, w.base + 1000, sizeof(back) };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	DT_CHECK_EQ(ticket, 2);
	DT_CHECK(memcmp(back, src, sizeof(src)) == 0);

	/* Window to window, and the last byte of the window. */
	op = (struct dt_copy_op){ w.base + WIN_LEN - 100, w.base + 1000, 100 };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, NULL), 1);
	DT_CHECK(memcmp(w.side + WIN_LEN - 100, src, 100) == 0);
	DT_CHECK_EQ(dt_copy_completed(ch), 3);

	dt_copy_chan_close(ch);
	window_close(&w);
}

static void
test_cpu_engine_tickets_and_stats(void)
{
	struct window w;
	struct dt_copy_chan *ch, *ch2;
	uint8_t a[64], b[64], c[64];
	struct dt_copy_op ops[3];
	uint64_t ticket = 0;

	DT_REQUIRE(window_open(&w) == 0);
	ch = dt_copy_chan_open(w.ce);
	ch2 = dt_copy_chan_open(w.ce);
	DT_REQUIRE(ch != NULL && ch2 != NULL);

	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	ops[0] = (struct dt_copy_op){ w.base, a, sizeof(a) };
	ops[1] = (struct dt_copy_op){ w.base + 64, b, sizeof(b) };
	ops[2] = (struct dt_copy_op){ c, a, sizeof(a) };   /* host to host */
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 3, &ticket), 3);
	DT_CHECK_EQ(ticket, 3);
	DT_CHECK_EQ(dt_copy_completed(ch), 3);
	DT_CHECK(memcmp(w.side, a, 64) == 0);
	DT_CHECK(memcmp(w.side + 64, b, 64) == 0);
	DT_CHECK(memcmp(c, a, 64) == 0);
	dt_copy_wait(ch, 3);

	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, &ticket), 1);
	DT_CHECK_EQ(ticket, 4);
	/* An empty batch queues nothing and takes no ticket. */
	ticket = 99;
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 0, &ticket), 0);
	DT_CHECK_EQ(ticket, 99);
	DT_CHECK_EQ(dt_copy_completed(ch), 4);

	DT_CHECK_EQ(ch->stats.calls, 2);
	DT_CHECK_EQ(ch->stats.copies, 4);
	DT_CHECK_EQ(ch->stats.bytes, 4 * 64);
	DT_CHECK_EQ(ch->stats.errors, 0);

	/* Channels are independent: their own tickets and counters. */
	DT_CHECK_EQ(dt_copy_completed(ch2), 0);
	DT_CHECK_EQ(dt_copy_submit(ch2, ops, 1, &ticket), 1);
	DT_CHECK_EQ(ticket, 1);
	DT_CHECK_EQ(ch2->stats.copies, 1);
	DT_CHECK_EQ(ch->stats.copies, 4);

	dt_copy_chan_close(ch2);
	dt_copy_chan_close(ch);
	window_close(&w);
}

/*
 * Simulated completion latency: bytes land at submit, tickets are reported
 * complete only once the latency has passed, in order; a full ring of
 * submits defers the next one (0), never blocks.
 */
static void
test_cpu_engine_latency(void)
{
	const uint64_t us = 2000;
	struct window w;
	struct dt_copy_chan *ch, *ch0;
	uint8_t a[64];
	struct dt_copy_op op;
	uint64_t ticket = 0, t0, hz = rte_get_tsc_hz();
	uint32_t i;
	int r = 0;

	DT_REQUIRE(window_open(&w) == 0);
	DT_CHECK_EQ(dt_copy_cpu_engine_latency(w.ce), 0);
	/* A channel opened before keeps its (no) latency. */
	ch0 = dt_copy_chan_open(w.ce);
	DT_REQUIRE(ch0 != NULL);
	DT_CHECK_EQ(dt_copy_cpu_engine_set_latency(w.ce, DT_COPY_CPU_LATENCY_MAX_US + 1), -EINVAL);
	DT_CHECK_EQ(dt_copy_cpu_engine_set_latency(NULL, 1), -EINVAL);
	DT_CHECK_EQ(dt_copy_cpu_engine_set_latency(w.ce, (uint32_t)us), 0);
	DT_CHECK_EQ(dt_copy_cpu_engine_latency(w.ce), us);
	ch = dt_copy_chan_open(w.ce);
	DT_REQUIRE(ch != NULL);

	fill(a, sizeof(a), 7);
	op = (struct dt_copy_op){ w.base, a, sizeof(a) };
	t0 = rte_rdtsc();
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	DT_CHECK_EQ(ticket, 1);
	DT_CHECK(memcmp(w.side, a, sizeof(a)) == 0);    /* landed already */
	op.dst = w.base + 64;
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	DT_CHECK_EQ(ticket, 2);
	if (rte_rdtsc() - t0 < hz * us / 1000000 / 2)
		DT_CHECK_EQ(dt_copy_completed(ch), 0);
	dt_copy_wait(ch, 2);
	DT_CHECK(rte_rdtsc() - t0 >= hz * us / 1000000);
	DT_CHECK_EQ(dt_copy_completed(ch), 2);
	/* The channel opened before is synchronous. */
	DT_CHECK_EQ(dt_copy_submit(ch0, &op, 1, &ticket), 1);
	DT_CHECK_EQ(dt_copy_completed(ch0), ticket);

	/* Fill the ring of submits: the one past it is deferred (0), not refused. */
	for (i = 0; i < 1024 && (r = dt_copy_submit(ch, &op, 1, &ticket)) == 1; i++)
		;
	if (rte_rdtsc() - t0 < hz * us / 1000000 / 2) {
		DT_CHECK_EQ(i, 1024);
		DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 0);
		DT_CHECK_EQ(ch->stats.errors, 0);
	}
	dt_copy_wait(ch, ticket);
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	dt_copy_wait(ch, ticket);
	DT_CHECK_EQ(dt_copy_completed(ch), ticket);

	dt_copy_chan_close(ch);
	dt_copy_chan_close(ch0);
	window_close(&w);
}

static void
test_cpu_engine_refuses_straddling(void)
{
	struct window w;
	struct dt_copy_chan *ch;
	uint8_t host[256];
	struct dt_copy_op ops[3];
	uint64_t ticket = 0;

	DT_REQUIRE(window_open(&w) == 0);
	ch = dt_copy_chan_open(w.ce);
	DT_REQUIRE(ch != NULL);
	fill(host, sizeof(host), 9);
	memset(w.side, 0xee, WIN_LEN);

	/* Destination starting before the window and running into it. */
	ops[0] = (struct dt_copy_op){ w.base - 16, host, 32 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, &ticket), -EFAULT);
	/* Destination running past the end of the window. */
	ops[0] = (struct dt_copy_op){ w.base + WIN_LEN - 16, host, 32 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, &ticket), -EFAULT);
	/* Source straddling the end. */
	ops[0] = (struct dt_copy_op){ host, w.base + WIN_LEN - 1, 2 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, &ticket), -EFAULT);
	DT_CHECK_EQ(ch->stats.errors, 3);
	DT_CHECK_EQ(ch->stats.copies, 0);
	DT_CHECK_EQ(dt_copy_completed(ch), 0);
	/* Nothing was written: the CPU side of the window is unchanged. */
	DT_CHECK_EQ(w.side[WIN_LEN - 16], 0xee);
	DT_CHECK_EQ(w.side[0], 0xee);

	/* A batch stops at the refused copy; resubmitting names it. */
	ops[0] = (struct dt_copy_op){ w.base, host, 16 };
	ops[1] = (struct dt_copy_op){ w.base + WIN_LEN - 8, host, 16 };
	ops[2] = (struct dt_copy_op){ w.base + 32, host, 16 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 3, &ticket), 1);
	DT_CHECK_EQ(ticket, 1);
	DT_CHECK(memcmp(w.side, host, 16) == 0);
	DT_CHECK_EQ(w.side[32], 0xee);
	DT_CHECK_EQ(dt_copy_submit(ch, &ops[1], 2, &ticket), -EFAULT);
	DT_CHECK_EQ(ticket, 1);
	DT_CHECK_EQ(ch->stats.errors, 4);
	DT_CHECK_EQ(ch->stats.copies, 1);
	DT_CHECK_EQ(dt_copy_completed(ch), 1);

	dt_copy_chan_close(ch);
	window_close(&w);
}

/*
 * Gather: device window to the channel's targets in one call, byte-exact,
 * tickets shared with submit; a copy whose destination is outside every
 * target, or whose source is not in the window, is refused as submit
 * refuses one (nothing written, counted, the prefix before it queued).
 */
static void
test_cpu_engine_gather(void)
{
	static uint8_t wire[4096], other[256];
	struct dt_copy_op ops[3];
	struct dt_copy_chan *ch;
	uint64_t ticket = 0;
	struct window w;
	uint32_t k;

	DT_REQUIRE(window_open(&w) == 0);
	ch = dt_copy_chan_open(w.ce);
	DT_REQUIRE(ch != NULL);
	DT_CHECK(dt_copy_has_gather(ch));
	fill(w.side, WIN_LEN, 3);
	memset(wire, 0xee, sizeof(wire));
	memset(other, 0xee, sizeof(other));
	/* No target yet: every gather is refused. */
	ops[0] = (struct dt_copy_op){ wire, w.base, 64 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 1, &ticket), -EFAULT);
	/* A target may not be (or touch) the device window. */
	DT_CHECK_EQ(dt_copy_gather_target(ch, w.base + 8, 64), -EINVAL);
	DT_CHECK_EQ(dt_copy_gather_target(ch, wire, 0), -EINVAL);
	DT_CHECK_EQ(dt_copy_gather_target(ch, wire, sizeof(wire)), 0);

	/* Three pieces of the window, unaligned, into the wire buffer. */
	ops[0] = (struct dt_copy_op){ wire + 1, w.base + 100, 1000 };
	ops[1] = (struct dt_copy_op){ wire + 1001, w.base + 7, 33 };
	ops[2] = (struct dt_copy_op){ wire + 2000, w.base + WIN_LEN - 96, 96 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 3, &ticket), 3);
	DT_CHECK_EQ(ticket, 3);
	DT_CHECK_EQ(dt_copy_completed(ch), 3);
	for (k = 0; k < 3; k++)
		DT_CHECK(memcmp((const uint8_t *)ops[k].dst,
			w.side + ((const uint8_t *)ops[k].src - w.base),
			ops[k].len) == 0);
	DT_CHECK_EQ(wire[0], 0xee);
	DT_CHECK_EQ(wire[1034], 0xee);
	DT_CHECK_EQ(ch->stats.copies, 3);

	/* Destination outside the targets (other host memory): refused. */
	ops[0] = (struct dt_copy_op){ other, w.base, 64 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 1, &ticket), -EFAULT);
	/* Destination running past the end of the target. */
	ops[0] = (struct dt_copy_op){ wire + sizeof(wire) - 8, w.base, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 1, &ticket), -EFAULT);
	/* Source not in the window (host memory), or straddling its end. */
	ops[0] = (struct dt_copy_op){ wire, other, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 1, &ticket), -EFAULT);
	ops[0] = (struct dt_copy_op){ wire, w.base + WIN_LEN - 8, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 1, &ticket), -EFAULT);
	DT_CHECK_EQ(ch->stats.errors, 5);
	DT_CHECK_EQ(ticket, 3);
	DT_CHECK_EQ(other[0], 0xee);
	DT_CHECK_EQ(wire[sizeof(wire) - 8], 0xee);
	DT_CHECK_EQ(wire[0], 0xee);

	/* A batch stops at the refused copy; the prefix lands. */
	ops[0] = (struct dt_copy_op){ wire + 3000, w.base, 16 };
	ops[1] = (struct dt_copy_op){ other, w.base, 16 };
	ops[2] = (struct dt_copy_op){ wire + 3100, w.base, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 3, &ticket), 1);
	DT_CHECK_EQ(ticket, 4);
	DT_CHECK(memcmp(wire + 3000, w.side, 16) == 0);
	DT_CHECK_EQ(wire[3100], 0xee);
	DT_CHECK_EQ(dt_copy_gather(ch, &ops[1], 2, &ticket), -EFAULT);
	/* Submit and gather number copies in one sequence. */
	ops[0] = (struct dt_copy_op){ other, w.base + 16, 16 };
	DT_CHECK_EQ(dt_copy_submit(ch, ops, 1, &ticket), 1);
	DT_CHECK_EQ(ticket, 5);
	DT_CHECK(memcmp(other, w.side + 16, 16) == 0);

	/* Adjacent ranges merge into one target, either side. */
	DT_CHECK_EQ(dt_copy_gather_target(ch, other + 64, 32), 0);
	DT_CHECK_EQ(dt_copy_gather_target(ch, other + 96, 32), 0);
	DT_CHECK_EQ(dt_copy_gather_target(ch, other + 32, 32), 0);
	ops[0] = (struct dt_copy_op){ other + 40, w.base + 64, 80 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 1, &ticket), 1);
	DT_CHECK(memcmp(other + 40, w.side + 64, 80) == 0);
	/* ... not across a gap: [other + 128, + 8) is not a target. */
	ops[0] = (struct dt_copy_op){ other + 120, w.base, 16 };
	DT_CHECK_EQ(dt_copy_gather(ch, ops, 1, &ticket), -EFAULT);
	/*
	 * The table holds DT_COPY_GATHER_TARGETS ranges (2 so far; the
	 * others in a mapping of their own, with gaps: no merge).
	 */
	for (k = 2; k < DT_COPY_GATHER_TARGETS; k++)
		DT_CHECK_EQ(dt_copy_gather_target(ch, w.side + 256 * k, 8), 0);
	DT_CHECK_EQ(dt_copy_gather_target(ch, other + 200, 8), -ENOSPC);
	/* A range inside a target already there takes no slot. */
	DT_CHECK_EQ(dt_copy_gather_target(ch, wire + 64, 64), 0);

	dt_copy_chan_close(ch);
	window_close(&w);
}

static void
test_cpu_engine_bad_args(void)
{
	uint8_t buf[64];

	rte_errno = 0;
	DT_CHECK(dt_copy_cpu_engine_create(NULL, 64, buf) == NULL);
	DT_CHECK_EQ(rte_errno, EINVAL);
	rte_errno = 0;
	DT_CHECK(dt_copy_cpu_engine_create(buf, 0, buf) == NULL);
	DT_CHECK_EQ(rte_errno, EINVAL);
	rte_errno = 0;
	DT_CHECK(dt_copy_cpu_engine_create(buf, 64, NULL) == NULL);
	DT_CHECK_EQ(rte_errno, EINVAL);
	rte_errno = 0;
	DT_CHECK(dt_copy_cpu_engine_create((void *)(UINTPTR_MAX - 10), 64,
		buf) == NULL);
	DT_CHECK_EQ(rte_errno, EINVAL);
	dt_copy_engine_destroy(NULL);
}

/* Engines over fake windows: the registry never touches the memory. */
static struct dt_copy_engine *
fake_engine(uintptr_t base, size_t len)
{
	static uint8_t side[1];

	return dt_copy_cpu_engine_create((void *)base, len, side);
}

#define W1 ((uintptr_t)0x7e0000000000ull)
#define WLEN 0x10000u

/*
 * One engine, several windows (dt_copy_registry_add_range()): each range
 * finds the same engine, overlaps are refused as for engines, and removing
 * the engine removes every window.
 */
static void
test_registry_ranges(void)
{
	struct dt_copy_engine *a, *b, *found;
	unsigned int n0 = dt_copy_registry_count();
	const uintptr_t w2 = W1 + 8 * WLEN, w3 = W1 + 16 * WLEN;

	a = fake_engine(W1, WLEN);
	b = fake_engine(w3, WLEN);
	DT_REQUIRE(a != NULL && b != NULL);
	DT_CHECK_EQ(dt_copy_registry_add(a), 0);
	DT_CHECK_EQ(dt_copy_registry_add_range(a, (void *)w2, WLEN), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0 + 2);
	DT_CHECK(dt_copy_registry_lookup((void *)W1, 64) == a);
	DT_CHECK(dt_copy_registry_lookup((void *)(w2 + WLEN - 8), 8) == a);
	/* Between the windows: host memory. */
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + 2 * WLEN), 8) == NULL);
	DT_CHECK_EQ(rte_errno, 0);
	/* A range over another engine's window, or its own, is refused. */
	DT_CHECK_EQ(dt_copy_registry_add(b), 0);
	DT_CHECK_EQ(dt_copy_registry_add_range(a, (void *)(w3 + 16), 64), -EEXIST);
	DT_CHECK_EQ(dt_copy_registry_add_range(a, (void *)(w2 + 16), 64), -EEXIST);
	DT_CHECK_EQ(dt_copy_registry_add_range(a, (void *)w2, 0), -EINVAL);
	DT_CHECK_EQ(dt_copy_registry_add_range(NULL, (void *)w2, 64), -EINVAL);
	DT_CHECK_EQ(dt_copy_registry_find((void *)(w2 + WLEN - 4), 8, &found),
		-EFAULT);
	/* Removing a takes both of its windows, and leaves b. */
	DT_CHECK_EQ(dt_copy_registry_del(a), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0 + 1);
	DT_CHECK(dt_copy_registry_lookup((void *)w2, 8) == NULL);
	DT_CHECK(dt_copy_registry_lookup((void *)W1, 8) == NULL);
	DT_CHECK(dt_copy_registry_lookup((void *)w3, 8) == b);
	DT_CHECK_EQ(dt_copy_registry_del(a), -ENOENT);
	DT_CHECK_EQ(dt_copy_registry_del(b), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	dt_copy_engine_destroy(a);
	dt_copy_engine_destroy(b);
}

static void
test_registry_add_lookup_del(void)
{
	struct dt_copy_engine *a, *b, *c, *found;
	unsigned int n0 = dt_copy_registry_count();

	a = fake_engine(W1, WLEN);
	b = fake_engine(W1 + WLEN, WLEN);        /* adjacent to a */
	c = fake_engine(W1 + WLEN / 2, WLEN);    /* overlaps a and b */
	DT_REQUIRE(a != NULL && b != NULL && c != NULL);

	DT_CHECK_EQ(dt_copy_registry_add(a), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0 + 1);
	DT_CHECK(dt_copy_registry_lookup((void *)W1, 1) == a);
	DT_CHECK(dt_copy_registry_lookup((void *)W1, WLEN) == a);
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + WLEN - 1), 1) == a);
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + 100), 0) == a);

	/* Host memory: NULL, and rte_errno cleared even if it was set. */
	rte_errno = EFAULT;
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 - 64), 64) == NULL);
	DT_CHECK_EQ(rte_errno, 0);
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + WLEN), 64) == NULL);
	DT_CHECK_EQ(rte_errno, 0);

	/* Straddling either boundary: NULL with EFAULT. */
	rte_errno = 0;
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 - 1), 2) == NULL);
	DT_CHECK_EQ(rte_errno, EFAULT);
	rte_errno = 0;
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + WLEN - 1), 2) == NULL);
	DT_CHECK_EQ(rte_errno, EFAULT);
	DT_CHECK_EQ(dt_copy_registry_find((void *)(W1 - 8), WLEN + 16, &found),
		-EFAULT);
	DT_CHECK(found == NULL);
	DT_CHECK_EQ(dt_copy_registry_find((void *)(W1 + 8), 8, &found), 0);
	DT_CHECK(found == a);

	/* Overlap refused, the same engine twice too; adjacent accepted. */
	DT_CHECK_EQ(dt_copy_registry_add(c), -EEXIST);
	DT_CHECK_EQ(rte_errno, EEXIST);
	DT_CHECK_EQ(dt_copy_registry_add(a), -EEXIST);
	DT_CHECK_EQ(dt_copy_registry_add(b), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0 + 2);
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + WLEN), 1) == b);
	/* Spanning two windows is a straddle, not either engine. */
	rte_errno = 0;
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + WLEN - 4), 8) == NULL);
	DT_CHECK_EQ(rte_errno, EFAULT);

	DT_CHECK_EQ(dt_copy_registry_del(a), 0);
	DT_CHECK_EQ(dt_copy_registry_del(a), -ENOENT);
	DT_CHECK_EQ(dt_copy_registry_del(c), -ENOENT);
	DT_CHECK(dt_copy_registry_lookup((void *)W1, 1) == NULL);
	DT_CHECK_EQ(rte_errno, 0);
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + WLEN), 1) == b);
	/* With a gone, c no longer overlaps anything but b. */
	DT_CHECK_EQ(dt_copy_registry_add(c), -EEXIST);
	DT_CHECK_EQ(dt_copy_registry_del(b), 0);
	DT_CHECK_EQ(dt_copy_registry_add(c), 0);
	DT_CHECK(dt_copy_registry_lookup((void *)(W1 + WLEN / 2), 1) == c);
	DT_CHECK_EQ(dt_copy_registry_del(c), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);

	DT_CHECK_EQ(dt_copy_registry_add(NULL), -EINVAL);
	dt_copy_engine_destroy(a);
	dt_copy_engine_destroy(b);
	dt_copy_engine_destroy(c);
}

static void
test_registry_full(void)
{
	struct dt_copy_engine *ce[DT_COPY_REGISTRY_MAX + 1];
	unsigned int n0 = dt_copy_registry_count();
	unsigned int room = DT_COPY_REGISTRY_MAX - n0;
	unsigned int i;

	for (i = 0; i <= room; i++) {
		ce[i] = fake_engine(W1 + (uintptr_t)i * WLEN, WLEN);
		DT_REQUIRE(ce[i] != NULL);
	}
	for (i = 0; i < room; i++)
		DT_CHECK_EQ(dt_copy_registry_add(ce[i]), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), DT_COPY_REGISTRY_MAX);
	DT_CHECK_EQ(dt_copy_registry_add(ce[room]), -ENOSPC);
	DT_CHECK_EQ(rte_errno, ENOSPC);
	/* Every entry is still found after the refusal... */
	for (i = 0; i < room; i++)
		DT_CHECK(dt_copy_registry_lookup(
			(void *)(W1 + (uintptr_t)i * WLEN + 5), 10) == ce[i]);
	/* ...and after removing one from the middle (the table compacts). */
	DT_CHECK_EQ(dt_copy_registry_del(ce[room / 2]), 0);
	for (i = 0; i < room; i++)
		DT_CHECK(dt_copy_registry_lookup(
			(void *)(W1 + (uintptr_t)i * WLEN + 5), 10) ==
			(i == room / 2 ? NULL : ce[i]));
	DT_CHECK_EQ(dt_copy_registry_add(ce[room]), 0);
	DT_CHECK_EQ(dt_copy_registry_del(ce[room]), 0);

	for (i = 0; i < room; i++)
		if (i != room / 2)
			DT_CHECK_EQ(dt_copy_registry_del(ce[i]), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	for (i = 0; i <= room; i++)
		dt_copy_engine_destroy(ce[i]);
}

static void
test_destroy_removes_from_registry(void)
{
	struct dt_copy_engine *a = fake_engine(W1, WLEN);
	unsigned int n0 = dt_copy_registry_count();

	DT_REQUIRE(a != NULL);
	DT_CHECK_EQ(dt_copy_registry_add(a), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0 + 1);
	/* A caller bug, but it must not leave a dangling engine behind. */
	dt_copy_engine_destroy(a);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	DT_CHECK(dt_copy_registry_lookup((void *)W1, 1) == NULL);
}

int
main(int argc, char **argv)
{
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	DT_RUN(test_cpu_engine_translates);
	DT_RUN(test_cpu_engine_tickets_and_stats);
	DT_RUN(test_cpu_engine_latency);
	DT_RUN(test_cpu_engine_refuses_straddling);
	DT_RUN(test_cpu_engine_gather);
	DT_RUN(test_cpu_engine_bad_args);
	DT_RUN(test_registry_add_lookup_del);
	DT_RUN(test_registry_ranges);
	DT_RUN(test_registry_full);
	DT_RUN(test_destroy_removes_from_registry);
	ret = dt_test_summary();
	rte_eal_cleanup();
	return ret;
}
