/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A packetdrill-like interpreter for the sans-IO TCP engine. One script
 * (test/tcp/scripts/\*.pkt) drives one connection and optionally one
 * listener with a virtual clock; see scripts/README for the format.
 *
 * Beyond the script's own expectations it checks on every call: timer
 * actions agree with the connection's deadlines, every inbound payload
 * reference gets exactly one outcome (DATA or FREE), data events are in
 * sequence order, outbound payload slices match the application stream,
 * every outbound header survives a build/parse round trip, sequence
 * variables keep their order, the out-of-order queue holds only payload
 * still pending at its sequence (and nothing once the peer's FIN is
 * processed), and every ACK's SACK option follows RFC 2018 4 (see
 * sack_check(), dt_tcp_script_check.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_tcp_script.h"

static const char *const ev_names[] = {
	[DT_TCP_EV_CONNECTED] = "connected",
	[DT_TCP_EV_DATA] = "data",
	[DT_TCP_EV_FREE] = "free",
	[DT_TCP_EV_SENT] = "sent",
	[DT_TCP_EV_PEER_CLOSED] = "peer_closed",
	[DT_TCP_EV_RESET] = "reset",
	[DT_TCP_EV_ERROR] = "error",
	[DT_TCP_EV_CLOSED] = "closed",
};
/* ---- script commands ---- */

static void
cmd_inbound(struct interp *in, char *rest)
{
	struct seg_spec sp;
	struct dt_tcp_extent ext[DT_TCP_SEG_MAX_EXT];
	struct dt_tcp_seg seg;
	uint8_t buf[DT_NET_TCP_HLEN_MAX];
	struct dt_net_tcp_hdr th;
	uint32_t i, off = 0, piece;
	size_t hl;
	bool busy;
	int v;

	if (!parse_seg(in, rest, false, &sp)) {
		fail(in, "bad inbound segment");
		return;
	}
	memset(&th, 0, sizeof(th));
	th.sport = in->tuple.rport;
	th.dport = in->tuple.lport;
	th.seq = sp.start + in->peer_isn;
	th.ack = sp.has_ack ? sp.ack + in->iss : 0;
	th.flags = sp.flags;
	th.win = (uint16_t)(sp.has_win ? sp.win : 65535);
	th.opts = sp.opts;
	/* Through the wire format, as the data plane would. */
	hl = dt_net_tcp_build(buf, sizeof(buf), &th);
	memset(&seg, 0, sizeof(seg));
	if (hl == 0 || dt_net_tcp_parse(buf, hl, hl + sp.len, &seg.th) !=
			DT_NET_OK) {
		fail(in, "inbound header does not encode");
		return;
	}
	seg.n_ext = 0;
	for (i = 0; i < sp.exts + sp.exts0; i++) {
		if (i < sp.exts && off == sp.len)
			continue;	/* no payload: no payload extent */
		piece = i >= sp.exts ? 0 : i + 1 == sp.exts ? sp.len - off :
			sp.len / sp.exts;
		if (seg.n_ext == DT_TCP_SEG_MAX_EXT) {
			fail(in, "more than %d extents", DT_TCP_SEG_MAX_EXT);
			return;
		}
		if (in->n_rx == MAX_REC) {
			fail(in, "too many payload records");
			return;
		}
		in->rx[in->n_rx] = (struct rx_rec){ .rel = sp.start + off,
			.len = piece };
		ext[seg.n_ext++] = (struct dt_tcp_extent){
			.ref = &in->rx[in->n_rx], .off = 0, .len = piece };
		in->n_rx++;
		off += piece;
	}
	seg.ext = ext;
	if ((sp.flags & DT_NET_TCP_SYN) && in->cfg.sack_ok)
		in->sack_on = (sp.opts.present & DT_NET_TCPOPT_F_SACK_PERM) != 0;
	busy = in->conn_init && in->conn.state != DT_TCP_CLOSED;
	if (sp.len > 0 && busy) {
		in->trig_r = (struct range){ th.seq, th.seq + sp.len };
		in->trig = dt_tcp_seq_gt(th.seq, in->conn.rcv_nxt);
	}
	if (busy && in->conn.tuple.rport == in->tuple.rport) {
		dt_tcp_input(&in->conn, &seg, in->now, &in->out);
	} else if (in->listening) {
		/* The one connection object is the spare while it is free. */
		if (!busy)
			ensure_conn(in);
		v = dt_tcp_listen_input(&in->lst, &in->tuple, &seg,
			busy ? NULL : &in->conn, in->now, &in->out);
		in->last_verdict = v;
	} else {
		dt_tcp_rst_closed(&seg, &in->out);
	}
	collect_all(in);
}

