/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP header and options: parse and build. */
#include <stdbool.h>
#include <string.h>

#include "dt_net_bytes.h"
#include "dt_net_tcp.h"

#define OPTLEN_MSS 4
#define OPTLEN_WSCALE 3
#define OPTLEN_SACK_PERM 2
#define OPTLEN_TS 10
#define OPTLEN_SACK_BASE 2
#define OPTLEN_SACK_BLOCK 8

/* One known option whose length byte was already checked against the space. */
static enum dt_net_status
tcp_opt_one(const uint8_t *o, uint8_t olen, struct dt_net_tcp_opts *opts)
{
	unsigned int i, n;

	switch (o[0]) {
	case DT_NET_TCPOPT_MSS:
		if (olen != OPTLEN_MSS)
			return DT_NET_E_TCP_OPT;
		opts->mss = dt_net_get_be16(o + 2);
		opts->present |= DT_NET_TCPOPT_F_MSS;
		break;
	case DT_NET_TCPOPT_WSCALE:
		if (olen != OPTLEN_WSCALE)
			return DT_NET_E_TCP_OPT;
		opts->wscale = o[2];
		opts->present |= DT_NET_TCPOPT_F_WSCALE;
		break;
	case DT_NET_TCPOPT_SACK_PERM:
		if (olen != OPTLEN_SACK_PERM)
			return DT_NET_E_TCP_OPT;
		opts->present |= DT_NET_TCPOPT_F_SACK_PERM;
		break;
	case DT_NET_TCPOPT_TS:
		if (olen != OPTLEN_TS)
			return DT_NET_E_TCP_OPT;
		opts->ts_val = dt_net_get_be32(o + 2);
		opts->ts_ecr = dt_net_get_be32(o + 6);
		opts->present |= DT_NET_TCPOPT_F_TS;
		break;
	case DT_NET_TCPOPT_SACK:
		n = (unsigned int)(olen - OPTLEN_SACK_BASE) / OPTLEN_SACK_BLOCK;
		if (olen < OPTLEN_SACK_BASE + OPTLEN_SACK_BLOCK ||
				(olen - OPTLEN_SACK_BASE) % OPTLEN_SACK_BLOCK ||
				n > DT_NET_TCP_SACK_MAX)
			return DT_NET_E_TCP_OPT;
		for (i = 0; i < n; i++) {
			opts->sack[i].left = dt_net_get_be32(o + 2 + 8 * i);
			opts->sack[i].right = dt_net_get_be32(o + 6 + 8 * i);
		}
		opts->n_sack = (uint8_t)n;
		opts->present |= DT_NET_TCPOPT_F_SACK;
		break;
	default:
		/* Unknown options are skipped by their length (RFC 9293 3.1). */
		break;
	}
	return DT_NET_OK;
}

enum dt_net_status
dt_net_tcp_opts_parse(const void *buf, size_t len, struct dt_net_tcp_opts *opts)
{
	const uint8_t *p = buf;
	size_t i = 0;
	enum dt_net_status st;

	memset(opts, 0, sizeof(*opts));
	/* The layout of nearly every data segment: NOP, NOP, timestamps. */
	if (len == 12 && p[0] == DT_NET_TCPOPT_NOP && p[1] == DT_NET_TCPOPT_NOP &&
			p[2] == DT_NET_TCPOPT_TS && p[3] == OPTLEN_TS) {
		opts->ts_val = dt_net_get_be32(p + 4);
		opts->ts_ecr = dt_net_get_be32(p + 8);
		opts->present = DT_NET_TCPOPT_F_TS;
		return DT_NET_OK;
	}
	while (i < len) {
		if (p[i] == DT_NET_TCPOPT_EOL)
			break;
		if (p[i] == DT_NET_TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len || p[i + 1] < 2 || p[i + 1] > len - i)
			return DT_NET_E_TCP_OPT;
		st = tcp_opt_one(p + i, p[i + 1], opts);
		if (st != DT_NET_OK)
			return st;
		i += p[i + 1];
	}
	return DT_NET_OK;
}

enum dt_net_status
dt_net_tcp_parse(const void *buf, size_t hdr_avail, size_t seg_len,
	struct dt_net_tcp_hdr *th)
{
	const uint8_t *p = buf;

	if (hdr_avail < DT_NET_TCP_HLEN_MIN || seg_len < DT_NET_TCP_HLEN_MIN)
		return DT_NET_E_TRUNC;
	th->hdr_len = (uint8_t)((p[12] >> 4) * 4);
	if (th->hdr_len < DT_NET_TCP_HLEN_MIN || th->hdr_len > seg_len)
		return DT_NET_E_TCP_DOFF;
	if (th->hdr_len > hdr_avail)
		return DT_NET_E_TRUNC;
	th->sport = dt_net_get_be16(p);
	th->dport = dt_net_get_be16(p + 2);
	th->seq = dt_net_get_be32(p + 4);
	th->ack = dt_net_get_be32(p + 8);
	th->flags = p[13];
	th->win = dt_net_get_be16(p + 14);
	th->cksum = dt_net_get_be16(p + 16);
	th->urp = dt_net_get_be16(p + 18);
	return dt_net_tcp_opts_parse(p + DT_NET_TCP_HLEN_MIN,
		th->hdr_len - DT_NET_TCP_HLEN_MIN, &th->opts);
}

