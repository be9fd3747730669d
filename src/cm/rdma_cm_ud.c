/* SPDX-License-Identifier: MIT */
/*
 * UD IDs (RDMA_PS_UDP) on the rdma_cm-shaped API: what the kernel's cma.c
 * does for them. The QP is ready at once (rdma_cm_qp.c); rdma_connect sends a SIDR_REQ with
 * rdma_cm's header in its private data (cma_resolve_ib_udp); the passive
 * side gets CONNECT_REQUEST (with the requester's address vector, which
 * the kernel does not give) and answers with rdma_accept (SIDR_REP: its
 * QPN and Q_Key) or rdma_reject (status 2); the active side gets
 * ESTABLISHED with the peer's QPN, Q_Key and address vector
 * (cma_sidr_rep_handler), or UNREACHABLE.
 */
#include "cm/rdma_cm_ud.h"

#include <errno.h>
#include <string.h>

#include "cm/cma.h"
#include "cm/rdma_cm_event.h"
#include "cm/rdma_cm_id.h"
#include "roce/gid.h"
#include "roce/status.h"

int rcm_ud_connect(struct roce_cm_id *id, const struct roce_conn_param *param)
{
	uint8_t priv[CMA_HDR_SIZE + ROCE_CM_SIDR_REQ_PRIVATE];
	uint8_t sgid[16];
	struct cm_sidr_param p = { 0 };
	int rc;

	if ((param->private_data_len && !param->private_data) ||
	    param->private_data_len > ROCE_CM_SIDR_REQ_PRIVATE)
		return ROCE_E_INVAL;
	if (!id->route_resolved || id->conn >= 0 || id->listener >= 0)
		return ROCE_E_STATE;
	rcm_hdr(id, param, priv, sgid);
	memcpy(p.peer.gid, id->dgid, 16);
	p.service_id = CMA_SERVICE_ID(CMA_PS_UDP, rcm_sa_port(&id->dst));
	p.pkey = 0xFFFF;
	p.private_data = priv;
	p.private_len = CMA_HDR_SIZE + param->private_data_len;
	p.user = id;
	rc = cm_sidr_req(cm_qp1_cm(id->cm->port), &p);
	if (rc < 0)
		return -rc;
	id->conn = rc;
	return ROCE_OK;
}

static int answer(struct roce_cm_id *id, enum cm_sidr_status status, uint32_t qpn,
		  const void *priv, uint8_t len)
{
	struct cm *c = cm_qp1_cm(id->cm->port);
	int rc;

	if ((len && !priv) || len > ROCE_CM_SIDR_REP_PRIVATE)
		return ROCE_E_INVAL;
	if (id->conn < 0 || cm_conn_state(c, id->conn) != CM_SIDR_REQ_RCVD ||
	    (status == CM_SIDR_SUCCESS && !id->qp && !qpn))
		return ROCE_E_STATE;
	rc = -cm_sidr_rep(c, id->conn, status, id->qp ? roce_qp_num(id->qp) : qpn,
			  ROCE_UDP_QKEY, priv, len);
	if (rc == ROCE_OK)
		id->conn = -1; /* answered: the slot is free */
	return rc;
}

int rcm_ud_accept(struct roce_cm_id *id, const struct roce_conn_param *param)
{
	/* a QP of the ID's, else one the caller made (conn_param.qp_num, as
	   librdmacm's rdma_accept passes its own QP's number) */
	return answer(id, CM_SIDR_SUCCESS, param->qp_num, param->private_data,
		      param->private_data_len);
}

int rcm_ud_reject(struct roce_cm_id *id, const void *private_data, uint8_t len)
{
	return answer(id, CM_SIDR_REJECT, 0, private_data, len);
}

/* The GID an rdma_cm header's address names (IPv4: the mapped form) */
static void hdr_gid(const uint8_t addr[16], bool v4, uint8_t gid[16])
{
	memcpy(gid, addr, 16);
	if (v4) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xFF;
	}
}

