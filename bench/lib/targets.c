/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "lib/loss.h"
#include "lib/report.h"
#include "lib/scale.h"
#include "lib/stages.h"
#include "lib/targets.h"

#define KEY_MTU 4096u
#define KEY_MSG 65536u

static const struct bench_row *goodput(const char *op, uint32_t size, unsigned cores)
{
	return bench_row_find("engine", "goodput", op, NULL, size, KEY_MTU, 1, cores);
}

static struct bench_target *want(const char *what, const char *text, double v,
				 bool upper)
{
	struct bench_target *t = bench_target_add(what);

	snprintf(t->want_text, sizeof(t->want_text), "%s", text);
	t->want = v;
	t->upper = upper;
	return t;
}

static void missing(struct bench_target *t, const char *why)
{
	t->measured = false;
	snprintf(t->note, sizeof(t->note), "%s", why);
}

static void got(struct bench_target *t, double v, const char *fmt, double shown)
{
	t->measured = true;
	t->got = v;
	snprintf(t->got_text, sizeof(t->got_text), fmt, shown);
}

static const struct bench_row *ratio(const char *name, uint32_t size, unsigned cores)
{
	return bench_row_find("ratio", name, NULL, NULL, size, 0, 0, cores);
}

static void write_targets(void)
{
	const struct bench_row *w2 = goodput("WRITE", KEY_MSG, 2);
	const struct bench_row *w1 = goodput("WRITE", KEY_MSG, 1);
	const struct bench_row *b2 = bench_row_find("limits", "bound", "WRITE", NULL,
						    KEY_MSG, KEY_MTU, 0, 2);
	const struct bench_row *wb2 = ratio("WRITE / ICRC+copy bound", KEY_MSG, 2);
	const struct bench_row *wb1 = ratio("WRITE / ICRC+copy bound", KEY_MSG, 1);
	const struct bench_row *rw2 = ratio("READ / WRITE", KEY_MSG, 2);
	struct bench_target *t;

	t = want("WRITE 64 KB, MTU 4096, engines on 2 cores", ">= 100 Gbit/s", 100, false);
	if (!w2)
		missing(t, "engine section (2 cores) not run");
	else {
		got(t, w2->st.best, "%.1f Gbit/s", w2->st.best);
		if (b2)
			snprintf(t->note, sizeof(t->note), "ICRC+copy bound here: %.1f "
				 "Gbit/s on 2 cores", b2->st.best);
	}
	t = want("WRITE 64 KB, MTU 4096, 2 cores / ICRC+copy bound", ">= 0.90 x bound",
		 0.9, false);
	if (!wb2)
		missing(t, "engine ratios not run (whole matrix and limits needed)");
	else {
		got(t, wb2->st.best, "%.2f x", wb2->st.best);
		snprintf(t->note, sizeof(t->note), "side by side, median of %u; %s",
			 wb2->st.reps, wb2->note);
	}
	t = want("WRITE 64 KB, MTU 4096, both engines on 1 core", ">= 50 Gbit/s", 50, false);
	if (!w1)
		missing(t, "engine section (1 core) not run");
	else {
		got(t, w1->st.best, "%.1f Gbit/s", w1->st.best);
		if (wb1)
			snprintf(t->note, sizeof(t->note), "%.2f x the 1-core ICRC+copy "
				 "bound, side by side (%s)", wb1->st.best, wb1->note);
	}
	t = want("READ 64 KB / WRITE 64 KB, MTU 4096, 2 cores", ">= 0.90", 0.9, false);
	if (!rw2)
		missing(t, "engine ratios not run (whole matrix needed)");
	else {
		got(t, rw2->st.best, "%.2f", rw2->st.best);
		snprintf(t->note, sizeof(t->note), "side by side, median of %u; %s",
			 rw2->st.reps, rw2->note);
	}
}

