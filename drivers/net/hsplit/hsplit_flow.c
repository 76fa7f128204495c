/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rte_flow for the software NIC.
 *
 * Control path (validate/create/destroy/flush) compiles a rule into a match
 * key (value + mask, four 64-bit words, see union hsplit_flow_key) and a
 * queue list; the data path packs the frame's parsed fields into the same
 * key once and tests each rule with four and/xor, in priority order.
 *
 * Publication. Rules live in HSPLIT_FLOW_MAX slots embedded in the table and
 * are never freed while the port exists. The data path does not look at the
 * slots' in_use flags: it walks an ordered view (list of slot indexes). There
 * are two views: a writer (holding the table lock) opens a write section on
 * the unpublished view by making its sequence count odd, (re)fills slots,
 * rebuilds that view, closes the section (count even, release) and publishes
 * it with a release store of the view index. A reader loads the view index
 * (acquire), the view's count, walks it, and re-checks the count; if the
 * count moved, a writer rewrote this view (and possibly a slot it referenced)
 * under it, and the reader retries on the now published view. A slot is only
 * rewritten inside such a write section, and never while it is listed by the
 * published view, so a reader that passes the re-check saw consistent rules.
 * Readers never wait for a writer: a stalled writer leaves the published view
 * untouched.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_mbuf_ptype.h>
#include <rte_pause.h>
#include <rte_flow.h>
#include <rte_flow_driver.h>

#include "hsplit_flow.h"

RTE_LOG_REGISTER(hsplit_flow_logtype, pmd.net.hsplit.flow, INFO);

#define HSPLIT_FLOW_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hsplit_flow_logtype, \
		"hsplit_flow: " fmt "\n", ##__VA_ARGS__)

/* The view stores slot indexes in bytes. */
_Static_assert(HSPLIT_FLOW_MAX <= UINT8_MAX + 1, "slot index must fit uint8_t");
_Static_assert(sizeof(union hsplit_flow_key) ==
	HSPLIT_FLOW_KEY_WORDS * sizeof(uint64_t), "key packing");

void
hsplit_flow_table_init(struct hsplit_flow_table *t)
{
	memset(t, 0, sizeof(*t));
	rte_spinlock_init(&t->lock);
}

void
hsplit_flow_table_fini(struct hsplit_flow_table *t)
{
	hsplit_flow_table_init(t);
}

/**
 * Opens a write section on the unpublished view. From here on a reader
 * still walking that view (published two updates ago) will retry, so slots
 * it may list can be rewritten. Caller holds the lock.
 */
static struct hsplit_flow_view *
hsplit_flow_write_begin(struct hsplit_flow_table *t)
{
	struct hsplit_flow_view *v = &t->view[t->cur ^ 1];

	__atomic_store_n(&v->gen, v->gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return v;
}

static int
hsplit_flow_before(const struct hsplit_flow_rule *a,
	const struct hsplit_flow_rule *b)
{
	return a->priority < b->priority ||
		(a->priority == b->priority && a->seq < b->seq);
}

/** Rebuilds @p v from the slots in use, closes the section, publishes @p v. */
static void
hsplit_flow_write_end(struct hsplit_flow_table *t, struct hsplit_flow_view *v)
{
	uint8_t order[HSPLIT_FLOW_MAX];
	uint32_t n = 0, i, j;

	for (i = 0; i < HSPLIT_FLOW_MAX; i++) {
		if (!t->rule[i].in_use)
			continue;
		/* insertion sort: at most HSPLIT_FLOW_MAX entries */
		for (j = n; j > 0 &&
				hsplit_flow_before(&t->rule[i], &t->rule[order[j - 1]]);
				j--)
			order[j] = order[j - 1];
		order[j] = (uint8_t)i;
		n++;
	}
	for (i = 0; i < n; i++)
		__atomic_store_n(&v->order[i], order[i], __ATOMIC_RELAXED);
	__atomic_store_n(&v->nb, n, __ATOMIC_RELAXED);
	__atomic_store_n(&v->gen, v->gen + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&t->cur, (uint32_t)(v - t->view), __ATOMIC_RELEASE);
	t->nb_rules = n;
}

/** Copies the data-path fields of @p src into a slot (inside a write section). */
static void
hsplit_flow_slot_write(struct hsplit_flow_rule *dst,
	const struct hsplit_flow_rule *src)
{
	unsigned int i;

	for (i = 0; i < HSPLIT_FLOW_KEY_WORDS; i++) {
		__atomic_store_n(&dst->value.w[i], src->value.w[i],
			__ATOMIC_RELAXED);
		__atomic_store_n(&dst->mask.w[i], src->mask.w[i],
			__ATOMIC_RELAXED);
	}
	for (i = 0; i < src->nb_queues; i++)
		__atomic_store_n(&dst->queue[i], src->queue[i],
			__ATOMIC_RELAXED);
	__atomic_store_n(&dst->nb_queues, src->nb_queues, __ATOMIC_RELAXED);
	dst->priority = src->priority;
	dst->is_rss = src->is_rss;
}

/** Slot of a handle returned by create, or NULL. Caller holds the lock. */
static struct hsplit_flow_rule *
hsplit_flow_from_handle(struct hsplit_flow_table *t, const struct rte_flow *flow)
{
	uintptr_t base = (uintptr_t)t->rule;
	uintptr_t p = (uintptr_t)flow;
	struct hsplit_flow_rule *r;

	if (p < base || p - base >= sizeof(t->rule) ||
			(p - base) % sizeof(t->rule[0]) != 0)
		return NULL;
	r = &t->rule[(p - base) / sizeof(t->rule[0])];
	return r->in_use ? r : NULL;
}

static int
hsplit_flow_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct rte_flow_error *error)
{
	struct hsplit_flow_rule r;

	return hsplit_flow_parse(dev, attr, pattern, actions, &r, error);
}

