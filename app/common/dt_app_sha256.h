/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * SHA-256 (FIPS 180-4), incremental, pure C: the per-stream digest of
 * devtcp-server's verify consumer and devtcp-send's report.
 */
#ifndef DT_APP_SHA256_H
#define DT_APP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DT_APP_SHA256_LEN 32

struct dt_app_sha256 {
	uint32_t h[8];
	uint64_t len;          /**< bytes hashed */
	uint8_t buf[64];
	uint32_t fill;         /**< bytes in buf */
};

void dt_app_sha256_init(struct dt_app_sha256 *s);
void dt_app_sha256_update(struct dt_app_sha256 *s, const void *data, size_t len);
void dt_app_sha256_final(struct dt_app_sha256 *s, uint8_t out[DT_APP_SHA256_LEN]);

/** Hex of a digest into @p hex (65 bytes). */
void dt_app_sha256_hex(const uint8_t d[DT_APP_SHA256_LEN], char hex[65]);

#ifdef __cplusplus
}
#endif

#endif /* DT_APP_SHA256_H */
