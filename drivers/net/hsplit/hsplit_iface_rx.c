/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux-interface backend, receive: frames from the AF_PACKET RX rings into
 * the port's ingress (split, steering) as from a wire.
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

#include "hsplit_iface_priv.h"

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

