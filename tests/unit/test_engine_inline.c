/* SPDX-License-Identifier: MIT */
/*
 * Inline sends between two engines (pair.h): ROCE_SEND_INLINE SENDs and
 * WRITEs on RC and UC, from buffers the caller overwrites as soon as the
 * post returns and that are not registered at all, in the WQE's own room
 * (max_inline_data up to its SGEs') and in the QP's inline area beyond
 * it, over several packets at path MTU 256 and under loss (a resent
 * packet is built again from the WQE's copy, not from the caller's
 * buffer); the refusals: over max_inline_data, on a READ or atomic, a QP
 * of max_inline_data over ROCE_MAX_INLINE, a QP that asked for none.
 */
#include "pair.h"

#define DST_OFF (1u << 20)
#define RKEY_NONE 0

/* One inline WR from the caller's bytes in n pieces. */
static int post_inline(struct roce_qp *qp, uint64_t id, enum roce_wr_opcode op,
		       uint8_t *const *piece, const uint32_t *len, int n, const struct pair_side *dst)
{
	struct roce_sge sge[ROCE_MAX_SGE];
	struct roce_send_wr wr = { .wr_id = id, .sg_list = sge, .num_sge = n, .opcode = op,
				   .send_flags = ROCE_SEND_SIGNALED | ROCE_SEND_INLINE };
	struct roce_send_wr *bad = NULL;
	int rc;

	for (int i = 0; i < n; i++)
		sge[i] = (struct roce_sge){ (uint64_t)(uintptr_t)piece[i], len[i], RKEY_NONE };
	wr.imm_data = (uint32_t)id;
	if (dst) {
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst->buf + DST_OFF;
		wr.wr.rdma.rkey = dst->mr->rkey;
	}
	rc = roce_post_send(qp, &wr, &bad);
	if (rc)
		assert_ptr_equal(bad, &wr);
	return rc;
}

static void post_recv(struct pair_side *s, uint64_t id, uint32_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)s->buf + DST_OFF, len, s->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(roce_post_recv(s->qp, &wr, NULL), ROCE_OK);
}

/* A SEND of len bytes in two pieces from a stack buffer wiped as soon as
 * it is posted: B's receive holds what was there at the post. */
static void send_inline(struct pair *p, uint64_t id, uint32_t len)
{
	uint8_t src[ROCE_MAX_INLINE], want[ROCE_MAX_INLINE];
	uint8_t *piece[2] = { src, src + len / 3 };
	uint32_t plen[2] = { len / 3, len - len / 3 };
	struct roce_wc wc;

	pair_pattern(src, len, (uint32_t)id);
	memcpy(want, src, len);
	memset(p->b.buf + DST_OFF, 0, ROCE_MAX_INLINE + 64);
	post_recv(&p->b, id, ROCE_MAX_INLINE + 64);
	assert_int_equal(post_inline(p->a.qp, id, ROCE_WR_SEND_WITH_IMM, piece, plen, 2, NULL),
			 ROCE_OK);
	memset(src, 0xA5, sizeof(src));         /* the caller's buffer is free at once */
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, id);
	assert_int_equal(wc.byte_len, len);
	assert_int_equal(wc.imm_data, (uint32_t)id);
	assert_memory_equal(p->b.buf + DST_OFF, want, len);
	assert_int_equal(p->b.buf[DST_OFF + len], 0);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, len);
}

/* A WRITE of len bytes from a stack buffer wiped once posted. */
static void write_inline(struct pair *p, uint64_t id, uint32_t len)
{
	uint8_t src[ROCE_MAX_INLINE], want[ROCE_MAX_INLINE];
	uint8_t *piece[1] = { src };
	struct roce_wc wc;

	pair_pattern(src, len, (uint32_t)id);
	memcpy(want, src, len);
	memset(p->b.buf + DST_OFF, 0, ROCE_MAX_INLINE + 64);
	assert_int_equal(post_inline(p->a.qp, id, ROCE_WR_RDMA_WRITE, piece, &len, 1, &p->b),
			 ROCE_OK);
	memset(src, 0x5A, sizeof(src));
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.opcode, ROCE_WC_RDMA_WRITE);
	/* UC: the requester's completion comes before the data is placed */
	for (int i = 0; i < 100000 && memcmp(p->b.buf + DST_OFF, want, len); i++)
		pair_poll(p);
	assert_memory_equal(p->b.buf + DST_OFF, want, len);
	assert_int_equal(p->b.buf[DST_OFF + len], 0);
}

