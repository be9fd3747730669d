/* SPDX-License-Identifier: MIT */
/*
 * rocectl stage: the inline data-path stages (roce/stage.h, docs/stages.md).
 *   stage                        the key slots holding a key, every valid
 *                                MR with a stage binding, the stage_*
 *                                counters
 *   stage key load SLOT FILE     load the 64-byte XTS key in FILE into SLOT
 *   stage key clear SLOT         empty SLOT
 * A key is write-only on the device; nothing here ever prints one, and the
 * copy read from FILE is wiped once written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/counters.h"
#include "roce/stage.h"
#include "rocectl/ctl.h"

const char ctl_stage_help[] =
	"usage: rocectl stage\n"
	"       rocectl stage key load SLOT FILE\n"
	"       rocectl stage key clear SLOT\n"
	"The inline data-path stages (XTS, PI, dedup between the wire and DDR).\n"
	"\n"
	"  stage                 the key slots that hold a key (never a key's\n"
	"                        bytes: the key words are write-only), each valid\n"
	"                        MR with a stage binding (its chain in order, unit,\n"
	"                        key slot, DUN base, PI area, dedup pool), and the\n"
	"                        stage_* counters\n"
	"  stage key load SLOT FILE\n"
	"                        load an AES-256-XTS key into SLOT (0-15): FILE\n"
	"                        holds exactly 64 raw bytes, two 256-bit keys; the\n"
	"                        device refuses a key whose halves are equal\n"
	"  stage key clear SLOT  empty SLOT\n";

static int slot_arg(struct ctl *c, const char *s, unsigned *slot)
{
	uint64_t v;

	if (roce_parse_u64(s, false, &v) != ROCE_OK || v >= ROCE_STAGE_KEY_SLOTS)
		return ctl_fail(c, EXIT_USAGE, "stage key: bad slot '%s' (0 to %u)", s,
				ROCE_STAGE_KEY_SLOTS - 1);
	*slot = (unsigned)v;
	return 0;
}

/* FILE must hold exactly the key: a short or long file is a mistake the
   device could not see (it would load zeros or a truncated key). */
static int read_key(struct ctl *c, const char *path, uint8_t key[ROCE_STAGE_KEY_LEN])
{
	FILE *f = fopen(path, "rb");
	size_t n;
	int extra;

	if (!f)
		return ctl_fail(c, EXIT_USAGE, "stage key load: %s: %s", path,
				strerror(errno));
	n = fread(key, 1, ROCE_STAGE_KEY_LEN, f);
	extra = fgetc(f) != EOF;
	fclose(f);
	if (n != ROCE_STAGE_KEY_LEN || extra) {
		explicit_bzero(key, ROCE_STAGE_KEY_LEN);
		return ctl_fail(c, EXIT_USAGE, "stage key load: %s: %s than the %u "
				"bytes of an AES-256-XTS key", path,
				extra ? "longer" : "shorter", ROCE_STAGE_KEY_LEN);
	}
	return 0;
}

static int key_cmd(struct ctl *c, int argc, char **argv)
{
	uint8_t key[ROCE_STAGE_KEY_LEN];
	unsigned slot = 0;
	int st;

	if (argc == 3 && !strcmp(argv[0], "load")) {
		if ((st = slot_arg(c, argv[1], &slot)) || (st = read_key(c, argv[2], key)))
			return st;
		st = roce_drv_stage_key_load(&c->drv, slot, key);
		explicit_bzero(key, sizeof(key));
		return st != ROCE_OK ? ctl_drv_fail(c) : 0;
	}
	if (argc == 2 && !strcmp(argv[0], "clear")) {
		if ((st = slot_arg(c, argv[1], &slot)))
			return st;
		return roce_drv_stage_key_clear(&c->drv, slot) != ROCE_OK ? ctl_drv_fail(c) : 0;
	}
	return ctl_fail(c, EXIT_USAGE, "usage: rocectl stage key load SLOT FILE | "
			"stage key clear SLOT");
}

/* "dedup,xts,pi": the chain, wire side first */
static void chain_str(const struct roce_stage_binding *b, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX && b->chain[i]; i++) {
		const char *n = roce_stage_name(b->chain[i]);

		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "",
				       n ? n : "?");
		if (at >= len)
			break;
	}
}

