/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive: parse Ethernet/IPv4/TCP from the header segment only, check the
 * NIC's checksum verdicts, turn the rest of the chain into payload extents
 * (header-segment bytes after the TCP header: HOST; later segments: DEVICE
 * when they come from the payload region), unchain, and run the engine for
 * the connection, the listener or the closed-port answer. ICMP echo is
 * answered in place. Payload bytes in device memory are never read.
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "dt_devmem.h"
#include "dt_dp_priv.h"
#include "dt_net_cksum.h"
#include "dt_net_arp.h"
#include "dt_net_eth.h"
#include "dt_net_icmp.h"
#include "dt_net_ipv4.h"
#include "dt_net_tcp.h"

/* The frame's first bytes, readable by the CPU. */
struct hdr_view {
	const uint8_t *p;
	uint32_t avail;
	uint8_t buf[DT_DP_HDR_MAX];
};

static inline bool
seg_is_device(const struct dt_dp_stack *st, const struct rte_mbuf *s)
{
	return st->region_pool != NULL && s->pool == st->region_pool;
}

/* CPU alias of a device segment's data, for spilled headers only. */
static const uint8_t *
dev_alias(struct dt_dp_stack *st, const struct rte_mbuf *s)
{
	uintptr_t dva = (uintptr_t)s->buf_addr + s->data_off;

	if (!st->alias_tried) {
		st->alias_tried = true;
		st->region_alias = dt_devmem_region_cpu_map(st->conf.region);
		if (st->region_alias == NULL)
			DT_DP_LOG(WARNING,
				"port %u: payload region has no CPU map: frames whose headers spill into device memory are dropped",
				st->conf.port_id);
	}
	if (st->region_alias == NULL)
		return NULL;
	return st->region_alias + (dva - st->region_base);
}

/*
 * Make the frame's first @p need bytes readable at v->p: the header
 * segment, or (headers spilled over a length split) a copy gathered through
 * the region's CPU map. @return 0, -EBADMSG (frame shorter than @p need,
 * or @p need over the view's buffer), -ENOTSUP (spilled headers and no
 * CPU map of the region).
 */
static __rte_noinline int
hdr_gather(struct dt_dp_stack *st, const struct rte_mbuf *m, struct hdr_view *v,
	uint32_t need)
{
	const struct rte_mbuf *s;
	const uint8_t *src;
	uint32_t got = 0, take;

	if (need > m->pkt_len || need > sizeof(v->buf))
		return -EBADMSG;
	for (s = m; s != NULL && got < need; s = s->next) {
		take = RTE_MIN((uint32_t)s->data_len, need - got);
		if (take == 0)
			continue;
		src = seg_is_device(st, s) ? dev_alias(st, s) :
			rte_pktmbuf_mtod(s, const uint8_t *);
		if (src == NULL)
			return -ENOTSUP;
		memcpy(v->buf + got, src, take);
		got += take;
	}
	if (got < need)
		return -EBADMSG;
	if (v->p != v->buf)
		st->st.rx_hdr_spill++;
	v->p = v->buf;
	v->avail = got;
	return 0;
}

/* Inline: headers nearly always sit whole in the header segment. */
static inline int
hdr_need(struct dt_dp_stack *st, const struct rte_mbuf *m, struct hdr_view *v,
	uint32_t need)
{
	if (likely(need <= v->avail))
		return 0;
	return hdr_gather(st, m, v, need);
}

static void
drop(struct rte_mbuf *m, uint64_t *counter)
{
	(*counter)++;
	rte_pktmbuf_free(m);
}

/* L4 checksum over a chain of host segments (CPU verification). */
static bool
tcp_cksum_cpu_ok(const struct rte_mbuf *m, uint32_t l4_off, uint32_t l4_len,
	uint32_t pseudo)
{
	const struct rte_mbuf *s;
	uint32_t sum = pseudo, pos = 0, a, b, lo, hi, off = 0;

	for (s = m; s != NULL; s = s->next) {
		a = pos;
		b = pos + s->data_len;
		pos = b;
		lo = RTE_MAX(a, l4_off);
		hi = RTE_MIN(b, l4_off + l4_len);
		if (lo >= hi)
			continue;
		sum = dt_net_cksum_add_at(sum, rte_pktmbuf_mtod_offset(s,
			const uint8_t *, lo - a), hi - lo, off);
		off += hi - lo;
	}
	return off == l4_len && dt_net_cksum_fold(sum) == 0xffff;
}

