/* SPDX-License-Identifier: MIT */
/*
 * The CM state machine (src/cm/cm_call.c, cm_recv.c, cm_timer.c): two CM
 * instances back to back through a fake transport (drops and duplicates on
 * demand) on a virtual clock, with fake QPs that record every modify:
 *   - REQ/REP/RTU, then DREQ/DREP and timewait, with the QP attributes
 *     each side gets from the other's message;
 *   - lost REQ, REP, RTU, DREQ: resends and duplicate answers; every MAD
 *     twice: one connection all the same;
 *   - REQ timeout (REJ 4 with our GUID), unknown service ID (REJ 8),
 *     consumer reject (REJ 28), MRA holding off the resends;
 *   - the bad input: a REP for an unknown local ID, truncated MAD,
 *     wrong class version, duplicate REQ after the connection is up, DREQ
 *     for an unknown connection, a listener flooded with REQs (bounded
 *     backlog, REJ, nothing leaks).
 */
#include "cm_fake.h"

static int connect_a(uint64_t service)
{
	uint8_t priv[CMA_HDR_SIZE + 4];
	struct cma_hdr h;
	struct cm_connect_param p = {
		.peer = B.addr, .service_id = service, .qpn = A.qpn, .starting_psn = A.psn,
		.path_mtu = 3, .responder_resources = 1, .initiator_depth = 3, .retry_count = 7,
		.rnr_retry_count = 5, .local_ack_timeout = 19, .hop_limit = 64,
		.private_data = priv, .private_len = sizeof(priv),
	};
	int c;

	cma_hdr_ipv4(&h, 0x0a00000b, 0x0a00000c, 40000);
	cma_hdr_pack(&h, priv);
	memcpy(priv + CMA_HDR_SIZE, "ping", 4);
	c = cm_connect(A.cm, &p);
	assert_true(c >= 0);
	return c;
}

static void establish(int *ca, int *cb)
{
	int l = cm_listen(B.cm, SERVICE, 8, NULL);
	unsigned before = count_ev(&B, CM_EV_ESTABLISHED);

	assert_true(l >= 0 || l == -ROCE_E_EXISTS);
	*ca = connect_a(SERVICE);
	run_ms(1);
	assert_int_equal(cm_conn_state(A.cm, *ca), CM_ESTABLISHED);
	assert_int_equal(count_ev(&B, CM_EV_ESTABLISHED), before + 1);
	*cb = last_ev(&B)->conn;
	assert_int_equal(cm_conn_state(B.cm, *cb), CM_ESTABLISHED);
}

/* ---- the handshake and the teardown -------------------------------------- */

