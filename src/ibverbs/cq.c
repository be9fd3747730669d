/* SPDX-License-Identifier: MIT */
/*
 * Completion queues, completion channels and the asynchronous events:
 * the engine's (src/verbs/channel.c, async.c) behind rdma-core's
 * structures. The channel's fd is the engine's eventfd, so a program's
 * poll() on ibv_comp_channel.fd wakes when the engine raises an event;
 * the context's async_fd likewise.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "roce/params.h"
#include "roce/status.h"

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct rv_context *c = rv_ctx(context);
	struct rv_channel *ch;

	if (!c) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch)
		ch->ch = roce_create_comp_channel(c->ctx);
	if (!ch || !ch->ch) {
		free(ch);
		errno = ENOMEM;
		return NULL;
	}
	ch->ibv.context = context;
	ch->ibv.fd = roce_comp_channel_fd(ch->ch);
	return &ch->ibv;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct rv_channel *ch = RV_OF(rv_channel, channel);
	int st;

	if (!channel)
		return EINVAL;
	st = roce_destroy_comp_channel(ch->ch);
	if (st)
		return rv_errno(st);
	free(ch);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct rv_context *c = rv_ctx(context);
	struct rv_cq *q;

	if (!c || cqe < 1 || (unsigned)cqe >= ROCE_MAX_CQE || comp_vector != 0 ||
	    (channel && channel->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	/* the engine hands back its cq_context with each event: ours */
	q->cq = roce_create_cq_channel(c->ctx, cqe, q,
				       channel ? RV_OF(rv_channel, channel)->ch : NULL);
	if (!q->cq) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->ibv.context = context;
	q->ibv.channel = channel;
	q->ibv.cq_context = cq_context;
	q->ibv.cqe = cqe;
	pthread_mutex_init(&q->ibv.mutex, NULL);
	pthread_cond_init(&q->ibv.cond, NULL);
	pthread_mutex_lock(&c->lock);
	q->next = c->cqs;
	c->cqs = q;
	pthread_mutex_unlock(&c->lock);
	return &q->ibv;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct rv_cq *q = RV_OF(rv_cq, cq), **pp;
	struct rv_context *c;
	int st;

	if (!cq)
		return EINVAL;
	c = rv_ctx(cq->context);
	st = roce_destroy_cq(q->cq);
	if (st)
		return rv_errno(st);
	pthread_mutex_lock(&c->lock);
	for (pp = &c->cqs; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&q->ibv.mutex);
	pthread_cond_destroy(&q->ibv.cond);
	free(q);
	return 0;
}

/* As rxe: grow or shrink, the completions held kept; fewer slots than
   completions held, or an overrun CQ, is EINVAL and the CQ stays. */
int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	int st;

	if (!cq)
		return EINVAL;
	if (cqe < 1 || (unsigned)cqe >= ROCE_MAX_CQE)
		return EINVAL;
	st = roce_resize_cq(RV_OF(rv_cq, cq)->cq, cqe);
	if (st == ROCE_E_NOMEM)
		return ENOMEM;
	if (st)
		return EINVAL;
	cq->cqe = cqe;
	return 0;
}

/* ibv_wc from the engine's completion (the enums have ibverbs' values). */
void rv_wc_out(const struct roce_wc *r, struct ibv_wc *w)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = r->wr_id;
	w->status = (enum ibv_wc_status)r->status;
	w->opcode = (enum ibv_wc_opcode)r->opcode;
	w->byte_len = r->byte_len;
	w->imm_data = r->imm_data;
	w->qp_num = r->qp_num;
	w->src_qp = r->src_qp;
	w->wc_flags = (r->wc_flags & ROCE_WC_GRH ? IBV_WC_GRH : 0) |
		      (r->wc_flags & ROCE_WC_WITH_IMM ? IBV_WC_WITH_IMM : 0);
	/* a RoCE UD completion carries no LID: rxe leaves slid 0 too. Its
	 * SL is what a ConnectX puts there for RoCE (mlx5's CQE field under
	 * wc.sl: bit 3 a UDP header, bits 2:0 the L3 header, 2 IPv4, 1
	 * IPv6), which UCX's UD transport reads to find the destination in
	 * the GRH area; rxe leaves 0, and UCX over rxe drops every datagram */
	if (r->wc_flags & ROCE_WC_GRH)
		w->sl = r->wc_flags & ROCE_WC_IPV6 ? RV_WC_SL_ROCE_V2_IPV6 : RV_WC_SL_ROCE_V2_IPV4;
}

