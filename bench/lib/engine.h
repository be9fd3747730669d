/* SPDX-License-Identifier: MIT */
/*
 * The engines over the in-memory link: the goodput matrix (operations x
 * message sizes x path MTUs x QP counts x cores) and the 8-byte WRITE
 * round trip.
 *
 * Cores: with 1, one thread (pinned) posts, drives both engines with
 * roce_engine_poll() and reaps completions. With 2, the responder B runs
 * on its own engine thread (roce_engine_start) pinned to the second CPU,
 * and the application thread, pinned to the first, posts, drives the
 * requester A and reaps: one engine per core, the application sharing its
 * engine's core as it would share a NIC's queue.
 */
#ifndef BENCH_ENGINE_H
#define BENCH_ENGINE_H

#include <stdint.h>

#include "lib/util.h"
#include "roce/verbs.h"

struct engine_plan {
	const enum roce_wr_opcode *ops;
	unsigned n_ops;
	const uint32_t *sizes;
	unsigned n_sizes;
	const unsigned *mtus;           /* bytes: 1024, 4096 */
	unsigned n_mtus;
	const unsigned *qps;
	unsigned n_qps;
	const unsigned *cores;          /* 1, 2 */
	unsigned n_cores;
};

/* Adds "engine" "goodput" rows. */
void engine_matrix(const struct bench_cfg *cfg, const struct engine_plan *plan);
/* Adds "latency" rows: p50 and p99 on 1 core and on 2 cores (only_cores
 * 1 or 2: that one alone). */
void engine_latency(const struct bench_cfg *cfg, unsigned only_cores);

/* Adds "ratio" rows measured side by side, repeat by repeat, on one QP at
 * path MTU 4096: WRITE 64 KB / ICRC+copy bound, READ 64 KB / WRITE 64 KB,
 * on 1 and 2 cores. */
void engine_ratios(const struct bench_cfg *cfg);

/* A figure a target is checked against: more repeats, longer runs. */
bool engine_is_key(enum roce_wr_opcode op, uint32_t size, unsigned mtu,
		   unsigned qps);

#endif
