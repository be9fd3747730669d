/* SPDX-License-Identifier: MIT */
/*
 * mover.c: place (wire -> MR) and fetch (MR -> frame), the only copies
 * into and out of an MR, each with its DMA note. A per-MR transform has
 * its one home there, fused with the copy.
 */
#ifndef ROCE_ENGINE_MOVER_H
#define ROCE_ENGINE_MOVER_H

#include "engine/dma.h"

void mem_place(struct roce_engine *e, const struct dma_seg *seg, unsigned nseg,
	       const uint8_t *src);
/* crc NULL: a plain copy; else the CRC-32 of the bytes is taken in the
 * same pass, from *crc on (tx.c's ICRC). */
void mem_fetch(struct roce_engine *e, const struct dma_seg *seg, unsigned nseg,
	       uint8_t *dst, uint32_t *crc);
/* Place len bytes at *at (mem_seg_at's checks), then move *at past them. */
int mem_place_at(struct roce_engine *e, struct mr_pos *at, const uint8_t *src,
		 uint32_t len);
/* Place len bytes into an SGE list from byte off (mem_resolve's checks,
 * local write access): nothing moves unless all of it resolves. */
int mem_place_sge(struct roce_engine *e, const struct roce_sge *sge, unsigned nsge,
		  uint32_t off, const uint8_t *src, uint32_t len);
/* The 8-byte read-modify-write of an atomic at *at (aligned, checked):
 * the word is fetched, becomes swap_add if it equals compare (cmp_swap)
 * or itself plus swap_add, and is placed; *orig is what it was. */
int mem_atomic(struct roce_engine *e, const struct mr_pos *at, bool cmp_swap,
	       uint64_t compare, uint64_t swap_add, uint64_t *orig);

/* Watch the engine's memory accesses (NULL to stop): called after each
 * write and each read with the DMA address and the bytes as they now are. */
void engine_set_dma_observer(struct roce_engine *e, eng_dma_observer fn, void *arg);

static inline void dma_note(struct roce_engine *e, bool write, uint64_t addr,
			    const uint8_t *data, uint32_t len)
{
	if (__builtin_expect(e->dma_obs != NULL, 0))
		e->dma_obs(e->dma_obs_arg, write, addr, data, len);
}

#endif
