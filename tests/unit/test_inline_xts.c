/* SPDX-License-Identifier: MIT */
/*
 * src/stage/xts.c: AES-256-XTS over whole data units. Known answers: IEEE
 * 1619-2007 Annex B, vectors 10 to 14 (XTS-AES-256, one 512-byte data
 * unit, sequence numbers 0xff to 0xffffffffff), both ways, in place and
 * not. Then what the stage adds to the cipher: several units in one call
 * are the units one by one with consecutive tweaks, the tweak's carry
 * into its high 64 bits (checked against EVP keyed afresh with the IV
 * written out by hand), the refusals (equal key halves, a bad unit or
 * length), and no allocation per call. tests/scripts/xts_ref.sh checks
 * whole files against Python's cryptography.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "alloc_count.h"
#include "roce/status.h"
#include "stage/stage.h"

/* Annex B's keys for vectors 10 to 14, as printed: Key1 then Key2. */
static const char key_hex[] =
	"2718281828459045235360287471352662497757247093699959574966967627"
	"3141592653589793238462643383279502884197169399375105820974944592";
static uint8_t key[ROCE_STAGE_KEY_LEN];

/* Their plaintext is bytes 00..ff twice; their ciphertexts as printed. */
static const struct vector {
	int number;
	uint64_t dun;           /* the data unit sequence number */
	const char *ct;         /* 512 bytes in hex */
} vectors[] = {
	{ 10, 0xffull,
	  "1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b"
	  "5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd"
	  "5776926c49a3095eb108fd1098baec70aaa66999a72a82f27d848b21d4a741b0"
	  "c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf1000020887891429ca"
	  "2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0"
	  "b5781c34803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f"
	  "93ec05c52e0493ef31a12d3d9260f79a289d6a379bc70c50841473d1a8cc81ec"
	  "583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02469a020a"
	  "84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1"
	  "505eb309326d68378f8374595c849d84f4c333ec4423885143cb47bd71c5edae"
	  "9be69a2ffeceb1bec9de244fbe15992b11b77c040f12bd8f6a975a44a0f90c29"
	  "a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac"
	  "6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f"
	  "645e8b7e9bfdef33943054ff84011493c27b3429eaedb4ed5376441a77ed4385"
	  "1ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97f7ab4066193c4caa"
	  "773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151" },
	{ 11, 0xffffull,
	  "77a31251618a15e6b92d1d66dffe7b50b50bad552305ba0217a610688eff7e11"
	  "e1d0225438e093242d6db274fde801d4cae06f2092c728b2478559df58e837c2"
	  "469ee4a4fa794e4bbc7f39bc026e3cb72c33b0888f25b4acf56a2a9804f1ce6d"
	  "3d6e1dc6ca181d4b546179d55544aa7760c40d06741539c7e3cd9d2f6650b201"
	  "3fd0eeb8c2b8e3d8d240ccae2d4c98320a7442e1c8d75a42d6e6cfa4c2eca179"
	  "8d158c7aecdf82490f24bb9b38e108bcda12c3faf9a21141c3613b58367f922a"
	  "aa26cd22f23d708dae699ad7cb40a8ad0b6e2784973dcb605684c08b8d6998c6"
	  "9aac049921871ebb65301a4619ca80ecb485a31d744223ce8ddc2394828d6a80"
	  "470c092f5ba413c3378fa6054255c6f9df4495862bbb3287681f931b687c888a"
	  "bf844dfc8fc28331e579928cd12bd2390ae123cf03818d14dedde5c0c24c8ab0"
	  "18bfca75ca096f2d531f3d1619e785f1ada437cab92e980558b3dce1474afb75"
	  "bfedbf8ff54cb2618e0244c9ac0d3c66fb51598cd2db11f9be39791abe447c63"
	  "094f7c453b7ff87cb5bb36b7c79efb0872d17058b83b15ab0866ad8a58656c5a"
	  "7e20dbdf308b2461d97c0ec0024a2715055249cf3b478ddd4740de654f75ca68"
	  "6e0d7345c69ed50cdc2a8b332b1f8824108ac937eb050585608ee734097fc090"
	  "54fbff89eeaeea791f4a7ab1f9868294a4f9e27b42af8100cb9d59cef9645803" },
	{ 12, 0xffffffull,
	  "e387aaa58ba483afa7e8eb469778317ecf4cf573aa9d4eac23f2cdf914e4e200"
	  "a8b490e42ee646802dc6ee2b471b278195d60918ececb44bf79966f83faba049"
	  "9298ebc699c0c8634715a320bb4f075d622e74c8c932004f25b41e361025b5a8"
	  "7815391f6108fc4afa6a05d9303c6ba68a128a55705d415985832fdeaae6c8e1"
	  "9110e84d1b1f199a2692119edc96132658f09da7c623efcec712537a3d94c0bf"
	  "5d7e352ec94ae5797fdb377dc1551150721adf15bd26a8efc2fcaad56881fa9e"
	  "62462c28f30ae1ceaca93c345cf243b73f542e2074a705bd2643bb9f7cc79bb6"
	  "e7091ea6e232df0f9ad0d6cf502327876d82207abf2115cdacf6d5a48f6c1879"
	  "a65b115f0f8b3cb3c59d15dd8c769bc014795a1837f3901b5845eb491adfefe0"
	  "97b1fa30a12fc1f65ba22905031539971a10f2f36c321bb51331cdefb39e3964"
	  "c7ef079994f5b69b2edd83a71ef549971ee93f44eac3938fcdd61d01fa71799d"
	  "a3a8091c4c48aa9ed263ff0749df95d44fef6a0bb578ec69456aa5408ae32c7a"
	  "f08ad7ba8921287e3bbee31b767be06a0e705c864a769137df28292283ea81a2"
	  "480241b44d9921cdbec1bc28dc1fda114bd8e5217ac9d8ebafa720e9da4f9ace"
	  "231cc949e5b96fe76ffc21063fddc83a6b8679c00d35e09576a875305bed5f36"
	  "ed242c8900dd1fa965bc950dfce09b132263a1eef52dd6888c309f5a7d712826" },
	{ 13, 0xffffffffull,
	  "bf53d2dade78e822a4d949a9bc6766b01b06a8ef70d26748c6a7fc36d80ae4c5"
	  "520f7c4ab0ac8544424fa405162fef5a6b7f229498063618d39f0003cb5fb8d1"
	  "c86b643497da1ff945c8d3bedeca4f479702a7a735f043ddb1d6aaade3c4a0ac"
	  "7ca7f3fa5279bef56f82cd7a2f38672e824814e10700300a055e1630b8f1cb0e"
	  "919f5e942010a416e2bf48cb46993d3cb6a51c19bacf864785a00bc2ecff15d3"
	  "50875b246ed53e68be6f55bd7e05cfc2b2ed6432198a6444b6d8c247fab941f5"
	  "69768b5c429366f1d3f00f0345b96123d56204c01c63b22ce78baf116e525ed9"
	  "0fdea39fa469494d3866c31e05f295ff21fea8d4e6e13d67e47ce722e9698a1c"
	  "1048d68ebcde76b86fcf976eab8aa9790268b7068e017a8b9b749409514f1053"
	  "027fd16c3786ea1bac5f15cb79711ee2abe82f5cf8b13ae73030ef5b9e4457e7"
	  "5d1304f988d62dd6fc4b94ed38ba831da4b7634971b6cd8ec325d9c61c00f1df"
	  "73627ed3745a5e8489f3a95c69639c32cd6e1d537a85f75cc844726e8a72fc00"
	  "77ad22000f1d5078f6b866318c668f1ad03d5a5fced5219f2eabbd0aa5c0f460"
	  "d183f04404a0d6f469558e81fab24a167905ab4c7878502ad3e38fdbe62a4155"
	  "6cec37325759533ce8f25f367c87bb5578d667ae93f9e2fd99bcbc5f2fbba88c"
	  "f6516139420fcff3b7361d86322c4bd84c82f335abb152c4a93411373aaa8220" },
	{ 14, 0xffffffffffull,
	  "64497e5a831e4a932c09be3e5393376daa599548b816031d224bbf50a818ed23"
	  "50eae7e96087c8a0db51ad290bd00c1ac1620857635bf246c176ab463be30b80"
	  "8da548081ac847b158e1264be25bb0910bbc92647108089415d45fab1b3d2604"
	  "e8a8eff1ae4020cfa39936b66827b23f371b92200be90251e6d73c5f86de5fd4"
	  "a950781933d79a28272b782a2ec313efdfcc0628f43d744c2dc2ff3dcb66999b"
	  "50c7ca895b0c64791eeaa5f29499fb1c026f84ce5b5c72ba1083cddb5ce45434"
	  "631665c333b60b11593fb253c5179a2c8db813782a004856a1653011e93fb6d8"
	  "76c18366dd8683f53412c0c180f9c848592d593f8609ca736317d356e13e2bff"
	  "3a9f59cd9aeb19cd482593d8c46128bb32423b37a9adfb482b99453fbe25a41b"
	  "f6feb4aa0bef5ed24bf73c762978025482c13115e4015aac992e5613a3b5c2f6"
	  "85b84795cb6e9b2656d8c88157e52c42f978d8634c43d06fea928f2822e465aa"
	  "6576e9bf419384506cc3ce3c54ac1a6f67dc66f3b30191e698380bc999b05abc"
	  "e19dc0c6dcc2dd001ec535ba18deb2df1a101023108318c75dc98611a09dc48a"
	  "0acdec676fabdf222f07e026f059b672b56e5cbc8e1d21bbd867dd9272120546"
	  "81d70ea737134cdfce93b6f82ae22423274e58a0821cc5502e2d0ab4585e94de"
	  "6975be5e0b4efce51cd3e70c25a1fbbbd609d273ad5b0d59631c531f6a0a57b9" },
};

