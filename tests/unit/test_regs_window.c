/* SPDX-License-Identifier: MIT */
/*
 * The QP_TABLE and MR_TABLE windows through the bus: COMMIT and LOAD,
 * CMD_STATUS codes for rejected entries, LOAD showing engine state changes,
 * shadow registers independent of the entry until COMMIT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "device_io.h"

#include "roce/device.h"
#include "roce/params.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "roce/tables.h"

#define MEM_SIZE (4u << 20)

static int setup(void **state)
{
	struct roce_device_config cfg = { .mem_size = MEM_SIZE };
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

/* Issue a command the way the driver does: write, poll BUSY, read status. */
static uint32_t cmd(struct roce_device *dev, uint32_t commit_off, uint32_t c)
{
	wr(dev, commit_off, c);
	assert_int_equal(rd(dev, commit_off) & ROCE_TBL_BUSY, 0);
	return rd(dev, commit_off + 4);
}

/* A full QP shadow in which every register holds a distinct value. */
static const struct { uint32_t off, val; } qp_regs[] = {
	{ ROCE_REG_QP_TYPE_MTU, ROCE_QPT_RC | ROCE_MTU_2048 << 8 | 0x7u << 16 },
	{ ROCE_REG_QP_DEST_QPN, 0x00A1B2C3 },
	{ ROCE_REG_QP_SQ_PSN, 0x00123456 },
	{ ROCE_REG_QP_RQ_PSN, 0x00FEDCBA },
	{ ROCE_REG_QP_PEER_IP, 0xC0A80A0B },
	{ ROCE_REG_QP_PEER_MAC_LOW, 0x33445566 },
	{ ROCE_REG_QP_PEER_MAC_HIGH, 0x00000222 },  /* unicast */
	{ ROCE_REG_QP_PKEY, 0x0000FFFF },
	{ ROCE_REG_QP_TIMERS, 14u | 6u << 8 | 5u << 16 | 12u << 24 },
	{ ROCE_REG_QP_RD_ATOMIC, 8u | 16u << 8 },
	{ ROCE_REG_QP_QKEY, 0x80010000 },
	{ ROCE_REG_QP_PD, 0x00000042 },
};

static void qp_fill(struct roce_device *dev, uint32_t qpn, uint32_t state)
{
	wr(dev, ROCE_REG_QP_INDEX, qpn);
	for (size_t i = 0; i < sizeof(qp_regs) / sizeof(qp_regs[0]); i++)
		wr(dev, qp_regs[i].off, qp_regs[i].val);
	wr(dev, ROCE_REG_QP_STATE, state);
}

static void qp_to(struct roce_device *dev, uint32_t qpn, uint32_t state)
{
	qp_fill(dev, qpn, state);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_OK);
}

/* COMMIT then LOAD into a cleared shadow gives back every register; the
 * data path sees the decoded entry. */
static void test_qp_round_trip(void **state)
{
	struct roce_device *dev = *state;
	struct roce_qp_cfg c;

	qp_to(dev, 77, ROCE_QPS_INIT);
	qp_to(dev, 77, ROCE_QPS_RTR);
	qp_to(dev, 77, ROCE_QPS_RTS);
	for (size_t i = 0; i < sizeof(qp_regs) / sizeof(qp_regs[0]); i++)
		wr(dev, qp_regs[i].off, 0);
	wr(dev, ROCE_REG_QP_STATE, 0);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_LOAD), ROCE_OK);
	for (size_t i = 0; i < sizeof(qp_regs) / sizeof(qp_regs[0]); i++)
		assert_int_equal(rd(dev, qp_regs[i].off), qp_regs[i].val);
	assert_int_equal(rd(dev, ROCE_REG_QP_STATE), ROCE_QPS_RTS);

	assert_int_equal(roce_qp_table_lookup(roce_device_qp_table(dev), 77, &c, NULL),
			 ROCE_OK);
	assert_int_equal(c.qpn, 77);
	assert_int_equal(c.state, ROCE_QPS_RTS);
	assert_int_equal(c.type, ROCE_QPT_RC);
	assert_int_equal(c.mtu, ROCE_MTU_2048);
	assert_int_equal(c.access, 7);
	assert_int_equal(c.dest_qpn, 0xA1B2C3);
	assert_int_equal(c.sq_psn, 0x123456);
	assert_int_equal(c.rq_psn, 0xFEDCBA);
	assert_int_equal(c.peer_ip, 0xC0A80A0B);
	assert_memory_equal(c.peer_mac, "\x02\x22\x33\x44\x55\x66", 6);
	assert_int_equal(c.pkey, 0xFFFF);
	assert_int_equal(c.timeout, 14);
	assert_int_equal(c.retry_cnt, 6);
	assert_int_equal(c.rnr_retry, 5);
	assert_int_equal(c.min_rnr_timer, 12);
	assert_int_equal(c.max_rd_atomic, 8);
	assert_int_equal(c.max_dest_rd_atomic, 16);
	assert_int_equal(c.qkey, 0x80010000);
	assert_int_equal(c.pd, 0x42);
}

