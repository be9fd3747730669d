/* SPDX-License-Identifier: MIT */
/*
 * The engine thread's idle policy: quiet for a while, it sleeps until a
 * frame or a work request wakes it, or naps between polls where it cannot
 * be woken (a few % of a core instead of all of it), and still answers
 * the next request; the policy's bounds. Labelled "tsan": the engine thread
 * and the test's thread share the engine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "unit/pair.h"
#include "cpu_clock.h"


/* One signaled 8-byte WRITE from A, A driven here, B on its thread;
 * returns the milliseconds to its completion (fails after 2 s). */
static uint64_t write_once(struct pair *p, uint64_t id)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 8, p->a.mr->lkey };
	struct roce_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED,
	}, *bad;
	uint64_t t0 = pair_now_ms(), end = t0 + 2000;
	struct roce_wc wc;

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_OK);
	for (;;) {
		assert_true(pair_now_ms() < end);
		roce_engine_poll(p->a.ctx);
		if (roce_poll_cq(p->a.scq, 1, &wc) == 1)
			break;
	}
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, id);
	return pair_now_ms() - t0;
}

static void test_idle_thread_naps_and_answers(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024, .timeout = PAIR_THREAD_TIMEOUT };
	struct pair *p = pair_open(&o);
	uint64_t c0, used;

	(void)state;
	/* quiet after 1 ms, then 1 ms naps (no sleeping until woken): an
	 * idle thread is mostly asleep */
	assert_int_equal(roce_engine_set_idle(p->b.ctx, 1000, 1000), ROCE_OK);
	assert_int_equal(roce_engine_set_sleep(p->b.ctx, 0), ROCE_OK);
	assert_int_equal(roce_engine_start(p->b.ctx, -1), ROCE_OK);
	write_once(p, 1);
	sleep_ms(20);                   /* past the 1 ms of spinning */
	c0 = cpu_ns();
	sleep_ms(200);
	used = cpu_ns() - c0;
	/* a polling thread would use ~200 ms of CPU here (or all it gets on
	 * a loaded machine); napping, well under a quarter */
	assert_true(used < 50000000u);
	/* and it still answers: within a nap and the scheduler's delay */
	assert_true(write_once(p, 2) < 1000);
	memset(p->a.buf, 0x5A, 8);
	write_once(p, 3);
	assert_memory_equal(p->b.buf, p->a.buf, 8);
	roce_engine_stop(p->b.ctx);
	pair_close(p);
}

/* One signaled 8-byte WRITE from A with both engines on their threads;
 * fails unless it completes within 10 s. */
static void write_threaded(struct pair *p, uint64_t id, uint8_t fill)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 8, p->a.mr->lkey };
	struct roce_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED,
	}, *bad;
	uint64_t end = pair_now_ms() + 10000;
	struct roce_wc wc;

	memset(p->a.buf, fill, 8);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_OK);
	while (roce_poll_cq(p->a.scq, 1, &wc) != 1) {
		assert_true(pair_now_ms() < end);
		sleep_ms(1);
	}
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, id);
	assert_memory_equal(p->b.buf, p->a.buf, 8);
}

/*
 * Both engines on threads that may sleep a minute: once quiet they sleep
 * (and use next to no CPU), and a WRITE posted then completes within
 * seconds only because post_send wakes A, A's frame wakes B and B's ACK
 * wakes A. With a fault configured on the link, frames may arrive on
 * their own later, so the threads nap instead of sleeping.
 */
