/* SPDX-License-Identifier: MIT */
/*
 * The stage layer: the card's logic between the data mover and DDR
 * (include/roce/stage.h says what a binding is; docs/stages.md draws it).
 * Below the engine: it includes nothing of it. Its parts:
 *
 *   xts.c      AES-256-XTS over whole data units (OpenSSL's EVP)
 *   pi.c       T10-DIF-style protection information (ISA-L's crc16_t10dif)
 *   dedup.c    one dedup volume: the logical->physical map, reference
 *              counts, fingerprints, the free blocks
 *   binding.c  the binding rules (roce_stage_binding_check)
 *   dev.c      the card's stage hardware: key slots, each MR's stage state
 *   chain.c    a place or a fetch through an MR's chain, unit by unit,
 *              with the partial units of a message kept until whole
 */
#ifndef ROCE_STAGE_STAGE_H
#define ROCE_STAGE_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/counters.h"
#include "roce/layout.h"
#include "roce/stage.h"

/* ---- xts.c ------------------------------------------------------------- */

struct xts_key;                 /* one key's encrypt and decrypt contexts */

/* ROCE_E_INVAL when the two halves are equal (IEEE 1619, OpenSSL refuse
 * it), ROCE_E_NOMEM. */
int xts_key_new(const uint8_t key[ROCE_STAGE_KEY_LEN], struct xts_key **out);
void xts_key_free(struct xts_key *k);
/* len bytes (a whole number of units of `unit` bytes) from in to out (in
 * may equal out), unit i with the tweak tweak0 + i as a 128-bit
 * little-endian integer (IEEE 1619's data unit sequence number). */
int xts_crypt(struct xts_key *k, bool encrypt, uint64_t tweak0, uint32_t unit,
	      const uint8_t *in, uint8_t *out, uint32_t len);

/* ---- pi.c -------------------------------------------------------------- */

/* One PI tuple, 8 bytes as T10 stores it (big-endian): guard = CRC16
 * (T10-DIF polynomial 0x8BB7) over the unit, application tag, reference
 * tag. */
void pi_tuple(const uint8_t *data, uint32_t unit, uint16_t app, uint32_t ref,
	      uint8_t pi[ROCE_STAGE_PI_LEN]);
/* n units of data: their tuples into pi (8 * n bytes), references ref0,
 * ref0 + 1, ... */
void pi_generate(const uint8_t *data, uint32_t unit, uint32_t n, uint16_t app,
		 uint32_t ref0, uint8_t *pi);
/* ROCE_OK when every unit's stored tuple matches its data, else ROCE_E_PI
 * with *bad the first unit that does not (guard, application tag or
 * reference tag). */
int pi_verify(const uint8_t *data, uint32_t unit, uint32_t n, uint16_t app,
	      uint32_t ref0, const uint8_t *pi, uint32_t *bad);

/* ---- dedup.c ----------------------------------------------------------- */

struct dedup;                   /* one volume's map, counts and index */

#define DEDUP_NONE UINT32_MAX   /* a logical block with no physical one */

int dedup_create(uint32_t logical_blocks, uint32_t pool_blocks, struct dedup **out);
void dedup_destroy(struct dedup *dd);
/* The physical block that logical holds, or DEDUP_NONE (reads as zeros). */
uint32_t dedup_map(const struct dedup *dd, uint32_t logical);

/* Whether physical block phys holds exactly plain (4 KiB): the caller
 * reads it back through the rest of the chain. */
typedef bool (*dedup_same_fn)(void *arg, uint32_t phys, const uint8_t *plain);

struct dedup_plan {
	uint32_t logical;
	uint32_t phys;          /* where the block is to be: a shared one,
				   its own (rewritten in place) or a new one */
	bool hit;               /* phys already holds it: nothing to write */
	bool fresh;             /* phys was taken from the free blocks */
	uint8_t digest[32];     /* SHA-256 of plain */
};

/*
 * Plan the placement of a whole logical block's plaintext: fingerprint
 * it, look for a block holding the same bytes (confirmed through same(),
 * never the hash alone), else choose where it goes (the block logical
 * holds now when no other logical block shares it, else a free one,
 * taken and reserved). ROCE_E_STAGE_FULL when it needs a free block and
 * none is left: nothing changes. A plan is committed or cancelled before
 * the next plan of the same logical block.
 */
int dedup_plan(struct dedup *dd, uint32_t logical, const uint8_t *plain,
	       dedup_same_fn same, void *arg, struct dedup_plan *p);
