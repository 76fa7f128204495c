/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interface backend with TSO: a TSO frame goes to the kernel whole, as one
 * GSO frame (a virtio-net header with gso_type TCPV4 and gso_size before
 * it in the AF_PACKET TX ring, PACKET_VNET_HDR), which is what Linux's own
 * TCP hands a veth: it crosses whole when the interface has TSO on, and the
 * kernel segments it in software otherwise. Its checksums are complete
 * (the NIC model sums the whole frame in its host wire buffer), so the
 * header asks for none (no NEEDS_CSUM): the kernel's segmentation sums the
 * segments again when it cuts, and a receiver that takes the frame whole
 * (over veth, like a GRO frame) finds valid checksums.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <sys/socket.h>

#include <rte_mempool.h>

#include "hsplit_iface_gso.h"
#include "hsplit_private.h"

int
hsplit_gso_sock_enable(int fd)
{
	int one = 1;

	return setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one,
		sizeof(one)) < 0 ? -errno : 0;
}

bool
hsplit_gso_supported(void)
{
	int fd = socket(AF_PACKET, SOCK_RAW, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = hsplit_gso_sock_enable(fd) == 0;
	close(fd);
	return ok;
}

struct rte_mempool *
hsplit_gso_pool_create(uint16_t port_id)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "hsplit_gso_%u", port_id);
	return rte_mempool_create(name, HSPLIT_GSO_WBUFS,
		offsetof(struct hsplit_wbuf, data) + HSPLIT_GSO_MAX_FRAME,
		0, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0);
}

uint32_t
hsplit_gso_hdr_write(uint8_t *dst, const struct hsplit_wbuf *w)
{
	struct virtio_net_hdr h;

	memset(&h, 0, sizeof(h));
	if (w->gso_size != 0) {
		h.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		h.hdr_len = w->gso_hdr_len;
		h.gso_size = w->gso_size;
	}
	memcpy(dst, &h, sizeof(h));
	return sizeof(h);
}
