/* SPDX-License-Identifier: MIT */
/*
 * The context cache: the engine's copies of QP contexts and MR entries,
 * following the register file. A COMMIT queues the entry it changed
 * (tables/changes.h), as a NIC's context cache is invalidated by
 * the command that writes the context; the engine takes the queue at the
 * start of every poll, so a change takes effect within one poll, and an
 * unchanged QP costs nothing, however many exist.
 */
#include "engine/cc.h"
#include "engine/comp.h"
#include "engine/ctx.h"
#include "engine/dma.h"
#include "engine/flush.h"
#include "engine/req.h"
#include "engine/resp.h"
#include "engine/sched.h"
#include "engine/tx.h"
#include "engine/window.h"
#include "roce/device.h"
#include "roce/psn.h"
#include "roce/status.h"
#include "stage/stage.h"

static const struct eng_transport transport_rc = {
	.wire = ROCE_TRANSPORT_RC, .op_class = 0x00, .acked = true, .connected = true,
	.rd_atomic = true,
};
static const struct eng_transport transport_uc = {
	.wire = ROCE_TRANSPORT_UC, .op_class = ROCE_OP_UC_SEND_FIRST - ROCE_OP_RC_SEND_FIRST,
	.connected = true,
};
static const struct eng_transport transport_ud = {
	.wire = ROCE_TRANSPORT_UD,
};

static const struct eng_transport *transport_of(uint8_t type)
{
	return type == ROCE_QPT_UC ? &transport_uc :
	       type == ROCE_QPT_UD ? &transport_ud : &transport_rc;
}

/* Read qp's context again and act on what changed. */
void ctx_sync_qp(struct roce_engine *e, struct eng_qp *qp)
{
	struct roce_qp_cfg c;
	uint8_t old = qp->cfg.state;

	roce_qp_table_lookup(e->qpt, qp->qpn, &c, NULL);
	qp->cfg = c;
	qp->tr = transport_of(c.type);
	qp->mtu = roce_mtu_bytes((enum roce_mtu)c.mtu);
	if (!qp->mtu)
		qp->mtu = ROCE_MIN_MTU;
	/* the AV's flow label, else the QPNs' (rdma_get_udp_sport) */
	qp->sport = c.flow_label ? roce_udp_sport_from_flow(c.flow_label)
				 : roce_udp_sport(qp->qpn, c.dest_qpn);
	cc_qp_sync(e, qp);
	tx_template(e, qp);
	if (c.state != old) {
		if (c.state == ROCE_QPS_RESET) {
			/* RESET empties both queues without completions (IBA 10.3.1) */
			atomic_store_explicit(&qp->sq.cons,
					      atomic_load_explicit(&qp->sq.prod, memory_order_acquire),
					      memory_order_release);
			atomic_store_explicit(&qp->rq.cons,
					      atomic_load_explicit(&qp->rq.prod, memory_order_acquire),
					      memory_order_release);
		}
		if (c.state <= ROCE_QPS_INIT) {
			req_reset(qp);
			comp_reset(qp);
			resp_reset(qp);
			qp->flushed = false;
		}
		/* The application may climb several steps between two polls:
		 * what matters is which thresholds the QP crossed. Entering
		 * RTR (or beyond) from below starts the responder at rq_psn ... */
		if (old <= ROCE_QPS_INIT && c.state >= ROCE_QPS_RTR && c.state <= ROCE_QPS_SQE) {
			resp_reset(qp);
			qp->resp.psn = qp->resp.ack_psn = c.rq_psn;
		}
		/* ... entering RTS (or beyond) from below starts the requester */
		if (old <= ROCE_QPS_RTR && c.state >= ROCE_QPS_RTS && c.state <= ROCE_QPS_SQE) {
			req_reset(qp);
			comp_reset(qp);
			qp->req.psn = qp->req.psn_max = qp->comp.una = c.sq_psn;
			qp->comp.retry_left = c.retry_cnt;
			qp->comp.rnr_left = c.rnr_retry;
			window_sync(e, qp, true);       /* a new connection's */
		}
	}
	/* the responder's resources follow max_dest_rd_atomic from RTR on;
	 * without them (no memory) a READ or atomic is dropped unanswered
	 * and the requester's retries end the connection */
	if (c.state >= ROCE_QPS_RTR && c.state <= ROCE_QPS_SQE &&
	    resp_size(qp, c.max_dest_rd_atomic) == ROCE_E_NOMEM)
		roce_cnt_drop(e->cnt, ROCE_E_NOMEM);
	/* ERR flushes whatever is posted (the arbiter flushes what comes
	 * later, rung by its doorbell) */
	if (qp->cfg.state == ROCE_QPS_ERR) {
		qp_flush(e, qp);
		qp->flushed = true;
	}
	sched_kick(e, qp);
	sched_settle(e, qp);
}

/* An MR entry changed: drop the cached copy, the next key check reads
 * it; its stage state follows its binding (dma.h's DMA address of its
 * first byte: a HOST entry's IOVA with DMA_HOST). */
static void mr_changed(struct roce_engine *e, uint32_t index)
{
	struct mr_cached *c = &e->mrc[index % MR_CACHE];
	struct roce_mr_entry mr;

	if (c->index == index)
		c->gen = 1;             /* empty */
	if (roce_mr_table_lookup(e->mrt, index, &mr) == ROCE_OK) {
		mr.index = index;       /* an invalid entry reads as zeros */
		ctx_stage_sync(e, &mr);
	}
}

void ctx_stage_sync(struct roce_engine *e, const struct roce_mr_entry *mr)
{
	uint64_t base = mr->pa | (mr->space == ROCE_MR_SPACE_HOST ? DMA_HOST : 0);

	/* a binding the stage hardware cannot take (no memory) leaves the
	   MR's accesses failing with ROCE_E_STAGE, never unstaged */
	int rc = stage_mr_sync(e->stage, mr, base);
	if (rc != ROCE_OK)
		roce_cnt_inc(e->cnt, ROCE_CNT_STAGE_ERRORS);
}

void ctx_changes(struct roce_engine *e)
{
	uint32_t i;

	while (idxq_take(e->qp_changes, &i)) {
		struct eng_qp *qp = e->qp_by_qpn[i];

		if (qp)
			ctx_sync_qp(e, qp);
	}
	while (idxq_take(e->mr_changes, &i))
		mr_changed(e, i);
}
