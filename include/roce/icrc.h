/* SPDX-License-Identifier: MIT */
/*
 * CRC-32 and the RoCE v2 invariant CRC (IBA A17.8, as rxe computes it in
 * drivers/infiniband/sw/rxe/rxe_icrc.c).
 *
 * The ICRC is the standard reflected CRC-32 (zlib's) over
 *   8 bytes of 0xFF (the masked LRH of IB),
 *   the IP header with the variant fields set to ones
 *     (IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label,
 *      hop limit),
 *   the UDP header with its checksum set to ones,
 *   the BTH with its reserved byte 4 (FECN/BECN) set to ones,
 *   then everything after the BTH up to the ICRC (extension headers,
 *   payload, pad),
 * and is stored on the wire little-endian (least significant byte first).
 *
 * roce_crc32() has zlib semantics: crc32(crc32(0, a), b) == crc32(0, a||b),
 * so the data path can checksum a frame in pieces as it copies them.
 */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <stddef.h>
#include <stdint.h>

enum roce_crc_impl {
	ROCE_CRC_REF,           /* portable table-driven reference */
	ROCE_CRC_ISAL_BASE,     /* ISA-L without SIMD (valgrind-safe) */
	ROCE_CRC_ISAL,          /* ISA-L, best SIMD for this CPU */
	ROCE_CRC_FOLD,          /* 256-bit VPCLMULQDQ folding (AVX2 CPUs);
				 * ISA-L where the CPU lacks it */
	ROCE_CRC_IMPL_COUNT
};

/* CRC-32 through the selected implementation. */
uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len);
/* Copy len bytes from src to dst (not overlapping) and return the CRC-32
 * of them continued from crc: one pass over the data with "fold", a
 * memcpy and a CRC otherwise. */
uint32_t roce_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len);
/* The reference implementation, always available. */
uint32_t roce_crc32_ref(uint32_t crc, const void *buf, size_t len);
/* One specific implementation. */
uint32_t roce_crc32_impl(enum roce_crc_impl impl, uint32_t crc,
			 const void *buf, size_t len);

/* Whether this CPU runs the implementation natively ("fold" needs AVX2,
 * PCLMULQDQ and VPCLMULQDQ; the others run everywhere). */
int roce_crc_impl_available(enum roce_crc_impl impl);
/* Choose the implementation: the default is "fold" where available, else
 * "isal"; $ROCE_CRC=ref|base|isal|fold overrides it at start-up.
 * ROCE_E_UNSUPPORTED for "fold" on a CPU without it. */
int roce_crc_select(enum roce_crc_impl impl);
enum roce_crc_impl roce_crc_selected(void);
const char *roce_crc_impl_name(enum roce_crc_impl impl);
/* Parse "ref", "base", "isal", "fold"; returns ROCE_E_INVAL for anything else. */
int roce_crc_impl_parse(const char *s, enum roce_crc_impl *out);

/*
 * ICRC of a RoCE v2 packet. l3 points at the IPv4 or IPv6 header (the
 * version nibble says which; IPv4 must have IHL 5); len counts the bytes
 * from l3 up to, not including, the ICRC. len must cover IP, UDP and BTH.
 * Returns the value as it reads little-endian from the wire.
 */
uint32_t roce_icrc(const uint8_t *l3, size_t len);

/* The running CRC after the masked IP, UDP and BTH headers: continue with
 * roce_crc32(state, bytes after the BTH, n). */
uint32_t roce_icrc_begin(const uint8_t *l3);

/* Bytes from l3 to the end of the BTH (40 for IPv4, 60 for IPv6). */
size_t roce_icrc_hdr_len(const uint8_t *l3);

#endif
