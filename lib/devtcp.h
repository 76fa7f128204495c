/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * libdevtcp's umbrella header: everything a receiving or sending
 * application needs.
 *
 * - dt_dp_port.h: start a port with buffer split (headers in host mbufs,
 *   payload in a device-memory pool).
 * - dt_devmem.h: payload regions in device memory (gpudev), their pinned
 *   external-buffer pools and copy engines.
 * - dt_dp.h: the per-lcore TCP/IPv4 stack: listen, connect, events with
 *   payload chunks and tokens, release, send by reference.
 * - dt_tcp.h: the sans-IO TCP engine's settings (struct dt_tcp_cfg).
 *
 * Build against it with pkg-config: `pkg-config --cflags --libs libdevtcp`.
 * The software NIC and the GPU drivers are DPDK plugins installed in
 * `pkg-config --variable=pmddir libdevtcp`: pass `-d DIR` to EAL to load
 * them (a real NIC needs only DPDK's own PMD).
 */
#ifndef DEVTCP_H
#define DEVTCP_H

#include "devtcp_version.h"
#include "dt_dp_port.h"
#include "dt_devmem.h"
#include "dt_dp.h"
#include "dt_client.h"

#endif /* DEVTCP_H */
