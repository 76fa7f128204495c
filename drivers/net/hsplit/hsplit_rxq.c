/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RX queue setup: the split configuration (copied: rx_seg is caller
 * memory), where each pool's buffers live, and the IOMMU check that a pool
 * in device memory was DMA-mapped to this port.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "hsplit_caps.h"
#include "hsplit_private.h"

void
hsplit_rxq_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hsplit_rxq *q = dev->data->rx_queues[qid];

	if (q == NULL)
		return;
	hsplit_rxq_flush(q);
	hsplit_eng_close_all(q->eng, &q->nb_eng);
	rte_ring_free(q->ring);
	rte_free(q->pend);
	rte_free(q);
	dev->data->rx_queues[qid] = NULL;
}

static int
dma_mapped(const struct hsplit_port *p, uintptr_t a, size_t len)
{
	uint32_t i;

	for (i = 0; i < p->nb_dma_win; i++)
		if (a >= p->dma_win[i].addr &&
				a + len <= p->dma_win[i].addr + p->dma_win[i].len)
			return 1;
	return 0;
}

struct pool_scan {
	struct hsplit_rxq *q;
	int first_eng;        /* engine of the first buffer, -1 host */
	int mixed;
	int err;
	int unmapped;
};

static void
pool_scan_obj(struct rte_mempool *mp, void *arg, void *obj, unsigned int i)
{
	struct pool_scan *ps = arg;
	struct rte_mbuf *m = obj;
	int idx, r;

	if (ps->err)
		return;
	r = hsplit_eng_find(ps->q->eng, &ps->q->nb_eng, m->buf_addr,
		m->buf_len, &idx);
	if (r < 0) {
		ps->err = r;
		return;
	}
	if (r == 1 && !dma_mapped(ps->q->port, (uintptr_t)m->buf_addr,
			m->buf_len))
		ps->unmapped = 1;
	if (i == 0)
		ps->first_eng = idx;
	else if (idx != ps->first_eng)
		ps->mixed = 1;
}

/* Classify the buffers of the pool of stash @p s. */
static int
pool_classify(struct hsplit_rxq *q, struct hsplit_stash *s)
{
	struct pool_scan ps = { .q = q, .first_eng = -1 };

	rte_mempool_obj_iter(s->mp, pool_scan_obj, &ps);
	if (ps.err == -EFAULT) {
		HSPLIT_LOG(ERR, "port %u rxq %u: pool %s has buffers straddling a device-memory window",
			q->port_id, q->qid, s->mp->name);
		return -EFAULT;
	}
	if (ps.err < 0)
		return ps.err;
	if (ps.unmapped) {
		HSPLIT_LOG(ERR, "payload pool %s is in device memory not DMA-mapped to port %u",
			s->mp->name, q->port_id);
		return -EPERM;
	}
	if (ps.mixed) {
		s->mem = HSPLIT_MEM_MIXED;
	} else if (ps.first_eng >= 0) {
		s->mem = HSPLIT_MEM_DEV;
		s->eng = (uint8_t)ps.first_eng;
	} else {
		s->mem = HSPLIT_MEM_HOST;
	}
	return 0;
}

/* The split configuration from rx_seg (or the single pool @p mp). */
static int
split_config(struct hsplit_rxq *q, const struct rte_eth_rxconf *conf,
	struct rte_mempool *mp)
{
	struct hsplit_split_cfg *c = &q->split;
	const struct hsplit_caps *caps = hsplit_caps_get(q->port->da.caps);
	uint32_t i, mask = 0;

