/* SPDX-License-Identifier: MIT */
/*
 * The CM's calls (connect, listen, accept, reject, MRA, disconnect) and its
 * connection table. The handlers of received MADs are in cm_recv.c, the
 * timers in cm_timer.c.
 */
#include "cm/cm_priv.h"

#include <stdlib.h>
#include <string.h>

#include "roce/status.h"

static const char *const state_names[] = {
#define CM_X_NAME(code, name) [code] = name,
	CM_STATE_LIST(CM_X_NAME)
#undef CM_X_NAME
};

const char *cm_state_name(int state)
{
	return state >= 0 && state < CM_STATE_COUNT ? state_names[state] : "?";
}

/* cm.c's cm_convert_to_ms: 4.096 us * 2^t is about 2^(t-8) ms */
uint64_t cm_time_ms(uint8_t iba_time)
{
	return iba_time > 8 ? 1ull << (iba_time - 8 > 40 ? 40 : iba_time - 8) : 1;
}

uint64_t cm_now(struct cm *cm)
{
	return cm->ops.now_us(cm->ops.ctx);
}

void cm_set_state(struct cm *cm, struct cm_conn *c, enum cm_state state)
{
	c->state = state;
	c->since_us = cm_now(cm);
}

struct cm *cm_create(const struct cm_config *cfg, const struct cm_ops *ops)
{
	struct cm *cm;

	if (!cfg || !ops || !ops->send || !ops->now_us || !ops->modify_qp || !ops->event ||
	    cfg->max_conns == 0 || cfg->max_conns > 65536 || cfg->max_listeners == 0 ||
	    cfg->max_listeners > 4096 || cfg->max_cm_retries > 15 ||
	    cfg->cm_response_timeout > 31 || cfg->packet_life_time > 31)
		return NULL;
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return NULL;
	cm->conns = calloc(cfg->max_conns, sizeof(*cm->conns));
	cm->listeners = calloc(cfg->max_listeners, sizeof(*cm->listeners));
	if (!cm->conns || !cm->listeners) {
		cm_destroy(cm);
		return NULL;
	}
	cm->cfg = *cfg;
	cm->ops = *ops;
	/* 0 is "no ID yet" in a REJ's remote communication ID */
	cm->next_id = cfg->comm_id_seed ? cfg->comm_id_seed : 1;
	return cm;
}

void cm_destroy(struct cm *cm)
{
	if (!cm)
		return;
	free(cm->conns);
	free(cm->listeners);
	free(cm);
}

const struct cm_counters *cm_counters(const struct cm *cm)
{
	return &cm->cnt;
}

/* ---- connection table -------------------------------------------------- */

static bool id_in_use(struct cm *cm, uint32_t id)
{
	return id == 0 || cm_conn_by_local_id(cm, id) != NULL;
}

struct cm_conn *cm_conn_alloc(struct cm *cm)
{
	for (unsigned i = 0; i < cm->cfg.max_conns; i++) {
		struct cm_conn *c = &cm->conns[i];

		if (c->state != CM_IDLE)
			continue;
		memset(c, 0, sizeof(*c));
		c->listener = -1;
		/* a fresh ID: a late MAD of an old connection finds nothing */
		do
			c->local_id = cm->next_id++;
		while (id_in_use(cm, c->local_id));
		c->own_tid = (uint64_t)1 << 32 | c->local_id;
		c->tid = c->own_tid;
		return c;
	}
	return NULL;
}

void cm_backlog_release(struct cm *cm, struct cm_conn *c)
{
	if (c->in_backlog && c->listener >= 0 && cm->listeners[c->listener].pending > 0)
		cm->listeners[c->listener].pending--;
	c->in_backlog = false;
}

void cm_conn_free(struct cm *cm, struct cm_conn *c)
{
	cm_backlog_release(cm, c);
	cm_set_state(cm, c, CM_IDLE);
	c->timer_on = false;
}

int cm_conn_index(const struct cm *cm, const struct cm_conn *c)
{
	return (int)(c - cm->conns);
}

struct cm_conn *cm_conn_by_local_id(struct cm *cm, uint32_t local_id)
{
	for (unsigned i = 0; i < cm->cfg.max_conns; i++)
		if (cm->conns[i].state != CM_IDLE && cm->conns[i].local_id == local_id)
			return &cm->conns[i];
	return NULL;
}

