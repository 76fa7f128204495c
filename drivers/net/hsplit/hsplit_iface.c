/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux-interface backend: AF_PACKET sockets with TPACKET_V2 rings (see
 * hsplit_iface.h for the model).
 *
 * Checksums of frames from the kernel: a frame the kernel hands over with
 * TP_STATUS_CSUMNOTREADY (CHECKSUM_PARTIAL, e.g. from a veth peer with TX
 * checksum offload on) carries only the pseudo-header sum in its TCP/UDP
 * checksum field. The NIC completes that checksum in the host-memory wire
 * buffer before ingress, as the peer's NIC would have on a real wire, and the
 * frame is flagged GOOD (counted in iface_rx_csum_completed). A frame with
 * TP_STATUS_CSUM_VALID (the kernel or the hardware under it verified it) is
 * flagged GOOD without a second verification. Every other frame is verified
 * by the NIC as on the loopback wire. Test set-ups turn the veth offloads off
 * anyway (scripts/netns.sh), so that frames cross with full checksums.
 *
 * Coalesced frames: with TSO/GSO on the sender's side (or GRO here) the
 * kernel hands over TCP frames of up to 64 KiB, one header for several
 * segments. With RTE_ETH_RX_OFFLOAD_TCP_LRO enabled the RX ring's slots
 * take such frames (fewer slots: IFACE_LRO_RING at most) and they are
 * delivered whole, flagged RTE_MBUF_F_RX_LRO, their payload split over
 * several device buffers, as from a NIC's LRO / HW-GRO (wire buffers of
 * 64 KiB from a pool of their own, IFACE_LRO_WBUFS). Without LRO, or a
 * coalesced frame that is not TCP, the frame is dropped, counted
 * (iface_rx_truncated) and logged once at WARNING.
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

#include "hsplit_iface.h"
#include "hsplit_iface_gso.h"
#include "hsplit_offload.h"
#include "hsplit_parse.h"
#include "hsplit_private.h"

/* Ring block: frames never span blocks, so a block holds several. */
#define IFACE_BLOCK (64u << 10)
/* Frames one rx_burst moves from the AF_PACKET ring at most. */
#define IFACE_RX_BUDGET 64
/* Where the kernel puts a received frame: after the header, sockaddr_ll, and 16 bytes for the MAC header. */
#define IFACE_RX_MACOFF ((uint32_t)TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - RTE_ETHER_HDR_LEN)
/* Where the kernel takes a frame to send from (no PACKET_TX_HAS_OFF). */
#define IFACE_TX_OFF ((uint32_t)(TPACKET2_HDRLEN - sizeof(struct sockaddr_ll)))
/* Two VLAN tags beyond the MTU and the Ethernet header. */
#define IFACE_FRAME_EXTRA (RTE_ETHER_HDR_LEN + 8)
/* RX ring slots when they take coalesced frames (64 KiB each). */
#define IFACE_LRO_RING 1024u
/* Frames of each RX ring at least when several sockets share iface_ring. */
#define IFACE_RING_MIN 1024u
/* Wire buffers for coalesced frames. */
#define IFACE_LRO_WBUFS 256u

/* One mmap'd TPACKET_V2 ring. */
struct iface_ring {
	uint8_t *map;
	size_t map_len;
	uint8_t **slot;         /* each frame's address (blocks may leave gaps) */
	uint32_t nb;
	uint32_t frame_size;
	uint32_t head;          /* next slot to read (RX) or fill (TX) */
};

struct iface_rx_stats {
	uint64_t frames;
	uint64_t drains;        /* drains that found a frame */
	uint64_t drain_full;    /* ... and stopped at the budget with more there */
	uint64_t drain_cycles;  /* TSC cycles in those drains */
	uint64_t bytes;
	uint64_t truncated;     /* longer than a ring slot (GSO/GRO, MTU) */
	uint64_t coalesced;     /* TCP frames above the MTU taken whole (LRO) */
	uint64_t outgoing;      /* the interface's own transmissions, skipped */
	uint64_t csum_completed;
	uint64_t no_wbuf;       /* drains stopped for want of a wire buffer */
	/* Injected faults (rx_loss=, rx_dup=, rx_reorder=, rx_corrupt=). */
	uint64_t f_loss, f_dup, f_reorder, f_corrupt;
};

