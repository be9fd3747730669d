/* SPDX-License-Identifier: MIT */
/*
 * Swift (src/cc/swift.c, through its operations table swift_algo.c)
 * against windows computed by hand from the paper's Algorithm 1 and
 * section 3.5, on a config built here and times given here: the target
 * with hop and flow scaling, additive increase above and below one
 * packet, multiplicative decrease (beta's, capped by max_mdf, at most
 * once per round trip), pacing below one packet, the timeout's decrease
 * and its reset to min_cwnd, the clamps, an ACK with no sample, CNPs
 * ignored, and the knobs' checks.
 *
 * The config: base_target 20 us, h 2 us, 1 hop assumed, fs_range 30 us
 * from fs_min_cwnd 0.25 to fs_max_cwnd 4 packets (square roots 0.5 and
 * 2: round numbers), ai 1, beta 0.8, max_mdf 0.5, windows 0.001 to 100
 * packets starting at 10, a reset after 3 timeouts; MTU 1024.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cc/algo.h"
#include "cc/swift.h"

#define UPKT SWIFT_UPKT
#define MTU 1024u

static void config(struct roce_cc_config *c)
{
	roce_cc_config_default(c);
	c->algo = ROCE_CC_ALGO_SWIFT;
	c->swift = (struct roce_swift_params){
		.base_target = 20000, .h = 2000, .hops = 1,
		.fs_range = 30000, .fs_min_cwnd = 250, .fs_max_cwnd = 4000,
		.ai = 1000, .beta = 800, .max_mdf = 500,
		.min_cwnd = 1, .max_cwnd = 100000, .init_cwnd = 10000,
		.retx_reset_threshold = 3,
	};
	assert_null(roce_cc_config_check(c));
}

struct qp {
	struct roce_cc_config c;
	struct cc_algo_priv priv;
	struct cc_grant g;
	struct roce_qp_cc r;
};

static const struct cc_algo_ops *ops(void)
{
	return cc_algos[CC_ALGO_SWIFT];
}

static void start(struct qp *q, uint32_t init_cwnd)
{
	config(&q->c);
	if (init_cwnd)
		q->c.swift.init_cwnd = init_cwnd;
	ops()->init(&q->priv, &q->c, MTU, &q->g);
	ops()->report(&q->priv, &q->r);
}

static void ack(struct qp *q, uint64_t now, uint64_t rtt, uint32_t psns, uint8_t hops)
{
	const struct cc_ack a = { .rtt_ns = rtt, .psns = psns, .hops = hops };

	ops()->on_ack(&q->priv, &q->c, now, &a, &q->g);
	ops()->report(&q->priv, &q->r);
}

static void timeout(struct qp *q, uint64_t now)
{
	ops()->on_loss(&q->priv, &q->c, now, &q->g);
	ops()->report(&q->priv, &q->r);
}

static void test_table(void **state)
{
	(void)state;
	assert_string_equal(ops()->name, "swift");
	assert_string_equal(roce_cc_algo_name(ROCE_CC_ALGO_SWIFT), "swift");
	/* CNPs are ignored (the engine counts them so), no timer, nothing
	   counted per paced packet */
	assert_null(ops()->on_cnp);
	assert_null(ops()->on_timer);
	assert_null(ops()->on_sent);
	assert_non_null(ops()->on_ack);
	assert_non_null(ops()->on_loss);
}

/* base_target + hops * h + fs_range * sqrt(0.25) * (2 - sqrt(cwnd)) /
   (sqrt(cwnd) * (2 - 0.5)), between 0 and fs_range */
static void test_target(void **state)
{
	struct roce_cc_config c;

	(void)state;
	config(&c);
	/* at or past fs_max_cwnd no flow scaling: 20 + 1 * 2 (the knob's hop) */
	assert_int_equal(swift_target(&c.swift, 10 * UPKT, 0), 22000);
	assert_int_equal(swift_target(&c.swift, 4 * UPKT, 0), 22000);
	/* three hops seen in the ACK's TTL */
	assert_int_equal(swift_target(&c.swift, 10 * UPKT, 3), 26000);
	/* one packet: 30 * 0.5 * 1 / (1 * 1.5) = 10 us */
	assert_int_equal(swift_target(&c.swift, UPKT, 0), 32000);
	/* 2.25 packets (sqrt 1.5): 30 * 0.5 * 0.5 / (1.5 * 1.5) = 3.333 us */
	assert_int_equal(swift_target(&c.swift, 2250000, 0), 25333);
	/* at fs_min_cwnd and below: all of fs_range */
	assert_int_equal(swift_target(&c.swift, 250000, 0), 52000);
	assert_int_equal(swift_target(&c.swift, 1000, 0), 52000);
	/* h 0: hops cost nothing */
	c.swift.h = 0;
	assert_int_equal(swift_target(&c.swift, UPKT, 5), 30000);
}

