/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: two engines (A and B) on an in-memory link, an RC QP each,
 * connected to each other, a registered buffer on each side. Everything is
 * configured through the verbs API, hence through the register files.
 * Header-only so each suite stays one file.
 */
#ifndef ROCE_TEST_PAIR_H
#define ROCE_TEST_PAIR_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "roce/counters.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/verbs.h"

struct side {
	struct roce_context *ctx;
	struct roce_port port;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	uint8_t *buf;
	size_t buf_len;
	struct roce_mr *mr;
};

struct pair {
	struct roce_memlink *link;
	struct side a, b;
	enum roce_mtu mtu;
	bool virtual_time;
	uint64_t vclock;                /* ns; advanced by pair_poll() */
};

struct pair_opts {
	enum roce_mtu mtu;              /* 0 = 1024 */
	size_t buf_len;                 /* 0 = 4 MiB */
	size_t mem_size;                /* device DDR; 0 = default */
	struct roce_memlink_config link;
	uint8_t timeout;                /* 0 = 10 (~4 ms) */
	uint8_t retry_cnt;              /* 0 = 7 */
	uint8_t rnr_retry;              /* 0 = 7; use PAIR_ZERO for 0 */
	uint8_t min_rnr_timer;          /* 0 = 1 (10 us) */
	uint8_t max_rd_atomic;          /* 0 = 16 */
	uint32_t sq_depth;              /* 0 = 256 */
	bool virtual_time;              /* engines and link on a clock that
					 * pair_poll() advances 1 us a call:
					 * timers no longer depend on how
					 * fast this machine runs the test */
};

static inline uint64_t pair_vclock(void *ctx)
{
	return *(const uint64_t *)ctx;
}

#define PAIR_ZERO 0xFF

static inline uint64_t pair_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline void side_open(struct pair *p, struct side *s, uint8_t id,
			     const struct pair_opts *o)
{
	struct roce_context_attr ca;
	const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, id };
	struct roce_qp_init_attr qa;
	uint32_t depth = o->sq_depth ? o->sq_depth : 256;

	memset(&ca, 0, sizeof(ca));
	assert_int_equal(roce_memlink_attach(p->link, mac, &s->port), ROCE_OK);
	memcpy(ca.mac, mac, 6);
	ca.ip = 0x0A000000u | id;
	ca.port = &s->port;
	ca.dev.mem_size = o->mem_size;
	if (p->virtual_time) {
		ca.now_ns = pair_vclock;
		ca.clock_ctx = &p->vclock;
	}
	assert_int_equal(roce_open(&ca, &s->ctx), ROCE_OK);
	s->pd = roce_alloc_pd(s->ctx);
	s->scq = roce_create_cq(s->ctx, 4096);
	s->rcq = roce_create_cq(s->ctx, 4096);
	assert_non_null(s->pd);
	assert_non_null(s->scq);
	assert_non_null(s->rcq);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	qa.qp_type = ROCE_QPT_RC;
	qa.cap.max_send_wr = depth;
	qa.cap.max_recv_wr = depth;
	qa.cap.max_send_sge = ROCE_MAX_SGE;
	qa.cap.max_recv_sge = ROCE_MAX_SGE;
	s->qp = roce_create_qp(s->pd, &qa);
	assert_non_null(s->qp);
	s->buf_len = o->buf_len ? o->buf_len : 4u << 20;
	s->buf = roce_mem_alloc(s->ctx, s->buf_len, 4096);
	assert_non_null(s->buf);
	memset(s->buf, 0, s->buf_len);
	s->mr = roce_reg_mr(s->pd, s->buf, s->buf_len,
			    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			    ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC);
	assert_non_null(s->mr);
}

static inline uint8_t opt_or(uint8_t v, uint8_t dflt)
{
	return v == PAIR_ZERO ? 0 : v ? v : dflt;
}

