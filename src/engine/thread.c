/* SPDX-License-Identifier: MIT */
/*
 * Who runs the engine's turn (engine_turn), and when: the engine thread
 * with its idle policy (spin, then sleep on the port and the doorbells,
 * or nap), and run to completion, where the threads of a program that
 * polls run the turns themselves (engine_drive) and the engine thread
 * parks until they stop:
 *
 *   program thread   poll -> drive: trylock, one turn
 *                    found nothing, will poll again -> waiting: drive_ns
 *                    about to block (a completion channel) -> release
 *   engine thread    drive_ns within handoff_us: park (blocked on its
 *                    eventfd, no spinning; RTC_BACKSTOP_US at most)
 *                    else, or released: take over, spin, sleep as before
 *   watchdog         while the engine thread is parked, at SCHED_IDLE:
 *                    every handoff_us, no drive since -> wake it
 *
 * The watchdog runs at SCHED_IDLE so that its looks never take a core
 * from a thread that has work (a polling program's: a look every 50 us
 * at normal priority preempted the pollers and took ib_send_lat from 14
 * to 35 us); a program that stops polling frees its core, where the
 * watchdog then runs at once. When no core is free (more runnable
 * threads than cores) the engine thread's own backstop takes over
 * within RTC_BACKSTOP_US. A thread cannot come back from SCHED_IDLE
 * without CAP_SYS_NICE, hence a watchdog apart from the engine thread.
 *
 * The parked engine thread waits at real-time priority (SCHED_FIFO 1)
 * where the process may: the watchdog's ring and the backstop must then
 * preempt whoever holds the core (a normal thread that has run much, as
 * one that served a flood has, waits for the scheduler's slice, 1-4
 * ms). It is back at normal priority after its first turn, so that its
 * spinning never starves the program. A parked thread that looked at the
 * clock every handoff_us itself, real-time, preempted the pollers 20,000
 * times a second: ib_send_lat 17 -> 40 us, ibv_rc_pingpong 81 -> 244 us.
 *
 * A NIC costs a polling program one thread (post rings a doorbell, poll
 * reads a CQE); with a thread of its own beside each program's polling
 * one the engine would need a core per program more, and on a machine
 * whose cores the programs fill every hand-off would wait for the
 * scheduler. The turn is taken by one thread at a time (a trylock: the
 * others read their CQs and go on, none waits on the lock). The thread
 * takes over within handoff_us of the last drive plus its wake-up; the
 * delays are kept (engine_rtc_stats) so the bound is measured, not
 * assumed.
 */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/sched.h"
#include "roce/status.h"

/* A spin-wait hint after an empty poll: the next poll rereads the ring
 * slots the peer is writing, and a tight loop would take their lines away
 * from it (DPDK's rte_pause). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Empty polls between two looks at the clock while spinning. */
#define IDLE_CHECK_POLLS 256

