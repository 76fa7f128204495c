/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interface backend with LRO: the interface's GRO (devarg iface_gro=).
 *
 * Why: received over a veth, every frame the Linux sender's TCP sends costs
 * the kernel a trip through the receive path before devtcp sees it (veth,
 * the backlog, AF_PACKET's tpacket_rcv copy into the ring, then the root
 * namespace's IP stack, which routes the frame to an error and drops it),
 * and devtcp a drain, a parse and a checksum. With GRO on, a veth runs NAPI
 * and the kernel coalesces a flow's segments into frames of up to 64 KiB
 * before any of that: one trip, one ring slot and one ingress per 40-odd
 * MTU frames. The port takes such frames whole through its LRO, as from a
 * NIC's HW-GRO (bench/results/2026-12-02-rx-vm: the kernel time per byte
 * of a veth receive fell by three quarters on the VM).
 *
 * So, with RX LRO enabled on the port and iface_gro=on (the default), port
 * start turns the interface's GRO on (SIOCETHTOOL, ETHTOOL_SGRO; needs
 * CAP_NET_ADMIN, else a warning and the interface as it was) and port stop
 * turns it off again if start was what turned it on. Without LRO (or with a
 * max_lro_pkt_size below 64 KiB) nothing changes: coalesced frames would
 * not fit the ring's slots, or the port would drop them; nor with RX faults
 * (they model a wire of MTU frames).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "hsplit_iface_priv.h"

/* ETHTOOL_GGRO / ETHTOOL_SGRO on @p name: *val in or out. */
static int
gro_ioctl(const char *name, uint32_t cmd, uint32_t *val)
{
	struct ethtool_value ev = { .cmd = cmd, .data = *val };
	struct ifreq ifr;
	int fd, r, err;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = (void *)&ev;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, SIOCETHTOOL, &ifr);
	err = errno;
	close(fd);
	if (r < 0)
		return -err;
	*val = ev.data;
	return 0;
}

void
hsplit_iface_gro_start(struct hsplit_port *p, struct hsplit_iface *ifc)
{
	uint32_t on = 0;
	int ret;

	ifc->gro_set = 0;
	if (!ifc->lro || p->da.iface_gro_off)
		return;
	/*
	 * rx_loss=, rx_dup=, rx_reorder=, rx_corrupt= stand in for a faulty
	 * wire of MTU frames: on 64 KiB frames they would lose or reorder
	 * ~45 segments at once (a whole window of a peer without window
	 * scaling), another fault model than the one asked for.
	 */
	if (p->rx_loss_thr | p->rx_dup_thr | p->rx_reorder_thr | p->rx_corrupt_thr) {
		HSPLIT_LOG(INFO, "port %u: GRO on %s left as it is: RX faults act on wire frames",
			p->port_id, ifc->name);
		return;
	}
	/*
	 * GRO builds frames up to an IPv4 total length of 64 KiB: with a
	 * smaller max_lro_pkt_size the port would drop them, where without GRO
	 * the same segments come through one by one.
	 */
	if (p->max_lro < 65535u + RTE_ETHER_HDR_LEN) {
		HSPLIT_LOG(INFO, "port %u: GRO on %s left as it is: max_lro_pkt_size %u is below the 64 KiB frames it builds",
			p->port_id, ifc->name, p->max_lro);
		return;
	}
	ret = gro_ioctl(ifc->name, ETHTOOL_GGRO, &on);
	if (ret == 0 && on)
		return;
	on = 1;
	if (ret == 0)
		ret = gro_ioctl(ifc->name, ETHTOOL_SGRO, &on);
	if (ret < 0) {
		HSPLIT_LOG(WARNING, "port %u: GRO on %s not turned on (%s): each MTU frame costs a kernel trip (iface_gro=off silences this)",
			p->port_id, ifc->name, strerror(-ret));
		return;
	}
	ifc->gro_set = 1;
	HSPLIT_LOG(INFO, "port %u: GRO on %s turned on while the port runs (coalesced frames by LRO; iface_gro=off leaves it)",
		p->port_id, ifc->name);
}

void
hsplit_iface_gro_stop(struct hsplit_iface *ifc)
{
	uint32_t off = 0;

	if (!ifc->gro_set)
		return;
	ifc->gro_set = 0;
	/* Gone with its namespace, or taken back by its owner: nothing to undo. */
	(void)gro_ioctl(ifc->name, ETHTOOL_SGRO, &off);
}
