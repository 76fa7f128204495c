/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-server's configuration file (see srv_config.h): a table of keys per
 * section, typed value parsers, then checks across keys.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_app_ini.h"
#include "dt_app_value.h"
#include "srv_config.h"
#include "dt_app_error.h"
#include "srv_config_priv.h"

/* Kinds of value. */
enum key_type {
	KT_UINT,      /* integer in [min, max], stored in 'width' bytes */
	KT_SIZE,      /* byte count with suffix, in [min, max] */
	KT_BOOL,
	KT_IPV4,
	KT_STR,       /* copied into a char[SRV_NAME_MAX] or [SRV_PATH_MAX] */
	KT_ENUM,      /* index into 'names', stored as int-sized enum */
	KT_ENUM_BOOL, /* two names; the second sets a bool */
	KT_U16LIST,   /* list into uint16_t[max_n]; count at 'off2' */
	KT_RULES,     /* TCPPORT:QUEUE list */
	KT_CONNECT,   /* IP:PORT of the client */
};

struct key_desc {
	const char *name;
	enum key_type type;
	size_t off;           /* in the section's base structure */
	uint16_t width;       /* KT_UINT/KT_SIZE: 2, 4 or 8; KT_STR: buffer size */
	uint64_t min, max;
	const char *const *names; /* KT_ENUM */
	size_t off2;          /* KT_U16LIST: count */
	uint16_t max_n;       /* KT_U16LIST */
};

static const char *const split_names[] = {"proto", "len", "none", NULL};
static const char *const consumer_names[] = {"discard", "verify", "ring",
	"iperf3", "ingest", NULL};
static const char *const ingest_exit_names[] = {"reset", "reoffer", NULL};
static const char *const no_client_names[] = {"hold", "reset", NULL};
static const char *const steering_names[] = {"rss", "flow", NULL};
static const char *const pattern_names[] = {"none", "stream", NULL};

#define PORT_KEY(n, t, f, w, lo, hi, nm) \
	{ n, t, offsetof(struct srv_port_cfg, f), w, lo, hi, nm, 0, 0 }
