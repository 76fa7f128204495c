/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Payload regions: device (or host) memory made into a pinned
 * external-buffer mempool that a NIC can DMA into, with the copy engine
 * that is the only way to move its bytes.
 */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_string_fns.h>

#include "dt_devmem.h"
#include "rte_pmd_gpu_cuda.h"
#include "rte_pmd_gpu_sim.h"

RTE_LOG_REGISTER(dt_devmem_logtype, devtcp.devmem, INFO);

#define DM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, dt_devmem_logtype, "dt_devmem: " fmt "\n", \
		##__VA_ARGS__)

/* Prefix of a host region's memzone; the rest is the region name. */
#define DM_HOST_MZ_PREFIX "dm_"

struct dt_devmem_region {
	char name[DT_DEVMEM_NAME_MAX + 1];
	int16_t gpu_id;             /* RTE_GPU_ID_NONE: host region */
	uint16_t port_id;           /* RTE_MAX_ETHPORTS: no port */
	void *base;
	size_t len;
	size_t page_size;
	rte_iova_t iova;
	/* What creation did, so that teardown undoes exactly that. */
	const struct rte_memzone *host_mz;
	bool gpu_mem;               /* base came from rte_gpu_mem_alloc() */
	bool dmabuf_mem;            /* base came from rte_pmd_gpu_cuda_dmabuf_import() */
	bool extmem;                /* rte_extmem_register() done */
	struct rte_device *dma_dev; /* rte_dev_dma_map() done to it */
	struct dt_copy_engine *engine;
	bool registered;            /* engine in the copy registry */
	struct rte_mempool *pool;
	void *cpu_alias;
	uint32_t cpu_map_refs;
};

/*
 * The simulator's API is looked up rather than required at link time: a
 * program may get gpu_sim linked in (link_whole: the weak reference
 * resolves), as a -d plugin (found among the loaded objects), or not at
 * all on a machine with real GPUs. Without it no device is a gpu_sim.
 */
extern __typeof__(rte_pmd_gpu_sim_dev_side) rte_pmd_gpu_sim_dev_side
	__attribute__((weak));

typedef int (*dm_sim_dev_side_t)(int16_t dev_id, const void *ptr,
	size_t size, void **dev_side);

extern __typeof__(rte_pmd_gpu_sim_copy_latency) rte_pmd_gpu_sim_copy_latency
	__attribute__((weak));

typedef int (*dm_sim_copy_latency_t)(int16_t dev_id);

/* The CUDA engine, found the same way: linked in, a -d plugin, or absent. */
extern __typeof__(dt_copy_cuda_engine_create) dt_copy_cuda_engine_create
	__attribute__((weak));

typedef struct dt_copy_engine *(*dm_cuda_engine_create_t)(int16_t gpu_dev_id,
	void *base, size_t len);

/* dma-buf import and release of gpu_cuda, found the same way. */
extern __typeof__(rte_pmd_gpu_cuda_dmabuf_import) rte_pmd_gpu_cuda_dmabuf_import
	__attribute__((weak));
extern __typeof__(rte_pmd_gpu_cuda_dmabuf_release) rte_pmd_gpu_cuda_dmabuf_release
	__attribute__((weak));

typedef int (*dm_cuda_dmabuf_import_t)(int16_t dev_id, int fd, size_t size,
	void **ptr);
typedef int (*dm_cuda_dmabuf_release_t)(int16_t dev_id, void *ptr);

/* Paths of the loaded shared objects, collected by dl_iterate_phdr(). */
struct dm_objs {
	char *path[64];
	unsigned int n;
};

static int
dm_objs_collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dm_objs *o = arg;

	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
		return 0;
	if (o->n == RTE_DIM(o->path))
		return 1;
	o->path[o->n] = strdup(info->dlpi_name);
	if (o->path[o->n] != NULL)
		o->n++;
	return 0;
}

/*
 * EAL opens -d plugins with local symbol scope, so dlsym(RTLD_DEFAULT)
 * does not see them: ask each loaded object in turn (RTLD_NOLOAD only
 * returns a handle to what is already there). The names are collected
 * first because dlopen() must not run inside dl_iterate_phdr().
 */
