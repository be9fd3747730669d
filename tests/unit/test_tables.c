/* SPDX-License-Identifier: MIT */
/*
 * QP and MR tables: commit validation (every rejection and its status),
 * data-path lookups, engine state changes, and shadow/commit atomicity
 * under a hammering writer (labelled "tsan": run under ThreadSanitizer by
 * scripts/test --tsan).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "roce/device.h"
#include "roce/params.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "roce/tables.h"

#define MEM_SIZE (1u << 20)

/* A complete RC context, legal in every state. */
static struct roce_qp_cfg good_qp(enum roce_qp_state st)
{
	struct roce_qp_cfg c;

	memset(&c, 0, sizeof(c));
	c.state = (uint8_t)st;
	c.type = ROCE_QPT_RC;
	c.mtu = ROCE_MTU_1024;
	c.access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_LOCAL_WRITE;
	c.dest_qpn = 0x123456;
	c.sq_psn = 0xABCDEF;
	c.rq_psn = 0x000042;
	c.peer_ip = 0xC0A80002;
	memcpy(c.peer_mac, "\x02\x00\x00\x00\x00\x02", 6);
	c.pkey = 0xFFFF;
	c.timeout = 14;
	c.retry_cnt = 7;
	c.rnr_retry = 7;
	c.min_rnr_timer = 12;
	c.max_rd_atomic = 4;
	c.max_dest_rd_atomic = 4;
	c.qkey = 0x11111111;
	c.pd = 1;
	return c;
}

static void qp_goto(struct roce_qp_table *t, uint32_t qpn, enum roce_qp_state st)
{
	static const enum roce_qp_state path[] = {
		ROCE_QPS_INIT, ROCE_QPS_RTR, ROCE_QPS_RTS,
	};
	struct roce_qp_cfg c = good_qp(ROCE_QPS_RESET);

	assert_int_equal(roce_qp_table_commit(t, qpn, &c), ROCE_OK);
	if (st == ROCE_QPS_RESET)
		return;
	if (st == ROCE_QPS_ERR) {
		c = good_qp(ROCE_QPS_ERR);
		assert_int_equal(roce_qp_table_commit(t, qpn, &c), ROCE_OK);
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		c = good_qp(path[i]);
		assert_int_equal(roce_qp_table_commit(t, qpn, &c), ROCE_OK);
		if (path[i] == st)
			return;
	}
	if (st == ROCE_QPS_SQD) {
		c = good_qp(ROCE_QPS_SQD);
		assert_int_equal(roce_qp_table_commit(t, qpn, &c), ROCE_OK);
	} else {
		assert_int_equal(st, ROCE_QPS_SQE);
		assert_int_equal(roce_qp_table_set_state(t, qpn, ROCE_QPS_SQE),
				 ROCE_OK);
	}
}

static bool legal(int cur, int next)
{
	static const int ok[][2] = {
		{ ROCE_QPS_RESET, ROCE_QPS_INIT }, { ROCE_QPS_INIT, ROCE_QPS_INIT },
		{ ROCE_QPS_INIT, ROCE_QPS_RTR },   { ROCE_QPS_RTR, ROCE_QPS_RTS },
		{ ROCE_QPS_RTS, ROCE_QPS_RTS },    { ROCE_QPS_RTS, ROCE_QPS_SQD },
		{ ROCE_QPS_SQD, ROCE_QPS_RTS },    { ROCE_QPS_SQE, ROCE_QPS_RTS },
	};

	if (next == ROCE_QPS_RESET || next == ROCE_QPS_ERR)
		return true;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ok[i][0] == cur && ok[i][1] == next)
			return true;
	return false;
}

