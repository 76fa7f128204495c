/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver-specific helpers of gpu_cuda: dma-buf export of device memory,
 * dma-buf import as device memory, and registration of mempool memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_memory.h>
#include <rte_mempool.h>

#include "gpu_cuda_priv.h"
#include "rte_pmd_gpu_cuda.h"

/* Checks that need only the table: alignment and "inside one allocation". */
static int
gpu_cuda_dmabuf_check(struct gpu_cuda_priv *p, int16_t dev_id, void *ptr,
	size_t size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int idx;

	if (size == 0 || (uintptr_t)ptr % pg != 0 || size % pg != 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: [%p, +%zu) must be a non-empty range aligned to the %zu-byte host page",
			ptr, size, pg);
		return -EINVAL;
	}
	rte_rwlock_read_lock(&p->lock);
	idx = gpu_cuda_ranges_find(&p->allocs, (uintptr_t)ptr, size);
	rte_rwlock_read_unlock(&p->lock);
	if (idx < 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: [%p, +%zu) is not inside one allocation of gpudev %d",
			ptr, size, dev_id);
		return -EINVAL;
	}
	if (!p->dmabuf_supported ||
			p->api.cuMemGetHandleForAddressRange == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: %s does not support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=0: needs Linux >= 5.12 and the open GPU kernel modules, or a driver with cuMemGetHandleForAddressRange)",
			p->gpu_name);
		return -ENOTSUP;
	}
	return 0;
}

int
rte_pmd_gpu_cuda_dmabuf_export(int16_t dev_id, void *ptr, size_t size,
	int *fd)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	int pushed, ret, handle = -1;
	CUresult res;

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_export: gpudev %d is not a gpu_cuda device",
			dev_id);
		return -ENODEV;
	}
	if (fd == NULL)
		return -EINVAL;
	ret = gpu_cuda_dmabuf_check(p, dev_id, ptr, size);
	if (ret != 0)
		return ret;
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	res = p->api.cuMemGetHandleForAddressRange(&handle,
		(CUdeviceptr)(uintptr_t)ptr, size,
		CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	gpu_cuda_ctx_leave(p, pushed);
	if (res != CUDA_SUCCESS || handle < 0) {
		GPU_CUDA_LOG(ERR, "cuMemGetHandleForAddressRange(%p, %zu, DMA_BUF_FD) failed: %s",
			ptr, size, gpu_cuda_strerror(&p->api, res));
		return res == CUDA_ERROR_NOT_SUPPORTED ? -ENOTSUP : -EIO;
	}
	*fd = handle;
	return 0;
}

/*
 * dma-buf import.
 *
 * The dma-buf is imported (cuImportExternalMemory, DMABUF_FD) and mapped
 * whole (cuExternalMemoryGetMappedBuffer); the mapping enters the
 * allocation table like rte_gpu_mem_alloc() memory, so copy engines, the
 * verification kernels and dmabuf_export accept it, but with its external
 * memory object set: rte_gpu_mem_free() refuses it.
 *
 * CUDA takes ownership of an OPAQUE_FD on import and documents nothing for
 * DMABUF_FD, so it is given a duplicate of the caller's fd: the caller's
 * stays theirs whatever CUDA does. Release closes the duplicate only when
 * the number still names the same file (CUDA did not close it).
 */

/* Whether @p fd is open and names the file (dev, ino). */
static int
gpu_cuda_fd_is(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev &&
		(uint64_t)st.st_ino == ino;
}

int
gpu_cuda_import_release(struct gpu_cuda_priv *p, const struct gpu_cuda_range *r)
{
	CUresult res;
	int ret = 0;

	res = p->api.cuMemFree(r->base);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "dmabuf_release: cuMemFree(%p) of the imported mapping failed: %s",
			(void *)r->start, gpu_cuda_strerror(&p->api, res));
		ret = -EIO;
	}
	res = p->api.cuDestroyExternalMemory(r->ext);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "dmabuf_release: cuDestroyExternalMemory(%p) failed: %s",
			(void *)r->start, gpu_cuda_strerror(&p->api, res));
		ret = -EIO;
	}
	if (gpu_cuda_fd_is(r->ext_fd, r->ext_dev, r->ext_ino))
		close(r->ext_fd);
	return ret;
}

