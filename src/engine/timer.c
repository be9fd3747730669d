/* SPDX-License-Identifier: MIT */
/*
 * The hierarchical timing wheel of timer.h. The wheel's own clock is
 * w->tick, the last tick whose slots were run; a timer is filed relative
 * to it, so a slot's turn always lies ahead of the tick it was filed at
 * and the 64 slots of a level never alias.
 */
#include "engine/timer.h"

static uint64_t level_span(unsigned level)     /* ticks per slot */
{
	return 1ull << (TW_BITS * level);
}

static void link_slot(struct timer_wheel *w, struct eng_timer *t,
		      unsigned level, unsigned slot)
{
	struct eng_timer **head = level < TW_LEVELS ? &w->slot[level][slot] : &w->due;

	t->next = *head;
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = head;
	*head = t;
	t->level = (uint8_t)level;
	w->n[level]++;
	w->armed++;
}

/* File t by its deadline against the wheel's clock. */
static void file(struct timer_wheel *w, struct eng_timer *t)
{
	uint64_t x = t->expires >> TW_SHIFT;
	unsigned level;

	if (x <= w->tick) {             /* this tick: every advance looks */
		link_slot(w, t, TW_LEVELS, 0);
		return;
	}
	/* the lowest level on which x's slot is among the next 63 */
	for (level = 0; level < TW_LEVELS; level++) {
		unsigned sh = TW_BITS * level;

		if ((x >> sh) - (w->tick >> sh) < TW_SLOTS) {
			link_slot(w, t, level, (unsigned)((x >> sh) & (TW_SLOTS - 1)));
			return;
		}
	}
	/* beyond the wheel: the top level's furthest slot, then again */
	level = TW_LEVELS - 1;
	link_slot(w, t, level, (unsigned)(((w->tick >> (TW_BITS * level)) + TW_SLOTS - 1) &
					  (TW_SLOTS - 1)));
}

void tw_arm(struct timer_wheel *w, struct eng_timer *t, uint64_t expires,
	    uint64_t now)
{
	/* an empty wheel has not followed the clock: start it at now */
	if (!w->armed)
		w->tick = now >> TW_SHIFT;
	t->expires = expires;
	file(w, t);
}

void tw_cancel(struct timer_wheel *w, struct eng_timer *t)
{
	if (!t->pprev)
		return;
	*t->pprev = t->next;
	if (t->next)
		t->next->pprev = t->pprev;
	t->next = 0;
	t->pprev = 0;
	w->n[t->level]--;
	w->armed--;
}

/* Run one slot: expire what is due, file the rest lower. The slot is
 * taken whole first; fire() may cancel timers still in it (they unlink
 * from the taken list like from any other). */
static unsigned run_slot(struct timer_wheel *w, unsigned level, unsigned slot,
			 uint64_t now, void (*fire)(void *, struct eng_timer *),
			 void *ctx)
{
	struct eng_timer **head = level < TW_LEVELS ? &w->slot[level][slot] : &w->due;
	struct eng_timer *list = *head, *t;
	unsigned fired = 0;

	if (!list)
		return 0;
	*head = 0;
	list->pprev = &list;
	while ((t = list)) {
		list = t->next;
		if (list)
			list->pprev = &list;
		t->next = 0;
		t->pprev = 0;
		w->n[level]--;
		w->armed--;
		if (t->expires <= now) {
			fire(ctx, t);
			fired++;
		} else {
			file(w, t);
		}
	}
	return fired;
}

unsigned tw_advance(struct timer_wheel *w, uint64_t now,
		    void (*fire)(void *ctx, struct eng_timer *t), void *ctx)
{
	uint64_t now_tick = now >> TW_SHIFT;
	unsigned fired = 0;

	while (w->tick < now_tick) {
		unsigned low = 0, level;
		uint64_t t;

		/* skip to the next slot boundary of the lowest level with
		 * timers: no slot in between holds any */
		while (low < TW_LEVELS && !w->n[low])
			low++;
		if (low == TW_LEVELS)
			break;
		t = (w->tick | (level_span(low) - 1)) + 1;
		if (t > now_tick)
			break;
		w->tick = t;
		/* higher levels first: what they file lower may be due in
		 * this very tick's slot */
		for (level = TW_LEVELS - 1; level > 0; level--)
			if (!(t & (level_span(level) - 1)))
				fired += run_slot(w, level, (unsigned)((t >> (TW_BITS * level)) &
								       (TW_SLOTS - 1)),
						  now, fire, ctx);
		fired += run_slot(w, 0, (unsigned)(t & (TW_SLOTS - 1)), now, fire, ctx);
	}
	w->tick = now_tick;
	/* the current tick's timers, to the nanosecond */
	fired += run_slot(w, TW_LEVELS, 0, now, fire, ctx);
	return fired;
}
