/* SPDX-License-Identifier: MIT */
/*
 * The timing wheel of the engine's timer block (src/engine/timer.c),
 * against a plain list of deadlines: every timer fires exactly once, at
 * the first advance whose time is at or past its deadline (never before,
 * never at a later advance), whatever the spread of deadlines (a tick to
 * hours, beyond the wheel's span) and the steps of the clock (a
 * nanosecond to an hour); cancelled timers never fire, also when the
 * cancel comes from another timer's expiry in the same slot; timers armed
 * again from their own expiry fire again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/timer.h"

#define N 2000

struct tmr {
	struct eng_timer t;
	uint64_t deadline;              /* 0: not armed (the model) */
	unsigned fired;
	uint64_t fired_at;
	struct tmr *victim;             /* cancelled when this one fires */
	uint64_t rearm;                 /* armed again this far ahead */
};

struct world {
	struct timer_wheel w;
	struct tmr tm[N];
	uint64_t now;
	uint64_t rng;
};

static uint64_t rnd(struct world *wd)
{
	/* xorshift64*: reproducible */
	wd->rng ^= wd->rng >> 12;
	wd->rng ^= wd->rng << 25;
	wd->rng ^= wd->rng >> 27;
	return wd->rng * 2685821657736338717ull;
}

static void fire(void *ctx, struct eng_timer *t)
{
	struct world *wd = ctx;
	struct tmr *m = (struct tmr *)((char *)t - offsetof(struct tmr, t));

	assert_false(tw_armed(t));
	assert_true(m->deadline != 0);
	/* never early, and at the first advance at or past the deadline:
	 * the previous advance was before it (checked by the caller) */
	assert_true(wd->now >= m->deadline);
	m->fired++;
	m->fired_at = wd->now;
	m->deadline = 0;
	if (m->victim && m->victim->deadline) {
		tw_cancel(&wd->w, &m->victim->t);
		m->victim->deadline = 0;
	}
	if (m->rearm) {
		m->deadline = wd->now + m->rearm;
		m->rearm = 0;
		tw_arm(&wd->w, &m->t, m->deadline, wd->now);
	}
}

static unsigned armed_in_model(const struct world *wd)
{
	unsigned n = 0;

	for (unsigned i = 0; i < N; i++)
		n += wd->tm[i].deadline != 0;
	return n;
}

/* Advance to to; check the model: whatever was due fired, nothing else. */
static void advance(struct world *wd, uint64_t to)
{
	uint64_t due[N];

	for (unsigned i = 0; i < N; i++)
		due[i] = wd->tm[i].deadline && wd->tm[i].deadline <= to ? wd->tm[i].deadline : 0;
	for (unsigned i = 0; i < N; i++)
		wd->tm[i].fired = 0;
	wd->now = to;
	tw_advance(&wd->w, to, fire, wd);
	for (unsigned i = 0; i < N; i++) {
		if (due[i] && !wd->tm[i].victim)
			assert_int_equal(wd->tm[i].fired, 1);
		if (!due[i])
			assert_int_equal(wd->tm[i].fired, 0);
		if (wd->tm[i].deadline)
			assert_true(wd->tm[i].deadline > to);    /* nothing overdue left */
	}
	assert_int_equal(wd->w.armed, armed_in_model(wd));
}

static struct world *world_new(uint64_t seed)
{
	struct world *wd = calloc(1, sizeof(*wd));

	assert_non_null(wd);
	wd->rng = seed;
	wd->now = 1000000000ull;        /* not zero: the wheel starts anywhere */
	return wd;
}

static void arm(struct world *wd, struct tmr *m, uint64_t deadline)
{
	m->deadline = deadline;
	tw_arm(&wd->w, &m->t, deadline, wd->now);
	assert_true(tw_armed(&m->t));
}

/* Deadlines from a nanosecond to 2^34 ns (17 s) and a few beyond the
 * wheel (hours), a clock moving by steps of every size. */
