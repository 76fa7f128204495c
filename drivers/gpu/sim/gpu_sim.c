/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Simulated GPU: a gpudev vdev ("gpu_sim") for machines without a GPU.
 *
 * Device memory is one memfd per device, sized by the size= devarg, handed
 * out by a first-fit allocator in 64 KiB pages. Each allocation is mapped
 * three times:
 *  - the device address given to the application, PROT_NONE, so that any
 *    CPU load or store of payload crashes (the zero-touch guard);
 *  - a read-write device-side mapping, reachable only through
 *    rte_pmd_gpu_sim_dev_side(), which copy engines use as the "DMA" path;
 *  - on demand, a read-write CPU alias returned by rte_gpu_mem_cpu_map(), as
 *    GDRCopy gives on a real GPU, for verification code.
 * Host memory registered with rte_gpu_mem_register() is only recorded: the
 * simulated device reaches host memory at its host address.
 *
 * Everything is process-local: secondary processes are not supported.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <unistd.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_rwlock.h>

#include <bus_vdev_driver.h>
#include <gpudev_driver.h>

#include "gpu_sim_priv.h"
#include "gpu_sim_provider.h"
#include "rte_pmd_gpu_sim.h"

RTE_LOG_REGISTER(gpu_sim_logtype, pmd.gpu.sim, INFO);

#define GPU_SIM_DRV_NAME "gpu_sim"
/* "gpu_sim!" in ASCII: marks info.context as our private state. */
#define GPU_SIM_MAGIC UINT64_C(0x6770755f73696d21)

/** One rte_gpu_mem_alloc() allocation. */
struct gpu_sim_alloc {
	TAILQ_ENTRY(gpu_sim_alloc) next;
	uint8_t *dev_va;      /**< address the application sees (PROT_NONE) */
	uint8_t *dev_side;    /**< read-write mapping for copy engines */
	uint8_t *cpu_alias;   /**< read-write alias of rte_gpu_mem_cpu_map() */
	unsigned int cpu_map_refs; /**< cpu_map calls not yet unmapped */
	size_t size;          /**< bytes requested */
	size_t len;           /**< bytes mapped: size rounded up to a page */
	off_t off;            /**< offset in the device memfd */
};

/** One rte_gpu_mem_register() range of host memory. */
struct gpu_sim_reg {
	TAILQ_ENTRY(gpu_sim_reg) next;
	uint8_t *ptr;
	size_t size;
};

TAILQ_HEAD(gpu_sim_alloc_list, gpu_sim_alloc);
TAILQ_HEAD(gpu_sim_reg_list, gpu_sim_reg);

/** Per-device state; info.context points here. */
struct gpu_sim_priv {
	uint64_t magic;           /**< GPU_SIM_MAGIC while the device is open */
	rte_rwlock_t lock;        /**< protects everything below */
	int memfd;                /**< device memory */
	size_t size;              /**< device memory size (size= devarg) */
	uint32_t copy_latency_us; /**< copy_latency_us= devarg, for copy engines */
	size_t used;              /**< bytes in allocations (page-rounded) */
	/** Allocations sorted by memfd offset, for first-fit. */
	struct gpu_sim_alloc_list allocs;
	struct gpu_sim_reg_list regs;
	unsigned int nb_allocs;
	unsigned int nb_regs;
	char name[RTE_DEV_NAME_MAX_LEN];
};


/* ---- mappings ----------------------------------------------------------- */

/*
 * Map @p len bytes of the memfd at @p off, PROT_NONE, at an address aligned
 * to @p align: reserve len + align bytes of address space, keep the aligned
 * window and map the memfd over it.
 */
static void *
gpu_sim_map_guard(int fd, off_t off, size_t len, size_t align)
{
	uint8_t *base, *start, *end, *tail;
	size_t resv;
	void *va;

	if (len > SIZE_MAX - align)
		return NULL;
	resv = len + align;
	base = mmap(NULL, resv, PROT_NONE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	start = RTE_PTR_ALIGN_CEIL(base, align);
	tail = start + len;
	end = base + resv;
	if (start > base)
		munmap(base, start - base);
	if (end > tail)
		munmap(tail, end - tail);
	va = mmap(start, len, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, off);
	if (va == MAP_FAILED) {
		munmap(start, len);
		return NULL;
	}
	return va;
}

static void *
gpu_sim_map_rw(int fd, off_t off, size_t len)
{
	void *va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);

	return va == MAP_FAILED ? NULL : va;
}

