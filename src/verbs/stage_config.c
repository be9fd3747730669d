/* SPDX-License-Identifier: MIT */
/*
 * A stage configuration from words and files (roce/stage_config.h): what
 * roce-perf's --stage options and roce-run's ROCE_STAGE variables share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "roce/stage_config.h"
#include "roce/status.h"

int roce_stage_chain_parse(const char *list, uint8_t chain[ROCE_STAGE_CHAIN_MAX],
			   char *why, size_t len)
{
	unsigned n = 0;
	const char *p = list;

	memset(chain, 0, ROCE_STAGE_CHAIN_MAX);
	if (!list || !*list) {
		snprintf(why, len, "no stage named (give xts, pi, dedup or a list of them)");
		return ROCE_E_INVAL;
	}
	for (;;) {
		size_t w = strcspn(p, ",");
		unsigned id = ROCE_STAGE_NONE;

		for (unsigned i = ROCE_STAGE_NONE + 1; i < ROCE_STAGE_ID_COUNT; i++)
			if (strlen(roce_stage_name(i)) == w && !strncmp(p, roce_stage_name(i), w))
				id = i;
		if (id == ROCE_STAGE_NONE) {
			snprintf(why, len, "'%.*s': not a stage (xts, pi, dedup)", (int)w, p);
			return ROCE_E_INVAL;
		}
		for (unsigned i = 0; i < n; i++)
			if (chain[i] == id) {
				snprintf(why, len, "%s named twice", roce_stage_name(id));
				return ROCE_E_INVAL;
			}
		if (n == ROCE_STAGE_CHAIN_MAX) {
			snprintf(why, len, "more than %u stages", ROCE_STAGE_CHAIN_MAX);
			return ROCE_E_INVAL;
		}
		chain[n++] = (uint8_t)id;
		if (!p[w])
			return ROCE_OK;
		p += w + 1;
	}
}

void roce_stage_chain_format(const uint8_t chain[ROCE_STAGE_CHAIN_MAX], char *out,
			     size_t len)
{
	size_t at = 0;

	if (len)
		out[0] = '\0';
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX && chain[i] && at < len; i++) {
		const char *name = roce_stage_name(chain[i]);
		int k = snprintf(out + at, len - at, "%s%s", i ? "," : "", name ? name : "?");

		if (k < 0)
			return;
		at += (size_t)k;
	}
}

int roce_stage_unit_parse(const char *s, uint8_t *shift)
{
	if (s && !strcmp(s, "512"))
		*shift = 9;
	else if (s && !strcmp(s, "4096"))
		*shift = 12;
	else
		return ROCE_E_INVAL;
	return ROCE_OK;
}

int roce_stage_dun_parse(const char *s, uint64_t *dun, char *why, size_t len)
{
	char *end = NULL;
	unsigned long long v = 0;

	errno = 0;
	if (s && *s >= '0' && *s <= '9')   /* strtoull would take " -1" */
		v = strtoull(s, &end, 0);
	if (!end || errno || *end) {
		snprintf(why, len, "not a number");
		return ROCE_E_INVAL;
	}
	*dun = v;
	return ROCE_OK;
}

static bool halves_differ(const uint8_t key[ROCE_STAGE_KEY_LEN])
{
	return memcmp(key, key + ROCE_STAGE_KEY_LEN / 2, ROCE_STAGE_KEY_LEN / 2) != 0;
}

int roce_stage_key_file(const char *path, uint8_t key[ROCE_STAGE_KEY_LEN], char *why,
			size_t len)
{
	uint8_t extra;
	ssize_t got = 0, r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return ROCE_E_IO;
	}
	while (got < ROCE_STAGE_KEY_LEN &&
	       (r = read(fd, key + got, (size_t)(ROCE_STAGE_KEY_LEN - got))) > 0)
		got += r;
	if (r >= 0 && got == ROCE_STAGE_KEY_LEN)
		r = read(fd, &extra, 1);
	close(fd);
	if (r < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return ROCE_E_IO;
	}
	if (got != ROCE_STAGE_KEY_LEN || r != 0) {
		snprintf(why, len, "%s: an AES-256-XTS key is exactly %u bytes (two 256-bit "
			 "keys)", path, ROCE_STAGE_KEY_LEN);
		return ROCE_E_INVAL;
	}
	if (!halves_differ(key)) {
		snprintf(why, len, "%s: the key's two halves are equal (IEEE 1619 refuses "
			 "it)", path);
		return ROCE_E_INVAL;
	}
	return ROCE_OK;
}

int roce_stage_key_random(uint8_t key[ROCE_STAGE_KEY_LEN])
{
	do {
		if (getrandom(key, ROCE_STAGE_KEY_LEN, 0) != ROCE_STAGE_KEY_LEN)
			return ROCE_E_IO;
	} while (!halves_differ(key));
	return ROCE_OK;
}

int roce_stage_config_env(struct roce_stage_config *c, char *why, size_t len)
{
	const char *list = getenv(ROCE_STAGE_ENV), *unit = getenv(ROCE_STAGE_ENV_UNIT);
	const char *dun = getenv(ROCE_STAGE_ENV_DUN_BASE);
	char inner[160];

	memset(c, 0, sizeof(*c));
	c->unit_shift = ROCE_STAGE_UNIT_MAX_SHIFT;
	if (!list || !*list)
		return ROCE_OK;
	if (roce_stage_chain_parse(list, c->chain, inner, sizeof(inner))) {
		snprintf(why, len, "%s=%s: %s", ROCE_STAGE_ENV, list, inner);
		return ROCE_E_INVAL;
	}
	if (unit && *unit && roce_stage_unit_parse(unit, &c->unit_shift)) {
		snprintf(why, len, "%s=%s: 512 or 4096", ROCE_STAGE_ENV_UNIT, unit);
		return ROCE_E_INVAL;
	}
	if (dun && *dun && roce_stage_dun_parse(dun, &c->dun_base, inner, sizeof(inner))) {
		snprintf(why, len, "%s=%s: %s", ROCE_STAGE_ENV_DUN_BASE, dun, inner);
		return ROCE_E_INVAL;
	}
	c->key_file = getenv(ROCE_STAGE_ENV_KEY_FILE);
	if (c->key_file && !*c->key_file)
		c->key_file = NULL;
	return ROCE_OK;
}

void roce_stage_counters_print(FILE *f, const struct roce_counters *c)
{
	for (int id = ROCE_CNT_STAGE_XTS_ENCRYPTED; id <= ROCE_CNT_STAGE_ERRORS; id++)
		fprintf(f, "%s %llu\n", roce_cnt_name(id),
			(unsigned long long)roce_cnt_read(c, (enum roce_cnt)id));
	fprintf(f, "%s %llu\n", roce_cnt_name(ROCE_CNT_NAKS_TX_REMOTE_OP),
		(unsigned long long)roce_cnt_read(c, ROCE_CNT_NAKS_TX_REMOTE_OP));
}
