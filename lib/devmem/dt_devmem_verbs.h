/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Can a NIC backed by a verbs (rdma-core) device DMA into a payload region?
 *
 * DPDK's mlx5 registers external memory (rte_dev_dma_map) with ibv_reg_mr.
 * For GPU memory that works only when the kernel can pin it for the RDMA
 * stack: nvidia-peermem for CUDA memory. rdma-core (v34+) also has
 * ibv_reg_dmabuf_mr, which takes the memory's dma-buf instead; DPDK 22.11's
 * mlx5 (and every release up to 26.07) never calls it, so its result is
 * advice: it tells whether a NIC driver that used dma-buf could reach the
 * memory, not whether the port can.
 *
 * The check finds the port's verbs device by PCI address (the name DPDK
 * gives a PCI device), opens it, allocates a PD and tries both
 * registrations, then undoes them. Its decision:
 *  - no verbs device for the port: not checked (net_hsplit, ice, ...);
 *  - ibv_reg_mr works: the NIC reaches the region (path "peermem");
 *  - ibv_reg_mr fails: refused, with the reason and the fix, whatever the
 *    dma-buf registration says (reported as advice).
 *
 * The verbs calls go through an ops table so that the decision is tested
 * with a fake verbs layer; dt_devmem_verbs_ibv_ops() is the real one.
 * This file's functions use no EAL.
 */
#ifndef DT_DEVMEM_VERBS_H
#define DT_DEVMEM_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest verbs device name kept (IBV_SYSFS_NAME_MAX is 64). */
#define DT_VERBS_NAME_MAX 64
/** Most verbs devices looked at. */
#define DT_VERBS_DEV_MAX 64

/** The verbs layer the check drives; @p ctx is the table's own state. */
struct dt_verbs_ops {
	/**
	 * Names of the verbs devices of the host.
	 * @return how many (0..max) were written to @p names, or a negative
	 *         errno when verbs is unusable (no kernel support: -ENOSYS);
	 *         *why then says why, in words.
	 */
	int (*devices)(void *ctx, char names[][DT_VERBS_NAME_MAX], int max,
		const char **why);
	/**
	 * PCI address (DDDD:BB:DD.F) of verbs device @p name.
	 * @return 0, or a negative errno (not a PCI device).
	 */
	int (*pci_addr)(void *ctx, const char *name, char *bdf, size_t len);
	/** Open @p name with a protection domain; NULL with *err set. */
	void *(*open)(void *ctx, const char *name, int *err);
	/** ibv_reg_mr then ibv_dereg_mr of [addr, +len); 0 or a negative errno. */
	int (*reg_mr)(void *ctx, void *dev, void *addr, size_t len);
	/** ibv_reg_dmabuf_mr then dereg of the whole @p fd; 0 or a negative errno. */
	int (*reg_dmabuf_mr)(void *ctx, void *dev, int fd, size_t len,
		uint64_t iova);
	/** Free what open made. */
	void (*close)(void *ctx, void *dev);
};

/** What the check decided. */
enum dt_verbs_verdict {
	DT_VERBS_NOT_CHECKED, /**< no verbs device for the port */
	DT_VERBS_OK,          /**< ibv_reg_mr reaches the region */
	DT_VERBS_REFUSED,     /**< the NIC cannot reach the region */
};

/** Registration results: 0 worked, a negative errno failed. */
#define DT_VERBS_NOT_TRIED 1

/** The check's findings. */
struct dt_verbs_report {
	/** What the check concluded. */
	enum dt_verbs_verdict verdict;
	/** verbs device of the port ("" when none). */
	char ibdev[DT_VERBS_NAME_MAX];
	/** ibv_reg_mr: 0, -errno, or DT_VERBS_NOT_TRIED. */
	int reg_mr;
	/** ibv_reg_dmabuf_mr: 0, -errno, or DT_VERBS_NOT_TRIED (no dma-buf). */
	int reg_dmabuf;
	/** One line for logs and reports: what was found, the reason, the fix. */
	char line[640];
};

/**
 * Run the check.
 *
 * @param ops, ctx   the verbs layer
 * @param port_id    ethdev port, for the report line
 * @param dev_name   the port's device name (a PCI address for a PCI port)
 * @param addr, len  the payload region as the NIC would DMA into it
 * @param dmabuf_fd  the region's dma-buf, or -1 when it has none
 * @param dmabuf_why why there is no dma-buf (dmabuf_fd -1), or NULL
 * @param[out] rep   the findings
 * @return 0 (DT_VERBS_OK or DT_VERBS_NOT_CHECKED), or -EFAULT
 *         (DT_VERBS_REFUSED; rep->line says why and what to do).
 */
int dt_verbs_check(const struct dt_verbs_ops *ops, void *ctx,
	uint16_t port_id, const char *dev_name, void *addr, size_t len,
	int dmabuf_fd, const char *dmabuf_why, struct dt_verbs_report *rep);

/**
 * The rdma-core verbs layer (libibverbs, sysfs).
 * @return its ops, or NULL when lib/devmem was built without libibverbs.
 */
const struct dt_verbs_ops *dt_devmem_verbs_ibv_ops(void);

#ifdef __cplusplus
}
#endif

#endif /* DT_DEVMEM_VERBS_H */
