/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A frame the PMD refuses for good. tx_burst returning 0 usually means a
 * full ring that drains on its own; some PMDs instead stop the burst at a
 * descriptor they will never take (DPDK 22.11's net_tap compares a TSO
 * frame's tso_segsz + headers, an Ethernet frame, with the MTU, an IP
 * packet, counts an error and stops at every full-MSS TSO frame). Offered
 * again and again, such a frame stalls its queue for ever.
 *
 * So: the same frame at the head of the queue, nothing taken for
 * DT_DP_TX_REFUSE_TRIES attempts over at least DT_DP_TX_REFUSE_US (a TSO
 * frame; DT_DP_TX_REFUSE_OTHER_US any other), and the port's oerrors grew
 * meanwhile (the PMD counted the refusals), or nothing taken at all for
 * DT_DP_TX_REFUSE_SILENT_US (a PMD that refuses without counting, on a link
 * that is up; far beyond a ring that drains). Then, decided from the
 * frame, not from the PMD's name:
 *  - a TSO frame: TSO goes off on the stack (logged once with the reason,
 *    tx_tso_refused), and every TSO frame queued is dropped with it;
 *  - any other frame: it is dropped alone;
 * counted (tx_refused_dropped), and the connections they belonged to send
 * again from snd_una at once (dt_tcp_retransmit_now(): the TCP engine
 * still holds the data by reference), as MSS frames once TSO is off.
 */
#include <inttypes.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dt_dp_priv.h"
#include "dt_net_eth.h"
#include "dt_net_ipv4.h"

#define DT_DP_TX_REFUSE_TRIES 32
/*
 * A TSO frame refused with errors counted: 2 ms. Any other frame: 200 ms,
 * since a PMD whose backend is only full for a while (net_tap's writev
 * answering EAGAIN) counts errors too, and dropping a good frame costs a
 * resend.
 */
#define DT_DP_TX_REFUSE_US 2000
#define DT_DP_TX_REFUSE_OTHER_US 200000
#define DT_DP_TX_REFUSE_SILENT_US 500000
/* Connections sent again after one refusal, at most (others wait for RTO). */
#define DT_DP_TX_REFUSE_CONNS 64

static uint64_t
port_oerrors(const struct dt_dp_stack *st)
{
	struct rte_eth_stats es;

	return rte_eth_stats_get(st->conf.port_id, &es) == 0 ? es.oerrors : 0;
}

/* The connection frame @p m belongs to, or NULL (not TCP, not ours). */
static struct dt_dp_conn *
frame_conn(struct dt_dp_stack *st, const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = p + DT_NET_ETH_HLEN, *tcp;
	struct dt_tcp_tuple t;
	uint32_t ihl;

	if (m->data_len < DT_NET_ETH_HLEN + 20 || (ip[0] >> 4) != 4 ||
			ip[9] != DT_NET_IPPROTO_TCP)
		return NULL;
	ihl = (uint32_t)(ip[0] & 0xf) * 4;
	if (m->data_len < DT_NET_ETH_HLEN + ihl + 4)
		return NULL;
	tcp = ip + ihl;
	t.laddr = (uint32_t)ip[12] << 24 | (uint32_t)ip[13] << 16 |
		(uint32_t)ip[14] << 8 | ip[15];
	t.raddr = (uint32_t)ip[16] << 24 | (uint32_t)ip[17] << 16 |
		(uint32_t)ip[18] << 8 | ip[19];
	t.lport = (uint16_t)(tcp[0] << 8 | tcp[1]);
	t.rport = (uint16_t)(tcp[2] << 8 | tcp[3]);
	return dt_dp_conn_lookup(st, &t);
}

static void
note_conn(struct dt_dp_conn **cs, unsigned int *n, struct dt_dp_conn *c)
{
	unsigned int i;

	if (c == NULL)
		return;
	for (i = 0; i < *n; i++)
		if (cs[i] == c)
			return;
	if (*n < DT_DP_TX_REFUSE_CONNS)
		cs[(*n)++] = c;
}

