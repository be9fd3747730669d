/* SPDX-License-Identifier: MIT */
/*
 * The QP of an ID, as librdmacm makes and moves it: ibv_create_qp_ex on
 * the ID's device (CQs with completion channels made for it when none is
 * given, freed with it), INIT at once (a UD QP on to RTS with
 * RDMA_UDP_QKEY, ucma_init_ud_qp), and RTR and RTS with the attributes
 * the CM hands out for each step (rdma_init_qp_attr), moved by the
 * library at accept and at the connect's response, to ERR at disconnect
 * and reject. The engine's attributes turn into ibverbs' field by field:
 * the masks are ibverbs' values (roce/verbs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm/rc.h"
#include "roce/status.h"

void rc_ah_to_ibv(const struct roce_ah_attr *in, struct ibv_ah_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->is_global = 1;
	memcpy(out->grh.dgid.raw, in->grh.dgid, 16);
	out->grh.flow_label = in->grh.flow_label;
	out->grh.sgid_index = in->grh.sgid_index;
	out->grh.hop_limit = in->grh.hop_limit;
	out->grh.traffic_class = in->grh.traffic_class;
	out->port_num = 1;
}

static void attr_to_ibv(const struct roce_qp_attr *in, struct ibv_qp_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->qp_state = (enum ibv_qp_state)in->qp_state;
	out->path_mtu = (enum ibv_mtu)in->path_mtu;
	out->qp_access_flags = in->qp_access_flags;
	out->dest_qp_num = in->dest_qp_num;
	out->rq_psn = in->rq_psn;
	out->sq_psn = in->sq_psn;
	out->timeout = in->timeout;
	out->retry_cnt = in->retry_cnt;
	out->rnr_retry = in->rnr_retry;
	out->min_rnr_timer = in->min_rnr_timer;
	out->max_rd_atomic = in->max_rd_atomic;
	out->max_dest_rd_atomic = in->max_dest_rd_atomic;
	out->qkey = in->qkey;
	out->pkey_index = 0;            /* the one P_Key, 0xffff */
	out->port_num = 1;
	rc_ah_to_ibv(&in->ah_attr, &out->ah_attr);
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rc_id *r = RC_OF(rc_id, id);
	struct roce_qp_attr ra = { 0 };
	unsigned mask;
	int st;

	if (!id || !qp_attr || !qp_attr_mask)
		return rc_err(EINVAL);
	if (id->qp_type == IBV_QPT_UD) {
		/* the kernel's cma_ib_init_qp_attr for UD: INIT with the port
		   space's Q_Key; RTR and RTS need nothing more */
		enum ibv_qp_state s = qp_attr->qp_state;

		memset(qp_attr, 0, sizeof(*qp_attr));
		qp_attr->qp_state = s;
		*qp_attr_mask = IBV_QP_STATE;
		if (s == IBV_QPS_INIT) {
			qp_attr->qkey = RDMA_UDP_QKEY;
			*qp_attr_mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
			qp_attr->port_num = 1;
		} else if (s == IBV_QPS_RTS) {
			*qp_attr_mask |= IBV_QP_SQ_PSN;
		}
		return 0;
	}
	ra.qp_state = (enum roce_qp_state)qp_attr->qp_state;
	st = roce_cm_init_qp_attr(r->rid, &ra, &mask);
	if (st == ROCE_E_STATE)
		return rc_err(EINVAL);  /* no connection yet to say the peer */
	if (st != ROCE_OK)
		return rc_status(st);
	attr_to_ibv(&ra, qp_attr);
	if (qp_attr->qp_state == IBV_QPS_INIT)
		mask |= IBV_QP_PORT;
	if (qp_attr->qp_state == IBV_QPS_RTR && r->tos_set)
		qp_attr->ah_attr.grh.traffic_class = r->tos;
	if (qp_attr->qp_state == IBV_QPS_RTS && r->ack_timeout_set)
		qp_attr->timeout = r->ack_timeout;
	*qp_attr_mask = (int)mask;
	return 0;
}

static int modify(struct rc_id *r, enum ibv_qp_state s, uint8_t depth, bool dest)
{
	struct ibv_qp_attr a = { .qp_state = s };
	int mask, err;

	if (rdma_init_qp_attr(&r->id, &a, &mask))
		return -1;
	if (depth != RDMA_MAX_INIT_DEPTH) {
		if (dest)
			a.max_dest_rd_atomic = depth;
		else
			a.max_rd_atomic = depth;
	}
	err = ibv_modify_qp(r->id.qp, &a, mask);
	return err ? rc_err(err) : 0;
}

/* ucma_modify_qp_rtr: INIT again (the attributes may have changed since
   the QP was made), then RTR; resp_res RDMA_MAX_RESP_RES keeps the CM's */
int rc_modify_qp_rtr(struct rc_id *r, uint8_t resp_res)
{
	if (!r->id.qp)
		return 0;
	if (modify(r, IBV_QPS_INIT, RDMA_MAX_INIT_DEPTH, false))
		return -1;
	return modify(r, IBV_QPS_RTR, resp_res, true);
}

int rc_modify_qp_rts(struct rc_id *r, uint8_t init_depth)
{
	return r->id.qp ? modify(r, IBV_QPS_RTS, init_depth, false) : 0;
}

