/* SPDX-License-Identifier: MIT */
/*
 * mover.h and mover.c: the data mover, the one place bytes enter and leave an MR: place (from
 * the wire into an MR: a WRITE, a SEND into its receive buffer with UD's
 * GRH area, a READ response or an atomic's original value landing in the
 * requester's buffer) and fetch (from an MR into a frame: a SEND's or a
 * WRITE's payload, a READ response). An atomic's 8-byte read-modify-write
 * is a fetch and a place of its word. No other file of the engine copies
 * a byte of an MR; dma.c decides what may move, this file moves it.
 *
 * What it guarantees:
 * - nothing moves that dma.c did not resolve or translate (dma_ptr): a
 *   place into an SGE list resolves the whole list before a byte moves,
 *   a place or a fetch at a kept position (a WRITE's next packet, a
 *   READ's next response) translates its range again first (a window
 *   may have gone since the key check);
 * - each piece moves whole and in order, and the DMA observer (the
 *   transaction trace) hears of it once it moved: one record per piece,
 *   the bytes as written or as read, in the order they moved;
 * - a fetch that takes the ICRC takes it in the same pass as the copy
 *   (roce_crc32_copy): the MR is read once;
 * - every piece knows its MR and the offset in it (struct mr_pos), not
 *   only its address.
 *
 * The last point is what a per-MR transform needs: what lands in the MR
 * or on the wire may then be a function of the MR, the offset, the bytes
 * and the direction (never of PSNs or arrival order, so a retransmission
 * at any segmentation gives the same result). Its home is place_one and
 * fetch_one, fused with the copy (one pass over the bytes in cache-sized
 * chunks, the ICRC over each chunk while it is in cache), reached through
 * the MR's entry by the piece's index; a packet whose MRs have none pays
 * one test (the resolution can say whether any of its pieces' MRs has
 * one, and mem_place/mem_fetch then take these plain loops). Today no
 * MR has one: a place is a memcpy, a fetch a memcpy or a copy with the
 * CRC.
 */
#ifndef ROCE_ENGINE_MOVER_H
#define ROCE_ENGINE_MOVER_H

#include <string.h>

#include "engine/dma.h"
#include "roce/icrc.h"
#include "stage/stage.h"
#include "roce/status.h"

static inline void dma_note(struct roce_engine *e, bool write, uint64_t addr,
			    const uint8_t *data, uint32_t len)
{
	if (__builtin_expect(e->dma_obs != NULL, 0))
		e->dma_obs(e->dma_obs_arg, write, addr, data, len);
}

/* qp->stage_in[]: the streams of the two directions that place */
enum { STAGE_IN_RESP, STAGE_IN_COMP };

/* The staged side of the pair (mover.c): through the MR's stage chain;
 * a stream (s, allocated at its first use) keeps a unit the message's
 * next piece completes, last says the message ends with this piece. */
int place_staged(struct roce_engine *e, struct stage_stream **s, bool last,
		 const struct mr_pos *at, const uint8_t *src, uint32_t len);
int fetch_staged(struct roce_engine *e, const struct mr_pos *at, uint8_t *dst,
		 uint32_t len, uint32_t *crc);

/* The pair every byte passes: len bytes at ptr, at place at of an MR,
 * one direction. An MR with a stage chain costs the others this one
 * branch. */
static inline int place_one(struct roce_engine *e, struct stage_stream **s, bool last,
			    const struct mr_pos *at, uint8_t *ptr, const uint8_t *src,
			    uint32_t len)
{
	if (__builtin_expect(at->staged, 0))
		return place_staged(e, s, last, at, src, len);
	memcpy(ptr, src, len);
	dma_note(e, true, at->pa, ptr, len);
	return ROCE_OK;
}

static inline int fetch_one(struct roce_engine *e, const struct mr_pos *at,
			    const uint8_t *ptr, uint8_t *dst, uint32_t len, uint32_t *crc)
{
	if (__builtin_expect(at->staged, 0))
		return fetch_staged(e, at, dst, len, crc);
	if (crc)
		*crc = roce_crc32_copy(*crc, dst, ptr, len);
	else
		memcpy(dst, ptr, len);
	dma_note(e, false, at->pa, ptr, len);
	return ROCE_OK;
}

/* Place the pieces' bytes from src, in order (s, last: place_one's). */
static inline int mem_place(struct roce_engine *e, struct stage_stream **s, bool last,
			    const struct dma_seg *seg, unsigned nseg, const uint8_t *src)
{
	for (unsigned i = 0; i < nseg; i++) {
		int rc = place_one(e, s, last, &seg[i].at, seg[i].ptr, src, seg[i].len);

		if (rc)
			return rc;
		src += seg[i].len;
	}
	return ROCE_OK;
}

/* Fetch the pieces' bytes into dst, in order; crc NULL: a plain copy;
 * else the CRC-32 of the bytes is taken in the same pass, from *crc on
 * (tx.c's ICRC). A stage's failure (ROCE_E_PI, ...) is returned: the
 * frame must not go out. */
static inline int mem_fetch(struct roce_engine *e, const struct dma_seg *seg,
			    unsigned nseg, uint8_t *dst, uint32_t *crc)
{
	for (unsigned i = 0; i < nseg; dst += seg[i].len, i++) {
		int rc = fetch_one(e, &seg[i].at, seg[i].ptr, dst, seg[i].len, crc);

		if (rc)
			return rc;
	}
	return ROCE_OK;
}

/* Place len bytes at *at (translated again: a window may have gone
 * since the key check), then move *at past them. */
static inline int mem_place_at(struct roce_engine *e, struct stage_stream **s, bool last,
			       struct mr_pos *at, const uint8_t *src, uint32_t len)
{
	uint8_t *ptr;
	int rc;

	if (len) {
		/* checked at the key check; a window may have gone since */
		ptr = dma_ptr(e, at->pa, len);
		if (!ptr)
			return ROCE_E_BOUNDS;
		rc = place_one(e, s, last, at, ptr, src, len);
		if (rc)
			return rc;
	}
	mr_pos_advance(at, len);
	return ROCE_OK;
}

/* Place len bytes into an SGE list from byte off (mem_resolve's checks,
 * local write access): nothing moves unless all of it resolves. s, last:
 * place_one's. */
int mem_place_sge(struct roce_engine *e, uint32_t pd, struct stage_stream **s, bool last,
		  const struct roce_sge *sge, unsigned nsge, uint32_t off,
		  const uint8_t *src, uint32_t len);
/* The 8-byte read-modify-write of an atomic at *at (aligned, checked; an
 * MR with a stage chain is refused, ROCE_E_STAGE: its words are not what
 * the wire sees):
 * the word is fetched, becomes swap_add if it equals compare (cmp_swap)
 * or itself plus swap_add, and is placed; *orig is what it was. */
int mem_atomic(struct roce_engine *e, const struct mr_pos *at, bool cmp_swap,
	       uint64_t compare, uint64_t swap_add, uint64_t *orig);

/* Watch the engine's memory accesses (NULL to stop): called after each
 * write and each read with the DMA address and the bytes as they now are. */
void engine_set_dma_observer(struct roce_engine *e, eng_dma_observer fn, void *arg);

#endif
