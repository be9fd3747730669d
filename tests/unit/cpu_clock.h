/* SPDX-License-Identifier: MIT */
/*
 * The idle suites' clocks: the process's CPU time (how much an engine
 * thread spends asleep), and a sleep that resumes after a signal.
 */
#ifndef ROCE_TEST_UNIT_CPU_CLOCK_H
#define ROCE_TEST_UNIT_CPU_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

#endif
