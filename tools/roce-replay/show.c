/* SPDX-License-Identifier: MIT */
/* A mismatch and the records around it, long lines (frames, DDR) cut. */
#include <stdio.h>
#include <string.h>

#include "roce-replay/replay.h"

#define CUT      160            /* characters of a line shown */
#define AROUND   3              /* records shown before and after */

static void put_line(const char *tag, const char *s)
{
	size_t n = strlen(s);

	printf("  %-8s %.*s%s\n", tag, (int)(n > CUT ? CUT : n), s, n > CUT ? " ..." : "");
}

/* The first byte where two lines differ past their common start: the
 * place to look in a frame of 8 KiB of hex. */
static void first_diff(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	if (i > CUT)
		printf("  (the lines first differ at character %zu: trace '%.12s', got '%.12s')\n",
		       i + 1, a + i, b + i);
}

void show_mismatch(const struct trace_file *t, int i, const char *got, const char *why)
{
	int lo = i < 0 ? (int)t->n - AROUND : i - AROUND;
	int hi = i < 0 ? (int)t->n - 1 : i + AROUND;

	if (i >= 0)
		printf("roce-replay: mismatch at %s:%u: %s\n", t->path, t->rec[i].line, why);
	else
		printf("roce-replay: mismatch after the end of %s: %s\n", t->path, why);
	put_line("trace:", i >= 0 ? t->rec[i].text : "(nothing)");
	put_line("got:", got ? got : "(nothing)");
	if (i >= 0 && got)
		first_diff(t->rec[i].text, got);
	printf("records around it in %s:\n", t->path);
	for (int k = lo < 0 ? 0 : lo; k <= hi && k < (int)t->n; k++) {
		char tag[24];

		snprintf(tag, sizeof(tag), "%s%u:", k == i ? ">" : " ", t->rec[k].line);
		put_line(tag, t->rec[k].text);
	}
}
