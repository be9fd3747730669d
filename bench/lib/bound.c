/* SPDX-License-Identifier: MIT */
/*
 * The ICRC+copy bound: a WRITE's payload passes through the engine as
 *   requester  the frame built in the receiver's ring (the link lends
 *              the slot: zero-copy, src/link/memlink_tx.c ml_tx_get):
 *              headers from a template, ICRC of the headers, then the
 *              payload copied DDR -> ring and checksummed in the same
 *              pass (roce_crc32_copy; src/engine/tx.c tx_build)
 *   responder  ICRC check over the frame           (roce_parse in recv.c)
 *              memcpy ring -> DDR                  (src/engine/resp.c do_write)
 * Here those passes run on the same buffers (a header template,
 * a ring of the memlink's default size, BENCH_WINDOW of source and
 * destination) with none of the protocol: no queues, no PSNs, no ACKs, no
 * tables. What the engine reaches is compared with this.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "lib/limits.h"
#include "lib/report.h"
#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/params.h"

#define RING     ROCE_MEMLINK_RING_DEFAULT
#define SLOT     ((ROCE_MAX_FRAME + 63u) & ~63u)
#define MSG      65536u

struct bound {
	uint32_t mtu, hlen, flen;       /* payload, headers, frame per packet */
	bool copy_only;                 /* only src -> ring -> dst: the cost of
					 * moving the bytes between the cores */
	uint8_t *src, *dst;             /* BENCH_WINDOW each */
	uint8_t *staging;               /* ROCE_TX_BURST x SLOT */
	uint8_t *ring;                  /* RING x SLOT */
	_Alignas(64) _Atomic uint64_t prod;
	_Alignas(64) _Atomic uint64_t cons;
	_Alignas(64) _Atomic int stop;
	uint64_t tx_off, rx_off;        /* byte offsets in the window */
	int cpu_rx;
	uint64_t rx_bytes, rx_ns;       /* result of a two-core run */
	uint64_t rx_busy_ns, tx_busy_ns, tx_ns; /* time spent in the passes */
};

static void bound_init(struct bound *b, uint32_t mtu)
{
	struct roce_hdrs h;

	memset(&h, 0, sizeof(h));
	b->mtu = mtu;
	/* the memory the engine has: huge pages (src/common/bigmem.c) */
	b->src = big_alloc(BENCH_WINDOW);
	b->dst = big_alloc(BENCH_WINDOW);
	b->staging = big_alloc(ROCE_TX_BURST * SLOT);
	b->ring = big_alloc((size_t)RING * SLOT);
	if (!b->src || !b->dst || !b->staging || !b->ring)
		bench_die("out of memory for the bound");
	bench_fill(b->src, BENCH_WINDOW, 7);
	memset(b->dst, 0, BENCH_WINDOW);
	memset(b->ring, 0, (size_t)RING * SLOT);
	/* a WRITE MIDDLE frame's headers in every staging slot, as the
	 * requester lays them out */
	h.ip.ttl = 64;
	h.ip.frag = ROCE_IPV4_DF;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_WRITE_MIDDLE;
	h.bth.pkey = ROCE_DEFAULT_PKEY;
	for (unsigned i = 0; i < ROCE_TX_BURST; i++) {
		uint8_t *f = b->staging + i * SLOT;

		b->hlen = (uint32_t)roce_build_hdrs(&h, mtu, f, SLOT);
		memset(f + b->hlen, 0, mtu);
		/* the IP checksum, once: the headers do not change */
		roce_finish(f, ROCE_ETH_HLEN, 0);
	}
	b->flen = b->hlen + mtu + ROCE_ICRC_LEN;
	atomic_init(&b->prod, 0);
	atomic_init(&b->cons, 0);
	atomic_init(&b->stop, 0);
}

static void bound_fini(struct bound *b)
{
	big_free(b->src, BENCH_WINDOW);
	big_free(b->dst, BENCH_WINDOW);
	big_free(b->staging, ROCE_TX_BURST * SLOT);
	big_free(b->ring, (size_t)RING * SLOT);
}

/* The requester's and the link's passes for one burst: ring slots
 * [pos, pos + ROCE_TX_BURST) are free. */
