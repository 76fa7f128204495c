/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rte_flow for the software NIC, the rule compiler: an attribute, a pattern
 * and actions into a match key (value + mask, union hsplit_flow_key) and a
 * queue list (struct hsplit_flow_rule), or a refusal that names the item,
 * field or action it cannot do. hsplit_flow.c publishes compiled rules and
 * matches frames against them.
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

int
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
