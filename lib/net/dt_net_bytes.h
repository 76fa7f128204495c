/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Explicit network-byte-order loads and stores on byte buffers.
 *
 * Wire formats are read and written byte by byte, never through casts of
 * packed structs, so the code is independent of host byte order and of the
 * buffer's alignment.
 */
#ifndef DT_NET_BYTES_H
#define DT_NET_BYTES_H

#include <stdint.h>

/** Load a big-endian 16-bit value. */
static inline uint16_t
dt_net_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

/** Load a big-endian 32-bit value. */
static inline uint32_t
dt_net_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

/** Store a 16-bit value big-endian. */
static inline void
dt_net_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/** Store a 32-bit value big-endian. */
static inline void
dt_net_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif /* DT_NET_BYTES_H */