static void tx_burst(struct bound *b, uint64_t pos)
{
	if (b->copy_only) {
		for (unsigned i = 0; i < ROCE_TX_BURST; i++) {
			memcpy(b->ring + ((pos + i) % RING) * SLOT, b->src + b->tx_off,
			       b->mtu);
			b->tx_off = (b->tx_off + b->mtu) % BENCH_WINDOW;
		}
		return;
	}
	for (unsigned i = 0; i < ROCE_TX_BURST; i++) {
		uint8_t *f = b->ring + ((pos + i) % RING) * SLOT;
		uint32_t crc;

		/* built in the receiver's ring: the header template, then the
		 * payload gathered and checksummed in one pass */
		memcpy(f, b->staging, b->hlen);
		crc = roce_icrc_begin(f + ROCE_ETH_HLEN);
		crc = roce_crc32_copy(crc, f + b->hlen, b->src + b->tx_off, b->mtu);
		roce_put_le32(f + b->hlen + b->mtu, crc);
		b->tx_off = (b->tx_off + b->mtu) % BENCH_WINDOW;
	}
}

/* The responder's passes for one burst. */
static void rx_burst(struct bound *b, uint64_t pos)
{
	for (unsigned i = 0; i < ROCE_TX_BURST && b->copy_only; i++) {
		memcpy(b->dst + b->rx_off, b->ring + ((pos + i) % RING) * SLOT, b->mtu);
		b->rx_off = (b->rx_off + b->mtu) % BENCH_WINDOW;
	}
	for (unsigned i = 0; i < ROCE_TX_BURST && !b->copy_only; i++) {
		const uint8_t *f = b->ring + ((pos + i) % RING) * SLOT;
		struct roce_pkt p;
		int rc = roce_parse(f, b->flen, 0, &p);

		if (rc != 0 || p.payload_len != b->mtu)
			bench_die("bound: frame %llu does not parse (%d)",
				  (unsigned long long)(pos + i), rc);
		memcpy(b->dst + b->rx_off, roce_pkt_payload(&p), b->mtu);
		b->rx_off = (b->rx_off + b->mtu) % BENCH_WINDOW;
	}
}

double bound_one_core(void *arg, double secs)
{
	struct bound *b = arg;
	uint64_t t0 = bench_now_ns(), t, bytes = 0, pos = 0;

	do {
		for (unsigned k = 0; k < 8; k++) {
			tx_burst(b, pos);
			rx_burst(b, pos);
			pos += ROCE_TX_BURST;
		}
		bytes += 8ull * ROCE_TX_BURST * b->mtu;
		t = bench_now_ns() - t0;
	} while (t < secs * 1e9);
	return (double)bytes * 8 / (double)t;   /* Gbit/s */
}

static void *rx_thread(void *arg)
{
	struct bound *b = arg;
	uint64_t pos = 0, t0 = 0, bytes = 0, busy = 0;

	while (!atomic_load_explicit(&b->stop, memory_order_acquire)) {
		uint64_t t1;

		if (atomic_load_explicit(&b->prod, memory_order_acquire) == pos)
			continue;
		t1 = bench_now_ns();
		if (!t0)
			t0 = t1;
		rx_burst(b, pos);
		busy += bench_now_ns() - t1;
		pos += ROCE_TX_BURST;
		bytes += (uint64_t)ROCE_TX_BURST * b->mtu;
		atomic_store_explicit(&b->cons, pos, memory_order_release);
	}
	b->rx_ns = t0 ? bench_now_ns() - t0 : 0;
	b->rx_bytes = bytes;
	b->rx_busy_ns = busy;
	return NULL;
}

double bound_two_cores(void *arg, double secs)
{
	struct bound *b = arg;
	uint64_t t0, t1, pos = 0, busy = 0;
	pthread_t t;

	atomic_store(&b->prod, 0);
	atomic_store(&b->cons, 0);
	atomic_store(&b->stop, 0);
	bench_thread(&t, rx_thread, b, b->cpu_rx);
	t0 = bench_now_ns();
	while (bench_now_ns() - t0 < secs * 1e9) {
		if (pos + ROCE_TX_BURST - atomic_load_explicit(&b->cons,
				memory_order_acquire) > RING)
			continue;
		t1 = bench_now_ns();
		tx_burst(b, pos);
		busy += bench_now_ns() - t1;
		pos += ROCE_TX_BURST;
		atomic_store_explicit(&b->prod, pos, memory_order_release);
	}
	b->tx_ns = bench_now_ns() - t0;
	b->tx_busy_ns = busy;
	atomic_store_explicit(&b->stop, 1, memory_order_release);
	pthread_join(t, NULL);
	return b->rx_ns ? (double)b->rx_bytes * 8 / (double)b->rx_ns : 0;
}

