/* SPDX-License-Identifier: MIT */
/*
 * Host driver over the local bus: probe, addresses, table entries, the
 * power-on sequence, the regression check, counters, wait-for-link, and
 * the error messages that name registers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "roce/bus.h"
#include "roce/counters.h"
#include "roce/device.h"
#include "roce/driver.h"

static const char cfg_text[] =
	"mac = 02:00:00:00:00:01\n"
	"ip = 10.0.0.1\n"
	"peer_mac = 02:00:00:00:00:02\n"
	"peer_ip = 10.0.0.2\n"
	"link_timeout_ms = 1000\n"
	"[qp 17]\n"
	"type = rc\n"
	"mtu = 4096\n"
	"dest_qpn = 0x12\n"
	"sq_psn = 0x1000\n"
	"rq_psn = 0x2000\n"
	"[qp 20]\n"
	"type = ud\n"
	"state = init\n"
	"qkey = 0x11111111\n"
	"[mr 3]\n"
	"va = 0x10000\n"
	"pa = 0\n"
	"len = 64K\n"
	"access = local_write,remote_write,remote_read\n"
	"rkey = 0x000003a7\n";

/* A clock the test moves by hand, for the link model. */
struct fake_clock {
	uint64_t ns;
};

static uint64_t fake_now(void *ctx)
{
	return __atomic_load_n(&((struct fake_clock *)ctx)->ns, __ATOMIC_RELAXED);
}

struct fix {
	struct roce_device *dev;
	struct roce_bus bus;
	struct roce_drv drv;
	struct roce_config cfg;
	struct fake_clock clk;
};

static int fix_setup_delay(void **state, uint32_t delay_us)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct roce_device_config dc = { .link_delay_us = delay_us,
					 .now_ns = fake_now };
	char err[256];

	assert_non_null(f);
	dc.clock_ctx = &f->clk;
	assert_int_equal(roce_device_create(&dc, &f->dev), ROCE_OK);
	assert_int_equal(roce_bus_open_local(&f->bus, f->dev), ROCE_OK);
	roce_drv_init(&f->drv, &f->bus);
	assert_int_equal(roce_config_parse(cfg_text, strlen(cfg_text), "t",
					   &f->cfg, err, sizeof(err)), ROCE_OK);
	*state = f;
	return 0;
}

static int fix_setup(void **state)
{
	return fix_setup_delay(state, 0);
}

/* A link that only comes up when the test moves the clock 1 s on. */
static int fix_setup_slow_link(void **state)
{
	return fix_setup_delay(state, 1000000);
}

static int fix_teardown(void **state)
{
	struct fix *f = *state;

	assert_int_equal(roce_bus_close(&f->bus), ROCE_OK);
	roce_device_destroy(f->dev);
	free(f);
	return 0;
}

static void test_probe(void **state)
{
	struct fix *f = *state;
	struct roce_dev_info in;

	assert_int_equal(roce_drv_probe(&f->drv, &in), ROCE_OK);
	assert_int_equal(in.dev_id, ROCE_DEV_ID_VALUE);
	assert_int_equal(in.version >> 16, ROCE_VERSION_MAJOR);
	assert_int_equal(in.qp_count, ROCE_MAX_QP);
	assert_int_equal(in.mr_count, ROCE_MAX_MR);
	assert_int_equal(in.mem_size_kb, ROCE_DEV_MEM_SIZE_DEFAULT / 1024);
}

/* A bus whose every read returns one value, like an empty PCIe slot. */
static int const_read(void *ctx, uint32_t off, uint32_t *val)
{
	(void)off;
	*val = *(uint32_t *)ctx;
	return ROCE_OK;
}

static int const_write(void *ctx, uint32_t off, uint32_t val)
{
	(void)ctx, (void)off, (void)val;
	return ROCE_OK;
}

static int const_close(void *ctx)
{
	(void)ctx;
	return ROCE_OK;
}

static const struct roce_bus_ops const_ops = {
	"const", const_read, const_write, const_close, NULL, NULL,
};

