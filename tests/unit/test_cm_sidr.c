/* SPDX-License-Identifier: MIT */
/*
 * Service ID resolution (src/cm/cm_sidr.c) between two CM instances
 * (tests/unit/cm_fake.h): a SIDR_REQ answered with the QPN and Q_Key, in
 * the request's TID, with no QP moved, the reply kept a while for copies
 * of the request; a lost SIDR_REQ and a lost SIDR_REP (resent, answered
 * with the kept reply, one reply); no reply at all (UNREACHABLE
 * after the retries); an unknown service ID (status 1), a consumer's no
 * (status 2); copies of a request while the consumer decides (one event);
 * a listener flooded past its backlog; bad calls.
 */
#include "cm_fake.h"

#define UDP_SERVICE CMA_SERVICE_ID(CMA_PS_UDP, 7174)
#define ATTR(a) ((a) - 0x10)

static int sidr_a(uint64_t service)
{
	struct cm_sidr_param p = {
		.peer = B.addr, .service_id = service, .pkey = 0xffff,
		.private_data = "ping", .private_len = 4,
	};
	int c = cm_sidr_req(A.cm, &p);

	assert_true(c >= 0);
	assert_int_equal(cm_conn_state(A.cm, c), CM_SIDR_REQ_SENT);
	return c;
}

static uint64_t tid_of(const uint8_t mad[MAD_SIZE])
{
	struct mad_hdr h;

	mad_hdr_parse(mad, &h);
	return h.tid;
}

static void test_resolve(void **state)
{
	const struct ev *e;

	(void)state;
	assert_true(cm_listen(B.cm, UDP_SERVICE, 8, NULL) >= 0);
	sidr_a(UDP_SERVICE);
	run_ms(1);
	e = last_ev(&B);
	assert_int_equal(e->type, CM_EV_SIDR_REQUEST);
	assert_true(e->service_id == UDP_SERVICE);
	assert_int_equal(e->priv0, 'p');
	e = last_ev(&A);
	assert_int_equal(e->type, CM_EV_SIDR_REPLY);
	assert_int_equal(e->sidr_status, CM_SIDR_SUCCESS);
	assert_int_equal(e->qpn, B.qpn);
	assert_int_equal(e->qkey, FAKE_QKEY);
	assert_int_equal(e->priv0, 'r');
	assert_int_equal(A.sent_attr[ATTR(CM_ATTR_SIDR_REQ)], 1);
	assert_int_equal(B.sent_attr[ATTR(CM_ATTR_SIDR_REP)], 1);
	/* the reply answers in the request's TID */
	assert_true(tid_of(A.last_sent) == tid_of(B.last_sent));
	/* no QP touched; the requester keeps nothing, the server its reply
	   for two response timeouts (about 8.2 s), then nothing */
	assert_int_equal(A.qp[0].modifies + B.qp[1].modifies, 0);
	assert_int_equal(cm_conns_in_use(A.cm), 0);
	assert_int_equal(cm_conns_in_use(B.cm), 1);
	run_ms(8000);
	assert_int_equal(cm_conns_in_use(B.cm), 1);
	run_ms(1000);
	assert_int_equal(cm_conns_in_use(B.cm), 0);
	assert_int_equal(A.nev, 1);
	assert_int_equal(B.nev, 1);
	assert_int_equal(A.sent_attr[ATTR(CM_ATTR_SIDR_REQ)], 1);
}

static void test_lost_req_and_rep(void **state)
{
	(void)state;
	assert_true(cm_listen(B.cm, UDP_SERVICE, 8, NULL) >= 0);
	net->drop[0] = 1;
	sidr_a(UDP_SERVICE);
	run_ms(1);
	assert_int_equal(B.nev, 0);
	/* resent after the response timeout (20: about 4.1 s) */
	run_ms(5000);
	assert_int_equal(A.sent_attr[ATTR(CM_ATTR_SIDR_REQ)], 2);
	assert_int_equal(count_ev(&A, CM_EV_SIDR_REPLY), 1);
	assert_int_equal(cm_counters(A.cm)->retries, 1);

	/* the reply lost: the resend is answered with the kept reply, the
	   consumer is not asked again; the requester takes one reply */
	net->drop[1] = 1;
	sidr_a(UDP_SERVICE);
	run_ms(5000);
	assert_int_equal(count_ev(&B, CM_EV_SIDR_REQUEST), 2);
	assert_int_equal(B.sent_attr[ATTR(CM_ATTR_SIDR_REP)], 3);
	assert_int_equal(cm_counters(B.cm)->rx_dup_req, 1);
	assert_int_equal(count_ev(&A, CM_EV_SIDR_REPLY), 2);
	assert_int_equal(last_ev(&A)->sidr_status, CM_SIDR_SUCCESS);
	assert_int_equal(last_ev(&A)->qpn, B.qpn);
	run_ms(10000);
	assert_int_equal(cm_conns_in_use(A.cm) + cm_conns_in_use(B.cm), 0);
}

static void test_no_reply(void **state)
{
	int c;

	(void)state;
	assert_true(cm_listen(B.cm, UDP_SERVICE, 8, NULL) >= 0);
	net->drop_attr_mask[1] = 1u << ATTR(CM_ATTR_SIDR_REP);
	c = sidr_a(UDP_SERVICE);
	run_ms(30000);
	/* the first and max_cm_retries (3) resends, then UNREACHABLE */
	assert_int_equal(A.sent_attr[ATTR(CM_ATTR_SIDR_REQ)], 4);
	assert_int_equal(count_ev(&A, CM_EV_UNREACHABLE), 1);
	assert_int_equal(count_ev(&A, CM_EV_SIDR_REPLY), 0);
	assert_int_equal(cm_conn_state(A.cm, c), CM_IDLE);
	assert_int_equal(cm_counters(A.cm)->timeouts, 1);
}

