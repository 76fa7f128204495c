/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit: TCP frames (header mbuf with Ethernet/IPv4/TCP built by lib/net,
 * payload chained as shell mbufs attached to the application's send buffers:
 * no copy), next hop and neighbour resolution, the per-poll TX buffer.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_dp_priv.h"
#include "dt_net_cksum.h"
#include "dt_net_eth.h"
#include "dt_net_ipv4.h"
#include "dt_net_tcp.h"

#define ETH_HLEN DT_NET_ETH_HLEN
#define IP_HLEN DT_NET_IPV4_HLEN_MIN

void
dt_dp_tx_push(struct dt_dp_stack *st, struct rte_mbuf *m)
{
	if (st->txb_n >= DT_DP_TXBUF) {
		st->st.drop_tx_ring_full++;
		rte_pktmbuf_free(m);
		return;
	}
	if (unlikely(st->tx_linear) && m->nb_segs > 1 &&
			dt_dp_linear_frame(st, m) != 0) {
		st->st.drop_tx_linear++;
		rte_pktmbuf_free(m);
		return;
	}
	st->txb[(st->txb_head + st->txb_n) & (DT_DP_TXBUF - 1)] = m;
	st->txb_n++;
}

/*
 * Acknowledged sends wait for their TX shells, and the NIC has nothing
 * more to send: most PMDs free transmitted mbufs only when their ring
 * needs room, so the last send of a stream would never complete. Ask the
 * PMD to free what it sent (rte_eth_tx_done_cleanup). Many PMDs have no
 * such op because they free at once (copying PMDs, net_hsplit); one that
 * has none and still holds the shells a second later (virtio in 22.11)
 * is said once: its sends complete only with later traffic.
 */
#define DT_DP_TX_RECLAIM_WARN_US 1000000

static void
tx_reclaim(struct dt_dp_stack *st)
{
	if (st->pend_since == 0)
		st->pend_since = st->now;
	if (!st->tx_no_cleanup && rte_eth_tx_done_cleanup(st->conf.port_id,
			st->conf.txq, 0) == -ENOTSUP)
		st->tx_no_cleanup = true;
	if (st->tx_no_cleanup && !st->tx_reclaim_warned &&
			st->now - st->pend_since > DT_DP_TX_RECLAIM_WARN_US) {
		st->tx_reclaim_warned = true;
		DT_DP_LOG(WARNING, "port %u: acknowledged sends still wait after 1 s for the PMD to free their buffers, and it cannot free them on request (no tx_done_cleanup): a send completes only once the PMD reuses its descriptors",
			st->conf.port_id);
	}
}

void
dt_dp_tx_flush(struct dt_dp_stack *st)
{
	uint64_t t0 = rte_rdtsc();
	uint32_t at, run;
	uint16_t sent;

	/* Frames whose payload the copy engine writes: bytes land first. */
	if (unlikely(st->txc_nchan != 0))
		dt_dp_txc_flush(st);
	if (st->txb_n == 0) {
		st->tx_progress = st->now;
		/*
		 * An empty burst still: a NIC that holds frames back (a delay
		 * line, net_hsplit's delay_us=) releases them on its TX path.
		 */
		rte_eth_tx_burst(st->conf.port_id, st->conf.txq, st->txb, 0);
		if (st->n_pend > 0)
			tx_reclaim(st);
		else
			st->pend_since = 0;
		st->st.tx_burst_cycles += rte_rdtsc() - t0;
		return;
	}
	/* In contiguous runs of the ring; what the NIC leaves waits. */
	while (st->txb_n != 0) {
		at = st->txb_head & (DT_DP_TXBUF - 1);
		run = RTE_MIN(st->txb_n, DT_DP_TXBUF - at);
		run = RTE_MIN(run, (uint32_t)UINT16_MAX);
		sent = rte_eth_tx_burst(st->conf.port_id, st->conf.txq,
			st->txb + at, (uint16_t)run);
		st->st.tx_frames += sent;
		if (sent > 0) {
			st->tx_progress = st->now;
			st->rf_head = NULL;
		}
		st->txb_head += sent;
		st->txb_n -= sent;
		if (sent == 0) {
			/* Nothing taken: a full ring, or a frame refused for good. */
			dt_dp_txrefuse_check(st);
			break;
		}
		if (sent < run)
			break;
	}
	st->st.tx_burst_cycles += rte_rdtsc() - t0;
}

uint32_t
dt_dp_nexthop(const struct dt_dp_stack *st, uint32_t dst)
{
	if (((dst ^ st->ip) & st->netmask) == 0)
		return dst;
	return st->gateway;
}