/* An inline SEND with an empty SGE of no address between two others (as
 * UCX posts its headers): the bytes of the other two, nothing read at
 * address 0 (UBSan's nonnull check on the copy). */
static void send_inline_empty_sge(struct pair *p, uint64_t id)
{
	uint8_t src[30], want[30];
	uint8_t *piece[3] = { src, NULL, src + 10 };
	uint32_t plen[3] = { 10, 0, 20 };
	struct roce_wc wc;

	pair_pattern(src, sizeof(src), (uint32_t)id);
	memcpy(want, src, sizeof(src));
	memset(p->b.buf + DST_OFF, 0, 64);
	post_recv(&p->b, id, 64);
	assert_int_equal(post_inline(p->a.qp, id, ROCE_WR_SEND, piece, plen, 3, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, sizeof(src));
	assert_memory_equal(p->b.buf + DST_OFF, want, sizeof(src));
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
}

/* max_inline_data 64: the WQE's own room, no area */
static void test_in_wqe(void **state)
{
	struct pair_opts o = { .max_inline = 64, .mtu = ROCE_MTU_256 };
	struct pair *p = pair_open(&o);

	(void)state;
	send_inline(p, 1, 1);
	send_inline(p, 2, 64);
	write_inline(p, 3, 64);
	send_inline_empty_sge(p, 4);
	pair_close(p);
}

/* max_inline_data 512 at MTU 256: the area, messages of several packets */
static void test_area(void **state)
{
	struct pair_opts o = { .max_inline = ROCE_MAX_INLINE, .mtu = ROCE_MTU_256 };
	struct pair *p = pair_open(&o);

	(void)state;
	send_inline(p, 1, 65);
	send_inline(p, 2, ROCE_MAX_INLINE);
	write_inline(p, 3, 300);
	write_inline(p, 4, ROCE_MAX_INLINE);
	pair_close(p);
}

static void test_uc(void **state)
{
	struct pair_opts o = { .max_inline = 200, .mtu = ROCE_MTU_256, .qp_type = ROCE_QPT_UC };
	struct pair *p = pair_open(&o);

	(void)state;
	send_inline(p, 1, 40);
	send_inline(p, 2, 200);
	write_inline(p, 3, 200);
	pair_close(p);
}

/* 10 % loss, 300 SENDs of 2 packets each from one buffer rewritten after
 * every post: each message arrives as it was when it was posted */
static void test_lossy(void **state)
{
	struct pair_opts o = { .max_inline = ROCE_MAX_INLINE, .mtu = ROCE_MTU_256,
			       .link = { .seed = 7, .loss = 0.1 }, .rq_depth = 512,
			       .sq_depth = 64 };
	struct pair *p = pair_open(&o);
	enum { N = 300, LEN = 500 };
	uint8_t src[LEN], *piece[1] = { src };
	uint32_t len = LEN;
	struct roce_wc wc[N];
	int sent = 0, got = 0, done = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		struct roce_sge sge = { (uint64_t)(uintptr_t)p->b.buf + (size_t)i * 1024, 1024,
					p->b.mr->lkey };
		struct roce_recv_wr rw = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 };

		assert_int_equal(roce_post_recv(p->b.qp, &rw, NULL), ROCE_OK);
	}
	for (uint64_t t0 = pair_now_ms(); (got < N || done < N) && pair_now_ms() - t0 < 60000;) {
		if (sent < N && sent - done < 64) {
			pair_pattern(src, LEN, (uint32_t)sent + 1000);
			if (post_inline(p->a.qp, (uint64_t)sent, ROCE_WR_SEND, piece, &len, 1,
					NULL) == ROCE_OK)
				sent++;
			memset(src, 0, sizeof(src));
		}
		pair_poll(p);
		for (int k; (k = roce_poll_cq(p->a.scq, N, wc)) > 0; done += k)
			for (int i = 0; i < k; i++)
				assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		for (int k; (k = roce_poll_cq(p->b.rcq, N, wc)) > 0; got += k)
			for (int i = 0; i < k; i++) {
				uint8_t want[LEN];

				assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
				assert_int_equal(wc[i].wr_id, (uint64_t)(got + i));
				assert_int_equal(wc[i].byte_len, LEN);
				pair_pattern(want, LEN, (uint32_t)wc[i].wr_id + 1000);
				assert_memory_equal(p->b.buf + wc[i].wr_id * 1024, want, LEN);
			}
	}
	assert_int_equal(got, N);
	assert_int_equal(done, N);
	/* the loss was real: packets were sent again */
	assert_true(pair_cnt(&p->a, ROCE_CNT_TX_PKTS) > (uint64_t)N * 2);
	pair_close(p);
}

