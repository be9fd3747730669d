/* SPDX-License-Identifier: MIT */
/*
 * Error paths: a vanished peer (retry exceeded), RNR (no receive posted),
 * remote access violations (memory untouched, counters, statuses), local
 * protection and DMA errors, bad work requests, and many READs in flight.
 */
#include "pair.h"

static struct roce_send_wr write_wr(struct pair *p, struct roce_sge *sge, uint64_t id,
				    uint64_t remote, uint32_t rkey)
{
	struct roce_send_wr wr = { 0 };

	sge->addr = (uint64_t)(uintptr_t)p->a.buf;
	sge->lkey = p->a.mr->lkey;
	wr.wr_id = id;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = remote;
	wr.wr.rdma.rkey = rkey;
	return wr;
}

static enum roce_qp_state qp_state(struct roce_qp *qp)
{
	struct roce_qp_attr at;

	assert_int_equal(roce_query_qp(qp, &at), ROCE_OK);
	return at.qp_state;
}

static void test_peer_vanishes(void **state)
{
	struct pair_opts o = { .virtual_time = true, .timeout = 5, .retry_cnt = 3 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { .length = 1000 };
	struct roce_wc wc[8];

	(void)state;
	assert_int_equal(roce_memlink_set_faults(p->link, 1.0, 0, 0, 0), ROCE_OK);
	for (uint64_t i = 0; i < 5; i++) {
		struct roce_send_wr wr = write_wr(p, &sge, i, (uint64_t)(uintptr_t)p->b.buf,
						  p->b.mr->rkey);

		assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	}
	assert_int_equal(pair_wait(p, p->a.scq, wc, 5, 10000), 5);
	assert_int_equal(wc[0].wr_id, 0);
	assert_int_equal(wc[0].status, ROCE_WC_RETRY_EXC_ERR);
	for (int i = 1; i < 5; i++) {
		assert_int_equal(wc[i].wr_id, (uint64_t)i);
		assert_int_equal(wc[i].status, ROCE_WC_WR_FLUSH_ERR);
	}
	assert_int_equal(qp_state(p->a.qp), ROCE_QPS_ERR);
	/* the original send and 3 retries, each timing out */
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TIMEOUTS), 4);
	assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) >= 3);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_ERROR_COMPLETIONS), 5);
	/* work posted in ERR is flushed too */
	{
		struct roce_send_wr wr = write_wr(p, &sge, 9, (uint64_t)(uintptr_t)p->b.buf,
						  p->b.mr->rkey);

		assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
		assert_int_equal(pair_wait(p, p->a.scq, wc, 1, 1000), 1);
		assert_int_equal(wc[0].status, ROCE_WC_WR_FLUSH_ERR);
	}
	pair_close(p);
}

static void send_one(struct pair *p, uint64_t id, uint32_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, len, p->a.mr->lkey };
	struct roce_send_wr wr = { 0 };

	wr.wr_id = id;
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
}

static void test_rnr_then_success(void **state)
{
	struct pair_opts o = { .virtual_time = true, .rnr_retry = 7, .min_rnr_timer = 1 };
	struct pair *p = pair_open(&o);
	struct roce_sge rsge = { (uint64_t)(uintptr_t)p->b.buf + 8192, 4096, p->b.mr->lkey };
	struct roce_recv_wr rwr = { .wr_id = 3, .sg_list = &rsge, .num_sge = 1 };
	struct roce_wc wc;

	(void)state;
	memset(p->a.buf, 0x5A, 3000);
	send_one(p, 1, 3000);
	for (int i = 0; i < 500; i++)
		pair_poll(p);
	assert_int_equal(roce_poll_cq(p->a.scq, 1, &wc), 0);      /* still waiting */
	assert_true(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_RNR) >= 2);
	assert_true(pair_cnt(&p->a, ROCE_CNT_NAKS_RX_RNR) >= 2);
	assert_true(pair_cnt(&p->a, ROCE_CNT_RNR_RETRIES) >= 2);
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 3000);
	for (int i = 0; i < 3000; i++)
		assert_int_equal(p->b.buf[8192 + i], 0x5A);
	pair_close(p);
}

static void test_rnr_retry_exceeded(void **state)
{
	struct pair_opts o = { .virtual_time = true, .rnr_retry = 2, .min_rnr_timer = 1 };
	struct pair *p = pair_open(&o);
	struct roce_wc wc;

	(void)state;
	send_one(p, 1, 100);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_RNR_RETRY_EXC_ERR);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_NAKS_RX_RNR), 3);   /* 1 + 2 retries */
	assert_int_equal(qp_state(p->a.qp), ROCE_QPS_ERR);
	pair_close(p);
}

/* A remote access violation: the requester sees want, the target memory
 * keeps every byte, the responder counts the NAK and the reason. */
