/* SPDX-License-Identifier: MIT */
/*
 * Raw-Ethernet port throughput over a veth pair: one thread sends bursts
 * of UDP/4791 frames from a port in one network namespace, another
 * receives them on a port in a second namespace; frames/s and Gbit/s
 * (frame bytes, no preamble/FCS/gap) delivered, for each mode and size.
 * Creates and removes its own namespaces and veth pair (MTU 9000, so 4 KB
 * frames fit): needs root and iproute2. Then the round trip of a 64 B
 * frame (A sends, B echoes, A receives; one thread drives both ports, so
 * it is the kernel path alone): median and 99th percentile.
 *
 *   bench_afpacket [--seconds S] [--csv]
 */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "roce/afpacket.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/wire/eth.h"
#include "roce/wire/ip.h"

static char g_nsa[32], g_nsb[32], g_ifa[16], g_ifb[16];
static volatile sig_atomic_t g_stop;    /* SIGINT/SIGTERM: finish, clean up */

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static void teardown(void)
{
	bench_veth_del(g_nsa, g_nsb);
}

static int setup(void)
{
	int pid = (int)getpid();

	snprintf(g_nsa, sizeof(g_nsa), "bafa%d", pid);
	snprintf(g_nsb, sizeof(g_nsb), "bafb%d", pid);
	snprintf(g_ifa, sizeof(g_ifa), "bafa%d", pid);
	snprintf(g_ifb, sizeof(g_ifb), "bafb%d", pid);
	atexit(teardown);
	if (bench_veth_add(g_nsa, g_ifa, NULL, g_nsb, g_ifb, NULL)) {
		fprintf(stderr, "bench_afpacket: cannot create namespaces and veth "
			"(needs root and iproute2)\n");
		return -1;
	}
	return 0;
}

struct run {
	enum roce_afpacket_mode mode;
	uint32_t len;
	double secs;
	struct roce_afpacket *a, *b;
	atomic_bool stop;
	uint64_t sent, rcvd, rx_bytes;
	double rx_secs;
};

static void *sender(void *arg)
{
	struct run *r = arg;
	static uint8_t buf[ROCE_MAX_FRAME];
	struct roce_frame f[ROCE_TX_BURST];
	struct roce_port *p = roce_afpacket_port(r->a);

	memset(buf, 0x5A, sizeof(buf));
	memcpy(buf, roce_afpacket_port(r->b)->mac, 6);
	memcpy(buf + 6, p->mac, 6);
	roce_put_be16(buf + 12, ROCE_ETHERTYPE_IPV4);
	buf[14] = 0x45;
	buf[14 + 6] = 0x40;                     /* DF, no fragment offset */
	buf[14 + 7] = 0;
	buf[14 + 9] = ROCE_IPPROTO_UDP;
	roce_put_be16(buf + 14 + 20 + 2, ROCE_UDP_PORT);
	for (unsigned i = 0; i < ROCE_TX_BURST; i++)
		f[i] = (struct roce_frame){ buf, r->len };
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed))
		r->sent += roce_port_tx(p, f, ROCE_TX_BURST);
	return NULL;
}

static void *receiver(void *arg)
{
	struct run *r = arg;
	struct roce_port *p = roce_afpacket_port(r->b);
	double t0 = 0, end = bench_now() + r->secs + 1.0;

	while (bench_now() < end && !g_stop) {
		struct roce_frame f[ROCE_RX_BURST];
		unsigned n = roce_port_rx(p, f, ROCE_RX_BURST);

		if (!n)
			continue;
		if (!t0)
			t0 = bench_now();     /* from the first frame on */
		for (unsigned i = 0; i < n; i++)
			r->rx_bytes += f[i].len;
		r->rcvd += n;
		roce_port_rx_release(p, n);
		if (bench_now() - t0 >= r->secs)
			break;
	}
	r->rx_secs = t0 ? bench_now() - t0 : 0;
	atomic_store(&r->stop, true);
	return NULL;
}

static int open_port(const char *ns, const char *ifname, enum roce_afpacket_mode mode,
		     struct roce_afpacket **out)
{
	struct roce_afpacket_config c = { .ifname = ifname, .mode = mode };
	char err[256];

	if (bench_enter_ns(ns) || roce_afpacket_open(&c, out, err, sizeof(err)) != ROCE_OK) {
		fprintf(stderr, "bench_afpacket: %s\n", err);
		return -1;
	}
	return 0;
}