struct iface_tx_stats {
	uint64_t frames;
	uint64_t bytes;
	uint64_t ring_full;     /* no free slot for a frame already gathered */
	uint64_t too_big;       /* above the interface MTU */
	uint64_t gso_frames;    /* TSO frames handed over whole (GSO) */
	uint64_t kick_err;      /* send() failed; retried on the next burst */
	uint64_t kicks;
	uint64_t kick_cycles;   /* TSC cycles in send() */
	uint64_t tx_burst_cycles; /* bursts that took frames: TSC cycles in them */
};

/* One RX queue's counters: written by its poller only. */
struct iface_rxq_stats {
	uint64_t burst_cycles;  /* bursts that returned frames: TSC cycles in them */
} __rte_cache_aligned;

/* One TX queue's socket and ring: written by that queue's thread only. */
struct iface_tx {
	int fd;
	uint8_t kick;           /* a send() failed: kick again */
	uint8_t vnet;           /* a virtio-net header leads every frame (GSO) */
	uint32_t max_len;       /* largest untagged frame the kernel takes */
	struct iface_ring r;
	struct iface_tx_stats st;
} __rte_cache_aligned;

/*
 * One RX socket and ring. Whoever holds the lock drains it; the kernel's
 * fanout keeps each flow on one socket, so frames of a flow reach their
 * queue in wire order however many sockets there are.
 */
struct iface_rx {
	rte_spinlock_t lock;
	int fd;
	uint8_t promisc;        /* the socket holds a promiscuous membership */
	struct iface_ring r;
	struct iface_rx_stats st;
	uint64_t kdrops;        /* ring-full drops folded from PACKET_STATISTICS */
	struct hsplit_delay dl; /* delay line of received frames */
	/* Faults: PRNG, and a frame held back for reordering. */
	uint64_t prng;
	struct hsplit_wbuf *held;
	uint64_t held_tsc;
} __rte_cache_aligned;

struct hsplit_iface {
	char name[HSPLIT_IFACE_NAME_MAX];
	unsigned int ifindex;
	uint32_t mtu;           /* the interface's, read at probe and start */
	uint16_t nb_rx;         /* RX sockets open (a fanout group when > 1) */
	/* The hint about truncated frames was given (drainers race: at worst twice). */
	uint8_t trunc_logged;
	uint8_t lro;            /* the RX rings take coalesced frames */
	struct rte_mempool *lro_pool; /* their wire buffers (made at first use) */
	uint8_t gso;            /* the kernel takes GSO frames (PACKET_VNET_HDR) */
	/* Wire buffers of TSO frames sent whole, while the port has TSO on. */
	struct rte_mempool *gso_pool;
	struct iface_rx rx[HSPLIT_MAX_QUEUES];
	struct iface_rxq_stats rxq_st[HSPLIT_MAX_QUEUES];
	struct iface_tx tx[HSPLIT_MAX_QUEUES];
};

/* A socket for interface ioctls. */
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
static void
rx_kstats(struct iface_rx *x)
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
		rx_kstats(x);
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
static unsigned int
csum_complete(struct hsplit_wbuf *w)
{
	uint64_t ol;

	if (w->pi.l4_len == 0 || w->pi.is_fragment)
		return 0;
	if (w->pi.ip_proto == IPPROTO_TCP)
		ol = RTE_MBUF_F_TX_TCP_CKSUM;
	else if (w->pi.ip_proto == IPPROTO_UDP)
		ol = RTE_MBUF_F_TX_UDP_CKSUM;
	else
		return 0;
	return hsplit_tx_cksum(w->data, w->len, ol, 0, 0, &w->pi) & HSPLIT_CK_L4;
}

