/* SPDX-License-Identifier: MIT */
/*
 * The binding rules (roce/stage.h): what the MR table refuses to commit.
 */
#include "roce/stage.h"
#include "roce/status.h"

static const char *const names[ROCE_STAGE_ID_COUNT] = {
	[ROCE_STAGE_DEDUP] = "dedup",
	[ROCE_STAGE_XTS] = "xts",
	[ROCE_STAGE_PI] = "pi",
};

const char *roce_stage_name(unsigned id)
{
	return id > ROCE_STAGE_NONE && id < ROCE_STAGE_ID_COUNT ? names[id] : NULL;
}

uint64_t roce_stage_pi_bytes(const struct roce_stage_binding *b, uint64_t len)
{
	uint64_t bytes = roce_stage_has(b, ROCE_STAGE_DEDUP)
				 ? (uint64_t)b->pool_blocks * ROCE_STAGE_BLOCK : len;

	if (!roce_stage_has(b, ROCE_STAGE_PI) || b->unit_shift < ROCE_STAGE_UNIT_MIN_SHIFT ||
	    b->unit_shift > ROCE_STAGE_UNIT_MAX_SHIFT)
		return 0;
	return (bytes >> b->unit_shift) * ROCE_STAGE_PI_LEN;
}

static bool inside(uint64_t pa, uint64_t len, uint64_t mem_size)
{
	return len <= mem_size && pa <= mem_size - len;
}

static bool apart(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a + alen <= b || b + blen <= a;
}

static int refuse(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return ROCE_E_INVAL;
}

int roce_stage_binding_check(const struct roce_stage_binding *b, uint64_t len,
			     bool host, uint64_t mem_size, const char **why)
{
	bool seen[ROCE_STAGE_ID_COUNT] = { false };
	bool end = false, dedup, pi;
	uint64_t pool_len = 0, pi_len;

	if (why)
		*why = NULL;
	if (!roce_stage_bound(b)) {
		for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
			if (b->chain[i])
				return refuse(why, "a gap in the stage chain");
		return ROCE_OK;
	}
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++) {
		uint8_t id = b->chain[i];

		if (id == ROCE_STAGE_NONE) {
			end = true;
			continue;
		}
		if (end)
			return refuse(why, "a gap in the stage chain");
		if (id >= ROCE_STAGE_ID_COUNT)
			return refuse(why, "an unknown stage in the chain");
		if (seen[id])
			return refuse(why, "a stage twice in the chain");
		if (id == ROCE_STAGE_DEDUP && i != 0)
			return refuse(why, "dedup must be first in the chain (it needs the wire's plaintext)");
		seen[id] = true;
	}
	dedup = seen[ROCE_STAGE_DEDUP];
	pi = seen[ROCE_STAGE_PI];
	if (b->unit_shift != ROCE_STAGE_UNIT_MIN_SHIFT &&
	    b->unit_shift != ROCE_STAGE_UNIT_MAX_SHIFT)
		return refuse(why, "the data unit must be 512 or 4096 bytes");
	if (dedup && b->unit_shift != ROCE_STAGE_UNIT_MAX_SHIFT)
		return refuse(why, "a dedup MR's unit is its 4096-byte block");
	if (len == 0 || len & ((1ull << b->unit_shift) - 1))
		return refuse(why, "the MR's length must be a whole number of units");
	if (seen[ROCE_STAGE_XTS] && b->key_slot >= ROCE_STAGE_KEY_SLOTS)
		return refuse(why, "no such key slot");
	if (dedup) {
		if (host)
			return refuse(why, "dedup needs a DDR MR (its blocks are the card's)");
		if (b->pool_blocks == 0)
			return refuse(why, "a dedup MR needs a block pool (pool_blocks >= 1)");
		if (len / ROCE_STAGE_BLOCK > UINT32_MAX - 1)
			return refuse(why, "a dedup volume of more than 2^32 - 2 blocks");
		pool_len = (uint64_t)b->pool_blocks * ROCE_STAGE_BLOCK;
		if (b->pool_pa & (ROCE_STAGE_BLOCK - 1) || !inside(b->pool_pa, pool_len, mem_size))
			return refuse(why, "the block pool must be 4 KiB aligned and inside the DDR");
	}
	if (pi) {
		pi_len = roce_stage_pi_bytes(b, len);
		if (b->pi_pa & 7 || !inside(b->pi_pa, pi_len, mem_size))
			return refuse(why, "the PI area must be 8-byte aligned and inside the DDR");
		if (dedup && !apart(b->pi_pa, pi_len, b->pool_pa, pool_len))
			return refuse(why, "the PI area overlaps the block pool");
	}
	return ROCE_OK;
}
