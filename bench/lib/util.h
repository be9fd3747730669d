/* SPDX-License-Identifier: MIT */
/*
 * Benchmark helpers: a monotonic clock, thread pinning, statistics over
 * repeated measurements, and how busy the machine is while we measure (this
 * machine runs builds and guests beside the benchmark, so every figure is
 * a median of repeats and the load is recorded next to it).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>

#define BENCH_MAX_REPS 16

/* Messages rotate through this many bytes of source and destination (at
 * least one message): the working set of the engine runs and of the
 * ICRC+copy bound, so both see the same caches. */
#define BENCH_WINDOW   (256u << 10)

/* A bug (an error completion, a wrong byte, a setup failure): print and
 * exit 1. Benchmarks never fail for a missed target, only for these. */
__attribute__((noreturn, format(printf, 1, 2)))
void bench_die(const char *fmt, ...);

uint64_t bench_now_ns(void);
/* The same clock in seconds. */
double bench_now(void);
/* CPU time this process (all its threads) has used. */
uint64_t bench_cpu_ns(void);
void bench_sleep_us(unsigned us);

/* Pin the calling thread to cpu (-1: any); false when the kernel refused. */
bool bench_pin(int cpu);
/* Start a thread already pinned to cpu: it must not first wait for a CPU
 * its creator may be spinning on (at real-time priority it never would). */
void bench_thread(pthread_t *t, void *(*fn)(void *), void *arg, int cpu);
int bench_ncpus(void);

/*
 * Repeats of one measurement: the best (the highest rate, or the lowest
 * time when lower is better), the median, min and max. Other jobs on the
 * machine only ever slow a repeat down, so the best repeat is the
 * figure; the spread says how disturbed the others were.
 */
struct bench_stat {
	double best, med, min, max;
	unsigned reps;
	bool lower;             /* lower is better (times) */
};
void bench_stat_of(const double *v, unsigned reps, bool lower, struct bench_stat *s);
/* (max - min) / median, 0 when the median is 0. */
double bench_spread(const struct bench_stat *s);

/* Percentile p (0..100) of n sorted values. */
uint64_t bench_pct(const uint64_t *sorted, size_t n, double p);
void bench_sort_u64(uint64_t *v, size_t n);

/* A byte pattern that differs per seed and per position (data checks). */
void bench_fill(uint8_t *p, size_t n, uint64_t seed);

/* A RoCE frame of the engine's kind from src to dst (opcode, payload
 * bytes), built as the engine builds it (valid ICRC), into buf
 * (ROCE_MAX_FRAME bytes); returns its length. */
uint32_t bench_roce_frame(uint8_t *buf, const uint8_t *src, const uint8_t *dst,
			  uint8_t opcode, uint32_t payload);

/* Run a shell command made like printf; returns system()'s status. */
int bench_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Move the calling thread into the network namespace /run/netns/name;
 * 0, or -1 with errno set. */
int bench_enter_ns(const char *name);
/* Two network namespaces joined by a veth pair (MTU 9000, both ends up;
 * an end's MAC when mac_a/mac_b is not NULL); 0 or what the shell said.
 * bench_veth_del removes both namespaces (and with them the pair). */
int bench_veth_add(const char *nsa, const char *ifa, const char *mac_a,
		   const char *nsb, const char *ifb, const char *mac_b);
void bench_veth_del(const char *nsa, const char *nsb);

/*
 * Machine load over an interval: the 1-minute load average at its end and
 * the CPU time the rest of the machine used during it (all CPUs' busy time
 * from /proc/stat minus this process's own), in CPUs, and the time the
 * hypervisor stole from us.
 */
struct bench_load {
	double loadavg1;
	double others_cpus;     /* average CPUs busy with other work */
	double self_cpus;       /* average CPUs this process got */
	double steal_cpus;      /* average CPUs stolen by the hypervisor */
};
struct bench_load_mark {
	uint64_t t_ns;
	uint64_t busy_ticks, steal_ticks;
	uint64_t self_ns;
};
void bench_load_mark(struct bench_load_mark *m);
void bench_load_since(const struct bench_load_mark *m, struct bench_load *out);

/* How long and how often to measure, and where. Key figures (the ones a
 * target is checked against) get more repeats and longer runs. */
struct bench_cfg {
	bool quick;
	unsigned reps, reps_key;
	double secs, secs_key;
	int cpu_a, cpu_b;       /* the two cores (cpu_b = cpu_a if only one) */
	size_t cold_bytes;      /* working set of the cold measurements */
};

/* One repeat: measure for about secs and return the figure. */
typedef double (*bench_fn)(void *arg, double secs);
/*
 * Two measurements side by side: each repeat runs fa then fb, so both see
 * the machine in the same state (a busy host changes from one second to
 * the next); ratio gets fa/fb per repeat, and its figure is the median
 * (a ratio has no "best").
 */
void bench_measure_pair(unsigned reps, double secs, bench_fn fa, void *aa,
			bench_fn fb, void *ab, struct bench_stat *sa,
			struct bench_stat *sb, struct bench_stat *ratio,
			struct bench_load *load);

/* Run fn reps times; the figures into *st (lower: lower is better), the
 * machine's load meanwhile into *load. */
void bench_measure(unsigned reps, double secs, bool lower, bench_fn fn, void *arg,
		   struct bench_stat *st, struct bench_load *load);

#endif
