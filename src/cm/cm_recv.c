/* SPDX-License-Identifier: MIT */
/*
 * The CM's handlers of received MADs, one per message (IBA 12.9;
 * the kernel's cm_*_handler in drivers/infiniband/core/cm.c). A message a
 * connection's state does not take is counted and dropped; a duplicate is
 * answered with the MAD the connection sent last.
 */
#include "cm/cm_table.h"

#include <string.h>

#include "cm/cm_sidr.h"
#include "cm/cm_timer.h"

/* ---- REQ: the passive side --------------------------------------------- */

static struct cm_conn *find_by_remote(struct cm *cm, uint32_t remote_id, uint64_t guid)
{
	for (unsigned i = 0; i < cm->cfg.max_conns; i++) {
		struct cm_conn *c = &cm->conns[i];

		if (c->state != CM_IDLE && !c->active && c->remote_id == remote_id &&
		    c->remote_ca_guid == guid)
			return c;
	}
	return NULL;
}

/* cm_dup_req_handler: a REQ of a connection we already have */
static void dup_req(struct cm *cm, struct cm_conn *c, const struct cm_msg *m)
{
	cm->cnt.rx_dup_req++;
	switch (c->state) {
	case CM_MRA_REQ_SENT: /* our MRA was lost */
	case CM_REP_SENT:     /* our REP was lost: answer it again */
	case CM_MRA_REP_RCVD:
		cm_resend(cm, c);
		break;
	case CM_TIMEWAIT:
		/* the connection is over: the REQ is stale (as the kernel's
		   cm_dup_req_handler answers it) */
		cm_send_rej(cm, &c->peer, m->hdr.tid, c->local_id, m->u.req.local_comm_id,
			    CM_MSG_REQ, CM_REJ_STALE_CONN, NULL, 0, NULL, 0);
		break;
	default:
		/* REQ_RCVD: the consumer has not answered yet; ESTABLISHED: the
		   REQ is older than the RTU that established it */
		break;
	}
}

/* A live connection to the same remote QP (cm_insert_remote_qpn) */
static bool remote_qp_taken(struct cm *cm, const struct cm_addr *from, uint32_t qpn)
{
	for (unsigned i = 0; i < cm->cfg.max_conns; i++) {
		const struct cm_conn *c = &cm->conns[i];

		if (c->state != CM_IDLE && c->state != CM_TIMEWAIT && !c->active &&
		    c->remote_qpn == qpn && memcmp(c->peer.gid, from->gid, 16) == 0)
			return true;
	}
	return false;
}

