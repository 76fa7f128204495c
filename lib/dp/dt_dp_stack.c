/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stack life cycle and the poll loop: window updates and deferred output,
 * one RX burst sized so the event queue cannot overflow, timers, listener
 * and neighbour timers, one TX flush, send completions and closings.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_random.h>

#include "dt_devmem.h"
#include "dt_dp_priv.h"

#define DT_DP_DEFAULT_WINDOW (1u << 20)

void
dt_dp_stack_conf_default(struct dt_dp_stack_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->netmask = rte_cpu_to_be_32(0xffffff00);
	conf->max_conns = 1024;
	conf->backlog = 128;
	conf->window = DT_DP_DEFAULT_WINDOW;
	conf->txq_cap = 64;
	conf->tx_cksum_offload = true;
	dt_tcp_cfg_default(&conf->tcp);
	conf->tcp.mss = 0;
}

uint64_t
dt_dp_now_us(struct dt_dp_stack *st)
{
	/* Starts at 1 s: 0 means "no deadline" to the engine. */
	return (rte_rdtsc() - st->tsc0) / st->tsc_per_us + 1000000;
}

static uint32_t
pow2_at_least(uint64_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static void
stack_free(struct dt_dp_stack *st)
{
	unsigned int i;

	if (st == NULL)
		return;
	for (i = 0; i < DT_DP_MAX_LISTENERS; i++)
		rte_free(st->lst[i].synq);
	dt_dp_copy_fini(st);
	dt_dp_txc_fini(st);
	if (st->region_alias != NULL)
		dt_devmem_region_cpu_unmap(st->conf.region);
	rte_free(st->evq);
	rte_free(st->neigh_hold);
	rte_free(st->tw_slots);
	rte_free(st->l_dirty);
	rte_free(st->ht);
	if (st->conns != NULL) {
		rte_free(st->conns[0].sends);
		rte_free(st->conns[0].txq);
	}
	rte_free(st->conns);
	rte_free(st->ooo_store);
	rte_free(st->ooo_free);
	rte_free(st);
}

static int
conf_check(const struct dt_dp_stack_conf *c)
{
	if (c->hdr_pool == NULL || c->shell_pool == NULL || c->max_conns == 0 ||
			c->max_conns > (1u << 24) || c->txq_cap == 0 ||
			c->window == 0 || c->backlog == 0 || c->ipv4 == 0 ||
			!rte_eth_dev_is_valid_port(c->port_id))
		return -EINVAL;
	return 0;
}

/*
 * Out-of-order capacity. Every received segment is its own extent (payload
 * is never coalesced), so a connection holds up to a window of segments:
 * window / (3/4 MSS) (segments a little below the MSS, e.g. with options)
 * plus slack. A peer that sends a window of smaller segments has the rest
 * dropped and sends them again. Connections share a stack budget of held
 * extents, which the event queue keeps room for (their DATA events).
 */
static void
ooo_size(struct dt_dp_stack *st)
{
	uint32_t seg = st->tcp_cfg.mss * 3u / 4u, share;
	uint64_t cap = (uint64_t)st->conf.window / (seg ? seg : 1) +
		DT_DP_OOO_SLACK;

	st->ooo_cap = (uint16_t)RTE_MIN(cap, (uint64_t)DT_TCP_OOO_MAX);
	share = st->conf.ooo_stores != 0 ? st->conf.ooo_stores :
		RTE_MIN(st->conf.max_conns, (uint32_t)DT_DP_OOO_SHARE);
	st->st.ooo_stores = RTE_MIN(share, st->conf.max_conns);
	st->ooo_budget = (uint32_t)RTE_MIN((uint64_t)st->ooo_cap * share,
		(uint64_t)RTE_MAX(DT_DP_OOO_STACK_MAX, st->ooo_cap));
}

/* Hugepage memory of the stack, counted (memory per connection). */
static void *
stack_zmalloc(struct dt_dp_stack *st, const char *name, size_t size,
	unsigned int align, int socket)
{
	void *p = rte_zmalloc_socket(name, size, align, socket);

	if (p != NULL)
		st->st.mem_bytes += size;
	return p;
}

/*
 * The out-of-order stores: shared by the stack's connections, so that a
 * connection slot costs no reassembly storage while its data is in order.
 */
static int
ooo_stores_alloc(struct dt_dp_stack *st, int socket)
{
	uint32_t n = (uint32_t)st->st.ooo_stores, i;

	st->ooo_store = stack_zmalloc(st, "dt_dp_ooo",
		sizeof(st->ooo_store[0]) * st->ooo_cap * n, 0, socket);
	st->ooo_free = stack_zmalloc(st, "dt_dp_ooo_free",
		sizeof(st->ooo_free[0]) * n, 0, socket);
	if (st->ooo_store == NULL || st->ooo_free == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		st->ooo_free[i] = st->ooo_store + (size_t)i * st->ooo_cap;
	st->ooo_nfree = n;
	return 0;
}

/* Engine settings: MSS from the MTU, a window scale that covers the window. */
static int
tcp_cfg_init(struct dt_dp_stack *st)
{
	struct dt_tcp_cfg *t = &st->tcp_cfg;

	*t = st->conf.tcp;
	/*
	 * Never advertise (or use) more than the path carries: a configured
	 * MSS above the port's MTU would black-hole both directions.
	 */
	if (t->mss == 0 || t->mss > st->mtu - 40) {
		if (t->mss != 0)
			DT_DP_LOG(WARNING, "port %u: MSS %u above MTU %u - 40: using %u",
				st->conf.port_id, t->mss, st->mtu, st->mtu - 40);
		t->mss = (uint16_t)(st->mtu - 40);
	}
	/*
	 * One buffer per frame: what we send fits the header buffer; what
	 * we advertise (and receive, into the port's own RX buffers) stays.
	 */
	if (st->tx_linear && t->mss > st->linear_mss) {
		DT_DP_LOG(INFO, "port %u: MSS %u does not fit one TX buffer: sending at most %u per segment",
			st->conf.port_id, t->mss, st->linear_mss);
		t->snd_mss_max = (uint16_t)st->linear_mss;
	}
	t->rcv_space = st->conf.window;
	t->tso_max = st->tso_max;
	/* ACKs owed by a burst's segments go out once, after the burst. */
	t->ack_defer = true;
	/* Without SACK a window far beyond the flight used costs RTOs. */
	t->rcv_autotune = true;
	while (t->wscale < 14 && ((uint64_t)0xffff << t->wscale) < st->conf.window)
		t->wscale++;
	ooo_size(st);
	return 0;
}

static int
conns_alloc(struct dt_dp_stack *st, int socket)
{
	uint32_t n = st->conf.max_conns, i, cap = st->conf.txq_cap;
	struct dt_dp_send *sends;
	struct dt_tcp_extent *txq;

	st->conns = stack_zmalloc(st, "dt_dp_conns", sizeof(st->conns[0]) * n,
		RTE_CACHE_LINE_SIZE, socket);
	sends = stack_zmalloc(st, "dt_dp_sends", sizeof(*sends) * cap * n, 0,
		socket);
	txq = stack_zmalloc(st, "dt_dp_txq", sizeof(*txq) * cap * n, 0, socket);
	if (st->conns == NULL || sends == NULL || txq == NULL) {
		rte_free(sends);
		rte_free(txq);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct dt_dp_conn *c = &st->conns[i];

		c->idx = i;
		c->gen = 1;
		c->sends = sends + (size_t)i * cap;
		c->txq = txq + (size_t)i * cap;
		c->next_free = i + 1 < n ? i + 1 : UINT32_MAX;
	}
	st->free_head = 0;
	st->ht_mask = pow2_at_least(2ull * n) - 1;
	st->ht = stack_zmalloc(st, "dt_dp_ht", sizeof(uint32_t) *
		(st->ht_mask + 1), 0, socket);
	st->l_dirty = stack_zmalloc(st, "dt_dp_lists", sizeof(uint32_t) * 8 * n,
		0, socket);
	if (st->ht == NULL || st->l_dirty == NULL)
		return -ENOMEM;
	st->l_pend = st->l_dirty + 2 * n;
	st->l_out = st->l_pend + 2 * n;
	st->l_zomb = st->l_out + 2 * n;
	return 0;
}

static int
queues_alloc(struct dt_dp_stack *st, int socket)
{
	uint64_t evs = 2ull * DT_DP_BURST * DT_DP_EV_PER_FRAME +
		(uint64_t)DT_DP_EV_PER_CALL * st->conf.max_conns +
		st->ooo_budget;
	uint32_t cap = pow2_at_least(evs);

	st->evq = stack_zmalloc(st, "dt_dp_evq", sizeof(st->evq[0]) * cap,
		RTE_CACHE_LINE_SIZE, socket);
	st->tw_slots = stack_zmalloc(st, "dt_dp_tw",
		sizeof(st->tw_slots[0]) * DT_DP_TW_SLOTS, 0, socket);
	if (st->evq == NULL || st->tw_slots == NULL)
		return -ENOMEM;
	st->ev_mask = cap - 1;
	return 0;
}

/* The neighbour table and its hold queue, sized for the connections. */
static int
neigh_init(struct dt_dp_stack *st, int socket)
{
	uint64_t nb = 2ull * st->conf.max_conns + 256;

	nb = RTE_MIN(RTE_MAX(nb, (uint64_t)DT_DP_NEIGH_HOLD_MIN),
		(uint64_t)DT_DP_NEIGH_HOLD_MAX);
	st->neigh_hold = stack_zmalloc(st, "dt_dp_neigh_hold",
		sizeof(st->neigh_hold[0]) * nb, 0, socket);
	if (st->neigh_hold == NULL)
		return -ENOMEM;
	return dt_dp_neigh_init(&st->neigh, st->neigh_e, DT_DP_NEIGH_SIZE,
		st->neigh_hold, (uint32_t)nb, NULL);
}

static int
port_init(struct dt_dp_stack *st)
{
	struct rte_ether_addr mac;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t mtu;
	int r;

	r = rte_eth_macaddr_get(st->conf.port_id, &mac);
	if (r == 0)
		r = rte_eth_dev_get_mtu(st->conf.port_id, &mtu);
	if (r == 0)
		r = rte_eth_dev_info_get(st->conf.port_id, &info);
	if (r == 0)
		r = rte_eth_dev_conf_get(st->conf.port_id, &conf);
	if (r != 0)
		return r;
	/* The link may carry less than the port was configured for (iface MTU). */
	if (info.max_mtu != 0 && info.max_mtu < mtu) {
		DT_DP_LOG(WARNING, "port %u: MTU %u above what the device carries (%u): using %u",
			st->conf.port_id, mtu, info.max_mtu, info.max_mtu);
		mtu = info.max_mtu;
	}
	if (mtu < 68 + 40)
		return -EINVAL;
	memcpy(st->mac, mac.addr_bytes, 6);
	st->mtu = mtu;
	st->lro = !!(conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_TCP_LRO);
	/*
	 * Checksums by the NIC only where the port was started with them: on
	 * a port without (net_af_packet, net_tap, ...) the CPU sums host
	 * bytes only: device payload is written into the frame by the copy
	 * engine first (dt_dp_txcopy.c).
	 */
	if (st->conf.tx_cksum_offload && (!(conf.txmode.offloads &
			RTE_ETH_TX_OFFLOAD_TCP_CKSUM) || !(conf.txmode.offloads &
			RTE_ETH_TX_OFFLOAD_IPV4_CKSUM))) {
		st->conf.tx_cksum_offload = false;
		DT_DP_LOG(INFO, "port %u (%s): no TX checksum offload: checksums by the CPU over host bytes (device payload written into the frame by the copy engine first)",
			st->conf.port_id, info.driver_name);
	}
	dt_dp_tso_init(st, &info, &conf);
	dt_dp_linear_init(st, &info);
	/* A PMD that cannot free sent mbufs on request (dt_dp_txheld.c). */
	st->tx_no_cleanup = rte_eth_tx_done_cleanup(st->conf.port_id,
		st->conf.txq, 0) == -ENOTSUP;
	return dt_dp_rss_init(st);
}

/* A port with a host queue: who polls queue 0 (one stack, claimed). */
static int
steer_init(struct dt_dp_stack *st)
{
	uint32_t zero = 0;

	st->psh = dt_dp_port_sh_get(st->conf.port_id);
	st->sh = st->psh != NULL && st->psh->steered ? st->psh : NULL;
	if (st->psh != NULL)
		st->neigh_gen_seen = __atomic_load_n(&st->psh->neigh_gen,
			__ATOMIC_ACQUIRE) - 1;  /* first poll takes what is known */
	if (st->sh == NULL && st->conf.host_queue &&
			(st->psh == NULL || st->psh->mode.steer_why[0] == '\0')) {
		DT_DP_LOG(ERR, "port %u: host_queue set but the port has no host queue",
			st->conf.port_id);
		return -EINVAL;
	}
	/*
	 * Steered by RSS alone where a host queue was asked for (see
	 * dt_dp_port_conf.host_queue): queue 0 is one of RSS's queues, still
	 * polled by the host_queue stack, which serves what lands there.
	 */
	if (st->sh == NULL && !st->conf.host_queue)
		return 0;
	if (st->sh != NULL && st->conf.rxq >= st->sh->nb_rxq)
		return -EINVAL;
	if (st->conf.rxq != 0 && !st->conf.host_queue)
		return 0;
	if (!__atomic_compare_exchange_n(&st->psh->host_claimed, &zero, 1, false,
			__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		DT_DP_LOG(ERR, "port %u: another stack already polls the host queue",
			st->conf.port_id);
		st->sh = NULL;  /* nothing of the port's to give back */
		return -EBUSY;
	}
	st->host_rx = true;
	return 0;
}

static int
meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "devtcp_dp_chunk",
		.size = sizeof(struct dt_dp_mbuf_meta),
		.align = __alignof__(struct dt_dp_mbuf_meta),
	};

	return rte_mbuf_dynfield_register(&desc);
}

static int
stack_init(struct dt_dp_stack *st, const struct dt_dp_stack_conf *conf,
	int socket)
{
	int r;

	st->conf = *conf;
	st->lcore = rte_lcore_id();
	st->ip = rte_be_to_cpu_32(conf->ipv4);
	st->netmask = rte_be_to_cpu_32(conf->netmask);
	st->gateway = rte_be_to_cpu_32(conf->gateway);
	if (conf->isn_key[0] == 0 && conf->isn_key[1] == 0) {
		uint64_t k[2] = { rte_rand(), rte_rand() };

		memcpy(st->isn_key.k, k, sizeof(k));
	} else {
		memcpy(st->isn_key.k, conf->isn_key, sizeof(st->isn_key.k));
	}
	if (conf->region != NULL) {
		st->region_pool = dt_devmem_region_pool(conf->region);
		st->region_base = (uintptr_t)dt_devmem_region_base(conf->region);
	}
	st->meta_off = meta_register();
	if (st->meta_off < 0)
		return -rte_errno;
	st->tsc_per_us = rte_get_tsc_hz() / 1000000;
	if (st->tsc_per_us == 0)
		st->tsc_per_us = 1;
	st->tsc0 = rte_rdtsc();
	st->now = dt_dp_now_us(st);
	st->synq_cap = RTE_MAX(conf->backlog, (uint16_t)16);
	r = port_init(st);
	if (r == 0)
		r = tcp_cfg_init(st);
	st->st.mem_bytes = sizeof(*st);
	if (r == 0)
		r = conns_alloc(st, socket);
	if (r == 0)
		r = ooo_stores_alloc(st, socket);
	if (r == 0)
		r = queues_alloc(st, socket);
	if (r == 0)
		r = dt_dp_tw_init(&st->tw, st->tw_slots, DT_DP_TW_SLOTS,
			DT_DP_TW_SHIFT, st->now);
	if (r == 0)
		r = neigh_init(st, socket);
	if (r == 0)
		r = steer_init(st);
	if (r == 0)
		r = dt_dp_copy_init(st);
	return r;
}

struct dt_dp_stack *
dt_dp_stack_create(const struct dt_dp_stack_conf *conf)
{
	struct dt_dp_stack *st;
	int socket, r;

	r = conf != NULL ? conf_check(conf) : -EINVAL;
	if (r != 0) {
		DT_DP_LOG(ERR, "stack: bad configuration (pools, address, sizes or port)");
		rte_errno = -r;
		return NULL;
	}
	socket = rte_eth_dev_socket_id(conf->port_id);
	st = rte_zmalloc_socket("dt_dp_stack", sizeof(*st), RTE_CACHE_LINE_SIZE,
		socket < 0 ? SOCKET_ID_ANY : socket);
	if (st == NULL) {
		DT_DP_LOG(ERR, "stack: no memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	r = stack_init(st, conf, socket < 0 ? SOCKET_ID_ANY : socket);
	if (r != 0) {
		DT_DP_LOG(ERR, "port %u queue %u: stack set-up failed: %s",
			conf->port_id, conf->rxq, rte_strerror(-r));
		stack_free(st);
		rte_errno = -r;
		return NULL;
	}
	/* Gratuitous ARP: announce our address. */
	dt_dp_arp_send(st, DT_NET_ARP_OP_REQUEST, st->ip, NULL);
	dt_dp_tx_flush(st);
	return st;
}

/* Chunks still queued as events go back to their pools. */
static void
events_drop(struct dt_dp_stack *st)
{
	struct dt_dp_event ev;

	while (dt_dp_events(st, &ev, 1) == 1)
		if (ev.type == DT_DP_EV_DATA)
			rte_pktmbuf_free_seg((struct rte_mbuf *)(uintptr_t)ev.chunk.token);
}

void
dt_dp_stack_destroy(struct dt_dp_stack *st)
{
	uint32_t i;

	if (st == NULL)
		return;
	st->now = dt_dp_now_us(st);
	for (i = 0; i < st->conf.max_conns; i++) {
		struct dt_dp_conn *c = &st->conns[i];

		if (c->cs != DT_DP_CS_LIVE)
			continue;
		dt_tcp_abort(&c->tcp, st->now, &st->out);
		dt_dp_out_apply(st, c, &c->tcp.tuple);
		events_drop(st);
	}
	dt_dp_tx_flush(st);
	dt_dp_finish_lists(st);
	events_drop(st);
	/* Rules of connections whose shells are still out, then listeners. */
	for (i = 0; i < st->conf.max_conns; i++)
		if (st->conns[i].flow != NULL)
			dt_dp_steer_conn_del(st, &st->conns[i]);
	dt_dp_steer_release_all(st);
	dt_dp_arp_flush(st);
	for (i = 0; i < st->txb_n; i++)
		rte_pktmbuf_free(st->txb[(st->txb_head + i) & (DT_DP_TXBUF - 1)]);
	st->txb_n = 0;
	stack_free(st);
}

static void
listeners_tick(struct dt_dp_stack *st)
{
	const struct dt_tcp_tx_seg *seg;
	struct dt_dp_lst *l;
	unsigned int i;
	uint16_t k;

	for (i = 0; i < DT_DP_MAX_LISTENERS; i++) {
		l = &st->lst[i];
		if (l->port == 0 || l->l.deadline == 0 || l->l.deadline > st->now)
			continue;
		dt_tcp_listen_timeout(&l->l, st->now, &st->out);
		/* Each SYN-ACK names its half-open connection. */
		for (k = 0; k < st->out.n_segs; k++) {
			seg = &st->out.segs[k];
			dt_dp_tx_tcp(st, NULL, &seg->tuple, seg);
		}
	}
}

/* The ACKs the burst's segments owe: one per connection, SACKs up to date. */
static void
acks_flush(struct dt_dp_stack *st)
{
	struct dt_dp_conn *c;
	uint32_t i;

	for (i = 0; i < st->n_ack; i++) {
		c = &st->conns[st->ack_list[i]];
		if (!c->ack_owed)
			continue;
		c->ack_owed = false;
		if (c->cs != DT_DP_CS_LIVE)
			continue;
		dt_tcp_output(&c->tcp, st->now, &st->out);
		dt_dp_out_apply(st, c, &c->tcp.tuple);
	}
	st->n_ack = 0;
}

/*
 * Prefetch distances in frames: the mbufs' own lines first, then (their
 * chain pointer known) the header bytes and the payload segment's mbuf.
 * A line another core wrote takes longer than one frame's parse.
 */
#define DT_DP_RX_PREFETCH 4
#define DT_DP_RX_PREFETCH_FRAME 2

static inline void
rx_prefetch_mbuf(const struct rte_mbuf *m)
{
	rte_prefetch0(m);
	rte_prefetch0(RTE_PTR_ADD(m, RTE_CACHE_LINE_SIZE));
}

/*
 * Header bytes (two lines: TCP options start at byte 54 of the frame) and
 * the mbuf of the next segment (metadata only).
 */
static inline void
rx_prefetch_frame(const struct rte_mbuf *m)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);

	rte_prefetch0(h);
	rte_prefetch0(h + RTE_CACHE_LINE_SIZE);
	if (m->next != NULL)
		rx_prefetch_mbuf(m->next);
}

static void
rx_burst(struct dt_dp_stack *st, uint16_t rxq)
{
	struct rte_mbuf *pkts[DT_DP_BURST];
	uint32_t budget = DT_DP_BURST, room = dt_dp_ev_room(st);
	uint64_t t0;
	uint16_t n, i;

	/*
	 * Never take frames whose events might not fit (rule: no overflow):
	 * each frame's own, and a DATA event for every extent held out of
	 * order (a frame that fills a hole delivers them).
	 * A filling TX buffer slows receiving down (each frame may cause up
	 * to DT_TCP_OUT_SEGS segments) but never stops it for long: two
	 * stacks on one wire would wait for each other (dt_dp_tx_stall_go()).
	 * Segments that still do not fit are dropped and counted
	 * (drop_tx_ring_full); TCP sends them again.
	 */
	room = room > st->ooo_held ? room - st->ooo_held : 0;
	/* A coalesced frame enters the engine as several segments. */
	budget = RTE_MIN(budget, room / (DT_DP_EV_PER_FRAME *
		(st->lro ? DT_DP_LRO_PIECES : 1u)));
	if (budget > 0) {
		budget = RTE_MIN(budget, dt_dp_tx_room(st) / DT_TCP_OUT_SEGS);
		/* Stalled too long (the peer waits for us too): go on. */
		if (budget == 0 && dt_dp_tx_stall_go(st, DT_TCP_OUT_SEGS *
				(st->lro ? DT_DP_LRO_PIECES : 1u) + 1))
			budget = 1;
	}
	if (budget == 0) {
		st->st.rx_throttled++;
		return;
	}
	n = rte_eth_rx_burst(st->conf.port_id, rxq, pkts, (uint16_t)budget);
	if (n == 0)
		return;
	if (rxq != st->conf.rxq)
		st->st.rx_host_queue += n;
	/* The stack's own cost, not the NIC's (a software NIC copies here). */
	t0 = rte_rdtsc();
	/*
	 * Another core (the NIC) wrote these mbufs: their two cache lines
	 * (the chain's next pointer lives in the second) go first, a few
	 * frames ahead; then, once those lines are near, the header bytes
	 * and the payload segment's mbuf (never its payload).
	 */
	for (i = 0; i < n && i < DT_DP_RX_PREFETCH; i++)
		rx_prefetch_mbuf(pkts[i]);
	for (i = 0; i < n && i < DT_DP_RX_PREFETCH_FRAME; i++)
		rx_prefetch_frame(pkts[i]);
	for (i = 0; i < n; i++) {
		if (i + DT_DP_RX_PREFETCH < n)
			rx_prefetch_mbuf(pkts[i + DT_DP_RX_PREFETCH]);
		if (i + DT_DP_RX_PREFETCH_FRAME < n)
			rx_prefetch_frame(pkts[i + DT_DP_RX_PREFETCH_FRAME]);
		dt_dp_rx_frame(st, pkts[i]);
	}
	dt_dp_gro_flush(st);
	/* Copy mode: payload in the region before it is acknowledged or seen. */
	if (st->cp_nsrc > 0)
		dt_dp_copy_flush(st);
	acks_flush(st);
	dt_dp_rx_free_flush(st);
	st->st.rx_cycles += rte_rdtsc() - t0;
	st->st.rx_bursts++;
}

/*
 * Timers to run this poll: their events must fit, and so must their
 * segments (thousands of connections' delayed ACKs or retransmissions
 * fall due in the same tick; the rest run on later polls, not dropped).
 */
static uint32_t
timers_budget(const struct dt_dp_stack *st)
{
	uint32_t ev = dt_dp_ev_room(st), tx;

	if (ev <= DT_DP_EV_PER_CALL)
		return 0;
	tx = dt_dp_tx_room_work(st) / DT_TCP_OUT_SEGS;
	/* Stalled too long (the peer waits for us too): go on. */
	if (tx == 0 && dt_dp_tx_stall_go(st, DT_TCP_OUT_SEGS))
		tx = 1;
	return RTE_MIN(ev / DT_DP_EV_PER_CALL - 1, tx);
}

int
dt_dp_poll(struct dt_dp_stack *st)
{
	uint64_t rx0 = st->st.rx_frames;
	uint32_t room;

	st->now = dt_dp_now_us(st);
	dt_dp_work_lists(st);
	if (st->psh != NULL)
		dt_dp_neigh_sync(st);
	rx_burst(st, st->conf.rxq);
	/* The host queue, polled by one stack of a steered port. */
	if (st->host_rx && st->conf.rxq != 0)
		rx_burst(st, 0);
	room = timers_budget(st);
	if (room > 0)
		dt_dp_tw_expire(&st->tw, st->now, dt_dp_tw_fire, st, room);
	listeners_tick(st);
	if (st->now >= st->neigh_next_tick) {
		dt_dp_arp_tick(st);
		st->neigh_next_tick = st->now + DT_DP_NEIGH_TICK_US;
	}
	if (st->neigh.hold_used > 0)
		dt_dp_neigh_drain(st);
	dt_dp_tx_flush(st);
	dt_dp_finish_lists(st);
	return (int)(st->st.rx_frames - rx0);
}
