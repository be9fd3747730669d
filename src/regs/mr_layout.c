/* SPDX-License-Identifier: MIT */
/*
 * The MR_TABLE entry codec (roce/layout.h): the one place that knows where
 * each MR entry field sits in the MR_ACCESS..MR_POOL_BLOCKS shadow registers. The
 * device's window and the host driver both call it.
 */
#include <string.h>

#include "roce/layout.h"

static void put64(uint32_t *r, unsigned low_word, uint64_t v)
{
	r[low_word] = (uint32_t)v;
	r[low_word + 1] = (uint32_t)(v >> 32);
}

static uint64_t get64(const uint32_t *r, unsigned low_word)
{
	return (uint64_t)r[low_word + 1] << 32 | r[low_word];
}

static uint32_t field(uint32_t v, unsigned shift, unsigned width)
{
	return (v & ROCE_FIELD_MASK(width)) << shift;
}

static uint32_t get(uint32_t w, unsigned shift, unsigned width)
{
	return (w >> shift) & ROCE_FIELD_MASK(width);
}

/* MR_STAGE's UNIT bit: 0 = 512 bytes, 1 = 4096 bytes; a unit the bit
 * cannot say is refused by the driver before it writes (drv_table.c). */
static void stage_to_regs(const struct roce_stage_binding *b, uint32_t *r)
{
	uint32_t w = 0;

	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
		w |= field(b->chain[i], ROCE_MR_STAGE_CHAIN_SHIFT(i), ROCE_MR_STAGE_CHAIN_WIDTH);
	w |= field(b->key_slot, ROCE_MR_STAGE_KEY_SLOT_SHIFT, ROCE_MR_STAGE_KEY_SLOT_WIDTH);
	w |= field(b->unit_shift == ROCE_STAGE_UNIT_MAX_SHIFT, ROCE_MR_STAGE_UNIT_SHIFT,
		   ROCE_MR_STAGE_UNIT_WIDTH);
	r[ROCE_MR_STAGE_WORD] = w;
	r[ROCE_MR_STAGE_TAG_WORD] = field(b->app_tag, ROCE_MR_STAGE_TAG_SHIFT,
					  ROCE_MR_STAGE_TAG_WIDTH);
	put64(r, ROCE_MR_DUN_LOW_WORD, b->dun_base);
	put64(r, ROCE_MR_PI_PA_LOW_WORD, b->pi_pa);
	put64(r, ROCE_MR_POOL_PA_LOW_WORD, b->pool_pa);
	r[ROCE_MR_POOL_BLOCKS_WORD] = b->pool_blocks;
}

/* An unbound entry reads back all zero (unit_shift 0): an MR registered
 * without a stage compares equal to its image. */
static void stage_from_regs(const uint32_t *r, struct roce_stage_binding *b)
{
	uint32_t w = r[ROCE_MR_STAGE_WORD];

	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
		b->chain[i] = (uint8_t)get(w, ROCE_MR_STAGE_CHAIN_SHIFT(i),
					   ROCE_MR_STAGE_CHAIN_WIDTH);
	b->key_slot = (uint8_t)get(w, ROCE_MR_STAGE_KEY_SLOT_SHIFT,
				   ROCE_MR_STAGE_KEY_SLOT_WIDTH);
	b->app_tag = (uint16_t)get(r[ROCE_MR_STAGE_TAG_WORD], ROCE_MR_STAGE_TAG_SHIFT,
				   ROCE_MR_STAGE_TAG_WIDTH);
	b->dun_base = get64(r, ROCE_MR_DUN_LOW_WORD);
	b->pi_pa = get64(r, ROCE_MR_PI_PA_LOW_WORD);
	b->pool_pa = get64(r, ROCE_MR_POOL_PA_LOW_WORD);
	b->pool_blocks = r[ROCE_MR_POOL_BLOCKS_WORD];
	if (w || b->app_tag || b->dun_base || b->pi_pa || b->pool_pa || b->pool_blocks)
		b->unit_shift = get(w, ROCE_MR_STAGE_UNIT_SHIFT, ROCE_MR_STAGE_UNIT_WIDTH)
					? ROCE_STAGE_UNIT_MAX_SHIFT
					: ROCE_STAGE_UNIT_MIN_SHIFT;
}

bool roce_mr_stage_fits(const struct roce_stage_binding *b)
{
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
		if (b->chain[i] > ROCE_FIELD_MASK(ROCE_MR_STAGE_CHAIN_WIDTH))
			return false;
	if (b->key_slot > ROCE_FIELD_MASK(ROCE_MR_STAGE_KEY_SLOT_WIDTH))
		return false;
	return !roce_stage_bound(b) || b->unit_shift == ROCE_STAGE_UNIT_MIN_SHIFT ||
	       b->unit_shift == ROCE_STAGE_UNIT_MAX_SHIFT;
}

void roce_mr_to_regs(const struct roce_mr_entry *mr,
		     uint32_t r[ROCE_MR_NREGS])
{
	memset(r, 0, ROCE_MR_NREGS * sizeof(r[0]));
	r[ROCE_MR_ACCESS_WORD] =
		(mr->access & ROCE_FIELD_MASK(ROCE_MR_ACCESS_WIDTH))
			<< ROCE_MR_ACCESS_SHIFT;
	r[ROCE_MR_SPACE_WORD] |= ((uint32_t)mr->space &
				  ROCE_FIELD_MASK(ROCE_MR_SPACE_WIDTH))
				 << ROCE_MR_SPACE_SHIFT;
	r[ROCE_MR_VALID_WORD] |= (uint32_t)(mr->valid ? 1u : 0u)
				 << ROCE_MR_VALID_SHIFT;
	put64(r, ROCE_MR_VA_LOW_WORD, mr->va);
	put64(r, ROCE_MR_PA_LOW_WORD, mr->pa);
	put64(r, ROCE_MR_LEN_LOW_WORD, mr->len);
	r[ROCE_MR_RKEY_WORD] = mr->rkey;
	r[ROCE_MR_LKEY_WORD] = mr->lkey;
	r[ROCE_MR_PD_WORD] = mr->pd;
	stage_to_regs(&mr->stage, r);
}

void roce_mr_from_regs(uint32_t index, const uint32_t r[ROCE_MR_NREGS],
		       struct roce_mr_entry *mr)
{
	memset(mr, 0, sizeof(*mr));
	mr->index = index;
	mr->access = (r[ROCE_MR_ACCESS_WORD] >> ROCE_MR_ACCESS_SHIFT) &
		     ROCE_FIELD_MASK(ROCE_MR_ACCESS_WIDTH);
	mr->space = (uint8_t)((r[ROCE_MR_SPACE_WORD] >> ROCE_MR_SPACE_SHIFT) &
			      ROCE_FIELD_MASK(ROCE_MR_SPACE_WIDTH));
	mr->valid = (r[ROCE_MR_VALID_WORD] >> ROCE_MR_VALID_SHIFT) &
		    ROCE_FIELD_MASK(ROCE_MR_VALID_WIDTH);
	mr->va = get64(r, ROCE_MR_VA_LOW_WORD);
	mr->pa = get64(r, ROCE_MR_PA_LOW_WORD);
	mr->len = get64(r, ROCE_MR_LEN_LOW_WORD);
	mr->rkey = r[ROCE_MR_RKEY_WORD];
	mr->lkey = r[ROCE_MR_LKEY_WORD];
	mr->pd = r[ROCE_MR_PD_WORD];
	stage_from_regs(r, &mr->stage);
}
