/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering of ports with a host queue (see dt_dp_steer.h): the per-port
 * shared state, rte_flow rules for listening ports and active connections,
 * and the lock-free shared neighbour table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_malloc.h>

#include "dt_dp_priv.h"
#include "dt_dp_steer.h"

static struct dt_dp_port_sh *port_sh[RTE_MAX_ETHPORTS];

struct dt_dp_port_sh *
dt_dp_port_sh_get(uint16_t port_id)
{
	return port_id < RTE_MAX_ETHPORTS ? port_sh[port_id] : NULL;
}

int
dt_dp_port_sh_attach(uint16_t port_id, uint16_t nb_rxq, bool steered)
{
	struct dt_dp_port_sh *sh = port_sh[port_id];

	if (sh == NULL) {
		sh = rte_zmalloc("dt_dp_port_sh", sizeof(*sh), RTE_CACHE_LINE_SIZE);
		if (sh == NULL)
			return -ENOMEM;
	} else {
		memset(sh, 0, sizeof(*sh));
	}
	sh->port_id = port_id;
	sh->nb_rxq = nb_rxq;
	sh->steered = steered;
	rte_spinlock_init(&sh->lock);
	port_sh[port_id] = sh;
	return 0;
}

void
dt_dp_port_sh_detach(uint16_t port_id)
{
	if (port_id >= RTE_MAX_ETHPORTS)
		return;
	rte_free(port_sh[port_id]);
	port_sh[port_id] = NULL;
}

/* ---- shared neighbours ---- */

static inline uint64_t
mac_word(const uint8_t mac[6], uint16_t count)
{
	uint64_t w = 0;
	int i;

	for (i = 0; i < 6; i++)
		w |= (uint64_t)mac[i] << (8 * i);
	return w | (uint64_t)count << 48;
}

