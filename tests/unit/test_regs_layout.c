/* SPDX-License-Identifier: MIT */
/*
 * The QP and MR entry codecs (roce/layout.h): every field at its limits
 * packs into the word and bits the register map gives it, touches no other
 * field, and unpacks to the same value; and an entry the host driver
 * commits reads back as the same words through the device's window
 * (register reads after LOAD) and through the driver.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "device_io.h"

#include "roce/device.h"
#include "roce/driver.h"
#include "roce/layout.h"
#include "roce/params.h"
#include "roce/regmap.h"
#include "roce/status.h"
#include "roce/tables.h"

#define MEM_SIZE (4u << 20)

/* A field of the context struct and the bits the register map documents
 * for it (written out here, not taken from the codec). */
struct qp_field {
	const char *reg, *field;
	size_t off, size;       /* member of struct roce_qp_cfg */
	unsigned word, lsb, width;
};

#define QPF(reg, fld, m, w, l, wd) \
	{ reg, fld, offsetof(struct roce_qp_cfg, m), \
	  sizeof(((struct roce_qp_cfg *)0)->m), w, l, wd }

static const struct qp_field qp_fields[] = {
	QPF("QP_STATE", "STATE", state, 0, 0, 3),
	QPF("QP_TYPE_MTU", "TYPE", type, 1, 0, 8),
	QPF("QP_TYPE_MTU", "MTU", mtu, 1, 8, 8),
	QPF("QP_TYPE_MTU", "ACCESS", access, 1, 16, 8),
	QPF("QP_DEST_QPN", "QPN", dest_qpn, 2, 0, 24),
	QPF("QP_SQ_PSN", "PSN", sq_psn, 3, 0, 24),
	QPF("QP_RQ_PSN", "PSN", rq_psn, 4, 0, 24),
	QPF("QP_PEER_IP", "IPV4", peer_ip, 5, 0, 32),
	QPF("QP_PKEY", "PKEY", pkey, 8, 0, 16),
	QPF("QP_TIMERS", "TIMEOUT", timeout, 9, 0, 5),
	QPF("QP_TIMERS", "RETRY_CNT", retry_cnt, 9, 8, 3),
	QPF("QP_TIMERS", "RNR_RETRY", rnr_retry, 9, 16, 3),
	QPF("QP_TIMERS", "MIN_RNR_TIMER", min_rnr_timer, 9, 24, 5),
	QPF("QP_RD_ATOMIC", "MAX_RD_ATOMIC", max_rd_atomic, 10, 0, 8),
	QPF("QP_RD_ATOMIC", "MAX_DEST_RD_ATOMIC", max_dest_rd_atomic, 10, 8, 8),
	QPF("QP_QKEY", "QKEY", qkey, 11, 0, 32),
	QPF("QP_PD", "PD", pd, 12, 0, 32),
	/* the window continued at 0x100 (words 13..) */
	QPF("QP_DGID_0", "GID", dgid_hi[0], 13, 0, 32),
	QPF("QP_DGID_1", "GID", dgid_hi[1], 14, 0, 32),
	QPF("QP_DGID_2", "GID", dgid_hi[2], 15, 0, 32),
	QPF("QP_GRH", "SGID_INDEX", sgid_index, 16, 0, 8),
	QPF("QP_GRH", "HOP_LIMIT", hop_limit, 16, 8, 8),
	QPF("QP_GRH", "TCLASS", tclass, 16, 16, 8),
	QPF("QP_FLOW_LABEL", "FLOW_LABEL", flow_label, 17, 0, 20),
};

/* Where word w of a QP image lives: QP_STATE (0x4C) on for the seed's 13
 * registers, then 0x100 on. */
static uint32_t qp_word_offset(unsigned w)
{
	return w < 13 ? 0x4Cu + 4u * w : 0x100u + 4u * (w - 13);
}

static uint32_t mask_of(unsigned width)
{
	return width >= 32 ? 0xFFFFFFFFu : (1u << width) - 1u;
}

static void set_member(void *s, size_t off, size_t size, uint32_t v)
{
	uint8_t *p = (uint8_t *)s + off;

	if (size == 1)
		*p = (uint8_t)v;
	else if (size == 2)
		memcpy(p, &(uint16_t){ (uint16_t)v }, 2);
	else
		memcpy(p, &v, 4);
}