static void access_case(enum roce_wr_opcode op, unsigned mr_access, int bad,
			enum roce_cnt reason)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf + 4096, 512, p->a.mr->lkey };
	struct roce_send_wr wr = { 0 };
	struct roce_mr *mr = p->b.mr;
	uint8_t *snap = malloc(p->b.buf_len);
	uint64_t remote = (uint64_t)(uintptr_t)p->b.buf;
	uint32_t rkey;

	assert_non_null(snap);
	for (size_t i = 0; i < p->b.buf_len; i++)
		p->b.buf[i] = (uint8_t)(i * 13);
	memset(p->a.buf, 0xC3, 8192);
	if (mr_access) {
		mr = roce_reg_mr(p->b.pd, p->b.buf, 65536, mr_access);
		assert_non_null(mr);
	}
	rkey = mr->rkey;
	if (bad == 1)
		rkey ^= 0x5A;                           /* wrong key byte */
	if (bad == 2)
		remote += mr->length - 100;             /* runs past the end */
	memcpy(snap, p->b.buf, p->b.buf_len);
	wr.wr_id = 42;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (op == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = remote;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = remote;
		wr.wr.rdma.rkey = rkey;
	}
	pair_post_wait(p, &p->a, &wr, ROCE_WC_REM_ACCESS_ERR);
	assert_memory_equal(p->b.buf, snap, p->b.buf_len);
	if (op == ROCE_WR_RDMA_READ)    /* nothing came back either */
		for (int i = 0; i < 512; i++)
			assert_int_equal(p->a.buf[4096 + i], 0xC3);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), 1);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_NAKS_RX_REMOTE_ACCESS), 1);
	assert_int_equal(pair_cnt(&p->b, reason), 1);
	assert_int_equal(qp_state(p->a.qp), ROCE_QPS_ERR);
	/* the responder enters the error state too (IBA class C error) */
	for (int i = 0; i < 10; i++)
		pair_poll(p);
	assert_int_equal(qp_state(p->b.qp), ROCE_QPS_ERR);
	if (mr_access)
		assert_int_equal(roce_dereg_mr(mr), ROCE_OK);
	free(snap);
	pair_close(p);
}

static void test_bad_rkey_write(void **state)
{
	(void)state;
	access_case(ROCE_WR_RDMA_WRITE, 0, 1, ROCE_CNT_DROP_RKEY);
}

static void test_bad_rkey_read(void **state)
{
	(void)state;
	access_case(ROCE_WR_RDMA_READ, 0, 1, ROCE_CNT_DROP_RKEY);
}

static void test_bad_rkey_atomic(void **state)
{
	(void)state;
	access_case(ROCE_WR_ATOMIC_FETCH_AND_ADD, 0, 1, ROCE_CNT_DROP_RKEY);
}

static void test_out_of_bounds_write(void **state)
{
	(void)state;
	access_case(ROCE_WR_RDMA_WRITE, 0, 2, ROCE_CNT_DROP_BOUNDS);
}

static void test_out_of_bounds_read(void **state)
{
	(void)state;
	access_case(ROCE_WR_RDMA_READ, 0, 2, ROCE_CNT_DROP_BOUNDS);
}

static void test_write_without_right(void **state)
{
	(void)state;
	access_case(ROCE_WR_RDMA_WRITE, ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ, 0,
		    ROCE_CNT_DROP_ACCESS);
}

static void test_read_without_right(void **state)
{
	(void)state;
	access_case(ROCE_WR_RDMA_READ, ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE, 0,
		    ROCE_CNT_DROP_ACCESS);
}

static void test_atomic_without_right(void **state)
{
	(void)state;
	access_case(ROCE_WR_ATOMIC_FETCH_AND_ADD,
		    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ, 0,
		    ROCE_CNT_DROP_ACCESS);
}

/* A SEND longer than the receive buffer: the receive completes with a
 * local length error, the sender with a remote invalid request error. */
static void test_recv_too_small(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge rsge = { (uint64_t)(uintptr_t)p->b.buf, 1000, p->b.mr->lkey };
	struct roce_recv_wr rwr = { .wr_id = 5, .sg_list = &rsge, .num_sge = 1 };
	struct roce_wc wc;

	(void)state;
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, NULL), ROCE_OK);
	send_one(p, 1, 3000);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_INV_REQ_ERR);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 5000), 1);
	assert_int_equal(wc.wr_id, 5);
	assert_int_equal(wc.status, ROCE_WC_LOC_LEN_ERR);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_INVALID_REQ), 1);
	assert_int_equal(qp_state(p->a.qp), ROCE_QPS_ERR);
	pair_close(p);
}

/* A receive WQE whose buffer the responder cannot write: the receive
 * completes with a local protection error, the sender with a remote
 * operational error. */