static bool
chain_has_device(const struct dt_dp_stack *st, const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		if (m->data_len > 0 && seg_is_device(st, m))
			return true;
	return false;
}

/* RX checksum verdict of the NIC; UNKNOWN verified by the CPU if it may. */
static bool
tcp_cksum_ok(struct dt_dp_stack *st, struct rte_mbuf *m,
	const struct dt_net_ipv4 *ip, uint32_t l4_off)
{
	uint64_t f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t l4_len = dt_net_ipv4_payload_len(ip);

	if (f == RTE_MBUF_F_RX_L4_CKSUM_GOOD || f == RTE_MBUF_F_RX_L4_CKSUM_NONE)
		return true;
	if (f == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
		drop(m, &st->st.drop_l4_cksum);
		return false;
	}
	if (chain_has_device(st, m)) {
		/* The CPU cannot sum payload in device memory. */
		drop(m, &st->st.drop_l4_cksum_unknown);
		return false;
	}
	if (!tcp_cksum_cpu_ok(m, l4_off, l4_len, dt_net_ipv4_pseudo_sum(ip->src,
			ip->dst, DT_NET_IPPROTO_TCP, (uint16_t)l4_len))) {
		drop(m, &st->st.drop_l4_cksum);
		return false;
	}
	return true;
}

/*
 * A header buffer whose bytes were all headers: back to its pool with the
 * burst's others in one bulk (rx_burst), not one mempool call per frame.
 */
static inline void
hdr_free(struct dt_dp_stack *st, struct rte_mbuf *m)
{
	if (likely(st->n_rx_free < DT_DP_BURST))
		st->rx_free[st->n_rx_free++] = m;
	else
		rte_pktmbuf_free_seg(m);
}

/*
 * Payload extents of the chain (at most @p max), unchained; the head is
 * freed if unused. @return the extent count, or -E2BIG (more than @p max:
 * the frame is dropped and counted).
 */
static int
tcp_extents_nic(struct dt_dp_stack *st, struct rte_mbuf *m, uint32_t hoff,
	uint32_t plen, struct dt_tcp_extent *ext, uint32_t max)
{
	struct rte_mbuf *s = m->next, *next;
	uint32_t pos = 0, a, b, lo, hi, n = 0;
	bool head_used = false;

	/*
	 * The header split's usual frame: headers alone in the head, the
	 * payload exactly in the one segment after it (what the loops below
	 * would find, without walking the chain twice).
	 */
	if (likely(s != NULL && s->next == NULL && m->data_len == hoff &&
			s->data_len == plen && plen > 0 && max >= 1)) {
		s->nb_segs = 1;
		s->pkt_len = plen;
		ext[0].ref = s;
		ext[0].off = 0;
		ext[0].len = plen;
		m->next = NULL;
		m->nb_segs = 1;
		m->pkt_len = m->data_len;
		hdr_free(st, m);
		return 1;
	}
	/* Count first: too many extents drops the whole frame untouched. */
	for (s = m; s != NULL; s = s->next) {
		a = pos;
		pos += s->data_len;
		if (RTE_MAX(a, hoff) < RTE_MIN(pos, hoff + plen))
			n++;
	}
	if (n > max) {
		drop(m, &st->st.drop_too_many_segs);
		return -E2BIG;
	}
	n = 0;
	pos = 0;
	for (s = m; s != NULL; s = next) {
		next = s->next;
		a = pos;
		b = pos + s->data_len;
		pos = b;
		lo = RTE_MAX(a, hoff);
		hi = RTE_MIN(b, hoff + plen);
		if (s != m) {
			s->next = NULL;
			s->nb_segs = 1;
			s->pkt_len = s->data_len;
		}
		if (lo < hi) {
			ext[n].ref = s;
			ext[n].off = lo - a;
			ext[n].len = hi - lo;
			n++;
			if (s == m)
				head_used = true;
		} else if (s != m) {
			rte_pktmbuf_free_seg(s);
		}
	}
	m->next = NULL;
	m->nb_segs = 1;
	m->pkt_len = m->data_len;
	if (!head_used)
		hdr_free(st, m);
	return (int)n;
}

