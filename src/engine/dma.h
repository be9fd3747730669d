/* SPDX-License-Identifier: MIT */
/*
 * dma.c: protection (keys, rights, bounds) and translation to DDR or,
 * through the IOMMU, host memory.
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
 * len) is not all inside the DDR or inside one IOMMU window: every byte
 * the engine moves goes through here, checked as it moves (a window may
 * have gone since the key check). */
uint8_t *dma_ptr(const struct roce_engine *e, uint64_t addr, uint64_t len);

/* Watch the engine's memory accesses (NULL to stop): called after each
 * write and each read with the DMA address and the bytes as they now are. */
void engine_set_dma_observer(struct roce_engine *e, eng_dma_observer fn, void *arg);

static inline void dma_note(struct roce_engine *e, bool write, uint64_t addr,
			    const uint8_t *data, uint32_t len)
{
	if (__builtin_expect(e->dma_obs != NULL, 0))
		e->dma_obs(e->dma_obs_arg, write, addr, data, len);
}

struct dma_seg {                        /* one piece of a DMA */
	uint64_t pa;                    /* DMA address */
	uint8_t *ptr;                   /* its bytes (dma_ptr) */
	uint32_t len;
};

/* Resolve len bytes of an SGE list from byte off to DMA ranges and their
 * bytes (at most one per SGE), every L_Key, right, bound and window
 * checked first. */
int mem_resolve(struct roce_engine *e, const struct roce_sge *sge, unsigned nsge,
		uint32_t off, uint32_t len, unsigned access, struct dma_seg *seg,
		unsigned *nseg);
/* Translate [va, va + len) under lkey with the given access; returns the
 * DMA address or a status (ROCE_E_LKEY, ROCE_E_BOUNDS, ROCE_E_ACCESS). */
int mem_lkey(struct roce_engine *e, uint32_t lkey, uint64_t va, uint64_t len,
	     unsigned access, uint64_t *pa);
int mem_rkey(struct roce_engine *e, struct eng_qp *qp, uint32_t rkey,
	     uint64_t va, uint64_t len, unsigned access, uint64_t *pa);
/* Scatter len bytes of src into SGEs starting at byte offset off. */
int mem_scatter(struct roce_engine *e, const struct roce_sge *sge, unsigned nsge,
		uint32_t off, const uint8_t *src, uint32_t len);

#endif
