/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queues' view of copy engines: a short per-queue list of the engines it
 * met, each with the queue's own channel (channels are single-threaded), so
 * the data path checks a few address ranges before it asks the registry.
 */
#include <errno.h>
#include <string.h>

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
	e->gather = 0;
	memset(&e->tgt, 0, sizeof(e->tgt));
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

struct gather_walk {
	struct hsplit_eng *e;
	int err;                /* first refusal, for the log */
};

/* One memory chunk of a wire-buffer pool: offered as a gather target. */
static void
gather_chunk(struct rte_mempool *mp, void *arg, struct rte_mempool_memhdr *mh,
	unsigned int idx)
{
	struct gather_walk *w = arg;
	int r;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	r = dt_copy_gather_target(w->e->ch, mh->addr, mh->len);
	if (r == 0)
		r = dt_copy_gather_targets_add(&w->e->tgt, mh->addr, mh->len);
	if (r != 0 && w->err == 0)
		w->err = r;
}

/*
 * Offer the memory of the wire-buffer pools @p pools to @p e's channel as
 * gather targets: where the channel gathers, the device-segment copies of a
 * TX burst into them become one device operation (one GPU launch), not a
 * copy per segment. The chunks the engine refuses (a pool its device cannot
 * write, e.g. not registered with the GPU) keep the submit path.
 */
void
hsplit_eng_gather_setup(struct hsplit_eng *e, uint16_t port_id,
	struct rte_mempool *const *pools, unsigned int n)
{
	struct gather_walk w = { .e = e, .err = 0 };
	unsigned int i;

	e->gather = -1;
	if (!dt_copy_has_gather(e->ch))
		return;
	for (i = 0; i < n; i++)
		if (pools[i] != NULL)
			rte_mempool_mem_iter(pools[i], gather_chunk, &w);
	if (e->tgt.n != 0)
		e->gather = 1;
	if (w.err != 0)
		HSPLIT_LOG(INFO, "port %u: copy engine %s takes %u wire-buffer range(s) as gather targets, refused others (%s): copies into those are submitted one by one",
			port_id, e->ce->ops->name, e->tgt.n, strerror(-w.err));
	else
		HSPLIT_LOG(DEBUG, "port %u: copy engine %s gathers TX payload into %u wire-buffer range(s)",
			port_id, e->ce->ops->name, e->tgt.n);
}