/* Entry of @p ip, claimed when free; NULL when the table is full. */
static struct dt_dp_sh_neigh *
sh_neigh_claim(struct dt_dp_port_sh *sh, uint32_t ip)
{
	uint32_t i = dt_dp_neigh_hash(ip) & (DT_DP_SH_NEIGH - 1), k, eip;
	struct dt_dp_sh_neigh *e;

	for (k = 0; k < DT_DP_SH_NEIGH; k++, i = (i + 1) & (DT_DP_SH_NEIGH - 1)) {
		e = &sh->neigh[i];
		eip = __atomic_load_n(&e->ip, __ATOMIC_ACQUIRE);
		/* A free entry: ours, unless another stack claims it first. */
		if (eip == 0 && __atomic_compare_exchange_n(&e->ip, &eip, ip,
				false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return e;
		if (eip == ip)
			return e;
	}
	return NULL;
}

uint16_t
dt_dp_sh_neigh_publish(struct dt_dp_port_sh *sh, uint32_t ip,
	const uint8_t mac[6])
{
	struct dt_dp_sh_neigh *e = sh_neigh_claim(sh, ip);
	uint64_t old, w;
	uint16_t cnt;

	if (e == NULL)
		return 0;
	old = __atomic_load_n(&e->word, __ATOMIC_RELAXED);
	do {
		cnt = (uint16_t)((old >> 48) + 1);
		if (cnt == 0)
			cnt = 1;    /* 0 means "not published" to readers */
		w = mac_word(mac, cnt);
	} while (!__atomic_compare_exchange_n(&e->word, &old, w, false,
			__ATOMIC_RELEASE, __ATOMIC_RELAXED));
	__atomic_add_fetch(&sh->neigh_gen, 1, __ATOMIC_RELEASE);
	return cnt;
}

bool
dt_dp_sh_neigh_lookup(const struct dt_dp_port_sh *sh, uint32_t ip,
	uint8_t mac[6], uint16_t *count)
{
	uint32_t i = dt_dp_neigh_hash(ip) & (DT_DP_SH_NEIGH - 1), k, eip;
	uint64_t w;
	int b;

	for (k = 0; k < DT_DP_SH_NEIGH; k++, i = (i + 1) & (DT_DP_SH_NEIGH - 1)) {
		eip = __atomic_load_n(&sh->neigh[i].ip, __ATOMIC_ACQUIRE);
		if (eip == 0)
			return false;
		if (eip != ip)
			continue;
		w = __atomic_load_n(&sh->neigh[i].word, __ATOMIC_ACQUIRE);
		if ((w >> 48) == 0)
			return false;   /* claimed, MAC not stored yet */
		for (b = 0; b < 6; b++)
			mac[b] = (uint8_t)(w >> (8 * b));
		*count = (uint16_t)(w >> 48);
		return true;
	}
	return false;
}

/* ---- rte_flow rules ---- */

/* A rule of ours as rte_flow wants it (spec, masks and action storage). */
struct flow_desc {
	struct rte_flow_attr attr;
	struct rte_flow_item_ipv4 ip_spec, ip_mask;
	struct rte_flow_item_tcp tcp_spec, tcp_mask;
	struct rte_flow_item pattern[4];
	struct rte_flow_action actions[2];
	struct rte_flow_action_queue queue;
	struct rte_flow_action_rss rss;
};

/*
 * eth / ipv4 dst @p dst_ip [src @p src_ip] / tcp dst @p dport [src
 * @p sport] -> the queue, or RSS over @p n queues. A listening rule has
 * @p src_ip 0.
 */
static void
flow_build(struct flow_desc *d, uint32_t prio, uint32_t src_ip,
	uint32_t dst_ip, uint16_t sport, uint16_t dport, const uint16_t *queues,
	uint32_t n)
{
	memset(d, 0, sizeof(*d));
	d->attr.ingress = 1;
	d->attr.priority = prio;
	d->ip_spec.hdr.dst_addr = rte_cpu_to_be_32(dst_ip);
	d->ip_mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	d->tcp_spec.hdr.dst_port = rte_cpu_to_be_16(dport);
	d->tcp_mask.hdr.dst_port = RTE_BE16(0xffff);
	if (src_ip != 0) {
		d->ip_spec.hdr.src_addr = rte_cpu_to_be_32(src_ip);
		d->ip_mask.hdr.src_addr = RTE_BE32(0xffffffff);
		d->tcp_spec.hdr.src_port = rte_cpu_to_be_16(sport);
		d->tcp_mask.hdr.src_port = RTE_BE16(0xffff);
	}
	d->pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	d->pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	d->pattern[1].spec = &d->ip_spec;
	d->pattern[1].mask = &d->ip_mask;
	d->pattern[2].type = RTE_FLOW_ITEM_TYPE_TCP;
	d->pattern[2].spec = &d->tcp_spec;
	d->pattern[2].mask = &d->tcp_mask;
	d->pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
	if (n == 1) {
		d->queue.index = queues[0];
		d->actions[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
		d->actions[0].conf = &d->queue;
	} else {
		d->rss.func = RTE_ETH_HASH_FUNCTION_DEFAULT;
		d->rss.types = RTE_ETH_RSS_NONFRAG_IPV4_TCP;
		d->rss.queue_num = n;
		d->rss.queue = queues;
		d->actions[0].type = RTE_FLOW_ACTION_TYPE_RSS;
		d->actions[0].conf = &d->rss;
	}
	d->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

static struct rte_flow *
flow_create(struct dt_dp_stack *st, uint32_t prio, uint32_t src_ip,
	uint32_t dst_ip, uint16_t sport, uint16_t dport, const uint16_t *queues,
	uint32_t n)
{
	struct flow_desc d;
	struct rte_flow_error err;
	struct rte_flow *f;

	flow_build(&d, prio, src_ip, dst_ip, sport, dport, queues, n);
	memset(&err, 0, sizeof(err));
	f = rte_flow_create(st->conf.port_id, &d.attr, d.pattern, d.actions,
		&err);
	if (f == NULL) {
		st->st.steer_errors++;
		DT_DP_LOG(ERR, "port %u queue %u: steering rule for tcp port %u refused: %s",
			st->conf.port_id, st->conf.rxq, dport,
			err.message != NULL ? err.message : "(no reason)");
		return NULL;
	}
	st->st.steer_rules++;
	return f;
}

/* Whether @p port takes one rule of this shape; else why not, in @p why. */
static bool
flow_probe_one(uint16_t port, const char *what, uint32_t src_ip,
	const uint16_t *queues, uint32_t n, char *why, size_t len)
{
	/*
	 * Any addresses: the shape is what a NIC accepts or refuses. 192.0.2.1
	 * (TEST-NET-1) spelt out: DPDK 22.11's RTE_IPV4(192, ...) shifts an int
	 * into its sign bit (UBSan aborts the sanitizer build).
	 */
	const uint32_t ip = UINT32_C(0xc0000201);
	struct rte_flow_error err;
	struct flow_desc d;
	int rc;

	flow_build(&d, src_ip != 0 ? DT_DP_STEER_PRIO_CONN :
		DT_DP_STEER_PRIO_LISTEN, src_ip, ip, 40000, 5001, queues, n);
	memset(&err, 0, sizeof(err));
	rc = rte_flow_validate(port, &d.attr, d.pattern, d.actions, &err);
	if (rc == 0)
		return true;
	/* ethdev's own refusals repeat strerror as the message. */
	if (err.message != NULL && strcmp(err.message, rte_strerror(-rc)) == 0)
		err.message = NULL;
	snprintf(why, len, "no rte_flow %s rule (%s%s%s)", what,
		rte_strerror(-rc), err.message != NULL ? ": " : "",
		err.message != NULL ? err.message : "");
	return false;
}

bool
dt_dp_steer_probe(uint16_t port, uint16_t nb_rxq, char *why, size_t len)
{
	uint16_t q[DT_DP_STEER_SLOTS] = { 1 }, i, n = 0;

	for (i = 1; i < nb_rxq && n < DT_DP_STEER_SLOTS; i++)
		q[n++] = i;
	/* A listening port of one stack, of several, an active open. */
	return flow_probe_one(port, "queue", 0, q, 1, why, len) &&
		(n < 2 || flow_probe_one(port, "RSS", 0, q, n, why, len)) &&
		flow_probe_one(port, "5-tuple", UINT32_C(0xc0000202), q, 1,
			why, len);
}

static void
flow_destroy(struct dt_dp_stack *st, struct rte_flow *f)
{
	struct rte_flow_error err;

	if (f == NULL)
		return;
	if (rte_flow_destroy(st->conf.port_id, f, &err) != 0) {
		st->st.steer_errors++;
		DT_DP_LOG(ERR, "port %u: steering rule not destroyed: %s",
			st->conf.port_id, err.message != NULL ? err.message : "?");
	}
}

/*
 * Give group @p g the rule of its slots: the new rule first, then the old
 * one goes (same priority, older first: no frame finds neither).
 */
static int
grp_rule(struct dt_dp_stack *st, struct dt_dp_steer_grp *g)
{
	struct rte_flow *f = NULL;

	if (g->members != 0) {
		f = flow_create(st, DT_DP_STEER_PRIO_LISTEN, 0, g->ip,
			0, g->tcp_port, g->slot, g->nb_slots);
		if (f == NULL)
			return -ENOSPC;
	}
	flow_destroy(st, g->flow);
	g->flow = f;
	return 0;
}

/* Member queues of @p members, in order, into @p q; returns how many. */
static uint16_t
grp_member_queues(uint64_t members, uint16_t q[DT_DP_STEER_SLOTS])
{
	uint16_t i, n = 0;

	for (i = 0; i < DT_DP_STEER_SLOTS; i++)
		if (members & (1ull << i))
			q[n++] = i;
	return n;
}

/*
 * The slots after queue @p q joins or leaves. A join appends a slot (flows
 * re-hash: let every stack listen before connections arrive), or takes one
 * back once the list is full. A leave hands the queue's slots round-robin
 * to the members that stay: the leaver has no connection of the port, so
 * nothing established moves.
 */
static void
grp_slots(struct dt_dp_steer_grp *g, uint16_t q, bool join)
{
	uint16_t mq[DT_DP_STEER_SLOTS], n, i, k = 0;

	if (join) {
		if (g->nb_slots < DT_DP_STEER_SLOTS)
			g->slot[g->nb_slots++] = q;
		else
			g->slot[q % DT_DP_STEER_SLOTS] = q;
		return;
	}
	n = grp_member_queues(g->members, mq);
	if (n == 0) {
		g->nb_slots = 0;
		return;
	}
	for (i = 0; i < g->nb_slots; i++)
		if (g->slot[i] == q)
			g->slot[i] = mq[k++ % n];
}

/* The stack's queue joins (or leaves) the group of (its ip, @p port). */
static int
grp_update(struct dt_dp_stack *st, uint16_t port, bool join)
{
	struct dt_dp_port_sh *sh = st->sh;
	struct dt_dp_steer_grp *g = NULL, *free_g = NULL, old;
	uint16_t q = st->conf.rxq;
	uint64_t bit = 1ull << q;
	unsigned int i;
	int r;

	rte_spinlock_lock(&sh->lock);
	for (i = 0; i < DT_DP_STEER_GRP_MAX; i++) {
		if (sh->grp[i].ip == st->ip && sh->grp[i].tcp_port == port)
			g = &sh->grp[i];
		else if (sh->grp[i].ip == 0 && free_g == NULL)
			free_g = &sh->grp[i];
	}
	if (g == NULL && join && free_g != NULL) {
		g = free_g;
		memset(g, 0, sizeof(*g));
		g->ip = st->ip;
		g->tcp_port = port;
	}
	if (g == NULL || (join == ((g->members & bit) != 0))) {
		r = g == NULL && join ? -ENOSPC : 0;
		goto out;
	}
	old = *g;
	g->members = join ? g->members | bit : g->members & ~bit;
	grp_slots(g, q, join);
	r = grp_rule(st, g);
	if (r != 0) {
		/* No new rule: the old one (old.flow) stays in force. */
		old.flow = g->flow;
		*g = old;
	}
	if (g->members == 0)
		g->ip = 0;
out:
	rte_spinlock_unlock(&sh->lock);
	return r;
}

static struct dt_dp_steer_ref *
ref_find(struct dt_dp_stack *st, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(st->steer_ref); i++)
		if (st->steer_ref[i].port == port)
			return &st->steer_ref[i];
	return NULL;
}

int
dt_dp_steer_ref(struct dt_dp_stack *st, uint16_t port)
{
	struct dt_dp_steer_ref *ref;
	int r;

	if (st->sh == NULL)
		return 0;
	ref = ref_find(st, port);
	if (ref != NULL) {
		ref->refs++;
		return 0;
	}
	ref = ref_find(st, 0);
	if (ref == NULL)
		return -ENOSPC;
	r = grp_update(st, port, true);
	if (r != 0)
		return r;
	ref->port = port;
	ref->refs = 1;
	return 0;
}

void
dt_dp_steer_unref(struct dt_dp_stack *st, uint16_t port)
{
	struct dt_dp_steer_ref *ref;

	if (st->sh == NULL || port == 0 || (ref = ref_find(st, port)) == NULL)
		return;
	if (--ref->refs > 0)
		return;
	grp_update(st, port, false);
	ref->port = 0;
}

int
dt_dp_steer_conn_add(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	const struct dt_tcp_tuple *t = &c->tcp.tuple;

	if (st->sh == NULL)
		return 0;
	c->flow = flow_create(st, DT_DP_STEER_PRIO_CONN, t->raddr, t->laddr,
		t->rport, t->lport, &st->conf.rxq, 1);
	return c->flow != NULL ? 0 : -ENOSPC;
}

void
dt_dp_steer_conn_del(struct dt_dp_stack *st, struct dt_dp_conn *c)
{
	flow_destroy(st, c->flow);
	c->flow = NULL;
}

void
dt_dp_steer_release_all(struct dt_dp_stack *st)
{
	unsigned int i;

	/* The claim is the port's, steered or steered by RSS alone. */
	if (st->host_rx)
		__atomic_store_n(&st->psh->host_claimed, 0, __ATOMIC_RELEASE);
	if (st->sh == NULL)
		return;
	for (i = 0; i < RTE_DIM(st->steer_ref); i++) {
		if (st->steer_ref[i].port == 0)
			continue;
		st->steer_ref[i].refs = 1;
		dt_dp_steer_unref(st, st->steer_ref[i].port);
	}
}