/* The whole 7x7 matrix of IBA 10.3.1 transitions. */
static void test_qp_transitions(void **state)
{
	struct roce_qp_table *t;
	uint32_t qpn = 100;

	(void)state;
	assert_int_equal(roce_qp_table_create(&t), ROCE_OK);
	for (int cur = ROCE_QPS_RESET; cur <= ROCE_QPS_ERR; cur++) {
		for (int next = ROCE_QPS_RESET; next <= ROCE_QPS_ERR; next++) {
			struct roce_qp_cfg c = good_qp(next), got;

			qp_goto(t, ++qpn, cur);
			assert_int_equal(roce_qp_table_commit(t, qpn, &c),
					 legal(cur, next) ? ROCE_OK : ROCE_E_STATE);
			assert_int_equal(roce_qp_table_lookup(t, qpn, &got, NULL),
					 ROCE_OK);
			assert_int_equal(got.state, legal(cur, next) ? next : cur);
		}
	}
	roce_qp_table_destroy(t);
}

static void expect_qp(struct roce_qp_table *t, uint32_t qpn,
		      const struct roce_qp_cfg *c, int want)
{
	struct roce_qp_cfg before, after;
	uint32_t g0, g1;

	assert_int_equal(roce_qp_table_lookup(t, qpn, &before, &g0), ROCE_OK);
	assert_int_equal(roce_qp_table_commit(t, qpn, c), want);
	assert_int_equal(roce_qp_table_lookup(t, qpn, &after, &g1), ROCE_OK);
	if (want != ROCE_OK) {  /* a rejected commit changes nothing */
		assert_memory_equal(&before, &after, sizeof(before));
		assert_int_equal(g0, g1);
	} else {
		assert_true(g1 != g0);
	}
}

/* Each QP rejection with its status code. */
static void test_qp_validation(void **state)
{
	struct roce_qp_table *t;
	struct roce_qp_cfg c;

	(void)state;
	assert_int_equal(roce_qp_table_create(&t), ROCE_OK);
	c = good_qp(ROCE_QPS_INIT);
	assert_int_equal(roce_qp_table_commit(t, ROCE_MAX_QP, &c), ROCE_E_QPN);
	assert_int_equal(roce_qp_table_commit(NULL, 1, &c), ROCE_E_INVAL);
	assert_int_equal(roce_qp_table_commit(t, 1, NULL), ROCE_E_INVAL);

#define RANGE_CASE(field, bad) do {                                           \
		c = good_qp(ROCE_QPS_INIT); c.field = bad;                    \
		expect_qp(t, 1, &c, ROCE_E_RANGE);                            \
	} while (0)
	RANGE_CASE(state, 7);
	RANGE_CASE(dest_qpn, 0x1000000);
	RANGE_CASE(sq_psn, 0x1000000);
	RANGE_CASE(rq_psn, 0xFFFFFFFF);
	RANGE_CASE(mtu, 6);
	RANGE_CASE(timeout, 32);
	RANGE_CASE(retry_cnt, 8);
	RANGE_CASE(rnr_retry, 8);
	RANGE_CASE(min_rnr_timer, 32);
	RANGE_CASE(max_rd_atomic, ROCE_MAX_RD_ATOMIC + 1);
	RANGE_CASE(max_dest_rd_atomic, ROCE_MAX_RD_ATOMIC + 1);
