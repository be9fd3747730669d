/* SPDX-License-Identifier: MIT */
/*
 * rq.c: receive WQEs: taken from the RQ or the SRQ for a message,
 * completed, flushed in ERR.
 */
#ifndef ROCE_ENGINE_RQ_H
#define ROCE_ENGINE_RQ_H

#include "engine/state.h"

/* The receive WQE the message in progress lands in: the RQ's head, or
 * the one the QP took from its SRQ; NULL when none is posted. */
struct rwqe *rwqe_take(struct roce_engine *e, struct eng_qp *qp);
void rwqe_release(struct eng_qp *qp);
/* Complete that receive WQE. */
void recv_complete(struct roce_engine *e, struct eng_qp *qp, enum roce_wc_status status,
		   enum roce_wc_opcode op, uint32_t len, const struct roce_pkt *p);
void rq_flush(struct roce_engine *e, struct eng_qp *qp);

#endif
