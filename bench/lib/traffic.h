/* SPDX-License-Identifier: MIT */
/*
 * perftest-style traffic between the two engines of a pair: A posts
 * WRITEs, READs or SENDs of one size on every QP, keeps a fixed number in
 * flight per QP, signals one in every BENCH_SIGNAL_EVERY (as perftest's
 * completion moderation), and counts completed messages over a measured
 * window after a warm-up. Messages rotate through BENCH_WINDOW of source
 * and destination; after the run every destination slot is compared with
 * its source, and any error completion or wrong byte kills the benchmark.
 */
#ifndef BENCH_TRAFFIC_H
#define BENCH_TRAFFIC_H

#include <stdint.h>

#include "lib/pair.h"
#include "roce/verbs.h"

struct traffic_result {
	double gbps;            /* payload goodput, Gbit/s */
	double msgs_per_s;
	/* the same over the CPU time the process got instead of wall time,
	 * times cores: what it would reach with its cores to itself (this
	 * machine is shared; a starved run shows here as a higher figure) */
	double gbps_norm, msgs_per_s_norm;
	uint64_t msgs;          /* completed in the measured window */
	uint64_t retx;          /* retransmissions during the run */
	struct pair_counts moved; /* during the run, drain included */
	uint64_t posted;        /* messages, drain included */
};

/*
 * Messages in flight per QP: perftest's 128, fewer above 64 KB (down to
 * 16 for 1 MiB) so a run drains quickly. More frames than a receive ring
 * holds may be in flight: the in-memory link is lossless (pair.c), as a
 * RoCE fabric is; over raw Ethernet the kernel's rings absorb them or
 * drop, and go-back-N recovers.
 */
unsigned traffic_depth(uint32_t size);

/* One measured run of about secs (plus warm-up and drain). seed makes
 * this run's bytes differ from the last one's. */
void traffic_bw(struct pair *p, enum roce_wr_opcode op, uint32_t size,
		double secs, uint64_t seed, struct traffic_result *res);

/*
 * A run into (WRITE) or out of (READ) a responder MR bound to a stage
 * chain (stages.c): B's memory holds what is stored, not what the wire
 * carries, so it is never written or compared directly. A READ's source
 * is first written there through the engine, a WRITE's destination is
 * read back through it after the run, and both are compared with A's
 * source. The source window is A's to shape: init makes it (instead of
 * bench_fill), stamp changes a message's bytes just before it is posted
 * (a WRITE's: new bytes every message, as a dedup stage should see
 * them). Messages rotate through all of BENCH_BUF_WIN, at least depth of
 * them, so no message's source changes while it is in flight.
 */
struct traffic_staged {
	unsigned depth;                 /* messages in flight per QP */
	void (*init)(void *arg, uint8_t *win, uint32_t len, uint32_t size);
	void (*stamp)(void *arg, uint8_t *msg, uint32_t size, uint64_t seq);
	void *arg;
};
void traffic_bw_staged(struct pair *p, enum roce_wr_opcode op, uint32_t size,
		       double secs, uint64_t seed, const struct traffic_staged *st,
		       struct traffic_result *res);

struct bench_row;
/* reps runs of traffic_bw into row (op, size, unit, figures, load, and a
 * note with frames per message and what went wrong). */
void traffic_row(struct pair *p, enum roce_wr_opcode op, uint32_t size,
		 unsigned reps, double secs, uint64_t seed, struct bench_row *row);

/*
 * One traffic_bw run as a bench_fn (for bench_measure_pair): b_cpu >= 0
 * runs B on its own engine thread there for the run only (so a measurement
 * side by side has the core to itself); returns Gbit/s, or messages/s with
 * rate set.
 */
struct traffic_fn {
	struct pair *p;
	enum roce_wr_opcode op;
	uint32_t size;
	uint64_t seed;
	int b_cpu;
	bool rate;
};
double traffic_fn(void *arg, double secs);

/* The cores a pair's run occupies: 1, or 2 with B on its own thread. */
static inline unsigned traffic_cores(const struct pair *p)
{
	return p->b.thread ? 2 : 1;
}

/* Round trips of a signaled 8-byte WRITE on QP 0: post, drive the
 * engines, spin on the CQ. Up to max samples within about secs after a
 * warm-up; returns how many (ns each, unsorted). */
size_t traffic_lat(struct pair *p, double secs, uint64_t *samples, size_t max);

const char *traffic_op_name(enum roce_wr_opcode op);

#endif
