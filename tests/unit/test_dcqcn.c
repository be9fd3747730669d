/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's reaction point (src/cc/dcqcn.c) against rates computed by hand
 * from the paper's Algorithm 1 and Figure 6 and the firmware's knobs:
 * the first cut with ConnectX's defaults, a second CNP inside the
 * monitor period (cut at its end, with alpha as its updates left it), a
 * CNP train under the paper's profile, fast recovery, additive and hyper
 * increase, the byte counter, the way back to line rate, the floors
 * (rpg_min_dec_fac, rpg_min_rate), rate_to_set_on_first_cnp, alpha's
 * average between CNPs further apart than its period, and the knobs'
 * range checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cc/dcqcn.h"

#define GBPS(x) ((uint64_t)(x) * 1000000u)   /* in kbit/s */
#define US(x) ((uint64_t)(x) * 1000u)        /* in ns */

/* advance() at every deadline it gives up to and including t */
static void run_until(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t t)
{
	uint64_t d;

	while ((d = dcqcn_deadline(rp, p)) && d <= t)
		dcqcn_advance(rp, p, d);
}

static void test_first_cnp_mlx5(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;

	(void)state;
	dcqcn_params_mlx5(&p);
	assert_null(dcqcn_params_check(&p));
	dcqcn_init(&rp, GBPS(100));
	assert_false(rp.limited);
	assert_int_equal(dcqcn_rate(&rp), GBPS(100));
	assert_int_equal(dcqcn_advance(&rp, &p, US(1)), 0); /* nothing to do */
	dcqcn_cnp(&rp, &p, 0);
	assert_true(rp.limited);
	assert_int_equal(rp.alpha, 1023);
	/* 100e6 - floor(100e6 * 1023 / 2048) */
	assert_int_equal(rp.rc, 50048829);
	assert_int_equal(rp.rt, GBPS(100));     /* clamp_tgt_rate off: target kept */
	assert_int_equal(dcqcn_rate(&rp), 50048829);
	/* next: alpha's period (1 us) */
	assert_int_equal(dcqcn_deadline(&rp, &p), US(1));
}

/* A CNP 2 us after the cut: ConnectX cuts once per monitor period (4 us),
   at its end, with alpha as its 1 us updates left it. */
static void test_monitor_period(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;

	(void)state;
	dcqcn_params_mlx5(&p);
	dcqcn_init(&rp, GBPS(100));
	dcqcn_cnp(&rp, &p, 0);
	assert_int_equal(dcqcn_advance(&rp, &p, US(1)), US(2));
	assert_int_equal(rp.alpha, 1018);       /* 1023 * 1019 / 1024 */
	assert_int_equal(dcqcn_advance(&rp, &p, US(2)), US(3));
	assert_int_equal(rp.alpha, 1013);       /* 1018 * 1019 / 1024 */
	dcqcn_cnp(&rp, &p, US(2));
	assert_true(rp.cut_pending);
	assert_int_equal(rp.rc, 50048829);      /* not yet */
	assert_int_equal(rp.cuts, 1);
	dcqcn_advance(&rp, &p, US(3));
	assert_int_equal(rp.alpha, 1013);       /* 1013 * 1019 / 1024 + 5 */
	dcqcn_advance(&rp, &p, US(4));
	assert_int_equal(rp.alpha, 1008);       /* 1013 * 1019 / 1024 */
	assert_int_equal(rp.cuts, 2);
	assert_false(rp.cut_pending);
	/* 50048829 - floor(50048829 * 1008 / 2048) */
	assert_int_equal(rp.rc, 25415421);
}

/* The paper's profile: alpha 1, R_C halved; a CNP 50 us later halves it
   again (alpha still 1) and sets R_T to it; then five timer periods:
   four of fast recovery (halfway to R_T), the fifth additive (R_T + 40
   Mbit/s). */