static void rate_targets(void)
{
	const struct bench_row *m1 = goodput("WRITE", 64, 1);
	const struct bench_row *m2 = goodput("WRITE", 64, 2);
	struct bench_target *t;

	t = want("64 B WRITE message rate, both engines on 1 core", ">= 5 M/s per core",
		 5e6, false);
	if (!m1)
		missing(t, "engine section (1 core, 64 B) not run");
	else
		got(t, m1->rate, "%.2f M/s per core", m1->rate * 1e-6);
	t = want("64 B WRITE message rate, 2 cores, per core", ">= 5 M/s per core",
		 5e6, false);
	if (!m2)
		missing(t, "engine section (2 cores, 64 B) not run");
	else {
		got(t, m2->rate / 2, "%.2f M/s per core", m2->rate / 2 * 1e-6);
		snprintf(t->note, sizeof(t->note), "%.2f M/s in all", m2->rate * 1e-6);
	}
}

static void latency_targets(void)
{
	const struct bench_row *l1 = bench_row_find("latency", "8 B WRITE round trip",
						    NULL, "p50", 0, 0, 0, 1);
	const struct bench_row *l2 = bench_row_find("latency", "8 B WRITE round trip",
						    NULL, "p50", 0, 0, 0, 2);
	const struct bench_row *p99 = bench_row_find("latency", "8 B WRITE round trip",
						     NULL, "p99", 0, 0, 0, 1);
	const struct bench_row *cl = bench_row_find("limits", "cacheline rtt", NULL,
						    "p50", 0, 0, 0, 0);
	struct bench_target *t;

	t = want("8 B WRITE round trip p50, both engines on 1 core", "<= 0.90 us", 0.9, true);
	if (!l1)
		missing(t, "latency section not run");
	else {
		got(t, l1->st.best, "%.3f us", l1->st.best);
		if (p99)
			snprintf(t->note, sizeof(t->note), "p99 %.3f us", p99->st.best);
	}
	t = want("8 B WRITE round trip p50, engines on 2 cores", "report", 0, false);
	t->info = true;
	if (!l2)
		missing(t, "latency section (2 cores) not run");
	else {
		got(t, l2->st.best, "%.3f us", l2->st.best);
		if (cl)
			snprintf(t->note, sizeof(t->note), "= %.1f cross-core cache-line "
				 "round trips (%.0f ns p50, same run)",
				 l2->st.best * 1e3 / cl->st.best, cl->st.best);
		else
			snprintf(t->note, sizeof(t->note), "cache-line round trip not measured");
	}
}

static void veth_targets(const char *why)
{
	const struct bench_row *big = ratio("veth engine / raw", KEY_MSG, 0);
	const struct bench_row *small = ratio("veth engine / raw", 64, 0);
	struct bench_target *t;

	t = want("veth: WRITE 64 KB goodput / raw path-MTU frame rate", ">= 0.80", 0.8, false);
	if (!big)
		missing(t, why[0] ? why : "veth rows missing");
	else {
		got(t, big->st.best, "%.2f", big->st.best);
		snprintf(t->note, sizeof(t->note), "side by side, median of %u; %s",
			 big->st.reps, big->note);
	}
	t = want("veth: 64 B WRITE rate / raw frame rate, same size", ">= 0.80", 0.8, false);
	if (!small)
		missing(t, why[0] ? why : "veth rows missing");
	else {
		got(t, small->st.best, "%.2f", small->st.best);
		snprintf(t->note, sizeof(t->note), "side by side, median of %u; %s",
			 small->st.reps, small->note);
	}
}

/* The row of section/name with the most QPs: the scale section's largest
 * count (--scale-qps may lower it). */
static const struct bench_row *most_qps(const char *section, const char *name)
{
	const struct bench_row *r, *best = NULL;
	unsigned n = bench_rows(&r);

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(r[i].section, section) && !strcmp(r[i].name, name) &&
		    (!best || r[i].qps > best->qps))
			best = &r[i];
	return best;
}

