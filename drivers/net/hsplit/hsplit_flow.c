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

/** Protocol layers, to refuse items out of order. */
enum hsplit_flow_layer {
	HSPLIT_FLOW_L_NONE = 0,
	HSPLIT_FLOW_L2,
	HSPLIT_FLOW_L3,
	HSPLIT_FLOW_L4,
};

/**
 * One header field of an item. Every byte of an item's header is covered by
 * exactly one field, so a mask byte outside the matchable fields is always
 * attributed to a named field in the error message.
 */
struct hsplit_flow_field {
	uint16_t item_off;  /**< offset in the rte_flow_item_* structure */
	uint8_t size;       /**< bytes */
	int8_t key_off;     /**< offset in union hsplit_flow_key; -1: not matchable */
	const char *msg;    /**< partial mask (matchable) / refused (not matchable) */
};

/** What the parser knows about one supported item type. */
struct hsplit_flow_item_desc {
	uint8_t layer;            /**< enum hsplit_flow_layer */
	uint8_t flags;            /**< HSPLIT_FLOW_KF_* the item implies */
	uint16_t hdr_size;        /**< bytes covered by fields[] */
	const void *default_mask; /**< rte_flow_item_*_mask */
	const struct hsplit_flow_field *fields;
	unsigned int nb_fields;
};

/** A matchable field: exact match only. */
#define HSPLIT_FIELD(name, st, fld, kfld) { \
	.item_off = offsetof(st, hdr.fld), \
	.size = sizeof(((st *)0)->hdr.fld), \
	.key_off = (int8_t)offsetof(union hsplit_flow_key, f.kfld), \
	.msg = name " " #fld ": partial mask not supported (exact match only: " \
		"mask all ones or zero)", \
}

/** A field of the header that this NIC cannot match on. */
#define HSPLIT_FIELD_NO(name, st, fld) { \
	.item_off = offsetof(st, hdr.fld), \
	.size = sizeof(((st *)0)->hdr.fld), \
	.key_off = -1, \
	.msg = name " " #fld ": matching on this field not supported", \
}

static const struct hsplit_flow_field hsplit_flow_eth_fields[] = {
	HSPLIT_FIELD("ETH", struct rte_flow_item_eth, dst_addr, dst_mac),
	HSPLIT_FIELD("ETH", struct rte_flow_item_eth, src_addr, src_mac),
	HSPLIT_FIELD("ETH", struct rte_flow_item_eth, ether_type, ether_type),
};

static const struct hsplit_flow_field hsplit_flow_ipv4_fields[] = {
	HSPLIT_FIELD_NO("IPV4", struct rte_flow_item_ipv4, version_ihl),
	HSPLIT_FIELD_NO("IPV4", struct rte_flow_item_ipv4, type_of_service),
	HSPLIT_FIELD_NO("IPV4", struct rte_flow_item_ipv4, total_length),
	HSPLIT_FIELD_NO("IPV4", struct rte_flow_item_ipv4, packet_id),
	HSPLIT_FIELD_NO("IPV4", struct rte_flow_item_ipv4, fragment_offset),
	HSPLIT_FIELD_NO("IPV4", struct rte_flow_item_ipv4, time_to_live),
	HSPLIT_FIELD("IPV4", struct rte_flow_item_ipv4, next_proto_id, ip_proto),
	HSPLIT_FIELD_NO("IPV4", struct rte_flow_item_ipv4, hdr_checksum),
	HSPLIT_FIELD("IPV4", struct rte_flow_item_ipv4, src_addr, src_ip),
	HSPLIT_FIELD("IPV4", struct rte_flow_item_ipv4, dst_addr, dst_ip),
};

