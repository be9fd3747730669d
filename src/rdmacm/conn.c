/* SPDX-License-Identifier: MIT */
/*
 * Connections of the drop-in librdmacm.so.1, as librdmacm 44's cma.c
 * makes them over the kernel's rdma_ucm, here over the engine's CM
 * (roce/cm.h): connect, listen, get_request, accept, reject, disconnect,
 * establish, migrate_id, and the endpoints of rdma_create_ep. The
 * READ/atomic depths follow librdmacm: RDMA_MAX_INIT_DEPTH and
 * RDMA_MAX_RESP_RES ask for the device's largest (at connect) or the
 * peer's, capped by the device (at accept); more than the device offers
 * is EINVAL. The ID's QP is always the caller's to the CM (its number in
 * the REQ or REP), moved here at each step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm/rc.h"
#include "roce/status.h"

static uint8_t min8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* ucma_valid_param */
static int valid_param(struct rc_id *r, const struct rdma_conn_param *p)
{
	struct rc_device *d = rc_device();

	if (r->id.ps != RDMA_PS_TCP)
		return 0;
	if ((!r->id.qp && !p) || !d)
		return rc_err(EINVAL);
	if (p && ((p->responder_resources != RDMA_MAX_RESP_RES &&
		   p->responder_resources > d->max_responder_resources) ||
		  (p->initiator_depth != RDMA_MAX_INIT_DEPTH &&
		   p->initiator_depth > d->max_initiator_depth)))
		return rc_err(EINVAL);
	return 0;
}

/* The CM's parameters from the program's: the rdma_getaddrinfo connect
   data first, then the program's private data (as librdmacm's
   ucma_copy_conn_param_to_kern), retries 7 when no parameters */
static int conn_param(struct rc_id *r, const struct rdma_conn_param *p, uint8_t *buf,
		      size_t cap, struct roce_conn_param *out)
{
	size_t len = r->connect_len + (p && p->private_data ? p->private_data_len : 0);

	if (len > cap || len > 255)
		return rc_err(EINVAL);
	memset(out, 0, sizeof(*out));
	if (r->connect_len)
		memcpy(buf, r->connect, r->connect_len);
	if (p && p->private_data && p->private_data_len)
		memcpy(buf + r->connect_len, p->private_data, p->private_data_len);
	out->private_data = len ? buf : NULL;
	out->private_data_len = (uint8_t)len;
	out->responder_resources = r->responder_resources;
	out->initiator_depth = r->initiator_depth;
	out->flow_control = p ? p->flow_control : 0;
	/* the kernel's cma takes at most 7 of each (min_t in cma_connect_ib
	   and cma_accept_ib): libfabric asks 15 */
	out->retry_count = p ? min8(p->retry_count, 7) : 7;
	out->rnr_retry_count = p ? min8(p->rnr_retry_count, 7) : 7;
	out->qp_num = r->id.qp ? r->id.qp->qp_num : p ? p->qp_num : 0;
	return 0;
}

/* What connect and accept do first: the parameters checked, the depths
   set (RDMA_MAX_*: the device's largest at connect, the request's capped
   by the device at accept, where r's are the request's), the CM's
   parameters made; 0 or -1 with errno */
static int begin(struct rc_id *r, const struct rdma_conn_param *param, bool accept, uint8_t *buf,
		 struct roce_conn_param *out)
{
	struct rc_device *d = rc_device();
	uint8_t init, resp;
	size_t cap;

	if (!d || valid_param(r, param))
		return -1;
	init = accept ? min8(r->initiator_depth, d->max_initiator_depth) : d->max_initiator_depth;
	resp = accept ? min8(r->responder_resources, d->max_responder_resources)
		      : d->max_responder_resources;
	r->initiator_depth = param && param->initiator_depth != RDMA_MAX_INIT_DEPTH
				     ? param->initiator_depth : init;
	r->responder_resources = param && param->responder_resources != RDMA_MAX_RESP_RES
					 ? param->responder_resources : resp;
	if (r->id.ps == RDMA_PS_UDP)
		cap = accept ? ROCE_CM_SIDR_REP_PRIVATE : ROCE_CM_SIDR_REQ_PRIVATE;
	else
		cap = accept ? ROCE_CM_REP_PRIVATE : ROCE_CM_REQ_PRIVATE;
	return conn_param(r, param, buf, cap, out);
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct rc_id *r = RC_OF(rc_id, id);
	uint8_t buf[256];
	struct roce_conn_param p;
	int st;

	if (!id || begin(r, param, false, buf, &p))
		return -1;
	if (id->ps == RDMA_PS_TCP && !p.qp_num)
		return rc_err(EINVAL);
	st = roce_cm_connect(r->rid, &p);
	if (st == ROCE_E_STATE)
		return rc_err(EINVAL);  /* the route not resolved, or connected */
	if (st != ROCE_OK)
		return rc_status(st);
	free(r->connect);
	r->connect = NULL;
	r->connect_len = 0;
	return rc_complete(r);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rc_id *r = RC_OF(rc_id, id);
	struct sockaddr_in any = { .sin_family = AF_INET };
	int st;

	if (!id)
		return rc_err(EINVAL);
	/* an unbound ID listens on the wildcard (the kernel's cma_bind_any) */
	if (!id->route.addr.src_addr.sa_family && rdma_bind_addr(id, (struct sockaddr *)&any))
		return -1;
	st = roce_cm_listen(r->rid, backlog);
	if (st == ROCE_E_STATE)
		return rc_err(EINVAL);
	if (st == ROCE_E_EXISTS || st == ROCE_E_BUSY)
		return rc_err(EADDRINUSE);
	if (st != ROCE_OK)
		return rc_status(st);
	rc_id_fill_addr(r);
	return 0;
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct rc_id *l = RC_OF(rc_id, listen);
	struct rdma_cm_event *event;

