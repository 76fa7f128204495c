/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of copy engines: address range -> engine.
 *
 * The table lives in a named memzone so that every copy of this code in the
 * process (the application and a plugin PMD each link dt_copy) shares it.
 * Writers take the spinlock; readers scan without it, which is safe because
 * ranges are only added and removed while the ports using them are stopped.
 * The table stays dense (del moves the last entry into the hole) so that a
 * lookup scans exactly the live entries.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_spinlock.h>

#include "dt_copy_private.h"

#define DT_COPY_REGISTRY_MZ "dt_copy_registry"

struct dt_copy_registry_entry {
	uintptr_t base;
	uintptr_t end;              /* base + len, exclusive */
	struct dt_copy_engine *ce;
};

struct dt_copy_registry {
	rte_spinlock_t lock;        /* writers only */
	uint32_t count;             /* live entries: ent[0 .. count) */
	struct dt_copy_registry_entry ent[DT_COPY_REGISTRY_MAX];
};

/*
 * Cache of this code copy's pointer to the shared memzone. It is not state
 * of its own (the memzone is the state, and it is never freed), only a way
 * to keep rte_memzone_lookup(), which takes a lock and compares names, off
 * the fast path.
 */
static struct dt_copy_registry *dt_copy_registry_cached;

static struct dt_copy_registry *
registry_get(void)
{
	const struct rte_memzone *mz;
	struct dt_copy_registry *reg;

	reg = __atomic_load_n(&dt_copy_registry_cached, __ATOMIC_ACQUIRE);
	if (likely(reg != NULL))
		return reg;
	mz = rte_memzone_lookup(DT_COPY_REGISTRY_MZ);
	if (mz == NULL) {
		mz = rte_memzone_reserve(DT_COPY_REGISTRY_MZ, sizeof(*reg),
			SOCKET_ID_ANY, 0);
		if (mz != NULL) {
			reg = mz->addr;
			memset(reg, 0, sizeof(*reg));
			rte_spinlock_init(&reg->lock);
		} else if (rte_errno == EEXIST) {
			/* Another code copy created it meanwhile. */
			mz = rte_memzone_lookup(DT_COPY_REGISTRY_MZ);
		}
	}
	if (mz == NULL) {
		DT_COPY_LOG(ERR, "registry: cannot reserve memzone %s: %s",
			DT_COPY_REGISTRY_MZ, rte_strerror(rte_errno));
		return NULL;
	}
	reg = mz->addr;
	__atomic_store_n(&dt_copy_registry_cached, reg, __ATOMIC_RELEASE);
	return reg;
}

int
dt_copy_registry_add(struct dt_copy_engine *ce)
{
	if (ce == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	return dt_copy_registry_add_range(ce, ce->base, ce->len);
}

int
dt_copy_registry_add_range(struct dt_copy_engine *ce, const void *start,
	size_t len)
{
	struct dt_copy_registry *reg;
	uintptr_t base, end;
	uint32_t i, n;
	int ret = 0;

	if (ce == NULL || len == 0 ||
	    (uintptr_t)start + len < (uintptr_t)start) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	reg = registry_get();
	if (reg == NULL)
		return -rte_errno;
	base = (uintptr_t)start;
	end = base + len;

	rte_spinlock_lock(&reg->lock);
	n = reg->count;
	for (i = 0; i < n; i++) {
		const struct dt_copy_registry_entry *e = &reg->ent[i];

		if (base < e->end && e->base < end) {
			DT_COPY_LOG(ERR, "registry: window [%p, +%zu) of engine %s overlaps [%p, %p) of engine %s",
				start, len, ce->ops->name,
				(void *)e->base, (void *)e->end,
				e->ce->ops->name);
			ret = -EEXIST;
			goto out;
		}
	}
	if (n == DT_COPY_REGISTRY_MAX) {
		DT_COPY_LOG(ERR, "registry: full (%u windows); cannot add [%p, +%zu)",
			n, start, len);
		ret = -ENOSPC;
		goto out;
	}
	reg->ent[n].base = base;
	reg->ent[n].end = end;
	reg->ent[n].ce = ce;
	/* Publish the entry only once it is complete. */
	__atomic_store_n(&reg->count, n + 1, __ATOMIC_RELEASE);
out:
	rte_spinlock_unlock(&reg->lock);
	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

int
dt_copy_registry_forget(struct dt_copy_engine *ce)
{
	struct dt_copy_registry *reg;
	uint32_t i, n;
	int ret = -ENOENT;

	reg = registry_get();
	if (reg == NULL)
		return -ENOENT;
	rte_spinlock_lock(&reg->lock);
	n = reg->count;
	/* Every window of the engine (dt_copy_registry_add_range()). */
	for (i = 0; i < n; ) {
		if (reg->ent[i].ce != ce) {
			i++;
			continue;
		}
		reg->ent[i] = reg->ent[n - 1];
		n--;
		__atomic_store_n(&reg->count, n, __ATOMIC_RELEASE);
		ret = 0;
	}
	rte_spinlock_unlock(&reg->lock);
	return ret;
}

int
dt_copy_registry_del(struct dt_copy_engine *ce)
{
	int ret = dt_copy_registry_forget(ce);

	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

int
dt_copy_registry_find(const void *addr, size_t len, struct dt_copy_engine **ce)
{
	const struct dt_copy_registry *reg = registry_get();
	uintptr_t p = (uintptr_t)addr;
	uintptr_t last;
	uint32_t i, n;

	*ce = NULL;
	if (unlikely(reg == NULL))
		return 0;   /* no table: nothing can be registered */
	last = p + (len != 0 ? len - 1 : 0);
	if (unlikely(last < p))
		return -EFAULT;
	n = __atomic_load_n(&reg->count, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		const struct dt_copy_registry_entry *e = &reg->ent[i];

		if (p >= e->end || last < e->base)
			continue;
		if (p >= e->base && last < e->end) {
			*ce = e->ce;
			return 0;
		}
		return -EFAULT;
	}
	return 0;
}

struct dt_copy_engine *
dt_copy_registry_lookup(const void *addr, size_t len)
{
	struct dt_copy_engine *ce;

	rte_errno = -dt_copy_registry_find(addr, len, &ce);
	return ce;
}

unsigned int
dt_copy_registry_count(void)
{
	const struct dt_copy_registry *reg = registry_get();

	return reg == NULL ? 0 : __atomic_load_n(&reg->count, __ATOMIC_ACQUIRE);
}
