/* SPDX-License-Identifier: MIT */
/*
 * roce-perf --stage: the tool's one buffer MR bound to a stage chain
 * (docs/stages.md), so whatever a peer WRITEs into it or READs from it,
 * and whatever we READ into it or WRITE from it, passes through the
 * card's stages: the wire carries plaintext, DDR holds what the chain
 * stores. The MR is DDR (roce_mem_alloc), so every chain binds, dedup
 * included: its pool is the MR's own range (docs/stages.md, DEDUP), and
 * --save-ddr then writes the pool's blocks as stored.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "perf/perf_ep.h"
#include "perf/perf_ep_priv.h"
#include "roce/stage_config.h"
#include "roce/status.h"

#define PERF_STAGE_KEY_SLOT 0u

static bool staged(const struct perf_ep_stage *s)
{
	return s && s->cfg.chain[0] != ROCE_STAGE_NONE;
}

static size_t unit_of(const struct perf_ep_stage *s)
{
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
		if (s->cfg.chain[i] == ROCE_STAGE_DEDUP)
			return ROCE_STAGE_BLOCK;
	return (size_t)1 << s->cfg.unit_shift;
}

size_t perf_stage_mr_len(const struct perf_ep_stage *s, size_t len)
{
	size_t unit;

	if (!staged(s))
		return len;
	unit = unit_of(s);
	return (len + unit - 1) / unit * unit;
}

static uint64_t ddr_of(struct perf_ep *ep, const void *p)
{
	size_t size;
	uint8_t *mem = roce_device_mem(roce_context_device(ep->ctx), &size);

	return (uint64_t)((const uint8_t *)p - mem);
}

/* The key into slot 0: the file's, else a random one (said aloud: what
 * DDR holds cannot be decrypted after the run). */
static int load_key(struct perf_ep *ep, const char **from)
{
	uint8_t key[ROCE_STAGE_KEY_LEN];
	char why[200];
	int st;

	if (ep->stage.cfg.key_file) {
		st = roce_stage_key_file(ep->stage.cfg.key_file, key, why, sizeof(why));
		if (st)
			return perf_ep_fail(ep, st, "--key-file %s", why);
		*from = ep->stage.cfg.key_file;
	} else if ((st = roce_stage_key_random(key)) != ROCE_OK) {
		return perf_ep_fail(ep, st, "no randomness for a key: give --key-file");
	} else {
		*from = NULL;
	}
	st = roce_stage_key_load(ep->ctx, PERF_STAGE_KEY_SLOT, key);
	memset(key, 0, sizeof(key));
	if (st)
		return perf_ep_fail(ep, st, "loading the XTS key: %s", roce_status_str(st));
	return ROCE_OK;
}

int perf_stage_bind(struct perf_ep *ep, FILE *out)
{
	struct roce_stage_binding b = { .key_slot = PERF_STAGE_KEY_SLOT };
	const char *key_from = NULL;
	char names[32];
	uint64_t pi_len;
	int st;

	if (!staged(&ep->stage))
		return ROCE_OK;
	memcpy(b.chain, ep->stage.cfg.chain, sizeof(b.chain));
	b.unit_shift = ep->stage.cfg.unit_shift;
	b.dun_base = ep->stage.cfg.dun_base;
	if (roce_stage_has(&b, ROCE_STAGE_DEDUP)) {
		b.pool_pa = ddr_of(ep, ep->buf);
		b.pool_blocks = (uint32_t)(ep->len / ROCE_STAGE_BLOCK);
	}
	if (roce_stage_has(&b, ROCE_STAGE_XTS) && (st = load_key(ep, &key_from)) != ROCE_OK)
		return st;
	pi_len = roce_stage_pi_bytes(&b, ep->len);
	if (pi_len) {
		ep->pi = roce_mem_alloc(ep->ctx, (size_t)pi_len, ROCE_STAGE_PI_LEN);
		if (!ep->pi)
			return perf_ep_fail(ep, ROCE_E_NOMEM, "a PI area of %" PRIu64 " bytes: "
					    "no device memory left", pi_len);
		b.pi_pa = ddr_of(ep, ep->pi);
	}
	roce_stage_chain_format(b.chain, names, sizeof(names));
	st = roce_mr_set_stage(ep->mr, &b);
	if (st) {
		const char *why = NULL;
		size_t size;

		roce_device_mem(roce_context_device(ep->ctx), &size);
		roce_stage_binding_check(&b, ep->len, false, size, &why);
		return perf_ep_fail(ep, st, "--stage %s on the buffer's MR: %s", names,
				    why ? why : roce_status_str(st));
	}
	fprintf(out, "stages %s on the buffer's MR (%zu bytes at VA %p, DDR 0x%" PRIx64 ", unit %u, "
		"DUN base %" PRIu64 "%s%s%s): the wire carries plaintext, DDR holds what "
		"the chain stores\n", names, ep->len, (void *)ep->buf, ddr_of(ep, ep->buf),
		1u << (roce_stage_has(&b, ROCE_STAGE_DEDUP) ? 12 : b.unit_shift), b.dun_base,
		roce_stage_has(&b, ROCE_STAGE_XTS) ? ", key " : "",
		roce_stage_has(&b, ROCE_STAGE_XTS) ? (key_from ? "from " : "random: ") : "",
		roce_stage_has(&b, ROCE_STAGE_XTS) ? (key_from ? key_from :
			"what DDR holds cannot be decrypted after this run, give --key-file") : "");
	return ROCE_OK;
}

static void save_ddr(struct perf_ep *ep)
{
	FILE *f = fopen(ep->stage.save_ddr, "wb");

	if (!f || fwrite(ep->buf, 1, ep->len, f) != ep->len || fclose(f) != 0) {
		fprintf(stderr, "%s: --save-ddr %s: %s\n", program_invocation_short_name,
			ep->stage.save_ddr, strerror(errno));
		if (f)
			fclose(f);
	}
}

void perf_stage_close(struct perf_ep *ep, FILE *out)
{
	if (!ep->ctx || !ep->buf)
		return;
	/* the DDR view of the MR: the card's bytes, as the debug port
	 * would read them */
	if (ep->stage.save_ddr)
		save_ddr(ep);
	if (staged(&ep->stage) && ep->mr) {
		fprintf(out, "stage counters:\n");
		roce_stage_counters_print(out, roce_device_counters(roce_context_device(ep->ctx)));
		fflush(out);
	}
	if (ep->pi)
		roce_mem_free(ep->ctx, ep->pi);
	ep->pi = NULL;
}
