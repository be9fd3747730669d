/* SPDX-License-Identifier: MIT */
/*
 * The CM's object and its tables: the connection slots (IBA 12.9's
 * communication IDs) and the listeners, and the few things every step
 * does to a connection: read the clock, change its state, send a MAD (and
 * keep it for resends), emit an event, put its QP in error. The calls on
 * a connection are in cm_call.c, the handlers of received MADs in
 * cm_recv.c and cm_sidr.c, the timers in cm_timer.c; each of them calls
 * down to this file and nothing here calls up.
 */
#include "cm/cm_table.h"

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

struct cm_conn *cm_conn_get(struct cm *cm, int conn)
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

/* The connection's QP to ERR through its owner's modify (IBA 10.3: any
   state may go to the error state). */
void cm_qp_error(struct cm *cm, struct cm_conn *c)
{
	const struct cm_qp_attr none = { 0 };

	/* nothing to do if it fails: the connection ends either way */
	(void)cm->ops.modify_qp(cm->ops.ctx, c->local_qpn, CM_QP_ERR, &none);
}

/* ---- listeners --------------------------------------------------------- */

int cm_find_listener(struct cm *cm, uint64_t service_id)
{
	for (unsigned i = 0; i < cm->cfg.max_listeners; i++)
		if (cm->listeners[i].used && cm->listeners[i].service_id == service_id)
			return (int)i;
	return -1;
}

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
