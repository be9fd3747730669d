/* SPDX-License-Identifier: MIT */
/*
 * What this machine allows, measured in the same run as the engine so the
 * ratios mean something on a shared, noisy machine:
 *   limits.c  memcpy and CRC-32 (the ICRC's engine) at 4 KB and 64 KB, hot
 *             (in L1/L2) and cold (a working set far beyond the L3); a
 *             system call; a cache line's round trip between two cores.
 *   bound.c   the ICRC+copy bound of a WRITE: every pass the engine makes
 *             over a payload byte (copy+CRC, CRC, copy), without the protocol,
 *             on one core and pipelined over two.
 */
#ifndef BENCH_LIMITS_H
#define BENCH_LIMITS_H

#include <stdint.h>

#include "lib/util.h"

void limits_run(const struct bench_cfg *cfg);
void bound_run(const struct bench_cfg *cfg, const unsigned *mtus, unsigned n_mtus);

/* The bound as a bench_fn, to be measured side by side with the engine
 * (engine.c): 64 KB WRITE payload at path MTU mtu; the two-core form
 * runs the receive passes on cpu_rx. Returns Gbit/s. */
struct bound;
struct bound *bound_new(uint32_t mtu, int cpu_rx);
void bound_free(struct bound *b);
double bound_one_core(void *b, double secs);
double bound_two_cores(void *b, double secs);

/* The passes bound.c makes over a payload byte (docs): a copy with the
 * CRC in the same pass (gather into the ring), a CRC (the check) and a
 * copy (the scatter). */
#define BOUND_FUSED     1
#define BOUND_CRCS      1
#define BOUND_COPIES    1

#endif
