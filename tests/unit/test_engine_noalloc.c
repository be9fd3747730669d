/* SPDX-License-Identifier: MIT */
/*
 * Nothing is allocated on the per-packet path: with malloc, calloc,
 * realloc and free of the whole process counted, thousands of packets of
 * every kind (and retransmissions through a lossy link) cross between two
 * engines without a single call. Setup and teardown may allocate.
 *
 * Sanitizers interpose malloc themselves; the test skips under them (the
 * release build runs it).
 */
#include "pair.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifndef SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static volatile int counting;
static volatile unsigned long calls;

void *malloc(size_t n)
{
	if (counting)
		calls++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	if (counting)
		calls++;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	if (counting)
		calls++;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	if (counting && p)
		calls++;
	__libc_free(p);
}
#endif

static void test_no_allocation_per_packet(void **state)
{
#ifdef SANITIZED
	(void)state;
	skip();
#else
	struct pair_opts o = { .virtual_time = true, .timeout = 6,
			       .link = { .seed = 7, .loss = 0.05, .duplicate = 0.02 } };
	struct pair *p = pair_open(&o);
	static struct roce_wc wc[64];
	uint64_t done = 0, recvs = 0, posted = 0;
	uint64_t pkts;

	(void)state;
	/* warm up: the first poll of a QP reads its context, nothing more */
	pair_poll(p);
	counting = 1;
	while (done < 2000) {
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
	counting = 0;
	pkts = pair_cnt(&p->a, ROCE_CNT_TX_PKTS) + pair_cnt(&p->b, ROCE_CNT_TX_PKTS);
	assert_true(pkts > 5000);
	assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) > 0);
	assert_true(recvs > 0);
	if (calls)
		fail_msg("%lu allocator calls for %llu packets", calls, (unsigned long long)pkts);
	pair_close(p);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_allocation_per_packet),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