static void *
dm_find_loaded_symbol(const char *sym)
{
	struct dm_objs objs = { .n = 0 };
	void *addr, *h;
	unsigned int i;

	addr = dlsym(RTLD_DEFAULT, sym);
	if (addr != NULL)
		return addr;
	dl_iterate_phdr(dm_objs_collect, &objs);
	for (i = 0; i < objs.n; i++) {
		if (addr == NULL) {
			h = dlopen(objs.path[i], RTLD_LAZY | RTLD_NOLOAD);
			if (h != NULL) {
				addr = dlsym(h, sym);
				dlclose(h);
			}
		}
		free(objs.path[i]);
	}
	return addr;
}

static dm_sim_dev_side_t
dm_sim_dev_side_fn(void)
{
	if (rte_pmd_gpu_sim_dev_side != NULL)
		return rte_pmd_gpu_sim_dev_side;
	return (dm_sim_dev_side_t)dm_find_loaded_symbol("rte_pmd_gpu_sim_dev_side");
}

static dm_sim_copy_latency_t
dm_sim_copy_latency_fn(void)
{
	if (rte_pmd_gpu_sim_copy_latency != NULL)
		return rte_pmd_gpu_sim_copy_latency;
	return (dm_sim_copy_latency_t)dm_find_loaded_symbol("rte_pmd_gpu_sim_copy_latency");
}

static dm_cuda_engine_create_t
dm_cuda_engine_create_fn(void)
{
	if (dt_copy_cuda_engine_create != NULL)
		return dt_copy_cuda_engine_create;
	return (dm_cuda_engine_create_t)dm_find_loaded_symbol("dt_copy_cuda_engine_create");
}

static dm_cuda_dmabuf_import_t
dm_cuda_dmabuf_import_fn(void)
{
	if (rte_pmd_gpu_cuda_dmabuf_import != NULL)
		return rte_pmd_gpu_cuda_dmabuf_import;
	return (dm_cuda_dmabuf_import_t)dm_find_loaded_symbol("rte_pmd_gpu_cuda_dmabuf_import");
}

static dm_cuda_dmabuf_release_t
dm_cuda_dmabuf_release_fn(void)
{
	if (rte_pmd_gpu_cuda_dmabuf_release != NULL)
		return rte_pmd_gpu_cuda_dmabuf_release;
	return (dm_cuda_dmabuf_release_t)dm_find_loaded_symbol("rte_pmd_gpu_cuda_dmabuf_release");
}

/* Whether gpudev @p gpu_id is driven by gpu_cuda (its device name says so). */
static bool
dm_is_cuda_device(int16_t gpu_id)
{
	struct rte_gpu_info info;
	const char *drv;

	if (rte_gpu_info_get(gpu_id, &info) < 0 || info.name == NULL)
		return false;
	/* vdev names start with the driver name: gpu_cuda0, gpu_cuda_a, ... */
	drv = "gpu_cuda";
	return strncmp(info.name, drv, strlen(drv)) == 0;
}

/*
 * Report a failed step: log it with the region, the step and the reason,
 * set rte_errno, and return the negative errno for the caller to pass on.
 */
static int __rte_format_printf(4, 5)
dm_fail(const char *region, const char *step, int err, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	DM_LOG(ERR, "region %s: %s failed: %s: %s", region, step, detail,
		rte_strerror(err));
	rte_errno = err;
	return -err;
}

/* The system page size; EAL's own helper is internal. */
static size_t
dm_sys_page_size(void)
{
	long sz = sysconf(_SC_PAGESIZE);

	return sz > 0 ? (size_t)sz : 4096;
}

/* rte_errno after a DPDK call that failed, never 0 (some paths leave it unset). */
static int
dm_errno(int ret)
{
	if (rte_errno != 0)
		return rte_errno;
	return ret < -1 ? -ret : EIO;
}