/* One frame from a ring slot into a wire buffer, parsed and classified. */
static void
rx_frame(struct hsplit_port *p, struct iface_rx *x, struct hsplit_wbuf *w,
	const uint8_t *slot, const struct tpacket2_hdr *h, uint32_t status)
{
	const uint8_t *f = slot + h->tp_mac;
	uint32_t len = h->tp_snaplen;
	unsigned int known = 0;
	uint16_t tpid;

	if ((status & TP_STATUS_VLAN_VALID) && len >= 2 * RTE_ETHER_ADDR_LEN) {
		/* The kernel took the tag out of band: the wire had it in the frame. */
		tpid = (status & TP_STATUS_VLAN_TPID_VALID) && h->tp_vlan_tpid ?
			h->tp_vlan_tpid : RTE_ETHER_TYPE_VLAN;
		memcpy(w->data, f, 2 * RTE_ETHER_ADDR_LEN);
		w->data[12] = (uint8_t)(tpid >> 8);
		w->data[13] = (uint8_t)tpid;
		w->data[14] = (uint8_t)(h->tp_vlan_tci >> 8);
		w->data[15] = (uint8_t)h->tp_vlan_tci;
		rte_memcpy(w->data + 16, f + 12, len - 12);
		len += 4;
	} else {
		rte_memcpy(w->data, f, len);
	}
	w->len = len;
	hsplit_parse(w->data, len, &w->pi);
	if (status & TP_STATUS_CSUMNOTREADY) {
		known = csum_complete(w);
		x->st.csum_completed += !!known;
	} else if (status & TP_STATUS_CSUM_VALID) {
		known = HSPLIT_CK_L4;
	}
	if (p->rx_corrupt_thr && hsplit_prng_next(&x->prng) < p->rx_corrupt_thr &&
			hsplit_wire_corrupt(w, hsplit_prng_next(&x->prng)) == 0) {
		/* Damaged on the wire, after the sender's checksums: verify. */
		known = 0;
		x->st.f_corrupt++;
	}
	hsplit_wire_classify(p, w, known);
	x->st.frames++;
	x->st.bytes += len;
}

/*
 * A frame above the port's MTU: a TCP/IPv4 frame the kernel coalesced
 * (GSO/GRO) is taken whole, as a NIC's LRO delivers it; anything else is
 * not. Returns whether it is taken.
 */
static int
rx_coalesced(struct hsplit_port *p, const struct hsplit_iface *ifc,
	struct iface_rx *x, struct hsplit_wbuf *w)
{
	const struct hsplit_pkt_info *pi = &w->pi;

	if (!ifc->lro || pi->ip_proto != IPPROTO_TCP || pi->is_fragment ||
			pi->l4_len == 0 || !RTE_ETH_IS_IPV4_HDR(pi->ptype) ||
			w->len > p->max_lro)
		return 0;
	w->rx_flags |= RTE_MBUF_F_RX_LRO;
	x->st.coalesced++;
	return 1;
}

/*
 * Faults on the frame just received, wb[n] (rx_loss=, rx_dup=, rx_reorder=;
 * rx_corrupt= is applied in rx_frame()). They stand in for netem on the
 * kernel side when the kernel has none, so that the stack sees a faulty wire
 * in both directions. A duplicate may take the budget one past @p n + 1:
 * wb has room for it. Returns the frames now in wb.
 */
static uint32_t
rx_faults(struct hsplit_port *p, struct iface_rx *x,
	struct hsplit_wbuf **wb, uint32_t n)
{
	struct hsplit_wbuf *w = wb[n], *c;

