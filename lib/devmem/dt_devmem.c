/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Payload regions: device (or host) memory made into a pinned
 * external-buffer mempool that a NIC can DMA into, with the copy engine
 * that is the only way to move its bytes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
#include "dt_devmem_provider.h"
#include "dt_devmem_verbs.h"

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
	bool dmabuf_mem;            /* base came from the provider's dmabuf_import */
	bool dmabuf_mmap;           /* host region: base is an mmap() of a dma-buf */
	/* The device's provider (NULL for a host region); its driver outlives the region. */
	const struct dt_devmem_provider_ops *prov;
	struct dt_verbs_report nic;  /* the verbs registration check */
	bool extmem;                /* rte_extmem_register() done */
	struct rte_device *dma_dev; /* rte_dev_dma_map() done to it */
	struct dt_copy_engine *engine;
	bool registered;            /* engine in the copy registry */
	struct rte_mempool *pool;
	void *cpu_alias;
	uint32_t cpu_map_refs;
};

/*
 * Report a failed step: log it with the region, the step and the reason,
 * set rte_errno, and return the negative errno for the caller to pass on.
 */
static int __rte_format_printf(4, 5)
dm_fail(const char *region, const char *step, int err, const char *fmt, ...)
{
	char detail[768];
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

/* The provider of @p gpu_id, logging what is missing when none registered. */
static const struct dt_devmem_provider_ops *
dm_provider(int16_t gpu_id, const char *what)
{
	const struct dt_devmem_provider_ops *prov = dt_devmem_provider_get(gpu_id);
	struct rte_gpu_info info;

	if (prov != NULL)
		return prov;
	if (rte_gpu_info_get(gpu_id, &info) < 0 || info.name == NULL)
		info.name = "?";
	DM_LOG(ERR, "no %s for device %d (%s): its driver registered no device-memory provider (dt_devmem_provider.h)",
		what, gpu_id, info.name);
	rte_errno = ENOTSUP;
	return NULL;
}

struct dt_copy_engine *
dt_devmem_engine_create_default(int16_t gpu_id, void *base, size_t len,
	void *arg)
{
	const struct dt_devmem_provider_ops *prov;
	struct dt_copy_engine *ce;

	RTE_SET_USED(arg);
	prov = dm_provider(gpu_id, "copy engine");
	if (prov == NULL)
		return NULL;
	rte_errno = 0;
	ce = prov->engine_create(gpu_id, base, len);
	if (ce == NULL) {
		if (rte_errno == 0)
			rte_errno = EIO;
		DM_LOG(ERR, "%s %d: copy engine for [%p, +%zu) failed: %s",
			prov->name, gpu_id, base, len, rte_strerror(rte_errno));
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
 * Size of a dma-buf: dma-bufs answer lseek SEEK_END without moving. It
 * must be a multiple of @p page and hold @p want bytes.
 */
static int
dm_dmabuf_size(struct dt_devmem_region *r, int fd, size_t want, size_t page,
	const char *step)
{
	off_t cur, end;

	cur = lseek(fd, 0, SEEK_CUR);
	end = lseek(fd, 0, SEEK_END);
	if (cur >= 0)
		lseek(fd, cur, SEEK_SET);
	if (end <= 0)
		return dm_fail(r->name, step, EINVAL,
			"fd %d: no size from lseek(SEEK_END) (%s): not a dma-buf?",
			fd, end < 0 ? strerror(errno) : "size 0");
	if ((size_t)end % page != 0 || (size_t)end < want)
		return dm_fail(r->name, step, EINVAL,
			"dma-buf fd %d has %lld bytes: must be a multiple of the page size %zu and hold the %zu bytes of buffers",
			fd, (long long)end, page, want);
	r->len = (size_t)end;
	return 0;
}

/*
 * Step 1 from a dma-buf on a device: the device's provider imports it
 * whole (CUDA: cuImportExternalMemory; any exporter's fd the driver and
 * memory allow).
 */
static int
dm_dmabuf_memory(struct dt_devmem_region *r, size_t want, int fd,
	const struct rte_gpu_info *info)
{
	int ret;

	if (r->prov->dmabuf_import == NULL || r->prov->dmabuf_release == NULL)
		return dm_fail(r->name, "dmabuf_import", ENOTSUP,
			"gpu %d (%s, driver %s) imports no dma-bufs",
			r->gpu_id, info->name != NULL ? info->name : "?",
			r->prov->name);
	ret = dm_dmabuf_size(r, fd, want, r->page_size, "dmabuf_import");
	if (ret < 0)
		return ret;
	ret = r->prov->dmabuf_import(r->gpu_id, fd, r->len, &r->base);
	if (ret < 0) {
		r->base = NULL;
		return dm_fail(r->name, "dmabuf_import", -ret,
			"fd %d, %zu bytes on gpu %d (see the %s log line)",
			fd, r->len, r->gpu_id, r->prov->name);
	}
	r->dmabuf_mem = true;
	return 0;
}

/*
 * Step 2: register the memory with EAL. With IOVA as VA a device sees the
 * region at its virtual address; otherwise the region has no IOVA DPDK
 * knows (device memory, or a dma-buf's pages, have no physical address in
 * our reach) and mbufs carry RTE_BAD_IOVA.
 */
static int
dm_extmem(struct dt_devmem_region *r)
{
	bool va = rte_eal_iova_mode() == RTE_IOVA_VA;
	unsigned int n_pages, i;
	rte_iova_t *iovas = NULL;
	int ret;

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

/*
 * Steps 1 and 2 of a host region from a dma-buf (udmabuf, or an exporter
 * whose buffer the CPU may map): mmap it whole and register the mapping.
 * Exporters that refuse mmap (CUDA's) need a device that imports them.
 */
static int
dm_dmabuf_host_memory(struct dt_devmem_region *r, size_t want, int fd)
{
	void *p;
	int ret;

	r->page_size = dm_sys_page_size();
	ret = dm_dmabuf_size(r, fd, want, r->page_size, "dmabuf mmap");
	if (ret < 0)
		return ret;
	p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return dm_fail(r->name, "dmabuf mmap", errno,
			"fd %d, %zu bytes: the exporter does not let the CPU map it; import it on its device instead (gpu_id)",
			fd, r->len);
	r->base = p;
	r->dmabuf_mmap = true;
	return dm_extmem(r);
}

/* Steps 1 and 2 (device region): gpudev memory, registered as extmem. */
static int
dm_gpu_memory(struct dt_devmem_region *r, size_t want,
	const struct dt_devmem_region_conf *conf)
{
	struct rte_gpu_info info;
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
	r->prov = dm_provider(r->gpu_id, "device-memory provider");
	if (r->prov == NULL)
		return dm_fail(r->name, "provider lookup", ENOTSUP,
			"gpu %d (%s)", r->gpu_id, info.name);
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
	return dm_extmem(r);
}

/*
 * Step 3a: can the port's NIC DMA into device memory? Only a port backed by
 * a verbs device is checked (dt_devmem_verbs.h); the dma-buf it tries is
 * the imported one, or one the provider exports for the check.
 */
static int
dm_nic_check(struct dt_devmem_region *r,
	const struct dt_devmem_region_conf *conf, struct rte_device *dev)
{
	const struct dt_verbs_ops *ops = conf->verbs_ops != NULL ?
		conf->verbs_ops : dt_devmem_verbs_ibv_ops();
	const char *why = NULL;
	int fd = -1, own_fd = -1;
	int ret;

	if (r->dmabuf_mem) {
		fd = conf->dmabuf_fd;
	} else if (r->prov->dmabuf_export == NULL) {
		why = "the GPU driver exports no dma-buf";
	} else {
		ret = r->prov->dmabuf_export(r->gpu_id, r->base, r->len, &own_fd);
		if (ret < 0) {
			own_fd = -1;
			why = "the GPU driver could not export a dma-buf of it";
		}
		fd = own_fd;
	}
	ret = dt_verbs_check(ops, conf->verbs_ctx, r->port_id,
		rte_dev_name(dev), r->base, r->len, fd, why, &r->nic);
	if (own_fd >= 0)
		close(own_fd);
	if (ret < 0)
		return dm_fail(r->name, "NIC registration check", -ret, "%s",
			r->nic.line);
	DM_LOG(INFO, "region %s: %s", r->name, r->nic.line);
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

/* Drop the CPU alias: the provider's, or gpudev's. 0 or a negative errno. */
static int
dm_cpu_unmap(struct dt_devmem_region *r)
{
	int ret;

	if (r->prov != NULL && r->prov->cpu_map != NULL)
		return r->prov->cpu_unmap != NULL ?
			r->prov->cpu_unmap(r->gpu_id, r->base) : 0;
	ret = rte_gpu_mem_cpu_unmap(r->gpu_id, r->base);
	return ret < 0 ? -dm_errno(ret) : 0;
}

/* Undo whatever creation did, in reverse order; frees @p r. */
static int
dm_teardown(struct dt_devmem_region *r)
{
	int first = 0;

	if (r->cpu_map_refs != 0 && r->gpu_id != RTE_GPU_ID_NONE) {
		rte_errno = 0;
		dm_note(r, &first, "gpu_mem_cpu_unmap", dm_cpu_unmap(r));
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
	if (r->dmabuf_mem)
		dm_note(r, &first, "dmabuf_release",
			r->prov->dmabuf_release(r->gpu_id, r->base));
	if (r->dmabuf_mmap && munmap(r->base, r->len) != 0)
		dm_note(r, &first, "dmabuf munmap", -errno);
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

	if (r->gpu_id == RTE_GPU_ID_NONE && conf->dmabuf)
		ret = dm_dmabuf_host_memory(r, (size_t)conf->nb_bufs * elt_size,
			conf->dmabuf_fd);
	else if (r->gpu_id == RTE_GPU_ID_NONE)
		/* Host memory is DPDK memory: no extmem registration. */
		ret = dm_host_memory(r, (size_t)conf->nb_bufs * elt_size,
			conf->socket_id);
	else
		ret = dm_gpu_memory(r, (size_t)conf->nb_bufs * elt_size, conf);
	/* Device memory behind a verbs NIC: refuse what the NIC cannot reach. */
	if (ret == 0 && dev != NULL && r->gpu_id != RTE_GPU_ID_NONE)
		ret = dm_nic_check(r, conf, dev);
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
		alias = r->prov->cpu_map != NULL ?
			r->prov->cpu_map(r->gpu_id, r->base, r->len) :
			rte_gpu_mem_cpu_map(r->gpu_id, r->len, r->base);
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
	ret = dm_cpu_unmap(r);
	if (ret < 0)
		return dm_fail(r->name, "gpu_mem_cpu_unmap", dm_errno(ret),
			"[%p, +%zu) on gpu %d", r->base, r->len, r->gpu_id);
	return 0;
}

const char *
dt_devmem_region_provider(const struct dt_devmem_region *r)
{
	if (r->gpu_id == RTE_GPU_ID_NONE)
		return r->dmabuf_mmap ? "host (dma-buf)" : "host";
	return r->prov->name;
}

const struct dt_verbs_report *
dt_devmem_region_nic_check(const struct dt_devmem_region *r)
{
	return r->nic.line[0] != '\0' ? &r->nic : NULL;
}

int
dt_devmem_region_dmabuf_export(const struct dt_devmem_region *r, int *fd)
{
	int ret;

	if (fd == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (r->gpu_id == RTE_GPU_ID_NONE || r->prov->dmabuf_export == NULL)
		return dm_fail(r->name, "dmabuf_export", ENOTSUP,
			"%s exports no dma-buf", dt_devmem_region_provider(r));
	ret = r->prov->dmabuf_export(r->gpu_id, r->base, r->len, fd);
	if (ret < 0)
		return dm_fail(r->name, "dmabuf_export", -ret,
			"[%p, +%zu) on gpu %d (%s)", r->base, r->len, r->gpu_id,
			r->prov->name);
	return 0;
}

/* The host-registration hook of @p gpu_id's provider, or NULL. */
static int
dm_host_op(int16_t gpu_id, void *ptr, size_t len, bool reg)
{
	const struct dt_devmem_provider_ops *prov;
	int ret;

	prov = dm_provider(gpu_id, "device-memory provider");
	if (prov == NULL)
		return -ENOTSUP;
	if (reg && prov->host_register != NULL)
		ret = prov->host_register(gpu_id, ptr, len);
	else if (!reg && prov->host_unregister != NULL)
		ret = prov->host_unregister(gpu_id, ptr, len);
	else
		return 0; /* the device reaches host memory as it is */
	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

int
dt_devmem_host_register(int16_t gpu_id, void *ptr, size_t len)
{
	return dm_host_op(gpu_id, ptr, len, true);
}

int
dt_devmem_host_unregister(int16_t gpu_id, void *ptr, size_t len)
{
	return dm_host_op(gpu_id, ptr, len, false);
}
