/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loopback wire: pairing of ports by wire name, what the receiving NIC
 * does at ingress (checksum verification, RSS, rte_flow, queue choice),
 * seeded faults and line-rate pacing.
 *
 * Ingress processing runs on the sending thread, on the host-memory wire
 * buffer, before the frame is queued: the receiving queue's thread then only
 * splits and copies. Its per-queue counters are derived from what is stored
 * in the wire buffer, so only ring-full drops are counted across threads
 * (atomically).
 *
 * hsplit_wire_classify() and hsplit_wire_ingress() are the receiving NIC's
 * ingress for every wire: the loopback wire calls them from the sender's
 * TX, the Linux-interface backend (hsplit_iface.c) from the receiver's RX
 * poll with frames taken from its AF_PACKET ring.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "hsplit_iface.h"
#include "hsplit_offload.h"
#include "hsplit_private.h"
#include "hsplit_tso.h"

/* @p ops, @p ops2: the driver's ops tables (capability profiles differ in ops). */
int
hsplit_wire_attach(struct rte_eth_dev *dev, const struct eth_dev_ops *ops,
	const struct eth_dev_ops *ops2)
{
	struct hsplit_port *p = hsplit_port_of(dev), *other = NULL;
	uint16_t pid, ports[2];
	unsigned int count = 0;

	p->peer = NULL;
	if (p->da.wire[0] == '\0')
		return 0;
	for (pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		struct rte_eth_dev *d = &rte_eth_devices[pid];
		struct hsplit_port *o;

		if (d == dev || d->state == RTE_ETH_DEV_UNUSED ||
				(d->dev_ops != ops && d->dev_ops != ops2) ||
				d->data == NULL ||
				d->data->dev_private == NULL)
			continue;
		o = d->data->dev_private;
		if (strcmp(o->da.wire, p->da.wire) != 0)
			continue;
		if (count < 2)
			ports[count] = pid;
		count++;
		other = o;
	}
	if (count >= 2) {
		HSPLIT_LOG(ERR, "wire %s already connects ports %u and %u; port %u cannot join it",
			p->da.wire, ports[0], ports[1], p->port_id);
		return -EADDRINUSE;
	}
	if (other != NULL) {
		p->peer = other;
		other->peer = p;
		HSPLIT_LOG(INFO, "wire %s: port %u <-> port %u", p->da.wire,
			other->port_id, p->port_id);
	}
	return 0;
}

void
hsplit_wire_detach(struct hsplit_port *p)
{
	if (p->peer != NULL && p->peer->peer == p)
		p->peer->peer = NULL;
	p->peer = NULL;
}

uint64_t
hsplit_prob_threshold(double pr)
{
	if (pr <= 0.0)
		return 0;
	if (pr >= 1.0)
		return UINT64_MAX;
	return (uint64_t)(pr * 18446744073709551616.0);
}

/*
 * Corrupt a frame as a bad wire would, after every checksum was computed:
 * flip one bit of a byte covered by the IPv4 header checksum or by the
 * TCP/UDP checksum (never Ethernet padding, which no checksum covers, so
 * that the receiver's verification is sure to catch it). @p draw picks the
 * byte. Returns 0, or -1 for a frame that has no such byte (not IPv4).
 */
int
hsplit_wire_corrupt(struct hsplit_wbuf *wb, uint64_t draw)
{
	const struct hsplit_pkt_info *pi = &wb->pi;
	uint32_t first = pi->l2_len, span;

	if (pi->l3_len == 0 || pi->ip_len <= pi->l3_len ||
			first + pi->ip_len > wb->len || pi->is_fragment ||
			(pi->ip_proto != IPPROTO_TCP && pi->ip_proto != IPPROTO_UDP))
		return -1;
	/* TCP/UDP header and payload: the L4 checksum covers them. */
	first += pi->l3_len;
	span = pi->ip_len - pi->l3_len;
	wb->data[first + (uint32_t)((draw >> 32) % span)] ^= 0x01;
	return 0;
}

void
hsplit_pace_init(struct hsplit_txq *q, double rate_gbps, uint16_t nb_txq)
{
	double tsc_hz = (double)rte_get_tsc_hz();

	if (rate_gbps <= 0.0 || nb_txq == 0) {
		q->bytes_per_tsc = 0;
		return;
	}
	/* The line rate is shared evenly by the port's TX queues. */
	q->bytes_per_tsc = rate_gbps * 1e9 / 8.0 / tsc_hz / nb_txq;
	q->bucket_max = RTE_MAX(65536.0, 2.0 * (HSPLIT_MAX_FRAME + HSPLIT_WIRE_OVERHEAD));
	q->tokens = q->bucket_max;
	q->last_tsc = rte_rdtsc();
}

