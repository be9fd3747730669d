/* SPDX-License-Identifier: MIT */
/* A trace file into memory: every record parsed, its line kept for the
 * messages. A line that is not a record (docs/trace.md) stops the load. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce-replay/replay.h"

static int add(struct trace_file *t, const struct trace_rec *r, const char *line,
	       unsigned lineno)
{
	struct rec *e;

	if ((t->n & (t->n - 1)) == 0 || t->n == 0) {
		struct rec *p = realloc(t->rec, (t->n ? 2 * t->n : 64) * sizeof(*p));

		if (!p)
			return -1;
		t->rec = p;
	}
	e = &t->rec[t->n];
	e->r = *r;
	e->line = lineno;
	e->text = strdup(line);
	e->r.bytes = NULL;
	if (!e->text)
		return -1;
	if (r->bytes && r->len) {
		uint8_t *b = malloc(r->len);

		if (!b) {
			free(e->text);
			return -1;
		}
		memcpy(b, r->bytes, r->len);
		e->r.bytes = b;
	}
	t->n++;
	return 0;
}

int trace_load(const char *path, struct trace_file *t)
{
	static uint8_t bytes[4224];
	FILE *f = fopen(path, "r");
	char *line = NULL, err[160];
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->path = path;
	if (!f) {
		fprintf(stderr, "roce-replay: %s: %s\n", path, strerror(errno));
		return 2;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct trace_rec r;
		int st;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		st = trace_parse(line, &r, bytes, err, sizeof(err));
		if (st == 1)
			continue;
		if (st < 0) {
			fprintf(stderr, "roce-replay: %s:%u: %s\n", path, lineno, err);
			rc = 2;
			break;
		}
		if (add(t, &r, line, lineno)) {
			fprintf(stderr, "roce-replay: out of memory\n");
			rc = 2;
			break;
		}
	}
	free(line);
	fclose(f);
	if (rc)
		trace_free(t);
	return rc;
}

void trace_free(struct trace_file *t)
{
	for (unsigned i = 0; i < t->n; i++) {
		free((void *)t->rec[i].r.bytes);
		free(t->rec[i].text);
	}
	free(t->rec);
	t->rec = NULL;
	t->n = 0;
}
