/* SPDX-License-Identifier: MIT */
/*
 * --key-file: a trace never holds a key (docs/trace.md), only key records
 * naming the slot a LOAD put one in; a replay of a staged run takes the
 * keys from a file. 64 bytes: that key for every slot; 64 x N bytes: slot
 * i's key is the file's i-th 64 bytes, for slots 0..N-1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce-replay/replay.h"
#include "roce/stage.h"

#define KEY_FILE_MAX (ROCE_STAGE_KEY_SLOTS * ROCE_STAGE_KEY_LEN)

int replay_keys_load(const char *path, struct replay_keys *k)
{
	uint8_t *buf = malloc(KEY_FILE_MAX + 1);
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	memset(k, 0, sizeof(*k));
	if (!f || !buf) {
		fprintf(stderr, "roce-replay: --key-file %s: %s\n", path,
			f ? "out of memory" : strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return 2;
	}
	n = fread(buf, 1, KEY_FILE_MAX + 1, f);
	fclose(f);
	if (n == 0 || n % ROCE_STAGE_KEY_LEN || n > KEY_FILE_MAX) {
		fprintf(stderr, "roce-replay: --key-file %s: %zu%s bytes: want %u (one key for "
			"every slot) or %u x N for slots 0..N-1, N at most %u\n", path, n,
			n > KEY_FILE_MAX ? " or more" : "", ROCE_STAGE_KEY_LEN,
			ROCE_STAGE_KEY_LEN, ROCE_STAGE_KEY_SLOTS);
		free(buf);
		return 2;
	}
	k->key = buf;
	k->n = (unsigned)(n / ROCE_STAGE_KEY_LEN);
	k->every_slot = k->n == 1;
	return 0;
}

void replay_keys_free(struct replay_keys *k)
{
	free(k->key);
	memset(k, 0, sizeof(*k));
}
