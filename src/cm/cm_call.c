/* SPDX-License-Identifier: MIT */
/*
 * The CM's calls on a connection (IBA 12.9): connect and, after the REP,
 * establish on the active side; accept, reject, MRA and the early
 * establish on the passive side; disconnect on either; and the QP
 * attributes an owner who moves its own QP asks for. Each checks the
 * connection's state, sends its MAD through the table (cm_table.c) and
 * arms the connection's timer (cm_timer.c) when an answer is due.
 */
#include "cm/cm_table.h"

#include <string.h>

#include "cm/cm_timer.h"
#include "roce/status.h"

int cm_connect(struct cm *cm, const struct cm_connect_param *p)
{
	struct cm_conn *c;
	struct cm_msg m;
	struct cm_req *r = &m.u.req;

	if (!p || p->private_len > CM_REQ_PRIVATE || (p->private_len && !p->private_data) ||
	    p->qpn > 0xFFFFFF || p->starting_psn > 0xFFFFFF || p->retry_count > 7 ||
	    p->rnr_retry_count > 7 || p->local_ack_timeout > 31 || p->path_mtu > 15)
		return -ROCE_E_INVAL;
	c = cm_conn_alloc(cm);
	if (!c)
		return -ROCE_E_FULL;
	if (!p->user_qp &&
	    cm->ops.modify_qp(cm->ops.ctx, p->qpn, CM_QP_INIT, &(struct cm_qp_attr){ 0 }) != 0)
		return -ROCE_E_IO; /* the slot is still idle */
	c->active = true;
	c->user_qp = p->user_qp;
	c->peer = p->peer;
	c->local_qpn = p->qpn;
	c->local_psn = p->starting_psn;
	c->local_ack_timeout = p->local_ack_timeout;
	c->retry_count = p->retry_count;
	c->user = p->user;
	/* kept for the REP's modify: the path and our side of the REQ */
	cm_msg_init(&m, CM_ATTR_REQ, c->tid);
	r->local_comm_id = c->local_id;
	r->service_id = p->service_id;
	r->local_ca_guid = cm->cfg.ca_guid;
	r->local_qpn = p->qpn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->remote_cm_response_timeout = cm->cfg.cm_response_timeout;
	r->starting_psn = p->starting_psn;
	r->local_cm_response_timeout = cm->cfg.cm_response_timeout;
	r->retry_count = p->retry_count;
	r->pkey = p->pkey ? p->pkey : 0xFFFF;
	r->path_mtu = p->path_mtu;
	r->rnr_retry_count = p->rnr_retry_count;
	r->max_cm_retries = cm->cfg.max_cm_retries;
	/* RoCE: the permissive LID in both, the GIDs carry the addresses */
	r->primary.local_lid = 0xFFFF;
	r->primary.remote_lid = 0xFFFF;
	{
		static const uint8_t zero[16];
		/* the connection's own GID (its address family), else ours */
		memcpy(r->primary.local_gid,
		       memcmp(p->local_gid, zero, 16) ? p->local_gid : cm->cfg.local_gid, 16);
	}
	memcpy(r->primary.remote_gid, p->peer.gid, 16);
	r->primary.flow_label = p->flow_label & 0xFFFFF;
	r->primary.traffic_class = p->traffic_class;
	r->primary.hop_limit = p->hop_limit;
	r->primary.local_ack_timeout = p->local_ack_timeout;
	if (p->private_len)
		memcpy(r->private_data, p->private_data, p->private_len);
	c->req = *r;
	cm_set_state(cm, c, CM_REQ_SENT);
	/* ib_send_cm_req: twice the packet life time plus the peer's
	   response time, max_cm_retries resends */
	c->resp_us = (2 * cm_time_ms(cm->cfg.packet_life_time) +
		      cm_time_ms(cm->cfg.cm_response_timeout)) * 1000;
	c->max_retries = cm->cfg.max_cm_retries;
	cm_send_msg(cm, &c->peer, &m, c->mad);
	cm_timer_arm(cm, c, c->resp_us, c->max_retries);
	return cm_conn_index(cm, c);
}

static void passive_qp_attr(const struct cm_conn *c, const struct cm_accept_param *p,
			    struct cm_qp_attr *a)
{
	const struct cm_req *q = &c->req;

