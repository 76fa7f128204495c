/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux-interface backend: AF_PACKET sockets with TPACKET_V2 rings (see
 * hsplit_iface.h for the model). This file opens and closes the sockets and
 * their rings and runs the port's control (probe, start, stop, promiscuous
 * mode, link); the data path is hsplit_iface_rx.c's and hsplit_iface_tx.c's,
 * the counters hsplit_iface_stats.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>
#include <rte_spinlock.h>

#include "hsplit_iface_priv.h"

static int
ctl_ioctl(const char *name, unsigned long req, struct ifreq *ifr)
{
	int fd, r, err;

	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", name);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, req, ifr);
	err = errno;
	close(fd);
	return r < 0 ? -err : 0;
}

static int
iface_mtu(const char *name, uint32_t *mtu)
{
	struct ifreq ifr;
	int r = ctl_ioctl(name, SIOCGIFMTU, &ifr);

	if (r == 0)
		*mtu = (uint32_t)ifr.ifr_mtu;
	return r;
}

uint32_t
hsplit_iface_mtu(struct hsplit_port *p)
{
	uint32_t mtu;

	if (p->iface == NULL)
		return 0;
	/* Not the fast path: ask the kernel each time (the MTU may change). */
	if (iface_mtu(p->iface->name, &mtu) == 0)
		p->iface->mtu = mtu;
	return p->iface->mtu;
}

static void
ring_unmap(struct iface_ring *r)
{
	if (r->map != NULL)
		munmap(r->map, r->map_len);
	rte_free(r->slot);
	memset(r, 0, sizeof(*r));
}

/*
 * Ask for a ring of at least @p nb frames of @p frame_min bytes on @p fd
 * (PACKET_RX_RING or PACKET_TX_RING) and map it.
 */
static int
ring_map(int fd, int opt, uint32_t frame_min, uint32_t nb, struct iface_ring *r)
{
	struct tpacket_req req;
	uint32_t fsz, block, fpb, nblk, i;
	long page = sysconf(_SC_PAGESIZE);

	fsz = RTE_ALIGN_CEIL(frame_min, TPACKET_ALIGNMENT);
	block = RTE_MAX(IFACE_BLOCK, (uint32_t)page);
	/* Blocks are power-of-two page runs: big frames want several a block. */
	while (block < fsz || (fsz > IFACE_BLOCK / 4 && block < 8 * fsz))
		block <<= 1;
	fpb = block / fsz;
	nblk = (nb + fpb - 1) / fpb;
	req = (struct tpacket_req){ .tp_block_size = block,
		.tp_block_nr = nblk, .tp_frame_size = fsz,
		.tp_frame_nr = nblk * fpb };
	if (setsockopt(fd, SOL_PACKET, opt, &req, sizeof(req)) < 0)
		return -errno;
	r->map_len = (size_t)block * nblk;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->nb = req.tp_frame_nr;
	r->frame_size = fsz;
	r->head = 0;
	r->slot = rte_malloc("hsplit_iface_slots", sizeof(r->slot[0]) * r->nb, 0);
	if (r->slot == NULL) {
		munmap(r->map, r->map_len);
		r->map = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < r->nb; i++)
		r->slot[i] = r->map + (size_t)(i / fpb) * block +
			(size_t)(i % fpb) * fsz;
	return 0;
}