/* Shadow writes alone change nothing; LOAD shows what the engine did. */
static void test_qp_shadow_and_engine_state(void **state)
{
	struct roce_device *dev = *state;
	struct roce_qp_table *t = roce_device_qp_table(dev);
	struct roce_qp_cfg c;

	qp_to(dev, 3, ROCE_QPS_INIT);
	qp_to(dev, 3, ROCE_QPS_RTR);
	qp_to(dev, 3, ROCE_QPS_RTS);
	wr(dev, ROCE_REG_QP_SQ_PSN, 0x000001);     /* no COMMIT */
	assert_int_equal(roce_qp_table_lookup(t, 3, &c, NULL), ROCE_OK);
	assert_int_equal(c.sq_psn, 0x123456);

	/* the engine fails the QP (retry count exhausted) */
	assert_int_equal(roce_qp_table_set_state(t, 3, ROCE_QPS_ERR), ROCE_OK);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_LOAD), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_QP_STATE), ROCE_QPS_ERR);
	assert_int_equal(rd(dev, ROCE_REG_QP_SQ_PSN), 0x123456);
	/* ERR -> RTS is not a transition; the host must go through RESET */
	wr(dev, ROCE_REG_QP_STATE, ROCE_QPS_RTS);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_STATE);
	wr(dev, ROCE_REG_QP_STATE, ROCE_QPS_RESET);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_OK);
	/* other QPs are untouched */
	assert_int_equal(roce_qp_table_lookup(t, 4, &c, NULL), ROCE_OK);
	assert_int_equal(c.state, ROCE_QPS_RESET);
	assert_int_equal(c.sq_psn, 0);
}

/* Rejections through the window: the status register says why. */
static void test_qp_rejections(void **state)
{
	struct roce_device *dev = *state;
	struct roce_qp_cfg c;

	qp_fill(dev, 10, ROCE_QPS_RTS);           /* RESET -> RTS */
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_STATE);
	qp_fill(dev, 10, ROCE_QPS_INIT);
	wr(dev, ROCE_REG_QP_PKEY, 0);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_INVAL);
	qp_to(dev, 10, ROCE_QPS_INIT);
	qp_fill(dev, 10, ROCE_QPS_RTR);
	wr(dev, ROCE_REG_QP_TYPE_MTU, ROCE_QPT_RC);  /* no path MTU */
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_RANGE);
	qp_fill(dev, 10, ROCE_QPS_RTR);
	wr(dev, ROCE_REG_QP_PEER_IP, 0);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_INVAL);
	qp_fill(dev, 10, ROCE_QPS_RTR);
	wr(dev, ROCE_REG_QP_TYPE_MTU, 1u | ROCE_MTU_1024 << 8);  /* type 1 */
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_INVAL);
	assert_int_equal(roce_qp_table_lookup(roce_device_qp_table(dev), 10, &c, NULL),
			 ROCE_OK);
	assert_int_equal(c.state, ROCE_QPS_INIT);  /* none of them applied */
	/* the status stays until the next command */
	assert_int_equal(rd(dev, ROCE_REG_QP_CMD_STATUS), ROCE_E_INVAL);
	assert_int_equal(cmd(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_LOAD), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_QP_STATE), ROCE_QPS_INIT);
}

