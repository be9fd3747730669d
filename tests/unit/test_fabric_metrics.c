/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric's metrics (tools/roce-fabric/metrics.c) on constructed
 * traces: Jain's index of equal rates is 1 and of one sender that has it
 * all 1/N; the convergence point of a synthetic series of windows (the
 * first from which all are good, none when the last is not, a late
 * relapse moving it); percentiles by nearest rank below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce-fabric/fabric.h"

static void test_jain(void **state)
{
	double x[256];

	(void)state;
	for (unsigned i = 0; i < 256; i++)
		x[i] = 0.39;
	assert_true(fab_jain(x, 256) > 1 - 1e-12);
	for (unsigned n = 2; n <= 256; n *= 2) {
		for (unsigned i = 0; i < n; i++)
			x[i] = i == 0 ? 100 : 0;
		assert_true(fab_jain(x, n) > 1.0 / n - 1e-12 && fab_jain(x, n) < 1.0 / n + 1e-12);
	}
	/* half at 2, half at 1: 9 n^2/4 / (n 5n/2) = 0.9 */
	for (unsigned i = 0; i < 8; i++)
		x[i] = i < 4 ? 2 : 1;
	assert_true(fab_jain(x, 8) > 0.9 - 1e-12 && fab_jain(x, 8) < 0.9 + 1e-12);
	/* fewer than two, or nothing sent: nothing unfair */
	assert_true(fab_jain(x, 1) == 1.0);
	x[0] = x[1] = 0;
	assert_true(fab_jain(x, 2) == 1.0);
}

static void test_converge(void **state)
{
	/* unfair start, fair from window 3 on */
	const bool a[] = { false, true, false, true, true, true, true };
	/* a relapse at the end: not converged */
	const bool b[] = { true, true, true, true, false };
	/* fair throughout */
	const bool c[] = { true, true, true };
	/* fair only in the last window */
	const bool d[] = { false, false, true };

	(void)state;
	assert_int_equal(fab_converge(a, 7), 3);
	assert_int_equal(fab_converge(b, 5), 5);
	assert_int_equal(fab_converge(c, 3), 0);
	assert_int_equal(fab_converge(d, 3), 2);
	assert_int_equal(fab_converge(a, 0), 0);
}

static void test_percentile(void **state)
{
	uint32_t v[100];

	(void)state;
	for (unsigned i = 0; i < 100; i++)
		v[i] = (i * 37) % 100;          /* 0..99, shuffled */
	assert_int_equal(fab_percentile(v, 100, 0.99), 98);
	assert_int_equal(fab_percentile(v, 100, 0.5), 49);
	assert_int_equal(fab_percentile(v, 100, 0), 0);
	assert_int_equal(fab_percentile(v, 100, 1), 99);
	assert_int_equal(fab_percentile(v, 0, 0.99), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_converge),
		cmocka_unit_test(test_percentile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
