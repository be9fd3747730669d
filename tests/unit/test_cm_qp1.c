/* SPDX-License-Identifier: MIT */
/*
 * The CM on QP1 (src/cm/cm_qp1.c): two engines on the in-memory link, on
 * a virtual clock, each with its CM port. A connects an RC QP to B's
 * through the CM: REQ, REP and RTU go as UD SENDs between the QP1s, the
 * CM moves both QPs to RTS; a SEND and an RDMA WRITE then cross the
 * connection; DREQ/DREP take it down and both slots leave timewait. The
 * same with 30 % of frames lost: the MADs are resent and it still
 * connects, sends and disconnects.
 */
#include "pair.h"
#include "cm/cm_qp1.h"
#include "cm/cma.h"
#include "roce/gid.h"

#define SERVICE CMA_SERVICE_ID(CMA_PS_TCP, 7174)

struct end {
	struct pair_side *s;
	const struct pair_side *peer;
	struct cm_qp1 *port;
	struct roce_qp *qp;
	struct cm_event ev[32];
	unsigned nev;
};

static uint64_t vnow(void *ctx)
{
	return *(const uint64_t *)ctx;
}

static int resolve(void *arg, const uint8_t gid[16], uint8_t mac[6])
{
	struct end *e = arg;

	if (memcmp(gid, e->peer->gid, 16))
		return -1;
	memcpy(mac, e->s->peer_mac, 6);
	return 0;
}

static void on_event(void *arg, const struct cm_event *ev)
{
	struct end *e = arg;

	assert_true(e->nev < 32);
	e->ev[e->nev] = *ev;
	e->ev[e->nev].req = NULL;          /* valid only during the call */
	e->ev[e->nev].private_data = NULL;
	e->nev++;
}