static void test_idle_thread_sleeps_until_woken(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024, .timeout = PAIR_THREAD_TIMEOUT };
	struct pair *p = pair_open(&o);
	uint64_t sa, wa, sb, wb, sa2, wa2, sb2, wb2, c0, used, t0;
	struct pair_side *sides[2] = { &p->a, &p->b };

	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(roce_engine_set_idle(sides[i]->ctx, 1000, 50), ROCE_OK);
		assert_int_equal(roce_engine_set_sleep(sides[i]->ctx, 60000), ROCE_OK);
		assert_int_equal(roce_engine_start(sides[i]->ctx, -1), ROCE_OK);
	}
	write_threaded(p, 1, 0x11);
	sleep_ms(50);                   /* past the 1 ms of spinning */
	roce_engine_sleep_stats(p->a.ctx, &sa, &wa);
	roce_engine_sleep_stats(p->b.ctx, &sb, &wb);
	assert_true(sa > 0 && sb > 0);
	c0 = cpu_ns();
	sleep_ms(200);
	used = cpu_ns() - c0;
	/* asleep: no naps, no polls (a napping pair would use several ms) */
	assert_true(used < 20000000u);
	for (uint64_t i = 2; i < 6; i++) {
		write_threaded(p, i, (uint8_t)(0x20 + i));
		sleep_ms(20);           /* asleep again before the next */
	}
	roce_engine_sleep_stats(p->a.ctx, &sa2, &wa2);
	roce_engine_sleep_stats(p->b.ctx, &sb2, &wb2);
	/* each WRITE woke both (the time limit is a minute) */
	assert_true(wa2 >= wa + 4);
	assert_true(wb2 >= wb + 4);
	/* a held frame may appear without a sender's burst: nap, not sleep */
	assert_int_equal(roce_memlink_set_faults(p->link, 0, 0.5, 0, 0), ROCE_OK);
	sleep_ms(30);
	roce_engine_sleep_stats(p->b.ctx, &sb, &wb);
	sleep_ms(50);
	roce_engine_sleep_stats(p->b.ctx, &sb2, &wb2);
	assert_int_equal(sb2, sb);
	write_threaded(p, 9, 0x99);
	/* stop wakes a sleeping thread: no waiting out the minute */
	assert_int_equal(roce_memlink_set_faults(p->link, 0, 0, 0, 0), ROCE_OK);
	sleep_ms(30);
	t0 = pair_now_ms();
	roce_engine_stop(p->a.ctx);
	roce_engine_stop(p->b.ctx);
	assert_true(pair_now_ms() - t0 < 10000);
	pair_close(p);
}

static void test_idle_policy_bounds(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024, .timeout = PAIR_THREAD_TIMEOUT };
	struct pair *p = pair_open(&o);

	(void)state;
	assert_int_equal(roce_engine_set_idle(NULL, 1000, 50), ROCE_E_RANGE);
	assert_int_equal(roce_engine_set_idle(p->a.ctx, 1000, 0), ROCE_E_RANGE);
	assert_int_equal(roce_engine_set_idle(p->a.ctx, 1000, 100001), ROCE_E_RANGE);
	assert_int_equal(roce_engine_set_idle(p->a.ctx, 0, 50), ROCE_OK);
	assert_int_equal(roce_engine_set_idle(p->a.ctx, 5, 100000), ROCE_OK);
	assert_int_equal(roce_engine_set_sleep(NULL, 10), ROCE_E_RANGE);
	assert_int_equal(roce_engine_set_sleep(p->a.ctx, 3600001u), ROCE_E_RANGE);
	assert_int_equal(roce_engine_set_sleep(p->a.ctx, 0), ROCE_OK);
	assert_int_equal(roce_engine_set_sleep(p->a.ctx, 3600000u), ROCE_OK);
	/* pure polling on a thread still moves traffic */
	assert_int_equal(roce_engine_set_idle(p->b.ctx, 0, 50), ROCE_OK);
	assert_int_equal(roce_engine_start(p->b.ctx, -1), ROCE_OK);
	assert_int_equal(roce_engine_start(p->b.ctx, -1), ROCE_E_STATE);
	write_once(p, 7);
	roce_engine_stop(p->b.ctx);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_thread_naps_and_answers),
		cmocka_unit_test(test_idle_thread_sleeps_until_woken),
		cmocka_unit_test(test_idle_policy_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
