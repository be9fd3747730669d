/* SPDX-License-Identifier: MIT */
/*
 * One dedup volume's bookkeeping (roce/stage.h's DEDUP): the map of
 * logical 4 KiB blocks onto the physical blocks of a DDR pool, a
 * reference count and the SHA-256 fingerprint of each physical block, an
 * index fingerprint -> block for lookups, and the free blocks. The bytes
 * themselves live in DDR and are written by the caller (chain.c) between
 * a plan and its commit.
 *
 * The data path calls this once per 4 KiB block, so every operation is
 * O(1) whatever the pool's size, and nothing is allocated after
 * dedup_create:
 * - the index is an open-addressing table with linear probing, keyed by
 *   the digest's first 8 bytes (SHA-256 is uniform, no further mixing),
 *   at least twice the pool's size (load <= 1/2), deletion by backward
 *   shift (no tombstones to reclaim);
 * - it holds one block per digest, the latest stored: a block displaced
 *   by another of the same digest (its own was corrupt, or two blocks of
 *   one packet carried the same bytes) stays valid for those holding it
 *   but is no longer offered; a lookup confirms at most two candidates;
 * - the free blocks are a stack.
 *
 * The hash is never trusted alone: a candidate is shared only when the
 * caller's same() confirms it byte for byte (through the rest of the
 * chain: a block whose PI fails is not shared).
 *
 * Several plans may be outstanding at once (every block of a packet is
 * planned before any is written, so that a failure places nothing). They
 * must not undo each other: a block a plan is to share is pinned (not
 * rewritten in place by another plan, not freed by another commit), and
 * a block a plan is to write is busy (not offered to a lookup until its
 * new fingerprint is committed).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The low-level SHA-256 calls, deprecated by OpenSSL 3.0 but kept: its
 * EVP digests allocate a provider context on every init (one malloc per
 * block here), these run the same code (SHA-NI where present) on a
 * context on the stack. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include "common/pow2.h"
#include "roce/status.h"
#include "stage/stage.h"

#define DIGEST_LEN 32
#define POOL_MAX (1u << 30)     /* the index's size stays a uint32_t */

/* A physical block. */
struct dd_block {
	uint8_t fp[DIGEST_LEN];         /* SHA-256 of its bytes, while held */
	uint32_t refs;                  /* logical blocks mapped to it */
	uint32_t pins;                  /* outstanding plans sharing it */
	bool busy;                      /* an outstanding plan writes it */
};

/* An index slot; phys DEDUP_NONE: empty. */
struct dd_slot {
	uint64_t key;                   /* the digest's first 8 bytes */
	uint32_t phys;
};

struct dedup {
	uint32_t logical_blocks, pool_blocks;
	uint32_t *map;                  /* logical -> physical or DEDUP_NONE */
	struct dd_block *blk;           /* by physical number */
	struct dd_slot *index;
	uint32_t mask;                  /* index size - 1 */
	uint32_t *free;                 /* stack of free physical blocks */
	uint32_t nfree;
	uint8_t *planned;               /* bit per logical: a plan outstanding */
	uint32_t mapped, in_use;
	uint64_t lookups, hits;
};

int dedup_create(uint32_t logical_blocks, uint32_t pool_blocks, struct dedup **out)
{
	struct dedup *dd;
	uint32_t size;

	if (pool_blocks == 0 || pool_blocks > POOL_MAX)
		return ROCE_E_INVAL;
	dd = calloc(1, sizeof(*dd));
	if (!dd)
		return ROCE_E_NOMEM;
	size = pow2_at_least(2 * pool_blocks);
	dd->logical_blocks = logical_blocks;
	dd->pool_blocks = pool_blocks;
	dd->mask = size - 1;
	dd->map = calloc(logical_blocks ? logical_blocks : 1, sizeof(dd->map[0]));
	dd->blk = calloc(pool_blocks, sizeof(dd->blk[0]));
	dd->index = calloc(size, sizeof(dd->index[0]));
	dd->free = calloc(pool_blocks, sizeof(dd->free[0]));
	dd->planned = calloc(logical_blocks / 8 + 1, 1);
	if (!dd->map || !dd->blk || !dd->index || !dd->free || !dd->planned) {
		dedup_destroy(dd);
		return ROCE_E_NOMEM;
	}
	for (uint32_t i = 0; i < logical_blocks; i++)
		dd->map[i] = DEDUP_NONE;
	for (uint32_t i = 0; i < size; i++)
		dd->index[i].phys = DEDUP_NONE;
	/* Block 0 is handed out first: the pool fills from its start. */
	for (uint32_t i = 0; i < pool_blocks; i++)
		dd->free[i] = pool_blocks - 1 - i;
	dd->nfree = pool_blocks;
	*out = dd;
	return ROCE_OK;
}

