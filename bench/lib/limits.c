/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/bigmem.h"
#include "lib/limits.h"
#include "lib/report.h"
#include "roce/icrc.h"

#define CHUNK_ITERS 64u         /* operations between two clock reads */

struct pass {
	bool crc;               /* CRC-32 of src, else memcpy src -> dst */
	size_t size;
	uint8_t *src, *dst;
	size_t span;            /* bytes walked through (size = hot) */
};

static inline void clobber(void)
{
	__asm__ volatile("" ::: "memory");
}

static double pass_once(void *arg, double secs)
{
	struct pass *p = arg;
	uint64_t t0 = bench_now_ns(), t, bytes = 0;
	size_t off = 0;
	volatile uint32_t sink = 0;

	do {
		for (unsigned k = 0; k < CHUNK_ITERS; k++) {
			if (p->crc)
				sink ^= roce_crc32(0, p->src + off, p->size);
			else
				memcpy(p->dst + off, p->src + off, p->size);
			clobber();
			off += p->size;
			if (off + p->size > p->span)
				off = 0;
		}
		bytes += (uint64_t)CHUNK_ITERS * p->size;
		t = bench_now_ns() - t0;
	} while (t < secs * 1e9);
	(void)sink;
	return (double)bytes / (double)t;       /* GB/s */
}

static void passes(const struct bench_cfg *cfg)
{
	static const size_t sizes[] = { 4096, 65536 };
	size_t span = cfg->cold_bytes;
	/* in huge pages, as the engine's DDR and rings are */
	uint8_t *src = big_alloc(span), *dst = big_alloc(span);

	if (!src || !dst)
		bench_die("cannot allocate 2 x %zu MB for the cold measurements", span >> 20);
	/* touch every page so page faults are not measured */
	bench_fill(src, span, 1);
	memset(dst, 0, span);
	for (int crc = 0; crc <= 1; crc++) {
		for (int cold = 0; cold <= 1; cold++) {
			for (size_t i = 0; i < 2; i++) {
				struct pass p = { crc, sizes[i], src, dst,
						  cold ? span : sizes[i] };
				struct bench_row *r = bench_row_add("limits",
						crc ? "crc32" : "memcpy");

				snprintf(r->cond, sizeof(r->cond), "%s", cold ? "cold" : "hot");
				snprintf(r->unit, sizeof(r->unit), "GB/s");
				r->size = (uint32_t)sizes[i];
				r->cores = 1;
				if (crc)
					snprintf(r->note, sizeof(r->note), "roce_crc32 (%s)",
						 roce_crc_impl_name(roce_crc_selected()));
				else if (cold)
					snprintf(r->note, sizeof(r->note), "%zu MB walked",
						 span >> 20);
				bench_measure(cfg->reps_key, cfg->secs, false, pass_once, &p,
					      &r->st, &r->load);
			}
		}
	}
	big_free(src, span);
	big_free(dst, span);
}

/* ---- a system call ----------------------------------------------------------- */

/* ns per call of fn: a system call, or a clock read (the engine reads the
 * clock once per poll) */
static double call_once(void *arg, double secs)
{
	uint64_t t0 = bench_now_ns(), t, n = 0;
	volatile uint64_t sink = 0;

	do {
		for (unsigned k = 0; k < CHUNK_ITERS; k++) {
			if (arg)
				sink += bench_now_ns();
			else
				syscall(SYS_getppid);
		}
		n += CHUNK_ITERS;
		t = bench_now_ns() - t0;
	} while (t < secs * 1e9);
	(void)sink;
	return (double)t / (double)n;   /* ns per call */
}

/* ---- a cache line to the other core and back ------------------------------- */

struct pingpong {
	_Alignas(64) _Atomic uint64_t ping;
	_Alignas(64) _Atomic uint64_t pong;
	int cpu_b;
	uint64_t n;
	uint64_t *samples;
};