	if (likely(!(p->rx_loss_thr | p->rx_dup_thr | p->rx_reorder_thr)))
		return n + 1;
	if (p->rx_loss_thr && hsplit_prng_next(&x->prng) < p->rx_loss_thr) {
		x->st.f_loss++;
		rte_mempool_put(rte_mempool_from_obj(w), w);
		return n;
	}
	n++;
	if (x->held != NULL) {
		/* The held frame goes right after this one. */
		wb[n++] = x->held;
		x->held = NULL;
	} else if (p->rx_reorder_thr &&
			hsplit_prng_next(&x->prng) < p->rx_reorder_thr) {
		x->held = w;
		x->held_tsc = rte_rdtsc();
		x->st.f_reorder++;
		n--;
	}
	if (p->rx_dup_thr && hsplit_prng_next(&x->prng) < p->rx_dup_thr &&
			rte_mempool_get(rte_mempool_from_obj(w), (void **)&c) == 0) {
		c->len = w->len;
		c->rss_hash = w->rss_hash;
		c->rx_flags = w->rx_flags;
		c->queue = w->queue;
		c->pi = w->pi;
		rte_memcpy(c->data, w->data, w->len);
		wb[n++] = c;
		x->st.f_dup++;
	}
	return n;
}

/* Move up to @p budget frames from the RX ring to the queues (lock held). */
static void
rx_drain(struct hsplit_port *p, struct hsplit_iface *ifc, struct iface_rx *x,
	uint32_t budget)
{
	/* A frame's faults add two frames at most (a held one, a duplicate). */
	struct hsplit_wbuf *wb[IFACE_RX_BUDGET + 3];
	struct iface_ring *r = &x->r;
	struct tpacket2_hdr *h;
	const struct sockaddr_ll *sll;
	uint32_t status, n = 0;
	uint64_t t0 = 0;
	uint8_t *slot;

	/* Room for what faults add: a held frame and a duplicate. */
	if (p->rx_loss_thr | p->rx_dup_thr | p->rx_reorder_thr)
		budget = budget > 3 ? budget - 2 : 1;
	while (n < budget) {
		slot = r->slot[r->head];
		h = (struct tpacket2_hdr *)slot;
		status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		if (!(status & TP_STATUS_USER))
			break;
		/* Only drains that find a frame are timed: most polls find none. */
		if (t0 == 0)
			t0 = rte_rdtsc();
		sll = (const struct sockaddr_ll *)(slot +
			TPACKET_ALIGN(sizeof(struct tpacket2_hdr)));
		if (sll->sll_pkttype == PACKET_OUTGOING) {
			x->st.outgoing++;
		} else if (h->tp_snaplen < h->tp_len ||
				h->tp_snaplen < RTE_ETHER_HDR_LEN ||
				h->tp_snaplen + 4 > (ifc->lro ? HSPLIT_WIRE_DATA_LRO :
					HSPLIT_WIRE_DATA)) {
			x->st.truncated++;
		} else {
			struct rte_mempool *mp = h->tp_snaplen + 4 > HSPLIT_WIRE_DATA ?
				ifc->lro_pool : p->wire_pool;

			/* No buffer: leave the frame in the ring for the next poll. */
			if (rte_mempool_get(mp, (void **)&wb[n]) != 0) {
				x->st.no_wbuf++;
				break;
			}
			rx_frame(p, x, wb[n], slot, h, status);
			if (wb[n]->len > p->max_frame && !rx_coalesced(p, ifc, x, wb[n])) {
				x->st.truncated++;
				rte_mempool_put(mp, wb[n]);
			} else {
				n = rx_faults(p, x, wb, n);
			}
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->head = r->head + 1 == r->nb ? 0 : r->head + 1;
	}
	/* A frame held for reordering waits at most HSPLIT_HOLD_US. */
	if (x->held != NULL && n < budget && rte_rdtsc() - x->held_tsc >
			rte_get_tsc_hz() / 1000000 * HSPLIT_HOLD_US) {
		wb[n++] = x->held;
		x->held = NULL;
	}
	if (unlikely(hsplit_delay_on(&x->dl) && n)) {
		uint64_t now = rte_rdtsc();
		uint32_t i;

		for (i = 0; i < n; i++)
			wb[i]->due = hsplit_delay_due(&x->dl, now);
	}
	/* Under the lock: frames of one flow reach their queue in wire order. */
	if (n)
		hsplit_wire_ingress(p, wb, (uint16_t)n);
	if (t0 != 0) {
		x->st.drains++;
		x->st.drain_full += n >= budget && (__atomic_load_n(
			&((struct tpacket2_hdr *)r->slot[r->head])->tp_status,
			__ATOMIC_ACQUIRE) & TP_STATUS_USER);
		x->st.drain_cycles += rte_rdtsc() - t0;
	}
	if (unlikely(x->st.truncated != 0 && !ifc->trunc_logged)) {
		HSPLIT_LOG(WARNING, "port %u: %s handed over a frame longer than its MTU %s: "
			"enable RX LRO on the port (RTE_ETH_RX_OFFLOAD_TCP_LRO), or turn GRO off here and TSO/GSO off on the sender "
			"(ethtool -K IF tx off tso off gso off gro off); such frames are dropped (xstat iface_rx_truncated)",
			p->port_id, ifc->name, ifc->lro ? "(not TCP, or above 64 KiB)" : "(LRO off)");
		ifc->trunc_logged = 1;
	}
}

static inline void
rx_try_drain(struct hsplit_port *p, struct hsplit_iface *ifc, uint16_t s,
	uint32_t budget)
{
	struct iface_rx *x = &ifc->rx[s];

	if (rte_spinlock_trylock(&x->lock)) {
		if (x->fd >= 0)
			rx_drain(p, ifc, x, budget);
		rte_spinlock_unlock(&x->lock);
	}
}

uint16_t
hsplit_iface_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n)
{
	struct hsplit_rxq *q = rxq;
	struct hsplit_port *p = q->port;
	struct hsplit_iface *ifc = p->iface;
	uint64_t t0 = rte_rdtsc();
	uint32_t budget;
	uint16_t ns = ifc->nb_rx, k;

	if (p->started && ns > 0) {
		/* Never more than this queue's ring takes: it cannot overflow. */
		budget = RTE_MIN(rte_ring_free_count(q->ring), (unsigned int)IFACE_RX_BUDGET);
		if (budget > 0) {
			/*
			 * Its own socket, then another in turn: no socket
			 * waits for a queue no one polls. Each drain takes
			 * what this queue's ring has room for then.
			 */
			rx_try_drain(p, ifc, q->qid % ns, budget);
			if (ns > 1) {
				q->iface_rot = (uint16_t)((q->iface_rot + 1) % ns);
				budget = RTE_MIN(rte_ring_free_count(q->ring),
					(unsigned int)IFACE_RX_BUDGET);
				if (q->iface_rot != q->qid % ns && budget > 0)
					rx_try_drain(p, ifc, q->iface_rot, budget);
			}
		}
	}
	k = hsplit_rx_burst(rxq, pkts, n);
	if (k != 0)
		ifc->rxq_st[q->qid].burst_cycles += rte_rdtsc() - t0;
	return k;
}

