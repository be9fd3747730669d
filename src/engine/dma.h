/* SPDX-License-Identifier: MIT */
/*
 * dma.c: protection (keys, rights, bounds) and translation to DDR or,
 * through the IOMMU, host memory. What a check gives is a place in an MR
 * (struct mr_pos, state.h) and, for bytes about to move, pieces of a DMA
 * with their pointers; the bytes move in mover.c only.
 */
#ifndef ROCE_ENGINE_DMA_H
#define ROCE_ENGINE_DMA_H

#include "engine/state.h"

/*
 * A DMA address: what the data path keeps between a key check and the
 * bytes it moves (a READ's reply, a WRITE's next packet). Bit 63 clear:
 * a DDR address; set: host memory, the low bits its IOVA (an MR entry's
 * space and pa in one word; IOVAs stay below ROCE_MR_HOST_PA_LIMIT).
 * Only dma_ptr turns one into a pointer.
 */
#define DMA_HOST (1ull << 63)

/* The bytes at DMA address addr, len of them, or NULL when [addr, addr +
 * len) is not all inside the DDR or inside one IOMMU window: checked as
 * they are about to move (a window may have gone since the key check).
 * dma.c and mover.c only: the pipeline holds places and pieces, not
 * pointers. */
uint8_t *dma_ptr(const struct roce_engine *e, uint64_t addr, uint64_t len);

struct dma_seg {                        /* one piece of a DMA */
	struct mr_pos at;               /* its MR, offset and DMA address */
	uint8_t *ptr;                   /* its bytes */
	uint32_t len;
};

/* Resolve len bytes of an SGE list from byte off to DMA ranges and their
 * bytes (at most one per SGE), every L_Key, right, bound and window
 * checked first; each L_Key's MR must be of pd, the QP's (IBA 10.6.3.1:
 * else ROCE_E_LKEY, a local protection error). */
int mem_resolve(struct roce_engine *e, uint32_t pd, const struct roce_sge *sge, unsigned nsge,
		uint32_t off, uint32_t len, unsigned access, struct dma_seg *seg,
		unsigned *nseg);
/* Translate [va, va + len) under lkey with the given access; returns the
 * place in the MR or a status (ROCE_E_LKEY, ROCE_E_BOUNDS, ROCE_E_ACCESS). */
int mem_lkey(struct roce_engine *e, uint32_t lkey, uint64_t va, uint64_t len,
	     unsigned access, struct mr_pos *at);
int mem_rkey(struct roce_engine *e, struct eng_qp *qp, uint32_t rkey,
	     uint64_t va, uint64_t len, unsigned access, struct mr_pos *at);
/* The len bytes at a place checked earlier (a WRITE's next packet, a READ's
 * next response) as one piece, or ROCE_E_BOUNDS when they are no longer
 * all in the DDR or in one IOMMU window (a window may have gone since the
 * key check). */
int mem_seg_at(const struct roce_engine *e, const struct mr_pos *at, uint32_t len,
	       struct dma_seg *seg);

#endif
