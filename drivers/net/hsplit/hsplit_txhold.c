/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tx_hold=N: a NIC that keeps the mbufs of the frames it sent until its
 * ring needs room, and cannot be asked to free them (no tx_done_cleanup),
 * as DPDK 22.11's virtio_user does. The mbufs of the last N frames stay
 * here; each new one pushes the oldest out. An application's buffers
 * referenced by them (TX shells) come back only then: what a stack above
 * must cope with (lib/dp: dt_dp_txheld.c).
 */
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "hsplit_private.h"

int
hsplit_txhold_init(struct hsplit_txq *q, uint32_t n, int socket)
{
	q->hold_cap = 0;
	if (n == 0)
		return 0;
	q->hold = rte_zmalloc_socket("hsplit_txq_hold", sizeof(q->hold[0]) * n,
		RTE_CACHE_LINE_SIZE, socket);
	if (q->hold == NULL) {
		HSPLIT_LOG(ERR, "port %u txq %u: no memory for tx_hold=%u",
			q->port->port_id, q->qid, n);
		return -ENOMEM;
	}
	q->hold_cap = n;
	q->hold_head = 0;
	q->hold_n = 0;
	return 0;
}

void
hsplit_txhold_put(struct hsplit_txq *q, struct rte_mbuf **m, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (q->hold_n == q->hold_cap) {
			rte_pktmbuf_free(q->hold[q->hold_head]);
			q->hold_head = (q->hold_head + 1) % q->hold_cap;
			q->hold_n--;
		}
		q->hold[(q->hold_head + q->hold_n) % q->hold_cap] = m[i];
		q->hold_n++;
	}
}

void
hsplit_txhold_flush(struct hsplit_txq *q)
{
	while (q->hold_n > 0) {
		rte_pktmbuf_free(q->hold[q->hold_head]);
		q->hold_head = (q->hold_head + 1) % q->hold_cap;
		q->hold_n--;
	}
}
