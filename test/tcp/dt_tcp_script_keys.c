/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names a script may use: "cfg" keys (engine and harness
 * configuration) and "expect" fields (connection state read back). One
 * file, so that adding a key or a field touches only this table.
 */
#include <stddef.h>
#include <string.h>

#include "dt_tcp_script.h"

bool
cfg_bool(const char *v)
{
	return !strcmp(v, "on") || !strcmp(v, "1");
}

void
cmd_cfg(struct interp *in, char **tok, int n)
{
	struct dt_tcp_cfg *c = &in->cfg;
	uint32_t v;
	int i;

	for (i = 0; i + 1 < n; i += 2) {
		const char *k = tok[i];
		bool num = parse_u32(tok[i + 1], &v);

		if (!strcmp(k, "mss") && num) c->mss = (uint16_t)v;
		else if (!strcmp(k, "wscale") && num) c->wscale = (uint8_t)v;
		else if (!strcmp(k, "wsopt")) c->wscale_ok = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "sack")) c->sack_ok = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "ts")) c->ts_ok = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "nagle")) c->nagle = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "delack")) c->delack = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "keepalive")) c->keepalive = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "rcvspace") && num) c->rcv_space = v;
		else if (!strcmp(k, "rto_init_ms") && num) c->rto_init_us = v * 1000ull;
		else if (!strcmp(k, "rto_min_ms") && num) c->rto_min_us = v * 1000ull;
		else if (!strcmp(k, "rto_max_ms") && num) c->rto_max_us = v * 1000ull;
		else if (!strcmp(k, "delack_ms") && num) c->delack_us = v * 1000ull;
		else if (!strcmp(k, "msl_ms") && num) c->msl_us = v * 1000ull;
		else if (!strcmp(k, "ka_idle_ms") && num) c->keepalive_idle_us = v * 1000ull;
		else if (!strcmp(k, "ka_intvl_ms") && num) c->keepalive_intvl_us = v * 1000ull;
		else if (!strcmp(k, "ka_probes") && num) c->keepalive_probes = (uint8_t)v;
		else if (!strcmp(k, "syn_retries") && num) c->syn_retries = (uint8_t)v;
		else if (!strcmp(k, "max_retries") && num) c->max_retries = (uint8_t)v;
		else if (!strcmp(k, "chack_limit") && num) c->challenge_ack_limit = (uint16_t)v;
		else if (!strcmp(k, "txq") && num && v && v <= TXQ_CAP) in->txq_cap = (uint16_t)v;
		else if (!strcmp(k, "ooo") && num && v && v <= DT_TCP_OOO_MAX) in->ooo_cap = (uint16_t)v;
		else if (!strcmp(k, "peer_isn") && num) in->peer_isn = v;
		else if (!strcmp(k, "iss") && num) { in->iss = v; in->iss_fixed = true; }
		else if (!strcmp(k, "synq") && num && v && v <= 16) in->synq_cap = (uint16_t)v;
		else if (!strcmp(k, "synack_retries") && num) in->synack_retries = (int)v;
		else if (!strcmp(k, "cookies")) in->no_cookies = !cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "tol_us") && num) in->tol = v;
		else if (!strcmp(k, "rack")) c->rack = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "ackdefer")) c->ack_defer = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "autotune")) c->rcv_autotune = cfg_bool(tok[i + 1]);
		else if (!strcmp(k, "tso") && num) c->tso_max = v;
		else if (!strcmp(k, "fin_wait2_ms") && num) c->fin_wait2_us = v * 1000ull;
		else if (!strcmp(k, "cc") && !strcmp(tok[i + 1], "newreno")) c->cc = &dt_tcp_cc_newreno;
		else if (!strcmp(k, "cc") && !strcmp(tok[i + 1], "cubic")) c->cc = &dt_tcp_cc_cubic;
		else fail(in, "bad cfg %s", k);
	}
	if (i != n)
		fail(in, "cfg needs key value pairs");
}

