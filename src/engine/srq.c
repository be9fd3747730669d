/* SPDX-License-Identifier: MIT */
/*
 * The responder's side of a shared receive queue. A QP on an SRQ takes one
 * WQE for each message from the SRQ's ring when the message starts, and
 * keeps a copy of it (resp.srq_wqe) until the message completes: the ring
 * slot may be reused by the host as soon as the WQE is taken, and QPs
 * take from the ring between one packet of a message and the next. The
 * engine is the ring's one consumer; the host's posting threads share its
 * producer side under the verbs SRQ's lock.
 */

#include "engine/engine.h"

/*
 * The WQE of the message in progress on qp, taken from its SRQ at the
 * message's first packet; NULL when the SRQ is empty (the responder sends
 * an RNR NAK and the requester tries again). Taking a WQE that leaves
 * fewer than the armed limit raises SRQ_LIMIT_REACHED and disarms the
 * limit: ibv_modify_srq(3)'s "low watermark", checked as rxe checks it, when
 * a WQE is taken (rxe_resp.c get_srq_wqe).
 */
struct rwqe *srq_take(struct roce_engine *e, struct eng_qp *qp)
{
	struct eng_srq *s = qp->srq;
	uint32_t cons, prod, limit;

	if (qp->resp.srq_held)
		return &qp->resp.srq_wqe;
	cons = atomic_load_explicit(&s->rq.cons, memory_order_relaxed);
	prod = atomic_load_explicit(&s->rq.prod, memory_order_acquire);
	if (cons == prod)
		return NULL;
	qp->resp.srq_wqe = s->rwqe[cons & s->rq.mask];
	qp->resp.srq_held = true;
	atomic_store_explicit(&s->rq.cons, cons + 1, memory_order_release);
	limit = atomic_load_explicit(&s->limit, memory_order_relaxed);
	if (limit && prod - (cons + 1) < limit &&
	    atomic_exchange_explicit(&s->limit, 0, memory_order_acq_rel))
		event_async(e, ROCE_EVENT_SRQ_LIMIT_REACHED, s);
	return &qp->resp.srq_wqe;
}

/*
 * The QP is in ERR (its queues are flushed, the first time or again): the
 * WQE it took for a message that will not finish completes as flushed
 * (IBA 10.3.1: WQEs of the QP complete in error; the SRQ's other WQEs
 * belong to no QP and stay). On entering ERR, after that completion, the
 * QP will take no more WQEs from the SRQ: the Last WQE Reached event
 * (IBA 11.6.3.1, ibv_get_async_event(3)) tells the application, which may
 * then destroy the QP without losing a WQE.
 */
void srq_flush(struct roce_engine *e, struct eng_qp *qp)
{
	struct roce_wc wc = {
		.status = ROCE_WC_WR_FLUSH_ERR,
		.opcode = ROCE_WC_RECV,
		.qp_num = qp->qpn,
	};

	if (!qp->srq)
		return;
	if (qp->resp.srq_held) {
		wc.wr_id = qp->resp.srq_wqe.wr_id;
		qp->resp.srq_held = false;
		qp->resp.in_send = false;
		engine_cq_push(e, qp->recv_cq, &wc);
	}
	if (!qp->flushed)
		event_async(e, ROCE_EVENT_QP_LAST_WQE_REACHED, qp);
}
