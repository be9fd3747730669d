/* SPDX-License-Identifier: MIT */
/*
 * The content check (--check): data with a known pattern, verified by the
 * side that receives it. Bandwidth tests cycle through slots of the
 * buffers as perftest does (many WRs in flight share a slot), so their
 * pattern depends only on the QP and the byte's offset in the QP's region:
 * every message written to a slot carries the same bytes, and a byte that
 * lands at the wrong offset or on the wrong QP is caught. Latency tests run
 * in lock step, so their pattern also carries the iteration number.
 */
#include "perf/perf.h"

uint8_t perf_pat_bw(unsigned qp, uint64_t off)
{
	return (uint8_t)(off ^ (off >> 8) * 3 ^ (off >> 16) * 5 ^ qp * 0x3du ^ 0xa5u);
}

uint8_t perf_pat_lat(uint64_t iter, uint64_t x)
{
	return (uint8_t)(x * 13u + (x >> 8) + iter * 151u + 0x33u);
}

void perf_fill_bw(uint8_t *p, unsigned qp, uint64_t off, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = perf_pat_bw(qp, off + i);
}

int64_t perf_verify_bw(const uint8_t *p, unsigned qp, uint64_t off, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != perf_pat_bw(qp, off + i))
			return (int64_t)i;
	return -1;
}

void perf_fill_lat(uint8_t *p, uint64_t iter, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = perf_pat_lat(iter, i);
}

int64_t perf_verify_lat(const uint8_t *p, uint64_t iter, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != perf_pat_lat(iter, i))
			return (int64_t)i;
	return -1;
}
