/* SPDX-License-Identifier: MIT */
/*
 * perftest's result tables and the arithmetic behind them
 * (perftest_parameters.c: print_report_bw, print_full_bw_report,
 * print_report_lat, print_report_lat_duration; the RESULT_FMT* and
 * REPORT_FMT* strings of perftest_parameters.h, tabs included, so scripts
 * that parse perftest's output parse ours). Times here are nanoseconds where perftest counts
 * CPU cycles; the results are the same quantities.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"
#include "roce/status.h"

void perf_print_bw(FILE *f, const struct perf_bw_result *r)
{
	fprintf(f, " %-7lu    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t   %-7.6lf\n",
		(unsigned long)r->size, r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
}

const char *perf_bw_header(enum perf_fmt fmt)
{
	return fmt == PERF_GBS ? PERF_RESULT_FMT_BW_G : PERF_RESULT_FMT_BW;
}

void perf_print_full_bw(FILE *f, enum perf_fmt fmt, const struct perf_bw_result *my,
			const struct perf_bw_result *rem)
{
	struct perf_bw_result t = *my;
	/* inc_accuracy (REPORT_FMT_EXT): from this side's own average, as
	 * perftest takes it before it adds the remote report */
	bool ext = my->bw_avg < 0.1 && fmt == PERF_GBS;

	if (rem) {              /* -b: the size and iterations stay mine */
		t.bw_peak += rem->bw_peak;
		t.bw_avg += rem->bw_avg;
		t.msg_rate += rem->msg_rate;
	}
	if (ext)
		fprintf(f, " %-7lu    %" PRIu64 "           %-7.6lf            %-7.6lf"
			"            %-7.6lf\n", (unsigned long)t.size, t.iters, t.bw_peak,
			t.bw_avg, t.msg_rate);
	else
		perf_print_bw(f, &t);
}

/* write_bw.c, read_bw.c, send_bw.c, atomic_bw.c: the report_both block */
void perf_print_report_both(FILE *f, enum perf_fmt fmt, bool atomic,
			    const struct perf_bw_result *my, const struct perf_bw_result *rem)
{
	const char *end = atomic ? "" : " ";

	fprintf(f, PERF_RESULT_LINE "\n Local results:%s\n" PERF_RESULT_LINE "%s", end,
		perf_bw_header(fmt));
	perf_print_full_bw(f, fmt, my, NULL);
	fprintf(f, PERF_RESULT_LINE "\n Remote results:%s\n" PERF_RESULT_LINE "%s", end,
		perf_bw_header(fmt));
	perf_print_full_bw(f, fmt, rem, NULL);
}

void perf_print_lat(FILE *f, const struct perf_lat_result *r)
{
	fprintf(f, " %-7lu %" PRIu64 "          %-7.2f        %-7.2f      %-7.2f  \t       "
		"%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
		(unsigned long)r->size, r->iters, r->t_min, r->t_max, r->t_typical,
		r->t_avg, r->t_stdev, r->p99, r->p999);
}

void perf_print_lat_dur(FILE *f, uint64_t size, uint64_t iters, double t_avg, double tps)
{
	fprintf(f, " %-7lu       %" PRIu64 "            %-7.2f        %-7.2f\n",
		(unsigned long)size, iters, t_avg, tps);
}

/*
 * The peak is the best rate over any run of messages i..j that ends at a
 * completion perftest timed (every cq_mod-th message and the last).
 */
static uint64_t best_delta(uint64_t iters, const uint64_t *t_post,
			   const uint64_t *t_done, unsigned cq_mod)
{
	uint64_t best = t_done[iters - 1] - t_post[0];

	for (uint64_t i = 0; i < iters; i++) {
		uint64_t first = (i + 1 + cq_mod - 1) / cq_mod * cq_mod - 1;

		for (uint64_t j = first; j < iters; j += cq_mod) {
			uint64_t t = (t_done[j] - t_post[i]) / (j - i + 1);

			if (t < best)
				best = t;
		}
		if (iters % cq_mod) {
			uint64_t j = iters - 1, t = (t_done[j] - t_post[i]) / (j - i + 1);

			if (t < best)
				best = t;
		}
	}
	return best;
}

void perf_bw_compute(uint64_t size, uint64_t iters, const uint64_t *t_post,
		     const uint64_t *t_done, unsigned cq_mod, bool peak,
		     enum perf_fmt fmt, struct perf_bw_result *r)
{
	uint64_t last = peak ? iters - 1 : 0;
	double ns = (double)(t_done[last] - t_post[0]);
	double unit = fmt == PERF_GBS ? PERF_FMT_FACTOR_GBS : PERF_FMT_FACTOR_MBS;

	memset(r, 0, sizeof(*r));
	r->size = size;
	r->iters = iters;
	if (iters == 0 || ns <= 0)
		return;
	r->bw_avg = (double)size * (double)iters * 1e9 / (ns * unit);
	r->msg_rate = (double)iters * 1e3 / ns;
	if (peak) {
		uint64_t d = best_delta(iters, t_post, t_done, cq_mod ? cq_mod : 1);

		r->bw_peak = d ? (double)size * 1e9 / ((double)d * unit) : 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int perf_lat_compute(uint64_t size, uint64_t iters, const uint64_t *t_post,
		     unsigned rtt_factor, struct perf_lat_result *r)
{
	uint64_t cnt = iters - 1, *d;
	double q = 1000.0 * rtt_factor, sum = 0, var = 0;
	uint64_t i99, i999;

	if (iters < 4)
		return ROCE_E_RANGE;
	d = malloc(cnt * sizeof(*d));
	if (!d)
		return ROCE_E_NOMEM;
	for (uint64_t i = 0; i < cnt; i++)
		d[i] = t_post[i + 1] - t_post[i];
	qsort(d, cnt, sizeof(*d), cmp_u64);
	cnt -= 2;                       /* LAT_MEASURE_TAIL: the two slowest go */
	for (uint64_t i = 0; i < cnt; i++)
		sum += (double)d[i] / q;
	r->size = size;
	r->iters = iters;
	r->t_avg = sum / (double)cnt;
	for (uint64_t i = 0; i < cnt; i++) {
		double v = r->t_avg - (double)d[i] / q;

		var += v * v;
	}
	r->t_stdev = sqrt(var / (double)cnt);
	/* get_median(): the middle one, or the mean of the two middle ones */
	r->t_typical = ((cnt - 1) % 2 ? (double)(d[cnt / 2] + d[cnt / 2 - 1]) / 2
				      : (double)d[cnt / 2]) / q;
	r->t_min = (double)d[0] / q;
	r->t_max = (double)d[cnt] / q;
	i99 = (uint64_t)ceil((double)cnt * 0.99);
	i999 = (uint64_t)ceil((double)cnt * 0.999);
	r->p99 = (double)d[i99] / q;
	r->p999 = (double)d[i999] / q;
	free(d);
	return ROCE_OK;
}
