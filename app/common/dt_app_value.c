/* SPDX-License-Identifier: BSD-3-Clause */
/* Typed values of configuration keys (see dt_app_value.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dt_app_value.h"

static const char *
range_phrase(uint64_t min, uint64_t max, char *buf, size_t buflen)
{
	if (min == 1 && max >= UINT32_MAX)
		return "a positive integer";
	if (min == 0 && max >= UINT32_MAX)
		return "a non-negative integer";
	snprintf(buf, buflen, "an integer in [%" PRIu64 ", %" PRIu64 "]", min, max);
	return buf;
}

static int
parse_u64(const char *s, uint64_t *v, char **end)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 0);
	return errno != 0 ? -EINVAL : 0;
}

int
dt_app_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v,
	char *buf, size_t buflen, const char **expect)
{
	char *end;

	*expect = range_phrase(min, max, buf, buflen);
	if (parse_u64(s, v, &end) != 0 || *end != '\0' || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

int
dt_app_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v,
	char *buf, size_t buflen, const char **expect)
{
	uint64_t mult = 1;
	char *end;

	if (min == 1 && max >= UINT32_MAX)
		*expect = "a positive byte count (K, M, G suffixes allowed)";
	else {
		snprintf(buf, buflen, "a byte count in [%" PRIu64 ", %" PRIu64
			"] (K, M, G suffixes allowed)", min, max);
		*expect = buf;
	}
	if (parse_u64(s, v, &end) != 0)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		mult = 1ULL << 10;
		break;
	case 'M':
		mult = 1ULL << 20;
		break;
	case 'G':
		mult = 1ULL << 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (mult != 1 && end[1] != '\0' && strcasecmp(end + 1, "iB") != 0 &&
			strcasecmp(end + 1, "B") != 0)
		return -EINVAL;
	if (*v > max / mult)
		return -EINVAL;
	*v *= mult;
	return *v < min || *v > max ? -EINVAL : 0;
}

int
dt_app_parse_bool(const char *s, bool *v, const char **expect)
{
	static const char *const yes[] = {"yes", "true", "on", "1", NULL};
	static const char *const no[] = {"no", "false", "off", "0", NULL};
	int i;

	*expect = "yes or no";
	for (i = 0; yes[i] != NULL; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*v = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*v = false;
			return 0;
		}
	}
	return -EINVAL;
}

int
dt_app_parse_ipv4(const char *s, uint32_t *be, const char **expect)
{
	struct in_addr a;

	*expect = "an IPv4 address (a.b.c.d)";
	if (inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*be = a.s_addr;
	return 0;
}

int
dt_app_parse_ipv4_port(const char *s, uint32_t *be, uint16_t *port,
	const char **expect)
{
	char ip[INET_ADDRSTRLEN];
	const char *colon = strrchr(s, ':');
	uint64_t p;
	char *end;

	*expect = "IP:PORT (e.g. 10.0.0.1:5001)";
	if (colon == NULL || (size_t)(colon - s) >= sizeof(ip))
		return -EINVAL;
	memcpy(ip, s, colon - s);
	ip[colon - s] = '\0';
	if (dt_app_parse_ipv4(ip, be, expect) != 0 ||
			parse_u64(colon + 1, &p, &end) != 0 || *end != '\0' ||
			p == 0 || p > UINT16_MAX) {
		*expect = "IP:PORT (e.g. 10.0.0.1:5001)";
		return -EINVAL;
	}
	*port = p;
	return 0;
}

/* One list element: N or N-M. */
static int
list_item(const char *item, uint16_t min, uint16_t max, uint16_t *out,
	uint16_t cap, uint16_t *n)
{
	uint64_t a, b;
	char *end;

	if (parse_u64(item, &a, &end) != 0)
		return -EINVAL;
	b = a;
	if (*end == '-' && parse_u64(end + 1, &b, &end) != 0)
		return -EINVAL;
	if (*end != '\0' || a > b || a < min || b > max)
		return -EINVAL;
	for (; a <= b; a++) {
		if (*n >= cap)
			return -E2BIG;
		out[(*n)++] = a;
	}
	return 0;
}

int
dt_app_parse_u16_list(const char *s, uint16_t min, uint16_t max,
	uint16_t *out, uint16_t cap, uint16_t *n, char *buf, size_t buflen,
	const char **expect)
{
	char tmp[512], *save = NULL, *tok;
	int rc;

	snprintf(buf, buflen, "a list of at most %u integers in [%u, %u] "
		"(e.g. 1,3-5)", cap, min, max);
	*expect = buf;
	*n = 0;
	if (strlen(s) >= sizeof(tmp))
		return -EINVAL;
	strcpy(tmp, s);
	for (tok = strtok_r(tmp, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		tok[strcspn(tok, " \t")] = '\0';
		rc = list_item(tok, min, max, out, cap, n);
		if (rc != 0)
			return -EINVAL;
	}
	return *n == 0 ? -EINVAL : 0;
}

int
dt_app_parse_enum(const char *s, const char *const *names)
{
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -EINVAL;
}

const char *
dt_app_ipv4_str(uint32_t be, char *buf, size_t len)
{
	struct in_addr a = { .s_addr = be };

	if (inet_ntop(AF_INET, &a, buf, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}