	memset(c, 0, sizeof(*c));
	c->scatter = !!(q->offloads & RTE_ETH_RX_OFFLOAD_SCATTER);
	c->nomatch = q->port->da.nomatch;
	if (conf->rx_nseg == 0) {
		if (mp == NULL) {
			HSPLIT_LOG(ERR, "port %u rxq %u: no mempool", q->port_id, q->qid);
			return -EINVAL;
		}
		q->nseg = 1;
		q->seg[0] = (struct rte_eth_rxseg_split){ .mp = mp };
	} else {
		if (conf->rx_nseg > HSPLIT_MAX_NSEG) {
			HSPLIT_LOG(ERR, "port %u rxq %u: %u split segments, at most %d",
				q->port_id, q->qid, conf->rx_nseg, HSPLIT_MAX_NSEG);
			return -EINVAL;
		}
		q->nseg = (uint8_t)conf->rx_nseg;
		for (i = 0; i < q->nseg; i++)
			q->seg[i] = conf->rx_seg[i].split;
	}
	c->nseg = q->nseg;
	if (q->nseg == 1) {
		uint16_t room = rte_pktmbuf_data_room_size(q->seg[0].mp);

		c->mode = HSPLIT_SPLIT_NONE;
		if (room <= RTE_PKTMBUF_HEADROOM) {
			HSPLIT_LOG(ERR, "port %u rxq %u: pool %s data room %u leaves no room after the headroom",
				q->port_id, q->qid, q->seg[0].mp->name, room);
			return -EINVAL;
		}
		c->seg[0].off = c->seg[0].cont_off = RTE_PKTMBUF_HEADROOM;
		c->seg[0].cap = c->seg[0].cont_cap = room - RTE_PKTMBUF_HEADROOM;
		return 0;
	}
	c->mode = q->seg[0].proto_hdr ? HSPLIT_SPLIT_PROTO : HSPLIT_SPLIT_LENGTH;
	if (c->mode == HSPLIT_SPLIT_LENGTH && !caps->len_split) {
		/* ice refuses it at queue start (ice_rxtx.c): so do we, earlier. */
		HSPLIT_LOG(ERR, "port %u rxq %u: caps=%s splits by protocol only: segment 0 needs proto_hdr (Buffer split protocol must be configured)",
			q->port_id, q->qid, caps->name);
		return -EINVAL;
	}
	c->len_exact = c->mode == HSPLIT_SPLIT_LENGTH && caps->len_exact;
	for (i = 0; i < q->nseg; i++) {
		const struct rte_eth_rxseg_split *s = &q->seg[i];
		struct hsplit_seg_cfg *sc = &c->seg[i];
		uint16_t room = rte_pktmbuf_data_room_size(s->mp);
		uint32_t off = s->offset + (i == 0 ? RTE_PKTMBUF_HEADROOM : 0);

		if (off >= room) {
			HSPLIT_LOG(ERR, "port %u rxq %u: segment %u offset %u leaves no room in pool %s (data room %u)",
				q->port_id, q->qid, i, off, s->mp->name, room);
			return -EINVAL;
		}
		if (s->proto_hdr) {
			if (i != c->nb_hdr) {
				HSPLIT_LOG(ERR, "port %u rxq %u: protocol segment %u follows a length segment",
					q->port_id, q->qid, i);
				return -EINVAL;
			}
			mask |= s->proto_hdr;
			sc->proto_mask = mask;
			c->nb_hdr++;
		}
		sc->length = s->length;
		sc->off = (uint16_t)off;
		sc->cap = (uint16_t)(room - off);
		sc->cont_off = 0;
		sc->cont_cap = room;
	}
	if (c->mode == HSPLIT_SPLIT_LENGTH) {
		c->nb_hdr = (uint8_t)(q->nseg - 1);
		if (q->seg[0].length == 0) {
			HSPLIT_LOG(ERR, "port %u rxq %u: length split needs a segment 0 length",
				q->port_id, q->qid);
			return -EINVAL;
		}
	} else if (c->nb_hdr == q->nseg) {
		HSPLIT_LOG(ERR, "port %u rxq %u: protocol split needs a last segment with proto_hdr 0 for the payload",
			q->port_id, q->qid);
		return -EINVAL;
	}
	return 0;
}

/*
 * Engines and their channels are bound while the port runs: regions (and
 * their engines) are created and destroyed while ports are stopped, so a
 * stopped queue must hold no channel.
 */