/* Below the target: ai / cwnd per packet acknowledged */
static void test_increase(void **state)
{
	struct qp q;

	(void)state;
	start(&q, 0);
	assert_int_equal(q.r.algo, ROCE_CC_ALGO_SWIFT);
	assert_int_equal(q.r.cwnd_upkts, 10 * UPKT);
	assert_false(q.g.limited);
	assert_int_equal(q.g.window, 10);
	assert_int_equal(q.g.rate_kbps, 100000000);     /* line rate */
	/* 15 us < 22 us: 2 packets: + 1 * 2 / 10 */
	ack(&q, 1000000, 15000, 2, 0);
	assert_int_equal(q.r.cwnd_upkts, 10200000);
	assert_int_equal(q.r.target_ns, 22000);
	assert_int_equal(q.r.rtt_ns, 15000);
	assert_int_equal(q.r.increases, 1);
	assert_int_equal(q.r.cuts, 0);
	/* one: + 1 / 10.2 = 0.098039 */
	ack(&q, 1001000, 15000, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 10298039);
	assert_int_equal(q.g.window, 10);
	/* a whole window's ACKs, one per packet: about ai (one packet) in
	   the round trip */
	for (int i = 0; i < 10; i++)
		ack(&q, 1002000 + (uint64_t)i * 1000, 15000, 1, 0);
	assert_in_range(q.r.cwnd_upkts, 11200000, 11300000);
	assert_int_equal(q.g.window, 11);
}

/* Below one packet: ai per packet acknowledged, and paced at cwnd * MTU /
   rtt with one packet in flight */
static void test_below_one_packet(void **state)
{
	struct qp q;

	(void)state;
	config(&q.c);
	start(&q, 500);                                 /* 0.5 packets */
	q.c.swift.ai = 100;                             /* 0.1 packets */
	assert_true(q.g.limited);
	assert_int_equal(q.g.window, 1);
	/* no sample yet: base_target stands for the round trip:
	   0.5 * 1024 B * 8 / 20 us = 204.8 Mbit/s */
	assert_int_equal(q.g.rate_kbps, 204800);
	ack(&q, 1000000, 15000, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 600000);       /* + 0.1 * 1 */
	assert_true(q.g.limited);
	assert_true(q.r.limited);
	assert_int_equal(q.r.window, 0);                /* reported: paced */
	/* 0.6 * 1024 * 8 / 15 us = 327.68 Mbit/s */
	assert_int_equal(q.g.rate_kbps, 327680);
	assert_int_equal(q.r.rate_kbps, 327680);
	/* four more: 1.0 packet, no longer paced */
	ack(&q, 1001000, 15000, 4, 0);
	assert_int_equal(q.r.cwnd_upkts, UPKT);
	assert_false(q.g.limited);
	assert_int_equal(q.g.window, 1);
	assert_int_equal(q.g.rate_kbps, 100000000);
}

/* Above the target: max(1 - beta (delay - target) / delay, 1 - max_mdf),
   once per round trip */
static void test_decrease(void **state)
{
	struct qp q;

	(void)state;
	start(&q, 0);
	/* 30 us against 22: 1 - 0.8 * 8 / 30 = 0.786667 */
	ack(&q, 1000000, 30000, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 7866670);
	assert_int_equal(q.r.cuts, 1);
	assert_int_equal(q.g.window, 7);
	/* 10 us later, inside the round trip: no second decrease */
	ack(&q, 1010000, 30000, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 7866670);
	assert_int_equal(q.r.cuts, 1);
	/* a round trip later, 100 us against 22: 1 - 0.8 * 0.78 = 0.376,
	   capped at 1 - max_mdf = 0.5 */
	ack(&q, 1100000, 100000, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 3933335);
	assert_int_equal(q.r.cuts, 2);
	/* an increase does not wait for the round trip: 3.93 packets, whose
	   flow scaling lifts the target: sqrt(3.933335) = 1.983263 (floor) */
	ack(&q, 1100001, 20000, 1, 0);
	assert_int_equal(q.r.target_ns, 22000 + 30000ull * 500000 * (2000000 - 1983263) /
						(1983263ull * 1500000));
	assert_int_equal(q.r.cwnd_upkts, 3933335 + 1000000ull * UPKT / 3933335);
	/* the window never goes below min_cwnd, above max_cwnd */
	start(&q, 100000);
	ack(&q, 1000000, 15000, 100, 0);
	assert_int_equal(q.r.cwnd_upkts, 100 * UPKT);
	assert_int_equal(q.r.increases, 0);
	start(&q, 1);
	ack(&q, 1000000, 1000000, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 1000);
	assert_int_equal(q.r.cuts, 0);
}

