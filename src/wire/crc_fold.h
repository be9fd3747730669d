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

/* zlib-style CRC-32 of the bytes buf[i] | mask[i] for i < mlen, buf[i]
 * after: the ICRC's masked headers without a masked copy. mlen <= 64,
 * and mask[mlen..mlen + 16) are zeros (read, as whole blocks are). For short buffers (a few hundred
 * bytes). Only call when supported. */
uint32_t crc_fold_masked(uint32_t crc, const void *buf, size_t len,
			 const uint8_t *mask, size_t mlen);

/* The folding constants of a distance of d bits (exported for tests):
 * lo multiplies the low 64 bits of a lane, hi the high 64 bits. */
void crc_fold_constants(unsigned d, uint64_t *lo, uint64_t *hi);

#endif
