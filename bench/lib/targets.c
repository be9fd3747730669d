/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "lib/report.h"
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

static void write_targets(void)
{
	const struct bench_row *w2 = goodput("WRITE", KEY_MSG, 2);
	const struct bench_row *w1 = goodput("WRITE", KEY_MSG, 1);
	const struct bench_row *r2 = goodput("READ", KEY_MSG, 2);
	const struct bench_row *b2 = bench_row_find("limits", "bound", "WRITE", NULL,
						    KEY_MSG, KEY_MTU, 0, 2);
	const struct bench_row *b1 = bench_row_find("limits", "bound", "WRITE", NULL,
						    KEY_MSG, KEY_MTU, 0, 1);
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
	if (!w2 || !b2)
		missing(t, "engine or limits section not run");
	else {
		got(t, w2->st.best / b2->st.best, "%.2f x", w2->st.best / b2->st.best);
		snprintf(t->note, sizeof(t->note), "%.1f of %.1f Gbit/s (bound: 2 cores, "
			 "same buffers, no protocol)", w2->st.best, b2->st.best);
	}
	t = want("WRITE 64 KB, MTU 4096, both engines on 1 core", ">= 50 Gbit/s", 50, false);
	if (!w1)
		missing(t, "engine section (1 core) not run");
	else {
		got(t, w1->st.best, "%.1f Gbit/s", w1->st.best);
		if (b1)
			snprintf(t->note, sizeof(t->note), "%.2f x the 1-core ICRC+copy "
				 "bound (%.1f Gbit/s)", w1->st.best / b1->st.best, b1->st.best);
	}
	t = want("READ 64 KB / WRITE 64 KB, MTU 4096, 2 cores", ">= 0.90", 0.9, false);
	if (!w2 || !r2)
		missing(t, "engine section (2 cores) not run");
	else {
		got(t, r2->st.best / w2->st.best, "%.2f", r2->st.best / w2->st.best);
		snprintf(t->note, sizeof(t->note), "READ %.1f Gbit/s", r2->st.best);
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
	const struct bench_row *eg = bench_row_find("veth", "engine goodput", "WRITE",
						    NULL, KEY_MSG, 0, 0, 0);
	const struct bench_row *em = bench_row_find("veth", "engine goodput", "WRITE",
						    NULL, 64, 0, 0, 0);
	const struct bench_row *rm = bench_row_find("veth", "raw frames", NULL, "mtu",
						    0, 0, 0, 0);
	const struct bench_row *r64 = bench_row_find("veth", "raw frames", NULL,
						     "write64", 0, 0, 0, 0);
	struct bench_target *t;

	t = want("veth: WRITE 64 KB goodput / raw path-MTU frame rate", ">= 0.80", 0.8, false);
	if (!eg || !rm)
		missing(t, why[0] ? why : "veth rows missing");
	else {
		/* payload the raw frame rate could carry at this path MTU */
		double cap = rm->rate * rm->mtu * 8e-9;

		got(t, eg->st.best / cap, "%.2f", eg->st.best / cap);
		snprintf(t->note, sizeof(t->note), "%.1f Gbit/s vs %.3f M frames/s x %u B "
			 "= %.1f Gbit/s", eg->st.best, rm->rate * 1e-6, rm->mtu, cap);
	}
	t = want("veth: 64 B WRITE rate / raw frame rate, same size", ">= 0.80", 0.8, false);
	if (!em || !r64)
		missing(t, why[0] ? why : "veth rows missing");
	else {
		got(t, em->rate / r64->rate, "%.2f", em->rate / r64->rate);
		snprintf(t->note, sizeof(t->note), "%.3f vs %.3f M/s", em->rate * 1e-6,
			 r64->rate * 1e-6);
	}
}

void targets_compute(const char *veth_why)
{
	write_targets();
	rate_targets();
	latency_targets();
	veth_targets(veth_why);
}