static const struct hsplit_flow_field hsplit_flow_tcp_fields[] = {
	HSPLIT_FIELD("TCP", struct rte_flow_item_tcp, src_port, src_port),
	HSPLIT_FIELD("TCP", struct rte_flow_item_tcp, dst_port, dst_port),
	HSPLIT_FIELD_NO("TCP", struct rte_flow_item_tcp, sent_seq),
	HSPLIT_FIELD_NO("TCP", struct rte_flow_item_tcp, recv_ack),
	HSPLIT_FIELD_NO("TCP", struct rte_flow_item_tcp, data_off),
	HSPLIT_FIELD_NO("TCP", struct rte_flow_item_tcp, tcp_flags),
	HSPLIT_FIELD_NO("TCP", struct rte_flow_item_tcp, rx_win),
	HSPLIT_FIELD_NO("TCP", struct rte_flow_item_tcp, cksum),
	HSPLIT_FIELD_NO("TCP", struct rte_flow_item_tcp, tcp_urp),
};

static const struct hsplit_flow_field hsplit_flow_udp_fields[] = {
	HSPLIT_FIELD("UDP", struct rte_flow_item_udp, src_port, src_port),
	HSPLIT_FIELD("UDP", struct rte_flow_item_udp, dst_port, dst_port),
	HSPLIT_FIELD_NO("UDP", struct rte_flow_item_udp, dgram_len),
	HSPLIT_FIELD_NO("UDP", struct rte_flow_item_udp, dgram_cksum),
};

static const struct hsplit_flow_item_desc hsplit_flow_eth_desc = {
	.layer = HSPLIT_FLOW_L2,
	.flags = 0,
	.hdr_size = sizeof(struct rte_ether_hdr),
	.default_mask = &rte_flow_item_eth_mask,
	.fields = hsplit_flow_eth_fields,
	.nb_fields = RTE_DIM(hsplit_flow_eth_fields),
};

static const struct hsplit_flow_item_desc hsplit_flow_ipv4_desc = {
	.layer = HSPLIT_FLOW_L3,
	.flags = HSPLIT_FLOW_KF_IPV4,
	.hdr_size = sizeof(struct rte_ipv4_hdr),
	.default_mask = &rte_flow_item_ipv4_mask,
	.fields = hsplit_flow_ipv4_fields,
	.nb_fields = RTE_DIM(hsplit_flow_ipv4_fields),
};

static const struct hsplit_flow_item_desc hsplit_flow_tcp_desc = {
	.layer = HSPLIT_FLOW_L4,
	.flags = HSPLIT_FLOW_KF_TCP,
	.hdr_size = sizeof(struct rte_tcp_hdr),
	.default_mask = &rte_flow_item_tcp_mask,
	.fields = hsplit_flow_tcp_fields,
	.nb_fields = RTE_DIM(hsplit_flow_tcp_fields),
};

static const struct hsplit_flow_item_desc hsplit_flow_udp_desc = {
	.layer = HSPLIT_FLOW_L4,
	.flags = HSPLIT_FLOW_KF_UDP,
	.hdr_size = sizeof(struct rte_udp_hdr),
	.default_mask = &rte_flow_item_udp_mask,
	.fields = hsplit_flow_udp_fields,
	.nb_fields = RTE_DIM(hsplit_flow_udp_fields),
};

/*
 * Error messages must outlive the call (rte_flow_error keeps the pointer),
 * so the names of refused item and action types are spelled out here.
 */
#define HSPLIT_ITEM_NO(t) [RTE_FLOW_ITEM_TYPE_ ## t] = "pattern item " #t \
	" not supported (supported: ETH, IPV4, TCP, UDP, VOID, END)"

