/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --capture FILE: headers-only packet capture into pcapng, inside the
 * server (Debian's dpdk-dumpcap cannot load an out-of-tree NIC in its
 * secondary process). RX and TX callbacks on every queue of the server's
 * port copy the first segment of each frame only — the header mbuf, which
 * holds Ethernet/IPv4/TCP headers and any payload the NIC left in host
 * memory — so payload in device memory is never read; the captured length
 * is that segment's, the original length the whole frame's. Copies go
 * through a multi-producer ring (lock-free) to a control thread that writes
 * the file; a full ring or pool counts a drop instead of stalling a core.
 *
 * Two habits of DPDK 22.11's pcapng library this file works around:
 * rte_pcapng_write_packets() does not free the mbufs it writes (its header
 * says it does; dpdk-dumpcap frees them after the call), and
 * rte_pcapng_copy() converts the TSC with a clock it starts lazily on its
 * first call and moves forward, unsynchronised, from whichever lcore copies:
 * a stamp read before that start (or before another lcore moved the clock)
 * wraps to about 2^64 / tsc_hz seconds ahead (year 2305). So the copy's
 * Enhanced Packet Block gets its timestamp from this file's own clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_ring.h>
#include <rte_time.h>

#include "srv.h"

#define CAP_RING 8192
#define CAP_BURST 64
#define CAP_SNAP 512            /* longest header segment captured */
#define CAP_EPB_TYPE 6          /* pcapng Enhanced Packet Block */

/* The head of a pcapng Enhanced Packet Block (pcapng spec, section 4.3). */
struct cap_epb {
	uint32_t block_type;
	uint32_t block_length;
	uint32_t interface_id;
	uint32_t timestamp_hi;
	uint32_t timestamp_lo;
};

/* Wall clock at a TSC reading, taken once before any frame is copied. */
struct cap_clock {
	uint64_t tsc0;
	uint64_t ns0;             /* CLOCK_REALTIME at tsc0, ns since 1970 */
	uint64_t hz;
};

struct srv_capture {
	rte_pcapng_t *pcapng;
	struct rte_mempool *pool;
	struct rte_ring *ring;
	pthread_t thread;
	volatile bool stop;
	uint16_t port;
	uint16_t nb_rxq, nb_txq;
	const struct rte_eth_rxtx_callback *rx_cb[SRV_MAX_STACKS + 1];
	const struct rte_eth_rxtx_callback *tx_cb[SRV_MAX_STACKS + 1];
	struct cap_clock clock;
	uint64_t written;
	uint64_t dropped;        /* updated by the polling lcores (atomic) */
};

static void
cap_clock_start(struct cap_clock *c)
{
	struct timespec ts;

	c->hz = rte_get_tsc_hz();
	c->tsc0 = rte_get_tsc_cycles();
	clock_gettime(CLOCK_REALTIME, &ts);
	c->ns0 = rte_timespec_to_ns(&ts);
}

/*
 * Seconds first, so that no product overflows however long the capture; a
 * reading just before tsc0 (another core's TSC) counts as tsc0.
 */
static uint64_t
cap_clock_ns(const struct cap_clock *c, uint64_t tsc)
{
	uint64_t delta = (int64_t)(tsc - c->tsc0) > 0 ? tsc - c->tsc0 : 0;

	return c->ns0 + delta / c->hz * NSEC_PER_SEC +
		delta % c->hz * NSEC_PER_SEC / c->hz;
}

/* Put the wall-clock stamp into the copy's Enhanced Packet Block. */
static void
cap_stamp(struct rte_mbuf *m, uint64_t ns)
{
	struct cap_epb *epb = rte_pktmbuf_mtod(m, struct cap_epb *);

	if (m->data_len >= sizeof(*epb) && epb->block_type == CAP_EPB_TYPE) {
		epb->timestamp_hi = (uint32_t)(ns >> 32);
		epb->timestamp_lo = (uint32_t)ns;
	}
}

/* Copy the header segment of each frame; never the chained payload. */
static void
capture_burst(struct srv_capture *cap, uint16_t queue, struct rte_mbuf **pkts,
	uint16_t n, enum rte_pcapng_direction dir)
{
	struct rte_mbuf *copy[CAP_BURST];
	uint64_t ts = rte_get_tsc_cycles();
	uint64_t ns = cap_clock_ns(&cap->clock, ts);
	uint16_t i, k = 0, done;

	for (i = 0; i < n && k < CAP_BURST; i++) {
		uint32_t snap = RTE_MIN(pkts[i]->data_len, CAP_SNAP);

		copy[k] = rte_pcapng_copy(cap->port, queue, pkts[i], cap->pool,
			snap, ts, dir);
		if (copy[k] != NULL)
			cap_stamp(copy[k++], ns);
	}
	done = (uint16_t)rte_ring_enqueue_burst(cap->ring, (void **)copy, k, NULL);
	if (done < k)
		rte_pktmbuf_free_bulk(copy + done, k - done);
	if (n - done != 0)
		__atomic_fetch_add(&cap->dropped, n - done, __ATOMIC_RELAXED);
}

static uint16_t
capture_rx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	uint16_t max, void *arg)
{
	RTE_SET_USED(port);
	RTE_SET_USED(max);
	if (n != 0)
		capture_burst(arg, queue, pkts, n, RTE_PCAPNG_DIRECTION_IN);
	return n;
}

