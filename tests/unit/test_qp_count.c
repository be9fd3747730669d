/* SPDX-License-Identifier: MIT */
/*
 * The device's QP count (roce_device_config.qp_count, register QP_COUNT)
 * from every side: the register file and the QP table refuse QPNs beyond
 * it, the driver's power-on and regression check compare it with the
 * config's qp_count, and a verbs context hands out exactly the QPNs below it,
 * reusing freed ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device_io.h"

#include "roce/bus.h"
#include "roce/driver.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "roce/tables.h"
#include "roce/verbs.h"

#define SMALL 64u       /* the count most tests give the device */

static struct roce_device *make_dev(uint32_t qp_count)
{
	struct roce_device_config cfg = { .qp_count = qp_count };
	struct roce_device *dev = NULL;

	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_OK);
	return dev;
}

/* QP_COUNT reads the count; QP_INDEX at or above it answers SLVERR and
 * keeps its value, so the window never addresses a QP the device lacks;
 * the table itself refuses a commit beyond the count. */
static void test_register_file(void **state)
{
	struct roce_device *dev = make_dev(SMALL);
	struct roce_qp_table *qpt = roce_device_qp_table(dev);
	struct roce_qp_cfg c = { .state = ROCE_QPS_INIT, .type = ROCE_QPT_RC,
				 .pkey = 0xFFFF };

	(void)state;
	assert_int_equal(rd(dev, ROCE_REG_QP_COUNT), SMALL);
	assert_int_equal(rd(dev, ROCE_REG_MR_COUNT), ROCE_MAX_MR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_QP_COUNT, 128),
			 ROCE_E_SLVERR);        /* still read-only */
	assert_int_equal(rd(dev, ROCE_REG_QP_COUNT), SMALL);

	wr(dev, ROCE_REG_QP_INDEX, SMALL - 1);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_QP_INDEX, SMALL),
			 ROCE_E_SLVERR);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_QP_INDEX,
					     ROCE_MAX_QP - 1), ROCE_E_SLVERR);
	assert_int_equal(rd(dev, ROCE_REG_QP_INDEX), SMALL - 1);

	/* the last QP works through the window: COMMIT, then LOAD */
	wr(dev, ROCE_REG_QP_STATE, ROCE_QPS_INIT);
	wr(dev, ROCE_REG_QP_TYPE_MTU, ROCE_QPT_RC);
	wr(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_COMMIT);
	assert_int_equal(rd(dev, ROCE_REG_QP_CMD_STATUS), ROCE_OK);
	wr(dev, ROCE_REG_QP_STATE, 0);
	wr(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_LOAD);
	assert_int_equal(rd(dev, ROCE_REG_QP_CMD_STATUS), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_QP_STATE), ROCE_QPS_INIT);

	assert_int_equal(roce_qp_table_commit(qpt, SMALL - 1, &c), ROCE_OK);
	assert_int_equal(roce_qp_table_commit(qpt, SMALL, &c), ROCE_E_QPN);
	assert_int_equal(roce_qp_table_commit(qpt, ROCE_MAX_QP - 1, &c),
			 ROCE_E_QPN);
	assert_int_equal(roce_qp_table_set_count(qpt, 0), ROCE_E_RANGE);
	assert_int_equal(roce_qp_table_set_count(qpt, ROCE_MAX_QP + 1),
			 ROCE_E_RANGE);
	roce_device_destroy(dev);
}

/* 0 is the table's size; the smallest count keeps QPN 17 (the first
 * after the reserved ones) and no more; outside that, ROCE_E_RANGE. */
static void test_create_range(void **state)
{
	struct roce_device_config cfg = { 0 };
	struct roce_device *dev = (void *)1;

	(void)state;
	dev = make_dev(0);
	assert_int_equal(rd(dev, ROCE_REG_QP_COUNT), ROCE_MAX_QP);
	assert_int_equal(ROCE_MAX_QP, 16384);
	wr(dev, ROCE_REG_QP_INDEX, ROCE_MAX_QP - 1);
	roce_device_destroy(dev);

	dev = make_dev(ROCE_MAX_QP);
	assert_int_equal(rd(dev, ROCE_REG_QP_COUNT), ROCE_MAX_QP);
	roce_device_destroy(dev);

	dev = make_dev(ROCE_FIRST_QPN + 1);
	assert_int_equal(rd(dev, ROCE_REG_QP_COUNT), ROCE_FIRST_QPN + 1);
	wr(dev, ROCE_REG_QP_INDEX, ROCE_FIRST_QPN);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_QP_INDEX,
					     ROCE_FIRST_QPN + 1), ROCE_E_SLVERR);
	roce_device_destroy(dev);

	for (uint32_t bad = 1; bad <= ROCE_FIRST_QPN; bad++) {
		cfg.qp_count = bad;
		dev = (void *)1;
		assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_RANGE);
		assert_null(dev);
	}
	cfg.qp_count = ROCE_MAX_QP + 1;
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_RANGE);
	cfg.qp_count = UINT32_MAX;
	assert_int_equal(roce_device_create(&cfg, &dev), ROCE_E_RANGE);
}