static inline int
slot_free(const uint8_t *slot)
{
	const struct tpacket2_hdr *h = (const struct tpacket2_hdr *)slot;

	return !(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) &
		(TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING));
}

static void
tx_kick(struct iface_tx *t, const char *ifname)
{
	uint64_t t0 = rte_rdtsc();
	ssize_t r;
	int err;

	r = sendto(t->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
	t->st.kick_cycles += rte_rdtsc() - t0;
	t->st.kicks++;
	if (r >= 0) {
		t->kick = 0;
		return;
	}
	err = errno;
	/* Frames stay requested in the ring: the next burst kicks again. */
	t->kick = 1;
	if (t->st.kick_err++ == 0 && err != EAGAIN && err != ENOBUFS)
		HSPLIT_LOG(WARNING, "iface %s: send: %s", ifname, strerror(err));
}

struct rte_mempool *
hsplit_iface_lro_pool(const struct hsplit_port *p)
{
	return p->iface != NULL ? p->iface->lro_pool : NULL;
}

static void delay_release(struct hsplit_txq *tq);

uint16_t
hsplit_iface_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n)
{
	struct hsplit_txq *q = txq;
	struct iface_tx *t = &q->port->iface->tx[q->qid];
	uint32_t i, pos;
	uint64_t t0;
	uint16_t sent;

	if (q->dq != NULL && q->dq_head != q->dq_tail)
		delay_release(q);
	if (t->fd >= 0) {
		if (t->kick)
			tx_kick(t, q->port->iface->name);
		/*
		 * Take only what the ring has slots for, in order from head,
		 * less what the queue's in-flight chunks will take when their
		 * copies complete.
		 */
		for (i = 0, pos = t->r.head; i < n + q->fl_frames &&
				slot_free(t->r.slot[pos]); i++)
			pos = pos + 1 == t->r.nb ? 0 : pos + 1;
		n = (uint16_t)(i > q->fl_frames ? i - q->fl_frames : 0);
	}
	if (n == 0)
		return hsplit_tx_burst(txq, pkts, n);
	t0 = rte_rdtsc();
	sent = hsplit_tx_burst(txq, pkts, n);
	t->st.tx_burst_cycles += rte_rdtsc() - t0;
	return sent;
}