int rv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct roce_cq *rq = RV_OF(rv_cq, cq)->cq;
	struct rv_context *c = rv_ctx(cq->context);
	struct roce_wc r[32];
	int got = 0;

	if (c->orphaned) {
		rv_orphaned(c, "ibv_poll_cq");
		return -1;
	}
	/* a polling program runs the engine: what it polls for comes now */
	rv_drive(c);
	while (got < n) {
		int want = n - got < 32 ? n - got : 32;
		int k = roce_poll_cq(rq, want, r);

		if (k < 0)
			return got ? got : -1;  /* overrun: ibv_poll_cq's < 0 */
		for (int i = 0; i < k; i++)
			rv_wc_out(&r[i], &wc[got + i]);
		got += k;
		if (k < want)
			break;
	}
	/* it spins on this CQ: the engine thread may park meanwhile */
	if (!got && c->rtc)
		roce_engine_waiting(c->ctx);
	return got;
}

int rv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return rv_errno(roce_req_notify_cq(RV_OF(rv_cq, cq)->cq, solicited_only));
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct roce_cq *rq;
	void *ours = NULL;
	int st;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	/* about to block: the engine thread takes over at once */
	roce_engine_release(rv_ctx(channel->context)->ctx);
	st = roce_get_cq_event(RV_OF(rv_channel, channel)->ch, &rq, &ours);
	if (st) {
		errno = rv_errno(st);
		return -1;
	}
	*cq = &((struct rv_cq *)ours)->ibv;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (cq)
		roce_ack_cq_events(RV_OF(rv_cq, cq)->cq, nevents);
}

/* ---- asynchronous events ------------------------------------------------ */

static struct rv_cq *find_cq(struct rv_context *c, struct roce_cq *rq)
{
	struct rv_cq *q;

	pthread_mutex_lock(&c->lock);
	for (q = c->cqs; q && q->cq != rq; q = q->next)
		;
	pthread_mutex_unlock(&c->lock);
	return q;
}

static struct rv_srq *find_srq(struct rv_context *c, struct roce_srq *rs)
{
	struct rv_srq *s;

	pthread_mutex_lock(&c->lock);
	for (s = c->srqs; s && s->srq != rs; s = s->next)
		;
	pthread_mutex_unlock(&c->lock);
	return s;
}

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct rv_context *c = rv_ctx(context);
	struct roce_async_event re;
	int st;

	if (!c || !event) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		st = roce_get_async_event(c->ctx, &re);
		if (st) {
			errno = rv_errno(st);
			return -1;
		}
		memset(event, 0, sizeof(*event));
		event->event_type = (enum ibv_event_type)re.event_type;
		switch (re.event_type) {
		case ROCE_EVENT_CQ_ERR: {
			struct rv_cq *q = find_cq(c, re.element.cq);

			if (q) {
				event->element.cq = &q->ibv;
				return 0;
			}
			break;
		}
		case ROCE_EVENT_SRQ_ERR:
		case ROCE_EVENT_SRQ_LIMIT_REACHED: {
			struct rv_srq *s = find_srq(c, re.element.srq);

			if (s) {
				event->element.srq = &s->ibv;
				return 0;
			}
			break;
		}
		case ROCE_EVENT_PORT_ACTIVE:
		case ROCE_EVENT_PORT_ERR:
		case ROCE_EVENT_DEVICE_FATAL:
			event->element.port_num = re.element.port_num;
			return 0;
		default: {
			uint32_t n = roce_qp_num(re.element.qp);
			struct rv_qp *q = n < ROCE_MAX_QP ? c->qp_by_num[n] : NULL;

			if (q && q->qp == re.element.qp) {
				event->element.qp = &q->ibv;
				return 0;
			}
			break;
		}
		}
		/* an object made by the engine itself (none is exposed yet):
		 * acknowledge and look for the next */
		roce_ack_async_event(&re);
	}
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	struct roce_async_event re = { .event_type = (enum roce_event_type)event->event_type };

	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		re.element.cq = RV_OF(rv_cq, event->element.cq)->cq;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		re.element.srq = RV_OF(rv_srq, event->element.srq)->srq;
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_DEVICE_FATAL:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		re.element.port_num = event->element.port_num;
		break;
	default:
		re.element.qp = RV_OF(rv_qp, event->element.qp)->qp;
		break;
	}
	roce_ack_async_event(&re);
}
