/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock, one definition for every reader of it: in
 * milliseconds for the waits of host software (an ARP or neighbour
 * answer, a TCP exchange, a register command), in nanoseconds for
 * timings, and as a clock callback (roce_clock_ns) where a clock is a
 * parameter (the engine's, the CM's, a link's), which a simulator
 * replaces with its own.
 */
#ifndef ROCE_COMMON_CLOCK_H
#define ROCE_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t roce_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline uint64_t roce_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* roce_now_ns as a clock callback: ctx unused */
static inline uint64_t roce_clock_ns(void *ctx)
{
	(void)ctx;
	return roce_now_ns();
}

#endif