static void
xmit_now(struct hsplit_txq *tq, struct hsplit_wbuf **wb, uint16_t n)
{
	struct hsplit_port *p = tq->port;
	struct iface_tx *t = &p->iface->tx[tq->qid];
	struct tpacket2_hdr *h;
	struct hsplit_wbuf *w;
	uint16_t i, queued = 0;
	uint32_t vh;
	uint8_t *slot;

	for (i = 0; i < n; i++) {
		w = wb[i];
		if (t->fd < 0) {
			tq->st.peer_down++;
		} else if ((w->gso_size == 0 && w->len > t->max_len +
				(w->pi.vlan_tags ? 4u : 0u)) ||
				(w->gso_size != 0 && !t->vnet) ||
				w->len + (t->vnet ? HSPLIT_GSO_HDR : 0) >
				t->r.frame_size - IFACE_TX_OFF) {
			t->st.too_big++;
		} else if (!slot_free(slot = t->r.slot[t->r.head])) {
			/* Only frames the burst did not reserve (dup, held). */
			t->st.ring_full++;
		} else {
			h = (struct tpacket2_hdr *)slot;
			vh = t->vnet ? hsplit_gso_hdr_write(slot + IFACE_TX_OFF, w) : 0;
			t->st.gso_frames += w->gso_size != 0;
			rte_memcpy(slot + IFACE_TX_OFF + vh, w->data, w->len);
			h->tp_len = w->len + vh;
			h->tp_snaplen = w->len + vh;
			__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
				__ATOMIC_RELEASE);
			t->r.head = t->r.head + 1 == t->r.nb ? 0 : t->r.head + 1;
			t->st.frames++;
			t->st.bytes += w->len;
			queued++;
		}
		rte_mempool_put(rte_mempool_from_obj(w), w);
	}
	if (t->fd >= 0 && (queued || t->kick))
		tx_kick(t, p->iface->name);
}

/*
 * Delay line: frames of the FIFO that are due go on the ring, as far as it
 * has free slots (the rest wait: a full ring is backpressure, not a drop).
 */
static void
delay_release(struct hsplit_txq *tq)
{
	struct iface_tx *t = &tq->port->iface->tx[tq->qid];
	struct hsplit_wbuf *out[HSPLIT_BURST];
	uint64_t now = rte_rdtsc();
	uint32_t pos = t->r.head;
	uint16_t k;

	while (tq->dq_head != tq->dq_tail) {
		for (k = 0; k < HSPLIT_BURST && tq->dq_head != tq->dq_tail; k++) {
			struct hsplit_wbuf *w = tq->dq[tq->dq_head & tq->dq_mask];

			if (w->due > now || (t->fd >= 0 && !slot_free(t->r.slot[pos])))
				break;
			pos = pos + 1 == t->r.nb ? 0 : pos + 1;
			out[k] = w;
			tq->dq_head++;
		}
		if (k == 0)
			return;
		xmit_now(tq, out, k);
	}
}