/* The payload extents as the NIC left them, moved into the region in copy mode. */
static inline int
tcp_extents(struct dt_dp_stack *st, struct rte_mbuf *m, uint32_t hoff,
	uint32_t plen, struct dt_tcp_extent *ext, uint32_t max)
{
	int n = tcp_extents_nic(st, m, hoff, plen, ext, max);

	if (st->rx_copy && n > 0)
		n = dt_dp_copy_extents(st, ext, n, max);
	return n;
}

static struct dt_dp_conn *
spare_get(struct dt_dp_stack *st)
{
	if (st->spare == NULL)
		st->spare = dt_dp_conn_alloc(st);
	return st->spare;
}

static void
tcp_listen(struct dt_dp_stack *st, struct dt_dp_lst *l,
	const struct dt_tcp_tuple *t, const struct dt_tcp_seg *seg)
{
	struct dt_dp_conn *c = spare_get(st);
	enum dt_tcp_lst_verdict v;

	if (c != NULL)
		dt_dp_ooo_limit(st, c);
	v = dt_tcp_listen_input(&l->l, t, seg, c != NULL ? &c->tcp : NULL,
		st->now, &st->out);
	if (v != DT_TCP_LST_ESTABLISHED) {
		if (v == DT_TCP_LST_BACKLOG_FULL && c == NULL)
			st->st.drop_conn_table_full++;
		else if (v == DT_TCP_LST_SYNQ_FULL)
			st->st.drop_synq_full++;
		dt_dp_out_apply(st, NULL, t);
		return;
	}
	st->spare = NULL;
	c->flags |= DT_DP_CF_PASSIVE;
	c->listen_port = l->port;
	/* The child's segments follow the listening rule: keep it. */
	if (st->sh != NULL && dt_dp_steer_ref(st, l->port) == 0)
		c->flags |= DT_DP_CF_STEER_REF;
	c->nexthop = dt_dp_nexthop(st, t->raddr);
	if (dt_dp_conn_insert(st, c) != 0) {
		/* Cannot happen: the lookup missed. Abort the child. */
		dt_tcp_abort(&c->tcp, st->now, &st->out);
		dt_dp_conn_release_slot(st, c);
		return;
	}
	dt_tcp_listen_accepted(&l->l);
	dt_dp_out_apply(st, c, &c->tcp.tuple);
}

/*
 * The connection of a segment. A burst mostly carries consecutive segments
 * of one flow: the last hit is tried before the hash table. It is valid
 * only while LIVE (removal from the table always leaves LIVE) and its
 * tuple is unique in the table, so a match is the table's answer.
 */
static inline struct dt_dp_conn *
conn_find(struct dt_dp_stack *st, const struct dt_tcp_tuple *t)
{
	struct dt_dp_conn *c = st->rx_last;

	if (c != NULL && c->cs == DT_DP_CS_LIVE &&
			c->tcp.tuple.lport == t->lport &&
			c->tcp.tuple.rport == t->rport &&
			c->tcp.tuple.raddr == t->raddr &&
			c->tcp.tuple.laddr == t->laddr)
		return c;
	c = dt_dp_conn_lookup(st, t);
	if (c != NULL)
		st->rx_last = c;
	return c;
}

/* A segment of an established connection into the engine. */
static void
conn_input(struct dt_dp_stack *st, struct dt_dp_conn *c,
	const struct dt_tcp_seg *seg)
{
	uint16_t i;

	dt_dp_ooo_store_take(st, c, seg);
	dt_dp_ooo_limit(st, c);
	if (dt_tcp_input(&c->tcp, seg, st->now, &st->out) != 0) {
		for (i = 0; i < seg->n_ext; i++)
			rte_pktmbuf_free_seg(seg->ext[i].ref);
		st->st.drop_bad_tcp++;
		return;
	}
	/*
	 * One ACK per connection per burst for in-order data
	 * (dt_tcp_cfg.ack_defer); the engine already sent those of
	 * out-of-order and hole-filling segments (see ack_defer).
	 */
	if (st->out.ack_pending && !c->ack_owed && st->n_ack < DT_DP_BURST) {
		c->ack_owed = true;
		st->ack_list[st->n_ack++] = c->idx;
	}
	dt_dp_out_apply(st, c, &c->tcp.tuple);
}