static void
cmd_outbound(struct interp *in, char *rest)
{
	struct seg_spec sp;
	struct q_seg *q;
	const struct dt_tcp_tx_seg *s;
	char got[256];
	uint64_t pos;
	unsigned int i;
	const struct tx_rec *tr;

	if (!parse_seg(in, rest, true, &sp)) {
		fail(in, "bad outbound segment");
		return;
	}
	if (in->out_n == 0) {
		fail(in, "expected a segment, none was sent");
		return;
	}
	q = &in->outq[in->out_head];
	in->out_head = (in->out_head + 1) % MAX_Q;
	in->out_n--;
	s = &q->seg;
	seg_str(in, s, got, sizeof(got));
	if (q->t + in->tol < in->now || q->t > in->now + in->tol)
		fail(in, "segment sent at %.6f, expected at %.6f: %s",
			q->t / 1e6, in->now / 1e6, got);
	if (s->th.flags != sp.flags || s->th.seq - in->iss != sp.start ||
			s->len != sp.len ||
			(sp.has_ack && s->th.ack - in->peer_isn != sp.ack) ||
			(sp.has_win && s->th.win != sp.win))
		fail(in, "segment mismatch, got: %s", got);
	if (!sp.opts_any) {
		const struct dt_net_tcp_opts *o = &s->th.opts;

		if (o->present != sp.opts.present ||
				((o->present & DT_NET_TCPOPT_F_MSS) &&
					o->mss != sp.opts.mss) ||
				((o->present & DT_NET_TCPOPT_F_WSCALE) &&
					o->wscale != sp.opts.wscale) ||
				((o->present & DT_NET_TCPOPT_F_TS) &&
					(o->ts_val != sp.opts.ts_val ||
					o->ts_ecr != sp.opts.ts_ecr)) ||
				o->n_sack != sp.opts.n_sack ||
				memcmp(o->sack, sp.opts.sack,
					sizeof(o->sack[0]) * o->n_sack))
			fail(in, "options mismatch, got: %s", got);
	}
	/* Payload slices must be the application stream at this sequence. */
	pos = (uint64_t)(s->th.seq - in->iss - 1);
	for (i = 0; i < s->n_ext; i++) {
		tr = s->ext[i].ref;
		if (tr < in->tx || tr >= in->tx + in->n_tx ||
				s->ext[i].off + s->ext[i].len > tr->len ||
				tr->stream_off + s->ext[i].off != pos) {
			fail(in, "payload slice %u does not match the stream", i);
			break;
		}
		pos += s->ext[i].len;
	}
}
static void
cmd_event(struct interp *in, char **tok, int n)
{
	struct q_ev *q;
	const struct dt_tcp_event *ev;
	const struct rx_rec *r;
	uint32_t a, b, x, y;
	const char *name;

	if (n < 1) {
		fail(in, "bad event line");
		return;
	}
	if (in->ev_n == 0) {
		fail(in, "expected event %s, none", tok[0]);
		return;
	}
	q = &in->evq[in->ev_head];
	in->ev_head = (in->ev_head + 1) % MAX_Q;
	in->ev_n--;
	ev = &q->ev;
	name = ev->type < sizeof(ev_names) / sizeof(ev_names[0]) ?
		ev_names[ev->type] : "?";
	if (strcmp(name, tok[0])) {
		fail(in, "expected event %s, got %s", tok[0], name);
		return;
	}
	if (q->t + in->tol < in->now || q->t > in->now + in->tol)
		fail(in, "event %s at %.6f, expected at %.6f", name, q->t / 1e6,
			in->now / 1e6);
	switch (ev->type) {
	case DT_TCP_EV_DATA:
		r = ev->ext.ref;
		x = r->rel + ev->ext.off;
		y = x + ev->ext.len;
		if (n != 2 || !parse_range(tok[1], &a, &b) || a != x || b != y)
			fail(in, "data %u:%u delivered", x, y);
		if (x != in->rx_next_rel)
			fail(in, "data at %u, stream is at %u", x, in->rx_next_rel);
		if (ev->ext.off + ev->ext.len > r->len)
			fail(in, "data extent beyond its buffer");
		in->rx_next_rel = y;
		break;
	case DT_TCP_EV_FREE:
		r = ev->ext.ref;
		if (n != 2 || !parse_range(tok[1], &a, &b) || a != r->rel ||
				b != r->rel + r->len)
			fail(in, "freed buffer is %u:%u", r->rel, r->rel + r->len);
		break;
	case DT_TCP_EV_SENT:
		if (n != 3 || !parse_u32(tok[1], &a) || !parse_u32(tok[2], &b) ||
				a != ev->bytes || b != ev->count)
			fail(in, "sent %llu %u", (unsigned long long)ev->bytes,
				ev->count);
		break;
	case DT_TCP_EV_ERROR:
		if (n != 2 || strcmp(tok[1], ev->err == DT_TCP_ERR_TIMEOUT ?
				"timeout" : ev->err == DT_TCP_ERR_DATA_LOST ?
				"data_lost" : "refused"))
			fail(in, "error reason %u", ev->err);
		break;
	default:
		if (n != 1)
			fail(in, "event %s takes no argument", name);
		break;
	}
}
static void
require_quiet(struct interp *in)
{
	char got[256];

	if (in->out_n > 0) {
		seg_str(in, &in->outq[in->out_head].seg, got, sizeof(got));
		fail(in, "unexpected segment at %.6f: %s",
			in->outq[in->out_head].t / 1e6, got);
		in->out_head = (in->out_head + in->out_n) % MAX_Q;
		in->out_n = 0;
	}
	if (in->ev_n > 0) {
		const struct dt_tcp_event *ev = &in->evq[in->ev_head].ev;

		fail(in, "unexpected event %s at %.6f", ev_names[ev->type],
			in->evq[in->ev_head].t / 1e6);
		in->ev_head = (in->ev_head + in->ev_n) % MAX_Q;
		in->ev_n = 0;
	}
}

