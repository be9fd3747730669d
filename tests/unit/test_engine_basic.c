/* SPDX-License-Identifier: MIT */
/* Two engines on a clean link: every operation once, exact memory after. */
#include "pair.h"
#include "roce/driver.h"

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
	assert_true(pair_cnt(&p->a, ROCE_CNT_TX_PKTS) > 0);
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

/* CTRL.LOOPBACK: one device, two QPs connected to each other; frames
 * never reach the link. */
static void test_internal_loopback(void **state)
{
	struct roce_memlink_config lc = { 0 };
	struct roce_memlink *link;
	struct roce_port port;
	struct roce_context_attr ca = { .mac = { 2, 0, 0, 0, 0, 9 }, .ip = 0x0A000009 };
	struct roce_context *ctx;
	struct roce_qp *qp[2];
	struct roce_cq *cq;
	struct roce_pd *pd;
	struct roce_mr *mr;
	struct roce_memlink_stats st;
	uint8_t *buf;
	struct roce_wc wc;

	(void)state;
	assert_int_equal(roce_memlink_create(&lc, &link), ROCE_OK);
	assert_int_equal(roce_memlink_attach(link, ca.mac, &port), ROCE_OK);
	ca.port = &port;
	assert_int_equal(roce_open(&ca, &ctx), ROCE_OK);
	assert_int_equal(roce_drv_enable(roce_context_driver(ctx), true), ROCE_OK);
	pd = roce_alloc_pd(ctx);
	cq = roce_create_cq(ctx, 64);
	buf = roce_mem_alloc(ctx, 65536, 64);
	mr = roce_reg_mr(pd, buf, 65536, ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			 ROCE_ACCESS_REMOTE_READ);
	assert_non_null(mr);
	for (int i = 0; i < 2; i++) {
		struct roce_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = ROCE_QPT_RC,
						.cap = { 16, 16, 1, 1, 0 } };

		qp[i] = roce_create_qp(pd, &qa);
		assert_non_null(qp[i]);
	}
	for (int i = 0; i < 2; i++) {
		struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
					   .qp_access_flags = ROCE_ACCESS_REMOTE_WRITE |
							      ROCE_ACCESS_REMOTE_READ };

		assert_int_equal(roce_modify_qp(qp[i], &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
						ROCE_QP_ACCESS_FLAGS), ROCE_OK);
		at.qp_state = ROCE_QPS_RTR;
		at.path_mtu = ROCE_MTU_1024;
		at.dest_qp_num = roce_qp_num(qp[!i]);
		at.rq_psn = 100;
		at.max_dest_rd_atomic = 4;
		at.ah_attr.dest_ip = ca.ip;
		memcpy(at.ah_attr.dest_mac, ca.mac, 6);
		assert_int_equal(roce_modify_qp(qp[i], &at, ROCE_QP_STATE | ROCE_QP_AV |
						ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
						ROCE_QP_MAX_DEST_RD_ATOMIC), ROCE_OK);
		at.qp_state = ROCE_QPS_RTS;
		at.sq_psn = 100;
		at.timeout = 14;
		at.retry_cnt = 7;
		at.max_rd_atomic = 4;
		assert_int_equal(roce_modify_qp(qp[i], &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
						ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
						ROCE_QP_MAX_QP_RD_ATOMIC), ROCE_OK);
	}
	for (int i = 0; i < 5000; i++)
		buf[i] = (uint8_t)(i * 3);
	{
		struct roce_sge sge = { (uint64_t)(uintptr_t)buf, 5000, mr->lkey };
		struct roce_send_wr wr = { .wr_id = 1, .opcode = ROCE_WR_RDMA_WRITE, .sg_list = &sge,
					   .num_sge = 1, .send_flags = ROCE_SEND_SIGNALED };
		int got = 0;

		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)buf + 32768;
		wr.wr.rdma.rkey = mr->rkey;
		assert_int_equal(roce_post_send(qp[0], &wr, NULL), ROCE_OK);
		for (int i = 0; i < 1000 && !got; i++) {
			roce_engine_poll(ctx);
			got = roce_poll_cq(cq, 1, &wc);
		}
		assert_int_equal(got, 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		assert_memory_equal(buf + 32768, buf, 5000);
	}
	roce_memlink_get_stats(link, &st);
	assert_int_equal(st.sent, 0);           /* nothing left the device */
	roce_destroy_qp(qp[0]);
	roce_destroy_qp(qp[1]);
	roce_dereg_mr(mr);
	roce_destroy_cq(cq);
	roce_dealloc_pd(pd);
	roce_close(ctx);
	roce_memlink_destroy(link);
}

/* roce_mem_alloc: aligned as asked, disjoint, reusable after free. */
static void test_mem_alloc(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	static const size_t aligns[] = { 4096, 64, 8, 1 << 16, 3 /* not a power: 64 */ };
	uint8_t *b[5];

	(void)state;
	for (int i = 0; i < 5; i++) {
		size_t a = aligns[i] & (aligns[i] - 1) ? 64 : aligns[i];

		b[i] = roce_mem_alloc(p->a.ctx, 1000 + (size_t)i, aligns[i]);
		assert_non_null(b[i]);
		assert_int_equal((uintptr_t)b[i] % a, 0);
		memset(b[i], i + 1, 1000 + (size_t)i);
	}
	for (int i = 0; i < 5; i++)             /* nobody wrote over anybody */
		for (size_t k = 0; k < 1000 + (size_t)i; k++)
			assert_int_equal(b[i][k], i + 1);
	roce_mem_free(p->a.ctx, b[1]);
	roce_mem_free(p->a.ctx, b[3]);
	assert_non_null(roce_mem_alloc(p->a.ctx, 1000, 64));
	assert_null(roce_mem_alloc(p->a.ctx, (size_t)1 << 40, 64));   /* more than the DDR */
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_send_recv),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_internal_loopback),
		cmocka_unit_test(test_mem_alloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