static void
tcp_demux(struct dt_dp_stack *st, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg)
{
	struct dt_dp_conn *c = conn_find(st, t);
	struct dt_dp_lst *l;

	if (c != NULL) {
		conn_input(st, c, seg);
		return;
	}
	l = t->lport != 0 ? dt_dp_lst_find(st, t->lport) : NULL;
	if (l != NULL) {
		tcp_listen(st, l, t, seg);
		return;
	}
	st->st.drop_no_conn++;
	dt_tcp_rst_closed(seg, &st->out);
	dt_dp_out_apply(st, NULL, t);
}

/*
 * A coalesced frame (the NIC's LRO / HW-GRO: one header, the payload of
 * several segments of the peer's MSS) carries more extents than the engine
 * takes in one segment: it goes in as consecutive segments of the same
 * header, sequence numbers advanced, FIN and PSH on the last one only.
 * What the engine sees is what the wire carried before the NIC merged it.
 */
static void
tcp_demux_pieces(struct dt_dp_stack *st, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg)
{
	struct dt_tcp_seg p = *seg;
	uint32_t seq = seg->th.seq, bytes;
	uint16_t i, k, j;

	st->st.rx_coalesced++;
	for (i = 0; i < seg->n_ext; i = (uint16_t)(i + k)) {
		k = (uint16_t)RTE_MIN(seg->n_ext - i, DT_TCP_SEG_MAX_EXT);
		p.ext = seg->ext + i;
		p.n_ext = k;
		p.th.seq = seq;
		p.th.flags = seg->th.flags;
		if (i + k < seg->n_ext)
			p.th.flags &= (uint8_t)~(DT_NET_TCP_FIN | DT_NET_TCP_PSH);
		for (j = 0, bytes = 0; j < k; j++)
			bytes += p.ext[j].len;
		seq += bytes;
		tcp_demux(st, t, &p);
	}
}

void
dt_dp_gro_flush(struct dt_dp_stack *st)
{
	struct dt_dp_gro_run *r = &st->gro;
	struct dt_tcp_seg seg;

	if (r->n_frames == 0)
		return;
	if (r->n_frames > 1) {
		st->st.rx_gro_runs++;
		st->st.rx_gro_frames += r->n_frames;
	}
	dt_dp_gro_seg(r, &seg);
	r->n_frames = 0;
	conn_input(st, r->conn, &seg);
}

/*
 * A data frame that may coalesce (dt_dp_gro_candidate()): it joins the
 * pending run, or ends it and starts the next. A run starts only at the
 * connection's rcv_nxt with nothing held out of order, in ESTABLISHED:
 * what it merges is the engine's in-order fast path, so out-of-order
 * segments, hole fills and their immediate (duplicate) ACKs stay one per
 * frame, as the sender's loss detection expects. The run's connection
 * stays LIVE until the flush: every other TCP frame flushes first, and
 * nothing else in a burst closes a connection.
 */
static void
gro_input(struct dt_dp_stack *st, const struct dt_tcp_tuple *t,
	const struct dt_tcp_seg *seg, uint32_t plen, const uint8_t *hdr,
	uint32_t l2_len)
{
	struct dt_dp_gro_run *r = &st->gro;
	bool psh = seg->th.flags & DT_NET_TCP_PSH;
	struct dt_dp_conn *c;

	if (dt_dp_gro_match(r, t, &seg->th, seg->n_ext) == DT_DP_GRO_JOIN) {
		dt_dp_gro_append(r, &seg->th, plen, seg->ext, seg->n_ext);
		if (psh)
			dt_dp_gro_flush(st);
		return;
	}
	dt_dp_gro_flush(st);
	c = conn_find(st, t);
	if (c == NULL) {
		tcp_demux(st, t, seg);
		return;
	}
	/*
	 * PAWS runs once, on the run's last TSval: the first must pass it
	 * too (the others are newer), or each frame goes alone.
	 */
	if (psh || c->tcp.state != DT_TCP_ESTABLISHED ||
			seg->th.seq != c->tcp.rcv_nxt || c->tcp.ooo_n != 0 ||
			((seg->th.opts.present & DT_NET_TCPOPT_F_TS) &&
			 dt_tcp_seq_lt(seg->th.opts.ts_val, c->tcp.ts_recent))) {
		conn_input(st, c, seg);
		return;
	}
	dt_dp_gro_start(r, t, &seg->th, plen, seg->ext, seg->n_ext, c);
	dt_dp_gro_template(r, hdr, l2_len, 20);
}