/* RESET -> INIT -> RTR -> RTS toward peer, as perftest does. */
static inline void side_connect(struct pair *p, struct side *s, struct side *peer,
				const struct pair_opts *o)
{
	struct roce_qp_attr at;
	const uint8_t peer_id = peer == &p->a ? 1 : 2;

	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			     ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	at.pkey = 0xFFFF;
	assert_int_equal(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
					ROCE_QP_PKEY_INDEX), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = p->mtu;
	at.dest_qp_num = roce_qp_num(peer->qp);
	at.rq_psn = 0x123456u + peer_id;        /* peer's sq_psn */
	at.max_dest_rd_atomic = o->max_rd_atomic ? o->max_rd_atomic : 16;
	at.min_rnr_timer = opt_or(o->min_rnr_timer, 1);
	at.ah_attr.dest_ip = 0x0A000000u | peer_id;
	memset(at.ah_attr.dest_mac, 0, 6);
	at.ah_attr.dest_mac[0] = 0x02;
	at.ah_attr.dest_mac[5] = peer_id;
	assert_int_equal(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
					ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER),
			 ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = 0x123456u + (peer_id == 1 ? 2 : 1);
	at.timeout = opt_or(o->timeout, 10);
	at.retry_cnt = opt_or(o->retry_cnt, 7);
	at.rnr_retry = opt_or(o->rnr_retry, 7);
	at.max_rd_atomic = o->max_rd_atomic ? o->max_rd_atomic : 16;
	assert_int_equal(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
					ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					ROCE_QP_MAX_QP_RD_ATOMIC), ROCE_OK);
}

static inline struct pair *pair_open(const struct pair_opts *o)
{
	struct pair *p = calloc(1, sizeof(*p));
	struct roce_memlink_config lc = o->link;

	assert_non_null(p);
	p->mtu = o->mtu ? o->mtu : ROCE_MTU_1024;
	p->virtual_time = o->virtual_time;
	p->vclock = 1000000;
	if (p->virtual_time) {
		lc.now_ns = pair_vclock;
		lc.clock_ctx = &p->vclock;
	}
	assert_int_equal(roce_memlink_create(&lc, &p->link), ROCE_OK);
	side_open(p, &p->a, 1, o);
	side_open(p, &p->b, 2, o);
	side_connect(p, &p->a, &p->b, o);
	side_connect(p, &p->b, &p->a, o);
	return p;
}

static inline void pair_close(struct pair *p)
{
	struct side *sides[2] = { &p->a, &p->b };

	for (int i = 0; i < 2; i++) {
		struct side *s = sides[i];

		roce_destroy_qp(s->qp);
		roce_dereg_mr(s->mr);
		roce_mem_free(s->ctx, s->buf);
		roce_destroy_cq(s->scq);
		roce_destroy_cq(s->rcq);
		roce_dealloc_pd(s->pd);
		roce_close(s->ctx);
	}
	roce_memlink_destroy(p->link);
	free(p);
}

static inline void pair_poll(struct pair *p)
{
	roce_engine_poll(p->a.ctx);
	roce_engine_poll(p->b.ctx);
	p->vclock += 1000;
}

/* Poll both engines until cq yields n completions (stored in wc) or
 * timeout_ms passes; returns how many arrived. */
static inline int pair_wait(struct pair *p, struct roce_cq *cq, struct roce_wc *wc,
			    int n, unsigned timeout_ms)
{
	uint64_t end = pair_now_ms() + timeout_ms;
	int got = 0;

	while (got < n && pair_now_ms() < end) {
		int r;

		pair_poll(p);
		r = roce_poll_cq(cq, n - got, wc + got);
		assert_true(r >= 0);
		got += r;
	}
	return got;
}

/* One signaled WR and its completion (asserted successful unless want
 * says otherwise). */
static inline void pair_post_wait(struct pair *p, struct side *s, struct roce_send_wr *wr,
				  enum roce_wc_status want)
{
	struct roce_send_wr *bad = NULL;
	struct roce_wc wc;

	wr->send_flags |= ROCE_SEND_SIGNALED;
	assert_int_equal(roce_post_send(s->qp, wr, &bad), ROCE_OK);
	assert_int_equal(pair_wait(p, s->scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, wr->wr_id);
	if (wc.status != want)
		fail_msg("wr %llu: status '%s', want '%s'", (unsigned long long)wr->wr_id,
			 roce_wc_status_str(wc.status), roce_wc_status_str(want));
}

static inline uint64_t side_cnt(struct side *s, enum roce_cnt id)
{
	return roce_cnt_read(roce_device_counters(roce_context_device(s->ctx)), id);
}

#endif
