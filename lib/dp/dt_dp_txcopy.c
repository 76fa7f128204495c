/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames that own their payload: the stack writes the payload into the
 * header buffer instead of chaining shells attached to the application's
 * send buffers. Three kinds of port need it (decided from dev_info and
 * from what the PMD does, never from its name):
 *  - no multi-segment TX (af_xdp): a frame must be one buffer;
 *  - no TX checksum offload: the CPU sums the frame, and may only read
 *    host bytes;
 *  - a PMD that keeps transmitted mbufs and cannot be asked to free them
 *    (dt_dp_tx.c, tx_held): shells would hold the application's buffers
 *    long after the ACK.
 * Host payload is copied by the CPU. Device payload is never touched by
 * the CPU (zero touch): the copy engine of the buffer's region writes it
 * into the frame, with its gather (one device operation per TX flush,
 * into the header pool declared as gather targets) where it has one.
 * Copies are batched per TX flush and waited for before the burst: the
 * frame's checksum, when the CPU sums it, is computed once its bytes have
 * landed. The send's buffer is referenced (shinfo) until its copy landed,
 * so a send completes only once nothing reads it any more.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "dt_dp_priv.h"
#include "dt_net_cksum.h"

struct gt_arg {
	struct dt_copy_chan *ch;
	int rc;
};

static void
gather_chunk(struct rte_mempool *mp, void *arg, struct rte_mempool_memhdr *mh,
	unsigned int idx)
{
	struct gt_arg *a = arg;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if (a->rc == 0)
		a->rc = dt_copy_gather_target(a->ch, mh->addr, mh->len);
}

/* The channel of @p ce, opened the first time a send needs it. */
static struct dt_dp_txc_chan *
txc_chan(struct dt_dp_stack *st, struct dt_copy_engine *ce)
{
	struct dt_dp_txc_chan *c;
	struct gt_arg a;
	unsigned int i;

	for (i = 0; i < st->txc_nchan; i++)
		if (st->txc[i].ce == ce)
			return &st->txc[i];
	if (st->txc_nchan == DT_DP_TXC_CHANS)
		return NULL;
	c = &st->txc[st->txc_nchan];
	c->ch = dt_copy_chan_open(ce);
	if (c->ch == NULL)
		return NULL;
	c->ce = ce;
	c->n = 0;
	/* The frames are written where the engine's device writes directly. */
	a.ch = c->ch;
	a.rc = dt_copy_has_gather(c->ch) ? 0 : -ENOTSUP;
	if (a.rc == 0)
		rte_mempool_mem_iter(st->conf.hdr_pool, gather_chunk, &a);
	c->gather = a.rc == 0;
	st->txc_nchan++;
	DT_DP_LOG(INFO, "port %u queue %u: device payload copied into frames by copy engine %s (%s)",
		st->conf.port_id, st->conf.txq, ce->ops->name,
		c->gather ? "one gather per TX flush" : "submit");
	return c;
}

int
dt_dp_txc_engine(struct dt_dp_stack *st, const struct dt_dp_buf *buf,
	struct dt_copy_engine **ce)
{
	*ce = NULL;
	if (dt_copy_registry_find(buf->addr, buf->len, ce) != 0 || *ce == NULL)
		return -EFAULT;  /* no engine reaches it: nothing may read it */
	/* A port that writes payload into frames now: the channel too. */
	if (st->tx_linear || st->tx_held || !st->conf.tx_cksum_offload)
		return txc_chan(st, *ce) != NULL ? 0 : -ENOTSUP;
	return 0;
}

bool
dt_dp_txc_wanted(const struct dt_dp_stack *st, const struct dt_tcp_tx_seg *seg)
{
	uint16_t i;

	if (st->tx_linear || st->tx_held)
		return true;
	if (st->conf.tx_cksum_offload)
		return false;
	for (i = 0; i < seg->n_ext; i++)
		if (((const struct dt_dp_send *)seg->ext[i].ref)->device)
			return true;
	return false;
}

/* Queue one device copy (its channel is open); the send stays referenced until it landed. */
static void
txc_queue(struct dt_dp_stack *st, struct dt_dp_send *s, void *dst,
	const void *src, uint32_t len)
{
	struct dt_dp_txc_chan *c = txc_chan(st, s->ce);

	c->ops[c->n].dst = dst;
	c->ops[c->n].src = src;
	c->ops[c->n].len = len;
	c->snd[c->n] = s;
	c->n++;
	rte_mbuf_ext_refcnt_update(&s->shinfo, 1);
	st->st.tx_copy_bytes += len;
}

/* Whether one more frame of @p n copies fits the batch. */
static bool
txc_room(const struct dt_dp_stack *st, uint16_t n)
{
	unsigned int i;

	if (st->txc_nfr >= DT_DP_TXC_OPS)
		return false;
	for (i = 0; i < st->txc_nchan; i++)
		if (st->txc[i].n + n > DT_DP_TXC_OPS)
			return false;
	return true;
}