#define VEC_UNIT 512u

static void unhex(const char *s, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void vector_plain(uint8_t pt[VEC_UNIT])
{
	for (unsigned i = 0; i < VEC_UNIT; i++)
		pt[i] = (uint8_t)i;
}

/* n pseudo-random bytes (an LCG's top byte) from seed. */
static void fill_random(uint8_t *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(seed >> 56);
	}
}

static struct xts_key *key_new(const uint8_t *k)
{
	struct xts_key *x = NULL;

	assert_int_equal(xts_key_new(k, &x), ROCE_OK);
	assert_non_null(x);
	return x;
}

/* xts_crypt that must succeed */
static void run(struct xts_key *k, bool encrypt, uint64_t tweak0, uint32_t unit,
		const uint8_t *in, uint8_t *out, uint32_t len)
{
	assert_int_equal(xts_crypt(k, encrypt, tweak0, unit, in, out, len), ROCE_OK);
}

static void test_ieee1619_vectors(void **state)
{
	struct xts_key *k = key_new(key);
	uint8_t pt[VEC_UNIT], ct[VEC_UNIT], buf[VEC_UNIT];

	(void)state;
	vector_plain(pt);
	for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
		const struct vector *t = &vectors[v];

		print_message("vector %d\n", t->number);
		unhex(t->ct, ct, sizeof(ct));
		/* apart */
		run(k, true, t->dun, VEC_UNIT, pt, buf, VEC_UNIT);
		assert_memory_equal(buf, ct, VEC_UNIT);
		run(k, false, t->dun, VEC_UNIT, ct, buf, VEC_UNIT);
		assert_memory_equal(buf, pt, VEC_UNIT);
		/* in place */
		memcpy(buf, pt, VEC_UNIT);
		run(k, true, t->dun, VEC_UNIT, buf, buf, VEC_UNIT);
		assert_memory_equal(buf, ct, VEC_UNIT);
		run(k, false, t->dun, VEC_UNIT, buf, buf, VEC_UNIT);
		assert_memory_equal(buf, pt, VEC_UNIT);
	}
	xts_key_free(k);
}

