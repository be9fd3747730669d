/* SPDX-License-Identifier: MIT */
/*
 * CRC-32 implementations and the RoCE v2 ICRC (IBA A17.8.1).
 *
 * Four CRC-32 implementations behind one function pointer, chosen once
 * (DPDK's net_crc does the same): 256-bit VPCLMULQDQ folding with an
 * optional copy in the same pass (wire/crc_fold.c, the fast path on AVX2
 * CPUs), ISA-L's crc32_gzip_refl (SIMD), ISA-L's portable base version
 * (for valgrind, which cannot run AVX-512 or VPCLMULQDQ), and a
 * table-driven reference kept here for tests.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stdint.h>
#include <isa-l/crc.h>

#include "roce/icrc.h"
#include "roce/status.h"
#include "roce/wire/bth.h"
#include "roce/wire/ip.h"
#include "roce/wire/udp.h"
#include "wire/crc_fold.h"

/* ---- reference CRC-32 (reflected, polynomial 0xEDB88320) ---------------- */

static uint32_t ref_table[256];

static void ref_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		ref_table[i] = c;
	}
}

uint32_t roce_crc32_ref(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--)
		crc = ref_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

/* ---- dispatch -------------------------------------------------------------- */

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static uint32_t crc_isal(uint32_t crc, const void *buf, size_t len)
{
	return crc32_gzip_refl(crc, buf, (uint64_t)len);
}

static uint32_t crc_isal_base(uint32_t crc, const void *buf, size_t len)
{
	/* ISA-L declares the buffer non-const but only reads it */
	return crc32_gzip_refl_base(crc, (uint8_t *)(uintptr_t)buf, (uint64_t)len);
}

static bool fold_ok;

/* "fold" where the CPU has it, ISA-L where not (so that the table entry
 * is callable everywhere; roce_crc_select() refuses it instead) */
static uint32_t crc_fold_or_isal(uint32_t crc, const void *buf, size_t len)
{
	/* short buffers go to ISA-L anyway: no second hop */
	return fold_ok && len >= CRC_FOLD_MIN ? crc_fold(crc, NULL, buf, len)
					      : crc_isal(crc, buf, len);
}

static const crc_fn crc_impls[ROCE_CRC_IMPL_COUNT] = {
	[ROCE_CRC_REF] = roce_crc32_ref,
	[ROCE_CRC_ISAL_BASE] = crc_isal_base,
	[ROCE_CRC_ISAL] = crc_isal,
	[ROCE_CRC_FOLD] = crc_fold_or_isal,
};

static const char *const crc_names[ROCE_CRC_IMPL_COUNT] = {
	[ROCE_CRC_REF] = "ref",
	[ROCE_CRC_ISAL_BASE] = "base",
	[ROCE_CRC_ISAL] = "isal",
	[ROCE_CRC_FOLD] = "fold",
};

static enum roce_crc_impl crc_selected = ROCE_CRC_ISAL;
static crc_fn crc_current = crc_isal;

__attribute__((constructor)) static void crc_init(void)
{
	const char *env = getenv("ROCE_CRC");
	enum roce_crc_impl impl;

	ref_table_init();
	fold_ok = crc_fold_supported();
	if (fold_ok)
		roce_crc_select(ROCE_CRC_FOLD);
	if (env && roce_crc_impl_parse(env, &impl) == ROCE_OK)
		roce_crc_select(impl);
}

int roce_crc_impl_parse(const char *s, enum roce_crc_impl *out)
{
	for (int i = 0; i < ROCE_CRC_IMPL_COUNT; i++) {
		if (strcasecmp(s, crc_names[i]) == 0) {
			*out = (enum roce_crc_impl)i;
			return ROCE_OK;
		}
	}
	return ROCE_E_INVAL;
}

int roce_crc_impl_available(enum roce_crc_impl impl)
{
	if ((unsigned)impl >= ROCE_CRC_IMPL_COUNT)
		return 0;
	return impl != ROCE_CRC_FOLD || fold_ok;
}

int roce_crc_select(enum roce_crc_impl impl)
{
	if ((unsigned)impl >= ROCE_CRC_IMPL_COUNT)
		return ROCE_E_INVAL;
	if (!roce_crc_impl_available(impl))
		return ROCE_E_UNSUPPORTED;
	crc_selected = impl;
	crc_current = crc_impls[impl];
	return ROCE_OK;
}

enum roce_crc_impl roce_crc_selected(void)
{
	return crc_selected;
}

const char *roce_crc_impl_name(enum roce_crc_impl impl)
{
	return (unsigned)impl < ROCE_CRC_IMPL_COUNT ? crc_names[impl] : "?";
}

uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len)
{
	return crc_current(crc, buf, len);
}

uint32_t roce_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	if (crc_selected == ROCE_CRC_FOLD)
		return crc_fold(crc, dst, src, len);
	memcpy(dst, src, len);
	return crc_current(crc, dst, len);
}

uint32_t roce_crc32_impl(enum roce_crc_impl impl, uint32_t crc,
			 const void *buf, size_t len)
{
	if ((unsigned)impl >= ROCE_CRC_IMPL_COUNT)
		impl = ROCE_CRC_REF;
	return crc_impls[impl](crc, buf, len);
}

