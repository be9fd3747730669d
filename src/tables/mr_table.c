/* SPDX-License-Identifier: MIT */
/*
 * The MR table: ROCE_MAX_MR entries behind per-entry sequence locks.
 *
 * Keys are index << 8 | key byte, as real NICs build them (the mlx5 mkey
 * is index << 8 | variant): a lookup goes straight to its entry without a
 * search, the driver picks the byte at random so a key is not guessable
 * from the index (seed 000 section 4.3), and two valid entries can never
 * share a key.
 */
#include <stdlib.h>
#include <string.h>

#include "roce/params.h"
#include "roce/stage.h"
#include "roce/status.h"
#include "roce/tables.h"
#include "common/idxq.h"
#include "tables/changes.h"
#include "tables/seqlock.h"

#define MR_WORDS (sizeof(struct roce_mr_entry) / sizeof(uint32_t))
_Static_assert(sizeof(struct roce_mr_entry) % sizeof(uint32_t) == 0,
	       "an MR entry must be a whole number of words");

#define MR_ACCESS_ALL (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
		       ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

struct mr_slot {
	uint32_t seq;
	uint32_t w[MR_WORDS];
};

struct roce_mr_table {
	uint64_t mem_size;
	struct idxq changed;            /* entries the data path must re-read */
	struct mr_slot slot[ROCE_MAX_MR];
};

int roce_mr_table_create(size_t mem_size, struct roce_mr_table **out)
{
	struct roce_mr_table *t;

	if (!out)
		return ROCE_E_INVAL;
	t = calloc(1, sizeof(*t)); /* all words zero: every entry invalid */
	if (!t)
		return ROCE_E_NOMEM;
	if (!idxq_init(&t->changed, ROCE_MAX_MR)) {
		free(t);
		return ROCE_E_NOMEM;
	}
	t->mem_size = mem_size;
	*out = t;
	return ROCE_OK;
}

void roce_mr_table_destroy(struct roce_mr_table *t)
{
	if (!t)
		return;
	idxq_fini(&t->changed);
	free(t);
}

/* Why a valid entry cannot be registered, in the order checked. */
static int mr_check(const struct roce_mr_table *t, uint32_t index,
		    const struct roce_mr_entry *e)
{
	if ((e->access & ~MR_ACCESS_ALL) || e->space > ROCE_MR_SPACE_HOST)
		return ROCE_E_INVAL;
	/* IBA 10.6.3.1: remote write or atomic needs local write too */
	if ((e->access & (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(e->access & ROCE_ACCESS_LOCAL_WRITE))
		return ROCE_E_ACCESS;
	if (e->len == 0)
		return ROCE_E_INVAL;
	if (e->va + e->len < e->va)
		return ROCE_E_BOUNDS;
	/* DDR: the range lies in the device memory. HOST: the device cannot
	 * see the host's IOMMU, so whether the range is mapped is the data
	 * path's question, asked at every access (engine/iommu.h), as a
	 * board's DMA meets an IOMMU fault; here only its width */
	if (e->space == ROCE_MR_SPACE_HOST) {
		if (e->pa > ROCE_MR_HOST_PA_LIMIT ||
		    e->len > ROCE_MR_HOST_PA_LIMIT - e->pa)
			return ROCE_E_BOUNDS;
	} else if (e->pa > t->mem_size || e->len > t->mem_size - e->pa) {
		return ROCE_E_BOUNDS;
	}
	if (ROCE_MR_KEY_INDEX(e->rkey) != index)
		return ROCE_E_RKEY;
	if (ROCE_MR_KEY_INDEX(e->lkey) != index)
		return ROCE_E_LKEY;
	/* the stage binding (roce/stage.h): refused as a whole, ROCE_E_INVAL */
	return roce_stage_binding_check(&e->stage, e->len, e->space == ROCE_MR_SPACE_HOST,
					t->mem_size, NULL);
}

/* Store an entry and queue it for the data path (tables/changes.h). */
static void mr_store(struct roce_mr_table *t, uint32_t index,
		     const struct roce_mr_entry *e)
{
	struct mr_slot *slot = &t->slot[index];
	uint32_t w[MR_WORDS], s;

	memcpy(w, e, sizeof(*e));
	s = seq_write_begin(&slot->seq);
	seq_store_held(slot->w, w, MR_WORDS);
	seq_write_end(&slot->seq, s);
	idxq_push(&t->changed, index);          /* common/idxq.h: after the write */
}

int roce_mr_table_commit(struct roce_mr_table *t, uint32_t index,
			 const struct roce_mr_entry *e)
{
	struct roce_mr_entry next;
	int rc;

	if (!t || !e)
		return ROCE_E_INVAL;
	if (index >= ROCE_MAX_MR)
		return ROCE_E_NOENT;
	memset(&next, 0, sizeof(next));
	if (e->valid) {
		rc = mr_check(t, index, e);
		if (rc != ROCE_OK)
			return rc;
		next = *e;
		next.valid = true;
	}
	mr_store(t, index, &next);
	return ROCE_OK;
}

int roce_mr_table_lookup(const struct roce_mr_table *t, uint32_t index,
			 struct roce_mr_entry *out)
{
	uint32_t w[MR_WORDS];

	if (index >= ROCE_MAX_MR)
		return ROCE_E_NOENT;
	seq_read(&t->slot[index].seq, t->slot[index].w, w, MR_WORDS);
	memcpy(out, w, sizeof(*out));
	return ROCE_OK;
}

int roce_mr_table_lookup_gen(const struct roce_mr_table *t, uint32_t index,
			     struct roce_mr_entry *out, uint32_t *gen)
{
	uint32_t w[MR_WORDS];

	if (index >= ROCE_MAX_MR)
		return ROCE_E_NOENT;
	*gen = seq_read(&t->slot[index].seq, t->slot[index].w, w, MR_WORDS);
	memcpy(out, w, sizeof(*out));
	return ROCE_OK;
}

uint32_t roce_mr_table_generation(const struct roce_mr_table *t, uint32_t index)
{
	if (index >= ROCE_MAX_MR)
		return 1;       /* odd: never matches a copy */
	return __atomic_load_n(&t->slot[index].seq, __ATOMIC_ACQUIRE);
}

/* One lookup for both keys: the index is in the key, the entry decides. */
static bool mr_lookup_key(const struct roce_mr_table *t, uint32_t key,
			  bool remote, struct roce_mr_entry *out)
{
	struct roce_mr_entry e;

	if (roce_mr_table_lookup(t, ROCE_MR_KEY_INDEX(key), &e) != ROCE_OK)
		return false;
	if (!e.valid || (remote ? e.rkey : e.lkey) != key)
		return false;
	*out = e;
	return true;
}

int roce_mr_table_lookup_rkey(const struct roce_mr_table *t, uint32_t rkey,
			      struct roce_mr_entry *out)
{
	return mr_lookup_key(t, rkey, true, out) ? ROCE_OK : ROCE_E_RKEY;
}

int roce_mr_table_lookup_lkey(const struct roce_mr_table *t, uint32_t lkey,
			      struct roce_mr_entry *out)
{
	return mr_lookup_key(t, lkey, false, out) ? ROCE_OK : ROCE_E_LKEY;
}

void roce_mr_table_clear_all(struct roce_mr_table *t)
{
	struct roce_mr_entry none;

	memset(&none, 0, sizeof(none));
	for (uint32_t i = 0; i < ROCE_MAX_MR; i++)
		mr_store(t, i, &none);
}


struct idxq *roce_mr_table_change_queue(struct roce_mr_table *t)
{
	return &t->changed;
}
