/* SPDX-License-Identifier: MIT */
/*
 * The data mover's calls that are not made for every packet's payload
 * (mover.h says what the mover guarantees and holds the per-packet pair,
 * inline in the stages that call it): a place into an SGE list, the
 * atomic's read-modify-write, the observer.
 */
#include "engine/mover.h"

int mem_place_sge(struct roce_engine *e, const struct roce_sge *sge, unsigned nsge,
		  uint32_t off, const uint8_t *src, uint32_t len)
{
	struct dma_seg seg[ROCE_MAX_SGE];
	unsigned nseg;
	int rc = mem_resolve(e, sge, nsge, off, len, ROCE_ACCESS_LOCAL_WRITE, seg, &nseg);

	if (rc)
		return rc;
	mem_place(e, seg, nseg, src);
	return ROCE_OK;
}

int mem_atomic(struct roce_engine *e, const struct mr_pos *at, bool cmp_swap,
	       uint64_t compare, uint64_t swap_add, uint64_t *orig)
{
	uint8_t *word = dma_ptr(e, at->pa, 8);
	uint64_t val;

	if (!word)
		return ROCE_E_BOUNDS;
	fetch_one(e, at, word, (uint8_t *)orig, 8, 0, false);
	if (cmp_swap)
		val = *orig == compare ? swap_add : *orig;
	else
		val = *orig + swap_add;
	place_one(e, at, word, (const uint8_t *)&val, 8);
	return ROCE_OK;
}

void engine_set_dma_observer(struct roce_engine *e, eng_dma_observer fn, void *arg)
{
	engine_lock(e);
	e->dma_obs_arg = arg;
	e->dma_obs = fn;
	engine_unlock(e);
}
