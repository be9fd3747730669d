/* SPDX-License-Identifier: MIT */
/*
 * UC QPs on a shared receive queue (src/engine/uc.c taking its receive
 * WQEs through rwqe_take, src/engine/rq.c). Two engines: the
 * SENDs of two UC QPs of A, multi-packet and interleaved, land in the
 * WQEs of B's SRQ, each message whole in one WQE, and complete on the
 * receive CQ of the B QP they came to, B sending nothing. One engine with
 * a scripted UC peer (stage.h): a message that loses a packet (its MIDDLE,
 * its LAST) leaves the WQE it took for the next message, so no WQE is lost
 * and the broken message completes nothing; with the SRQ empty a message
 * is dropped, counted under no_rwqe, with no RNR NAK (UC has no
 * responses); the SRQ limit event fires on a UC QP's take as on an RC
 * QP's.
 */
#include "events.h"
#include "stage.h"

#define P STAGE_RQ_PSN
#define MTU STAGE_MTU

/* ---- two engines: A's UC QPs send to B's UC QPs on an SRQ ----------------- */

static struct roce_qp *uc_qp(struct pair_side *s, struct roce_cq *rcq, struct roce_srq *srq)
{
	struct roce_qp_init_attr qa = {
		.send_cq = s->scq, .recv_cq = rcq, .qp_type = ROCE_QPT_UC, .srq = srq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct roce_qp *qp = roce_create_qp(s->pd, &qa);

	assert_non_null(qp);
	return qp;
}

/* RESET -> INIT -> RTR -> RTS, with no RC-only attribute (as perftest -c
 * UC and ibv_uc_pingpong connect). */
static void uc_connect(struct pair *p, struct pair_side *s, struct pair_side *peer,
		       struct roce_qp *qp, struct roce_qp *peer_qp)
{
	struct roce_qp_attr at = { 0 };

	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE;
	at.pkey = 0xFFFF;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
					ROCE_QP_PKEY_INDEX), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = p->mtu;
	at.dest_qp_num = roce_qp_num(peer_qp);
	at.rq_psn = 0x2000 + roce_qp_num(peer_qp);
	at.ah_attr.dest_ip = peer->ip;
	memcpy(at.ah_attr.dest_mac, s->peer_mac, 6);
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN), ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = 0x2000 + roce_qp_num(qp);
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN), ROCE_OK);
}

/* Message k of the test: its length and its bytes. */
static const uint32_t msg_len[4] = { 3000, 100, 1024, 2500 };

static void test_sends_land_in_srq(void **state)
{
	struct pair_opts o = { .qp_type = ROCE_QPT_UC, .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct roce_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct roce_srq *srq = roce_create_srq(p->b.pd, &sa);
	struct roce_cq *rcq[2] = { roce_create_cq(p->b.ctx, 64), roce_create_cq(p->b.ctx, 64) };
	struct roce_qp *qa[2], *qb[2];
	unsigned next[2] = { 0, 0 };
	bool used[4] = { false };
	struct roce_wc wc[8];
	int got = 0;

	(void)state;
	assert_non_null(srq);
	for (int k = 0; k < 2; k++) {
		assert_non_null(rcq[k]);
		qa[k] = uc_qp(&p->a, p->a.rcq, NULL);
		qb[k] = uc_qp(&p->b, rcq[k], srq);
		uc_connect(p, &p->a, &p->b, qa[k], qb[k]);
		uc_connect(p, &p->b, &p->a, qb[k], qa[k]);
	}
	/* WQE i into B's buffer at i * 4096 */
	for (uint64_t i = 0; i < 4; i++) {
		struct roce_sge sge;
		struct roce_recv_wr wr = ev_recv_wr(p, &sge, i, (uint32_t)i * 4096, 4096);

		assert_int_equal(roce_post_srq_recv(srq, &wr, NULL), ROCE_OK);
	}
	/* messages 0 and 2 from QP 0, 1 and 3 from QP 1, posted at once */
	for (uint32_t k = 0; k < 4; k++) {
		pair_pattern(p->a.buf + k * 4096, msg_len[k], k + 1);
		ev_send(p, qa[k % 2], k, k * 4096, msg_len[k], false);
	}
	assert_int_equal(pair_wait(p, p->a.scq, wc, 4, 5000), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
	for (uint64_t end = pair_now_ms() + 5000; got < 4 && pair_now_ms() < end;) {
		pair_poll(p);
		for (int c = 0; c < 2; c++) {
			int n = roce_poll_cq(rcq[c], 8, wc);

			assert_true(n >= 0);
			for (int i = 0; i < n; i++) {
				/* QP c's messages, in order, each in a WQE of
				 * its own holding it whole */
				uint32_t k = 2 * next[c]++ + (uint32_t)c;

				assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
				assert_int_equal(wc[i].opcode, ROCE_WC_RECV);
				assert_int_equal(wc[i].qp_num, roce_qp_num(qb[c]));
				assert_int_equal(wc[i].byte_len, msg_len[k]);
				assert_true(wc[i].wr_id < 4);
				assert_false(used[wc[i].wr_id]);
				used[wc[i].wr_id] = true;
				assert_memory_equal(p->b.buf + wc[i].wr_id * 4096,
						    p->a.buf + k * 4096, msg_len[k]);
				got++;
			}
		}
	}
	assert_int_equal(got, 4);
	assert_int_equal(next[0], 2);
	assert_int_equal(next[1], 2);
	/* no ACK, no NAK: B sent nothing */
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_TX_PKTS), 0);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(roce_destroy_qp(qa[k]), ROCE_OK);
		assert_int_equal(roce_destroy_qp(qb[k]), ROCE_OK);
		assert_int_equal(roce_destroy_cq(rcq[k]), ROCE_OK);
	}
	assert_int_equal(roce_destroy_srq(srq), ROCE_OK);
	pair_close(p);
}