static void
port_iss_save(struct interp *in)
{
	int i;

	if (!in->iss_known)
		return;
	for (i = 0; i < in->n_ports; i++)
		if (in->ports[i].port == in->tuple.rport)
			break;
	if (i == in->n_ports) {
		if (in->n_ports == MAX_PORTS)
			return;
		in->n_ports++;
	}
	in->ports[i].port = in->tuple.rport;
	in->ports[i].iss = in->iss;
}

static void
port_iss_load(struct interp *in)
{
	int i;

	in->iss_known = false;
	for (i = 0; i < in->n_ports; i++) {
		if (in->ports[i].port == in->tuple.rport) {
			in->iss = in->ports[i].iss;
			in->iss_known = true;
		}
	}
}

static void
cmd_app(struct interp *in, char **tok, int n)
{
	struct dt_tcp_extent e;
	uint32_t v, b = 8;
	const char *want = NULL;
	int rc = 0;

	/* "cmd args -> ERR": the expected return code. */
	if (n >= 3 && !strcmp(tok[n - 2], "->")) {
		want = tok[n - 1];
		n -= 2;
	}
	if (!strcmp(tok[0], "listen")) {
		if (n == 3 && !strcmp(tok[1], "backlog"))
			parse_u32(tok[2], &b);
		if (dt_tcp_listen(&in->lst, &in->cfg, &in->key, in->synq,
				in->synq_cap,
				(uint16_t)b))
			fail(in, "listen failed");
		if (in->synack_retries >= 0 && dt_tcp_listen_set_synack_retries(
				&in->lst, (uint8_t)in->synack_retries))
			fail(in, "bad synack_retries");
		dt_tcp_listen_set_cookies(&in->lst, !in->no_cookies, NULL);
		in->listening = true;
		ensure_conn(in);
		return;
	}
	if (!strcmp(tok[0], "unlisten")) {
		dt_tcp_listen_close(&in->lst, &in->out);
		collect_all(in);
		return;
	}
	if (!strcmp(tok[0], "rport") && n == 2 && parse_u32(tok[1], &v)) {
		/* Another peer port (listener tests): each has its ISS. */
		port_iss_save(in);
		in->tuple.rport = (uint16_t)v;
		port_iss_load(in);
		return;
	}
	if (!strcmp(tok[0], "accepted")) {
		dt_tcp_listen_accepted(&in->lst);
		return;
	}
	if (!strcmp(tok[0], "connect")) {
		ensure_conn(in);
		if (!in->iss_fixed)
			in->iss = dt_tcp_isn(&in->key, &in->tuple, in->now);
		in->iss_known = true;
		rc = dt_tcp_connect(&in->conn, &in->tuple, in->iss, in->now,
			&in->out);
	} else if (!strcmp(tok[0], "send") && n == 2 && parse_u32(tok[1], &v)) {
		if (in->n_tx == MAX_REC) {
			fail(in, "too many sends");
			return;
		}
		in->tx[in->n_tx] = (struct tx_rec){ in->stream_off, v };
		e = (struct dt_tcp_extent){ &in->tx[in->n_tx], 0, v };
		rc = dt_tcp_send(&in->conn, &e, in->now, &in->out);
		if (rc == 0) {
			in->n_tx++;
			in->stream_off += v;
		}
	} else if (!strcmp(tok[0], "close")) {
		rc = dt_tcp_close(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "close_full")) {
		rc = dt_tcp_close_full(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "abort")) {
		dt_tcp_abort(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "rcvspace") && n == 2 && parse_u32(tok[1], &v)) {
		dt_tcp_set_rcv_space(&in->conn, v, in->now, &in->out);
	} else if (!strcmp(tok[0], "keepalive") && n == 2) {
		dt_tcp_set_keepalive(&in->conn, cfg_bool(tok[1]), in->now,
			&in->out);
	} else if (!strcmp(tok[0], "output")) {
		/* End of a receive batch (cfg ackdefer): the owed ACK. */
		dt_tcp_output(&in->conn, in->now, &in->out);
	} else if (!strcmp(tok[0], "ooolimit") && n == 2 &&
			parse_u32(tok[1], &v)) {
		dt_tcp_set_ooo_limit(&in->conn, v);
		dt_tcp_out_reset(&in->out);
	} else if (!strcmp(tok[0], "nagle") && n == 2) {
		dt_tcp_set_nagle(&in->conn, cfg_bool(tok[1]));
		dt_tcp_out_reset(&in->out);
	} else {
		fail(in, "unknown command %s", tok[0]);
		return;
	}
	if (want) {
		const char *is = rc == 0 ? "0" : rc == -ENOBUFS ? "ENOBUFS" :
			rc == -ENOTCONN ? "ENOTCONN" : rc == -EPIPE ? "EPIPE" :
			rc == -EALREADY ? "EALREADY" : rc == -EISCONN ?
			"EISCONN" : "other";

		if (strcmp(is, want))
			fail(in, "%s returned %s, expected %s", tok[0], is, want);
	} else if (rc != 0) {
		fail(in, "%s returned %d", tok[0], rc);
	}
	collect_all(in);
}

