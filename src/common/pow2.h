/* SPDX-License-Identifier: MIT */
/*
 * The smallest power of two not below n (1 for 0): the size of a ring
 * indexed with a mask (CQs, SQs and RQs, SRQs, index queues) that must
 * hold n entries.
 */
#ifndef ROCE_COMMON_POW2_H
#define ROCE_COMMON_POW2_H

#include <stdint.h>

static inline uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

#endif
