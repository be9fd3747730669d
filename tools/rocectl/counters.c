/* SPDX-License-Identifier: MIT */
/*
 * counters: the 64-bit counters, all or by name; --watch refreshes them
 * with deltas and rates until interrupted or --count samples.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/clock.h"
#include "rocectl/ctl.h"
#include "roce/counters.h"

static volatile sig_atomic_t g_interrupted;

struct watch_opts {
	int watch;
	double secs;
	uint64_t count;			/* 0: until interrupted */
	const char *names[ROCE_CNT_COUNT];
	size_t n_names;
};

static int counters_args(struct ctl *c, int argc, char **argv,
			 struct watch_opts *w)
{
	char *end;

	w->secs = 1.0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--watch") == 0) {
			w->watch = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-' &&
			    (strtod(argv[i + 1], &end), *end == '\0')) {
				w->secs = strtod(argv[++i], NULL);
				if (!(w->secs >= 0.01 && w->secs <= 3600))
					return ctl_fail(c, EXIT_USAGE, "--watch: "
							"interval '%s' not within "
							"0.01..3600 s", argv[i]);
			}
		} else if (strcmp(argv[i], "--count") == 0) {
			if (i + 1 >= argc ||
			    roce_parse_u64(argv[++i], false, &w->count) != ROCE_OK ||
			    w->count == 0)
				return ctl_fail(c, EXIT_USAGE, "--count needs a "
						"positive number");
		} else if (argv[i][0] == '-') {
			return ctl_fail(c, EXIT_USAGE, "counters: unknown option '%s'",
					argv[i]);
		} else if (roce_cnt_find(argv[i]) < 0) {
			return ctl_fail(c, EXIT_USAGE, "unknown counter '%s' (rocectl "
					"counters lists them)", argv[i]);
		} else if (w->n_names < ROCE_CNT_COUNT) {
			w->names[w->n_names++] = argv[i];
		}
	}
	if (w->count && !w->watch)
		w->watch = 1, w->secs = w->secs > 0 ? w->secs : 1.0;
	return 0;
}

static int counter_wanted(const struct watch_opts *w, const char *name)
{
	for (size_t i = 0; i < w->n_names; i++)
		if (strcasecmp(w->names[i], name) == 0)
			return 1;
	return w->n_names == 0;
}

static void counters_print(struct ctl *c, const struct watch_opts *w,
			   const struct roce_counter_value *v,
			   const uint64_t *prev, size_t n, double dt)
{
	int first = 1;

	if (c->json)
		printf("{\"counters\":{");
	else if (w->watch)
		printf("%-24s %20s %14s %14s\n", "counter", "value", "delta",
		       "per second");
	for (size_t i = 0; i < n; i++) {
		uint64_t d = prev ? v[i].value - prev[i] : 0;

		if (!counter_wanted(w, v[i].name))
			continue;
		if (c->json && !w->watch)
			printf("%s\"%s\":%" PRIu64, first ? "" : ",", v[i].name,
			       v[i].value);
		else if (c->json)
			printf("%s\"%s\":{\"value\":%" PRIu64 ",\"delta\":%" PRIu64
			       ",\"rate\":%.3f}", first ? "" : ",", v[i].name,
			       v[i].value, d, dt > 0 ? (double)d / dt : 0.0);
		else if (w->watch)
			printf("%-24s %20" PRIu64 " %14" PRIu64 " %14.1f\n",
			       v[i].name, v[i].value, d,
			       dt > 0 ? (double)d / dt : 0.0);
		else
			printf("%-24s %20" PRIu64 "\n", v[i].name, v[i].value);
		first = 0;
	}
	if (c->json)
		printf("}}\n");
	else if (w->watch)
		printf("\n");
	fflush(stdout);
}

static double now_s(void)
{
	return (double)roce_now_ns() / 1e9;
}

static void sleep_s(double secs)
{
	struct timespec ts = { .tv_sec = (time_t)secs };

	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);	/* SIGINT cuts it short: the loop then ends */
}

static void on_interrupt(int sig)
{
	(void)sig;
	g_interrupted = 1;
}

int cmd_counters(struct ctl *c, int argc, char **argv)
{
	struct roce_counter_value v[ROCE_CNT_COUNT];
	uint64_t prev[ROCE_CNT_COUNT];
	struct watch_opts w = { 0 };
	double t_prev = 0;
	size_t n;
	int st;

	if ((st = counters_args(c, argc, argv, &w)) != 0)
		return st;
	if (w.watch)
		signal(SIGINT, on_interrupt);
	for (uint64_t k = 0; !g_interrupted; k++) {
		double t = now_s();

		if ((st = roce_drv_counters_read(&c->drv, v, ROCE_CNT_COUNT, &n)))
			return ctl_drv_fail(c);
		counters_print(c, &w, v, k ? prev : NULL, n, t - t_prev);
		if (!w.watch || (w.count && k + 1 >= w.count))
			break;
		for (size_t i = 0; i < n; i++)
			prev[i] = v[i].value;
		t_prev = t;
		sleep_s(w.secs);
	}
	return 0;
}
