/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux-interface backend, counters: the interface's xstats (its own and
 * the kernel's drop counts) and rx_missed.
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
		hsplit_iface_rx_kstats(x);
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
		hsplit_iface_rx_kstats(x);
		__atomic_store_n(&x->kdrops, 0, __ATOMIC_RELAXED);
		memset(&x->st, 0, sizeof(x->st));
		rte_spinlock_unlock(&x->lock);
		memset(&ifc->tx[i].st, 0, sizeof(ifc->tx[i].st));
		memset(&ifc->rxq_st[i], 0, sizeof(ifc->rxq_st[i]));
	}
}