static void test_connect_disconnect(void **state)
{
	const struct cm_qp_attr *a, *b;
	int ca, cb;

	(void)state;
	establish(&ca, &cb);
	/* B saw the REQ with the rdma_cm header and our bytes after it */
	assert_int_equal(B.ev[0].type, CM_EV_CONNECT_REQUEST);
	assert_int_equal(B.ev[0].priv0, CMA_VERSION);
	assert_int_equal(A.ev[0].type, CM_EV_ESTABLISHED);
	assert_int_equal(A.ev[0].priv0, 'r'); /* the REP's private data */
	/* the QPs: INIT, RTR, RTS with the other side's numbers */
	assert_int_equal(A.qp[0].state, CM_QP_RTS);
	assert_int_equal(A.qp[0].modifies, 3);
	a = A.qp[0].attr;
	assert_int_equal(a[CM_QP_RTR].dest_qpn, B.qpn);
	assert_int_equal(a[CM_QP_RTR].rq_psn, A.psn); /* its own REQ's */
	assert_int_equal(a[CM_QP_RTR].path_mtu, 3);
	/* B's initiator depth (2) bounded by A's responder resources (1) */
	assert_int_equal(a[CM_QP_RTR].max_dest_rd_atomic, 1);
	assert_int_equal(a[CM_QP_RTS].sq_psn, B.psn); /* the REP's */
	/* B's responder resources (4) bounded by A's initiator depth (3), as
	   rxe's REP of 128 to our 16 in ib_read_bw -R must be */
	assert_int_equal(a[CM_QP_RTS].max_rd_atomic, 3);
	assert_int_equal(a[CM_QP_RTS].rnr_retry, 6);          /* what B's REP asks */
	assert_int_equal(a[CM_QP_RTS].retry_cnt, 7);
	assert_int_equal(a[CM_QP_RTS].timeout, 19);
	assert_int_equal(B.qp[1].state, CM_QP_RTS);
	b = B.qp[1].attr;
	assert_int_equal(b[CM_QP_RTR].dest_qpn, A.qpn);
	assert_int_equal(b[CM_QP_RTR].rq_psn, B.psn);
	assert_int_equal(b[CM_QP_RTR].max_dest_rd_atomic, 4);
	assert_int_equal(b[CM_QP_RTS].sq_psn, A.psn);
	assert_int_equal(b[CM_QP_RTS].rnr_retry, 5);          /* what A's REQ asks */
	assert_int_equal(b[CM_QP_RTS].retry_cnt, 7);
	assert_int_equal(b[CM_QP_RTS].timeout, 19);
	assert_memory_equal(b[CM_QP_RTR].dgid, A.addr.gid, 16);
	assert_int_equal(A.sent_attr[CM_ATTR_REQ - 0x10], 1);
	assert_int_equal(B.sent_attr[CM_ATTR_REP - 0x10], 1);
	assert_int_equal(A.sent_attr[CM_ATTR_RTU - 0x10], 1);

	assert_int_equal(cm_disconnect(A.cm, ca), ROCE_OK);
	assert_int_equal(A.qp[0].state, CM_QP_ERR);
	run_ms(1);
	assert_int_equal(count_ev(&A, CM_EV_DISCONNECTED), 1);
	assert_int_equal(count_ev(&B, CM_EV_DISCONNECTED), 1);
	assert_int_equal(B.qp[1].state, CM_QP_ERR);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_TIMEWAIT);
	assert_int_equal(cm_conn_state(B.cm, cb), CM_TIMEWAIT);
	assert_int_equal(cm_disconnect(A.cm, ca), -ROCE_E_STATE);
	/* timewait: the local ACK timeout, 2^(19-8) ms */
	run_ms(2000);
	assert_int_equal(cm_conns_in_use(A.cm), 2 - 1);
	run_ms(100);
	assert_int_equal(cm_conns_in_use(A.cm), 0);
	assert_int_equal(cm_conns_in_use(B.cm), 0);
	assert_int_equal(count_ev(&A, CM_EV_TIMEWAIT_EXIT), 1);
	assert_int_equal(cm_counters(A.cm)->retries, 0);
	assert_int_equal(cm_counters(B.cm)->retries, 0);
}

/* ---- loss and duplicates --------------------------------------------------- */

static void test_lost_req(void **state)
{
	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	net->drop[0] = 2;
	connect_a(SERVICE);
	/* REQ timeout: 2 * 2^(16-8) + 2^(20-8) ms = 4608 ms */
	run_ms(4607);
	assert_int_equal(A.sent_attr[0], 1);
	run_ms(2);
	assert_int_equal(A.sent_attr[0], 2);
	run_ms(4608);
	assert_int_equal(count_ev(&A, CM_EV_ESTABLISHED), 1);
	assert_int_equal(count_ev(&B, CM_EV_ESTABLISHED), 1);
	assert_int_equal(cm_counters(A.cm)->retries, 2);
}

