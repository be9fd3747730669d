/* SPDX-License-Identifier: MIT */
/*
 * req.c: the requester (seed 001 request state machine).
 */
#ifndef ROCE_ENGINE_REQ_H
#define ROCE_ENGINE_REQ_H

#include "engine/state.h"

void req_tx(struct roce_engine *e, struct eng_qp *qp);
void req_reset(struct eng_qp *qp);
/* The requester's go-back entries, the completer's to call (recovery):
 * resume at psn; or go back to the last PSN sent, if a SEND or WRITE
 * carries it, the packet it sends next with AckReq (true if it did). */
void req_go_back(struct roce_engine *e, struct eng_qp *qp, uint32_t psn);
bool req_resend_last(struct roce_engine *e, struct eng_qp *qp);

#endif
