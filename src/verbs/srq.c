/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues, the host side: create, modify (the limit), query,
 * destroy, and posting. The ring is the engine's (struct eng_srq, consumed
 * by the responders, engine/rq.c); the host's posting threads share its
 * producer side under post_lock, as ibv_post_srq_recv is thread-safe.
 *
 * Like the CQs, an SRQ is host-side state here: the register map has no
 * SRQ table (docs/design.md says how one would look).
 */
#include <stdlib.h>

#include "common/pow2.h"
#include "verbs/verbs_priv.h"
#include "roce/status.h"

struct roce_srq *roce_create_srq(struct roce_pd *pd, struct roce_srq_init_attr *attr)
{
	struct roce_srq *srq;
	uint32_t n;

	if (!pd || !attr || attr->attr.max_wr < 1 || attr->attr.max_wr > ROCE_MAX_WR ||
	    attr->attr.max_sge > ROCE_WQE_SGE || attr->attr.srq_limit > attr->attr.max_wr)
		return NULL;
	n = pow2_at_least(attr->attr.max_wr);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	srq->eng.rwqe = calloc(n, sizeof(*srq->eng.rwqe));
	if (!srq->eng.rwqe) {
		free(srq);
		return NULL;
	}
	srq->eng.rq.mask = n - 1;
	/* rxe arms a limit given at creation (rxe_srq_from_init) */
	atomic_init(&srq->eng.limit, attr->attr.srq_limit);
	srq->ctx = pd->ctx;
	srq->pd = pd;
	srq->srq_context = attr->srq_context;
	srq->max_sge = attr->attr.max_sge ? attr->attr.max_sge : 1;
	pthread_mutex_init(&srq->post_lock, NULL);
	/* what was made, as ibv_create_srq reports it */
	attr->attr.max_wr = n;
	attr->attr.max_sge = srq->max_sge;
	return srq;
}

int roce_modify_srq(struct roce_srq *srq, const struct roce_srq_attr *attr, unsigned mask)
{
	if (!srq || !attr || (mask & ~(unsigned)(ROCE_SRQ_MAX_WR | ROCE_SRQ_LIMIT)))
		return ROCE_E_INVAL;
	if (mask & ROCE_SRQ_MAX_WR)
		return ROCE_E_UNSUPPORTED;      /* no IBV_DEVICE_SRQ_RESIZE */
	if ((mask & ROCE_SRQ_LIMIT) && attr->srq_limit > srq->eng.rq.mask + 1)
		return ROCE_E_RANGE;
	if (mask & ROCE_SRQ_LIMIT)
		atomic_store_explicit(&srq->eng.limit, attr->srq_limit, memory_order_release);
	return ROCE_OK;
}

int roce_query_srq(struct roce_srq *srq, struct roce_srq_attr *attr)
{
	if (!srq || !attr)
		return ROCE_E_INVAL;
	attr->max_wr = srq->eng.rq.mask + 1;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = atomic_load_explicit(&srq->eng.limit, memory_order_acquire);
	return ROCE_OK;
}

int roce_destroy_srq(struct roce_srq *srq)
{
	struct roce_context *ctx;

	if (!srq)
		return ROCE_E_INVAL;
	ctx = srq->ctx;
	engine_lock(&ctx->eng);
	/* ibv_destroy_srq(3): refused while a QP is associated with it */
	if (srq->nqp || async_busy(ctx, &srq->async)) {
		engine_unlock(&ctx->eng);
		return ROCE_E_BUSY;
	}
	async_purge(ctx, &srq->eng);
	engine_unlock(&ctx->eng);
	pthread_mutex_destroy(&srq->post_lock);
	free(srq->eng.rwqe);
	free(srq);
	return ROCE_OK;
}

/* The producer side of the ring, one poster at a time; the engine sees a
 * WQE once prod passes it (release). No doorbell: a responder that found
 * the SRQ empty sent an RNR NAK, and the requester comes back by itself. */
int roce_post_srq_recv(struct roce_srq *srq, struct roce_recv_wr *wr,
		       struct roce_recv_wr **bad_wr)
{
	struct ring_idx *q;
	uint32_t prod;
	int rc = ROCE_OK;

	if (!srq)
		return ROCE_E_INVAL;
	q = &srq->eng.rq;
	pthread_mutex_lock(&srq->post_lock);
	prod = atomic_load_explicit(&q->prod, memory_order_relaxed);
	for (; wr; wr = wr->next) {
		uint32_t cons = atomic_load_explicit(&q->cons, memory_order_acquire);

		if (prod - cons > q->mask) {
			rc = ROCE_E_FULL;
			break;
		}
		rc = rwqe_fill(&srq->eng.rwqe[prod & q->mask], NULL, wr, srq->max_sge);
		if (rc)
			break;
		prod++;
		atomic_store_explicit(&q->prod, prod, memory_order_release);
	}
	pthread_mutex_unlock(&srq->post_lock);
	if (rc && bad_wr)
		*bad_wr = wr;
	return rc;
}