void
hsplit_iface_xmit(struct hsplit_txq *tq, struct hsplit_wbuf **wb, uint16_t n)
{
	uint16_t i;

	if (tq->dq == NULL) {
		xmit_now(tq, wb, n);
		return;
	}
	/* Stamped by hsplit_wire_deliver(); the FIFO holds every wire buffer. */
	for (i = 0; i < n; i++)
		tq->dq[tq->dq_tail++ & tq->dq_mask] = wb[i];
	delay_release(tq);
}

/* xstats: port counters of the backend. */
enum {
	X_RX_FRAMES, X_RX_BYTES, X_RX_KDROPS, X_RX_TRUNC, X_RX_OUTGOING,
	X_RX_CSUM, X_RX_NOWBUF, X_RX_FLOSS, X_RX_FDUP, X_RX_FREORDER,
	X_RX_FCORRUPT, X_RX_COALESCED, X_TX_FRAMES, X_TX_BYTES, X_TX_FULL,
	X_TX_BIG, X_TX_KICK, X_IF_RX_DROPPED, X_IF_TX_DROPPED,
	X_RX_SOCKETS, X_RX_SOCKETS_USED, X_RX_DRAINS, X_RX_DRAIN_FULL, X_RX_DRAIN_CYC,
	X_TX_KICKS, X_TX_KICK_CYC, X_RX_BURST_CYC, X_TX_BURST_CYC, X_TX_GSO, X_NB
};

static const char *const iface_xnames[X_NB] = {
	"iface_rx_frames", "iface_rx_bytes", "iface_rx_kernel_drops",
	"iface_rx_truncated", "iface_rx_outgoing_skipped",
	"iface_rx_csum_completed", "iface_rx_no_wire_buf",
	"iface_rx_fault_loss", "iface_rx_fault_dup", "iface_rx_fault_reorder",
	"iface_rx_fault_corrupt", "iface_rx_coalesced",
	"iface_tx_frames", "iface_tx_bytes", "iface_tx_ring_full",
	"iface_tx_too_big", "iface_tx_kick_errors",
	"iface_if_rx_dropped", "iface_if_tx_dropped",
	"iface_rx_sockets", "iface_rx_sockets_used", "iface_rx_drains", "iface_rx_drain_full",
	"iface_rx_drain_cycles", "iface_tx_kicks", "iface_tx_kick_cycles",
	"iface_rx_burst_cycles", "iface_tx_burst_cycles", "iface_tx_gso_frames",
};

/*
 * One of the interface's own counters as the kernel keeps them
 * (/sys/class/net/NAME/statistics/WHAT): frames the kernel dropped below
 * the AF_PACKET sockets (a veth whose peer could not take a frame counts
 * it here), which no counter of ours sees. 0 when it cannot be read.
 */
static uint64_t
if_counter(const struct hsplit_iface *ifc, const char *what)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s",
		ifc->name, what);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

unsigned int
hsplit_iface_xstats_count(const struct hsplit_port *p)
{
	return p->iface != NULL ? X_NB : 0;
}

unsigned int
hsplit_iface_xstats_names(const struct hsplit_port *p,
	struct rte_eth_xstat_name *names)
{
	unsigned int i;

	if (p->iface == NULL)
		return 0;
	for (i = 0; i < X_NB; i++)
		snprintf(names[i].name, RTE_ETH_XSTATS_NAME_SIZE, "%s",
			iface_xnames[i]);
	return X_NB;
}

