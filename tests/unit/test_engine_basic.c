/* SPDX-License-Identifier: MIT */
/* Two engines on a clean link: every operation once, exact memory after. */
#include "pair.h"

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131u + seed) ^ (i >> 8));
}

static void test_write_read(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 5000, p->a.mr->lkey };
	struct roce_send_wr wr = { 0 };

	(void)state;
	fill(p->a.buf, 5000, 7);
	wr.wr_id = 1;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf + 100;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_memory_equal(p->b.buf + 100, p->a.buf, 5000);
	assert_int_equal(p->b.buf[99], 0);
	assert_int_equal(p->b.buf[5100], 0);

	/* read it back into another place */
	sge.addr = (uint64_t)(uintptr_t)p->a.buf + 100000;
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_RDMA_READ;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_memory_equal(p->a.buf + 100000, p->a.buf, 5000);
	assert_true(side_cnt(&p->a, ROCE_CNT_TX_PKTS) > 0);
	pair_close(p);
}

static void test_send_recv(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge ssge = { (uint64_t)(uintptr_t)p->a.buf, 3000, p->a.mr->lkey };
	struct roce_sge rsge = { (uint64_t)(uintptr_t)p->b.buf + 64, 4000, p->b.mr->lkey };
	struct roce_recv_wr rwr = { .wr_id = 77, .sg_list = &rsge, .num_sge = 1 };
	struct roce_send_wr wr = { 0 };
	struct roce_wc wc;

	(void)state;
	fill(p->a.buf, 3000, 3);
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, NULL), ROCE_OK);
	wr.wr_id = 5;
	wr.opcode = ROCE_WR_SEND_WITH_IMM;
	wr.imm_data = 0x11223344;
	wr.sg_list = &ssge;
	wr.num_sge = 1;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.opcode, ROCE_WC_RECV);
	assert_int_equal(wc.byte_len, 3000);
	assert_true(wc.wc_flags & ROCE_WC_WITH_IMM);
	assert_int_equal(wc.imm_data, 0x11223344);
	assert_memory_equal(p->b.buf + 64, p->a.buf, 3000);
	pair_close(p);
}

static void test_atomics(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf + 8, 8, p->a.mr->lkey };
	struct roce_send_wr wr = { 0 };
	uint64_t v = 1000, got;

	(void)state;
	memcpy(p->b.buf + 64, &v, 8);
	wr.wr_id = 9;
	wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)p->b.buf + 64;
	wr.wr.atomic.rkey = p->b.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	memcpy(&got, p->a.buf + 8, 8);
	assert_int_equal(got, 1000);
	memcpy(&got, p->b.buf + 64, 8);
	assert_int_equal(got, 1005);

	wr.wr_id = 10;
	wr.opcode = ROCE_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 1005;
	wr.wr.atomic.swap = 42;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	memcpy(&got, p->a.buf + 8, 8);
	assert_int_equal(got, 1005);
	memcpy(&got, p->b.buf + 64, 8);
	assert_int_equal(got, 42);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_send_recv),
		cmocka_unit_test(test_atomics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
