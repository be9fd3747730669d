/* SPDX-License-Identifier: MIT */
/*
 * comp.c: the completer: responses back to the requester, the
 * retransmission and RNR timers.
 */
#ifndef ROCE_ENGINE_COMP_H
#define ROCE_ENGINE_COMP_H

#include "engine/state.h"

void comp_response(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
void comp_timers(struct roce_engine *e, struct eng_qp *qp);
void comp_reset(struct eng_qp *qp);

#endif
