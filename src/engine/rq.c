/* SPDX-License-Identifier: MIT */
/*
 * Receive WQEs, as the responders of every transport take them: the one a
 * message lands in (the QP's RQ lends its head; a QP on an SRQ takes one
 * from the SRQ and keeps a copy), its completion, and the flush of what
 * is left when the QP enters ERR.
 *
 * A QP on a shared receive queue takes one WQE for each message from the
 * SRQ's ring when the message starts, and keeps a copy of it
 * (resp.srq_wqe) until the message completes: the ring slot may be reused
 * by the host as soon as the WQE is taken, and QPs take from the ring
 * between one packet of a message and the next. The engine is the ring's
 * one consumer; the host's posting threads share its producer side under
 * the verbs SRQ's lock.
 */
#include <string.h>

#include "engine/cq.h"
#include "engine/event.h"
#include "engine/rq.h"

/*
 * The WQE of the message in progress on qp, taken from its SRQ at the
 * message's first packet; NULL when the SRQ is empty (the responder sends
 * an RNR NAK and the requester tries again). Taking a WQE that leaves
 * fewer than the armed limit raises SRQ_LIMIT_REACHED and disarms the
 * limit: ibv_modify_srq(3)'s "low watermark", checked as rxe checks it, when
 * a WQE is taken (rxe_resp.c get_srq_wqe).
 */
static struct rwqe *srq_take(struct roce_engine *e, struct eng_qp *qp)
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
 * The one place the responder takes a receive WQE: the WQE the message in
 * progress lands in. A QP's own RQ lends its head until the message
 * completes; a QP on an SRQ takes one from the SRQ for the message
 * (srq_take). NULL: none posted (RNR).
 */
struct rwqe *rwqe_take(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t cons;

	if (qp->srq)
		return srq_take(e, qp);
	cons = atomic_load_explicit(&qp->rq.cons, memory_order_relaxed);
	if (cons == atomic_load_explicit(&qp->rq.prod, memory_order_acquire))
		return NULL;
	return &qp->rwqe[cons & qp->rq.mask];
}

/* The message's WQE is done with: the RQ's head moves on, or the SRQ's
 * copy is released. */
void rwqe_release(struct eng_qp *qp)
{
	if (qp->srq)
		qp->resp.srq_held = false;
	else
		atomic_store_explicit(&qp->rq.cons,
				      atomic_load_explicit(&qp->rq.cons, memory_order_relaxed) + 1,
				      memory_order_release);
}

void recv_complete(struct roce_engine *e, struct eng_qp *qp,
		   enum roce_wc_status status, enum roce_wc_opcode op,
		   uint32_t len, const struct roce_pkt *p)
{
	struct rwqe *r = rwqe_take(e, qp);
	const struct roce_immdt *imm = p ? roce_pkt_immdt(p) : NULL;
	struct roce_wc wc = {
		.wr_id = r->wr_id,
		.status = status,
		.opcode = op,
		.byte_len = len,
		.qp_num = qp->qpn,
		.src_qp = qp->cfg.dest_qpn,
	};

	if (imm) {
		memcpy(&wc.imm_data, imm->imm, 4);      /* network order, as ibverbs */
		wc.wc_flags |= ROCE_WC_WITH_IMM;
	}
	if (p && !qp->tr->connected) {
		/* UD: the sender is the DETH's; the buffer begins with the
		 * GRH area (rxe do_complete: IB_WC_GRH, src_qp) */
		wc.src_qp = roce_deth_sqpn(roce_pkt_deth(p));
		wc.wc_flags |= ROCE_WC_GRH | (p->ipv6 ? ROCE_WC_IPV6 : 0);
	}
	rwqe_release(qp);
	/* the last packet's SE bit asks for a solicited event (IBA 9.2.3,
	 * 11.4.2.2) */
	cq_post(e, qp->recv_cq, &wc, p && roce_bth_se(roce_pkt_bth(p)));
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
static void srq_flush(struct roce_engine *e, struct eng_qp *qp)
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
		cq_push(e, qp->recv_cq, &wc);
	}
	if (!qp->flushed)
		event_async(e, ROCE_EVENT_QP_LAST_WQE_REACHED, qp);
}

/* ERR: every receive WQE of the QP completes as flushed (IBA 10.3.1), the
 * RQ's and the one it took from its SRQ. */
void rq_flush(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->rq.prod, memory_order_acquire);
	uint32_t cons = atomic_load_explicit(&qp->rq.cons, memory_order_relaxed);

	for (; cons != prod; cons++) {
		struct rwqe *r = &qp->rwqe[cons & qp->rq.mask];
		struct roce_wc wc = {
			.wr_id = r->wr_id,
			.status = ROCE_WC_WR_FLUSH_ERR,
			.opcode = ROCE_WC_RECV,
			.qp_num = qp->qpn,
		};

		cq_push(e, qp->recv_cq, &wc);
	}
	atomic_store_explicit(&qp->rq.cons, cons, memory_order_release);
	srq_flush(e, qp);
}
