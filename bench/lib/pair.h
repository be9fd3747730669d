/* SPDX-License-Identifier: MIT */
/*
 * Two engines, A (requester) and B (responder), on two link ports (the
 * in-memory link or raw Ethernet), with nqp RC QPs connected pairwise and
 * one registered buffer each, all configured through the verbs API, hence
 * through the register files, as an application would.
 *
 * Buffer layout (each side): three windows of BENCH_BUF_WIN bytes:
 *   src  what this side sends (WRITE/SEND source, READ target)
 *   dst  where WRITE and READ data land
 *   rcv  receive buffers of SENDs
 */
#ifndef BENCH_PAIR_H
#define BENCH_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/link.h"
#include "roce/memlink.h"
#include "roce/regs.h"
#include "roce/verbs.h"

#define BENCH_MAX_QPS   16u
#define BENCH_MAX_MSG   (1u << 20)
#define BENCH_BUF_WIN   BENCH_MAX_MSG
#define BENCH_SQ_DEPTH  1024u
#define BENCH_RQ_DEPTH  1024u
#define BENCH_CQ_DEPTH  16384

enum bench_win { WIN_SRC, WIN_DST, WIN_RCV };

struct bench_side {
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp[BENCH_MAX_QPS];
	struct roce_mr *mr;
	uint8_t *buf;
	uint8_t peer_mac[6];
	uint32_t ip;
};

struct bench_pair {
	struct bench_side a, b;
	unsigned nqp;
	enum roce_mtu mtu;
	struct roce_memlink *link;      /* owned: in-memory pairs only */
	struct roce_port ports[2];      /* the in-memory link's ports */
	int b_cpu;                      /* B's engine thread, -1 = none */
};

/* Two engines on a new in-memory link (default ring size). Dies on error. */
void pair_open_memlink(struct bench_pair *p, enum roce_mtu mtu, unsigned nqp);
/* Two engines on the given ports (e.g. raw Ethernet); peer MACs are the
 * other port's. Dies on error. */
void pair_open_ports(struct bench_pair *p, struct roce_port *pa,
		     struct roce_port *pb, enum roce_mtu mtu, unsigned nqp);
void pair_close(struct bench_pair *p);

/* B's engine on its own thread pinned to cpu (cpu < 0: stop it; A is
 * always polled by the caller). */
void pair_b_thread(struct bench_pair *p, int cpu);

/* One step of the engines the caller drives: A, and B unless B has its own
 * thread. */
static inline void pair_poll(struct bench_pair *p)
{
	roce_engine_poll(p->a.ctx);
	if (p->b_cpu < 0)
		roce_engine_poll(p->b.ctx);
}

static inline uint8_t *side_win(const struct bench_side *s, enum bench_win w)
{
	return s->buf + (size_t)w * BENCH_BUF_WIN;
}

uint64_t pair_retransmissions(const struct bench_pair *p);

/* What moved, for the diagnosis of a run (differences of two snapshots). */
struct pair_counts {
	uint64_t a_tx, b_tx;            /* frames sent by A and by B */
	uint64_t retx, timeouts, naks;  /* both sides */
	uint64_t link_drops;            /* in-memory link: receive ring full */
	uint64_t link_paused;           /* lossless: bursts cut short */
};
void pair_counts(const struct bench_pair *p, struct pair_counts *c);

#endif