/** True when [ptr, ptr + len) lies in [base, base + blen); ptr itself must be inside. */
static bool
gpu_sim_range_in(const uint8_t *base, size_t blen, const uint8_t *ptr, size_t len)
{
	size_t at;

	if (ptr < base)
		return false;
	at = (size_t)(ptr - base);
	return at < blen && len <= blen - at;
}

static bool
gpu_sim_ranges_overlap(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return a < b + blen && b < a + alen;
}

/* ---- private state ------------------------------------------------------ */

/* Caller holds the lock. */
static struct gpu_sim_alloc *
gpu_sim_alloc_find(struct gpu_sim_priv *priv, const void *ptr, size_t len)
{
	struct gpu_sim_alloc *a;

	TAILQ_FOREACH(a, &priv->allocs, next) {
		if (gpu_sim_range_in(a->dev_va, a->size, ptr, len))
			return a;
	}
	return NULL;
}

/* Caller holds the lock. */
static struct gpu_sim_reg *
gpu_sim_reg_find(struct gpu_sim_priv *priv, const void *ptr, size_t len)
{
	struct gpu_sim_reg *r;

	TAILQ_FOREACH(r, &priv->regs, next) {
		if (gpu_sim_range_in(r->ptr, r->size, ptr, len))
			return r;
	}
	return NULL;
}

/* Unmap everything of @p a, give its pages back and forget it. Caller holds the lock. */
static void
gpu_sim_alloc_destroy(struct gpu_sim_priv *priv, struct gpu_sim_alloc *a)
{
	if (a->cpu_alias != NULL)
		munmap(a->cpu_alias, a->len);
	munmap(a->dev_side, a->len);
	munmap(a->dev_va, a->len);
	/* Freed device memory must not keep host pages busy. */
	if (fallocate(priv->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			a->off, a->len) != 0)
		GPU_SIM_LOG(DEBUG, "%s: cannot punch freed range: %s",
			priv->name, strerror(errno));
	TAILQ_REMOVE(&priv->allocs, a, next);
	priv->used -= a->len;
	priv->nb_allocs--;
	rte_free(a);
}

