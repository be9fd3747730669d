/* SPDX-License-Identifier: MIT */
/*
 * roce-demo --stage: A's exposed MR, the one B WRITEs into and READs
 * from, bound to a chain of inline stages (docs/stages.md), so what B
 * sends lands in A's DDR as the chain stores it: ciphertext, PI in an
 * area beside it, blocks stored once. After the flow's READ (which must
 * still give back exactly what was written) the report shows what DDR
 * holds beside what was sent, and --save-ddr / --save-read write both
 * out for anyone to check with tools of their own.
 *
 * The PI area is in A's DDR; the XTS key goes into slot 0; a dedup pool
 * is the MR's own range (pool_pa = the MR's address, one physical block
 * per logical one), so the MR's bytes as stored are the pool's blocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "regs/device_stage.h"
#include "roce-demo/demo.h"
#include "roce/status.h"
#include "stage/stage.h"

#define KEY_SLOT      0u
#define SHOW_BYTES    32u       /* of the first unit, stored vs sent */
#define SHOW_UNITS    4u        /* PI tuples shown */
#define SHOW_BLOCKS   8u        /* map entries shown */

static uint8_t *ddr(struct nic *n, uint64_t *size)
{
	size_t sz;
	uint8_t *mem = roce_device_mem(roce_context_device(n->ctx), &sz);

	if (size)
		*size = sz;
	return mem;
}

static struct dedup *volume(struct demo *d)
{
	return stage_mr_dedup(roce_device_stage(roce_context_device(d->a.ctx)),
			      d->a.mr[0]->index);
}

/* The key: the file's (options.c checked it) or a random one. */
static bool load_key(struct demo *d, struct step *s, const char **from)
{
	uint8_t key[ROCE_STAGE_KEY_LEN];
	char why[200];
	int st;

	*from = d->o.stage.key_file;
	if (*from)
		st = roce_stage_key_file(*from, key, why, sizeof(why));
	else if ((st = roce_stage_key_random(key)) != ROCE_OK)
		snprintf(why, sizeof(why), "no randomness for a key: give --key-file");
	if (st == ROCE_OK && (st = roce_stage_key_load(d->a.ctx, KEY_SLOT, key)) != ROCE_OK)
		snprintf(why, sizeof(why), "loading it into slot %u: %s", KEY_SLOT,
			 roce_status_str(st));
	memset(key, 0, sizeof(key));
	if (st != ROCE_OK)
		return step_fail(s, "NIC A's XTS key: %s", why);
	return true;
}

bool demo_stage_bind(struct demo *d, struct step *s)
{
	struct roce_stage_binding *b = &d->bind;
	struct nic *a = &d->a;
	uint64_t mem_size, pi_len, pa = (uint64_t)(a->buf - ddr(a, &mem_size));
	const char *key_from = NULL, *why = NULL;
	char names[32];
	int st;

	if (!demo_staged(&d->o))
		return true;
	*b = (struct roce_stage_binding){ .key_slot = KEY_SLOT,
					  .unit_shift = d->o.stage.unit_shift,
					  .dun_base = d->o.stage.dun_base };
	memcpy(b->chain, d->o.stage.chain, sizeof(b->chain));
	if (roce_stage_has(b, ROCE_STAGE_DEDUP)) {
		b->pool_pa = pa;
		b->pool_blocks = (uint32_t)(d->region_len / ROCE_STAGE_BLOCK);
	}
	if (roce_stage_has(b, ROCE_STAGE_XTS) && !load_key(d, s, &key_from))
		return false;
	if ((pi_len = roce_stage_pi_bytes(b, d->region_len))) {
		if (!(d->pi = roce_mem_alloc(a->ctx, (size_t)pi_len, ROCE_STAGE_PI_LEN)))
			return step_fail(s, "NIC A: a PI area of %" PRIu64 " bytes: no DDR left",
					 pi_len);
		b->pi_pa = (uint64_t)(d->pi - ddr(a, NULL));
	}
	roce_stage_chain_format(b->chain, names, sizeof(names));
	if ((st = roce_mr_set_stage(a->mr[0], b)) != ROCE_OK) {
		roce_stage_binding_check(b, d->region_len, false, mem_size, &why);
		return step_fail(s, "NIC A: --stage %s on its MR: %s", names,
				 why ? why : roce_status_str(st));
	}
	if (!d->o.json)
		printf("Stages %s on A's exposed MR (DDR 0x%" PRIx64 ", %zu bytes), unit %u, "
		       "DUN base %" PRIu64 "%s%s%s.\n", names, pa, d->region_len,
		       1u << b->unit_shift, b->dun_base,
		       roce_stage_has(b, ROCE_STAGE_XTS) ? "; XTS key " : "",
		       roce_stage_has(b, ROCE_STAGE_XTS) ? (key_from ? "from " : "random, not shown") : "",
		       roce_stage_has(b, ROCE_STAGE_XTS) && key_from ? key_from : "");
	return true;
}

