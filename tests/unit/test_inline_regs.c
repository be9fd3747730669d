/* SPDX-License-Identifier: MIT */
/*
 * The inline stages' registers (roce/regs.h, docs/stages.md) through the
 * bus: the STAGE block's key slots (write-only key words that never read
 * back, not even in a read of every register; equal halves and bad slots
 * refused with the slot unchanged; CLEAR; the LOADED bitmap; a soft reset
 * empties every slot) and an MR's stage binding in the MR window's
 * shadow, committed with the entry and refused whole when the binding
 * rules refuse it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "device_io.h"

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "roce/regmap.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "roce/tables.h"

#define MEM_SIZE (4u << 20)

static int setup(void **state)
{
	return dev_fix_setup(state, MEM_SIZE);
}

static int teardown(void **state)
{
	return dev_fix_teardown(state);
}

/* A key whose every word is recognisable: 0xA5C3_00nn-like, never 0. */
static void pattern_key(uint8_t key[ROCE_STAGE_KEY_LEN], uint8_t salt)
{
	for (unsigned i = 0; i < ROCE_STAGE_KEY_LEN; i++)
		key[i] = (uint8_t)(0xA0 + salt + 7 * i) | 1u;
}

static uint32_t key_word(const uint8_t *key, unsigned n)
{
	const uint8_t *b = key + 4 * n;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/* No mapped register reads any word of key (a full dump, as rocectl's). */
static void assert_key_nowhere(struct roce_device *dev, const uint8_t *key)
{
	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);
		uint32_t v = rd(dev, r->offset);

		if (r->access == ROCE_ACC_WO)
			assert_int_equal(v, 0);
		for (unsigned n = 0; n < ROCE_STAGE_KEY_LEN / 4; n++)
			assert_int_not_equal(v, key_word(key, n));
	}
}

static void test_keys_write_only(void **state)
{
	struct dev_fix *f = *state;
	uint8_t key[ROCE_STAGE_KEY_LEN];
	uint32_t bits;

	pattern_key(key, 0);
	for (unsigned n = 0; n < ROCE_STAGE_KEY_LEN / 4; n++) {
		wr(f->dev, ROCE_REG_STAGE_KEY(n), key_word(key, n));
		assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY(n)), 0);
	}
	assert_key_nowhere(f->dev, key);        /* written, not yet loaded */
	wr(f->dev, ROCE_REG_STAGE_KEY_SLOT, 3);
	wr(f->dev, ROCE_REG_STAGE_KEY_CMD, ROCE_STAGE_KEY_CMD_LOAD);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_STATUS), ROCE_OK);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 1u << 3);
	assert_key_nowhere(f->dev, key);

	pattern_key(key, 9);
	assert_int_equal(roce_drv_stage_key_load(&f->drv, 15, key), ROCE_OK);
	assert_int_equal(roce_drv_stage_keys_loaded(&f->drv, &bits), ROCE_OK);
	assert_int_equal(bits, 1u << 3 | 1u << 15);
	assert_key_nowhere(f->dev, key);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_SLOTS), ROCE_STAGE_KEY_SLOTS);
}

/* The words are wiped by the command: a second LOAD without new words
 * loads zeros, whose halves are equal, and is refused. */
static void test_key_words_wiped(void **state)
{
	struct dev_fix *f = *state;
	uint8_t key[ROCE_STAGE_KEY_LEN];

	pattern_key(key, 1);
	assert_int_equal(roce_drv_stage_key_load(&f->drv, 2, key), ROCE_OK);
	wr(f->dev, ROCE_REG_STAGE_KEY_SLOT, 4);
	wr(f->dev, ROCE_REG_STAGE_KEY_CMD, ROCE_STAGE_KEY_CMD_LOAD);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_STATUS), ROCE_E_INVAL);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 1u << 2);
}

static void test_key_refusals(void **state)
{
	struct dev_fix *f = *state;
	uint8_t key[ROCE_STAGE_KEY_LEN], same[ROCE_STAGE_KEY_LEN];

	pattern_key(key, 2);
	assert_int_equal(roce_drv_stage_key_load(&f->drv, 5, key), ROCE_OK);
	/* IEEE 1619: the two halves equal; slot 5 keeps its key */
	memcpy(same, key, 32);
	memcpy(same + 32, key, 32);
	assert_int_equal(roce_drv_stage_key_load(&f->drv, 5, same), ROCE_E_INVAL);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_STATUS), ROCE_E_INVAL);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 1u << 5);
	assert_int_equal(roce_drv_stage_key_load(&f->drv, 6, same), ROCE_E_INVAL);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 1u << 5);
	/* a slot past the last: the device refuses it, the driver too */
	wr(f->dev, ROCE_REG_STAGE_KEY_SLOT, ROCE_STAGE_KEY_SLOTS);
	wr(f->dev, ROCE_REG_STAGE_KEY_CMD, ROCE_STAGE_KEY_CMD_LOAD);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_STATUS), ROCE_E_NOENT);
	wr(f->dev, ROCE_REG_STAGE_KEY_CMD, ROCE_STAGE_KEY_CMD_CLEAR);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_STATUS), ROCE_E_NOENT);
	assert_int_equal(roce_drv_stage_key_load(&f->drv, 16, key), ROCE_E_NOENT);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 1u << 5);
	/* other commands answer SLVERR */
	assert_int_equal(roce_device_write32(f->dev, ROCE_REG_STAGE_KEY_CMD, 3), ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(f->dev, ROCE_REG_STAGE_KEY_LOADED, 0), ROCE_E_SLVERR);
}