static struct gpu_sim_priv *
gpu_sim_priv_create(const char *name, const struct gpu_sim_conf *conf)
{
	struct gpu_sim_priv *priv;

	priv = rte_zmalloc(NULL, sizeof(*priv), RTE_CACHE_LINE_SIZE);
	if (priv == NULL) {
		GPU_SIM_LOG(ERR, "%s: cannot allocate device state", name);
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_strscpy(priv->name, name, sizeof(priv->name));
	rte_rwlock_init(&priv->lock);
	TAILQ_INIT(&priv->allocs);
	TAILQ_INIT(&priv->regs);
	priv->size = conf->size;
	priv->copy_latency_us = conf->copy_latency_us;
	/* The memfd carries the device name: its mappings are recognisable in /proc/self/maps. */
	priv->memfd = memfd_create(name, MFD_CLOEXEC);
	if (priv->memfd < 0) {
		rte_errno = errno;
		GPU_SIM_LOG(ERR, "%s: memfd_create failed: %s", name, strerror(errno));
		rte_free(priv);
		return NULL;
	}
	if (ftruncate(priv->memfd, (off_t)conf->size) != 0) {
		rte_errno = errno;
		GPU_SIM_LOG(ERR, "%s: cannot size device memory to %" PRIu64 " bytes: %s",
			name, conf->size, strerror(errno));
		close(priv->memfd);
		rte_free(priv);
		return NULL;
	}
	priv->magic = GPU_SIM_MAGIC;
	return priv;
}

static void
gpu_sim_priv_destroy(struct gpu_sim_priv *priv)
{
	struct gpu_sim_alloc *a;
	struct gpu_sim_reg *r;

	rte_rwlock_write_lock(&priv->lock);
	if (priv->nb_allocs != 0 || priv->nb_regs != 0)
		GPU_SIM_LOG(INFO, "%s: closing with %u allocations and %u registrations still held",
			priv->name, priv->nb_allocs, priv->nb_regs);
	while ((a = TAILQ_FIRST(&priv->allocs)) != NULL)
		gpu_sim_alloc_destroy(priv, a);
	while ((r = TAILQ_FIRST(&priv->regs)) != NULL) {
		TAILQ_REMOVE(&priv->regs, r, next);
		rte_free(r);
	}
	priv->nb_regs = 0;
	priv->magic = 0;
	close(priv->memfd);
	priv->memfd = -1;
	rte_rwlock_write_unlock(&priv->lock);
	rte_free(priv);
}

static struct gpu_sim_priv *
gpu_sim_priv_of(struct rte_gpu *dev)
{
	struct gpu_sim_priv *priv = dev->mpshared->dev_private;

	if (priv == NULL || priv->magic != GPU_SIM_MAGIC)
		return NULL;
	return priv;
}

/* ---- gpudev ops --------------------------------------------------------- */

/*
 * First fit over the memfd: allocations are sorted by offset, so a gap is
 * the space between two neighbours. Returns the element to insert before
 * (NULL: at the tail) through @p before. Caller holds the lock.
 */
static int
gpu_sim_find_gap(struct gpu_sim_priv *priv, size_t len, off_t *off,
	struct gpu_sim_alloc **before)
{
	struct gpu_sim_alloc *a;
	size_t prev_end = 0;

	TAILQ_FOREACH(a, &priv->allocs, next) {
		if ((size_t)a->off - prev_end >= len) {
			*off = (off_t)prev_end;
			*before = a;
			return 0;
		}
		prev_end = (size_t)a->off + a->len;
	}
	if (priv->size - prev_end >= len) {
		*off = (off_t)prev_end;
		*before = NULL;
		return 0;
	}
	return -ENOMEM;
}

static int
gpu_sim_mem_alloc(struct rte_gpu *dev, size_t size, unsigned int align,
	void **ptr)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_of(dev);
	struct gpu_sim_alloc *a, *before;
	off_t off;
	int ret;

	if (priv == NULL)
		return -ENODEV;
	if (size == 0 || size > priv->size) {
		GPU_SIM_LOG(NOTICE, "%s: cannot allocate %zu bytes: device memory is %zu bytes",
			priv->name, size, priv->size);
		return -ENOMEM;
	}
	a = rte_zmalloc(NULL, sizeof(*a), 0);
	if (a == NULL)
		return -ENOMEM;
	a->size = size;
	a->len = RTE_ALIGN_CEIL(size, (size_t)GPU_SIM_PAGE_SIZE);
	/* The device page is the minimum alignment, as on a GPU. */
	align = RTE_MAX(align, (unsigned int)GPU_SIM_PAGE_SIZE);

	rte_rwlock_write_lock(&priv->lock);
	ret = gpu_sim_find_gap(priv, a->len, &off, &before);
	if (ret != 0) {
		GPU_SIM_LOG(NOTICE, "%s: out of device memory: %zu bytes requested, %zu of %zu in use",
			priv->name, size, priv->used, priv->size);
		goto fail;
	}
	a->off = off;
	a->dev_va = gpu_sim_map_guard(priv->memfd, off, a->len, align);
	if (a->dev_va == NULL) {
		GPU_SIM_LOG(ERR, "%s: cannot map %zu bytes aligned to %u: %s",
			priv->name, a->len, align, strerror(errno));
		ret = -ENOMEM;
		goto fail;
	}
	a->dev_side = gpu_sim_map_rw(priv->memfd, off, a->len);
	if (a->dev_side == NULL) {
		GPU_SIM_LOG(ERR, "%s: cannot map the device side of %zu bytes: %s",
			priv->name, a->len, strerror(errno));
		munmap(a->dev_va, a->len);
		ret = -ENOMEM;
		goto fail;
	}
	if (before != NULL)
		TAILQ_INSERT_BEFORE(before, a, next);
	else
		TAILQ_INSERT_TAIL(&priv->allocs, a, next);
	priv->used += a->len;
	priv->nb_allocs++;
	rte_rwlock_write_unlock(&priv->lock);
	*ptr = a->dev_va;
	return 0;
fail:
	rte_rwlock_write_unlock(&priv->lock);
	rte_free(a);
	return ret;
}

