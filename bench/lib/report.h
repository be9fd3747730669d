/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's results: one row per measured figure (a median over
 * repeats, with its spread and the machine's load while it ran), the
 * targets of the performance issue compared with them, and the outputs:
 * human tables, JSON, CSV and a Markdown table for the README.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/util.h"

#define BENCH_MAX_ROWS    512
#define BENCH_MAX_TARGETS 32

struct bench_row {
	char section[12];       /* limits, engine, latency, scale, veth, ratio */
	char name[32];          /* memcpy, icrc, bound, goodput, rtt, ... */
	char op[8];             /* WRITE, READ, SEND, or empty */
	char cond[20];          /* hot, cold, p50, p99, raw frame kind,
				 * a stage chain */
	uint32_t size;          /* message or buffer or frame bytes */
	uint32_t mtu;           /* path MTU, 0 = not applicable */
	uint32_t qps;
	uint32_t cores;
	char unit[12];          /* Gbit/s, GB/s, Mmsg/s, Mframes/s, us, ns */
	struct bench_stat st;
	double rate;            /* engine: messages/s (median repeat);
				 * veth raw: frames/s */
	/* engine: the figure over the CPU time the process got (times
	 * cores) instead of wall time; reps = 0 when not applicable */
	struct bench_stat norm;
	double rate_norm;
	uint64_t retx;          /* retransmissions during the row */
	uint64_t msgs;          /* engine: messages posted, all repeats */
	struct bench_load load;
	char note[96];
	/* stages: B's MR's data unit (0: not a staged row), the goodput's
	 * ratio to no stage's and to its bound (medians of the repeats, side
	 * by side), the bound (Gbit/s, of the best figures), the bytes the
	 * dedup volume did not store */
	struct {
		uint32_t dunit;
		double vs_none, bound, vs_bound;
		uint64_t saved;
	} stage;
};

struct bench_target {
	char what[64];
	char want_text[32];     /* ">= 100 Gbit/s", ">= 0.9 x bound" */
	double got, want;       /* got/want >= 1 is met (or <= for upper bounds) */
	bool upper;             /* want is a ceiling (latency) */
	bool measured;
	bool info;              /* reported, not a target */
	char got_text[48];
	char note[160];         /* why not measured / what it is compared to */
};

/* A new zeroed row with section and name set (dies when full). */
struct bench_row *bench_row_add(const char *section, const char *name);
/* Every row / target so far, in order; returns the count. */
unsigned bench_rows(const struct bench_row **out);
unsigned bench_targets(const struct bench_target **out);
/* The row with these fields, or NULL; op/cond NULL = any, numbers 0 = any. */
const struct bench_row *bench_row_find(const char *section, const char *name,
				       const char *op, const char *cond,
				       uint32_t size, uint32_t mtu, uint32_t qps,
				       uint32_t cores);

struct bench_target *bench_target_add(const char *what);
bool bench_target_met(const struct bench_target *t);

/* Machine and run description for the outputs. */
struct bench_run_info {
	char cpu[96];
	int ncpus;
	char flags[160];        /* the flags that matter: avx2, avx512f, ... */
	char kernel[160];
	char compiler[64];
	char crc_impl[16];
	char started[32];       /* UTC, ISO 8601 */
	bool quick;
	bool rt;                /* SCHED_FIFO */
	char source[64];        /* what was measured (git describe) */
	unsigned reps, reps_key;
	double secs, secs_key;
	struct bench_load load; /* over the whole run */
	double elapsed_s;
};
void bench_run_info_fill(struct bench_run_info *ri);

/* Human tables on out. */
void bench_print_limits(FILE *out);
void bench_print_engine(FILE *out);
void bench_print_latency(FILE *out);
void bench_print_scale(FILE *out);
void bench_print_veth(FILE *out);
void bench_print_loss(FILE *out);
void bench_print_stages(FILE *out);
void bench_print_ratios(FILE *out);
void bench_print_targets(FILE *out);
void bench_print_machine(FILE *out, const struct bench_run_info *ri);

/* Machine-readable files; false when a file cannot be written. */
bool bench_write_json(const char *path, const struct bench_run_info *ri);
bool bench_write_csv(const char *path);
/* The README's table: targets and headline figures, Markdown. */
bool bench_write_markdown(const char *path, const struct bench_run_info *ri);

#endif
