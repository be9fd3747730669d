/* SPDX-License-Identifier: MIT */
/* CRC-32 implementations agree; ICRC matches a frame captured from rxe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/icrc.h"
#include "roce/status.h"
#include "wire/crc_fold.h"

/* n pseudo-random bytes (an LCG's top byte) from seed; the state after. */
static uint64_t fill_random(uint8_t *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(seed >> 56);
	}
	return seed;
}

static void test_check_value(void **state)
{
	(void)state;
	/* the CRC-32 check value of "123456789" */
	for (int i = 0; i < ROCE_CRC_IMPL_COUNT; i++)
		assert_int_equal(roce_crc32_impl((enum roce_crc_impl)i, 0, "123456789", 9),
				 0xCBF43926u);
	assert_int_equal(roce_crc32_ref(0, "", 0), 0);
}

static void test_impls_agree_on_random_buffers(void **state)
{
	static uint8_t buf[70000];
	uint64_t seed = 0x9E3779B97F4A7C15ull;

	(void)state;
	seed = fill_random(buf, sizeof(buf), seed);
	for (int round = 0; round < 400; round++) {
		size_t len, off;
		uint32_t ref, isal, base;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		/* mostly short lengths, some long ones, and odd offsets */
		len = round % 10 == 0 ? (size_t)(seed >> 40) % 65536 : (size_t)(seed >> 40) % 300;
		off = (size_t)(seed >> 20) % 64;
		ref = roce_crc32_ref(0, buf + off, len);
		isal = roce_crc32_impl(ROCE_CRC_ISAL, 0, buf + off, len);
		base = roce_crc32_impl(ROCE_CRC_ISAL_BASE, 0, buf + off, len);
		assert_int_equal(ref, isal);
		assert_int_equal(ref, base);
		/* chaining: crc(a || b) == crc(crc(a), b) */
		if (len > 1) {
			size_t cut = len / 3;
			uint32_t part = roce_crc32_impl(ROCE_CRC_ISAL, 0, buf + off, cut);

			assert_int_equal(roce_crc32_impl(ROCE_CRC_ISAL, part, buf + off + cut,
							 len - cut), ref);
		}
	}
}

/* The folding constants are x^(d+32) and x^(d-32) mod P, bit-reflected
 * and shifted by one; 512 and 128 bits are the Linux kernel's
 * crc32-pclmul constants (R1/R2, R3/R4), the others are the kernel's
 * literals checked here against the same derivation. */
static void test_fold_constants(void **state)
{
	uint64_t lo, hi;

	(void)state;
	crc_fold_constants(512, &lo, &hi);
	assert_int_equal(lo, 0x154442BD4ull);
	assert_int_equal(hi, 0x1C6E41596ull);
	crc_fold_constants(128, &lo, &hi);
	assert_int_equal(lo, 0x1751997D0ull);
	assert_int_equal(hi, 0x0CCAA009Eull);
	crc_fold_constants(1024, &lo, &hi);
	assert_int_equal(lo, 0x1E88EF372ull);
	assert_int_equal(hi, 0x14A7FE880ull);
	crc_fold_constants(256, &lo, &hi);
	assert_int_equal(lo, 0x0F1DA05AAull);
	assert_int_equal(hi, 0x15A546366ull);
}

/* Folding, with and without the copy, against the reference: every length
 * up to 1100 (below, at and past each step of the kernel) at three
 * alignments with a running CRC, then long random ones; the copy lands
 * exactly, guard bytes around it untouched. */
static void test_fold_and_copy(void **state)
{
	static uint8_t src[70000], dst[70000 + 64];

	(void)state;
	if (!roce_crc_impl_available(ROCE_CRC_FOLD)) {
		/* the table entry still answers, through ISA-L */
		assert_int_equal(roce_crc_select(ROCE_CRC_FOLD), ROCE_E_UNSUPPORTED);
		assert_int_equal(roce_crc32_impl(ROCE_CRC_FOLD, 0, "123456789", 9),
				 0xCBF43926u);
		return;
	}
	fill_random(src, sizeof(src), 0xC0FFEEull);
	for (size_t len = 0; len < 1100 + 300; len++) {
		size_t l = len < 1100 ? len : 1100 + (len - 1100) * 229;

		for (size_t off = 0; off < 3; off++) {
			uint32_t init = (uint32_t)(l * 2654435761u + off);
			uint32_t ref = roce_crc32_ref(init, src + off, l);

			assert_int_equal(crc_fold(init, NULL, src + off, l), ref);
			memset(dst, 0xA5, sizeof(dst));
			assert_int_equal(crc_fold(init, dst + 8 + off, src + off, l), ref);
			assert_memory_equal(dst + 8 + off, src + off, l);
			assert_int_equal(dst[8 + off - 1], 0xA5);
			assert_int_equal(dst[8 + off + l], 0xA5);
		}
	}
}