static void show_mr(struct ctl *c, const struct roce_mr_ctx *m, int first)
{
	const struct roce_stage_binding *b = &m->stage;
	char chain[64];

	chain_str(b, chain, sizeof(chain));
	if (c->json) {
		printf("%s{\"index\":%" PRIu32 ",\"chain\":\"%s\",\"unit\":%u,"
		       "\"key_slot\":%u,\"app_tag\":%u,\"dun_base\":%" PRIu64
		       ",\"pi_pa\":%" PRIu64 ",\"pool_pa\":%" PRIu64
		       ",\"pool_blocks\":%" PRIu32 "}", first ? "" : ",", m->index,
		       chain, 1u << b->unit_shift, b->key_slot, b->app_tag,
		       b->dun_base, b->pi_pa, b->pool_pa, b->pool_blocks);
		return;
	}
	printf("  mr %-6" PRIu32 " %-14s unit %-4u", m->index, chain, 1u << b->unit_shift);
	if (roce_stage_has(b, ROCE_STAGE_XTS))
		printf(" key slot %u", b->key_slot);
	if (roce_stage_has(b, ROCE_STAGE_XTS) || roce_stage_has(b, ROCE_STAGE_PI))
		printf(" dun 0x%" PRIx64, b->dun_base);
	if (roce_stage_has(b, ROCE_STAGE_PI))
		printf(" pi 0x%" PRIx64 " app tag 0x%04x", b->pi_pa, b->app_tag);
	if (roce_stage_has(b, ROCE_STAGE_DEDUP))
		printf(" pool 0x%" PRIx64 " x %" PRIu32 " blocks", b->pool_pa,
		       b->pool_blocks);
	putchar('\n');
}

static int show(struct ctl *c)
{
	struct roce_counter_value v[ROCE_CNT_COUNT];
	struct roce_dev_info in;
	struct roce_mr_ctx m;
	uint32_t loaded;
	size_t n;
	int first = 1;

	if (roce_drv_probe(&c->drv, &in) != ROCE_OK ||
	    roce_drv_stage_keys_loaded(&c->drv, &loaded) != ROCE_OK)
		return ctl_drv_fail(c);
	fputs(c->json ? "{\"keys_loaded\":[" : "key slots loaded:", stdout);
	for (unsigned s = 0; s < ROCE_STAGE_KEY_SLOTS; s++) {
		if (!(loaded & (1u << s)))
			continue;
		if (c->json)
			printf("%s%u", first ? "" : ",", s);
		else
			printf(" %u", s);
		first = 0;
	}
	if (c->json)
		fputs("],\"mrs\":[", stdout);
	else
		printf("%s\nmrs with a stage binding:\n", first ? " none" : "");
	first = 1;
	for (uint32_t i = 0; i < in.mr_count; i++) {
		bool bound;

		if (roce_drv_mr_read_bound(&c->drv, i, &m, &bound) != ROCE_OK)
			return ctl_drv_fail(c);
		if (bound) {
			show_mr(c, &m, first);
			first = 0;
		}
	}
	if (first && !c->json)
		printf("  none\n");
	if (roce_drv_counters_read(&c->drv, v, ROCE_CNT_COUNT, &n) != ROCE_OK)
		return ctl_drv_fail(c);
	printf(c->json ? "],\"counters\":{" : "counters:\n");
	first = 1;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(v[i].name, "stage_", 6))
			continue;
		if (c->json)
			printf("%s\"%s\":%" PRIu64, first ? "" : ",", v[i].name, v[i].value);
		else
			printf("  %-24s %20" PRIu64 "\n", v[i].name, v[i].value);
		first = 0;
	}
	if (c->json)
		printf("}}\n");
	return 0;
}

int cmd_stage(struct ctl *c, int argc, char **argv)
{
	if (argc == 0)
		return show(c);
	if (!strcmp(argv[0], "key"))
		return key_cmd(c, argc - 1, argv + 1);
	return ctl_fail(c, EXIT_USAGE, "stage: unknown '%s' (try rocectl stage --help)",
			argv[0]);
}
