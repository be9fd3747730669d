/* SPDX-License-Identifier: MIT */
/*
 * resp.c: the responder of an RC QP: requests in PSN order, replies
 * queued in PSN order and sent by resp_tx.
 */
#ifndef ROCE_ENGINE_RESP_H
#define ROCE_ENGINE_RESP_H

#include "engine/state.h"

void resp_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
void resp_tx(struct roce_engine *e, struct eng_qp *qp);
void resp_reset(struct eng_qp *qp);
/* The responder's resources for max_dest_rd_atomic READs/atomics:
 * ROCE_OK, ROCE_E_BUSY (replies queued: kept as they are), ROCE_E_NOMEM */
int resp_size(struct eng_qp *qp, uint32_t max_dest_rd_atomic);
void resp_free(struct eng_qp *qp);

#endif
