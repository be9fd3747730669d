/* SPDX-License-Identifier: MIT */
/*
 * The smallest power of two not below n (1 for 0): the size of a ring
 * indexed with a mask (CQs, SQs and RQs, SRQs, index queues) that must
 * hold n entries.
 */
#ifndef ROCE_COMMON_POW2_H
#define ROCE_COMMON_POW2_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/status.h"

static inline uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* A configured ring size: 0 (the default) or a power of two in [lo, hi];
 * else false, with *st ROCE_E_INVAL (not a power of two) or ROCE_E_RANGE. */
static inline bool pow2_in(unsigned v, unsigned lo, unsigned hi, int *st)
{
	if (v && (v & (v - 1))) {
		*st = ROCE_E_INVAL;
		return false;
	}
	if (v && (v < lo || v > hi)) {
		*st = ROCE_E_RANGE;
		return false;
	}
	return true;
}

#endif
