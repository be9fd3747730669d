/* SPDX-License-Identifier: MIT */
/*
 * The data mover's calls that are not made for every packet's payload
 * (mover.h says what the mover guarantees and holds the per-packet pair,
 * inline in the stages that call it): a place into an SGE list, the
 * atomic's read-modify-write, the observer.
 */
#include "engine/mover.h"

int mem_place_sge(struct roce_engine *e, uint32_t pd, struct stage_stream **s, bool last,
		  const struct roce_sge *sge, unsigned nsge, uint32_t off,
		  const uint8_t *src, uint32_t len)
{
	struct dma_seg seg[ROCE_MAX_SGE];
	unsigned nseg;
	int rc = mem_resolve(e, pd, sge, nsge, off, len, ROCE_ACCESS_LOCAL_WRITE, seg, &nseg);

	if (rc)
		return rc;
	return mem_place(e, s, last, seg, nseg, src);
}

static struct stage_pos stage_pos_of(const struct mr_pos *at)
{
	return (struct stage_pos){ .mr = at->mr, .off = at->off, .pa = at->pa };
}

int place_staged(struct roce_engine *e, struct stage_stream **s, bool last,
		 const struct mr_pos *at, const uint8_t *src, uint32_t len)
{
	struct stage_pos pos = stage_pos_of(at);

	/* a stream is made at its first use; without one (no memory) each
	 * piece is merged whole at once: slower, the same bytes */
	if (s && !*s)
		*s = stage_stream_new();
	return stage_place(e->stage, s ? *s : NULL, &pos, src, len, last);
}

int fetch_staged(struct roce_engine *e, const struct mr_pos *at, uint8_t *dst,
		 uint32_t len, uint32_t *crc)
{
	struct stage_pos pos = stage_pos_of(at);

	return stage_fetch(e->stage, &pos, dst, len, crc);
}

int mem_atomic(struct roce_engine *e, const struct mr_pos *at, bool cmp_swap,
	       uint64_t compare, uint64_t swap_add, uint64_t *orig)
{
	uint8_t *word = dma_ptr(e, at->pa, 8);
	uint64_t val;

	if (at->staged)
		return ROCE_E_STAGE;
	if (!word)
		return ROCE_E_BOUNDS;
	fetch_one(e, at, word, (uint8_t *)orig, 8, NULL);
	if (cmp_swap)
		val = *orig == compare ? swap_add : *orig;
	else
		val = *orig + swap_add;
	return place_one(e, NULL, true, at, word, (const uint8_t *)&val, 8);
}

void engine_set_dma_observer(struct roce_engine *e, eng_dma_observer fn, void *arg)
{
	engine_lock(e);
	e->dma_obs_arg = arg;
	e->dma_obs = fn;
	/* what the stages write and read is the engine's DMA too */
	stage_dev_observe(e->stage, fn, arg);
	engine_unlock(e);
}