int rc_modify_qp_err(struct rc_id *r)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int err;

	if (!r->id.qp)
		return 0;
	err = ibv_modify_qp(r->id.qp, &a, IBV_QP_STATE);
	return err ? rc_err(err) : 0;
}

/* ---- create and destroy ------------------------------------------------------ */

static void destroy_cqs(struct rdma_cm_id *id)
{
	if (id->recv_cq) {
		ibv_destroy_cq(id->recv_cq);
		if (id->send_cq && id->send_cq != id->recv_cq)
			ibv_destroy_cq(id->send_cq);
	}
	id->recv_cq = id->send_cq = NULL;
	if (id->recv_cq_channel) {
		ibv_destroy_comp_channel(id->recv_cq_channel);
		if (id->send_cq_channel && id->send_cq_channel != id->recv_cq_channel)
			ibv_destroy_comp_channel(id->send_cq_channel);
	}
	id->recv_cq_channel = id->send_cq_channel = NULL;
}

static int create_cq(struct rdma_cm_id *id, uint32_t size, struct ibv_comp_channel **ch,
		     struct ibv_cq **cq)
{
	if (!size)
		return 0;
	*ch = ibv_create_comp_channel(id->verbs);
	if (*ch)
		*cq = ibv_create_cq(id->verbs, (int)size, id, *ch, 0);
	return *ch && *cq ? 0 : -1;
}

/* each a CQ of its own on a completion channel of its own, as librdmacm's
   ucma_create_cqs: only for the CQs neither the caller nor the ID has */
static int create_cqs(struct rdma_cm_id *id, uint32_t send_size, uint32_t recv_size)
{
	if (create_cq(id, recv_size, &id->recv_cq_channel, &id->recv_cq) ||
	    create_cq(id, send_size, &id->send_cq_channel, &id->send_cq)) {
		destroy_cqs(id);
		return -1;
	}
	return 0;
}

static int init_ud(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = RDMA_UDP_QKEY };
	int err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_QKEY);

	if (!err) {
		a.qp_state = IBV_QPS_RTR;
		err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	}
	if (!err) {
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	return err ? rc_err(err) : 0;
}

static int init_conn(struct rc_id *r, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
	int mask, err;

	if (rdma_init_qp_attr(&r->id, &a, &mask))
		return -1;
	err = ibv_modify_qp(qp, &a, mask);
	return err ? rc_err(err) : 0;
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct rc_id *r = RC_OF(rc_id, id);
	struct ibv_qp *qp;

	if (!id || !attr || id->qp)
		return rc_err(EINVAL);
	if (!id->verbs)
		return rc_err(EINVAL);  /* not bound to the device yet */
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = id->pd;
	} else if (attr->pd->context != id->verbs) {
		return rc_err(EINVAL);
	}
	if ((id->recv_cq && attr->recv_cq && id->recv_cq != attr->recv_cq) ||
	    (id->send_cq && attr->send_cq && id->send_cq != attr->send_cq))
		return rc_err(EINVAL);
	if (attr->qp_type != id->qp_type)
		return rc_refuse("rdma_create_qp", "a QP type other than the ID's port space "
				 "carries (RDMA_PS_TCP: RC; RDMA_PS_UDP: UD)", EINVAL);
	if (create_cqs(id, attr->send_cq || id->send_cq ? 0 : attr->cap.max_send_wr,
		       attr->recv_cq || id->recv_cq ? 0 : attr->cap.max_recv_wr))
		return -1;
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (id->srq && !attr->srq)
		attr->srq = id->srq;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp) {
		destroy_cqs(id);
		return -1;
	}
	if (attr->qp_type == IBV_QPT_UD ? init_ud(qp) : init_conn(r, qp)) {
		int err = errno;

		ibv_destroy_qp(qp);
		destroy_cqs(id);
		return rc_err(err);
	}
	id->pd = qp->pd;
	id->qp = qp;
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ex;
	int ret;

	if (!id || !qp_init_attr)
		return rc_err(EINVAL);
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd ? pd : id->pd;
	ret = rdma_create_qp_ex(id, &ex);
	memcpy(qp_init_attr, &ex, sizeof(*qp_init_attr));
	return ret;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		ibv_destroy_qp(id->qp);
	id->qp = NULL;
	destroy_cqs(id);
}

/* ---- SRQs ---------------------------------------------------------------------- */

int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr a;
	struct ibv_pd *pd;

	if (!id || !attr || !id->verbs)
		return rc_err(EINVAL);
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC)
		return rc_refuse("rdma_create_srq_ex", "XRC and tag-matching SRQs are not "
				 "supported (a basic SRQ is)", EOPNOTSUPP);
	pd = (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) && attr->pd ? attr->pd : id->pd;
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	id->srq = ibv_create_srq(pd, &a);
	if (!id->srq)
		return -1;
	attr->attr = a.attr;
	return 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	int ret;

	if (!attr)
		return rc_err(EINVAL);
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ex.srq_type = IBV_SRQT_BASIC;
	ex.pd = pd;
	ret = rdma_create_srq_ex(id, &ex);
	memcpy(attr, &ex, sizeof(*attr));
	return ret;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id || !id->srq)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
}
