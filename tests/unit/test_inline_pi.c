/* SPDX-License-Identifier: MIT */
/*
 * src/stage/pi.c: the PI stage's tuples. The guard's CRC16 against known
 * answers (the CRC catalogue's check value of "123456789", the five
 * codewords of T10's 03-290r0 "Simplified End-to-End Data Protection",
 * 4.5.6) and against the polynomial's definition run bit by bit over
 * whole units; the tuple byte for byte; pi_verify catching a changed
 * data byte, guard, application tag or reference tag in the unit it is
 * in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <isa-l/crc.h>

#include "roce/status.h"
#include "stage/stage.h"

/* CRC-16/T10-DIF by its definition: polynomial 0x8BB7, MSB first, init
 * 0, no final XOR, one bit at a time. */
static uint16_t crc16_bits(const uint8_t *p, size_t n)
{
	uint16_t c = 0;

	for (size_t i = 0; i < n; i++) {
		c ^= (uint16_t)(p[i] << 8);
		for (int b = 0; b < 8; b++)
			c = (uint16_t)(c & 0x8000 ? c << 1 ^ 0x8BB7 : c << 1);
	}
	return c;
}

/* n pseudo-random bytes (an LCG's top byte) from seed. */
static void fill_random(uint8_t *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(seed >> 56);
	}
}

static void test_crc16_known_answers(void **state)
{
	uint8_t b[32];

	(void)state;
	assert_int_equal(crc16_t10dif(0, (const uint8_t *)"123456789", 9), 0xD0DB);
	assert_int_equal(crc16_bits((const uint8_t *)"123456789", 9), 0xD0DB);
	/* 03-290r0 4.5.6: 32 bytes and their CRC */
	memset(b, 0x00, sizeof(b));
	assert_int_equal(crc16_t10dif(0, b, 32), 0x0000);
	memset(b, 0xFF, sizeof(b));
	assert_int_equal(crc16_t10dif(0, b, 32), 0xA293);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)i;
	assert_int_equal(crc16_t10dif(0, b, 32), 0x0224);
	memset(b, 0x00, sizeof(b));
	b[0] = b[1] = 0xFF;
	assert_int_equal(crc16_t10dif(0, b, 32), 0x21B8);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)(0xFF - i);
	assert_int_equal(crc16_t10dif(0, b, 32), 0xA0B7);
}

/* Whole units, as the stage takes them: ISA-L equals the definition;
 * zeros give 0 (init 0, no final XOR); a unit followed by its guard
 * big-endian leaves the residue 0. */
static void test_crc16_whole_units(void **state)
{
	static uint8_t b[4096 + 2];
	const uint32_t units[] = { 512, 4096 };

	(void)state;
	for (int u = 0; u < 2; u++) {
		const uint32_t n = units[u];
		uint16_t g;

		memset(b, 0, n);
		assert_int_equal(crc16_t10dif(0, b, n), 0);
		memset(b, 0xFF, n);
		assert_int_equal(crc16_t10dif(0, b, n), crc16_bits(b, n));
		assert_int_not_equal(crc16_t10dif(0, b, n), 0);
		for (uint64_t seed = 1; seed <= 8; seed++) {
			fill_random(b, n, seed);
			g = crc16_t10dif(0, b, n);
			assert_int_equal(g, crc16_bits(b, n));
			b[n] = (uint8_t)(g >> 8);
			b[n + 1] = (uint8_t)g;
			assert_int_equal(crc16_t10dif(0, b, n + 2), 0);
		}
	}
	/* pinned: the definition's values over 512 B of 0xFF, of 00..ff twice */
	memset(b, 0xFF, 512);
	assert_int_equal(crc16_t10dif(0, b, 512), 0xE6A1);
	for (int i = 0; i < 512; i++)
		b[i] = (uint8_t)i;
	assert_int_equal(crc16_t10dif(0, b, 512), 0x4F10);
}

/* Bytes 0-1 the guard, 2-3 the application tag, 4-7 the reference tag,
 * each big-endian. */
static void test_tuple_layout(void **state)
{
	static uint8_t zeros[512];
	uint8_t ff[32], pi[ROCE_STAGE_PI_LEN];

	(void)state;
	memset(ff, 0xFF, sizeof(ff));
	pi_tuple(ff, sizeof(ff), 0x1234, 0x89ABCDEF, pi);
	assert_memory_equal(pi, ((const uint8_t[]){ 0xA2, 0x93, 0x12, 0x34, 0x89, 0xAB, 0xCD,
						    0xEF }), 8);
	pi_tuple(zeros, sizeof(zeros), 0xBEEF, 7, pi);
	assert_memory_equal(pi, ((const uint8_t[]){ 0, 0, 0xBE, 0xEF, 0, 0, 0, 7 }), 8);
	pi_tuple((const uint8_t *)"123456789", 9, 0, 0x01020304, pi);
	assert_memory_equal(pi, ((const uint8_t[]){ 0xD0, 0xDB, 0, 0, 1, 2, 3, 4 }), 8);
}