static void test_lost_rep_and_rtu(void **state)
{
	int ca, cb;

	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	net->drop[1] = 1;             /* the REP */
	ca = connect_a(SERVICE);
	run_ms(1);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_REQ_SENT);
	/* B resends its REP after the REQ's local response timeout (4096 ms) */
	net->drop_attr_mask[0] = 1u << (CM_ATTR_RTU - 0x10); /* and the RTU is lost */
	run_ms(4100);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_ESTABLISHED);
	cb = B.ev[0].conn;
	assert_int_equal(cm_conn_state(B.cm, cb), CM_REP_SENT);
	net->drop_attr_mask[0] = 0;
	/* B's next REP is a duplicate to A: A answers with its RTU again */
	run_ms(4100);
	assert_int_equal(cm_conn_state(B.cm, cb), CM_ESTABLISHED);
	assert_int_equal(cm_counters(A.cm)->rx_dup_rep, 1);
	assert_int_equal(A.sent_attr[CM_ATTR_RTU - 0x10], 2);
	assert_int_equal(count_ev(&A, CM_EV_ESTABLISHED), 1);
	assert_int_equal(count_ev(&B, CM_EV_ESTABLISHED), 1);
}

/* Every RTU lost, but the QP's first packet says the connection is up. */
static void test_comm_established(void **state)
{
	int cb;

	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	net->drop_attr_mask[0] = 1u << (CM_ATTR_RTU - 0x10);
	connect_a(SERVICE);
	run_ms(1);
	cb = B.ev[0].conn;
	assert_int_equal(cm_conn_state(B.cm, cb), CM_REP_SENT);
	assert_int_equal(cm_notify_established(A.cm, 0), -ROCE_E_STATE);
	assert_int_equal(cm_notify_established(B.cm, cb), ROCE_OK);
	assert_int_equal(cm_conn_state(B.cm, cb), CM_ESTABLISHED);
	assert_int_equal(cm_notify_established(B.cm, cb), -ROCE_E_STATE);
	run_ms(30000); /* no REP resent, no timeout */
	assert_int_equal(B.sent_attr[CM_ATTR_REP - 0x10], 1);
	assert_int_equal(count_ev(&B, CM_EV_ESTABLISHED), 1);
	assert_int_equal(cm_counters(B.cm)->timeouts, 0);
}

/* A REQ resent while B's REP is on its way back is answered with the REP. */
static void test_dup_req_resends_rep(void **state)
{
	uint8_t req[MAD_SIZE];
	int cb;

	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	net->drop[1] = 1;
	connect_a(SERVICE);
	memcpy(req, A.last_sent, MAD_SIZE);
	run_ms(1);
	cb = B.ev[0].conn;
	assert_int_equal(cm_conn_state(B.cm, cb), CM_REP_SENT);
	cm_recv(B.cm, &A.addr, req, MAD_SIZE);
	assert_int_equal(cm_counters(B.cm)->rx_dup_req, 1);
	assert_int_equal(B.sent_attr[CM_ATTR_REP - 0x10], 2);
	run_ms(1);
	assert_int_equal(cm_conn_state(B.cm, cb), CM_ESTABLISHED);
	assert_int_equal(count_ev(&B, CM_EV_CONNECT_REQUEST), 1);
}

static void test_everything_twice(void **state)
{
	int ca, cb;

	(void)state;
	net->dup = true;
	establish(&ca, &cb);
	assert_int_equal(count_ev(&A, CM_EV_ESTABLISHED), 1);
	assert_int_equal(count_ev(&B, CM_EV_CONNECT_REQUEST), 1);
	assert_int_equal(cm_conns_in_use(B.cm), 1);
	assert_int_equal(cm_disconnect(B.cm, cb), ROCE_OK);
	run_ms(1);
	assert_int_equal(count_ev(&A, CM_EV_DISCONNECTED), 1);
	assert_int_equal(count_ev(&B, CM_EV_DISCONNECTED), 1);
	run_ms(3000);
	assert_int_equal(cm_conns_in_use(A.cm), 0);
	assert_int_equal(cm_conns_in_use(B.cm), 0);
	assert_true(cm_counters(B.cm)->rx_dup_req >= 1);
}

