/* SPDX-License-Identifier: MIT */
/*
 * sq.c: the send queue's tail: WQEs done complete in order; flushed in ERR.
 */
#ifndef ROCE_ENGINE_SQ_H
#define ROCE_ENGINE_SQ_H

#include "engine/state.h"

/* READ and atomic WQEs: the ones the responder's resources bound */
static inline bool swqe_rd_atomic(const struct swqe *w)
{
	return w->opcode == ROCE_WR_RDMA_READ ||
	       w->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ||
	       w->opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/* Pop finished WQEs in order and raise their completions. */
void sq_complete(struct roce_engine *e, struct eng_qp *qp);
void sq_flush(struct roce_engine *e, struct eng_qp *qp);

#endif