/* The short kernel against the reference over the masked bytes: every
 * length to 600 at three alignments, with a running CRC, under OR masks
 * of 0 to 64 bytes (the tail's blend, the masked last block, the
 * reduction by multiplications that the long kernel shares). */
static void test_fold_masked(void **state)
{
	static uint8_t buf[640], t[640];
	uint8_t mask[64 + 16];
	static const size_t mlens[] = { 0, 8, 40, 44, 60, 64 };

	(void)state;
	if (!roce_crc_impl_available(ROCE_CRC_FOLD))
		return;
	fill_random(buf, sizeof(buf), 0xFEEDull);
	for (size_t m = 0; m < sizeof(mlens) / sizeof(mlens[0]); m++) {
		size_t mlen = mlens[m];

		memset(mask, 0, sizeof(mask));
		for (size_t i = 0; i < mlen; i++)
			mask[i] = (uint8_t)(1u << (i % 8)) | (i % 5 == 0 ? 0xFF : 0);
		for (size_t len = 0; len <= 600; len++) {
			for (size_t off = 0; off < 3; off++) {
				uint32_t init = (uint32_t)(len * 2654435761u + off + m);

				for (size_t i = 0; i < len; i++)
					t[i] = buf[off + i] | (i < mlen ? mask[i] : 0);
				assert_int_equal(crc_fold_masked(init, buf + off, len, mask, mlen),
						 roce_crc32_ref(init, t, len));
			}
		}
	}
}

/* roce_crc32_copy() copies and checksums whichever implementation runs. */
static void test_crc32_copy_every_impl(void **state)
{
	enum roce_crc_impl saved = roce_crc_selected();
	static uint8_t src[9000], dst[9000];

	(void)state;
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + (i >> 8));
	for (int i = 0; i < ROCE_CRC_IMPL_COUNT; i++) {
		if (!roce_crc_impl_available((enum roce_crc_impl)i))
			continue;
		assert_int_equal(roce_crc_select((enum roce_crc_impl)i), ROCE_OK);
		for (size_t len = 0; len <= sizeof(src); len += 997) {
			memset(dst, 0, sizeof(dst));
			assert_int_equal(roce_crc32_copy(0x1234u, dst, src, len),
					 roce_crc32_ref(0x1234u, src, len));
			assert_memory_equal(dst, src, len);
		}
	}
	assert_int_equal(roce_crc_select(saved), ROCE_OK);
}