static void test_paper_train_and_recovery(void **state)
{
	static const uint64_t rc_after[] = { 15000000, 17500000, 18750000, 19375000, 19707500 };
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;

	(void)state;
	dcqcn_params_paper(&p);
	assert_null(dcqcn_params_check(&p));
	dcqcn_init(&rp, GBPS(40));
	dcqcn_cnp(&rp, &p, 0);
	assert_int_equal(rp.alpha, 1024);
	assert_int_equal(rp.rc, GBPS(20));
	assert_int_equal(rp.rt, GBPS(40));
	run_until(&rp, &p, US(50));
	assert_int_equal(rp.increases, 0);      /* T = 55 us */
	dcqcn_cnp(&rp, &p, US(50));
	assert_int_equal(rp.rt, GBPS(20));      /* R_T = R_C at every cut */
	assert_int_equal(rp.rc, GBPS(10));
	assert_int_equal(rp.cuts, 2);
	for (unsigned i = 0; i < 5; i++) {
		run_until(&rp, &p, US(50 + 55 * (i + 1)));
		assert_int_equal(rp.time_stage, i + 1);
		assert_int_equal(rp.rc, rc_after[i]);
	}
	assert_int_equal(rp.rt, 20040000);
	/* alpha: 1024 at 55 us (the CNP at 50 us: 1024 * 1020 / 1024 + 4),
	   then four periods without one: 1020, 1016, 1012, 1008 */
	assert_int_equal(rp.alpha, 1008);
}

/* Stage counters past F: additive (both stages at most F), hyper (both
   past F: R_HAI times how far). */
static void test_additive_and_hyper(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;

	(void)state;
	dcqcn_params_paper(&p);
	dcqcn_init(&rp, GBPS(40));
	dcqcn_cnp(&rp, &p, 0);
	rp.rt = GBPS(10);
	rp.rc = GBPS(8);
	rp.time_stage = 5;                      /* the timer's 6th: additive */
	rp.t_alpha = US(1000);
	rp.t_inc = US(10);
	dcqcn_advance(&rp, &p, US(10));
	assert_int_equal(rp.rt, 10040000);      /* + 40 Mbit/s */
	assert_int_equal(rp.rc, 9020000);       /* (10.04e6 + 8e6) / 2 */
	assert_true(rp.timer_inc);
	rp.byte_stage = 7;
	rp.time_stage = 6;                      /* the timer's 7th: min 7 > F */
	rp.t_inc = US(20);
	dcqcn_advance(&rp, &p, US(20));
	assert_int_equal(rp.rt, 10440000);      /* + 2 * 200 Mbit/s */
	assert_int_equal(rp.rc, 9730000);
}

/* The byte counter: B bytes sent make an increase event, fewer none. */
static void test_byte_counter(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;
	uint64_t b;

	(void)state;
	dcqcn_params_paper(&p);
	b = (uint64_t)p.rpg_byte_reset * 64;
	assert_int_equal(b, 10u << 20);
	dcqcn_init(&rp, GBPS(40));
	dcqcn_sent(&rp, &p, 1u << 30);          /* not limited: nothing counts */
	assert_int_equal(rp.byte_stage, 0);
	dcqcn_cnp(&rp, &p, 0);
	dcqcn_sent(&rp, &p, (uint32_t)b - 1);
	assert_int_equal(rp.byte_stage, 0);
	assert_int_equal(rp.rc, GBPS(20));
	dcqcn_sent(&rp, &p, 1);
	assert_int_equal(rp.byte_stage, 1);
	assert_int_equal(rp.rc, GBPS(30));      /* fast recovery to R_T = 40e6 */
	assert_false(rp.timer_inc);
	/* the counter off: no event however much is sent */
	p.rpg_byte_reset = 0;
	dcqcn_sent(&rp, &p, 1u << 31);
	assert_int_equal(rp.byte_stage, 1);
}

/* Back within 1/1024 of line rate: unlimited, no deadline, line rate. */
static void test_back_to_line(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;
	unsigned steps = 0;

	(void)state;
	dcqcn_params_mlx5(&p);
	dcqcn_init(&rp, GBPS(100));
	dcqcn_cnp(&rp, &p, 0);
	while (rp.limited && steps++ < 100000)
		dcqcn_advance(&rp, &p, dcqcn_deadline(&rp, &p));
	assert_false(rp.limited);
	assert_int_equal(dcqcn_rate(&rp), GBPS(100));
	assert_int_equal(dcqcn_advance(&rp, &p, US(1000000)), 0);
	/* about log2(1024) = 10 halvings of the gap at 300 us each */
	assert_in_range(rp.increases, 9, 12);
	/* a CNP then is a first CNP again */
	dcqcn_cnp(&rp, &p, US(1000000));
	assert_int_equal(rp.alpha, 1023);
	assert_int_equal(rp.rc, 50048829);
}

/* ConnectX's defaults, a CNP every 10 us for 2 ms (a QP at a few Gbit/s
   in a 32:1 incast gets them so, or further apart): alpha follows the
   documented average, alpha * 1019/1024 a microsecond and + 5/1024 after
   a period with a CNP, to about 100/1024, and each CNP cuts by alpha/2.
   Truncated to 1024ths at every update it lost 1/1024 a microsecond,
   was 0 again 5 us after each CNP and ended at 0: no cut at all. */
