/* SPDX-License-Identifier: MIT */
/*
 * The steps of a run: setup, the seed's flow (a)..(e), the measurements and
 * the counters. Each records its outcome and a one-line story, which both
 * reports print.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "roce-demo/demo.h"

#define STEP(k, l, t) { .key = k, .label = l, .title = t }
static const struct step step_init[ST_COUNT] = {
	[ST_SETUP] = STEP("setup", NULL, "setup through the register files"),
	[ST_ADVERTISE] = STEP("advertise", "a", "SEND advertisement A -> B"),
	[ST_WRITE] = STEP("write", "b", "WRITE B -> A"),
	[ST_READ] = STEP("read_compare", "c", "READ A -> B and compare"),
	[ST_FETCH_ADD] = STEP("fetch_and_add", "d", "FETCH_AND_ADD on A's counter"),
	[ST_CMP_SWAP] = STEP("cmp_and_swap", "e", "CMP_AND_SWAP on A's counter"),
	[ST_BANDWIDTH] = STEP("bandwidth", NULL, "bandwidth table"),
	[ST_LATENCY] = STEP("latency", NULL, "WRITE latency"),
	[ST_COUNTERS] = STEP("counters", NULL, "counters through the register files"),
};

void demo_steps_init(struct demo *d)
{
	memcpy(d->step, step_init, sizeof(step_init));
}

bool demo_step_set(struct step *s, enum step_state st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
	s->st = st;
	return st == STEP_PASS;
}

int demo_first_failed(const struct demo *d)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (d->step[i].st == STEP_FAIL)
			return i;
	return -1;
}
