/* SPDX-License-Identifier: MIT */
/*
 * Our CM against rxe's, message by message: each connection of the rxe
 * captures (tests/vectors/captures/rxe_rping*.pcap, rxe_write_bw_R.pcap;
 * its MADs found by their communication IDs) is replayed into a CM of ours on
 * either side, configured as the rxe host was (its CA GUID, its first
 * communication ID, the REQ's and REP's parameters):
 *   - passive: rxe's REQ in, our REP out must be rxe's REP byte for byte;
 *     rxe's RTU in makes it established; rxe's DREQ in gives rxe's DREP,
 *     or, where the passive side disconnected in the capture, our DREQ is
 *     rxe's;
 *   - active: our REQ must be rxe's REQ, rxe's REP in gives rxe's RTU,
 *     and so on, byte for byte except the transaction ID (the sender's to
 *     choose: the kernel puts its MAD agent's number in the high half).
 * The QP attributes each side sets are checked against the other's
 * message. The SIDR_REQ and SIDR_REP of rxe_send_lat_R_ud.pcap (a UD QP
 * of perftest -R) are replayed the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/packet.h"
#include "roce/pcap.h"
#include "roce/status.h"
#include "cm/cm.h"

#define VEC ROCE_SOURCE_DIR "/tests/vectors"

struct wire_mad {
	uint8_t mad[MAD_SIZE];
	struct cm_msg m;
	uint8_t src_gid[16];
};

struct conn_mads {
	const struct wire_mad *req, *rep, *rtu, *dreq, *drep;
	const struct wire_mad *sidr_req, *sidr_rep;
};

/* ---- the CM under test ------------------------------------------------------ */

struct side {
	struct cm *cm;
	uint8_t sent[8][MAD_SIZE];
	unsigned nsent;
	struct cm_qp_attr rtr, rts;
	unsigned established, disconnected, sidr_replies;
	const struct conn_mads *c;
};

static int t_send(void *ctx, const struct cm_addr *to, const uint8_t mad[MAD_SIZE])
{
	struct side *s = ctx;

	(void)to;
	assert_true(s->nsent < 8);
	memcpy(s->sent[s->nsent++], mad, MAD_SIZE);
	return 0;
}

static uint64_t t_now(void *ctx)
{
	(void)ctx;
	return 1000000;
}

static int t_modify(void *ctx, uint32_t qpn, enum cm_qp_state st, const struct cm_qp_attr *a)
{
	struct side *s = ctx;

	(void)qpn;
	if (st == CM_QP_RTR)
		s->rtr = *a;
	if (st == CM_QP_RTS)
		s->rts = *a;
	return 0;
}

static void t_event(void *ctx, const struct cm_event *e)
{
	struct side *s = ctx;
	const struct cm_rep *rep = s->c->rep ? &s->c->rep->m.u.rep : NULL;
	const struct cm_sidr_rep *srep = s->c->sidr_rep ? &s->c->sidr_rep->m.u.sidr_rep : NULL;

	switch (e->type) {
	case CM_EV_SIDR_REQUEST:
		/* answer as rxe's SIDR_REP did */
		assert_non_null(srep);
		assert_int_equal(cm_sidr_rep(s->cm, e->conn, srep->status, srep->qpn, srep->qkey,
					     srep->private_data, CM_SIDR_REP_PRIVATE),
				 ROCE_OK);
		break;
	case CM_EV_SIDR_REPLY:
		assert_int_equal(e->sidr_rep->status, srep->status);
		assert_int_equal(e->sidr_rep->qpn, srep->qpn);
		assert_int_equal(e->sidr_rep->qkey, srep->qkey);
		s->sidr_replies++;
		break;
	case CM_EV_CONNECT_REQUEST: {
		/* accept with what rxe's REP says rxe accepted with */
		struct cm_accept_param p = {
			.qpn = rep->local_qpn, .starting_psn = rep->starting_psn,
			.responder_resources = rep->responder_resources,
			.initiator_depth = rep->initiator_depth,
			.rnr_retry_count = rep->rnr_retry_count,
			.target_ack_delay = rep->target_ack_delay,
			.private_data = rep->private_data, .private_len = CM_REP_PRIVATE,
		};

		assert_int_equal(cm_accept(s->cm, e->conn, &p), ROCE_OK);
		break;
	}
	case CM_EV_ESTABLISHED: s->established++; break;
	case CM_EV_DISCONNECTED: s->disconnected++; break;
	default: fail_msg("unexpected event %d", e->type);
	}
}

