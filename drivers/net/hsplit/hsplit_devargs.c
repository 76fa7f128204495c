/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_kvargs.h>

#include "hsplit_devargs.h"
#include "hsplit_caps.h"
#include "hsplit_split.h"

static const char *const hsplit_valid_args[] = {
	HSPLIT_ARG_WIRE, HSPLIT_ARG_MAC, HSPLIT_ARG_RATE, HSPLIT_ARG_LOSS,
	HSPLIT_ARG_DUP, HSPLIT_ARG_REORDER, HSPLIT_ARG_SEED,
	HSPLIT_ARG_NOMATCH, HSPLIT_ARG_WIRE_BUFS, HSPLIT_ARG_IFACE,
	HSPLIT_ARG_IFACE_RING, HSPLIT_ARG_IFACE_RX_SOCKETS, HSPLIT_ARG_CORRUPT, HSPLIT_ARG_RX_LOSS,
	HSPLIT_ARG_RX_DUP, HSPLIT_ARG_RX_REORDER, HSPLIT_ARG_RX_CORRUPT,
	HSPLIT_ARG_DELAY_US, HSPLIT_ARG_JITTER_US, HSPLIT_ARG_DELAY_DIR,
	HSPLIT_ARG_CAPS, HSPLIT_ARG_TX_GATHER, HSPLIT_ARG_FLOW, HSPLIT_ARG_IFACE_GRO,
	HSPLIT_ARG_TX_HOLD, NULL
};

/* Line rates above this are a typo, not a NIC. */
#define HSPLIT_RATE_MAX_GBPS 1600.0

struct parse_ctx {
	struct hsplit_devargs *da;
	char *err;
	size_t errlen;
};

static int
bad(struct parse_ctx *c, const char *key, const char *val, const char *why)
{
	snprintf(c->err, c->errlen, "invalid %s=%s: %s", key, val ? val : "",
		why);
	return -EINVAL;
}

static int
parse_double(const char *v, double lo, double hi, double *out)
{
	char *end;
	double d;

	if (v == NULL || *v == '\0')
		return -1;
	errno = 0;
	d = strtod(v, &end);
	if (errno != 0 || *end != '\0' || isnan(d) || d < lo || d > hi)
		return -1;
	*out = d;
	return 0;
}

/* "on" or "off" into *off (1 for off). */
static int
parse_off(const char *v, uint8_t *off)
{
	if (v != NULL && strcmp(v, "on") == 0)
		*off = 0;
	else if (v != NULL && strcmp(v, "off") == 0)
		*off = 1;
	else
		return -1;
	return 0;
}

static int
parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (v == NULL || *v == '\0' || *v == '-')
		return -1;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno != 0 || *end != '\0' || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int
parse_mac(const char *v, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (v == NULL || sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1],
			&b[2], &b[3], &b[4], &b[5], &tail) != 6 ||
			strlen(v) != 17)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	/* A multicast source address is not a port address. */
	return (mac[0] & 1) ? -1 : 0;
}