static void recv_req(struct cm *cm, const struct cm_addr *from, const struct cm_msg *m)
{
	const struct cm_req *q = &m->u.req;
	struct cm_conn *c = find_by_remote(cm, q->local_comm_id, q->local_ca_guid);
	int l;

	if (c) {
		dup_req(cm, c, m);
		return;
	}
#define REJECT(reason)                                                          \
	cm_send_rej(cm, from, m->hdr.tid, 0, q->local_comm_id, CM_MSG_REQ, reason, \
		    NULL, 0, NULL, 0)
	/* RC (0) and UC (1) only: no RD, no XRC here (Table 106) */
	if (q->transport_service_type > 1) {
		REJECT(CM_REJ_INVALID_TRANSPORT_TYPE);
		return;
	}
	l = cm_find_listener(cm, q->service_id);
	if (l < 0) {
		REJECT(CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (remote_qp_taken(cm, from, q->local_qpn)) {
		REJECT(CM_REJ_STALE_CONN);
		return;
	}
	/*
	 * A bounded backlog: REQs waiting for the consumer's answer past it
	 * are refused at once, so a flood costs no connection slot. (The
	 * kernel's rdma_ucm drops them instead and lets the REQ retry.)
	 */
	if (cm->listeners[l].pending >= cm->listeners[l].backlog) {
		cm->cnt.backlog_full++;
		REJECT(CM_REJ_NO_RESOURCES);
		return;
	}
	c = cm_conn_alloc(cm);
	if (!c) {
		cm->cnt.no_slot++;
		REJECT(CM_REJ_NO_RESOURCES);
		return;
	}
#undef REJECT
	c->active = false;
	c->listener = l;
	c->in_backlog = true;
	cm->listeners[l].pending++;
	c->remote_id = q->local_comm_id;
	c->remote_ca_guid = q->local_ca_guid;
	c->tid = m->hdr.tid; /* the passive side answers in the REQ's TID */
	c->peer = *from;
	c->remote_qpn = q->local_qpn;
	c->local_ack_timeout = q->primary.local_ack_timeout;
	c->retry_count = q->retry_count;
	c->req = *q;
	c->user = cm->listeners[l].user;
	/* cm_req_handler: our REP and DREQ wait the REQ's local response
	   timeout, resent up to its max_cm_retries */
	c->resp_us = cm_time_ms(q->local_cm_response_timeout) * 1000;
	c->max_retries = q->max_cm_retries;
	cm_set_state(cm, c, CM_REQ_RCVD);
	cm_emit(cm, CM_EV_CONNECT_REQUEST, c, c->user, 0, &c->req, c->req.private_data,
		CM_REQ_PRIVATE);
}

/* ---- REP: the active side ---------------------------------------------- */

static void recv_rep(struct cm *cm, const struct cm_msg *m)
{
	const struct cm_rep *r = &m->u.rep;
	struct cm_conn *c = cm_conn_by_local_id(cm, r->remote_comm_id);
	struct cm_qp_attr a = { 0 };
	struct cm_msg rtu;

	if (!c || !c->active) {
		/* cm_rep_handler finds no ID: dropped */
		cm->cnt.rx_unknown_conn++;
		return;
	}
	if (c->state == CM_ESTABLISHED && r->local_comm_id == c->remote_id) {
		/* cm_dup_rep_handler: our RTU was lost */
		cm->cnt.rx_dup_rep++;
		cm_resend(cm, c);
		return;
	}
	if (c->state == CM_REP_RCVD && r->local_comm_id == c->remote_id) {
		/* the owner has not established yet: the RTU comes then */
		cm->cnt.rx_dup_rep++;
		return;
	}
	if (c->state != CM_REQ_SENT && c->state != CM_MRA_REQ_RCVD) {
		cm->cnt.rx_stale++;
		return;
	}
	c->timer_on = false;
	c->remote_id = r->local_comm_id;
	c->remote_ca_guid = r->local_ca_guid;
	c->remote_qpn = r->local_qpn;
	/*
	 * RTR and RTS from the REP (cm_rep_handler): the passive side's initiator
	 * depth bounds what we answer, its responder resources what we ask;
	 * its RNR retry count is what it asks of our QP. Neither goes past
	 * what our REQ offered (IBA 12.7.29: a REP's responder resources are at
	 * most the REQ's initiator depth): librdmacm's rdma_accept sends the
	 * consumer's values unchecked (ib_read_bw -R: rxe's 128), and our QP
	 * cannot take more than it was offered for.
	 */
	a.dest_qpn = r->local_qpn;
	/* ours in the REQ is where we receive from, the REP's where we
	   send from (cm_accept's comment; rxe_rping.pcap) */
	a.rq_psn = c->local_psn;
	a.sq_psn = r->starting_psn;
	a.path_mtu = c->req.path_mtu;
	a.max_dest_rd_atomic = r->initiator_depth < c->req.responder_resources ?
			       r->initiator_depth : c->req.responder_resources;
	a.max_rd_atomic = r->responder_resources < c->req.initiator_depth ?
			  r->responder_resources : c->req.initiator_depth;
	a.timeout = c->local_ack_timeout;
	a.retry_cnt = c->retry_count;
	a.rnr_retry = r->rnr_retry_count;
	memcpy(a.dgid, c->peer.gid, 16);
	a.flow_label = c->req.primary.flow_label;
	a.traffic_class = c->req.primary.traffic_class;
	a.hop_limit = c->req.primary.hop_limit;
	if (c->user_qp) {
		/* cma_rep_recv without a QP of its own: the owner moves it
		   (rdma_init_qp_attr) and sends the RTU (rdma_establish) */
		c->qa = a;
		cm_set_state(cm, c, CM_REP_RCVD);
		cm_emit(cm, CM_EV_CONNECT_RESPONSE, c, c->user, 0, NULL, r->private_data,
			CM_REP_PRIVATE);
		return;
	}
	if (cm->ops.modify_qp(cm->ops.ctx, c->local_qpn, CM_QP_RTR, &a) != 0 ||
	    cm->ops.modify_qp(cm->ops.ctx, c->local_qpn, CM_QP_RTS, &a) != 0) {
		void *user = c->user;

		/* as rdma_cm when its QP refuses: REJ the REP, then timewait */
		cm_send_rej(cm, &c->peer, c->tid, c->local_id, c->remote_id, CM_MSG_REP,
			    CM_REJ_CONSUMER, NULL, 0, NULL, 0);
		cm_qp_error(cm, c);
		cm_enter_timewait(cm, c);
		cm_emit(cm, CM_EV_UNREACHABLE, c, user, CM_REJ_CONSUMER, NULL, NULL, 0);
		return;
	}
	cm_msg_init(&rtu, CM_ATTR_RTU, c->tid);
	rtu.u.rtu.local_comm_id = c->local_id;
	rtu.u.rtu.remote_comm_id = c->remote_id;
	cm_set_state(cm, c, CM_ESTABLISHED);
	cm_send_msg(cm, &c->peer, &rtu, c->mad);
	cm_emit(cm, CM_EV_ESTABLISHED, c, c->user, 0, NULL, r->private_data, CM_REP_PRIVATE);
}

/* ---- RTU, MRA, REJ ------------------------------------------------------- */

static void recv_rtu(struct cm *cm, const struct cm_msg *m)
{
	struct cm_conn *c = cm_conn_by_local_id(cm, m->u.rtu.remote_comm_id);

	if (!c || c->active || c->remote_id != m->u.rtu.local_comm_id) {
		cm->cnt.rx_unknown_conn++;
		return;
	}
	if (c->state != CM_REP_SENT && c->state != CM_MRA_REP_RCVD) {
		cm->cnt.rx_stale++; /* a late copy: the RTU is never resent */
		return;
	}
	c->timer_on = false;
	cm_set_state(cm, c, CM_ESTABLISHED);
	cm_emit(cm, CM_EV_ESTABLISHED, c, c->user, 0, NULL, m->u.rtu.private_data,
		CM_RTU_PRIVATE);
}

static void recv_mra(struct cm *cm, const struct cm_msg *m)
{
	const struct cm_mra *r = &m->u.mra;
	struct cm_conn *c = cm_conn_by_local_id(cm, r->remote_comm_id);

	if (!c) {
		cm->cnt.rx_unknown_conn++;
		return;
	}
	if (c->active && c->state == CM_REQ_SENT && r->message_mraed == CM_MSG_REQ) {
		cm_set_state(cm, c, CM_MRA_REQ_RCVD);
		c->remote_id = r->local_comm_id;
	} else if (!c->active && c->state == CM_REP_SENT && r->message_mraed == CM_MSG_REP) {
		cm_set_state(cm, c, CM_MRA_REP_RCVD);
	} else {
		cm->cnt.rx_stale++;
		return;
	}
	/*
	 * cm_mra_handler: the peer needs its service timeout; wait that plus
	 * the path's round trip before resending (ib_modify_mad keeps it for
	 * the resends that follow).
	 */
	c->timeout_us = (cm_time_ms(r->service_timeout) +
			 cm_time_ms(c->local_ack_timeout)) * 1000;
	c->deadline_us = cm_now(cm) + c->timeout_us;
}

static struct cm_conn *find_rejected(struct cm *cm, const struct cm_rej *r)
{
	struct cm_conn *c;
	uint64_t guid = 0;

	if (r->remote_comm_id) {
		c = cm_conn_by_local_id(cm, r->remote_comm_id);
		/* once known, the peer's ID must match (0: it never sent one) */
		if (c && (!r->local_comm_id || !c->remote_id || c->remote_id == r->local_comm_id))
			return c;
		return NULL;
	}
	/* cm_acquire_rejected_id: a timeout REJ from an active side that
	   never learnt our ID names itself and its CA GUID (the ARI) */
	if (r->reason != CM_REJ_TIMEOUT || r->reject_info_length < 8)
		return NULL;
	for (int i = 0; i < 8; i++)
		guid = guid << 8 | r->ari[i];
	return find_by_remote(cm, r->local_comm_id, guid);
}

static void recv_rej(struct cm *cm, const struct cm_msg *m)
{
	const struct cm_rej *r = &m->u.rej;
	struct cm_conn *c = find_rejected(cm, r);
	void *user;

	cm->cnt.rej_rcvd++;
	if (!c) {
		cm->cnt.rx_unknown_conn++;
		return;
	}
	user = c->user;
	switch (c->state) {
	case CM_REQ_SENT:
	case CM_MRA_REQ_RCVD:
	case CM_REQ_RCVD:
	case CM_MRA_REQ_SENT:
		/* no QP of ours went past INIT (the passive side's none yet) */
		if (c->active)
			cm_qp_error(cm, c);
		cm_conn_free(cm, c);
		break;
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
	case CM_ESTABLISHED:
		/* a REJ after our REP (or, established, one for a stale
		   connection; cm_rej_handler): the QP may hold packets */
		if (c->state == CM_ESTABLISHED && r->reason != CM_REJ_STALE_CONN) {
			cm->cnt.rx_stale++;
			return;
		}
		cm_qp_error(cm, c);
		cm_enter_timewait(cm, c);
		break;
	default:
		cm->cnt.rx_stale++;
		return;
	}
	cm_emit(cm, CM_EV_REJECTED, c, user, r->reason, NULL, r->private_data, CM_REJ_PRIVATE);
}

/* ---- DREQ, DREP ---------------------------------------------------------- */

static void send_drep(struct cm *cm, const struct cm_addr *to, uint64_t tid,
		      uint32_t local_id, uint32_t remote_id, uint8_t *keep)
{
	struct cm_msg m;

	cm_msg_init(&m, CM_ATTR_DREP, tid);
	m.u.drep.local_comm_id = local_id;
	m.u.drep.remote_comm_id = remote_id;
	cm_send_msg(cm, to, &m, keep);
}

static void recv_dreq(struct cm *cm, const struct cm_addr *from, const struct cm_msg *m)
{
	const struct cm_dreq *d = &m->u.dreq;
	struct cm_conn *c = cm_conn_by_local_id(cm, d->remote_comm_id);

	if (!c || c->remote_id != d->local_comm_id) {
		/* cm_dreq_handler: answered all the same, so the peer can end */
		cm->cnt.rx_unknown_conn++;
		send_drep(cm, from, m->hdr.tid, d->remote_comm_id, d->local_comm_id, NULL);
		return;
	}
	switch (c->state) {
	case CM_ESTABLISHED:
	case CM_REP_SENT:    /* the RTU was lost, the peer is done already */
	case CM_MRA_REP_RCVD:
	case CM_DREQ_SENT:   /* both ends disconnect at once */
		c->timer_on = false;
		cm_qp_error(cm, c);
		send_drep(cm, &c->peer, m->hdr.tid, c->local_id, c->remote_id, c->mad);
		cm_enter_timewait(cm, c);
		cm_emit(cm, CM_EV_DISCONNECTED, c, c->user, 0, NULL, d->private_data,
			CM_DREQ_PRIVATE);
		break;
	case CM_TIMEWAIT:
		/* our DREP was lost (or this is the other end's copy) */
		send_drep(cm, &c->peer, m->hdr.tid, c->local_id, c->remote_id, NULL);
		break;
	default:
		cm->cnt.rx_stale++;
		break;
	}
}

static void recv_drep(struct cm *cm, const struct cm_msg *m)
{
	struct cm_conn *c = cm_conn_by_local_id(cm, m->u.drep.remote_comm_id);

	if (!c || c->remote_id != m->u.drep.local_comm_id) {
		cm->cnt.rx_unknown_conn++;
		return;
	}
	if (c->state != CM_DREQ_SENT) {
		cm->cnt.rx_stale++;
		return;
	}
	cm_enter_timewait(cm, c);
	cm_emit(cm, CM_EV_DISCONNECTED, c, c->user, 0, NULL, m->u.drep.private_data,
		CM_DREP_PRIVATE);
}

void cm_recv(struct cm *cm, const struct cm_addr *from, const uint8_t *mad, size_t len)
{
	struct cm_msg m;
	enum mad_err err;

	cm->cnt.rx_mads++;
	err = cm_msg_parse(mad, len, &m);
	if (err != MAD_OK) {
		cm->cnt.rx_dropped[err]++;
		return;
	}
	cm->cnt.rx_attr[(m.hdr.attr_id - CM_ATTR_REQ) & 15]++;
	switch (m.hdr.attr_id) {
	case CM_ATTR_REQ: recv_req(cm, from, &m); break;
	case CM_ATTR_REP: recv_rep(cm, &m); break;
	case CM_ATTR_RTU: recv_rtu(cm, &m); break;
	case CM_ATTR_MRA: recv_mra(cm, &m); break;
	case CM_ATTR_REJ: recv_rej(cm, &m); break;
	case CM_ATTR_DREQ: recv_dreq(cm, from, &m); break;
	case CM_ATTR_DREP: recv_drep(cm, &m); break;
	case CM_ATTR_SIDR_REQ: cm_recv_sidr_req(cm, from, &m); break;
	case CM_ATTR_SIDR_REP: cm_recv_sidr_rep(cm, &m); break;
	default:
		cm->cnt.rx_stale++;
		break;
	}
}