static uint32_t get_member(const void *s, size_t off, size_t size)
{
	const uint8_t *p = (const uint8_t *)s + off;
	uint16_t h;
	uint32_t w;

	if (size == 1)
		return *p;
	if (size == 2)
		return memcpy(&h, p, 2), h;
	return memcpy(&w, p, 4), w;
}

/* The register map names the same word, lsb and width. */
static void test_qp_fields_match_regmap(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(qp_fields) / sizeof(qp_fields[0]); i++) {
		const struct qp_field *f = &qp_fields[i];
		const struct roce_reg *r = roce_regmap_find(f->reg);
		unsigned j;

		assert_non_null(r);
		assert_int_equal(r->offset, qp_word_offset(f->word));
		for (j = 0; j < r->n_fields; j++)
			if (strcmp(r->fields[j].name, f->field) == 0)
				break;
		assert_true(j < r->n_fields);
		assert_int_equal(r->fields[j].lsb, f->lsb);
		assert_int_equal(r->fields[j].width, f->width);
	}
}

/* Each field alone at 0, 1, its maximum and one past it (masked away). */
static void test_qp_field_limits(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(qp_fields) / sizeof(qp_fields[0]); i++) {
		const struct qp_field *f = &qp_fields[i];
		uint32_t max = mask_of(f->width);
		uint32_t vals[] = { 0, 1, max, max + 1 };
		unsigned nv = f->width < 8 * f->size ? 4 : 3;

		for (unsigned k = 0; k < nv; k++) {
			struct roce_qp_cfg c, back;
			uint32_t w[ROCE_QP_NREGS];
			uint32_t in = vals[k] & max;

			memset(&c, 0, sizeof(c));
			set_member(&c, f->off, f->size, vals[k]);
			roce_qp_to_regs(&c, w);
			for (unsigned n = 0; n < ROCE_QP_NREGS; n++)
				assert_int_equal(w[n], n == f->word ? in << f->lsb
								    : 0);
			roce_qp_from_regs(77, w, &back);
			assert_int_equal(back.qpn, 77);
			assert_int_equal(get_member(&back, f->off, f->size), in);
		}
	}
}

/* Every field at its maximum at once: the documented image, no overlap. */
static void test_qp_all_max(void **state)
{
	static const uint32_t image[ROCE_QP_NREGS] = {
		0x7, 0xFFFFFF, 0xFFFFFF, 0xFFFFFF, 0xFFFFFF, 0xFFFFFFFF,
		0xFFFFFFFF, 0xFFFF, 0xFFFF, 0x1F07071F, 0xFFFF, 0xFFFFFFFF,
		0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFF, 0xFFFFF,
	};
	struct roce_qp_cfg c, back;
	uint32_t w[ROCE_QP_NREGS];

	(void)state;
	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < sizeof(qp_fields) / sizeof(qp_fields[0]); i++)
		set_member(&c, qp_fields[i].off, qp_fields[i].size,
			   mask_of(qp_fields[i].width));
	memset(c.peer_mac, 0xFF, 6);
	roce_qp_to_regs(&c, w);
	assert_memory_equal(w, image, sizeof(image));
	roce_qp_from_regs(c.qpn, w, &back);
	assert_memory_equal(&back, &c, sizeof(c));
}

/* MAC bytes in order: byte 0 in MAC_HIGH[15:8], byte 5 in MAC_LOW[7:0]. */
static void test_qp_mac(void **state)
{
	struct roce_qp_cfg c = { .peer_mac = { 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6 } };
	struct roce_qp_cfg back;
	uint32_t w[ROCE_QP_NREGS];

	(void)state;
	roce_qp_to_regs(&c, w);
	assert_int_equal(w[ROCE_QP_PEER_MAC_HIGH_WORD], 0xA1B2);
	assert_int_equal(w[ROCE_QP_PEER_MAC_LOW_WORD], 0xC3D4E5F6);
	assert_int_equal(ROCE_QP_PEER_MAC_LOW_WORD, 6);
	assert_int_equal(ROCE_QP_PEER_MAC_HIGH_WORD, 7);
	roce_qp_from_regs(0, w, &back);
	assert_memory_equal(back.peer_mac, c.peer_mac, 6);
}

