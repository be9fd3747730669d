/* SPDX-License-Identifier: MIT */
/*
 * roce_resize_cq (ibv_resize_cq): a CQ grows and shrinks with the
 * completions it holds kept, in order; shrinking below them is refused
 * and leaves the CQ as it was; an overrun CQ cannot be resized; sizes out
 * of range are refused; completions keep arriving after each resize, the
 * ring's full size usable (an overrun exactly one past it).
 *
 * roce_rereg_mr (ibv_rereg_mr): B's MR without remote write, or moved to
 * another PD than its QP's, refuses A's WRITE (remote access error); put
 * back, the WRITE lands; bad input changes nothing.
 *
 * No MR gets the key 0.
 */
#include "roce/tables.h"
#include "unit/pair.h"

/* n signaled 64-byte WRITEs from A to B, ids first.., not polled */
static void writes(struct pair *p, uint64_t first, int n)
{
	for (int i = 0; i < n; i++) {
		struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf + 64u * (unsigned)i, 64,
					p->a.mr->lkey };
		struct roce_send_wr wr = {
			.wr_id = first + (uint64_t)i, .sg_list = &sge, .num_sge = 1,
			.opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED,
		}, *bad;

		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf + 64u * (unsigned)i;
		wr.wr.rdma.rkey = p->b.mr->rkey;
		assert_int_equal(roce_post_send(p->a.qps[0], &wr, &bad), ROCE_OK);
	}
	/* the engines until every ACK is in and every completion posted */
	for (int k = 0; k < 20000; k++)
		pair_poll(p);
}

static void expect_ids(struct roce_cq *cq, uint64_t first, int n)
{
	struct roce_wc wc[64];

	assert_true(n <= 64);
	assert_int_equal(roce_poll_cq(cq, 64, wc), n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, first + (uint64_t)i);
	}
}

static void test_resize(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024, .cq_depth = 8, .sq_depth = 64 };
	struct pair *p = pair_open(&o);
	struct roce_wc wc;

	(void)state;
	/* 6 held in a ring of 8, around the ring's end after 5 taken */
	writes(p, 100, 5);
	expect_ids(p->a.scq, 100, 5);
	writes(p, 200, 6);
	/* grow: all 6 kept, in order, room for 40 more */
	assert_int_equal(roce_resize_cq(p->a.scq, 40), ROCE_OK);
	writes(p, 300, 30);
	{
		struct roce_wc w[36];

		assert_int_equal(roce_poll_cq(p->a.scq, 36, w), 36);
		for (int i = 0; i < 6; i++)
			assert_int_equal(w[i].wr_id, 200u + (unsigned)i);
		for (int i = 0; i < 30; i++)
			assert_int_equal(w[6 + i].wr_id, 300u + (unsigned)i);
	}
	/* shrink below what it holds: refused, nothing lost */
	writes(p, 400, 10);
	assert_int_equal(roce_resize_cq(p->a.scq, 9), ROCE_E_INVAL);
	expect_ids(p->a.scq, 400, 10);
	/* shrink to 4 (a ring of 4): 4 fit, the 5th overruns */
	writes(p, 500, 3);
	assert_int_equal(roce_resize_cq(p->a.scq, 4), ROCE_OK);
	expect_ids(p->a.scq, 500, 3);
	writes(p, 600, 4);
	expect_ids(p->a.scq, 600, 4);
	writes(p, 700, 5);
	assert_true(roce_poll_cq(p->a.scq, 1, &wc) < 0);
	/* an overrun CQ stays overrun */
	assert_int_equal(roce_resize_cq(p->a.scq, 64), ROCE_E_FULL);
	/* the bounds */
	assert_int_equal(roce_resize_cq(p->b.scq, 0), ROCE_E_RANGE);
	assert_int_equal(roce_resize_cq(p->b.scq, (int)ROCE_MAX_CQE + 1), ROCE_E_RANGE);
	assert_int_equal(roce_resize_cq(NULL, 8), ROCE_E_INVAL);
	assert_int_equal(roce_resize_cq(p->b.scq, (int)ROCE_MAX_CQE), ROCE_OK);
	pair_close(p);
}

/* One 4 KB WRITE from A into B's MR: its completion status */
static int write_one(struct pair *p, uint8_t fill)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 4096, p->a.mr->lkey };
	struct roce_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED,
	}, *bad;
	struct roce_wc wc;

	memset(p->a.buf, fill, 4096);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	assert_int_equal(roce_post_send(p->a.qps[0], &wr, &bad), ROCE_OK);
	assert_int_equal(pair_wait_cq(p, p->a.scq, &wc, 1, 5000), 1);
	return wc.status;
}