#undef RANGE_CASE
	c = good_qp(ROCE_QPS_INIT);
	c.type = 1;
	expect_qp(t, 1, &c, ROCE_E_INVAL);
	c = good_qp(ROCE_QPS_INIT);
	c.access = 0x10;
	expect_qp(t, 1, &c, ROCE_E_INVAL);

	/* what INIT needs: a type and a usable P_Key */
	c = good_qp(ROCE_QPS_INIT);
	c.type = 0;
	expect_qp(t, 1, &c, ROCE_E_INVAL);
	c = good_qp(ROCE_QPS_INIT);
	c.pkey = 0x8000;
	expect_qp(t, 1, &c, ROCE_E_INVAL);
	c = good_qp(ROCE_QPS_INIT);
	c.mtu = 0;                  /* not needed yet */
	expect_qp(t, 1, &c, ROCE_OK);

	/* what RTR needs: a path MTU and, for RC/UC, a peer */
	c = good_qp(ROCE_QPS_RTR);
	c.mtu = 0;
	expect_qp(t, 1, &c, ROCE_E_RANGE);
	c = good_qp(ROCE_QPS_RTR);
	c.peer_ip = 0;
	expect_qp(t, 1, &c, ROCE_E_INVAL);
	c = good_qp(ROCE_QPS_RTR);
	memset(c.peer_mac, 0, 6);
	expect_qp(t, 1, &c, ROCE_E_INVAL);
	c = good_qp(ROCE_QPS_RTR);
	c.peer_mac[0] = 0x01;       /* multicast */
	expect_qp(t, 1, &c, ROCE_E_INVAL);
	c = good_qp(ROCE_QPS_RTR);
	expect_qp(t, 1, &c, ROCE_OK);

	/* UD has no peer; RESET and ERR take anything in range */
	c = good_qp(ROCE_QPS_INIT);
	c.type = ROCE_QPT_UD;
	expect_qp(t, 2, &c, ROCE_OK);
	c.state = ROCE_QPS_RTR;
	c.peer_ip = 0;
	memset(c.peer_mac, 0, 6);
	expect_qp(t, 2, &c, ROCE_OK);
	memset(&c, 0, sizeof(c));
	c.state = ROCE_QPS_ERR;
	expect_qp(t, 2, &c, ROCE_OK);
	c.state = ROCE_QPS_RESET;
	expect_qp(t, 2, &c, ROCE_OK);
	roce_qp_table_destroy(t);
}

static void test_qp_lookup_and_engine(void **state)
{
	struct roce_qp_table *t;
	struct roce_qp_cfg c = good_qp(ROCE_QPS_INIT), got;
	uint32_t g0, g1;

	(void)state;
	assert_int_equal(roce_qp_table_create(&t), ROCE_OK);
	/* power-on: every QP in RESET, default P_Key, QPN = index */
	assert_int_equal(roce_qp_table_lookup(t, ROCE_MAX_QP - 1, &got, NULL), ROCE_OK);
	assert_int_equal(got.state, ROCE_QPS_RESET);
	assert_int_equal(got.pkey, 0xFFFF);
	assert_int_equal(got.qpn, ROCE_MAX_QP - 1);
	assert_int_equal(roce_qp_table_lookup(t, ROCE_MAX_QP, &got, NULL), ROCE_E_QPN);

	c.qpn = 999;                /* ignored: the index is the QPN */
	assert_int_equal(roce_qp_table_commit(t, 7, &c), ROCE_OK);
	assert_int_equal(roce_qp_table_lookup(t, 7, &got, &g0), ROCE_OK);
	c.qpn = 7;
	assert_memory_equal(&got, &c, offsetof(struct roce_qp_cfg, max_dest_rd_atomic) + 1);
	/* the state alone, and the generation alone, agree with lookup */
	assert_int_equal(roce_qp_table_state(t, 7), ROCE_QPS_INIT);
	assert_int_equal(roce_qp_table_state(t, 8), ROCE_QPS_RESET);
	assert_int_equal(roce_qp_table_state(t, ROCE_MAX_QP), ROCE_QPS_RESET);
	assert_int_equal(roce_qp_table_generation(t, 7), g0);

	/* engine moves */
	assert_int_equal(roce_qp_table_set_state(t, 7, ROCE_QPS_SQE), ROCE_E_STATE);
	assert_int_equal(roce_qp_table_set_state(t, 8, ROCE_QPS_ERR), ROCE_E_STATE);
	assert_int_equal(roce_qp_table_set_state(t, ROCE_MAX_QP, ROCE_QPS_ERR),
			 ROCE_E_QPN);
	assert_int_equal(roce_qp_table_set_state(t, 7, ROCE_QPS_INIT), ROCE_OK);
	assert_int_equal(roce_qp_table_lookup(t, 7, &got, &g1), ROCE_OK);
	assert_int_equal(g1, g0);   /* no-op */
	assert_int_equal(roce_qp_table_set_state(t, 7, ROCE_QPS_ERR), ROCE_OK);
	assert_int_equal(roce_qp_table_lookup(t, 7, &got, &g1), ROCE_OK);
	assert_int_equal(got.state, ROCE_QPS_ERR);
	assert_true(g1 != g0);
	assert_int_equal(got.sq_psn, c.sq_psn);    /* the rest is kept */
	qp_goto(t, 9, ROCE_QPS_RTS);
	assert_int_equal(roce_qp_table_set_state(t, 9, ROCE_QPS_SQE), ROCE_OK);

	/* soft reset */
	roce_qp_table_reset_all(t);
	assert_int_equal(roce_qp_table_lookup(t, 9, &got, NULL), ROCE_OK);
	assert_int_equal(got.state, ROCE_QPS_RESET);
	assert_int_equal(got.dest_qpn, 0x123456);
	assert_string_equal(roce_qp_state_name(ROCE_QPS_RTS), "RTS");
	assert_string_equal(roce_qp_state_name(7), "?");
	roce_qp_table_destroy(t);
}