static int
gpu_sim_mem_free(struct rte_gpu *dev, void *ptr)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_of(dev);
	struct gpu_sim_alloc *a;

	if (priv == NULL)
		return -ENODEV;
	rte_rwlock_write_lock(&priv->lock);
	/* gpudev contract: only the exact address of an allocation frees it. */
	a = gpu_sim_alloc_find(priv, ptr, 0);
	if (a == NULL || a->dev_va != ptr) {
		rte_rwlock_write_unlock(&priv->lock);
		GPU_SIM_LOG(ERR, "%s: free of %p: not the start of an allocation of this device",
			priv->name, ptr);
		return -EINVAL;
	}
	if (a->cpu_map_refs != 0)
		GPU_SIM_LOG(NOTICE, "%s: free of %p while CPU-mapped: the alias goes too",
			priv->name, ptr);
	gpu_sim_alloc_destroy(priv, a);
	rte_rwlock_write_unlock(&priv->lock);
	return 0;
}

static int
gpu_sim_mem_register(struct rte_gpu *dev, size_t size, void *ptr)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_of(dev);
	struct gpu_sim_reg *r, *o;
	struct gpu_sim_alloc *a;
	uint8_t *p = ptr;

	if (priv == NULL)
		return -ENODEV;
	if ((uintptr_t)p > UINTPTR_MAX - size) {
		GPU_SIM_LOG(ERR, "%s: register %p + %zu wraps around", priv->name, ptr, size);
		return -EINVAL;
	}
	r = rte_zmalloc(NULL, sizeof(*r), 0);
	if (r == NULL)
		return -ENOMEM;
	r->ptr = p;
	r->size = size;

	rte_rwlock_write_lock(&priv->lock);
	TAILQ_FOREACH(a, &priv->allocs, next) {
		if (gpu_sim_ranges_overlap(a->dev_va, a->len, p, size)) {
			GPU_SIM_LOG(ERR, "%s: register %p + %zu: this is device memory, not host memory",
				priv->name, ptr, size);
			goto fail;
		}
	}
	/* As cuMemHostRegister: a host byte is registered at most once. */
	TAILQ_FOREACH(o, &priv->regs, next) {
		if (gpu_sim_ranges_overlap(o->ptr, o->size, p, size)) {
			GPU_SIM_LOG(ERR, "%s: register %p + %zu overlaps registration %p + %zu",
				priv->name, ptr, size, o->ptr, o->size);
			goto fail;
		}
	}
	TAILQ_INSERT_HEAD(&priv->regs, r, next);
	priv->nb_regs++;
	rte_rwlock_write_unlock(&priv->lock);
	return 0;
fail:
	rte_rwlock_write_unlock(&priv->lock);
	rte_free(r);
	return -EINVAL;
}

static int
gpu_sim_mem_unregister(struct rte_gpu *dev, void *ptr)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_of(dev);
	struct gpu_sim_reg *r;

	if (priv == NULL)
		return -ENODEV;
	rte_rwlock_write_lock(&priv->lock);
	/* gpudev contract: only the exact registered address unregisters. */
	TAILQ_FOREACH(r, &priv->regs, next) {
		if (r->ptr == ptr)
			break;
	}
	if (r == NULL) {
		rte_rwlock_write_unlock(&priv->lock);
		GPU_SIM_LOG(ERR, "%s: unregister of %p: not the start of a registration",
			priv->name, ptr);
		return -EINVAL;
	}
	TAILQ_REMOVE(&priv->regs, r, next);
	priv->nb_regs--;
	rte_rwlock_write_unlock(&priv->lock);
	rte_free(r);
	return 0;
}

static int
gpu_sim_mem_cpu_map(struct rte_gpu *dev, size_t size, void *ptr_in,
	void **ptr_out)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_of(dev);
	struct gpu_sim_alloc *a;
	int ret = 0;

	if (priv == NULL)
		return -ENODEV;
	rte_rwlock_write_lock(&priv->lock);
	a = gpu_sim_alloc_find(priv, ptr_in, size);
	if (a != NULL) {
		/* One alias per allocation, shared by every cpu_map of it. */
		if (a->cpu_alias == NULL) {
			a->cpu_alias = gpu_sim_map_rw(priv->memfd, a->off, a->len);
			if (a->cpu_alias == NULL) {
				GPU_SIM_LOG(ERR, "%s: cannot map %zu bytes for the CPU: %s",
					priv->name, a->len, strerror(errno));
				ret = -ENOMEM;
				goto out;
			}
		}
		a->cpu_map_refs++;
		*ptr_out = a->cpu_alias + ((uint8_t *)ptr_in - a->dev_va);
	} else if (gpu_sim_reg_find(priv, ptr_in, size) != NULL) {
		/* Registered host memory is already CPU memory. */
		*ptr_out = ptr_in;
	} else {
		GPU_SIM_LOG(ERR, "%s: cpu_map of %p + %zu: not inside one allocation or registration",
			priv->name, ptr_in, size);
		ret = -EINVAL;
	}
