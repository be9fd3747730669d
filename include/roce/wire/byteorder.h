/* SPDX-License-Identifier: MIT */
/*
 * Big-endian field access. Wire structs are arrays of bytes (alignment 1,
 * no padding, no bit-fields); these helpers are the only place byte order is
 * converted.
 */
#ifndef ROCE_WIRE_BYTEORDER_H
#define ROCE_WIRE_BYTEORDER_H

#include <stdint.h>

static inline uint16_t roce_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t roce_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t roce_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t roce_get_be64(const uint8_t *p)
{
	return (uint64_t)roce_get_be32(p) << 32 | roce_get_be32(p + 4);
}

static inline void roce_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void roce_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void roce_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void roce_put_be64(uint8_t *p, uint64_t v)
{
	roce_put_be32(p, (uint32_t)(v >> 32));
	roce_put_be32(p + 4, (uint32_t)v);
}

/* The one little-endian field: the ICRC. */
static inline void roce_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

#endif
