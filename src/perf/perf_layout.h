/* SPDX-License-Identifier: MIT */
/*
 * What a peer meets on our side of a test: the access rights of the QPs
 * and of the MR, the size and alignment of the registered buffer, and
 * where in it each QP's regions sit, exactly as the original tools set
 * them up (perftest 4.5-0.17 src/perftest_resources.c and
 * src/perftest_communication.c; rdma-core 44 rc_pingpong.c). The
 * originals grant each test only what it needs: a write test's QP cannot
 * be READ, a send test's buffer has no remote right at all, and
 * ibv_rc_pingpong's QP has none.
 *
 * The buffer of a perftest test, BUFF = max(size, cycle buffer) and
 * INC = BUFF rounded up to the cache line:
 *
 *   [ QP 0 send | ... | QP n-1 send | QP 0 recv | ... | QP n-1 recv ]
 *     BUFF each (ctx->buf[i])         BUFF stride from n * BUFF
 *                                     (my_dest[i].vaddr); the receive
 *                                     WQEs of SEND tests use INC stride
 *   total 2 * n * INC (ctx->buff_size): the MR covers all of it.
 */
#ifndef ROCE_PERF_LAYOUT_H
#define ROCE_PERF_LAYOUT_H

#include <stdint.h>

#include "perf/perf.h"

struct perf_layout {
	unsigned mr_access;     /* enum roce_access bits of the one MR */
	unsigned qp_access;     /* qp_access_flags set on the way to INIT */
	uint64_t len;           /* the buffer, and the MR over it */
	uint64_t align;         /* of the buffer's address */
	uint64_t buff;          /* BUFF_SIZE(): a QP's send region, and the
				 * stride of the advertised regions */
	uint64_t recv_stride;   /* send_qp_buff_size: receive regions' stride */
	uint64_t recv_shift;    /* UD: a receive starts a cache line less the
				 * GRH area into its slot, so the message
				 * is aligned (ctx_set_recv_wqes) */
	unsigned nqp;
};

/* perftest's layout for o's test (verb, size: the largest with -a, QPs),
 * given the cycle buffer and cache line agreed with the peer (each side's
 * larger, check_sys_data()). Pure. */
void perf_layout(const struct perf_opts *o, uint32_t cycle_buffer,
		 uint32_t cache_line, struct perf_layout *l);

/* ibv_rc_pingpong's: size bytes on a page, local write only, QP none. */
void perf_layout_pingpong(uint64_t size, uint64_t page, struct perf_layout *l);

/* Offsets in the buffer: QP qp's send region (ctx->buf[qp]), the region it
 * advertises to the peer (my_dest[qp].vaddr: the target of the peer's
 * WRITE, READ and atomics), and its first receive (ctx_set_recv_wqes). */
static inline uint64_t perf_layout_local(const struct perf_layout *l, unsigned qp)
{
	return (uint64_t)qp * l->buff;
}

static inline uint64_t perf_layout_remote(const struct perf_layout *l, unsigned qp)
{
	return (uint64_t)(l->nqp + qp) * l->buff;
}

static inline uint64_t perf_layout_recv(const struct perf_layout *l, unsigned qp)
{
	return (uint64_t)(l->nqp + qp) * l->recv_stride + l->recv_shift;
}

/* get_cache_line_size(): the L1 data cache line, from sysconf or sysfs,
 * else 64 (DEF_CACHE_LINE_SIZE). */
uint32_t perf_cache_line_size(void);

#endif