static uint16_t
capture_tx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	void *arg)
{
	RTE_SET_USED(port);
	if (n != 0)
		capture_burst(arg, queue, pkts, n, RTE_PCAPNG_DIRECTION_OUT);
	return n;
}

static void
capture_drain(struct srv_capture *cap)
{
	struct rte_mbuf *m[CAP_BURST];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(cap->ring, (void **)m, CAP_BURST,
			NULL)) != 0) {
		if (rte_pcapng_write_packets(cap->pcapng, m, (uint16_t)n) < 0)
			__atomic_fetch_add(&cap->dropped, n, __ATOMIC_RELAXED);
		else
			cap->written += n;
		/* 22.11 writes without freeing (see the top of this file). */
		rte_pktmbuf_free_bulk(m, n);
	}
}

static void *
capture_thread(void *arg)
{
	struct srv_capture *cap = arg;

	while (!cap->stop) {
		capture_drain(cap);
		usleep(2000);
	}
	capture_drain(cap);
	return NULL;
}

static int
capture_callbacks(struct srv_capture *cap)
{
	uint16_t q;

	for (q = 0; q < cap->nb_rxq; q++) {
		cap->rx_cb[q] = rte_eth_add_rx_callback(cap->port, q, capture_rx, cap);
		if (cap->rx_cb[q] == NULL)
			return -rte_errno;
	}
	for (q = 0; q < cap->nb_txq; q++) {
		cap->tx_cb[q] = rte_eth_add_tx_callback(cap->port, q, capture_tx, cap);
		if (cap->tx_cb[q] == NULL)
			return -rte_errno;
	}
	return 0;
}

int
srv_capture_start(struct srv_ctx *ctx, const char *path)
{
	struct rte_eth_dev_info info;
	struct srv_capture *cap;
	int fd, rc;

	cap = rte_zmalloc("srv_capture", sizeof(*cap), 0);
	if (cap == NULL)
		return -ENOMEM;
	ctx->capture = cap;
	cap->port = ctx->opts.send_role ? ctx->client_port_id : ctx->port_id;
	rc = rte_eth_dev_info_get(cap->port, &info);
	if (rc != 0)
		return rc;
	cap->nb_rxq = RTE_MIN(info.nb_rx_queues, SRV_MAX_STACKS + 1);
	cap->nb_txq = RTE_MIN(info.nb_tx_queues, SRV_MAX_STACKS + 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "devtcp: --capture %s: %s\n", path, strerror(errno));
		return -errno;
	}
	cap->pcapng = rte_pcapng_fdopen(fd, NULL, NULL, "devtcp-server",
		"headers only: payload in device memory is not captured");
	if (cap->pcapng == NULL) {
		close(fd);
		fprintf(stderr, "devtcp: --capture %s: cannot start pcapng: %s\n",
			path, rte_strerror(rte_errno));
		return -rte_errno;
	}
	cap->pool = rte_pktmbuf_pool_create("srv_capture", CAP_RING * 2, 256, 0,
		rte_pcapng_mbuf_size(CAP_SNAP), rte_eth_dev_socket_id(cap->port));
	cap->ring = rte_ring_create("srv_capture", CAP_RING, SOCKET_ID_ANY,
		RING_F_SC_DEQ);
	if (cap->pool == NULL || cap->ring == NULL) {
		fprintf(stderr, "devtcp: --capture: no memory for the capture pool "
			"(%u buffers of %u bytes): %s\n", CAP_RING * 2,
			rte_pcapng_mbuf_size(CAP_SNAP), rte_strerror(rte_errno));
		return -ENOMEM;
	}
	cap_clock_start(&cap->clock);
	rc = pthread_create(&cap->thread, NULL, capture_thread, cap);
	if (rc != 0)
		return -rc;
	rc = capture_callbacks(cap);
	if (rc != 0) {
		fprintf(stderr, "devtcp: --capture: cannot add RX/TX callbacks on port "
			"%u: %s\n", cap->port, rte_strerror(-rc));
		return rc;
	}
	printf("devtcp-server: capturing headers of port %u into %s\n", cap->port,
		path);
	return 0;
}

void
srv_capture_stop(struct srv_ctx *ctx)
{
	struct srv_capture *cap = ctx->capture;
	uint16_t q;

	if (cap == NULL)
		return;
	for (q = 0; q < cap->nb_rxq; q++)
		if (cap->rx_cb[q] != NULL)
			rte_eth_remove_rx_callback(cap->port, q, cap->rx_cb[q]);
	for (q = 0; q < cap->nb_txq; q++)
		if (cap->tx_cb[q] != NULL)
			rte_eth_remove_tx_callback(cap->port, q, cap->tx_cb[q]);
	/* A callback may still run on a polling lcore: let it finish. */
	rte_delay_ms(10);
	if (cap->thread != 0) {
		cap->stop = true;
		pthread_join(cap->thread, NULL);
	}
	if (cap->pcapng != NULL) {
		printf("devtcp-server: capture: %" PRIu64 " frames written, %" PRIu64
			" dropped\n", cap->written,
			__atomic_load_n(&cap->dropped, __ATOMIC_RELAXED));
		rte_pcapng_close(cap->pcapng);
	}
	rte_ring_free(cap->ring);
	rte_mempool_free(cap->pool);
	rte_free(cap);
	ctx->capture = NULL;
}
