/* SPDX-License-Identifier: MIT */
/*
 * A stage configuration as people give it: a chain by names ("xts,pi"),
 * a data unit in bytes, an XTS key from a 64-byte file or made at random.
 * The tools (roce-perf --stage) and roce-run's drop-in (ROCE_STAGE...)
 * read theirs through these, so both take the same words and refuse the
 * same things in the same terms; the binding itself is roce/stage.h's.
 */
#ifndef ROCE_STAGE_CONFIG_H
#define ROCE_STAGE_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/counters.h"
#include "roce/stage.h"

/* What a tool or the drop-in binds: the chain, the unit, the DUN base,
 * where the XTS key comes from. */
struct roce_stage_config {
	uint8_t chain[ROCE_STAGE_CHAIN_MAX]; /* all NONE: no stage */
	uint8_t unit_shift;             /* 9 or 12 (dedup: 12) */
	uint64_t dun_base;              /* unit 0's tweak and reference tag */
	const char *key_file;           /* XTS: 64 bytes; NULL: a random key */
};

/* The environment roce-run's drop-in takes its configuration from
 * (docs/verbs.md, "Inline stages"). */
#define ROCE_STAGE_ENV          "ROCE_STAGE"            /* the chain: xts,pi */
#define ROCE_STAGE_ENV_KEY_FILE "ROCE_STAGE_KEY_FILE"   /* 64 bytes */
#define ROCE_STAGE_ENV_UNIT     "ROCE_STAGE_UNIT"       /* 512 or 4096 */
#define ROCE_STAGE_ENV_DUN_BASE "ROCE_STAGE_DUN_BASE"   /* a number */

/* c from the environment (no chain when ROCE_STAGE is unset or empty; unit
 * 4096 and DUN base 0 by default); ROCE_E_INVAL with why naming the
 * variable that is wrong. */
int roce_stage_config_env(struct roce_stage_config *c, char *why, size_t len);

/* "xts", "xts,pi", "dedup,xts,pi", wire side first, into chain (the rest
 * NONE). ROCE_E_INVAL with why (one line) for an unknown name, one named
 * twice, more than ROCE_STAGE_CHAIN_MAX or an empty list; the order rules
 * are roce_stage_binding_check's. */
int roce_stage_chain_parse(const char *list, uint8_t chain[ROCE_STAGE_CHAIN_MAX],
			   char *why, size_t len);
/* The chain's names joined by commas ("xts,pi") into out. */
void roce_stage_chain_format(const uint8_t chain[ROCE_STAGE_CHAIN_MAX], char *out,
			     size_t len);
/* "512" or "4096" into its shift (9, 12); ROCE_E_INVAL for anything else. */
int roce_stage_unit_parse(const char *s, uint8_t *shift);
/* A DUN base: a number (decimal, 0x hex) up to 2^64 - 1; ROCE_E_INVAL
 * with why for anything else. */
int roce_stage_dun_parse(const char *s, uint64_t *dun, char *why, size_t len);
/* The key in path: exactly ROCE_STAGE_KEY_LEN bytes whose two halves
 * differ (IEEE 1619). ROCE_E_IO or ROCE_E_INVAL with why. */
int roce_stage_key_file(const char *path, uint8_t key[ROCE_STAGE_KEY_LEN], char *why,
			size_t len);
/* A random key (getrandom), its halves different. ROCE_E_IO without
 * randomness. */
int roce_stage_key_random(uint8_t key[ROCE_STAGE_KEY_LEN]);
/* Every stage counter and naks_tx_remote_op, zeros too, "name value". */
void roce_stage_counters_print(FILE *f, const struct roce_counters *c);

#endif
