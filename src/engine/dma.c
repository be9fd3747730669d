/* SPDX-License-Identifier: MIT */
/*
 * Protection and translation, the one place the data path checks memory
 * access: an L_Key or R_Key names an MR entry (through a per-engine cache
 * of the MR table, whose copies ctx.c drops when a COMMIT changes their
 * entry); the entry must be valid, its key match, its PD be the QP's (for
 * remote access), its rights cover the access and [va, va + len) lie in
 * it; the virtual range then translates to a range of the entry's
 * space: the DDR, or host memory through the IOMMU's windows (iommu.h),
 * which only the host maps. A DMA (an SGE list) is resolved whole before
 * a byte moves, so a failing gather or scatter moves nothing. The QP's
 * own remote rights are the responder's (resp.c): they decide the NAK,
 * not the MR.
 *
 * What a check gives is a place in the MR (struct mr_pos: the MR's
 * index, the offset in it, the DMA address) and, for bytes about to
 * move, a piece of a DMA (struct dma_seg) with their pointer; the bytes
 * themselves move in mover.c only. dma_ptr is the one way from a DMA
 * address to bytes, asked here and by mover.c alone (a place kept
 * between packets is translated again as its bytes move), so no path
 * reaches host memory outside a window, nor DDR outside the device's.
 */
#include "engine/dma.h"
#include "engine/iommu.h"
#include "roce/status.h"

static bool range_ok(uint64_t base, uint64_t size, uint64_t start, uint64_t len)
{
	return start >= base && len <= size && start - base <= size - len;
}

uint8_t *dma_ptr(const struct roce_engine *e, uint64_t addr, uint64_t len)
{
	if (addr & DMA_HOST)
		return iommu_translate(e->iommu, addr & ~DMA_HOST, len);
	return range_ok(0, e->mem_size, addr, len) ? e->mem + addr : NULL;
}

/* The MR's rights and bounds, then [va, va + len) as a place in MR index
 * and its bytes (ptr may be NULL: the place alone, checked all the same). */
static int mem_check(struct roce_engine *e, const struct roce_mr_entry *mr,
		     uint32_t index, uint64_t va, uint64_t len, unsigned access,
		     struct mr_pos *at, uint8_t **ptr)
{
	uint64_t addr;
	uint8_t *p;

	if ((mr->access & access) != access)
		return ROCE_E_ACCESS;
	if (!range_ok(mr->va, mr->len, va, len))
		return ROCE_E_BOUNDS;
	addr = mr->pa + (va - mr->va);
	if (mr->space == ROCE_MR_SPACE_HOST) {
		/* an IOVA: the table keeps it below bit 63, check anyway */
		if (addr & DMA_HOST)
			return ROCE_E_BOUNDS;
		addr |= DMA_HOST;
	} else if (mr->space != ROCE_MR_SPACE_DDR) {
		return ROCE_E_BOUNDS;
	}
	/* DDR: the table guarantees the range lies in it; check anyway, the
	 * data path must never trust a control-plane invariant blindly.
	 * HOST: the IOMMU decides, only a window the host mapped passes */
	p = dma_ptr(e, addr, len);
	if (!p)
		return ROCE_E_BOUNDS;
	at->pa = addr;
	at->off = va - mr->va;
	at->mr = index;
	at->staged = roce_stage_bound(&mr->stage);
	if (ptr)
		*ptr = p;
	return ROCE_OK;
}

/* The entry of the MR a key names, from the cache unless a commit changed
 * it since (ctx.c empties the copy); NULL for an unknown index. */
static const struct roce_mr_entry *mr_entry(struct roce_engine *e, uint32_t key)
{
	uint32_t index = ROCE_MR_KEY_INDEX(key);
	struct mr_cached *c = &e->mrc[index % MR_CACHE];

	if (index >= ROCE_MAX_MR)
		return NULL;
	if (c->index != index || (c->gen & 1u)) {
		roce_mr_table_lookup_gen(e->mrt, index, &c->e, &c->gen);
		c->index = index;
	}
	return &c->e;
}

/* A zero-length access: no MR, nothing to move. */
static int no_mr(struct mr_pos *at)
{
	at->pa = 0;
	at->off = 0;
	at->mr = MR_NONE;
	at->staged = false;
	return ROCE_OK;
}

/* pd: the QP's, or PD_ANY (mem_lkey: no QP) */
#define PD_ANY UINT32_MAX

static int lkey_check(struct roce_engine *e, uint32_t pd, uint32_t lkey, uint64_t va,
		      uint64_t len, unsigned access, struct mr_pos *at, uint8_t **ptr)
{
	const struct roce_mr_entry *mr;

	if (len == 0)
		return no_mr(at);
	mr = mr_entry(e, lkey);
	if (!mr || !mr->valid || mr->lkey != lkey || (pd != PD_ANY && mr->pd != pd))
		return ROCE_E_LKEY;
	return mem_check(e, mr, ROCE_MR_KEY_INDEX(lkey), va, len, access, at, ptr);
}

int mem_lkey(struct roce_engine *e, uint32_t lkey, uint64_t va, uint64_t len,
	     unsigned access, struct mr_pos *at)
{
	return lkey_check(e, PD_ANY, lkey, va, len, access, at, NULL);
}

int mem_rkey(struct roce_engine *e, struct eng_qp *qp, uint32_t rkey,
	     uint64_t va, uint64_t len, unsigned access, struct mr_pos *at)
{
	const struct roce_mr_entry *mr;

	/* C9-88: a zero-length RDMA access does not check the R_Key */
	if (len == 0)
		return no_mr(at);
	mr = mr_entry(e, rkey);
	if (!mr || !mr->valid || mr->rkey != rkey || mr->pd != qp->cfg.pd)
		return ROCE_E_RKEY;
	return mem_check(e, mr, ROCE_MR_KEY_INDEX(rkey), va, len, access, at, NULL);
}

int mem_seg_at(const struct roce_engine *e, const struct mr_pos *at, uint32_t len,
	       struct dma_seg *seg)
{
	seg->at = *at;
	seg->ptr = dma_ptr(e, at->pa, len);
	seg->len = len;
	return seg->ptr ? ROCE_OK : ROCE_E_BOUNDS;
}

/*
 * Resolve len bytes of an SGE list, starting off bytes into it, to DMA
 * ranges and their bytes (at most one per SGE), checking every L_Key,
 * right, bound and window before a byte moves: a DMA that would fail
 * moves nothing.
 */
int mem_resolve(struct roce_engine *e, uint32_t pd, const struct roce_sge *sge,
		       unsigned nsge, uint32_t off, uint32_t len, unsigned access,
		       struct dma_seg *seg, unsigned *nseg)
{
	unsigned k = 0;

	for (unsigned i = 0; i < nsge && i < ROCE_MAX_SGE && len; i++) {
		uint32_t n;
		int rc;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off;
		if (n > len)
			n = len;
		rc = lkey_check(e, pd, sge[i].lkey, sge[i].addr + off, n, access,
				&seg[k].at, &seg[k].ptr);
		if (rc)
			return rc;
		seg[k++].len = n;
		len -= n;
		off = 0;
	}
	*nseg = k;
	return len ? ROCE_E_BOUNDS : ROCE_OK;
}
