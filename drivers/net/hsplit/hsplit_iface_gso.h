/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * GSO frames on the interface backend (hsplit_iface_gso.c): what a TX
 * socket needs to hand the kernel a TSO frame whole.
 */
#ifndef HSPLIT_IFACE_GSO_H
#define HSPLIT_IFACE_GSO_H

#include <stdbool.h>
#include <stdint.h>

struct hsplit_wbuf;
struct rte_mempool;

/** Largest GSO frame: one IPv4 datagram and its Ethernet header. */
#define HSPLIT_GSO_MAX_FRAME (65535u + 14u)
/** Wire buffers of GSO frames per port. */
#define HSPLIT_GSO_WBUFS 256u
/** TX ring slots of a GSO socket at most (each HSPLIT_GSO_MAX_FRAME). */
#define HSPLIT_GSO_RING 256u
/** Bytes of the virtio-net header before every frame of a GSO socket. */
#define HSPLIT_GSO_HDR 10u

/** Whether the kernel takes PACKET_VNET_HDR (probe time). */
bool hsplit_gso_supported(void);

/** PACKET_VNET_HDR on AF_PACKET socket @p fd, before its ring. @return 0 or -errno */
int hsplit_gso_sock_enable(int fd);

/** The port's wire buffers for GSO frames, or NULL (rte_errno). */
struct rte_mempool *hsplit_gso_pool_create(uint16_t port_id);

/**
 * Write the virtio-net header of wire frame @p w (GSO when w->gso_size
 * is set, none otherwise) at @p dst.
 * @return its length, HSPLIT_GSO_HDR
 */
uint32_t hsplit_gso_hdr_write(uint8_t *dst, const struct hsplit_wbuf *w);

#endif /* HSPLIT_IFACE_GSO_H */
