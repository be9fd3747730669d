/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock in milliseconds, for the waits of host software (an
 * ARP or neighbour answer, a TCP exchange, a register command): one
 * definition for all of them. The engine keeps its own clock in
 * nanoseconds behind roce_context_attr.now_ns, which a simulator replaces.
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

#endif
