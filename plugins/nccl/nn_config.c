/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's configuration file: a table of keys per section and the
 * typed parsers of app/common, as devtcp-server's srv_config.c does.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "dt_app_ini.h"
#include "dt_app_value.h"
#include "nn_config.h"

enum nn_key_type { NK_UINT, NK_SIZE, NK_BOOL, NK_IPV4, NK_STR, NK_ENUM, NK_LIST };

struct nn_key {
	const char *section;
	const char *name;
	enum nn_key_type type;
	size_t off;
	uint16_t width;              /* NK_UINT/NK_SIZE: 2 or 4; NK_STR: size */
	uint64_t min, max;
	const char *const *names;    /* NK_ENUM */
};

static const char *const ptr_names[] = {"auto", "host", "cuda", NULL};
static const char *const send_engine_names[] = {"shared", "per_buffer", NULL};
static const char *const unpack_names[] = {"no", "yes", "harness", "auto", NULL};

#define K(s, n, t, f, w, lo, hi, nm) \
	{ s, n, t, offsetof(struct nn_config, f), w, lo, hi, nm }
static const struct nn_key nn_keys[] = {
	K("eal", "args", NK_STR, eal, NN_EAL_MAX, 0, 0, NULL),
	K("port", "name", NK_STR, port_name, NN_NAME_MAX, 0, 0, NULL),
	K("port", "mtu", NK_UINT, mtu, 2, 576, 9000, NULL),
	K("port", "rxd", NK_UINT, rxd, 2, 32, 32768, NULL),
	K("port", "txd", NK_UINT, txd, 2, 32, 32768, NULL),
	K("port", "tx_cksum", NK_BOOL, tx_cksum, 0, 0, 0, NULL),
	K("port", "lro", NK_BOOL, lro, 0, 0, 0, NULL),
	K("lcores", "stacks", NK_LIST, lcores, 0, 0, 1023, NULL),
	K("stack", "ipv4", NK_IPV4, ipv4, 0, 0, 0, NULL),
	K("stack", "netmask", NK_IPV4, netmask, 0, 0, 0, NULL),
	K("stack", "gateway", NK_IPV4, gateway, 0, 0, 0, NULL),
	K("devmem", "gpu", NK_STR, gpu, NN_NAME_MAX, 0, 0, NULL),
	K("devmem", "buffers", NK_UINT, buffers, 4, 64, 1u << 24, NULL),
	K("devmem", "buffer_size", NK_SIZE, buffer_size, 4, 256, 65535, NULL),
	K("devmem", "header_buffers", NK_UINT, header_buffers, 4, 64, 1u << 24, NULL),
	K("limits", "window", NK_SIZE, window, 4, 4096, 1u << 30, NULL),
	K("limits", "max_conns", NK_UINT, max_conns, 4, 8, 1u << 20, NULL),
	K("limits", "txq_cap", NK_UINT, txq_cap, 4, 8, NN_FLOW_TXQ_CAP, NULL),
	K("limits", "retries", NK_UINT, retries, 4, 1, 255, NULL),
	K("limits", "rto_max", NK_UINT, rto_max_ms, 4, 10, 120000, NULL),
	K("limits", "keepalive", NK_BOOL, keepalive, 0, 0, 0, NULL),
	K("limits", "keepalive_idle", NK_UINT, keepalive_idle_ms, 4, 100, 86400000, NULL),
	K("limits", "keepalive_intvl", NK_UINT, keepalive_intvl_ms, 4, 100, 86400000, NULL),
	K("limits", "keepalive_probes", NK_UINT, keepalive_probes, 4, 1, 255, NULL),
	K("nccl", "flows", NK_UINT, flows, 2, 1, 16, NULL),
	/* Listeners take ports port_base .. port_base + 8191 (nn_listen()). */
	K("nccl", "port_base", NK_UINT, port_base, 2, 1024, 65536 - 8192, NULL),
	K("nccl", "speed", NK_UINT, speed, 4, 0, 10000000, NULL),
	K("nccl", "ptr", NK_ENUM, ptr, 0, 0, 0, ptr_names),
	K("nccl", "send_engine", NK_ENUM, send_engine, 0, 0, 0, send_engine_names),
	K("nccl", "cuda_batch", NK_BOOL, cuda_batch, 0, 0, 0, NULL),
	K("nccl", "unpack", NK_ENUM, unpack, 0, 0, 0, unpack_names),
	K("nccl", "connect_timeout", NK_UINT, connect_timeout_ms, 4, 100, 3600000, NULL),
	K("nccl", "stall_report", NK_UINT, stall_report_ms, 4, 0, 3600000, NULL),
	K("nccl", "profile", NK_BOOL, profile, 0, 0, 0, NULL),
	K("nccl", "rail", NK_UINT, rail, 2, 0, 32767, NULL),
	K("nccl", "plane", NK_UINT, plane, 2, 0, 32767, NULL),
	K("nccl", "pci_path", NK_STR, pci_path, 256, 0, 0, NULL),
};