static struct roce_mr_entry good_mr(uint32_t index)
{
	struct roce_mr_entry e;

	memset(&e, 0, sizeof(e));
	e.valid = true;
	e.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		   ROCE_ACCESS_REMOTE_READ;
	e.va = 0x7F0000001000ull;
	e.pa = 0x1000;
	e.len = 0x2000;
	e.rkey = ROCE_MR_KEY(index, 0xA5);
	e.lkey = ROCE_MR_KEY(index, 0x3C);
	e.pd = 1;
	return e;
}

static bool mr_equal(const struct roce_mr_entry *a, const struct roce_mr_entry *b)
{
	return a->va == b->va && a->pa == b->pa && a->len == b->len &&
	       a->rkey == b->rkey && a->lkey == b->lkey && a->pd == b->pd &&
	       a->access == b->access && a->valid == b->valid;
}

static void expect_mr(struct roce_mr_table *t, uint32_t index,
		      const struct roce_mr_entry *e, int want)
{
	struct roce_mr_entry before, after;

	assert_int_equal(roce_mr_table_lookup(t, index, &before), ROCE_OK);
	assert_int_equal(roce_mr_table_commit(t, index, e), want);
	assert_int_equal(roce_mr_table_lookup(t, index, &after), ROCE_OK);
	if (want != ROCE_OK)
		assert_memory_equal(&before, &after, sizeof(before));
}

