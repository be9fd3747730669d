/* SPDX-License-Identifier: MIT */
/*
 * Protection at the responder, as IBA and rxe have it:
 *
 * - a connected QP executes requests from its peer only: a WRITE with the
 *   right QPN, PSN and R_Key but from another source IP is dropped
 *   silently, counted (drop_src_addr) and leaves memory and the expected
 *   PSN untouched (SPEC.md receive checks; rxe check_addr);
 * - an operation the QP does not enable (its remote write / read / atomic
 *   access flags) is NAKed Invalid Request (0x61), and the requester
 *   completes with REM_INV_REQ_ERR; the MR's own checks (test_engine_errors)
 *   stay Remote Access Error (0x62).
 */
#include "pair.h"
#include "roce/device.h"
#include "roce/opcode.h"
#include "roce/packet.h"

static enum roce_qp_state qp_state(struct roce_qp *qp)
{
	struct roce_qp_attr at;

	assert_int_equal(roce_query_qp(qp, &at), ROCE_OK);
	return at.qp_state;
}

/* ---- source address ------------------------------------------------------ */

/* A frame from a third station on the segment, built from scratch: an RC
 * WRITE ONLY to B's QP with B's expected PSN and a valid R_Key, from the
 * IPv4 source src_ip. */
static void stranger_write(struct pair *p, struct roce_port *port, uint32_t src_ip,
			   const uint8_t *payload, uint32_t len)
{
	const uint32_t dst_ip = 0x0A000002u;    /* B, as tests/support/pair.h numbers it */
	struct roce_hdrs h;
	uint8_t buf[2048];
	size_t n;
	struct roce_frame f;

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, p->b.port->mac, 6);
	memcpy(h.eth.src, port->mac, 6);
	h.eth.type = 0x0800;
	h.ip.ttl = 64;
	h.ip.frag = ROCE_IPV4_DF;
	for (int i = 0; i < 4; i++) {
		h.ip.src[i] = (uint8_t)(src_ip >> (24 - 8 * i));
		h.ip.dst[i] = (uint8_t)(dst_ip >> (24 - 8 * i));
	}
	h.udp.sport = 0xC000;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_WRITE_ONLY;
	h.bth.pkey = 0xFFFF;
	h.bth.dqpn = roce_qp_num(p->b.qp);
	h.bth.ackreq = true;
	h.bth.psn = 0x123457u;                  /* B's rq_psn (pair.h) */
	h.reth.va = (uint64_t)(uintptr_t)p->b.buf;
	h.reth.rkey = p->b.mr->rkey;
	h.reth.len = len;
	assert_int_equal(roce_build(&h, payload, len, 0, buf, sizeof(buf), &n), ROCE_OK);
	f.data = buf;
	f.len = (uint32_t)n;
	assert_int_equal(roce_port_tx(port, &f, 1), 1);
}

static void test_write_from_stranger_dropped(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	const uint8_t mac3[6] = { 0x02, 0, 0, 0, 0, 3 };
	struct roce_port port3;
	uint8_t evil[256], *zero = calloc(1, 4096);
	struct roce_sge sge;
	struct roce_send_wr wr = { 0 };

	(void)state;
	assert_non_null(zero);
	assert_int_equal(roce_memlink_attach(p->link, mac3, &port3), ROCE_OK);
	memset(evil, 0xEE, sizeof(evil));
	memset(p->a.buf, 0x5A, sizeof(evil));

	/* 10.0.0.3 is not B's peer (10.0.0.1): dropped, counted, nothing
	 * written, no answer to anybody */
	stranger_write(p, &port3, 0x0A000003u, evil, sizeof(evil));
	for (int i = 0; i < 20; i++)
		pair_poll(p);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 1);
	assert_memory_equal(p->b.buf, zero, 4096);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_ACKS_TX), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 0);
	assert_int_equal(qp_state(p->b.qp), ROCE_QPS_RTS);

	/* the peer's own WRITE with that very PSN is new to B, not a
	 * duplicate: the stranger moved nothing */
	sge.addr = (uint64_t)(uintptr_t)p->a.buf;
	sge.length = sizeof(evil);
	sge.lkey = p->a.mr->lkey;
	wr.wr_id = 1;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_memory_equal(p->b.buf, p->a.buf, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DUP_REQUESTS), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 1);

	/* the same crafted frame from the peer's address is executed: the
	 * drop above was for the source and nothing else */
	stranger_write(p, &port3, 0x0A000001u, evil, sizeof(evil));
	for (int i = 0; i < 20; i++)
		pair_poll(p);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DUP_REQUESTS), 1);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 1);
	free(zero);
	pair_close(p);
}

/* A frame from the peer's address with a PSN B expects next is executed:
 * the positive control for the crafted frame itself. */
