/* SPDX-License-Identifier: MIT */
/*
 * The machine's own wake-up latencies, measured the way run to completion
 * meets them (bench_takeover's "floor" row): what no hand-over can beat.
 */
#ifndef BENCH_WAKE_FLOOR_H
#define BENCH_WAKE_FLOOR_H

#include <stdint.h>

struct wake_floor {
	unsigned rounds;
	uint64_t ring_p50_ns, ring_p99_ns, ring_max_ns;   /* eventfd ring -> woken */
	uint64_t timer_p50_ns, timer_p99_ns, timer_max_ns; /* a sleep's overshoot */
	int realtime;   /* the woken thread waited at SCHED_FIFO 1 */
};

/*
 * rounds times (each measure in every other round: they would race for
 * the core that frees): a thread spins poll_ms (beside a second spinning thread,
 * the peer), then rings an eventfd and sleeps stop_ms; a thread blocked
 * in ppoll on it (at SCHED_FIFO 1 where the process may, as the parked
 * engine thread) notes the ring-to-run delay. And a thread that sleeps
 * until handoff_us after the spinner stops (an absolute deadline, timer
 * slack 1 us, as the watchdog) notes how late it wakes.
 */
void wake_floor_run(struct wake_floor *f, unsigned rounds, unsigned poll_ms,
		    unsigned stop_ms, uint32_t handoff_us);

#endif