/* Each MR rejection with its status code. */
static void test_mr_validation(void **state)
{
	struct roce_mr_table *t;
	struct roce_mr_entry e;

	(void)state;
	assert_int_equal(roce_mr_table_create(MEM_SIZE, &t), ROCE_OK);
	e = good_mr(5);
	assert_int_equal(roce_mr_table_commit(t, ROCE_MAX_MR, &e), ROCE_E_NOENT);
	assert_int_equal(roce_mr_table_commit(t, 5, NULL), ROCE_E_INVAL);
	e.access |= 1u << 4;
	expect_mr(t, 5, &e, ROCE_E_INVAL);
	e = good_mr(5);
	e.access = ROCE_ACCESS_REMOTE_WRITE;        /* no local write */
	expect_mr(t, 5, &e, ROCE_E_ACCESS);
	e.access = ROCE_ACCESS_REMOTE_ATOMIC;
	expect_mr(t, 5, &e, ROCE_E_ACCESS);
	e = good_mr(5);
	e.len = 0;
	expect_mr(t, 5, &e, ROCE_E_INVAL);
	e = good_mr(5);
	e.va = UINT64_MAX - 0xFFF;                  /* VA + len wraps */
	expect_mr(t, 5, &e, ROCE_E_BOUNDS);
	e = good_mr(5);
	e.pa = MEM_SIZE;                            /* starts outside */
	expect_mr(t, 5, &e, ROCE_E_BOUNDS);
	e.pa = MEM_SIZE - 0x1000;                   /* runs past the end */
	expect_mr(t, 5, &e, ROCE_E_BOUNDS);
	e.pa = UINT64_MAX - 0x1000;                 /* PA + len wraps */
	expect_mr(t, 5, &e, ROCE_E_BOUNDS);
	e = good_mr(5);
	e.rkey = ROCE_MR_KEY(6, 0xA5);
	expect_mr(t, 5, &e, ROCE_E_RKEY);
	e = good_mr(5);
	e.lkey = ROCE_MR_KEY(4, 0x3C);
	expect_mr(t, 5, &e, ROCE_E_LKEY);

	/* legal edges: the region may end exactly at the end of memory */
	e = good_mr(5);
	e.pa = MEM_SIZE - e.len;
	expect_mr(t, 5, &e, ROCE_OK);
	e = good_mr(6);
	e.access = 0;
	e.pa = 0;
	e.len = MEM_SIZE;
	expect_mr(t, 6, &e, ROCE_OK);

	/* VALID clear invalidates, whatever the other fields say */
	memset(&e, 0xFF, sizeof(e));
	e.valid = false;
	expect_mr(t, 6, &e, ROCE_OK);
	assert_int_equal(roce_mr_table_lookup(t, 6, &e), ROCE_OK);
	assert_false(e.valid);
	assert_int_equal(e.len, 0);
	assert_int_equal(roce_mr_table_lookup(t, ROCE_MAX_MR, &e), ROCE_E_NOENT);
	roce_mr_table_destroy(t);
}

static void test_mr_key_lookup(void **state)
{
	struct roce_mr_table *t;
	struct roce_mr_entry e = good_mr(9), got;

	(void)state;
	assert_int_equal(roce_mr_table_create(MEM_SIZE, &t), ROCE_OK);
	assert_int_equal(roce_mr_table_lookup_rkey(t, e.rkey, &got), ROCE_E_RKEY);
	assert_int_equal(roce_mr_table_commit(t, 9, &e), ROCE_OK);
	assert_int_equal(roce_mr_table_lookup_rkey(t, e.rkey, &got), ROCE_OK);
	assert_true(mr_equal(&got, &e));
	assert_int_equal(roce_mr_table_lookup_lkey(t, e.lkey, &got), ROCE_OK);
	assert_int_equal(got.pa, e.pa);
	/* the key byte matters: index alone does not open the region */
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t k = ROCE_MR_KEY(9, b);

		assert_int_equal(roce_mr_table_lookup_rkey(t, k, &got),
				 k == e.rkey ? ROCE_OK : ROCE_E_RKEY);
		assert_int_equal(roce_mr_table_lookup_lkey(t, k, &got),
				 k == e.lkey ? ROCE_OK : ROCE_E_LKEY);
	}
	/* an R_Key is not an L_Key and the other way round */
	assert_int_equal(roce_mr_table_lookup_rkey(t, e.lkey, &got), ROCE_E_RKEY);
	assert_int_equal(roce_mr_table_lookup_lkey(t, e.rkey, &got), ROCE_E_LKEY);
	assert_int_equal(roce_mr_table_lookup_rkey(t, 0xFFFFFFFF, &got), ROCE_E_RKEY);
	assert_int_equal(roce_mr_table_lookup_lkey(t, ROCE_MR_KEY(ROCE_MAX_MR, 0),
						   &got), ROCE_E_LKEY);
	/* same key byte on another index: a different key, no collision */
	e = good_mr(10);
	assert_int_equal(roce_mr_table_commit(t, 10, &e), ROCE_OK);
	assert_int_equal(roce_mr_table_lookup_rkey(t, ROCE_MR_KEY(10, 0xA5), &got),
			 ROCE_OK);
	assert_int_equal(ROCE_MR_KEY_INDEX(got.rkey), 10);
	roce_mr_table_clear_all(t);
	assert_int_equal(roce_mr_table_lookup_rkey(t, e.rkey, &got), ROCE_E_RKEY);
	assert_int_equal(roce_mr_table_lookup_lkey(t, ROCE_MR_KEY(9, 0x3C), &got),
			 ROCE_E_LKEY);
	roce_mr_table_destroy(t);
}