void
nn_config_default(struct nn_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->port_name, sizeof(cfg->port_name), "net_hsplit0");
	cfg->mtu = 1500;
	cfg->rxd = 1024;
	cfg->txd = 1024;
	cfg->tx_cksum = true;
	cfg->netmask = 0x00ffffff;      /* 255.255.255.0, network order */
	snprintf(cfg->gpu, sizeof(cfg->gpu), "auto");
	cfg->buffers = 32768;
	cfg->buffer_size = 2048;
	cfg->header_buffers = 32768;
	cfg->window = 2u << 20;
	cfg->max_conns = 1024;
	cfg->txq_cap = 512;
	cfg->retries = 15;
	cfg->rto_max_ms = 60000;
	/*
	 * A peer that dies silently (a rank killed, a host gone) must fail
	 * the comms that only receive from it too, in seconds, not hang NCCL:
	 * 10 s idle, then 5 probes 2 s apart (lib/tcp's own default is
	 * Linux's two hours).
	 */
	cfg->keepalive = true;
	cfg->keepalive_idle_ms = 10000;
	cfg->keepalive_intvl_ms = 2000;
	cfg->keepalive_probes = 5;
	cfg->flows = 4;                 /* as GPUDirect-TCPX's NSOCKS */
	cfg->port_base = 47000;
	cfg->ptr = NN_PTR_MODE_AUTO;
	cfg->cuda_batch = false;
	cfg->connect_timeout_ms = 30000;
	cfg->stall_report_ms = 10000;
	cfg->unpack = NN_UNPACK_AUTO;
	cfg->rail = NN_CFG_ID_UNSET;
	cfg->plane = NN_CFG_ID_UNSET;
	snprintf(cfg->pci_path, sizeof(cfg->pci_path), "auto");
}

static void
store(void *p, uint16_t width, uint64_t v)
{
	if (width == 2)
		*(uint16_t *)p = v;
	else
		*(uint32_t *)p = v;
}

/* "a, b or c" from a key's value names, into @p buf. */
static const char *
enum_expect(const char *const *names, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; names[i] != NULL && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
			i == 0 ? "" : names[i + 1] == NULL ? " or " : ", ", names[i]);
	return buf;
}

static int
set_key(struct nn_config *cfg, const struct nn_key *k, const char *val,
	const char **expect, char *buf, size_t buflen)
{
	char *p = (char *)cfg + k->off;
	uint64_t v;
	bool b;
	int rc;

	switch (k->type) {
	case NK_UINT:
		rc = dt_app_parse_uint(val, k->min, k->max, &v, buf, buflen, expect);
		if (rc == 0)
			store(p, k->width, v);
		return rc;
	case NK_SIZE:
		rc = dt_app_parse_size(val, k->min, k->max, &v, buf, buflen, expect);
		if (rc == 0)
			store(p, k->width, v);
		return rc;
	case NK_BOOL:
		rc = dt_app_parse_bool(val, &b, expect);
		if (rc == 0)
			*(bool *)p = b;
		return rc;
	case NK_IPV4:
		return dt_app_parse_ipv4(val, (uint32_t *)p, expect);
	case NK_STR:
		if (strlen(val) >= k->width) {
			*expect = "a shorter value";
			return -EINVAL;
		}
		snprintf(p, k->width, "%s", val);
		return 0;
	case NK_ENUM:
		rc = dt_app_parse_enum(val, k->names);
		if (rc < 0) {
			*expect = enum_expect(k->names, buf, buflen);
			return rc;
		}
		/* Every enum key's field is an enum (int-sized). */
		*(int *)p = rc;
		return 0;
	case NK_LIST:
		return dt_app_parse_u16_list(val, k->min, k->max, cfg->lcores,
			NN_MAX_STACKS, &cfg->nb_stacks, buf, buflen, expect);
	}
	return -EINVAL;
}

static int
on_key(void *arg, const char *section, const char *key, const char *value,
	unsigned int line, char *err, size_t errlen)
{
	struct nn_config *cfg = arg;
	const char *expect = "";
	char buf[96];
	size_t i;
	int rc;

	if (key == NULL)
		return 0;
	for (i = 0; i < sizeof(nn_keys) / sizeof(nn_keys[0]); i++) {
		const struct nn_key *k = &nn_keys[i];

		if (strcmp(k->section, section) != 0 || strcmp(k->name, key) != 0)
			continue;
		rc = set_key(cfg, k, value, &expect, buf, sizeof(buf));
		if (rc != 0)
			snprintf(err, errlen, "%s:%u: [%s] %s: expected %s, got '%s'",
				cfg->path, line, section, key, expect, value);
		return rc;
	}
	snprintf(err, errlen, "%s:%u: [%s] %s: unknown key", cfg->path, line,
		section, key);
	return -EINVAL;
}

int
nn_config_load(const char *path, struct nn_config *cfg, char *err,
	size_t errlen)
{
	nn_config_default(cfg);
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	return dt_app_ini_parse(path, on_key, cfg, err, errlen);
}