struct dt_copy_engine *
dt_devmem_engine_create_default(int16_t gpu_id, void *base, size_t len,
	void *arg)
{
	dm_sim_dev_side_t sim_dev_side = dm_sim_dev_side_fn();
	dm_cuda_engine_create_t cuda_create;
	struct dt_copy_engine *ce;
	struct rte_gpu_info info;
	void *side = NULL;
	int ret = -ENODEV;

	RTE_SET_USED(arg);
	if (sim_dev_side != NULL)
		ret = sim_dev_side(gpu_id, base, len, &side);
	if (ret == -ENODEV) {
		if (rte_gpu_info_get(gpu_id, &info) < 0 || info.name == NULL)
			info.name = "?";
		cuda_create = dm_cuda_engine_create_fn();
		if (cuda_create == NULL) {
			DM_LOG(ERR, "no copy engine for device %d (%s): not a gpu_sim device, and CUDA engine not built (or gpu_cuda not loaded)",
				gpu_id, info.name);
			rte_errno = ENOTSUP;
			return NULL;
		}
		if (!dm_is_cuda_device(gpu_id)) {
			DM_LOG(ERR, "no copy engine for device %d (%s): neither a gpu_sim nor a gpu_cuda device",
				gpu_id, info.name);
			rte_errno = ENOTSUP;
			return NULL;
		}
		rte_errno = 0;
		ce = cuda_create(gpu_id, base, len);
		if (ce == NULL) {
			if (rte_errno == 0)
				rte_errno = EIO;
			DM_LOG(ERR, "gpu_cuda %d (%s): CUDA copy engine for [%p, +%zu) failed: %s",
				gpu_id, info.name, base, len,
				rte_strerror(rte_errno));
		}
		return ce;
	}
	if (ret < 0) {
		DM_LOG(ERR, "gpu_sim %d: device-side mapping of [%p, +%zu) failed: %s",
			gpu_id, base, len, rte_strerror(-ret));
		rte_errno = -ret;
		return NULL;
	}
	ce = dt_copy_cpu_engine_create(base, len, side);
	if (ce != NULL) {
		/* The simulator's copy_latency_us devarg, when it sets one. */
		dm_sim_copy_latency_t lat = dm_sim_copy_latency_fn();
		int us = lat != NULL ? lat(gpu_id) : 0;

		if (us > 0 && dt_copy_cpu_engine_set_latency(ce, (uint32_t)us) == 0)
			DM_LOG(INFO, "gpu_sim %d: copy engine of [%p, +%zu): simulated completion latency %d us",
				gpu_id, base, len, us);
	}
	return ce;
}

static int
dm_check_conf(const struct dt_devmem_region_conf *conf, struct rte_device **dev)
{
	const char *name = conf->name != NULL ? conf->name : "(null)";
	struct rte_eth_dev_info dinfo;
	int ret;

	if (conf->name == NULL || conf->name[0] == '\0' ||
	    strlen(conf->name) > DT_DEVMEM_NAME_MAX)
		return dm_fail(name, "config", EINVAL,
			"name must have 1 to %d characters", DT_DEVMEM_NAME_MAX);
	if (conf->nb_bufs == 0 || conf->buf_size == 0)
		return dm_fail(name, "config", EINVAL,
			"nb_bufs (%u) and buf_size (%u) must be non-zero",
			conf->nb_bufs, conf->buf_size);
	if (rte_mempool_lookup(conf->name) != NULL)
		return dm_fail(name, "config", EEXIST,
			"a mempool named %s exists", conf->name);
	if (conf->gpu_id != RTE_GPU_ID_NONE && !rte_gpu_is_valid(conf->gpu_id))
		return dm_fail(name, "config", ENODEV,
			"gpu %d is not a valid gpudev device", conf->gpu_id);
	if (conf->dmabuf && conf->gpu_id == RTE_GPU_ID_NONE)
		return dm_fail(name, "config", EINVAL,
			"dmabuf is set but gpu_id is RTE_GPU_ID_NONE: a dma-buf region needs a gpu_cuda device");
	*dev = NULL;
	if (conf->port_id == RTE_MAX_ETHPORTS)
		return 0;
	if (!rte_eth_dev_is_valid_port(conf->port_id))
		return dm_fail(name, "config", ENODEV,
			"port %u is not a valid ethdev port", conf->port_id);
	ret = rte_eth_dev_info_get(conf->port_id, &dinfo);
	if (ret < 0)
		return dm_fail(name, "port device lookup", -ret,
			"rte_eth_dev_info_get(port %u)", conf->port_id);
	*dev = dinfo.device;
	return 0;
}

