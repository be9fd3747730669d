/* SPDX-License-Identifier: MIT */
/*
 * --plot FILE.svg: what people look at to judge a congestion control.
 * A column per algorithm (side by side with a --cc list, on the same
 * scales): top, each flow's rate through the bottleneck (Gbit/s, 100 us
 * bins); bottom, the bottleneck's queue (KB, 1 us samples, max per pixel
 * column) with Kmin and Kmax, and the convergence time as a dashed line
 * in both. Plain SVG, no library.
 */
#include <stdio.h>

#include "roce-fabric/fabric.h"

#define W 900                   /* a column */
#define H1 300                  /* rate panel */
#define H2 180                  /* queue panel */
#define ML 60                   /* left margin */
#define MT 50
#define GAP 50
#define PW (W - ML - 20)        /* a panel's width */

static const char *const colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

/* a column's x of a time */
static double x_of(const struct fab_run *r, int x0, double ms)
{
	return x0 + ML + ms / r->o.duration_ms * PW;
}

static void axis(FILE *f, const struct fab_run *r, int x0, int top, int h, double ymax,
		 const char *label)
{
	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n",
		x0 + ML, top, PW, h);
	for (int i = 0; i <= 4; i++) {
		double v = ymax * i / 4;
		int y = top + h - h * i / 4;

		fprintf(f, "<text x='%d' y='%d' font-size='11' text-anchor='end'>%.0f</text>\n",
			x0 + ML - 5, y + 4, v);
		fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#ddd'/>\n", x0 + ML, y,
			x0 + W - 20, y);
	}
	for (int i = 0; i <= 10; i++) {
		double ms = (double)r->o.duration_ms * i / 10;

		fprintf(f, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%.1f</text>\n",
			x_of(r, x0, ms), top + h + 14, ms);
	}
	fprintf(f, "<text x='%d' y='%d' font-size='12' transform='rotate(-90 %d %d)' "
		"text-anchor='middle'>%s</text>\n", x0 + 15, top + h / 2, x0 + 15, top + h / 2,
		label);
}

static void converged(FILE *f, const struct fab_run *r, int x0, int top, int h)
{
	double x;

	if (!r->converged)
		return;
	x = x_of(r, x0, r->converge_ms);
	fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#2ca02c' "
		"stroke-dasharray='6 3'/>\n", x, x, top, top + h);
}

static void column(FILE *f, const struct fab_run *r, int x0, double qmax)
{
	double gmax = r->o.link_gbps;
	int top2 = MT + H1 + GAP;
	unsigned cols = PW;

	fprintf(f, "<text x='%d' y='%d' font-size='13' font-weight='bold'>%s: ", x0 + ML,
		MT - 8, fab_cc_name(&r->o));
	if (r->converged)
		fprintf(f, "converged at %.1f ms, utilisation %.3f, Jain %.3f, %llu drops after",
			r->converge_ms, r->utilization, r->jain,
			(unsigned long long)r->drops_after);
	else
		fprintf(f, "not converged (2nd half: utilisation %.3f, Jain %.3f)",
			r->utilization, r->jain);
	fprintf(f, "</text>\n");
	axis(f, r, x0, MT, H1, gmax, "Gbit/s");
	for (unsigned k = 0; k < r->nflows; k++) {
		fprintf(f, "<polyline fill='none' stroke-width='%s' stroke='%s' points='",
			r->nflows > 32 ? "0.6" : "1.2", colors[k % 10]);
		for (unsigned b = 0; b < r->nbins; b++) {
			double g = r->flow[k].bins[b] * 8.0 / FAB_BIN_NS;   /* Gbit/s */

			fprintf(f, "%.1f,%.1f ", x_of(r, x0, (b + 0.5) * FAB_BIN_NS / 1e6),
				MT + H1 - (g > gmax ? gmax : g) / gmax * H1);
		}
		fprintf(f, "'/>\n");
		if (k < 16)
			fprintf(f, "<text x='%d' y='%d' font-size='11' fill='%s'>flow %u%s</text>\n",
				x0 + W - 95, MT + 14 + 13 * (int)k, colors[k % 10], k,
				r->flow[k].dst == r->o.senders ? "" : " (victim)");
	}
	converged(f, r, x0, MT, H1);
	axis(f, r, x0, top2, H2, qmax, "queue KB");
	for (unsigned kb = r->o.kmin_kb, i = 0; i < 2; i++, kb = r->o.kmax_kb)
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#d62728' "
			"stroke-dasharray='4 3'/><text x='%d' y='%.1f' font-size='10' "
			"fill='#d62728'>%s</text>\n", x0 + ML, x0 + W - 20,
			top2 + H2 - kb / qmax * H2, top2 + H2 - kb / qmax * H2, x0 + W - 55,
			top2 + H2 - kb / qmax * H2 - 3, i ? "Kmax" : "Kmin");
	fprintf(f, "<polyline fill='none' stroke='#333' stroke-width='1' points='");
	for (unsigned c = 0; c < cols; c++) {
		uint64_t a = r->nsamples * c / cols, b = r->nsamples * (c + 1) / cols;
		uint32_t m = 0;

		for (uint64_t s = a; s < b; s++)
			if (r->queue[s] > m)
				m = r->queue[s];
		fprintf(f, "%u,%.1f ", x0 + ML + c,
			top2 + H2 - (m / 1024.0 > qmax ? qmax : m / 1024.0) / qmax * H2);
	}
	fprintf(f, "'/>\n");
	converged(f, r, x0, top2, H2);
}

int fab_plot(const struct fab_run *r, unsigned n, const char *path)
{
	FILE *f = fopen(path, "w");
	const struct fab_opts *o = &r->o;
	double qmax = o->buffer_kb;
	int top2 = MT + H1 + GAP;

	if (!f)
		return -1;
	/* one queue scale for all columns: the buffer, or above it (PFC) */
	for (unsigned i = 0; i < n; i++)
		if (r[i].queue_max / 1024.0 + 1 > qmax)
			qmax = r[i].queue_max / 1024.0 + 1;
	if (qmax < o->kmax_kb * 1.2)
		qmax = o->kmax_kb * 1.2;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%u' height='%d' "
		"font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
		W * n, top2 + H2 + 40);
	fprintf(f, "<text x='%d' y='18' font-size='14'>%u:1 incast, %u Gbit/s%s: per-flow rate "
		"(Gbit/s) and bottleneck queue (KB) over time (ms, virtual); dashed green: "
		"converged</text>\n", ML, o->senders, o->link_gbps, o->pfc ? ", PFC" : "");
	for (unsigned i = 0; i < n; i++)
		column(f, &r[i], (int)(W * i), qmax);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}
