/* SPDX-License-Identifier: MIT */
/*
 * roce-replay's shared parts:
 *   load.c     a trace file into records, line numbers kept
 *   replay.c   a trace's inputs into fresh models, their outputs checked
 *   compare.c  the outputs of two traces, stream by stream
 *   show.c     a mismatch and the records around it
 */
#ifndef ROCE_REPLAY_H
#define ROCE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/trace.h"

struct rec {
	struct trace_rec r;     /* r.bytes: owned */
	unsigned line;          /* 1-based, in its file */
	char *text;             /* the line as read */
};

struct trace_file {
	const char *path;
	struct rec *rec;
	unsigned n;
};

/* 0, or 2 after printing the file's name, line number and reason. */
int trace_load(const char *path, struct trace_file *t);
void trace_free(struct trace_file *t);

/* 0 on a match, 1 on a mismatch (printed), 2 on a trace it cannot replay. */
int replay_run(const struct trace_file *t);

struct compare_opts {
	bool use_time;
	uint64_t tolerance_ns;
	bool skip[TR_KINDS];
};
int compare_run(const struct trace_file *a, const struct trace_file *b,
		const struct compare_opts *o);

/* The mismatch: what the trace holds at record i of t (NULL: nothing
 * left), what came instead (a formatted line or NULL), why; then the
 * records of t around it. */
void show_mismatch(const struct trace_file *t, int i, const char *got,
		   const char *why);

#endif
