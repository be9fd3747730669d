/* SPDX-License-Identifier: MIT */
/*
 * Run to completion's hand-over (src/engine/thread.c): how long after a
 * program's last poll the engine thread runs the engine again. Engine A
 * runs to completion: the caller spins on its CQ (drive, poll, nothing
 * found: waiting) for --poll-ms, then stops polling for --stop-ms, in
 * one of three ways, --rounds times each, while its peer B (a second
 * program: one thread that drives B's engine as it polls) reads 64 bytes
 * from A again and again, so that A's engine always has work:
 *   block     it sleeps (a read(), a sleep: its core frees)
 *   compute   it computes (its core stays busy)
 *   release   it blocks on a completion channel (roce_engine_release
 *             first, as the drop-in's ibv_get_cq_event does)
 * with --hogs threads spinning beside them at normal priority (the other
 * programs of a machine whose cores are full; default: one per core but
 * the two the programs take). Printed per way: the takeovers the engine counted (one per round
 * expected) and their delay from the last poll, p50, p99, max
 * (roce_engine_rtc_stats), against the bound of 100 us; and B's READ
 * round trips, p50, p99, max: what a peer sees of the hand-over.
 * Then the machine's own wake-ups, the same rounds without an engine
 * (lib/wake_floor.h): a thread blocked on an eventfd, at the parked
 * engine thread's priority, woken as the spinner stops (the hop
 * "release" takes), and how late a sleep to handoff_us after the stop
 * wakes (the watchdog's hop in "block"): the parts of a takeover that
 * are the machine's, not the engine's.
 *
 *   bench_takeover [--rounds N] [--poll-ms MS] [--stop-ms MS]
 *                  [--hogs N] [--handoff-us US]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/pair.h"
#include "lib/util.h"
#include "lib/wake_floor.h"
#include "roce/params.h"

enum way { WAY_BLOCK, WAY_COMPUTE, WAY_RELEASE };
static const char *const way_name[] = { "block", "compute", "release" };

static _Atomic int hogs_stop, peer_stop;

#define PEER_MAX 2000000u

/* B: one READ of 64 bytes from A at a time, B's engine driven by this
   thread as it polls; each round trip's ns into lat */
struct peer {
	struct pair *p;
	uint64_t *lat;
	size_t n;
};

static void *peer(void *arg)
{
	struct peer *r = arg;
	struct pair *p = r->p;
	struct roce_sge sge = { (uint64_t)(uintptr_t)side_win(&p->b, WIN_DST), 64,
				p->b.mr->lkey };
	struct roce_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_RDMA_READ,
				   .send_flags = ROCE_SEND_SIGNALED }, *bad;
	struct roce_wc wc;

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)side_win(&p->a, WIN_SRC);
	wr.wr.rdma.rkey = p->a.mr->rkey;
	while (!atomic_load_explicit(&peer_stop, memory_order_relaxed)) {
		uint64_t t0 = bench_now_ns();
		int n;

		if (roce_post_send(p->b.qp, &wr, &bad) != ROCE_OK)
			bench_die("B: post READ");
		for (;;) {
			roce_engine_drive(p->b.ctx);
			n = roce_poll_cq(p->b.scq, 1, &wc);
			if (n)
				break;
			roce_engine_waiting(p->b.ctx);
		}
		if (n < 0 || wc.status != ROCE_WC_SUCCESS)
			bench_die("B: READ failed (%s)", roce_wc_status_str(wc.status));
		if (r->n < PEER_MAX)
			r->lat[r->n++] = bench_now_ns() - t0;
	}
	return NULL;
}

static void *hog(void *arg)
{
	volatile uint64_t n = 0;

	(void)arg;
	while (!atomic_load_explicit(&hogs_stop, memory_order_relaxed))
		n++;
	return NULL;
}

/* A's caller spins on its send CQ for ms (nothing arrives) */
static void spin(struct pair *p, unsigned ms)
{
	uint64_t end = bench_now_ns() + (uint64_t)ms * 1000000u;
	struct roce_wc wc;

	while (bench_now_ns() < end) {
		roce_engine_drive(p->a.ctx);
		if (roce_poll_cq(p->a.scq, 1, &wc) == 0)
			roce_engine_waiting(p->a.ctx);
	}
}

static void stop(struct pair *p, enum way w, unsigned ms)
{
	uint64_t end;
	volatile uint64_t n = 0;

	switch (w) {
	case WAY_RELEASE:
		roce_engine_release(p->a.ctx);
		bench_sleep_us(ms * 1000u);
		break;
	case WAY_BLOCK:
		bench_sleep_us(ms * 1000u);
		break;
	case WAY_COMPUTE:
		end = bench_now_ns() + (uint64_t)ms * 1000000u;
		while (bench_now_ns() < end)
			n++;
		break;
	}
}

