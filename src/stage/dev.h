/* SPDX-License-Identifier: MIT */
/*
 * Inside the stage layer: the stage hardware's state, shared by dev.c
 * (keys, MR state) and chain.c (the data path through it).
 */
#ifndef ROCE_STAGE_DEV_H
#define ROCE_STAGE_DEV_H

#include <pthread.h>

#include "stage/stage.h"

/* One MR's stage state, as the data path took its entry. */
struct stage_mr {
	struct roce_stage_binding b;
	uint64_t pa, len;               /* the entry's */
	uint64_t dma_base;              /* the DMA address of its byte 0 */
	uint32_t gen;                   /* bumped by every place into it */
	uint8_t space;
	bool dedup;
	uint32_t unit;                  /* XTS data unit and PI block */
	uint32_t chain_unit;            /* what the chain moves whole: the
					   unit, or DEDUP's block */
	struct dedup *dd;
};

/* The scratch units of a place (two merges, a dedup confirmation) */
enum { STAGE_SCRATCH_HEAD, STAGE_SCRATCH_TAIL, STAGE_SCRATCH_SAME, STAGE_SCRATCH_N };

/* The last unit a fetch of a part of it read, whole, as the wire sees
 * it (or checked where it is stored): the next packet of the same READ
 * takes its part from here. */
struct stage_cache {
	bool valid;
	uint32_t mr, gen;
	uint64_t unit, next;
	const uint8_t *stored;          /* the unit checked where it is stored
					   (no XTS, DDR), else NULL: buf */
	uint8_t buf[ROCE_STAGE_BLOCK];
};

struct stage_dev {
	pthread_mutex_t key_lock;
	struct xts_key *key[ROCE_STAGE_KEY_SLOTS];
	struct stage_mr **mr;           /* by MR index; NULL: no stage */
	struct roce_counters *cnt;
	uint8_t *mem;                   /* the DDR: PI areas and block pools */
	uint64_t mem_size;
	stage_resolve_fn resolve;
	void *resolve_arg;
	stage_note_fn note;
	void *note_arg;
	uint8_t scratch[STAGE_SCRATCH_N][ROCE_STAGE_BLOCK];
	struct stage_cache cache;
};

/* XTS with the key in slot under the key lock: ROCE_E_STAGE when the slot
 * holds no key. */
int stage_xts(struct stage_dev *d, unsigned slot, bool encrypt, uint64_t tweak0,
	      uint32_t unit, const uint8_t *in, uint8_t *out, uint32_t len);
/* The dedup level counters moved by a change of blocks in use and of
 * blocks saved (mapped - in use). */
void stage_dedup_levels(struct stage_dev *d, int64_t blocks, int64_t saved_blocks);
/* chain.c: a newly bound MR takes what it holds as stored: the PI of
 * every unit is generated over it (so that a partial write's read of an
 * unwritten unit passes its check). */
int stage_mr_adopt(struct stage_dev *d, struct stage_mr *m);

#endif