static void test_unknown_service_and_reject(void **state)
{
	(void)state;
	sidr_a(UDP_SERVICE);
	run_ms(1);
	assert_int_equal(last_ev(&A)->type, CM_EV_SIDR_REPLY);
	assert_int_equal(last_ev(&A)->sidr_status, CM_SIDR_UNSUPPORTED);
	assert_int_equal(last_ev(&A)->qpn, 0);
	assert_int_equal(B.nev, 0);
	assert_int_equal(cm_conns_in_use(B.cm), 0);

	B.answer = ANSWER_REJECT;
	assert_true(cm_listen(B.cm, UDP_SERVICE, 8, NULL) >= 0);
	sidr_a(UDP_SERVICE);
	run_ms(1);
	assert_int_equal(last_ev(&A)->sidr_status, CM_SIDR_REJECT);
	assert_int_equal(last_ev(&A)->priv0, 'n');
	assert_int_equal(last_ev(&A)->qpn, 0);
	assert_int_equal(cm_conns_in_use(A.cm), 0);
	run_ms(10000);
	assert_int_equal(cm_conns_in_use(B.cm), 0);
}

static void test_copies_while_deciding(void **state)
{
	int conn;

	(void)state;
	B.answer = ANSWER_NONE;
	assert_true(cm_listen(B.cm, UDP_SERVICE, 8, NULL) >= 0);
	net->dup = true;
	sidr_a(UDP_SERVICE);
	run_ms(1);
	/* the copy is the same request: one event */
	assert_int_equal(count_ev(&B, CM_EV_SIDR_REQUEST), 1);
	assert_int_equal(cm_counters(B.cm)->rx_dup_req, 1);
	conn = last_ev(&B)->conn;
	assert_int_equal(cm_conn_state(B.cm, conn), CM_SIDR_REQ_RCVD);
	assert_int_equal(cm_sidr_rep(B.cm, conn, CM_SIDR_SUCCESS, B.qpn, FAKE_QKEY, NULL, 0),
			 ROCE_OK);
	run_ms(1);
	/* the reply's copy finds no request: counted, not taken */
	assert_int_equal(count_ev(&A, CM_EV_SIDR_REPLY), 1);
	assert_int_equal(cm_counters(A.cm)->rx_unknown_conn, 1);
	/* answered once: a second answer is refused */
	assert_int_equal(cm_sidr_rep(B.cm, conn, CM_SIDR_SUCCESS, B.qpn, FAKE_QKEY, NULL, 0),
			 -ROCE_E_STATE);
}

static void test_flood(void **state)
{
	(void)state;
	B.answer = ANSWER_NONE;
	assert_true(cm_listen(B.cm, UDP_SERVICE, 2, NULL) >= 0);
	for (int i = 0; i < 5; i++)
		sidr_a(UDP_SERVICE);
	run_ms(1);
	assert_int_equal(count_ev(&B, CM_EV_SIDR_REQUEST), 2);
	assert_int_equal(cm_counters(B.cm)->backlog_full, 3);
	assert_int_equal(cm_conns_in_use(B.cm), 2);
	/* answering one frees its place in the backlog: a resend then gets
	   in (the answered one keeps its slot for copies, not the place) */
	assert_int_equal(cm_sidr_rep(B.cm, B.ev[0].conn, CM_SIDR_SUCCESS, B.qpn, FAKE_QKEY, NULL,
				     0),
			 ROCE_OK);
	run_ms(5000);
	assert_int_equal(count_ev(&B, CM_EV_SIDR_REQUEST), 3);
	assert_int_equal(cm_conns_in_use(B.cm), 3);
}

static void test_bad_calls(void **state)
{
	uint8_t big[CM_SIDR_REQ_PRIVATE + 1] = { 0 };
	struct cm_sidr_param p = { .peer = B.addr, .service_id = UDP_SERVICE,
				   .private_data = big, .private_len = sizeof(big) };

	(void)state;
	assert_int_equal(cm_sidr_req(A.cm, &p), -ROCE_E_INVAL);
	p.private_data = NULL;
	p.private_len = 1;
	assert_int_equal(cm_sidr_req(A.cm, &p), -ROCE_E_INVAL);
	assert_int_equal(cm_sidr_req(A.cm, NULL), -ROCE_E_INVAL);
	assert_int_equal(cm_sidr_rep(B.cm, -1, CM_SIDR_SUCCESS, 1, 1, NULL, 0), -ROCE_E_INVAL);
	assert_int_equal(cm_sidr_rep(B.cm, 0, CM_SIDR_SUCCESS, 1, 1, NULL, 0), -ROCE_E_STATE);
	assert_int_equal(cm_sidr_rep(B.cm, 0, (enum cm_sidr_status)9, 1, 1, NULL, 0),
			 -ROCE_E_INVAL);
	assert_int_equal(cm_sidr_rep(B.cm, 0, CM_SIDR_SUCCESS, 1, 1, big,
				     CM_SIDR_REP_PRIVATE + 1),
			 -ROCE_E_INVAL);
	/* an active slot is not the passive side's to answer */
	assert_int_equal(cm_sidr_rep(A.cm, sidr_a(UDP_SERVICE), CM_SIDR_SUCCESS, 1, 1, NULL, 0),
			 -ROCE_E_STATE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_resolve),
		T(test_lost_req_and_rep),
		T(test_no_reply),
		T(test_unknown_service_and_reject),
		T(test_copies_while_deciding),
		T(test_flood),
		T(test_bad_calls),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