static struct cm *side_cm(struct side *s, uint64_t guid, uint32_t first_id,
			  const struct cm_req *req, const uint8_t gid[16])
{
	struct cm_config cfg = {
		.ca_guid = guid, .max_conns = 4, .max_listeners = 1,
		.packet_life_time = 16,
		.cm_response_timeout = req->remote_cm_response_timeout,
		.max_cm_retries = req->max_cm_retries, .comm_id_seed = first_id,
	};
	struct cm_ops ops = { s, t_send, t_now, t_modify, t_event };

	memcpy(cfg.local_gid, gid, 16);
	s->cm = cm_create(&cfg, &ops);
	assert_non_null(s->cm);
	return s->cm;
}

/* our MAD against rxe's; with_tid 0: every byte but the TID's */
static void same_mad(const uint8_t *ours, const struct wire_mad *rxe, int with_tid)
{
	uint8_t a[MAD_SIZE], b[MAD_SIZE];

	memcpy(a, ours, MAD_SIZE);
	memcpy(b, rxe->mad, MAD_SIZE);
	if (!with_tid)
		memset(a + 8, 0, 8), memset(b + 8, 0, 8);
	for (size_t i = 0; i < MAD_SIZE; i++)
		if (a[i] != b[i])
			fail_msg("%s: byte %zu ours %02x, rxe %02x", cm_attr_name(rxe->m.hdr.attr_id),
				 i, a[i], b[i]);
}

static bool from_active(const struct conn_mads *c, const struct wire_mad *w)
{
	return memcmp(w->src_gid, c->req->src_gid, 16) == 0;
}

static void replay_passive(const struct conn_mads *c)
{
	const struct cm_req *q = &c->req->m.u.req;
	struct side s = { .c = c };
	struct cm_addr peer;

	memcpy(peer.gid, c->req->src_gid, 16);
	side_cm(&s, c->rep->m.u.rep.local_ca_guid, c->rep->m.u.rep.local_comm_id, q,
		q->primary.remote_gid);
	assert_true(cm_listen(s.cm, q->service_id, 1, NULL) >= 0);
	cm_recv(s.cm, &peer, c->req->mad, MAD_SIZE);
	assert_int_equal(s.nsent, 1);
	same_mad(s.sent[0], c->rep, 1);
	/* our QP from rxe's REQ */
	assert_int_equal(s.rtr.dest_qpn, q->local_qpn);
	/* rxe's client sends from the REP's starting PSN (ours), we from
	   its REQ's, as the capture's data frames show */
	assert_int_equal(s.rts.sq_psn, q->starting_psn);
	assert_int_equal(s.rtr.path_mtu, q->path_mtu);
	assert_int_equal(s.rts.timeout, q->primary.local_ack_timeout);
	assert_int_equal(s.rts.rnr_retry, q->rnr_retry_count);
	cm_recv(s.cm, &peer, c->rtu->mad, MAD_SIZE);
	assert_int_equal(s.established, 1);
	assert_int_equal(s.nsent, 1);
	if (from_active(c, c->dreq)) {
		cm_recv(s.cm, &peer, c->dreq->mad, MAD_SIZE);
		assert_int_equal(s.nsent, 2);
		same_mad(s.sent[1], c->drep, 1);
	} else {
		assert_int_equal(cm_disconnect(s.cm, 0), ROCE_OK);
		assert_int_equal(s.nsent, 2);
		same_mad(s.sent[1], c->dreq, 0); /* in its own TID, not the REQ's */
		cm_recv(s.cm, &peer, c->drep->mad, MAD_SIZE);
	}
	assert_int_equal(s.disconnected, 1);
	cm_destroy(s.cm);
}