static void *ponger(void *arg)
{
	struct pingpong *pp = arg;

	for (uint64_t i = 1; i <= pp->n; i++) {
		while (atomic_load_explicit(&pp->ping, memory_order_acquire) != i)
			;
		atomic_store_explicit(&pp->pong, i, memory_order_release);
	}
	return NULL;
}

/* p50 and p99 of n round trips, each timed alone (one clock read, some
 * 20 ns on this TSC clock, is included). */
static void cacheline_rtt(const struct bench_cfg *cfg, uint64_t n, double *p50,
			  double *p99)
{
	struct pingpong *pp = aligned_alloc(64, sizeof(*pp));
	pthread_t t;

	if (!pp || !(pp->samples = malloc(n * sizeof(uint64_t))))
		bench_die("out of memory");
	atomic_init(&pp->ping, 0);
	atomic_init(&pp->pong, 0);
	pp->cpu_b = cfg->cpu_b;
	pp->n = n;
	bench_pin(cfg->cpu_a);
	bench_thread(&t, ponger, pp, pp->cpu_b);
	for (uint64_t i = 1; i <= n; i++) {
		uint64_t t0 = bench_now_ns();

		atomic_store_explicit(&pp->ping, i, memory_order_release);
		while (atomic_load_explicit(&pp->pong, memory_order_acquire) != i)
			;
		pp->samples[i - 1] = bench_now_ns() - t0;
	}
	pthread_join(t, NULL);
	bench_sort_u64(pp->samples, n);
	*p50 = (double)bench_pct(pp->samples, n, 50);
	*p99 = (double)bench_pct(pp->samples, n, 99);
	free(pp->samples);
	free(pp);
	bench_pin(-1);
}

static void cacheline(const struct bench_cfg *cfg)
{
	double p50[BENCH_MAX_REPS], p99[BENCH_MAX_REPS];
	uint64_t n = cfg->quick ? 20000 : 100000;
	struct bench_row *r50, *r99;
	struct bench_load_mark m;
	unsigned reps = cfg->reps_key;

	if (cfg->cpu_a == cfg->cpu_b)
		return;
	bench_load_mark(&m);
	for (unsigned i = 0; i < reps; i++)
		cacheline_rtt(cfg, n, &p50[i], &p99[i]);
	r50 = bench_row_add("limits", "cacheline rtt");
	r99 = bench_row_add("limits", "cacheline rtt");
	bench_stat_of(p50, reps, true, &r50->st);
	bench_stat_of(p99, reps, true, &r99->st);
	bench_load_since(&m, &r50->load);
	r99->load = r50->load;
	snprintf(r50->cond, sizeof(r50->cond), "p50");
	snprintf(r99->cond, sizeof(r99->cond), "p99");
	r50->cores = r99->cores = 2;
	snprintf(r50->unit, sizeof(r50->unit), "ns");
	snprintf(r99->unit, sizeof(r99->unit), "ns");
	snprintf(r50->note, sizeof(r50->note), "CPU %d <-> CPU %d, %llu round trips",
		 cfg->cpu_a, cfg->cpu_b, (unsigned long long)n);
}

void limits_run(const struct bench_cfg *cfg)
{
	struct bench_row *r;

	bench_pin(cfg->cpu_a);
	passes(cfg);
	r = bench_row_add("limits", "syscall getppid");
	snprintf(r->unit, sizeof(r->unit), "ns");
	r->cores = 1;
	bench_measure(cfg->reps_key, cfg->secs, true, call_once, NULL, &r->st, &r->load);
	r = bench_row_add("limits", "clock_gettime");
	snprintf(r->unit, sizeof(r->unit), "ns");
	snprintf(r->note, sizeof(r->note), "CLOCK_MONOTONIC (vDSO)");
	r->cores = 1;
	bench_measure(cfg->reps_key, cfg->secs, true, call_once, r, &r->st, &r->load);
	bench_pin(-1);
	cacheline(cfg);
}
