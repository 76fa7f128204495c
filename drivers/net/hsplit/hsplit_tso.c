/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSO segmentation of the NIC model (see hsplit_tso.h). Only headers are
 * touched here, in host memory: payload reaches each segment's wire
 * buffer through the TX gather (the copy engine for device memory).
 */
#include <rte_mbuf.h>

#include "dt_net_tcp.h"
#include "hsplit_tso.h"

#define TCP_F_FIN 0x01
#define TCP_F_PSH 0x08
#define TCP_F_CWR 0x80

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int
hsplit_tso_plan(const struct rte_mbuf *m, const struct hsplit_caps *caps,
	struct hsplit_tso_plan *pl)
{
	uint32_t hdr = (uint32_t)m->l2_len + m->l3_len + m->l4_len;

	if (!caps->tso || !(m->ol_flags & RTE_MBUF_F_TX_IPV4) ||
			m->l2_len == 0 || m->l3_len < 20 ||
			m->l4_len < DT_NET_TCP_HLEN_MIN ||
			hdr > m->data_len || hdr >= m->pkt_len)
		return -1;
	if (m->tso_segsz < caps->tso_mss_min ||
			m->tso_segsz > caps->tso_mss_max ||
			m->pkt_len > caps->tso_max_len ||
			m->nb_segs > caps->tx_nb_seg_max)
		return -1;
	pl->hdr_len = (uint16_t)hdr;
	pl->mss = m->tso_segsz;
	pl->payload = m->pkt_len - hdr;
	if ((pl->payload + pl->mss - 1) / pl->mss > HSPLIT_TSO_SEGS_MAX)
		return -1;
	pl->nseg = (uint16_t)((pl->payload + pl->mss - 1) / pl->mss);
	return 0;
}

uint64_t
hsplit_tso_wire_len(const struct rte_mbuf *m, uint32_t per_frame)
{
	uint32_t hdr = (uint32_t)m->l2_len + m->l3_len + m->l4_len;
	uint32_t nseg;

	if (!(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) || m->tso_segsz == 0 ||
			hdr >= m->pkt_len)
		return (uint64_t)m->pkt_len + per_frame;
	nseg = (m->pkt_len - hdr + m->tso_segsz - 1) / m->tso_segsz;
	return (uint64_t)m->pkt_len + (uint64_t)(nseg - 1) * hdr +
		(uint64_t)nseg * per_frame;
}

void
hsplit_tso_fix(uint8_t *frame, uint32_t len, uint16_t l2_len,
	uint16_t l3_len, const struct hsplit_tso_seg *s)
{
	uint8_t *ip = frame + l2_len;
	uint8_t *tcp = ip + l3_len;
	uint32_t seq;
	uint8_t keep = 0xff;

	wr16(ip + 2, (uint16_t)(len - l2_len));
	wr16(ip + 4, (uint16_t)(rd16(ip + 4) + s->idx));
	seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 |
		(uint32_t)tcp[6] << 8 | tcp[7];
	seq += s->off;
	tcp[4] = (uint8_t)(seq >> 24);
	tcp[5] = (uint8_t)(seq >> 16);
	tcp[6] = (uint8_t)(seq >> 8);
	tcp[7] = (uint8_t)seq;
	/* As Linux's tcp_gso_segment: PSH, FIN last; CWR first. */
	if (s->idx + 1 < s->nseg)
		keep &= (uint8_t)~(TCP_F_FIN | TCP_F_PSH);
	if (s->idx > 0)
		keep &= (uint8_t)~TCP_F_CWR;
	tcp[13] &= keep;
}
