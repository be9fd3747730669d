/* SPDX-License-Identifier: MIT */
/*
 * Fault decisions of the in-memory link: a small PRNG per sending port and
 * the choice of the bit a corruption flips. Kept apart from the switching
 * so both can be tested and read on their own.
 */
#ifndef ROCE_LINK_MEMLINK_FAULT_H
#define ROCE_LINK_MEMLINK_FAULT_H

#include <stdbool.h>
#include <stdint.h>

/* xoshiro256** (Blackman and Vigna): fast, 256-bit state, good enough for
 * fault patterns; seeded through splitmix64 as its authors recommend. */
struct ml_prng {
	uint64_t s[4];
};

void ml_prng_seed(struct ml_prng *p, uint64_t seed, unsigned stream);
uint64_t ml_prng_next(struct ml_prng *p);

/* A probability as a threshold on a 32-bit draw: a draw u hits when
 * u < thresh, so 0 never hits and 1.0 (thresh 2^32) always does. */
#define ML_THRESH_ONE (1ull << 32)
uint64_t ml_fault_thresh(double p);
bool ml_prob_valid(double p);

enum ml_fault { ML_LOSS, ML_CORRUPT, ML_DUP, ML_REORDER, ML_NFAULTS };

struct ml_verdict {
	bool lost, dup, hold;
	int32_t flip;           /* bit index into the frame, -1 = none */
};

/*
 * Decide the faults of one frame copy. Three draws are taken whatever the
 * probabilities, so each fault's pattern depends only on the seed and the
 * frame sequence, not on the other faults' settings.
 */
void ml_fault_decide(struct ml_prng *p, const uint64_t thresh[ML_NFAULTS],
		     const uint8_t *frame, uint32_t len, struct ml_verdict *v);

/* How many bits of this frame a corruption may flip (see memlink.h for
 * the region), and the one a corruption drawn as r flips: r spreads
 * evenly over them in frame order; -1 when there is none. */
uint32_t ml_corrupt_bits(const uint8_t *frame, uint32_t len);
int32_t ml_corrupt_pick(const uint8_t *frame, uint32_t len, uint32_t r);

static inline void ml_flip(uint8_t *buf, int32_t bit)
{
	if (bit >= 0)
		buf[bit >> 3] ^= (uint8_t)(1u << (bit & 7));
}

#endif
