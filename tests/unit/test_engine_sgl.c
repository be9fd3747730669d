/* SPDX-License-Identifier: MIT */
/*
 * Work requests of more SGEs than a WQE holds (ROCE_WQE_SGE): a QP made
 * with a larger max_send_sge / max_recv_sge keeps the lists in an area of
 * its own (src/verbs/qp.c, swqe_sgl / rwqe_sgl), up to ROCE_MAX_SGE, as
 * rxe offers 32 and UCX asks for 5 (RC) and 6 (UD). Every byte is
 * checked where it lands: a gathered SEND scattered over many receive
 * SGEs, a WRITE gathered from many, a READ scattered into many, a UD
 * datagram (its GRH area first), WQEs of few and many SGEs mixed around
 * the ring, and the limits refused.
 */
#include "pair.h"

#define N_SEND 9u               /* > ROCE_WQE_SGE */
#define N_RECV 7u
#define QKEY 0x11111111u

/* n SGEs over buf, of lengths lens[], each at a gap of 24 bytes after the
 * last one (so a byte in the wrong place shows) */
static uint32_t sges(struct pair_side *s, size_t at, const uint32_t *lens, unsigned n,
		     struct roce_sge *out)
{
	uint32_t total = 0;

	for (unsigned i = 0; i < n; i++) {
		out[i] = (struct roce_sge){ (uint64_t)(uintptr_t)(s->buf + at), lens[i],
					    s->mr->lkey };
		at += lens[i] + 24;
		total += lens[i];
	}
	return total;
}

/* The bytes of n SGEs, one after the other, into out. */
static void gather(const struct roce_sge *sg, unsigned n, uint8_t *out)
{
	for (unsigned i = 0; i < n; i++) {
		memcpy(out, (const void *)(uintptr_t)sg[i].addr, sg[i].length);
		out += sg[i].length;
	}
}

static struct pair *open_wide(void)
{
	struct pair_opts o = { .max_sge = ROCE_MAX_SGE, .sq_depth = 4, .rq_depth = 4,
			       .mtu = ROCE_MTU_1024 };

	return pair_open(&o);
}

/* A SEND gathered from N_SEND SGEs (3 MTUs' worth) into a receive of
 * N_RECV SGEs of other lengths. */
static void test_send_gather_scatter(void **state)
{
	static const uint32_t sl[N_SEND] = { 1, 700, 33, 1024, 5, 900, 64, 4, 300 };
	static const uint32_t rl[N_RECV] = { 100, 1, 2000, 7, 500, 300, 123 };
	struct pair *p = open_wide();
	struct roce_sge ss[N_SEND], rs[N_RECV];
	struct roce_send_wr wr = { .wr_id = 1, .opcode = ROCE_WR_SEND, .sg_list = ss,
				   .num_sge = N_SEND };
	struct roce_recv_wr rwr = { .wr_id = 2, .sg_list = rs, .num_sge = N_RECV };
	uint8_t want[4096], got[4096];
	uint32_t len;
	struct roce_wc wc;

	(void)state;
	pair_pattern(p->a.buf, 8192, 1);
	len = sges(&p->a, 0, sl, N_SEND, ss);
	assert_int_equal(len, 3031);
	assert_int_equal(sges(&p->b, 0, rl, N_RECV, rs), len);
	memset(p->b.buf, 0xEE, 8192);
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, NULL), ROCE_OK);
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, len);
	gather(ss, N_SEND, want);
	gather(rs, N_RECV, got);
	assert_memory_equal(got, want, len);
	/* the gaps between B's SGEs untouched */
	assert_int_equal(p->b.buf[100], 0xEE);
	assert_int_equal(p->b.buf[100 + 23], 0xEE);
	pair_close(p);
}

/* A WRITE gathered from N_SEND SGEs, and a READ of it back scattered
 * into N_SEND others. */
static void test_write_read(void **state)
{
	static const uint32_t sl[N_SEND] = { 1000, 1, 2, 1500, 3, 64, 1024, 400, 7 };
	struct pair *p = open_wide();
	struct roce_sge ss[N_SEND], rs[N_SEND];
	struct roce_send_wr wr = { .wr_id = 1, .opcode = ROCE_WR_RDMA_WRITE, .sg_list = ss,
				   .num_sge = N_SEND };
	uint8_t want[8192], got[8192];
	uint32_t len;

	(void)state;
	pair_pattern(p->a.buf, 16384, 2);
	len = sges(&p->a, 0, sl, N_SEND, ss);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(p->b.buf + 64);
	wr.wr.rdma.rkey = p->b.mr->rkey;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	gather(ss, N_SEND, want);
	assert_memory_equal(p->b.buf + 64, want, len);

	/* back into other places of A's */
	sges(&p->a, 8192, sl, N_SEND, rs);
	memset(p->a.buf + 8192, 0, 8192);
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.sg_list = rs;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	gather(rs, N_SEND, got);
	assert_memory_equal(got, want, len);
	pair_close(p);
}

/* WQEs of 1, ROCE_WQE_SGE and ROCE_MAX_SGE SGEs in turn, 3 times round a
 * ring of 4: each finds its own list. */
