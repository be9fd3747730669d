/* SPDX-License-Identifier: MIT */
/* The scale section (scale.h): the pairs, the two groups, the rows. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report.h"
#include "lib/scale.h"

#define MAX_PAIRS 4

struct section {
	const struct bench_cfg *cfg;
	struct scale_pair *pair[MAX_PAIRS];     /* 1, 64, 1024, max QPs */
	unsigned n_pairs;
	double setup1_s;                        /* the 1-QP pair's setup */
};

/* secs: wall clock; cpu_s (if not NULL): the CPU time it took (one
 * thread: what it takes with a core to itself) */
static struct scale_pair *open_timed(unsigned nqp, double *secs, double *cpu_s)
{
	struct scale_pair *sp = calloc(1, sizeof(*sp));
	uint64_t t0, c0;

	if (!sp)
		bench_die("out of memory");
	t0 = bench_now_ns();
	c0 = bench_cpu_ns();
	scale_pair_open(sp, nqp);
	*secs = (double)(bench_now_ns() - t0) * 1e-9;
	if (cpu_s)
		*cpu_s = (double)(bench_cpu_ns() - c0) * 1e-9;
	return sp;
}

static double close_timed(struct scale_pair *sp)
{
	uint64_t t0 = bench_now_ns();

	scale_pair_close(sp);
	free(sp);
	return (double)(bench_now_ns() - t0) * 1e-9;
}

/* The largest pair, opened reps times (the last one stays open): the time
 * to create and connect its QPs through the verbs API. Each time from
 * memory the process has not touched yet, as an application's first
 * setup: the memory of the one before goes back to the kernel
 * (malloc_trim), else the second would reuse its pages and skip the page
 * faults, which are a good part of the cost (docs/performance.md). */
static struct scale_pair *setup_row(struct section *s, unsigned max_qps)
{
	unsigned reps = s->cfg->quick ? 1 : 3;
	double v[BENCH_MAX_REPS], vc[BENCH_MAX_REPS], down = 0;
	struct scale_pair *sp = NULL;
	struct bench_load_mark m;
	struct bench_row *r;
	size_t l;

	bench_load_mark(&m);
	for (unsigned i = 0; i < reps; i++) {
		if (sp) {
			down = close_timed(sp);
			malloc_trim(0);
		}
		sp = open_timed(max_qps, &v[i], &vc[i]);
	}
	r = bench_row_add("scale", SCALE_ROW_SETUP);
	bench_stat_of(v, reps, true, &r->st);
	bench_stat_of(vc, reps, true, &r->norm);
	bench_load_since(&m, &r->load);
	r->qps = max_qps;
	r->cores = 1;
	snprintf(r->unit, sizeof(r->unit), "s");
	snprintf(r->note, sizeof(r->note), "CPU %.2f s; %.1f us a pair (2 QPs, 6 "
		 "modify_qp); 1-QP pair %.3f s", r->norm.best, r->st.best * 1e6 / max_qps,
		 s->setup1_s);
	l = strlen(r->note);
	if (reps > 1)
		snprintf(r->note + l, sizeof(r->note) - l, "; teardown %.2f s", down);
	return sp;
}

struct config {
	struct scale_load load;
	struct bench_row *row;
	double v[BENCH_MAX_REPS];       /* messages/s, wall clock */
	double vc[BENCH_MAX_REPS];      /* messages/s of CPU time */
};

/* Each repeat runs every configuration in turn (side by side); a row per
 * configuration, and a ratio row of each to the first. The ratio is taken
 * over the CPU time the benchmark's thread got, which runs both engines
 * and the application (exact for a one-core run): on a machine shared
 * with other jobs, a thread that waits for its core changes the wall
 * clock's figure from one run to the next, not the work per message. The
 * note gives the wall clock's ratio beside it. */
static void measure_group(const struct bench_cfg *cfg, struct config *c, unsigned n,
			  const char *ratio_name)
{
	unsigned reps = cfg->reps_key < BENCH_MAX_REPS ? cfg->reps_key : BENCH_MAX_REPS;
	struct bench_load_mark m;
	struct bench_load load;

	bench_load_mark(&m);
	for (unsigned i = 0; i < reps; i++)
		for (unsigned k = 0; k < n; k++) {
			c[k].v[i] = scale_traffic(&c[k].load, cfg->secs_key);
			c[k].vc[i] = c[k].load.cpu_rate;
		}
	bench_load_since(&m, &load);
	for (unsigned k = 0; k < n; k++) {
		struct bench_row *r = c[k].row, *rr;
		const struct scale_load *l = &c[k].load;
		double mr[BENCH_MAX_REPS], q[BENCH_MAX_REPS], qw[BENCH_MAX_REPS];
		struct bench_stat wall;

		for (unsigned i = 0; i < reps; i++)
			mr[i] = c[k].v[i] * 1e-6;
		bench_stat_of(mr, reps, false, &r->st);
		r->rate = r->st.best * 1e6;
		for (unsigned i = 0; i < reps; i++)
			mr[i] = c[k].vc[i] * 1e-6;
		bench_stat_of(mr, reps, false, &r->norm);
		r->rate_norm = r->norm.best * 1e6;
		r->load = load;
		r->msgs = l->posted;
		r->retx = l->retx;
		snprintf(r->op, sizeof(r->op), "WRITE");
		snprintf(r->unit, sizeof(r->unit), "Mmsg/s");
		r->size = 64;
		r->cores = 1;
		if (k == 0)
			continue;
		rr = bench_row_add("ratio", ratio_name);
		for (unsigned i = 0; i < reps; i++) {
			q[i] = c[0].vc[i] > 0 ? c[k].vc[i] / c[0].vc[i] : 0;
			qw[i] = c[0].v[i] > 0 ? c[k].v[i] / c[0].v[i] : 0;
		}
		bench_stat_of(q, reps, false, &rr->st);
		bench_stat_of(qw, reps, false, &wall);
		rr->st.best = rr->st.med;       /* a ratio's figure is its median */
		rr->load = load;
		snprintf(rr->op, sizeof(rr->op), "WRITE");
		snprintf(rr->unit, sizeof(rr->unit), "x");
		rr->size = 64;
		rr->qps = r->qps;
		rr->cores = 1;
		snprintf(rr->note, sizeof(rr->note), "per CPU second: medians %.2f / %.2f "
			 "M msg/s; wall clock: %.2f", r->norm.med, c[0].row->norm.med, wall.med);
	}
}

