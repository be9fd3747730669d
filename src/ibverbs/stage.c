/* SPDX-License-Identifier: MIT */
/*
 * Inline stages under roce-run (docs/verbs.md, "Inline stages"): every MR
 * an unmodified program registers is bound to the chain the environment
 * names (ROCE_STAGE, roce/stage_config.h), so a peer's WRITEs into it and
 * READs of it, and the program's own sends from it, pass through the
 * card's stages. The program's MRs are its own memory (host MRs): they
 * hold what the chain stores (docs/stages.md, "What the local CPU sees"),
 * which the drop-in says once, on stderr, when the program opens the
 * device. XTS and PI only: dedup's volume is the card's DDR, never a
 * program's buffer. Each MR's PI area is the device's DDR, allocated at
 * its registration and freed at its deregistration.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "roce/stage_config.h"
#include "roce/status.h"

#define RV_STAGE_KEY_SLOT 0u

/* The line a program that reads its own buffers must see. */
static void say(const struct roce_stage_config *sc, const char *names)
{
	char line[320];

	if (sc->chain[0] == ROCE_STAGE_XTS || sc->chain[1] == ROCE_STAGE_XTS)
		snprintf(line, sizeof(line), "roce-run: stages %s bound to every MR: this "
			 "program's buffers hold ciphertext, not what its peer sent (and what "
			 "it writes there itself is taken as ciphertext)\n", names);
	else
		snprintf(line, sizeof(line), "roce-run: stages %s bound to every MR: their "
			 "PI is in the device's DDR; a buffer this program changes itself "
			 "fails its PI check when it is next read or sent\n", names);
	fputs(line, stderr);
}

int rv_stage_open(struct rv_context *c, char *why, size_t len)
{
	static bool said;
	struct roce_stage_config sc;
	uint8_t key[ROCE_STAGE_KEY_LEN];
	char names[32], inner[200];
	int st;

	memset(&c->stage, 0, sizeof(c->stage));
	if ((st = roce_stage_config_env(&sc, inner, sizeof(inner))) != ROCE_OK) {
		snprintf(why, len, "%s", inner);
		return st;
	}
	if (sc.chain[0] == ROCE_STAGE_NONE)
		return ROCE_OK;
	roce_stage_chain_format(sc.chain, names, sizeof(names));
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
		if (sc.chain[i] == ROCE_STAGE_DEDUP) {
			snprintf(why, len, "%s=%s: dedup binds the card's DDR only, and a "
				 "program's MRs are its own memory (use xts and pi)",
				 ROCE_STAGE_ENV, names);
			return ROCE_E_INVAL;
		}
	memcpy(c->stage.chain, sc.chain, sizeof(sc.chain));
	c->stage.unit_shift = sc.unit_shift;
	c->stage.dun_base = sc.dun_base;
	c->stage.key_slot = RV_STAGE_KEY_SLOT;
	if (roce_stage_has(&c->stage, ROCE_STAGE_XTS)) {
		st = sc.key_file ? roce_stage_key_file(sc.key_file, key, inner, sizeof(inner))
				 : roce_stage_key_random(key);
		if (st == ROCE_OK)
			st = roce_stage_key_load(c->ctx, RV_STAGE_KEY_SLOT, key);
		memset(key, 0, sizeof(key));
		if (st) {
			snprintf(why, len, "%s: %s", ROCE_STAGE_ENV_KEY_FILE,
				 sc.key_file ? inner : roce_status_str(st));
			memset(&c->stage, 0, sizeof(c->stage));
			return st;
		}
	}
	if (!said) {
		said = true;
		say(&sc, names);
	}
	return ROCE_OK;
}

static uint64_t ddr_of(struct rv_context *c, const void *p)
{
	size_t size;
	uint8_t *mem = roce_device_mem(roce_context_device(c->ctx), &size);

	return (uint64_t)((const uint8_t *)p - mem);
}

int rv_stage_bind(struct rv_context *c, struct rv_mr *m)
{
	struct roce_stage_binding b = c->stage;
	uint64_t pi_len;
	size_t mem_size;
	const char *why = NULL;
	char names[32];
	int st;

	if (!roce_stage_bound(&b))
		return 0;
	pi_len = roce_stage_pi_bytes(&b, m->mr->length);
	if (pi_len) {
		m->pi = roce_mem_alloc(c->ctx, (size_t)pi_len, ROCE_STAGE_PI_LEN);
		if (!m->pi) {
			fprintf(stderr, "libibverbs (roce-run): ibv_reg_mr of %zu bytes: no "
				"device memory left for its %" PRIu64 "-byte PI area\n",
				m->mr->length, pi_len);
			return ENOMEM;
		}
		b.pi_pa = ddr_of(c, m->pi);
	}
	st = roce_mr_set_stage(m->mr, &b);
	if (st == ROCE_OK)
		return 0;
	roce_device_mem(roce_context_device(c->ctx), &mem_size);
	roce_stage_binding_check(&b, m->mr->length, true, mem_size, &why);
	roce_stage_chain_format(b.chain, names, sizeof(names));
	fprintf(stderr, "libibverbs (roce-run): ibv_reg_mr of %zu bytes: stages %s: %s\n",
		m->mr->length, names, why ? why : roce_status_str(st));
	return rv_errno(st);
}

void rv_stage_release(struct rv_context *c, struct rv_mr *m)
{
	if (m->pi)
		roce_mem_free(c->ctx, m->pi);
	m->pi = NULL;
}
