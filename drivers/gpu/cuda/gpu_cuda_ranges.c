/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sorted, non-overlapping address ranges: the allocation and registration
 * tables of a gpu_cuda device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_cuda_priv.h"

/* Index of the last range with start <= addr, or -1. */
static int
gpu_cuda_ranges_floor(const struct gpu_cuda_ranges *t, uintptr_t addr)
{
	uint32_t lo = 0, hi = t->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int)lo - 1;
}

static int
gpu_cuda_ranges_grow(struct gpu_cuda_ranges *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 64;
	struct gpu_cuda_range *v;

	v = realloc(t->v, (size_t)cap * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

int
gpu_cuda_ranges_insert(struct gpu_cuda_ranges *t,
	const struct gpu_cuda_range *r)
{
	int f = gpu_cuda_ranges_floor(t, r->start);
	uint32_t pos = (uint32_t)(f + 1);

	if (f >= 0 && t->v[f].start + t->v[f].len > r->start)
		return -EEXIST;
	if (pos < t->n && r->start + r->len > t->v[pos].start)
		return -EEXIST;
	if (t->n == t->cap && gpu_cuda_ranges_grow(t) != 0)
		return -ENOMEM;
	memmove(&t->v[pos + 1], &t->v[pos], (t->n - pos) * sizeof(*t->v));
	t->v[pos] = *r;
	t->n++;
	return 0;
}

int
gpu_cuda_ranges_find_exact(const struct gpu_cuda_ranges *t, uintptr_t start)
{
	int f = gpu_cuda_ranges_floor(t, start);

	return (f >= 0 && t->v[f].start == start) ? f : -1;
}

int
gpu_cuda_ranges_find(const struct gpu_cuda_ranges *t, uintptr_t addr,
	size_t len)
{
	int f = gpu_cuda_ranges_floor(t, addr);

	if (f < 0)
		return -1;
	/* Written to avoid overflow of addr + len. */
	if (addr - t->v[f].start > t->v[f].len ||
			len > t->v[f].len - (addr - t->v[f].start))
		return -1;
	return f;
}

int
gpu_cuda_ranges_covered(const struct gpu_cuda_ranges *t, uintptr_t addr,
	size_t len)
{
	int f = gpu_cuda_ranges_floor(t, addr);
	uintptr_t end = addr + len, cur = addr;

	if (f < 0 || end < addr)
		return 0;
	/* Walk adjacent ranges from the one holding addr until end is reached. */
	for (; (uint32_t)f < t->n && t->v[f].start <= cur; f++) {
		if (t->v[f].start + t->v[f].len <= cur)
			return 0;
		cur = t->v[f].start + t->v[f].len;
		if (cur >= end)
			return 1;
	}
	return 0;
}

void
gpu_cuda_ranges_remove(struct gpu_cuda_ranges *t, uint32_t idx)
{
	memmove(&t->v[idx], &t->v[idx + 1], (t->n - idx - 1) * sizeof(*t->v));
	t->n--;
}

void
gpu_cuda_ranges_free(struct gpu_cuda_ranges *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