/*
 * Size of the dma-buf behind @p fd: dma-bufs answer lseek(SEEK_END) with
 * their size without moving the file position; anything else that seeks
 * gets its position back. -1 when @p fd cannot tell.
 */
static off_t
gpu_cuda_fd_size(int fd)
{
	off_t cur = lseek(fd, 0, SEEK_CUR), end;

	end = lseek(fd, 0, SEEK_END);
	if (cur >= 0)
		lseek(fd, cur, SEEK_SET);
	return end;
}

static int
gpu_cuda_import_check(struct gpu_cuda_priv *p, int fd, size_t size,
	struct stat *st)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	off_t fsize;

	if (fd < 0 || fstat(fd, st) != 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: fd %d is not an open file descriptor",
			fd);
		return -EBADF;
	}
	if (size == 0 || size % pg != 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: size %zu must be a non-zero multiple of the %zu-byte host page",
			size, pg);
		return -EINVAL;
	}
	fsize = gpu_cuda_fd_size(fd);
	if (fsize < 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: fd %d cannot report its size (lseek SEEK_END: %s): not a dma-buf",
			fd, strerror(errno));
		return -EINVAL;
	}
	if ((uint64_t)fsize != (uint64_t)size) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: size %zu differs from the dma-buf's size %lld (fd %d): the whole buffer is mapped, give its size",
			size, (long long)fsize, fd);
		return -EINVAL;
	}
	if (p->api.cuImportExternalMemory == NULL ||
			p->api.cuExternalMemoryGetMappedBuffer == NULL ||
			p->api.cuDestroyExternalMemory == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: libcuda (driver %d) lacks cuImportExternalMemory/cuExternalMemoryGetMappedBuffer/cuDestroyExternalMemory",
			p->api.driver_version);
		return -ENOTSUP;
	}
	return 0;
}

/* CUDA status of cuImportExternalMemory to errno: refusals are -ENOTSUP. */
static int
gpu_cuda_import_errno(CUresult res)
{
	switch (res) {
	case CUDA_ERROR_NOT_SUPPORTED:
	case CUDA_ERROR_INVALID_VALUE:
	case CUDA_ERROR_INVALID_HANDLE:
	case CUDA_ERROR_OPERATING_SYSTEM:
		return -ENOTSUP;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

int
rte_pmd_gpu_cuda_dmabuf_import(int16_t dev_id, int fd, size_t size,
	void **ptr)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd;
	CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
	struct gpu_cuda_range r = { .ext_fd = -1 };
	CUexternalMemory ext = NULL;
	CUdeviceptr d = 0;
	struct stat st;
	int pushed, ret, dupfd;
	CUresult res;

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: gpudev %d is not a gpu_cuda device",
			dev_id);
		return -ENODEV;
	}
	if (ptr == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: ptr is NULL");
		return -EINVAL;
	}
	*ptr = NULL;
	ret = gpu_cuda_import_check(p, fd, size, &st);
	if (ret != 0)
		return ret;
	dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dupfd < 0) {
		ret = errno;
		GPU_CUDA_LOG(ERR, "dmabuf_import: dup of fd %d failed: %s", fd,
			strerror(ret));
		return -ret;
	}
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0) {
		close(dupfd);
		return ret;
	}
	memset(&hd, 0, sizeof(hd));
	hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD;
	hd.handle.fd = dupfd;
	hd.size = size;
	hd.flags = 0; /* must be zero for DMABUF_FD */
	res = p->api.cuImportExternalMemory(&ext, &hd);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: cuImportExternalMemory(fd %d, %zu bytes, DMABUF_FD) on %s failed: %s%s",
			fd, size, p->gpu_name, gpu_cuda_strerror(&p->api, res),
			gpu_cuda_import_errno(res) == -ENOTSUP ?
			" (the CUDA driver refuses dma-buf import here; CUDA 13 documents it for Tegra (Thor) only)" : "");
		ret = gpu_cuda_import_errno(res);
		/* Failed imports take no ownership. */
		close(dupfd);
		goto out;
	}
	memset(&bd, 0, sizeof(bd));
	bd.offset = 0;
	bd.size = size;
	bd.flags = 0;
	res = p->api.cuExternalMemoryGetMappedBuffer(&d, ext, &bd);
	if (res != CUDA_SUCCESS) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: cuExternalMemoryGetMappedBuffer(offset 0, %zu bytes) of fd %d failed: %s",
			size, fd, gpu_cuda_strerror(&p->api, res));
		ret = res == CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -EIO;
		goto undo;
	}
	r.start = (uintptr_t)d;
	r.len = size;
	r.base = d;
	r.ext = ext;
	r.ext_fd = dupfd;
	r.ext_dev = (uint64_t)st.st_dev;
	r.ext_ino = (uint64_t)st.st_ino;
	rte_rwlock_write_lock(&p->lock);
	ret = gpu_cuda_ranges_insert(&p->allocs, &r);
	rte_rwlock_write_unlock(&p->lock);
	if (ret != 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_import: mapping [%p, +%zu) overlaps an allocation of gpudev %d (%s)",
			(void *)d, size, dev_id, strerror(-ret));
		gpu_cuda_import_release(p, &r);
		goto out;
	}
	*ptr = (void *)d;
	goto out;