/* Vector 10's plaintext as unit 1 of a two-unit call from tweak 0xfe
 * gives vector 10's ciphertext; unit 0 is tweak 0xfe's own. */
static void test_vector_inside_a_longer_call(void **state)
{
	struct xts_key *k = key_new(key);
	uint8_t pt[2 * VEC_UNIT], ct[VEC_UNIT], buf[2 * VEC_UNIT], one[VEC_UNIT];

	(void)state;
	vector_plain(pt);
	vector_plain(pt + VEC_UNIT);
	unhex(vectors[0].ct, ct, sizeof(ct));
	assert_int_equal(vectors[0].dun, 0xff);
	run(k, true, 0xfe, VEC_UNIT, pt, buf, sizeof(buf));
	assert_memory_equal(buf + VEC_UNIT, ct, VEC_UNIT);
	run(k, true, 0xfe, VEC_UNIT, pt, one, VEC_UNIT);
	assert_memory_equal(buf, one, VEC_UNIT);
	assert_memory_not_equal(buf, ct, VEC_UNIT);
	xts_key_free(k);
}

/* Unit i of one call is a one-unit call with tweak0 + i, both ways, for
 * both of the stage's unit sizes; the call in place gives the same. */
static void test_units_take_consecutive_tweaks(void **state)
{
	enum { UNITS = 8 };
	static uint8_t pt[UNITS * 4096], ct[UNITS * 4096], one[4096], buf[UNITS * 4096];
	const uint32_t units[] = { 512, 4096 };
	const uint64_t tweaks[] = { 0, 1ull << 32, 0x123456789abcdefull };
	struct xts_key *k = key_new(key);

	(void)state;
	fill_random(pt, sizeof(pt), 1619);
	for (size_t u = 0; u < 2; u++) {
		for (size_t t = 0; t < 3; t++) {
			const uint32_t unit = units[u], len = UNITS * unit;

			run(k, true, tweaks[t], unit, pt, ct, len);
			for (uint32_t i = 0; i < UNITS; i++) {
				run(k, true, tweaks[t] + i, unit, pt + i * unit, one, unit);
				assert_memory_equal(ct + i * unit, one, unit);
				run(k, false, tweaks[t] + i, unit, ct + i * unit, one, unit);
				assert_memory_equal(pt + i * unit, one, unit);
			}
			/* different tweaks, different ciphertexts */
			assert_memory_not_equal(ct, ct + unit, 16);
			memcpy(buf, pt, len);
			run(k, true, tweaks[t], unit, buf, buf, len);
			assert_memory_equal(buf, ct, len);
			run(k, false, tweaks[t], unit, buf, buf, len);
			assert_memory_equal(buf, pt, len);
		}
	}
	xts_key_free(k);
}

