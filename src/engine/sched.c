/* SPDX-License-Identifier: MIT */
/*
 * Scheduling: what makes a QP's work happen, in time independent of how
 * many QPs exist (a NIC's doorbell FIFO, transmit arbiter and timer
 * block).
 *
 *   doorbells  a posted WR queues its QPN (engine_doorbell); each poll
 *              takes the queue and kicks those QPs;
 *   arbiter    the QPs that may have something to send, in a FIFO: each
 *              turn serves the head (replies first, then requests) until
 *              it has nothing it can send or the burst is full; a QP that
 *              filled the burst goes to the tail, one that ran dry leaves;
 *   timers     each QP's earliest deadline (retransmission, RNR wait, DMA)
 *              on the timing wheel of timer.c;
 *   idle       the engine may sleep when none of these has work: counts
 *              and list heads, no walk over the QPs.
 *
 * A QP leaves the arbiter only when its turn built nothing more while the
 * burst had room; what can give it work again kicks it back: a doorbell,
 * a frame for it (an ACK opens the window, a request queues a reply), a
 * context change, a timer, the end of a DMA stall.
 */
#include <stddef.h>

#include "engine/cc.h"
#include "engine/comp.h"
#include "engine/flush.h"
#include "engine/req.h"
#include "engine/resp.h"
#include "engine/sched.h"
#include "engine/timer.h"
#include "engine/tx.h"
#include "roce/status.h"

void sched_remove(struct roce_engine *e, struct eng_qp *qp)
{
	if (!qp->in_run)
		return;
	if (qp->run_prev)
		qp->run_prev->run_next = qp->run_next;
	else
		e->run_head = qp->run_next;
	if (qp->run_next)
		qp->run_next->run_prev = qp->run_prev;
	else
		e->run_tail = qp->run_prev;
	qp->run_next = qp->run_prev = NULL;
	qp->in_run = false;
	e->n_run--;
}

/* The earliest deadline that can still do something: the retransmission
 * timer unless the queues are flushed; the RNR wait and the DMA deadline
 * while the requester may send (in other states nothing acts on them). */
static uint64_t next_deadline(const struct roce_engine *e, const struct eng_qp *qp)
{
	uint64_t d = 0;

	if (qp->flushed)
		return 0;
	if (qp->comp.timer)
		d = qp->comp.timer;
	if (qp->comp.probe_at && (!d || qp->comp.probe_at < d))
		d = qp->comp.probe_at;   /* the tail-loss probe (cc.c) */
	if (qp->cfg.state != ROCE_QPS_RTS)
		return d;
	if (qp->comp.rnr_until && (!d || qp->comp.rnr_until < d))
		d = qp->comp.rnr_until;
	if (qp->req.dma_deadline && (!d || qp->req.dma_deadline < d))
		d = qp->req.dma_deadline;
	/* paced (cc.c): the time it may send again, once it had to wait,
	 * or sooner when its rate may rise */
	if (qp->pace_wait) {
		uint64_t p = cc_deadline(e, qp);

		if (!d || p < d)
			d = p;
	}
	return d;
}

/* After an event: the QP's timer follows its earliest deadline. A timer
 * armed earlier than needed stays (it fires, finds nothing due and is
 * armed again): a retransmission deadline pushed back by every ACK costs
 * a compare, not a move in the wheel. */
void sched_settle(struct roce_engine *e, struct eng_qp *qp)
{
	uint64_t d = next_deadline(e, qp);

	if (!d) {
		tw_cancel(&e->timers, &qp->timer);
		return;
	}
	if (tw_armed(&qp->timer)) {
		if (qp->timer.expires <= d)
			return;
		tw_cancel(&e->timers, &qp->timer);
	}
	tw_arm(&e->timers, &qp->timer, d, engine_now(e));
}

static void on_timer(void *ctx, struct eng_timer *t)
{
	struct roce_engine *e = ctx;
	struct eng_qp *qp = (struct eng_qp *)((char *)t - offsetof(struct eng_qp, timer));

	comp_timers(e, qp);             /* retransmission: go back or give up */
	/* an RNR wait that is over ends here (the requester would end it at
	 * its next turn; a past deadline must not stay armed) */
	if (qp->comp.rnr_until && qp->comp.rnr_until <= engine_now(e))
		qp->comp.rnr_until = 0;
	/* likewise a pacing wait (cc.c): its rate may have risen, its time
	 * may have come */
	if (qp->pace_wait) {
		cc_repace(e, qp);
		if (qp->next_tx <= engine_now(e))
			qp->pace_wait = false;
	}
	sched_kick(e, qp);              /* resend, or fail a stalled DMA */
	sched_settle(e, qp);
}

void sched_timers(struct roce_engine *e)
{
	if (e->timers.armed)
		tw_advance(&e->timers, engine_now(e), on_timer, e);
}

void sched_doorbells(struct roce_engine *e)
{
	uint32_t qpn;

	while (idxq_take(&e->doorbells, &qpn)) {
		struct eng_qp *qp = e->qp_by_qpn[qpn];

		if (qp)
			sched_kick(e, qp);
	}
}

/* One QP's turn: flush what was posted to a QP in error (IBA 10.3.1: a
 * WR posted in ERR completes flushed), else its replies, then requests. */
static void serve(struct roce_engine *e, struct eng_qp *qp)
{
	if (qp->cfg.state == ROCE_QPS_ERR) {
		qp_flush(e, qp);
		qp->flushed = true;
		return;
	}
	resp_tx(e, qp);
	req_tx(e, qp);
}

void sched_arbiter(struct roce_engine *e)
{
	/* each QP queued now at most once this poll: one that goes back to
	 * the tail waits for the next */
	uint32_t turns = e->n_run;

	while (turns-- && tx_room(e) && e->run_head) {
		struct eng_qp *qp = e->run_head;

		/* the next QP's context while this one is served: with
		 * thousands of QPs busy it is not in the cache (DPDK's
		 * rte_prefetch in its burst loops does the same) */
		if (qp->run_next)
			qp_prefetch(qp->run_next);
		sched_remove(e, qp);
		serve(e, qp);
		if (!tx_room(e))
			sched_kick(e, qp);      /* the burst filled: it may have more */
		sched_settle(e, qp);
	}
}

/* Nothing can start again but through a doorbell, a frame or a commit:
 * no QP waits to send, no timer is armed (retransmission, RNR wait, DMA),
 * nothing is staged or looped back, no doorbell or change is queued, and the port rings
 * us for every frame. */
bool sched_idle(struct roce_engine *e)
{
	return !e->dma_stall && !e->tx_n && !e->loop_n && !e->n_run && !e->timers.armed &&
	       !idxq_pending(&e->doorbells) && !engine_changes_pending(e) &&
	       roce_port_can_sleep(e->port);
}