static void test_lost_dreq_and_timeout(void **state)
{
	int ca, cb;

	(void)state;
	establish(&ca, &cb);
	net->drop[0] = 1;
	assert_int_equal(cm_disconnect(A.cm, ca), ROCE_OK);
	run_ms(4700);                 /* the DREQ's resend reaches B */
	assert_int_equal(count_ev(&B, CM_EV_DISCONNECTED), 1);
	assert_int_equal(count_ev(&A, CM_EV_DISCONNECTED), 1);
	assert_int_equal(cm_counters(A.cm)->retries, 1);

	/* a DREQ nobody answers: disconnected after the retries all the same */
	run_ms(3000);
	establish(&ca, &cb);
	net->drop_attr_mask[0] = 1u << (CM_ATTR_DREQ - 0x10);
	assert_int_equal(cm_disconnect(A.cm, ca), ROCE_OK);
	run_ms(4 * 4608 + 10);
	assert_int_equal(A.sent_attr[CM_ATTR_DREQ - 0x10], 2 + 1 + 3); /* 3 retries */
	assert_int_equal(count_ev(&A, CM_EV_DISCONNECTED), 2);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_TIMEWAIT);
	assert_int_equal(cm_counters(A.cm)->timeouts, 1);
}

static void test_simultaneous_disconnect(void **state)
{
	int ca, cb;

	(void)state;
	establish(&ca, &cb);
	assert_int_equal(cm_disconnect(A.cm, ca), ROCE_OK);
	assert_int_equal(cm_disconnect(B.cm, cb), ROCE_OK);
	run_ms(1);
	assert_int_equal(count_ev(&A, CM_EV_DISCONNECTED), 1);
	assert_int_equal(count_ev(&B, CM_EV_DISCONNECTED), 1);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_TIMEWAIT);
	assert_int_equal(cm_conn_state(B.cm, cb), CM_TIMEWAIT);
	run_ms(3000);
	assert_int_equal(cm_conns_in_use(A.cm) + cm_conns_in_use(B.cm), 0);
}

/* ---- rejects and timeouts ---------------------------------------------------- */

static uint16_t rej_reason_sent(const struct side *s)
{
	struct cm_msg m;

	assert_int_equal(cm_msg_parse(s->last_sent, MAD_SIZE, &m), MAD_OK);
	assert_int_equal(m.hdr.attr_id, CM_ATTR_REJ);
	return m.u.rej.reason;
}

static void test_req_timeout(void **state)
{
	struct cm_msg m;
	int ca;

	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	B.answer = ANSWER_NONE;       /* B's consumer never answers */
	ca = connect_a(SERVICE);
	run_ms(4 * 4608 - 10);
	assert_int_equal(count_ev(&A, CM_EV_UNREACHABLE), 0);
	assert_int_equal(cm_counters(B.cm)->rx_dup_req, 3);
	run_ms(20);
	/* 1 + 3 REQs, then REJ "timeout" (4) with our CA GUID as the ARI */
	assert_int_equal(A.sent_attr[0], 4);
	assert_int_equal(count_ev(&A, CM_EV_UNREACHABLE), 1);
	assert_int_equal(last_ev(&A)->reason, CM_REJ_TIMEOUT);
	assert_int_equal(cm_msg_parse(A.last_sent, MAD_SIZE, &m), MAD_OK);
	assert_int_equal(m.u.rej.reason, CM_REJ_TIMEOUT);
	assert_int_equal(m.u.rej.reject_info_length, 8);
	assert_int_equal(m.u.rej.ari[7], 11);
	assert_int_equal(A.qp[0].state, CM_QP_ERR);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_IDLE);
	/* B matched the REJ to its waiting connection by A's ID and GUID */
	assert_int_equal(last_ev(&B)->type, CM_EV_REJECTED);
	assert_int_equal(cm_conns_in_use(A.cm) + cm_conns_in_use(B.cm), 0);
	assert_int_equal(cm_counters(A.cm)->timeouts, 1);
}

