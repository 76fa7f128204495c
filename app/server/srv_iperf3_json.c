/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The iperf3 client's parameters message (srv_iperf3_json.h): walk the
 * object, keep the members the server acts on, skip the others whatever
 * they nest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "srv_iperf3_json.h"

static const char *
json_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* @p p at a '"': past the closing quote, or NULL. */
static const char *
json_string(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/*
 * Past one value: a string, a scalar (up to the delimiter after it), or an
 * object or array with whatever it nests. NULL when the text ends first.
 */
static const char *
json_skip(const char *p, const char *e)
{
	int depth = 0;

	while (p < e) {
		if (*p == '"') {
			p = json_string(p, e);
			if (p == NULL || depth == 0)
				return p;
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (depth == 0)
				return p;
			if (--depth == 0)
				return p + 1;
		} else if (*p == ',' && depth == 0) {
			return p;
		}
		p++;
	}
	return depth == 0 ? p : NULL;
}


int
srv_iperf3_parse_params(const char *p, const char *e,
	struct ip3_params *pr)
{
	char key[32];
	const char *k, *v;
	size_t kl;

	memset(pr, 0, sizeof(*pr));
	pr->parallel = 1;
	p = json_ws(p, e);
	if (p >= e || *p != '{')
		return -EINVAL;
	p = json_ws(p + 1, e);
	while (p < e && *p != '}') {
		if (*p != '"')
			return -EINVAL;
		k = p + 1;
		p = json_string(p, e);
		if (p == NULL)
			return -EINVAL;
		kl = RTE_MIN((size_t)(p - 1 - k), sizeof(key) - 1);
		memcpy(key, k, kl);
		key[kl] = '\0';
		p = json_ws(p, e);
		if (p >= e || *p != ':')
			return -EINVAL;
		v = json_ws(p + 1, e);
		p = json_skip(v, e);
		if (p == NULL)
			return -EINVAL;
		if (strcmp(key, "tcp") == 0)
			pr->tcp = *v == 't';
		else if (strcmp(key, "udp") == 0)
			pr->udp = *v == 't';
		else if (strcmp(key, "sctp") == 0)
			pr->sctp = *v == 't';
		else if (strcmp(key, "reverse") == 0)
			pr->reverse = *v == 't';
		else if (strcmp(key, "bidirectional") == 0)
			pr->bidir = *v == 't';
		else if (strcmp(key, "parallel") == 0)
			pr->parallel = strtol(v, NULL, 10);
		else if (strcmp(key, "time") == 0)
			pr->time = strtod(v, NULL);
		p = json_ws(p, e);
		if (p < e && *p == ',')
			p = json_ws(p + 1, e);
	}
	return p < e ? 0 : -EINVAL;
}
