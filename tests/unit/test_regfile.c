/* SPDX-License-Identifier: MIT */
/*
 * The register file through the bus: every register's reset value and
 * access right, SLVERR/DECERR responses over the whole 0x0000-0x2FFF space,
 * the STAT LOW/HIGH latch, and soft reset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "device_io.h"

#include "roce/cc.h"
#include "roce/counters.h"
#include "roce/device.h"
#include "roce/params.h"
#include "roce/regmap.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "roce/tables.h"

/* A frozen clock: the link stays down, so STATUS reads its reset value. */
static uint64_t frozen_clock(void *ctx)
{
	(void)ctx;
	return 1000;
}

static int setup(void **state)
{
	struct roce_device_config cfg = {
		.link_delay_us = 1000, .now_ns = frozen_clock,
	};
	struct roce_device *dev;

	if (roce_device_create(&cfg, &dev) != ROCE_OK)
		return -1;
	*state = dev;
	return 0;
}

static int teardown(void **state)
{
	roce_device_destroy(*state);
	return 0;
}

static uint32_t field_mask(const struct roce_reg_field *f)
{
	return f->width >= 32 ? ~0u : ((1u << f->width) - 1u) << f->lsb;
}

/* The largest legal value of every writable field, in one word. */
static uint32_t max_legal(const struct roce_reg *r)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < r->n_fields; i++) {
		const struct roce_reg_field *f = &r->fields[i];

		if (f->ro)
			continue;
		if (f->max)
			v |= f->max << f->lsb;
		else
			v |= field_mask(f);
	}
	return v;
}

static void test_reset_values(void **state)
{
	struct roce_device *dev = *state;

	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);

		assert_int_equal(rd(dev, r->offset), r->reset);
	}
	assert_int_equal(rd(dev, ROCE_REG_DEV_ID), ROCE_DEV_ID_VALUE);
	assert_int_equal(rd(dev, ROCE_REG_QP_COUNT), ROCE_MAX_QP);
	assert_int_equal(rd(dev, ROCE_REG_MR_COUNT), ROCE_MAX_MR);
	assert_int_equal(rd(dev, ROCE_REG_MEM_SIZE_KB),
			 ROCE_DEV_MEM_SIZE_DEFAULT / 1024);
}

/* RW: the largest legal value reads back. CMD: accepted, reads 0 (not
 * BUSY). WO: accepted, reads 0. RO: SLVERR and the value does not change. */
static void test_access_rights(void **state)
{
	struct roce_device *dev = *state;

	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);
		uint32_t before = rd(dev, r->offset);

		switch (r->access) {
		case ROCE_ACC_RW:
			wr(dev, r->offset, max_legal(r));
			assert_int_equal(rd(dev, r->offset), max_legal(r));
			wr(dev, r->offset, r->reset);
			assert_int_equal(rd(dev, r->offset), r->reset);
			break;
		case ROCE_ACC_CMD:
			/* the table windows' LOAD; the CC block's apply */
			wr(dev, r->offset, r->offset == ROCE_REG_CC_COMMIT ? 1 : ROCE_TBL_CMD_LOAD);
			assert_int_equal(rd(dev, r->offset) & ROCE_TBL_BUSY, 0);
			break;
		case ROCE_ACC_WO:
			wr(dev, r->offset, max_legal(r));
			assert_int_equal(rd(dev, r->offset), 0);
			break;
		case ROCE_ACC_RO:
			assert_int_equal(roce_device_write32(dev, r->offset, ~before),
					 ROCE_E_SLVERR);
			assert_int_equal(roce_device_write32(dev, r->offset, before),
					 ROCE_E_SLVERR);
			assert_int_equal(rd(dev, r->offset), before);
			break;
		}
	}
}