static void test_mixed_around_the_ring(void **state)
{
	static const unsigned counts[] = { 1, ROCE_WQE_SGE, ROCE_MAX_SGE, ROCE_WQE_SGE + 1 };
	struct pair *p = open_wide();
	uint32_t lens[ROCE_MAX_SGE];

	(void)state;
	pair_pattern(p->a.buf, 1 << 16, 3);
	for (unsigned round = 0; round < 12; round++) {
		unsigned n = counts[round % 4];
		struct roce_sge ss[ROCE_MAX_SGE], rs[ROCE_MAX_SGE];
		struct roce_send_wr wr = { .wr_id = 10 + round, .opcode = ROCE_WR_SEND,
					   .sg_list = ss, .num_sge = (int)n };
		struct roce_recv_wr rwr = { .wr_id = 100 + round, .sg_list = rs,
					    .num_sge = (int)n };
		uint8_t want[ROCE_MAX_SGE * 64], got[ROCE_MAX_SGE * 64];
		struct roce_wc wc;
		uint32_t len;

		for (unsigned i = 0; i < n; i++)
			lens[i] = 1 + (round * 7 + i * 13) % 60;
		len = sges(&p->a, round * 2048, lens, n, ss);
		sges(&p->b, round * 4096, lens, n, rs);
		assert_int_equal(roce_post_recv(p->b.qp, &rwr, NULL), ROCE_OK);
		pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
		assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
		assert_int_equal(wc.wr_id, 100 + round);
		assert_int_equal(wc.byte_len, len);
		gather(ss, n, want);
		gather(rs, n, got);
		assert_memory_equal(got, want, len);
	}
	pair_close(p);
}

static struct roce_qp *ud_qp(struct pair_side *s)
{
	struct roce_qp_init_attr qa = {
		.send_cq = s->scq, .recv_cq = s->rcq, .qp_type = ROCE_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 6,
			 .max_recv_sge = 5 },
	};
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF, .qkey = QKEY };
	struct roce_qp *qp = roce_create_qp(s->pd, &qa);

	assert_non_null(qp);
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
					ROCE_QP_QKEY), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE), ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN), ROCE_OK);
	return qp;
}

/* UD: 6 send SGEs (UCX's ud_verbs) into 5 receive SGEs, the first of them
 * 40 bytes for the GRH area. */
static void test_ud_six_sges(void **state)
{
	static const uint32_t sl[6] = { 8, 100, 1, 300, 20, 2 };
	static const uint32_t rl[5] = { 40, 50, 50, 231, 100 };
	struct pair *p = open_wide();
	struct roce_qp *qa = ud_qp(&p->a), *qb = ud_qp(&p->b);
	struct roce_ah_attr aa = { .dest_ip = p->b.ip };
	struct roce_sge ss[6], rs[5];
	struct roce_send_wr wr = { .wr_id = 5, .opcode = ROCE_WR_SEND, .sg_list = ss,
				   .num_sge = 6, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_recv_wr rwr = { .wr_id = 6, .sg_list = rs, .num_sge = 5 };
	uint8_t want[1024], got[1024];
	struct roce_wc wc;
	uint32_t len;

	(void)state;
	memcpy(aa.dest_mac, p->a.peer_mac, 6);
	wr.wr.ud.ah = roce_create_ah(p->a.pd, &aa);
	assert_non_null(wr.wr.ud.ah);
	wr.wr.ud.remote_qpn = roce_qp_num(qb);
	wr.wr.ud.remote_qkey = QKEY;
	pair_pattern(p->a.buf, 4096, 4);
	len = sges(&p->a, 0, sl, 6, ss);
	assert_int_equal(sges(&p->b, 0, rl, 5, rs), len + 40);
	assert_int_equal(roce_post_recv(qb, &rwr, NULL), ROCE_OK);
	assert_int_equal(roce_post_send(qa, &wr, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, len + 40);
	gather(ss, 6, want);
	gather(rs, 5, got);
	assert_memory_equal(got + 40, want, len);
	assert_int_equal(roce_destroy_ah(wr.wr.ud.ah), ROCE_OK);
	assert_int_equal(roce_destroy_qp(qa), ROCE_OK);
	assert_int_equal(roce_destroy_qp(qb), ROCE_OK);
	pair_close(p);
}

/* The limits: a QP of ROCE_MAX_SGE + 1, a WR of more than the QP's, an
 * SRQ of more than a WQE holds, all refused. */
static void test_limits(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_qp_init_attr qa = {
		.send_cq = p->a.scq, .recv_cq = p->a.rcq, .qp_type = ROCE_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = ROCE_MAX_SGE + 1,
			 .max_recv_sge = 1 },
	};
	struct roce_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = ROCE_WQE_SGE + 1 } };
	struct roce_srq *srq;
	struct roce_sge ss[ROCE_WQE_SGE + 1];
	struct roce_recv_wr rwr = { .wr_id = 1, .sg_list = ss, .num_sge = ROCE_WQE_SGE + 1 };
	struct roce_qp *qp = NULL;

	(void)state;
	assert_int_equal(roce_create_qp_status(p->a.pd, &qa, &qp), ROCE_E_INVAL);
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = ROCE_MAX_SGE + 1;
	assert_int_equal(roce_create_qp_status(p->a.pd, &qa, &qp), ROCE_E_INVAL);
	srq = roce_create_srq(p->a.pd, &sa);
	assert_null(srq);
	for (unsigned i = 0; i < ROCE_WQE_SGE + 1; i++)
		ss[i] = (struct roce_sge){ (uint64_t)(uintptr_t)p->a.buf, 8, p->a.mr->lkey };
	/* the pair's QPs have ROCE_WQE_SGE */
	assert_int_equal(roce_post_recv(p->a.qp, &rwr, NULL), ROCE_E_INVAL);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_gather_scatter),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_mixed_around_the_ring),
		cmocka_unit_test(test_ud_six_sges),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
