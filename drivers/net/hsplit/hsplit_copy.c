/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queues' view of copy engines: a short per-queue list of the engines it
 * met, each with the queue's own channel (channels are single-threaded), so
 * the data path checks a few address ranges before it asks the registry.
 */
#include <errno.h>

#include <rte_errno.h>

#include "hsplit_private.h"

static int
eng_add(struct hsplit_eng *eng, uint8_t *nb_eng, struct dt_copy_engine *ce)
{
	struct dt_copy_chan *ch;
	struct hsplit_eng *e;

	if (*nb_eng >= HSPLIT_MAX_ENGINES) {
		HSPLIT_LOG(ERR, "a queue reaches more than %d copy engines",
			HSPLIT_MAX_ENGINES);
		return -ENOSPC;
	}
	ch = dt_copy_chan_open(ce);
	if (ch == NULL) {
		HSPLIT_LOG(ERR, "cannot open a channel on copy engine %s: %s",
			ce->ops->name, rte_strerror(rte_errno));
		return rte_errno ? -rte_errno : -ENOMEM;
	}
	e = &eng[*nb_eng];
	e->ce = ce;
	e->ch = ch;
	e->base = (uintptr_t)ce->base;
	e->end = (uintptr_t)ce->base + ce->len;
	return (*nb_eng)++;
}

int
hsplit_eng_find(struct hsplit_eng *eng, uint8_t *nb_eng, const void *addr,
	size_t len, int *idx)
{
	uintptr_t a = (uintptr_t)addr;
	struct dt_copy_engine *ce;
	uint8_t i;
	int r;

	for (i = 0; i < *nb_eng; i++) {
		if (a >= eng[i].base && a + len <= eng[i].end) {
			*idx = i;
			return 1;
		}
	}
	r = dt_copy_registry_find(addr, len, &ce);
	if (r < 0)
		return r;
	if (ce == NULL) {
		*idx = -1;
		return 0;
	}
	for (i = 0; i < *nb_eng; i++) {
		/* Same engine, range not within what we cached: re-check. */
		if (eng[i].ce == ce) {
			*idx = i;
			return 1;
		}
	}
	r = eng_add(eng, nb_eng, ce);
	if (r < 0)
		return r;
	*idx = r;
	return 1;
}

void
hsplit_eng_close_all(struct hsplit_eng *eng, uint8_t *nb_eng)
{
	uint8_t i;

	for (i = 0; i < *nb_eng; i++) {
		dt_copy_chan_close(eng[i].ch);
		eng[i].ch = NULL;
		eng[i].ce = NULL;
	}
	*nb_eng = 0;
}