/* MR: access bits, SPACE, VALID, 64-bit values split LOW/HIGH, keys, PD. */
static void test_mr_field_limits(void **state)
{
	struct roce_mr_entry e, back;
	uint32_t w[ROCE_MR_NREGS];
	/* MR_ACCESS: ACCESS 7:0, SPACE 8, VALID 31; bits 30:9 hold nothing */
	static const uint32_t max_image[ROCE_MR_NREGS] = {
		0x800001FF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
		0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
	};
	static const uint32_t split_image[ROCE_MR_NREGS] = {
		0x80000005, 0x89ABCDEF, 0x01234567, 0x76543210, 0xFEDCBA98,
		0x00000001, 0x80000000, 0x12345601, 0x12345602, 0x00000000,
	};

	(void)state;
	memset(&e, 0, sizeof(e));
	e.valid = true;
	e.access = 0xFF;
	e.space = 1;
	e.va = e.pa = e.len = UINT64_MAX;
	e.rkey = e.lkey = e.pd = UINT32_MAX;
	e.index = ROCE_MAX_MR - 1;
	roce_mr_to_regs(&e, w);
	assert_memory_equal(w, max_image, sizeof(max_image));
	roce_mr_from_regs(e.index, w, &back);
	assert_memory_equal(&back, &e, sizeof(e));

	memset(&e, 0, sizeof(e));
	e.valid = true;
	e.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ;
	e.va = 0x0123456789ABCDEFull;
	e.pa = 0xFEDCBA9876543210ull;
	e.len = 0x8000000000000001ull;
	e.rkey = 0x12345601;
	e.lkey = 0x12345602;
	roce_mr_to_regs(&e, w);
	assert_memory_equal(w, split_image, sizeof(split_image));
	roce_mr_from_regs(0, w, &back);
	assert_memory_equal(&back, &e, sizeof(e));

	/* all zero, and VALID alone */
	memset(&e, 0, sizeof(e));
	roce_mr_to_regs(&e, w);
	for (unsigned n = 0; n < ROCE_MR_NREGS; n++)
		assert_int_equal(w[n], 0);
	e.valid = true;
	roce_mr_to_regs(&e, w);
	assert_int_equal(w[0], ROCE_MR_VALID);
	roce_mr_from_regs(0, w, &back);
	assert_true(back.valid);
	assert_int_equal(back.access, 0);
	assert_int_equal(back.space, ROCE_MR_SPACE_DDR);

	/* SPACE alone: bit 8, above the rights, apart from them */
	memset(&e, 0, sizeof(e));
	e.space = ROCE_MR_SPACE_HOST;
	roce_mr_to_regs(&e, w);
	assert_int_equal(w[0], 1u << 8);
	roce_mr_from_regs(0, w, &back);
	assert_int_equal(back.space, ROCE_MR_SPACE_HOST);
	assert_int_equal(back.access, 0);
	assert_false(back.valid);
}

/* ---- device window and driver agree ------------------------------------ */

static int setup(void **state)
{
	return dev_fix_setup(state, MEM_SIZE);
}

static int teardown(void **state)
{
	return dev_fix_teardown(state);
}

/* The shadow registers as the device shows them after a LOAD of entry
 * index. */
static uint32_t mr_word_offset(unsigned w)
{
	return ROCE_REG_MR_ACCESS + 4u * w;
}

static void window_words(struct dev_fix *f, uint32_t index_reg, uint32_t index,
			 uint32_t (*word_offset)(unsigned), uint32_t *w, unsigned n)
{
	/* clear the shadow first, so every word shown comes from the LOAD */
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(roce_device_write32(f->dev, word_offset(i), 0),
				 ROCE_OK);
	assert_int_equal(roce_device_write32(f->dev, index_reg, index), ROCE_OK);
	assert_int_equal(roce_device_write32(f->dev, index_reg + 4,
					     ROCE_TBL_CMD_LOAD), ROCE_OK);
	assert_int_equal(roce_device_read32(f->dev, index_reg + 8, &w[0]),
			 ROCE_OK);
	assert_int_equal(w[0], ROCE_OK);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(roce_device_read32(f->dev, word_offset(i), &w[i]),
				 ROCE_OK);
}

