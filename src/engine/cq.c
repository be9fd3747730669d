/* SPDX-License-Identifier: MIT */
/*
 * Completions into a CQ ring: the engine is the ring's producer, the host
 * (roce_poll_cq) its consumer. A completion the ring has no room for is
 * lost and reported (IBA 11.4.2.1); one for a CQ the host armed raises
 * its completion event (event.c).
 */
#include "engine/cq.h"
#include "engine/event.h"

void cq_post(struct roce_engine *e, struct eng_cq *cq, const struct roce_wc *wc,
		    bool solicited)
{
	uint32_t prod = atomic_load_explicit(&cq->ring.prod, memory_order_relaxed);
	uint32_t cons = atomic_load_explicit(&cq->ring.cons, memory_order_acquire);
	uint8_t arm;

	roce_cnt_inc(e->cnt, ROCE_CNT_COMPLETIONS);
	if (wc->status != ROCE_WC_SUCCESS)
		roce_cnt_inc(e->cnt, ROCE_CNT_ERROR_COMPLETIONS);
	if (prod - cons > cq->ring.mask) {
		/* CQ overrun (IBA 11.4.2.1): lost, and reported by poll_cq
		 * and, the first time, by a CQ_ERR asynchronous event */
		if (!atomic_exchange_explicit(&cq->overflow, true, memory_order_acq_rel))
			event_async(e, ROCE_EVENT_CQ_ERR, cq);
		return;
	}
	cq->wc[prod & cq->ring.mask] = *wc;
	atomic_store_explicit(&cq->ring.prod, prod + 1, memory_order_release);
	if (!cq->channel)
		return;
	/*
	 * The completion event (event.c), one per arm. The fence pairs with
	 * roce_req_notify_cq's: either the engine sees the arm, or the host's
	 * poll after arming sees this completion. A CQ armed for solicited
	 * completions only fires for one whose message had the SE bit, or for
	 * an error (IBA 11.4.2.2).
	 */
	atomic_thread_fence(memory_order_seq_cst);
	arm = atomic_load_explicit(&cq->arm, memory_order_relaxed);
	if (!arm || (arm == CQ_ARM_SOLICITED && !solicited && wc->status == ROCE_WC_SUCCESS))
		return;
	if (atomic_exchange_explicit(&cq->arm, 0, memory_order_acq_rel))
		event_cq(cq);
}