static const struct {
	const char *name;
	size_t off;
} fields[] = {
	{ "cwnd", offsetof(struct dt_tcp_conn, cwnd) },
	{ "ssthresh", offsetof(struct dt_tcp_conn, ssthresh) },
	{ "rto", offsetof(struct dt_tcp_conn, rto) },
	{ "srtt", offsetof(struct dt_tcp_conn, srtt) },
	{ "rttvar", offsetof(struct dt_tcp_conn, rttvar) },
	{ "snd_wnd", offsetof(struct dt_tcp_conn, snd_wnd) },
	{ "rcv_space", offsetof(struct dt_tcp_conn, rcv_space) },
	{ "sacked", offsetof(struct dt_tcp_conn, lr.sacked) },
	{ "pipe", offsetof(struct dt_tcp_conn, lr.pipe) },
	{ "rtxs", offsetof(struct dt_tcp_conn, lr.n_rtx) },
	{ "dsacks", offsetof(struct dt_tcp_conn, lr.n_dsack) },
	{ "tlps", offsetof(struct dt_tcp_conn, lr.n_tlp) },
	{ "rack_losses", offsetof(struct dt_tcp_conn, lr.n_rack_lost) },
};

/* expect state X | expect cwnd N | expect timer K T|off | expect verdict V
 * | expect ooo N | expect smss N | expect held N (payloads not resolved) */
void
cmd_expect(struct interp *in, char **tok, int n)
{
	const struct dt_tcp_conn *c = &in->conn;
	uint32_t v, got;
	uint64_t t;
	unsigned int k;
	int i, held = 0;

	if (n == 2 && !strcmp(tok[0], "state")) {
		const char *st = in->conn_init ?
			dt_tcp_state_str((enum dt_tcp_state)c->state) : "CLOSED";

		if (strcmp(st, tok[1]))
			fail(in, "state %s, expected %s", st, tok[1]);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "verdict")) {
		if (strcmp(dt_tcp_lst_verdict_str(in->last_verdict), tok[1]))
			fail(in, "verdict %s, expected %s",
				dt_tcp_lst_verdict_str(in->last_verdict), tok[1]);
		return;
	}
	if (n == 3 && !strcmp(tok[0], "timer")) {
		for (k = 0; k < DT_TCP_T__COUNT; k++)
			if (!strcmp(timer_names[k], tok[1]))
				break;
		if (k == DT_TCP_T__COUNT) {
			fail(in, "unknown timer %s", tok[1]);
			return;
		}
		t = 0;
		if (strcmp(tok[2], "off") && !parse_time(tok[2], &t)) {
			fail(in, "bad time %s", tok[2]);
			return;
		}
		if (in->tmr[k] != t)
			fail(in, "timer %s at %.6f, expected %s", tok[1],
				in->tmr[k] / 1e6, tok[2]);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "held") && parse_u32(tok[1], &v)) {
		for (i = 0; i < in->n_rx; i++)
			held += in->rx[i].outcome == 0;
		if ((uint32_t)held != v)
			fail(in, "%d payload buffers held, expected %u", held, v);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "ooo") && parse_u32(tok[1], &v)) {
		if (c->ooo_n != v)
			fail(in, "ooo %u, expected %u", c->ooo_n, v);
		return;
	}
	if (n == 2 && !strcmp(tok[0], "smss") && parse_u32(tok[1], &v)) {
		if (c->smss != v)
			fail(in, "smss %u, expected %u", c->smss, v);
		return;
	}
	if (n == 2 && (!strcmp(tok[0], "rtx_segs") ||
			!strcmp(tok[0], "rtx_bytes") ||
			!strcmp(tok[0], "acks_limited") ||
			!strcmp(tok[0], "beyond_fin") ||
			!strcmp(tok[0], "nagle_holds")) && parse_u32(tok[1], &v)) {
		t = tok[0][0] == 'a' ? c->acks_limited :
			tok[0][0] == 'b' ? c->rcv_beyond_fin :
			tok[0][0] == 'n' ? c->nagle_holds :
			tok[0][4] == 's' ? c->rtx_segs : c->rtx_bytes;
		if (t != v)
			fail(in, "%s is %llu, expected %u", tok[0],
				(unsigned long long)t, v);
		return;
	}
	for (k = 0; n == 2 && k < sizeof(fields) / sizeof(fields[0]); k++) {
		if (strcmp(fields[k].name, tok[0]))
			continue;
		memcpy(&got, (const char *)c + fields[k].off, sizeof(got));
		if (!parse_u32(tok[1], &v))
			fail(in, "bad value %s", tok[1]);
		else if (got != v)
			fail(in, "%s is %u, expected %u", tok[0], got, v);
		return;
	}
	fail(in, "bad expect line");
}