/* Reserved bits and out-of-range field values: SLVERR, nothing changes. */
static void test_illegal_values(void **state)
{
	struct roce_device *dev = *state;
	unsigned checked = 0;

	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);
		uint32_t reserved = ~roce_reg_write_mask(r);
		uint32_t before = rd(dev, r->offset);

		if (r->access == ROCE_ACC_RO)
			continue;
		for (int b = 0; b < 32; b++) {
			if (!(reserved & (1u << b)))
				continue;
			assert_int_equal(roce_device_write32(dev, r->offset,
							     1u << b),
					 ROCE_E_SLVERR);
			checked++;
		}
		for (unsigned k = 0; k < r->n_fields; k++) {
			const struct roce_reg_field *f = &r->fields[k];
			uint32_t top = f->width >= 32 ? ~0u : (1u << f->width) - 1u;

			if (f->ro || !f->max)
				continue;
			if (f->max < top) {
				assert_int_equal(roce_device_write32(dev, r->offset,
						(f->max + 1) << f->lsb), ROCE_E_SLVERR);
				checked++;
			}
			if (f->min > 0) {
				assert_int_equal(roce_device_write32(dev, r->offset,
						(f->min - 1) << f->lsb), ROCE_E_SLVERR);
				checked++;
			}
		}
		assert_int_equal(rd(dev, r->offset), before);
	}
	assert_true(checked > 100);
	/* spot checks of the rules the driver relies on */
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CTRL, 0x8), ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_QP_INDEX, ROCE_MAX_QP),
			 ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_MR_INDEX, ROCE_MAX_MR),
			 ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_QP_STATE, 7), ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_QP_SQ_PSN, 0x1000000),
			 ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_MR_COMMIT, 0), ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_MR_ACCESS, 1u << 4),
			 ROCE_E_SLVERR);
}

static void test_misaligned(void **state)
{
	struct roce_device *dev = *state;

	for (size_t i = 0; i < roce_regmap_count(); i++) {
		uint32_t off = roce_regmap_at(i)->offset;

		for (uint32_t d = 1; d < 4; d++) {
			uint32_t v = 0x1234;

			assert_int_equal(roce_device_read32(dev, off + d, &v),
					 ROCE_E_DECERR);
			assert_int_equal(v, 0);
			assert_int_equal(roce_device_write32(dev, off + d, 0),
					 ROCE_E_DECERR);
		}
	}
	assert_int_equal(rd(dev, ROCE_REG_CTRL), 0);
}

/* Anything not in the table answers DECERR, reads 0, and a write there
 * changes no register. */
static void test_unmapped(void **state)
{
	struct roce_device *dev = *state;
	unsigned holes = 0;

	for (uint32_t off = 0; off < 0x3000; off += 4) {
		uint32_t v = 0x1234;

		if (roce_regmap_find_offset(off)) {
			assert_int_equal(roce_device_read32(dev, off, &v), ROCE_OK);
			continue;
		}
		assert_int_equal(roce_device_read32(dev, off, &v), ROCE_E_DECERR);
		assert_int_equal(v, 0);
		assert_int_equal(roce_device_write32(dev, off, 0xFFFFFFFF),
				 ROCE_E_DECERR);
		holes++;
	}
	assert_true(holes > 0x2000 / 4);
	assert_int_equal(roce_device_write32(dev, 0xFFFFFFFC, 0), ROCE_E_DECERR);
	assert_int_equal(roce_device_write32(dev, 0x114, 0), ROCE_E_DECERR);
	assert_int_equal(roce_device_write32(dev, 0x0D8, 0), ROCE_E_DECERR);
	assert_int_equal(roce_device_write32(dev, 0x2000, 0), ROCE_E_DECERR);
	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);

		assert_int_equal(rd(dev, r->offset), r->reset);
	}
}

/* Reading LOW latches HIGH: a LOW-then-HIGH read is one value even when
 * the counter carries in between. */
