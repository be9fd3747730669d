/* SPDX-License-Identifier: MIT */
/*
 * The two-engine fixture of the unit tests (tests/unit/pair.h), the helper
 * programs (tests/helpers/engines_helper.h) and the benchmarks
 * (bench/lib/pair.h): two engines, A and B, each with a PD, a send and a
 * receive CQ, nqp RC QPs and one registered buffer of device DDR; QP i of
 * A connected to QP i of B (RESET -> INIT -> RTR -> RTS, as perftest
 * does); both on a new in-memory link or on ports the caller opened
 * (AF_PACKET, AF_XDP). Everything is configured through the verbs API,
 * hence through the register files, as an application would.
 *
 * Only the public API (include/roce), and no test framework: calls return
 * a status and leave a sentence in p->err; the callers assert or die.
 */
#ifndef ROCE_TEST_SUPPORT_PAIR_H
#define ROCE_TEST_SUPPORT_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/counters.h"
#include "roce/link.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/verbs.h"

/* As many QP pairs as a device holds (QPNs below ROCE_FIRST_QPN are
 * reserved) */
#define PAIR_MAX_QPS (ROCE_MAX_QP - ROCE_FIRST_QPN)
/* The ACK timeout for engines on threads of their own: a thread may wait
 * for a core for long stretches on a loaded machine (more so under
 * sanitizers), and 8 silent rounds of ~4 ms fail the QP with
 * RETRY_EXC_ERR; 14 (~67 ms, perftest's) stands half a second. */
#define PAIR_THREAD_TIMEOUT 14

/* For the uint8_t options (timeout .. max_rd_atomic): a real 0, where 0
 * means the default. */
#define PAIR_ZERO 0xFF

/* Every field's 0 is the default given beside it. */
struct pair_opts {
	/* where: A's and B's ports, or (NULL) a new in-memory link with this
	 * config (its faults) and ports 02:00:00:00:00:01 and ..:02 */
	struct roce_port *ports[2];
	struct roce_memlink_config link;
	uint32_t ip[2];                 /* 10.0.0.1, 10.0.0.2 */
	/* RoCE v2 over IPv6: the QPs use each side's GID 2, the IPv6
	 * address ip6[side], or without one (all zero) GID 0, the
	 * link-local GID of the side's MAC; flow label and traffic class of
	 * their address vectors */
	bool ipv6;
	uint8_t ip6[2][16];
	uint32_t flow_label;
	uint8_t tclass;
	uint8_t peer_mac[2][6];         /* A's peer, B's: the other port's MAC */
	bool virtual_time;              /* engines and link on a clock that
					 * pair_poll() advances 1 us a call:
					 * timers no longer depend on how fast
					 * this machine runs the test */
	/* each side's objects */
	size_t mem_size;                /* device DDR; 0 = the device's default */
	enum roce_mtu port_mtu;         /* the ports' active MTU (UD): 4096 */
	size_t buf_len;                 /* registered buffer: 4 MiB */
	unsigned access;                /* MR and QP rights: local write,
					 * remote write, read and atomic */
	unsigned nqp;                   /* 1 .. PAIR_MAX_QPS: 1 */
	int cq_depth;                   /* 4096 */
	uint32_t sq_depth, rq_depth;    /* 256 each */
	uint32_t sq_depth0;             /* QP 0's send queue: sq_depth (one
					 * deep queue among many shallow ones) */
	uint32_t max_sge;               /* send and receive: ROCE_WQE_SGE (the
					 * WQE's own room; up to ROCE_MAX_SGE) */
	uint32_t max_inline;            /* the QPs' max_inline_data: 0 */
	/* the connection */
	enum roce_qp_type qp_type;      /* ROCE_QPT_RC (0) or ROCE_QPT_UC */
	enum roce_mtu mtu;              /* ROCE_MTU_1024 */
	uint32_t psn[2];                /* first PSN A's QP i sends, + i;
					 * B's: 0x123457, 0x123458 */
	uint8_t timeout;                /* 10 (~4 ms); engine threads:
					 * PAIR_THREAD_TIMEOUT */
	uint8_t retry_cnt;              /* 7 */
	uint8_t rnr_retry;              /* 7 */
	uint8_t min_rnr_timer;          /* 1 (10 us) */
	uint8_t max_rd_atomic;          /* both directions: ROCE_RESP_RD_MIN (16) */
	struct trace_writer *trace;     /* both NICs' transaction trace, A as
					 * NIC 0 and B as 1; NULL = none */
};

struct pair_side {
	struct roce_context *ctx;
	struct roce_port *port;         /* the caller's, or link_port */
	struct roce_port link_port;     /* its port on the in-memory link */
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;             /* qps[0] */
	struct roce_qp **qps;           /* nqp of them */
	unsigned nqp;
	struct roce_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	uint32_t ip;
	uint8_t gid[16];                /* the GID its QPs use (IPv4-mapped
					 * unless pair_opts.ipv6) */
	int sgid_index;
	uint8_t peer_mac[6];
	bool thread;                    /* the engine runs on its own thread */
};

struct pair {
	struct pair_side a, b;
	struct roce_memlink *link;      /* owned; NULL on the caller's ports */
	unsigned nqp;
	enum roce_mtu mtu;
	bool virtual_time;
	uint64_t vclock;                /* ns; advanced by pair_poll() */
	char err[160];                  /* what failed, for the caller's message */
};

/* Set up *p (its address must not change until pair_teardown()): ROCE_OK,
 * or a failure status with p->err saying what failed and nothing left to
 * release. */
/* The environment asks for IBA's loss recovery alone (ROCE_IBA_STRICT, as
 * roce-run takes it), which pair_setup applies to both engines. */
bool pair_iba_strict(void);
int pair_setup(struct pair *p, const struct pair_opts *o);
/* Stops the engine threads, releases everything; *p may then be set up
 * again. */
void pair_teardown(struct pair *p);

/* The engine of s on its own thread, pinned to cpu (-1: not pinned). */
int pair_start(struct pair_side *s, int cpu);
/* Its thread stopped, if it has one: the caller polls it again. */
void pair_stop(struct pair_side *s);

/* One step of the engines the caller drives (those without a thread of
 * their own), then 1 us of virtual time. Inline: the benchmarks call it
 * in their measuring loops. */
static inline void pair_poll(struct pair *p)
{
	if (!p->a.thread)
		roce_engine_poll(p->a.ctx);
	if (!p->b.thread)
		roce_engine_poll(p->b.ctx);
	p->vclock += 1000;
}

/* Poll until cq yields n completions (stored in wc) or timeout_ms of
 * wall-clock time pass: how many arrived, or a negative status when the
 * CQ overflowed. With both engines on threads it leaves them the cores
 * between looks. */
int pair_wait_cq(struct pair *p, struct roce_cq *cq, struct roce_wc *wc, int n,
		 unsigned timeout_ms);

uint64_t pair_cnt(const struct pair_side *s, enum roce_cnt id);
uint64_t pair_now_ms(void);

#endif