static inline uint64_t
rd(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

uint64_t
hsplit_iface_rx_missed(struct hsplit_port *p)
{
	struct hsplit_iface *ifc = p->iface;
	uint64_t v = 0;
	uint16_t s;

	if (ifc == NULL)
		return 0;
	for (s = 0; s < HSPLIT_MAX_QUEUES; s++) {
		struct iface_rx *x = &ifc->rx[s];

		/* The socket may close under us: take the lock the drainer takes. */
		rte_spinlock_lock(&x->lock);
		rx_kstats(x);
		rte_spinlock_unlock(&x->lock);
		v += rd(&x->kdrops);
	}
	return v;
}

unsigned int
hsplit_iface_xstats_get(struct hsplit_port *p, struct rte_eth_xstat *xs,
	uint64_t first)
{
	struct hsplit_iface *ifc = p->iface;
	uint64_t v[X_NB] = { 0 };
	unsigned int i;

	if (ifc == NULL)
		return 0;
	v[X_RX_KDROPS] = hsplit_iface_rx_missed(p);
	v[X_RX_SOCKETS] = ifc->nb_rx;
	for (i = 0; i < HSPLIT_MAX_QUEUES; i++) {
		const struct iface_rx_stats *r = &ifc->rx[i].st;
		const struct iface_tx_stats *s = &ifc->tx[i].st;

		v[X_RX_FRAMES] += rd(&r->frames);
		v[X_RX_SOCKETS_USED] += rd(&r->frames) != 0;
		v[X_RX_BYTES] += rd(&r->bytes);
		v[X_RX_TRUNC] += rd(&r->truncated);
		v[X_RX_OUTGOING] += rd(&r->outgoing);
		v[X_RX_CSUM] += rd(&r->csum_completed);
		v[X_RX_NOWBUF] += rd(&r->no_wbuf);
		v[X_RX_FLOSS] += rd(&r->f_loss);
		v[X_RX_FDUP] += rd(&r->f_dup);
		v[X_RX_FREORDER] += rd(&r->f_reorder);
		v[X_RX_FCORRUPT] += rd(&r->f_corrupt);
		v[X_RX_COALESCED] += rd(&r->coalesced);
		v[X_RX_DRAINS] += rd(&r->drains);
		v[X_RX_DRAIN_FULL] += rd(&r->drain_full);
		v[X_RX_DRAIN_CYC] += rd(&r->drain_cycles);
		v[X_TX_FRAMES] += rd(&s->frames);
		v[X_TX_BYTES] += rd(&s->bytes);
		v[X_TX_FULL] += rd(&s->ring_full);
		v[X_TX_BIG] += rd(&s->too_big);
		v[X_TX_KICK] += rd(&s->kick_err);
		v[X_TX_KICKS] += rd(&s->kicks);
		v[X_TX_KICK_CYC] += rd(&s->kick_cycles);
		v[X_RX_BURST_CYC] += rd(&ifc->rxq_st[i].burst_cycles);
		v[X_TX_BURST_CYC] += rd(&s->tx_burst_cycles);
		v[X_TX_GSO] += rd(&s->gso_frames);
	}
	v[X_IF_RX_DROPPED] = if_counter(ifc, "rx_dropped");
	v[X_IF_TX_DROPPED] = if_counter(ifc, "tx_dropped");
	for (i = 0; i < X_NB; i++) {
		xs[i].id = first + i;
		xs[i].value = v[i];
	}
	return X_NB;
}

void
hsplit_iface_stats_reset(struct hsplit_port *p)
{
	struct hsplit_iface *ifc = p->iface;
	unsigned int i;

	if (ifc == NULL)
		return;
	for (i = 0; i < HSPLIT_MAX_QUEUES; i++) {
		struct iface_rx *x = &ifc->rx[i];

		rte_spinlock_lock(&x->lock);
		rx_kstats(x);
		__atomic_store_n(&x->kdrops, 0, __ATOMIC_RELAXED);
		memset(&x->st, 0, sizeof(x->st));
		rte_spinlock_unlock(&x->lock);
		memset(&ifc->tx[i].st, 0, sizeof(ifc->tx[i].st));
		memset(&ifc->rxq_st[i], 0, sizeof(ifc->rxq_st[i]));
	}
}
