/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric's arithmetic on series (fabric.h): Jain's fairness index
 * (Jain, Chiu and Hawe, DEC-TR-301, 1984), the convergence point of a
 * series of windows, percentiles. Nothing here knows the run: the report
 * feeds it, the unit test feeds it constructed traces.
 */
#include <stdlib.h>

#include "roce-fabric/fabric.h"

double fab_jain(const double *x, unsigned n)
{
	double s = 0, s2 = 0;

	for (unsigned i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return n < 2 || s2 == 0 ? 1.0 : s * s / (n * s2);
}

unsigned fab_converge(const bool *ok, unsigned n)
{
	unsigned c = n;

	while (c > 0 && ok[c - 1])
		c--;
	return c;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t fab_percentile(uint32_t *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u32);
	return v[(size_t)((double)(n - 1) * p)];
}