	memset(a, 0, sizeof(*a));
	/*
	 * As rdma_cm's cma_accept_ib: INIT, RTR with the REQ's side of the
	 * path, RTS, then the REP. The REQ's retry and RNR retry counts are
	 * what the active side asks of our QP (the kernel's cm_req_handler
	 * keeps them for cm_init_qp_rts_attr).
	 */
	a->dest_qpn = q->local_qpn;
	/* A message's starting PSN is the PSN its sender's QP receives
	   first: the peer sends from it. rxe_rping.pcap shows it: the
	   client's first SEND carries the REP's starting PSN, the server's
	   first READ the REQ's; rxe NAKs a SEND from the REQ's. */
	a->rq_psn = p->starting_psn;
	a->sq_psn = q->starting_psn;
	a->path_mtu = q->path_mtu;
	a->max_dest_rd_atomic = p->responder_resources;
	a->max_rd_atomic = p->initiator_depth;
	a->timeout = q->primary.local_ack_timeout;
	a->retry_cnt = q->retry_count;
	a->rnr_retry = q->rnr_retry_count;
	memcpy(a->dgid, q->primary.local_gid, 16);
	a->flow_label = q->primary.flow_label;
	a->traffic_class = q->primary.traffic_class;
	a->hop_limit = q->primary.hop_limit;
}

static bool accept_param_ok(const struct cm_accept_param *p)
{
	return p && p->private_len <= CM_REP_PRIVATE && (!p->private_len || p->private_data) &&
	       p->qpn <= 0xFFFFFF && p->starting_psn <= 0xFFFFFF && p->rnr_retry_count <= 7 &&
	       p->target_ack_delay <= 31;
}

static bool passive_open(const struct cm_conn *c)
{
	return c && !c->active && (c->state == CM_REQ_RCVD || c->state == CM_MRA_REQ_SENT);
}

int cm_passive_attr(struct cm *cm, int conn, const struct cm_accept_param *p,
		    struct cm_qp_attr *out)
{
	struct cm_conn *c = cm_conn_get(cm, conn);

	if (!c || !accept_param_ok(p) || !out)
		return -ROCE_E_INVAL;
	if (!passive_open(c))
		return -ROCE_E_STATE;
	passive_qp_attr(c, p, out);
	return ROCE_OK;
}

int cm_active_attr(struct cm *cm, int conn, struct cm_qp_attr *out)
{
	struct cm_conn *c = cm_conn_get(cm, conn);

	if (!c || !out)
		return -ROCE_E_INVAL;
	if (!c->active || !c->user_qp || (c->state != CM_REP_RCVD && c->state != CM_ESTABLISHED))
		return -ROCE_E_STATE;
	*out = c->qa;
	return ROCE_OK;
}

int cm_establish(struct cm *cm, int conn)
{
	struct cm_conn *c = cm_conn_get(cm, conn);
	struct cm_msg rtu;

	if (!c)
		return -ROCE_E_INVAL;
	if (!c->active || c->state != CM_REP_RCVD)
		return -ROCE_E_STATE;
	cm_msg_init(&rtu, CM_ATTR_RTU, c->tid);
	rtu.u.rtu.local_comm_id = c->local_id;
	rtu.u.rtu.remote_comm_id = c->remote_id;
	cm_set_state(cm, c, CM_ESTABLISHED);
	cm_send_msg(cm, &c->peer, &rtu, c->mad);
	return ROCE_OK;
}

int cm_accept(struct cm *cm, int conn, const struct cm_accept_param *p)
{
	struct cm_conn *c = cm_conn_get(cm, conn);
	struct cm_qp_attr a;
	struct cm_msg m;
	struct cm_rep *r = &m.u.rep;

	if (!c || !accept_param_ok(p))
		return -ROCE_E_INVAL;
	if (!passive_open(c))
		return -ROCE_E_STATE;
	passive_qp_attr(c, p, &a);
	if (!p->user_qp &&
	    (cm->ops.modify_qp(cm->ops.ctx, p->qpn, CM_QP_INIT, &a) != 0 ||
	     cm->ops.modify_qp(cm->ops.ctx, p->qpn, CM_QP_RTR, &a) != 0 ||
	     cm->ops.modify_qp(cm->ops.ctx, p->qpn, CM_QP_RTS, &a) != 0))
		return -ROCE_E_IO;
	c->user_qp = p->user_qp;
	c->local_qpn = p->qpn;
	c->local_psn = p->starting_psn;
	if (p->user)
		c->user = p->user;
	cm_msg_init(&m, CM_ATTR_REP, c->tid);
	r->local_comm_id = c->local_id;
	r->remote_comm_id = c->remote_id;
	r->local_qpn = p->qpn;
	r->starting_psn = p->starting_psn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->target_ack_delay = p->target_ack_delay;
	r->rnr_retry_count = p->rnr_retry_count;
	r->local_ca_guid = cm->cfg.ca_guid;
	if (p->private_len)
		memcpy(r->private_data, p->private_data, p->private_len);
	cm_backlog_release(cm, c);
	cm_set_state(cm, c, CM_REP_SENT);
	cm_send_msg(cm, &c->peer, &m, c->mad);
	cm_timer_arm(cm, c, c->resp_us, c->max_retries);
	return ROCE_OK;
}

