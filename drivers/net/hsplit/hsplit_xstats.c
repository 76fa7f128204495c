/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Basic stats and xstats. Names: rx_q<N>_<counter>, tx_q<N>_<counter> per
 * queue, then the port's wire counters. Counters live in the queues (one
 * writer each); ring-full drops are added by the peer's TX atomically.
 */
#include <stdio.h>
#include <string.h>

#include "hsplit_iface.h"
#include "hsplit_private.h"

struct xname_off {
	const char *name;
	size_t off;
};

static const struct xname_off rx_xstats[] = {
	{ "split_packets", offsetof(struct hsplit_rxq_stats, split_packets) },
	{ "header_bytes", offsetof(struct hsplit_rxq_stats, hdr_bytes) },
	{ "payload_bytes", offsetof(struct hsplit_rxq_stats, payload_bytes) },
	{ "copy_bytes", offsetof(struct hsplit_rxq_stats, copy_bytes) },
	{ "copy_calls", offsetof(struct hsplit_rxq_stats, copy_calls) },
	{ "nomatch_packets", offsetof(struct hsplit_rxq_stats, nomatch) },
	{ "ip_cksum_errors", offsetof(struct hsplit_rxq_stats, ip_cksum_err) },
	{ "l4_cksum_errors", offsetof(struct hsplit_rxq_stats, l4_cksum_err) },
	{ "drop_no_mbuf", offsetof(struct hsplit_rxq_stats, drop_nombuf) },
	{ "drop_hdr_too_big", offsetof(struct hsplit_rxq_stats, drop_hdr_too_big) },
	{ "drop_too_big", offsetof(struct hsplit_rxq_stats, drop_too_big) },
	{ "drop_copy_error", offsetof(struct hsplit_rxq_stats, drop_copy_err) },
	{ "drop_ring_full", offsetof(struct hsplit_rxq_stats, missed) },
	{ "copy_busy", offsetof(struct hsplit_rxq_stats, copy_busy) },
	{ "copy_latency_frames", offsetof(struct hsplit_rxq_stats, copy_lat_frames) },
	{ "copy_latency_cycles", offsetof(struct hsplit_rxq_stats, copy_lat_cycles) },
};

static const struct xname_off tx_xstats[] = {
	{ "copy_bytes", offsetof(struct hsplit_txq_stats, copy_bytes) },
	{ "copy_calls", offsetof(struct hsplit_txq_stats, copy_calls) },
	{ "copy_gathers", offsetof(struct hsplit_txq_stats, copy_gathers) },
	{ "drop_copy_error", offsetof(struct hsplit_txq_stats, drop_copy_err) },
	{ "drop_too_big", offsetof(struct hsplit_txq_stats, drop_too_big) },
	{ "tso_frames", offsetof(struct hsplit_txq_stats, tso_frames) },
	{ "tso_segs", offsetof(struct hsplit_txq_stats, tso_segs) },
	{ "drop_tso_bad", offsetof(struct hsplit_txq_stats, drop_tso_bad) },
	{ "drop_multi_seg", offsetof(struct hsplit_txq_stats, drop_multi_seg) },
	{ "copy_wait_cycles", offsetof(struct hsplit_txq_stats, copy_wait_cycles) },
	{ "copy_latency_chunks", offsetof(struct hsplit_txq_stats, copy_lat_chunks) },
	{ "copy_latency_cycles", offsetof(struct hsplit_txq_stats, copy_lat_cycles) },
};

/* Port counters: sums over the TX queues, and the port's own. */
static const struct xname_off wire_xstats[] = {
	{ "wire_loss", offsetof(struct hsplit_txq_stats, loss) },
	{ "wire_dup", offsetof(struct hsplit_txq_stats, dup) },
	{ "wire_reorder", offsetof(struct hsplit_txq_stats, reorder) },
	{ "wire_corrupt", offsetof(struct hsplit_txq_stats, corrupt) },
	{ "wire_paced", offsetof(struct hsplit_txq_stats, paced) },
	{ "wire_peer_down", offsetof(struct hsplit_txq_stats, peer_down) },
	{ "wire_delayed", offsetof(struct hsplit_txq_stats, delayed) },
};

#define NB_RX RTE_DIM(rx_xstats)
#define NB_TX RTE_DIM(tx_xstats)
#define NB_WIRE RTE_DIM(wire_xstats)
/*
 * Gauges after each queue's counters: rx_q<N>_pending, frames taken from
 * the wire whose payload copies have not all completed; tx_q<N>_in_flight,
 * frames whose copies are in flight. Read from another thread without
 * synchronisation: a snapshot, for telling a stuck copy from an idle queue.
 */
#define NB_GAUGE 1

static unsigned int
xstats_count(const struct rte_eth_dev *dev)
{
	return dev->data->nb_rx_queues * (NB_RX + NB_GAUGE) +
		dev->data->nb_tx_queues * (NB_TX + NB_GAUGE) +
		NB_WIRE + 1 + hsplit_iface_xstats_count(dev->data->dev_private);
}

