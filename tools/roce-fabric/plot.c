/* SPDX-License-Identifier: MIT */
/*
 * --plot FILE.svg: what people look at to judge a congestion control.
 * Top: each flow's rate through the bottleneck (Gbit/s, 100 us bins);
 * bottom: the bottleneck's queue (KB, 1 us samples, max per pixel column)
 * with Kmin and Kmax. Plain SVG, no library.
 */
#include <stdio.h>

#include "roce-fabric/fabric.h"

#define W 900
#define H1 300                  /* rate panel */
#define H2 180                  /* queue panel */
#define ML 60                   /* left margin */
#define MT 30
#define GAP 50

static const char *const colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

static double x_of(const struct fab_run *r, double ms)
{
	return ML + ms / r->o.duration_ms * (W - ML - 20);
}

static void axis(FILE *f, const struct fab_run *r, int top, int h, double ymax,
		 const char *label)
{
	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n",
		ML, top, W - ML - 20, h);
	for (int i = 0; i <= 4; i++) {
		double v = ymax * i / 4;
		int y = top + h - h * i / 4;

		fprintf(f, "<text x='%d' y='%d' font-size='11' text-anchor='end'>%.0f</text>\n",
			ML - 5, y + 4, v);
		fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#ddd'/>\n", ML, y,
			W - 20, y);
	}
	for (int i = 0; i <= 10; i++) {
		double ms = (double)r->o.duration_ms * i / 10;

		fprintf(f, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%.1f</text>\n",
			x_of(r, ms), top + h + 14, ms);
	}
	fprintf(f, "<text x='15' y='%d' font-size='12' transform='rotate(-90 15 %d)' "
		"text-anchor='middle'>%s</text>\n", top + h / 2, top + h / 2, label);
}

int fab_plot(const struct fab_run *r, const char *path)
{
	FILE *f = fopen(path, "w");
	double gmax = r->o.link_gbps, qmax = (double)(r->o.buffer_kb > r->queue_max / 1024
						      ? r->queue_max / 1024 + 1 : r->o.buffer_kb);
	int top2 = MT + H1 + GAP;
	unsigned cols = W - ML - 20;

	if (!f)
		return -1;
	if (qmax < r->o.kmax_kb * 1.2)
		qmax = r->o.kmax_kb * 1.2;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
		W, top2 + H2 + 40);
	fprintf(f, "<text x='%d' y='18' font-size='14'>%u:1 incast, %u Gbit/s, cc %s%s: "
		"per-flow rate (Gbit/s) and bottleneck queue (KB) over time (ms, virtual)</text>\n",
		ML, r->o.senders, r->o.link_gbps, r->o.dcqcn ? "DCQCN" : "none",
		r->o.pfc ? " + PFC" : "");
	axis(f, r, MT, H1, gmax, "Gbit/s");
	for (unsigned k = 0; k < r->nflows; k++) {
		fprintf(f, "<polyline fill='none' stroke-width='1.2' stroke='%s' points='",
			colors[k % 10]);
		for (unsigned b = 0; b < r->nbins; b++) {
			double g = r->flow[k].bins[b] * 8.0 / FAB_BIN_NS;   /* Gbit/s */

			fprintf(f, "%.1f,%.1f ", x_of(r, (b + 0.5) * FAB_BIN_NS / 1e6),
				MT + H1 - (g > gmax ? gmax : g) / gmax * H1);
		}
		fprintf(f, "'/>\n<text x='%d' y='%d' font-size='11' fill='%s'>flow %u%s</text>\n",
			W - 95, MT + 14 + 13 * (int)k, colors[k % 10], k,
			r->flow[k].dst == r->o.senders ? "" : " (victim)");
	}
	axis(f, r, top2, H2, qmax, "queue KB");
	for (unsigned kb = r->o.kmin_kb, i = 0; i < 2; i++, kb = r->o.kmax_kb)
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#d62728' "
			"stroke-dasharray='4 3'/><text x='%d' y='%.1f' font-size='10' "
			"fill='#d62728'>%s</text>\n", ML, W - 20, top2 + H2 - kb / qmax * H2,
			top2 + H2 - kb / qmax * H2, W - 55, top2 + H2 - kb / qmax * H2 - 3,
			i ? "Kmax" : "Kmin");
	fprintf(f, "<polyline fill='none' stroke='#333' stroke-width='1' points='");
	for (unsigned c = 0; c < cols; c++) {
		uint64_t a = r->nsamples * c / cols, b = r->nsamples * (c + 1) / cols;
		uint32_t m = 0;

		for (uint64_t s = a; s < b; s++)
			if (r->queue[s] > m)
				m = r->queue[s];
		fprintf(f, "%u,%.1f ", ML + c, top2 + H2 - (m / 1024.0 > qmax ? qmax : m / 1024.0) /
							       qmax * H2);
	}
	fprintf(f, "'/>\n</svg>\n");
	return fclose(f) ? -1 : 0;
}