int cm_reject(struct cm *cm, int conn, const void *private_data, size_t len)
{
	struct cm_conn *c = cm_conn_get(cm, conn);

	if (!c || len > CM_REJ_PRIVATE || (len && !private_data))
		return -ROCE_E_INVAL;
	if (c->active || (c->state != CM_REQ_RCVD && c->state != CM_MRA_REQ_SENT))
		return -ROCE_E_STATE;
	cm_send_rej(cm, &c->peer, c->tid, c->local_id, c->remote_id, CM_MSG_REQ,
		    CM_REJ_CONSUMER, NULL, 0, private_data, len);
	/* no QP of ours was touched: the slot is free at once */
	cm_conn_free(cm, c);
	return ROCE_OK;
}

int cm_mra(struct cm *cm, int conn, uint8_t service_timeout)
{
	struct cm_conn *c = cm_conn_get(cm, conn);
	struct cm_msg m;

	if (!c || service_timeout > 31)
		return -ROCE_E_INVAL;
	if (c->active || c->state != CM_REQ_RCVD)
		return -ROCE_E_STATE;
	cm_msg_init(&m, CM_ATTR_MRA, c->tid);
	m.u.mra.local_comm_id = c->local_id;
	m.u.mra.remote_comm_id = c->remote_id;
	m.u.mra.message_mraed = CM_MSG_REQ;
	m.u.mra.service_timeout = service_timeout;
	cm_set_state(cm, c, CM_MRA_REQ_SENT);
	/* not retried: a duplicate REQ has it sent again (cm_dup_req_handler) */
	cm_send_msg(cm, &c->peer, &m, c->mad);
	return ROCE_OK;
}

int cm_notify_established(struct cm *cm, int conn)
{
	struct cm_conn *c = cm_conn_get(cm, conn);

	if (!c)
		return -ROCE_E_INVAL;
	if (c->active || (c->state != CM_REP_SENT && c->state != CM_MRA_REP_RCVD))
		return -ROCE_E_STATE;
	c->timer_on = false;
	cm_set_state(cm, c, CM_ESTABLISHED);
	cm_emit(cm, CM_EV_ESTABLISHED, c, c->user, 0, NULL, NULL, 0);
	return ROCE_OK;
}

int cm_disconnect(struct cm *cm, int conn)
{
	struct cm_conn *c = cm_conn_get(cm, conn);
	struct cm_msg m;

	if (!c)
		return -ROCE_E_INVAL;
	if (c->state != CM_ESTABLISHED)
		return -ROCE_E_STATE;
	cm_qp_error(cm, c);
	/* a new transaction: the passive side too uses its own TID here, as
	   the kernel's ib_send_cm_dreq (cm_form_tid) does */
	cm_msg_init(&m, CM_ATTR_DREQ, c->own_tid);
	m.u.dreq.local_comm_id = c->local_id;
	m.u.dreq.remote_comm_id = c->remote_id;
	m.u.dreq.remote_qpn = c->remote_qpn;
	cm_set_state(cm, c, CM_DREQ_SENT);
	cm_send_msg(cm, &c->peer, &m, c->mad);
	cm_timer_arm(cm, c, c->resp_us, c->max_retries);
	return ROCE_OK;
}

void cm_disconnect_all(struct cm *cm)
{
	for (unsigned i = 0; i < cm_max_conns(cm); i++)
		if (cm_conn_state(cm, (int)i) == CM_ESTABLISHED)
			cm_disconnect(cm, (int)i);
}