static const char * const hsplit_flow_item_refused[] = {
	HSPLIT_ITEM_NO(ANY), HSPLIT_ITEM_NO(RAW), HSPLIT_ITEM_NO(VLAN),
	HSPLIT_ITEM_NO(IPV6), HSPLIT_ITEM_NO(ICMP), HSPLIT_ITEM_NO(SCTP),
	HSPLIT_ITEM_NO(VXLAN), HSPLIT_ITEM_NO(E_TAG), HSPLIT_ITEM_NO(NVGRE),
	HSPLIT_ITEM_NO(MPLS), HSPLIT_ITEM_NO(GRE), HSPLIT_ITEM_NO(FUZZY),
	HSPLIT_ITEM_NO(GTP), HSPLIT_ITEM_NO(ESP), HSPLIT_ITEM_NO(GENEVE),
	HSPLIT_ITEM_NO(ARP_ETH_IPV4), HSPLIT_ITEM_NO(IPV6_EXT),
	HSPLIT_ITEM_NO(ICMP6), HSPLIT_ITEM_NO(MARK), HSPLIT_ITEM_NO(META),
	HSPLIT_ITEM_NO(TAG), HSPLIT_ITEM_NO(GRE_KEY), HSPLIT_ITEM_NO(ECPRI),
	HSPLIT_ITEM_NO(CONNTRACK), HSPLIT_ITEM_NO(INTEGRITY),
	HSPLIT_ITEM_NO(PORT_REPRESENTOR), HSPLIT_ITEM_NO(REPRESENTED_PORT),
	HSPLIT_ITEM_NO(FLEX), HSPLIT_ITEM_NO(L2TPV2), HSPLIT_ITEM_NO(PPP),
};

#define HSPLIT_ACTION_NO(t) [RTE_FLOW_ACTION_TYPE_ ## t] = "action " #t \
	" not supported (supported: QUEUE, RSS, VOID, END)"

static const char * const hsplit_flow_action_refused[] = {
	HSPLIT_ACTION_NO(PASSTHRU), HSPLIT_ACTION_NO(JUMP),
	HSPLIT_ACTION_NO(MARK), HSPLIT_ACTION_NO(FLAG),
	HSPLIT_ACTION_NO(DROP), HSPLIT_ACTION_NO(COUNT),
	HSPLIT_ACTION_NO(PF), HSPLIT_ACTION_NO(VF),
	HSPLIT_ACTION_NO(METER), HSPLIT_ACTION_NO(SECURITY),
	HSPLIT_ACTION_NO(VXLAN_ENCAP), HSPLIT_ACTION_NO(VXLAN_DECAP),
	HSPLIT_ACTION_NO(RAW_ENCAP), HSPLIT_ACTION_NO(RAW_DECAP),
	HSPLIT_ACTION_NO(SET_IPV4_SRC), HSPLIT_ACTION_NO(SET_IPV4_DST),
	HSPLIT_ACTION_NO(SET_TP_SRC), HSPLIT_ACTION_NO(SET_TP_DST),
	HSPLIT_ACTION_NO(SET_MAC_SRC), HSPLIT_ACTION_NO(SET_MAC_DST),
	HSPLIT_ACTION_NO(DEC_TTL), HSPLIT_ACTION_NO(SET_TTL),
	HSPLIT_ACTION_NO(SET_TAG), HSPLIT_ACTION_NO(SET_META),
	HSPLIT_ACTION_NO(AGE), HSPLIT_ACTION_NO(SAMPLE),
	HSPLIT_ACTION_NO(INDIRECT), HSPLIT_ACTION_NO(MODIFY_FIELD),
	HSPLIT_ACTION_NO(CONNTRACK), HSPLIT_ACTION_NO(METER_MARK),
	HSPLIT_ACTION_NO(PORT_REPRESENTOR), HSPLIT_ACTION_NO(REPRESENTED_PORT),
};

static const char *
hsplit_flow_refused_item_msg(enum rte_flow_item_type type)
{
	if ((unsigned int)type < RTE_DIM(hsplit_flow_item_refused) &&
			hsplit_flow_item_refused[type] != NULL)
		return hsplit_flow_item_refused[type];
	return "pattern item type not supported (supported: ETH, IPV4, TCP, "
		"UDP, VOID, END)";
}