/* Make the plan so: logical -> phys, reference counts, the fingerprint
 * index; the block logical held before is released when nothing else
 * holds it. The caller has written the block's bytes (unless p->hit). */
void dedup_commit(struct dedup *dd, const struct dedup_plan *p);
/* Give back what a plan reserved. */
void dedup_cancel(struct dedup *dd, const struct dedup_plan *p);

struct dedup_stats {
	uint64_t lookups, hits;         /* plans made, of them hits */
	uint32_t mapped;                /* logical blocks holding a block */
	uint32_t in_use;                /* physical blocks held */
	uint32_t pool_blocks;
};
void dedup_stats(const struct dedup *dd, struct dedup_stats *s);
/* Reference count of a physical block (tests, rocectl). */
uint32_t dedup_refs(const struct dedup *dd, uint32_t phys);

/* ---- dev.c: the card's stage hardware ------------------------------------ */

struct stage_dev;

/* The engine's view of its memory: a pointer to the len bytes at DMA
 * address addr, or NULL (dma.c's dma_ptr). */
typedef uint8_t *(*stage_resolve_fn)(void *arg, uint64_t addr, uint64_t len);
/* The DMA observer (the transaction trace): each write and read the
 * stages make, with the DMA address and the bytes as they now are. */
typedef void (*stage_note_fn)(void *arg, bool write, uint64_t addr,
			      const uint8_t *data, uint32_t len);

int stage_dev_create(struct roce_counters *cnt, struct stage_dev **out);
void stage_dev_destroy(struct stage_dev *d);
/* Key slots (the STAGE block): ROCE_E_NOENT for a slot out of range,
 * ROCE_E_INVAL for a key whose halves are equal (the slot unchanged). */
int stage_key_load(struct stage_dev *d, unsigned slot,
		   const uint8_t key[ROCE_STAGE_KEY_LEN]);
int stage_key_clear(struct stage_dev *d, unsigned slot);
uint32_t stage_keys_loaded(const struct stage_dev *d);  /* bit per slot */

/* The engine attaches its memory, resolver and observer. */
void stage_dev_attach(struct stage_dev *d, uint8_t *mem, uint64_t mem_size,
		      stage_resolve_fn resolve, void *resolve_arg);
void stage_dev_observe(struct stage_dev *d, stage_note_fn note, void *arg);

/* An MR entry taken by the data path (after its commit), dma_base the
 * DMA address of its first byte: its stage state is made, kept (the
 * same binding, range and space) or reset. A new binding takes the MR's
 * bytes as stored (PI: their tuples are generated). */
int stage_mr_sync(struct stage_dev *d, const struct roce_mr_entry *e, uint64_t dma_base);
/* The dedup volume of MR index (tests, rocectl, the demo), or NULL. */
struct dedup *stage_mr_dedup(struct stage_dev *d, uint32_t index);

/* ---- chain.c: the mover's calls -------------------------------------------- */

/* A place in progress: one per direction that places a message in
 * pieces (a QP's responder, its requester's READ responses). It keeps
 * a unit whose bytes have not all arrived; NULL: every piece is whole
 * at once. */
struct stage_stream;

struct stage_stream *stage_stream_new(void);
void stage_stream_free(struct stage_stream *s);

/* A piece: MR index, offset in the MR, DMA address of that offset. */
struct stage_pos {
	uint32_t mr;
	uint64_t off;
	uint64_t pa;
};

/*
 * Place len bytes of src at at through the MR's chain. last: the
 * message ends with this piece (a unit kept by the stream is completed
 * from what DDR holds). A failure (ROCE_E_PI: what DDR holds fails its
 * check; ROCE_E_STAGE_FULL; ROCE_E_STAGE: a stage cannot work, e.g. no
 * key in its slot; ROCE_E_BOUNDS) places nothing of this piece; the
 * stream's kept unit is dropped.
 */
int stage_place(struct stage_dev *d, struct stage_stream *s, const struct stage_pos *at,
		const uint8_t *src, uint32_t len, bool last);
/* Forget what a stream keeps (the message failed). */
void stage_stream_drop(struct stage_stream *s);
/* Fetch len bytes at at through the chain into dst; crc not NULL: the
 * CRC-32 of the bytes taken on (roce_crc32) in the same pass. A failure
 * leaves dst undefined and nothing goes on the wire. */
int stage_fetch(struct stage_dev *d, const struct stage_pos *at, uint8_t *dst,
		uint32_t len, uint32_t *crc);

#endif
