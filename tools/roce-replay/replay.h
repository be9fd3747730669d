/* SPDX-License-Identifier: MIT */
/*
 * roce-replay's shared parts:
 *   load.c     a trace file into records, line numbers kept
 *   replay.c   a trace's inputs into fresh models, their outputs checked
 *   compare.c  the outputs of two traces, stream by stream
 *   show.c     a mismatch and the records around it
 *   keys.c     --key-file: the keys a staged trace's key records name
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

/* The XTS keys of a replay (--key-file): a file of 64 bytes is every
 * slot's key, one of 64 x N bytes slots 0..N-1's. */
struct replay_keys {
	uint8_t *key;           /* n x ROCE_STAGE_KEY_LEN bytes, or NULL */
	unsigned n;
	bool every_slot;        /* one key for every slot */
};
/* 0, or 2 after one line saying what is wrong with the file. */
int replay_keys_load(const char *path, struct replay_keys *k);
void replay_keys_free(struct replay_keys *k);

/* 0 on a match, 1 on a mismatch (printed), 2 on a trace it cannot replay
 * (a key it has no key for among them). */
int replay_run(const struct trace_file *t, const struct replay_keys *keys);

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