static void test_unknown_service(void **state)
{
	int ca;

	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	ca = connect_a(SERVICE + 1);
	run_ms(1);
	assert_int_equal(rej_reason_sent(&B), CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(last_ev(&A)->type, CM_EV_REJECTED);
	assert_int_equal(last_ev(&A)->reason, 8);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_IDLE);
	assert_int_equal(cm_conns_in_use(B.cm), 0);
	assert_int_equal(B.nev, 0);
}

static void test_consumer_reject(void **state)
{
	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	B.answer = ANSWER_REJECT;
	connect_a(SERVICE);
	run_ms(1);
	assert_int_equal(rej_reason_sent(&B), CM_REJ_CONSUMER);
	assert_int_equal(last_ev(&A)->type, CM_EV_REJECTED);
	assert_int_equal(last_ev(&A)->reason, 28);
	assert_int_equal(last_ev(&A)->priv0, 'n');
	assert_int_equal(cm_conns_in_use(A.cm) + cm_conns_in_use(B.cm), 0);
	assert_int_equal(B.qp[1].modifies, 0);
}

static void test_mra(void **state)
{
	int ca;

	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	B.answer = ANSWER_MRA;        /* service timeout 24: 2^16 ms */
	ca = connect_a(SERVICE);
	run_ms(1);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_MRA_REQ_RCVD);
	run_ms(60000);                /* no resend of the REQ meanwhile */
	assert_int_equal(A.sent_attr[0], 1);
	B.answer = ANSWER_ACCEPT;
	assert_int_equal(cm_accept(B.cm, B.ev[0].conn, &(struct cm_accept_param){
		.qpn = B.qpn, .starting_psn = B.psn }), ROCE_OK);
	run_ms(1);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_ESTABLISHED);
	assert_int_equal(cm_accept(B.cm, B.ev[0].conn, &(struct cm_accept_param){
		.qpn = B.qpn }), -ROCE_E_STATE);
}

/* ---- bad input ---------------------------------------------------------------- */

static void test_rep_unknown_local_id(void **state)
{
	struct cm_msg m;
	uint8_t mad[MAD_SIZE];
	unsigned sent = A.sent_attr[CM_ATTR_REJ - 0x10];

	(void)state;
	cm_msg_init(&m, CM_ATTR_REP, 99);
	m.u.rep.local_comm_id = 0x4242;
	m.u.rep.remote_comm_id = 0xdeadbeef;
	assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
	cm_recv(A.cm, &B.addr, mad, MAD_SIZE);
	assert_int_equal(cm_counters(A.cm)->rx_unknown_conn, 1);
	assert_int_equal(A.sent_attr[CM_ATTR_REJ - 0x10], sent);
	assert_int_equal(A.nev, 0);
	assert_int_equal(cm_conns_in_use(A.cm), 0);
}

static void test_truncated_and_class_version(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct cm_msg m;
	int ca, cb;

	(void)state;
	establish(&ca, &cb);
	cm_msg_init(&m, CM_ATTR_DREQ, 5);
	m.u.dreq.local_comm_id = A.ev[0].conn; /* anything: never parsed */
	assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
	cm_recv(B.cm, &A.addr, mad, 100);
	cm_recv(B.cm, &A.addr, mad, 0);
	mad[2] = 1;
	cm_recv(B.cm, &A.addr, mad, MAD_SIZE);
	assert_int_equal(cm_counters(B.cm)->rx_dropped[MAD_E_TRUNCATED], 2);
	assert_int_equal(cm_counters(B.cm)->rx_dropped[MAD_E_CLASS_VERSION], 1);
	assert_int_equal(cm_conn_state(B.cm, cb), CM_ESTABLISHED);
	assert_int_equal(B.sent_attr[CM_ATTR_DREP - 0x10], 0);
}

