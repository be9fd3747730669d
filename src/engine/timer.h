/* SPDX-License-Identifier: MIT */
/*
 * The timer block: every QP's earliest deadline (retransmission, RNR
 * wait, local DMA) in a hierarchical timing wheel (Varghese and Lauck,
 * "Hashed and hierarchical timing wheels", SOSP 1987). Arming and
 * cancelling are O(1); advancing the clock works only on the slots that
 * come due, and skips time in which nothing is filed.
 *
 * Level L has TW_SLOTS slots of TW_SLOTS^L ticks each; a tick is
 * 2^TW_SHIFT ns (4.1 us). A timer is filed at the lowest level whose span
 * reaches its deadline, in the slot whose start is at or before it; when
 * that slot comes due the timer either expires or is filed again, lower.
 * A timer whose deadline lies in the current tick waits on a short list
 * that every advance looks at, so timers expire at their nanosecond, not
 * at the next tick. A timer is touched at most once per level (five) and
 * once per advance in its last tick, and the wheel spans 73 minutes before it files a
 * timer in its last slot to look again (IBA's longest retransmission
 * timeout, 4.096 us * 2^31, is 2.4 hours).
 */
#ifndef ROCE_ENGINE_TIMER_H
#define ROCE_ENGINE_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define TW_SHIFT  12u                   /* ns per tick: 4096 */
#define TW_BITS   6u
#define TW_SLOTS  (1u << TW_BITS)
#define TW_LEVELS 5u

struct eng_timer {
	struct eng_timer *next, **pprev;        /* pprev NULL: not armed */
	uint64_t expires;                       /* ns */
	uint8_t level;
};

struct timer_wheel {
	struct eng_timer *slot[TW_LEVELS][TW_SLOTS];
	struct eng_timer *due;                  /* deadline in the current tick */
	uint32_t n[TW_LEVELS + 1];              /* timers per level; [TW_LEVELS]: due */
	uint32_t armed;                         /* all levels */
	uint64_t tick;                          /* the last tick processed */
};

static inline bool tw_armed(const struct eng_timer *t)
{
	return t->pprev != 0;
}

/* Arm t (not armed) to expire at expires; now is the current time. */
void tw_arm(struct timer_wheel *w, struct eng_timer *t, uint64_t expires,
	    uint64_t now);
void tw_cancel(struct timer_wheel *w, struct eng_timer *t);
/* Bring the wheel to now: every timer whose deadline is at or before now
 * is disarmed and handed to fire (which may arm timers again). Returns
 * how many fired. */
unsigned tw_advance(struct timer_wheel *w, uint64_t now,
		    void (*fire)(void *ctx, struct eng_timer *t), void *ctx);

#endif