/* ---- one engine, a scripted UC peer --------------------------------------- */

static struct roce_qp *stage_uc_qp(struct stage *st, struct roce_srq *srq)
{
	struct roce_qp_init_attr qa = {
		.send_cq = st->scq, .recv_cq = st->rcq, .qp_type = ROCE_QPT_UC, .srq = srq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct roce_qp *qp = roce_create_qp(st->pd, &qa);

	assert_non_null(qp);
	return qp;
}

/* The stage with its UC QP on a new SRQ of max_wr WQEs (limit armed). */
static struct stage *srq_stage(struct roce_srq **srq, uint32_t max_wr, uint32_t limit)
{
	const struct stage_opts o = { .qp_type = ROCE_QPT_UC };
	struct stage *st = stage_open(&o);
	struct roce_srq_init_attr sa = { .attr = { .max_wr = max_wr, .max_sge = 1,
						   .srq_limit = limit } };

	*srq = roce_create_srq(st->pd, &sa);
	assert_non_null(*srq);
	assert_int_equal(roce_destroy_qp(st->qp), ROCE_OK);
	st->qp = stage_uc_qp(st, *srq);
	stage_connect(st, &o);
	return st;
}

static void srq_stage_close(struct stage *st, struct roce_srq *srq)
{
	assert_int_equal(roce_destroy_qp(st->qp), ROCE_OK);
	assert_int_equal(roce_destroy_srq(srq), ROCE_OK);
	st->qp = stage_uc_qp(st, NULL);         /* for stage_close */
	stage_close(st);
}

/* WQE id over buf[id * 1024, + 1024). */
static void srq_post(struct stage *st, struct roce_srq *srq, uint64_t id)
{
	struct roce_sge sge = { stage_va(st, id * 1024), 1024, st->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(roce_post_srq_recv(srq, &wr, NULL), ROCE_OK);
}

static void send_pkt(struct stage *st, uint8_t opcode, uint32_t psn, uint8_t v, uint32_t len)
{
	struct roce_hdrs h = stage_hdrs(st, opcode, psn, false);
	uint8_t data[MTU];

	memset(data, v, len);
	stage_inject(st, &h, data, len);
}

/* A 3-packet SEND (MTU, MTU, 100 bytes, all v) from psn; skip: the packet
 * lost (0..2), or -1. The engine sends nothing in answer. */
static void send3(struct stage *st, uint32_t psn, uint8_t v, int skip)
{
	if (skip != 0)
		send_pkt(st, ROCE_OP_UC_SEND_FIRST, psn, v, MTU);
	if (skip != 1)
		send_pkt(st, ROCE_OP_UC_SEND_MIDDLE, psn + 1, v, MTU);
	if (skip != 2)
		send_pkt(st, ROCE_OP_UC_SEND_LAST, psn + 2, v, 100);
	assert_int_equal(stage_run(st), 0);
}

static void send_only(struct stage *st, uint32_t psn, uint8_t v, uint32_t len)
{
	send_pkt(st, ROCE_OP_UC_SEND_ONLY, psn, v, len);
	assert_int_equal(stage_run(st), 0);
}

/* Three WQEs carry three whole messages around two broken ones: the WQE a
 * broken message took waits for the next message. */
static void test_broken_message_keeps_wqe(void **state)
{
	struct roce_srq *srq;
	struct stage *st = srq_stage(&srq, 16, 0);

	(void)state;
	for (uint64_t id = 1; id <= 3; id++)
		srq_post(st, srq, id);
	/* the MIDDLE lost: WQE 1 taken, nothing completes */
	send3(st, P, 0x11, 1);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DROP_UC_GAP), 1);
	/* the next message lands in WQE 1 */
	send_only(st, P + 3, 0x22, 200);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 200);
	stage_assert_filled(st->buf + 1024, 0x22, 200);
	/* the LAST lost: WQE 2 taken; the FIRST after it starts the next
	 * message in the same WQE */
	send3(st, P + 4, 0x33, 2);
	stage_expect_no_wc(st->rcq);
	send3(st, P + 7, 0x44, -1);
	stage_expect_wc(st->rcq, 2, ROCE_WC_SUCCESS, ROCE_WC_RECV, 2 * MTU + 100);
	stage_assert_filled(st->buf + 2048, 0x44, 2 * MTU + 100);
	/* WQE 3 is still there for one more message, and nothing more */
	send_only(st, P + 10, 0x55, 10);
	stage_expect_wc(st->rcq, 3, ROCE_WC_SUCCESS, ROCE_WC_RECV, 10);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DROP_NO_RWQE), 0);
	send_only(st, P + 11, 0x66, 10);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DROP_NO_RWQE), 1);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	srq_stage_close(st, srq);
}