/* cma_ib_req_handler for a SIDR_REQ: a new ID on the listener's channel */
static void sidr_request(struct roce_cm *cm, const struct cm_event *ev)
{
	struct roce_cm_id *lid = ev->user, *id;
	struct cm *c = cm_qp1_cm(cm->port);
	struct cma_hdr h;
	uint8_t gid[16];

	if (!lid || lid->destroyed || !ev->from ||
	    cma_hdr_parse(ev->private_data, ev->private_len, &h) != MAD_OK ||
	    !(id = rcm_id_new(lid->ch, lid->context))) {
		cm_sidr_rep(c, ev->conn, CM_SIDR_REJECT, 0, 0, NULL, 0);
		return;
	}
	id->ps = ROCE_PS_UDP;
	id->conn = ev->conn;
	memcpy(id->dgid, ev->from->gid, 16);
	hdr_gid(h.src_addr, h.ip_version == 4, gid);
	rcm_gid_sa(gid, h.src_port, &id->dst);
	hdr_gid(h.dst_addr, h.ip_version == 4, gid);
	rcm_gid_sa(gid, rcm_sa_port(&lid->src), &id->src);
	id->mtu = roce_context_port_mtu(cm->attr.ctx);
	rcm_queue(id->ch, id, lid, ROCE_CM_EVENT_CONNECT_REQUEST, 0,
		  ev->private_data + CMA_HDR_SIZE, ev->private_len - CMA_HDR_SIZE);
	id->ch->tail->ev.ud.private_data = id->ch->tail->ev.param.private_data;
	id->ch->tail->ev.ud.private_data_len = id->ch->tail->ev.param.private_data_len;
	/* where the requester is (the kernel leaves it to ibv_create_ah_from_wc
	   on a first datagram; the SIDR_REP needs the MAC all the same) */
	if (cm_qp1_ah_attr(cm->port, ev->from->gid, &id->ch->tail->ev.ud.ah_attr) == ROCE_OK)
		memcpy(id->dmac, id->ch->tail->ev.ud.ah_attr.dest_mac, 6);
}

/* cma_sidr_rep_handler: ESTABLISHED with where the peer's QP is */
static void sidr_reply(struct roce_cm *cm, const struct cm_event *ev)
{
	struct roce_cm_id *id = ev->user;
	const struct cm_sidr_rep *r = ev->sidr_rep;
	struct roce_cm_event *e;
	enum roce_cm_event_type t = ROCE_CM_EVENT_ESTABLISHED;
	int status = 0;

	(void)cm;
	if (!id)
		return;
	id->conn = -1; /* the CM freed the slot with the reply */
	if (id->destroyed) {
		if (!id->events_out)
			rcm_id_free(id);
		return;
	}
	if (r->status != CM_SIDR_SUCCESS) {
		t = ROCE_CM_EVENT_UNREACHABLE;
		status = r->status;
	} else if (r->qkey != ROCE_UDP_QKEY) {
		/* cma_set_qkey: not the Q_Key of the port space */
		t = ROCE_CM_EVENT_ADDR_ERROR;
		status = -EINVAL;
	}
	rcm_queue(id->ch, id, NULL, t, status, ev->private_data, ev->private_len);
	e = &id->ch->tail->ev;
	e->ud.private_data = e->param.private_data;
	e->ud.private_data_len = e->param.private_data_len;
	if (t != ROCE_CM_EVENT_ESTABLISHED)
		return;
	e->ud.qp_num = r->qpn;
	e->ud.qkey = r->qkey;
	memcpy(e->ud.ah_attr.dest_mac, id->dmac, 6);
	e->ud.ah_attr.is_global = true;
	memcpy(e->ud.ah_attr.grh.dgid, id->dgid, 16);
	e->ud.ah_attr.grh.sgid_index = id->sgid_index;
	e->ud.ah_attr.grh.hop_limit = 64;
}

void rcm_ud_event(struct roce_cm *cm, const struct cm_event *ev)
{
	if (ev->type == CM_EV_SIDR_REQUEST)
		sidr_request(cm, ev);
	else
		sidr_reply(cm, ev);
}
