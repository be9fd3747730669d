/* SPDX-License-Identifier: MIT */
/*
 * Events of the drop-in librdmacm.so.1: the engine CM's events (already
 * librdmacm's types, roce/cm.h) as rdma_cm_events, with what librdmacm's
 * rdma_get_cm_event does on the way (cma.c): a CONNECT_REQUEST makes the
 * new ID (the listener's context, channel, port space; bound to the
 * device), ADDR_RESOLVED and ROUTE_RESOLVED fill the ID's route, a
 * CONNECT_RESPONSE on an ID with a QP moves the QP to RTR and RTS and
 * sends the RTU, then reads ESTABLISHED (or CONNECT_ERROR, the QP in
 * ERR, and the REJECTED or DISCONNECTED of that connection swallowed), a
 * REJECTED moves the QP to ERR. A synchronous ID (made with no channel)
 * waits in each call for the call's event (rc_complete: ucma_complete).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm/rc.h"
#include "roce/status.h"

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	return roce_cm_event_str((enum roce_cm_event_type)event);
}

static void copy_priv(struct rc_event *e, const struct roce_cm_event *in, const void **data,
		      uint8_t *len)
{
	const void *src = in->param.private_data;
	uint8_t n = in->param.private_data_len;

	if (in->ud.private_data) {
		src = in->ud.private_data;
		n = in->ud.private_data_len;
	}
	*len = n;
	*data = NULL;
	if (n && src) {
		memcpy(e->priv, src, n);
		*data = e->priv;
	}
}

static void copy_conn(struct rc_event *e, const struct roce_cm_event *in)
{
	struct rdma_conn_param *p = &e->ev.param.conn;

	copy_priv(e, in, &p->private_data, &p->private_data_len);
	p->responder_resources = in->param.responder_resources;
	p->initiator_depth = in->param.initiator_depth;
	p->flow_control = in->param.flow_control;
	p->retry_count = in->param.retry_count;
	p->rnr_retry_count = in->param.rnr_retry_count;
	p->qp_num = in->param.qp_num;
}

static void copy_ud(struct rc_event *e, const struct roce_cm_event *in)
{
	struct rdma_ud_param *p = &e->ev.param.ud;

	copy_priv(e, in, &p->private_data, &p->private_data_len);
	rc_ah_to_ibv(&in->ud.ah_attr, &p->ah_attr);
	p->qp_num = in->ud.qp_num;
	p->qkey = in->ud.qkey;
}

/* ucma_process_conn_req: the new ID of a request; NULL (the request
   rejected; the caller destroys the engine's ID after the ack) when it
   cannot be made */
static struct rc_id *conn_request(struct rc_event *e, struct rc_id *l)
{
	struct rc_id *r = rc_id_new(l->id.channel, e->inner->id, l->id.context, l->id.ps);

	if (!r) {
		roce_cm_reject(e->inner->id, NULL, 0);
		return NULL;
	}
	r->initiator_depth = e->inner->param.initiator_depth;
	r->responder_resources = e->inner->param.responder_resources;
	rc_id_bind_device(r);
	rc_id_fill_route(r);
	if (l->sync && rdma_migrate_id(&r->id, NULL)) {
		roce_cm_reject(e->inner->id, NULL, 0);
		rc_id_free(r);
		return NULL;
	}
	e->ev.listen_id = &l->id;
	return r;
}

/* ucma_process_conn_resp: RTR, RTS, RTU; 0 or -1 with errno, the QP in
   ERR then */
static int conn_response(struct rc_id *r)
{
	int st;

	if (rc_modify_qp_rtr(r, RDMA_MAX_RESP_RES) || rc_modify_qp_rts(r, RDMA_MAX_INIT_DEPTH))
		goto err;
	st = roce_cm_establish(r->rid);
	if (st == ROCE_OK)
		return 0;
	rc_status(st);
err:
	{
		int err = errno;

		rc_modify_qp_err(r);
		return rc_err(err);
	}
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct rc_channel *c = RC_OF(rc_channel, channel);
	struct roce_cm_event *in;
	struct rc_event *e;
	struct rc_id *r;
	int st;

	if (!channel || !event)
		return rc_err(EINVAL);
retry:
	st = roce_cm_get_cm_event(c->rch, &in);
	if (st != ROCE_OK)
		return rc_status(st);
	e = calloc(1, sizeof(*e));
	if (!e) {
		roce_cm_ack_cm_event(in);
		return rc_err(ENOMEM);
	}
	e->inner = in;
	e->ev.event = (enum rdma_cm_event_type)in->event;
	e->ev.status = in->status;
	if (in->event == ROCE_CM_EVENT_CONNECT_REQUEST) {
		struct rc_id *l = rc_id_find(in->listen_id);

		r = l ? conn_request(e, l) : NULL;
		if (!r) {
			struct roce_cm_id *rid = in->id;

			rdma_ack_cm_event(&e->ev);
			roce_cm_destroy_id(rid);
			goto retry;
		}
		e->ev.id = &r->id;
		if (r->id.qp_type == IBV_QPT_UD)
			copy_ud(e, in);
		else
			copy_conn(e, in);
		*event = &e->ev;
		return 0;
	}
	r = rc_id_find(in->id);
	if (!r) {
		/* an ID the program destroyed meanwhile: the engine drops its
		   events, so none should come; as librdmacm, discarded */
		rdma_ack_cm_event(&e->ev);
		goto retry;
	}
	e->ev.id = &r->id;
	switch (e->ev.event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		rc_id_bind_device(r);
		rc_id_fill_addr(r);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rc_id_fill_route(r);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		copy_conn(e, in);
		if (!r->id.qp)
			break;
		if (conn_response(r) == 0) {
			e->ev.event = RDMA_CM_EVENT_ESTABLISHED;
		} else {
			e->ev.event = RDMA_CM_EVENT_CONNECT_ERROR;
			e->ev.status = -errno;
			r->connect_error = true;
		}
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
		if (r->connect_error) {
			rdma_ack_cm_event(&e->ev);
			goto retry;
		}
		copy_conn(e, in);
		if (e->ev.event == RDMA_CM_EVENT_REJECTED)
			rc_modify_qp_err(r);
		break;
	default:
		if (r->id.qp_type == IBV_QPT_UD)
			copy_ud(e, in);
		else
			copy_conn(e, in);
		break;
	}
	*event = &e->ev;
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct rc_event *e = RC_OF(rc_event, event);

	if (!event)
		return rc_err(EINVAL);
	roce_cm_ack_cm_event(e->inner);
	free(e);
	return 0;
}

int rc_complete(struct rc_id *r)
{
	struct rdma_cm_event *ev;

	if (!r->sync)
		return 0;
	if (r->id.event) {
		rdma_ack_cm_event(r->id.event);
		r->id.event = NULL;
	}
	if (rdma_get_cm_event(r->id.channel, &r->id.event))
		return -1;
	ev = r->id.event;
	if (!ev->status)
		return 0;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		return rc_err(ECONNREFUSED);
	return rc_err(ev->status < 0 ? -ev->status : ev->status);
}