static int
sock_v2(const char *what, const char *ifname)
{
	int fd, v = TPACKET_V2, err;

	/* Protocol 0: the socket sees nothing until bind() names the interface. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		HSPLIT_LOG(ERR, "iface %s: %s socket: %s%s", ifname, what,
			strerror(err), err == EPERM ? " (needs CAP_NET_RAW)" : "");
		return -err;
	}
	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0) {
		err = errno;
		HSPLIT_LOG(ERR, "iface %s: TPACKET_V2: %s", ifname, strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

static int
sock_bind(int fd, unsigned int ifindex, uint16_t proto)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = (int)ifindex,
	};

	return bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ? -errno : 0;
}

/* Fold the kernel's counters in (reading them resets them). */
void
hsplit_iface_rx_kstats(struct iface_rx *x)
{
	struct tpacket_stats ks;
	socklen_t len = sizeof(ks);

	/* Descriptors are the primary process's. */
	if (x->fd >= 0 && rte_eal_process_type() == RTE_PROC_PRIMARY &&
			getsockopt(x->fd, SOL_PACKET, PACKET_STATISTICS, &ks, &len) == 0)
		__atomic_fetch_add(&x->kdrops, ks.tp_drops, __ATOMIC_RELAXED);
}

static int
set_promisc(const struct hsplit_iface *ifc, struct iface_rx *x, int on)
{
	struct packet_mreq mr = { .mr_ifindex = (int)ifc->ifindex,
		.mr_type = PACKET_MR_PROMISC };

	if (setsockopt(x->fd, SOL_PACKET, on ? PACKET_ADD_MEMBERSHIP :
			PACKET_DROP_MEMBERSHIP, &mr, sizeof(mr)) < 0)
		return -errno;
	x->promisc = !!on;
	return 0;
}

static void
rx_close_one(struct iface_rx *x)
{
	rte_spinlock_lock(&x->lock);
	if (x->fd >= 0) {
		hsplit_iface_rx_kstats(x);
		ring_unmap(&x->r);
		close(x->fd);
		x->fd = -1;
		x->promisc = 0;  /* memberships go with the socket */
	}
	if (x->held != NULL) {
		/* A frame held for reordering when the port stopped: lost. */
		rte_mempool_put(rte_mempool_from_obj(x->held), x->held);
		x->held = NULL;
	}
	rte_spinlock_unlock(&x->lock);
}

static void
rx_close(struct hsplit_iface *ifc)
{
	uint16_t s;

	for (s = 0; s < HSPLIT_MAX_QUEUES; s++)
		rx_close_one(&ifc->rx[s]);
	ifc->nb_rx = 0;
}

/*
 * Join socket @p s to the port's fanout group (hash of the flow: a flow
 * stays on one socket). The first socket asks the kernel for a group id
 * no one else in the namespace uses; the others join it.
 */
static int
rx_fanout(struct hsplit_iface *ifc, uint16_t s, uint32_t *id)
{
	int fd = ifc->rx[s].fd, arg;
	socklen_t len = sizeof(arg);

	arg = s == 0 ? (int)((PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_UNIQUEID) << 16) :
		(int)(*id | (PACKET_FANOUT_HASH << 16));
	if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg)) < 0)
		return -errno;
	if (s == 0) {
		if (getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &arg, &len) < 0)
			return -errno;
		*id = (uint32_t)arg & 0xffffu;
	}
	return 0;
}

/*
 * Drop everything (@p drop, a one-instruction classic BPF program) or take
 * everything again (the filter detached).
 */
static int
rx_filter(struct iface_rx *x, int drop)
{
	struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &none };
	int dummy = 0;

	if (drop)
		return setsockopt(x->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			sizeof(prog)) < 0 ? -errno : 0;
	return setsockopt(x->fd, SOL_SOCKET, SO_DETACH_FILTER, &dummy,
		sizeof(dummy)) < 0 ? -errno : 0;
}

