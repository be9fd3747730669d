/* SPDX-License-Identifier: MIT */
/*
 * Frames to our own MAC stay inside the engine, as a NIC loops them back
 * (ConnectX's local loopback, rxe's): two RC QPs of one engine connected
 * to each other through its own address (WRITE, SEND, READ, every byte
 * checked), a UD datagram to an address handle of our own (its GRH area
 * and source QP), and none of their frames on the link: the other engine
 * receives nothing, and what one engine sent it received itself. With
 * many messages in flight (more than a transmit burst) nothing is lost.
 */
#include "events.h"

#define QKEY 0x22222222u
#define SRC_OFF 0
#define DST_OFF (1u << 16)

static const uint8_t *own_mac(const struct pair *p)
{
	return p->b.peer_mac;           /* B's peer is A */
}

static struct roce_qp *make_qp(struct pair_side *s, enum roce_qp_type type)
{
	struct roce_qp_init_attr qa = {
		.send_cq = s->scq, .recv_cq = s->rcq, .qp_type = type,
		.cap = { .max_send_wr = 128, .max_recv_wr = 128, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct roce_qp *qp = roce_create_qp(s->pd, &qa);

	assert_non_null(qp);
	return qp;
}

/* qp of A to its own QP to: the address A's own IP and MAC (events.h's
 * connection from B's side: B's peer is A) */
static void connect_self(struct pair *p, struct roce_qp *qp, struct roce_qp *to)
{
	ev_connect_one(p, &p->b, &p->a, qp, roce_qp_num(to));
}

static void post_recv(struct pair_side *s, struct roce_qp *qp, uint64_t id, uint32_t off,
		      uint32_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)s->buf + off, len, s->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(roce_post_recv(qp, &wr, NULL), ROCE_OK);
}

static void post(struct pair_side *s, struct roce_qp *qp, struct roce_send_wr *wr,
		 uint32_t off, uint32_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)s->buf + off, len, s->mr->lkey };
	struct roce_send_wr *bad = NULL;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= ROCE_SEND_SIGNALED;
	assert_int_equal(roce_post_send(qp, wr, &bad), ROCE_OK);
}

static void expect_ok(struct pair *p, struct roce_cq *cq, int n)
{
	struct roce_wc wc[128];

	assert_true(n <= 128);
	assert_int_equal(pair_wait(p, cq, wc, n, 10000), n);
	for (int i = 0; i < n; i++)
		if (wc[i].status != ROCE_WC_SUCCESS)
			fail_msg("wr %llu: %s", (unsigned long long)wc[i].wr_id,
				 roce_wc_status_str(wc[i].status));
}

/* nothing reached the link: B heard no frame, and every frame A sent it
 * received itself */
static void nothing_on_the_link(struct pair *p)
{
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 0);
	assert_true(pair_cnt(&p->a, ROCE_CNT_TX_PKTS) > 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RX_PKTS), pair_cnt(&p->a, ROCE_CNT_TX_PKTS));
}

static void test_rc_to_self(void **state)
{
	struct pair *p = pair_open(&(struct pair_opts){ 0 });
	struct pair_side *a = &p->a;
	struct roce_qp *x = ev_qp(a, a->scq, a->rcq, NULL), *y = ev_qp(a, a->scq, a->rcq, NULL);
	const uint32_t len = 5000;      /* five packets at MTU 1024 */
	struct roce_send_wr wr;

	(void)state;
	connect_self(p, x, y);
	connect_self(p, y, x);
	pair_pattern(a->buf + SRC_OFF, len, 1);

	/* WRITE x -> y's memory (the same buffer, another place) */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)a->buf + DST_OFF;
	wr.wr.rdma.rkey = a->mr->rkey;
	post(a, x, &wr, SRC_OFF, len);
	expect_ok(p, a->scq, 1);
	assert_memory_equal(a->buf + DST_OFF, a->buf + SRC_OFF, len);

	/* SEND y -> x */
	pair_pattern(a->buf + SRC_OFF, len, 2);
	post_recv(a, x, 7, 2 * DST_OFF, len);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_SEND;
	post(a, y, &wr, SRC_OFF, len);
	expect_ok(p, a->scq, 1);
	expect_ok(p, a->rcq, 1);
	assert_memory_equal(a->buf + 2 * DST_OFF, a->buf + SRC_OFF, len);

	/* READ by x of what y's side holds */
	pair_pattern(a->buf + 3 * DST_OFF, len, 3);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)a->buf + 3 * DST_OFF;
	wr.wr.rdma.rkey = a->mr->rkey;
	post(a, x, &wr, 4 * DST_OFF, len);
	expect_ok(p, a->scq, 1);
	assert_memory_equal(a->buf + 4 * DST_OFF, a->buf + 3 * DST_OFF, len);

	/* 100 SENDs in flight both ways: more than a transmit burst looped
	 * back at once, each ACKed */
	for (int i = 0; i < 100; i++) {
		post_recv(a, x, 100 + (uint64_t)i, 5 * DST_OFF, 64);
		post_recv(a, y, 200 + (uint64_t)i, 5 * DST_OFF, 64);
	}
	for (int i = 0; i < 100; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 300 + (uint64_t)i;
		wr.opcode = ROCE_WR_SEND;
		post(a, i & 1 ? x : y, &wr, SRC_OFF, 64);
	}
	expect_ok(p, a->scq, 100);
	expect_ok(p, a->rcq, 100);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS), 0);
	nothing_on_the_link(p);

	assert_int_equal(roce_destroy_qp(x), ROCE_OK);
	assert_int_equal(roce_destroy_qp(y), ROCE_OK);
	pair_close(p);
}

static void test_ud_to_self(void **state)
{
	struct pair *p = pair_open(&(struct pair_opts){ 0 });
	struct pair_side *a = &p->a;
	struct roce_qp *x = make_qp(a, ROCE_QPT_UD), *y = make_qp(a, ROCE_QPT_UD);
	struct roce_ah_attr aa = { .dest_ip = a->ip };
	struct roce_send_wr wr = { .wr_id = 9, .opcode = ROCE_WR_SEND };
	const uint32_t len = 1000;
	struct roce_wc wc;
	struct roce_ah *ah;

	(void)state;
	pair_ud_ready(x, QKEY);
	pair_ud_ready(y, QKEY);
	memcpy(aa.dest_mac, own_mac(p), 6);
	ah = roce_create_ah(a->pd, &aa);
	assert_non_null(ah);
	pair_pattern(a->buf + SRC_OFF, len, 4);
	post_recv(a, y, 8, DST_OFF, ROCE_GRH_LEN + len);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = roce_qp_num(y);
	wr.wr.ud.remote_qkey = QKEY;
	post(a, x, &wr, SRC_OFF, len);
	expect_ok(p, a->scq, 1);
	assert_int_equal(pair_wait(p, a->rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, ROCE_GRH_LEN + len);
	assert_int_equal(wc.src_qp, roce_qp_num(x));
	assert_memory_equal(a->buf + DST_OFF + ROCE_GRH_LEN, a->buf + SRC_OFF, len);
	nothing_on_the_link(p);

	assert_int_equal(roce_destroy_ah(ah), ROCE_OK);
	assert_int_equal(roce_destroy_qp(x), ROCE_OK);
	assert_int_equal(roce_destroy_qp(y), ROCE_OK);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_to_self),
		cmocka_unit_test(test_ud_to_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