static void replay_active(const struct conn_mads *c)
{
	const struct cm_req *q = &c->req->m.u.req;
	const struct cm_rep *r = &c->rep->m.u.rep;
	struct side s = { .c = c };
	struct cm_connect_param p = {
		.service_id = q->service_id, .qpn = q->local_qpn, .starting_psn = q->starting_psn,
		.path_mtu = q->path_mtu, .responder_resources = q->responder_resources,
		.initiator_depth = q->initiator_depth, .retry_count = q->retry_count,
		.rnr_retry_count = q->rnr_retry_count,
		.local_ack_timeout = q->primary.local_ack_timeout, .pkey = q->pkey,
		.flow_label = q->primary.flow_label, .traffic_class = q->primary.traffic_class,
		.hop_limit = q->primary.hop_limit,
		.private_data = q->private_data, .private_len = CM_REQ_PRIVATE,
	};
	int conn;

	memcpy(p.peer.gid, q->primary.remote_gid, 16);
	side_cm(&s, q->local_ca_guid, q->local_comm_id, q, q->primary.local_gid);
	conn = cm_connect(s.cm, &p);
	assert_int_equal(conn, 0);
	assert_int_equal(s.nsent, 1);
	same_mad(s.sent[0], c->req, 0);
	cm_recv(s.cm, &p.peer, c->rep->mad, MAD_SIZE);
	assert_int_equal(s.established, 1);
	assert_int_equal(s.nsent, 2);
	same_mad(s.sent[1], c->rtu, 0);
	/* our QP from rxe's REP */
	assert_int_equal(s.rtr.dest_qpn, r->local_qpn);
	assert_int_equal(s.rtr.rq_psn, q->starting_psn);
	assert_int_equal(s.rts.sq_psn, r->starting_psn);
	assert_int_equal(s.rts.rnr_retry, r->rnr_retry_count);
	if (from_active(c, c->dreq)) {
		assert_int_equal(cm_disconnect(s.cm, conn), ROCE_OK);
		assert_int_equal(s.nsent, 3);
		same_mad(s.sent[2], c->dreq, 0);
		cm_recv(s.cm, &p.peer, c->drep->mad, MAD_SIZE);
	} else {
		cm_recv(s.cm, &p.peer, c->dreq->mad, MAD_SIZE);
		assert_int_equal(s.nsent, 3);
		same_mad(s.sent[2], c->drep, 1); /* in the passive side's DREQ's TID */
	}
	assert_int_equal(s.disconnected, 1);
	cm_destroy(s.cm);
}

/* ---- the captures ------------------------------------------------------------- */

static unsigned load(const char *name, struct wire_mad *out, unsigned max)
{
	char path[512];
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	unsigned n = 0;

	snprintf(path, sizeof(path), VEC "/captures/%s.pcap", name);
	assert_int_equal(roce_pcap_open_read(path, &r, NULL, 0), ROCE_OK);
	while (roce_pcap_next(r, &rec) == ROCE_OK) {
		struct roce_pkt p;
		struct roce_hdrs h;

		if (roce_parse(rec.data, rec.caplen, 0, &p) != ROCE_OK)
			continue;
		roce_decode(&p, &h);
		if (h.bth.opcode != 0x64 || h.bth.dqpn != MAD_GSI_QPN)
			continue;
		assert_true(n < max);
		memcpy(out[n].mad, roce_pkt_payload(&p), MAD_SIZE);
		assert_int_equal(cm_msg_parse(out[n].mad, MAD_SIZE, &out[n].m), MAD_OK);
		/* IPv4 source as its IPv4-mapped GID */
		memset(out[n].src_gid, 0, 16);
		out[n].src_gid[10] = out[n].src_gid[11] = 0xff;
		memcpy(out[n].src_gid + 12, h.ip.src, 4);
		n++;
	}
	roce_pcap_close_read(r);
	return n;
}

static void replay_capture(const char *name, unsigned want_conns)
{
	struct wire_mad w[32];
	unsigned n = load(name, w, 32), conns = 0;

	for (unsigned i = 0; i < n; i++) {
		struct conn_mads c = { 0 };

		if (w[i].m.hdr.attr_id != CM_ATTR_REQ)
			continue;
		/* a connection's MADs by their communication IDs: the active
		   side's (the REQ's) and the passive side's (the REP's) */
		uint32_t a = w[i].m.u.req.local_comm_id, pid = 0;

		c.req = &w[i];
		for (unsigned j = 0; j < n; j++)
			if (w[j].m.hdr.attr_id == CM_ATTR_REP && w[j].m.u.rep.remote_comm_id == a)
				c.rep = &w[j], pid = w[j].m.u.rep.local_comm_id;
		for (unsigned j = 0; j < n; j++) {
			const struct cm_msg *m = &w[j].m;
			/* DREQ and DREP: the same two IDs, either way round */
			uint32_t l = m->u.dreq.local_comm_id, r = m->u.dreq.remote_comm_id;
			bool both = (l == a && r == pid) || (l == pid && r == a);

			if (m->hdr.attr_id == CM_ATTR_RTU && m->u.rtu.local_comm_id == a)
				c.rtu = &w[j];
			if (m->hdr.attr_id == CM_ATTR_DREQ && both)
				c.dreq = &w[j];
			if (m->hdr.attr_id == CM_ATTR_DREP && both)
				c.drep = &w[j];
		}
		assert_true(c.req && c.rep && c.rtu && c.dreq && c.drep);
		replay_passive(&c);
		replay_active(&c);
		conns++;
	}
	print_message("%s: %u connections replayed on both sides\n", name, conns);
	assert_int_equal(conns, want_conns);
}

