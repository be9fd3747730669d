/* SPDX-License-Identifier: MIT */
/*
 * The MR_TABLE entry codec (roce/layout.h): the one place that knows where
 * each MR entry field sits in the MR_ACCESS..MR_PD shadow registers. The
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
}