static void end_open(struct pair *p, struct end *e, struct pair_side *s,
		     const struct pair_side *peer, uint32_t seed)
{
	struct cm_qp1_config c = {
		.ctx = s->ctx, .pd = s->pd, .sgid_index = (uint8_t)s->sgid_index,
		.cm = { .ca_guid = 0x0200000000000000ull | seed, .max_conns = 8,
			.max_listeners = 2,
			/* short CM timeouts: REQ waits 2 * 1 + 16 ms */
			.packet_life_time = 8, .cm_response_timeout = 12,
			.max_cm_retries = 15, .comm_id_seed = seed },
		.resolve_mac = resolve, .event = on_event, .arg = e,
		.now_ns = vnow, .clock_ctx = &p->vclock,
	};
	struct roce_qp_init_attr qa = {
		.send_cq = s->scq, .recv_cq = s->rcq, .qp_type = ROCE_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	memset(e, 0, sizeof(*e));
	e->s = s;
	e->peer = peer;
	assert_int_equal(cm_qp1_create(&c, &e->port), ROCE_OK);
	e->qp = roce_create_qp(s->pd, &qa);
	assert_non_null(e->qp);
	assert_int_equal(cm_qp1_add_qp(e->port, e->qp), ROCE_OK);
}

static void end_close(struct end *e)
{
	cm_qp1_remove_qp(e->port, e->qp);
	assert_int_equal(roce_destroy_qp(e->qp), ROCE_OK);
	cm_qp1_destroy(e->port);
}

/* Runs both engines and CM ports until `until` holds or max_ms of
   virtual time pass; an idle step jumps the clock 50 us. */
static bool run(struct pair *p, struct end *a, struct end *b,
		bool (*until)(struct end *, struct end *), unsigned max_ms)
{
	uint64_t end = p->vclock + (uint64_t)max_ms * 1000000u;

	while (p->vclock < end) {
		unsigned moved = roce_engine_poll(p->a.ctx) + roce_engine_poll(p->b.ctx);

		moved += cm_qp1_poll(a->port) + cm_qp1_poll(b->port);
		p->vclock += moved ? 1000 : 50000;
		if (until(a, b))
			return true;
	}
	return false;
}

static bool has(const struct end *e, enum cm_event_type t)
{
	for (unsigned i = 0; i < e->nev; i++)
		if (e->ev[i].type == t)
			return true;
	return false;
}

static bool req_in(struct end *a, struct end *b)
{
	(void)a;
	return has(b, CM_EV_CONNECT_REQUEST);
}

static bool both_up(struct end *a, struct end *b)
{
	return has(a, CM_EV_ESTABLISHED) && has(b, CM_EV_ESTABLISHED);
}

static bool both_down(struct end *a, struct end *b)
{
	return has(a, CM_EV_TIMEWAIT_EXIT) && has(b, CM_EV_TIMEWAIT_EXIT);
}

/* A SEND from A to B and an RDMA WRITE from B to A on the connected QPs. */
static void traffic(struct pair *p, struct end *a, struct end *b)
{
	struct roce_sge rs = { (uint64_t)(uintptr_t)b->s->buf, 4096, b->s->mr->lkey };
	struct roce_recv_wr rw = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 };
	struct roce_sge ss = { (uint64_t)(uintptr_t)a->s->buf, 3000, a->s->mr->lkey };
	struct roce_send_wr sw = { .wr_id = 8, .sg_list = &ss, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_sge ws = { (uint64_t)(uintptr_t)b->s->buf + 8192, 2000, b->s->mr->lkey };
	struct roce_send_wr ww = { .wr_id = 9, .sg_list = &ws, .num_sge = 1,
				   .opcode = ROCE_WR_RDMA_WRITE,
				   .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *bad;
	struct roce_wc wc;
	int got = 0;

	pair_pattern(a->s->buf, 3000, 1);
	memset(b->s->buf, 0, 4096);
	pair_pattern(b->s->buf + 8192, 2000, 2);
	memset(a->s->buf + 65536, 0, 2000);
	ww.wr.rdma.remote_addr = (uint64_t)(uintptr_t)a->s->buf + 65536;
	ww.wr.rdma.rkey = a->s->mr->rkey;
	assert_int_equal(roce_post_recv(b->qp, &rw, NULL), ROCE_OK);
	assert_int_equal(roce_post_send(a->qp, &sw, &bad), ROCE_OK);
	assert_int_equal(roce_post_send(b->qp, &ww, &bad), ROCE_OK);
	for (unsigned i = 0; i < 2000000 && got < 3; i++) {
		roce_engine_poll(p->a.ctx);
		roce_engine_poll(p->b.ctx);
		p->vclock += 1000;
		while (roce_poll_cq(a->s->scq, 1, &wc) == 1 || roce_poll_cq(b->s->rcq, 1, &wc) == 1 ||
		       roce_poll_cq(b->s->scq, 1, &wc) == 1) {
			if (wc.status != ROCE_WC_SUCCESS)
				fail_msg("wr %llu: %s", (unsigned long long)wc.wr_id,
					 roce_wc_status_str(wc.status));
			got++;
		}
	}
	assert_int_equal(got, 3);
	assert_memory_equal(a->s->buf, b->s->buf, 3000);
	assert_memory_equal(b->s->buf + 8192, a->s->buf + 65536, 2000);
}

static void connect_cycle(double loss)
{
	struct pair_opts o = { .virtual_time = true, .link = { .seed = 5 } };
	struct pair *p = pair_open(&o);
	struct end a, b;
	struct cm *ca, *cb;
	int conn_a, conn_b;

	end_open(p, &a, &p->a, &p->b, 0x100);
	end_open(p, &b, &p->b, &p->a, 0x200);
	ca = cm_qp1_cm(a.port);
	cb = cm_qp1_cm(b.port);
	assert_int_equal(roce_memlink_set_faults(p->link, loss, 0, 0, 0), ROCE_OK);
	assert_true(cm_listen(cb, SERVICE, 4, NULL) >= 0);

	struct cm_connect_param cp = {
		.service_id = SERVICE, .qpn = roce_qp_num(a.qp), .starting_psn = 0x1234,
		.path_mtu = ROCE_MTU_1024, .responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .local_ack_timeout = 12,
		.hop_limit = 64, .private_data = "hello", .private_len = 5,
	};
	memcpy(cp.peer.gid, p->b.gid, 16);
	conn_a = cm_connect(ca, &cp);
	assert_true(conn_a >= 0);
	assert_true(run(p, &a, &b, req_in, 5000));
	conn_b = b.ev[0].conn;
	assert_int_equal(b.ev[0].type, CM_EV_CONNECT_REQUEST);
	assert_int_equal(cm_accept(cb, conn_b, &(struct cm_accept_param){
		.qpn = roce_qp_num(b.qp), .starting_psn = 0x5678, .responder_resources = 1,
		.initiator_depth = 1, .rnr_retry_count = 7 }), ROCE_OK);
	assert_true(run(p, &a, &b, both_up, 5000));
	assert_int_equal(cm_conn_state(ca, conn_a), CM_ESTABLISHED);
	assert_int_equal(cm_conn_state(cb, conn_b), CM_ESTABLISHED);

	/* the QPs are what the CM made of the REQ and REP */
	struct roce_qp_attr qa;
	assert_int_equal(roce_query_qp(a.qp, &qa), ROCE_OK);
	assert_int_equal(qa.qp_state, ROCE_QPS_RTS);
	assert_int_equal(qa.dest_qp_num, roce_qp_num(b.qp));
	/* each side receives from the PSN its own message named */
	assert_int_equal(qa.rq_psn, 0x1234);
	assert_int_equal(qa.path_mtu, ROCE_MTU_1024);
	assert_int_equal(roce_query_qp(b.qp, &qa), ROCE_OK);
	assert_int_equal(qa.qp_state, ROCE_QPS_RTS);
	assert_int_equal(qa.dest_qp_num, roce_qp_num(a.qp));
	assert_int_equal(qa.rq_psn, 0x5678);

	traffic(p, &a, &b);

	assert_int_equal(cm_disconnect(ca, conn_a), ROCE_OK);
	assert_true(run(p, &a, &b, both_down, 10000));
	assert_true(has(&a, CM_EV_DISCONNECTED));
	assert_true(has(&b, CM_EV_DISCONNECTED));
	assert_int_equal(cm_conns_in_use(ca), 0);
	assert_int_equal(cm_conns_in_use(cb), 0);

	/* every MAD went through QP1 and was taken by the other CM */
	const struct cm_counters *na = cm_counters(ca), *nb = cm_counters(cb);
	assert_true(na->tx_attr[CM_ATTR_REQ - 0x10] >= 1);
	assert_true(nb->tx_attr[CM_ATTR_REP - 0x10] >= 1);
	assert_true(na->tx_attr[CM_ATTR_RTU - 0x10] >= 1);
	assert_true(na->tx_attr[CM_ATTR_DREQ - 0x10] >= 1);
	assert_true(nb->tx_attr[CM_ATTR_DREP - 0x10] >= 1);
	assert_int_equal(cm_qp1_stats(a.port)->tx_mads, na->tx_mads);
	assert_int_equal(cm_qp1_stats(b.port)->rx_mads, nb->rx_mads);
	assert_true(nb->rx_attr[CM_ATTR_REQ - 0x10] >= 1);
	assert_true(na->rx_attr[CM_ATTR_REP - 0x10] >= 1);
	assert_int_equal(cm_qp1_stats(a.port)->tx_error + cm_qp1_stats(b.port)->tx_error, 0);
	assert_int_equal(cm_qp1_stats(a.port)->rx_bad + cm_qp1_stats(b.port)->rx_bad, 0);
	if (loss > 0)
		assert_true(na->retries + nb->retries > 0);
	else
		assert_int_equal(na->retries + nb->retries, 0);

	end_close(&a);
	end_close(&b);
	pair_close(p);
}

static void test_connect(void **state)
{
	(void)state;
	connect_cycle(0);
}

static void test_connect_lossy(void **state)
{
	(void)state;
	connect_cycle(0.3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect),
		cmocka_unit_test(test_connect_lossy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
