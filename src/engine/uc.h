/* SPDX-License-Identifier: MIT */
/*
 * uc.c: the UC transport (IBA 9.8), where it differs from RC: the
 * responder of a UC QP, and the requester's opcodes and completions.
 */
#ifndef ROCE_ENGINE_UC_H
#define ROCE_ENGINE_UC_H

#include "engine/state.h"

void uc_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
void uc_sent(struct eng_qp *qp, struct swqe *w);

#endif