void dedup_destroy(struct dedup *dd)
{
	if (!dd)
		return;
	free(dd->map);
	free(dd->blk);
	free(dd->index);
	free(dd->free);
	free(dd->planned);
	free(dd);
}

uint32_t dedup_map(const struct dedup *dd, uint32_t logical)
{
	return logical < dd->logical_blocks ? dd->map[logical] : DEDUP_NONE;
}

/* ---- the index ------------------------------------------------------------ */

static uint64_t digest_key(const uint8_t *digest)
{
	uint64_t k;

	memcpy(&k, digest, sizeof(k));
	return k;
}

static bool slot_is(const struct dedup *dd, const struct dd_slot *s, uint64_t key,
		    const uint8_t *digest)
{
	return s->key == key && memcmp(dd->blk[s->phys].fp, digest, DIGEST_LEN) == 0;
}

/* The slot holding digest, or the empty slot that ends its probe. */
static uint32_t index_probe(const struct dedup *dd, const uint8_t *digest)
{
	uint64_t key = digest_key(digest);
	uint32_t i = (uint32_t)key & dd->mask;

	while (dd->index[i].phys != DEDUP_NONE && !slot_is(dd, &dd->index[i], key, digest))
		i = (i + 1) & dd->mask;
	return i;
}

static uint32_t index_find(const struct dedup *dd, const uint8_t *digest)
{
	return dd->index[index_probe(dd, digest)].phys;
}

/* Block phys (its fingerprint set) becomes the one offered for it. */
static void index_put(struct dedup *dd, uint32_t phys)
{
	uint32_t i = index_probe(dd, dd->blk[phys].fp);

	dd->index[i].key = digest_key(dd->blk[phys].fp);
	dd->index[i].phys = phys;
}

/* Block phys leaves the index, if it is the one offered for its digest.
 * Backward shift: each later entry of the cluster moves into the hole
 * unless its home lies in (hole, entry], so no probe is ever cut short. */
static void index_remove(struct dedup *dd, uint32_t phys)
{
	uint32_t i = index_probe(dd, dd->blk[phys].fp), j = i;

	if (dd->index[i].phys != phys)
		return;
	for (;;) {
		j = (j + 1) & dd->mask;
		if (dd->index[j].phys == DEDUP_NONE)
			break;
		uint32_t home = (uint32_t)dd->index[j].key & dd->mask;

		if (((j - home) & dd->mask) >= ((j - i) & dd->mask)) {
			dd->index[i] = dd->index[j];
			i = j;
		}
	}
	dd->index[i].phys = DEDUP_NONE;
}

/* ---- blocks ----------------------------------------------------------------- */

/* A block nothing holds nor is about to hold goes back to the pool. */
static void maybe_free(struct dedup *dd, uint32_t phys)
{
	struct dd_block *b = &dd->blk[phys];

	if (b->refs || b->pins || b->busy)
		return;
	index_remove(dd, phys);
	dd->free[dd->nfree++] = phys;
	dd->in_use--;
}

/* logical now holds phys (its reference already taken) instead of what
 * it held. */
static void remap(struct dedup *dd, uint32_t logical, uint32_t phys)
{
	uint32_t old = dd->map[logical];

	dd->map[logical] = phys;
	if (old == DEDUP_NONE) {
		dd->mapped++;
		return;
	}
	dd->blk[old].refs--;
	maybe_free(dd, old);
}

static inline void planned_set(struct dedup *dd, uint32_t logical, bool on)
{
	uint8_t bit = (uint8_t)(1u << (logical & 7));

	if (on)
		dd->planned[logical >> 3] |= bit;
	else
		dd->planned[logical >> 3] &= (uint8_t)~bit;
}

static inline bool planned(const struct dedup *dd, uint32_t logical)
{
	return dd->planned[logical >> 3] >> (logical & 7) & 1u;
}

/* ---- plan, commit, cancel ------------------------------------------------- */

