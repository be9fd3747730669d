/* SPDX-License-Identifier: MIT */
/*
 * recv.c: the receive checks (SPEC order), then the frame to the stage
 * its opcode and QP name: responder, completer, UC or UD.
 */
#ifndef ROCE_ENGINE_RECV_H
#define ROCE_ENGINE_RECV_H

#include "engine/state.h"

void recv_frame(struct roce_engine *e, const uint8_t *frame, uint32_t len);
void recv_prefetch(struct roce_engine *e, const uint8_t *frame, uint32_t len);

#endif
