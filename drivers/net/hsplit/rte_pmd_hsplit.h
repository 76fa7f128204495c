/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Public API of the software header-split NIC (vdev net_hsplit) for
 * applications: wire counters, the port at the other end of a wire and the
 * wire-buffer pool.
 * Per-queue split counters are xstats (rx_q<N>_split_packets, ...).
 */
#ifndef RTE_PMD_HSPLIT_H
#define RTE_PMD_HSPLIT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mempool;

/** Driver name, as given to --vdev (net_hsplit0, net_hsplit_a, ...). */
#define RTE_PMD_HSPLIT_DRIVER_NAME "net_hsplit"

/** Wire counters of one port (its TX side unless said otherwise). */
struct rte_pmd_hsplit_wire_stats {
	uint64_t loss;        /**< frames dropped by injected loss */
	uint64_t dup;         /**< frames duplicated */
	uint64_t reorder;     /**< frames held back and sent after the next */
	uint64_t paced;       /**< packets tx_burst declined to keep the line rate */
	uint64_t peer_down;   /**< frames sent while the peer was absent or stopped */
	uint64_t rx_missed;   /**< RX side: frames dropped on a full RX ring */
	uint64_t rx_no_queue; /**< RX side: frames for a queue not set up */
};

/**
 * Read the wire counters of a net_hsplit port.
 * @param port_id     the port
 * @param[out] stats  its wire's counters
 * @return 0, -ENODEV (no such port), -ENOTSUP (not a net_hsplit port)
 */
int rte_pmd_hsplit_wire_stats_get(uint16_t port_id,
	struct rte_pmd_hsplit_wire_stats *stats);

/**
 * Port at the other end of the port's wire.
 * @param port_id  the port
 * @return the peer's port id, -ENOTCONN when the wire has no other end,
 *         -ENODEV, -ENOTSUP as above
 */
int rte_pmd_hsplit_peer_port(uint16_t port_id);

/**
 * The port's wire-buffer pool: host memory that holds each frame the port
 * sends while it crosses the wire, and so the source of the copies that the
 * peer's receive path makes into device memory (payload split) or into host
 * mbufs. An application whose copy engine needs host memory registered
 * (the CUDA engine: rte_pmd_gpu_cuda_mempool_register()) registers the
 * sender's pool for fast receive copies on the peer.
 *
 * The pool exists from probe until the port is closed (rte_eth_dev_close()
 * or device removal, including rte_eal_cleanup()); unregister it before.
 *
 * @param port_id  the sending port
 * @return the pool, or NULL with rte_errno ENODEV (no such port) or
 *         ENOTSUP (not a net_hsplit port)
 */
struct rte_mempool *rte_pmd_hsplit_wire_pool(uint16_t port_id);

/**
 * The interface backend's pool of wire buffers for coalesced (LRO) frames:
 * host memory that received payload is copied from, like the wire pool's,
 * and to be registered with a copy engine that needs it. It exists once
 * the port has started with RTE_ETH_RX_OFFLOAD_TCP_LRO, until the port is
 * closed.
 *
 * @param port_id  the port
 * @return the pool, or NULL with rte_errno ENOENT (no LRO pool: not an
 *         interface port, LRO off, or not started yet), ENODEV, ENOTSUP
 */
struct rte_mempool *rte_pmd_hsplit_lro_pool(uint16_t port_id);

/**
 * The interface backend's pool of wire buffers for TSO frames handed to
 * the kernel whole (GSO): host memory that transmit copies write, like the
 * wire pool's, and to be registered with a copy engine that needs it (the
 * CUDA engine gathers a burst into registered wire buffers with one
 * launch; into others it copies frame by frame). It exists once the port
 * has started with RTE_ETH_TX_OFFLOAD_TCP_TSO on an interface that takes
 * GSO frames, until the port is closed.
 *
 * @param port_id  the port
 * @return the pool, or NULL with rte_errno ENOENT (no GSO pool: not an
 *         interface port, TSO off, or not started yet), ENODEV, ENOTSUP
 */
struct rte_mempool *rte_pmd_hsplit_gso_pool(uint16_t port_id);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_HSPLIT_H */
