/* SPDX-License-Identifier: MIT */
/*
 * The in-memory link's transmit side: switching by destination MAC, fault
 * injection, and one ring reservation per destination and burst.
 */
#include <string.h>

#include "roce/wire/eth.h"
#include "link/memlink_priv.h"

/* ---- batches: copies staged for one destination ------------------------- */

/* Write the staged copies into the destination ring; what finds no room is
 * dropped (ring_full) like a full NIC queue. Hold slots whose frame was
 * staged are freed either way. */
void ml_batch_flush(struct ml_port *self)
{
	struct ml_batch *b = &self->batch;
	struct roce_memlink *l = self->link;
	struct ml_port *d = b->dst;
	uint64_t pos = 0, visible = 0;
	unsigned k;

	if (!b->n)
		return;
	if (l->delay_ns)
		visible = ml_now(l) + l->delay_ns;
	k = ml_ring_reserve(&d->ring, b->n, 0, &pos);
	for (unsigned i = 0; i < k; i++)
		ml_ring_put(&d->ring, pos + i, &b->e[i], visible);
	if (k)
		self->wake_dirty |= 1ull << d->idx;
	for (unsigned i = 0; i < b->n; i++)
		if (b->e[i].hold)
			ml_hold_free(b->e[i].hold, d);
	ml_count(&self->st.delivered, k);
	ml_count(&self->st.ring_full, b->n - k);
	b->n = 0;
}

/* Stage copies of e for dst (2 for a duplicate); e->hold rides on the
 * last copy so the slot is freed only after both are written. */
void ml_batch_add(struct ml_port *self, struct ml_port *dst,
		  const struct ml_emit *e, unsigned copies)
{
	struct ml_batch *b = &self->batch;

	if (b->dst != dst || b->n + copies > ROCE_MEMLINK_BATCH) {
		ml_batch_flush(self);
		b->dst = dst;
	}
	for (unsigned i = 0; i < copies; i++) {
		b->e[b->n] = *e;
		if (i + 1 < copies)
			b->e[b->n].hold = NULL;
		b->n++;
	}
}

/* ---- hold slots: reordering --------------------------------------------- */

void ml_hold_free(struct ml_hold *h, struct ml_port *dst)
{
	uint64_t t = atomic_load_explicit(&h->tag, memory_order_relaxed);

	/* next generation, FREE: a CAS that saw the old tag fails */
	atomic_store_explicit(&h->tag, (t & ~0xFFFFFFFFull) + (1ull << 32),
			      memory_order_release);
	atomic_fetch_sub_explicit(&dst->held_for, 1, memory_order_relaxed);
}

static bool hold_take(struct ml_hold *h, uint64_t tag)
{
	return atomic_compare_exchange_strong_explicit(
		&h->tag, &tag, ml_tag(tag, ml_tag_dst(tag), ML_HOLD_BUSY),
		memory_order_acquire, memory_order_relaxed);
}

/* A slot for a new hold toward d, or NULL when the pair already holds a
 * frame or every slot is in use. */
static struct ml_hold *hold_find(struct ml_port *s, unsigned d, uint64_t *tag)
{
	struct ml_hold *free_slot = NULL;

	for (unsigned i = 0; i < ROCE_MEMLINK_HOLD_SLOTS; i++) {
		uint64_t t = atomic_load_explicit(&s->hold[i].tag, memory_order_acquire);

		if (ml_tag_state(t) == ML_HOLD_HELD && ml_tag_dst(t) == d)
			return NULL;
		if (ml_tag_state(t) == ML_HOLD_FREE && !free_slot) {
			free_slot = &s->hold[i];
			*tag = t;
		}
	}
	return free_slot;
}

/* Hold a copy of the frame back; false when there is no slot for it. */
static bool hold_put(struct ml_port *s, struct ml_port *d, const uint8_t *f,
		     uint32_t len, const struct ml_verdict *v)
{
	struct roce_memlink *l = s->link;
	struct ml_hold *h;
	uint64_t tag = 0;

	h = hold_find(s, d->idx, &tag);
	if (!h && s->batch.n) {
		/* slots staged for release are freed by the flush */
		ml_batch_flush(s);
		h = hold_find(s, d->idx, &tag);
	}
	if (!h)
		return false;
	/* only the owner leaves FREE: this store needs no CAS */
	atomic_store_explicit(&h->tag, ml_tag(tag, d->idx, ML_HOLD_BUSY),
			      memory_order_relaxed);
	memcpy(h->buf, f, len);
	ml_flip(h->buf, v->flip);
	h->len = len;
	h->dup = v->dup;
	atomic_store_explicit(&h->until_ns, ml_now(l) + l->hold_ns,
			      memory_order_relaxed);
	atomic_fetch_add_explicit(&d->held_for, 1, memory_order_relaxed);
	atomic_store_explicit(&h->tag, ml_tag(tag, d->idx, ML_HOLD_HELD),
			      memory_order_release);
	s->maybe_held = true;
	return true;
}