/* Whether block phys holds plain: the same digest, then the bytes. */
static bool holds(struct dedup *dd, uint32_t phys, const uint8_t *digest,
		  const uint8_t *plain, dedup_same_fn same, void *arg)
{
	const struct dd_block *b = &dd->blk[phys];

	return !b->busy && memcmp(b->fp, digest, DIGEST_LEN) == 0 && same(arg, phys, plain);
}

static void plan_hit(struct dedup *dd, struct dedup_plan *p, uint32_t phys)
{
	p->phys = phys;
	p->hit = true;
	dd->blk[phys].pins++;
	dd->hits++;
}

int dedup_plan(struct dedup *dd, uint32_t logical, const uint8_t *plain,
	       dedup_same_fn same, void *arg, struct dedup_plan *p)
{
	uint32_t old, cand;
	SHA256_CTX sha;

	assert(logical < dd->logical_blocks);
	assert(!planned(dd, logical));  /* one plan per logical block at a time */
	SHA256_Init(&sha);
	SHA256_Update(&sha, plain, ROCE_STAGE_BLOCK);
	SHA256_Final(p->digest, &sha);
	p->logical = logical;
	p->hit = p->fresh = false;
	old = dd->map[logical];

	cand = index_find(dd, p->digest);
	/* The same bytes again (a retransmission, a repeated write): the
	 * block it holds, whatever the index offers for them. */
	if (old != DEDUP_NONE && holds(dd, old, p->digest, plain, same, arg)) {
		/* A block displaced from the index whose offered twin was
		 * freed is offered again (harmless if the plan is cancelled:
		 * it holds these bytes). */
		if (cand == DEDUP_NONE)
			index_put(dd, old);
		plan_hit(dd, p, old);
		goto planned;
	}
	if (cand != DEDUP_NONE && cand != old && holds(dd, cand, p->digest, plain, same, arg)) {
		plan_hit(dd, p, cand);
		goto planned;
	}
	/* Bytes of its own: where it is, if nothing else holds that block
	 * nor is about to; else a free block. */
	if (old != DEDUP_NONE && dd->blk[old].refs == 1 && !dd->blk[old].pins) {
		assert(!dd->blk[old].busy);
		p->phys = old;
	} else if (dd->nfree) {
		p->phys = dd->free[--dd->nfree];
		p->fresh = true;
	} else {
		return ROCE_E_STAGE_FULL;       /* not a plan: not counted */
	}
	dd->blk[p->phys].busy = true;
planned:
	dd->lookups++;
	planned_set(dd, logical, true);
	return ROCE_OK;
}

/* The plan is no longer outstanding: its block. */
static struct dd_block *plan_end(struct dedup *dd, const struct dedup_plan *p)
{
	assert(planned(dd, p->logical));
	planned_set(dd, p->logical, false);
	return &dd->blk[p->phys];
}

void dedup_commit(struct dedup *dd, const struct dedup_plan *p)
{
	struct dd_block *b = plan_end(dd, p);

	if (p->hit) {
		b->pins--;
		if (dd->map[p->logical] != p->phys) {
			b->refs++;
			remap(dd, p->logical, p->phys);
		}
		return;
	}
	b->busy = false;
	if (p->fresh) {
		memcpy(b->fp, p->digest, DIGEST_LEN);
		index_put(dd, p->phys);
		b->refs = 1;
		dd->in_use++;
		remap(dd, p->logical, p->phys);
		return;
	}
	/* Rewritten in place: its old fingerprint leaves the index first
	 * (the index finds an entry through the block's fingerprint). */
	index_remove(dd, p->phys);
	memcpy(b->fp, p->digest, DIGEST_LEN);
	index_put(dd, p->phys);
}

/* A block rewritten in place is assumed to hold its old bytes still: the
 * caller cancels before writing, or its write failed and left them. */
void dedup_cancel(struct dedup *dd, const struct dedup_plan *p)
{
	struct dd_block *b = plan_end(dd, p);

	if (p->hit) {
		b->pins--;
		maybe_free(dd, p->phys);   /* released while pinned */
		return;
	}
	b->busy = false;
	if (p->fresh)
		dd->free[dd->nfree++] = p->phys;
}

void dedup_stats(const struct dedup *dd, struct dedup_stats *s)
{
	s->lookups = dd->lookups;
	s->hits = dd->hits;
	s->mapped = dd->mapped;
	s->in_use = dd->in_use;
	s->pool_blocks = dd->pool_blocks;
}

uint32_t dedup_refs(const struct dedup *dd, uint32_t phys)
{
	return phys < dd->pool_blocks ? dd->blk[phys].refs : 0;
}