static void test_probe_absent_and_foreign(void **state)
{
	uint32_t v = 0xFFFFFFFFu;
	struct roce_bus bus = { &const_ops, &v };
	struct roce_dev_info in;
	struct roce_drv drv;

	(void)state;
	roce_drv_init(&drv, &bus);
	assert_int_equal(roce_drv_probe(&drv, &in), ROCE_E_NODEV);
	assert_non_null(strstr(drv.err, "DEV_ID"));
	v = 0x12345678u;
	assert_int_equal(roce_drv_probe(&drv, &in), ROCE_E_UNSUPPORTED);
	assert_non_null(strstr(drv.err, "0x12345678"));
}

static void test_addresses(void **state)
{
	struct fix *f = *state;
	struct roce_endpoint a = { { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 },
				   0xC0A80102u, 4791 }, b, p;
	uint32_t v;

	assert_int_equal(roce_drv_set_local(&f->drv, &a), ROCE_OK);
	assert_int_equal(roce_drv_get_local(&f->drv, &b), ROCE_OK);
	assert_memory_equal(a.mac, b.mac, 6);
	assert_int_equal(b.ip, a.ip);
	assert_int_equal(b.udp_port, 4791);
	/* The register layout the data path reads (roce/driver.h). */
	assert_int_equal(roce_drv_read(&f->drv, ROCE_REG_MAC_HIGH, &v), ROCE_OK);
	assert_int_equal(v, 0x0211);
	assert_int_equal(roce_drv_read(&f->drv, ROCE_REG_MAC_LOW, &v), ROCE_OK);
	assert_int_equal(v, 0x22334455);
	a.udp_port = 5000;
	a.mac[5] = 0x66;
	assert_int_equal(roce_drv_set_peer(&f->drv, &a), ROCE_OK);
	assert_int_equal(roce_drv_get_peer(&f->drv, &p), ROCE_OK);
	assert_memory_equal(a.mac, p.mac, 6);
	assert_int_equal(p.udp_port, 5000);
}

static void test_qp_mr_roundtrip(void **state)
{
	struct fix *f = *state;
	struct roce_qp_ctx q = f->cfg.qp[0], back;
	struct roce_mr_ctx m = f->cfg.mr[0], mback;

	q.state = ROCE_QPS_RESET;
	assert_int_equal(roce_drv_qp_write(&f->drv, &q), ROCE_OK);
	memset(&back, 0xAA, sizeof(back));
	assert_int_equal(roce_drv_qp_read(&f->drv, q.qpn, &back), ROCE_OK);
	assert_int_equal(back.qpn, 17);
	assert_int_equal(back.state, ROCE_QPS_RESET);
	assert_int_equal(back.type, ROCE_QPT_RC);
	assert_int_equal(back.mtu, ROCE_MTU_4096);
	assert_int_equal(back.dest_qpn, 0x12);
	assert_int_equal(back.sq_psn, 0x1000);
	assert_int_equal(back.rq_psn, 0x2000);
	assert_int_equal(back.peer_ip, 0x0A000002);
	assert_memory_equal(back.peer_mac, q.peer_mac, 6);
	assert_int_equal(back.pkey, 0xFFFF);
	assert_int_equal(back.timeout, 14);
	assert_int_equal(back.retry_cnt, 7);
	assert_int_equal(back.min_rnr_timer, 12);

	assert_int_equal(roce_drv_mr_write(&f->drv, &m), ROCE_OK);
	memset(&mback, 0, sizeof(mback));
	assert_int_equal(roce_drv_mr_read(&f->drv, 3, &mback), ROCE_OK);
	assert_true(mback.valid);
	assert_int_equal(mback.va, 0x10000);
	assert_int_equal(mback.len, 65536);
	assert_int_equal(mback.rkey, 0x3a7);
	assert_int_equal(mback.lkey, 0x3a7);
	assert_int_equal(mback.access, ROCE_ACCESS_LOCAL_WRITE |
			 ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ);
}