static void test_recv_bad_lkey(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge rsge = { (uint64_t)(uintptr_t)p->b.buf, 4096, p->b.mr->lkey ^ 0x21 };
	struct roce_recv_wr rwr = { .wr_id = 6, .sg_list = &rsge, .num_sge = 1 };
	struct roce_wc wc;

	(void)state;
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, NULL), ROCE_OK);
	send_one(p, 1, 100);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_OP_ERR);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 5000), 1);
	assert_int_equal(wc.wr_id, 6);
	assert_int_equal(wc.status, ROCE_WC_LOC_PROT_ERR);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_REMOTE_OP), 1);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_NAKS_RX_REMOTE_OP), 1);
	pair_close(p);
}

/* A deregistered MR is gone at once for the data path, whatever the engine
 * remembered of it. */
static void test_write_after_dereg(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_mr *mr = roce_reg_mr(p->b.pd, p->b.buf, 65536,
					 ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
	struct roce_sge sge = { .length = 100 };
	struct roce_send_wr wr;
	uint32_t rkey;

	(void)state;
	assert_non_null(mr);
	rkey = mr->rkey;
	memset(p->a.buf, 0x77, 100);
	wr = write_wr(p, &sge, 1, (uint64_t)(uintptr_t)p->b.buf, rkey);
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_int_equal(p->b.buf[99], 0x77);
	assert_int_equal(roce_dereg_mr(mr), ROCE_OK);
	memset(p->a.buf, 0x55, 100);
	wr = write_wr(p, &sge, 2, (uint64_t)(uintptr_t)p->b.buf, rkey);
	pair_post_wait(p, &p->a, &wr, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(p->b.buf[0], 0x77);    /* untouched */
	pair_close(p);
}

static void test_local_protection(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { .length = 100 };
	struct roce_send_wr wr = write_wr(p, &sge, 7, (uint64_t)(uintptr_t)p->b.buf,
					  p->b.mr->rkey);
	struct roce_wc wc[2];

	(void)state;
	sge.lkey ^= 0x33;               /* not our key */
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	wr.wr_id = 8;
	sge.lkey = p->a.mr->lkey;
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, wc, 2, 5000), 2);
	assert_int_equal(wc[0].status, ROCE_WC_LOC_PROT_ERR);
	assert_int_equal(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(p->b.buf[0], 0);
	pair_close(p);
}

/* IBA 10.6.3.1: an L_Key names an MR of the QP's own PD. A valid key of
   another PD's MR is a local protection error, on the send side (nothing
   sent) and on the receive side (the SEND NAKed, nothing placed). */
static void test_lkey_other_pd(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_pd *pa = roce_alloc_pd(p->a.ctx), *pb = roce_alloc_pd(p->b.ctx);
	struct roce_mr *ma, *mb;
	struct roce_sge sge = { .length = 100 }, rsge;
	struct roce_recv_wr rwr = { .wr_id = 9, .sg_list = &rsge, .num_sge = 1 };
	struct roce_send_wr wr;
	struct roce_wc wc;

	(void)state;
	assert_non_null(pa);
	assert_non_null(pb);
	/* the same DDR, an MR of another PD over it */
	ma = roce_reg_mr(pa, p->a.buf, 4096, ROCE_ACCESS_LOCAL_WRITE);
	mb = roce_reg_mr(pb, p->b.buf, 4096, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(ma);
	assert_non_null(mb);
	memset(p->a.buf, 0x5a, 100);
	wr = write_wr(p, &sge, 7, (uint64_t)(uintptr_t)p->b.buf, p->b.mr->rkey);
	sge.lkey = ma->lkey;
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_LOC_PROT_ERR);
	assert_int_equal(p->b.buf[0], 0);
	assert_int_equal(roce_dereg_mr(ma), ROCE_OK);
	assert_int_equal(roce_dereg_mr(mb), ROCE_OK);
	roce_dealloc_pd(pa);
	roce_dealloc_pd(pb);
	pair_close(p);

	p = pair_open(&o);
	pb = roce_alloc_pd(p->b.ctx);
	mb = roce_reg_mr(pb, p->b.buf, 4096, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(mb);
	rsge = (struct roce_sge){ (uint64_t)(uintptr_t)p->b.buf, 4096, mb->lkey };
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, NULL), ROCE_OK);
	memset(p->a.buf, 0x5a, 100);
	send_one(p, 1, 100);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_OP_ERR);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 5000), 1);
	assert_int_equal(wc.wr_id, 9);
	assert_int_equal(wc.status, ROCE_WC_LOC_PROT_ERR);
	assert_int_equal(p->b.buf[0], 0);
	assert_int_equal(roce_dereg_mr(mb), ROCE_OK);
	roce_dealloc_pd(pb);
	pair_close(p);
}