static void check_qp(struct dev_fix *f, const struct roce_qp_cfg *qp)
{
	uint32_t want[ROCE_QP_NREGS], dev_w[ROCE_QP_NREGS], drv_w[ROCE_QP_NREGS];
	uint32_t again[ROCE_QP_NREGS];
	struct roce_qp_cfg back, tbl;

	assert_int_equal(roce_drv_qp_write(&f->drv, qp), ROCE_OK);
	roce_qp_to_regs(qp, want);
	window_words(f, ROCE_REG_QP_INDEX, qp->qpn, qp_word_offset, dev_w,
		     ROCE_QP_NREGS);
	assert_memory_equal(dev_w, want, sizeof(want));
	assert_int_equal(roce_drv_qp_read_regs(&f->drv, qp->qpn, drv_w), ROCE_OK);
	assert_memory_equal(drv_w, want, sizeof(want));
	assert_int_equal(roce_drv_qp_read(&f->drv, qp->qpn, &back), ROCE_OK);
	assert_int_equal(back.qpn, qp->qpn);
	roce_qp_to_regs(&back, again);
	assert_memory_equal(again, want, sizeof(want));
	/* the table holds what the device decoded from the window */
	assert_int_equal(roce_qp_table_lookup(roce_device_qp_table(f->dev),
					      qp->qpn, &tbl, NULL), ROCE_OK);
	roce_qp_to_regs(&tbl, again);
	assert_memory_equal(again, want, sizeof(want));
}

static void test_qp_window_and_driver(void **state)
{
	struct dev_fix *f = *state;
	struct roce_qp_cfg hi = {
		.qpn = ROCE_MAX_QP - 1, .state = ROCE_QPS_RESET,
		.type = ROCE_QPT_UD, .mtu = ROCE_MTU_4096, .access = 0xF,
		.dest_qpn = 0xFFFFFF, .sq_psn = 0xFFFFFF, .rq_psn = 0xFFFFFF,
		.peer_ip = 0xFFFFFFFF,
		.peer_mac = { 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF },
		.pkey = 0xFFFF, .timeout = 31, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 31, .max_rd_atomic = ROCE_MAX_RD_ATOMIC,
		.max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC,
		.qkey = 0xFFFFFFFF, .pd = 0xFFFFFFFF,
		.dgid_hi = { 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF },
		.sgid_index = 0xFF, .hop_limit = 0xFF, .tclass = 0xFF,
		.flow_label = 0xFFFFF,
	};
	struct roce_qp_cfg lo = { .qpn = 0 };

	check_qp(f, &hi);
	check_qp(f, &lo);
	hi.qpn = 1;
	hi.state = ROCE_QPS_INIT;	/* the highest state one step reaches */
	check_qp(f, &hi);
}

static void check_mr(struct dev_fix *f, const struct roce_mr_entry *mr)
{
	uint32_t want[ROCE_MR_NREGS], dev_w[ROCE_MR_NREGS], drv_w[ROCE_MR_NREGS];
	struct roce_mr_entry back;

	assert_int_equal(roce_drv_mr_write(&f->drv, mr), ROCE_OK);
	roce_mr_to_regs(mr, want);
	window_words(f, ROCE_REG_MR_INDEX, mr->index, mr_word_offset, dev_w,
		     ROCE_MR_NREGS);
	assert_memory_equal(dev_w, want, sizeof(want));
	assert_int_equal(roce_drv_mr_read_regs(&f->drv, mr->index, drv_w),
			 ROCE_OK);
	assert_memory_equal(drv_w, want, sizeof(want));
	assert_int_equal(roce_drv_mr_read(&f->drv, mr->index, &back), ROCE_OK);
	assert_int_equal(back.index, mr->index);
	roce_mr_to_regs(&back, drv_w);
	assert_memory_equal(drv_w, want, sizeof(want));
}

static void test_mr_window_and_driver(void **state)
{
	struct dev_fix *f = *state;
	uint32_t last = ROCE_MAX_MR - 1;
	struct roce_mr_entry hi = {
		.index = last, .valid = true, .access = 0xF,
		.va = UINT64_MAX - MEM_SIZE, .pa = 0, .len = MEM_SIZE,
		.rkey = ROCE_MR_KEY(last, 0xFF), .lkey = ROCE_MR_KEY(last, 0xFE),
		.pd = 0xFFFFFFFF,
	};
	struct roce_mr_entry lo = {
		.index = 0, .valid = true, .access = 0, .va = 0,
		.pa = MEM_SIZE - 1, .len = 1, .rkey = ROCE_MR_KEY(0, 0),
		.lkey = ROCE_MR_KEY(0, 1), .pd = 0,
	};

	check_mr(f, &hi);
	check_mr(f, &lo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_fields_match_regmap),
		cmocka_unit_test(test_qp_field_limits),
		cmocka_unit_test(test_qp_all_max),
		cmocka_unit_test(test_qp_mac),
		cmocka_unit_test(test_mr_field_limits),
		cmocka_unit_test_setup_teardown(test_qp_window_and_driver,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mr_window_and_driver,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