static void test_stat_latch(void **state)
{
	struct roce_device *dev = *state;
	struct roce_counters *c = roce_device_counters(dev);
	uint32_t lo = ROCE_REG_STAT_CNT_LOW(ROCE_CNT_RX_BYTES);
	uint32_t hi = ROCE_REG_STAT_CNT_HIGH(ROCE_CNT_RX_BYTES);

	roce_cnt_add(c, ROCE_CNT_RX_BYTES, 0x1FFFFFFFFull);
	assert_int_equal(rd(dev, lo), 0xFFFFFFFF);
	roce_cnt_add(c, ROCE_CNT_RX_BYTES, 1);    /* carries into bit 33 */
	assert_int_equal(rd(dev, hi), 1);         /* latched, not 2 */
	assert_int_equal(rd(dev, lo), 0);
	assert_int_equal(rd(dev, hi), 2);
	/* latches are per counter */
	roce_cnt_add(c, ROCE_CNT_TX_BYTES, 7ull << 32 | 3);
	assert_int_equal(rd(dev, ROCE_REG_STAT_CNT_LOW(ROCE_CNT_TX_BYTES)), 3);
	assert_int_equal(rd(dev, hi), 2);
	assert_int_equal(rd(dev, ROCE_REG_STAT_CNT_HIGH(ROCE_CNT_TX_BYTES)), 7);
	assert_int_equal(rd(dev, ROCE_REG_STAT_CNT_COUNT), ROCE_CNT_COUNT);
	assert_int_equal(roce_device_write32(dev, lo, 0), ROCE_E_SLVERR);
	assert_int_equal(rd(dev, lo), 0);
}

static void test_ctrl_status(void **state)
{
	struct roce_device *dev = *state;

	assert_false(roce_device_running(dev));
	wr(dev, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN | ROCE_CTRL_LOOPBACK);
	assert_true(roce_device_running(dev));
	assert_int_equal(rd(dev, ROCE_REG_STATUS), ROCE_STATUS_RUNNING);
	wr(dev, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN | ROCE_CTRL_SOFT_RESET);
	assert_false(roce_device_running(dev));
	assert_int_equal(rd(dev, ROCE_REG_STATUS), ROCE_STATUS_IN_RESET);
	assert_int_equal(rd(dev, ROCE_REG_CTRL),
			 ROCE_CTRL_ENGINE_EN | ROCE_CTRL_SOFT_RESET);
}

static void commit_ok(struct roce_device *dev, uint32_t cmd_off,
		      uint32_t status_off)
{
	wr(dev, cmd_off, ROCE_TBL_CMD_COMMIT);
	assert_int_equal(rd(dev, cmd_off), 0);
	assert_int_equal(rd(dev, status_off), ROCE_OK);
}

static void program_qp_init(struct roce_device *dev, uint32_t qpn)
{
	wr(dev, ROCE_REG_QP_INDEX, qpn);
	wr(dev, ROCE_REG_QP_STATE, ROCE_QPS_INIT);
	wr(dev, ROCE_REG_QP_TYPE_MTU, ROCE_QPT_RC);
	commit_ok(dev, ROCE_REG_QP_COMMIT, ROCE_REG_QP_CMD_STATUS);
}

static void program_mr(struct roce_device *dev, uint32_t index)
{
	wr(dev, ROCE_REG_MR_INDEX, index);
	wr(dev, ROCE_REG_MR_ACCESS, ROCE_MR_VALID | ROCE_ACCESS_REMOTE_READ);
	wr(dev, ROCE_REG_MR_LEN_LOW, 4096);
	wr(dev, ROCE_REG_MR_RKEY, ROCE_MR_KEY(index, 0x5A));
	wr(dev, ROCE_REG_MR_LKEY, ROCE_MR_KEY(index, 0x5B));
	commit_ok(dev, ROCE_REG_MR_COMMIT, ROCE_REG_MR_CMD_STATUS);
}

/*
 * Soft reset: the rising edge returns QPs to RESET, invalidates MRs and
 * zeroes counters; addresses and SCRATCH keep their values; tables
 * programmed while reset is held survive the release.
 */
