/* SPDX-License-Identifier: MIT */
/*
 * The tools' and roce-run's loss-recovery and congestion-control words
 * (roce/cc_options.h): what each asks of the device, and the refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "roce/cc_options.h"
#include "roce/status.h"

/* Nothing asked: nothing written, and the config is the defaults. */
static void test_nothing_asked(void **state)
{
	struct roce_cc_options o;
	struct roce_cc_config c, d;

	(void)state;
	roce_cc_options_init(&o);
	assert_false(roce_cc_options_any(&o));
	roce_cc_options_config(&o, &c);
	roce_cc_config_default(&d);
	assert_memory_equal(&c, &d, sizeof(c));
	assert_null(roce_cc_config_check(&c));
	o.adaptive_rto = true;          /* the default already */
	assert_false(roce_cc_options_any(&o));
}

/* --iba-strict: no adaptive window, timer or window bound; the adaptive
 * timer alone when asked beside it; ECN stays off. */
static void test_iba_strict(void **state)
{
	struct roce_cc_options o;
	struct roce_cc_config c;

	(void)state;
	roce_cc_options_init(&o);
	o.iba_strict = true;
	assert_true(roce_cc_options_any(&o));
	roce_cc_options_config(&o, &c);
	assert_false(c.adaptive_rto);
	assert_false(c.adaptive_window);
	assert_int_equal(c.window_kb, 0);
	assert_int_equal(c.rp_prio_mask, 0);
	assert_int_equal(c.np_prio_mask, 0);
	o.adaptive_rto = true;
	o.window_kb = 64;
	roce_cc_options_config(&o, &c);
	assert_true(c.adaptive_rto);
	assert_false(c.adaptive_window);
	assert_int_equal(c.window_kb, 64);
	assert_null(roce_cc_config_check(&c));
}

/* --cc-algo turns the NP and the RP on, as --cc does, with that algorithm. */
static void test_algo(void **state)
{
	struct roce_cc_options o;
	struct roce_cc_config c;
	char why[128];

	(void)state;
	roce_cc_options_init(&o);
	assert_int_equal(roce_cc_options_algo(&o, "swift", why, sizeof(why)), ROCE_OK);
	assert_int_equal(o.algo, ROCE_CC_ALGO_SWIFT);
	roce_cc_options_config(&o, &c);
	assert_int_equal(c.algo, ROCE_CC_ALGO_SWIFT);
	assert_int_equal(c.rp_prio_mask, 0xFF);
	assert_int_equal(c.np_prio_mask, 0xFF);
	assert_int_equal(roce_cc_options_algo(&o, "dcqcn", why, sizeof(why)), ROCE_OK);
	assert_int_equal(o.algo, ROCE_CC_ALGO_DCQCN);
	assert_int_equal(roce_cc_options_algo(&o, "Swift", why, sizeof(why)), ROCE_E_INVAL);
	assert_string_equal(why, "'Swift' is not an algorithm (dcqcn, swift)");
	assert_int_equal(roce_cc_options_algo(&o, NULL, why, sizeof(why)), ROCE_E_INVAL);
	assert_int_equal(o.algo, ROCE_CC_ALGO_DCQCN);   /* a refusal changes nothing */
	assert_string_equal(roce_cc_algo_name(ROCE_CC_ALGO_SWIFT), "swift");
	assert_null(roce_cc_algo_name(ROCE_CC_ALGO_COUNT));
	c.algo = ROCE_CC_ALGO_COUNT;
	assert_string_equal(roce_cc_config_check(&c), "algo");
}

/* roce-run's environment: unset or empty asks nothing; bad values are
 * refused naming the variable. */
static void test_env(void **state)
{
	struct roce_cc_options o;
	char why[160];

	(void)state;
	unsetenv(ROCE_CC_ENV_IBA_STRICT);
	unsetenv(ROCE_CC_ENV_ALGO);
	assert_int_equal(roce_cc_options_env(&o, why, sizeof(why)), ROCE_OK);
	assert_false(roce_cc_options_any(&o));
	setenv(ROCE_CC_ENV_IBA_STRICT, "1", 1);
	setenv(ROCE_CC_ENV_ALGO, "", 1);
	assert_int_equal(roce_cc_options_env(&o, why, sizeof(why)), ROCE_OK);
	assert_true(o.iba_strict);
	assert_int_equal(o.algo, -1);
	setenv(ROCE_CC_ENV_IBA_STRICT, "0", 1);
	setenv(ROCE_CC_ENV_ALGO, "swift", 1);
	assert_int_equal(roce_cc_options_env(&o, why, sizeof(why)), ROCE_OK);
	assert_false(o.iba_strict);
	assert_int_equal(o.algo, ROCE_CC_ALGO_SWIFT);
	setenv(ROCE_CC_ENV_IBA_STRICT, "yes", 1);
	assert_int_equal(roce_cc_options_env(&o, why, sizeof(why)), ROCE_E_INVAL);
	assert_string_equal(why, "ROCE_IBA_STRICT=yes: 0 or 1");
	unsetenv(ROCE_CC_ENV_IBA_STRICT);
	setenv(ROCE_CC_ENV_ALGO, "timely", 1);
	assert_int_equal(roce_cc_options_env(&o, why, sizeof(why)), ROCE_E_INVAL);
	assert_string_equal(why, "ROCE_CC_ALGO=timely: 'timely' is not an algorithm (dcqcn, swift)");
	unsetenv(ROCE_CC_ENV_ALGO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_asked),
		cmocka_unit_test(test_iba_strict),
		cmocka_unit_test(test_algo),
		cmocka_unit_test(test_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
