/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric's figures, from the run's bins and samples (all in virtual
 * time, so the same on any machine):
 *   convergence   the first bin boundary from which every window of
 *                 conv_us (sliding by a 100 us bin, to the end of the run)
 *                 has a Jain index >= 0.9 over the incast flows sending in
 *                 it and a bottleneck utilisation >= 0.9; "not converged"
 *                 when the last window misses either;
 *   the window    from convergence (or, without it, the second half of
 *                 the run) to the end: utilisation of the bottleneck (its
 *                 wire time busy), Jain's index of the flows' rates, the
 *                 queue's p50 and p99, drops and timeouts, each flow's rate;
 *   the run       the queue's p50 and p99, drops before the window, the
 *                 counters' totals.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "roce-fabric/fabric.h"

static bool incast(const struct fab_run *r, unsigned k)
{
	return r->flow[k].dst == r->o.senders;  /* not the victim */
}

/* The first bin flow k sends in. */
static unsigned first_bin(const struct fab_run *r, unsigned k)
{
	return (unsigned)((r->flow[k].start_ns + FAB_BIN_NS - 1) / FAB_BIN_NS);
}

/* Jain's index over the rates of the incast flows sending in bins
   [b0, b1) (a flow that starts inside counts from its start). */
static double jain(const struct fab_run *r, unsigned b0, unsigned b1)
{
	double x[FAB_MAX_SENDERS + 1];
	unsigned n = 0;

	for (unsigned k = 0; k < r->nflows; k++) {
		unsigned from = first_bin(r, k) > b0 ? first_bin(r, k) : b0;
		double sum = 0;

		if (!incast(r, k) || from >= b1)
			continue;
		for (unsigned b = from; b < b1; b++)
			sum += (double)r->flow[k].bins[b];
		x[n++] = sum / (b1 - from);
	}
	return fab_jain(x, n);
}

/* The bottleneck's wire busy over bins [b0, b1). */
static double utilization(const struct fab_run *r, unsigned b0, unsigned b1)
{
	double secs = (double)(b1 - b0) * FAB_BIN_NS / 1e9;
	uint64_t wire = 0;

	for (unsigned b = b0; b < b1; b++)
		wire += r->wire[b];
	return secs > 0 ? wire * 8.0 / (secs * r->o.link_gbps * 1e9) : 0;
}

static uint64_t sum32(const uint32_t *v, unsigned b0, unsigned b1)
{
	uint64_t s = 0;

	for (unsigned b = b0; b < b1; b++)
		s += v[b];
	return s;
}

static struct fab_queue_pct queue_pct(const struct fab_run *r, uint64_t s0)
{
	struct fab_queue_pct p = { 0, 0 };
	size_t n = (size_t)(r->nsamples - s0);
	uint32_t *q = malloc((n + 1) * sizeof(*q));

	if (q && n) {
		memcpy(q, r->queue + s0, n * sizeof(*q));
		p.p99 = fab_percentile(q, n, 0.99);
		p.p50 = q[(size_t)((double)(n - 1) * 0.5)];     /* sorted */
	}
	free(q);
	return p;
}

/* The first window from which all are fair and full (fab_converge). */
static unsigned converge_bin(const struct fab_run *r)
{
	unsigned wb = r->o.conv_us * 1000u / FAB_BIN_NS, n, c;
	bool *ok;

	if (!wb)
		wb = 1;
	if (r->nbins < wb)
		return r->nbins;
	n = r->nbins - wb + 1;
	ok = calloc(n, sizeof(*ok));
	if (!ok)
		return r->nbins;
	for (unsigned b = 0; b < n; b++)
		ok[b] = jain(r, b, b + wb) >= FAB_CONV_JAIN &&
			utilization(r, b, b + wb) >= FAB_CONV_UTIL;
	c = fab_converge(ok, n);
	free(ok);
	return c < n ? c : r->nbins;
}

void fab_figures(struct fab_run *r)
{
	unsigned conv = converge_bin(r), w0;

	r->converged = conv < r->nbins;
	r->converge_ms = r->converged ? (double)conv * FAB_BIN_NS / 1e6 : -1;
	w0 = r->converged ? conv : r->nbins / 2;
	r->window_ms = (double)(r->nbins - w0) * FAB_BIN_NS / 1e6;
	r->utilization = utilization(r, w0, r->nbins);
	r->jain = jain(r, w0, r->nbins);
	r->drops_before = sum32(r->drop_bin, 0, w0);
	r->drops_after = sum32(r->drop_bin, w0, r->nbins);
	r->timeouts_after = sum32(r->timeout_bin, w0, r->nbins);
	r->q_run = queue_pct(r, 0);
	r->q_win = queue_pct(r, (uint64_t)w0 * FAB_BIN_NS / FAB_SAMPLE_NS);
	for (unsigned k = 0; k < r->nflows; k++) {
		struct fab_flow *fl = &r->flow[k];
		unsigned from = first_bin(r, k) > w0 ? first_bin(r, k) : w0;
		double active = from < r->nbins ? (double)(r->nbins - from) * FAB_BIN_NS / 1e9 : 0;

		/* its rate while it sent in the window */
		fl->bytes = 0;
		for (unsigned b = from; b < r->nbins; b++)
			fl->bytes += fl->bins[b];
		fl->gbps = active > 0 ? (double)fl->bytes * 8 / active / 1e9 : 0;
		if (!incast(r, k))
			r->victim_gbps = fl->gbps;
	}
}

