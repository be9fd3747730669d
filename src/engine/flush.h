/* SPDX-License-Identifier: MIT */
/*
 * flush.c: a QP in ERR: the engine's move to it, and its queues flushed.
 */
#ifndef ROCE_ENGINE_FLUSH_H
#define ROCE_ENGINE_FLUSH_H

#include "engine/state.h"

/* The engine moves qp to ERR (IBA 10.3.1) on a fatal error. */
void qp_error(struct roce_engine *e, struct eng_qp *qp);
/* Every WQE of qp not yet completed completes flushed (IBA 10.3.1). */
void qp_flush(struct roce_engine *e, struct eng_qp *qp);

#endif