out:
	rte_rwlock_write_unlock(&priv->lock);
	return ret;
}

static int
gpu_sim_mem_cpu_unmap(struct rte_gpu *dev, void *ptr)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_of(dev);
	struct gpu_sim_alloc *a;
	int ret = 0;

	if (priv == NULL)
		return -ENODEV;
	rte_rwlock_write_lock(&priv->lock);
	/* As in gpudev, @p ptr is the device address that was mapped. */
	a = gpu_sim_alloc_find(priv, ptr, 0);
	if (a != NULL) {
		if (a->cpu_map_refs == 0) {
			GPU_SIM_LOG(ERR, "%s: cpu_unmap of %p: not CPU-mapped",
				priv->name, ptr);
			ret = -EINVAL;
		} else if (--a->cpu_map_refs == 0) {
			munmap(a->cpu_alias, a->len);
			a->cpu_alias = NULL;
		}
	} else if (gpu_sim_reg_find(priv, ptr, 0) == NULL) {
		GPU_SIM_LOG(ERR, "%s: cpu_unmap of %p: not device memory of this device",
			priv->name, ptr);
		ret = -EINVAL;
	}
	rte_rwlock_write_unlock(&priv->lock);
	return ret;
}

static int
gpu_sim_wmb(struct rte_gpu *dev)
{
	if (gpu_sim_priv_of(dev) == NULL)
		return -ENODEV;
	/* Device writes are CPU stores through the device side: order them. */
	rte_wmb();
	return 0;
}

/* Frees what the device holds; rte_gpu_close() releases the rte_gpu itself. */
static int
gpu_sim_dev_close(struct rte_gpu *dev)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_of(dev);

	if (priv == NULL)
		return 0;
	gpu_sim_provider_unregister(dev->mpshared->info.dev_id);
	dev->mpshared->dev_private = NULL;
	dev->mpshared->info.context = 0;
	gpu_sim_priv_destroy(priv);
	return 0;
}

/* ---- driver API --------------------------------------------------------- */

/* The device's priv, or NULL when @p dev_id is not an open gpu_sim device. */
static struct gpu_sim_priv *
gpu_sim_priv_by_id(int16_t dev_id)
{
	struct rte_gpu_info info;
	struct gpu_sim_priv *priv;
	struct rte_gpu *dev;

	if (!rte_gpu_is_valid(dev_id) || rte_gpu_info_get(dev_id, &info) != 0)
		return NULL;
	dev = rte_gpu_get_by_name(info.name);
	if (dev == NULL || dev->device == NULL || dev->device->driver == NULL ||
			strcmp(dev->device->driver->name, GPU_SIM_DRV_NAME) != 0)
		return NULL;
	priv = (struct gpu_sim_priv *)(uintptr_t)info.context;
	if (priv == NULL || priv != dev->mpshared->dev_private ||
			priv->magic != GPU_SIM_MAGIC)
		return NULL;
	return priv;
}

int
rte_pmd_gpu_sim_dev_side(int16_t dev_id, const void *ptr, size_t size,
	void **dev_side)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_by_id(dev_id);
	struct gpu_sim_alloc *a;
	int ret = 0;

	if (priv == NULL)
		return -ENODEV;
	if (dev_side == NULL)
		return -EINVAL;
	rte_rwlock_read_lock(&priv->lock);
	a = gpu_sim_alloc_find(priv, ptr, size);
	if (a != NULL)
		*dev_side = a->dev_side + ((const uint8_t *)ptr - a->dev_va);
	else
		ret = -EINVAL;
	rte_rwlock_read_unlock(&priv->lock);
	return ret;
}

/*
 * Another process maps the same bytes through a duplicate of the device's
 * memfd: the allocation's memfd offset is page aligned, so [ptr, +size)
 * starts at *off + (ptr - page start) in the file.
 */
