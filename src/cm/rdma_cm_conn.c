/* SPDX-License-Identifier: MIT */
/*
 * Connections of the rdma_cm-shaped API (roce/cm.h): connect, listen,
 * accept, reject, establish and disconnect of an ID through the CM's
 * calls, with rdma_cm's header before the user's private data; and the
 * CM's events turned into librdmacm's (a CONNECT_REQUEST makes a new ID
 * on the listener's channel, as the kernel's cma_ib_req_handler). A UDP
 * ID has no connection: its calls and events go to rdma_cm_ud.c.
 */
#include "cm/rdma_cm_conn.h"

#include <errno.h>
#include <string.h>

#include "cm/cma.h"
#include "cm/rdma_cm_event.h"
#include "cm/rdma_cm_id.h"
#include "cm/rdma_cm_ud.h"
#include "roce/status.h"

/* the local ACK timeout rxe's REQs carry */
#define RCM_ACK_TIMEOUT 19

int roce_cm_connect(struct roce_cm_id *id, const struct roce_conn_param *param)
{
	struct roce_cm *cm;
	struct cm_connect_param p = { 0 };
	uint8_t priv[CMA_HDR_SIZE + ROCE_CM_REQ_PRIVATE];
	uint8_t sgid[16];
	int rc;

	if (id && param && id->ps == ROCE_PS_UDP) {
		pthread_mutex_lock(&id->cm->lock);
		rc = rcm_ud_connect(id, param);
		pthread_mutex_unlock(&id->cm->lock);
		return rc;
	}
	if (!id || !param || param->private_data_len > ROCE_CM_REQ_PRIVATE ||
	    (param->private_data_len && !param->private_data) || param->retry_count > 7 ||
	    param->rnr_retry_count > 7)
		return ROCE_E_INVAL;
	cm = id->cm;
	pthread_mutex_lock(&cm->lock);
	if (!id->route_resolved || (!id->qp && !param->qp_num) || id->conn >= 0 ||
	    id->listener >= 0) {
		pthread_mutex_unlock(&cm->lock);
		return ROCE_E_STATE;
	}
	rcm_hdr(id, param, priv, sgid);
	memcpy(p.peer.gid, id->dgid, 16);
	memcpy(p.local_gid, sgid, 16);
	p.service_id = CMA_SERVICE_ID(CMA_PS_TCP, rcm_sa_port(&id->dst));
	p.qpn = id->qp ? roce_qp_num(id->qp) : param->qp_num;
	p.user_qp = !id->qp;
	id->user_qpn = p.user_qp ? p.qpn : 0;
	p.starting_psn = rcm_rnd(cm) & 0xFFFFFF;
	p.path_mtu = (uint8_t)id->mtu;
	p.responder_resources = param->responder_resources;
	p.initiator_depth = param->initiator_depth;
	p.retry_count = param->retry_count;
	p.rnr_retry_count = param->rnr_retry_count;
	p.local_ack_timeout = RCM_ACK_TIMEOUT;
	p.hop_limit = 64;
	p.private_data = priv;
	p.private_len = CMA_HDR_SIZE + param->private_data_len;
	p.user = id;
	rc = cm_connect(cm_qp1_cm(cm->port), &p);
	if (rc >= 0) {
		id->conn = rc;
		rc = ROCE_OK;
	} else {
		rc = -rc;
	}
	pthread_mutex_unlock(&cm->lock);
	return rc;
}

