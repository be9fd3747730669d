/* SPDX-License-Identifier: MIT */
/* The register map table and the counter list: internal consistency. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "roce/counters.h"
#include "roce/regmap.h"
#include "roce/regs.h"
#include "roce/status.h"

static uint32_t mask_of(const struct roce_reg_field *f)
{
	return f->width >= 32 ? ~0u : ((1u << f->width) - 1u) << f->lsb;
}

static void test_sorted_aligned_unique(void **state)
{
	(void)state;
	assert_true(roce_regmap_count() > 40);
	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);

		assert_non_null(r);
		assert_int_equal(r->offset & 3u, 0);
		assert_non_null(roce_regmap_region_of(r->offset));
		if (i > 0)
			assert_true(roce_regmap_at(i - 1)->offset < r->offset);
		for (size_t j = 0; j < i; j++)
			assert_true(strcasecmp(roce_regmap_at(j)->name, r->name) != 0);
		assert_ptr_equal(roce_regmap_find_offset(r->offset), r);
		assert_ptr_equal(roce_regmap_find(r->name), r);
		assert_true(strlen(r->desc) > 0);
	}
	assert_null(roce_regmap_at(roce_regmap_count()));
}

static void test_find(void **state)
{
	(void)state;
	assert_int_equal(roce_regmap_find("ctrl")->offset, ROCE_REG_CTRL);
	assert_int_equal(roce_regmap_find("Qp_Dest_Qpn")->offset, ROCE_REG_QP_DEST_QPN);
	assert_int_equal(roce_regmap_find("STAT_TX_PKTS_LOW")->offset,
			 ROCE_REG_STAT_CNT_LOW(ROCE_CNT_TX_PKTS));
	assert_int_equal(roce_regmap_find("stat_drop_icrc_high")->offset,
			 ROCE_REG_STAT_CNT_HIGH(ROCE_CNT_DROP_ICRC));
	assert_null(roce_regmap_find("NO_SUCH_REG"));
	assert_null(roce_regmap_find(NULL));
	assert_null(roce_regmap_find_offset(0x002));
	assert_null(roce_regmap_find_offset(0x0D8));
	assert_null(roce_regmap_find_offset(0xFFFFFFFCu));
	assert_string_equal(roce_regmap_region_of(0x44)->name, "QP_TABLE");
	assert_string_equal(roce_regmap_region_of(0xFC)->name, "MR_TABLE");
	assert_string_equal(roce_regmap_region_of(0x1FFC)->name, "STAT");
	assert_string_equal(roce_regmap_region_of(0x100)->name, "QP_TABLE_EXT");
	assert_null(roce_regmap_region_of(0x140));
	assert_null(roce_regmap_region_at(roce_regmap_region_count()));
	assert_string_equal(roce_reg_access_name(ROCE_ACC_CMD), "CMD");
}

/* Every seed offset is in the map with the seed's name. */
static void test_seed_offsets(void **state)
{
	static const struct { uint32_t off; const char *name; } seed[] = {
		{ 0x00, "CTRL" }, { 0x04, "MAC_LOW" }, { 0x08, "MAC_HIGH" },
		{ 0x0C, "IP_ADDR" }, { 0x10, "UDP_PORT" },
		{ 0x14, "PEER_MAC_LOW" }, { 0x18, "PEER_MAC_HIGH" },
		{ 0x1C, "PEER_IP" }, { 0x20, "PEER_UDP_PORT" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++)
		assert_string_equal(roce_regmap_find_offset(seed[i].off)->name,
				    seed[i].name);
	assert_int_equal(roce_regmap_find("UDP_PORT")->reset, 4791);
	assert_int_equal(roce_regmap_find("PEER_UDP_PORT")->reset, 4791);
	assert_int_equal(roce_regmap_find("CTRL")->reset, 0);
}

/* Fields do not overlap, fit in 32 bits, and reset values are legal. */
static void test_fields(void **state)
{
	(void)state;
	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);
		uint32_t seen = 0;

		assert_true(r->n_fields > 0);
		for (unsigned k = 0; k < r->n_fields; k++) {
			const struct roce_reg_field *f = &r->fields[k];

			assert_true(f->width >= 1);
			assert_true(f->lsb + f->width <= 32);
			assert_int_equal(seen & mask_of(f), 0);
			seen |= mask_of(f);
			if (f->max)
				assert_true(f->min <= f->max);
			if (r->access == ROCE_ACC_RO)
				assert_true(f->ro);
		}
		assert_int_equal(r->reset & ~seen, 0);
		if (r->access == ROCE_ACC_RW)
			assert_int_equal(roce_reg_check_write(r, r->reset), ROCE_OK);
		else if (r->access == ROCE_ACC_RO)
			assert_int_equal(roce_reg_check_write(r, r->reset),
					 ROCE_E_SLVERR);
	}
}