static void test_soft_reset(void **state)
{
	struct roce_device *dev = *state;
	struct roce_qp_table *qpt = roce_device_qp_table(dev);
	struct roce_mr_table *mrt = roce_device_mr_table(dev);
	struct roce_qp_cfg qp;
	struct roce_mr_entry mr;

	wr(dev, ROCE_REG_MAC_LOW, 0x33445566);
	wr(dev, ROCE_REG_IP_ADDR, 0xC0A80102);
	wr(dev, ROCE_REG_SCRATCH, 0xCAFEF00D);
	program_qp_init(dev, 9);
	program_mr(dev, 3);
	roce_cnt_add(roce_device_counters(dev), ROCE_CNT_TX_PKTS, 5);
	assert_int_equal(rd(dev, ROCE_REG_STAT_CNT_LOW(ROCE_CNT_TX_PKTS)), 5);

	wr(dev, ROCE_REG_CTRL, ROCE_CTRL_SOFT_RESET);
	assert_int_equal(roce_qp_table_lookup(qpt, 9, &qp, NULL), ROCE_OK);
	assert_int_equal(qp.state, ROCE_QPS_RESET);
	assert_int_equal(qp.type, ROCE_QPT_RC);   /* other fields kept */
	assert_int_equal(roce_mr_table_lookup_rkey(mrt, ROCE_MR_KEY(3, 0x5A), &mr),
			 ROCE_E_RKEY);
	assert_int_equal(rd(dev, ROCE_REG_STAT_CNT_LOW(ROCE_CNT_TX_PKTS)), 0);
	assert_int_equal(rd(dev, ROCE_REG_STAT_CNT_HIGH(ROCE_CNT_TX_PKTS)), 0);
	assert_int_equal(rd(dev, ROCE_REG_MAC_LOW), 0x33445566);
	assert_int_equal(rd(dev, ROCE_REG_IP_ADDR), 0xC0A80102);
	assert_int_equal(rd(dev, ROCE_REG_SCRATCH), 0xCAFEF00D);
	assert_int_equal(rd(dev, ROCE_REG_UDP_PORT), ROCE_UDP_PORT);

	/* power-on sequence: program while reset is held, then release */
	program_qp_init(dev, 9);
	program_mr(dev, 3);
	wr(dev, ROCE_REG_CTRL, ROCE_CTRL_SOFT_RESET); /* held, no new edge */
	wr(dev, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN);
	assert_int_equal(roce_qp_table_lookup(qpt, 9, &qp, NULL), ROCE_OK);
	assert_int_equal(qp.state, ROCE_QPS_INIT);
	assert_int_equal(roce_mr_table_lookup_rkey(mrt, ROCE_MR_KEY(3, 0x5A), &mr),
			 ROCE_OK);
	assert_int_equal(mr.len, 4096);
}

static void test_create_config(void **state)
{
	struct roce_device_config cfg = { .mem_size = 1u << 20 };
	struct roce_device *dev = (void *)1;
	size_t size = 0;

	(void)state;
	assert_int_equal(roce_device_create(NULL, NULL), ROCE_E_INVAL);
	cfg.mem_size = 1000;
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_INVAL);
	assert_null(dev);
	cfg.mem_size = (size_t)ROCE_DEV_MEM_SIZE_MAX + 1024;
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_RANGE);
	cfg.mem_size = 1u << 20;
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_MEM_SIZE_KB), 1024);
	assert_non_null(roce_device_mem(dev, &size));
	assert_int_equal(size, 1u << 20);
	roce_device_mem(dev, NULL)[size - 1] = 0xAB;   /* writable to the end */
	roce_device_destroy(dev);
	roce_device_destroy(NULL);

	assert_int_equal(roce_device_create(NULL, &dev), ROCE_OK);
	roce_device_mem(dev, &size);
	assert_int_equal(size, ROCE_DEV_MEM_SIZE_DEFAULT);
	assert_true(roce_device_link_ready(dev));   /* delay 0: at once */
	roce_device_destroy(dev);
}

/* The DDR's file window: what the device's memory holds is in the file,
 * both ways, at the offset; the rest of the DDR is not; bad windows are
 * refused. */