/* One unit through EVP keyed afresh, its 16-byte IV given whole. */
static void ref_unit(const uint8_t iv[16], const uint8_t *in, uint8_t *out, int len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n;

	assert_non_null(c);
	assert_int_equal(EVP_EncryptInit_ex(c, EVP_aes_256_xts(), NULL, key, iv), 1);
	assert_int_equal(EVP_EncryptUpdate(c, out, &n, in, len), 1);
	assert_int_equal(n, len);
	EVP_CIPHER_CTX_free(c);
}

/* tweak0 = 2^64 - 2: units 0 and 1 are below 2^64, unit 2 is 2^64
 * (byte 8 of the little-endian tweak set) and unit 3 2^64 + 1. */
static void test_tweak_carries_into_high_half(void **state)
{
	static const uint8_t iv[4][16] = {
		{ 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0x00, 0, 0, 0, 0, 0, 0, 0, 0x01 },
		{ 0x01, 0, 0, 0, 0, 0, 0, 0, 0x01 },
	};
	uint8_t pt[4 * VEC_UNIT], ct[4 * VEC_UNIT], want[VEC_UNIT], wrapped[VEC_UNIT];
	struct xts_key *k = key_new(key);

	(void)state;
	fill_random(pt, sizeof(pt), 64);
	run(k, true, UINT64_MAX - 1, VEC_UNIT, pt, ct, sizeof(ct));
	for (int i = 0; i < 4; i++) {
		ref_unit(iv[i], pt + i * VEC_UNIT, want, VEC_UNIT);
		assert_memory_equal(ct + i * VEC_UNIT, want, VEC_UNIT);
	}
	/* a tweak that wrapped to 0 would not be 2^64 */
	run(k, true, 0, VEC_UNIT, pt + 2 * VEC_UNIT, wrapped, VEC_UNIT);
	assert_memory_not_equal(ct + 2 * VEC_UNIT, wrapped, VEC_UNIT);
	run(k, false, UINT64_MAX - 1, VEC_UNIT, ct, ct, sizeof(ct));
	assert_memory_equal(ct, pt, sizeof(pt));
	xts_key_free(k);
}