static void add_relaxed(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* ---- run to completion ------------------------------------------------------ */

/*
 * A drive that ends after the thread or the watchdog looked ends as a
 * drive of its own: the program's last poll before it may be older than
 * the handoff (an 80 ms turn), and its next poll, the one that says it
 * still spins, comes after the turn's end. Without this the thread took
 * over in between whenever the program's thread lost its core there.
 * Each look sets watched before it reads driving, each drive clears
 * driving before it reads watched (seq_cst): a look that saw the drive
 * in progress is always seen by the drive's end. watched is never
 * cleared by a look (with two readers, one's clearing could hide the
 * other's sighting), so a drive after any look reads the clock once.
 * Only within a polling spell (its drive_ns not spent, not released):
 * a program that polls once and finds its completion parks nothing.
 */
static void drive_ended(struct roce_engine *e, uint64_t at_start)
{
	if (!atomic_load_explicit(&e->rtc.watched, memory_order_seq_cst))
		return;
	atomic_store_explicit(&e->rtc.watched, false, memory_order_relaxed);
	if (at_start > atomic_load_explicit(&e->rtc.spent_ns, memory_order_relaxed) &&
	    !atomic_load_explicit(&e->rtc.released, memory_order_relaxed))
		atomic_compare_exchange_strong_explicit(&e->rtc.drive_ns, &at_start, roce_now_ns(),
							memory_order_release,
							memory_order_relaxed);
}

unsigned engine_drive(struct roce_engine *e)
{
	unsigned moved = 0;

	if (pthread_mutex_trylock(&e->lock) == 0) {
		uint64_t at_start = atomic_load_explicit(&e->rtc.drive_ns, memory_order_relaxed);

		/* a long turn (a 64 KB WRITE's frames) is a drive too: the
		   thread does not take over from a program inside one */
		atomic_store_explicit(&e->rtc.driving, true, memory_order_relaxed);
		moved = engine_turn(e);
		atomic_store_explicit(&e->rtc.driving, false, memory_order_seq_cst);
		drive_ended(e, at_start);
		pthread_mutex_unlock(&e->lock);
		add_relaxed(&e->rtc.driven);
	}
	return moved;
}

void engine_waiting(struct roce_engine *e)
{
	if (atomic_load_explicit(&e->rtc.released, memory_order_relaxed))
		atomic_store_explicit(&e->rtc.released, false, memory_order_relaxed);
	atomic_store_explicit(&e->rtc.drive_ns, roce_now_ns(), memory_order_release);
}

static void ring(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		return;         /* a full counter wakes as well */
}

static void drain(int fd)
{
	uint64_t count;

	if (read(fd, &count, sizeof(count)) < 0)
		return;
}

void engine_release(struct roce_engine *e)
{
	if (!atomic_load_explicit(&e->rtc.handoff_us, memory_order_relaxed))
		return;
	atomic_store_explicit(&e->rtc.released, true, memory_order_seq_cst);
	if (atomic_load_explicit(&e->rtc.parked, memory_order_seq_cst))
		ring(e->wake.fd);
}

int engine_set_handoff(struct roce_engine *e, uint32_t handoff_us)
{
	if (handoff_us > ROCE_RTC_HANDOFF_MAX_US)
		return ROCE_E_RANGE;
	atomic_store_explicit(&e->rtc.handoff_us, handoff_us, memory_order_relaxed);
	return ROCE_OK;
}

/* The thread took over handoff delay_ns after the last drive. */
static void takeover(struct roce_engine *e, uint64_t delay_ns)
{
	uint64_t us = delay_ns / 1000u;
	_Atomic uint32_t *b = &e->rtc.hist[us < ENGINE_RTC_HIST - 1 ? us : ENGINE_RTC_HIST - 1];

	/* one writer (this thread): relaxed load and store */
	atomic_store_explicit(b, atomic_load_explicit(b, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	if (delay_ns > atomic_load_explicit(&e->rtc.max_ns, memory_order_relaxed))
		atomic_store_explicit(&e->rtc.max_ns, delay_ns, memory_order_relaxed);
	add_relaxed(&e->rtc.takeovers);
}

/* The smallest delay, us, that p parts in a thousand of the takeovers
   did not exceed (the last bucket: at least that) */
static uint32_t hist_at(const struct roce_engine *e, uint64_t n, unsigned per_mille)
{
	uint64_t want = (n * per_mille + 999) / 1000, seen = 0;

	for (uint32_t us = 0; us < ENGINE_RTC_HIST; us++) {
		seen += atomic_load_explicit(&e->rtc.hist[us], memory_order_relaxed);
		if (seen >= want)
			return us + 1;
	}
	return ENGINE_RTC_HIST;
}

void engine_rtc_stats(struct roce_engine *e, struct roce_engine_rtc_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->handoff_us = atomic_load_explicit(&e->rtc.handoff_us, memory_order_relaxed);
	s->driven = atomic_load_explicit(&e->rtc.driven, memory_order_relaxed);
	s->thread_turns = atomic_load_explicit(&e->rtc.thread_turns, memory_order_relaxed);
	s->parks = atomic_load_explicit(&e->rtc.parks, memory_order_relaxed);
	s->takeovers = atomic_load_explicit(&e->rtc.takeovers, memory_order_relaxed);
	s->parks_realtime = atomic_load_explicit(&e->rtc.rt_ok, memory_order_relaxed) &&
			    !atomic_load_explicit(&e->rtc.rt_refused, memory_order_relaxed);
	/* the thread may be adding a takeover: a figure that lags by one */
	if (s->takeovers) {
		s->takeover_p50_us = hist_at(e, s->takeovers, 500);
		s->takeover_p99_us = hist_at(e, s->takeovers, 990);
		s->takeover_max_ns = atomic_load_explicit(&e->rtc.max_ns, memory_order_relaxed);
	}
}

/* A program that sleeps on a completion channel polls once per event
   and finds its completion: only a poll that found nothing (the caller
   spins on it) parks the thread, or every event would park it and the
   next wait wake it again (ib_send_lat -e: 26 -> 71 us). */

/* The engine thread's longest park when the watchdog does not run (no
   core free for a SCHED_IDLE thread) */
#define RTC_BACKSTOP_US 1000u

static bool drives_recent(struct roce_engine *e, uint64_t *last, uint64_t *left_ns)
{
	uint32_t h = atomic_load_explicit(&e->rtc.handoff_us, memory_order_relaxed);
	uint64_t now, until;

	*last = atomic_load_explicit(&e->rtc.drive_ns, memory_order_acquire);
	if (!h || atomic_load_explicit(&e->rtc.released, memory_order_acquire))
		return false;
	atomic_store_explicit(&e->rtc.watched, true, memory_order_seq_cst);
	if (atomic_load_explicit(&e->rtc.driving, memory_order_seq_cst)) {
		*left_ns = (uint64_t)h * 1000u;
		return true;
	}
	if (!*last || *last <= atomic_load_explicit(&e->rtc.spent_ns, memory_order_relaxed))
		return false;
	now = roce_now_ns();
	until = *last + (uint64_t)h * 1000u;
	*left_ns = until > now ? until - now : 0;
	return until > now;
}

/* Real-time (SCHED_FIFO 1) while parked, if allowed: *rt is the thread's
   state; e->rtc.rt_refused is set for good at the first refusal. */
static void set_rt(struct roce_engine *e, bool *rt, bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	if (*rt == on || (on && atomic_load_explicit(&e->rtc.rt_refused, memory_order_relaxed)))
		return;
	if (pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp) == 0) {
		*rt = on;
		if (on)
			atomic_store_explicit(&e->rtc.rt_ok, true, memory_order_relaxed);
	} else if (on) {
		atomic_store_explicit(&e->rtc.rt_refused, true, memory_order_relaxed);
	}
}

/*
 * Programs drive the engine: park on the eventfd (engine_release and the
 * watchdog ring it), without setting wake.asleep (their posts ring
 * nothing: they run the turn themselves). True while parked; false once
 * the thread should run (the drives stopped, a release, or run to
 * completion is off).
 */
static bool park(struct roce_engine *e, bool *was_parked, bool *rt)
{
	struct pollfd pfd = { .fd = e->wake.fd, .events = POLLIN };
	struct timespec ts = { 0, (long)RTC_BACKSTOP_US * 1000 };
	uint64_t last, left, now;

	if (!drives_recent(e, &last, &left))
		goto run;
	if (!*was_parked) {
		add_relaxed(&e->rtc.parks);
		*was_parked = true;
	}
	set_rt(e, rt, true);
	atomic_store_explicit(&e->rtc.parked, true, memory_order_seq_cst);
	ring(e->rtc.watch_fd);
	/* a release between the look above and parked set: seen here */
	if (!atomic_load_explicit(&e->rtc.released, memory_order_seq_cst) &&
	    ppoll(&pfd, 1, &ts, NULL) > 0)
		drain(e->wake.fd);
	atomic_store_explicit(&e->rtc.parked, false, memory_order_relaxed);
	return true;
run:
	if (*was_parked) {
		*was_parked = false;
		now = roce_now_ns();
		takeover(e, last && now > last ? now - last : 0);
	}
	/* spent: the next drive parks the thread again, not this one (a
	   release taken over within handoff_us of the last drive would
	   otherwise park it again until the watchdog's ring: a second,
	   late takeover) */
	if (last)
		atomic_store_explicit(&e->rtc.spent_ns, last, memory_order_relaxed);
	atomic_store_explicit(&e->rtc.released, false, memory_order_relaxed);
	return false;
}

static void *watchdog(void *arg)
{
	struct roce_engine *e = arg;
	struct sched_param sp = { 0 };
	struct pollfd pfd = { .fd = e->rtc.watch_fd, .events = POLLIN };

	/* at normal priority if refused: the looks then cost the pollers */
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	/* its sleeps end on time: the default slack (50 us) would double
	   the takeover */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (atomic_load_explicit(&e->running, memory_order_acquire)) {
		uint64_t last, left;
		struct timespec ts;

		if (!atomic_load_explicit(&e->rtc.parked, memory_order_acquire)) {
			/* until the next park (or stop) */
			if (poll(&pfd, 1, -1) > 0)
				drain(e->rtc.watch_fd);
			continue;
		}
		if (drives_recent(e, &last, &left)) {
			ts.tv_sec = 0;
			ts.tv_nsec = (long)left;
			nanosleep(&ts, NULL);
			continue;
		}
		ring(e->wake.fd);       /* the drives stopped: take over */
		if (poll(&pfd, 1, -1) > 0)
			drain(e->rtc.watch_fd);
	}
	return NULL;
}

/* ---- the engine thread ------------------------------------------------------- */

/*
 * Sleep until the port or a doorbell rings, or max_ms pass (the driver
 * may change a QP through the register file, which rings nothing).
 * Returns false when sleeping was not possible (then the caller naps).
 * The order closes the race with a frame or a work request published
 * meanwhile (roce/link.h): asleep is set and fenced, then one more poll.
 */
static bool engine_sleep(struct roce_engine *e, uint32_t max_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = e->wake.fd, .events = POLLIN },
		{ .fd = e->wake.port_fd, .events = POLLIN },
	};
	uint64_t count;
	unsigned moved;
	bool may, broken = false;

	pthread_mutex_lock(&e->lock);
	may = sched_idle(e);
	pthread_mutex_unlock(&e->lock);
	if (!may)
		return false;
	atomic_store(&e->wake.asleep, 1);
	/* pairs with the producers' fence: either they see asleep or the
	 * poll below sees their work */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load(&e->running)) {        /* stopping: see engine_stop */
		atomic_store(&e->wake.asleep, 0);
		return true;
	}
	pthread_mutex_lock(&e->lock);
	moved = engine_turn(e);
	pthread_mutex_unlock(&e->lock);
	if (!moved) {
		add_relaxed(&e->sleeps);
		if (poll(pfd, e->wake.port_fd >= 0 ? 2 : 1, (int)max_ms) > 0)
			add_relaxed(&e->wakeups);
		/* a socket in error stays ready: nap instead of spinning */
		broken = pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL);
	}
	atomic_store_explicit(&e->wake.asleep, 0, memory_order_relaxed);
	/* empty the counter (non-blocking): rings while awake are spent */
	if (read(e->wake.fd, &count, sizeof(count)) < 0)
		count = 0;
	return !broken;
}

