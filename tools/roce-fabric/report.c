/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric's figures, from the run's bins and samples:
 *   converge_ms   the first time from which every 1 ms window has a Jain
 *                 fairness index >= 0.95 over the incast flows sending in
 *                 it (-1: never in the run);
 *   the window    from convergence (or, without it, the second half of
 *                 the run) to the end: utilisation of the bottleneck (its
 *                 wire time busy), Jain fairness of the flows' rates,
 *                 the queue's 99th percentile, each flow's rate.
 */
#include <stdlib.h>
#include <string.h>

#include "roce-fabric/fabric.h"

#define WIN_BINS (1000000u / FAB_BIN_NS)        /* 1 ms */
#define FAIR 0.95

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
   [b0, b1) (a flow that starts inside counts from its start); 1 with
   fewer than two. */
static double jain(const struct fab_run *r, unsigned b0, unsigned b1)
{
	double s = 0, s2 = 0;
	unsigned n = 0;

	for (unsigned k = 0; k < r->nflows; k++) {
		unsigned from = first_bin(r, k) > b0 ? first_bin(r, k) : b0;
		double x = 0;

		if (!incast(r, k) || from >= b1)
			continue;
		for (unsigned b = from; b < b1; b++)
			x += (double)r->flow[k].bins[b];
		x /= b1 - from;
		s += x;
		s2 += x * x;
		n++;
	}
	return n < 2 || s2 == 0 ? 1.0 : s * s / (n * s2);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void fab_figures(struct fab_run *r)
{
	unsigned conv = r->nbins, w0, n;
	double secs, bits;
	uint64_t wire = 0, s0;
	uint32_t *q;

	/* the earliest bin from which every later 1 ms window is fair */
	if (r->nbins >= WIN_BINS) {
		for (unsigned b = r->nbins - WIN_BINS + 1; b-- > 0;) {
			if (jain(r, b, b + WIN_BINS) < FAIR)
				break;
			conv = b;
		}
	}
	r->converge_ms = conv < r->nbins ? (double)conv * FAB_BIN_NS / 1e6 : -1;
	w0 = conv < r->nbins ? conv : r->nbins / 2;
	if (w0 >= r->nbins)
		w0 = 0;
	secs = (double)(r->nbins - w0) * FAB_BIN_NS / 1e9;
	r->window_ms = secs * 1e3;
	for (unsigned b = w0; b < r->nbins; b++)
		wire += r->wire[b];
	r->utilization = secs > 0 ? wire * 8.0 / (secs * r->o.link_gbps * 1e9) : 0;
	r->jain = jain(r, w0, r->nbins);
	for (unsigned k = 0; k < r->nflows; k++) {
		struct fab_flow *fl = &r->flow[k];
		unsigned from = first_bin(r, k) > w0 ? first_bin(r, k) : w0;
		double active = from < r->nbins ? (double)(r->nbins - from) * FAB_BIN_NS / 1e9 : 0;

		/* its rate while it sent in the window */
		fl->bytes = 0;
		for (unsigned b = from; b < r->nbins; b++)
			fl->bytes += fl->bins[b];
		bits = (double)fl->bytes * 8;
		fl->gbps = active > 0 ? bits / active / 1e9 : 0;
		if (!incast(r, k))
			r->victim_gbps = fl->gbps;
	}
	/* the queue's 99th percentile over the window */
	s0 = (uint64_t)w0 * FAB_BIN_NS / FAB_SAMPLE_NS;
	n = (unsigned)(r->nsamples - s0);
	q = malloc(((size_t)n + 1) * sizeof(*q));
	r->queue_p99 = 0;
	if (q && n) {
		memcpy(q, r->queue + s0, (size_t)n * sizeof(*q));
		qsort(q, n, sizeof(*q), cmp_u32);
		r->queue_p99 = q[(size_t)((n - 1) * 0.99)];
	}
	free(q);
}

void fab_print(const struct fab_run *r, FILE *f)
{
	const struct fab_opts *o = &r->o;

	fprintf(f, "roce-fabric: %u:1 incast of %u KB %s, %u Gbit/s links, %u ms "
		"(virtual time), cc %s%s%s\n", o->senders, o->msg_kb,
		o->read ? "READ responses" : "WRITEs", o->link_gbps,
		o->duration_ms, o->dcqcn ? "dcqcn" : "none", o->paper ? " (paper)" : "",
		o->pfc ? ", PFC" : "");
	fprintf(f, "switch: queue %u KB, ECN Kmin %u KB Kmax %u KB Pmax %.0f%%\n\n",
		o->buffer_kb, o->kmin_kb, o->kmax_kb, o->pmax * 100);
	if (r->converge_ms < 0)
		fprintf(f, "  %-26s never (fairness < 0.95 in some 1 ms window)\n",
			"converged at");
	else
		fprintf(f, "  %-26s %.1f ms\n", "converged at", r->converge_ms);
	fprintf(f, "  %-26s %.1f ms .. %u ms\n", "measured over",
		o->duration_ms - r->window_ms, o->duration_ms);
	fprintf(f, "  %-26s %.3f\n", "bottleneck utilization", r->utilization);
	fprintf(f, "  %-26s %.3f\n", "Jain fairness", r->jain);
	fprintf(f, "  %-26s %llu bytes (Kmax %u)\n", "queue p99",
		(unsigned long long)r->queue_p99, o->kmax_kb << 10);
	fprintf(f, "  %-26s %llu bytes\n", "queue max", (unsigned long long)r->queue_max);
	fprintf(f, "  %-26s %llu\n", "drops", (unsigned long long)r->drops);
	fprintf(f, "  %-26s %llu\n", "ECN marks", (unsigned long long)r->marks);
	fprintf(f, "  %-26s %llu sent, %llu handled\n", "CNPs",
		(unsigned long long)r->cnp_sent, (unsigned long long)r->cnp_handled);
	fprintf(f, "  %-26s %llu\n", "pause frames", (unsigned long long)r->pauses);
	fprintf(f, "  %-26s %llu, %llu timeouts\n", "retransmitted packets",
		(unsigned long long)r->retrans, (unsigned long long)r->timeouts);
	fprintf(f, "\n  flow  from  to  start ms  Gbit/s  DCQCN at the end: rate, alpha, cuts\n");
	for (unsigned k = 0; k < r->nflows; k++) {
		const struct roce_qp_cc *c = &r->flow[k].cc;

		fprintf(f, "  %4u  %4u  %2u  %8.1f  %6.2f  %7.2f  %5.3f  %llu%s\n", k,
			r->flow[k].src, r->flow[k].dst, (double)r->flow[k].start_ns / 1e6,
			r->flow[k].gbps, c->rate_kbps / 1e6, c->alpha / 1024.0,
			(unsigned long long)c->cuts,
			r->flow[k].dst == o->senders ? "" : "  (victim)");
	}
}

void fab_json(const struct fab_run *r, FILE *f)
{
	const struct fab_opts *o = &r->o;

	fprintf(f, "{\"senders\":%u,\"op\":\"%s\",\"cc\":\"%s\",\"pfc\":%s,\"link_gbps\":%u,"
		"\"duration_ms\":%u,\"utilization\":%.4f,\"jain_fairness\":%.4f,"
		"\"queue_p99_bytes\":%llu,\"queue_max_bytes\":%llu,\"kmax_bytes\":%u,"
		"\"kmin_bytes\":%u,\"drops\":%llu,\"ecn_marks\":%llu,\"cnp_sent\":%llu,"
		"\"cnp_handled\":%llu,\"pause_frames\":%llu,\"retransmissions\":%llu,"
		"\"timeouts\":%llu,\"converge_ms\":%.2f,\"window_ms\":%.2f,\"per_flow_gbps\":[",
		o->senders, o->read ? "read" : "write",
		o->dcqcn ? (o->paper ? "dcqcn-paper" : "dcqcn") : "none",
		o->pfc ? "true" : "false", o->link_gbps, o->duration_ms, r->utilization,
		r->jain, (unsigned long long)r->queue_p99, (unsigned long long)r->queue_max,
		o->kmax_kb << 10, o->kmin_kb << 10, (unsigned long long)r->drops,
		(unsigned long long)r->marks, (unsigned long long)r->cnp_sent,
		(unsigned long long)r->cnp_handled, (unsigned long long)r->pauses,
		(unsigned long long)r->retrans, (unsigned long long)r->timeouts,
		r->converge_ms, r->window_ms);
	for (unsigned k = 0, first = 1; k < r->nflows; k++)
		if (r->flow[k].dst == o->senders) {
			fprintf(f, "%s%.3f", first ? "" : ",", r->flow[k].gbps);
			first = 0;
		}
	fprintf(f, "]");
	if (o->victim)
		fprintf(f, ",\"victim_gbps\":%.3f", r->victim_gbps);
	fprintf(f, "}\n");
}
