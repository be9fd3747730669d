/* SPDX-License-Identifier: MIT */
/*
 * ctx.c: the context cache, following the register file's commits (the
 * QP and MR tables' change queues).
 */
#ifndef ROCE_ENGINE_CTX_H
#define ROCE_ENGINE_CTX_H

#include "engine/state.h"

void ctx_changes(struct roce_engine *e);
void ctx_sync_qp(struct roce_engine *e, struct eng_qp *qp);

#endif