static struct cm_conn *conn_get(struct cm *cm, int conn)
{
	if (conn < 0 || (unsigned)conn >= cm->cfg.max_conns || cm->conns[conn].state == CM_IDLE)
		return NULL;
	return &cm->conns[conn];
}

enum cm_state cm_conn_state(const struct cm *cm, int conn)
{
	if (conn < 0 || (unsigned)conn >= cm->cfg.max_conns)
		return CM_IDLE;
	return cm->conns[conn].state;
}

const struct cm_req *cm_conn_req(const struct cm *cm, int conn)
{
	if (conn < 0 || (unsigned)conn >= cm->cfg.max_conns || cm->conns[conn].state == CM_IDLE)
		return NULL;
	return &cm->conns[conn].req;
}

int cm_conn_info(struct cm *cm, int conn, struct cm_conn_info *out)
{
	const struct cm_conn *c;
	uint64_t now;

	if (conn < 0 || (unsigned)conn >= cm->cfg.max_conns || !out)
		return ROCE_E_INVAL;
	c = &cm->conns[conn];
	if (c->state == CM_IDLE)
		return ROCE_E_NOENT;
	now = cm_now(cm);
	*out = (struct cm_conn_info){
		.state = c->state,
		.active = c->active,
		.local_id = c->local_id,
		.remote_id = c->remote_id,
		.local_qpn = c->local_qpn,
		.remote_qpn = c->remote_qpn,
		.service_id = c->req.service_id,
		.in_state_us = now - c->since_us,
		.timer_on = c->timer_on,
		.next_timeout_us = c->timer_on && c->deadline_us > now ? c->deadline_us - now : 0,
		.retries = c->timer_on && c->state != CM_TIMEWAIT
				   ? c->retries_armed - c->retries_left : 0,
		.max_retries = c->state != CM_TIMEWAIT ? c->retries_armed : 0,
	};
	memcpy(out->peer_gid, c->peer.gid, 16);
	return ROCE_OK;
}

unsigned cm_max_conns(const struct cm *cm)
{
	return cm->cfg.max_conns;
}

unsigned cm_conns_in_use(const struct cm *cm)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cm->cfg.max_conns; i++)
		n += cm->conns[i].state != CM_IDLE;
	return n;
}

unsigned cm_conns_in_state(const struct cm *cm, enum cm_state st)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cm->cfg.max_conns; i++)
		n += cm->conns[i].state == st;
	return n;
}

/* ---- sending ----------------------------------------------------------- */

/* Packs and sends m; keeps the bytes in keep (for resends) when not NULL. */
void cm_send_msg(struct cm *cm, const struct cm_addr *to, const struct cm_msg *m,
		 uint8_t *keep)
{
	uint8_t buf[MAD_SIZE];
	uint8_t *mad = keep ? keep : buf;

	if (cm_msg_pack(m, mad) != MAD_OK)
		return; /* our own attribute IDs all have layouts */
	cm->cnt.tx_mads++;
	cm->cnt.tx_attr[(m->hdr.attr_id - CM_ATTR_REQ) & 15]++;
	if (cm->ops.send(cm->ops.ctx, to, mad) != 0)
		cm->cnt.tx_failed++;
}

void cm_resend(struct cm *cm, struct cm_conn *c)
{
	struct mad_hdr h;

	mad_hdr_parse(c->mad, &h);
	cm->cnt.tx_mads++;
	cm->cnt.tx_attr[(h.attr_id - CM_ATTR_REQ) & 15]++;
	if (cm->ops.send(cm->ops.ctx, &c->peer, c->mad) != 0)
		cm->cnt.tx_failed++;
}

