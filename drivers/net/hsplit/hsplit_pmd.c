/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The public functions of rte_pmd_hsplit.h: a port's wire counters, its
 * peer, and the pools of host memory its frames live in (for applications
 * that register them with a copy engine).
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "hsplit_iface.h"
#include "hsplit_private.h"
#include "rte_pmd_hsplit.h"

int
rte_pmd_hsplit_wire_stats_get(uint16_t port_id,
	struct rte_pmd_hsplit_wire_stats *s)
{
	struct rte_eth_dev *dev;
	struct hsplit_port *p;
	uint16_t q;
	int err = 0;

	p = hsplit_port_checked(port_id, &err);
	if (p == NULL)
		return err;
	dev = &rte_eth_devices[port_id];
	memset(s, 0, sizeof(*s));
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct hsplit_txq *tq = dev->data->tx_queues[q];

		if (tq == NULL)
			continue;
		s->loss += tq->st.loss;
		s->dup += tq->st.dup;
		s->reorder += tq->st.reorder;
		s->paced += tq->st.paced;
		s->peer_down += tq->st.peer_down;
	}
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		const struct hsplit_rxq *rq = dev->data->rx_queues[q];

		if (rq != NULL)
			s->rx_missed += __atomic_load_n(&rq->st.missed, __ATOMIC_RELAXED);
	}
	s->rx_no_queue = __atomic_load_n(&p->rx_nodev, __ATOMIC_RELAXED);
	return 0;
}

int
rte_pmd_hsplit_peer_port(uint16_t port_id)
{
	struct hsplit_port *p;
	int err = 0;

	p = hsplit_port_checked(port_id, &err);
	if (p == NULL)
		return err;
	return p->peer != NULL ? p->peer->port_id : -ENOTCONN;
}

struct rte_mempool *
rte_pmd_hsplit_wire_pool(uint16_t port_id)
{
	struct hsplit_port *p;
	int err = 0;

	p = hsplit_port_checked(port_id, &err);
	if (p == NULL || p->wire_pool == NULL) {
		rte_errno = p == NULL ? -err : ENODEV;
		return NULL;
	}
	return p->wire_pool;
}

/* An interface backend's pool of port @p port_id, as @p get finds it. */
static struct rte_mempool *
iface_pool(uint16_t port_id,
	struct rte_mempool *(*get)(const struct hsplit_port *p))
{
	struct rte_mempool *mp;
	struct hsplit_port *p;
	int err = 0;

	p = hsplit_port_checked(port_id, &err);
	if (p == NULL) {
		rte_errno = -err;
		return NULL;
	}
	mp = get(p);
	if (mp == NULL)
		rte_errno = ENOENT;
	return mp;
}

struct rte_mempool *
rte_pmd_hsplit_lro_pool(uint16_t port_id)
{
	return iface_pool(port_id, hsplit_iface_lro_pool);
}

struct rte_mempool *
rte_pmd_hsplit_gso_pool(uint16_t port_id)
{
	return iface_pool(port_id, hsplit_iface_gso_pool);
}