static inline uint32_t
rd_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

/*
 * The next frame of the pending run's flow, recognised by its header
 * bytes (dt_dp_gro_hdr_same(): equal to the run's first, fully parsed and
 * checked frame, but for lengths, identification, checksums, sequence
 * number, flags and TSval): it needs no parse. Checked here what the full
 * path would: the IP verdict GOOD and the L4 one GOOD or NONE from the NIC
 * (tcp_cksum_ok()'s accepted cases; UNKNOWN takes the full path), flags ACK or
 * ACK|PSH, payload present and within the frame. @return false: nothing
 * done, take the full path.
 */
static inline bool
gro_fast(struct dt_dp_stack *st, struct rte_mbuf *m)
{
	struct dt_dp_gro_run *r = &st->gro;
	struct dt_tcp_extent ext[DT_DP_LRO_EXT_MAX];
	uint32_t l3 = r->l2_len, l4 = l3 + 20, thl = r->th.hdr_len, tot, plen;
	uint64_t f = m->ol_flags;
	struct dt_tcp_tuple t;
	struct dt_tcp_seg seg;
	const uint8_t *p;
	uint8_t fl;
	int n;

	if (r->hlen == 0 || m->data_len < r->hlen || seg_is_device(st, m))
		return false;
	if ((f & RTE_MBUF_F_RX_IP_CKSUM_MASK) != RTE_MBUF_F_RX_IP_CKSUM_GOOD ||
			((f & RTE_MBUF_F_RX_L4_CKSUM_MASK) !=
				RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
			 (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) !=
				RTE_MBUF_F_RX_L4_CKSUM_NONE))
		return false;
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	if (!dt_dp_gro_hdr_same(r, p))
		return false;
	fl = p[l4 + 13];
	if (fl != DT_NET_TCP_ACK && fl != (DT_NET_TCP_ACK | DT_NET_TCP_PSH))
		return false;
	tot = (uint32_t)p[l3 + 2] << 8 | p[l3 + 3];
	if (tot <= 20 + thl || l3 + tot > m->pkt_len)
		return false;
	plen = tot - 20 - thl;
	st->st.rx_tcp++;
	seg.th = r->th;
	seg.th.seq = rd_be32(p + l4 + 4);
	seg.th.flags = fl;
	if (thl > DT_NET_TCP_HLEN_MIN)
		seg.th.opts.ts_val = rd_be32(p + l4 + 24);
	n = tcp_extents(st, m, r->hlen, plen, ext, st->lro ?
		DT_DP_LRO_EXT_MAX : DT_TCP_SEG_MAX_EXT);
	if (n < 0)
		return true;
	seg.ext = ext;
	seg.n_ext = (uint16_t)n;
	/* The run may end and restart here: its tuple is overwritten. */
	t = r->tuple;
	if (unlikely(n > DT_TCP_SEG_MAX_EXT)) {
		/* The NIC's coalesced frame: in pieces, as rx_tcp_frame() does. */
		dt_dp_gro_flush(st);
		tcp_demux_pieces(st, &t, &seg);
		return true;
	}
	gro_input(st, &t, &seg, plen, p, l3);
	return true;
}