/* Layout pieces, each a multiple of 4 bytes. */
static size_t
tcp_opts_layout(const struct dt_net_tcp_opts *o, uint8_t *p)
{
	size_t n = 0;
	unsigned int i;
	bool ts = o->present & DT_NET_TCPOPT_F_TS;
	bool sackok = o->present & DT_NET_TCPOPT_F_SACK_PERM;
	uint8_t n_sack = (o->present & DT_NET_TCPOPT_F_SACK) ? o->n_sack : 0;

	if (o->present & DT_NET_TCPOPT_F_MSS) {
		if (p) {
			p[n] = DT_NET_TCPOPT_MSS;
			p[n + 1] = OPTLEN_MSS;
			dt_net_put_be16(p + n + 2, o->mss);
		}
		n += 4;
	}
	if (ts) {
		if (p) {
			if (sackok) {
				p[n] = DT_NET_TCPOPT_SACK_PERM;
				p[n + 1] = OPTLEN_SACK_PERM;
			} else {
				p[n] = DT_NET_TCPOPT_NOP;
				p[n + 1] = DT_NET_TCPOPT_NOP;
			}
			p[n + 2] = DT_NET_TCPOPT_TS;
			p[n + 3] = OPTLEN_TS;
			dt_net_put_be32(p + n + 4, o->ts_val);
			dt_net_put_be32(p + n + 8, o->ts_ecr);
		}
		n += 12;
	}
	if (o->present & DT_NET_TCPOPT_F_WSCALE) {
		if (p) {
			p[n] = DT_NET_TCPOPT_NOP;
			p[n + 1] = DT_NET_TCPOPT_WSCALE;
			p[n + 2] = OPTLEN_WSCALE;
			p[n + 3] = o->wscale;
		}
		n += 4;
	}
	if (sackok && !ts) {
		if (p) {
			p[n] = DT_NET_TCPOPT_NOP;
			p[n + 1] = DT_NET_TCPOPT_NOP;
			p[n + 2] = DT_NET_TCPOPT_SACK_PERM;
			p[n + 3] = OPTLEN_SACK_PERM;
		}
		n += 4;
	}
	if (n_sack > DT_NET_TCP_SACK_MAX)
		return DT_NET_TCP_OPT_SPACE + 1;
	if (n_sack) {
		if (p) {
			p[n] = DT_NET_TCPOPT_NOP;
			p[n + 1] = DT_NET_TCPOPT_NOP;
			p[n + 2] = DT_NET_TCPOPT_SACK;
			p[n + 3] = (uint8_t)(OPTLEN_SACK_BASE +
				OPTLEN_SACK_BLOCK * n_sack);
			for (i = 0; i < n_sack; i++) {
				dt_net_put_be32(p + n + 4 + 8 * i, o->sack[i].left);
				dt_net_put_be32(p + n + 8 + 8 * i,
					o->sack[i].right);
			}
		}
		n += 4 + (size_t)OPTLEN_SACK_BLOCK * n_sack;
	}
	return n;
}

size_t
dt_net_tcp_opts_len(const struct dt_net_tcp_opts *opts)
{
	size_t n = tcp_opts_layout(opts, NULL);

	return n > DT_NET_TCP_OPT_SPACE ? 0 : n;
}

size_t
dt_net_tcp_opts_build(void *buf, size_t cap, const struct dt_net_tcp_opts *opts)
{
	size_t n = dt_net_tcp_opts_len(opts);

	if (n == 0 || n > cap)
		return 0;
	return tcp_opts_layout(opts, buf);
}

size_t
dt_net_tcp_build(void *buf, size_t cap, const struct dt_net_tcp_hdr *th)
{
	uint8_t *p = buf;
	size_t olen = tcp_opts_layout(&th->opts, NULL);
	size_t hlen = DT_NET_TCP_HLEN_MIN + olen;

	if (olen > DT_NET_TCP_OPT_SPACE || cap < hlen)
		return 0;
	dt_net_put_be16(p, th->sport);
	dt_net_put_be16(p + 2, th->dport);
	dt_net_put_be32(p + 4, th->seq);
	dt_net_put_be32(p + 8, th->ack);
	p[12] = (uint8_t)((hlen / 4) << 4);
	p[13] = th->flags;
	dt_net_put_be16(p + 14, th->win);
	dt_net_put_be16(p + 16, th->cksum);
	dt_net_put_be16(p + 18, th->urp);
	tcp_opts_layout(&th->opts, p + DT_NET_TCP_HLEN_MIN);
	return hlen;
}