static int measure(struct run *r, bool csv)
{
	pthread_t ts, tr;
	double fps, gbps;

	if (open_port(g_nsa, g_ifa, r->mode, &r->a) ||
	    open_port(g_nsb, g_ifb, r->mode, &r->b))
		return -1;
	pthread_create(&tr, NULL, receiver, r);
	pthread_create(&ts, NULL, sender, r);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	fps = r->rx_secs > 0 ? (double)r->rcvd / r->rx_secs : 0;
	gbps = r->rx_secs > 0 ? (double)r->rx_bytes * 8 / r->rx_secs / 1e9 : 0;
	if (csv)
		printf("%s,%u,%.0f,%.3f,%llu,%llu\n", roce_afpacket_mode_name(r->mode),
		       r->len, fps, gbps, (unsigned long long)r->sent,
		       (unsigned long long)r->rcvd);
	else
		printf("%-8s %5u B  %10.0f frames/s  %7.3f Gbit/s  (sent %llu, "
		       "received %llu)\n", roce_afpacket_mode_name(r->mode), r->len,
		       fps, gbps, (unsigned long long)r->sent,
		       (unsigned long long)r->rcvd);
	roce_afpacket_close(r->a);
	roce_afpacket_close(r->b);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Poll p until one frame arrives, or 1 s. */
static bool bounce(struct roce_port *p)
{
	double end = bench_now() + 1.0;

	while (bench_now() < end) {
		struct roce_frame f;

		if (!roce_port_rx(p, &f, 1))
			continue;
		roce_port_rx_release(p, 1);
		return true;
	}
	return false;
}

#define RTT_ROUNDS 2000

static int latency(enum roce_afpacket_mode mode, bool csv)
{
	static double rtt[RTT_ROUNDS];
	struct roce_afpacket *a, *b;
	uint8_t fa[64] = { 0 }, fb[64] = { 0 };
	struct roce_frame f = { fa, 64 };
	unsigned n = 0;

	if (open_port(g_nsa, g_ifa, mode, &a) || open_port(g_nsb, g_ifb, mode, &b))
		return -1;
	/* A -> B and B's echo -> A: UDP/4791 to each other's MAC */
	memcpy(fa, roce_afpacket_port(b)->mac, 6);
	memcpy(fa + 6, roce_afpacket_port(a)->mac, 6);
	memcpy(fb, fa + 6, 6);
	memcpy(fb + 6, fa, 6);
	for (uint8_t *x = fa; x; x = x == fa ? fb : NULL) {
		roce_put_be16(x + 12, ROCE_ETHERTYPE_IPV4);
		x[14] = 0x45;
		x[14 + 9] = ROCE_IPPROTO_UDP;
		roce_put_be16(x + 14 + 20 + 2, ROCE_UDP_PORT);
	}
	for (unsigned i = 0; i < RTT_ROUNDS && !g_stop; i++) {
		struct roce_frame e = { fb, 64 };
		double t0 = bench_now();

		if (roce_port_tx(roce_afpacket_port(a), &f, 1) != 1 ||
		    !bounce(roce_afpacket_port(b)) ||
		    roce_port_tx(roce_afpacket_port(b), &e, 1) != 1 ||
		    !bounce(roce_afpacket_port(a)))
			continue;
		rtt[n++] = (bench_now() - t0) * 1e6;
	}
	roce_afpacket_close(a);
	roce_afpacket_close(b);
	if (!n)
		return -1;
	qsort(rtt, n, sizeof(rtt[0]), cmp_double);
	if (csv)
		printf("%s,rtt64,%.1f,%.1f,%u\n", roce_afpacket_mode_name(mode),
		       rtt[n / 2], rtt[n * 99 / 100], n);
	else
		printf("%-8s round trip of 64 B: median %7.1f us, p99 %7.1f us "
		       "(%u rounds)\n", roce_afpacket_mode_name(mode), rtt[n / 2],
		       rtt[n * 99 / 100], n);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const enum roce_afpacket_mode modes[] = {
		ROCE_AFP_RING, ROCE_AFP_RING_V3, ROCE_AFP_MMSG,
	};
	static const uint32_t sizes[] = { 64, 4096 };
	double secs = 2.0;
	bool csv = false;
	int c;

	while ((c = getopt_long(argc, argv, "s:ch", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			secs = atof(optarg);
			if (!(secs > 0 && secs <= 60)) {
				fprintf(stderr, "bench_afpacket: --seconds: 0 < S <= 60\n");
				return 2;
			}
			break;
		case 'c':
			csv = true;
			break;
		case 'h':
			printf("usage: bench_afpacket [--seconds S] [--csv]\n"
			       "Raw-Ethernet port throughput between two network "
			       "namespaces over veth\n(needs root).\n");
			return 0;
		default:
			fprintf(stderr, "bench_afpacket: try --help\n");
			return 2;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (setup())
		return 1;
	if (csv)
		printf("mode,frame_bytes,frames_per_s,gbit_per_s,sent,received\n");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct run r = { .mode = modes[m], .len = sizes[s], .secs = secs };

			if (g_stop || measure(&r, csv))
				return 1;       /* atexit removes the namespaces */
		}
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		if (g_stop || latency(modes[m], csv))
			return 1;
	return 0;
}
