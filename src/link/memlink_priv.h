/* SPDX-License-Identifier: MIT */
/*
 * Inside the in-memory link: the receive rings, the hold slots that make
 * reordering, and the per-port state.
 *
 * Receive ring (many producers, one consumer). Positions grow without
 * bound; slot = pos & mask.
 *   tail      next position to reserve; producers advance it with one CAS
 *             per batch, after checking the batch fits behind head.
 *   seq       per slot: pos + 1 once the frame at pos is written (release),
 *             so the consumer (acquire) never reads a half-copied frame.
 *   lent_end  consumer only: next position to lend.
 *   head      consumer only writes it (release) when frames are given
 *             back; everything before head is free for producers, so a
 *             lent frame is never overwritten.
 *
 * Hold slot (reorder): tag = generation << 32 | dst << 8 | state. Only the
 * owning (sending) port moves a slot FREE -> BUSY -> HELD; the owner or the
 * receiver named in the tag takes a HELD slot (HELD -> BUSY by CAS), copies
 * the frame into the receiver's ring and frees it with the generation
 * bumped, so a stale CAS never succeeds.
 */
#ifndef ROCE_LINK_MEMLINK_PRIV_H
#define ROCE_LINK_MEMLINK_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "roce/link.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/pcap.h"
#include "link/memlink_fault.h"

#define ML_CACHELINE 64

struct ml_slot {
	_Atomic uint64_t seq;
	uint64_t visible_ns;    /* not visible to rx_burst before (delay) */
	uint32_t len;
};

struct ml_ring {
	_Alignas(ML_CACHELINE) _Atomic uint64_t tail;
	_Alignas(ML_CACHELINE) _Atomic uint64_t head;
	uint64_t lent_end;
	_Alignas(ML_CACHELINE) struct ml_slot *slots;
	uint8_t *data;
	uint64_t size;          /* slots, a power of two */
	uint32_t slot_size;     /* bytes per slot, cache-line multiple */
};

enum ml_hold_state { ML_HOLD_FREE, ML_HOLD_BUSY, ML_HOLD_HELD };

struct ml_hold {
	_Atomic uint64_t tag;
	_Atomic uint64_t until_ns;  /* the receiver collects it from then */
	uint32_t len;
	bool dup;
	uint8_t *buf;               /* max_frame bytes, corruption applied */
};

static inline enum ml_hold_state ml_tag_state(uint64_t t)
{
	return (enum ml_hold_state)(t & 0xFF);
}

static inline unsigned ml_tag_dst(uint64_t t)
{
	return (unsigned)(t >> 8) & 0xFFFFFFu;
}

static inline uint64_t ml_tag(uint64_t old, unsigned dst, enum ml_hold_state s)
{
	return (old & ~0xFFFFFFFFull) | (uint64_t)dst << 8 | s;
}

/* Counters: each port's are written by its owner thread only (relaxed
 * load + store, no read-modify-write), read by anyone. */
struct ml_stats {
	_Atomic uint64_t sent, delivered, lost, duplicated, reordered,
		corrupted, no_route, ring_full, bad_len, paused, zero_copy;
};

static inline void ml_count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* One copy to write into the destination ring. */
struct ml_emit {
	const uint8_t *src;
	uint32_t len;
	int32_t flip;
	struct ml_hold *hold;   /* freed once this copy is written */
};

/* Copies staged for one destination, written with one ring reservation. */
struct ml_batch {
	struct ml_port *dst;
	unsigned n;
	uint64_t visible_ns;
	struct ml_emit e[ROCE_MEMLINK_BATCH];
};

struct ml_port {
	struct roce_memlink *link;
	unsigned idx;
	struct ml_ring ring;
	_Alignas(ML_CACHELINE) _Atomic uint32_t held_for; /* held for us */
	struct roce_wake *_Atomic wake; /* our engine thread's, or NULL */
	/* the owner thread's own state */
	_Alignas(ML_CACHELINE) struct ml_prng prng;
	bool maybe_held;        /* some hold slot may be HELD */
	uint64_t route_key;     /* last destination looked up */
	unsigned route_idx;
	struct ml_hold hold[ROCE_MEMLINK_HOLD_SLOTS];
	struct ml_batch batch;
	struct ml_stats st;
	/* zero-copy TX: the slot lent by the last tx_get */
	struct ml_ring *zc_ring;
	uint64_t zc_pos;
	uint32_t zc_len;
	unsigned zc_dst;
	/* ports we published frames to since we last looked whether their
	 * engine sleeps (bit = port index) */
	uint64_t wake_dirty;
};

struct roce_memlink {
	_Atomic unsigned nports;
	struct ml_port *ports[ROCE_MEMLINK_MAX_PORTS];
	uint64_t mac_key[ROCE_MEMLINK_MAX_PORTS];
	pthread_mutex_t attach_lock;
	_Atomic uint64_t thresh[ML_NFAULTS];
	_Atomic bool any_fault;         /* some threshold is not 0 */
	uint64_t seed;
	uint32_t delay_ns, hold_ns;
	uint32_t ring_frames, max_frame, slot_size;
	bool lossless;
	uint64_t (*now_ns)(void *ctx);
	void *clock_ctx;
	struct roce_pcap_writer *pcap;
};

static inline uint64_t ml_now(const struct roce_memlink *l)
{
	return l->now_ns(l->clock_ctx);
}

/* A MAC as an integer, for a quick compare. */
static inline uint64_t ml_mac_key(const uint8_t *m)
{
	return (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 | (uint64_t)m[2] << 24 |
	       (uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
}

static inline unsigned ml_nports(const struct roce_memlink *l)
{
	return atomic_load_explicit(&l->nports, memory_order_acquire);
}

/* memlink_ring.c */
int ml_ring_init(struct ml_ring *r, uint32_t frames, uint32_t slot_size);
void ml_ring_free(struct ml_ring *r);
unsigned ml_ring_reserve(struct ml_ring *r, unsigned want, uint64_t keep, uint64_t *pos);
uint64_t ml_ring_room(struct ml_ring *r);
uint8_t *ml_ring_slot(struct ml_ring *r, uint64_t pos);
void ml_ring_publish(struct ml_ring *r, uint64_t pos, uint32_t len,
		     uint64_t visible_ns);
void ml_ring_put(struct ml_ring *r, uint64_t pos, const struct ml_emit *e,
		 uint64_t visible_ns);
unsigned ml_ring_lend(struct ml_ring *r, struct roce_frame *f, unsigned max,
		      bool check_time, uint64_t now);
void ml_ring_release(struct ml_ring *r, unsigned n);

/* memlink_tx.c */
extern const struct roce_port_ops ml_port_ops;
void ml_batch_flush(struct ml_port *self);
void ml_batch_add(struct ml_port *self, struct ml_port *dst,
		  const struct ml_emit *e, unsigned copies);
void ml_hold_free(struct ml_hold *h, struct ml_port *dst);

/* memlink_rx.c */
unsigned ml_rx_burst(void *ctx, struct roce_frame *f, unsigned max);
void ml_rx_release(void *ctx, unsigned n);

#endif
