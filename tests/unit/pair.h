/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' face of the two-engine fixture (tests/support/pair.h):
 * two engines (A and B) on an in-memory link unless the options say
 * otherwise, an RC QP each, connected to each other, a registered buffer
 * on each side; every step asserted with cmocka.
 */
#ifndef ROCE_TEST_PAIR_H
#define ROCE_TEST_PAIR_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/counters.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/verbs.h"
#include "support/pair.h"

static inline struct pair *pair_open(const struct pair_opts *o)
{
	struct pair *p = calloc(1, sizeof(*p));
	int rc;

	assert_non_null(p);
	rc = pair_setup(p, o);
	if (rc != ROCE_OK)
		fail_msg("two engines: %s", p->err);
	return p;
}

static inline void pair_close(struct pair *p)
{
	pair_teardown(p);
	free(p);
}

/* Poll both engines until cq yields n completions (stored in wc) or
 * timeout_ms passes; returns how many arrived. */
static inline int pair_wait(struct pair *p, struct roce_cq *cq, struct roce_wc *wc,
			    int n, unsigned timeout_ms)
{
	int got = pair_wait_cq(p, cq, wc, n, timeout_ms);

	assert_true(got >= 0);
	return got;
}

/* One signaled WR and its completion (asserted successful unless want
 * says otherwise). */
static inline void pair_post_wait(struct pair *p, struct pair_side *s,
				  struct roce_send_wr *wr, enum roce_wc_status want)
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

/* A UD QP through INIT (P_Key index 0, qkey), RTR and RTS, as
 * ibv_ud_pingpong brings one up. */
static inline void pair_ud_ready(struct roce_qp *qp, uint32_t qkey)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF, .qkey = qkey };

	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
					ROCE_QP_QKEY), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE), ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE), ROCE_OK);
}

/* n pseudo-random bytes from seed (xorshift32): distinct per seed, so a
 * byte landing in another message's place shows. */
static inline void pair_pattern(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

#endif
