/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"

void bench_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000u, (long)(us % 1000000u) * 1000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

bool bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int i = 0; i < bench_ncpus() && i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

void bench_thread(pthread_t *t, void *(*fn)(void *), void *arg, int cpu)
{
	pthread_attr_t a;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_attr_init(&a) || pthread_attr_setaffinity_np(&a, sizeof(set), &set) ||
	    pthread_create(t, &a, fn, arg))
		bench_die("cannot start a thread on CPU %d", cpu);
	pthread_attr_destroy(&a);
}

int bench_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

void bench_stat_of(const double *v, unsigned reps, bool lower, struct bench_stat *s)
{
	double tmp[BENCH_MAX_REPS];

	if (reps == 0 || reps > BENCH_MAX_REPS)
		bench_die("internal: %u repeats", reps);
	memcpy(tmp, v, reps * sizeof(*v));
	qsort(tmp, reps, sizeof(*tmp), cmp_double);
	s->reps = reps;
	s->lower = lower;
	s->min = tmp[0];
	s->max = tmp[reps - 1];
	s->best = lower ? s->min : s->max;
	/* the lower median for an even count: repeats are disturbed upward
	 * (other jobs slow us down), never downward */
	s->med = reps % 2 ? tmp[reps / 2] : tmp[reps / 2 - 1] > tmp[reps / 2]
						  ? tmp[reps / 2 - 1] : tmp[reps / 2];
}

double bench_spread(const struct bench_stat *s)
{
	return s->med > 0 ? (s->max - s->min) / s->med : 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

void bench_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t bench_pct(const uint64_t *sorted, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	/* nearest rank */
	i = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return sorted[i - 1];
}

void bench_fill(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)(x >> (8 * (i & 7)));
}

static void proc_stat(uint64_t *busy, uint64_t *steal)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	*busy = *steal = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9]) >= 8) {
		/* user nice system idle iowait irq softirq steal */
		*busy = v[0] + v[1] + v[2] + v[5] + v[6];
		*steal = v[7];
	}
	fclose(f);
}

void bench_load_mark(struct bench_load_mark *m)
{
	m->t_ns = bench_now_ns();
	proc_stat(&m->busy_ticks, &m->steal_ticks);
	m->self_ns = bench_cpu_ns();
}

void bench_load_since(const struct bench_load_mark *m, struct bench_load *out)
{
	struct bench_load_mark now;
	double tick_ns = 1e9 / (double)sysconf(_SC_CLK_TCK), dt, others;
	FILE *f = fopen("/proc/loadavg", "r");

	bench_load_mark(&now);
	out->loadavg1 = -1;
	if (f) {
		if (fscanf(f, "%lf", &out->loadavg1) != 1)
			out->loadavg1 = -1;
		fclose(f);
	}
	dt = (double)(now.t_ns - m->t_ns);
	if (dt <= 0) {
		out->others_cpus = out->steal_cpus = out->self_cpus = 0;
		return;
	}
	out->self_cpus = (double)(now.self_ns - m->self_ns) / dt;
	others = (double)(now.busy_ticks - m->busy_ticks) * tick_ns -
		 (double)(now.self_ns - m->self_ns);
	/* ticks are coarse (10 ms): clamp the rounding below zero */
	out->others_cpus = others > 0 ? others / dt : 0;
	out->steal_cpus = (double)(now.steal_ticks - m->steal_ticks) * tick_ns / dt;
}

void bench_measure(unsigned reps, double secs, bool lower, bench_fn fn, void *arg,
		   struct bench_stat *st, struct bench_load *load)
{
	double v[BENCH_MAX_REPS];
	struct bench_load_mark m;

	if (reps > BENCH_MAX_REPS)
		reps = BENCH_MAX_REPS;
	bench_load_mark(&m);
	for (unsigned i = 0; i < reps; i++)
		v[i] = fn(arg, secs);
	bench_stat_of(v, reps, lower, st);
	bench_load_since(&m, load);
}

void bench_measure_pair(unsigned reps, double secs, bench_fn fa, void *aa,
			bench_fn fb, void *ab, struct bench_stat *sa,
			struct bench_stat *sb, struct bench_stat *ratio,
			struct bench_load *load)
{
	double a[BENCH_MAX_REPS], b[BENCH_MAX_REPS], r[BENCH_MAX_REPS];
	struct bench_load_mark m;

	if (reps > BENCH_MAX_REPS)
		reps = BENCH_MAX_REPS;
	bench_load_mark(&m);
	for (unsigned i = 0; i < reps; i++) {
		a[i] = fa(aa, secs);
		b[i] = fb(ab, secs);
		r[i] = b[i] > 0 ? a[i] / b[i] : 0;
	}
	bench_stat_of(a, reps, false, sa);
	bench_stat_of(b, reps, false, sb);
	bench_stat_of(r, reps, false, ratio);
	ratio->best = ratio->med;
	bench_load_since(&m, load);
}

double bench_now(void)
{
	return (double)bench_now_ns() * 1e-9;
}

uint32_t bench_roce_frame(uint8_t *buf, const uint8_t *src, const uint8_t *dst,
			  uint8_t opcode, uint32_t payload)
{
	static uint8_t data[ROCE_MAX_MTU];
	struct roce_hdrs h;
	size_t len;

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, dst, 6);
	memcpy(h.eth.src, src, 6);
	h.ip.ttl = 64;
	h.ip.frag = ROCE_IPV4_DF;
	h.udp.sport = 0xC000;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = opcode;
	h.bth.pkey = ROCE_DEFAULT_PKEY;
	bench_fill(data, payload, opcode);
	if (roce_build(&h, data, payload, 0, buf, ROCE_MAX_FRAME, &len) != ROCE_OK)
		bench_die("cannot build a %u-byte raw frame", payload);
	return (uint32_t)len;
}

int bench_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

int bench_enter_ns(const char *name)
{
	char path[256];
	int fd, rc;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = setns(fd, CLONE_NEWNET);
	close(fd);
	return rc;
}

int bench_veth_add(const char *nsa, const char *ifa, const char *mac_a,
		   const char *nsb, const char *ifb, const char *mac_b)
{
	char addr_a[40] = "", addr_b[40] = "";
	int rc;

	if (mac_a)
		snprintf(addr_a, sizeof(addr_a), " address %s", mac_a);
	if (mac_b)
		snprintf(addr_b, sizeof(addr_b), " address %s", mac_b);
	rc = bench_sh("ip netns add %s && ip netns add %s", nsa, nsb);
	if (!rc)
		rc = bench_sh("ip link add %s netns %s mtu 9000%s type veth peer name %s "
			      "netns %s mtu 9000%s", ifa, nsa, addr_a, ifb, nsb, addr_b);
	if (!rc)
		rc = bench_sh("ip -n %s link set %s up && ip -n %s link set %s up",
			      nsa, ifa, nsb, ifb);
	return rc;
}

void bench_veth_del(const char *nsa, const char *nsb)
{
	bench_sh("ip netns del %s 2>/dev/null", nsa);
	bench_sh("ip netns del %s 2>/dev/null", nsb);
}