undo:
	p->api.cuDestroyExternalMemory(ext);
	if (gpu_cuda_fd_is(dupfd, (uint64_t)st.st_dev, (uint64_t)st.st_ino))
		close(dupfd);
out:
	gpu_cuda_ctx_leave(p, pushed);
	return ret;
}

int
rte_pmd_gpu_cuda_dmabuf_release(int16_t dev_id, void *ptr)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	struct gpu_cuda_range r = { .ext = NULL, .ext_fd = -1 };
	int idx, pushed, ret;

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_release: gpudev %d is not a gpu_cuda device",
			dev_id);
		return -ENODEV;
	}
	/* Context first: once out of the table, the mapping must be freed. */
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	rte_rwlock_write_lock(&p->lock);
	idx = gpu_cuda_ranges_find_exact(&p->allocs, (uintptr_t)ptr);
	if (idx >= 0 && p->allocs.v[idx].ext != NULL) {
		r = p->allocs.v[idx];
		gpu_cuda_ranges_remove(&p->allocs, (uint32_t)idx);
	}
	rte_rwlock_write_unlock(&p->lock);
	if (idx < 0) {
		GPU_CUDA_LOG(ERR, "dmabuf_release: %p is not an address returned by rte_pmd_gpu_cuda_dmabuf_import() on gpudev %d",
			ptr, dev_id);
		ret = -EINVAL;
	} else if (r.ext == NULL) {
		GPU_CUDA_LOG(ERR, "dmabuf_release: %p on gpudev %d came from rte_gpu_mem_alloc(): free it with rte_gpu_mem_free()",
			ptr, dev_id);
		ret = -EINVAL;
	} else {
		ret = gpu_cuda_import_release(p, &r);
	}
	gpu_cuda_ctx_leave(p, pushed);
	return ret;
}

/*
 * Shared host registrations.
 *
 * cuMemHostRegister pins whole pages and refuses a range that touches a page
 * already registered. Mempools, memzones and wire buffers of one process
 * share hugepages, so registering them chunk by chunk fails as soon as two
 * chunks meet in one page. These helpers register page-aligned ranges (in
 * the memory's own page size: DPDK hugepages are pinned as wholes), reuse
 * the pieces an earlier call already pinned, and count how many calls share
 * each piece, so that the last unregister unpins it.
 */