static void test_dma_stall(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { .length = 5000 };
	struct roce_send_wr wr = write_wr(p, &sge, 11, (uint64_t)(uintptr_t)p->b.buf,
					  p->b.mr->rkey);
	struct roce_wc wc;

	(void)state;
	roce_engine_set_dma_stall(p->a.ctx, true, 50);
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	for (int i = 0; i < 20; i++)            /* 20 us: still waiting for data */
		pair_poll(p);
	assert_int_equal(roce_poll_cq(p->a.scq, 1, &wc), 0);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_GENERAL_ERR);
	assert_int_equal(qp_state(p->a.qp), ROCE_QPS_ERR);
	pair_close(p);
}

static void test_bad_work_requests(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 8, p->a.mr->lkey };
	struct roce_send_wr wr = { 0 }, wr2 = { 0 }, *bad = NULL;
	struct roce_recv_wr rwr = { 0 }, *rbad = NULL;

	(void)state;
	wr.opcode = (enum roce_wr_opcode)99;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_E_INVAL);
	assert_ptr_equal(bad, &wr);
	/* the first of two is posted, the second refused: bad_wr says so */
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	wr.next = &wr2;
	wr2 = wr;
	wr2.next = NULL;
	wr2.num_sge = ROCE_MAX_SGE + 1;
	assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_E_INVAL);
	assert_ptr_equal(bad, &wr2);
	/* a misaligned atomic */
	wr2.num_sge = 1;
	wr2.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	wr2.wr.atomic.remote_addr = (uint64_t)(uintptr_t)p->b.buf + 3;
	wr2.wr.atomic.rkey = p->b.mr->rkey;
	assert_int_equal(roce_post_send(p->a.qp, &wr2, &bad), ROCE_E_INVAL);
	rwr.num_sge = ROCE_MAX_SGE + 1;
	rwr.sg_list = &sge;
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, &rbad), ROCE_E_INVAL);
	assert_ptr_equal(rbad, &rwr);
	/* memory outside the DDR cannot be registered */
	assert_null(roce_reg_mr(p->a.pd, &wr, sizeof(wr), ROCE_ACCESS_LOCAL_WRITE));
	pair_close(p);
}

static void test_many_reads_in_flight(void **state)
{
	struct pair_opts o = { .max_rd_atomic = 4 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge[40];
	struct roce_send_wr wr[40];
	struct roce_wc wc[40];

	(void)state;
	for (size_t i = 0; i < 40 * 3000; i++)
		p->b.buf[i] = (uint8_t)(i * 7 + 3);
	for (int i = 0; i < 40; i++) {
		sge[i] = (struct roce_sge){ (uint64_t)(uintptr_t)p->a.buf + (size_t)i * 3000, 3000,
					    p->a.mr->lkey };
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = (uint64_t)i;
		wr[i].opcode = i % 5 == 4 ? ROCE_WR_RDMA_WRITE : ROCE_WR_RDMA_READ;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = ROCE_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf + (size_t)i * 3000;
		wr[i].wr.rdma.rkey = p->b.mr->rkey;
		if (wr[i].opcode == ROCE_WR_RDMA_WRITE) {
			/* writes go elsewhere and carry their own pattern */
			memset(p->a.buf + (size_t)i * 3000, 0xAB, 3000);
			wr[i].wr.rdma.remote_addr += 1u << 20;
		}
		wr[i].next = i < 39 ? &wr[i + 1] : NULL;
	}
	assert_int_equal(roce_post_send(p->a.qp, &wr[0], NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, wc, 40, 10000), 40);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(wc[i].wr_id, (uint64_t)i);
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		if (wr[i].opcode == ROCE_WR_RDMA_READ)
			assert_memory_equal(p->a.buf + (size_t)i * 3000,
					    p->b.buf + (size_t)i * 3000, 3000);
		else
			assert_int_equal(p->b.buf[(1u << 20) + (size_t)i * 3000 + 2999], 0xAB);
	}
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_vanishes),
		cmocka_unit_test(test_rnr_then_success),
		cmocka_unit_test(test_rnr_retry_exceeded),
		cmocka_unit_test(test_bad_rkey_write),
		cmocka_unit_test(test_bad_rkey_read),
		cmocka_unit_test(test_bad_rkey_atomic),
		cmocka_unit_test(test_out_of_bounds_write),
		cmocka_unit_test(test_out_of_bounds_read),
		cmocka_unit_test(test_write_without_right),
		cmocka_unit_test(test_read_without_right),
		cmocka_unit_test(test_atomic_without_right),
		cmocka_unit_test(test_recv_too_small),
		cmocka_unit_test(test_recv_bad_lkey),
		cmocka_unit_test(test_write_after_dereg),
		cmocka_unit_test(test_local_protection),
		cmocka_unit_test(test_lkey_other_pd),
		cmocka_unit_test(test_dma_stall),
		cmocka_unit_test(test_bad_work_requests),
		cmocka_unit_test(test_many_reads_in_flight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