static const struct key_desc port_keys[] = {
	PORT_KEY("name", KT_STR, name, SRV_NAME_MAX, 0, 0, NULL),
	PORT_KEY("rxd", KT_UINT, rxd, 2, 32, 32768, NULL),
	PORT_KEY("txd", KT_UINT, txd, 2, 32, 32768, NULL),
	PORT_KEY("mtu", KT_UINT, mtu, 2, 68, 9000, NULL),
	PORT_KEY("split", KT_ENUM, split, 0, 0, 0, split_names),
	PORT_KEY("split_len", KT_UINT, split_len, 2, 14, 1024, NULL),
	PORT_KEY("tx_cksum", KT_BOOL, tx_cksum, 0, 0, 0, NULL),
	PORT_KEY("tso", KT_BOOL, tso, 0, 0, 0, NULL),
	PORT_KEY("copy", KT_BOOL, copy, 0, 0, 0, NULL),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

#define CFG_KEY(n, t, f, w, lo, hi, nm) \
	{ n, t, offsetof(struct srv_config, f), w, lo, hi, nm, 0, 0 }
/*
 * stacks is a count (one value) and stack_lcores a list of lcore ids; both
 * are read as a list here and told apart by resolve_lcores().
 */
#define LCORES_KEY(n) \
	{ n, KT_U16LIST, offsetof(struct srv_config, stack_lcores), 0, 0, 1023, \
		NULL, offsetof(struct srv_config, nb_stacks), SRV_MAX_STACKS }
static const struct key_desc lcores_keys[] = {
	LCORES_KEY("stacks"),
	LCORES_KEY("stack_lcores"),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

#define STK_KEY(n, t, f, w, lo, hi) \
	{ n, t, offsetof(struct srv_stack_cfg, f), w, lo, hi, NULL, 0, 0 }
#define STACK_COMMON_KEYS \
	STK_KEY("port", KT_UINT, port, 2, 0, SRV_MAX_PORTS - 1), \
	STK_KEY("ipv4", KT_IPV4, ipv4, 0, 0, 0), \
	STK_KEY("netmask", KT_IPV4, netmask, 0, 0, 0), \
	STK_KEY("gateway", KT_IPV4, gateway, 0, 0, 0)
static const struct key_desc stack_keys[] = {
	STACK_COMMON_KEYS,
	{ "listen", KT_U16LIST, offsetof(struct srv_stack_cfg, listen), 0,
		1, 65535, NULL, offsetof(struct srv_stack_cfg, nb_listen),
		SRV_MAX_LISTEN },
	STK_KEY("backlog", KT_UINT, backlog, 2, 1, 4096),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

static const struct key_desc devmem_keys[] = {
	CFG_KEY("gpu", KT_STR, gpu, SRV_NAME_MAX, 0, 0, NULL),
	CFG_KEY("buffers", KT_UINT, buffers, 4, 1, UINT32_MAX, NULL),
	CFG_KEY("buffer_size", KT_SIZE, buffer_size, 4, 256, 65535, NULL),
	CFG_KEY("header_buffers", KT_UINT, header_buffers, 4, 1, UINT32_MAX, NULL),
	CFG_KEY("cache", KT_UINT, cache, 4, 0, 512, NULL),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

static const struct key_desc steering_keys[] = {
	CFG_KEY("mode", KT_ENUM_BOOL, steer_flow, 0, 0, 0, steering_names),
	CFG_KEY("rules", KT_RULES, rules, 0, 0, 0, NULL),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

static const struct key_desc limits_keys[] = {
	CFG_KEY("max_conns", KT_UINT, max_conns, 4, 1, 1u << 20, NULL),
	CFG_KEY("window", KT_SIZE, window, 4, 1024, 1u << 30, NULL),
	CFG_KEY("txq_cap", KT_UINT, txq_cap, 4, 1, 65535, NULL),
	CFG_KEY("keepalive", KT_BOOL, keepalive, 0, 0, 0, NULL),
	CFG_KEY("keepalive_idle", KT_UINT, keepalive_idle_ms, 4, 100, 86400000, NULL),
	CFG_KEY("keepalive_intvl", KT_UINT, keepalive_intvl_ms, 4, 100, 86400000, NULL),
	CFG_KEY("keepalive_probes", KT_UINT, keepalive_probes, 4, 1, 255, NULL),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

static const struct key_desc consumer_keys[] = {
	CFG_KEY("mode", KT_ENUM, consumer, 0, 0, 0, consumer_names),
	CFG_KEY("pattern", KT_ENUM_BOOL, verify_pattern, 0, 0, 0, pattern_names),
	CFG_KEY("sha256", KT_BOOL, verify_sha256, 0, 0, 0, NULL),
	CFG_KEY("ring_size", KT_UINT, ring_size, 4, 2, 1u << 24, NULL),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

#define IDS_KEY(n, f) \
	{ n, KT_U16LIST, offsetof(struct srv_config, f), 0, 0, 65535, NULL, \
		offsetof(struct srv_config, nb_ ## f), SRV_INGEST_MAX_IDS }
static const struct key_desc ingest_keys[] = {
	CFG_KEY("socket", KT_STR, ingest_socket, SRV_PATH_MAX, 0, 0, NULL),
	CFG_KEY("socket_mode", KT_STR, ingest_socket_mode, 8, 0, 0, NULL),
	IDS_KEY("allow_uids", ingest_uids),
	IDS_KEY("allow_gids", ingest_gids),
	CFG_KEY("max_clients", KT_UINT, ingest_max_clients, 4, 1, 64, NULL),
	CFG_KEY("quota", KT_UINT, ingest_quota, 4, 16, 32768, NULL),
	CFG_KEY("on_client_exit", KT_ENUM, ingest_on_exit, 0, 0, 0, ingest_exit_names),
	CFG_KEY("no_client", KT_ENUM_BOOL, ingest_no_client_reset, 0, 0, 0, no_client_names),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

/* [client]: the stack keys (base srv_stack_cfg) then the others (base srv_config). */
static const struct key_desc client_stack_keys[] = {
	STACK_COMMON_KEYS,
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};
static const struct key_desc client_keys[] = {
	CFG_KEY("connect", KT_CONNECT, client_raddr, 0, 0, 0, NULL),
	CFG_KEY("conns", KT_UINT, client_conns, 2, 1, 1024, NULL),
	CFG_KEY("bytes", KT_SIZE, client_bytes, 8, 1, UINT64_MAX / 2, NULL),
	CFG_KEY("file", KT_STR, client_file, SRV_PATH_MAX, 0, 0, NULL),
	CFG_KEY("chunk", KT_SIZE, client_chunk, 4, 64, 1u << 20, NULL),
	{ NULL, 0, 0, 0, 0, 0, NULL, 0, 0 },
};

unsigned int
srv_config_line_of(const struct srv_parse_state *ps, const char *section, const char *key)
{
	unsigned int i;

	for (i = 0; i < ps->nb_seen; i++)
		if (strcmp(ps->seen[i].section, section) == 0 &&
				strcmp(ps->seen[i].key, key) == 0)
			return ps->seen[i].line;
	return 0;
}

static int
note_key(struct srv_parse_state *ps, const char *section, const char *key,
	unsigned int line, char *err, size_t errlen)
{
	unsigned int first = srv_config_line_of(ps, section, key);

	if (first != 0) {
		snprintf(err, errlen, "%s:%u: [%s] %s: duplicate key (first set at line %u)",
			ps->cfg->path, line, section, key, first);
		return -EINVAL;
	}
	if (ps->nb_seen < SRV_SEEN_MAX) {
		struct srv_seen_key *s = &ps->seen[ps->nb_seen++];

		snprintf(s->section, sizeof(s->section), "%s", section);
		snprintf(s->key, sizeof(s->key), "%s", key);
		s->line = line;
	}
	return 0;
}

static void
store_uint(void *p, uint16_t width, uint64_t v)
{
	switch (width) {
	case 2:
		*(uint16_t *)p = v;
		break;
	case 4:
		*(uint32_t *)p = v;
		break;
	default:
		*(uint64_t *)p = v;
		break;
	}
}

/* rules = TCPPORT:QUEUE, ... */
static int
parse_rules(struct srv_config *cfg, const char *val, const char **expect)
{
	char tmp[DT_APP_INI_LINE_MAX], *save = NULL, *tok, *end;
	unsigned long port, queue;

	*expect = "a list of TCPPORT:QUEUE (e.g. 5001:0, 5002:1)";
	snprintf(tmp, sizeof(tmp), "%s", val);
	cfg->nb_rules = 0;
	for (tok = strtok_r(tmp, ", ", &save); tok != NULL;
			tok = strtok_r(NULL, ", ", &save)) {
		port = strtoul(tok, &end, 10);
		if (end == tok || *end != ':' || port == 0 || port > 65535)
			return -EINVAL;
		tok = end + 1;
		queue = strtoul(tok, &end, 10);
		if (end == tok || *end != '\0' || queue >= SRV_MAX_STACKS ||
				cfg->nb_rules >= SRV_MAX_RULES)
			return -EINVAL;
		cfg->rules[cfg->nb_rules].tcp_port = port;
		cfg->rules[cfg->nb_rules].queue = queue;
		cfg->nb_rules++;
	}
	return cfg->nb_rules == 0 ? -EINVAL : 0;
}

/* Parse @p val as @p kd into @p base + kd->off; *expect says what was wanted. */
static int
set_value(struct srv_config *cfg, const struct key_desc *kd, void *base,
	const char *val, char *ebuf, size_t ebuflen, const char **expect)
{
	void *p = (char *)base + kd->off;
	uint64_t v;
	bool b;
	int rc;

	switch (kd->type) {
	case KT_UINT:
		rc = dt_app_parse_uint(val, kd->min, kd->max, &v, ebuf, ebuflen, expect);
		if (rc == 0)
			store_uint(p, kd->width, v);
		return rc;
	case KT_SIZE:
		rc = dt_app_parse_size(val, kd->min, kd->max, &v, ebuf, ebuflen, expect);
		if (rc == 0)
			store_uint(p, kd->width, v);
		return rc;
	case KT_BOOL:
		rc = dt_app_parse_bool(val, &b, expect);
		if (rc == 0)
			*(bool *)p = b;
		return rc;
	case KT_IPV4:
		return dt_app_parse_ipv4(val, (uint32_t *)p, expect);
	case KT_STR:
		*expect = "a shorter, non-empty value";
		if (*val == '\0' || strlen(val) >= kd->width)
			return -EINVAL;
		memcpy(p, val, strlen(val) + 1);
		return 0;
	case KT_ENUM:
	case KT_ENUM_BOOL: {
		char names[128];
		int i;

		rc = dt_app_parse_enum(val, kd->names);
		if (rc < 0) {
			names[0] = '\0';
			for (i = 0; kd->names[i] != NULL; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					"%s%s", i == 0 ? "" : kd->names[i + 1] == NULL ?
					" or " : ", ", kd->names[i]);
			snprintf(ebuf, ebuflen, "one of %s", names);
			*expect = ebuf;
			return -EINVAL;
		}
		if (kd->type == KT_ENUM_BOOL)
			*(bool *)p = rc != 0;
		else
			*(int *)p = rc;
		return 0;
	}
	case KT_U16LIST:
		return dt_app_parse_u16_list(val, kd->min, kd->max, (uint16_t *)p,
			kd->max_n, (uint16_t *)((char *)base + kd->off2), ebuf,
			ebuflen, expect);
	case KT_RULES:
		return parse_rules(cfg, val, expect);
	case KT_CONNECT:
		return dt_app_parse_ipv4_port(val, &cfg->client_raddr,
			&cfg->client_rport, expect);
	}
	return -EINVAL;
}

static const struct key_desc *
find_key(const struct key_desc *tab, const char *key)
{
	for (; tab != NULL && tab->name != NULL; tab++)
		if (strcmp(tab->name, key) == 0)
			return tab;
	return NULL;
}

static int
enter_section(struct srv_parse_state *ps, const char *section, unsigned int line,
	char *err, size_t errlen)
{
	static const struct { const char *name; enum srv_sec_kind kind; } secs[] = {
		{"port", SEC_PORT}, {"lcores", SEC_LCORES}, {"stack", SEC_STACK},
		{"devmem", SEC_DEVMEM}, {"steering", SEC_STEERING},
		{"limits", SEC_LIMITS}, {"consumer", SEC_CONSUMER},
		{"client", SEC_CLIENT}, {"ingest", SEC_INGEST},
	};
	unsigned int i;
	char *end;
	long n;

	ps->port_idx = -1;
	if (strncmp(section, "port.", 5) == 0) {
		n = strtol(section + 5, &end, 10);
		if (end == section + 5 || *end != '\0' || n < 0 || n >= SRV_MAX_PORTS) {
			snprintf(err, errlen, "%s:%u: [%s]: port number must be in [0, %d]",
				ps->cfg->path, line, section, SRV_MAX_PORTS - 1);
			return -EINVAL;
		}
		ps->kind = SEC_PORT;
		ps->port_idx = n;
		ps->cfg->port[n].defined = true;
		return 0;
	}
	for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		if (strcmp(section, secs[i].name) == 0) {
			ps->kind = secs[i].kind;
			ps->section_line[ps->kind] = line;
			if (ps->kind == SEC_CLIENT)
				ps->cfg->has_client = true;
			return 0;
		}
	}
	snprintf(err, errlen, "%s:%u: unknown section [%s] (known: port, port.N, "
		"lcores, stack, devmem, steering, limits, consumer, client, ingest)",
		ps->cfg->path, line, section);
	return -EINVAL;
}

/* Table and base structure of a key in the current section. */
static const struct key_desc *
lookup(struct srv_parse_state *ps, const char *key, void **base)
{
	struct srv_config *cfg = ps->cfg;
	const struct key_desc *kd;

	*base = cfg;
	switch (ps->kind) {
	case SEC_PORT:
		*base = ps->port_idx < 0 ? &ps->port_default : &cfg->port[ps->port_idx];
		return find_key(port_keys, key);
	case SEC_LCORES:
		return find_key(lcores_keys, key);
	case SEC_STACK:
		*base = &cfg->stack;
		return find_key(stack_keys, key);
	case SEC_DEVMEM:
		return find_key(devmem_keys, key);
	case SEC_STEERING:
		return find_key(steering_keys, key);
	case SEC_LIMITS:
		return find_key(limits_keys, key);
	case SEC_CONSUMER:
		return find_key(consumer_keys, key);
	case SEC_INGEST:
		return find_key(ingest_keys, key);
	case SEC_CLIENT:
		kd = find_key(client_stack_keys, key);
		if (kd != NULL) {
			*base = &cfg->client;
			return kd;
		}
		return find_key(client_keys, key);
	case SEC_NONE:
		break;
	}
	return NULL;
}

static int
on_item(void *arg, const char *section, const char *key, const char *value,
	unsigned int line, char *err, size_t errlen)
{
	struct srv_parse_state *ps = arg;
	const struct key_desc *kd;
	const char *expect = "";
	char ebuf[128];
	void *base;
	int rc;

	if (key == NULL)
		return enter_section(ps, section, line, err, errlen);
	if (ps->kind == SEC_NONE) {
		snprintf(err, errlen, "%s:%u: key '%s' outside of any section",
			ps->cfg->path, line, key);
		return -EINVAL;
	}
	kd = lookup(ps, key, &base);
	if (kd == NULL) {
		snprintf(err, errlen, "%s:%u: [%s] unknown key '%s'",
			ps->cfg->path, line, section, key);
		return -EINVAL;
	}
	rc = note_key(ps, section, key, line, err, errlen);
	if (rc != 0)
		return rc;
	if (set_value(ps->cfg, kd, base, value, ebuf, sizeof(ebuf), &expect) != 0) {
		snprintf(err, errlen, "%s:%u: [%s] %s: expected %s, got '%s'",
			ps->cfg->path, line, section, key, expect, value);
		return -EINVAL;
	}
	if (ps->kind == SEC_PORT) {
		uint32_t bit = 1u << (kd - port_keys);

		if (ps->port_idx < 0)
			ps->default_set |= bit;
		else
			ps->port_set[ps->port_idx] |= bit;
	}
	return 0;
}

/* [port] values go to every port whose [port.N] did not set the key. */
static void
merge_port_defaults(struct srv_parse_state *ps)
{
	const struct key_desc *kd;
	unsigned int i;

	for (i = 0; i < SRV_MAX_PORTS; i++) {
		struct srv_port_cfg *pc = &ps->cfg->port[i];

		for (kd = port_keys; kd->name != NULL; kd++) {
			uint32_t bit = 1u << (kd - port_keys);
			size_t sz;

			if (!(ps->default_set & bit) || (ps->port_set[i] & bit))
				continue;
			sz = kd->type == KT_STR ? kd->width : kd->type == KT_BOOL || kd->type == KT_ENUM_BOOL ?
				sizeof(bool) : kd->type == KT_ENUM ? sizeof(int) : kd->width;
			memcpy((char *)pc + kd->off,
				(char *)&ps->port_default + kd->off, sz);
		}
	}
}

/* "1,2,3" */
static void
u16_list_str(const uint16_t *v, unsigned int n, char *buf, size_t len)
{
	unsigned int i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%u", i ? "," : "", v[i]);
}

/*
 * [lcores]: stacks = N runs N stacks on the first N worker lcores;
 * stack_lcores = LIST names them. stacks = LIST (several values) was the
 * old spelling of stack_lcores: still read so, with a warning.
 */
static int
resolve_lcores(struct srv_parse_state *ps, char *err, size_t errlen)
{
	struct srv_config *cfg = ps->cfg;
	unsigned int ls = srv_config_line_of(ps, "lcores", "stacks");
	unsigned int ll = srv_config_line_of(ps, "lcores", "stack_lcores");
	char list[64];

	if (ls != 0 && ll != 0) {
		snprintf(err, errlen, "%s:%u: [lcores] stacks: give stacks (how many) "
			"or stack_lcores (which lcores, line %u), not both",
			cfg->path, ls, ll);
		return -EINVAL;
	}
	if (ls == 0)
		return 0;
	if (cfg->nb_stacks > 1) {
		u16_list_str(cfg->stack_lcores, cfg->nb_stacks, list,
			sizeof(list));
		snprintf(cfg->warning, sizeof(cfg->warning), "%s:%u: [lcores] "
			"stacks = %s read as stack_lcores = %s (lcore ids); stacks is "
			"a count: write stack_lcores = %s, or stacks = %u for the "
			"first %u worker lcores", cfg->path, ls, list, list, list,
			cfg->nb_stacks, cfg->nb_stacks);
		return 0;
	}
	if (cfg->stack_lcores[0] == 0 || cfg->stack_lcores[0] > SRV_MAX_STACKS) {
		snprintf(err, errlen, "%s:%u: [lcores] stacks: expected how many "
			"stacks, in [1, %d] (they run on the first worker lcores of -l; "
			"stack_lcores = LIST names the lcores), got %u", cfg->path, ls,
			SRV_MAX_STACKS, cfg->stack_lcores[0]);
		return -EINVAL;
	}
	cfg->nb_stacks = cfg->stack_lcores[0];
	cfg->stack_lcores[0] = 0;
	cfg->stacks_counted = true;
	return 0;
}

void
srv_config_default(struct srv_config *cfg)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < SRV_MAX_PORTS; i++) {
		cfg->port[i].rxd = 1024;
		cfg->port[i].txd = 1024;
		cfg->port[i].mtu = 1500;
		cfg->port[i].split = SRV_SPLIT_PROTO;
		cfg->port[i].split_len = 64;
		cfg->port[i].tx_cksum = true;
		cfg->port[i].tso = true;
	}
	cfg->stack.netmask = htonl(0xffffff00);
	cfg->stack.backlog = 128;
	cfg->client = cfg->stack;
	cfg->client.port = 1;
	snprintf(cfg->gpu, sizeof(cfg->gpu), "0");
	cfg->buffers = 16384;
	cfg->buffer_size = 2048;
	cfg->header_buffers = 16384;
	cfg->cache = 256;
	cfg->max_conns = 1024;
	cfg->window = 1u << 20;
	cfg->txq_cap = 256;
	cfg->consumer = SRV_CONSUMER_DISCARD;
	cfg->verify_pattern = true;
	cfg->ring_size = 4096;
	snprintf(cfg->ingest_socket, sizeof(cfg->ingest_socket),
		"/run/devtcp/ingest.sock");
	snprintf(cfg->ingest_socket_mode, sizeof(cfg->ingest_socket_mode), "0660");
	cfg->ingest_max_clients = 8;
	cfg->ingest_quota = 4096;
	cfg->client_conns = 1;
	cfg->client_chunk = 64 * 1024;
}

int
srv_config_load(const char *path, struct srv_config *cfg, char *err,
	size_t errlen)
{
	struct dt_app_error e = { 0 };
	struct srv_parse_state *ps;
	int rc;

	srv_config_default(cfg);
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	ps = calloc(1, sizeof(*ps));
	if (ps == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	ps->cfg = cfg;
	ps->port_default = cfg->port[0];
	ps->port_idx = -1;
	rc = dt_app_ini_parse(path, on_item, ps, err, errlen);
	if (rc == 0) {
		merge_port_defaults(ps);
		/* iperf3 clients connect to 5201 unless told otherwise. */
		if (cfg->consumer == SRV_CONSUMER_IPERF3 &&
				ps->section_line[SEC_STACK] != 0 &&
				cfg->stack.nb_listen == 0) {
			cfg->stack.listen[0] = SRV_IPERF3_PORT;
			cfg->stack.nb_listen = 1;
		}
		rc = resolve_lcores(ps, err, errlen);
	}
	if (rc == 0) {
		/*
		 * The checks say why in a caller-supplied struct; this API
		 * keeps the INI reader's buffer (nccl-net shares that reader).
		 */
		rc = srv_config_check(ps, &e);
		if (rc != 0)
			snprintf(err, errlen, "%s", e.msg);
	}
	free(ps);
	return rc;
}

const char *
srv_consumer_name(enum srv_consumer_mode m)
{
	return (unsigned int)m <= SRV_CONSUMER_INGEST ? consumer_names[m] : "?";
}

const char *
srv_split_name(enum srv_split s)
{
	return (unsigned int)s < 3 ? split_names[s] : "?";
}