static int
rx_open_one(struct hsplit_port *p, struct hsplit_iface *ifc, struct iface_rx *x,
	uint32_t max_frame, uint32_t nb, int quiet)
{
	int fd, one = 1, ret;

	fd = sock_v2("RX", ifc->name);
	if (fd < 0)
		return fd;
	x->fd = fd;
	/* Joining a fanout group: nothing until every socket has joined. */
	if (quiet && (ret = rx_filter(x, 1)) < 0)
		HSPLIT_LOG(DEBUG, "iface %s: no drop-all filter while joining: %s",
			ifc->name, strerror(-ret));
	/* Frames this host sends on the interface are not received (kernel >= 4.20; else skipped by sll_pkttype). */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0)
		HSPLIT_LOG(DEBUG, "iface %s: no PACKET_IGNORE_OUTGOING: %s",
			ifc->name, strerror(errno));
	ret = ring_map(fd, PACKET_RX_RING, IFACE_RX_MACOFF + max_frame,
		nb, &x->r);
	if (ret < 0) {
		HSPLIT_LOG(ERR, "iface %s: RX ring of %u frames of %u bytes: %s",
			ifc->name, nb, IFACE_RX_MACOFF + max_frame,
			strerror(-ret));
		close(fd);
		x->fd = -1;
		return ret;
	}
	/*
	 * ethdev's promiscuous flag survives stop/start; the membership does
	 * not. The first socket holds it for the port: the device is then
	 * promiscuous for every socket of the group.
	 */
	if (p->data->promiscuous && x == &ifc->rx[0]) {
		ret = set_promisc(ifc, x, 1);
		if (ret < 0)
			HSPLIT_LOG(WARNING, "iface %s: promiscuous membership: %s",
				ifc->name, strerror(-ret));
	}
	ret = sock_bind(fd, ifc->ifindex, ETH_P_ALL);
	if (ret < 0) {
		HSPLIT_LOG(ERR, "iface %s: bind: %s", ifc->name, strerror(-ret));
		ring_unmap(&x->r);
		close(fd);
		x->fd = -1;
		x->promisc = 0;  /* the membership went with the socket */
		return ret;
	}
	return 0;
}

/*
 * The RX sockets: iface_rx_sockets= of them (0: one per RX queue), in a
 * fanout group when more than one, so that several queues drain the
 * interface at once. Each ring gets 2 x iface_ring / sockets frames (at
 * least IFACE_RING_MIN): a hash spreads flows unevenly.
 */
static int
rx_open(struct hsplit_port *p, struct hsplit_iface *ifc, uint32_t max_frame)
{
	uint32_t nb = p->da.iface_ring, nb1 = nb, id = 0;
	uint16_t ns, s;
	int ret;

	RTE_BUILD_BUG_ON(HSPLIT_IFACE_RX_SOCKETS_MAX > HSPLIT_MAX_QUEUES);
	/* More sockets than queues would be drained by the rotation only. */
	ns = p->da.iface_rx_sockets ? p->da.iface_rx_sockets :
		p->data->nb_rx_queues;
	ns = RTE_MAX((uint16_t)1, RTE_MIN(ns, p->data->nb_rx_queues));
	if (ns > 1)
		nb = RTE_MAX(2 * nb / ns, RTE_MIN(nb, IFACE_RING_MIN));
	if (ifc->lro) {
		/* 64 KiB slots: the sockets share what one ring would have. */
		max_frame = RTE_MAX(max_frame, (uint32_t)HSPLIT_LRO_MAX_FRAME);
		nb1 = RTE_MIN(nb1, IFACE_LRO_RING);
		nb = ns > 1 ? RTE_MIN(nb, RTE_MAX(2 * IFACE_LRO_RING / ns, 256u)) :
			nb1;
	}
	/*
	 * A socket is bound before it can join the group, and the group
	 * re-spreads flows as it grows: the sockets take nothing (a drop-all
	 * filter) until all have joined, so no frame is received twice or
	 * overtakes its flow's earlier frames; what arrives in that moment of
	 * port start is lost, as on a NIC that is still starting.
	 */
	for (s = 0; s < ns; s++) {
		ret = rx_open_one(p, ifc, &ifc->rx[s], max_frame, nb, ns > 1);
		if (ret == 0 && ns > 1) {
			ret = rx_fanout(ifc, s, &id);
			if (ret < 0) {
				/* A kernel without fanout (or its unique ids): one socket. */
				HSPLIT_LOG(WARNING, "iface %s: RX socket %u of %u: fanout group: %s; one RX socket instead",
					ifc->name, s, ns, strerror(-ret));
				rx_close(ifc);
				ret = rx_open_one(p, ifc, &ifc->rx[0], max_frame,
					nb1, 0);
				if (ret == 0)
					ifc->nb_rx = 1;
				return ret;
			}
		}
		if (ret < 0) {
			rx_close(ifc);
			return ret;
		}
		ifc->nb_rx = s + 1;
	}
	/* ENOENT: the filter never went on (logged): nothing to take off. */
	for (s = 0; ns > 1 && s < ns; s++) {
		ret = rx_filter(&ifc->rx[s], 0);
		if (ret < 0 && ret != -ENOENT) {
			/* Left on, it would drop every frame of its flows. */
			HSPLIT_LOG(ERR, "iface %s: RX socket %u: drop-all filter not removed: %s",
				ifc->name, s, strerror(-ret));
			rx_close(ifc);
			return ret;
		}
	}
	return 0;
}

