/* SPDX-License-Identifier: MIT */
/*
 * ICRC throughput: the reference CRC-32, ISA-L's portable base version and
 * ISA-L's SIMD path, over whole RoCE packets (masked headers + payload) of
 * 64 B, 1 KB and 4 KB payload, hot in cache. Prints GB/s of payload.
 *
 *   bench_icrc [--seconds S] [--csv]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/params.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t make_packet(uint8_t *buf, size_t cap, size_t paylen)
{
	struct roce_hdrs h;
	static uint8_t payload[ROCE_MAX_MTU];
	size_t len;

	memset(&h, 0, sizeof(h));
	h.ip.ttl = 64;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_WRITE_MIDDLE;
	h.bth.pkey = ROCE_DEFAULT_PKEY;
	for (size_t i = 0; i < paylen; i++)
		payload[i] = (uint8_t)i;
	if (roce_build(&h, payload, paylen, 0, buf, cap, &len) != 0) {
		fprintf(stderr, "bench_icrc: cannot build a %zu-byte packet\n", paylen);
		exit(2);
	}
	return len;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 1024, 4096 };
	static uint8_t frame[ROCE_MAX_FRAME];
	double secs = 0.3;
	int csv = 0, c;

	static const struct option lo[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	while ((c = getopt_long(argc, argv, "s:ch", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			secs = atof(optarg);
			if (secs <= 0 || secs > 60) {
				fprintf(stderr, "bench_icrc: --seconds wants 0 < S <= 60\n");
				return 2;
			}
			break;
		case 'c': csv = 1; break;
		case 'h':
			printf("usage: bench_icrc [--seconds S] [--csv]\n"
			       "ICRC throughput (GB/s of payload) per CRC implementation and size.\n");
			return 0;
		default: return 2;
		}
	}
	if (csv)
		printf("bench,impl,payload_bytes,gbytes_per_s,ns_per_packet\n");
	else
		printf("%-6s %8s %10s %12s\n", "impl", "payload", "GB/s", "ns/packet");
	for (int impl = 0; impl < ROCE_CRC_IMPL_COUNT; impl++) {
		roce_crc_select((enum roce_crc_impl)impl);
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t len = make_packet(frame, sizeof(frame), sizes[s]);
			size_t l3 = ROCE_ETH_HLEN, n = len - l3 - ROCE_ICRC_LEN;
			volatile uint32_t sink = 0;
			uint64_t iters = 0;
			double t0 = now(), t;

			do {
				for (int k = 0; k < 256; k++)
					sink ^= roce_icrc(frame + l3, n);
				iters += 256;
				t = now() - t0;
			} while (t < secs);
			(void)sink;
			double gbs = (double)iters * (double)sizes[s] / t / 1e9;
			double ns = t / (double)iters * 1e9;

			if (csv)
				printf("icrc,%s,%zu,%.3f,%.1f\n",
				       roce_crc_impl_name((enum roce_crc_impl)impl), sizes[s], gbs, ns);
			else
				printf("%-6s %8zu %10.2f %12.1f\n",
				       roce_crc_impl_name((enum roce_crc_impl)impl), sizes[s], gbs, ns);
		}
	}
	return 0;
}
