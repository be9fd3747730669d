/* SPDX-License-Identifier: MIT */
/*
 * The scale section: does the engines' work per message depend on how
 * many QPs exist or carry traffic? Two engines on the in-memory link,
 * both polled by the benchmark's thread on one core (as the one-core
 * rows of the goodput matrix), 64-byte WRITEs:
 *
 *   idle  QP 0 busy (128 in flight, perftest's depth) beside 0, 1023 and
 *         all but one of the device's QPs connected and idle;
 *   busy  1, 64, 1024 and all of the device's QPs busy at once, each with
 *         its own region of the source and destination buffers, posted
 *         round robin and refilled as their completions come back;
 *   setup the time to create and connect the largest pair through the
 *         verbs API, hence through the register files.
 *
 * The figures of a group are measured side by side: each repeat runs
 * every configuration of the group in turn, and a ratio's figure is the
 * median of its per-repeat ratios (bench_measure_pair's method).
 */
#ifndef BENCH_SCALE_H
#define BENCH_SCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/pair.h"
#include "lib/util.h"

/* The largest QP count: every QP a device holds (QPNs below
 * ROCE_FIRST_QPN are reserved). */
#define SCALE_MAX_QPS   PAIR_MAX_QPS
/* Send queue depth of every QP but QP 0 (QP 0: SCALE_DEPTH_ONE). The
 * memory of a QP grows with it, and so does the time to create one. */
#define SCALE_SQ_DEPTH  16u
/* In flight per QP: one busy QP, perftest's 128 (signaled every 16, as
 * the goodput matrix); many, 8 each (signaled every 4). */
#define SCALE_DEPTH_ONE  128u
#define SCALE_SIG_ONE    16u
#define SCALE_DEPTH_MANY 8u
#define SCALE_SIG_MANY   4u

/* Row names ("scale" rows; "ratio" rows for the same-run ratios, of each
 * QP count to the first of its group) */
#define SCALE_ROW_IDLE   "QP 0 busy beside idle QPs"
#define SCALE_ROW_BUSY   "all QPs busy (round robin)"
#define SCALE_ROW_SETUP  "create+connect QP pairs"
#define SCALE_RATIO_IDLE "QP 0 beside idle / alone"
#define SCALE_RATIO_BUSY "all busy / 1 QP busy"

/* Two engines with nqp connected QP pairs; A's source window at buf, B's
 * destination window at buf + win (each side has both). */
struct scale_pair {
	struct pair p;
	uint32_t win;
};

/* Open sp (its address fixed until scale_pair_close) for up to nqp busy
 * QPs of SCALE_DEPTH_MANY or QP 0 alone at SCALE_DEPTH_ONE; dies on error. */
void scale_pair_open(struct scale_pair *sp, unsigned nqp);
void scale_pair_close(struct scale_pair *sp);

/* One configuration: QPs 0 .. nbusy - 1 of sp carry 64-byte WRITEs. */
struct scale_load {
	struct scale_pair *sp;
	unsigned nbusy;
	unsigned depth, sig;            /* in flight per QP, signal every */
	uint32_t region;                /* bytes of each window per QP */
	uint64_t seed;
	/* the last run: messages per second of the CPU time the process got
	 * (one thread runs both engines and the application: what it does
	 * with a core to itself, whatever else the machine runs) */
	double cpu_rate;
	/* summed over the runs (for the rows' notes) */
	uint64_t posted, a_tx, b_tx, retx;
};

/* One measured run of about secs (plus warm-up and drain) as a bench_fn:
 * completed messages per second over the window. Every destination slot
 * is checked against its source afterwards; an error completion or a
 * wrong byte ends the benchmark. */
double scale_traffic(void *arg, double secs);

/* The section: adds "scale" rows (the rates, the setup time) and "ratio"
 * rows (the same-run ratios the targets use). max_qps: the largest QP
 * count (2 .. SCALE_MAX_QPS). busy_only: only max_qps QPs all busy (one
 * row; a profile's run). */
void scale_run(const struct bench_cfg *cfg, unsigned max_qps, bool busy_only);

#endif