static void test_dup_req_when_established(void **state)
{
	uint8_t req[MAD_SIZE];
	unsigned before[16];
	int ca, cb;

	(void)state;
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	ca = connect_a(SERVICE);
	memcpy(req, A.last_sent, MAD_SIZE);
	run_ms(1);
	cb = last_ev(&B)->conn;
	assert_int_equal(cm_conn_state(A.cm, ca), CM_ESTABLISHED);
	memcpy(before, B.sent_attr, sizeof(before));
	cm_recv(B.cm, &A.addr, req, MAD_SIZE);
	assert_int_equal(cm_counters(B.cm)->rx_dup_req, 1);
	assert_memory_equal(before, B.sent_attr, sizeof(before)); /* nothing sent */
	assert_int_equal(cm_conn_state(B.cm, cb), CM_ESTABLISHED);
	assert_int_equal(count_ev(&B, CM_EV_CONNECT_REQUEST), 1);
	/* the same REQ once the connection is in timewait: REJ stale (10) */
	assert_int_equal(cm_disconnect(A.cm, ca), ROCE_OK);
	run_ms(1);
	cm_recv(B.cm, &A.addr, req, MAD_SIZE);
	assert_int_equal(rej_reason_sent(&B), CM_REJ_STALE_CONN);
}

static void test_dreq_unknown_conn(void **state)
{
	struct cm_msg m;
	uint8_t mad[MAD_SIZE];

	(void)state;
	cm_msg_init(&m, CM_ATTR_DREQ, 77);
	m.u.dreq.local_comm_id = 0x1111;
	m.u.dreq.remote_comm_id = 0x2222;
	assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
	cm_recv(B.cm, &A.addr, mad, MAD_SIZE);
	assert_int_equal(cm_counters(B.cm)->rx_unknown_conn, 1);
	/* answered with a DREP in the DREQ's TID, the IDs swapped */
	assert_int_equal(cm_msg_parse(B.last_sent, MAD_SIZE, &m), MAD_OK);
	assert_int_equal(m.hdr.attr_id, CM_ATTR_DREP);
	assert_int_equal(m.hdr.tid, 77);
	assert_int_equal(m.u.drep.local_comm_id, 0x2222);
	assert_int_equal(m.u.drep.remote_comm_id, 0x1111);
	assert_int_equal(B.nev, 0);
	assert_int_equal(cm_conns_in_use(B.cm), 0);
}

/* 100 REQs from 100 peers at a listener with a backlog of 4 */
static void test_listener_flood(void **state)
{
	struct cm_msg m;
	uint8_t mad[MAD_SIZE];
	int l;

	(void)state;
	B.answer = ANSWER_NONE;
	l = cm_listen(B.cm, SERVICE, 4, NULL);
	assert_true(l >= 0);
	assert_int_equal(cm_listen(B.cm, SERVICE, 4, NULL), -ROCE_E_EXISTS);
	for (uint32_t i = 0; i < 100; i++) {
		cm_msg_init(&m, CM_ATTR_REQ, i);
		m.u.req.local_comm_id = 0x7000 + i;
		m.u.req.local_ca_guid = 0x1000 + i;
		m.u.req.local_qpn = 0x100 + i;
		m.u.req.service_id = SERVICE;
		m.u.req.primary.local_ack_timeout = 19;
		assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
		cm_recv(B.cm, &A.addr, mad, MAD_SIZE);
	}
	assert_int_equal(count_ev(&B, CM_EV_CONNECT_REQUEST), 4);
	assert_int_equal(cm_conns_in_use(B.cm), 4);
	assert_int_equal(cm_counters(B.cm)->backlog_full, 96);
	assert_int_equal(B.sent_attr[CM_ATTR_REJ - 0x10], 96);
	assert_int_equal(rej_reason_sent(&B), CM_REJ_NO_RESOURCES);
	/* answering frees the backlog: one more REQ gets in */
	assert_int_equal(cm_reject(B.cm, B.ev[0].conn, NULL, 0), ROCE_OK);
	assert_int_equal(cm_reject(B.cm, B.ev[0].conn, NULL, 0), -ROCE_E_INVAL);
	cm_msg_init(&m, CM_ATTR_REQ, 500);
	m.u.req.local_comm_id = 0x9000;
	m.u.req.local_ca_guid = 0x9000;
	m.u.req.service_id = SERVICE;
	assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
	cm_recv(B.cm, &A.addr, mad, MAD_SIZE);
	assert_int_equal(count_ev(&B, CM_EV_CONNECT_REQUEST), 5);
	for (unsigned i = 1; i < B.nev; i++)
		assert_int_equal(cm_reject(B.cm, B.ev[i].conn, NULL, 0), ROCE_OK);
	assert_int_equal(cm_conns_in_use(B.cm), 0);
	/* more listeners' REQs than connection slots (8): refused, counted */
	assert_int_equal(cm_unlisten(B.cm, l), ROCE_OK);
	assert_true(cm_listen(B.cm, SERVICE, 100, NULL) >= 0);
	for (uint32_t i = 0; i < 20; i++) {
		cm_msg_init(&m, CM_ATTR_REQ, i);
		m.u.req.local_comm_id = 0xA000 + i;
		m.u.req.local_ca_guid = 0xA000 + i;
		m.u.req.local_qpn = 0x200 + i;
		m.u.req.service_id = SERVICE;
		assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
		cm_recv(B.cm, &A.addr, mad, MAD_SIZE);
	}
	assert_int_equal(cm_conns_in_use(B.cm), 8);
	assert_int_equal(cm_counters(B.cm)->no_slot, 12);
}