/*
 * "repeat N < SEGMENT": the same inbound segment N times at this time
 * (floods); what they draw is matched by the lines that follow.
 */
static void
cmd_repeat(struct interp *in, char *rest)
{
	char *lt = strchr(rest, '<'), copy[1024];
	uint32_t n, i;

	if (lt == NULL) {
		fail(in, "repeat needs an inbound segment");
		return;
	}
	*lt = 0;
	if (!parse_u32(strtok(rest, " \t"), &n) || n == 0) {
		fail(in, "bad repeat count");
		return;
	}
	for (i = 0; i < n && in->failures == 0; i++) {
		snprintf(copy, sizeof(copy), "%s", lt + 1);
		cmd_inbound(in, copy);
	}
}

static void
run_line(struct interp *in, char *line)
{
	char *tok[MAX_TOK], *p, *rest;
	uint64_t t;
	int n;

	p = strchr(line, '#');
	if (p)
		*p = 0;
	while (isspace((unsigned char)*line))
		line++;
	if (!*line)
		return;
	if (!strncmp(line, "cfg", 3) && isspace((unsigned char)line[3])) {
		n = tokenize(line + 4, tok, MAX_TOK);
		cmd_cfg(in, tok, n);
		return;
	}
	/* "<time> <kind> ..." */
	p = line;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (*p)
		*p++ = 0;
	if (!parse_time(line, &t)) {
		fail(in, "line must start with a time");
		return;
	}
	while (isspace((unsigned char)*p))
		p++;
	rest = p;
	if (*rest == '>') {
		advance(in, t);
		cmd_outbound(in, rest + 1);
		return;
	}
	if (*rest == '%') {
		advance(in, t);
		n = tokenize(rest + 1, tok, MAX_TOK);
		cmd_event(in, tok, n);
		return;
	}
	advance(in, t);
	require_quiet(in);
	if (*rest == '<') {
		cmd_inbound(in, rest + 1);
		return;
	}
	if (!strncmp(rest, "repeat", 6) && isspace((unsigned char)rest[6])) {
		cmd_repeat(in, rest + 7);
		return;
	}
	n = tokenize(rest, tok, MAX_TOK);
	if (n == 0) {
		fail(in, "empty command");
		return;
	}
	if (!strcmp(tok[0], "expect"))
		cmd_expect(in, tok + 1, n - 1);
	else
		cmd_app(in, tok, n);
}

