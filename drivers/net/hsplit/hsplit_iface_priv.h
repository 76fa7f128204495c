/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the Linux-interface backend share (hsplit_iface.c:
 * sockets, rings and the port's control; hsplit_iface_rx.c and
 * hsplit_iface_tx.c: the data path; hsplit_iface_stats.c: its counters).
 * The rest of the driver sees hsplit_iface.h only.
 */
#ifndef HSPLIT_IFACE_PRIV_H
#define HSPLIT_IFACE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>

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
	uint8_t gro_set;        /* port start turned the interface's GRO on */
	struct rte_mempool *lro_pool; /* their wire buffers (made at first use) */
	uint8_t gso;            /* the kernel takes GSO frames (PACKET_VNET_HDR) */
	/* Wire buffers of TSO frames sent whole, while the port has TSO on. */
	struct rte_mempool *gso_pool;
	struct iface_rx rx[HSPLIT_MAX_QUEUES];
	struct iface_rxq_stats rxq_st[HSPLIT_MAX_QUEUES];
	struct iface_tx tx[HSPLIT_MAX_QUEUES];
};

/* Port start/stop: the interface's GRO while the port has LRO (hsplit_iface_gro.c). */
void hsplit_iface_gro_start(struct hsplit_port *p, struct hsplit_iface *ifc);
void hsplit_iface_gro_stop(struct hsplit_iface *ifc);
/* Fold the kernel's counters of @p x in (reading them resets them). */
void hsplit_iface_rx_kstats(struct iface_rx *x);

#endif /* HSPLIT_IFACE_PRIV_H */