static void mr_fill(struct roce_device *dev, uint32_t index, uint64_t pa,
		    uint64_t len)
{
	wr(dev, ROCE_REG_MR_INDEX, index);
	wr(dev, ROCE_REG_MR_ACCESS, ROCE_MR_VALID | 0x7);
	wr(dev, ROCE_REG_MR_VA_LOW, 0x89ABC000);
	wr(dev, ROCE_REG_MR_VA_HIGH, 0x00007FFF);
	wr(dev, ROCE_REG_MR_PA_LOW, (uint32_t)pa);
	wr(dev, ROCE_REG_MR_PA_HIGH, (uint32_t)(pa >> 32));
	wr(dev, ROCE_REG_MR_LEN_LOW, (uint32_t)len);
	wr(dev, ROCE_REG_MR_LEN_HIGH, (uint32_t)(len >> 32));
	wr(dev, ROCE_REG_MR_RKEY, ROCE_MR_KEY(index, 0xC7));
	wr(dev, ROCE_REG_MR_LKEY, ROCE_MR_KEY(index, 0x19));
	wr(dev, ROCE_REG_MR_PD, 0x42);
}

static void test_mr_round_trip(void **state)
{
	static const uint32_t regs[] = {
		ROCE_REG_MR_ACCESS, ROCE_REG_MR_VA_LOW, ROCE_REG_MR_VA_HIGH,
		ROCE_REG_MR_PA_LOW, ROCE_REG_MR_PA_HIGH, ROCE_REG_MR_LEN_LOW,
		ROCE_REG_MR_LEN_HIGH, ROCE_REG_MR_RKEY, ROCE_REG_MR_LKEY,
		ROCE_REG_MR_PD,
	};
	struct roce_device *dev = *state;
	struct roce_mr_entry e;
	uint32_t want[sizeof(regs) / sizeof(regs[0])];

	mr_fill(dev, 4095, 0x200000, 0x1000);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		want[i] = rd(dev, regs[i]);
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_OK);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		wr(dev, regs[i], 0);
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_LOAD), ROCE_OK);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		assert_int_equal(rd(dev, regs[i]), want[i]);

	assert_int_equal(roce_mr_table_lookup_rkey(roce_device_mr_table(dev),
						   ROCE_MR_KEY(4095, 0xC7), &e), ROCE_OK);
	assert_true(e.valid);
	assert_int_equal(e.va, 0x00007FFF89ABC000ull);
	assert_int_equal(e.pa, 0x200000);
	assert_int_equal(e.len, 0x1000);
	assert_int_equal(e.access, 7);
	assert_int_equal(e.lkey, ROCE_MR_KEY(4095, 0x19));
	assert_int_equal(e.pd, 0x42);

	/* VALID = 0 and COMMIT invalidates; LOAD then shows an empty entry */
	wr(dev, ROCE_REG_MR_ACCESS, 0);
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_OK);
	assert_int_equal(roce_mr_table_lookup_rkey(roce_device_mr_table(dev),
						   ROCE_MR_KEY(4095, 0xC7), &e),
			 ROCE_E_RKEY);
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_LOAD), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_MR_ACCESS), 0);
	assert_int_equal(rd(dev, ROCE_REG_MR_LEN_LOW), 0);
}

static void test_mr_rejections(void **state)
{
	struct roce_device *dev = *state;

	mr_fill(dev, 20, 0, 0);                                /* zero length */
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_INVAL);
	mr_fill(dev, 20, MEM_SIZE, 0x1000);                    /* PA outside */
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_BOUNDS);
	mr_fill(dev, 20, MEM_SIZE - 0x800, 0x1000);            /* runs past */
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_BOUNDS);
	mr_fill(dev, 20, 1ull << 40, 0x1000);                  /* PA_HIGH */
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_BOUNDS);
	mr_fill(dev, 20, 0, 0x1000);
	wr(dev, ROCE_REG_MR_VA_HIGH, 0xFFFFFFFF);
	wr(dev, ROCE_REG_MR_VA_LOW, 0xFFFFF800);               /* VA wraps */
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_BOUNDS);
	mr_fill(dev, 20, 0, 0x1000);
	wr(dev, ROCE_REG_MR_RKEY, ROCE_MR_KEY(21, 0xC7));      /* wrong index */
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_RKEY);
	mr_fill(dev, 20, 0, 0x1000);
	wr(dev, ROCE_REG_MR_LKEY, 0x19);
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_LKEY);
	mr_fill(dev, 20, 0, 0x1000);
	wr(dev, ROCE_REG_MR_ACCESS, ROCE_MR_VALID | ROCE_ACCESS_REMOTE_WRITE);
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_E_ACCESS);
	/* nothing was registered */
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_LOAD), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_MR_ACCESS), 0);
	/* the whole of device memory is fine */
	mr_fill(dev, 20, 0, MEM_SIZE);
	assert_int_equal(cmd(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT), ROCE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qp_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qp_shadow_and_engine_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qp_rejections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mr_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mr_rejections, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