/* Steps 1 (host region): hugepage memzone, contiguous in IOVA space. */
static int
dm_host_memory(struct dt_devmem_region *r, size_t want, int socket_id)
{
	char mz_name[RTE_MEMZONE_NAMESIZE];

	r->page_size = dm_sys_page_size();
	r->len = RTE_ALIGN_CEIL(want, r->page_size);
	snprintf(mz_name, sizeof(mz_name), DM_HOST_MZ_PREFIX "%s", r->name);
	/*
	 * The pool derives each buffer's IOVA from one base, so ask for
	 * IOVA-contiguous memory first; in IOVA-as-PA mode a large region
	 * rarely is, and then the buffers get RTE_BAD_IOVA (a software NIC or
	 * an IOMMU-less set-up needs none).
	 */
	r->host_mz = rte_memzone_reserve_aligned(mz_name, r->len, socket_id,
		RTE_MEMZONE_IOVA_CONTIG, r->page_size);
	if (r->host_mz != NULL) {
		r->iova = r->host_mz->iova;
	} else {
		r->host_mz = rte_memzone_reserve_aligned(mz_name, r->len,
			socket_id, 0, r->page_size);
		r->iova = rte_eal_iova_mode() == RTE_IOVA_VA && r->host_mz != NULL ?
			(rte_iova_t)(uintptr_t)r->host_mz->addr : RTE_BAD_IOVA;
	}
	if (r->host_mz == NULL)
		return dm_fail(r->name, "host memzone reserve", rte_errno,
			"%zu bytes as memzone %s on socket %d", r->len,
			mz_name, socket_id);
	r->base = r->host_mz->addr;
	return 0;
}

/*
 * Step 1 from a dma-buf: import it whole on a gpu_cuda device. Its size
 * (dma-bufs answer lseek SEEK_END without moving) is the region's length.
 */
static int
dm_dmabuf_memory(struct dt_devmem_region *r, size_t want, int fd,
	const struct rte_gpu_info *info)
{
	dm_cuda_dmabuf_import_t import;
	off_t cur, end;
	int ret;

	if (!dm_is_cuda_device(r->gpu_id))
		return dm_fail(r->name, "dmabuf_import", ENOTSUP,
			"gpu %d (%s) is not a gpu_cuda device: only gpu_cuda imports dma-bufs",
			r->gpu_id, info->name != NULL ? info->name : "?");
	import = dm_cuda_dmabuf_import_fn();
	if (import == NULL || dm_cuda_dmabuf_release_fn() == NULL)
		return dm_fail(r->name, "dmabuf_import", ENOTSUP,
			"gpu %d: rte_pmd_gpu_cuda_dmabuf_import() not found (gpu_cuda neither linked nor loaded)",
			r->gpu_id);
	cur = lseek(fd, 0, SEEK_CUR);
	end = lseek(fd, 0, SEEK_END);
	if (cur >= 0)
		lseek(fd, cur, SEEK_SET);
	if (end <= 0)
		return dm_fail(r->name, "dmabuf_import", EINVAL,
			"fd %d: no size from lseek(SEEK_END) (%s): not a dma-buf?",
			fd, end < 0 ? strerror(errno) : "size 0");
	if ((size_t)end % r->page_size != 0 || (size_t)end < want)
		return dm_fail(r->name, "dmabuf_import", EINVAL,
			"dma-buf fd %d has %lld bytes: must be a multiple of gpu %d's page size %zu and hold the %zu bytes of buffers",
			fd, (long long)end, r->gpu_id, r->page_size, want);
	r->len = (size_t)end;
	ret = import(r->gpu_id, fd, r->len, &r->base);
	if (ret < 0) {
		r->base = NULL;
		return dm_fail(r->name, "dmabuf_import", -ret,
			"fd %d, %zu bytes on gpu %d (see the gpu_cuda log line)",
			fd, r->len, r->gpu_id);
	}
	r->dmabuf_mem = true;
	return 0;
}

