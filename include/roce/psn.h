/* SPDX-License-Identifier: MIT */
/*
 * 24-bit packet sequence number arithmetic (IBA 9.7.1), in one place.
 *
 * PSNs wrap at 2^24. "a before b" is decided in the half-space of 2^23
 * around a, as rxe's psn_compare() does: the difference is sign-extended
 * from 24 bits.
 */
#ifndef ROCE_PSN_H
#define ROCE_PSN_H

#include <stdint.h>

#define ROCE_PSN_MASK 0xFFFFFFu

/* (a + n) mod 2^24 */
static inline uint32_t roce_psn_add(uint32_t a, uint32_t n)
{
	return (a + n) & ROCE_PSN_MASK;
}

/* Signed distance b - a in [-2^23, 2^23): > 0 when b is after a. Exactly
 * 2^23 apart counts as before, as rxe's psn_compare() has it. */
static inline int32_t roce_psn_diff(uint32_t b, uint32_t a)
{
	uint32_t d = (b - a) & ROCE_PSN_MASK;

	return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* <0, 0, >0 like memcmp: a before, equal to, after b. */
static inline int roce_psn_cmp(uint32_t a, uint32_t b)
{
	int32_t d = roce_psn_diff(a, b);

	return (d > 0) - (d < 0);
}

/* Forward distance from a to b, 0 .. 2^24-1 (how many PSNs to reach b). */
static inline uint32_t roce_psn_dist(uint32_t a, uint32_t b)
{
	return (b - a) & ROCE_PSN_MASK;
}

#endif