static void test_entry_codecs(void **state)
{
	struct roce_qp_ctx q = { .qpn = 5, .state = ROCE_QPS_RTS, .type = 2,
				 .mtu = 3, .access = 6, .dest_qpn = 0xABCDEF,
				 .sq_psn = 1, .rq_psn = 2, .peer_ip = 3,
				 .peer_mac = { 1, 2, 3, 4, 5, 6 }, .pkey = 0x8001,
				 .timeout = 31, .retry_cnt = 7, .rnr_retry = 6,
				 .min_rnr_timer = 31, .max_rd_atomic = 16,
				 .max_dest_rd_atomic = 15, .qkey = 0xdeadbeef,
				 .pd = 9 }, q2;
	struct roce_mr_ctx m = { .index = 7, .valid = true, .access = 5,
				 .va = 0x123456789ABCull, .pa = 0x1000,
				 .len = 0x100000000ull, .rkey = 0x7ff,
				 .lkey = 0x701, .pd = 4 }, m2;
	uint32_t qr[ROCE_QP_NREGS], qr2[ROCE_QP_NREGS], mr[ROCE_MR_NREGS];

	(void)state;
	roce_qp_to_regs(&q, qr);
	roce_qp_from_regs(5, qr, &q2);
	roce_qp_to_regs(&q2, qr2);
	assert_memory_equal(qr, qr2, sizeof(qr));
	assert_int_equal(q2.dest_qpn, 0xABCDEF);
	assert_int_equal(q2.max_dest_rd_atomic, 15);
	assert_int_equal(q2.min_rnr_timer, 31);
	assert_memory_equal(q2.peer_mac, q.peer_mac, 6);
	assert_int_equal(qr[9], 31u | 7u << 8 | 6u << 16 | 31u << 24);
	roce_mr_to_regs(&m, mr);
	assert_int_equal(mr[0], 5u | ROCE_MR_VALID);
	assert_int_equal(mr[6], 1);
	roce_mr_from_regs(7, mr, &m2);
	assert_true(m2.valid);
	assert_int_equal(m2.va, m.va);
	assert_int_equal(m2.len, m.len);
	assert_int_equal(m2.lkey, m.lkey);
}

/* The device refuses an entry: CMD_STATUS's code comes back, named. */
static void test_commit_rejected(void **state)
{
	struct fix *f = *state;
	struct roce_mr_ctx m = f->cfg.mr[0];
	struct roce_qp_ctx q = f->cfg.qp[0];

	m.rkey = 0x4a7;		/* index 4 in the key, entry 3 */
	assert_int_not_equal(roce_drv_mr_write(&f->drv, &m), ROCE_OK);
	assert_non_null(strstr(f->drv.err, "MR 3"));
	assert_non_null(strstr(f->drv.err, "MR_CMD_STATUS"));
	q.state = ROCE_QPS_RTS;	/* RESET -> RTS skips INIT and RTR */
	assert_int_equal(roce_drv_qp_write(&f->drv, &q), ROCE_E_STATE);
	assert_non_null(strstr(f->drv.err, "QP 17"));
}

static void test_errors_name_registers(void **state)
{
	struct fix *f = *state;
	uint32_t v;

	assert_int_equal(roce_drv_write(&f->drv, ROCE_REG_DEV_ID, 1),
			 ROCE_E_SLVERR);
	assert_non_null(strstr(f->drv.err, "DEV_ID"));
	assert_non_null(strstr(f->drv.err, "slverr"));
	assert_int_equal(roce_drv_read(&f->drv, 0x6, &v), ROCE_E_DECERR);
	assert_non_null(strstr(f->drv.err, "0x006"));
	assert_non_null(strstr(f->drv.err, "decerr"));
}

static void test_power_on(void **state)
{
	struct fix *f = *state;
	struct roce_qp_ctx q;
	struct roce_endpoint ep;
	unsigned nd = 99;
	uint32_t v;

	assert_int_equal(roce_drv_power_on(&f->drv, &f->cfg), ROCE_OK);
	assert_int_equal(roce_drv_read(&f->drv, ROCE_REG_CTRL, &v), ROCE_OK);
	assert_int_equal(v, ROCE_CTRL_ENGINE_EN);
	assert_int_equal(roce_drv_read(&f->drv, ROCE_REG_STATUS, &v), ROCE_OK);
	assert_true(v & ROCE_STATUS_RUNNING);
	assert_int_equal(roce_drv_get_local(&f->drv, &ep), ROCE_OK);
	assert_int_equal(ep.ip, 0x0A000001);
	assert_int_equal(roce_drv_qp_read(&f->drv, 17, &q), ROCE_OK);
	assert_int_equal(q.state, ROCE_QPS_RTS);	/* default target */
	assert_int_equal(roce_drv_qp_read(&f->drv, 20, &q), ROCE_OK);
	assert_int_equal(q.state, ROCE_QPS_INIT);
	assert_int_equal(q.qkey, 0x11111111);
	assert_int_equal(roce_drv_verify(&f->drv, &f->cfg, NULL, NULL, &nd),
			 ROCE_OK);
	assert_int_equal(nd, 0);
}