/* Page size of the memory at @p addr: its DPDK memseg list's, else the system's. */
static size_t
gpu_cuda_host_page(const void *addr)
{
	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(addr);
	long sz;

	if (msl != NULL && msl->page_sz != 0)
		return msl->page_sz;
	sz = sysconf(_SC_PAGESIZE);
	return sz > 0 ? (size_t)sz : 4096;
}

/* Page-aligned [*a, *b) covering [ptr, ptr + len). */
static void
gpu_cuda_host_span(const void *ptr, size_t len, uintptr_t *a, uintptr_t *b)
{
	size_t pg = gpu_cuda_host_page(ptr);

	*a = RTE_ALIGN_FLOOR((uintptr_t)ptr, pg);
	*b = RTE_ALIGN_CEIL((uintptr_t)ptr + len, pg);
}

/*
 * Drop one reference on every shared piece overlapping [a, b); unpin the
 * pieces no call uses any more. The lock is held, the context current.
 */
static int
gpu_cuda_host_release(struct gpu_cuda_priv *p, uintptr_t a, uintptr_t b)
{
	struct gpu_cuda_range *r;
	uint32_t f;
	CUresult res;
	int err = 0;

	/* Pieces are sorted and disjoint: skip those that end before a. */
	for (f = 0; f < p->regs.n &&
			p->regs.v[f].start + p->regs.v[f].len <= a; f++)
		;
	while (f < p->regs.n && p->regs.v[f].start < b) {
		r = &p->regs.v[f];
		/* refs 0: an rte_gpu_mem_register() range, not ours to drop. */
		if (r->refs == 0 || --r->refs != 0) {
			f++;
			continue;
		}
		res = p->api.cuMemHostUnregister((void *)r->start);
		if (res != CUDA_SUCCESS) {
			GPU_CUDA_LOG(ERR, "cuMemHostUnregister(%p) failed: %s",
				(void *)r->start, gpu_cuda_strerror(&p->api, res));
			err = -EIO;
		}
		gpu_cuda_ranges_remove(&p->regs, f);
	}
	return err;
}

/* Register [a, b) piece by piece; the lock is held, the context current. */
static int
gpu_cuda_host_acquire(struct gpu_cuda_priv *p, uintptr_t a, uintptr_t b)
{
	struct gpu_cuda_range r = { .refs = 1 };
	uintptr_t cur = a, end;
	int f, ret = 0;

	while (cur < b) {
		/* Last piece starting at or before cur, and the one after it. */
		for (f = (int)p->regs.n - 1; f >= 0 && p->regs.v[f].start > cur; f--)
			;
		if (f >= 0 && p->regs.v[f].start + p->regs.v[f].len > cur) {
			if (p->regs.v[f].refs == 0) {
				GPU_CUDA_LOG(ERR, "host_register: [%p, %p) overlaps %p (+%zu), registered with rte_gpu_mem_register()",
					(void *)a, (void *)b,
					(void *)p->regs.v[f].start,
					p->regs.v[f].len);
				ret = -EEXIST;
				break;
			}
			p->regs.v[f].refs++;
			cur = p->regs.v[f].start + p->regs.v[f].len;
			continue;
		}
		end = (uint32_t)(f + 1) < p->regs.n ?
			RTE_MIN(b, p->regs.v[f + 1].start) : b;
		r.start = cur;
		r.len = end - cur;
		ret = gpu_cuda_ranges_insert(&p->regs, &r);
		if (ret == 0) {
			ret = gpu_cuda_host_register(p, (void *)cur, end - cur);
			if (ret != 0)
				gpu_cuda_ranges_remove(&p->regs,
					gpu_cuda_ranges_find_exact(&p->regs, cur));
		}
		if (ret != 0)
			break;
		cur = end;
	}
	if (ret != 0 && cur > a)
		gpu_cuda_host_release(p, a, cur);
	return ret;
}