int
gpu_sim_ipc_range(int16_t dev_id, const void *ptr, size_t size, int *fd,
	uint64_t *off, uint64_t *map_len)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_by_id(dev_id);
	struct gpu_sim_alloc *a;
	int ret = 0;

	if (priv == NULL)
		return -ENODEV;
	rte_rwlock_read_lock(&priv->lock);
	a = gpu_sim_alloc_find(priv, ptr, size);
	if (a == NULL || (const uint8_t *)ptr != a->dev_va) {
		ret = -EINVAL; /* a whole allocation is shared, nothing less */
	} else {
		*fd = fcntl(priv->memfd, F_DUPFD_CLOEXEC, 0);
		*off = (uint64_t)a->off;
		*map_len = a->len;
		if (*fd < 0)
			ret = -errno;
	}
	rte_rwlock_read_unlock(&priv->lock);
	return ret;
}

int
rte_pmd_gpu_sim_copy_latency(int16_t dev_id)
{
	struct gpu_sim_priv *priv = gpu_sim_priv_by_id(dev_id);

	return priv == NULL ? -ENODEV : (int)priv->copy_latency_us;
}

/* ---- vdev --------------------------------------------------------------- */

static int
gpu_sim_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct gpu_sim_conf conf;
	struct gpu_sim_priv *priv;
	struct rte_gpu_info *info;
	struct rte_gpu *dev;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		GPU_SIM_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
	ret = gpu_sim_parse_devargs(name, rte_vdev_device_args(vdev), &conf);
	if (ret != 0)
		return ret;
	priv = gpu_sim_priv_create(name, &conf);
	if (priv == NULL)
		return -rte_errno;

	dev = rte_gpu_allocate(name);
	if (dev == NULL) {
		ret = -rte_errno;
		GPU_SIM_LOG(ERR, "%s: cannot allocate a gpudev: %s",
			name, rte_strerror(rte_errno));
		gpu_sim_priv_destroy(priv);
		return ret;
	}
	dev->device = &vdev->device;
	dev->mpshared->dev_private = priv;
	info = &dev->mpshared->info;
	info->context = (uint64_t)(uintptr_t)priv;
	info->total_memory = conf.size;
	info->page_size = GPU_SIM_PAGE_SIZE;
	info->numa_node = conf.numa;
	info->processor_count = conf.processors;

	/* dev_info_get stays NULL: gpudev then copies mpshared->info. */
	dev->ops.dev_close = gpu_sim_dev_close;
	dev->ops.mem_alloc = gpu_sim_mem_alloc;
	dev->ops.mem_free = gpu_sim_mem_free;
	dev->ops.mem_register = gpu_sim_mem_register;
	dev->ops.mem_unregister = gpu_sim_mem_unregister;
	dev->ops.mem_cpu_map = gpu_sim_mem_cpu_map;
	dev->ops.mem_cpu_unmap = gpu_sim_mem_cpu_unmap;
	dev->ops.wmb = gpu_sim_wmb;

	/* lib/devmem finds the copy engine of the device's memory here. */
	ret = gpu_sim_provider_register(info->dev_id);
	if (ret < 0) {
		GPU_SIM_LOG(ERR, "%s: cannot register the device-memory provider: %s",
			name, rte_strerror(-ret));
		rte_gpu_release(dev);
		gpu_sim_priv_destroy(priv);
		return ret;
	}
	rte_gpu_complete_new(dev);
	GPU_SIM_LOG(INFO, "%s: gpu %d, %" PRIu64 " bytes of device memory, numa %d, %u processors, copy latency %u us",
		name, info->dev_id, conf.size, conf.numa, conf.processors,
		conf.copy_latency_us);
	return 0;
}

static int
gpu_sim_remove(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_gpu *dev = rte_gpu_get_by_name(name);

	/* The application may have closed it already with rte_gpu_close(). */
	if (dev == NULL || dev->device != &vdev->device)
		return 0;
	return rte_gpu_close(dev->mpshared->info.dev_id);
}

static struct rte_vdev_driver gpu_sim_drv = {
	.probe = gpu_sim_probe,
	.remove = gpu_sim_remove,
};

RTE_PMD_REGISTER_VDEV(gpu_sim, gpu_sim_drv);
RTE_PMD_REGISTER_PARAM_STRING(gpu_sim,
	GPU_SIM_ARG_SIZE "=<bytes, K/M/G suffix; default 1G> "
	GPU_SIM_ARG_NUMA "=<node; default 0> "
	GPU_SIM_ARG_PROCESSORS "=<count; default 132> "
	GPU_SIM_ARG_COPY_LATENCY "=<simulated copy completion latency in us; default 0>");