static void test_select(void **state)
{
	enum roce_crc_impl impl, saved = roce_crc_selected();

	(void)state;
	assert_int_equal(roce_crc_impl_parse("base", &impl), ROCE_OK);
	assert_int_equal(impl, ROCE_CRC_ISAL_BASE);
	assert_int_equal(roce_crc_impl_parse("fold", &impl), ROCE_OK);
	assert_int_equal(impl, ROCE_CRC_FOLD);
	assert_string_equal(roce_crc_impl_name(ROCE_CRC_FOLD), "fold");
	assert_int_equal(roce_crc_impl_parse("nonsense", &impl), ROCE_E_INVAL);
	assert_int_equal(roce_crc_select(ROCE_CRC_REF), ROCE_OK);
	assert_int_equal(roce_crc_selected(), ROCE_CRC_REF);
	assert_string_equal(roce_crc_impl_name(ROCE_CRC_REF), "ref");
	assert_int_equal(roce_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(roce_crc_select((enum roce_crc_impl)99), ROCE_E_INVAL);
	assert_int_equal(roce_crc_select(saved), ROCE_OK);
}

/* An IPv4 header as rxe sends it (DF, TTL 64, 10.77.0.11 -> 10.77.0.12).
 * ICRC agreement with rxe itself is checked on whole captures in
 * test_golden; this test pins down which fields are masked. */
static const uint8_t ip_hdr[] = {
	0x45, 0x00, 0x00, 0x30, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
	0x0a, 0x4d, 0x00, 0x0b, 0x0a, 0x4d, 0x00, 0x0c,
};

static void test_icrc_masks_variant_fields(void **state)
{
	uint8_t pkt[20 + 8 + 12 + 4 + 4];
	uint32_t a, b;

	(void)state;
	memset(pkt, 0, sizeof(pkt));
	memcpy(pkt, ip_hdr, sizeof(ip_hdr));
	pkt[20] = 0xC0; pkt[22] = 0x12; pkt[23] = 0xB7;   /* UDP ports */
	pkt[24] = 0x00; pkt[25] = 28;                      /* UDP length */
	pkt[28] = 0x11;                                    /* RC ACK */
	a = roce_icrc(pkt, sizeof(pkt) - 4);
	/* TOS, TTL, IP checksum, UDP checksum and BTH byte 4 do not count */
	pkt[1] = 0xB8; pkt[8] = 3; pkt[10] = 0x12; pkt[11] = 0x34;
	pkt[26] = 0xAB; pkt[27] = 0xCD; pkt[28 + 4] = 0xC0;
	b = roce_icrc(pkt, sizeof(pkt) - 4);
	assert_int_equal(a, b);
	/* everything else does */
	pkt[28 + 11] ^= 1;      /* PSN */
	assert_int_not_equal(roce_icrc(pkt, sizeof(pkt) - 4), a);
	pkt[28 + 11] ^= 1;
	pkt[4] ^= 1;            /* IP ID */
	assert_int_not_equal(roce_icrc(pkt, sizeof(pkt) - 4), a);
	assert_int_equal(roce_icrc_hdr_len(pkt), 20 + 8 + 12);
}

/* The ICRC of frames of every length to 600 bytes, IPv4 and IPv6, under
 * every implementation, against a plain computation: the masked copy
 * with 8 x 0xFF in front, through the reference CRC. */
static uint32_t icrc_plain(const uint8_t *l3, size_t len, size_t ip_len)
{
	static uint8_t ps[8 + 700];

	memset(ps, 0xFF, 8);
	memcpy(ps + 8, l3, len);
	if (ip_len == 40) {
		ps[8] |= 0x0F;
		ps[9] = ps[10] = ps[11] = 0xFF;
		ps[8 + 7] = 0xFF;
	} else {
		ps[8 + 1] = ps[8 + 8] = ps[8 + 10] = ps[8 + 11] = 0xFF;
	}
	ps[8 + ip_len + 6] = ps[8 + ip_len + 7] = 0xFF;   /* UDP checksum */
	ps[8 + ip_len + 8 + 4] = 0xFF;                    /* BTH resv8a */
	return roce_crc32_ref(0, ps, 8 + len);
}

static void test_icrc_every_length_every_impl(void **state)
{
	enum roce_crc_impl saved = roce_crc_selected();
	static uint8_t f[700];

	(void)state;
	fill_random(f, sizeof(f), 0xABCDull);
	for (int i = 0; i < ROCE_CRC_IMPL_COUNT; i++) {
		if (!roce_crc_impl_available((enum roce_crc_impl)i))
			continue;
		assert_int_equal(roce_crc_select((enum roce_crc_impl)i), ROCE_OK);
		for (size_t ip_len = 20; ip_len <= 40; ip_len += 20) {
			f[0] = ip_len == 20 ? 0x45 : 0x60;
			for (size_t len = ip_len + 8 + 12; len <= 600; len++)
				assert_int_equal(roce_icrc(f, len),
						 icrc_plain(f, len, ip_len));
			/* the headers alone, as a running CRC for the rest */
			assert_int_equal(roce_crc32_ref(roce_icrc_begin(f), f + ip_len + 20,
							100),
					 icrc_plain(f, ip_len + 20 + 100, ip_len));
		}
	}
	assert_int_equal(roce_crc_select(saved), ROCE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_impls_agree_on_random_buffers),
		cmocka_unit_test(test_fold_constants),
		cmocka_unit_test(test_fold_and_copy),
		cmocka_unit_test(test_fold_masked),
		cmocka_unit_test(test_crc32_copy_every_impl),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_icrc_masks_variant_fields),
		cmocka_unit_test(test_icrc_every_length_every_impl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