static void scale_targets(void)
{
	const struct bench_row *idle = most_qps("ratio", SCALE_RATIO_IDLE);
	const struct bench_row *busy = most_qps("ratio", SCALE_RATIO_BUSY);
	const struct bench_row *setup = most_qps("scale", SCALE_ROW_SETUP);
	struct bench_target *t;
	char what[64];

	snprintf(what, sizeof(what), "64 B WRITE rate, QP 0 beside %u idle QPs / alone",
		 (idle ? idle->qps : SCALE_MAX_QPS) - 1);
	t = want(what, ">= 0.90", 0.9, false);
	if (!idle)
		missing(t, "scale section not run");
	else {
		got(t, idle->st.best, "%.2f", idle->st.best);
		snprintf(t->note, sizeof(t->note), "1 core, side by side, median of %u; %s",
			 idle->st.reps, idle->note);
	}
	snprintf(what, sizeof(what), "64 B WRITE rate, %u QPs all busy / 1 QP",
		 busy ? busy->qps : SCALE_MAX_QPS);
	t = want(what, ">= 0.50", 0.5, false);
	if (!busy)
		missing(t, "scale section not run");
	else {
		got(t, busy->st.best, "%.2f", busy->st.best);
		snprintf(t->note, sizeof(t->note), "1 core, side by side, median of %u; %s",
			 busy->st.reps, busy->note);
	}
	snprintf(what, sizeof(what), "create + connect %u QP pairs (verbs API)",
		 setup ? setup->qps : SCALE_MAX_QPS);
	t = want(what, "< 1 s", 1.0, true);
	if (!setup)
		missing(t, "scale section not run");
	else {
		/* the CPU time it took: one thread, so what it takes with a
		 * core to itself; the wall clock also counts the time other
		 * jobs held the core */
		got(t, setup->norm.best, "%.2f s of CPU", setup->norm.best);
		snprintf(t->note, sizeof(t->note), "best of %u, from untouched memory; wall "
			 "clock %.2f s; %s", setup->st.reps, setup->st.best, setup->note);
	}
}

/* Loss recovery with the device's defaults (loss.c) */
static void loss_targets(void)
{
	static const struct {
		uint32_t ppm;
		double want;
		const char *what, *text;
	} pts[] = {
		{ 10000, 0.8, "WRITE 64 KB goodput, 1 % loss / 0.01 %, defaults", ">= 0.80" },
		{ 50000, 0.4, "WRITE 64 KB goodput, 5 % loss / 0.01 %, defaults", ">= 0.40" },
	};

	for (unsigned i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		const struct bench_row *r = bench_row_find("loss", LOSS_ROW_RATIO, "WRITE", "default",
							   KEY_MSG, 0, pts[i].ppm, 0);
		const struct bench_row *f = bench_row_find("loss", LOSS_ROW_RATIO, "WRITE", "iba",
							   KEY_MSG, 0, pts[i].ppm, 0);
		struct bench_target *t = want(pts[i].what, pts[i].text, pts[i].want, false);

		if (!r) {
			missing(t, "loss section not run");
			continue;
		}
		got(t, r->st.best, "%.2f", r->st.best);
		snprintf(t->note, sizeof(t->note), "virtual time; the defaults (adaptive window "
			 "and timer, tail-loss probes); IBA's alone (--iba-strict): %.2f",
			 f ? f->st.best : 0);
	}
}

/* The inline stages: every staged row's goodput against its bound
 * (stages.c); the worst row is the figure, the count of rows that meet
 * it the note. */
static void stage_targets(void)
{
	const struct bench_row *r, *worst = NULL;
	unsigned nr = bench_rows(&r), rows = 0, met = 0;
	char what[48];
	struct bench_target *t = want("inline stages: 64 KB goodput / bound, worst row",
				      ">= 0.80 x bound", STAGE_BOUND_TARGET,
				      false);

	for (unsigned i = 0; i < nr; i++) {
		if (strcmp(r[i].section, "stages") || !r[i].stage.dunit)
			continue;
		rows++;
		met += r[i].stage.vs_bound >= STAGE_BOUND_TARGET;
		if (!worst || r[i].stage.vs_bound < worst->stage.vs_bound)
			worst = &r[i];
	}
	if (!worst) {
		missing(t, "stages section not run");
		return;
	}
	got(t, worst->stage.vs_bound, "%.2f x", worst->stage.vs_bound);
	snprintf(what, sizeof(what), "%s MTU %u unit %u %s", worst->op, worst->mtu,
		 worst->stage.dunit, worst->cond);
	snprintf(t->note, sizeof(t->note), "%u of %u rows met; worst: %s (%.2f x no stage)",
		 met, rows, what, worst->stage.vs_none);
}

void targets_compute(const char *veth_why)
{
	write_targets();
	rate_targets();
	latency_targets();
	scale_targets();
	veth_targets(veth_why);
	loss_targets();
	stage_targets();
}
