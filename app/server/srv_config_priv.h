/* SPDX-License-Identifier: BSD-3-Clause */
/* Parsing state of the configuration file, shared by the parser and the checks. */
#ifndef SRV_CONFIG_PRIV_H
#define SRV_CONFIG_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "srv_config.h"

/* Kinds of section. */
enum srv_sec_kind {
	SEC_NONE, SEC_PORT, SEC_LCORES, SEC_STACK, SEC_DEVMEM, SEC_STEERING,
	SEC_LIMITS, SEC_CONSUMER, SEC_CLIENT, SEC_INGEST,
};

/* Where each key was set, for checks across keys and duplicate keys. */
#define SRV_SEEN_MAX 256
struct srv_seen_key {
	char section[32];
	char key[32];
	unsigned int line;
};

/* Parsing state. */
struct srv_parse_state {
	struct srv_config *cfg;
	struct srv_port_cfg port_default;
	uint32_t port_set[SRV_MAX_PORTS]; /* keys set in [port.N], by index */
	uint32_t default_set;             /* keys set in [port] */
	enum srv_sec_kind kind;
	int port_idx;                     /* [port.N]: N; [port]: -1 */
	unsigned int section_line[SEC_INGEST + 1];
	struct srv_seen_key seen[SRV_SEEN_MAX];
	unsigned int nb_seen;
};

/** Line where [section] key was set, 0 when it was not. */
unsigned int srv_config_line_of(const struct srv_parse_state *ps,
	const char *section, const char *key);

/**
 * Checks across keys once the file is read (srv_config_check.c).
 * @return 0, or -EINVAL with the message in @p err.
 */
struct dt_app_error;
int srv_config_check(const struct srv_parse_state *ps,
	struct dt_app_error *err);

#endif /* SRV_CONFIG_PRIV_H */
