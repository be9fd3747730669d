/* SPDX-License-Identifier: MIT */
/*
 * In-memory link throughput with no faults: frames/s and GB/s of frame
 * bytes from one port to another, for 64 B, 1 KB and 4 KB frames,
 *   1 thread:  the same thread sends a burst and receives it;
 *   2 threads: a sender and a receiver, the sender keeping at most a ring
 *              of frames outstanding so nothing is dropped.
 * Each frame is copied once, into the receiver's ring, as on a wire.
 *
 *   bench_memlink [--seconds S] [--burst N] [--csv]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/status.h"

#define MAX_BURST 256u
#define RING 1024u

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0A };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0B };

struct run {
	struct roce_port a, b;
	uint32_t len;
	unsigned burst;
	double secs;
	_Atomic uint64_t received;
	_Atomic int stop;
	uint64_t frames;        /* result */
	double elapsed;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t frame_buf[MAX_BURST][ROCE_MAX_FRAME];

static void fill(struct roce_frame *f, unsigned n, uint32_t len)
{
	for (unsigned i = 0; i < n; i++) {
		memcpy(frame_buf[i], mac_b, 6);
		memcpy(frame_buf[i] + 6, mac_a, 6);
		frame_buf[i][12] = 0x88;
		frame_buf[i][13] = 0xB5;
		memset(frame_buf[i] + 14, (int)i, len - 14);
		f[i] = (struct roce_frame){ frame_buf[i], len };
	}
}

static unsigned drain(struct roce_port *p)
{
	struct roce_frame rx[MAX_BURST];
	unsigned total = 0, n;

	while ((n = roce_port_rx(p, rx, MAX_BURST)) > 0) {
		roce_port_rx_release(p, n);
		total += n;
	}
	return total;
}

static void one_thread(struct run *r)
{
	struct roce_frame f[MAX_BURST];
	double t0 = now(), t;
	uint64_t frames = 0;

	fill(f, r->burst, r->len);
	do {
		for (unsigned k = 0; k < 64; k++) {
			roce_port_tx(&r->a, f, r->burst);
			frames += drain(&r->b);
		}
		t = now();
	} while (t - t0 < r->secs);
	r->frames = frames;
	r->elapsed = t - t0;
}

static void *sender(void *arg)
{
	struct run *r = arg;
	struct roce_frame f[MAX_BURST];
	uint64_t sent = 0;

	fill(f, r->burst, r->len);
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		uint64_t rx = atomic_load_explicit(&r->received, memory_order_acquire);

		if (sent - rx + r->burst > RING)
			continue;
		roce_port_tx(&r->a, f, r->burst);
		sent += r->burst;
	}
	return NULL;
}

static int two_threads(struct run *r)
{
	pthread_t t;
	double t0, t1;
	uint64_t frames = 0;

	if (pthread_create(&t, NULL, sender, r))
		return -1;
	t0 = now();
	do {
		for (unsigned k = 0; k < 64; k++) {
			frames += drain(&r->b);
			atomic_store_explicit(&r->received, frames, memory_order_release);
		}
		t1 = now();
	} while (t1 - t0 < r->secs);
	atomic_store(&r->stop, 1);
	pthread_join(t, NULL);
	r->frames = frames;
	r->elapsed = t1 - t0;
	return 0;
}

static int bench(unsigned threads, uint32_t len, unsigned burst, double secs,
		 int csv)
{
	struct roce_memlink_config cfg = { .ring_frames = RING };
	struct roce_memlink_stats st;
	struct roce_memlink *l;
	struct run *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -1;
	rc = roce_memlink_create(&cfg, &l);
	if (rc == ROCE_OK)
		rc = roce_memlink_attach(l, mac_a, &r->a);
	if (rc == ROCE_OK)
		rc = roce_memlink_attach(l, mac_b, &r->b);
	if (rc != ROCE_OK) {
		fprintf(stderr, "bench_memlink: link setup: %s\n", roce_status_str(rc));
		free(r);
		return -1;
	}
	r->len = len;
	r->burst = burst;
	r->secs = secs;
	if (threads == 1)
		one_thread(r);
	else if (two_threads(r)) {
		fprintf(stderr, "bench_memlink: cannot start a thread\n");
		roce_memlink_destroy(l);
		free(r);
		return -1;
	}
	roce_memlink_get_stats(l, &st);
	if (csv)
		printf("memlink,%u,%u,%.0f,%.3f,%llu\n", threads, len,
		       (double)r->frames / r->elapsed,
		       (double)r->frames * len / r->elapsed * 1e-9,
		       (unsigned long long)st.ring_full);
	else
		printf("%u thread%s %5u B: %8.2f Mframes/s %7.2f GB/s  (%llu dropped)\n",
		       threads, threads == 1 ? " " : "s", len,
		       (double)r->frames / r->elapsed * 1e-6,
		       (double)r->frames * len / r->elapsed * 1e-9,
		       (unsigned long long)st.ring_full);
	roce_memlink_destroy(l);
	free(r);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bench_memlink [--seconds S] [--burst N] [--csv]\n"
		"In-memory link throughput without faults, 1 and 2 threads,\n"
		"64 B, 1 KB and 4 KB frames.\n"
		"  --seconds S  time per measurement, 0 < S <= 60 (default 0.5)\n"
		"  --burst N    frames per tx_burst, 1..%u (default 32)\n"
		"  --csv        machine-readable output\n", MAX_BURST);
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 64, 1024, 4096 };
	static const struct option lo[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "burst", required_argument, NULL, 'b' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double secs = 0.5;
	unsigned burst = 32;
	int csv = 0, c;
	char *end;

	while ((c = getopt_long(argc, argv, "s:b:ch", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			secs = strtod(optarg, &end);
			if (*end || !(secs > 0 && secs <= 60)) {
				fprintf(stderr, "bench_memlink: --seconds wants 0 < S <= 60, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			burst = (unsigned)strtoul(optarg, &end, 10);
			if (*end || burst < 1 || burst > MAX_BURST) {
				fprintf(stderr, "bench_memlink: --burst wants 1..%u, not '%s'\n",
					MAX_BURST, optarg);
				return 2;
			}
			break;
		case 'c': csv = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bench_memlink: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (csv)
		printf("bench,threads,frame_bytes,frames_per_s,gbytes_per_s,dropped\n");
	for (unsigned t = 1; t <= 2; t++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (bench(t, sizes[i], burst, secs, csv))
				return 1;
	return 0;
}
