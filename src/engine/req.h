/* SPDX-License-Identifier: MIT */
/*
 * req.c: the requester (seed 001 request state machine).
 */
#ifndef ROCE_ENGINE_REQ_H
#define ROCE_ENGINE_REQ_H

#include "engine/state.h"

void req_tx(struct roce_engine *e, struct eng_qp *qp);
void req_reset(struct eng_qp *qp);
void req_go_back(struct roce_engine *e, struct eng_qp *qp, uint32_t psn);
/* req.c: go back to the last PSN sent, if a SEND or WRITE carries it,
   the packet it sends next with AckReq; with from_una, to una (all that
   is outstanding). True if it went back. */
bool req_probe(struct roce_engine *e, struct eng_qp *qp, bool from_una);

#endif