static void
neigh_drop(struct dt_dp_stack *st, struct rte_mbuf *m)
{
	st->st.drop_no_neighbour++;
	rte_pktmbuf_free(m);
}

/* Find or start resolving the neighbour for next hop @p nh. */
static struct dt_dp_neigh *
neigh_get(struct dt_dp_stack *st, uint32_t nh, struct dt_dp_neigh **cache)
{
	struct dt_dp_neigh *n = cache != NULL ? *cache : NULL;
	bool created;

	/* A cached entry may have been freed or moved by a removal. */
	if (n != NULL && n->ip == nh && n->state != DT_DP_NEIGH_FREE)
		return n;
	n = dt_dp_neigh_resolve(&st->neigh, nh, st->now, &created);
	/* Published by another stack of the port: no request needed. */
	if (n != NULL && created && st->psh != NULL &&
			dt_dp_neigh_from_port(st, n))
		created = false;
	if (n != NULL && created) {
		st->st.arp_requests++;
		dt_dp_arp_send(st, DT_NET_ARP_OP_REQUEST, nh, NULL);
	}
	if (cache != NULL)
		*cache = n;
	return n;
}

void
dt_dp_tx_l2(struct dt_dp_stack *st, struct rte_mbuf *m, uint32_t dst_ip,
	struct dt_dp_neigh **cache)
{
	uint32_t nh = dt_dp_nexthop(st, dst_ip);
	struct dt_dp_neigh *n;

	if (nh == 0) {
		neigh_drop(st, m);
		return;
	}
	n = neigh_get(st, nh, cache);
	if (n == NULL) {
		neigh_drop(st, m);
		return;
	}
	/* Frames still held for this neighbour go first: order is kept. */
	if (n->state == DT_DP_NEIGH_REACHABLE && n->nb_held == 0) {
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), n->mac, 6);
		dt_dp_tx_push(st, m);
		return;
	}
	/* Waits for the answer (or its turn); only a full hold queue drops. */
	if (dt_dp_neigh_hold(&st->neigh, n, m) != 0) {
		st->st.drop_neigh_hold_full++;
		rte_pktmbuf_free(m);
	}
}

void
dt_dp_ip_cksum(struct dt_dp_stack *st, struct rte_mbuf *m, uint16_t l2_len,
	uint16_t l3_len)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, l2_len);
	uint16_t ck;

	ip[10] = 0;
	ip[11] = 0;
	if (st->conf.tx_cksum_offload) {
		m->l2_len = l2_len;
		m->l3_len = l3_len;
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		return;
	}
	ck = dt_net_ipv4_hdr_cksum(ip, l3_len);
	ip[10] = (uint8_t)(ck >> 8);
	ip[11] = (uint8_t)ck;
}

/*
 * Chain one payload slice as a shell mbuf attached to its send buffer.
 * @return 0, or -ENOBUFS (no shell mbuf).
 */
static int
attach_slice(struct dt_dp_stack *st, struct rte_mbuf *head,
	struct rte_mbuf **last, const struct dt_tcp_extent *e)
{
	struct dt_dp_send *s = e->ref;
	struct rte_mbuf *sh = rte_pktmbuf_alloc(st->conf.shell_pool);
	uint64_t iova = s->iova == RTE_BAD_IOVA ? RTE_BAD_IOVA : s->iova + e->off;

	if (sh == NULL)
		return -ENOBUFS;
	rte_mbuf_ext_refcnt_update(&s->shinfo, 1);
	rte_pktmbuf_attach_extbuf(sh, (uint8_t *)s->addr + e->off, iova,
		(uint16_t)e->len, &s->shinfo);
	sh->data_len = (uint16_t)e->len;
	sh->pkt_len = e->len;
	(*last)->next = sh;
	*last = sh;
	head->nb_segs++;
	head->pkt_len += e->len;
	return 0;
}

/* CPU TCP checksum (no offload): host payload only, checked at send(). */
static uint16_t
tcp_cksum_cpu(const struct rte_mbuf *m, uint32_t pseudo, uint32_t l4_off)
{
	const struct rte_mbuf *s;
	uint32_t sum = pseudo;
	size_t off = 0;

	sum = dt_net_cksum_add_at(sum, rte_pktmbuf_mtod_offset(m, const uint8_t *,
		l4_off), m->data_len - l4_off, off);
	off = m->data_len - l4_off;
	for (s = m->next; s != NULL; s = s->next) {
		sum = dt_net_cksum_add_at(sum, rte_pktmbuf_mtod(s, const void *),
			s->data_len, off);
		off += s->data_len;
	}
	return dt_net_cksum_finish(sum);
}