/* ---- driver: power-on and verify against the config's qp_count ------ */

static const char cfg64[] =
	"mac = 02:00:00:00:00:01\nip = 10.0.0.1\nlink_timeout_ms = 1000\n"
	"qp_count = 64\n"
	"[qp 63]\ntype = ud\nstate = init\n";

struct drv_fix {
	struct roce_device *dev;
	struct roce_bus bus;
	struct roce_drv drv;
	struct roce_config cfg;
};

static struct drv_fix *drv_open(uint32_t qp_count)
{
	struct drv_fix *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(f);
	f->dev = make_dev(qp_count);
	assert_int_equal(roce_bus_open_local(&f->bus, f->dev), ROCE_OK);
	roce_drv_init(&f->drv, &f->bus);
	assert_int_equal(roce_config_parse(cfg64, strlen(cfg64), "t", &f->cfg,
					   err, sizeof(err)), ROCE_OK);
	assert_int_equal(f->cfg.qp_count, 64);
	return f;
}

static void drv_close(struct drv_fix *f)
{
	roce_bus_close(&f->bus);
	roce_device_destroy(f->dev);
	free(f);
}

struct one_diff {
	unsigned n;             /* QP_COUNT diffs seen */
	uint32_t exp, act;
};

static void keep_qp_count(const struct roce_verify_diff *d, void *arg)
{
	struct one_diff *o = arg;

	if (strcmp(d->reg, "QP_COUNT") == 0) {
		o->n++;
		o->exp = d->expected;
		o->act = d->actual;
	}
}

static void test_power_on(void **state)
{
	struct drv_fix *f = drv_open(SMALL);
	struct roce_qp_ctx q;
	unsigned nd = 99;

	(void)state;
	assert_int_equal(roce_drv_power_on(&f->drv, &f->cfg), ROCE_OK);
	assert_int_equal(roce_drv_qp_read(&f->drv, 63, &q), ROCE_OK);
	assert_int_equal(q.state, ROCE_QPS_INIT);
	assert_int_equal(roce_drv_verify(&f->drv, &f->cfg, NULL, NULL, &nd),
			 ROCE_OK);
	assert_int_equal(nd, 0);
	drv_close(f);
}

/* A device of another size is not the device the config describes:
 * power-on stops at the probe, verify names QP_COUNT. */
static void test_power_on_other_count(void **state)
{
	struct drv_fix *f = drv_open(0);
	struct one_diff d = { 0 };
	unsigned nd = 0;

	(void)state;
	assert_int_equal(roce_drv_power_on(&f->drv, &f->cfg), ROCE_E_MISMATCH);
	assert_string_equal(f->drv.err, "step 1 (probe): QP_COUNT 16384, but "
			    "the config says qp_count = 64");
	assert_int_equal(roce_drv_verify(&f->drv, &f->cfg, keep_qp_count, &d,
					 &nd), ROCE_E_MISMATCH);
	assert_true(nd >= 1);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.exp, 64);
	assert_int_equal(d.act, ROCE_MAX_QP);
	drv_close(f);
}

/* ---- verbs: QPNs below the count, O(1), reused ------------------------- */

struct vfix {
	struct roce_memlink *link;
	struct roce_port port;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp **qp;
};

static struct vfix *verbs_open(uint32_t qp_count)
{
	struct roce_memlink_config lc = { 0 };
	struct roce_context_attr ca = { .mac = { 2, 0, 0, 0, 0, 1 },
					.ip = 0x0A000001 };
	struct vfix *v = calloc(1, sizeof(*v));

	assert_non_null(v);
	v->qp = calloc(ROCE_MAX_QP, sizeof(*v->qp));
	assert_non_null(v->qp);
	assert_int_equal(roce_memlink_create(&lc, &v->link), ROCE_OK);
	assert_int_equal(roce_memlink_attach(v->link, ca.mac, &v->port), ROCE_OK);
	ca.port = &v->port;
	ca.dev.qp_count = qp_count;
	assert_int_equal(roce_open(&ca, &v->ctx), ROCE_OK);
	v->pd = roce_alloc_pd(v->ctx);
	v->cq = roce_create_cq(v->ctx, 16);
	assert_non_null(v->pd);
	assert_non_null(v->cq);
	return v;
}

static int create(struct vfix *v, struct roce_qp **out)
{
	struct roce_qp_init_attr qa = { .send_cq = v->cq, .recv_cq = v->cq,
					.qp_type = ROCE_QPT_RC,
					.cap = { 1, 1, 1, 1, 0 } };

	return roce_create_qp_status(v->pd, &qa, out);
}

/* Creates QPs until refused; returns how many, asserting the QPNs come
 * in order from ROCE_FIRST_QPN and the refusal is ROCE_E_FULL. */
