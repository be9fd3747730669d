/* SPDX-License-Identifier: MIT */
/* Shared receive queues: the engine's (src/verbs/srq.c) behind ibv_srq. */
#include <errno.h>
#include <stdlib.h>

#include "ibverbs/rv.h"
#include "roce/status.h"

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct roce_srq_init_attr ra = { 0 };
	struct rv_context *c = pd ? rv_ctx(pd->context) : NULL;
	struct rv_srq *s;

	if (!c || !attr) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	ra.srq_context = s;
	ra.attr.max_wr = attr->attr.max_wr;
	ra.attr.max_sge = attr->attr.max_sge;
	ra.attr.srq_limit = attr->attr.srq_limit;
	s->srq = roce_create_srq(RV_OF(rv_pd, pd)->pd, &ra);
	if (!s->srq) {
		free(s);
		errno = EINVAL;         /* a size out of range (roce_create_srq) */
		return NULL;
	}
	attr->attr.max_wr = ra.attr.max_wr;
	attr->attr.max_sge = ra.attr.max_sge;
	s->ibv.context = pd->context;
	s->ibv.srq_context = attr->srq_context;
	s->ibv.pd = pd;
	pthread_mutex_init(&s->ibv.mutex, NULL);
	pthread_cond_init(&s->ibv.cond, NULL);
	pthread_mutex_lock(&c->lock);
	s->next = c->srqs;
	c->srqs = s;
	pthread_mutex_unlock(&c->lock);
	return &s->ibv;
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct roce_srq_attr ra;

	if (!srq || !attr)
		return EINVAL;
	if (mask & IBV_SRQ_MAX_WR)
		return rv_unsupported("ibv_modify_srq resizing an SRQ (IBV_SRQ_MAX_WR)",
				      EOPNOTSUPP);
	ra.max_wr = attr->max_wr;
	ra.max_sge = 0;
	ra.srq_limit = attr->srq_limit;
	return rv_errno(roce_modify_srq(RV_OF(rv_srq, srq)->srq, &ra, (unsigned)mask));
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct roce_srq_attr ra;
	int st;

	if (!srq || !attr)
		return EINVAL;
	st = roce_query_srq(RV_OF(rv_srq, srq)->srq, &ra);
	if (st)
		return rv_errno(st);
	attr->max_wr = ra.max_wr;
	attr->max_sge = ra.max_sge;
	attr->srq_limit = ra.srq_limit;
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	struct rv_srq *s = RV_OF(rv_srq, srq), **pp;
	struct rv_context *c;
	int st;

	if (!srq)
		return EINVAL;
	c = rv_ctx(srq->context);
	st = roce_destroy_srq(s->srq);
	if (st)
		return rv_errno(st);
	pthread_mutex_lock(&c->lock);
	for (pp = &c->srqs; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&srq->mutex);
	pthread_cond_destroy(&srq->cond);
	free(s);
	return 0;
}
