/* SPDX-License-Identifier: MIT */
/*
 * Nothing is allocated on the per-packet path: with malloc, calloc,
 * realloc and free of the whole process counted, thousands of packets of
 * every kind (and retransmissions through a lossy link) cross between two
 * engines without a single call. Setup and teardown may allocate.
 *
 * Once with one QP, once with 1K QPs busy at the same time.
 *
 * Sanitizers interpose malloc themselves; the test skips under them (the
 * release build runs it): tests/unit/alloc_count.h.
 */
#include "alloc_count.h"
#include "pair.h"

static void test_no_allocation_per_packet(void **state)
{
#ifdef ALLOC_COUNT_SANITIZED
	(void)state;
	skip();
#else
	struct pair_opts o = { .virtual_time = true, .timeout = 6,
			       .link = { .seed = 7, .loss = 0.05, .duplicate = 0.02 } };
	struct pair *p = pair_open(&o);
	static struct roce_wc wc[64];
	uint64_t done = 0, recvs = 0, posted = 0, polls = 0;
	uint64_t pkts;

	(void)state;
	/* warm up: the first poll of a QP reads its context, nothing more */
	pair_poll(p);
	alloc_counting = 1;
	while (done < 2000) {
		assert_true(++polls < 1000000);         /* a stuck QP ends here */
		while (posted < 2000 && posted - done < 32) {
			static const enum roce_wr_opcode ops[] = {
				ROCE_WR_RDMA_WRITE, ROCE_WR_SEND, ROCE_WR_RDMA_READ,
				ROCE_WR_ATOMIC_FETCH_AND_ADD, ROCE_WR_RDMA_WRITE_WITH_IMM,
			};
			enum roce_wr_opcode op = ops[posted % 5];
			struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf + (posted % 64) * 8192,
						op == ROCE_WR_ATOMIC_FETCH_AND_ADD ? 8 : 3000,
						p->a.mr->lkey };
			struct roce_sge rs = { (uint64_t)(uintptr_t)p->b.buf, 8192, p->b.mr->lkey };
			struct roce_recv_wr rw = { .wr_id = posted, .sg_list = &rs, .num_sge = 1 };
			struct roce_send_wr wr = { 0 };

			wr.wr_id = posted;
			wr.opcode = op;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.send_flags = ROCE_SEND_SIGNALED;
			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf + 65536;
			wr.wr.rdma.rkey = p->b.mr->rkey;
			if (op == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
				wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)p->b.buf + 8;
				wr.wr.atomic.rkey = p->b.mr->rkey;
				wr.wr.atomic.compare_add = 1;
			}
			if (op == ROCE_WR_SEND || op == ROCE_WR_RDMA_WRITE_WITH_IMM)
				assert_int_equal(roce_post_recv(p->b.qp, &rw, NULL), ROCE_OK);
			assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
			posted++;
		}
		pair_poll(p);
		for (int n = roce_poll_cq(p->a.scq, 64, wc), i = 0; i < n; i++, done++)
			assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		recvs += (uint64_t)roce_poll_cq(p->b.rcq, 64, wc);
	}
	alloc_counting = 0;
	pkts = pair_cnt(&p->a, ROCE_CNT_TX_PKTS) + pair_cnt(&p->b, ROCE_CNT_TX_PKTS);
	assert_true(pkts > 5000);
	assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) > 0);
	assert_true(recvs > 0);
	if (alloc_calls)
		fail_msg("%lu allocator calls for %llu packets", alloc_calls,
			 (unsigned long long)pkts);
	pair_close(p);
#endif
}

/*
 * The same with 1K QPs busy at once: the work finds the engine through
 * doorbells, the arbiter's queue and the timing wheel (sched.c, timer.c),
 * whose entries live in the QPs and in arrays sized at setup; losses arm,
 * fire and cancel retransmission timers all along.
 */
#ifndef ALLOC_COUNT_SANITIZED
#define MANY 1024u
#define MANY_MSGS 6u
#define MANY_WIN 3u
#define MANY_SLOT 4096u