/* After a frame to d went out: the frame held for d follows it. */
static void hold_release(struct ml_port *s, struct ml_port *d)
{
	bool still_held = false;

	if (!s->maybe_held)
		return;
	for (unsigned i = 0; i < ROCE_MEMLINK_HOLD_SLOTS; i++) {
		struct ml_hold *h = &s->hold[i];
		uint64_t t = atomic_load_explicit(&h->tag, memory_order_acquire);

		if (ml_tag_state(t) != ML_HOLD_HELD)
			continue;
		if (ml_tag_dst(t) == d->idx && hold_take(h, t)) {
			struct ml_emit e = { h->buf, h->len, -1, h };

			ml_batch_add(s, d, &e, h->dup ? 2 : 1);
		} else {
			still_held = true;
		}
	}
	s->maybe_held = still_held;
}

/* ---- one frame copy toward one destination ------------------------------ */

static void deliver(struct ml_port *s, struct ml_port *d, const uint8_t *f,
		    uint32_t len, bool faults, const uint64_t *thresh)
{
	struct ml_verdict v = { .flip = -1 };
	struct ml_emit e = { f, len, -1, NULL };

	if (faults) {
		ml_fault_decide(&s->prng, thresh, f, len, &v);
		if (v.lost) {
			ml_count(&s->st.lost, 1);
			return;
		}
		ml_count(&s->st.corrupted, v.flip >= 0);
		ml_count(&s->st.duplicated, v.dup);
		if (v.hold && hold_put(s, d, f, len, &v)) {
			ml_count(&s->st.reordered, 1);
			return;
		}
		e.flip = v.flip;
	}
	ml_batch_add(s, d, &e, v.dup ? 2 : 1);
	hold_release(s, d);
}

/* ---- switching ---------------------------------------------------------- */

static struct ml_port *route(struct ml_port *s, unsigned nports, uint64_t key)
{
	struct roce_memlink *l = s->link;

	if (key == s->route_key && s->route_idx < nports)
		return l->ports[s->route_idx];
	for (unsigned i = 0; i < nports; i++) {
		if (l->mac_key[i] == key) {
			s->route_key = key;
			s->route_idx = i;
			return l->ports[i];
		}
	}
	return NULL;
}

static void switch_frame(struct ml_port *s, unsigned nports, const uint8_t *f,
			 uint32_t len, bool faults, const uint64_t *thresh)
{
	struct roce_memlink *l = s->link;
	struct ml_port *d;

	/* broadcast and multicast (I/G bit set): flood to every other port */
	if (f[0] & 1) {
		for (unsigned i = 0; i < nports; i++)
			if (i != s->idx)
				deliver(s, l->ports[i], f, len, faults, thresh);
		return;
	}
	d = route(s, nports, ml_mac_key(f));
	if (!d || d == s) {
		ml_count(&s->st.no_route, 1);
		return;
	}
	deliver(s, d, f, len, faults, thresh);
}

/*
 * Lossless mode: does the unicast frame f still fit in its destination's
 * ring, counting what this burst already staged for it, a duplicate, and
 * the frames held back for it? Broadcasts are not paused.
 */
static bool room_for(struct ml_port *s, unsigned nports, const uint8_t *f)
{
	struct ml_port *d;
	uint64_t need;

	if (f[0] & 1)
		return true;
	d = route(s, nports, ml_mac_key(f));
	if (!d || d == s)
		return true;            /* dropped as no_route anyway */
	need = 2 + ROCE_MEMLINK_HOLD_SLOTS + (s->batch.dst == d ? s->batch.n : 0);
	return ml_ring_room(&d->ring) >= need;
}

/* ---- waking the receivers' engine threads -------------------------------- */

/* After a burst: a receiver we published to whose engine thread sleeps
 * gets woken. One fence per burst orders the publications before the
 * looks at asleep (roce/link.h); a receiver with no thread costs nothing. */
static void wake_receivers(struct ml_port *s)
{
	struct roce_memlink *l = s->link;
	uint64_t m = s->wake_dirty;
	bool fenced = false;

	s->wake_dirty = 0;
	while (m) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		struct roce_wake *w = atomic_load_explicit(&l->ports[i]->wake,
							   memory_order_acquire);

		m &= m - 1;
		if (!w)
			continue;
		if (!fenced) {
			atomic_thread_fence(memory_order_seq_cst);
			fenced = true;
		}
		roce_wake_if_asleep(w);
	}
}

