/* SPDX-License-Identifier: MIT */
/*
 * The send queue's tail: WQEs leave it in order, as completions once the
 * completer (or, for UC and UD, the requester) has marked them done, or
 * flushed when the QP enters ERR. Releasing a WQE is a move of the SQ
 * consumer index: it never stalls the requester (SPEC: release work is
 * queued, not done inline).
 */
#include "engine/cq.h"
#include "engine/sq.h"
#include "roce/psn.h"

static enum roce_wc_opcode wc_opcode(const struct swqe *w)
{
	switch (w->opcode) {
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM: return ROCE_WC_RDMA_WRITE;
	case ROCE_WR_RDMA_READ: return ROCE_WC_RDMA_READ;
	case ROCE_WR_ATOMIC_CMP_AND_SWP: return ROCE_WC_COMP_SWAP;
	case ROCE_WR_ATOMIC_FETCH_AND_ADD: return ROCE_WC_FETCH_ADD;
	default: return ROCE_WC_SEND;
	}
}

/* Pop finished WQEs in order and raise their completions. */
void sq_complete(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t cons = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
	bool moved = false;

	while (cons != qp->req.cur) {
		struct swqe *w = sq_at(qp, cons);

		if (w->state != SWQE_DONE)
			break;
		if (swqe_rd_atomic(w) && qp->req.rd_atomic)
			qp->req.rd_atomic--;
		cons++;
		moved = true;
		if (w->status != ROCE_WC_SUCCESS || qp->sq_sig_all ||
		    (w->flags & ROCE_SEND_SIGNALED)) {
			struct roce_wc wc = {
				.wr_id = w->wr_id,
				.status = (enum roce_wc_status)w->status,
				.opcode = wc_opcode(w),
				.byte_len = w->length,
				.qp_num = qp->qpn,
			};

			/* the slot is free before its completion is seen: a
			   consumer that polls it and posts at once (perftest
			   keeps tx_depth WQEs out) never finds the queue full */
			atomic_store_explicit(&qp->sq.cons, cons, memory_order_release);
			cq_push(e, qp->send_cq, &wc);
		}
	}
	if (moved)
		atomic_store_explicit(&qp->sq.cons, cons, memory_order_release);
	/* timer: running while anything is outstanding, sent and not
	   acknowledged: up to psn_max, not req.psn, which a go-back has
	   rewound (a stale ACK before the resend stopped the timer, and a
	   requester that then resent nothing was stuck) */
	if (roce_psn_cmp(qp->comp.una, qp->req.psn_max) >= 0)
		qp->comp.timer = 0;
}

/* ERR: every WQE not yet completed ends with WR_FLUSH_ERR (the one that
 * failed keeps its status; IBA 10.3.1). */
void sq_flush(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);
	uint32_t cons = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);

	for (; cons != prod; cons++) {
		struct swqe *w = sq_at(qp, cons);
		struct roce_wc wc = {
			.wr_id = w->wr_id,
			.status = w->state == SWQE_DONE ? (enum roce_wc_status)w->status
							: ROCE_WC_WR_FLUSH_ERR,
			.opcode = wc_opcode(w),
			.qp_num = qp->qpn,
		};

		if (wc.status == ROCE_WC_SUCCESS && !qp->sq_sig_all &&
		    !(w->flags & ROCE_SEND_SIGNALED)) {
			continue;
		}
		if (wc.status == ROCE_WC_SUCCESS)
			wc.byte_len = w->length;
		atomic_store_explicit(&qp->sq.cons, cons + 1, memory_order_release);
		cq_push(e, qp->send_cq, &wc);
	}
	atomic_store_explicit(&qp->sq.cons, cons, memory_order_release);
	qp->req.cur = cons;
	qp->req.rd_atomic = 0;

}