static void test_refused(void **state)
{
	struct pair_opts o = { .max_inline = 100 };
	struct pair *p = pair_open(&o);
	uint8_t src[ROCE_MAX_INLINE + 1] = { 0 }, *piece[1] = { src };
	uint32_t len = 101, eight = 8;
	struct roce_qp_init_attr qa = { .send_cq = p->a.scq, .recv_cq = p->a.rcq,
					.qp_type = ROCE_QPT_RC,
					.cap = { 4, 4, 1, 1, ROCE_MAX_INLINE + 1 } };
	struct roce_qp *qp;
	uint64_t tx;

	(void)state;
	for (int i = 0; i < 1000; i++)          /* the connection's own frames */
		pair_poll(p);
	tx = pair_cnt(&p->a, ROCE_CNT_TX_PKTS);
	/* over the QP's max_inline_data */
	assert_int_equal(post_inline(p->a.qp, 1, ROCE_WR_SEND, piece, &len, 1, NULL),
			 ROCE_E_INVAL);
	/* a READ's and an atomic's SGE is where the result goes */
	assert_int_equal(post_inline(p->a.qp, 2, ROCE_WR_RDMA_READ, piece, &eight, 1, &p->b),
			 ROCE_E_INVAL);
	assert_int_equal(post_inline(p->a.qp, 3, ROCE_WR_ATOMIC_FETCH_AND_ADD, piece, &eight, 1,
				     &p->b), ROCE_E_INVAL);
	/* a QP of more than the device offers */
	assert_int_equal(roce_create_qp_status(p->a.pd, &qa, &qp), ROCE_E_INVAL);
	assert_null(qp);
	/* a QP that asked for none (UD, with an AH: nothing else is
	   missing) takes no inline WR at all */
	qa.qp_type = ROCE_QPT_UD;
	qa.cap.max_inline_data = 0;
	assert_int_equal(roce_create_qp_status(p->a.pd, &qa, &qp), ROCE_OK);
	{
		struct roce_ah_attr aa = { .dest_ip = p->b.ip };
		struct roce_sge sge = { (uint64_t)(uintptr_t)src, 1, 0 };
		struct roce_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = ROCE_WR_SEND,
					   .send_flags = ROCE_SEND_INLINE };

		pair_ud_ready(qp, 1);
		memcpy(aa.dest_mac, p->a.peer_mac, 6);
		wr.wr.ud.ah = roce_create_ah(p->a.pd, &aa);
		assert_non_null(wr.wr.ud.ah);
		wr.wr.ud.remote_qpn = 0x55;
		assert_int_equal(roce_post_send(qp, &wr, NULL), ROCE_E_INVAL);
		assert_int_equal(roce_qp_sq_room(qp), 4);
		assert_int_equal(roce_destroy_ah(wr.wr.ud.ah), ROCE_OK);
	}
	assert_int_equal(roce_destroy_qp(qp), ROCE_OK);
	/* nothing of it went out */
	for (int i = 0; i < 1000; i++)
		pair_poll(p);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TX_PKTS), tx);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_wqe),
		cmocka_unit_test(test_area),
		cmocka_unit_test(test_uc),
		cmocka_unit_test(test_lossy),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
