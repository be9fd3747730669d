/* SPDX-License-Identifier: MIT */
#include <time.h>

#include "common/clock.h"
#include "roce/regs.h"
#include "regs/link_model.h"

static uint64_t link_now(const struct roce_link_model *l)
{
	return l->now_ns(l->clock_ctx);
}

void roce_link_init(struct roce_link_model *l, uint32_t delay_us,
		    uint64_t (*now_ns)(void *), void *clock_ctx)
{
	l->delay_ns = (uint64_t)delay_us * 1000u;
	l->now_ns = now_ns ? now_ns : roce_clock_ns;
	l->clock_ctx = clock_ctx;
	l->epoch = 0;
	l->ready_epoch = UINT64_MAX;   /* never seen up yet */
	roce_link_restart(l);
}

/* start_ns is stored before the epoch moves, so a reader that sees the
 * new epoch also sees the new start (see roce_link_ready). */
static void link_set_start(struct roce_link_model *l, uint64_t start)
{
	__atomic_store_n(&l->start_ns, start, __ATOMIC_RELEASE);
	__atomic_fetch_add(&l->epoch, 1, __ATOMIC_RELEASE);
}

void roce_link_hold(struct roce_link_model *l)
{
	link_set_start(l, ROCE_LINK_HELD);
}

void roce_link_restart(struct roce_link_model *l)
{
	uint64_t now = link_now(l);

	/* an injected clock may start at UINT64_MAX; keep HELD distinct */
	if (now == ROCE_LINK_HELD)
		now--;
	link_set_start(l, now);
}

uint32_t roce_link_bits(const struct roce_link_model *l)
{
	uint64_t start = __atomic_load_n(&l->start_ns, __ATOMIC_ACQUIRE);
	uint64_t now, up, d = l->delay_ns;
	uint32_t bits = 0;

	if (start == ROCE_LINK_HELD)
		return 0;
	now = link_now(l);
	if (now < start)        /* clock went backwards: not up yet */
		return 0;
	up = now - start;
	if (up >= d / 2)
		bits |= ROCE_STATUS_GT_POWERGOOD;
	if (up >= d * 3 / 4)  /* d < 2^43: no overflow */
		bits |= ROCE_STATUS_TX_RESET_DONE;
	if (up >= d)
		bits |= ROCE_STATUS_RX_RESET_DONE;
	if (up >= d)
		bits |= ROCE_STATUS_LINK_READY;
	return bits;
}

bool roce_link_ready(struct roce_link_model *l)
{
	uint64_t epoch = __atomic_load_n(&l->epoch, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&l->ready_epoch, __ATOMIC_RELAXED) == epoch)
		return true;
	if (!(roce_link_bits(l) & ROCE_STATUS_LINK_READY))
		return false;
	/* Seen up in this epoch. If a reset raced in, the epoch has moved
	 * on and this record no longer matches. */
	__atomic_store_n(&l->ready_epoch, epoch, __ATOMIC_RELAXED);
	return true;
}