static void run(enum way w, unsigned rounds, unsigned poll_ms, unsigned stop_ms,
		uint32_t handoff_us)
{
	struct roce_engine_rtc_stats s;
	struct peer r = { .lat = malloc(PEER_MAX * sizeof(uint64_t)) };
	struct pair p;
	pthread_t t;
	int st;

	if (!r.lat)
		bench_die("out of memory");
	pair_open_memlink(&p, ROCE_MTU_1024, 1);
	r.p = &p;
	if ((st = roce_engine_set_handoff(p.a.ctx, handoff_us)) != ROCE_OK ||
	    (st = roce_engine_set_handoff(p.b.ctx, handoff_us)) != ROCE_OK ||
	    (st = pair_start(&p.a, -1)) != ROCE_OK || (st = pair_start(&p.b, -1)) != ROCE_OK)
		bench_die("engines: %s", roce_status_str(st));
	atomic_store(&peer_stop, 0);
	if (pthread_create(&t, NULL, peer, &r))
		bench_die("cannot start the peer");
	for (unsigned i = 0; i < rounds; i++) {
		spin(&p, poll_ms);
		stop(&p, w, stop_ms);
	}
	atomic_store(&peer_stop, 1);
	pthread_join(t, NULL);
	roce_engine_rtc_stats(p.a.ctx, &s);
	pair_teardown(&p);
	bench_sort_u64(r.lat, r.n);
	printf("%-8s %7u %9llu %8u %8u %10.1f   %-7s %9zu %7.1f %7.1f %8.1f\n", way_name[w],
	       rounds, (unsigned long long)s.takeovers, s.takeover_p50_us,
	       s.takeover_p99_us, (double)s.takeover_max_ns / 1000.0,
	       s.takeover_p99_us <= 100 ? "met" : "missed", r.n,
	       (double)bench_pct(r.lat, r.n, 50) / 1000.0,
	       (double)bench_pct(r.lat, r.n, 99) / 1000.0,
	       r.n ? (double)r.lat[r.n - 1] / 1000.0 : 0.0);
	free(r.lat);
}

/* The same rounds without an engine: the machine's own wake-ups */
static void floor_print(unsigned rounds, unsigned poll_ms, unsigned stop_ms, uint32_t handoff)
{
	struct wake_floor f;

	wake_floor_run(&f, rounds, poll_ms, stop_ms, handoff);
	printf("\nthe machine's own wake-ups (the same rounds, no engine):\n"
	       "  eventfd ring -> a blocked thread (%s) runs:  p50 %6.1f  p99 %6.1f  max %6.1f us\n"
	       "  a sleep to %u us after the stop wakes late by: p50 %6.1f  p99 %6.1f  max %6.1f us\n",
	       f.realtime ? "SCHED_FIFO 1" : "normal priority",
	       (double)f.ring_p50_ns / 1000.0, (double)f.ring_p99_ns / 1000.0,
	       (double)f.ring_max_ns / 1000.0, handoff, (double)f.timer_p50_ns / 1000.0,
	       (double)f.timer_p99_ns / 1000.0, (double)f.timer_max_ns / 1000.0);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_takeover [--rounds N] [--poll-ms MS] [--stop-ms MS]\n"
		"                      [--hogs N] [--handoff-us US]\n"
		"  --rounds N       stops per way (200)\n"
		"  --poll-ms MS     polling before each stop (2)\n"
		"  --stop-ms MS     each stop (3)\n"
		"  --hogs N         threads spinning beside them (cores - 2)\n"
		"  --handoff-us US  the engine's handoff (%u)\n", ROCE_RTC_HANDOFF_US);
}

static unsigned num(const char *opt, const char *s, unsigned lo, unsigned hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end || v < lo || v > hi) {
		fprintf(stderr, "bench_takeover: %s %s: %u to %u\n", opt, s, lo, hi);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "poll-ms", required_argument, NULL, 'p' },
		{ "stop-ms", required_argument, NULL, 's' },
		{ "hogs", required_argument, NULL, 'g' },
		{ "handoff-us", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned rounds = 200, poll_ms = 2, stop_ms = 3, nhogs;
	uint32_t handoff = ROCE_RTC_HANDOFF_US;
	pthread_t hogs[64];
	int c, ncpu = bench_ncpus();

	nhogs = ncpu > 2 ? (unsigned)ncpu - 2 : 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': rounds = num("--rounds", optarg, 1, 100000); break;
		case 'p': poll_ms = num("--poll-ms", optarg, 1, 10000); break;
		case 's': stop_ms = num("--stop-ms", optarg, 1, 10000); break;
		case 'g': nhogs = num("--hogs", optarg, 0, 64); break;
		case 'u': handoff = num("--handoff-us", optarg, 1, ROCE_RTC_HANDOFF_MAX_US); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	for (unsigned i = 0; i < nhogs; i++)
		if (pthread_create(&hogs[i], NULL, hog, NULL))
			bench_die("cannot start a spinning thread");
	printf("run to completion: the engine thread's takeover after the last poll\n"
	       "%u rounds of %u ms polling, %u ms stopped; handoff %u us; %u spinning "
	       "thread(s) beside, %d core(s)\n\n", rounds, poll_ms, stop_ms, handoff,
	       nhogs, ncpu);
	printf("%-8s %7s %9s %8s %8s %10s   %-7s %9s %7s %7s %8s\n", "", "", "A's",
	       "takeover", "", "", "<=100us", "B's", "READ", "", "");
	printf("%-8s %7s %9s %8s %8s %10s   %-7s %9s %7s %7s %8s\n", "stop", "rounds",
	       "takeovers", "p50 us", "p99 us", "max us", "p99", "READs", "p50 us",
	       "p99 us", "max us");
	for (int w = WAY_BLOCK; w <= WAY_RELEASE; w++)
		run((enum way)w, rounds, poll_ms, stop_ms, handoff);
	floor_print(rounds, poll_ms, stop_ms, handoff);
	atomic_store(&hogs_stop, 1);
	for (unsigned i = 0; i < nhogs; i++)
		pthread_join(hogs[i], NULL);
	return 0;
}