static void test_random_deadlines_and_steps(void **state)
{
	struct world *wd = world_new(0x9E3779B97F4A7C15ull);
	unsigned steps = 0;

	(void)state;
	for (unsigned i = 0; i < N; i++) {
		uint64_t span = i % 50 == 0 ? 3ull * 3600 * 1000000000ull
					    : 1ull << (rnd(wd) % 35);

		arm(wd, &wd->tm[i], wd->now + 1 + rnd(wd) % span);
	}
	while (armed_in_model(wd) && steps < 200000) {
		uint64_t r = rnd(wd), step;

		switch (r % 4) {
		case 0: step = r % 5000; break;                 /* within a tick */
		case 1: step = r % 300000; break;               /* a few ticks */
		case 2: step = r % 50000000; break;             /* ms */
		default: step = r % 60000000000ull; break;      /* up to a minute */
		}
		advance(wd, wd->now + step);
		steps++;
	}
	assert_int_equal(armed_in_model(wd), 0);
	assert_int_equal(wd->w.armed, 0);
	free(wd);
}

/* Exactly at the deadline, not a nanosecond before, on every level. */
static void test_exact_nanosecond(void **state)
{
	static const uint64_t delta[] = {
		1, 4095, 4096, 4097, 262143, 262145, 16777217, 1073741825,
		68719476737ull, 4398046511105ull, 8796093022208ull,
	};
	struct world *wd = world_new(1);

	(void)state;
	for (unsigned i = 0; i < sizeof(delta) / sizeof(delta[0]); i++) {
		uint64_t d = wd->now + delta[i];

		arm(wd, &wd->tm[i], d);
		/* on the way there in big steps, then one short of it */
		while (wd->now + delta[i] / 3 + 1 < d - 1)
			advance(wd, wd->now + delta[i] / 3 + 1);
		advance(wd, d - 1);
		assert_int_equal(wd->tm[i].fired, 0);
		assert_true(tw_armed(&wd->tm[i].t));
		advance(wd, d);
		assert_int_equal(wd->tm[i].fired, 1);
		assert_int_equal(wd->tm[i].fired_at, d);
	}
	free(wd);
}

/* Cancel before expiry, cancel from another timer's expiry in the same
 * slot, arm again from the expiry itself. */
static void test_cancel_and_rearm(void **state)
{
	struct world *wd = world_new(2);
	uint64_t d = wd->now + 100000;

	(void)state;
	arm(wd, &wd->tm[0], d);
	arm(wd, &wd->tm[1], d);         /* same slot as 0 */
	arm(wd, &wd->tm[2], d + 1);     /* same tick */
	arm(wd, &wd->tm[3], d + 50);
	wd->tm[0].victim = &wd->tm[1];
	wd->tm[1].victim = &wd->tm[0];  /* whichever fires first cancels the other */
	wd->tm[2].rearm = 7000;
	tw_cancel(&wd->w, &wd->tm[3].t);
	wd->tm[3].deadline = 0;
	assert_false(tw_armed(&wd->tm[3].t));
	tw_cancel(&wd->w, &wd->tm[3].t);        /* twice: nothing */
	advance(wd, d + 1);
	assert_int_equal(wd->tm[0].fired + wd->tm[1].fired, 1);
	assert_int_equal(wd->tm[2].fired, 1);
	assert_true(tw_armed(&wd->tm[2].t));    /* armed again */
	advance(wd, d + 1 + 6999);
	assert_int_equal(wd->tm[2].fired, 0);
	advance(wd, d + 1 + 7000);
	assert_int_equal(wd->tm[2].fired, 1);
	advance(wd, d + 1000000000ull);
	assert_int_equal(wd->tm[3].fired, 0);
	assert_int_equal(wd->w.armed, 0);
	free(wd);
}

/* A deadline already past when armed fires at the next advance. */
static void test_past_deadline(void **state)
{
	struct world *wd = world_new(3);

	(void)state;
	advance(wd, wd->now + 10000000);
	arm(wd, &wd->tm[0], wd->now - 5);
	advance(wd, wd->now);
	assert_int_equal(wd->tm[0].fired, 1);
	free(wd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_deadlines_and_steps),
		cmocka_unit_test(test_exact_nanosecond),
		cmocka_unit_test(test_cancel_and_rearm),
		cmocka_unit_test(test_past_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