const char *fab_cc_name(const struct fab_opts *o)
{
	switch (o->cc) {
	case FAB_CC_DCQCN:
		return o->paper ? "dcqcn-paper" : "dcqcn";
	case FAB_CC_SWIFT:
		return "swift";
	default:
		return "none";
	}
}

/* ---- the text table: a row per figure, a column per algorithm ------------ */

#define LABEL "  %-34s"

static void row_u64(FILE *f, const char *label, const struct fab_run *r, unsigned n,
		    size_t off)
{
	fprintf(f, LABEL, label);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, " %14llu",
			(unsigned long long)*(const uint64_t *)((const char *)&r[i] + off));
	fputc('\n', f);
}

static void row_f(FILE *f, const char *label, const struct fab_run *r, unsigned n, size_t off)
{
	fprintf(f, LABEL, label);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, " %14.3f", *(const double *)((const char *)&r[i] + off));
	fputc('\n', f);
}

static void row_q(FILE *f, const char *label, const struct fab_run *r, unsigned n, bool win)
{
	fprintf(f, LABEL, label);
	for (unsigned i = 0; i < n; i++) {
		const struct fab_queue_pct *q = win ? &r[i].q_win : &r[i].q_run;
		char s[32];

		snprintf(s, sizeof(s), "%u / %u", q->p50 >> 10, q->p99 >> 10);
		fprintf(f, " %14s", s);
	}
	fputc('\n', f);
}

static void flows(const struct fab_run *r, FILE *f)
{
	const struct fab_opts *o = &r->o;

	if (r->nflows > 64) {
		double lo = 1e9, hi = 0, sum = 0;
		unsigned n = 0;

		for (unsigned k = 0; k < r->nflows; k++)
			if (incast(r, k)) {
				double g = r->flow[k].gbps;

				lo = g < lo ? g : lo;
				hi = g > hi ? g : hi;
				sum += g;
				n++;
			}
		fprintf(f, "\n  %u incast flows after convergence: %.3f .. %.3f Gbit/s, "
			"mean %.3f (--json lists each)\n", n, lo, hi, n ? sum / n : 0);
		return;
	}
	fprintf(f, "\n  flow  from  to  start ms  Gbit/s  CC at the end: %s\n",
		r->nflows && r->flow[0].cc.algo == ROCE_CC_ALGO_SWIFT
			? "window (packets), RTT and target (us), cuts"
			: "rate (Gbit/s), alpha, cuts");
	for (unsigned k = 0; k < r->nflows; k++) {
		const struct roce_qp_cc *c = &r->flow[k].cc;

		fprintf(f, "  %4u  %4u  %2u  %8.1f  %6.2f  ", k, r->flow[k].src, r->flow[k].dst,
			(double)r->flow[k].start_ns / 1e6, r->flow[k].gbps);
		if (c->algo == ROCE_CC_ALGO_SWIFT)
			fprintf(f, "%7.2f  %5.1f %5.1f  ", c->cwnd_upkts / 1e6, c->rtt_ns / 1e3,
				c->target_ns / 1e3);
		else
			fprintf(f, "%7.2f  %5.3f  ", c->rate_kbps / 1e6, c->alpha / 1024.0);
		fprintf(f, "%llu%s\n", (unsigned long long)c->cuts,
			r->flow[k].dst == o->senders ? "" : "  (victim)");
	}
}

