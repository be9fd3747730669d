/* SPDX-License-Identifier: MIT */
/*
 * Link bring-up with an injected clock (seed 000 section 2.2: wait for
 * gtpowergood, tx_resetdone and rx_resetdone before sending; section 3.3:
 * enabling too early loses the first frames).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "device_io.h"

#include "roce/counters.h"
#include "roce/device.h"
#include "roce/regs.h"
#include "roce/status.h"

#define DELAY_US 1000u
#define US 1000ull

#define PG  ROCE_STATUS_GT_POWERGOOD
#define TXD ROCE_STATUS_TX_RESET_DONE
#define RXD ROCE_STATUS_RX_RESET_DONE
#define RDY ROCE_STATUS_LINK_READY
#define ALL (PG | TXD | RXD | RDY)

struct fixture {
	uint64_t now;           /* the injected clock, ns */
	struct roce_device *dev;
};

static uint64_t fake_clock(void *ctx)
{
	return __atomic_load_n(&((struct fixture *)ctx)->now, __ATOMIC_RELAXED);
}

static void set_time(struct fixture *f, uint64_t ns)
{
	__atomic_store_n(&f->now, ns, __ATOMIC_RELAXED);
}

static int setup(void **state)
{
	static struct fixture f;
	struct roce_device_config cfg = {
		.link_delay_us = DELAY_US, .now_ns = fake_clock, .clock_ctx = &f,
	};

	f.now = 5 * US;         /* the device is created at t = 5 us */
	if (roce_device_create(&cfg, &f.dev) != ROCE_OK)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	roce_device_destroy(f->dev);
	return 0;
}

static uint64_t cnt(struct roce_device *dev, enum roce_cnt id)
{
	uint64_t lo = rd(dev, ROCE_REG_STAT_CNT_LOW(id));

	return lo | (uint64_t)rd(dev, ROCE_REG_STAT_CNT_HIGH(id)) << 32;
}

/* The three signals rise in order; LINK_READY with the last. STATUS,
 * STAT_LINK_STATUS and roce_device_link_bits agree. */
static void expect_bits(struct fixture *f, uint64_t t, uint32_t bits)
{
	set_time(f, t);
	assert_int_equal(roce_device_link_bits(f->dev), bits);
	assert_int_equal(rd(f->dev, ROCE_REG_STATUS) & ALL, bits);
	assert_int_equal(rd(f->dev, ROCE_REG_STAT_LINK_STATUS), bits);
	assert_int_equal(roce_device_link_ready(f->dev), bits == ALL);
}

static void test_bring_up_sequence(void **state)
{
	struct fixture *f = *state;
	uint64_t t0 = 5 * US;

	expect_bits(f, t0 - 1, 0);          /* a clock before the restart */
	expect_bits(f, t0, 0);
	expect_bits(f, t0 + 499 * US, 0);
	expect_bits(f, t0 + 500 * US, PG);
	expect_bits(f, t0 + 749 * US, PG);
	expect_bits(f, t0 + 750 * US, PG | TXD);
	expect_bits(f, t0 + 999 * US, PG | TXD);
	expect_bits(f, t0 + 1000 * US, ALL);
	expect_bits(f, t0 + 3600000 * US, ALL);
}

/* Enabling before link-ready is allowed, but frames are lost and counted. */
static void test_early_enable_loses_frames(void **state)
{
	struct fixture *f = *state;
	struct roce_device *dev = f->dev;

	/* disabled: lost, reason "disabled" */
	set_time(f, 2000 * US);
	assert_false(roce_device_rx_admit(dev));
	assert_int_equal(cnt(dev, ROCE_CNT_DROP_DISABLED), 1);

	/* reset, program, release at t = 10 ms, enable at once */
	set_time(f, 9000 * US);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CTRL, ROCE_CTRL_SOFT_RESET),
			 ROCE_OK);
	expect_bits(f, 9500 * US, 0);       /* held in reset: no link */
	set_time(f, 10000 * US);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN),
			 ROCE_OK);
	assert_true(roce_device_running(dev));
	assert_false(roce_device_link_ready(dev));
	for (int i = 0; i < 3; i++)
		assert_false(roce_device_rx_admit(dev));
	set_time(f, 10999 * US);
	assert_false(roce_device_rx_admit(dev));
	/* the soft reset zeroed the earlier count */
	assert_int_equal(cnt(dev, ROCE_CNT_RX_LOST_LINK_DOWN), 4);
	assert_int_equal(cnt(dev, ROCE_CNT_DROP_LINK_DOWN), 4);
	assert_int_equal(cnt(dev, ROCE_CNT_DROP_DISABLED), 0);

	set_time(f, 11000 * US);
	assert_true(roce_device_rx_admit(dev));
	assert_true(roce_device_rx_admit(dev));
	assert_int_equal(cnt(dev, ROCE_CNT_RX_LOST_LINK_DOWN), 4);
	assert_int_equal(rd(dev, ROCE_REG_STATUS), ALL | ROCE_STATUS_RUNNING);

	/* disabling again loses frames, reason "disabled"; the link stays up */
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CTRL, 0), ROCE_OK);
	assert_false(roce_device_rx_admit(dev));
	assert_true(roce_device_link_ready(dev));
	assert_int_equal(cnt(dev, ROCE_CNT_RX_LOST_LINK_DOWN), 5);
	assert_int_equal(cnt(dev, ROCE_CNT_DROP_DISABLED), 1);
}