static void
tx_close(struct iface_tx *t)
{
	if (t->fd < 0)
		return;
	ring_unmap(&t->r);
	close(t->fd);
	t->fd = -1;
}

static int
tx_open(struct hsplit_iface *ifc, uint16_t qid, uint32_t max_frame,
	uint32_t nb)
{
	struct iface_tx *t = &ifc->tx[qid];
	int fd, one = 1, ret;

	fd = sock_v2("TX", ifc->name);
	if (fd < 0)
		return fd;
	/* TSO on: slots for whole GSO frames, each after its virtio-net header. */
	t->vnet = ifc->gso_pool != NULL && hsplit_gso_sock_enable(fd) == 0;
	if (t->vnet) {
		max_frame = HSPLIT_GSO_HDR + HSPLIT_GSO_MAX_FRAME;
		nb = RTE_MIN(nb, HSPLIT_GSO_RING);
	}
	/*
	 * Straight to the driver: veth has no queue to gain from a qdisc. Not
	 * with GSO frames: the direct path drops a frame the device cannot
	 * take whole (TSO off) instead of segmenting it (__dev_direct_xmit);
	 * veth's default qdisc (noqueue) costs little.
	 */
	if (!t->vnet && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
			sizeof(one)) < 0)
		HSPLIT_LOG(DEBUG, "iface %s: no PACKET_QDISC_BYPASS: %s",
			ifc->name, strerror(errno));
	/* A frame the kernel refuses is skipped, not left to block the ring. */
	if (setsockopt(fd, SOL_PACKET, PACKET_LOSS, &one, sizeof(one)) < 0)
		HSPLIT_LOG(DEBUG, "iface %s: no PACKET_LOSS: %s", ifc->name,
			strerror(errno));
	ret = ring_map(fd, PACKET_TX_RING, IFACE_TX_OFF + max_frame, nb, &t->r);
	if (ret == 0)
		ret = sock_bind(fd, ifc->ifindex, 0);
	if (ret < 0) {
		HSPLIT_LOG(ERR, "iface %s: TX ring of queue %u: %s", ifc->name,
			qid, strerror(-ret));
		ring_unmap(&t->r);
		close(fd);
		return ret;
	}
	t->fd = fd;
	t->kick = 0;
	t->max_len = RTE_MIN(t->r.frame_size - (uint32_t)IFACE_TX_OFF -
		(t->vnet ? HSPLIT_GSO_HDR : 0), ifc->mtu + RTE_ETHER_HDR_LEN);
	return 0;
}