/* Steps 1 and 2 (device region): gpudev memory, registered as extmem. */
static int
dm_gpu_memory(struct dt_devmem_region *r, size_t want,
	const struct dt_devmem_region_conf *conf)
{
	struct rte_gpu_info info;
	rte_iova_t *iovas = NULL;
	unsigned int n_pages, i;
	bool va = rte_eal_iova_mode() == RTE_IOVA_VA;
	int ret;

	ret = rte_gpu_info_get(r->gpu_id, &info);
	if (ret < 0)
		return dm_fail(r->name, "gpu_info_get", dm_errno(ret),
			"gpu %d", r->gpu_id);
	r->page_size = info.page_size != 0 ? info.page_size : dm_sys_page_size();
	if (!rte_is_power_of_2(r->page_size))
		return dm_fail(r->name, "gpu_info_get", EINVAL,
			"gpu %d page size %zu is not a power of two",
			r->gpu_id, r->page_size);
	if (conf->dmabuf) {
		ret = dm_dmabuf_memory(r, want, conf->dmabuf_fd, &info);
		if (ret < 0)
			return ret;
	} else {
		r->len = RTE_ALIGN_CEIL(want, r->page_size);
		rte_errno = 0;
		r->base = rte_gpu_mem_alloc(r->gpu_id, r->len, r->page_size);
		if (r->base == NULL)
			return dm_fail(r->name, "gpu_mem_alloc", dm_errno(-1),
				"%zu bytes on gpu %d (%s, %" PRIu64 " bytes total)",
				r->len, r->gpu_id, info.name, info.total_memory);
		r->gpu_mem = true;
	}
	if ((uintptr_t)r->base % r->page_size != 0)
		return dm_fail(r->name,
			r->dmabuf_mem ? "dmabuf_import" : "gpu_mem_alloc", EINVAL,
			"gpu %d returned %p, not aligned to its page size %zu",
			r->gpu_id, r->base, r->page_size);

	/*
	 * With IOVA as VA a device sees the region at its virtual address;
	 * otherwise the region has no IOVA DPDK knows (GPU memory has no
	 * physical address in our reach) and mbufs carry RTE_BAD_IOVA.
	 */
	n_pages = r->len / r->page_size;
	r->iova = va ? (rte_iova_t)(uintptr_t)r->base : RTE_BAD_IOVA;
	if (va) {
		iovas = malloc(sizeof(*iovas) * n_pages);
		if (iovas == NULL)
			return dm_fail(r->name, "extmem_register", ENOMEM,
				"IOVA table of %u pages", n_pages);
		for (i = 0; i < n_pages; i++)
			iovas[i] = r->iova + (rte_iova_t)i * r->page_size;
	}
	rte_errno = 0;
	ret = rte_extmem_register(r->base, r->len, iovas, iovas ? n_pages : 0,
		r->page_size);
	free(iovas);
	if (ret < 0)
		return dm_fail(r->name, "extmem_register", dm_errno(ret),
			"[%p, +%zu) with page size %zu", r->base, r->len,
			r->page_size);
	r->extmem = true;
	return 0;
}

/* Step 3: let the port's device reach the region (an IOMMU mapping). */
static int
dm_dma_map(struct dt_devmem_region *r, struct rte_device *dev)
{
	int ret;

	/*
	 * The vdev bus returns 0 for a driver without dma_map (nothing to
	 * program); a bus or driver that cannot map at all answers ENOTSUP,
	 * and a NIC that cannot reach the memory is no use for the region.
	 */
	rte_errno = 0;
	ret = rte_dev_dma_map(dev, r->base, r->iova, r->len);
	if (ret != 0)
		return dm_fail(r->name, "dma_map", dm_errno(ret < 0 ? ret : -EIO),
			"[%p, +%zu) to port %u (device %s)%s", r->base, r->len,
			r->port_id, rte_dev_name(dev),
			rte_errno == ENOTSUP ? ": the device cannot map external memory" : "");
	r->dma_dev = dev;
	return 0;
}

/* Step 4: the copy engine of the window, entered in the registry. */
static int
dm_engine(struct dt_devmem_region *r, const struct dt_devmem_region_conf *conf)
{
	dt_devmem_engine_create_t create = conf->engine_create;
	int ret;

	if (create == NULL)
		create = dt_devmem_engine_create_default;
	rte_errno = 0;
	if (r->gpu_id == RTE_GPU_ID_NONE)
		r->engine = dt_copy_cpu_engine_create(r->base, r->len, r->base);
	else
		r->engine = create(r->gpu_id, r->base, r->len, conf->engine_arg);
	if (r->engine == NULL)
		return dm_fail(r->name, "copy engine", dm_errno(-1),
			"for [%p, +%zu) on %s %d", r->base, r->len,
			r->gpu_id == RTE_GPU_ID_NONE ? "host memory" : "gpu",
			r->gpu_id);
	ret = dt_copy_registry_add(r->engine);
	if (ret < 0)
		return dm_fail(r->name, "copy registry add", -ret,
			"engine %s for [%p, +%zu)", r->engine->ops->name,
			r->base, r->len);
	r->registered = true;
	return 0;
}

