/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider table: gpudev id -> provider ops, in a named memzone so that
 * every copy of this code in the process (the program, and each -d plugin
 * that links lib/devmem's dt_copy archive) shares it.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_spinlock.h>

#include "dt_devmem_provider.h"

#define DT_DEVMEM_PROVIDER_MZ "dt_devmem_providers"

struct dt_devmem_provider_table {
	rte_spinlock_t lock;
	const struct dt_devmem_provider_ops *ops[DT_DEVMEM_PROVIDER_MAX];
};

/*
 * The table of this process, created by whichever code copy asks first.
 * Not cached: the memzone is looked up on every (control-path) call, so a
 * copy never holds a pointer that EAL clean-up freed.
 */
static struct dt_devmem_provider_table *
provider_table(void)
{
	const struct rte_memzone *mz;
	struct dt_devmem_provider_table *t;

	mz = rte_memzone_lookup(DT_DEVMEM_PROVIDER_MZ);
	if (mz != NULL)
		return mz->addr;
	mz = rte_memzone_reserve(DT_DEVMEM_PROVIDER_MZ, sizeof(*t),
		SOCKET_ID_ANY, 0);
	if (mz == NULL) {
		if (rte_errno == EEXIST)
			mz = rte_memzone_lookup(DT_DEVMEM_PROVIDER_MZ);
		return mz != NULL ? mz->addr : NULL;
	}
	t = mz->addr;
	memset(t, 0, sizeof(*t));
	rte_spinlock_init(&t->lock);
	return t;
}

int
dt_devmem_provider_register(int16_t gpu_id,
	const struct dt_devmem_provider_ops *ops)
{
	struct dt_devmem_provider_table *t;

	if (gpu_id < 0 || gpu_id >= DT_DEVMEM_PROVIDER_MAX || ops == NULL ||
	    ops->name == NULL || ops->engine_create == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	t = provider_table();
	if (t == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	rte_spinlock_lock(&t->lock);
	t->ops[gpu_id] = ops;
	rte_spinlock_unlock(&t->lock);
	return 0;
}

int
dt_devmem_provider_unregister(int16_t gpu_id,
	const struct dt_devmem_provider_ops *ops)
{
	struct dt_devmem_provider_table *t;
	int ret = -ENOENT;

	if (gpu_id < 0 || gpu_id >= DT_DEVMEM_PROVIDER_MAX)
		return -ENOENT;
	t = provider_table();
	if (t == NULL)
		return -ENOENT;
	rte_spinlock_lock(&t->lock);
	if (t->ops[gpu_id] == ops) {
		t->ops[gpu_id] = NULL;
		ret = 0;
	}
	rte_spinlock_unlock(&t->lock);
	return ret;
}

const struct dt_devmem_provider_ops *
dt_devmem_provider_get(int16_t gpu_id)
{
	const struct dt_devmem_provider_ops *ops = NULL;
	struct dt_devmem_provider_table *t;

	if (gpu_id >= 0 && gpu_id < DT_DEVMEM_PROVIDER_MAX) {
		t = provider_table();
		if (t != NULL) {
			rte_spinlock_lock(&t->lock);
			ops = t->ops[gpu_id];
			rte_spinlock_unlock(&t->lock);
		}
	}
	if (ops == NULL)
		rte_errno = ENOENT;
	return ops;
}
