/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending from device memory in the lib/dp component tests (--tx-device):
 * the send pattern mirrored into buffers of the gpu_sim region (written
 * through the region's CPU map, as an application's kernel would write
 * them), sends that reference them with device = true, and the checks of
 * what the client's stack did with them on its port.
 */
#ifndef DP_TEST_TXDEV_H
#define DP_TEST_TXDEV_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_malloc.h>

#include "dp_fixture.h"
#include "dt_dp.h"
#include "dt_dp_port.h"
#include "dt_test.h"

struct dp_txdev {
	struct rte_mbuf **m;   /* region buffers holding the pattern */
	uint32_t n;
	uint32_t room;         /* pattern bytes per buffer */
};

/* Mirror @p fx's pattern (@p pat_len bytes) into region buffers. */
static inline int
dp_txdev_setup(struct dp_txdev *d, const struct dp_fixture *fx,
	uint32_t pat_len)
{
	struct rte_mempool *mp = dt_devmem_region_pool(fx->region);
	uintptr_t base = (uintptr_t)dt_devmem_region_base(fx->region);
	uint32_t i, len;

	if (fx->alias == NULL)
		return -ENOTSUP;
	d->m = rte_zmalloc("dp_txdev", sizeof(d->m[0]) * 4096, 0);
	if (d->m == NULL)
		return -ENOMEM;
	d->room = 0;
	for (i = 0, d->n = 0; i < pat_len; i += len, d->n++) {
		if (d->n == 4096)
			return -E2BIG;
		d->m[d->n] = rte_pktmbuf_alloc(mp);
		if (d->m[d->n] == NULL)
			return -ENOBUFS;
		if (d->room == 0)
			d->room = rte_pktmbuf_tailroom(d->m[d->n]);
		len = RTE_MIN(d->room, pat_len - i);
		/* Through the CPU map: the device address is not the CPU's. */
		memcpy((uint8_t *)fx->alias + (rte_pktmbuf_mtod(d->m[d->n],
			uintptr_t) - base), fx->pattern + i, len);
	}
	return 0;
}

/* The device buffer of pattern bytes [@p pos, @p pos + *@p len): *@p len cut to one buffer. */
static inline void
dp_txdev_buf(const struct dp_txdev *d, uint32_t pos, uint32_t *len,
	struct dt_dp_buf *b)
{
	struct rte_mbuf *m = d->m[pos / d->room];
	uint32_t off = pos % d->room;

	*len = RTE_MIN(*len, d->room - off);
	b->addr = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
	b->iova = rte_pktmbuf_iova_offset(m, off);
	b->len = *len;
	b->device = true;
}

static inline void
dp_txdev_teardown(struct dp_txdev *d)
{
	uint32_t i;

	for (i = 0; d->m != NULL && i < d->n; i++)
		rte_pktmbuf_free(d->m[i]);
	rte_free(d->m);
	d->m = NULL;
}

/*
 * The client sent @p payload bytes from device memory: none refused. On a
 * port that needs the payload in its frames (no multi-segment TX or no TX
 * checksum offload) the copy engine wrote every byte (retransmissions
 * again: at least the bytes acknowledged), without an error.
 */
static inline void
dp_txdev_check(uint16_t port, const struct dt_dp_stats *s, uint64_t payload)
{
	struct dt_dp_port_mode m;

	DT_CHECK_EQ(dt_dp_port_mode_get(port, &m), 0);
	printf("  tx from device memory: %" PRIu64 " bytes copied into frames by the engine (%" PRIu64
		" acknowledged), %" PRIu64 " errors, %" PRIu64 " refused, %" PRIu64
		" frames too big\n", s->tx_copy_bytes, payload, s->tx_copy_errors,
		s->tx_device_refused, s->drop_tx_linear);
	DT_CHECK_EQ(s->tx_device_refused, 0);
	DT_CHECK_EQ(s->tx_copy_errors, 0);
	DT_CHECK_EQ(s->drop_tx_linear, 0);
	if (!m.tx_multi_seg || !m.tx_cksum) {
		DT_CHECK(s->tx_copy_bytes >= payload);
	} else {
		DT_CHECK_EQ(s->tx_copy_bytes, 0);
	}
}

/*
 * A NIC that keeps sent mbufs (net_hsplit tx_hold=): the client's stack
 * switched to frames that own their payload once, and its sends completed
 * (the transfer's own checks); any other NIC (this one frees what it sent
 * before the frame reaches the peer): never.
 */
static inline void
dp_test_check_held(const struct dt_dp_stats *s, bool expect)
{
	printf("  held sends: tx_held_switch %" PRIu64 "\n", s->tx_held_switch);
	DT_CHECK_EQ(s->tx_held_switch, expect ? 1 : 0);
}

#endif /* DP_TEST_TXDEV_H */
