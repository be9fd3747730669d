/* SPDX-License-Identifier: MIT */
/*
 * The benchmarks' two engines, A (requester) and B (responder): the
 * two-engine fixture (tests/support/pair.h) on the in-memory link or on
 * raw-Ethernet ports, with nqp RC QPs connected pairwise and one
 * registered buffer each.
 *
 * Buffer layout (each side): three windows of BENCH_BUF_WIN bytes:
 *   src  what this side sends (WRITE/SEND source, READ target)
 *   dst  where WRITE and READ data land
 *   rcv  receive buffers of SENDs
 */
#ifndef BENCH_PAIR_H
#define BENCH_PAIR_H

#include <stdint.h>

#include "roce/link.h"
#include "support/pair.h"

#define BENCH_MAX_QPS   16u     /* the goodput matrix; the scale section has its own */
#define BENCH_MAX_MSG   (1u << 20)
#define BENCH_BUF_WIN   BENCH_MAX_MSG
#define BENCH_SQ_DEPTH  1024u
#define BENCH_RQ_DEPTH  1024u
#define BENCH_CQ_DEPTH  16384

enum bench_win { WIN_SRC, WIN_DST, WIN_RCV };

/* Two engines on a new in-memory link (default ring size, lossless).
 * Dies on error. */
void pair_open_memlink(struct pair *p, enum roce_mtu mtu, unsigned nqp);
/* Two engines on the given ports (e.g. raw Ethernet); peer MACs are the
 * other port's. Dies on error. pair_teardown() closes either. */
void pair_open_ports(struct pair *p, struct roce_port *pa, struct roce_port *pb,
		     enum roce_mtu mtu, unsigned nqp);

/* B's engine on its own thread pinned to cpu (cpu < 0: stop it; A is
 * always polled by the caller, pair_poll()). */
void pair_b_thread(struct pair *p, int cpu);

static inline uint8_t *side_win(const struct pair_side *s, enum bench_win w)
{
	return s->buf + (size_t)w * BENCH_BUF_WIN;
}

uint64_t pair_retransmissions(const struct pair *p);

/* What moved, for the diagnosis of a run (differences of two snapshots). */
struct pair_counts {
	uint64_t a_tx, b_tx;            /* frames sent by A and by B */
	uint64_t retx, timeouts, naks;  /* both sides */
	uint64_t link_drops;            /* in-memory link: receive ring full */
	uint64_t link_paused;           /* lossless: bursts cut short */
};
void pair_counts(const struct pair *p, struct pair_counts *c);

#endif