static struct rte_flow *
hsplit_flow_create(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct rte_flow_error *error)
{
	struct hsplit_flow_table *t = hsplit_dev_flow_table(dev);
	struct hsplit_flow_view *v;
	struct hsplit_flow_rule r;
	struct hsplit_flow_rule *slot = NULL;
	unsigned int i;

	if (hsplit_flow_parse(dev, attr, pattern, actions, &r, error) < 0)
		return NULL;
	rte_spinlock_lock(&t->lock);
	for (i = 0; i < HSPLIT_FLOW_MAX && slot == NULL; i++)
		if (!t->rule[i].in_use)
			slot = &t->rule[i];
	if (slot == NULL) {
		rte_spinlock_unlock(&t->lock);
		rte_flow_error_set(error, ENOSPC,
			RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
			"flow table full (HSPLIT_FLOW_MAX = " RTE_STR(HSPLIT_FLOW_MAX) " rules per port)");
		return NULL;
	}
	v = hsplit_flow_write_begin(t);
	hsplit_flow_slot_write(slot, &r);
	slot->seq = t->next_seq++;
	slot->in_use = 1;
	hsplit_flow_write_end(t, v);
	rte_spinlock_unlock(&t->lock);
	HSPLIT_FLOW_LOG(DEBUG, "%s: rule %u created (priority %u, %s, %u queue(s))",
		dev->data->name, (unsigned int)(slot - t->rule), r.priority,
		r.is_rss ? "RSS" : "QUEUE", r.nb_queues);
	return (struct rte_flow *)slot;
}

static int
hsplit_flow_destroy(struct rte_eth_dev *dev, struct rte_flow *flow,
	struct rte_flow_error *error)
{
	struct hsplit_flow_table *t = hsplit_dev_flow_table(dev);
	struct hsplit_flow_rule *r;
	struct hsplit_flow_view *v;

	rte_spinlock_lock(&t->lock);
	r = hsplit_flow_from_handle(t, flow);
	if (r == NULL) {
		rte_spinlock_unlock(&t->lock);
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_HANDLE, flow,
			"unknown or already destroyed flow handle");
	}
	v = hsplit_flow_write_begin(t);
	r->in_use = 0;
	hsplit_flow_write_end(t, v);
	rte_spinlock_unlock(&t->lock);
	HSPLIT_FLOW_LOG(DEBUG, "%s: rule %u destroyed", dev->data->name,
		(unsigned int)(r - t->rule));
	return 0;
}

static int
hsplit_flow_flush(struct rte_eth_dev *dev, struct rte_flow_error *error)
{
	struct hsplit_flow_table *t = hsplit_dev_flow_table(dev);
	struct hsplit_flow_view *v;
	unsigned int i;

	rte_spinlock_lock(&t->lock);
	v = hsplit_flow_write_begin(t);
	for (i = 0; i < HSPLIT_FLOW_MAX; i++)
		t->rule[i].in_use = 0;
	hsplit_flow_write_end(t, v);
	rte_spinlock_unlock(&t->lock);
	HSPLIT_FLOW_LOG(DEBUG, "%s: all rules flushed", dev->data->name);
	return 0;
}

static int
hsplit_flow_query(struct rte_eth_dev *dev, struct rte_flow *flow,
	const struct rte_flow_action *action, void *data,
	struct rte_flow_error *error)
{
	return rte_flow_error_set(error, ENOTSUP,
		RTE_FLOW_ERROR_TYPE_ACTION, action,
		"query not supported (no COUNT or AGE actions)");
}

static int
hsplit_flow_isolate(struct rte_eth_dev *dev, int set,
	struct rte_flow_error *error)
{
	/* Leaving isolated mode is a no-op: the port never enters it. */
	if (!set)
		return 0;
	return rte_flow_error_set(error, ENOTSUP,
		RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
		"isolated mode not supported");
}

