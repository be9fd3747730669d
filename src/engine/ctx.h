/* SPDX-License-Identifier: MIT */
/*
 * ctx.c: the context cache, following the register file's commits (the
 * QP and MR tables' change queues).
 */
#ifndef ROCE_ENGINE_CTX_H
#define ROCE_ENGINE_CTX_H

#include "engine/state.h"

void ctx_changes(struct roce_engine *e);
/* An MR entry's stage state made, kept or reset after its commit. */
void ctx_stage_sync(struct roce_engine *e, const struct roce_mr_entry *mr);
void ctx_sync_qp(struct roce_engine *e, struct eng_qp *qp);

#endif
