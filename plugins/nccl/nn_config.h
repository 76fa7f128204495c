/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The plugin's configuration file (DEVTCP_NCCL_CONFIG), read with
 * devtcp-server's INI conventions (app/common/dt_app_ini.h). Pure C.
 *
 * Sections and keys (plugins/nccl/nccl-net.ini documents each one):
 *  - [eal]: args = the EAL command line (overridden by DEVTCP_NCCL_EAL);
 *  - [port]: name (ethdev name, e.g. net_hsplit0 or a PCI address), mtu,
 *    rxd, txd, tx_cksum, lro (default no);
 *  - [lcores]: stacks = lcore list, one TCP stack per lcore;
 *  - [stack]: ipv4, netmask, gateway;
 *  - [devmem]: gpu = auto | host | gpudev name or id, buffers, buffer_size,
 *    header_buffers;
 *  - [limits]: window, max_conns, txq_cap, retries, rto_max (ms),
 *    keepalive, keepalive_idle, keepalive_intvl (ms), keepalive_probes;
 *  - [nccl]: flows (TCP flows per comm), port_base (first listen port),
 *    speed (Mb/s reported to NCCL; 0: the link's), ptr = auto | host | cuda,
 *    send_engine = shared | per_buffer (CUDA send buffers: one copy
 *    engine for all, or one each), cuda_batch = yes | no (default no:
 *    CUDA copies one call each, not cuMemcpyBatchAsync, which faulted in
 *    NCCL's processes on the H200 with several stacks), unpack = no | yes |
 *    harness (default no; yes: NCCL's kernel copies received chunks out of
 *    the payload region, NCCL_NET_DEVICE_UNPACK, CUDA regions only, needs
 *    NCCL_PROTO=Simple; harness: on gpu_sim too, for a test harness that
 *    plays NCCL's kernel: a real NCCL would get host pointers),
 *    connect_timeout (ms), stall_report (ms; 0 off), pci_path = auto | none | /sys path (what NCCL's
 *    topology is told; auto: the PCI NIC, the Linux interface's device, or
 *    for a vdev the GPU the payload lands in).
 */
#ifndef NN_CONFIG_H
#define NN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NN_MAX_STACKS 8
#define NN_NAME_MAX 64
#define NN_EAL_MAX 1024
/** Largest [limits] txq_cap: a flow tracks that many sends (nn.h). */
#define NN_FLOW_TXQ_CAP 1000

/** [nccl] rail, plane not given. */
#define NN_CFG_ID_UNSET UINT16_MAX

/** Pointer kinds offered to NCCL. */
enum nn_ptr_mode {
	NN_PTR_MODE_AUTO,   /**< CUDA when the region is on a CUDA GPU, else host */
	NN_PTR_MODE_HOST,
	NN_PTR_MODE_CUDA,
};

/** CUDA send buffers: one copy engine for all (one stream per TX queue), or one each. */
enum nn_send_engine {
	NN_SEND_ENGINE_SHARED,
	NN_SEND_ENGINE_PER_BUFFER,
};

/**
 * NCCL's device-side unpack: off, on a CUDA region, on any (a harness
 * playing NCCL's kernel), or on a CUDA region when NCCL's settings allow
 * it (nn_unpack_choose()).
 */
enum nn_unpack_mode {
	NN_UNPACK_NO,
	NN_UNPACK_YES,
	NN_UNPACK_HARNESS,
	NN_UNPACK_AUTO,
};

struct nn_config {
	char path[256];
	char eal[NN_EAL_MAX];
	char port_name[NN_NAME_MAX];
	uint16_t mtu, rxd, txd;
	bool tx_cksum;
	bool lro;                    /* take coalesced frames (NIC LRO / HW-GRO) */
	uint16_t lcores[NN_MAX_STACKS];
	uint16_t nb_stacks;          /**< 0: one stack on the first worker */
	uint32_t ipv4, netmask, gateway; /**< network order */
	char gpu[NN_NAME_MAX];
	uint32_t buffers, buffer_size, header_buffers;
	uint32_t window, max_conns, txq_cap, retries, rto_max_ms;
	bool keepalive;
	uint32_t keepalive_idle_ms, keepalive_intvl_ms, keepalive_probes;
	uint16_t flows, port_base;
	uint32_t speed;
	enum nn_ptr_mode ptr;
	enum nn_send_engine send_engine;
	bool cuda_batch;             /* CUDA copies through cuMemcpyBatchAsync */
	enum nn_unpack_mode unpack;  /* offer NCCL's device-side unpack */
	uint32_t connect_timeout_ms;
	uint32_t stall_report_ms;    /* a request pending this long is logged; 0: off */
	bool profile;                /* time each step of the stack lcores' loop */
	uint16_t rail, plane;        /* NCCL's railId/planeId (v12); NN_CFG_ID_UNSET: none */
	char pci_path[256];
};

/** Defaults of every key. */
void nn_config_default(struct nn_config *cfg);

/**
 * Read @p path into @p cfg (defaults first).
 * @return 0, or a negative errno with a message naming file, line and key.
 */
int nn_config_load(const char *path, struct nn_config *cfg, char *err,
	size_t errlen);

#endif /* NN_CONFIG_H */