void fab_print(const struct fab_run *r, unsigned n, FILE *f)
{
	const struct fab_opts *o = &r->o;

	fprintf(f, "roce-fabric: %u:1 incast of %u KB %s, %u Gbit/s links, %u ms "
		"(virtual time)%s\n", o->senders, o->msg_kb,
		o->read ? "READ responses" : "WRITEs", o->link_gbps, o->duration_ms,
		o->pfc ? ", PFC" : "");
	fprintf(f, "switch: queue %u KB, ECN Kmin %u KB Kmax %u KB Pmax %.0f%%", o->buffer_kb,
		o->kmin_kb, o->kmax_kb, o->pmax * 100);
	if (o->pfc)
		fprintf(f, ", PFC XOFF %u KB XON %u KB", o->xoff_kb, o->xon_kb);
	fprintf(f, "\nconverged: every %u us window from then on has Jain >= %.2f and "
		"utilisation >= %.2f\n\n", o->conv_us, FAB_CONV_JAIN, FAB_CONV_UTIL);
	fprintf(f, LABEL, "cc");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, " %14s", fab_cc_name(&r[i].o));
	fprintf(f, "\n" LABEL, "converged at (ms)");
	for (unsigned i = 0; i < n; i++) {
		if (r[i].converged)
			fprintf(f, " %14.1f", r[i].converge_ms);
		else
			fprintf(f, " %14s", "not converged");
	}
	fprintf(f, "\n" LABEL, "measured from (ms; else 2nd half)");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, " %14.1f", o->duration_ms - r[i].window_ms);
	fputc('\n', f);
	row_f(f, "utilisation after convergence", r, n, offsetof(struct fab_run, utilization));
	row_f(f, "Jain after convergence", r, n, offsetof(struct fab_run, jain));
	row_q(f, "queue p50 / p99 after, KB", r, n, true);
	row_q(f, "queue p50 / p99 whole run, KB", r, n, false);
	row_u64(f, "queue max, bytes", r, n, offsetof(struct fab_run, queue_max));
	row_u64(f, "drops before convergence", r, n, offsetof(struct fab_run, drops_before));
	row_u64(f, "drops after convergence", r, n, offsetof(struct fab_run, drops_after));
	row_u64(f, "retransmission timeouts", r, n, offsetof(struct fab_run, timeouts));
	row_u64(f, "  of them after convergence", r, n, offsetof(struct fab_run, timeouts_after));
	row_u64(f, "retransmitted packets", r, n, offsetof(struct fab_run, retrans));
	row_u64(f, "ECN marks", r, n, offsetof(struct fab_run, marks));
	row_u64(f, "CNPs sent", r, n, offsetof(struct fab_run, cnp_sent));
	row_u64(f, "CNPs handled", r, n, offsetof(struct fab_run, cnp_handled));
	row_u64(f, "pause frames", r, n, offsetof(struct fab_run, pauses));
	if (o->victim) {
		fprintf(f, LABEL, "victim flow, Gbit/s");
		for (unsigned i = 0; i < n; i++)
			fprintf(f, " %14.3f", r[i].victim_gbps);
		fputc('\n', f);
	}
	if (n == 1)
		flows(r, f);
}

void fab_json(const struct fab_run *r, FILE *f)
{
	const struct fab_opts *o = &r->o;

	fprintf(f, "{\"senders\":%u,\"op\":\"%s\",\"cc\":\"%s\",\"pfc\":%s,\"link_gbps\":%u,"
		"\"duration_ms\":%u,\"utilization\":%.4f,\"jain_fairness\":%.4f,"
		"\"queue_p50_bytes\":%u,\"queue_p99_bytes\":%u,\"queue_p50_run_bytes\":%u,"
		"\"queue_p99_run_bytes\":%u,\"queue_max_bytes\":%llu,\"kmax_bytes\":%u,"
		"\"kmin_bytes\":%u,\"buffer_bytes\":%u,\"drops\":%llu,\"drops_before\":%llu,"
		"\"drops_after\":%llu,\"ecn_marks\":%llu,\"cnp_sent\":%llu,"
		"\"cnp_handled\":%llu,\"pause_frames\":%llu,\"retransmissions\":%llu,"
		"\"timeouts\":%llu,\"timeouts_after\":%llu,\"converged\":%s,"
		"\"converge_ms\":%.2f,\"converge_window_us\":%u,\"window_ms\":%.2f,"
		"\"per_flow_gbps\":[",
		o->senders, o->read ? "read" : "write", fab_cc_name(o),
		o->pfc ? "true" : "false", o->link_gbps, o->duration_ms, r->utilization,
		r->jain, r->q_win.p50, r->q_win.p99, r->q_run.p50, r->q_run.p99,
		(unsigned long long)r->queue_max, o->kmax_kb << 10, o->kmin_kb << 10,
		o->buffer_kb << 10, (unsigned long long)r->drops,
		(unsigned long long)r->drops_before, (unsigned long long)r->drops_after,
		(unsigned long long)r->marks, (unsigned long long)r->cnp_sent,
		(unsigned long long)r->cnp_handled, (unsigned long long)r->pauses,
		(unsigned long long)r->retrans, (unsigned long long)r->timeouts,
		(unsigned long long)r->timeouts_after, r->converged ? "true" : "false",
		r->converge_ms, o->conv_us, r->window_ms);
	for (unsigned k = 0, first = 1; k < r->nflows; k++)
		if (incast(r, k)) {
			fprintf(f, "%s%.3f", first ? "" : ",", r->flow[k].gbps);
			first = 0;
		}
	fprintf(f, "]");
	if (o->victim)
		fprintf(f, ",\"victim_gbps\":%.3f", r->victim_gbps);
	fprintf(f, "}\n");
}