int roce_cm_listen(struct roce_cm_id *id, int backlog)
{
	int rc;

	if (!id || backlog < 0)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (!id->src.ss_family || id->listener >= 0 || id->lo_listen || id->conn >= 0) {
		pthread_mutex_unlock(&id->cm->lock);
		return ROCE_E_STATE;
	}
	if (rcm_sa_loopback(&id->src)) {
		id->lo_listen = true;
		pthread_mutex_unlock(&id->cm->lock);
		return ROCE_OK;
	}
	rc = cm_listen(cm_qp1_cm(id->cm->port), CMA_SERVICE_ID(id->ps, rcm_sa_port(&id->src)),
		       backlog ? (unsigned)backlog : 1024u, id);
	if (rc >= 0) {
		id->listener = rc;
		rc = ROCE_OK;
	} else {
		rc = -rc;
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_accept(struct roce_cm_id *id, const struct roce_conn_param *param)
{
	struct cm_accept_param p = { 0 };
	int rc;

	if (!id || !param || (param->private_data_len && !param->private_data) ||
	    param->rnr_retry_count > 7)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->ps == ROCE_PS_UDP) {
		rc = rcm_ud_accept(id, param);
		pthread_mutex_unlock(&id->cm->lock);
		return rc;
	}
	if (id->conn < 0 || (!id->qp && !param->qp_num)) {
		pthread_mutex_unlock(&id->cm->lock);
		return ROCE_E_STATE;
	}
	p.qpn = id->qp ? roce_qp_num(id->qp) : param->qp_num;
	p.user_qp = !id->qp;
	id->user_qpn = p.user_qp ? p.qpn : 0;
	p.starting_psn = id->psn; /* chosen at the request: init_qp_attr's too */
	p.responder_resources = param->responder_resources;
	p.initiator_depth = param->initiator_depth;
	p.rnr_retry_count = param->rnr_retry_count;
	p.target_ack_delay = 15; /* rxe's REPs */
	p.private_data = param->private_data;
	p.private_len = param->private_data_len;
	p.user = id;
	rc = -cm_accept(cm_qp1_cm(id->cm->port), id->conn, &p);
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_reject(struct roce_cm_id *id, const void *private_data, uint8_t len)
{
	int rc;

	if (!id || (len && !private_data) || len > ROCE_CM_REJ_PRIVATE)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->ps == ROCE_PS_UDP)
		rc = rcm_ud_reject(id, private_data, len);
	else
		rc = id->conn < 0 ? ROCE_E_STATE
				  : -cm_reject(cm_qp1_cm(id->cm->port), id->conn, private_data,
					       len);
	if (rc == ROCE_OK)
		id->conn = -1;
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_establish(struct roce_cm_id *id)
{
	int rc;

	if (!id)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	rc = id->conn < 0 ? ROCE_E_STATE : -cm_establish(cm_qp1_cm(id->cm->port), id->conn);
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_disconnect(struct roce_cm_id *id)
{
	int rc;

	if (!id)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->ps == ROCE_PS_UDP) {
		/* no connection to end: the QP goes to ERR (rdma_disconnect's
		   cma_modify_qp_err), the ib_cm's DREQ fails unseen */
		struct roce_qp_attr at = { .qp_state = ROCE_QPS_ERR };

		rc = id->qp ? roce_modify_qp(id->qp, &at, ROCE_QP_STATE) : ROCE_E_STATE;
	} else {
		rc = id->conn < 0 ? ROCE_E_STATE
				  : -cm_disconnect(cm_qp1_cm(id->cm->port), id->conn);
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

/* ---- the CM's events ------------------------------------------------------ */

static void connect_request(struct roce_cm *cm, const struct cm_event *ev)
{
	struct roce_cm_id *lid = ev->user, *id;
	struct cma_hdr h;
	struct cm *c = cm_qp1_cm(cm->port);

	if (!lid || lid->destroyed || !ev->req ||
	    cma_hdr_parse(ev->private_data, ev->private_len, &h) != MAD_OK) {
		/* no rdma_cm header: not for rdma_cm (cma_check_req_qp_type) */
		cm_reject(c, ev->conn, NULL, 0);
		return;
	}
	id = rcm_id_new(lid->ch, lid->context);
	if (!id) {
		cm_reject(c, ev->conn, NULL, 0);
		return;
	}
	id->conn = ev->conn;
	rcm_gid_sa(ev->req->primary.local_gid, h.src_port, &id->dst);
	rcm_gid_sa(ev->req->primary.remote_gid, rcm_sa_port(&lid->src), &id->src);
	memcpy(id->dgid, ev->req->primary.local_gid, 16);
	id->mtu = (enum roce_mtu)ev->req->path_mtu;
	id->psn = rcm_rnd(cm) & 0xFFFFFF;
	rcm_queue(id->ch, id, lid, ROCE_CM_EVENT_CONNECT_REQUEST, 0,
		  ev->private_data + CMA_HDR_SIZE, ev->private_len - CMA_HDR_SIZE);
	/* the peer's READ/atomic depths, as librdmacm reports them */
	id->ch->tail->ev.param.responder_resources = ev->req->responder_resources;
	id->ch->tail->ev.param.initiator_depth = ev->req->initiator_depth;
	id->ch->tail->ev.param.retry_count = ev->req->retry_count;
	id->ch->tail->ev.param.rnr_retry_count = ev->req->rnr_retry_count;
}

void rcm_cm_event(void *arg, const struct cm_event *ev)
{
	struct roce_cm *cm = arg;
	struct roce_cm_id *id = ev->user;
	enum roce_cm_event_type t;
	int status = 0;

	if (ev->type == CM_EV_CONNECT_REQUEST) {
		connect_request(cm, ev);
		return;
	}
	if (ev->type == CM_EV_SIDR_REQUEST || ev->type == CM_EV_SIDR_REPLY) {
		rcm_ud_event(cm, ev);
		return;
	}
	if (!id)
		return;
	switch (ev->type) {
	case CM_EV_ESTABLISHED:
		t = ROCE_CM_EVENT_ESTABLISHED;
		break;
	case CM_EV_CONNECT_RESPONSE:
		t = ROCE_CM_EVENT_CONNECT_RESPONSE;
		break;
	case CM_EV_REJECTED:
		t = ROCE_CM_EVENT_REJECTED;
		status = ev->rej_reason;
		break;
	case CM_EV_UNREACHABLE:
		t = ROCE_CM_EVENT_UNREACHABLE;
		status = -ETIMEDOUT;
		break;
	case CM_EV_DISCONNECTED:
		t = ROCE_CM_EVENT_DISCONNECTED;
		break;
	case CM_EV_TIMEWAIT_EXIT:
		t = ROCE_CM_EVENT_TIMEWAIT_EXIT;
		break;
	default:
		return;
	}
	/* the CM frees a slot before it tells (REJ taken, REQ timed out,
	   timewait over): the ID has no connection from then on */
	if (cm_conn_state(cm_qp1_cm(cm->port), ev->conn) == CM_IDLE)
		id->conn = -1;
	if (id->destroyed) {
		if (id->conn < 0 && !id->events_out)
			rcm_id_free(id);
		return;
	}
	rcm_queue(id->ch, id, NULL, t, status, ev->private_data, ev->private_len);
}