#define RIGHTS (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ)

static void test_rereg_access(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024 };
	struct pair *p = pair_open(&o);
	uint32_t lkey = p->b.mr->lkey, rkey = p->b.mr->rkey;

	(void)state;
	assert_int_equal(write_one(p, 0x11), ROCE_WC_SUCCESS);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_ACCESS, NULL,
				       ROCE_ACCESS_LOCAL_WRITE), ROCE_OK);
	assert_int_equal(p->b.mr->access, ROCE_ACCESS_LOCAL_WRITE);
	assert_int_equal(p->b.mr->lkey, lkey);
	assert_int_equal(p->b.mr->rkey, rkey);
	assert_int_equal(write_one(p, 0x22), ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(p->b.buf[0], 0x11);    /* not a byte of it */
	pair_close(p);

	/* taken away and given back: the WRITE lands */
	p = pair_open(&o);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_ACCESS, NULL,
				       ROCE_ACCESS_LOCAL_WRITE), ROCE_OK);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_ACCESS, NULL, RIGHTS), ROCE_OK);
	assert_int_equal(write_one(p, 0x33), ROCE_WC_SUCCESS);
	assert_int_equal(p->b.buf[4095], 0x33);
	pair_close(p);
}

/* MR index 0 again and again, each time with a new key byte: never the
   key 0 (one draw in 256 gave it) */
static void test_no_zero_key(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024 };
	struct pair *p = pair_open(&o);
	struct roce_mr *mr;

	(void)state;
	assert_int_equal(roce_dereg_mr(p->a.mr), 0);
	p->a.mr = NULL;
	for (int i = 0; i < 4096; i++) {
		mr = roce_reg_mr(p->a.pd, p->a.buf, 4096, ROCE_ACCESS_LOCAL_WRITE);
		assert_non_null(mr);
		assert_int_equal(ROCE_MR_KEY_INDEX(mr->lkey), 0);
		assert_int_not_equal(mr->lkey, 0);
		assert_int_not_equal(mr->rkey, 0);
		assert_int_equal(roce_dereg_mr(mr), 0);
	}
	pair_close(p);
}

static void test_rereg_pd(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024 };
	struct pair *p = pair_open(&o);
	struct roce_pd *other = roce_alloc_pd(p->b.ctx), *own = p->b.pd;

	(void)state;
	assert_non_null(other);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_PD, other, 0), ROCE_OK);
	assert_ptr_equal(p->b.mr->pd, other);
	assert_int_equal(write_one(p, 0x44), ROCE_WC_REM_ACCESS_ERR);
	assert_int_not_equal(p->b.buf[0], 0x44);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_PD, own, 0), ROCE_OK);
	pair_close(p);
	roce_dealloc_pd(other);

	/* moved away and back, both at once with the rights: lands */
	p = pair_open(&o);
	other = roce_alloc_pd(p->b.ctx);
	own = p->b.pd;
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_PD | ROCE_REREG_ACCESS, other,
				       ROCE_ACCESS_LOCAL_WRITE), ROCE_OK);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_PD | ROCE_REREG_ACCESS, own,
				       RIGHTS), ROCE_OK);
	assert_int_equal(write_one(p, 0x55), ROCE_WC_SUCCESS);
	assert_int_equal(p->b.buf[100], 0x55);
	/* bad input: nothing changes */
	assert_int_equal(roce_rereg_mr(p->b.mr, 0, NULL, 0), ROCE_E_INVAL);
	assert_int_equal(roce_rereg_mr(p->b.mr, 1u << 0, NULL, 0), ROCE_E_INVAL);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_PD, NULL, 0), ROCE_E_INVAL);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_PD, p->a.pd, 0), ROCE_E_INVAL);
	assert_int_equal(roce_rereg_mr(p->b.mr, ROCE_REREG_ACCESS, NULL, 1u << 12), ROCE_E_INVAL);
	assert_int_equal(roce_rereg_mr(NULL, ROCE_REREG_ACCESS, NULL, 0), ROCE_E_INVAL);
	assert_ptr_equal(p->b.mr->pd, own);
	assert_int_equal(p->b.mr->access, RIGHTS);
	assert_int_equal(write_one(p, 0x66), ROCE_WC_SUCCESS);
	pair_close(p);
	roce_dealloc_pd(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_rereg_access),
		cmocka_unit_test(test_rereg_pd),
		cmocka_unit_test(test_no_zero_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