static double per_msg(uint64_t frames, uint64_t msgs)
{
	return msgs ? (double)frames / (double)msgs : 0;
}

/* QP 0 busy at perftest's depth beside 0, 1023 and max - 1 idle QPs. */
static void idle_group(struct section *s)
{
	struct config c[MAX_PAIRS];
	unsigned n = 0;

	memset(c, 0, sizeof(c));
	for (unsigned i = 0; i < s->n_pairs; i++) {
		struct scale_pair *sp = s->pair[i];

		if (sp->p.nqp == 64 && i + 1 < s->n_pairs)
			continue;       /* the idle rows: none, 1023, all but one */
		c[n].load = (struct scale_load){ .sp = sp, .nbusy = 1,
			.depth = SCALE_DEPTH_ONE, .sig = SCALE_SIG_ONE,
			.region = BENCH_WINDOW, .seed = 1000u * (n + 1) };
		c[n].row = bench_row_add("scale", SCALE_ROW_IDLE);
		c[n].row->qps = sp->p.nqp;
		n++;
	}
	measure_group(s->cfg, c, n, SCALE_RATIO_IDLE);
	for (unsigned k = 0; k < n; k++)
		snprintf(c[k].row->note, sizeof(c[k].row->note), "%u idle; %u in flight; "
			 "frames/msg A %.2f B %.2f", c[k].row->qps - 1, SCALE_DEPTH_ONE,
			 per_msg(c[k].load.a_tx, c[k].load.posted),
			 per_msg(c[k].load.b_tx, c[k].load.posted));
}

/* Every QP of each pair busy: 1 QP at perftest's depth, more at
 * SCALE_DEPTH_MANY each, in regions that together span at least the
 * goodput matrix's window. */
static void busy_group(struct section *s)
{
	struct config c[MAX_PAIRS];
	unsigned n = s->n_pairs;

	memset(c, 0, sizeof(c));
	for (unsigned k = 0; k < n; k++) {
		struct scale_pair *sp = s->pair[k];
		unsigned nq = sp->p.nqp;
		uint32_t region = (BENCH_WINDOW / nq) & ~63u;

		if (region < SCALE_DEPTH_MANY * 64)
			region = SCALE_DEPTH_MANY * 64;
		c[k].load = nq == 1
			? (struct scale_load){ .sp = sp, .nbusy = 1,
				.depth = SCALE_DEPTH_ONE, .sig = SCALE_SIG_ONE,
				.region = BENCH_WINDOW, .seed = 5000 }
			: (struct scale_load){ .sp = sp, .nbusy = nq,
				.depth = SCALE_DEPTH_MANY, .sig = SCALE_SIG_MANY,
				.region = region, .seed = 5000u + 1000u * k };
		c[k].row = bench_row_add("scale", SCALE_ROW_BUSY);
		c[k].row->qps = nq;
	}
	measure_group(s->cfg, c, n, SCALE_RATIO_BUSY);
	for (unsigned k = 0; k < n; k++)
		snprintf(c[k].row->note, sizeof(c[k].row->note), "%u in flight a QP, "
			 "%u B region each; frames/msg A %.2f B %.2f", c[k].load.depth,
			 c[k].load.region, per_msg(c[k].load.a_tx, c[k].load.posted),
			 per_msg(c[k].load.b_tx, c[k].load.posted));
}

void scale_run(const struct bench_cfg *cfg, unsigned max_qps, bool busy_only)
{
	static const unsigned mid[] = { 64, 1024 };
	struct section s = { .cfg = cfg };
	double unused;

	if (max_qps < 2 || max_qps > SCALE_MAX_QPS)
		bench_die("internal: scale section up to %u QPs", max_qps);
	bench_pin(cfg->cpu_a);
	if (busy_only) {
		/* one configuration alone, for a profile */
		s.pair[s.n_pairs++] = open_timed(max_qps, &unused, NULL);
		busy_group(&s);
		close_timed(s.pair[0]);
		bench_pin(-1);
		return;
	}
	s.pair[s.n_pairs++] = open_timed(1, &s.setup1_s, NULL);
	for (unsigned i = 0; i < 2; i++)
		if (mid[i] < max_qps)
			s.pair[s.n_pairs++] = open_timed(mid[i], &unused, NULL);
	s.pair[s.n_pairs++] = setup_row(&s, max_qps);
	idle_group(&s);
	busy_group(&s);
	for (unsigned i = 0; i < s.n_pairs; i++)
		close_timed(s.pair[i]);
	bench_pin(-1);
}
