/* SPDX-License-Identifier: MIT */
/*
 * The originals' rights and buffer layout (see perf_layout.h). Line
 * numbers are those of perftest tag v4.5-0.17 and rdma-core tag v44.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "perf/perf_layout.h"
#include "roce/regs.h"
#include "roce/verbs.h"

/* perftest_resources.h:117 BUFF_SIZE() and :128 INC() */
static uint64_t buff_size(uint64_t size, uint64_t cycle_buffer)
{
	return size < cycle_buffer ? cycle_buffer : size;
}

static uint64_t inc(uint64_t size, uint64_t cache_line)
{
	return size > cache_line ? (size + cache_line - 1) / cache_line * cache_line
				 : cache_line;
}

void perf_layout(const struct perf_opts *o, uint32_t cycle_buffer,
		 uint32_t cache_line, struct perf_layout *l)
{
	/* create_single_mr() (perftest_resources.c:1643): local write, plus
	 * the one remote right the verb needs; SEND none (the receives use
	 * the local right) */
	static const unsigned mr_remote[] = {
		[PERF_SEND] = 0,
		[PERF_WRITE] = ROCE_ACCESS_REMOTE_WRITE,
		[PERF_READ] = ROCE_ACCESS_REMOTE_READ,
		[PERF_ATOMIC] = ROCE_ACCESS_REMOTE_ATOMIC,
	};
	/* ctx_modify_qp_to_init() (perftest_resources.c:2490), RC: that one
	 * right alone, SEND remote write and local write */
	static const unsigned qp[] = {
		[PERF_SEND] = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_LOCAL_WRITE,
		[PERF_WRITE] = ROCE_ACCESS_REMOTE_WRITE,
		[PERF_READ] = ROCE_ACCESS_REMOTE_READ,
		[PERF_ATOMIC] = ROCE_ACCESS_REMOTE_ATOMIC,
	};

	l->mr_access = ROCE_ACCESS_LOCAL_WRITE | mr_remote[o->verb];
	l->qp_access = qp[o->verb];
	l->nqp = o->nqp;
	/* alloc_ctx() (perftest_resources.c:1210): one MR for all QPs
	 * (mr_per_qp off), one flow, no cache line more (that is UD's) */
	l->buff = buff_size(o->size, cycle_buffer);
	l->recv_stride = inc(l->buff, cache_line);
	l->len = l->recv_stride * 2 * o->nqp;
	l->recv_shift = 0;
	if (o->conn == ROCE_QPT_UD) {
		/* a cache line more for the receives' shift (alloc_ctx);
		 * each starts UD_ADDITION (the GRH area) before the line */
		l->len += cache_line;
		l->recv_shift = cache_line - ROCE_GRH_LEN;
	}
	/* memalign(user_param->cycle_buffer, ...) (perftest_resources.c:1737) */
	l->align = cycle_buffer;
}

void perf_layout_pingpong(uint64_t size, uint64_t page, struct perf_layout *l)
{
	/* pp_init_ctx() (rc_pingpong.c:332): memalign(page_size, size),
	 * ibv_reg_mr(buf, size, IBV_ACCESS_LOCAL_WRITE), QP to INIT with
	 * qp_access_flags 0. Sends and receives use the whole buffer, so
	 * every region starts at 0 (strides 0). */
	*l = (struct perf_layout){
		.mr_access = ROCE_ACCESS_LOCAL_WRITE, .qp_access = 0,
		.len = size, .align = page, .nqp = 1,
	};
}

uint32_t perf_cache_line_size(void)
{
	/* get_cache_line_size() (perftest_parameters.c:142): sysconf's
	 * answer; if it has none (0), sysfs; nothing sensible: 64 */
	long size = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	if (size == 0) {
		FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index0/"
				"coherency_line_size", "r");
		char line[10];

		if (!f)
			return PERF_CACHE_LINE;
		if (fgets(line, sizeof(line), f))
			size = atol(line);
		fclose(f);
	}
	return size > 0 && size <= (long)PERF_MAX_CYCLE ? (uint32_t)size : PERF_CACHE_LINE;
}