static void ml_tx_kick(void *ctx)
{
	wake_receivers(ctx);
}

static void ml_set_wake(void *ctx, struct roce_wake *w)
{
	struct ml_port *p = ctx;

	atomic_store_explicit(&p->wake, w, memory_order_release);
}

/* Every frame for us is published by a sender's burst (which wakes us)
 * unless the link delays frames or holds them back (faults), or a frame
 * is held for us now: those we collect by polling. */
static bool ml_can_sleep(void *ctx)
{
	struct ml_port *p = ctx;
	struct roce_memlink *l = p->link;

	return !l->delay_ns &&
	       !atomic_load_explicit(&l->any_fault, memory_order_relaxed) &&
	       !atomic_load_explicit(&p->held_for, memory_order_acquire);
}

static unsigned ml_tx_burst(void *ctx, const struct roce_frame *frames,
			    unsigned n)
{
	struct ml_port *s = ctx;
	struct roce_memlink *l = s->link;
	unsigned nports = ml_nports(l);
	uint64_t thresh[ML_NFAULTS];
	bool faults = false;

	for (unsigned i = 0; i < ML_NFAULTS; i++) {
		thresh[i] = atomic_load_explicit(&l->thresh[i], memory_order_relaxed);
		faults |= thresh[i] != 0;
	}
	unsigned i;

	for (i = 0; i < n; i++) {
		const uint8_t *f = frames[i].data;
		uint32_t len = frames[i].len;

		if (len < ROCE_ETH_HLEN || len > l->max_frame || !f) {
			ml_count(&s->st.bad_len, 1);
			continue;
		}
		if (l->lossless && !room_for(s, nports, f)) {
			ml_count(&s->st.paused, 1);
			break;          /* the rest waits: the caller sends again */
		}
		if (l->pcap)
			roce_pcap_write(l->pcap, f, len, 0);
		switch_frame(s, nports, f, len, faults, thresh);
	}
	ml_batch_flush(s);
	wake_receivers(s);
	ml_count(&s->st.sent, i);
	return i;
}

/* ---- zero-copy: the sender builds its frame in the receiver's ring ------ */

/*
 * A slot of the destination's ring for one frame, when nothing stands in
 * the way of a plain delivery: no fault, delay or capture configured (they
 * act on a copy), a unicast destination that is another port, room in the
 * ring. Otherwise NULL and the frame goes through tx_burst.
 */
static uint8_t *ml_tx_get(void *ctx, const uint8_t *dst_mac, uint32_t len)
{
	struct ml_port *s = ctx;
	struct roce_memlink *l = s->link;
	struct ml_port *d;
	uint64_t pos;

	if (l->pcap || l->delay_ns || s->maybe_held || len < ROCE_ETH_HLEN ||
	    len > l->max_frame || (dst_mac[0] & 1) ||
	    atomic_load_explicit(&l->any_fault, memory_order_relaxed))
		return NULL;
	d = route(s, ml_nports(l), ml_mac_key(dst_mac));
	if (!d || d == s)
		return NULL;
	/* lossless: the margin room_for() keeps, so both paths pause alike */
	if (!ml_ring_reserve(&d->ring, 1, l->lossless ? 1 + ROCE_MEMLINK_HOLD_SLOTS : 0,
			     &pos))
		return NULL;
	s->zc_ring = &d->ring;
	s->zc_dst = d->idx;
	s->zc_pos = pos;
	s->zc_len = len;
	return ml_ring_slot(&d->ring, pos);
}

static void ml_tx_put(void *ctx)
{
	struct ml_port *s = ctx;

	ml_ring_publish(s->zc_ring, s->zc_pos, s->zc_len, 0);
	s->wake_dirty |= 1ull << s->zc_dst;
	ml_count(&s->st.sent, 1);
	ml_count(&s->st.delivered, 1);
	ml_count(&s->st.zero_copy, 1);
	s->zc_ring = NULL;
}

const struct roce_port_ops ml_port_ops = {
	.tx_burst = ml_tx_burst,
	.rx_burst = ml_rx_burst,
	.rx_release = ml_rx_release,
	.tx_get = ml_tx_get,
	.tx_put = ml_tx_put,
	.tx_kick = ml_tx_kick,
	.set_wake = ml_set_wake,
	.can_sleep = ml_can_sleep,
};