static const char *
hsplit_flow_refused_action_msg(enum rte_flow_action_type type)
{
	if ((unsigned int)type < RTE_DIM(hsplit_flow_action_refused) &&
			hsplit_flow_action_refused[type] != NULL)
		return hsplit_flow_action_refused[type];
	return "action type not supported (supported: QUEUE, RSS, VOID, END)";
}

static const struct hsplit_flow_item_desc *
hsplit_flow_item_desc(enum rte_flow_item_type type)
{
	switch (type) {
	case RTE_FLOW_ITEM_TYPE_ETH:
		return &hsplit_flow_eth_desc;
	case RTE_FLOW_ITEM_TYPE_IPV4:
		return &hsplit_flow_ipv4_desc;
	case RTE_FLOW_ITEM_TYPE_TCP:
		return &hsplit_flow_tcp_desc;
	case RTE_FLOW_ITEM_TYPE_UDP:
		return &hsplit_flow_udp_desc;
	default:
		return NULL;
	}
}

static int
hsplit_flow_parse_attr(const struct rte_flow_attr *attr,
	struct hsplit_flow_rule *r, struct rte_flow_error *error)
{
	if (attr == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ATTR, NULL, "attributes missing");
	if (attr->egress)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, attr,
			"egress rules not supported (ingress only)");
	if (attr->transfer)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, attr,
			"transfer rules not supported (ingress only)");
	if (!attr->ingress)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, attr,
			"ingress attribute required");
	if (attr->group != 0)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ATTR_GROUP, attr,
			"only group 0 supported");
	r->priority = attr->priority;
	return 0;
}

static int
hsplit_flow_all(const uint8_t *p, unsigned int n, uint8_t v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/**
 * Checks that @p last, if given, does not define a range on @p fld: rte_flow
 * allows last to be zero or equal to spec (under the mask) where a field
 * has no range support, and this NIC supports ranges nowhere.
 */
static int
hsplit_flow_last_is_range(const struct hsplit_flow_field *fld,
	const uint8_t *spec, const uint8_t *last, const uint8_t *mask)
{
	unsigned int i;
	int zero = 1, same = 1;

	for (i = fld->item_off; i < fld->item_off + fld->size; i++) {
		uint8_t l = last[i] & mask[i];

		zero &= l == 0;
		same &= l == (spec[i] & mask[i]);
	}
	return !zero && !same;
}

/** ETH.has_vlan is a bit-field, outside the byte tables. */
static int
hsplit_flow_parse_eth_vlan(const struct rte_flow_item *item,
	struct hsplit_flow_rule *r, struct rte_flow_error *error)
{
	const struct rte_flow_item_eth *spec = item->spec;
	const struct rte_flow_item_eth *mask = item->mask != NULL ?
		item->mask : &rte_flow_item_eth_mask;
	const struct rte_flow_item_eth *last = item->last;

	if (!mask->has_vlan)
		return 0;
	if (last != NULL && last->has_vlan != spec->has_vlan)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ITEM_LAST, item,
			"ETH has_vlan: ranges ('last') not supported");
	r->mask.f.flags |= HSPLIT_FLOW_KF_VLAN;
	if (spec->has_vlan)
		r->value.f.flags |= HSPLIT_FLOW_KF_VLAN;
	return 0;
}

/** Compiles the spec/mask of one supported item into the rule's key. */
static int
hsplit_flow_parse_fields(const struct rte_flow_item *item,
	const struct hsplit_flow_item_desc *d, struct hsplit_flow_rule *r,
	struct rte_flow_error *error)
{
	const uint8_t *spec = item->spec;
	const uint8_t *last = item->last;
	const uint8_t *mask = item->mask != NULL ? item->mask : d->default_mask;
	uint8_t *kval = (uint8_t *)&r->value;
	uint8_t *kmask = (uint8_t *)&r->mask;
	unsigned int i;