static size_t
build_l2l3(struct dt_dp_stack *st, uint8_t *p, const struct dt_tcp_tuple *t,
	uint16_t ip_total)
{
	struct dt_net_eth eth;
	struct dt_net_ipv4 ip;

	memset(&eth, 0, sizeof(eth));
	memcpy(eth.src.b, st->mac, 6);
	eth.type = DT_NET_ETH_TYPE_IPV4;
	dt_net_eth_build(p, ETH_HLEN, &eth);
	memset(&ip, 0, sizeof(ip));
	ip.src = t->laddr;
	ip.dst = t->raddr;
	ip.total_len = ip_total;
	ip.id = st->ip_id++;
	ip.ttl = 64;
	ip.proto = DT_NET_IPPROTO_TCP;
	ip.df = true;
	return dt_net_ipv4_build(p + ETH_HLEN, IP_HLEN, &ip,
		DT_NET_IPV4_F_CKSUM_OFFLOAD) ? ETH_HLEN + IP_HLEN : 0;
}

void
dt_dp_tx_tcp(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_tuple *t, const struct dt_tcp_tx_seg *seg)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(st->conf.hdr_pool), *last;
	struct dt_net_tcp_hdr th = seg->th;
	/* Longer than an MSS: a TSO burst the NIC segments (dt_dp_tso.c). */
	bool tso = c != NULL && seg->len > c->tcp.smss;
	uint8_t *p, *tcp;
	size_t hlen, room;
	uint32_t pseudo;
	uint16_t l4_len, ck, i;
	bool pending = false;

	if (m == NULL) {
		st->st.drop_tx_no_mbuf++;
		return;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	room = rte_pktmbuf_tailroom(m);
	th.sport = t->lport;
	th.dport = t->rport;
	tcp = p + ETH_HLEN + IP_HLEN;
	hlen = dt_net_tcp_opts_len(&th.opts) + DT_NET_TCP_HLEN_MIN;
	l4_len = (uint16_t)(hlen + seg->len);
	/* TSO convention: the pseudo-header without the length. */
	pseudo = dt_net_ipv4_pseudo_sum(t->laddr, t->raddr, DT_NET_IPPROTO_TCP,
		tso ? 0 : l4_len);
	/* Offload convention: the field holds the pseudo-header sum. */
	th.cksum = st->conf.tx_cksum_offload ? dt_net_cksum_fold(pseudo) : 0;
	if (room < ETH_HLEN + IP_HLEN + DT_NET_TCP_HLEN_MAX ||
			build_l2l3(st, p, t, (uint16_t)(IP_HLEN + l4_len)) == 0 ||
			(hlen = dt_net_tcp_build(tcp, DT_NET_TCP_HLEN_MAX, &th)) == 0) {
		st->st.drop_bad_tcp++;
		rte_pktmbuf_free(m);
		return;
	}
	m->data_len = (uint16_t)(ETH_HLEN + IP_HLEN + hlen);
	m->pkt_len = m->data_len;
	last = m;
	if (unlikely(dt_dp_txc_wanted(st, seg))) {
		/* The payload goes into the frame (dt_dp_txcopy.c). */
		if (dt_dp_txc_fill(st, m, seg, &pending) != 0) {
			st->st.drop_tx_linear++;
			rte_pktmbuf_free(m);
			return;
		}
	} else {
		for (i = 0; i < seg->n_ext; i++)
			if (attach_slice(st, m, &last, &seg->ext[i]) != 0) {
				st->st.drop_tx_no_mbuf++;
				rte_pktmbuf_free(m);
				return;
			}
	}
	dt_dp_ip_cksum(st, m, ETH_HLEN, IP_HLEN);
	if (tso) {
		dt_dp_tso_mark(st, m, (uint16_t)hlen, seg->len, c->tcp.smss);
	} else if (st->conf.tx_cksum_offload) {
		m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM;
	} else if (pending) {
		/* Summed once the engine wrote the device bytes. */
		dt_dp_txc_defer_cksum(st, m, pseudo, ETH_HLEN + IP_HLEN);
	} else {
		ck = tcp_cksum_cpu(m, pseudo, ETH_HLEN + IP_HLEN);
		tcp[16] = (uint8_t)(ck >> 8);
		tcp[17] = (uint8_t)ck;
	}
	if (th.flags & DT_NET_TCP_RST)
		st->st.tx_rst++;
	dt_dp_tx_l2(st, m, t->raddr, c != NULL ? &c->neigh : NULL);
}
