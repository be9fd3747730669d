/* SPDX-License-Identifier: MIT */
/*
 * Inline data-path stages: the card's own logic between the wire and DDR
 * (docs/stages.md). Every byte the engine places into an MR and every
 * byte it fetches from one for the wire passes through the MR's stage
 * chain; a stage's result depends only on the MR, the offset in it, the
 * bytes and the direction (never on PSNs, arrival order or segmentation),
 * so go-back-N retransmission is invisible to it.
 *
 * An MR's binding names its chain, wire side first, and each stage's
 * settings. It lives in the MR entry (the MR window's shadow registers,
 * committed with the entry). Built in:
 *
 * - DEDUP: the MR is a logical volume of 4 KiB blocks mapped through a
 *   translation table onto a pool of physical blocks in DDR; identical
 *   blocks (SHA-256, confirmed byte for byte) are stored once. First in a
 *   chain when present (it needs the wire's plaintext).
 * - XTS: AES-256-XTS (IEEE 1619) at rest, data units of 512 or 4096
 *   bytes, tweak = dun_base + the unit's number (its physical number
 *   under DEDUP), the key from a write-only key slot.
 * - PI: T10-DIF-style protection information, 8 bytes per unit (CRC16
 *   guard, application tag, reference tag = the low 32 bits of dun_base +
 *   the unit's number) in a PI area of DDR beside the data: generated on
 *   placement, verified on fetch. Where it sits in the chain says what it
 *   covers: after XTS (the recommended order) it covers what is stored,
 *   before XTS the plaintext.
 */
#ifndef ROCE_STAGE_H
#define ROCE_STAGE_H

#include <stdbool.h>
#include <stdint.h>

enum roce_stage_id {
	ROCE_STAGE_NONE = 0,            /* ends a chain */
	ROCE_STAGE_DEDUP = 1,
	ROCE_STAGE_XTS = 2,
	ROCE_STAGE_PI = 3,
	ROCE_STAGE_ID_COUNT
};

#define ROCE_STAGE_CHAIN_MAX  3         /* stages in one MR's chain */
#define ROCE_STAGE_KEY_SLOTS  16        /* XTS key slots in the STAGE block */
#define ROCE_STAGE_KEY_LEN    64        /* AES-256-XTS: two 256-bit keys */
#define ROCE_STAGE_BLOCK      4096u     /* DEDUP's block */
#define ROCE_STAGE_PI_LEN     8u        /* PI bytes per unit */
#define ROCE_STAGE_UNIT_MIN_SHIFT 9     /* units: 512 ... */
#define ROCE_STAGE_UNIT_MAX_SHIFT 12    /* ... or 4096 bytes */

/* An MR's stage binding; all zero: no stage (the MR as before). */
struct roce_stage_binding {
	uint8_t chain[ROCE_STAGE_CHAIN_MAX]; /* enum roce_stage_id, wire side
					       first; NONE ends the chain */
	uint8_t key_slot;               /* XTS: the key slot */
	uint8_t unit_shift;             /* XTS and PI: 9 (512 B) or 12 (4096 B) */
	uint8_t reserved0;              /* 0: no padding, so that bindings
					   compare byte for byte */
	uint16_t app_tag;               /* PI: the application tag */
	uint64_t dun_base;              /* XTS tweak and PI reference tag of unit 0 */
	uint64_t pi_pa;                 /* PI: the PI area's DDR address */
	uint64_t pool_pa;               /* DEDUP: the block pool's DDR address */
	uint32_t pool_blocks;           /* DEDUP: 4 KiB blocks in the pool */
	uint32_t reserved1;             /* 0 */
};

_Static_assert(sizeof(struct roce_stage_binding) == 40,
	       "a stage binding has no padding (its fields compare byte for byte)");

static inline bool roce_stage_bound(const struct roce_stage_binding *b)
{
	return b->chain[0] != ROCE_STAGE_NONE;
}

static inline bool roce_stage_has(const struct roce_stage_binding *b,
				  enum roce_stage_id id)
{
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX && b->chain[i]; i++)
		if (b->chain[i] == id)
			return true;
	return false;
}

/* The short name of a stage ("xts"), NULL for an unknown id. */
const char *roce_stage_name(unsigned id);

/*
 * Whether a binding may be committed with an MR of len bytes, pa in its
 * space (host: whether its pa is in host memory), on a device of mem_size
 * bytes of DDR: ROCE_OK, or ROCE_E_INVAL with *why set to one line. The
 * rules: known stages, each at most once, no gap; DEDUP first; a unit of
 * 512 or 4096 bytes (4096 when DEDUP is bound: its block); an MR whose
 * length is a whole number of units (of blocks under DEDUP); a key slot
 * below ROCE_STAGE_KEY_SLOTS; the PI area (8 bytes per unit of the MR, or
 * of the pool under DEDUP) and the pool inside the DDR, apart from each
 * other; DEDUP on a DDR MR only (its blocks are the card's).
 */
int roce_stage_binding_check(const struct roce_stage_binding *b, uint64_t len,
			     bool host, uint64_t mem_size, const char **why);

/* The bytes of PI area a binding needs for an MR of len bytes. */
uint64_t roce_stage_pi_bytes(const struct roce_stage_binding *b, uint64_t len);

#endif
