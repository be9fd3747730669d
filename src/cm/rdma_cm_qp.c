/* SPDX-License-Identifier: MIT */
/*
 * The QP an ID of the rdma_cm-shaped API (roce/cm.h) makes, and the
 * attributes it is moved with. An RC QP goes to INIT at once, as
 * librdmacm's rdma_create_qp makes it, and the CM moves it on through
 * cm_qp1; a UD QP is ready at once (INIT with RDMA_UDP_QKEY, RTR, RTS:
 * librdmacm's ucma_init_ud_qp). A QP its caller made and moves itself
 * (conn_param.qp_num) asks for each step's attributes with
 * roce_cm_init_qp_attr, as with rdma_init_qp_attr.
 */
#include "cm/rdma_cm_priv.h"

#include "roce/status.h"

/* A UDP ID's QP: RTS with the port space's Q_Key before any SIDR, as
   librdmacm's ucma_init_ud_qp leaves it */
static int ud_ready(struct roce_qp *qp)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
				   .qkey = ROCE_UDP_QKEY };
	int rc;

	rc = roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_QKEY);
	if (rc == ROCE_OK) {
		at.qp_state = ROCE_QPS_RTR;
		rc = roce_modify_qp(qp, &at, ROCE_QP_STATE);
	}
	if (rc == ROCE_OK) {
		at.qp_state = ROCE_QPS_RTS;
		at.sq_psn = 0;
		rc = roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN);
	}
	return rc;
}

int roce_cm_create_qp(struct roce_cm_id *id, struct roce_pd *pd,
		      struct roce_qp_init_attr *init_attr)
{
	bool ud = id && id->ps == ROCE_PS_UDP;
	struct roce_qp *qp;
	int rc;

	if (!id || !pd || !init_attr || init_attr->qp_type != (ud ? ROCE_QPT_UD : ROCE_QPT_RC))
		return ROCE_E_INVAL;
	if (id->qp)
		return ROCE_E_EXISTS;
	rc = roce_create_qp_status(pd, init_attr, &qp);
	if (rc != ROCE_OK)
		return rc;
	/* a UD QP's own steps need not the CM's lock */
	if (ud)
		rc = ud_ready(qp);
	pthread_mutex_lock(&id->cm->lock);
	/* RC: INIT at once, as librdmacm's rdma_create_qp: receives may be
	   posted before the connection; the CM moves it on */
	if (!ud && rc == ROCE_OK)
		rc = cm_qp1_init_qp(id->cm->port, qp);
	if (!ud && rc == ROCE_OK)
		rc = cm_qp1_add_qp(id->cm->port, qp);
	if (rc == ROCE_OK)
		id->qp = qp;
	pthread_mutex_unlock(&id->cm->lock);
	if (rc != ROCE_OK)
		roce_destroy_qp(qp);
	return rc;
}

void roce_cm_destroy_qp(struct roce_cm_id *id)
{
	if (!id || !id->qp)
		return;
	pthread_mutex_lock(&id->cm->lock);
	cm_qp1_remove_qp(id->cm->port, id->qp);
	pthread_mutex_unlock(&id->cm->lock);
	roce_destroy_qp(id->qp);
	id->qp = NULL;
}

/* The REQ's depths turned round, as the kernel's cm_req_handler keeps
   them for a passive side's cm_init_qp_*_attr */
static struct cm_accept_param passive_param(struct roce_cm_id *id, struct cm *c)
{
	struct cm_accept_param p = { .qpn = id->user_qpn, .starting_psn = id->psn };
	const struct cm_req *q = cm_conn_req(c, id->conn);

	if (q) {
		p.responder_resources = q->initiator_depth;
		p.initiator_depth = q->responder_resources;
	}
	return p;
}

int roce_cm_init_qp_attr(struct roce_cm_id *id, struct roce_qp_attr *attr, unsigned *mask)
{
	struct cm_qp_attr a = { 0 };
	enum cm_qp_state st;
	struct cm *c;
	int rc;

	if (!id || !attr || !mask)
		return ROCE_E_INVAL;
	switch (attr->qp_state) {
	case ROCE_QPS_INIT: st = CM_QP_INIT; break;
	case ROCE_QPS_RTR: st = CM_QP_RTR; break;
	case ROCE_QPS_RTS: st = CM_QP_RTS; break;
	default: return ROCE_E_INVAL;
	}
	pthread_mutex_lock(&id->cm->lock);
	c = cm_qp1_cm(id->cm->port);
	if (st == CM_QP_INIT) {
		rc = ROCE_OK;
	} else if (id->conn < 0) {
		rc = ROCE_E_STATE;
	} else if (cm_conn_state(c, id->conn) == CM_REP_RCVD) {
		rc = -cm_active_attr(c, id->conn, &a);
	} else {
		struct cm_accept_param p = passive_param(id, c);

		rc = -cm_passive_attr(c, id->conn, &p, &a);
	}
	if (rc == ROCE_OK)
		rc = cm_qp1_qp_attr(id->cm->port, st, &a, attr, mask);
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}
