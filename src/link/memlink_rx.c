/* SPDX-License-Identifier: MIT */
/*
 * The in-memory link's receive side: lend frames from the port's ring, and
 * collect frames other ports held back for us once their hold expired, so
 * a reordered frame arrives even when its sender sends nothing more.
 */
#include "link/memlink_priv.h"

/* Take every expired frame held for r into r's own ring (r is then one of
 * its ring's producers, like any sender). */
static void collect_held(struct ml_port *r, uint64_t now)
{
	struct roce_memlink *l = r->link;
	unsigned nports = ml_nports(l);

	for (unsigned p = 0; p < nports; p++) {
		struct ml_port *s = l->ports[p];

		for (unsigned i = 0; i < ROCE_MEMLINK_HOLD_SLOTS && p != r->idx; i++) {
			struct ml_hold *h = &s->hold[i];
			uint64_t t = atomic_load_explicit(&h->tag, memory_order_acquire);
			uint64_t busy = ml_tag(t, r->idx, ML_HOLD_BUSY);
			struct ml_emit e;

			if (ml_tag_state(t) != ML_HOLD_HELD || ml_tag_dst(t) != r->idx ||
			    atomic_load_explicit(&h->until_ns, memory_order_relaxed) > now)
				continue;
			if (!atomic_compare_exchange_strong_explicit(
				    &h->tag, &t, busy, memory_order_acquire,
				    memory_order_relaxed))
				continue;
			e = (struct ml_emit){ h->buf, h->len, -1, h };
			ml_batch_add(r, r, &e, h->dup ? 2 : 1);
		}
	}
	ml_batch_flush(r);
}

unsigned ml_rx_burst(void *ctx, struct roce_frame *f, unsigned max)
{
	struct ml_port *r = ctx;
	struct roce_memlink *l = r->link;
	bool held = atomic_load_explicit(&r->held_for, memory_order_relaxed) != 0;
	uint64_t now = 0;

	if (held || l->delay_ns)
		now = ml_now(l);
	if (held)
		collect_held(r, now);
	return ml_ring_lend(&r->ring, f, max, l->delay_ns != 0, now);
}

void ml_rx_release(void *ctx, unsigned n)
{
	struct ml_port *r = ctx;

	ml_ring_release(&r->ring, n);
}