struct bound *bound_new(uint32_t mtu, int cpu_rx)
{
	struct bound *b = aligned_alloc(64, sizeof(*b));

	if (!b)
		bench_die("out of memory");
	memset(b, 0, sizeof(*b));
	bound_init(b, mtu);
	b->cpu_rx = cpu_rx;
	return b;
}

void bound_free(struct bound *b)
{
	bound_fini(b);
	free(b);
}

/* Which side limits a two-core run: the share of its time each core
 * spent in the passes rather than waiting for the other (last repeat). */
static void busy_note(struct bench_row *r, const struct bound *b)
{
	size_t n = strlen(r->note);

	snprintf(r->note + n, sizeof(r->note) - n, "; busy TX %.0f%% RX %.0f%%",
		 b->tx_ns ? 100.0 * (double)b->tx_busy_ns / (double)b->tx_ns : 0,
		 b->rx_ns ? 100.0 * (double)b->rx_busy_ns / (double)b->rx_ns : 0);
}

/* Frames of mtu bytes copied into the ring on one core and out of it on
 * the other: what moving a byte between these two cores costs. */
static void cross_copy(const struct bench_cfg *cfg, uint32_t mtu)
{
	struct bound *b = aligned_alloc(64, sizeof(*b));
	struct bench_row *r;

	if (!b)
		bench_die("out of memory");
	memset(b, 0, sizeof(*b));
	bound_init(b, mtu);
	b->copy_only = true;
	b->cpu_rx = cfg->cpu_b;
	r = bench_row_add("limits", "cross-core copy");
	snprintf(r->unit, sizeof(r->unit), "Gbit/s");
	snprintf(r->note, sizeof(r->note), "%u-byte frames: src -> ring on CPU %d, "
		 "ring -> dst on CPU %d", mtu, cfg->cpu_a, cfg->cpu_b);
	r->size = mtu;
	r->cores = 2;
	bench_pin(cfg->cpu_a);
	bench_measure(cfg->reps_key, cfg->secs_key, false, bound_two_cores, b, &r->st,
		      &r->load);
	bench_pin(-1);
	busy_note(r, b);
	bound_fini(b);
	free(b);
}

void bound_run(const struct bench_cfg *cfg, const unsigned *mtus, unsigned n_mtus)
{
	if (cfg->cpu_a != cfg->cpu_b)
		cross_copy(cfg, ROCE_MAX_MTU);
	for (unsigned m = 0; m < n_mtus; m++) {
		for (unsigned cores = 1; cores <= 2; cores++) {
			struct bound *b = aligned_alloc(64, sizeof(*b));
			struct bench_row *r;

			if (cores == 2 && cfg->cpu_a == cfg->cpu_b)
				continue;
			if (!b)
				bench_die("out of memory");
			memset(b, 0, sizeof(*b));
			bound_init(b, mtus[m]);
			b->cpu_rx = cfg->cpu_b;
			r = bench_row_add("limits", "bound");
			snprintf(r->op, sizeof(r->op), "WRITE");
			snprintf(r->unit, sizeof(r->unit), "Gbit/s");
			snprintf(r->note, sizeof(r->note),
				 "%u copy+ICRC, %u ICRC, %u copy per byte%s",
				 BOUND_FUSED, BOUND_CRCS, BOUND_COPIES,
				 cores == 2 ? ", TX on one core, RX on the other" : "");
			r->size = MSG;
			r->mtu = mtus[m];
			r->cores = cores;
			bench_pin(cfg->cpu_a);
			bench_measure(cfg->reps_key, cfg->secs_key, false,
				      cores == 1 ? bound_one_core : bound_two_cores, b,
				      &r->st, &r->load);
			bench_pin(-1);
			if (cores == 2)
				busy_note(r, b);
			bound_fini(b);
			free(b);
		}
	}
}