int
dt_dp_txc_fill(struct dt_dp_stack *st, struct rte_mbuf *m,
	const struct dt_tcp_tx_seg *seg, bool *pending)
{
	const struct dt_tcp_extent *e;
	struct dt_dp_send *s;
	uint8_t *dst;
	uint16_t i;

	*pending = false;
	if (seg->len > rte_pktmbuf_tailroom(m))
		return -EMSGSIZE;
	/* Every device slice has a channel before any copy is queued. */
	for (i = 0; i < seg->n_ext; i++) {
		s = seg->ext[i].ref;
		if (s->device && (s->ce == NULL || txc_chan(st, s->ce) == NULL))
			return -ENOTSUP;
	}
	if (!txc_room(st, seg->n_ext))
		dt_dp_txc_flush(st);
	for (i = 0; i < seg->n_ext; i++) {
		e = &seg->ext[i];
		s = e->ref;
		dst = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)e->len);
		if (!s->device) {
			memcpy(dst, (const uint8_t *)s->addr + e->off, e->len);
			continue;
		}
		/* Address arithmetic: the engine reads the device bytes. */
		txc_queue(st, s, dst, (const uint8_t *)s->addr + e->off, e->len);
		*pending = true;
	}
	return 0;
}

void
dt_dp_txc_defer_cksum(struct dt_dp_stack *st, struct rte_mbuf *m,
	uint32_t pseudo, uint16_t l4_off)
{
	/* Ours until summed, even if the frame is dropped meanwhile. */
	rte_mbuf_refcnt_update(m, 1);
	st->txc_fr[st->txc_nfr].m = m;
	st->txc_fr[st->txc_nfr].pseudo = pseudo;
	st->txc_fr[st->txc_nfr].l4_off = l4_off;
	st->txc_nfr++;
}

/* Submit (or gather) @p c's copies and wait; false if they did not land. */
static bool
txc_run(struct dt_dp_stack *st, struct dt_dp_txc_chan *c)
{
	uint64_t ticket = 0;
	uint16_t done = 0;
	int r;

	while (done < c->n) {
		r = c->gather ? dt_copy_gather(c->ch, c->ops + done,
				(uint16_t)(c->n - done), &ticket) :
			dt_copy_submit(c->ch, c->ops + done,
				(uint16_t)(c->n - done), &ticket);
		if (r > 0) {
			done = (uint16_t)(done + r);
		} else if (r == 0) {
			if (dt_copy_chan_failed(c->ch) != 0)
				return false;
			rte_pause();
		} else {
			if (st->st.tx_copy_errors++ == 0)
				DT_DP_LOG(ERR, "port %u: copy engine %s refused %u bytes of device payload into a frame: %s",
					st->conf.port_id, c->ce->ops->name,
					c->ops[done].len, rte_strerror(-r));
			return false;
		}
	}
	while (done > 0 && dt_copy_completed(c->ch) < ticket) {
		if (dt_copy_chan_failed(c->ch) != 0)
			return false;
		rte_pause();
	}
	return true;
}

void
dt_dp_txc_flush(struct dt_dp_stack *st)
{
	struct dt_dp_txc_chan *c;
	uint8_t *tcp;
	uint16_t ck, i;
	bool ok = true;
	unsigned int k;

	for (k = 0; k < st->txc_nchan; k++) {
		c = &st->txc[k];
		if (c->n == 0)
			continue;
		if (!txc_run(st, c)) {
			ok = false;
			st->st.tx_copy_errors += c->n;
		}
		for (i = 0; i < c->n; i++)
			rte_mbuf_ext_refcnt_update(&c->snd[i]->shinfo, -1);
		c->n = 0;
	}
	for (i = 0; i < st->txc_nfr; i++) {
		struct rte_mbuf *m = st->txc_fr[i].m;

		tcp = rte_pktmbuf_mtod_offset(m, uint8_t *, st->txc_fr[i].l4_off);
		ck = dt_net_cksum_finish(dt_net_cksum_add_at(st->txc_fr[i].pseudo,
			tcp, m->data_len - st->txc_fr[i].l4_off, 0));
		/* Bytes that did not land: a checksum the peer refuses; TCP resends. */
		if (!ok)
			ck = (uint16_t)~ck;
		tcp[16] = (uint8_t)(ck >> 8);
		tcp[17] = (uint8_t)ck;
		rte_pktmbuf_free(m);
	}
	st->txc_nfr = 0;
}

void
dt_dp_txc_fini(struct dt_dp_stack *st)
{
	unsigned int k;

	dt_dp_txc_flush(st);
	for (k = 0; k < st->txc_nchan; k++)
		dt_copy_chan_close(st->txc[k].ch);
	st->txc_nchan = 0;
}
