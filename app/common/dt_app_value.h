/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Typed values of configuration keys and command-line options (pure C).
 * Each parser returns 0, or -EINVAL and points @p expect at a phrase that
 * completes "expected ..." in an error message.
 */
#ifndef DT_APP_VALUE_H
#define DT_APP_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Unsigned decimal (or 0x hex) integer in [min, max]. @p expect is written
 * into @p buf ("a positive integer", "an integer in [68, 9000]").
 */
int dt_app_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v,
	char *buf, size_t buflen, const char **expect);

/** Byte count with an optional K, M or G suffix (powers of 1024), in [min, max]. */
int dt_app_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v,
	char *buf, size_t buflen, const char **expect);

/** yes/no, true/false, on/off, 1/0. */
int dt_app_parse_bool(const char *s, bool *v, const char **expect);

/** Dotted IPv4 address into network order. */
int dt_app_parse_ipv4(const char *s, uint32_t *be, const char **expect);

/** "IP:PORT" into a network-order address and a host-order port (1..65535). */
int dt_app_parse_ipv4_port(const char *s, uint32_t *be, uint16_t *port,
	const char **expect);

/**
 * Comma-separated list of integers and ranges ("1,3-5") in [min, max],
 * at most @p cap entries.
 */
int dt_app_parse_u16_list(const char *s, uint16_t min, uint16_t max,
	uint16_t *out, uint16_t cap, uint16_t *n, char *buf, size_t buflen,
	const char **expect);

/** Index of @p s in the NULL-terminated @p names, or -EINVAL. */
int dt_app_parse_enum(const char *s, const char *const *names);

/** Format a network-order IPv4 address. */
const char *dt_app_ipv4_str(uint32_t be, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DT_APP_VALUE_H */