static int
gpu_cuda_host_op(int16_t dev_id, void *ptr, size_t len, int do_register)
{
	struct gpu_cuda_priv *p = gpu_cuda_priv_get(dev_id);
	uintptr_t a, b;
	int pushed, ret;

	if (p == NULL) {
		GPU_CUDA_LOG(ERR, "host_register: gpudev %d is not a gpu_cuda device",
			dev_id);
		return -ENODEV;
	}
	if (ptr == NULL || len == 0 || (uintptr_t)ptr + len < (uintptr_t)ptr)
		return -EINVAL;
	gpu_cuda_host_span(ptr, len, &a, &b);
	ret = gpu_cuda_ctx_enter(p, &pushed);
	if (ret != 0)
		return ret;
	/*
	 * Pinning takes the lock for a few milliseconds: this is a control-
	 * path call, and the copy engine's readers only wait, never fail.
	 */
	rte_rwlock_write_lock(&p->lock);
	ret = do_register ? gpu_cuda_host_acquire(p, a, b) :
		gpu_cuda_host_release(p, a, b);
	rte_rwlock_write_unlock(&p->lock);
	gpu_cuda_ctx_leave(p, pushed);
	return ret;
}

int
rte_pmd_gpu_cuda_host_register(int16_t dev_id, void *ptr, size_t len)
{
	return gpu_cuda_host_op(dev_id, ptr, len, 1);
}

int
rte_pmd_gpu_cuda_host_unregister(int16_t dev_id, void *ptr, size_t len)
{
	return gpu_cuda_host_op(dev_id, ptr, len, 0);
}

struct gpu_cuda_mp_walk {
	int16_t dev_id;
	int err;        /* first error */
	unsigned int n; /* chunks handled before the error */
	unsigned int limit;
	int do_register;
};

static void
gpu_cuda_mp_chunk(struct rte_mempool *mp, void *opaque,
	struct rte_mempool_memhdr *memhdr, unsigned int mem_idx)
{
	struct gpu_cuda_mp_walk *w = opaque;
	int ret;

	RTE_SET_USED(mp);
	/* Registering stops at the first failure; unregistering does all. */
	if ((w->do_register && w->err != 0) || mem_idx >= w->limit)
		return;
	ret = gpu_cuda_host_op(w->dev_id, memhdr->addr, memhdr->len,
		w->do_register);
	if (ret != 0 && w->err == 0)
		w->err = ret;
	else if (ret == 0)
		w->n++;
}

int
rte_pmd_gpu_cuda_mempool_register(int16_t dev_id, struct rte_mempool *mp)
{
	struct gpu_cuda_mp_walk w = {
		.dev_id = dev_id, .limit = UINT32_MAX, .do_register = 1,
	};
	struct gpu_cuda_mp_walk undo = { .dev_id = dev_id };

	if (gpu_cuda_priv_get(dev_id) == NULL) {
		GPU_CUDA_LOG(ERR, "mempool_register: gpudev %d is not a gpu_cuda device",
			dev_id);
		return -ENODEV;
	}
	if (mp == NULL)
		return -EINVAL;
	rte_mempool_mem_iter(mp, gpu_cuda_mp_chunk, &w);
	if (w.err == 0)
		return 0;
	GPU_CUDA_LOG(ERR, "mempool_register: chunk %u of mempool %s: %s",
		w.n, mp->name, rte_strerror(-w.err));
	/* mem_iter visits chunks in order: the first w.n were registered. */
	undo.limit = w.n;
	rte_mempool_mem_iter(mp, gpu_cuda_mp_chunk, &undo);
	return w.err;
}

int
rte_pmd_gpu_cuda_mempool_unregister(int16_t dev_id, struct rte_mempool *mp)
{
	struct gpu_cuda_mp_walk w = { .dev_id = dev_id, .limit = UINT32_MAX };

	if (gpu_cuda_priv_get(dev_id) == NULL)
		return -ENODEV;
	if (mp == NULL)
		return -EINVAL;
	rte_mempool_mem_iter(mp, gpu_cuda_mp_chunk, &w);
	return w.err;
}
