/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks across keys of the configuration file, once it is read: what one
 * key's parser cannot see alone. Each message names the line of the key it
 * is about (or of its section when the key is missing).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_app_error.h"
#include "srv_config_priv.h"

/* "file:LINE: [section] key: message", or "file: ..." without a line. */
static int __attribute__((format(printf, 5, 6)))
fail(const struct srv_parse_state *ps, struct dt_app_error *err,
	const char *section, const char *key, const char *fmt, ...)
{
	unsigned int line = srv_config_line_of(ps, section, key);
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line != 0)
		return dt_app_error_set(err, -EINVAL, "%s:%u: [%s] %s: %s",
			ps->cfg->path, line, section, key, msg);
	return dt_app_error_set(err, -EINVAL, "%s: [%s] %s: %s", ps->cfg->path,
		section, key, msg);
}

static int
missing(const struct srv_parse_state *ps, struct dt_app_error *err,
	enum srv_sec_kind kind, const char *section, const char *key,
	const char *why)
{
	unsigned int line = ps->section_line[kind];

	if (line != 0)
		return dt_app_error_set(err, -EINVAL, "%s:%u: [%s] %s: missing (%s)",
			ps->cfg->path, line, section, key, why);
	return dt_app_error_set(err, -EINVAL, "%s: [%s] %s: missing (%s)",
		ps->cfg->path, section, key, why);
}

static bool
netmask_ok(uint32_t be)
{
	uint32_t m = ntohl(be);

	return m != 0 && (~m & (~m + 1)) == 0;
}

static int
check_addresses(const struct srv_parse_state *ps, const struct srv_stack_cfg *s,
	enum srv_sec_kind kind, const char *section, struct dt_app_error *err)
{
	if (s->ipv4 == 0)
		return missing(ps, err, kind, section, "ipv4",
			"the local IPv4 address of the stack");
	if (!netmask_ok(s->netmask))
		return fail(ps, err, section, "netmask",
			"not a contiguous netmask");
	if (s->gateway != 0 && (s->gateway & s->netmask) != (s->ipv4 & s->netmask))
		return fail(ps, err, section, "gateway",
			"not on the subnet of ipv4 and netmask");
	return 0;
}

static int
check_stack(const struct srv_parse_state *ps, struct dt_app_error *err)
{
	const struct srv_config *c = ps->cfg;
	int rc;

	rc = check_addresses(ps, &c->stack, SEC_STACK, "stack", err);
	if (rc != 0)
		return rc;
	if (c->stack.nb_listen == 0)
		return missing(ps, err, SEC_STACK, "stack", "listen",
			"the TCP ports the server accepts on");
	return 0;
}

static int
check_client(const struct srv_parse_state *ps, struct dt_app_error *err)
{
	const struct srv_config *c = ps->cfg;
	int rc;

	rc = check_addresses(ps, &c->client, SEC_CLIENT, "client", err);
	if (rc != 0)
		return rc;
	if (c->client_file[0] != '\0' && access(c->client_file, R_OK) != 0)
		return fail(ps, err, "client", "file", "%s: %s",
			c->client_file, strerror(errno));
	if (c->client_rport == 0)
		return missing(ps, err, SEC_CLIENT, "client", "connect",
			"IP:PORT of the server to push to");
	if (ps->section_line[SEC_STACK] != 0 && c->client.port == c->stack.port)
		return fail(ps, err, "client", "port",
			"port %u is the server's ([stack] port): the client needs its own",
			c->client.port);
	return 0;
}

static int
check_steering(const struct srv_parse_state *ps, struct dt_app_error *err)
{
	const struct srv_config *c = ps->cfg;
	uint16_t nb_q = c->nb_stacks ? c->nb_stacks : 1;
	unsigned int i;

	if (c->steer_flow && c->nb_rules == 0)
		return fail(ps, err, "steering", "mode",
			"flow needs rules = TCPPORT:QUEUE, ...");
	if (!c->steer_flow && c->nb_rules != 0)
		return fail(ps, err, "steering", "rules",
			"rules need mode = flow");
	for (i = 0; i < c->nb_rules; i++)
		if (c->rules[i].queue >= nb_q)
			return fail(ps, err, "steering", "rules",
				"queue %u does not exist (%u stack%s, queues 0..%u)",
				c->rules[i].queue, nb_q, nb_q > 1 ? "s" : "", nb_q - 1);
	return 0;
}

static int
check_consumer(const struct srv_parse_state *ps, struct dt_app_error *err)
{
	const struct srv_config *c = ps->cfg;

	if (c->consumer == SRV_CONSUMER_VERIFY && !c->verify_pattern &&
			!c->verify_sha256)
		return fail(ps, err, "consumer", "mode",
			"verify needs pattern = stream or sha256 = yes");
	if (c->consumer == SRV_CONSUMER_RING &&
			(c->ring_size & (c->ring_size - 1)) != 0)
		return fail(ps, err, "consumer", "ring_size",
			"expected a power of two, got %u", c->ring_size);
	/* A test's control and data connections must meet on one stack. */
	if (c->consumer == SRV_CONSUMER_IPERF3 && c->nb_stacks > 1)
		return fail(ps, err, "consumer", "mode",
			"iperf3 runs on one stack ([lcores] stacks = 1), "
			"got %u", c->nb_stacks);
	return 0;
}

static int
check_ingest(const struct srv_parse_state *ps, struct dt_app_error *err)
{
	struct srv_config *c = ps->cfg;
	unsigned long mode;
	char *end;

	if (c->consumer != SRV_CONSUMER_INGEST) {
		if (ps->section_line[SEC_INGEST] != 0)
			return fail(ps, err, "consumer", "mode",
				"an [ingest] section needs mode = ingest");
		return 0;
	}
	if ((c->ingest_quota & (c->ingest_quota - 1)) != 0)
		return fail(ps, err, "ingest", "quota",
			"expected a power of two, got %u", c->ingest_quota);
	mode = strtoul(c->ingest_socket_mode, &end, 8);
	if (end == c->ingest_socket_mode || *end != '\0' || mode > 0777)
		return fail(ps, err, "ingest", "socket_mode",
			"expected octal permissions such as 0660, got '%s'",
			c->ingest_socket_mode);
	c->ingest_mode = (uint32_t)mode;
	if (c->ingest_socket[0] != '/')
		return fail(ps, err, "ingest", "socket",
			"expected an absolute path, got '%s'", c->ingest_socket);
	if (strlen(c->ingest_socket) >= 108)
		return fail(ps, err, "ingest", "socket",
			"longer than a Unix socket path may be (107 bytes)");
	return 0;
}

int
srv_config_check(const struct srv_parse_state *ps, struct dt_app_error *err)
{
	const struct srv_config *c = ps->cfg;
	bool has_stack = ps->section_line[SEC_STACK] != 0;
	int rc;

	if (!has_stack && !c->has_client)
		return dt_app_error_set(err, -EINVAL, "%s: no [stack] section (the "
			"server's address and listen ports) nor [client] section (a "
			"sender's)", c->path);
	if (has_stack) {
		rc = check_stack(ps, err);
		if (rc != 0)
			return rc;
	}
	if (c->has_client) {
		rc = check_client(ps, err);
		if (rc != 0)
			return rc;
	}
	rc = check_steering(ps, err);
	if (rc != 0)
		return rc;
	rc = check_consumer(ps, err);
	if (rc != 0)
		return rc;
	return check_ingest(ps, err);
}