/* Soft reset restarts the delay from the release, not from the assert. */
static void test_reset_restarts_delay(void **state)
{
	struct fixture *f = *state;

	expect_bits(f, 50000 * US, ALL);
	assert_int_equal(roce_device_write32(f->dev, ROCE_REG_CTRL,
					     ROCE_CTRL_SOFT_RESET), ROCE_OK);
	expect_bits(f, 60000 * US, 0);
	assert_int_equal(rd(f->dev, ROCE_REG_STATUS), ROCE_STATUS_IN_RESET);
	assert_int_equal(roce_device_write32(f->dev, ROCE_REG_CTRL, 0), ROCE_OK);
	expect_bits(f, 60999 * US, PG | TXD);
	expect_bits(f, 61000 * US, ALL);
	/* writing CTRL without a reset edge does not restart the link */
	assert_int_equal(roce_device_write32(f->dev, ROCE_REG_CTRL,
					     ROCE_CTRL_LOOPBACK), ROCE_OK);
	expect_bits(f, 61000 * US, ALL);
}

static void test_no_delay_real_clock(void **state)
{
	struct roce_device *dev;

	(void)state;
	assert_int_equal(roce_device_create(NULL, &dev), ROCE_OK);
	assert_true(roce_device_link_ready(dev));
	assert_int_equal(roce_device_link_bits(dev), ALL);
	assert_false(roce_device_rx_admit(dev));      /* not enabled yet */
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN),
			 ROCE_OK);
	assert_true(roce_device_rx_admit(dev));
	roce_device_destroy(dev);
}

/* ---- the data path asks while the control plane toggles the engine ----- */

#define ADMIT_CALLS 200000u

struct admit_race {
	struct roce_device *dev;
	unsigned long admitted, calls;
	int done;
};

static void *admit_loop(void *arg)
{
	struct admit_race *a = arg;

	for (a->calls = 0; a->calls < ADMIT_CALLS; a->calls++)
		a->admitted += roce_device_rx_admit(a->dev);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Every frame is either admitted or counted as lost, never both, never
 * neither (run under ThreadSanitizer by scripts/test --tsan). */
static void test_admit_race(void **state)
{
	struct admit_race a = { 0 };
	pthread_t t;
	unsigned toggles = 0;

	(void)state;
	assert_int_equal(roce_device_create(NULL, &a.dev), ROCE_OK);
	assert_int_equal(pthread_create(&t, NULL, admit_loop, &a), 0);
	while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE) && toggles < 1000000) {
		uint32_t v = (toggles++ & 1) ? ROCE_CTRL_ENGINE_EN : 0;

		assert_int_equal(roce_device_write32(a.dev, ROCE_REG_CTRL, v),
				 ROCE_OK);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a.calls, ADMIT_CALLS);
	assert_int_equal(a.admitted + cnt(a.dev, ROCE_CNT_RX_LOST_LINK_DOWN),
			 ADMIT_CALLS);
	assert_int_equal(cnt(a.dev, ROCE_CNT_RX_LOST_LINK_DOWN),
			 cnt(a.dev, ROCE_CNT_DROP_DISABLED));
	roce_device_destroy(a.dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bring_up_sequence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_early_enable_loses_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_restarts_delay, setup, teardown),
		cmocka_unit_test(test_no_delay_real_clock),
		cmocka_unit_test(test_admit_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