static void
rx_tcp_frame(struct dt_dp_stack *st, struct rte_mbuf *m, struct hdr_view *v,
	uint16_t l2_len, const struct dt_net_ipv4 *ip)
{
	struct dt_tcp_extent ext[DT_DP_LRO_EXT_MAX];
	uint32_t l4_off = l2_len + ip->hdr_len, seg_len, hoff, plen;
	struct dt_tcp_tuple t;
	struct dt_tcp_seg seg;
	bool hw_cksum;
	uint64_t f;
	int n, r;

	st->st.rx_tcp++;
	seg_len = dt_net_ipv4_payload_len(ip);
	r = hdr_need(st, m, v, l4_off + DT_NET_TCP_HLEN_MIN);
	if (r == 0)
		r = hdr_need(st, m, v, l4_off + ((v->p[l4_off + 12] >> 4) * 4u));
	if (r != 0) {
		drop(m, r == -ENOTSUP ? &st->st.drop_hdr_in_device :
			&st->st.drop_bad_tcp);
		return;
	}
	if (dt_net_tcp_parse(v->p + l4_off, v->avail - l4_off, seg_len,
			&seg.th) != DT_NET_OK) {
		drop(m, &st->st.drop_bad_tcp);
		return;
	}
	f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	hw_cksum = f == RTE_MBUF_F_RX_L4_CKSUM_GOOD ||
		f == RTE_MBUF_F_RX_L4_CKSUM_NONE;
	if (!tcp_cksum_ok(st, m, ip, l4_off))
		return;
	hoff = l4_off + seg.th.hdr_len;
	plen = seg_len - seg.th.hdr_len;
	/* Only a frame without SYN is taken apart (SYN takes a sequence number). */
	n = tcp_extents(st, m, hoff, plen, ext, st->lro &&
		!(seg.th.flags & DT_NET_TCP_SYN) ? DT_DP_LRO_EXT_MAX :
		DT_TCP_SEG_MAX_EXT);
	if (n < 0)
		return;
	t.laddr = ip->dst;
	t.raddr = ip->src;
	t.lport = seg.th.dport;
	t.rport = seg.th.sport;
	seg.ext = n > 0 ? ext : NULL;
	seg.n_ext = (uint16_t)n;
	if (likely(n <= DT_TCP_SEG_MAX_EXT) && !st->conf.no_rx_gro &&
			dt_dp_gro_candidate(&seg.th, plen, hw_cksum)) {
		gro_input(st, &t, &seg, plen, ip->hdr_len == 20 ? v->p : NULL,
			l2_len);
		return;
	}
	dt_dp_gro_flush(st);
	if (unlikely(n > DT_TCP_SEG_MAX_EXT))
		tcp_demux_pieces(st, &t, &seg);
	else
		tcp_demux(st, &t, &seg);
}

void
dt_dp_icmp_input(struct dt_dp_stack *st, struct rte_mbuf *m, uint16_t l2_len,
	uint16_t l3_len, uint16_t ip_len)
{
	uint32_t l4_off = (uint32_t)l2_len + l3_len, len = ip_len - l3_len;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *), *ip = p + l2_len;
	uint32_t a;

	st->st.rx_icmp++;
	if (m->data_len < l4_off + DT_NET_ICMP_HLEN ||
			p[l4_off] != DT_NET_ICMP_ECHO_REQUEST) {
		rte_pktmbuf_free(m);
		return;
	}
	/* Whole message in host buffers (checked by the caller): verify. */
	if (!tcp_cksum_cpu_ok(m, l4_off, len, 0)) {
		drop(m, &st->st.drop_bad_ip);
		return;
	}
	if (dt_net_icmp_echo_to_reply(p + l4_off, m->data_len - l4_off) != 0) {
		rte_pktmbuf_free(m);
		return;
	}
	/* In place: swap the addresses, reply to the sender's MAC. */
	memcpy(p, p + 6, 6);
	memcpy(p + 6, st->mac, 6);
	memcpy(&a, ip + 12, 4);
	memcpy(ip + 16, &a, 4);
	a = rte_cpu_to_be_32(st->ip);
	memcpy(ip + 12, &a, 4);
	ip[8] = 64;
	/* Trim link padding. */
	if (m->pkt_len > l2_len + (uint32_t)ip_len) {
		if (rte_pktmbuf_trim(m, m->pkt_len - l2_len - ip_len) != 0) {
			rte_pktmbuf_free(m);
			return;
		}
	}
	m->ol_flags = 0;
	dt_dp_ip_cksum(st, m, l2_len, l3_len);
	st->st.tx_icmp++;
	dt_dp_tx_push(st, m);
}