/* ---- shadow/commit atomicity under a hammering writer -------------------- */

#define HAMMER_QPN      5u
#define HAMMER_MR       7u
#define HAMMER_ITERS    200000u
#define HAMMER_NS       2000000000ull  /* writer: 2 s at most */
#define READER_NS       10000000000ull /* reader: stops with the writer, or 10 s */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Two full entries that differ in every field. RTS <-> SQD is legal both
 * ways (IBA 10.3.1), so the writer can alternate forever. */
static struct roce_qp_cfg qp_a(void)
{
	struct roce_qp_cfg c = good_qp(ROCE_QPS_RTS);

	c.qpn = HAMMER_QPN;
	return c;
}

static struct roce_qp_cfg qp_b(void)
{
	struct roce_qp_cfg c;

	memset(&c, 0, sizeof(c));
	c.qpn = HAMMER_QPN;
	c.state = ROCE_QPS_SQD;
	c.type = ROCE_QPT_UC;
	c.mtu = ROCE_MTU_4096;
	c.access = ROCE_ACCESS_REMOTE_READ;
	c.dest_qpn = 0x654321;
	c.sq_psn = 0x100000;
	c.rq_psn = 0xFFFFFF;
	c.peer_ip = 0x0A000001;
	memcpy(c.peer_mac, "\x0A\xBB\xCC\xDD\xEE\xFF", 6);
	c.pkey = 0x8001;
	c.timeout = 31;
	c.retry_cnt = 1;
	c.rnr_retry = 2;
	c.min_rnr_timer = 31;
	c.max_rd_atomic = 16;
	c.max_dest_rd_atomic = 1;
	c.qkey = 0x22222222;
	c.pd = 2;
	return c;
}

static struct roce_mr_entry mr_a(void)
{
	return good_mr(HAMMER_MR);
}

static struct roce_mr_entry mr_b(void)
{
	struct roce_mr_entry e;

	memset(&e, 0, sizeof(e));
	e.valid = true;
	e.access = ROCE_ACCESS_REMOTE_READ;
	e.va = 0x0000555500000000ull;
	e.pa = 0x80000;
	e.len = 0x40000;
	e.rkey = ROCE_MR_KEY(HAMMER_MR, 0x11);
	e.lkey = ROCE_MR_KEY(HAMMER_MR, 0x22);
	e.pd = 7;
	return e;
}

static bool qp_equal(const struct roce_qp_cfg *a, const struct roce_qp_cfg *b)
{
	return a->qpn == b->qpn && a->dest_qpn == b->dest_qpn &&
	       a->sq_psn == b->sq_psn && a->rq_psn == b->rq_psn &&
	       a->peer_ip == b->peer_ip && a->qkey == b->qkey && a->pd == b->pd &&
	       memcmp(a->peer_mac, b->peer_mac, 6) == 0 && a->pkey == b->pkey &&
	       a->state == b->state && a->type == b->type && a->mtu == b->mtu &&
	       a->access == b->access && a->timeout == b->timeout &&
	       a->retry_cnt == b->retry_cnt && a->rnr_retry == b->rnr_retry &&
	       a->min_rnr_timer == b->min_rnr_timer &&
	       a->max_rd_atomic == b->max_rd_atomic &&
	       a->max_dest_rd_atomic == b->max_dest_rd_atomic;
}