static uint32_t fill(struct vfix *v)
{
	struct roce_qp_init_attr qa = { .send_cq = v->cq, .recv_cq = v->cq,
					.qp_type = ROCE_QPT_RC,
					.cap = { 1, 1, 1, 1, 0 } };
	struct roce_qp *extra = (void *)1;
	uint32_t n = 0;

	while (n < ROCE_MAX_QP && create(v, &v->qp[n]) == ROCE_OK) {
		assert_int_equal(roce_qp_num(v->qp[n]), ROCE_FIRST_QPN + n);
		n++;
	}
	assert_int_equal(create(v, &extra), ROCE_E_FULL);
	assert_null(extra);
	assert_null(roce_create_qp(v->pd, &qa));
	return n;
}

static void verbs_close(struct vfix *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (v->qp[i])
			roce_destroy_qp(v->qp[i]);
	roce_destroy_cq(v->cq);
	roce_dealloc_pd(v->pd);
	roce_close(v->ctx);
	roce_memlink_destroy(v->link);
	free(v->qp);
	free(v);
}

static void test_verbs_small(void **state)
{
	struct vfix *v = verbs_open(SMALL);
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF };
	struct roce_qp *again;
	uint32_t n, last;

	(void)state;
	n = fill(v);
	assert_int_equal(n, SMALL - ROCE_FIRST_QPN);
	last = n - 1;
	assert_int_equal(roce_qp_num(v->qp[last]), SMALL - 1);
	/* the last QP is a real one: its context moves through the table */
	assert_int_equal(roce_modify_qp(v->qp[last], &at, ROCE_QP_STATE |
					ROCE_QP_PKEY_INDEX), ROCE_OK);
	assert_int_equal(roce_qp_table_state(
		roce_device_qp_table(roce_context_device(v->ctx)), SMALL - 1),
		ROCE_QPS_INIT);

	/* a freed QPN is handed out again, and only that one */
	assert_int_equal(roce_destroy_qp(v->qp[40 - ROCE_FIRST_QPN]), ROCE_OK);
	v->qp[40 - ROCE_FIRST_QPN] = NULL;
	assert_int_equal(create(v, &again), ROCE_OK);
	assert_int_equal(roce_qp_num(again), 40);
	v->qp[40 - ROCE_FIRST_QPN] = again;
	assert_int_equal(create(v, &again), ROCE_E_FULL);

	/* freed numbers come back in the order they were freed */
	assert_int_equal(roce_destroy_qp(v->qp[last]), ROCE_OK);
	assert_int_equal(roce_destroy_qp(v->qp[0]), ROCE_OK);
	assert_int_equal(create(v, &v->qp[last]), ROCE_OK);
	assert_int_equal(roce_qp_num(v->qp[last]), SMALL - 1);
	assert_int_equal(create(v, &v->qp[0]), ROCE_OK);
	assert_int_equal(roce_qp_num(v->qp[0]), ROCE_FIRST_QPN);
	verbs_close(v, n);
}

/* While other numbers are free, a destroyed QP's number waits behind
 * them, so late packets for it meet no new QP at once. */
static void test_verbs_no_quick_reuse(void **state)
{
	struct vfix *v = verbs_open(SMALL);
	struct roce_qp *a, *b;

	(void)state;
	assert_int_equal(create(v, &a), ROCE_OK);
	assert_int_equal(roce_qp_num(a), ROCE_FIRST_QPN);
	assert_int_equal(roce_destroy_qp(a), ROCE_OK);
	assert_int_equal(create(v, &b), ROCE_OK);
	assert_int_equal(roce_qp_num(b), ROCE_FIRST_QPN + 1);
	assert_int_equal(roce_destroy_qp(b), ROCE_OK);
	verbs_close(v, 0);
}

/* The default device: every QPN up to 16383. */
static void test_verbs_default(void **state)
{
	struct vfix *v = verbs_open(0);
	uint32_t n;

	(void)state;
	n = fill(v);
	assert_int_equal(n, ROCE_MAX_QP - ROCE_FIRST_QPN);
	assert_int_equal(roce_qp_num(v->qp[n - 1]), ROCE_MAX_QP - 1);
	verbs_close(v, n);
}

/* The smallest device has room for one QP. */
static void test_verbs_smallest(void **state)
{
	struct vfix *v = verbs_open(ROCE_FIRST_QPN + 1);

	(void)state;
	assert_int_equal(fill(v), 1);
	verbs_close(v, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_file),
		cmocka_unit_test(test_create_range),
		cmocka_unit_test(test_power_on),
		cmocka_unit_test(test_power_on_other_count),
		cmocka_unit_test(test_verbs_small),
		cmocka_unit_test(test_verbs_no_quick_reuse),
		cmocka_unit_test(test_verbs_default),
		cmocka_unit_test(test_verbs_smallest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
