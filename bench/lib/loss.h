/* SPDX-License-Identifier: MIT */
/*
 * The loss curve (issue 16's loss target, docs/cc.md): 64 KB WRITE goodput
 * over the in-memory link with random loss, on a virtual clock, for go-back-N
 * as IBA has it and for the default congestion-control config's loss
 * recovery (the 64 KB window, adaptive retransmission with its 100 us
 * floor and tail-loss probes), each point also as a ratio to 0.01 % loss.
 */
#ifndef BENCH_LOSS_H
#define BENCH_LOSS_H

#include "lib/util.h"

/* Rows of section "loss", names LOSS_ROW_GOODPUT and LOSS_ROW_RATIO: op WRITE, size 65536, cond "iba" (go-back-N as IBA
   says) or "cc" (the default config's recovery), the loss point in ppm
   in the qps field. */
void loss_run(const struct bench_cfg *cfg);

#define LOSS_ROW_GOODPUT "loss goodput"
#define LOSS_ROW_RATIO   "loss / 0.01 %"

#endif