static void
ipv4_input(struct dt_dp_stack *st, struct rte_mbuf *m, struct hdr_view *v,
	uint16_t l2_len)
{
	uint64_t f = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	struct dt_net_ipv4 ip;
	enum dt_net_status s;
	unsigned int flags = 0;
	int r;

	if (f == RTE_MBUF_F_RX_IP_CKSUM_BAD) {
		drop(m, &st->st.drop_bad_ip);
		return;
	}
	if (f == RTE_MBUF_F_RX_IP_CKSUM_GOOD)
		flags |= DT_NET_IPV4_F_CKSUM_VERIFIED;
	r = hdr_need(st, m, v, l2_len + DT_NET_IPV4_HLEN_MIN);
	if (r == 0)
		r = hdr_need(st, m, v, l2_len + (v->p[l2_len] & 0xf) * 4u);
	if (r != 0) {
		drop(m, r == -ENOTSUP ? &st->st.drop_hdr_in_device :
			&st->st.drop_bad_ip);
		return;
	}
	s = dt_net_ipv4_parse(v->p + l2_len, v->avail - l2_len,
		m->pkt_len - l2_len, flags, &ip);
	if (s == DT_NET_E_FRAG) {
		drop(m, &st->st.drop_ip_fragment);
		return;
	}
	if (s != DT_NET_OK) {
		drop(m, &st->st.drop_bad_ip);
		return;
	}
	if (ip.dst != st->ip) {
		drop(m, &st->st.drop_not_for_us);
		return;
	}
	if (ip.proto == DT_NET_IPPROTO_TCP) {
		rx_tcp_frame(st, m, v, l2_len, &ip);
		return;
	}
	if (ip.proto == DT_NET_IPPROTO_ICMP && v->p != v->buf &&
			!chain_has_device(st, m)) {
		dt_dp_gro_flush(st);
		dt_dp_icmp_input(st, m, l2_len, ip.hdr_len, ip.total_len);
		return;
	}
	drop(m, ip.proto == DT_NET_IPPROTO_ICMP ? &st->st.drop_hdr_in_device :
		&st->st.drop_unsupported_proto);
}

void
dt_dp_rx_frame(struct dt_dp_stack *st, struct rte_mbuf *m)
{
	struct hdr_view v;
	struct dt_net_eth eth;
	int r;

	st->st.rx_frames++;
	if (st->gro.n_frames > 0 && gro_fast(st, m))
		return;
	if (seg_is_device(st, m)) {
		v.p = NULL;
		v.avail = 0;
	} else {
		v.p = rte_pktmbuf_mtod(m, const uint8_t *);
		v.avail = m->data_len;
	}
	r = hdr_need(st, m, &v, DT_NET_ETH_HLEN);
	if (r == 0 && dt_net_eth_parse(v.p, v.avail, &eth) != DT_NET_OK)
		r = -EBADMSG;
	if (r != 0) {
		drop(m, r == -ENOTSUP ? &st->st.drop_hdr_in_device :
			&st->st.drop_not_ipv4);
		return;
	}
	if (!dt_net_eth_is_group(&eth.dst) && memcmp(eth.dst.b, st->mac, 6) != 0) {
		drop(m, &st->st.drop_not_for_us);
		return;
	}
	if (eth.type == DT_NET_ETH_TYPE_IPV4) {
		ipv4_input(st, m, &v, eth.hdr_len);
		return;
	}
	if (eth.type != DT_NET_ETH_TYPE_ARP) {
		drop(m, &st->st.drop_not_ipv4);
		return;
	}
	if (v.p == v.buf) {
		/* ARP outside the header buffer: never read device memory. */
		drop(m, &st->st.drop_hdr_in_device);
		return;
	}
	if (m->data_len < eth.hdr_len + DT_NET_ARP_LEN) {
		drop(m, &st->st.drop_bad_arp);
		return;
	}
	/* Frames that send keep their order after the data before them. */
	dt_dp_gro_flush(st);
	dt_dp_arp_input(st, m, eth.hdr_len);
}