/* Drop the head frame (and, @p tso_too, every TSO frame queued). */
static void
drop_refused(struct dt_dp_stack *st, bool tso_too)
{
	struct dt_dp_conn *cs[DT_DP_TX_REFUSE_CONNS];
	uint32_t i, kept = 0, n = st->txb_n;
	unsigned int nc = 0, k;
	struct rte_mbuf *m;

	for (i = 0; i < n; i++) {
		m = st->txb[(st->txb_head + i) & (DT_DP_TXBUF - 1)];
		if (i == 0 || (tso_too && (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG))) {
			note_conn(cs, &nc, frame_conn(st, m));
			rte_pktmbuf_free(m);
			st->st.tx_refused_dropped++;
			continue;
		}
		st->txb[(st->txb_head + kept++) & (DT_DP_TXBUF - 1)] = m;
	}
	st->txb_n = kept;
	st->rf_head = NULL;
	st->tx_progress = st->now;
	/* Their data goes again now, not after an RTO. */
	for (k = 0; k < nc; k++) {
		if (cs[k]->cs != DT_DP_CS_LIVE)
			continue;
		dt_tcp_retransmit_now(&cs[k]->tcp, st->now, &st->out);
		dt_dp_out_apply(st, cs[k], &cs[k]->tcp.tuple);
	}
}

void
dt_dp_txrefuse_check(struct dt_dp_stack *st)
{
	struct rte_mbuf *m = st->txb[st->txb_head & (DT_DP_TXBUF - 1)];
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	uint64_t errs, waited;
	bool tso;

	if (m != st->rf_head) {
		st->rf_head = m;
		st->rf_tries = 0;
		st->rf_since = st->now;
		st->rf_oerrors = port_oerrors(st);
		return;
	}
	st->rf_tries++;
	waited = st->now - st->rf_since;
	/* The port's counters are read on a stall only, one try in 32. */
	if (st->rf_tries < DT_DP_TX_REFUSE_TRIES || waited < DT_DP_TX_REFUSE_US ||
			(st->rf_tries % DT_DP_TX_REFUSE_TRIES) != 0)
		return;
	tso = (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) && st->tcp_cfg.tso_max != 0;
	if (!tso && waited < DT_DP_TX_REFUSE_OTHER_US)
		return;
	errs = port_oerrors(st) - st->rf_oerrors;
	if (errs == 0 && waited < DT_DP_TX_REFUSE_SILENT_US)
		return;
	/* A link down takes nothing (vhost before its guest is up): no refusal. */
	if (errs == 0 && rte_eth_link_get_nowait(st->conf.port_id, &link) == 0 &&
			link.link_status == RTE_ETH_LINK_DOWN) {
		st->rf_head = NULL;
		return;
	}
	if (rte_eth_dev_info_get(st->conf.port_id, &info) != 0)
		info.driver_name = "?";
	if (tso) {
		st->tcp_cfg.tso_max = 0;
		st->tso_max = 0;
		st->st.tx_tso_refused++;
		/* What reports say of the port (its other stacks decide alike). */
		if (st->psh != NULL)
			st->psh->mode.tso = false;
		DT_DP_LOG(WARNING, "port %u queue %u (%s): the PMD refused a TSO frame of %u bytes (tso_segsz %u) %u times in %" PRIu64 " us (%" PRIu64 " TX errors counted): TSO off on this stack; the data of the TSO frames queued goes again as MSS frames",
			st->conf.port_id, st->conf.txq, info.driver_name,
			m->pkt_len, m->tso_segsz, st->rf_tries, waited, errs);
	} else if (!st->rf_warned) {
		st->rf_warned = true;
		DT_DP_LOG(WARNING, "port %u queue %u (%s): the PMD refused a frame of %u bytes in %u segments %u times in %" PRIu64 " us (%" PRIu64 " TX errors counted): dropped, TCP sends its data again (said once)",
			st->conf.port_id, st->conf.txq, info.driver_name,
			m->pkt_len, m->nb_segs, st->rf_tries, waited, errs);
	}
	drop_refused(st, tso);
}
