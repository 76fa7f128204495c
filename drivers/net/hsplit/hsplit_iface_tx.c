/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux-interface backend, transmit: frames into the AF_PACKET TX rings
 * (through the driver's TX path: offloads, GSO, delay), kicked to the kernel.
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
