/* SPDX-License-Identifier: MIT */
/* The machine's wake-up latencies (wake_floor.h). */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "lib/wake_floor.h"

struct floor_run {
	int fd;
	_Atomic uint64_t rang_ns;       /* when the spinner rang */
	_Atomic uint64_t due_ns;        /* the timed sleeper's deadline, 0: none */
	_Atomic int stop, rt;
	uint64_t *ring, *timer;
	unsigned nring, ntimer, max;
};

static void *woken(void *arg)
{
	struct floor_run *r = arg;
	struct sched_param sp = { .sched_priority = 1 };
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
		atomic_store(&r->rt, 1);
	while (!atomic_load(&r->stop)) {
		uint64_t count;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (read(r->fd, &count, sizeof(count)) < 0)
			continue;
		if (r->nring < r->max && atomic_load(&r->rang_ns))
			r->ring[r->nring++] = bench_now_ns() - atomic_load(&r->rang_ns);
	}
	return NULL;
}

static void *timed(void *arg)
{
	struct floor_run *r = arg;

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (!atomic_load(&r->stop)) {
		uint64_t due = atomic_exchange(&r->due_ns, 0);
		struct timespec ts;

		if (!due) {
			bench_sleep_us(100);
			continue;
		}
		ts.tv_sec = (time_t)(due / 1000000000u);
		ts.tv_nsec = (long)(due % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (r->ntimer < r->max) {
			uint64_t now = bench_now_ns();

			r->timer[r->ntimer++] = now > due ? now - due : 0;
		}
	}
	return NULL;
}

static void *spinner(void *arg)
{
	struct floor_run *r = arg;
	volatile uint64_t n = 0;

	while (!atomic_load(&r->stop))
		n++;
	return NULL;
}

void wake_floor_run(struct wake_floor *f, unsigned rounds, unsigned poll_ms,
		    unsigned stop_ms, uint32_t handoff_us)
{
	struct floor_run r = { .max = rounds };
	pthread_t tw, tt, tp;
	volatile uint64_t n = 0;

	r.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r.ring = calloc(rounds, sizeof(uint64_t));
	r.timer = calloc(rounds, sizeof(uint64_t));
	if (r.fd < 0 || !r.ring || !r.timer)
		bench_die("wake floor: out of resources");
	if (pthread_create(&tw, NULL, woken, &r) || pthread_create(&tt, NULL, timed, &r) ||
	    pthread_create(&tp, NULL, spinner, &r))
		bench_die("wake floor: cannot start its threads");
	for (unsigned i = 0; i < rounds; i++) {
		uint64_t end = bench_now_ns() + (uint64_t)poll_ms * 1000000u, one = 1, now;

		while ((now = bench_now_ns()) < end)
			n++;
		/* one at a time: the two threads would race for the core */
		if (i & 1) {
			atomic_store(&r.due_ns, now + (uint64_t)handoff_us * 1000u);
		} else {
			atomic_store(&r.rang_ns, bench_now_ns());
			if (write(r.fd, &one, sizeof(one)) < 0)
				bench_die("wake floor: eventfd");
		}
		bench_sleep_us(stop_ms * 1000u);
	}
	atomic_store(&r.stop, 1);
	pthread_join(tw, NULL);
	pthread_join(tt, NULL);
	pthread_join(tp, NULL);
	close(r.fd);
	bench_sort_u64(r.ring, r.nring);
	bench_sort_u64(r.timer, r.ntimer);
	*f = (struct wake_floor){
		.rounds = rounds,
		.ring_p50_ns = bench_pct(r.ring, r.nring, 50),
		.ring_p99_ns = bench_pct(r.ring, r.nring, 99),
		.ring_max_ns = r.nring ? r.ring[r.nring - 1] : 0,
		.timer_p50_ns = bench_pct(r.timer, r.ntimer, 50),
		.timer_p99_ns = bench_pct(r.timer, r.ntimer, 99),
		.timer_max_ns = r.ntimer ? r.timer[r.ntimer - 1] : 0,
		.realtime = atomic_load(&r.rt),
	};
	free(r.ring);
	free(r.timer);
}