static void test_key_clear_and_reset(void **state)
{
	struct dev_fix *f = *state;
	uint8_t key[ROCE_STAGE_KEY_LEN];

	pattern_key(key, 3);
	for (unsigned s = 0; s < 4; s++)
		assert_int_equal(roce_drv_stage_key_load(&f->drv, s, key), ROCE_OK);
	assert_int_equal(roce_drv_stage_key_clear(&f->drv, 1), ROCE_OK);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 0xDu);
	assert_int_equal(roce_drv_stage_key_clear(&f->drv, 1), ROCE_OK); /* empty: fine */
	/* key words written but not loaded, then the soft reset */
	for (unsigned n = 0; n < ROCE_STAGE_KEY_LEN / 4; n++)
		wr(f->dev, ROCE_REG_STAGE_KEY(n), key_word(key, n));
	wr(f->dev, ROCE_REG_CTRL, ROCE_CTRL_SOFT_RESET);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 0);
	wr(f->dev, ROCE_REG_CTRL, 0);
	/* the words went with the reset: a LOAD now takes zeros */
	wr(f->dev, ROCE_REG_STAGE_KEY_SLOT, 0);
	wr(f->dev, ROCE_REG_STAGE_KEY_CMD, ROCE_STAGE_KEY_CMD_LOAD);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_STATUS), ROCE_E_INVAL);
	assert_int_equal(rd(f->dev, ROCE_REG_STAGE_KEY_LOADED), 0);
}

/* ---- the binding in the MR window ---------------------------------------- */

static struct roce_mr_entry staged_mr(uint32_t index)
{
	struct roce_mr_entry e = {
		.va = 0x10000, .pa = 0x100000, .len = 64 * 4096, .index = index,
		.rkey = index << 8 | 0x5A, .lkey = index << 8 | 0xA5, .pd = 1,
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			  ROCE_ACCESS_REMOTE_READ,
		.valid = true,
		.stage = {
			.chain = { ROCE_STAGE_DEDUP, ROCE_STAGE_XTS, ROCE_STAGE_PI },
			.key_slot = 7, .unit_shift = 12, .app_tag = 0xBEEF,
			.dun_base = 0x1122334455667788ull, .pi_pa = 0x300000,
			.pool_pa = 0x200000, .pool_blocks = 32,
		},
	};
	return e;
}

static void assert_mr_same(const struct roce_mr_entry *a, const struct roce_mr_entry *b)
{
	assert_int_equal(a->valid, b->valid);
	assert_int_equal(a->len, b->len);
	assert_int_equal(a->rkey, b->rkey);
	assert_memory_equal(&a->stage, &b->stage, sizeof(a->stage));
}

static void test_binding_round_trip(void **state)
{
	struct dev_fix *f = *state;
	struct roce_mr_entry e = staged_mr(4), back, table;
	uint32_t r[ROCE_MR_NREGS];

	roce_mr_to_regs(&e, r);
	assert_int_equal(r[ROCE_MR_STAGE_WORD], 0x01070321u);
	assert_int_equal(r[ROCE_MR_STAGE_TAG_WORD], 0xBEEFu);
	roce_mr_from_regs(4, r, &back);
	assert_mr_same(&e, &back);

	assert_int_equal(roce_drv_mr_write(&f->drv, &e), ROCE_OK);
	assert_int_equal(rd(f->dev, ROCE_REG_MR_STAGE), 0x01070321u);
	assert_int_equal(rd(f->dev, ROCE_REG_MR_DUN_HIGH), 0x11223344u);
	assert_int_equal(rd(f->dev, ROCE_REG_MR_POOL_BLOCKS), 32);
	assert_int_equal(roce_mr_table_lookup(roce_device_mr_table(f->dev), 4, &table), ROCE_OK);
	assert_mr_same(&e, &table);
	memset(&back, 0, sizeof(back));
	assert_int_equal(roce_drv_mr_read(&f->drv, 4, &back), ROCE_OK);
	assert_mr_same(&e, &back);

	/* XTS alone at 512 bytes in host memory */
	e = staged_mr(5);
	e.space = ROCE_MR_SPACE_HOST;
	e.stage = (struct roce_stage_binding){ .chain = { ROCE_STAGE_XTS }, .key_slot = 15,
					       .unit_shift = 9, .dun_base = 3 };
	assert_int_equal(roce_drv_mr_write(&f->drv, &e), ROCE_OK);
	assert_int_equal(roce_drv_mr_read(&f->drv, 5, &back), ROCE_OK);
	assert_mr_same(&e, &back);
	/* no binding: an unstaged MR reads back all zero */
	e = staged_mr(6);
	memset(&e.stage, 0, sizeof(e.stage));
	assert_int_equal(roce_drv_mr_write(&f->drv, &e), ROCE_OK);
	assert_int_equal(roce_drv_mr_read(&f->drv, 6, &back), ROCE_OK);
	assert_mr_same(&e, &back);
	assert_int_equal(rd(f->dev, ROCE_REG_MR_STAGE), 0);
}