/* Every state a config may ask for is the state power-on leaves the QP
 * in, and verify agrees: ERR too, which the ladder never climbs to (the
 * power-on sequence once left such a QP in RESET). */
static void test_power_on_states(void **state)
{
	static const char text[] =
		"mac = 02:00:00:00:00:01\nip = 10.0.0.1\n"
		"peer_mac = 02:00:00:00:00:02\npeer_ip = 10.0.0.2\n"
		"[qp 30]\nstate = reset\n"
		"[qp 31]\nstate = init\n"
		"[qp 32]\nstate = rtr\ndest_qpn = 2\n"
		"[qp 33]\nstate = rts\ndest_qpn = 3\n"
		"[qp 34]\nstate = sqd\ndest_qpn = 4\n"
		"[qp 35]\nstate = err\ndest_qpn = 5\n"
		"[qp 36]\nstate = err\ntype = ud\n";
	static const enum roce_qp_state want[] = {
		ROCE_QPS_RESET, ROCE_QPS_INIT, ROCE_QPS_RTR, ROCE_QPS_RTS,
		ROCE_QPS_SQD, ROCE_QPS_ERR, ROCE_QPS_ERR,
	};
	struct fix *f = *state;
	struct roce_qp_ctx q;
	char err[256];
	unsigned nd = 99;

	assert_int_equal(roce_config_parse(text, strlen(text), "t", &f->cfg, err,
					   sizeof(err)), ROCE_OK);
	assert_int_equal(roce_drv_power_on(&f->drv, &f->cfg), ROCE_OK);
	for (uint32_t i = 0; i < 7; i++) {
		assert_int_equal(roce_drv_qp_read(&f->drv, 30 + i, &q), ROCE_OK);
		assert_int_equal(q.state, want[i]);
	}
	assert_int_equal(roce_drv_verify(&f->drv, &f->cfg, NULL, NULL, &nd), ROCE_OK);
	assert_int_equal(nd, 0);
}

struct diffs {
	unsigned n;
	char reg[8][48];
	uint32_t exp[8], act[8];
};

static void collect(const struct roce_verify_diff *d, void *arg)
{
	struct diffs *ds = arg;

	if (ds->n < 8) {
		strcpy(ds->reg[ds->n], d->reg);
		ds->exp[ds->n] = d->expected;
		ds->act[ds->n] = d->actual;
	}
	ds->n++;
}

static void test_verify_names_corruption(void **state)
{
	struct fix *f = *state;
	struct roce_qp_ctx q;
	struct diffs ds = { 0 };
	unsigned nd = 0;

	assert_int_equal(roce_drv_power_on(&f->drv, &f->cfg), ROCE_OK);
	assert_int_equal(roce_drv_write(&f->drv, ROCE_REG_PEER_IP, 0x0A000063),
			 ROCE_OK);
	assert_int_equal(roce_drv_qp_read(&f->drv, 17, &q), ROCE_OK);
	q.dest_qpn = 0x99;
	assert_int_equal(roce_drv_qp_write(&f->drv, &q), ROCE_OK);
	assert_int_equal(roce_drv_verify(&f->drv, &f->cfg, collect, &ds, &nd),
			 ROCE_E_MISMATCH);
	assert_int_equal(nd, 2);
	assert_int_equal(ds.n, 2);
	assert_string_equal(ds.reg[0], "PEER_IP");
	assert_int_equal(ds.exp[0], 0x0A000002);
	assert_int_equal(ds.act[0], 0x0A000063);
	assert_string_equal(ds.reg[1], "QP[17].QP_DEST_QPN");
	assert_int_equal(ds.exp[1], 0x12);
	assert_int_equal(ds.act[1], 0x99);
}

