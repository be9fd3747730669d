/* SPDX-License-Identifier: MIT */
/*
 * The inline stages' benchmark (docs/stages.md, docs/performance.md
 * "Inline stages"): the limit of a software stage is its primitive, so
 * both are measured in the same run on the same sizes.
 *   stage_prims.c  the primitives alone, on the responder's core:
 *                  AES-256-XTS (OpenSSL EVP) encrypt and decrypt in
 *                  512- and 4096-byte units, ISA-L's crc16_t10dif over
 *                  512- and 4096-byte blocks, SHA-256 (OpenSSL EVP) over
 *                  4 KiB blocks, each over a 64 KB buffer;
 *   stages.c       WRITE and READ of 64 KB into and out of B's MR bound
 *                  to no stage, XTS, PI, DEDUP (0 and 50 % duplicate
 *                  blocks) and the three together, one engine thread a
 *                  side, path MTU 4096 and 1024 x data unit 4096 and 512;
 *                  each row's ratio to no stage, its bound
 *                  1 / (1/no_stage + 1/primitive) and its ratio to that.
 */
#ifndef BENCH_STAGES_H
#define BENCH_STAGES_H

#include "lib/util.h"

/* The primitives a stage's bound is made of. */
enum stage_prim {
	PRIM_XTS_ENC_4096, PRIM_XTS_DEC_4096, PRIM_XTS_ENC_512, PRIM_XTS_DEC_512,
	PRIM_CRC16_4096, PRIM_CRC16_512, PRIM_SHA256_4096,
	PRIM_COUNT
};

/* The target of a staged row: goodput >= this x its bound. */
#define STAGE_BOUND_TARGET 0.8

/* The primitives' buffers, contexts and algorithms, fetched once. */
struct stage_prims;
struct stage_prims *stage_prims_new(void);
void stage_prims_free(struct stage_prims *sp);
/* Adds a "stages" row per primitive (GB/s, best of the repeats, measured
 * on cpu) and returns the figures in gbs[]. */
void stage_prims_run(const struct bench_cfg *cfg, struct stage_prims *sp, int cpu,
		     double gbs[PRIM_COUNT]);
/* One measurement of p for about secs on the calling thread: GB/s. */
double stage_prim_measure(struct stage_prims *sp, enum stage_prim p, double secs);
const char *stage_prim_name(enum stage_prim p);

/* Which rows (a profile of one): op -1, mtu 0, chain NULL, unit 0 =
 * all; no stage always runs beside the others. */
struct stages_plan {
	int op;                         /* enum roce_wr_opcode */
	unsigned mtu;
	const char *chain;              /* a row's name of it: "xts", "dedup 50%" */
	unsigned unit;
};

/* The primitives, then the goodput rows (quick: path MTU 4096 and unit
 * 4096 only). */
void stages_run(const struct bench_cfg *cfg, const struct stages_plan *plan);

#endif