static void test_mem_file(void **state)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/roce-test-memfile-XXXXXX";
	int fd = mkstemp(path);
	struct roce_device_config cfg = { .mem_size = 1u << 20 };
	struct roce_device *dev = NULL;
	uint8_t b = 0, *mem;
	struct stat st;
	size_t size;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, (off_t)(4 * page)), 0);
	assert_int_equal(pwrite(fd, "\x5a", 1, (off_t)page), 1);
	cfg.mem_fd = fd;
	cfg.mem_file_offset = page;
	cfg.mem_file_len = 3 * page;
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_OK);
	mem = roce_device_mem(dev, &size);
	assert_int_equal(size, 1u << 20);
	assert_int_equal(mem[0], 0x5a);         /* the file's byte at the offset */
	mem[1] = 0xC3;
	mem[3 * page - 1] = 0x7E;               /* the window's last byte */
	mem[3 * page] = 0x11;                   /* past it: anonymous DDR */
	assert_int_equal(pread(fd, &b, 1, (off_t)page + 1), 1);
	assert_int_equal(b, 0xC3);
	assert_int_equal(pread(fd, &b, 1, (off_t)(4 * page - 1)), 1);
	assert_int_equal(b, 0x7E);
	roce_device_destroy(dev);
	assert_int_equal(pread(fd, &b, 1, 0), 1);
	assert_int_equal(b, 0);                 /* before the offset: untouched */
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 4 * page); /* the file did not grow */

	cfg.mem_file_offset = page / 2;         /* mmap(2) wants a page */
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_INVAL);
	cfg.mem_file_offset = page;
	cfg.mem_file_len = 3 * page + 1;        /* past the end of the file */
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_RANGE);
	cfg.mem_file_offset = 5 * page;
	cfg.mem_file_len = page;
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_RANGE);
	cfg.mem_file_offset = 0;
	cfg.mem_file_len = (2u << 20);          /* more than the DDR */
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_RANGE);
	assert_null(dev);
	close(fd);
	cfg.mem_file_len = page;                /* a closed descriptor */
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_IO);
	assert_null(dev);
}

/* The CC block: a commit publishes it (a new generation, CC_STATUS 0),
   what the engine publishes per QP reads back through CC_QP_SELECT. */
static void test_cc_block(void **state)
{
	struct roce_device *dev = *state;
	struct roce_cc_config c;
	uint32_t gen = 0;

	assert_false(roce_device_cc_changed(dev, &gen, &c));
	wr(dev, ROCE_REG_CC_KNOB(ROCE_DCQCN_RPG_AI_RATE), 40);
	wr(dev, ROCE_REG_CC_WINDOW_KB, 64);
	wr(dev, ROCE_REG_CC_CTRL, 0x03 | 0x01 << 8 | 1u << 16 | 1u << 24);
	assert_false(roce_device_cc_changed(dev, &gen, &c));   /* not yet */
	wr(dev, ROCE_REG_CC_COMMIT, 1);
	assert_int_equal(rd(dev, ROCE_REG_CC_STATUS), 0);
	assert_true(roce_device_cc_changed(dev, &gen, &c));
	assert_int_equal(c.dcqcn.rpg_ai_rate, 40);
	assert_int_equal(c.dcqcn.rpg_time_reset, 300);          /* its reset value */
	assert_int_equal(c.window_kb, 64);
	assert_int_equal(c.np_prio_mask, 3);
	assert_int_equal(c.rp_prio_mask, 1);
	assert_int_equal(c.ecn, 1);
	assert_true(c.adaptive_rto);
	assert_false(roce_device_cc_changed(dev, &gen, &c));   /* taken */
	/* out of a knob's range, an ECN of 3: refused at the write */
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_KNOB(ROCE_DCQCN_RPG_GD), 16),
			 ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_CTRL, 3u << 16), ROCE_E_SLVERR);
	/* the rate window */
	roce_device_cc_rate(dev, 17, true, 12500);
	wr(dev, ROCE_REG_CC_QP_SELECT, 17);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_RATE), ROCE_CC_RATE_LIMITED | 12500);
	wr(dev, ROCE_REG_CC_QP_SELECT, 18);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_RATE), 0);
	/* a QP's own window: through the same selection, taken at once (a
	   new generation, no commit), per QP, bounded as the block's */
	wr(dev, ROCE_REG_CC_QP_SELECT, 17);
	wr(dev, ROCE_REG_CC_QP_WINDOW_KB, 8);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_WINDOW_KB), 8);
	assert_int_equal(roce_device_qp_window(dev, 17), 8);
	assert_true(roce_device_cc_changed(dev, &gen, &c));
	assert_int_equal(roce_device_qp_window(dev, 18), 0);
	wr(dev, ROCE_REG_CC_QP_SELECT, 18);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_WINDOW_KB), 0);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_QP_WINDOW_KB, (1u << 20) + 1),
			 ROCE_E_SLVERR);
	assert_int_equal(roce_device_qp_window(dev, 18), 0);
	assert_false(roce_device_cc_changed(dev, &gen, &c));
}