static inline uint64_t
field(const void *base, size_t off)
{
	return __atomic_load_n((const uint64_t *)(const void *)
		((const char *)base + off), __ATOMIC_RELAXED);
}

int
hsplit_xstats_get_names(struct rte_eth_dev *dev,
	struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int n = xstats_count(dev), k = 0, q, i;

	if (names == NULL || size < n)
		return (int)n;
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		for (i = 0; i < NB_RX; i++)
			snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
				"rx_q%u_%s", q, rx_xstats[i].name);
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			"rx_q%u_pending", q);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		for (i = 0; i < NB_TX; i++)
			snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
				"tx_q%u_%s", q, tx_xstats[i].name);
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			"tx_q%u_in_flight", q);
	}
	for (i = 0; i < NB_WIRE; i++)
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "%s",
			wire_xstats[i].name);
	snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "rx_no_queue_drops");
	k += hsplit_iface_xstats_names(hsplit_port_of(dev), names + k);
	return (int)k;
}

int
hsplit_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
	unsigned int size)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	unsigned int n = xstats_count(dev), k = 0, q, i;

	if (xs == NULL || size < n)
		return (int)n;
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct hsplit_rxq *rq = dev->data->rx_queues[q];

		for (i = 0; i < NB_RX; i++, k++) {
			xs[k].id = k;
			xs[k].value = rq ? field(&rq->st, rx_xstats[i].off) : 0;
		}
		xs[k].id = k;
		xs[k].value = rq ? (uint32_t)(__atomic_load_n(&rq->pend_tail,
			__ATOMIC_RELAXED) - __atomic_load_n(&rq->pend_head,
			__ATOMIC_RELAXED)) : 0;
		k++;
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct hsplit_txq *tq = dev->data->tx_queues[q];

		for (i = 0; i < NB_TX; i++, k++) {
			xs[k].id = k;
			xs[k].value = tq ? field(&tq->st, tx_xstats[i].off) : 0;
		}
		xs[k].id = k;
		xs[k].value = tq ? __atomic_load_n(&tq->fl_frames,
			__ATOMIC_RELAXED) : 0;
		k++;
	}
	for (i = 0; i < NB_WIRE; i++, k++) {
		xs[k].id = k;
		xs[k].value = 0;
		for (q = 0; q < dev->data->nb_tx_queues; q++) {
			struct hsplit_txq *tq = dev->data->tx_queues[q];

			if (tq != NULL)
				xs[k].value += field(&tq->st, wire_xstats[i].off);
		}
	}
	xs[k].id = k;
	xs[k].value = __atomic_load_n(&p->rx_nodev, __ATOMIC_RELAXED);
	k++;
	k += hsplit_iface_xstats_get(p, xs + k, k);
	return (int)k;
}

int
hsplit_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	unsigned int q;

	st->imissed = __atomic_load_n(&p->rx_nodev, __ATOMIC_RELAXED) +
		hsplit_iface_rx_missed(p);
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		const struct hsplit_rxq *rq = dev->data->rx_queues[q];
		const struct hsplit_rxq_stats *s;

		if (rq == NULL)
			continue;
		s = &rq->st;
		st->ipackets += s->packets;
		st->ibytes += s->bytes;
		st->imissed += __atomic_load_n(&s->missed, __ATOMIC_RELAXED);
		/* Per queue, summed here (ethdev's port-wide field stays 0). */
		st->rx_nombuf += s->drop_nombuf;
		st->ierrors += s->drop_hdr_too_big + s->drop_too_big +
			s->drop_copy_err;
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_ipackets[q] = s->packets;
			st->q_ibytes[q] = s->bytes;
			st->q_errors[q] = s->drop_hdr_too_big + s->drop_too_big +
				s->drop_copy_err;
		}
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct hsplit_txq *tq = dev->data->tx_queues[q];

		if (tq == NULL)
			continue;
		st->opackets += tq->st.packets;
		st->obytes += tq->st.bytes;
		st->oerrors += tq->st.drop_copy_err + tq->st.drop_too_big +
			tq->st.drop_tso_bad + tq->st.drop_multi_seg;
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_opackets[q] = tq->st.packets;
			st->q_obytes[q] = tq->st.bytes;
		}
	}
	return 0;
}

int
hsplit_stats_reset(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	unsigned int q;

	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct hsplit_rxq *rq = dev->data->rx_queues[q];

		if (rq != NULL)
			memset(&rq->st, 0, sizeof(rq->st));
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct hsplit_txq *tq = dev->data->tx_queues[q];

		if (tq != NULL)
			memset(&tq->st, 0, sizeof(tq->st));
	}
	__atomic_store_n(&p->rx_nodev, 0, __ATOMIC_RELAXED);
	hsplit_iface_stats_reset(p);
	dev->data->rx_mbuf_alloc_failed = 0;
	return 0;
}

int
hsplit_xstats_reset(struct rte_eth_dev *dev)
{
	return hsplit_stats_reset(dev);
}
