/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsing of the script language (scripts/README): tokens, numbers, times,
 * flags, TCP options and whole segment specs. Kept apart from the
 * commands so the grammar can be read in one place.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_tcp_script.h"

/* ---- parsing helpers ---- */

int
tokenize(char *s, char **tok, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		tok[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = 0;
	}
	return n;
}

bool
parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

bool
parse_time(const char *s, uint64_t *t)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || d < 0)
		return false;
	*t = (uint64_t)(d * 1e6 + 0.5);
	return true;
}

static bool
parse_flags(const char *s, uint8_t *f)
{
	*f = 0;
	for (; *s; s++) {
		switch (*s) {
		case 'S': *f |= DT_NET_TCP_SYN; break;
		case 'F': *f |= DT_NET_TCP_FIN; break;
		case 'R': *f |= DT_NET_TCP_RST; break;
		case 'P': *f |= DT_NET_TCP_PSH; break;
		case '.': *f |= DT_NET_TCP_ACK; break;
		default: return false;
		}
	}
	return true;
}

/*
 * Options "<mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7,sack 1:2 3:4>".
 * @p ours: TS val is relative to our ISS (ours outbound), ecr relative to
 * it inbound; SACK edges relative to the peer's ISN outbound, ours inbound.
 */
static bool
parse_opts(struct interp *in, char *s, bool outbound,
	struct dt_net_tcp_opts *o)
{
	char *item, *save = NULL, *tok[MAX_TOK];
	int n, i;
	uint32_t a, b;
	uint32_t ts_base = in->iss;
	uint32_t sack_base = outbound ? in->peer_isn : in->iss;

	memset(o, 0, sizeof(*o));
	for (item = strtok_r(s, ",", &save); item;
			item = strtok_r(NULL, ",", &save)) {
		n = tokenize(item, tok, MAX_TOK);
		if (n == 0)
			return false;
		if (!strcmp(tok[0], "nop") || !strcmp(tok[0], "eol")) {
			continue;
		} else if (!strcmp(tok[0], "mss") && n == 2 &&
				parse_u32(tok[1], &a)) {
			o->present |= DT_NET_TCPOPT_F_MSS;
			o->mss = (uint16_t)a;
		} else if (!strcmp(tok[0], "wscale") && n == 2 &&
				parse_u32(tok[1], &a)) {
			o->present |= DT_NET_TCPOPT_F_WSCALE;
			o->wscale = (uint8_t)a;
		} else if (!strcmp(tok[0], "sackOK") && n == 1) {
			o->present |= DT_NET_TCPOPT_F_SACK_PERM;
		} else if (!strcmp(tok[0], "TS") && n == 5 &&
				!strcmp(tok[1], "val") && !strcmp(tok[3], "ecr") &&
				parse_u32(tok[2], &a) && parse_u32(tok[4], &b)) {
			o->present |= DT_NET_TCPOPT_F_TS;
			o->ts_val = outbound ? a + ts_base : a;
			o->ts_ecr = outbound ? b : b + ts_base;
		} else if (!strcmp(tok[0], "sack") && n >= 2 &&
				n <= 1 + DT_NET_TCP_SACK_MAX) {
			o->present |= DT_NET_TCPOPT_F_SACK;
			for (i = 1; i < n; i++) {
				char *colon = strchr(tok[i], ':');

				if (!colon)
					return false;
				*colon = 0;
				if (!parse_u32(tok[i], &a) ||
						!parse_u32(colon + 1, &b))
					return false;
				o->sack[o->n_sack].left = a + sack_base;
				o->sack[o->n_sack].right = b + sack_base;
				o->n_sack++;
			}
		} else {
			return false;
		}
	}
	return true;
}

/* "<flags> s:e(len) [ack N] [win N] [exts N] [exts0 N] [<opts>|<...>]" */
bool
parse_seg(struct interp *in, char *s, bool outbound, struct seg_spec *sp)
{
	char *lt = strchr(s, '<'), *gt, *tok[MAX_TOK];
	int n, i;

	memset(sp, 0, sizeof(*sp));
	sp->exts = 1;
	if (lt) {
		gt = strrchr(lt, '>');
		if (!gt)
			return false;
		*lt = 0;
		*gt = 0;
		if (!strcmp(lt + 1, "...")) {
			sp->opts_any = true;
		} else {
			sp->has_opts = true;
			if (!parse_opts(in, lt + 1, outbound, &sp->opts))
				return false;
		}
	}
	n = tokenize(s, tok, MAX_TOK);
	if (n < 2 || !parse_flags(tok[0], &sp->flags))
		return false;
	if (sscanf(tok[1], "%u:%u(%u)", &sp->start, &sp->end, &sp->len) != 3 ||
			sp->end - sp->start != sp->len)
		return false;
	for (i = 2; i + 1 < n; i += 2) {
		if (!strcmp(tok[i], "ack")) {
			sp->has_ack = parse_u32(tok[i + 1], &sp->ack);
		} else if (!strcmp(tok[i], "win")) {
			sp->has_win = parse_u32(tok[i + 1], &sp->win);
		} else if (!strcmp(tok[i], "exts")) {
			if (!parse_u32(tok[i + 1], &sp->exts) || sp->exts == 0 ||
					sp->exts > DT_TCP_SEG_MAX_EXT)
				return false;
		} else if (!strcmp(tok[i], "exts0")) {
			/* Empty extents after the payload's (issue 25 #3). */
			if (!parse_u32(tok[i + 1], &sp->exts0) ||
					sp->exts0 > DT_TCP_SEG_MAX_EXT)
				return false;
		} else {
			return false;
		}
	}
	return i == n;
}
bool
parse_range(const char *s, uint32_t *a, uint32_t *b)
{
	return sscanf(s, "%u:%u", a, b) == 2;
}