struct hammer {
	struct roce_device *dev;
	int done;               /* atomic: writer finished */
	unsigned writer_errors; /* bus errors or rejected commits */
	unsigned commits;
	unsigned long reads, torn, seen_a, seen_b, gen_back;
};

static unsigned bus_write(struct roce_device *dev, uint32_t off, uint32_t v)
{
	return roce_device_write32(dev, off, v) != ROCE_OK;
}

static unsigned commit_qp(struct roce_device *dev, const struct roce_qp_cfg *c)
{
	unsigned err = 0;
	uint32_t st = 1;

	err += bus_write(dev, ROCE_REG_QP_INDEX, HAMMER_QPN);
	err += bus_write(dev, ROCE_REG_QP_STATE, c->state);
	err += bus_write(dev, ROCE_REG_QP_TYPE_MTU,
			 c->type | (uint32_t)c->mtu << 8 | (uint32_t)c->access << 16);
	err += bus_write(dev, ROCE_REG_QP_DEST_QPN, c->dest_qpn);
	err += bus_write(dev, ROCE_REG_QP_SQ_PSN, c->sq_psn);
	err += bus_write(dev, ROCE_REG_QP_RQ_PSN, c->rq_psn);
	err += bus_write(dev, ROCE_REG_QP_PEER_IP, c->peer_ip);
	err += bus_write(dev, ROCE_REG_QP_PEER_MAC_HIGH,
			 (uint32_t)c->peer_mac[0] << 8 | c->peer_mac[1]);
	err += bus_write(dev, ROCE_REG_QP_PEER_MAC_LOW,
			 (uint32_t)c->peer_mac[2] << 24 | (uint32_t)c->peer_mac[3] << 16 |
			 (uint32_t)c->peer_mac[4] << 8 | c->peer_mac[5]);
	err += bus_write(dev, ROCE_REG_QP_PKEY, c->pkey);
	err += bus_write(dev, ROCE_REG_QP_TIMERS,
			 c->timeout | (uint32_t)c->retry_cnt << 8 |
			 (uint32_t)c->rnr_retry << 16 | (uint32_t)c->min_rnr_timer << 24);
	err += bus_write(dev, ROCE_REG_QP_RD_ATOMIC,
			 c->max_rd_atomic | (uint32_t)c->max_dest_rd_atomic << 8);
	err += bus_write(dev, ROCE_REG_QP_QKEY, c->qkey);
	err += bus_write(dev, ROCE_REG_QP_PD, c->pd);
	err += bus_write(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT);
	err += roce_device_read32(dev, ROCE_REG_QP_CMD_STATUS, &st) != ROCE_OK;
	return err + (st != ROCE_OK);
}

static unsigned commit_mr(struct roce_device *dev, const struct roce_mr_entry *e)
{
	unsigned err = 0;
	uint32_t st = 1;

	err += bus_write(dev, ROCE_REG_MR_INDEX, HAMMER_MR);
	err += bus_write(dev, ROCE_REG_MR_ACCESS, e->access | ROCE_MR_VALID);
	err += bus_write(dev, ROCE_REG_MR_VA_LOW, (uint32_t)e->va);
	err += bus_write(dev, ROCE_REG_MR_VA_HIGH, (uint32_t)(e->va >> 32));
	err += bus_write(dev, ROCE_REG_MR_PA_LOW, (uint32_t)e->pa);
	err += bus_write(dev, ROCE_REG_MR_PA_HIGH, (uint32_t)(e->pa >> 32));
	err += bus_write(dev, ROCE_REG_MR_LEN_LOW, (uint32_t)e->len);
	err += bus_write(dev, ROCE_REG_MR_LEN_HIGH, (uint32_t)(e->len >> 32));
	err += bus_write(dev, ROCE_REG_MR_RKEY, e->rkey);
	err += bus_write(dev, ROCE_REG_MR_LKEY, e->lkey);
	err += bus_write(dev, ROCE_REG_MR_PD, e->pd);
	err += bus_write(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_COMMIT);
	err += roce_device_read32(dev, ROCE_REG_MR_CMD_STATUS, &st) != ROCE_OK;
	return err + (st != ROCE_OK);
}