/* Step 5: the pinned external-buffer pool over the region. */
static int
dm_pool(struct dt_devmem_region *r, const struct dt_devmem_region_conf *conf,
	uint32_t elt_size)
{
	struct rte_pktmbuf_extmem ext = {
		.buf_ptr = r->base,
		.buf_iova = r->iova,
		.buf_len = r->len,
		.elt_size = elt_size,
	};

	rte_errno = 0;
	r->pool = rte_pktmbuf_pool_create_extbuf(r->name, conf->nb_bufs,
		conf->cache_size, 0, conf->buf_size, conf->socket_id, &ext, 1);
	if (r->pool == NULL)
		return dm_fail(r->name, "mempool create", dm_errno(-1),
			"pinned extbuf pool of %u x %u bytes (cache %u) over [%p, +%zu)",
			conf->nb_bufs, conf->buf_size, conf->cache_size,
			r->base, r->len);
	return 0;
}

/* Keep the first error of a teardown, log every one. */
static void
dm_note(const struct dt_devmem_region *r, int *first, const char *step, int ret)
{
	if (ret == 0)
		return;
	if (ret > 0)
		ret = -EIO;
	DM_LOG(ERR, "region %s: teardown: %s failed: %s", r->name, step,
		rte_strerror(-ret));
	if (*first == 0)
		*first = ret;
}

/* Undo whatever creation did, in reverse order; frees @p r. */
static int
dm_teardown(struct dt_devmem_region *r)
{
	int first = 0;

	if (r->cpu_map_refs != 0 && r->gpu_id != RTE_GPU_ID_NONE) {
		rte_errno = 0;
		dm_note(r, &first, "gpu_mem_cpu_unmap",
			rte_gpu_mem_cpu_unmap(r->gpu_id, r->base) < 0 ?
			-dm_errno(-1) : 0);
	}
	if (r->pool != NULL)
		rte_mempool_free(r->pool);
	if (r->registered)
		dm_note(r, &first, "copy registry del",
			dt_copy_registry_del(r->engine));
	dt_copy_engine_destroy(r->engine);
	if (r->dma_dev != NULL) {
		rte_errno = 0;
		dm_note(r, &first, "dma_unmap",
			rte_dev_dma_unmap(r->dma_dev, r->base, r->iova, r->len) != 0 ?
			-dm_errno(-1) : 0);
	}
	if (r->extmem) {
		rte_errno = 0;
		dm_note(r, &first, "extmem_unregister",
			rte_extmem_unregister(r->base, r->len) < 0 ?
			-dm_errno(-1) : 0);
	}
	if (r->gpu_mem) {
		rte_errno = 0;
		dm_note(r, &first, "gpu_mem_free",
			rte_gpu_mem_free(r->gpu_id, r->base) < 0 ?
			-dm_errno(-1) : 0);
	}
	if (r->dmabuf_mem) {
		dm_cuda_dmabuf_release_t release = dm_cuda_dmabuf_release_fn();

		dm_note(r, &first, "dmabuf_release", release != NULL ?
			release(r->gpu_id, r->base) : -ENOTSUP);
	}
	if (r->host_mz != NULL)
		dm_note(r, &first, "host memzone free",
			rte_memzone_free(r->host_mz));
	rte_free(r);
	if (first < 0)
		rte_errno = -first;
	return first;
}

int
dt_devmem_region_create(const struct dt_devmem_region_conf *conf,
	struct dt_devmem_region **region)
{
	struct dt_devmem_region *r;
	struct rte_device *dev;
	char where[32], port[32];
	uint32_t elt_size;
	int ret, err;

