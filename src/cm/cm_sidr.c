/* SPDX-License-Identifier: MIT */
/*
 * Service ID resolution (IBA 12.11), what a UD QP has in place of a
 * connection: the active side's SIDR_REQ names a service ID, the passive
 * side's SIDR_REP gives the QPN and Q_Key that serve it. No QP changes
 * state and nothing is left behind: a slot holds the request while it is
 * out (resent on the response timeout, as the kernel's
 * ib_send_cm_sidr_req through its MAD agent) or while the consumer decides
 * (the kernel's IB_CM_SIDR_REQ_RCVD). The active side's is free again
 * with the reply; the passive side keeps its reply for two response
 * timeouts and answers a copy of the request with it (the requester
 * resent it before the reply came, or the reply was lost), where the
 * kernel would take the copy for a new request.
 */
#include "cm/cm_sidr.h"

#include <string.h>

#include "cm/cm_timer.h"
#include "roce/status.h"

static void emit(struct cm *cm, enum cm_event_type type, struct cm_conn *c, void *user,
		 const struct cm_msg *m, const struct cm_addr *from)
{
	struct cm_event ev = {
		.type = type,
		.conn = cm_conn_index(cm, c),
		.user = user,
		.from = from,
	};

	if (type == CM_EV_SIDR_REQUEST) {
		ev.sidr_req = &m->u.sidr_req;
		ev.private_data = m->u.sidr_req.private_data;
		ev.private_len = CM_SIDR_REQ_PRIVATE;
	} else {
		ev.sidr_rep = &m->u.sidr_rep;
		ev.private_data = m->u.sidr_rep.private_data;
		ev.private_len = CM_SIDR_REP_PRIVATE;
	}
	cm->ops.event(cm->ops.ctx, &ev);
}

int cm_sidr_req(struct cm *cm, const struct cm_sidr_param *p)
{
	struct cm_conn *c;
	struct cm_msg m;

	if (!p || p->private_len > CM_SIDR_REQ_PRIVATE || (p->private_len && !p->private_data))
		return -ROCE_E_INVAL;
	c = cm_conn_alloc(cm);
	if (!c)
		return -ROCE_E_FULL;
	c->active = true;
	c->peer = p->peer;
	c->user = p->user;
	c->req.service_id = p->service_id; /* what the status shows */
	cm_msg_init(&m, CM_ATTR_SIDR_REQ, c->own_tid);
	m.u.sidr_req.request_id = c->local_id;
	m.u.sidr_req.pkey = p->pkey;
	m.u.sidr_req.service_id = p->service_id;
	if (p->private_len)
		memcpy(m.u.sidr_req.private_data, p->private_data, p->private_len);
	cm_set_state(cm, c, CM_SIDR_REQ_SENT);
	/* cma_resolve_ib_udp: the response timeout, max_cm_retries resends */
	cm_timer_arm(cm, c, cm_time_ms(cm->cfg.cm_response_timeout) * 1000,
		     cm->cfg.max_cm_retries);
	cm_send_msg(cm, &c->peer, &m, c->mad);
	return cm_conn_index(cm, c);
}

static void send_rep(struct cm *cm, const struct cm_addr *to, uint64_t tid, uint32_t request_id,
		     uint64_t service_id, enum cm_sidr_status status, uint32_t qpn, uint32_t qkey,
		     const void *priv, size_t len, uint8_t *keep)
{
	struct cm_msg m;

	cm_msg_init(&m, CM_ATTR_SIDR_REP, tid);
	m.u.sidr_rep.request_id = request_id;
	m.u.sidr_rep.status = (uint8_t)status;
	m.u.sidr_rep.service_id = service_id;
	if (status == CM_SIDR_SUCCESS) {
		m.u.sidr_rep.qpn = qpn & 0xFFFFFF;
		m.u.sidr_rep.qkey = qkey;
	}
	if (len)
		memcpy(m.u.sidr_rep.private_data, priv, len);
	cm_send_msg(cm, to, &m, keep);
}

