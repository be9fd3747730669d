/* SPDX-License-Identifier: MIT */
/*
 * The CM's timers: a sent REQ, REP or DREQ is resent after its timeout
 * until max_cm_retries run out, as the kernel's CM does through its MAD
 * agent (drivers/infiniband/core/cm.c: timeout_ms, max_cm_retries); then
 * the connection ends as cm_process_send_error and cm_destroy_id end it. A
 * connection leaves timewait after its local ACK timeout.
 */
#include "cm/cm_timer.h"

void cm_timer_arm(struct cm *cm, struct cm_conn *c, uint64_t timeout_us, unsigned retries)
{
	c->timer_on = true;
	c->timeout_us = timeout_us;
	c->retries_left = retries;
	c->retries_armed = retries;
	c->deadline_us = cm_now(cm) + timeout_us;
}

/*
 * IBA 12.9: timewait keeps the connection's IDs (and QP) out of use
 * until packets in flight are gone; the kernel waits its path's ACK
 * timeout (cm_enter_timewait: cm_convert_to_ms(av.timeout)).
 */
void cm_enter_timewait(struct cm *cm, struct cm_conn *c)
{
	cm_backlog_release(cm, c);
	cm_set_state(cm, c, CM_TIMEWAIT);
	c->timer_on = true;
	c->retries_left = 0;
	c->deadline_us = cm_now(cm) + cm_time_ms(c->local_ack_timeout) * 1000;
}

uint64_t cm_next_deadline(const struct cm *cm)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < cm->cfg.max_conns; i++)
		if (cm->conns[i].state != CM_IDLE && cm->conns[i].timer_on &&
		    cm->conns[i].deadline_us < next)
			next = cm->conns[i].deadline_us;
	return next;
}

/* Retries ran out: what the kernel's cm_process_send_error and
   cm_destroy_id do in each state. */
static void conn_timed_out(struct cm *cm, struct cm_conn *c)
{
	uint8_t guid[8];
	void *user = c->user;

	c->timer_on = false;
	if (c->state != CM_TIMEWAIT && c->state != CM_SIDR_REP_SENT)
		cm->cnt.timeouts++;
	for (int i = 0; i < 8; i++)
		guid[i] = (uint8_t)(cm->cfg.ca_guid >> (56 - 8 * i));
	switch (c->state) {
	case CM_REQ_SENT:
	case CM_MRA_REQ_RCVD:
		/* Table 109: REJ "Timeout", the ARI our CA GUID */
		cm_send_rej(cm, &c->peer, c->tid, c->local_id, c->remote_id, CM_MSG_OTHER,
			    CM_REJ_TIMEOUT, guid, 8, NULL, 0);
		cm_qp_error(cm, c);
		cm_conn_free(cm, c);
		cm_emit(cm, CM_EV_UNREACHABLE, c, user, CM_REJ_TIMEOUT, NULL, NULL, 0);
		break;
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
		/* no RTU: the QP may have taken packets, so timewait */
		cm_send_rej(cm, &c->peer, c->tid, c->local_id, c->remote_id, CM_MSG_OTHER,
			    CM_REJ_TIMEOUT, guid, 8, NULL, 0);
		cm_qp_error(cm, c);
		cm_enter_timewait(cm, c);
		cm_emit(cm, CM_EV_UNREACHABLE, c, user, CM_REJ_TIMEOUT, NULL, NULL, 0);
		break;
	case CM_DREQ_SENT:
		/* no DREP: disconnected all the same (cm_process_send_error) */
		cm_enter_timewait(cm, c);
		cm_emit(cm, CM_EV_DISCONNECTED, c, user, 0, NULL, NULL, 0);
		break;
	case CM_TIMEWAIT:
		cm_conn_free(cm, c);
		cm_emit(cm, CM_EV_TIMEWAIT_EXIT, c, user, 0, NULL, NULL, 0);
		break;
	case CM_SIDR_REP_SENT:
		/* the reply kept for copies of the request: no longer */
		cm_conn_free(cm, c);
		break;
	case CM_SIDR_REQ_SENT:
		/* IB_CM_SIDR_REQ_ERROR: no SIDR_REP came */
		cm_conn_free(cm, c);
		cm_emit(cm, CM_EV_UNREACHABLE, c, user, 0, NULL, NULL, 0);
		break;
	default:
		break;
	}
}

void cm_poll(struct cm *cm)
{
	uint64_t now = cm_now(cm);

	for (unsigned i = 0; i < cm->cfg.max_conns; i++) {
		struct cm_conn *c = &cm->conns[i];

		if (c->state == CM_IDLE || !c->timer_on || c->deadline_us > now)
			continue;
		if (c->retries_left > 0) {
			c->retries_left--;
			cm->cnt.retries++;
			cm_resend(cm, c);
			c->deadline_us = now + c->timeout_us;
			continue;
		}
		conn_timed_out(cm, c);
	}
}