	for (i = 0; i < d->nb_fields; i++) {
		const struct hsplit_flow_field *fld = &d->fields[i];
		const uint8_t *m = mask + fld->item_off;

		if (hsplit_flow_all(m, fld->size, 0))
			continue;
		if (fld->key_off < 0)
			return rte_flow_error_set(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ITEM_MASK, item, fld->msg);
		if (!hsplit_flow_all(m, fld->size, 0xff))
			return rte_flow_error_set(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ITEM_MASK, item, fld->msg);
		if (last != NULL &&
				hsplit_flow_last_is_range(fld, spec, last, mask))
			return rte_flow_error_set(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ITEM_LAST, item,
				"ranges ('last') not supported: exact match only");
		memcpy(kval + fld->key_off, spec + fld->item_off, fld->size);
		memset(kmask + fld->key_off, 0xff, fld->size);
	}
	return 0;
}

/** Refuses items that contradict an earlier one (they could never match). */
static int
hsplit_flow_check_stack(const struct rte_flow_item *item,
	const struct hsplit_flow_rule *r, struct rte_flow_error *error)
{
	switch (item->type) {
	case RTE_FLOW_ITEM_TYPE_IPV4:
		if (r->mask.f.ether_type != 0 &&
				r->value.f.ether_type !=
				RTE_BE16(RTE_ETHER_TYPE_IPV4))
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"IPV4 item contradicts the ETH type given");
		break;
	case RTE_FLOW_ITEM_TYPE_TCP:
		if (r->mask.f.ip_proto != 0 &&
				r->value.f.ip_proto != IPPROTO_TCP)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"TCP item contradicts the IPV4 next_proto_id given");
		break;
	case RTE_FLOW_ITEM_TYPE_UDP:
		if (r->mask.f.ip_proto != 0 &&
				r->value.f.ip_proto != IPPROTO_UDP)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"UDP item contradicts the IPV4 next_proto_id given");
		break;
	default:
		break;
	}
	return 0;
}

static int
hsplit_flow_parse_item(const struct rte_flow_item *item,
	const struct hsplit_flow_item_desc *d, struct hsplit_flow_rule *r,
	struct rte_flow_error *error)
{
	int ret;

	ret = hsplit_flow_check_stack(item, r, error);
	if (ret < 0)
		return ret;
	r->mask.f.flags |= d->flags;
	r->value.f.flags |= d->flags;
	if (item->spec == NULL) {
		if (item->mask != NULL || item->last != NULL)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"item mask or last given without spec");
		return 0;
	}
	ret = hsplit_flow_parse_fields(item, d, r, error);
	if (ret == 0 && item->type == RTE_FLOW_ITEM_TYPE_ETH)
		ret = hsplit_flow_parse_eth_vlan(item, r, error);
	return ret;
}

static int
hsplit_flow_parse_pattern(const struct rte_flow_item pattern[],
	struct hsplit_flow_rule *r, struct rte_flow_error *error)
{
	const struct rte_flow_item *item;
	uint8_t layer = HSPLIT_FLOW_L_NONE;
	int ret;

	if (pattern == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL, "pattern missing");
	for (item = pattern; item->type != RTE_FLOW_ITEM_TYPE_END; item++) {
		const struct hsplit_flow_item_desc *d;

		if (item->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		d = hsplit_flow_item_desc(item->type);
		if (d == NULL)
			return rte_flow_error_set(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				hsplit_flow_refused_item_msg(item->type));
		if (d->layer <= layer)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"pattern items out of order or repeated "
				"(expected ETH / IPV4 / TCP|UDP, lower layers may be omitted)");
		layer = d->layer;
		ret = hsplit_flow_parse_item(item, d, r, error);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
hsplit_flow_parse_queue(const struct rte_eth_dev *dev,
	const struct rte_flow_action *a, struct hsplit_flow_rule *r,
	struct rte_flow_error *error)
{
	const struct rte_flow_action_queue *conf = a->conf;

	if (conf == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, a,
			"QUEUE: configuration missing");
	if (conf->index >= dev->data->nb_rx_queues)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, conf,
			"QUEUE index not below the number of configured Rx queues");
	r->queue[0] = conf->index;
	r->nb_queues = 1;
	r->is_rss = 0;
	return 0;
}

/**
 * RSS spreads with the hash the port computed for the frame (its own key
 * and types), so the action's key and types are accepted but do not change
 * the hash; only the queue list is the action's.
 */
static int
hsplit_flow_parse_rss(const struct rte_eth_dev *dev,
	const struct rte_flow_action *a, struct hsplit_flow_rule *r,
	struct rte_flow_error *error)
{
	const struct rte_flow_action_rss *conf = a->conf;
	uint32_t i;