static void test_equal_halves_refused(void **state)
{
	uint8_t k2[ROCE_STAGE_KEY_LEN];
	struct xts_key *k = NULL;

	(void)state;
	memcpy(k2, key, 32);
	memcpy(k2 + 32, key, 32);
	assert_int_equal(xts_key_new(k2, &k), ROCE_E_INVAL);
	assert_null(k);
	memset(k2, 0, sizeof(k2));
	assert_int_equal(xts_key_new(k2, &k), ROCE_E_INVAL);
	/* one bit apart is a key */
	k2[63] = 1;
	k = key_new(k2);
	xts_key_free(k);
	xts_key_free(NULL);
}

static void test_bad_unit_or_length_refused(void **state)
{
	static uint8_t in[4096], out[4096], before[4096];
	struct xts_key *k = key_new(key);

	(void)state;
	fill_random(in, sizeof(in), 7);
	memset(out, 0x5a, sizeof(out));
	memcpy(before, out, sizeof(out));
	assert_int_equal(xts_crypt(k, true, 0, 0, in, out, 512), ROCE_E_INVAL);
	assert_int_equal(xts_crypt(k, true, 0, 15, in, out, 15), ROCE_E_INVAL);
	/* refused before a byte is read: the buffers are shorter */
	assert_int_equal(xts_crypt(k, true, 0, (1u << 24) + 16, in, out, (1u << 24) + 16),
			 ROCE_E_INVAL);
	assert_int_equal(xts_crypt(k, true, 0, 512, in, out, 700), ROCE_E_INVAL);
	assert_int_equal(xts_crypt(k, false, 0, 512, in, out, 4095), ROCE_E_INVAL);
	assert_int_equal(xts_crypt(k, true, 0, 4096, in, out, 512), ROCE_E_INVAL);
	assert_memory_equal(out, before, sizeof(out));  /* nothing written */
	/* the edges that are units: one AES block, nothing at all */
	run(k, true, 0, 16, in, out, 64);
	run(k, true, 0, 512, in, out, 0);
	xts_key_free(k);
}

/* The key is made once; a call of any number of units, either way, in
 * place or not, calls no allocator (libcrypto's calls included). */
static void test_no_allocation_per_call(void **state)
{
#ifdef ALLOC_COUNT_SANITIZED
	(void)state;
	skip();
#else
	static uint8_t a[16 * 4096], b[16 * 4096];
	struct xts_key *k = key_new(key);

	(void)state;
	fill_random(a, sizeof(a), 3);
	alloc_counting = 1;
	for (uint64_t t = 0; t < 64; t++) {
		run(k, true, t << 40, 4096, a, b, sizeof(a));
		run(k, false, t << 40, 512, b, b, sizeof(b));
	}
	alloc_counting = 0;
	if (alloc_calls)
		fail_msg("%lu allocator calls in 128 calls of xts_crypt", alloc_calls);
	xts_key_free(k);
#endif
}

static int setup(void **state)
{
	(void)state;
	unhex(key_hex, key, sizeof(key));
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ieee1619_vectors),
		cmocka_unit_test(test_vector_inside_a_longer_call),
		cmocka_unit_test(test_units_take_consecutive_tweaks),
		cmocka_unit_test(test_tweak_carries_into_high_half),
		cmocka_unit_test(test_equal_halves_refused),
		cmocka_unit_test(test_bad_unit_or_length_refused),
		cmocka_unit_test(test_no_allocation_per_call),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
