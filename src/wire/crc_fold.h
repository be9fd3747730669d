/* SPDX-License-Identifier: MIT */
/* CRC-32 by 256-bit carry-less multiplication folding (internal). */
#ifndef ROCE_WIRE_CRC_FOLD_H
#define ROCE_WIRE_CRC_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Below this length crc_fold() hands the bytes to ISA-L. */
#define CRC_FOLD_MIN 256

/* True when this CPU has AVX2, PCLMULQDQ and VPCLMULQDQ. */
bool crc_fold_supported(void);

/* zlib-style CRC-32 of src[0..len); when dst is not NULL the bytes are
 * also copied there in the same pass. Only call when supported. */
uint32_t crc_fold(uint32_t crc, void *dst, const void *src, size_t len);

/* The folding constants of a distance of d bits (exported for tests):
 * lo multiplies the low 64 bits of a lane, hi the high 64 bits. */
void crc_fold_constants(unsigned d, uint64_t *lo, uint64_t *hi);

#endif
