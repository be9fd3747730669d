/* SPDX-License-Identifier: MIT */
/*
 * The card's stage hardware: the XTS key slots (loaded through the STAGE
 * block's write-only registers, held only as cipher contexts) and each
 * MR's stage state (its binding as the data path took it, its dedup
 * volume). The device owns one; the engine attaches its memory to it.
 *
 * Key slots change on the bus while the engine encrypts: a slot's
 * contexts are used and replaced under key_lock (one uncontended lock
 * per piece of a packet, against the microseconds of the cipher).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "roce/params.h"
#include "roce/status.h"
#include "stage/dev.h"

int stage_dev_create(struct roce_counters *cnt, struct stage_dev **out)
{
	struct stage_dev *d = calloc(1, sizeof(*d));

	if (!d)
		return ROCE_E_NOMEM;
	d->mr = calloc(ROCE_MAX_MR, sizeof(d->mr[0]));
	if (!d->mr) {
		free(d);
		return ROCE_E_NOMEM;
	}
	pthread_mutex_init(&d->key_lock, NULL);
	d->cnt = cnt;
	*out = d;
	return ROCE_OK;
}

static void mr_state_free(struct stage_dev *d, struct stage_mr *m)
{
	if (!m)
		return;
	if (m->dd) {
		struct dedup_stats s;

		dedup_stats(m->dd, &s);
		stage_dedup_levels(d, -(int64_t)s.in_use, -(int64_t)(s.mapped - s.in_use));
		dedup_destroy(m->dd);
	}
	free(m);
}

void stage_dev_destroy(struct stage_dev *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < ROCE_MAX_MR; i++)
		mr_state_free(d, d->mr[i]);
	for (unsigned i = 0; i < ROCE_STAGE_KEY_SLOTS; i++)
		xts_key_free(d->key[i]);
	pthread_mutex_destroy(&d->key_lock);
	free(d->mr);
	free(d);
}

int stage_key_load(struct stage_dev *d, unsigned slot, const uint8_t key[ROCE_STAGE_KEY_LEN])
{
	struct xts_key *k, *old;
	int rc;

	if (slot >= ROCE_STAGE_KEY_SLOTS)
		return ROCE_E_NOENT;
	rc = xts_key_new(key, &k);
	if (rc)
		return rc;
	pthread_mutex_lock(&d->key_lock);
	old = d->key[slot];
	d->key[slot] = k;
	pthread_mutex_unlock(&d->key_lock);
	xts_key_free(old);
	return ROCE_OK;
}

int stage_key_clear(struct stage_dev *d, unsigned slot)
{
	struct xts_key *old;

	if (slot >= ROCE_STAGE_KEY_SLOTS)
		return ROCE_E_NOENT;
	pthread_mutex_lock(&d->key_lock);
	old = d->key[slot];
	d->key[slot] = NULL;
	pthread_mutex_unlock(&d->key_lock);
	xts_key_free(old);
	return ROCE_OK;
}

uint32_t stage_keys_loaded(const struct stage_dev *d)
{
	struct stage_dev *m = (struct stage_dev *)d;    /* the lock only */
	uint32_t bits = 0;

	pthread_mutex_lock(&m->key_lock);
	for (unsigned i = 0; i < ROCE_STAGE_KEY_SLOTS; i++)
		if (d->key[i])
			bits |= 1u << i;
	pthread_mutex_unlock(&m->key_lock);
	return bits;
}

int stage_xts(struct stage_dev *d, unsigned slot, bool encrypt, uint64_t tweak0,
	      uint32_t unit, const uint8_t *in, uint8_t *out, uint32_t len)
{
	int rc = ROCE_E_STAGE;

	pthread_mutex_lock(&d->key_lock);
	if (slot < ROCE_STAGE_KEY_SLOTS && d->key[slot])
		rc = xts_crypt(d->key[slot], encrypt, tweak0, unit, in, out, len);
	pthread_mutex_unlock(&d->key_lock);
	return rc;
}

void stage_dev_attach(struct stage_dev *d, uint8_t *mem, uint64_t mem_size,
		      stage_resolve_fn resolve, void *resolve_arg)
{
	d->mem = mem;
	d->mem_size = mem_size;
	d->resolve = resolve;
	d->resolve_arg = resolve_arg;
}

void stage_dev_observe(struct stage_dev *d, stage_note_fn note, void *arg)
{
	d->note_arg = arg;
	d->note = note;
}

void stage_dedup_levels(struct stage_dev *d, int64_t blocks, int64_t saved_blocks)
{
	roce_cnt_add(d->cnt, ROCE_CNT_STAGE_DEDUP_BLOCKS, (uint64_t)blocks);
	roce_cnt_add(d->cnt, ROCE_CNT_STAGE_DEDUP_SAVED,
		     (uint64_t)(saved_blocks * (int64_t)ROCE_STAGE_BLOCK));
}

/* Field by field: a binding's reserved bytes are not its own. */
static bool same_binding(const struct stage_mr *m, const struct roce_mr_entry *e)
{
	const struct roce_stage_binding *a = &m->b, *b = &e->stage;

	return m->pa == e->pa && m->len == e->len && m->space == e->space &&
	       !memcmp(a->chain, b->chain, sizeof(a->chain)) && a->key_slot == b->key_slot &&
	       a->unit_shift == b->unit_shift && a->app_tag == b->app_tag &&
	       a->dun_base == b->dun_base && a->pi_pa == b->pi_pa &&
	       a->pool_pa == b->pool_pa && a->pool_blocks == b->pool_blocks;
}

int stage_mr_sync(struct stage_dev *d, const struct roce_mr_entry *e, uint64_t dma_base)
{
	struct stage_mr *m;
	int rc;

	if (e->index >= ROCE_MAX_MR)
		return ROCE_E_NOENT;
	m = d->mr[e->index];
	if (m && e->valid && same_binding(m, e))
		return ROCE_OK;
	if (d->cache.mr == e->index)
		d->cache.valid = false; /* a unit of what the MR was */
	d->mr[e->index] = NULL;
	mr_state_free(d, m);
	if (!e->valid || !roce_stage_bound(&e->stage))
		return ROCE_OK;
	m = calloc(1, sizeof(*m));
	if (!m)
		return ROCE_E_NOMEM;
	m->b = e->stage;
	m->pa = e->pa;
	m->len = e->len;
	m->dma_base = dma_base;
	m->space = e->space;
	m->unit = 1u << e->stage.unit_shift;
	m->dedup = roce_stage_has(&e->stage, ROCE_STAGE_DEDUP);
	m->chain_unit = m->dedup ? ROCE_STAGE_BLOCK : m->unit;
	if (m->dedup) {
		rc = dedup_create((uint32_t)(e->len / ROCE_STAGE_BLOCK), e->stage.pool_blocks,
				  &m->dd);
		if (rc) {
			free(m);
			return rc;
		}
	}
	rc = stage_mr_adopt(d, m);
	if (rc) {
		mr_state_free(d, m);
		return rc;
	}
	d->mr[e->index] = m;
	return ROCE_OK;
}

struct dedup *stage_mr_dedup(struct stage_dev *d, uint32_t index)
{
	return index < ROCE_MAX_MR && d->mr[index] ? d->mr[index]->dd : NULL;
}