static void test_api_errors(void **state)
{
	struct cm_config cfg = { .max_conns = 1, .max_listeners = 1 };
	struct cm_ops ops = { &A, fake_send, fake_now, fake_modify, fake_event };

	(void)state;
	assert_null(cm_create(NULL, &ops));
	assert_null(cm_create(&cfg, NULL));
	cfg.max_conns = 0;
	assert_null(cm_create(&cfg, &ops));
	cfg.max_conns = 1;
	cfg.max_cm_retries = 16;
	assert_null(cm_create(&cfg, &ops));
	assert_int_equal(cm_connect(A.cm, NULL), -ROCE_E_INVAL);
	assert_int_equal(cm_connect(A.cm, &(struct cm_connect_param){ .qpn = 1u << 24 }),
			 -ROCE_E_INVAL);
	assert_int_equal(cm_connect(A.cm, &(struct cm_connect_param){ .private_len = 93,
		.private_data = "x" }), -ROCE_E_INVAL);
	assert_int_equal(cm_accept(A.cm, 0, &(struct cm_accept_param){ 0 }), -ROCE_E_INVAL);
	assert_int_equal(cm_accept(A.cm, -1, &(struct cm_accept_param){ 0 }), -ROCE_E_INVAL);
	assert_int_equal(cm_disconnect(A.cm, 99), -ROCE_E_INVAL);
	assert_int_equal(cm_listen(A.cm, SERVICE, 0, NULL), -ROCE_E_INVAL);
	assert_int_equal(cm_unlisten(A.cm, 3), -ROCE_E_NOENT);
	assert_string_equal(cm_state_name(CM_TIMEWAIT), "timewait");
	assert_string_equal(cm_state_name(99), "?");
	assert_int_equal(cm_time_ms(20), 4096);
	assert_int_equal(cm_time_ms(0), 1);
	assert_int_equal(cm_next_deadline(A.cm), UINT64_MAX);
}

/*
 * QPs their owners move (librdmacm's rdma_init_qp_attr, rping -q): no
 * modify from the CM on either side; the active side gets
 * CONNECT_RESPONSE at the REP and sends the RTU only at cm_establish; the
 * attributes each side is given are those the CM would have used.
 */