static void test_rping(void **state)
{
	(void)state;
	replay_capture("rxe_rping", 1);
	replay_capture("rxe_rping_cm", 1);
}

static void test_write_bw_R(void **state)
{
	(void)state;
	replay_capture("rxe_write_bw_R", 2);
}

/*
 * perftest -R -c UD between two rxe hosts: the exchange's RC connection,
 * then SIDR for the UD QP. Passive: rxe's SIDR_REQ in, our SIDR_REP
 * (with rxe's QPN, Q_Key and private data) must be rxe's byte for byte,
 * the TID too; active: our SIDR_REQ (rxe's request ID and private data)
 * must be rxe's but for the TID, and rxe's SIDR_REP in is taken.
 */
static void test_send_lat_R_ud(void **state)
{
	struct wire_mad w[32];
	unsigned n = load("rxe_send_lat_R_ud", w, 32);
	struct conn_mads c = { 0 };
	struct cm_req timing = { .remote_cm_response_timeout = 20, .max_cm_retries = 15 };
	struct side pas = { .c = &c }, act = { .c = &c };
	struct cm_addr peer;

	(void)state;
	replay_capture("rxe_send_lat_R_ud", 1);
	for (unsigned i = 0; i < n; i++)
		if (w[i].m.hdr.attr_id == CM_ATTR_SIDR_REQ)
			c.sidr_req = &w[i];
	assert_non_null(c.sidr_req);
	for (unsigned i = 0; i < n; i++)
		if (w[i].m.hdr.attr_id == CM_ATTR_SIDR_REP &&
		    w[i].m.u.sidr_rep.request_id == c.sidr_req->m.u.sidr_req.request_id)
			c.sidr_rep = &w[i];
	assert_non_null(c.sidr_rep);
	/* rdma_cm's: the UDP port space, RDMA_UDP_QKEY, success */
	assert_true((c.sidr_req->m.u.sidr_req.service_id >> 16) == 0x0111);
	assert_int_equal(c.sidr_rep->m.u.sidr_rep.qkey, 0x01234567);
	assert_int_equal(c.sidr_rep->m.u.sidr_rep.status, CM_SIDR_SUCCESS);

	memcpy(peer.gid, c.sidr_req->src_gid, 16);
	side_cm(&pas, 0x1, 0x100, &timing, c.sidr_rep->src_gid);
	assert_true(cm_listen(pas.cm, c.sidr_req->m.u.sidr_req.service_id, 1, NULL) >= 0);
	cm_recv(pas.cm, &peer, c.sidr_req->mad, MAD_SIZE);
	assert_int_equal(pas.nsent, 1);
	same_mad(pas.sent[0], c.sidr_rep, 1);
	cm_destroy(pas.cm);

	struct cm_sidr_param p = {
		.service_id = c.sidr_req->m.u.sidr_req.service_id,
		.pkey = c.sidr_req->m.u.sidr_req.pkey,
		.private_data = c.sidr_req->m.u.sidr_req.private_data,
		.private_len = CM_SIDR_REQ_PRIVATE,
	};

	memcpy(p.peer.gid, c.sidr_rep->src_gid, 16);
	side_cm(&act, 0x2, c.sidr_req->m.u.sidr_req.request_id, &timing, c.sidr_req->src_gid);
	assert_int_equal(cm_sidr_req(act.cm, &p), 0);
	assert_int_equal(act.nsent, 1);
	same_mad(act.sent[0], c.sidr_req, 0);
	cm_recv(act.cm, &p.peer, c.sidr_rep->mad, MAD_SIZE);
	assert_int_equal(act.sidr_replies, 1);
	assert_int_equal(cm_conns_in_use(act.cm), 0);
	cm_destroy(act.cm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rping),
		cmocka_unit_test(test_write_bw_R),
		cmocka_unit_test(test_send_lat_R_ud),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
