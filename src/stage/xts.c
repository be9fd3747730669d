/* SPDX-License-Identifier: MIT */
/*
 * AES-256-XTS over whole data units (IEEE 1619), through OpenSSL's EVP:
 * the at-rest cipher of the XTS stage. A key is two EVP contexts, one per
 * direction, keyed once when the key is made (the AES key schedules are
 * the expensive part); a data unit then costs only its tweak, set as the
 * context's IV, and the cipher itself. Nothing is allocated and nothing
 * is re-keyed per unit, as blk-crypto and dm-crypt keep one transform
 * per key and hand it data units with their number.
 *
 * A key's contexts are not safe for two threads at once: the caller
 * serialises (dev.c's key_lock).
 */
#include <stdlib.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "roce/status.h"
#include "stage/stage.h"

#define XTS_HALF        (ROCE_STAGE_KEY_LEN / 2)
#define XTS_UNIT_MIN    16u             /* one AES block */
#define XTS_UNIT_MAX    (1u << 24)      /* IEEE 1619: 2^20 blocks a unit at most */

struct xts_key {
	EVP_CIPHER_CTX *enc, *dec;
};

static EVP_CIPHER_CTX *keyed(const uint8_t key[ROCE_STAGE_KEY_LEN], int encrypt)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	if (c && EVP_CipherInit_ex(c, EVP_aes_256_xts(), NULL, key, NULL, encrypt) != 1) {
		EVP_CIPHER_CTX_free(c);
		c = NULL;
	}
	return c;
}

int xts_key_new(const uint8_t key[ROCE_STAGE_KEY_LEN], struct xts_key **out)
{
	struct xts_key *k;

	/* Key1 = Key2 is refused (IEEE 1619-2018, FIPS 140 IG A.9; OpenSSL
	 * checks it too): the tweak would be encrypted under the data key.
	 * Checked here so the status is ours whatever OpenSSL says. */
	if (CRYPTO_memcmp(key, key + XTS_HALF, XTS_HALF) == 0)
		return ROCE_E_INVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return ROCE_E_NOMEM;
	k->enc = keyed(key, 1);
	k->dec = keyed(key, 0);
	if (!k->enc || !k->dec) {
		xts_key_free(k);
		return ROCE_E_NOMEM;
	}
	*out = k;
	return ROCE_OK;
}

/* The contexts hold the only copy of the key: EVP_CIPHER_CTX_free
 * cleanses their key schedules. */
void xts_key_free(struct xts_key *k)
{
	if (!k)
		return;
	EVP_CIPHER_CTX_free(k->enc);
	EVP_CIPHER_CTX_free(k->dec);
	free(k);
}

int xts_crypt(struct xts_key *k, bool encrypt, uint64_t tweak0, uint32_t unit,
	      const uint8_t *in, uint8_t *out, uint32_t len)
{
	EVP_CIPHER_CTX *c = encrypt ? k->enc : k->dec;

	if (unit < XTS_UNIT_MIN || unit > XTS_UNIT_MAX || len % unit)
		return ROCE_E_INVAL;
	for (uint32_t off = 0, i = 0; off < len; off += unit, i++) {
		/* IEEE 1619 5.1: the data unit's number as a 128-bit
		 * little-endian integer; a carry out of the low 64 bits
		 * (tweak0 near 2^64) sets bit 64. */
		uint64_t lo = tweak0 + i;
		uint8_t iv[16] = { 0 };
		int n;

		for (int b = 0; b < 8; b++)
			iv[b] = (uint8_t)(lo >> (8 * b));
		iv[8] = lo < tweak0;
		if (EVP_CipherInit_ex(c, NULL, NULL, NULL, iv, -1) != 1 ||
		    EVP_CipherUpdate(c, out + off, &n, in + off, (int)unit) != 1 ||
		    n != (int)unit)
			return ROCE_E_STAGE;
	}
	return ROCE_OK;
}