static void test_check_write(void **state)
{
	const struct roce_reg *ctrl = roce_regmap_find("CTRL");
	const struct roce_reg *cmd = roce_regmap_find("QP_COMMIT");
	const struct roce_reg *tm = roce_regmap_find("QP_TYPE_MTU");

	(void)state;
	assert_int_equal(roce_reg_write_mask(ctrl), 0x7);
	assert_int_equal(roce_reg_check_write(ctrl, 0x7), ROCE_OK);
	assert_int_equal(roce_reg_check_write(ctrl, 0x8), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_check_write(cmd, ROCE_TBL_CMD_COMMIT), ROCE_OK);
	assert_int_equal(roce_reg_check_write(cmd, ROCE_TBL_CMD_LOAD), ROCE_OK);
	assert_int_equal(roce_reg_check_write(cmd, 0), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_check_write(cmd, 3), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_check_write(cmd, ROCE_TBL_BUSY | 1), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_check_write(tm, 0x000F0502), ROCE_OK);
	assert_int_equal(roce_reg_check_write(tm, 0x00000602), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_check_write(tm, 0x00100502), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_check_write(tm, 0x00000005), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_check_write(tm, 0x01000000), ROCE_E_SLVERR);
	assert_int_equal(roce_reg_write_mask(roce_regmap_find("STATUS")), 0);
}

/* Every counter has a LOW/HIGH pair named after it, and nothing else in
 * the STAT region beyond LINK_STATUS and CNT_COUNT. */
static void test_stat_rows(void **state)
{
	char name[96];
	size_t stat_rows = 0;

	(void)state;
	for (int id = 0; id < ROCE_CNT_COUNT; id++) {
		const struct roce_reg *lo =
			roce_regmap_find_offset(ROCE_REG_STAT_CNT_LOW(id));
		const struct roce_reg *hi =
			roce_regmap_find_offset(ROCE_REG_STAT_CNT_HIGH(id));
		size_t n;

		assert_non_null(lo);
		assert_non_null(hi);
		assert_int_equal(lo->counter, id);
		assert_int_equal(hi->counter, id);
		assert_false(lo->high);
		assert_true(hi->high);
		assert_int_equal(lo->access, ROCE_ACC_RO);
		snprintf(name, sizeof(name), "STAT_%s_LOW", roce_cnt_name(id));
		assert_true(strcasecmp(lo->name, name) == 0);
		n = strlen(name);
		memcpy(name + n - 3, "HIGH", 5);
		assert_true(strcasecmp(hi->name, name) == 0);
	}
	for (size_t i = 0; i < roce_regmap_count(); i++)
		if (roce_regmap_at(i)->offset >= ROCE_REG_STAT_BASE)
			stat_rows++;
	assert_int_equal(stat_rows, 2 + 2 * (size_t)ROCE_CNT_COUNT);
	assert_int_equal(roce_regmap_find("STAT_CNT_COUNT")->reset, ROCE_CNT_COUNT);
}

