/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events: the host's end of the engine's event queue
 * (engine/event.c), as ibv_get_async_event / ibv_ack_async_event. The
 * queue's eventfd is the context's async fd; its count is the number of
 * records queued (EFD_SEMAPHORE), so a read takes one.
 */
#include <errno.h>
#include <unistd.h>

#include "verbs/verbs_priv.h"
#include "roce/status.h"

int roce_async_fd(const struct roce_context *ctx)
{
	return ctx ? ctx->eng.async.fd : -1;
}

uint64_t roce_async_events_lost(struct roce_context *ctx)
{
	return atomic_load_explicit(&ctx->eng.async.lost, memory_order_relaxed);
}

/* Which member of the event's element a type names (ibv_get_async_event(3)). */
enum elem { ELEM_CQ, ELEM_QP, ELEM_SRQ, ELEM_PORT };

static enum elem elem_of(enum roce_event_type t)
{
	switch (t) {
	case ROCE_EVENT_CQ_ERR:
		return ELEM_CQ;
	case ROCE_EVENT_SRQ_ERR:
	case ROCE_EVENT_SRQ_LIMIT_REACHED:
		return ELEM_SRQ;
	case ROCE_EVENT_DEVICE_FATAL:
	case ROCE_EVENT_PORT_ACTIVE:
	case ROCE_EVENT_PORT_ERR:
	case ROCE_EVENT_LID_CHANGE:
	case ROCE_EVENT_PKEY_CHANGE:
	case ROCE_EVENT_SM_CHANGE:
		return ELEM_PORT;
	default:
		return ELEM_QP;
	}
}

/* The count of events handed out and acknowledged of the event's object. */
static struct ev_count *count_of(const struct roce_async_event *ev)
{
	switch (elem_of(ev->event_type)) {
	case ELEM_CQ: return &ev->element.cq->async;
	case ELEM_QP: return &ev->element.qp->async;
	case ELEM_SRQ: return &ev->element.srq->async;
	case ELEM_PORT: break;
	}
	return NULL;
}

/* The next record, made an event; false when the count read was for a
 * record dropped with its object. */
static bool take(struct eng_async *a, struct roce_async_event *ev)
{
	struct eng_async_rec *r;
	struct ev_count *n;

	if (a->head == a->tail)
		return false;
	r = &a->rec[a->head++ % ROCE_ASYNC_QUEUE];
	if (r->dead)
		return false;
	ev->event_type = (enum roce_event_type)r->type;
	switch (elem_of(ev->event_type)) {
	case ELEM_CQ: ev->element.cq = (struct roce_cq *)r->obj; break;
	case ELEM_QP: ev->element.qp = qp_of_eng(r->obj); break;
	case ELEM_SRQ: ev->element.srq = (struct roce_srq *)r->obj; break;
	case ELEM_PORT: ev->element.port_num = 1; break;
	}
	n = count_of(ev);
	if (n)
		n->reported++;
	return true;
}

int roce_get_async_event(struct roce_context *ctx, struct roce_async_event *ev)
{
	struct eng_async *a;

	if (!ctx || !ev)
		return ROCE_E_INVAL;
	a = &ctx->eng.async;
	for (;;) {
		uint64_t one;
		bool got;

		/* blocks while none waits, unless the fd is non-blocking */
		if (read(a->fd, &one, sizeof(one)) < 0) {
			/* a signal: returned, as read(2) on the kernel's fd
			   returns it (a handler with SA_RESTART restarts
			   the read itself) */
			if (errno == EINTR)
				return ROCE_E_INTR;
			return errno == EAGAIN ? ROCE_E_AGAIN : ROCE_E_IO;
		}
		pthread_mutex_lock(&a->lock);
		got = take(a, ev);
		pthread_mutex_unlock(&a->lock);
		if (got)
			return ROCE_OK;
	}
}

void roce_ack_async_event(struct roce_async_event *ev)
{
	struct ev_count *n;
	struct roce_context *ctx;

	if (!ev)
		return;
	switch (elem_of(ev->event_type)) {
	case ELEM_CQ: ctx = ev->element.cq->ctx; break;
	case ELEM_QP: ctx = ev->element.qp->ctx; break;
	case ELEM_SRQ: ctx = ev->element.srq->ctx; break;
	default: return;        /* port events belong to no object */
	}
	n = count_of(ev);
	pthread_mutex_lock(&ctx->eng.async.lock);
	n->acked++;
	pthread_mutex_unlock(&ctx->eng.async.lock);
}

bool async_busy(struct roce_context *ctx, const struct ev_count *n)
{
	bool busy;

	pthread_mutex_lock(&ctx->eng.async.lock);
	busy = n->reported != n->acked;
	pthread_mutex_unlock(&ctx->eng.async.lock);
	return busy;
}

/* The object goes: its records still queued are marked, and
 * roce_get_async_event skips them (the kernel drops them likewise,
 * ib_uverbs_release_uevent). */
void async_purge(struct roce_context *ctx, const void *obj)
{
	struct eng_async *a = &ctx->eng.async;

	pthread_mutex_lock(&a->lock);
	for (uint32_t i = a->head; i != a->tail; i++) {
		struct eng_async_rec *r = &a->rec[i % ROCE_ASYNC_QUEUE];

		if (r->obj == obj)
			r->dead = true;
	}
	pthread_mutex_unlock(&a->lock);
}

const char *roce_event_type_str(enum roce_event_type t)
{
	/* ibv_event_type_str()'s words */
	switch (t) {
	case ROCE_EVENT_CQ_ERR: return "CQ error";
	case ROCE_EVENT_QP_FATAL: return "local work queue catastrophic error";
	case ROCE_EVENT_QP_REQ_ERR: return "invalid request local work queue error";
	case ROCE_EVENT_QP_ACCESS_ERR: return "local access violation work queue error";
	case ROCE_EVENT_COMM_EST: return "communication established";
	case ROCE_EVENT_SQ_DRAINED: return "send queue drained";
	case ROCE_EVENT_PATH_MIG: return "path migrated";
	case ROCE_EVENT_PATH_MIG_ERR: return "path migration request error";
	case ROCE_EVENT_DEVICE_FATAL: return "local catastrophic error";
	case ROCE_EVENT_PORT_ACTIVE: return "port active";
	case ROCE_EVENT_PORT_ERR: return "port error";
	case ROCE_EVENT_LID_CHANGE: return "LID change";
	case ROCE_EVENT_PKEY_CHANGE: return "P_Key change";
	case ROCE_EVENT_SM_CHANGE: return "SM change";
	case ROCE_EVENT_SRQ_ERR: return "SRQ catastrophic error";
	case ROCE_EVENT_SRQ_LIMIT_REACHED: return "SRQ limit reached";
	case ROCE_EVENT_QP_LAST_WQE_REACHED: return "last WQE reached";
	}
	return "unknown";
}