static void *hammer_writer(void *arg)
{
	struct hammer *h = arg;
	struct roce_qp_cfg qa = qp_a(), qb = qp_b();
	struct roce_mr_entry ma = mr_a(), mb = mr_b();
	uint64_t t0 = now_ns();
	unsigned i;

	for (i = 0; i < HAMMER_ITERS && now_ns() - t0 < HAMMER_NS; i++) {
		h->writer_errors += commit_qp(h->dev, (i & 1) ? &qb : &qa);
		h->writer_errors += commit_mr(h->dev, (i & 1) ? &mb : &ma);
	}
	h->commits = i;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *hammer_reader(void *arg)
{
	struct hammer *h = arg;
	struct roce_qp_table *qpt = roce_device_qp_table(h->dev);
	struct roce_mr_table *mrt = roce_device_mr_table(h->dev);
	struct roce_qp_cfg qa = qp_a(), qb = qp_b(), q;
	struct roce_mr_entry ma = mr_a(), mb = mr_b(), m;
	uint32_t gen, last_gen = 0;
	uint64_t t0 = now_ns();

	while (!__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) &&
	       now_ns() - t0 < READER_NS) {
		h->reads++;
		if (roce_qp_table_lookup(qpt, HAMMER_QPN, &q, &gen) != ROCE_OK)
			h->torn++;
		else if (qp_equal(&q, &qa))
			h->seen_a++;
		else if (qp_equal(&q, &qb))
			h->seen_b++;
		else
			h->torn++;
		if (gen < last_gen)
			h->gen_back++;
		last_gen = gen;
		if (roce_mr_table_lookup(mrt, HAMMER_MR, &m) != ROCE_OK ||
		    !(mr_equal(&m, &ma) || mr_equal(&m, &mb)))
			h->torn++;
		/* by key: either A's entry, or A's key no longer matches */
		switch (roce_mr_table_lookup_rkey(mrt, ma.rkey, &m)) {
		case ROCE_OK:
			h->torn += !mr_equal(&m, &ma);
			break;
		case ROCE_E_RKEY:
			break;
		default:
			h->torn++;
		}
	}
	return NULL;
}

static void test_commit_atomicity(void **state)
{
	struct hammer h;
	struct roce_qp_cfg qa = qp_a();
	struct roce_mr_entry ma = mr_a();
	pthread_t w, r;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(roce_device_create(NULL, &h.dev), ROCE_OK);
	qp_goto(roce_device_qp_table(h.dev), HAMMER_QPN, ROCE_QPS_RTS);
	assert_int_equal(commit_qp(h.dev, &qa), 0);
	assert_int_equal(commit_mr(h.dev, &ma), 0);

	assert_int_equal(pthread_create(&r, NULL, hammer_reader, &h), 0);
	assert_int_equal(pthread_create(&w, NULL, hammer_writer, &h), 0);
	assert_int_equal(pthread_join(w, NULL), 0);
	assert_int_equal(pthread_join(r, NULL), 0);

	assert_int_equal(h.writer_errors, 0);
	assert_true(h.commits > 100);
	assert_true(h.reads > 0);
	assert_int_equal(h.torn, 0);
	assert_int_equal(h.gen_back, 0);
	assert_int_equal(h.seen_a + h.seen_b, h.reads);
	roce_device_destroy(h.dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_transitions),
		cmocka_unit_test(test_qp_validation),
		cmocka_unit_test(test_qp_lookup_and_engine),
		cmocka_unit_test(test_mr_validation),
		cmocka_unit_test(test_mr_key_lookup),
		cmocka_unit_test(test_commit_atomicity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