static void test_alpha_between_cnps(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;
	double avg = 1023;              /* the documented average, unrounded */

	(void)state;
	dcqcn_params_mlx5(&p);
	dcqcn_init(&rp, GBPS(100));
	dcqcn_cnp(&rp, &p, 0);
	for (unsigned k = 1; k <= 200; k++) {
		run_until(&rp, &p, US(10 * k));
		for (unsigned j = 0; j < 10; j++)
			avg = avg * 1019 / 1024 + (j == 0 && k > 1 ? 5 : 0);
		/* its 1024ths, and what 2^-20 lost per update adds up to
		   (at most 2^-10 / (1 - 1019/1024) = 0.2/1024) */
		assert_true(rp.alpha <= avg && rp.alpha + 1.2 > avg);
		dcqcn_cnp(&rp, &p, US(10 * k));
	}
	assert_int_equal(rp.alpha, 100);        /* the average: 100.21 */
	assert_int_equal(rp.cuts, 201);
	rp.rc = GBPS(10);
	run_until(&rp, &p, US(2010));
	dcqcn_cnp(&rp, &p, US(2010));
	/* 10e6 - floor(10e6 * 100 / 2048) */
	assert_int_equal(rp.rc, 9511719);
}

static void test_floors(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;

	(void)state;
	dcqcn_params_mlx5(&p);
	p.rpg_gd = 1;                           /* a cut of ~alpha: 99.9 % ... */
	p.rate_reduce_monitor_period = 0;
	dcqcn_init(&rp, GBPS(100));
	dcqcn_cnp(&rp, &p, 0);
	assert_int_equal(rp.rc, GBPS(50));      /* ... held to rpg_min_dec_fac 50 % */
	for (unsigned i = 1; i <= 20; i++)
		dcqcn_cnp(&rp, &p, US(i));
	assert_int_equal(rp.rc, 1000);          /* rpg_min_rate: 1 Mbit/s */
	p.rpg_min_dec_fac = 10;
	dcqcn_init(&rp, GBPS(100));
	dcqcn_cnp(&rp, &p, 0);
	assert_int_equal(rp.rc, GBPS(90));
}

static void test_first_cnp_rate(void **state)
{
	struct roce_dcqcn_params p;
	struct dcqcn_rp rp;

	(void)state;
	dcqcn_params_mlx5(&p);
	p.rate_to_set_on_first_cnp = 1000;
	dcqcn_init(&rp, GBPS(100));
	dcqcn_cnp(&rp, &p, 0);
	assert_int_equal(rp.rc, GBPS(1));
	assert_int_equal(rp.rt, GBPS(1));
	assert_int_equal(rp.alpha, 1023);
	p.rate_to_set_on_first_cnp = 200000;    /* above line: line */
	dcqcn_init(&rp, GBPS(100));
	dcqcn_cnp(&rp, &p, 0);
	assert_int_equal(rp.rc, GBPS(100));
}

static void test_params_check(void **state)
{
	struct roce_dcqcn_params p;

	(void)state;
#define BAD(field, v, name)                                   \
	do {                                                  \
		dcqcn_params_mlx5(&p);                        \
		p.field = v;                                  \
		assert_string_equal(dcqcn_params_check(&p), name); \
	} while (0)
	BAD(rpg_time_reset, 0, "rpg_time_reset");
	BAD(rpg_threshold, 32, "rpg_threshold");
	BAD(rpg_gd, 0, "rpg_gd");
	BAD(rpg_min_dec_fac, 101, "rpg_min_dec_fac");
	BAD(rpg_min_rate, 0, "rpg_min_rate");
	BAD(dce_tcp_g, 1025, "dce_tcp_g");
	BAD(dce_tcp_rtt, 0, "dce_tcp_rtt");
	BAD(initial_alpha_value, 2000, "initial_alpha_value");
	BAD(cnp_dscp, 64, "cnp_dscp");
	BAD(cnp_802p_prio, 8, "cnp_802p_prio");
#undef BAD
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_cnp_mlx5),
		cmocka_unit_test(test_monitor_period),
		cmocka_unit_test(test_paper_train_and_recovery),
		cmocka_unit_test(test_additive_and_hyper),
		cmocka_unit_test(test_byte_counter),
		cmocka_unit_test(test_back_to_line),
		cmocka_unit_test(test_floors),
		cmocka_unit_test(test_first_cnp_rate),
		cmocka_unit_test(test_alpha_between_cnps),
		cmocka_unit_test(test_params_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
