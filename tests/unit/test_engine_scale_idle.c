/* SPDX-License-Identifier: MIT */
/*
 * The sleep decision does not depend on how many QPs exist: with every QP
 * a device holds connected (PAIR_MAX_QPS pairs), both engine threads go
 * to sleep once quiet (sched_idle reads counts and list heads, it walks no
 * QP), use next to no CPU asleep, and a work request posted on any one of
 * the QPs wakes them (its doorbell) and completes. Labelled "tsan": the
 * engine threads and the test's thread share the engines.
 */
#include <time.h>

#include "scale.h"
#include "cpu_clock.h"

#define NQP PAIR_MAX_QPS


/* Wait (10 s at most) until both engine threads have gone to sleep at
 * least once more than sa and sb times; returns their new counts. */
static void wait_asleep(struct pair *p, uint64_t *sa, uint64_t *sb)
{
	uint64_t end = pair_now_ms() + 10000, a, b, w;

	for (;;) {
		roce_engine_sleep_stats(p->a.ctx, &a, &w);
		roce_engine_sleep_stats(p->b.ctx, &b, &w);
		if (a > *sa && b > *sb)
			break;
		assert_true(pair_now_ms() < end);
		sleep_ms(5);
	}
	*sa = a;
	*sb = b;
}

/* One signaled 16-byte WRITE on QP k of A; both engines on their threads.
 * Returns the milliseconds to its completion (fails after 10 s: the
 * threads sleep a minute unless the doorbell and the frames wake them). */
static uint64_t write_on(struct pair *p, uint32_t k, uint32_t msg)
{
	uint8_t *src = p->a.buf + (size_t)k * 16, *dst = p->b.buf + (size_t)k * 16;
	struct roce_sge sge = { (uint64_t)(uintptr_t)src, 16, p->a.mr->lkey };
	struct roce_send_wr wr = {
		.wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED,
	}, *bad = NULL;
	uint64_t t0 = pair_now_ms(), end = t0 + 10000;
	struct roce_wc wc;

	scale_fill(src, 16, k, msg);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	assert_int_equal(roce_post_send(p->a.qps[k], &wr, &bad), ROCE_OK);
	while (roce_poll_cq(p->a.scq, 1, &wc) != 1) {
		assert_true(pair_now_ms() < end);
		sleep_ms(1);
	}
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, k);
	assert_int_equal(wc.qp_num, roce_qp_num(p->a.qps[k]));
	assert_true(scale_check(dst, 16, k, msg));
	return pair_now_ms() - t0;
}

static void test_sleeps_with_every_qp(void **state)
{
	struct pair_opts o = { .nqp = NQP, .sq_depth = 4, .rq_depth = 1, .max_sge = 1 };
	struct pair *p = pair_open(&o);
	const uint32_t qps[] = { 0, NQP / 2, NQP - 1 };
	uint64_t sa = 0, sb = 0, wa, wb, wa2, wb2, x, c0, used;

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct pair_side *s = i ? &p->b : &p->a;

		assert_int_equal(roce_engine_set_idle(s->ctx, 1000, 50), ROCE_OK);
		assert_int_equal(roce_engine_set_sleep(s->ctx, 60000), ROCE_OK);
		assert_int_equal(pair_start(s, -1), ROCE_OK);
	}
	/* the first polls take the 16K contexts set up; then quiet */
	wait_asleep(p, &sa, &sb);
	sleep_ms(20);
	c0 = cpu_ns();
	sleep_ms(200);
	used = cpu_ns() - c0;
	/* asleep: no polls, no naps (two polling threads would use ~400 ms,
	 * two napping ones several ms) */
	assert_true(used < 20000000u);
	for (unsigned i = 0; i < sizeof(qps) / sizeof(qps[0]); i++) {
		roce_engine_sleep_stats(p->a.ctx, &x, &wa);
		roce_engine_sleep_stats(p->b.ctx, &x, &wb);
		/* woken: by the doorbell (A), by A's frame (B), by B's ACK (A) */
		assert_true(write_on(p, qps[i], i) < 5000);
		roce_engine_sleep_stats(p->a.ctx, &x, &wa2);
		roce_engine_sleep_stats(p->b.ctx, &x, &wb2);
		assert_true(wa2 > wa);
		assert_true(wb2 > wb);
		/* and asleep again */
		wait_asleep(p, &sa, &sb);
	}
	pair_stop(&p->a);
	pair_stop(&p->b);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sleeps_with_every_qp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