static void test_counters(void **state)
{
	struct fix *f = *state;
	struct roce_counter_value v[ROCE_CNT_COUNT];
	struct roce_counters *c = roce_device_counters(f->dev);
	uint64_t x;
	size_t n;

	roce_cnt_add(c, ROCE_CNT_TX_PKTS, (1ull << 32) + 5);
	roce_cnt_drop(c, ROCE_E_ICRC);
	assert_int_equal(roce_drv_counter_read(&f->drv, "tx_pkts", &x), ROCE_OK);
	assert_int_equal(x, (1ull << 32) + 5);
	assert_int_equal(roce_drv_counter_read(&f->drv, "STAT_ICRC_ERRORS", &x),
			 ROCE_OK);
	assert_int_equal(x, 1);
	assert_int_equal(roce_drv_counter_read(&f->drv, "STAT_DROP_ICRC_LOW", &x),
			 ROCE_OK);
	assert_int_equal(x, 1);
	assert_int_equal(roce_drv_counter_read(&f->drv, "MAC_LOW", &x),
			 ROCE_E_NOENT);
	assert_int_equal(roce_drv_counter_read(&f->drv, "nonsense", &x),
			 ROCE_E_NOENT);
	assert_non_null(strstr(f->drv.err, "nonsense"));
	assert_int_equal(roce_drv_counters_read(&f->drv, v, ROCE_CNT_COUNT, &n),
			 ROCE_OK);
	assert_int_equal(n, ROCE_CNT_COUNT);
	assert_string_equal(v[ROCE_CNT_TX_PKTS].name, "tx_pkts");
	assert_int_equal(v[ROCE_CNT_TX_PKTS].value, (1ull << 32) + 5);
	assert_int_equal(roce_drv_counters_read(&f->drv, v, 3, &n), ROCE_E_FULL);
}

/*
 * Seed 000 section 3.3: enabling before link-ready is accepted, but the
 * frames that arrive meanwhile are lost and counted; waiting for the link
 * with a deadline shorter than the bring-up times out cleanly.
 */
static void test_enable_before_link_ready(void **state)
{
	struct fix *f = *state;
	uint64_t lost;
	uint32_t v;

	assert_int_equal(roce_drv_soft_reset(&f->drv), ROCE_OK);
	assert_int_equal(roce_drv_write(&f->drv, ROCE_REG_CTRL, 0), ROCE_OK);
	assert_int_equal(roce_drv_enable(&f->drv, false), ROCE_OK);
	assert_int_equal(roce_drv_read(&f->drv, ROCE_REG_STATUS, &v), ROCE_OK);
	assert_true(v & ROCE_STATUS_RUNNING);
	assert_false(v & ROCE_STATUS_LINK_READY);
	assert_false(roce_device_rx_admit(f->dev));
	assert_int_equal(roce_drv_counter_read(&f->drv, "rx_lost_link_down",
					       &lost), ROCE_OK);
	assert_int_equal(lost, 1);

	assert_int_equal(roce_drv_wait_link(&f->drv, 20), ROCE_E_TIMEOUT);
	assert_non_null(strstr(f->drv.err, "link not ready"));

	__atomic_store_n(&f->clk.ns, 2000000000ull, __ATOMIC_RELAXED);
	assert_int_equal(roce_drv_wait_link(&f->drv, 20), ROCE_OK);
	assert_true(roce_device_rx_admit(f->dev));
	assert_int_equal(roce_drv_counter_read(&f->drv, "rx_lost_link_down",
					       &lost), ROCE_OK);
	assert_int_equal(lost, 1);
}

/* The power-on sequence never enables the engine before the link is up. */
static void test_power_on_link_timeout(void **state)
{
	struct fix *f = *state;
	uint32_t v;

	f->cfg.link_timeout_ms = 20;
	assert_int_equal(roce_drv_power_on(&f->drv, &f->cfg), ROCE_E_TIMEOUT);
	assert_non_null(strstr(f->drv.err, "step 6"));
	assert_int_equal(roce_drv_read(&f->drv, ROCE_REG_CTRL, &v), ROCE_OK);
	assert_false(v & ROCE_CTRL_ENGINE_EN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe, fix_setup, fix_teardown),
		cmocka_unit_test(test_probe_absent_and_foreign),
		cmocka_unit_test_setup_teardown(test_addresses, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_qp_mr_roundtrip, fix_setup,
						fix_teardown),
		cmocka_unit_test(test_entry_codecs),
		cmocka_unit_test_setup_teardown(test_commit_rejected, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_errors_name_registers,
						fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_power_on, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_power_on_states, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_verify_names_corruption,
						fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_counters, fix_setup,
						fix_teardown),
		cmocka_unit_test_setup_teardown(test_enable_before_link_ready,
						fix_setup_slow_link, fix_teardown),
		cmocka_unit_test_setup_teardown(test_power_on_link_timeout,
						fix_setup_slow_link, fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