static void
interp_init(struct interp *in, const char *path)
{
	unsigned int i;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->tol = 1000;
	in->txq_cap = TXQ_CAP;
	in->synq_cap = 16;
	in->synack_retries = -1;
	in->ooo_cap = DT_TCP_OOO_MAX;
	dt_tcp_cfg_default(&in->cfg);
	for (i = 0; i < sizeof(in->key.k); i++)
		in->key.k[i] = (uint8_t)(0x5a ^ (i * 37));
	in->tuple = (struct dt_tcp_tuple){ .laddr = 0xc0000201,
		.raddr = 0xc0000202, .lport = 8080, .rport = 40000 };
	in->last_verdict = -1;
	in->rx_next_rel = 1;
}

int
main(int argc, char **argv)
{
	static struct interp in;
	char line[1024];
	FILE *f;
	int i, held = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SCRIPT\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	interp_init(&in, argv[1]);
	while (fgets(line, sizeof(line), f)) {
		in.line++;
		run_line(&in, line);
	}
	fclose(f);
	in.line++;
	require_quiet(&in);
	/* CLOSED holds no reference: every payload had its outcome. */
	if (in.conn_init && in.conn.state == DT_TCP_CLOSED)
		for (i = 0; i < in.n_rx; i++)
			held += in.rx[i].outcome == 0;
	if (held)
		fail(&in, "%d payload buffers never released after CLOSED", held);
	printf("%s: %s (%d failure%s)\n", argv[1],
		in.failures ? "FAIL" : "ok", in.failures,
		in.failures == 1 ? "" : "s");
	return in.failures ? 1 : 0;
}
