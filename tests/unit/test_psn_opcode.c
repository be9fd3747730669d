/* SPDX-License-Identifier: MIT */
/* PSN arithmetic and the opcode table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce/opcode.h"
#include "roce/psn.h"
#include "roce/wire/bth.h"

static void test_psn_add_wraps(void **state)
{
	(void)state;
	assert_int_equal(roce_psn_add(0xFFFFFF, 1), 0);
	assert_int_equal(roce_psn_add(0xFFFFFE, 5), 3);
	assert_int_equal(roce_psn_add(10, 0), 10);
	assert_int_equal(roce_psn_add(0, 0x1000000), 0);
}

static void test_psn_compare_across_wrap(void **state)
{
	(void)state;
	assert_true(roce_psn_cmp(0xFFFFFF, 0) < 0);      /* 0 follows 0xFFFFFF */
	assert_true(roce_psn_cmp(0, 0xFFFFFF) > 0);
	assert_true(roce_psn_cmp(5, 5) == 0);
	assert_true(roce_psn_cmp(100, 200) < 0);
	assert_int_equal(roce_psn_diff(2, 0xFFFFFE), 4);
	assert_int_equal(roce_psn_diff(0xFFFFFE, 2), -4);
	/* half-space boundary: 2^23 - 1 ahead is ahead, 2^23 is behind */
	assert_int_equal(roce_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
	assert_int_equal(roce_psn_diff(0x800000, 0), -0x800000);
	assert_true(roce_psn_cmp(0x800000, 0) < 0);
	assert_int_equal(roce_psn_dist(0xFFFFF0, 0x10), 0x20);
	assert_int_equal(roce_psn_dist(7, 7), 0);
}

static void test_opcode_table_offsets(void **state)
{
	(void)state;
	int known = 0;

	for (int code = 0; code < 256; code++) {
		const struct roce_opcode_info *op = roce_opcode_info((uint8_t)code);
		unsigned off = ROCE_BTH_LEN;

		if (!op) {
			assert_string_equal(roce_opcode_name((uint8_t)code), "UNKNOWN");
			continue;
		}
		known++;
		assert_true(roce_op_has(op, ROCE_HDR_BTH));
		/* headers sit back to back in wire order */
		for (int h = ROCE_HDR_DETH; h < ROCE_HDR_COUNT; h++) {
			if (!roce_op_has(op, (enum roce_hdr)h))
				continue;
			assert_int_equal(op->off[h], off);
			off += roce_hdr_size((enum roce_hdr)h);
		}
		assert_int_equal(op->hdr_len, off);
		assert_true(op->pos & (ROCE_POS_FIRST | ROCE_POS_MIDDLE | ROCE_POS_LAST));
	}
	/* RC 23, UC 12, UD 2, CNP 1 */
	assert_int_equal(known, 38);
}

static void test_opcode_rows(void **state)
{
	const struct roce_opcode_info *op;

	(void)state;
	op = roce_opcode_info(ROCE_OP_RC_WRITE_ONLY_IMM);
	assert_non_null(op);
	assert_string_equal(op->name, "RC_WRITE_ONLY_IMM");
	assert_int_equal(op->off[ROCE_HDR_RETH], 12);
	assert_int_equal(op->off[ROCE_HDR_IMMDT], 28);
	assert_int_equal(op->hdr_len, 32);
	assert_int_equal(op->pos, ROCE_POS_ONLY);

	op = roce_opcode_info(ROCE_OP_RC_ATOMIC_ACK);
	assert_int_equal(op->off[ROCE_HDR_AETH], 12);
	assert_int_equal(op->off[ROCE_HDR_ATMACK], 16);
	assert_int_equal(op->hdr_len, 24);
	assert_false(op->payload);
	assert_false(op->request);

	op = roce_opcode_info(ROCE_OP_RC_CMP_SWAP);
	assert_int_equal(op->hdr_len, 12 + 28);
	assert_int_equal(op->cls, ROCE_OPC_ATOMIC);

	op = roce_opcode_info(ROCE_OP_UD_SEND_ONLY_IMM);
	assert_int_equal(op->off[ROCE_HDR_DETH], 12);
	assert_int_equal(op->off[ROCE_HDR_IMMDT], 20);
	assert_int_equal(op->transport, ROCE_TRANSPORT_UD);

	op = roce_opcode_info(ROCE_OP_RC_READ_RESP_MIDDLE);
	assert_int_equal(op->hdr_len, 12);
	assert_int_equal(op->pos, ROCE_POS_MIDDLE);
	assert_true(op->payload);

	op = roce_opcode_info(ROCE_OP_UC_WRITE_FIRST);
	assert_int_equal(op->transport, ROCE_TRANSPORT_UC);
	assert_int_equal(op->off[ROCE_HDR_RETH], 12);

	assert_null(roce_opcode_info(0x15));    /* reserved */
	assert_null(roce_opcode_info(0x2C));
	assert_null(roce_opcode_info(0x40));    /* RD: not supported */
	assert_null(roce_opcode_info(0xFF));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psn_add_wraps),
		cmocka_unit_test(test_psn_compare_across_wrap),
		cmocka_unit_test(test_opcode_table_offsets),
		cmocka_unit_test(test_opcode_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