static const struct rte_flow_ops hsplit_flow_ops = {
	.validate = hsplit_flow_validate,
	.create = hsplit_flow_create,
	.destroy = hsplit_flow_destroy,
	.flush = hsplit_flow_flush,
	.query = hsplit_flow_query,
	.isolate = hsplit_flow_isolate,
};

int
hsplit_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops)
{
	*ops = &hsplit_flow_ops;
	return 0;
}

/** Packs a frame's parsed fields like a rule's key. */
static inline void
hsplit_flow_pkt_key(union hsplit_flow_key *k, const struct hsplit_pkt_info *pi)
{
	uint32_t l2 = pi->ptype & RTE_PTYPE_L2_MASK;
	uint32_t l4 = pi->ptype & RTE_PTYPE_L4_MASK;
	uint8_t flags = 0;

	if (RTE_ETH_IS_IPV4_HDR(pi->ptype))
		flags |= HSPLIT_FLOW_KF_IPV4;
	if (!pi->is_fragment && l4 == RTE_PTYPE_L4_TCP)
		flags |= HSPLIT_FLOW_KF_TCP;
	else if (!pi->is_fragment && l4 == RTE_PTYPE_L4_UDP)
		flags |= HSPLIT_FLOW_KF_UDP;
	if (pi->vlan_tags != 0 || l2 == RTE_PTYPE_L2_ETHER_VLAN ||
			l2 == RTE_PTYPE_L2_ETHER_QINQ)
		flags |= HSPLIT_FLOW_KF_VLAN;

	memcpy(k->f.dst_mac, pi->dst_mac, sizeof(k->f.dst_mac));
	k->f.ether_type = rte_cpu_to_be_16(pi->ether_type);
	memcpy(k->f.src_mac, pi->src_mac, sizeof(k->f.src_mac));
	k->f.ip_proto = pi->ip_proto;
	k->f.flags = flags;
	k->f.src_ip = pi->src_ip;
	k->f.dst_ip = pi->dst_ip;
	k->f.src_port = pi->src_port;
	k->f.dst_port = pi->dst_port;
	k->f.pad = 0;
}

static inline int
hsplit_flow_rule_match(const struct hsplit_flow_rule *r,
	const union hsplit_flow_key *k)
{
	uint64_t diff = 0;
	unsigned int i;

	for (i = 0; i < HSPLIT_FLOW_KEY_WORDS; i++)
		diff |= (k->w[i] & __atomic_load_n(&r->mask.w[i], __ATOMIC_RELAXED)) ^
			__atomic_load_n(&r->value.w[i], __ATOMIC_RELAXED);
	return diff == 0;
}

/** Walks one view; the caller validates the result against the view's count. */
static inline int
hsplit_flow_view_lookup(const struct hsplit_flow_table *t,
	const struct hsplit_flow_view *v, const union hsplit_flow_key *k,
	uint32_t rss_hash, uint16_t *queue)
{
	uint32_t n = __atomic_load_n(&v->nb, __ATOMIC_RELAXED);
	uint32_t i;

	/* a torn read is discarded by the caller, but must stay in bounds */
	n = RTE_MIN(n, (uint32_t)HSPLIT_FLOW_MAX);
	for (i = 0; i < n; i++) {
		uint8_t s = __atomic_load_n(&v->order[i], __ATOMIC_RELAXED);
		const struct hsplit_flow_rule *r = &t->rule[s % HSPLIT_FLOW_MAX];
		uint16_t nq;

		if (!hsplit_flow_rule_match(r, k))
			continue;
		nq = __atomic_load_n(&r->nb_queues, __ATOMIC_RELAXED);
		nq = RTE_MIN(nq, (uint16_t)HSPLIT_FLOW_RSS_QUEUES_MAX);
		if (unlikely(nq == 0))
			return 0;
		*queue = __atomic_load_n(&r->queue[nq == 1 ? 0 : rss_hash % nq],
			__ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

int
hsplit_flow_classify(const struct hsplit_flow_table *t,
	const struct hsplit_pkt_info *pi, uint32_t rss_hash, uint16_t *queue)
{
	union hsplit_flow_key k;

	hsplit_flow_pkt_key(&k, pi);
	for (;;) {
		uint32_t c = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
		const struct hsplit_flow_view *v = &t->view[c & 1];
		uint32_t g = __atomic_load_n(&v->gen, __ATOMIC_ACQUIRE);
		uint16_t q = 0;
		int hit;

		if (unlikely(g & 1)) {
			/* a writer reuses this view: the other one is published */
			rte_pause();
			continue;
		}
		hit = hsplit_flow_view_lookup(t, v, &k, rss_hash, &q);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (likely(__atomic_load_n(&v->gen, __ATOMIC_RELAXED) == g)) {
			if (hit)
				*queue = q;
			return hit;
		}
	}
}