	if (!listen || !id || !l->sync)
		return rc_err(EINVAL);
	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	if (rdma_get_cm_event(listen->channel, &event))
		return -1;
	if (event->event == RDMA_CM_EVENT_REJECTED) {
		listen->event = event;
		return rc_err(ECONNREFUSED);
	}
	if (event->status || event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		listen->event = event;
		return rc_err(event->status ? -event->status : EINVAL);
	}
	if (l->qp_init_attr) {
		struct ibv_qp_init_attr a = *l->qp_init_attr;

		if (rdma_create_qp(event->id, listen->pd, &a)) {
			listen->event = event;
			return -1;
		}
	}
	*id = event->id;
	(*id)->event = event;
	return 0;
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct rc_id *r = RC_OF(rc_id, id);
	uint8_t buf[256];
	struct roce_conn_param p;
	int st;

	if (!id || begin(r, param, true, buf, &p))
		return -1;
	if (id->qp_type != IBV_QPT_UD &&
	    (rc_modify_qp_rtr(r, r->responder_resources) ||
	     rc_modify_qp_rts(r, r->initiator_depth)))
		return -1;
	st = roce_cm_accept(r->rid, &p);
	if (st != ROCE_OK) {
		int err = st == ROCE_E_STATE ? EINVAL : (rc_status(st), errno);

		rc_modify_qp_err(r);
		return rc_err(err);
	}
	return id->qp_type == IBV_QPT_UD ? 0 : rc_complete(r);
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	int st;

	if (!id)
		return rc_err(EINVAL);
	st = roce_cm_reject(RC_OF(rc_id, id)->rid, private_data, private_data_len);
	return st == ROCE_E_STATE ? rc_err(EINVAL) : rc_status(st);
}

int rdma_establish(struct rdma_cm_id *id)
{
	int st;

	if (!id || id->qp)
		return rc_err(EINVAL);
	/* the caller moved its QP to RTS after CONNECT_RESPONSE: the RTU */
	st = roce_cm_establish(RC_OF(rc_id, id)->rid);
	return st == ROCE_E_STATE ? rc_err(EINVAL) : rc_status(st);
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rc_id *r = RC_OF(rc_id, id);
	int st;

	if (!id || !id->verbs)
		return rc_err(EINVAL);
	if (rc_modify_qp_err(r))
		return -1;
	/* a UD ID has no connection: its QP in ERR is all (the kernel's DREQ
	   on a SIDR ID fails unseen) */
	if (id->qp_type == IBV_QPT_UD)
		return 0;
	st = roce_cm_disconnect(r->rid);
	if (st == ROCE_E_STATE)
		return rc_err(EINVAL);
	if (st != ROCE_OK)
		return rc_status(st);
	return rc_complete(r);
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct rc_id *r = RC_OF(rc_id, id);
	struct rdma_event_channel *ch = channel, *old;
	bool sync = !channel;
	int st;

	if (!id || (r->sync && !channel))
		return rc_err(EINVAL);
	if (sync && !(ch = rdma_create_event_channel()))
		return -1;
	st = roce_cm_migrate_id(r->rid, RC_OF(rc_channel, ch)->rch);
	if (st != ROCE_OK) {
		if (sync)
			rdma_destroy_event_channel(ch);
		return rc_status(st);
	}
	old = id->channel;
	id->channel = ch;
	if (r->sync) {
		if (id->event) {
			rdma_ack_cm_event(id->event);
			id->event = NULL;
		}
		rdma_destroy_event_channel(old);
	}
	r->sync = sync;
	return 0;
}

/* ---- endpoints ------------------------------------------------------------------ */

static int passive_ep(struct rc_id *r, struct rdma_addrinfo *res, struct ibv_pd *pd,
		      struct ibv_qp_init_attr *qp_init_attr)
{
	if (rdma_bind_addr(&r->id, res->ai_src_addr))
		return -1;
	if (pd)
		r->id.pd = pd;
	if (qp_init_attr) {
		r->qp_init_attr = malloc(sizeof(*qp_init_attr));
		if (!r->qp_init_attr)
			return rc_err(ENOMEM);
		*r->qp_init_attr = *qp_init_attr;
		r->qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	}
	return 0;
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm_id;
	struct rc_id *r;

	if (!id || !res)
		return rc_err(EINVAL);
	if (rdma_create_id(NULL, &cm_id, NULL, (enum rdma_port_space)res->ai_port_space))
		return -1;
	r = RC_OF(rc_id, cm_id);
	if (res->ai_flags & RAI_PASSIVE) {
		if (passive_ep(r, res, pd, qp_init_attr))
			goto err;
		*id = cm_id;
		return 0;
	}
	if (rdma_resolve_addr(cm_id, res->ai_src_addr, res->ai_dst_addr, 2000))
		goto err;
	if (res->ai_route_len) {
		rc_refuse("rdma_create_ep", "a route from rdma_getaddrinfo (ai_route) is not "
			  "supported: RoCE resolves it", EOPNOTSUPP);
		goto err;
	}
	if (rdma_resolve_route(cm_id, 2000))
		goto err;
	if (qp_init_attr) {
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		if (rdma_create_qp(cm_id, pd, qp_init_attr))
			goto err;
	}
	if (res->ai_connect_len) {
		r->connect = malloc(res->ai_connect_len);
		if (!r->connect) {
			errno = ENOMEM;
			goto err;
		}
		memcpy(r->connect, res->ai_connect, res->ai_connect_len);
		r->connect_len = res->ai_connect_len;
	}
	*id = cm_id;
	return 0;
err:
	{
		int err = errno;

		rdma_destroy_ep(cm_id);
		return rc_err(err);
	}
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}