enum { UNITS = 16 };

static uint8_t data[UNITS * 4096];
static uint8_t pi[UNITS * ROCE_STAGE_PI_LEN];

/* Unit i's tuple is the tuple of unit i alone with reference ref0 + i,
 * the reference wrapping at 2^32 (the low 32 bits of the DUN). */
static void test_generate_numbers_units(void **state)
{
	const uint32_t units[] = { 512, 4096 }, refs[] = { 0, 1000, UINT32_MAX - 5 };
	uint8_t one[ROCE_STAGE_PI_LEN];

	(void)state;
	fill_random(data, sizeof(data), 10);
	for (int u = 0; u < 2; u++) {
		for (int r = 0; r < 3; r++) {
			pi_generate(data, units[u], UNITS, 0xA5A5, refs[r], pi);
			for (uint32_t i = 0; i < UNITS; i++) {
				pi_tuple(data + i * units[u], units[u], 0xA5A5, refs[r] + i, one);
				assert_memory_equal(pi + i * ROCE_STAGE_PI_LEN, one, sizeof(one));
			}
		}
	}
	/* the wrap: unit 5 of refs[2] holds UINT32_MAX, unit 6 holds 0 */
	assert_memory_equal(pi + 5 * 8 + 4, ((const uint8_t[]){ 0xFF, 0xFF, 0xFF, 0xFF }), 4);
	assert_memory_equal(pi + 6 * 8 + 4, ((const uint8_t[]){ 0, 0, 0, 0 }), 4);
}

/* Verify of a fresh copy is OK; one byte changed at at (in the data or
 * the PI) is reported in the unit want. */
static void expect_bad(uint32_t unit, uint8_t *at, uint32_t want)
{
	uint32_t bad = UINT32_MAX;

	*at ^= 0x01;
	assert_int_equal(pi_verify(data, unit, UNITS, 0x0F0F, 77, pi, &bad), ROCE_E_PI);
	assert_int_equal(bad, want);
	*at ^= 0x01;
	assert_int_equal(pi_verify(data, unit, UNITS, 0x0F0F, 77, pi, &bad), ROCE_OK);
}

static void test_verify_finds_the_unit(void **state)
{
	const uint32_t units[] = { 512, 4096 };
	uint32_t bad = UINT32_MAX;

	(void)state;
	fill_random(data, sizeof(data), 11);
	for (int u = 0; u < 2; u++) {
		const uint32_t n = units[u];

		bad = UINT32_MAX;
		pi_generate(data, n, UNITS, 0x0F0F, 77, pi);
		assert_int_equal(pi_verify(data, n, UNITS, 0x0F0F, 77, pi, &bad), ROCE_OK);
		assert_int_equal(bad, UINT32_MAX);              /* untouched when OK */
		expect_bad(n, &data[5 * n + n / 2], 5);         /* a data byte */
		expect_bad(n, &data[0], 0);
		expect_bad(n, &data[UNITS * n - 1], UNITS - 1);
		expect_bad(n, &pi[3 * 8 + 0], 3);               /* the guard */
		expect_bad(n, &pi[3 * 8 + 1], 3);
		expect_bad(n, &pi[7 * 8 + 2], 7);               /* the application tag */
		expect_bad(n, &pi[9 * 8 + 3], 9);
		expect_bad(n, &pi[11 * 8 + 4], 11);             /* the reference tag */
		expect_bad(n, &pi[(UNITS - 1) * 8 + 7], UNITS - 1);
		/* two units bad: the first is reported */
		data[12 * n] ^= 0x80;
		pi[4 * 8 + 6] ^= 0x80;
		assert_int_equal(pi_verify(data, n, UNITS, 0x0F0F, 77, pi, &bad), ROCE_E_PI);
		assert_int_equal(bad, 4);
		data[12 * n] ^= 0x80;
		pi[4 * 8 + 6] ^= 0x80;
		/* the expected tags differ: unit 0 already fails */
		assert_int_equal(pi_verify(data, n, UNITS, 0x0F0E, 77, pi, &bad), ROCE_E_PI);
		assert_int_equal(bad, 0);
		assert_int_equal(pi_verify(data, n, UNITS, 0x0F0F, 78, pi, &bad), ROCE_E_PI);
		assert_int_equal(bad, 0);
		/* a tuple of the right unit at the wrong place (its reference) */
		memcpy(pi + 2 * 8, pi + 1 * 8, 8);
		memcpy(data + 2 * n, data + 1 * n, n);
		assert_int_equal(pi_verify(data, n, UNITS, 0x0F0F, 77, pi, &bad), ROCE_E_PI);
		assert_int_equal(bad, 2);
	}
	/* no units: nothing to fail */
	assert_int_equal(pi_verify(data, 512, 0, 0, 0, pi, &bad), ROCE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc16_known_answers),
		cmocka_unit_test(test_crc16_whole_units),
		cmocka_unit_test(test_tuple_layout),
		cmocka_unit_test(test_generate_numbers_units),
		cmocka_unit_test(test_verify_finds_the_unit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