	if (conf == NULL || region == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	*region = NULL;
	ret = dm_check_conf(conf, &dev);
	if (ret < 0)
		return ret;
	r = rte_zmalloc_socket("dt_devmem_region", sizeof(*r), 0,
		conf->socket_id);
	if (r == NULL)
		return dm_fail(conf->name, "region allocation", ENOMEM,
			"%zu bytes of control data", sizeof(*r));
	strlcpy(r->name, conf->name, sizeof(r->name));
	r->gpu_id = conf->gpu_id;
	r->port_id = conf->port_id;
	/* Buffers on cache lines: DMA engines write whole lines. */
	elt_size = RTE_ALIGN_CEIL((uint32_t)conf->buf_size, RTE_CACHE_LINE_SIZE);

	if (r->gpu_id == RTE_GPU_ID_NONE)
		/* Host memory is DPDK memory: no extmem registration. */
		ret = dm_host_memory(r, (size_t)conf->nb_bufs * elt_size,
			conf->socket_id);
	else
		ret = dm_gpu_memory(r, (size_t)conf->nb_bufs * elt_size, conf);
	/*
	 * Map either kind to the port: the region has a copy engine, and a NIC
	 * modelling an IOMMU (net_hsplit) refuses windows not mapped to it.
	 */
	if (ret == 0 && dev != NULL)
		ret = dm_dma_map(r, dev);
	if (ret == 0)
		ret = dm_engine(r, conf);
	if (ret == 0)
		ret = dm_pool(r, conf, elt_size);
	if (ret < 0) {
		err = rte_errno;
		dm_teardown(r);
		rte_errno = err;
		return ret;
	}
	if (r->gpu_id == RTE_GPU_ID_NONE)
		snprintf(where, sizeof(where), "host memory");
	else
		snprintf(where, sizeof(where), "gpu %d", r->gpu_id);
	if (r->port_id == RTE_MAX_ETHPORTS)
		snprintf(port, sizeof(port), "no port");
	else
		snprintf(port, sizeof(port), "port %u", r->port_id);
	DM_LOG(INFO, "region %s: %u x %u-byte buffers in [%p, +%zu) on %s, %s, engine %s",
		r->name, conf->nb_bufs, conf->buf_size, r->base, r->len,
		where, port, r->engine->ops->name);
	*region = r;
	return 0;
}

int
dt_devmem_region_destroy(struct dt_devmem_region *r)
{
	unsigned int in_use;

	if (r == NULL)
		return 0;
	/* Freeing memory a NIC queue or the stack still holds would be a use after free. */
	in_use = rte_mempool_in_use_count(r->pool);
	if (in_use != 0) {
		DM_LOG(ERR, "region %s: destroy refused: %u mbuf(s) of pool %s still in use",
			r->name, in_use, r->pool->name);
		rte_errno = EBUSY;
		return -EBUSY;
	}
	return dm_teardown(r);
}

const char *
dt_devmem_region_name(const struct dt_devmem_region *r)
{
	return r->name;
}

struct rte_mempool *
dt_devmem_region_pool(const struct dt_devmem_region *r)
{
	return r->pool;
}

void *
dt_devmem_region_base(const struct dt_devmem_region *r)
{
	return r->base;
}

size_t
dt_devmem_region_len(const struct dt_devmem_region *r)
{
	return r->len;
}

uint64_t
dt_devmem_region_iova(const struct dt_devmem_region *r)
{
	return r->iova;
}

struct dt_copy_engine *
dt_devmem_region_engine(const struct dt_devmem_region *r)
{
	return r->engine;
}

int16_t
dt_devmem_region_gpu_id(const struct dt_devmem_region *r)
{
	return r->gpu_id;
}

uint16_t
dt_devmem_region_port_id(const struct dt_devmem_region *r)
{
	return r->port_id;
}

void *
dt_devmem_region_cpu_map(struct dt_devmem_region *r)
{
	void *alias;

	if (r->cpu_map_refs != 0) {
		r->cpu_map_refs++;
		return r->cpu_alias;
	}
	if (r->gpu_id == RTE_GPU_ID_NONE) {
		alias = r->base;
	} else {
		rte_errno = 0;
		alias = rte_gpu_mem_cpu_map(r->gpu_id, r->len, r->base);
		if (alias == NULL) {
			dm_fail(r->name, "gpu_mem_cpu_map", dm_errno(-1),
				"[%p, +%zu) on gpu %d", r->base, r->len,
				r->gpu_id);
			return NULL;
		}
	}
	r->cpu_alias = alias;
	r->cpu_map_refs = 1;
	return alias;
}

int
dt_devmem_region_cpu_unmap(struct dt_devmem_region *r)
{
	int ret;

	if (r->cpu_map_refs == 0) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (--r->cpu_map_refs != 0)
		return 0;
	r->cpu_alias = NULL;
	if (r->gpu_id == RTE_GPU_ID_NONE)
		return 0;
	rte_errno = 0;
	ret = rte_gpu_mem_cpu_unmap(r->gpu_id, r->base);
	if (ret < 0)
		return dm_fail(r->name, "gpu_mem_cpu_unmap", dm_errno(ret),
			"[%p, +%zu) on gpu %d", r->base, r->len, r->gpu_id);
	return 0;
}
