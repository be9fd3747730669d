/* SPDX-License-Identifier: MIT */
/*
 * A QP in ERR (IBA 10.3.1): the engine's move to it on a fatal error, and
 * the flush of its queues, whoever moved it (the engine, or the host
 * through the QP table: ctx.c).
 */
#include "engine/event.h"
#include "engine/flush.h"
#include "engine/rq.h"
#include "engine/sq.h"
#include "stage/stage.h"

/* The engine moves a QP to ERR (IBA 10.3.1): the register file shows it,
 * the queues are flushed. */
void qp_error(struct roce_engine *e, struct eng_qp *qp)
{
	roce_qp_table_set_state(e->qpt, qp->qpn, ROCE_QPS_ERR);
	atomic_store_explicit(&qp->host_state, ROCE_QPS_ERR, memory_order_relaxed);
	qp->cfg.state = ROCE_QPS_ERR;
	qp->resp.goto_err = false;
	event_async(e, ROCE_EVENT_QP_FATAL, qp);
	sq_complete(e, qp);
	qp_flush(e, qp);
	qp->flushed = true;
}

void qp_flush(struct roce_engine *e, struct eng_qp *qp)
{
	/* a message cut short leaves no kept unit to complete later */
	stage_stream_drop(qp->stage_in[0]);
	stage_stream_drop(qp->stage_in[1]);
	sq_flush(e, qp);
	rq_flush(e, qp);
	qp->comp.timer = 0;
	qp->comp.probe_at = 0;
}
