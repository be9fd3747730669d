/* SPDX-License-Identifier: MIT */
/*
 * sched.c: the transmit arbiter, doorbells, timers, the sleep decision.
 * Every event that may give a QP something to send (a doorbell, a frame
 * for it, a context change, a timer) kicks it into the arbiter's queue;
 * the arbiter serves the queue round robin and drops a QP once a turn
 * leaves it with nothing it can send. After every event a QP is settled:
 * its timer follows its earliest deadline.
 */
#ifndef ROCE_ENGINE_SCHED_H
#define ROCE_ENGINE_SCHED_H

#include "engine/state.h"

static inline void sched_kick(struct roce_engine *e, struct eng_qp *qp)
{
	if (qp->in_run)
		return;
	qp->in_run = true;
	qp->run_next = NULL;
	qp->run_prev = e->run_tail;
	if (e->run_tail)
		e->run_tail->run_next = qp;
	else
		e->run_head = qp;
	e->run_tail = qp;
	e->n_run++;
}
void sched_remove(struct roce_engine *e, struct eng_qp *qp);
void sched_settle(struct roce_engine *e, struct eng_qp *qp);
void sched_doorbells(struct roce_engine *e);
void sched_timers(struct roce_engine *e);
void sched_arbiter(struct roce_engine *e);
bool sched_idle(struct roce_engine *e);

#endif
