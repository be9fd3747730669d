/* SPDX-License-Identifier: MIT */
/* The in-memory link's receive ring: many producers, one consumer (see
 * memlink_priv.h for the protocol). */
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "roce/status.h"
#include "link/memlink_priv.h"

int ml_ring_init(struct ml_ring *r, uint32_t frames, uint32_t slot_size)
{
	memset(r, 0, sizeof(*r));
	r->size = frames;
	r->slot_size = slot_size;
	r->slots = calloc(frames, sizeof(*r->slots));
	r->data = big_alloc((size_t)frames * slot_size);
	if (!r->slots || !r->data) {
		ml_ring_free(r);
		return ROCE_E_NOMEM;
	}
	for (uint32_t i = 0; i < frames; i++)
		atomic_init(&r->slots[i].seq, 0);
	return ROCE_OK;
}

void ml_ring_free(struct ml_ring *r)
{
	free(r->slots);
	big_free(r->data, (size_t)r->size * r->slot_size);
	r->slots = NULL;
	r->data = NULL;
}

static inline uint8_t *slot_data(const struct ml_ring *r, uint64_t pos)
{
	return r->data + (size_t)(pos & (r->size - 1)) * r->slot_size;
}

/*
 * Claim up to want consecutive slots, leaving keep slots free for others;
 * returns how many (0 = no room) and the first position in *pos. Slots
 * before head are free: the consumer stored head (release) after it
 * stopped reading them, and the acquire load here orders our writes after
 * its reads.
 */
unsigned ml_ring_reserve(struct ml_ring *r, unsigned want, uint64_t keep, uint64_t *pos)
{
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);

	for (;;) {
		uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
		uint64_t used = t - h;
		uint64_t k;

		if (used > r->size) {   /* t was stale: head passed it */
			t = atomic_load_explicit(&r->tail, memory_order_relaxed);
			continue;
		}
		if (r->size - used <= keep)
			return 0;
		k = r->size - used - keep;
		if (k > want)
			k = want;
		if (atomic_compare_exchange_weak_explicit(&r->tail, &t, t + k,
							  memory_order_relaxed,
							  memory_order_relaxed)) {
			*pos = t;
			return (unsigned)k;
		}
	}
}

/* Free slots right now (other producers may take some before we do). */
uint64_t ml_ring_room(struct ml_ring *r)
{
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);

	return t - h > r->size ? 0 : r->size - (t - h);
}

/* The frame buffer of a reserved slot. */
uint8_t *ml_ring_slot(struct ml_ring *r, uint64_t pos)
{
	return slot_data(r, pos);
}

/* Publish a reserved slot whose frame is written. */
void ml_ring_publish(struct ml_ring *r, uint64_t pos, uint32_t len,
		     uint64_t visible_ns)
{
	struct ml_slot *s = &r->slots[pos & (r->size - 1)];

	s->len = len;
	s->visible_ns = visible_ns;
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
}

/* Write one reserved slot and publish it. */
void ml_ring_put(struct ml_ring *r, uint64_t pos, const struct ml_emit *e,
		 uint64_t visible_ns)
{
	uint8_t *d = slot_data(r, pos);

	memcpy(d, e->src, e->len);
	ml_flip(d, e->flip);
	ml_ring_publish(r, pos, e->len, visible_ns);
}

/*
 * Lend the published frames after those already lent, in ring order,
 * stopping at the first one not yet written (a producer is copying it) or,
 * with check_time, not yet visible at now.
 */
unsigned ml_ring_lend(struct ml_ring *r, struct roce_frame *f, unsigned max,
		      bool check_time, uint64_t now)
{
	uint64_t pos = r->lent_end;
	unsigned n = 0;

	while (n < max) {
		struct ml_slot *s = &r->slots[pos & (r->size - 1)];

		if (atomic_load_explicit(&s->seq, memory_order_acquire) != pos + 1)
			break;
		if (check_time && s->visible_ns > now)
			break;
		f[n].data = slot_data(r, pos);
		f[n].len = s->len;
		n++;
		pos++;
	}
	r->lent_end = pos;
	return n;
}

/* Give back the n oldest lent frames (more than are lent is clamped). */
void ml_ring_release(struct ml_ring *r, unsigned n)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);

	if (n > r->lent_end - h)
		n = (unsigned)(r->lent_end - h);
	atomic_store_explicit(&r->head, h + n, memory_order_release);
}
