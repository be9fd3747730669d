/* SPDX-License-Identifier: MIT */
/*
 * xts_file [--decrypt] --key-file KEY --unit N [--dun-base N] IN OUT: a
 * file through the XTS stage's own cipher (src/stage/xts.c, one
 * xts_crypt call over the whole file), unit i with the tweak DUN base +
 * i; the arguments of tests/scripts/xts_ref.py, which does the same with
 * Python's cryptography. tests/scripts/xts_ref.sh compares the two. Exit
 * 0 on success, 1 on a refusal (the status is printed), 2 on usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/status.h"
#include "stage/stage.h"

static const char usage[] =
	"usage: xts_file [--decrypt] --key-file KEY --unit N [--dun-base N] IN OUT\n";

/* The whole of path into a buffer of its size; NULL and a message when
 * it cannot be read. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc(n ? (size_t)n : 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*len = buf ? (size_t)n : 0;
	return buf;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "decrypt", no_argument, NULL, 'd' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "unit", required_argument, NULL, 'u' },
		{ "dun-base", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *key_path = NULL;
	unsigned long long dun = 0;
	unsigned long unit = 0;
	bool encrypt = true;
	struct xts_key *k;
	uint8_t *key, *data;
	size_t key_len, len;
	FILE *out;
	int c, rc;

	while ((c = getopt_long(argc, argv, "dk:u:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			encrypt = false;
			break;
		case 'k':
			key_path = optarg;
			break;
		case 'u':
			unit = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			dun = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!key_path || !unit || argc - optind != 2) {
		fputs(usage, stderr);
		return 2;
	}
	key = slurp(key_path, &key_len);
	if (!key)
		return 1;
	if (key_len != ROCE_STAGE_KEY_LEN) {
		fprintf(stderr, "xts_file: %s: %zu bytes, a key is %d\n", key_path, key_len,
			ROCE_STAGE_KEY_LEN);
		return 1;
	}
	rc = xts_key_new(key, &k);
	memset(key, 0, key_len);
	free(key);
	if (rc) {
		fprintf(stderr, "xts_file: key refused: %s\n", roce_status_str(rc));
		return 1;
	}
	data = slurp(argv[optind], &len);
	if (!data)
		return 1;
	rc = len > UINT32_MAX || unit > UINT32_MAX
		     ? ROCE_E_INVAL
		     : xts_crypt(k, encrypt, dun, (uint32_t)unit, data, data, (uint32_t)len);
	xts_key_free(k);
	if (rc) {
		fprintf(stderr, "xts_file: %s\n", roce_status_str(rc));
		free(data);
		return 1;
	}
	out = fopen(argv[optind + 1], "wb");
	rc = !out || fwrite(data, 1, len, out) != len;
	if (out && fclose(out))
		rc = 1;
	if (rc)
		perror(argv[optind + 1]);
	free(data);
	return rc;
}