void cm_send_rej(struct cm *cm, const struct cm_addr *to, uint64_t tid,
		 uint32_t local_id, uint32_t remote_id, uint8_t msg_rejected,
		 uint16_t reason, const void *ari, uint8_t ari_len,
		 const void *priv, size_t priv_len)
{
	struct cm_msg m;

	cm_msg_init(&m, CM_ATTR_REJ, tid);
	m.u.rej.local_comm_id = local_id;
	m.u.rej.remote_comm_id = remote_id;
	m.u.rej.message_rejected = msg_rejected;
	m.u.rej.reason = reason;
	if (ari_len > CM_REJ_ARI)
		ari_len = CM_REJ_ARI;
	m.u.rej.reject_info_length = ari_len;
	if (ari_len)
		memcpy(m.u.rej.ari, ari, ari_len);
	if (priv_len > CM_REJ_PRIVATE)
		priv_len = CM_REJ_PRIVATE;
	if (priv_len)
		memcpy(m.u.rej.private_data, priv, priv_len);
	cm->cnt.rej_sent++;
	cm_send_msg(cm, to, &m, NULL);
}

void cm_emit(struct cm *cm, enum cm_event_type type, struct cm_conn *c, void *user,
	     uint16_t reason, const struct cm_req *req, const uint8_t *priv, size_t len)
{
	struct cm_event ev = {
		.type = type,
		.conn = c ? cm_conn_index(cm, c) : -1,
		.user = user,
		.rej_reason = reason,
		.req = req,
		.private_data = priv,
		.private_len = len,
	};

	cm->ops.event(cm->ops.ctx, &ev);
}

/* ---- calls ------------------------------------------------------------------- */

int cm_listen(struct cm *cm, uint64_t service_id, unsigned backlog, void *user)
{
	int free_slot = -1;

	if (backlog == 0)
		return -ROCE_E_INVAL;
	for (unsigned i = 0; i < cm->cfg.max_listeners; i++) {
		if (cm->listeners[i].used && cm->listeners[i].service_id == service_id)
			return -ROCE_E_EXISTS;
		if (!cm->listeners[i].used && free_slot < 0)
			free_slot = (int)i;
	}
	if (free_slot < 0)
		return -ROCE_E_FULL;
	cm->listeners[free_slot] = (struct cm_listener){
		.used = true, .service_id = service_id, .backlog = backlog, .user = user,
	};
	return free_slot;
}

int cm_unlisten(struct cm *cm, int listener)
{
	if (listener < 0 || (unsigned)listener >= cm->cfg.max_listeners ||
	    !cm->listeners[listener].used)
		return -ROCE_E_NOENT;
	/* connections it made live on; they no longer count against it */
	for (unsigned i = 0; i < cm->cfg.max_conns; i++)
		if (cm->conns[i].state != CM_IDLE && cm->conns[i].listener == listener) {
			cm->conns[i].in_backlog = false;
			cm->conns[i].listener = -1;
		}
	cm->listeners[listener].used = false;
	return ROCE_OK;
}

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

void cm_passive_qp_attr(const struct cm_conn *c, const struct cm_accept_param *p,
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
	struct cm_conn *c = conn_get(cm, conn);

	if (!c || !accept_param_ok(p) || !out)
		return -ROCE_E_INVAL;
	if (!passive_open(c))
		return -ROCE_E_STATE;
	cm_passive_qp_attr(c, p, out);
	return ROCE_OK;
}

int cm_active_attr(struct cm *cm, int conn, struct cm_qp_attr *out)
{
	struct cm_conn *c = conn_get(cm, conn);

	if (!c || !out)
		return -ROCE_E_INVAL;
	if (!c->active || !c->user_qp || (c->state != CM_REP_RCVD && c->state != CM_ESTABLISHED))
		return -ROCE_E_STATE;
	*out = c->qa;
	return ROCE_OK;
}

int cm_establish(struct cm *cm, int conn)
{
	struct cm_conn *c = conn_get(cm, conn);
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
	struct cm_conn *c = conn_get(cm, conn);
	struct cm_qp_attr a;
	struct cm_msg m;
	struct cm_rep *r = &m.u.rep;

	if (!c || !accept_param_ok(p))
		return -ROCE_E_INVAL;
	if (!passive_open(c))
		return -ROCE_E_STATE;
	cm_passive_qp_attr(c, p, &a);
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
	struct cm_conn *c = conn_get(cm, conn);

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
	struct cm_conn *c = conn_get(cm, conn);
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
	struct cm_conn *c = conn_get(cm, conn);

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
	struct cm_conn *c = conn_get(cm, conn);
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