int
hsplit_iface_probe(struct hsplit_port *p, uint8_t mac[6])
{
	struct hsplit_iface *ifc;
	struct ifreq ifr;
	unsigned int idx;
	uint16_t q;
	int ret;

	idx = if_nametoindex(p->da.iface);
	if (idx == 0) {
		HSPLIT_LOG(ERR, "port %u: no network interface %s in this namespace: %s",
			p->port_id, p->da.iface, strerror(errno));
		return -ENODEV;
	}
	ret = ctl_ioctl(p->da.iface, SIOCGIFHWADDR, &ifr);
	if (ret < 0) {
		HSPLIT_LOG(ERR, "port %u: MAC address of %s: %s", p->port_id,
			p->da.iface, strerror(-ret));
		return ret;
	}
	if (ifr.ifr_hwaddr.sa_family != 1 /* ARPHRD_ETHER */) {
		HSPLIT_LOG(ERR, "port %u: %s is not an Ethernet interface (type %u)",
			p->port_id, p->da.iface, ifr.ifr_hwaddr.sa_family);
		return -EINVAL;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	ifc = rte_zmalloc("hsplit_iface", sizeof(*ifc), RTE_CACHE_LINE_SIZE);
	if (ifc == NULL)
		return -ENOMEM;
	snprintf(ifc->name, sizeof(ifc->name), "%s", p->da.iface);
	ifc->ifindex = idx;
	ret = iface_mtu(ifc->name, &ifc->mtu);
	if (ret < 0) {
		HSPLIT_LOG(ERR, "port %u: MTU of %s: %s", p->port_id, ifc->name,
			strerror(-ret));
		rte_free(ifc);
		return ret;
	}
	for (q = 0; q < HSPLIT_MAX_QUEUES; q++) {
		rte_spinlock_init(&ifc->rx[q].lock);
		ifc->rx[q].fd = -1;
		/* RX faults draw from sequences of their own (not a TX queue's). */
		hsplit_prng_seed(&ifc->rx[q].prng, p->da.seed,
			HSPLIT_MAX_QUEUES + q);
		ifc->tx[q].fd = -1;
	}
	ifc->gso = hsplit_gso_supported();
	p->iface = ifc;
	HSPLIT_LOG(INFO, "port %u: interface %s (index %u, MTU %u, %02x:%02x:%02x:%02x:%02x:%02x)",
		p->port_id, ifc->name, idx, ifc->mtu, mac[0], mac[1], mac[2],
		mac[3], mac[4], mac[5]);
	return 0;
}

void
hsplit_iface_stop(struct hsplit_port *p)
{
	struct hsplit_iface *ifc = p->iface;
	uint16_t q;

	if (ifc == NULL)
		return;
	hsplit_iface_gro_stop(ifc);
	rx_close(ifc);
	for (q = 0; q < HSPLIT_MAX_QUEUES; q++)
		tx_close(&ifc->tx[q]);
}

void
hsplit_iface_close(struct hsplit_port *p)
{
	if (p->iface == NULL)
		return;
	hsplit_iface_stop(p);
	rte_mempool_free(p->iface->lro_pool);
	rte_mempool_free(p->iface->gso_pool);
	rte_free(p->iface);
	p->iface = NULL;
}

bool
hsplit_iface_gso(const struct hsplit_port *p)
{
	return p->iface != NULL && p->iface->gso;
}

struct rte_mempool *
hsplit_iface_gso_pool(const struct hsplit_port *p)
{
	return p->iface != NULL ? p->iface->gso_pool : NULL;
}

/* TSO on (the kernel takes GSO frames): their wire buffers, once. */
static int
gso_start(struct hsplit_port *p, struct hsplit_iface *ifc)
{
	if (!(p->data->dev_conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO)) {
		rte_mempool_free(ifc->gso_pool);
		ifc->gso_pool = NULL;
		return 0;
	}
	if (ifc->gso_pool != NULL)
		return 0;
	ifc->gso_pool = hsplit_gso_pool_create(p->port_id);
	if (ifc->gso_pool == NULL) {
		HSPLIT_LOG(ERR, "port %u: no memory for %u wire buffers of GSO frames",
			p->port_id, HSPLIT_GSO_WBUFS);
		return -ENOMEM;
	}
	return 0;
}

int
hsplit_iface_start(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	struct hsplit_iface *ifc = p->iface;
	uint32_t mtu, max_frame;
	uint16_t q;
	int ret;

	ret = iface_mtu(ifc->name, &ifc->mtu);
	if (ret < 0) {
		HSPLIT_LOG(ERR, "port %u: interface %s: %s", p->port_id,
			ifc->name, strerror(-ret));
		return ret;
	}
	/* Slots take the larger MTU: what the kernel may hand over, and what the port may send. */
	mtu = RTE_MIN(RTE_MAX(ifc->mtu, (uint32_t)dev->data->mtu),
		(uint32_t)HSPLIT_MAX_MTU);
	if (ifc->mtu > HSPLIT_MAX_MTU)
		HSPLIT_LOG(WARNING, "port %u: %s has MTU %u; frames above MTU %u are dropped",
			p->port_id, ifc->name, ifc->mtu, HSPLIT_MAX_MTU);
	if (ifc->mtu < dev->data->mtu)
		HSPLIT_LOG(WARNING, "port %u: MTU %u above %s's MTU %u: longer frames are dropped on TX",
			p->port_id, dev->data->mtu, ifc->name, ifc->mtu);
	max_frame = mtu + IFACE_FRAME_EXTRA;
	ifc->lro = !!(p->rx_offloads & RTE_ETH_RX_OFFLOAD_TCP_LRO);
	if (ifc->lro && ifc->lro_pool == NULL) {
		char name[RTE_MEMPOOL_NAMESIZE];

		snprintf(name, sizeof(name), "hsplit_lro_%u", p->port_id);
		ifc->lro_pool = rte_mempool_create(name, IFACE_LRO_WBUFS,
			offsetof(struct hsplit_wbuf, data) + HSPLIT_WIRE_DATA_LRO,
			0, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0);
		if (ifc->lro_pool == NULL) {
			HSPLIT_LOG(ERR, "port %u: no memory for %u wire buffers of coalesced frames",
				p->port_id, IFACE_LRO_WBUFS);
			return -ENOMEM;
		}
	}
	ret = gso_start(p, ifc);
	if (ret < 0)
		return ret;
	hsplit_iface_gro_start(p, ifc);
	for (q = 0; q < HSPLIT_MAX_QUEUES; q++) {
		struct hsplit_delay *dl = &ifc->rx[q].dl;

		if (p->da.delay_dir & HSPLIT_DELAY_RX)
			hsplit_delay_init(dl, p->da.delay_us, p->da.jitter_us,
				rte_get_tsc_hz(), p->da.seed,
				HSPLIT_MAX_QUEUES + 1 + q);
		else
			memset(dl, 0, sizeof(*dl));
	}
	ret = rx_open(p, ifc, max_frame);
	if (ret < 0)
		return ret;
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct hsplit_txq *tq = dev->data->tx_queues[q];

		ret = tx_open(ifc, q, max_frame, tq != NULL && tq->nb_desc ?
			tq->nb_desc : 1024u);
		if (ret < 0) {
			hsplit_iface_stop(p);
			return ret;
		}
	}
	if (!hsplit_iface_link_up(p))
		HSPLIT_LOG(WARNING, "port %u: interface %s is not up and running (link down)",
			p->port_id, ifc->name);
	HSPLIT_LOG(DEBUG, "port %u: %s %u RX ring(s) of %u x %u bytes, %u TX rings",
		p->port_id, ifc->name, ifc->nb_rx, ifc->rx[0].r.nb,
		ifc->rx[0].r.frame_size, dev->data->nb_tx_queues);
	return 0;
}

int
hsplit_iface_promisc(struct hsplit_port *p, int on)
{
	struct hsplit_iface *ifc = p->iface;
	struct iface_rx *x;
	int ret = 0;

	if (ifc == NULL)
		return 0;
	/* Stopped: rx_open() applies ethdev's flag at start. */
	x = &ifc->rx[0];
	rte_spinlock_lock(&x->lock);
	if (x->fd >= 0 && !!on != x->promisc)
		ret = set_promisc(ifc, x, on);
	rte_spinlock_unlock(&x->lock);
	return ret;
}

int
hsplit_iface_link_up(struct hsplit_port *p)
{
	struct ifreq ifr;

	if (p->iface == NULL || ctl_ioctl(p->iface->name, SIOCGIFFLAGS, &ifr) < 0)
		return 0;
	return (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

/* Complete a CHECKSUM_PARTIAL frame's TCP/UDP checksum in the wire buffer. */