void demo_stage_pattern(const struct demo *d, uint8_t *p, size_t n)
{
	if (!roce_stage_has(&d->bind, ROCE_STAGE_DEDUP))
		return;
	for (size_t off = ROCE_STAGE_BLOCK; off + ROCE_STAGE_BLOCK <= n; off += 2 * ROCE_STAGE_BLOCK)
		memcpy(p + off, p + off - ROCE_STAGE_BLOCK, ROCE_STAGE_BLOCK);
}

static void hex(const char *label, const uint8_t *p, unsigned n)
{
	printf("    %-28s", label);
	for (unsigned i = 0; i < n; i++)
		printf("%02x%s", p[i], i % 4 == 3 && i + 1 < n ? " " : "");
	printf("\n");
}

static uint32_t be(const uint8_t *p, unsigned n)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The dedup map's first entries and what the volume saves. */
static void show_dedup(struct demo *d, struct dedup *dd)
{
	struct dedup_stats st;
	uint32_t written = (uint32_t)((d->o.size + ROCE_STAGE_BLOCK - 1) / ROCE_STAGE_BLOCK);

	printf("    dedup map, logical -> physical:");
	for (uint32_t l = 0; l < SHOW_BLOCKS && l < d->region_len / ROCE_STAGE_BLOCK; l++) {
		uint32_t p = dedup_map(dd, l);

		if (p == DEDUP_NONE)
			printf(" %u->-", l);
		else
			printf(" %u->%u", l, p);
	}
	dedup_stats(dd, &st);
	printf("\n    dedup: %u logical blocks written, %u physical blocks in use of %u, "
	       "%" PRIu64 " bytes saved\n", written, st.in_use, st.pool_blocks,
	       (uint64_t)(st.mapped - st.in_use) * ROCE_STAGE_BLOCK);
}

/* What A's DDR holds of the first unit, its PI, the map; the counters. */
static void show(struct demo *d)
{
	const struct roce_stage_binding *b = &d->bind;
	struct dedup *dd = roce_stage_has(b, ROCE_STAGE_DEDUP) ? volume(d) : NULL;
	uint32_t phys0 = dd ? dedup_map(dd, 0) : 0;
	const uint8_t *stored = d->a.buf + (phys0 == DEDUP_NONE ? 0 : (size_t)phys0 * ROCE_STAGE_BLOCK);
	char label[64];

	printf("\nWhat A's DDR holds after the flow (the wire and B saw the plaintext)\n");
	if (dd)
		snprintf(label, sizeof(label), "stored (physical block %u):", phys0);
	else
		snprintf(label, sizeof(label), "stored (MR offset 0):");
	hex(label, stored, SHOW_BYTES);
	hex("as sent (B's pattern):", d->b.buf, SHOW_BYTES);
	if (d->pi) {
		printf("    PI of the first units%s (guard app ref):\n",
		       dd ? " (physical)" : "");
		for (unsigned i = 0; i < SHOW_UNITS; i++) {
			const uint8_t *t = d->pi + i * ROCE_STAGE_PI_LEN;

			printf("      unit %u: guard 0x%04x app 0x%04x ref 0x%08x\n", i,
			       be(t, 2), be(t + 2, 2), be(t + 4, 4));
		}
	}
	if (dd)
		show_dedup(d, dd);
	printf("    stage counters of A (name value):\n");
	roce_stage_counters_print(stdout, roce_device_counters(roce_context_device(d->a.ctx)));
}

static bool save(struct step *s, const char *opt, const char *path, const uint8_t *p,
		 size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		int e = errno;

		if (f)
			fclose(f);
		return step_fail(s, "%s %s: %s", opt, path, strerror(e));
	}
	return true;
}

/* FILE.map beside --save-ddr's pool: one line per logical block. */
static bool save_map(struct demo *d, struct step *s)
{
	struct dedup *dd = volume(d);
	char path[4096];
	FILE *f;
	int e;

	snprintf(path, sizeof(path), "%s.map", d->o.save_ddr);
	if (!(f = fopen(path, "w")))
		goto bad;
	for (uint32_t l = 0; l < d->region_len / ROCE_STAGE_BLOCK; l++) {
		uint32_t p = dedup_map(dd, l);

		if (p == DEDUP_NONE)
			fprintf(f, "%u -\n", l);
		else
			fprintf(f, "%u %u\n", l, p);
	}
	if (fclose(f) == 0)
		return true;
bad:
	e = errno;
	return step_fail(s, "--save-ddr map %s: %s", path, strerror(e));
}

bool demo_stage_show(struct demo *d, struct step *s)
{
	if (demo_staged(&d->o) && !d->o.json)
		show(d);
	if (d->o.save_ddr &&
	    (!save(s, "--save-ddr", d->o.save_ddr, d->a.buf, d->region_len) ||
	     (roce_stage_has(&d->bind, ROCE_STAGE_DEDUP) && !save_map(d, s))))
		return false;
	if (d->o.save_read &&
	    !save(s, "--save-read", d->o.save_read, d->b.buf + d->b_back, (size_t)d->o.size))
		return false;
	return true;
}

void demo_stage_close(struct demo *d)
{
	if (d->pi)
		roce_mem_free(d->a.ctx, d->pi);
	d->pi = NULL;
}