/* A timeout: 1 - max_mdf at most once per round trip; retx_reset_threshold
   of them in a row: min_cwnd; an ACK ends the row */
static void test_timeout(void **state)
{
	struct qp q;

	(void)state;
	start(&q, 0);
	ack(&q, 1000000, 15000, 1, 0);                  /* 10.1 packets, rtt 15 us */
	assert_int_equal(q.r.cwnd_upkts, 10100000);
	timeout(&q, 1010000);
	assert_int_equal(q.r.cwnd_upkts, 5050000);
	assert_int_equal(q.r.cuts, 1);
	timeout(&q, 1020000);                           /* 10 us: inside the RTT */
	assert_int_equal(q.r.cwnd_upkts, 5050000);
	timeout(&q, 1030000);                           /* the third in a row */
	assert_int_equal(q.r.cwnd_upkts, 1000);
	assert_int_equal(q.r.cuts, 2);
	/* 0.001 packets paced: 0.001 * 1024 * 8 / 15 us = 546 kbit/s */
	assert_true(q.g.limited);
	assert_int_equal(q.g.rate_kbps, 546);
	/* an ACK: ai per packet below one, and the row starts over */
	ack(&q, 1040000, 15000, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 1001000);
	assert_false(q.g.limited);
	timeout(&q, 1060000);
	timeout(&q, 1080000);
	assert_int_equal(q.r.cwnd_upkts, 250250);       /* halved twice, no reset */
	/* an ACK with no sample (Karn) ends the row too, and moves nothing */
	ack(&q, 1090000, 0, 1, 0);
	assert_int_equal(q.r.cwnd_upkts, 250250);
	assert_int_equal(q.r.rtt_ns, 15000);
	timeout(&q, 1110000);
	timeout(&q, 1130000);
	assert_int_equal(q.r.cwnd_upkts, 62562);
}

static void test_knobs(void **state)
{
	struct roce_cc_config c;
	unsigned n;
	const struct roce_cc_knob *k = roce_swift_knobs(&n);

	(void)state;
	assert_int_equal(n, ROCE_SWIFT_KNOB_COUNT);
	roce_cc_config_default(&c);
	/* the defaults, by name */
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(roce_swift_get(&c.swift, &k[i]), k[i].def);
	assert_int_equal(c.swift.beta, 800);
	assert_int_equal(c.swift.max_mdf, 500);
	assert_int_equal(c.swift.fs_min_cwnd, 100);
	assert_int_equal(c.swift.fs_max_cwnd, 100000);
	assert_int_equal(c.algo, ROCE_CC_ALGO_DCQCN);
	assert_int_equal(roce_swift_set(&c.swift, "beta", 1001), -2);
	assert_int_equal(roce_swift_set(&c.swift, "nope", 1), -1);
	assert_int_equal(roce_swift_set(&c.swift, "base_target", 50000), 0);
	assert_int_equal(c.swift.base_target, 50000);
	/* in range one by one, not together */
	c.swift.fs_min_cwnd = c.swift.fs_max_cwnd;
	assert_string_equal(roce_cc_config_check(&c), "fs_min_cwnd");
	roce_cc_config_default(&c);
	c.swift.min_cwnd = 2000;
	c.swift.max_cwnd = 1000;
	assert_string_equal(roce_cc_config_check(&c), "min_cwnd");
	roce_cc_config_default(&c);
	c.swift.max_mdf = 1000;                         /* a decrease to nothing */
	assert_string_equal(roce_cc_config_check(&c), "max_mdf");
	roce_cc_config_default(&c);
	c.algo = ROCE_CC_ALGO_COUNT;
	assert_string_equal(roce_cc_config_check(&c), "algo");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_increase),
		cmocka_unit_test(test_below_one_packet),
		cmocka_unit_test(test_decrease),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_knobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
