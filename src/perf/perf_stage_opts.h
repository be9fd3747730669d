/* SPDX-License-Identifier: MIT */
/*
 * The inline-stage options of the tools with one buffer MR (roce-perf,
 * the pingpongs): --stage, --key-file, --data-unit, --dun-base,
 * --save-ddr. One table, one parser and one help text for all of them;
 * the words go through roce/stage_config.h, so every tool takes the same
 * words and refuses the same things in the same terms.
 */
#ifndef ROCE_PERF_STAGE_OPTS_H
#define ROCE_PERF_STAGE_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "perf/perf_ep.h"

/* getopt_long values, apart from every tool's own (below 340) */
enum { PERF_STAGE_OPT_STAGE = 340, PERF_STAGE_OPT_KEY_FILE, PERF_STAGE_OPT_DATA_UNIT,
       PERF_STAGE_OPT_DUN_BASE, PERF_STAGE_OPT_SAVE_DDR };

/* Their entries of a struct option table. */
#define PERF_STAGE_LONGOPTS                                                    \
	{ "stage", 1, NULL, PERF_STAGE_OPT_STAGE },                            \
	{ "key-file", 1, NULL, PERF_STAGE_OPT_KEY_FILE },                      \
	{ "data-unit", 1, NULL, PERF_STAGE_OPT_DATA_UNIT },                    \
	{ "dun-base", 1, NULL, PERF_STAGE_OPT_DUN_BASE },                      \
	{ "save-ddr", 1, NULL, PERF_STAGE_OPT_SAVE_DDR }

/* No chain, unit 4096, DUN base 0, no file. */
void perf_stage_opts_init(struct perf_ep_stage *s);
/* Option c with its value a into s: ROCE_OK; ROCE_E_INVAL with *what (the
 * option, "--stage") and why (one line, what is wrong with a);
 * ROCE_E_NOENT when c is not one of these. */
int perf_stage_opt(int c, const char *a, struct perf_ep_stage *s, const char **what,
		   char *why, size_t len);
/* The options together, after the command line: ROCE_E_INVAL with why
 * for a key file or a DUN base without a chain. */
int perf_stage_opts_check(const struct perf_ep_stage *s, char *why, size_t len);
/* Their help: a heading (what they bind: "our buffer's MR in either
 * role"), the lines with the descriptions from column col. */
void perf_stage_usage(FILE *f, const char *what, int col);

#endif