int cm_sidr_rep(struct cm *cm, int conn, enum cm_sidr_status status, uint32_t qpn,
		uint32_t qkey, const void *private_data, size_t len)
{
	struct cm_conn *c;

	if (conn < 0 || (unsigned)conn >= cm->cfg.max_conns || len > CM_SIDR_REP_PRIVATE ||
	    (len && !private_data) || (unsigned)status > CM_SIDR_UNSUPPORTED_VERSION)
		return -ROCE_E_INVAL;
	c = &cm->conns[conn];
	if (c->state != CM_SIDR_REQ_RCVD)
		return -ROCE_E_STATE;
	send_rep(cm, &c->peer, c->tid, c->remote_id, c->req.service_id, status, qpn, qkey,
		 private_data, len, c->mad);
	cm_backlog_release(cm, c);
	cm_set_state(cm, c, CM_SIDR_REP_SENT);
	c->timer_on = true;
	c->retries_left = 0;
	c->deadline_us = cm_now(cm) + 2 * cm_time_ms(cm->cfg.cm_response_timeout) * 1000;
	return ROCE_OK;
}

/* The kernel's cm_sidr_req_handler */
void cm_recv_sidr_req(struct cm *cm, const struct cm_addr *from, const struct cm_msg *m)
{
	const struct cm_sidr_req *q = &m->u.sidr_req;
	struct cm_conn *c;
	int l;

	/* a copy of a request the consumer is deciding on, or has answered */
	for (unsigned i = 0; i < cm->cfg.max_conns; i++) {
		c = &cm->conns[i];
		if ((c->state == CM_SIDR_REQ_RCVD || c->state == CM_SIDR_REP_SENT) &&
		    c->remote_id == q->request_id && memcmp(c->peer.gid, from->gid, 16) == 0) {
			cm->cnt.rx_dup_req++;
			if (c->state == CM_SIDR_REP_SENT)
				cm_resend(cm, c);
			return;
		}
	}
	l = cm_find_listener(cm, q->service_id);
	if (l < 0) {
		send_rep(cm, from, m->hdr.tid, q->request_id, q->service_id,
			 CM_SIDR_UNSUPPORTED, 0, 0, NULL, 0, NULL);
		return;
	}
	/* past the backlog (or with no slot) the request is dropped: its
	   resend comes back when the consumer has caught up */
	if (cm->listeners[l].pending >= cm->listeners[l].backlog) {
		cm->cnt.backlog_full++;
		return;
	}
	c = cm_conn_alloc(cm);
	if (!c) {
		cm->cnt.no_slot++;
		return;
	}
	c->active = false;
	c->listener = l;
	c->in_backlog = true;
	cm->listeners[l].pending++;
	c->remote_id = q->request_id;
	c->tid = m->hdr.tid; /* the SIDR_REP answers in the SIDR_REQ's TID */
	c->peer = *from;
	c->req.service_id = q->service_id;
	c->user = cm->listeners[l].user;
	cm_set_state(cm, c, CM_SIDR_REQ_RCVD);
	emit(cm, CM_EV_SIDR_REQUEST, c, c->user, m, from);
}

/* The kernel's cm_sidr_rep_handler */
void cm_recv_sidr_rep(struct cm *cm, const struct cm_msg *m)
{
	struct cm_conn *c = cm_conn_by_local_id(cm, m->u.sidr_rep.request_id);
	void *user;

	if (!c || !c->active) {
		cm->cnt.rx_unknown_conn++;
		return;
	}
	if (c->state != CM_SIDR_REQ_SENT) {
		cm->cnt.rx_stale++;
		return;
	}
	user = c->user;
	cm_conn_free(cm, c);
	emit(cm, CM_EV_SIDR_REPLY, c, user, m, NULL);
}
