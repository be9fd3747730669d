/* SPDX-License-Identifier: MIT */
/*
 * An index queue: a set of small integers (QPNs, MR indices) that any
 * thread may add to and one thread takes out, in order, each at most once
 * until taken. It is how work finds the engine without a scan, the way a
 * NIC's doorbell FIFO and its context-cache invalidations do: a posted WR
 * queues its QPN, a COMMIT queues the entry it changed.
 *
 * Every index has a "queued" flag; a push sets it and appends the index,
 * a push of a queued index does nothing, a take clears it. At most one
 * copy of an index is ever in the ring, so a ring of n_index slots never
 * overflows. Producers reserve a slot with a fetch-add and publish the
 * index into it (index + 1; 0 is an empty slot); the consumer stops at the
 * first slot not yet published and finds it at its next look.
 *
 * Ordering: a producer publishes its work (e.g. the send queue's producer
 * index) before the push, whose first step is an exchange on the index's
 * flag; the consumer clears the flag with an exchange before it reads the
 * work. The two read-modify-writes are ordered in the flag's modification
 * order: if the producer's comes first, the consumer's reads the value it
 * wrote (release, then acquire), so the consumer sees the work; if the
 * consumer's comes first, the producer reads 0 and queues the index
 * again. No doorbell is lost, and no fence is needed (C11 7.17.3: an RMW
 * reads the last value in the modification order).
 */
#ifndef ROCE_COMMON_IDXQ_H
#define ROCE_COMMON_IDXQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/pow2.h"

struct idxq {
	_Atomic uint32_t prod;          /* producers: next slot to reserve */
	uint32_t cons;                  /* the consumer: next slot to read */
	uint32_t mask;
	uint32_t n_index;
	_Atomic uint32_t *slot;         /* index + 1, 0 = not published */
	_Atomic uint8_t *queued;        /* per index */
};

/* Room for indices 0 .. n_index - 1. Returns false when out of memory. */
static inline bool idxq_init(struct idxq *q, uint32_t n_index)
{
	uint32_t size = pow2_at_least(n_index);

	atomic_init(&q->prod, 0);
	q->cons = 0;
	q->mask = size - 1;
	q->n_index = n_index;
	q->slot = calloc(size, sizeof(*q->slot));
	q->queued = calloc(n_index, sizeof(*q->queued));
	if (!q->slot || !q->queued) {
		free(q->slot);
		free(q->queued);
		q->slot = NULL;
		q->queued = NULL;
		return false;
	}
	return true;
}

static inline void idxq_fini(struct idxq *q)
{
	free(q->slot);
	free(q->queued);
	q->slot = NULL;
	q->queued = NULL;
}

/* Any thread: queue index i unless it is queued already. The caller's
 * work is published before (see above). */
static inline void idxq_push(struct idxq *q, uint32_t i)
{
	uint32_t p;

	if (i >= q->n_index ||
	    atomic_exchange_explicit(&q->queued[i], 1, memory_order_acq_rel))
		return;
	p = atomic_fetch_add_explicit(&q->prod, 1, memory_order_relaxed);
	atomic_store_explicit(&q->slot[p & q->mask], i + 1, memory_order_release);
}

/* The consumer: the next index, false when none is published yet. */
static inline bool idxq_take(struct idxq *q, uint32_t *i)
{
	_Atomic uint32_t *s = &q->slot[q->cons & q->mask];
	uint32_t v = atomic_load_explicit(s, memory_order_acquire);

	if (!v)
		return false;
	atomic_store_explicit(s, 0, memory_order_relaxed);
	q->cons++;
	*i = v - 1;
	atomic_exchange_explicit(&q->queued[*i], 0, memory_order_acq_rel);
	return true;
}

/* The consumer: anything pushed and not yet taken (published or not). */
static inline bool idxq_pending(struct idxq *q)
{
	return atomic_load_explicit(&q->prod, memory_order_acquire) != q->cons;
}

#endif