static void test_counter_names(void **state)
{
	char want[64];

	(void)state;
	for (int id = 0; id < ROCE_CNT_COUNT; id++) {
		int st = roce_cnt_drop_status(id);

		assert_non_null(roce_cnt_name(id));
		assert_non_null(roce_cnt_desc(id));
		assert_int_equal(roce_cnt_find(roce_cnt_name(id)), id);
		for (int j = 0; j < id; j++)
			assert_string_not_equal(roce_cnt_name(j), roce_cnt_name(id));
		if (id < ROCE_CNT_DROP_FIRST || id >= ROCE_CNT_DROP3_END) {
			assert_int_equal(st, -1);
			continue;
		}
		/* DROP_x counts status ROCE_E_X, named after it */
		snprintf(want, sizeof(want), "drop_%s", roce_status_name(st));
		assert_string_equal(roce_cnt_name(id), want);
	}
	/* the counters appended after the drop counters: congestion control */
	assert_int_equal(ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS, ROCE_CNT_DROP_QKEY + 1);
	assert_string_equal(roce_cnt_name(ROCE_CNT_RP_CNP_IGNORED), "rp_cnp_ignored");
	/* the first list ends at SRC_ADDR; the appended one follows it */
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP_SRC_ADDR), ROCE_E_SRC_ADDR);
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP2_FIRST - 1), ROCE_E_SRC_ADDR);
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP_SRC_ADDR + 1), ROCE_E_QP_TYPE);
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP_RECV_LEN + 1), ROCE_E_IP6_NEXT_HDR);
	assert_int_equal(ROCE_DROP2_LAST_STATUS, ROCE_E_IP6_ADDR);
	/* the third list (after ROCE_E_BUSY) follows the second */
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP_IP6_ADDR + 1), ROCE_E_QKEY);
	assert_int_equal(ROCE_DROP3_LAST_STATUS, ROCE_E_QKEY);
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP3_END - 1), ROCE_DROP3_LAST_STATUS);
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP3_END), -1);
	{
		struct roce_counters c = { 0 };

		roce_cnt_drop(&c, ROCE_E_QKEY);
		roce_cnt_drop(&c, ROCE_E_BUSY);  /* not a receive rejection */
		assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_QKEY), 1);
		assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_OTHER), 1);
	}
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP_FIRST), ROCE_E_TOO_SHORT);
	assert_null(roce_cnt_name(ROCE_CNT_COUNT));
	assert_null(roce_cnt_name(-1));
	assert_int_equal(roce_cnt_find("TX_PKTS"), ROCE_CNT_TX_PKTS);
	assert_int_equal(roce_cnt_find("nope"), -1);
}

static void test_counter_ops(void **state)
{
	struct roce_counters c;

	(void)state;
	memset(&c, 0, sizeof(c));
	roce_cnt_inc(&c, ROCE_CNT_TX_PKTS);
	roce_cnt_add(&c, ROCE_CNT_TX_BYTES, 1500);
	roce_cnt_drop(&c, ROCE_E_PSN);
	roce_cnt_drop(&c, ROCE_E_ICRC);
	roce_cnt_drop(&c, ROCE_E_LINK_DOWN);
	roce_cnt_drop(&c, ROCE_E_DISABLED);
	roce_cnt_drop(&c, ROCE_E_NOMEM);  /* not a receive rejection */
	roce_cnt_drop(&c, ROCE_E_PERM);   /* nor this, between the two lists */
	roce_cnt_drop(&c, -5);
	roce_cnt_drop(&c, ROCE_E_UC_GAP);
	roce_cnt_drop(&c, ROCE_E_UC_GAP);
	roce_cnt_drop(&c, ROCE_E_RECV_LEN);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_TX_PKTS), 1);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_TX_BYTES), 1500);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_PSN), 1);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_ICRC), 1);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_ICRC_ERRORS), 1);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_LINK_DOWN), 1);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_DISABLED), 1);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_RX_LOST_LINK_DOWN), 2);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_OTHER), 3);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_UC_GAP), 2);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_RECV_LEN), 1);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_QP_TYPE), 0);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_SRC_ADDR), 0);
	roce_counters_clear(&c);
	for (int id = 0; id < ROCE_CNT_COUNT; id++)
		assert_int_equal(roce_cnt_read(&c, id), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_aligned_unique),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_seed_offsets),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_check_write),
		cmocka_unit_test(test_stat_rows),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_counter_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
