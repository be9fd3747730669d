/* SPDX-License-Identifier: MIT */
/*
 * A completed send WQE's slot is free by the time its completion can be
 * polled (engine/comp.c): a program that keeps its send queue full, as
 * perftest keeps tx_depth WRs out, posts one WR for each completion it
 * polls and must never be told the queue is full. Both engines run on
 * their own threads, the test's thread polls and posts.
 */
#include <time.h>

#include "pair.h"

#define DEPTH 8
#define ROUNDS 20000

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int post_write(struct pair *p, uint64_t id)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 64, p->a.mr->lkey };
	struct roce_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = ROCE_WR_RDMA_WRITE,
		.send_flags = ROCE_SEND_SIGNALED,
	};
	struct roce_send_wr *bad;

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	return roce_post_send(p->a.qp, &wr, &bad);
}

static void test_refill_after_each_completion(void **state)
{
	struct pair_opts o = { .timeout = PAIR_THREAD_TIMEOUT, .sq_depth = DEPTH };
	struct pair *p = pair_open(&o);
	uint64_t posted = 0, done = 0, end = now_ms() + 60000;
	unsigned full = 0;

	(void)state;
	assert_int_equal(pair_start(&p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&p->b, -1), ROCE_OK);
	while (posted < DEPTH)
		assert_int_equal(post_write(p, posted++), ROCE_OK);
	while (done < ROUNDS && now_ms() < end) {
		struct roce_wc wc;
		int n = roce_poll_cq(p->a.scq, 1, &wc);

		assert_true(n >= 0);
		if (!n)
			continue;
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		done++;
		/* the slot of the WR just polled is free: post into it now */
		if (post_write(p, posted) == ROCE_E_FULL)
			full++;
		else
			posted++;
	}
	assert_int_equal(done, ROUNDS);
	assert_int_equal(full, 0);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refill_after_each_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