static int
one_arg(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	struct hsplit_devargs *da = c->da;
	uint64_t u;

	if (strcmp(key, HSPLIT_ARG_WIRE) == 0) {
		if (val == NULL || *val == '\0' ||
				strlen(val) >= sizeof(da->wire))
			return bad(c, key, val, "need a name of 1..31 characters");
		strcpy(da->wire, val);
	} else if (strcmp(key, HSPLIT_ARG_MAC) == 0) {
		if (parse_mac(val, da->mac) < 0)
			return bad(c, key, val, "need a unicast XX:XX:XX:XX:XX:XX");
		da->mac_set = 1;
	} else if (strcmp(key, HSPLIT_ARG_RATE) == 0) {
		if (parse_double(val, 0.0, HSPLIT_RATE_MAX_GBPS, &da->rate_gbps) < 0)
			return bad(c, key, val, "need Gb/s in [0, 1600] (0 = unpaced)");
	} else if (strcmp(key, HSPLIT_ARG_LOSS) == 0) {
		if (parse_double(val, 0.0, 1.0, &da->loss) < 0)
			return bad(c, key, val, "need a probability in [0, 1]");
	} else if (strcmp(key, HSPLIT_ARG_DUP) == 0) {
		if (parse_double(val, 0.0, 1.0, &da->dup) < 0)
			return bad(c, key, val, "need a probability in [0, 1]");
	} else if (strcmp(key, HSPLIT_ARG_REORDER) == 0) {
		if (parse_double(val, 0.0, 1.0, &da->reorder) < 0)
			return bad(c, key, val, "need a probability in [0, 1]");
	} else if (strcmp(key, HSPLIT_ARG_CORRUPT) == 0 ||
			strcmp(key, HSPLIT_ARG_RX_LOSS) == 0 ||
			strcmp(key, HSPLIT_ARG_RX_DUP) == 0 ||
			strcmp(key, HSPLIT_ARG_RX_REORDER) == 0 ||
			strcmp(key, HSPLIT_ARG_RX_CORRUPT) == 0) {
		double *d = strcmp(key, HSPLIT_ARG_CORRUPT) == 0 ? &da->corrupt :
			strcmp(key, HSPLIT_ARG_RX_LOSS) == 0 ? &da->rx_loss :
			strcmp(key, HSPLIT_ARG_RX_DUP) == 0 ? &da->rx_dup :
			strcmp(key, HSPLIT_ARG_RX_REORDER) == 0 ? &da->rx_reorder :
			&da->rx_corrupt;

		if (parse_double(val, 0.0, 1.0, d) < 0)
			return bad(c, key, val, "need a probability in [0, 1]");
	} else if (strcmp(key, HSPLIT_ARG_SEED) == 0) {
		if (parse_u64(val, 0, UINT64_MAX, &da->seed) < 0)
			return bad(c, key, val, "need an unsigned integer");
	} else if (strcmp(key, HSPLIT_ARG_NOMATCH) == 0) {
		if (val != NULL && strcmp(val, "host") == 0)
			da->nomatch = HSPLIT_NOMATCH_HOST;
		else if (val != NULL && strcmp(val, "last") == 0)
			da->nomatch = HSPLIT_NOMATCH_LAST;
		else
			return bad(c, key, val, "need host or last");
	} else if (strcmp(key, HSPLIT_ARG_WIRE_BUFS) == 0) {
		if (parse_u64(val, 64, 1u << 20, &u) < 0)
			return bad(c, key, val, "need a count in [64, 1048576]");
		da->wire_bufs = (uint32_t)u;
	} else if (strcmp(key, HSPLIT_ARG_IFACE) == 0) {
		/* '/' and blanks cannot be in a Linux interface name. */
		if (val == NULL || *val == '\0' ||
				strlen(val) >= sizeof(da->iface) ||
				strpbrk(val, "/ \t:") != NULL)
			return bad(c, key, val, "need an interface name of 1..15 characters");
		strcpy(da->iface, val);
	} else if (strcmp(key, HSPLIT_ARG_IFACE_RING) == 0) {
		if (parse_u64(val, 64, 1u << 16, &u) < 0)
			return bad(c, key, val, "need a frame count in [64, 65536]");
		da->iface_ring = (uint32_t)u;
		da->iface_ring_set = 1;
	} else if (strcmp(key, HSPLIT_ARG_IFACE_RX_SOCKETS) == 0) {
		if (parse_u64(val, 0, HSPLIT_IFACE_RX_SOCKETS_MAX, &u) < 0)
			return bad(c, key, val, "need a socket count in [0, "
				RTE_STR(HSPLIT_IFACE_RX_SOCKETS_MAX) "] (0: one per RX queue)");
		da->iface_rx_sockets = (uint16_t)u;
		da->iface_rx_sockets_set = 1;
	} else if (strcmp(key, HSPLIT_ARG_TX_HOLD) == 0) {
		if (parse_u64(val, 0, HSPLIT_TX_HOLD_MAX, &u) < 0)
			return bad(c, key, val, "need a frame count in [0, "
				RTE_STR(HSPLIT_TX_HOLD_MAX) "]");
		da->tx_hold = (uint32_t)u;
	} else if (strcmp(key, HSPLIT_ARG_DELAY_US) == 0 ||
			strcmp(key, HSPLIT_ARG_JITTER_US) == 0) {
		if (parse_u64(val, 0, HSPLIT_DELAY_US_MAX, &u) < 0)
			return bad(c, key, val, "need microseconds in [0, 10000000]");
		if (strcmp(key, HSPLIT_ARG_DELAY_US) == 0)
			da->delay_us = (uint32_t)u;
		else
			da->jitter_us = (uint32_t)u;
	} else if (strcmp(key, HSPLIT_ARG_DELAY_DIR) == 0) {
		if (val != NULL && strcmp(val, "both") == 0)
			da->delay_dir = HSPLIT_DELAY_RX | HSPLIT_DELAY_TX;
		else if (val != NULL && strcmp(val, "rx") == 0)
			da->delay_dir = HSPLIT_DELAY_RX;
		else if (val != NULL && strcmp(val, "tx") == 0)
			da->delay_dir = HSPLIT_DELAY_TX;
		else
			return bad(c, key, val, "need both, rx or tx");
	} else if (strcmp(key, HSPLIT_ARG_CAPS) == 0) {
		int prof = hsplit_caps_parse(val);

		if (prof < 0)
			return bad(c, key, val, "need full, mlx5, ice, notso, nosplit, noflow or linear");
		da->caps = (uint8_t)prof;
	} else if (strcmp(key, HSPLIT_ARG_TX_GATHER) == 0) {
		if (parse_off(val, &da->tx_gather_off) < 0)
			return bad(c, key, val, "need on or off");
	} else if (strcmp(key, HSPLIT_ARG_FLOW) == 0) {
		if (parse_off(val, &da->flow_off) < 0)
			return bad(c, key, val, "need on or off");
	} else if (strcmp(key, HSPLIT_ARG_IFACE_GRO) == 0) {
		if (parse_off(val, &da->iface_gro_off) < 0)
			return bad(c, key, val, "need on or off");
		da->iface_gro_set = 1;
	}
	return 0;
}