static void test_user_moved_qp(void **state)
{
	uint8_t priv[CMA_HDR_SIZE];
	struct cma_hdr h;
	struct cm_connect_param p = {
		.peer = B.addr, .service_id = SERVICE, .qpn = A.qpn, .starting_psn = A.psn,
		.path_mtu = 3, .responder_resources = 1, .initiator_depth = 3, .retry_count = 7,
		.rnr_retry_count = 5, .local_ack_timeout = 19, .hop_limit = 64,
		.private_data = priv, .private_len = sizeof(priv), .user_qp = true,
	};
	struct cm_qp_attr a;
	int ca, cb;

	(void)state;
	B.answer = ANSWER_ACCEPT_USER_QP;
	cma_hdr_ipv4(&h, 0x0a00000b, 0x0a00000c, 40000);
	cma_hdr_pack(&h, priv);
	assert_true(cm_listen(B.cm, SERVICE, 8, NULL) >= 0);
	ca = cm_connect(A.cm, &p);
	assert_true(ca >= 0);
	/* nothing to give before the REP */
	assert_int_equal(cm_active_attr(A.cm, ca, &a), -ROCE_E_STATE);
	run_ms(1);
	assert_int_equal(A.qp[0].modifies + B.qp[1].modifies, 0);
	assert_int_equal(last_ev(&A)->type, CM_EV_CONNECT_RESPONSE);
	assert_int_equal(cm_conn_state(A.cm, ca), CM_REP_RCVD);
	assert_int_equal(A.sent_attr[CM_ATTR_RTU - 0x10], 0);
	assert_int_equal(count_ev(&B, CM_EV_ESTABLISHED), 0);
	/* the server's: its QP to the client's, receiving from its own REP PSN */
	assert_int_equal(B.user_attr.dest_qpn, A.qpn);
	assert_int_equal(B.user_attr.rq_psn, B.psn);
	assert_int_equal(B.user_attr.sq_psn, A.psn);
	assert_int_equal(B.user_attr.path_mtu, 3);
	assert_int_equal(B.user_attr.timeout, 19);
	/* the client's, from its REQ and the REP */
	assert_int_equal(cm_active_attr(A.cm, ca, &a), ROCE_OK);
	assert_int_equal(a.dest_qpn, B.qpn);
	assert_int_equal(a.rq_psn, A.psn);
	assert_int_equal(a.sq_psn, B.psn);
	assert_int_equal(a.rnr_retry, 6);
	assert_int_equal(a.max_rd_atomic, 3 < 4 ? 3 : 4);
	assert_memory_equal(a.dgid, B.addr.gid, 16);
	/* the REP again before the RTU: counted, no RTU yet */
	net->q[net->n].to = 0;
	memcpy(net->q[net->n++].mad, B.last_sent, MAD_SIZE);
	run_ms(1);
	assert_int_equal(A.sent_attr[CM_ATTR_RTU - 0x10], 0);
	assert_int_equal(cm_counters(A.cm)->rx_dup_rep, 1);
	assert_int_equal(cm_establish(A.cm, ca), ROCE_OK);
	assert_int_equal(cm_establish(A.cm, ca), -ROCE_E_STATE);
	run_ms(1);
	assert_int_equal(A.sent_attr[CM_ATTR_RTU - 0x10], 1);
	assert_int_equal(count_ev(&B, CM_EV_ESTABLISHED), 1);
	cb = last_ev(&B)->conn;
	assert_int_equal(cm_conn_state(A.cm, ca), CM_ESTABLISHED);
	assert_int_equal(cm_conn_state(B.cm, cb), CM_ESTABLISHED);
	assert_int_equal(A.qp[0].modifies + B.qp[1].modifies, 0);
	/* no such slot */
	assert_int_equal(cm_establish(A.cm, 99), -ROCE_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_connect_disconnect),
		T(test_lost_req),
		T(test_lost_rep_and_rtu),
		T(test_dup_req_resends_rep),
		T(test_comm_established),
		T(test_everything_twice),
		T(test_lost_dreq_and_timeout),
		T(test_simultaneous_disconnect),
		T(test_req_timeout),
		T(test_unknown_service),
		T(test_consumer_reject),
		T(test_mra),
		T(test_rep_unknown_local_id),
		T(test_truncated_and_class_version),
		T(test_dup_req_when_established),
		T(test_dreq_unknown_conn),
		T(test_listener_flood),
		T(test_api_errors),
		T(test_user_moved_qp),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