static void post_many(struct pair *p, uint32_t i, uint32_t m)
{
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_RDMA_WRITE, ROCE_WR_SEND, ROCE_WR_RDMA_READ,
		ROCE_WR_ATOMIC_FETCH_AND_ADD, ROCE_WR_RDMA_WRITE_WITH_IMM,
	};
	enum roce_wr_opcode op = ops[(i + m) % 5];
	uint8_t *la = p->a.buf + (size_t)i * MANY_SLOT, *lb = p->b.buf + (size_t)i * MANY_SLOT;
	struct roce_sge sge = { (uint64_t)(uintptr_t)la,
				op == ROCE_WR_ATOMIC_FETCH_AND_ADD ? 8 : 512, p->a.mr->lkey };
	struct roce_sge rs = { (uint64_t)(uintptr_t)lb, 1024, p->b.mr->lkey };
	struct roce_recv_wr rw = { .wr_id = m, .sg_list = &rs, .num_sge = 1 };
	struct roce_send_wr wr = {
		.wr_id = (uint64_t)i << 32 | m, .opcode = op, .sg_list = &sge, .num_sge = 1,
		.send_flags = ROCE_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)lb + 1024;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	if (op == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)lb + 2048;
		wr.wr.atomic.rkey = p->b.mr->rkey;
		wr.wr.atomic.compare_add = 1;
	}
	if (op == ROCE_WR_SEND || op == ROCE_WR_RDMA_WRITE_WITH_IMM)
		assert_int_equal(roce_post_recv(p->b.qps[i], &rw, NULL), ROCE_OK);
	assert_int_equal(roce_post_send(p->a.qps[i], &wr, NULL), ROCE_OK);
}
#endif

static void test_no_allocation_with_many_qps(void **state)
{
#ifdef ALLOC_COUNT_SANITIZED
	(void)state;
	skip();
#else
	struct pair_opts o = {
		.virtual_time = true, .timeout = 6, .nqp = MANY,
		.sq_depth = MANY_WIN, .rq_depth = MANY_WIN, .max_sge = 1,
		.link = { .seed = 11, .loss = 0.05 },
	};
	struct pair *p = pair_open(&o);
	static uint32_t posted[MANY], done[MANY];
	static struct roce_wc wc[64];
	uint64_t total = 0, recvs = 0, polls = 0, pkts;

	(void)state;
	pair_poll(p);                   /* the contexts set up: read once */
	alloc_counting = 1;
	for (uint32_t i = 0; i < MANY; i++)
		for (; posted[i] < MANY_WIN; posted[i]++)
			post_many(p, i, posted[i]);
	while (total < MANY * MANY_MSGS) {
		assert_true(++polls < 100000);
		pair_poll(p);
		for (int n = roce_poll_cq(p->a.scq, 64, wc), k = 0; k < n; k++, total++) {
			uint32_t i = (uint32_t)(wc[k].wr_id >> 32);

			assert_int_equal(wc[k].status, ROCE_WC_SUCCESS);
			assert_int_equal((uint32_t)wc[k].wr_id, done[i]);
			done[i]++;
			if (posted[i] < MANY_MSGS)
				post_many(p, i, posted[i]++);
		}
		recvs += (uint64_t)roce_poll_cq(p->b.rcq, 64, wc);
	}
	alloc_counting = 0;
	pkts = pair_cnt(&p->a, ROCE_CNT_TX_PKTS) + pair_cnt(&p->b, ROCE_CNT_TX_PKTS);
	assert_true(pkts > 2 * MANY * MANY_MSGS);
	assert_true(pair_cnt(&p->a, ROCE_CNT_TIMEOUTS) > 0);
	assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) > 0);
	assert_true(recvs > 0);
	if (alloc_calls)
		fail_msg("%lu allocator calls for %llu packets", alloc_calls,
			 (unsigned long long)pkts);
	pair_close(p);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_allocation_per_packet),
		cmocka_unit_test(test_no_allocation_with_many_qps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