/* ---- ICRC (A17.8.1) --------------------------------------------------------- */

size_t roce_icrc_hdr_len(const uint8_t *l3)
{
	size_t ip = (l3[0] >> 4) == 6 ? ROCE_IPV6_HLEN : ROCE_IPV4_HLEN;

	return ip + ROCE_UDP_HLEN + ROCE_BTH_LEN;
}

/* Set the variant fields of the IP, UDP and BTH headers at h (a copy of
 * the frame from l3; ip_len: 20 or 40) to ones, as the ICRC masks them. */
static void icrc_mask(uint8_t *h, size_t ip_len)
{
	struct roce_udp_hdr *udp = (struct roce_udp_hdr *)(h + ip_len);
	struct roce_bth *bth = (struct roce_bth *)(udp + 1);

	if (ip_len == ROCE_IPV6_HLEN) {
		struct roce_ipv6_hdr *ip6 = (struct roce_ipv6_hdr *)h;

		/* traffic class and flow label: all but the version nibble */
		ip6->ver_tc_flow[0] |= 0x0F;
		ip6->ver_tc_flow[1] = ip6->ver_tc_flow[2] =
			ip6->ver_tc_flow[3] = 0xFF;
		ip6->hop_limit = 0xFF;
	} else {
		struct roce_ipv4_hdr *ip4 = (struct roce_ipv4_hdr *)h;

		ip4->tos = 0xFF;
		ip4->ttl = 0xFF;
		ip4->check[0] = ip4->check[1] = 0xFF;
	}
	udp->check[0] = udp->check[1] = 0xFF;
	bth->resv8a = 0xFF;
}

/* The masked fields as OR masks over the headers from l3 (then 16 zero
 * bytes, which crc_fold_masked reads): IPv4's TOS, TTL and checksum,
 * IPv6's traffic class, flow label and hop limit, UDP's checksum, the
 * BTH's reserved byte. */
#define MASK_V4_LEN (ROCE_IPV4_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN)
#define MASK_V6_LEN (ROCE_IPV6_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN)
static uint8_t mask_v4[MASK_V4_LEN + 16], mask_v6[MASK_V6_LEN + 16];
/* the CRC after the masked LRH, 8 x 0xFF */
static uint32_t lrh_crc;

__attribute__((constructor)) static void icrc_init(void)
{
	memset(mask_v4, 0, sizeof(mask_v4));
	memset(mask_v6, 0, sizeof(mask_v6));
	icrc_mask(mask_v4, ROCE_IPV4_HLEN);
	icrc_mask(mask_v6, ROCE_IPV6_HLEN);
	lrh_crc = roce_crc32_ref(0, "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 8);
}

/* The ICRC's CRC of l3[0..len), len covering at least the headers. */
static uint32_t icrc_folded(const uint8_t *l3, size_t len)
{
	if ((l3[0] >> 4) == 6)
		return crc_fold_masked(lrh_crc, l3, len, mask_v6, MASK_V6_LEN);
	return crc_fold_masked(lrh_crc, l3, len, mask_v4, MASK_V4_LEN);
}

uint32_t roce_icrc_begin(const uint8_t *l3)
{
	uint8_t ps[8 + ROCE_IPV6_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN];
	size_t n = roce_icrc_hdr_len(l3);

	if (crc_selected == ROCE_CRC_FOLD)
		return icrc_folded(l3, n);
	/* 8 x 0xFF stands for the masked LRH; then the masked headers */
	memset(ps, 0xFF, 8);
	memcpy(ps + 8, l3, n);
	icrc_mask(ps + 8, n - ROCE_UDP_HLEN - ROCE_BTH_LEN);
	return roce_crc32(0, ps, 8 + n);
}

/* A copy of a few hundred bytes by 16-byte moves: a variable memcpy may
 * become "rep movs", whose start-up costs more than such a copy. */
static inline void copy_short(uint8_t *d, const uint8_t *s, size_t n)
{
	for (; n >= 16; d += 16, s += 16, n -= 16)
		memcpy(d, s, 16);
	for (; n; n--)
		*d++ = *s++;
}

/* Frames up to this long (from l3) are checksummed in one call over a
 * masked copy: a short frame's cost is the calls, not the bytes. */
#define ICRC_ONE_CALL 256

uint32_t roce_icrc(const uint8_t *l3, size_t len)
{
	size_t n = roce_icrc_hdr_len(l3);

	if (len <= ICRC_ONE_CALL && crc_selected == ROCE_CRC_FOLD)
		return icrc_folded(l3, len);
	if (len <= ICRC_ONE_CALL) {
		uint8_t ps[8 + ICRC_ONE_CALL];

		memset(ps, 0xFF, 8);
		copy_short(ps + 8, l3, len);
		icrc_mask(ps + 8, n - ROCE_UDP_HLEN - ROCE_BTH_LEN);
		return roce_crc32(0, ps, 8 + len);
	}
	return roce_crc32(roce_icrc_begin(l3), l3 + n, len - n);
}
