/* SPDX-License-Identifier: MIT */
/*
 * Driving the engines: work requests, posting, and waiting for completions
 * while the engines run, polled from this thread or on threads of their own.
 */
#include <string.h>

#include "roce-demo/demo.h"
#include "roce/status.h"

/* Let the engines run: poll both from here, or, when each has a thread of
 * its own, nap 10 us so that this thread, spinning on CQs, does not take a
 * core from them (two engines and this thread may share two cores). */
void demo_kick(struct demo *d)
{
	if (d->o.threads) {
		struct timespec ts = { 0, 10000 };

		nanosleep(&ts, NULL);
		return;
	}
	roce_engine_poll(d->a.ctx);
	roce_engine_poll(d->b.ctx);
	if (demo_clock.on)
		demo_clock_tick(d);
}

/* n completions polled into wc: each must have succeeded. */
static bool polled_ok(struct step *s, const char *what, int n,
		      const struct roce_wc *wc)
{
	if (n < 0)
		return step_fail(s, "%s: completion queue overflow", what);
	for (int i = 0; i < n; i++)
		if (wc[i].status != ROCE_WC_SUCCESS)
			return step_fail(s, "%s: completion status '%s'", what,
					 roce_wc_status_str(wc[i].status));
	return true;
}

/* One successful completion from cq within ROCE_DEMO_STEP_MS. */
bool demo_wait_one(struct demo *d, struct roce_cq *cq, struct roce_wc *wc,
		   struct step *s, const char *what)
{
	uint64_t end = now_ns() + ROCE_DEMO_STEP_MS * 1000000ull;
	int n = 0;

	while (n == 0 && now_ns() < end) {
		demo_kick(d);
		n = roce_poll_cq(cq, 1, wc);
	}
	if (!polled_ok(s, what, n, wc))
		return false;
	if (n == 0)
		return step_fail(s, "%s: no completion within %u ms", what,
				 ROCE_DEMO_STEP_MS);
	return true;
}

/* Up to 32 completions of cq: each must have succeeded; stamps them in t
 * (t[done] is the done-th message's completion time). -1 on a failure. */
int demo_reap(struct roce_cq *cq, uint64_t *t, uint32_t *done,
	      struct step *s, const char *what)
{
	struct roce_wc wc[32];
	int n = roce_poll_cq(cq, 32, wc);
	uint64_t now = now_ns();

	if (!polled_ok(s, what, n, wc))
		return -1;
	for (int i = 0; i < n; i++) {
		if (t)
			t[*done + 1] = now;
		(*done)++;
	}
	return n;
}

/* A signaled WR of one SGE: len bytes at off in n's memory, in its MR mr. */
void demo_wr_init(struct roce_send_wr *wr, struct roce_sge *sge,
		  enum roce_wr_opcode op, const struct nic *n, size_t off,
		  uint32_t len, int mr)
{
	*sge = (struct roce_sge){ (uint64_t)(uintptr_t)(n->buf + off), len,
				  n->mr[mr]->lkey };
	*wr = (struct roce_send_wr){ .wr_id = (uint64_t)op, .sg_list = sge,
				     .num_sge = 1, .opcode = op,
				     .send_flags = ROCE_SEND_SIGNALED };
}

/* B's WR from its local MR toward the base of A's advertised memory. */
void demo_wr_to_ad(struct demo *d, struct roce_send_wr *wr,
		   struct roce_sge *sge, enum roce_wr_opcode op, size_t off,
		   uint32_t len)
{
	demo_wr_init(wr, sge, op, &d->b, off, len, 0);
	wr->wr.rdma.remote_addr = d->ad.base;
	wr->wr.rdma.rkey = d->ad.rkey;
}

/* Post one WR on n and wait for its successful completion. */
bool demo_post_wait(struct demo *d, struct nic *n, struct roce_send_wr *wr,
		    struct step *s, const char *what)
{
	struct roce_send_wr *bad;
	struct roce_wc wc;
	int st = roce_post_send(n->qp, wr, &bad);

	if (st != ROCE_OK)
		return step_fail(s, "%s: post_send: %s", what, roce_status_str(st));
	return demo_wait_one(d, n->scq, &wc, s, what);
}