/* The algorithm: the device's (CC_ALGO) taken at CC_COMMIT with Swift's
   knobs, a QP's own (CC_QP_ALGO) through CC_QP_SELECT taken at once; out
   of range refused at the write, the value before kept. */
static void test_cc_algo(void **state)
{
	struct roce_device *dev = *state;
	struct roce_cc_config c;
	uint32_t gen = 0;

	assert_int_equal(rd(dev, ROCE_REG_CC_ALGO), ROCE_CC_ALGO_DCQCN);
	assert_int_equal(rd(dev, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_BETA)), 800);
	wr(dev, ROCE_REG_CC_ALGO, ROCE_CC_ALGO_SWIFT);
	wr(dev, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_BASE_TARGET), 40000);
	assert_int_equal(rd(dev, ROCE_REG_CC_ALGO), ROCE_CC_ALGO_SWIFT);
	assert_false(roce_device_cc_changed(dev, &gen, &c));   /* not yet */
	wr(dev, ROCE_REG_CC_COMMIT, 1);
	assert_int_equal(rd(dev, ROCE_REG_CC_STATUS), 0);
	assert_true(roce_device_cc_changed(dev, &gen, &c));
	assert_int_equal(c.algo, ROCE_CC_ALGO_SWIFT);
	assert_int_equal(c.swift.base_target, 40000);
	assert_int_equal(c.swift.max_mdf, 500);                 /* its reset value */
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_ALGO, ROCE_CC_ALGO_COUNT),
			 ROCE_E_SLVERR);
	assert_int_equal(rd(dev, ROCE_REG_CC_ALGO), ROCE_CC_ALGO_SWIFT);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_BETA), 1001),
			 ROCE_E_SLVERR);
	/* knobs each in range but not together: the commit is refused */
	wr(dev, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_FS_MIN_CWND), 200000);
	wr(dev, ROCE_REG_CC_COMMIT, 1);
	assert_int_equal(rd(dev, ROCE_REG_CC_STATUS), 1);
	assert_false(roce_device_cc_changed(dev, &gen, &c));
	wr(dev, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_FS_MIN_CWND), 100);
	/* a QP's own: 0 the device's, else 1 + the algorithm */
	wr(dev, ROCE_REG_CC_QP_SELECT, 17);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_ALGO), 0);
	wr(dev, ROCE_REG_CC_QP_ALGO, 1 + ROCE_CC_ALGO_DCQCN);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_ALGO), 1 + ROCE_CC_ALGO_DCQCN);
	assert_int_equal(roce_device_qp_algo(dev, 17), 1 + ROCE_CC_ALGO_DCQCN);
	assert_true(roce_device_cc_changed(dev, &gen, &c));    /* at once */
	assert_int_equal(roce_device_qp_algo(dev, 18), 0);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_QP_ALGO, ROCE_CC_ALGO_COUNT + 1),
			 ROCE_E_SLVERR);
	assert_int_equal(roce_device_qp_algo(dev, 17), 1 + ROCE_CC_ALGO_DCQCN);
	wr(dev, ROCE_REG_CC_QP_SELECT, 18);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_ALGO), 0);
	wr(dev, ROCE_REG_CC_QP_ALGO, 1 + ROCE_CC_ALGO_SWIFT);
	assert_int_equal(roce_device_qp_algo(dev, 18), 1 + ROCE_CC_ALGO_SWIFT);
	assert_int_equal(roce_device_qp_algo(dev, 17), 1 + ROCE_CC_ALGO_DCQCN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reset_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_access_rights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cc_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cc_algo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_illegal_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_misaligned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stat_latch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctrl_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_soft_reset, setup, teardown),
		cmocka_unit_test(test_create_config),
		cmocka_unit_test(test_mem_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
