/* SPDX-License-Identifier: MIT */
/*
 * The stages' primitives alone (stages.h): what a software stage cannot
 * beat. Each is called as the stage calls it: XTS through EVP, the key
 * scheduled once and per unit only the tweak; SHA-256 through the
 * low-level calls src/stage/dedup.c makes (EVP's digests allocate a
 * context per init); ISA-L's CRC16. Over a 64 KB buffer that stays in
 * cache, as a 64 KB message's bytes do in the engine.
 */
/* before any OpenSSL header: SHA256_Init and co. are deprecated in 3.0 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <isa-l/crc.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report.h"
#include "lib/stages.h"

#define BUF_LEN     65536u
#define CHUNK_ITERS 16u         /* buffers between two clock reads */

/* Each primitive: its row's name and condition, its unit, and what a
 * staged row calls it. */
static const struct {
	const char *name, *cond;
	uint32_t unit;
	const char *label;
} prims[PRIM_COUNT] = {
	[PRIM_XTS_ENC_4096] = { "aes-256-xts", "encrypt", 4096, "XTS encrypt 4096 B" },
	[PRIM_XTS_DEC_4096] = { "aes-256-xts", "decrypt", 4096, "XTS decrypt 4096 B" },
	[PRIM_XTS_ENC_512] = { "aes-256-xts", "encrypt", 512, "XTS encrypt 512 B" },
	[PRIM_XTS_DEC_512] = { "aes-256-xts", "decrypt", 512, "XTS decrypt 512 B" },
	[PRIM_CRC16_4096] = { "crc16_t10dif", "", 4096, "CRC16 4096 B" },
	[PRIM_CRC16_512] = { "crc16_t10dif", "", 512, "CRC16 512 B" },
	[PRIM_SHA256_4096] = { "sha-256", "", 4096, "SHA-256 4096 B" },
};

const char *stage_prim_name(enum stage_prim p)
{
	return prims[p].label;
}

struct stage_prims {
	enum stage_prim p;
	uint8_t *in, *out;
	EVP_CIPHER *xts;
	EVP_CIPHER_CTX *cipher;
	uint64_t tweak;
};

static inline void clobber(void)
{
	__asm__ volatile("" ::: "memory");
}

/* One pass over the buffer in units; false when OpenSSL failed. */
static bool prim_pass(struct stage_prims *r, volatile uint32_t *sink)
{
	uint32_t unit = prims[r->p].unit;

	for (uint32_t off = 0; off < BUF_LEN; off += unit) {
		switch (r->p) {
		case PRIM_CRC16_4096:
		case PRIM_CRC16_512:
			*sink ^= crc16_t10dif(0, r->in + off, unit);
			break;
		case PRIM_SHA256_4096: {
			uint8_t d[SHA256_DIGEST_LENGTH];
			SHA256_CTX c;

			if (SHA256_Init(&c) != 1 || SHA256_Update(&c, r->in + off, unit) != 1 ||
			    SHA256_Final(d, &c) != 1)
				return false;
			*sink ^= d[0];
			break;
		}
		default: {
			/* IEEE 1619's data unit sequence number, little-endian */
			uint8_t iv[16] = { 0 };
			uint64_t t = r->tweak++;
			int n;

			for (int b = 0; b < 8; b++)
				iv[b] = (uint8_t)(t >> (8 * b));
			if (EVP_CipherInit_ex(r->cipher, NULL, NULL, NULL, iv, -1) != 1 ||
			    EVP_CipherUpdate(r->cipher, r->out + off, &n, r->in + off,
					     (int)unit) != 1)
				return false;
			break;
		}
		}
		clobber();
	}
	return true;
}

static double prim_once(void *arg, double secs)
{
	struct stage_prims *r = arg;
	uint64_t t0 = bench_now_ns(), t, bytes = 0;
	volatile uint32_t sink = 0;

	do {
		for (unsigned k = 0; k < CHUNK_ITERS; k++)
			if (!prim_pass(r, &sink))
				bench_die("%s: OpenSSL failed", stage_prim_name(r->p));
		bytes += (uint64_t)CHUNK_ITERS * BUF_LEN;
		t = bench_now_ns() - t0;
	} while (t < secs * 1e9);
	return (double)bytes / (double)t;       /* GB/s */
}

struct stage_prims *stage_prims_new(void)
{
	struct stage_prims *r = calloc(1, sizeof(*r));

	if (!r || !(r->in = aligned_alloc(64, BUF_LEN)) || !(r->out = aligned_alloc(64, BUF_LEN)) ||
	    !(r->cipher = EVP_CIPHER_CTX_new()) ||
	    !(r->xts = EVP_CIPHER_fetch(NULL, "AES-256-XTS", NULL)))
		bench_die("stage primitives: out of memory or no AES-256-XTS in OpenSSL");
	bench_fill(r->in, BUF_LEN, 4242);
	r->p = PRIM_COUNT;
	return r;
}

void stage_prims_free(struct stage_prims *r)
{
	EVP_CIPHER_CTX_free(r->cipher);
	EVP_CIPHER_free(r->xts);
	free(r->in);
	free(r->out);
	free(r);
}

/* Ready for primitive p: the cipher keyed in the direction it runs. */
static void prim_ready(struct stage_prims *r, enum stage_prim p)
{
	uint8_t key[64];

	if (r->p == p)
		return;
	r->p = p;
	if (p > PRIM_XTS_DEC_512)
		return;
	/* two different halves: XTS refuses equal ones */
	for (unsigned i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 37 + 11);
	if (EVP_CipherInit_ex(r->cipher, r->xts, NULL, key, NULL,
			      !strcmp(prims[p].cond, "encrypt")) != 1)
		bench_die("AES-256-XTS: OpenSSL refused the key");
}

double stage_prim_measure(struct stage_prims *r, enum stage_prim p, double secs)
{
	prim_ready(r, p);
	return prim_once(r, secs);
}

void stage_prims_run(const struct bench_cfg *cfg, struct stage_prims *r, int cpu,
		     double gbs[PRIM_COUNT])
{
	bench_pin(cpu);
	for (unsigned i = 0; i < PRIM_COUNT; i++) {
		struct bench_row *row = bench_row_add("stages", prims[i].name);

		prim_ready(r, (enum stage_prim)i);
		snprintf(row->cond, sizeof(row->cond), "%s", prims[i].cond);
		snprintf(row->unit, sizeof(row->unit), "GB/s");
		snprintf(row->note, sizeof(row->note), "in %u-byte units over %u KB, CPU %d",
			 prims[i].unit, BUF_LEN >> 10, cpu);
		row->size = prims[i].unit;
		row->cores = 1;
		bench_measure(cfg->reps_key, cfg->secs, false, prim_once, r, &row->st,
			      &row->load);
		gbs[i] = row->st.best;
	}
	bench_pin(-1);
}