static void test_crafted_write_from_peer_executes(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	const uint8_t mac3[6] = { 0x02, 0, 0, 0, 0, 3 };
	struct roce_port port3;
	uint8_t data[100];

	(void)state;
	assert_int_equal(roce_memlink_attach(p->link, mac3, &port3), ROCE_OK);
	memset(data, 0x77, sizeof(data));
	stranger_write(p, &port3, 0x0A000001u, data, sizeof(data));
	for (int i = 0; i < 20; i++)
		pair_poll(p);
	assert_memory_equal(p->b.buf, data, sizeof(data));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 1);
	pair_close(p);
}

/* ---- operations the QP does not enable ------------------------------------ */

/* B's QP loses one remote right (its MR keeps them all); A asks for that
 * operation: NAK Invalid Request, REM_INV_REQ_ERR, memory untouched, both
 * QPs in ERR. */
static void qp_right_case(enum roce_wr_opcode op, unsigned right)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct roce_qp_attr at = { 0 };
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 4096, p->a.mr->lkey };
	struct roce_send_wr wr = { 0 };
	uint64_t remote = (uint64_t)(uintptr_t)p->b.buf;
	uint8_t *snap = malloc(p->b.buf_len);

	assert_non_null(snap);
	for (size_t i = 0; i < p->b.buf_len; i++)
		p->b.buf[i] = (uint8_t)(i * 7);
	memset(p->a.buf, 0xC3, 8192);
	memcpy(snap, p->b.buf, p->b.buf_len);
	/* IBA 10.3.1: RTS -> RTS may change the access flags */
	at.qp_state = ROCE_QPS_RTS;
	at.qp_access_flags = (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			      ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC) & ~right;
	assert_int_equal(roce_modify_qp(p->b.qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS),
			 ROCE_OK);
	wr.wr_id = 7;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (op == ROCE_WR_ATOMIC_FETCH_AND_ADD || op == ROCE_WR_ATOMIC_CMP_AND_SWP) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = remote;
		wr.wr.atomic.rkey = p->b.mr->rkey;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 2;
	} else {
		wr.wr.rdma.remote_addr = remote;
		wr.wr.rdma.rkey = p->b.mr->rkey;
	}
	pair_post_wait(p, &p->a, &wr, ROCE_WC_REM_INV_REQ_ERR);
	assert_memory_equal(p->b.buf, snap, p->b.buf_len);
	if (op != ROCE_WR_RDMA_WRITE)   /* nothing came back either */
		for (int i = 0; i < 4096; i++)
			assert_int_equal(p->a.buf[i], 0xC3);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_INVALID_REQ), 1);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_NAKS_RX_INVALID_REQ), 1);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_NAKS_RX_REMOTE_ACCESS), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_ACCESS), 1);
	assert_int_equal(qp_state(p->a.qp), ROCE_QPS_ERR);
	for (int i = 0; i < 10; i++)
		pair_poll(p);
	assert_int_equal(qp_state(p->b.qp), ROCE_QPS_ERR);
	free(snap);
	pair_close(p);
}

static void test_write_to_qp_without_remote_write(void **state)
{
	(void)state;
	qp_right_case(ROCE_WR_RDMA_WRITE, ROCE_ACCESS_REMOTE_WRITE);
}

static void test_read_from_qp_without_remote_read(void **state)
{
	(void)state;
	qp_right_case(ROCE_WR_RDMA_READ, ROCE_ACCESS_REMOTE_READ);
}

static void test_fetch_add_on_qp_without_remote_atomic(void **state)
{
	(void)state;
	qp_right_case(ROCE_WR_ATOMIC_FETCH_AND_ADD, ROCE_ACCESS_REMOTE_ATOMIC);
}

static void test_cmp_swap_on_qp_without_remote_atomic(void **state)
{
	(void)state;
	qp_right_case(ROCE_WR_ATOMIC_CMP_AND_SWP, ROCE_ACCESS_REMOTE_ATOMIC);
}

/* The other rights of the QP still serve: a QP without remote read takes
 * WRITEs (the rights are checked one by one, not all or nothing). */
static void test_other_rights_still_serve(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct roce_qp_attr at = { 0 };
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 3000, p->a.mr->lkey };
	struct roce_send_wr wr = { 0 };

	(void)state;
	at.qp_state = ROCE_QPS_RTS;
	at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE;
	assert_int_equal(roce_modify_qp(p->b.qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS),
			 ROCE_OK);
	memset(p->a.buf, 0x31, 3000);
	wr.wr_id = 1;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_memory_equal(p->b.buf, p->a.buf, 3000);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_INVALID_REQ), 0);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_from_stranger_dropped),
		cmocka_unit_test(test_crafted_write_from_peer_executes),
		cmocka_unit_test(test_write_to_qp_without_remote_write),
		cmocka_unit_test(test_read_from_qp_without_remote_read),
		cmocka_unit_test(test_fetch_add_on_qp_without_remote_atomic),
		cmocka_unit_test(test_cmp_swap_on_qp_without_remote_atomic),
		cmocka_unit_test(test_other_rights_still_serve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