int
hsplit_devargs_parse(const char *args, struct hsplit_devargs *da,
	char *err, size_t errlen)
{
	struct parse_ctx c = { .da = da, .err = err, .errlen = errlen };
	struct rte_kvargs *kv;
	int ret;

	memset(da, 0, sizeof(*da));
	da->seed = 1;
	da->wire_bufs = 4096;
	da->nomatch = HSPLIT_NOMATCH_HOST;
	da->iface_ring = HSPLIT_IFACE_RING_DEFAULT;
	da->delay_dir = HSPLIT_DELAY_RX | HSPLIT_DELAY_TX;
	if (errlen > 0)
		err[0] = '\0';
	if (args == NULL || *args == '\0')
		return 0;
	kv = rte_kvargs_parse(args, hsplit_valid_args);
	if (kv == NULL) {
		snprintf(err, errlen, "cannot parse \"%s\" (unknown key or bad syntax; valid: "
			"wire, mac, rate, loss, dup, reorder, corrupt, seed, nomatch, "
			"wire_bufs, iface, iface_ring, iface_rx_sockets, rx_loss, rx_dup, rx_reorder, "
			"rx_corrupt, delay_us, jitter_us, delay_dir, caps, tx_gather, flow, iface_gro, tx_hold)",
			args);
		return -EINVAL;
	}
	ret = rte_kvargs_process(kv, NULL, one_arg, &c);
	rte_kvargs_free(kv);
	if (ret < 0)
		return -EINVAL;
	/* Keys come in any order: check combinations once all are in. */
	if (da->wire[0] != '\0' && da->iface[0] != '\0') {
		snprintf(err, errlen, "wire=%s and iface=%s: a port has one wire, "
			"a loopback wire or a Linux interface", da->wire, da->iface);
		return -EINVAL;
	}
	if (da->iface[0] == '\0' && (da->rx_loss > 0 || da->rx_dup > 0 ||
			da->rx_reorder > 0 || da->rx_corrupt > 0)) {
		/* On a loopback wire the peer's TX faults do this already. */
		snprintf(err, errlen, "rx_loss/rx_dup/rx_reorder/rx_corrupt need "
			"iface=NAME (on a loopback wire, set the faults on the peer)");
		return -EINVAL;
	}
	if (da->iface[0] == '\0' &&
			da->delay_dir != (HSPLIT_DELAY_RX | HSPLIT_DELAY_TX)) {
		/* A loopback wire's frames are delayed by their sender. */
		snprintf(err, errlen, "delay_dir needs iface=NAME (on a loopback "
			"wire, set delay_us= on the sending port)");
		return -EINVAL;
	}
	if (da->iface_ring_set && da->iface[0] == '\0') {
		snprintf(err, errlen, "iface_ring=%u needs iface=NAME", da->iface_ring);
		return -EINVAL;
	}
	if (da->iface_gro_set && da->iface[0] == '\0') {
		snprintf(err, errlen, "iface_gro=%s needs iface=NAME",
			da->iface_gro_off ? "off" : "on");
		return -EINVAL;
	}
	if (da->iface_rx_sockets_set && da->iface[0] == '\0') {
		snprintf(err, errlen, "iface_rx_sockets=%u needs iface=NAME",
			da->iface_rx_sockets);
		return -EINVAL;
	}
	return 0;
}