	if (conf == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, a,
			"RSS: configuration missing");
	if (conf->func != RTE_ETH_HASH_FUNCTION_DEFAULT &&
			conf->func != RTE_ETH_HASH_FUNCTION_TOEPLITZ)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, conf,
			"RSS func: only DEFAULT or TOEPLITZ (the port's hash) supported");
	if (conf->level > 1)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, conf,
			"RSS level: inner (tunnel) hashing not supported");
	if (conf->queue_num == 0 || conf->queue == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, conf,
			"RSS: empty queue list");
	if (conf->queue_num > HSPLIT_FLOW_RSS_QUEUES_MAX)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, conf,
			"RSS: queue list longer than HSPLIT_FLOW_RSS_QUEUES_MAX (64)");
	if (conf->key_len != 0 && conf->key == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, conf,
			"RSS: key_len given without key");
	for (i = 0; i < conf->queue_num; i++) {
		if (conf->queue[i] >= dev->data->nb_rx_queues)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ACTION_CONF, &conf->queue[i],
				"RSS queue index not below the number of configured Rx queues");
		r->queue[i] = conf->queue[i];
	}
	r->nb_queues = (uint16_t)conf->queue_num;
	r->is_rss = 1;
	return 0;
}

static int
hsplit_flow_parse_actions(const struct rte_eth_dev *dev,
	const struct rte_flow_action actions[], struct hsplit_flow_rule *r,
	struct rte_flow_error *error)
{
	const struct rte_flow_action *a;
	int fate = 0;
	int ret;

	if (actions == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL, "actions missing");
	for (a = actions; a->type != RTE_FLOW_ACTION_TYPE_END; a++) {
		switch (a->type) {
		case RTE_FLOW_ACTION_TYPE_VOID:
			continue;
		case RTE_FLOW_ACTION_TYPE_QUEUE:
		case RTE_FLOW_ACTION_TYPE_RSS:
			if (fate)
				return rte_flow_error_set(error, EINVAL,
					RTE_FLOW_ERROR_TYPE_ACTION, a,
					"more than one fate action (QUEUE, RSS): exactly one allowed");
			fate = 1;
			ret = a->type == RTE_FLOW_ACTION_TYPE_QUEUE ?
				hsplit_flow_parse_queue(dev, a, r, error) :
				hsplit_flow_parse_rss(dev, a, r, error);
			if (ret < 0)
				return ret;
			break;
		default:
			return rte_flow_error_set(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ACTION, a,
				hsplit_flow_refused_action_msg(a->type));
		}
	}
	if (!fate)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION, a,
			"no fate action: QUEUE or RSS required");
	return 0;
}

/** Compiles a rule; @p r is zeroed here. */
static int
hsplit_flow_parse(const struct rte_eth_dev *dev,
	const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct hsplit_flow_rule *r,
	struct rte_flow_error *error)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = hsplit_flow_parse_attr(attr, r, error);
	if (ret == 0)
		ret = hsplit_flow_parse_pattern(pattern, r, error);
	if (ret == 0)
		ret = hsplit_flow_parse_actions(dev, actions, r, error);
	return ret;
}

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