uint16_t
hsplit_pace(struct hsplit_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t now;
	uint16_t i;
	double cost;

	if (q->bytes_per_tsc == 0)
		return n;
	now = rte_rdtsc();
	q->tokens += (double)(now - q->last_tsc) * q->bytes_per_tsc;
	if (q->tokens > q->bucket_max)
		q->tokens = q->bucket_max;
	q->last_tsc = now;
	/*
	 * A frame goes while the bucket is not empty and may leave it in
	 * debt: a TSO frame's segments can cost more than the bucket holds.
	 */
	for (i = 0; i < n; i++) {
		cost = (double)hsplit_tso_wire_len(pkts[i], HSPLIT_WIRE_OVERHEAD);
		if (q->tokens <= 0.0)
			break;
		q->tokens -= cost;
	}
	q->st.paced += (uint64_t)(n - i);
	return i;
}

void
hsplit_pace_refund(struct hsplit_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	if (q->bytes_per_tsc == 0)
		return;
	for (i = 0; i < n; i++)
		q->tokens += (double)hsplit_tso_wire_len(pkts[i],
			HSPLIT_WIRE_OVERHEAD);
}

void
hsplit_wire_classify(struct hsplit_port *peer, struct hsplit_wbuf *wb,
	unsigned int tx_done)
{
	uint64_t off;
	uint32_t hash = 0;
	uint16_t q = 0, nbq;
	int hashed = 0;

	wb->rx_flags = 0;
	wb->rss_hash = 0;
	wb->queue = 0;
	wb->due = 0;
	if (peer == NULL)
		return;
	off = peer->rx_offloads;
	wb->rx_flags = hsplit_rx_cksum(wb->data, wb->len, &wb->pi,
		!!(off & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM),
		!!(off & (RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM)),
		tx_done);
	if (peer->rss_on || (off & RTE_ETH_RX_OFFLOAD_RSS_HASH))
		hashed = hsplit_rss_hash(&wb->pi, peer->rss_hf, peer->rss_key, &hash);
	if (hashed) {
		wb->rss_hash = hash;
		wb->rx_flags |= RTE_MBUF_F_RX_RSS_HASH;
	}
	nbq = peer->data->nb_rx_queues;
#ifdef HSPLIT_HAVE_FLOW
	if (hsplit_flow_classify(&peer->flow, &wb->pi, hash, &q) && q < nbq) {
		wb->queue = q;
		return;
	}
#endif
	if (peer->rss_on && hashed)
		q = peer->reta[hash % HSPLIT_RETA_SIZE];
	wb->queue = q < nbq ? q : 0;
}

static void
free_run(struct hsplit_wbuf **wb, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		rte_mempool_put(rte_mempool_from_obj(wb[i]), wb[i]);
}

/*
 * Frames classified for port @p rx (hsplit_wire_classify()) go to the rings
 * of their RX queues; a missing queue or a full ring drops and counts them.
 */
void
hsplit_wire_ingress(struct hsplit_port *rx, struct hsplit_wbuf **wb, uint16_t n)
{
	uint16_t i = 0, j, qid;
	unsigned int k;
	struct hsplit_rxq *rq;

	/* Runs of frames for the same queue go in one enqueue, order kept. */
	while (i < n) {
		qid = wb[i]->queue;
		for (j = i + 1; j < n && wb[j]->queue == qid; j++)
			;
		rq = qid < rx->data->nb_rx_queues ?
			rx->data->rx_queues[qid] : NULL;
		if (rq == NULL) {
			__atomic_fetch_add(&rx->rx_nodev, j - i, __ATOMIC_RELAXED);
			free_run(wb + i, (uint16_t)(j - i));
		} else {
			k = rte_ring_enqueue_burst(rq->ring, (void **)(wb + i),
				j - i, NULL);
			if (k < (unsigned int)(j - i)) {
				__atomic_fetch_add(&rq->st.missed, j - i - k,
					__ATOMIC_RELAXED);
				free_run(wb + i + k, (uint16_t)(j - i - k));
			}
		}
		i = j;
	}
}

/* Due times of frames entering the delay line, in the order they go out. */
static void
delay_stamp(struct hsplit_txq *tq, struct hsplit_wbuf **wb, uint16_t n)
{
	uint64_t now = rte_rdtsc();
	uint16_t i;

	for (i = 0; i < n; i++)
		wb[i]->due = hsplit_delay_due(&tq->dl, now);
	tq->st.delayed += n;
}

int
hsplit_wire_deliver(struct hsplit_port *peer, struct hsplit_wbuf **wb,
	uint16_t n, struct hsplit_txq *tq)
{
	if (unlikely(hsplit_delay_on(&tq->dl)))
		delay_stamp(tq, wb, n);
	if (tq->port->iface != NULL) {
		hsplit_iface_xmit(tq, wb, n);
		return 0;
	}
	if (peer == NULL || !peer->started) {
		tq->st.peer_down += n;
		free_run(wb, n);
		return 0;
	}
	hsplit_wire_ingress(peer, wb, n);
	return 0;
}