static void *engine_thread(void *arg)
{
	struct roce_engine *e = arg;
	uint64_t idle_since = 0;
	unsigned empty = 0;
	bool napping = false, parked = false, rt = false;

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);

	while (atomic_load_explicit(&e->running, memory_order_acquire)) {
		uint32_t after_us, nap_us, sleep_ms;
		struct timespec nap;
		uint64_t now;
		unsigned moved;

		if (park(e, &parked, &rt)) {
			idle_since = 0;         /* after the drives, spin anew */
			empty = 0;
			napping = false;
			continue;
		}
		pthread_mutex_lock(&e->lock);
		moved = engine_turn(e);
		pthread_mutex_unlock(&e->lock);
		add_relaxed(&e->rtc.thread_turns);
		set_rt(e, &rt, false);  /* the takeover's turn is run */
		if (moved) {
			idle_since = 0;
			empty = 0;
			napping = false;
			continue;
		}
		/* run to completion: an idle turn gives way, so a program
		   that polls again on this core runs now, not after the
		   scheduler's slice (it then parks this thread) */
		if (atomic_load_explicit(&e->rtc.handoff_us, memory_order_relaxed))
			sched_yield();
		else
			cpu_relax();
		after_us = atomic_load_explicit(&e->idle_after_us, memory_order_relaxed);
		if (!after_us)
			continue;
		if (!napping) {
			/* spinning: a look at the clock every so many empty
			 * polls; quiet for after_us, start napping */
			if (++empty < IDLE_CHECK_POLLS)
				continue;
			empty = 0;
			now = roce_now_ns();
			if (!idle_since)
				idle_since = now;
			if (now - idle_since < (uint64_t)after_us * 1000u)
				continue;
			napping = true;
		}
		sleep_ms = atomic_load_explicit(&e->idle_sleep_ms, memory_order_relaxed);
		if (sleep_ms && engine_sleep(e, sleep_ms))
			continue;
		nap_us = atomic_load_explicit(&e->idle_nap_us, memory_order_relaxed);
		nap.tv_sec = nap_us / 1000000u;
		nap.tv_nsec = (long)(nap_us % 1000000u) * 1000;
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int engine_set_idle(struct roce_engine *e, uint32_t after_us, uint32_t nap_us)
{
	if (nap_us == 0 || nap_us > 100000u)
		return ROCE_E_RANGE;
	atomic_store_explicit(&e->idle_nap_us, nap_us, memory_order_relaxed);
	atomic_store_explicit(&e->idle_after_us, after_us, memory_order_relaxed);
	return ROCE_OK;
}

int engine_set_sleep(struct roce_engine *e, uint32_t max_ms)
{
	if (max_ms > 3600000u)
		return ROCE_E_RANGE;
	atomic_store_explicit(&e->idle_sleep_ms, max_ms, memory_order_relaxed);
	return ROCE_OK;
}

void engine_sleep_stats(struct roce_engine *e, uint64_t *sleeps, uint64_t *wakeups)
{
	*sleeps = atomic_load_explicit(&e->sleeps, memory_order_relaxed);
	*wakeups = atomic_load_explicit(&e->wakeups, memory_order_relaxed);
}

int engine_start(struct roce_engine *e, int cpu)
{
	sigset_t all, old;
	bool dog;
	int rc;

	if (e->has_thread)
		return ROCE_E_STATE;
	e->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (e->wake.fd < 0)
		return ROCE_E_NOMEM;
	/* from now on post_send rings it: before the thread can sleep */
	atomic_store(&e->has_thread, true);
	roce_port_set_wake(e->port, &e->wake);
	atomic_store(&e->running, true);
	/* the program's signals are the program's threads' to take: a
	   handler run on the engine thread would find none of its own
	   state (and could stop the NIC mid-turn) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e->rtc.watch_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	rc = e->rtc.watch_fd < 0 ? -1 : pthread_create(&e->thread, NULL, engine_thread, e);
	dog = rc == 0 && pthread_create(&e->rtc.watchdog, NULL, watchdog, e) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0 || !dog) {
		atomic_store(&e->running, false);
		if (rc == 0) {
			ring(e->wake.fd);
			pthread_join(e->thread, NULL);
		}
		roce_port_set_wake(e->port, NULL);
		atomic_store(&e->has_thread, false);
		close(e->wake.fd);
		if (e->rtc.watch_fd >= 0)
			close(e->rtc.watch_fd);
		e->wake.fd = e->wake.port_fd = e->rtc.watch_fd = -1;
		return ROCE_E_NOMEM;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_setaffinity_np(e->thread, sizeof(set), &set);
	}
	return ROCE_OK;
}

void engine_stop(struct roce_engine *e)
{
	if (!e->has_thread)
		return;
	atomic_store(&e->running, false);
	engine_wake(e);                 /* out of its sleep, to see it stop */
	ring(e->wake.fd);               /* or out of its park */
	ring(e->rtc.watch_fd);
	pthread_join(e->thread, NULL);
	pthread_join(e->rtc.watchdog, NULL);
	roce_port_set_wake(e->port, NULL);
	atomic_store(&e->has_thread, false);
	close(e->wake.fd);
	close(e->rtc.watch_fd);
	e->wake.fd = e->wake.port_fd = e->rtc.watch_fd = -1;
}