/* A committed entry, then a bad binding through the registers: refused
 * with MR_CMD_STATUS, the entry as it was. */
static void refused_by_window(struct dev_fix *f, void (*spoil)(struct roce_mr_entry *))
{
	struct roce_mr_entry good = staged_mr(9), bad, now;
	uint32_t r[ROCE_MR_NREGS];

	assert_int_equal(roce_drv_mr_write(&f->drv, &good), ROCE_OK);
	bad = good;
	spoil(&bad);
	roce_mr_to_regs(&bad, r);
	wr(f->dev, ROCE_REG_MR_INDEX, 9);
	for (unsigned i = 0; i < ROCE_MR_NREGS; i++)
		wr(f->dev, ROCE_REG_MR_ACCESS + 4 * i, r[i]);
	wr(f->dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT);
	assert_int_equal(rd(f->dev, ROCE_REG_MR_CMD_STATUS), ROCE_E_INVAL);
	assert_int_equal(roce_mr_table_lookup(roce_device_mr_table(f->dev), 9, &now), ROCE_OK);
	assert_mr_same(&good, &now);
}

static void dedup_second(struct roce_mr_entry *e)
{
	e->stage.chain[0] = ROCE_STAGE_XTS;
	e->stage.chain[1] = ROCE_STAGE_DEDUP;
}
static void pi_outside(struct roce_mr_entry *e) { e->stage.pi_pa = MEM_SIZE - 8; }
static void pool_empty(struct roce_mr_entry *e) { e->stage.pool_blocks = 0; }
static void unknown_stage(struct roce_mr_entry *e) { e->stage.chain[2] = 9; }
static void gap(struct roce_mr_entry *e) { e->stage.chain[1] = ROCE_STAGE_NONE; }
static void dedup_512(struct roce_mr_entry *e) { e->stage.unit_shift = 9; }

static void test_binding_refused(void **state)
{
	struct dev_fix *f = *state;
	struct roce_mr_entry e = staged_mr(10), now;

	refused_by_window(f, dedup_second);
	refused_by_window(f, pi_outside);
	refused_by_window(f, pool_empty);
	refused_by_window(f, unknown_stage);
	refused_by_window(f, gap);
	refused_by_window(f, dedup_512);
	/* what MR_STAGE cannot say: unit 1024, key slot 16. The driver does
	 * not write it; the table refuses it from any other writer */
	e.stage.unit_shift = 10;
	assert_int_equal(roce_drv_mr_write(&f->drv, &e), ROCE_E_INVAL);
	assert_int_equal(roce_mr_table_commit(roce_device_mr_table(f->dev), 10, &e),
			 ROCE_E_INVAL);
	e = staged_mr(10);
	e.stage.key_slot = ROCE_STAGE_KEY_SLOTS;
	assert_int_equal(roce_drv_mr_write(&f->drv, &e), ROCE_E_INVAL);
	assert_int_equal(roce_mr_table_commit(roce_device_mr_table(f->dev), 10, &e),
			 ROCE_E_INVAL);
	assert_int_equal(roce_mr_table_lookup(roce_device_mr_table(f->dev), 10, &now), ROCE_OK);
	assert_false(now.valid);
	/* dedup on a host MR */
	e = staged_mr(10);
	e.space = ROCE_MR_SPACE_HOST;
	assert_int_equal(roce_drv_mr_write(&f->drv, &e), ROCE_E_INVAL);
	assert_int_equal(rd(f->dev, ROCE_REG_MR_CMD_STATUS), ROCE_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keys_write_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_words_wiped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_clear_and_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binding_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binding_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