/* An empty SRQ: the message is dropped and counted, no RNR NAK; a WQE
 * posted later takes the next message. */
static void test_no_wqe_drops(void **state)
{
	struct roce_srq *srq;
	struct stage *st = srq_stage(&srq, 16, 0);

	(void)state;
	send_only(st, P, 0x11, 64);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DROP_NO_RWQE), 1);
	/* a multi-packet one: its FIRST finds no WQE, the rest is not its
	 * message any more */
	send3(st, P + 1, 0x22, -1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DROP_NO_RWQE), 2);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DROP_UC_GAP), 2);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_RNR), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TX_PKTS), 0);
	srq_post(st, srq, 7);
	send3(st, P + 4, 0x33, -1);
	stage_expect_wc(st->rcq, 7, ROCE_WC_SUCCESS, ROCE_WC_RECV, 2 * MTU + 100);
	stage_assert_filled(st->buf + 7 * 1024, 0x33, 2 * MTU + 100);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DROP_NO_RWQE), 2);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	srq_stage_close(st, srq);
}

static int next_event(struct stage *st, struct roce_async_event *ev)
{
	ev_nonblock(roce_async_fd(st->ctx));
	return roce_get_async_event(st->ctx, ev);
}

/* Limit 2 on 4 WQEs: the UC QP's third take leaves 1, the event, once. */
static void test_limit_event(void **state)
{
	struct roce_srq *srq;
	struct stage *st = srq_stage(&srq, 16, 2);
	struct roce_async_event ev;
	struct roce_srq_attr a;

	(void)state;
	for (uint64_t id = 0; id < 4; id++)
		srq_post(st, srq, id);
	send_only(st, P, 0x11, 8);
	send3(st, P + 1, 0x22, -1);
	assert_int_equal(next_event(st, &ev), ROCE_E_AGAIN);
	/* a take for a message that breaks counts as a take */
	send3(st, P + 4, 0x33, 1);
	assert_int_equal(next_event(st, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_SRQ_LIMIT_REACHED);
	assert_ptr_equal(ev.element.srq, srq);
	roce_ack_async_event(&ev);
	assert_int_equal(roce_query_srq(srq, &a), ROCE_OK);
	assert_int_equal(a.srq_limit, 0);
	stage_expect_wc(st->rcq, 0, ROCE_WC_SUCCESS, ROCE_WC_RECV, 8);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 2 * MTU + 100);
	stage_expect_no_wc(st->rcq);
	/* disarmed: the last take raises nothing */
	send_only(st, P + 7, 0x44, 8);
	stage_expect_wc(st->rcq, 2, ROCE_WC_SUCCESS, ROCE_WC_RECV, 8);
	send_only(st, P + 8, 0x55, 8);
	stage_expect_wc(st->rcq, 3, ROCE_WC_SUCCESS, ROCE_WC_RECV, 8);
	assert_int_equal(next_event(st, &ev), ROCE_E_AGAIN);
	srq_stage_close(st, srq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sends_land_in_srq),
		cmocka_unit_test(test_broken_message_keeps_wqe),
		cmocka_unit_test(test_no_wqe_drops),
		cmocka_unit_test(test_limit_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