int
hsplit_rxq_bind(struct hsplit_rxq *q)
{
	uint32_t i;
	int ret;

	hsplit_eng_close_all(q->eng, &q->nb_eng);
	for (i = 0; i < q->nseg; i++) {
		ret = pool_classify(q, &q->stash[i]);
		if (ret < 0) {
			hsplit_eng_close_all(q->eng, &q->nb_eng);
			return ret;
		}
	}
	return 0;
}

void
hsplit_rxq_unbind(struct hsplit_rxq *q)
{
	hsplit_rxq_flush(q);
	hsplit_eng_close_all(q->eng, &q->nb_eng);
}

int
hsplit_rxq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
	unsigned int socket, const struct rte_eth_rxconf *conf,
	struct rte_mempool *mp)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	char name[RTE_RING_NAMESIZE];
	struct hsplit_rxq *q;
	uint32_t i, size;
	int ret;

	hsplit_rxq_release(dev, qid);
	q = rte_zmalloc_socket("hsplit_rxq", sizeof(*q), RTE_CACHE_LINE_SIZE,
		(int)socket);
	if (q == NULL) {
		HSPLIT_LOG(ERR, "port %u rxq %u: no memory for the queue", p->port_id, qid);
		return -ENOMEM;
	}
	q->port = p;
	q->qid = qid;
	q->port_id = p->port_id;
	q->offloads = conf->offloads | dev->data->dev_conf.rxmode.offloads;
	ret = split_config(q, conf, mp);
	if (ret < 0)
		goto fail;
	for (i = 0; i < q->nseg; i++)
		q->stash[i].mp = q->seg[i].mp;
	/* Check now for a clear error at setup; bound again at start. */
	ret = hsplit_rxq_bind(q);
	hsplit_eng_close_all(q->eng, &q->nb_eng);
	if (ret < 0)
		goto fail;
	size = rte_align32pow2(RTE_MAX((uint32_t)nb_desc, 2u * HSPLIT_BURST));
	snprintf(name, sizeof(name), "hsplit_rx_%u_%u", p->port_id, qid);
	q->ring = rte_ring_create(name, size, (int)socket, RING_F_SC_DEQ);
	if (q->ring == NULL) {
		HSPLIT_LOG(ERR, "port %u rxq %u: cannot create ring %s of %u: %s",
			p->port_id, qid, name, size, rte_strerror(rte_errno));
		ret = -rte_errno;
		goto fail;
	}
	/*
	 * Frames in flight between ingest and copy completion: as many as
	 * the ring holds, so that an asynchronous engine's latency does not
	 * cap them below it.
	 */
	size = RTE_MIN(RTE_MAX(size, (uint32_t)HSPLIT_PENDING),
		(uint32_t)HSPLIT_PENDING_MAX);
	q->pend = rte_zmalloc_socket("hsplit_rxq_pend", size * sizeof(q->pend[0]),
		RTE_CACHE_LINE_SIZE, (int)socket);
	if (q->pend == NULL) {
		HSPLIT_LOG(ERR, "port %u rxq %u: no memory for %u pending frames",
			p->port_id, qid, size);
		rte_ring_free(q->ring);
		ret = -ENOMEM;
		goto fail;
	}
	q->pend_mask = size - 1;
	dev->data->rx_queues[qid] = q;
	if (p->started && (ret = hsplit_rxq_bind(q)) < 0) {
		dev->data->rx_queues[qid] = NULL;
		rte_ring_free(q->ring);
		rte_free(q->pend);
		goto fail;
	}
	HSPLIT_LOG(DEBUG, "port %u rxq %u: mode %u nseg %u hdr segs %u scatter %u",
		p->port_id, qid, q->split.mode, q->split.nseg, q->split.nb_hdr,
		q->split.scatter);
	return 0;
fail:
	hsplit_eng_close_all(q->eng, &q->nb_eng);
	rte_free(q);
	return ret;
}
