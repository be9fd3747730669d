/* SPDX-License-Identifier: MIT */
/*
 * The inline stages through the engine (src/stage/chain.c behind
 * engine/mover.h): two engines on the in-memory link, B's MR (and in some
 * cases A's) bound to a stage chain. What the wire carries is what was
 * written (READs bring it back); what B's DDR holds is checked against a
 * computation of the test's own over the whole buffer (AES-256-XTS
 * through OpenSSL's EVP unit by unit, the CRC16 through ISA-L), never
 * against the chain itself. Failures: an atomic on a staged MR, a READ of
 * a unit whose DDR changed behind the engine's back (PI), a dedup pool
 * full, a key slot empty.
 */
#include <isa-l/crc.h>
#include <openssl/evp.h>

#include "pair.h"
#include "regs/device_stage.h"
#include "roce/stage.h"

static const uint8_t key[ROCE_STAGE_KEY_LEN] = {
	0x27, 0x18, 0x28, 0x18, 0x28, 0x45, 0x90, 0x45, 0x23, 0x53, 0x60, 0x28,
	0x74, 0x71, 0x35, 0x26, 0x62, 0x49, 0x77, 0x57, 0x24, 0x70, 0x93, 0x69,
	0x99, 0x59, 0x57, 0x49, 0x66, 0x96, 0x76, 0x27,
	0x31, 0x41, 0x59, 0x26, 0x53, 0x58, 0x97, 0x93, 0x23, 0x84, 0x62, 0x64,
	0x33, 0x83, 0x27, 0x95, 0x02, 0x88, 0x41, 0x97, 0x16, 0x93, 0x99, 0x37,
	0x51, 0x05, 0x82, 0x09, 0x74, 0x94, 0x45, 0x92,
};

/* ---- the test's own computation ------------------------------------------- */

static void ref_xts(bool enc, uint64_t tweak, uint32_t unit, const uint8_t *in,
		    uint8_t *out, size_t len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	assert_non_null(c);
	for (size_t i = 0; i < len / unit; i++) {
		uint8_t iv[16] = { 0 };
		uint64_t t = tweak + i;
		int n;

		for (int b = 0; b < 8; b++)
			iv[b] = (uint8_t)(t >> (8 * b));
		assert_int_equal(EVP_CipherInit_ex(c, EVP_aes_256_xts(), NULL, key, iv, enc), 1);
		assert_int_equal(EVP_CipherUpdate(c, out + i * unit, &n, in + i * unit,
						  (int)unit), 1);
		assert_int_equal(n, (int)unit);
	}
	EVP_CIPHER_CTX_free(c);
}

static void ref_pi(const uint8_t *data, uint32_t unit, uint16_t app, uint32_t ref,
		   uint8_t pi[8])
{
	uint16_t g = crc16_t10dif(0, data, unit);

	pi[0] = (uint8_t)(g >> 8);
	pi[1] = (uint8_t)g;
	pi[2] = (uint8_t)(app >> 8);
	pi[3] = (uint8_t)app;
	pi[4] = (uint8_t)(ref >> 24);
	pi[5] = (uint8_t)(ref >> 16);
	pi[6] = (uint8_t)(ref >> 8);
	pi[7] = (uint8_t)ref;
}

/* ---- the fixture -------------------------------------------------------------- */

static uint64_t ddr_of(struct pair_side *s, const void *p)
{
	size_t size;
	uint8_t *mem = roce_device_mem(roce_context_device(s->ctx), &size);

	return (uint64_t)((const uint8_t *)p - mem);
}

static void *ddr_alloc(struct pair_side *s, size_t len)
{
	void *p = roce_mem_alloc(s->ctx, len, 4096);

	assert_non_null(p);
	memset(p, 0, len);
	return p;
}

static void bind(struct pair *p, struct pair_side *s, const struct roce_stage_binding *b)
{
	assert_int_equal(roce_mr_set_stage(s->mr, b), ROCE_OK);
	for (int i = 0; i < 4; i++)
		pair_poll(p);           /* the engine takes the commit */
}

static void xfer(struct pair *p, enum roce_wr_opcode op, uint64_t loff, uint64_t roff,
		 uint32_t len, enum roce_wc_status want)
{
	struct roce_sge sge = { .addr = (uint64_t)(uintptr_t)(p->a.buf + loff), .length = len,
				.lkey = p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = roff, .sg_list = &sge, .num_sge = 1, .opcode = op };

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(p->b.buf + roff);
	wr.wr.rdma.rkey = p->b.mr->rkey;
	pair_post_wait(p, &p->a, &wr, want);
}

static struct pair *open_pair(enum roce_mtu mtu, bool lossy)
{
	struct pair_opts o = {
		.mtu = mtu,
		.buf_len = 256 * 1024,
		.virtual_time = true,
		.timeout = 8,
	};

	if (lossy)
		o.link = (struct roce_memlink_config){ .seed = 2718, .loss = 0.10,
						       .reorder = 0.05, .duplicate = 0.05 };
	return pair_open(&o);
}

static struct roce_stage_binding xts_binding(unsigned shift, uint64_t dun)
{
	struct roce_stage_binding b = { .chain = { ROCE_STAGE_XTS }, .key_slot = 3,
					.unit_shift = (uint8_t)shift, .dun_base = dun };
	return b;
}

/* B's whole MR as stored, decrypted by the test, equals model. */
static void check_xts_ddr(struct pair *p, const struct roce_stage_binding *b,
			  const uint8_t *model, size_t len)
{
	uint8_t *plain = malloc(len);

	assert_non_null(plain);
	ref_xts(false, b->dun_base, 1u << b->unit_shift, p->b.buf, plain, len);
	assert_memory_equal(plain, model, len);
	/* and it is not stored in the clear */
	assert_memory_not_equal(p->b.buf, model, 4096);
	free(plain);
}

/* ---- tests ---------------------------------------------------------------------- */

/* XTS at every MTU and both units: whole units, odd offsets and lengths
 * (a unit written in part keeps the rest of what it held), READ back. */
static void test_xts_mtus_units(void **state)
{
	static const enum roce_mtu mtus[] = { ROCE_MTU_256, ROCE_MTU_512, ROCE_MTU_1024,
						ROCE_MTU_2048, ROCE_MTU_4096 };
	const size_t len = 64 * 1024;

	(void)state;
	for (unsigned mi = 0; mi < 5; mi++) {
		for (unsigned shift = 9; shift <= 12; shift += 3) {
			struct pair *p = open_pair(mtus[mi], false);
			struct roce_stage_binding b = xts_binding(shift, 1ull << 40);
			uint8_t *model = calloc(1, len);

			assert_non_null(model);
			assert_int_equal(roce_stage_key_load(p->b.ctx, 3, key),
					 ROCE_OK);
			/* the MR's bytes at binding are taken as stored: start
			   from a known plaintext */
			ref_xts(true, b.dun_base, 1u << shift, model, p->b.buf, len);
			bind(p, &p->b, &b);
			pair_pattern(p->a.buf, len, 7 + mi);
			xfer(p, ROCE_WR_RDMA_WRITE, 0, 0, 32768, ROCE_WC_SUCCESS);
			memcpy(model, p->a.buf, 32768);
			xfer(p, ROCE_WR_RDMA_WRITE, 40000, 33000, 5001, ROCE_WC_SUCCESS);
			memcpy(model + 33000, p->a.buf + 40000, 5001);
			xfer(p, ROCE_WR_RDMA_WRITE, 100, 60001, 7, ROCE_WC_SUCCESS);
			memcpy(model + 60001, p->a.buf + 100, 7);
			check_xts_ddr(p, &b, model, len);
			memset(p->a.buf, 0, len);
			xfer(p, ROCE_WR_RDMA_READ, 0, 0, (uint32_t)len, ROCE_WC_SUCCESS);
			assert_memory_equal(p->a.buf, model, len);
			xfer(p, ROCE_WR_RDMA_READ, 70000, 33001, 4999, ROCE_WC_SUCCESS);
			assert_memory_equal(p->a.buf + 70000, model + 33001, 4999);
			assert_true(pair_cnt(&p->b, ROCE_CNT_STAGE_XTS_ENCRYPTED) > 0);
			assert_true(pair_cnt(&p->b, ROCE_CNT_STAGE_XTS_DECRYPTED) > 0);
			free(model);
			pair_close(p);
		}
	}
}

/* PI after XTS: the tuples cover what is stored; a byte changed in DDR
 * behind the engine's back fails the READ (remote operational error) and
 * the bad data never reaches A. */
static void pi_corruption(uint8_t first, uint8_t second, uint32_t shift)
{
	struct pair *p = open_pair(ROCE_MTU_1024, false);
	const size_t len = 64 * 1024;
	uint8_t *pi = ddr_alloc(&p->b, len / 512 * 8);
	const size_t bad = 70 * 512 + 3;
	const uint32_t unit = 1u << shift;
	struct roce_stage_binding b = { .chain = { first, second },
					.key_slot = 3, .unit_shift = (uint8_t)shift, .app_tag = 0xBEEF,
					.dun_base = 5, .pi_pa = ddr_of(&p->b, pi) };
	uint8_t want[8];

	assert_int_equal(roce_stage_key_load(p->b.ctx, 3, key), ROCE_OK);
	bind(p, &p->b, &b);
	pair_pattern(p->a.buf, len, 99);
	xfer(p, ROCE_WR_RDMA_WRITE, 0, 0, (uint32_t)len, ROCE_WC_SUCCESS);
	/* PI first: over the plaintext (A's bytes); else over what is stored */
	for (size_t u = 0; u < len / unit; u++) {
		ref_pi((first == ROCE_STAGE_PI && second == ROCE_STAGE_XTS ? p->a.buf : p->b.buf) +
			       u * unit, unit, 0xBEEF, (uint32_t)(5 + u), want);
		assert_memory_equal(pi + u * 8, want, 8);
	}
	memset(p->a.buf, 0, len);
	xfer(p, ROCE_WR_RDMA_READ, 0, 0, (uint32_t)len, ROCE_WC_SUCCESS);
	{
		uint8_t *model = malloc(len);

		pair_pattern(model, len, 99);
		assert_memory_equal(p->a.buf, model, len);
		free(model);
	}
	/* one byte changes in DDR */
	p->b.buf[bad] ^= 0x40;
	memset(p->a.buf, 0xAA, len);
	xfer(p, ROCE_WR_RDMA_READ, 0, 0, (uint32_t)len, ROCE_WC_REM_OP_ERR);
	assert_true(pair_cnt(&p->b, ROCE_CNT_STAGE_PI_ERRORS) >= 1);
	assert_true(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_REMOTE_OP) >= 1);
	/* nothing of the unit that failed went out */
	for (size_t i = bad / unit * unit; i < (bad / unit + 1) * unit; i++)
		assert_int_equal(p->a.buf[i], 0xAA);
	pair_close(p);
}

/* PI over what is stored (after XTS) and over bytes stored as sent (no
 * XTS: checked where they are), 512- and 4096-byte units */
static void test_pi_detects_corruption(void **state)
{
	(void)state;
	pi_corruption(ROCE_STAGE_XTS, ROCE_STAGE_PI, 9);
	pi_corruption(ROCE_STAGE_PI, ROCE_STAGE_NONE, 9);
	pi_corruption(ROCE_STAGE_PI, ROCE_STAGE_NONE, 12);
	pi_corruption(ROCE_STAGE_PI, ROCE_STAGE_XTS, 12);
}

/* An atomic on a staged MR is an invalid request. */
static void test_atomic_refused(void **state)
{
	struct pair *p = open_pair(ROCE_MTU_1024, false);
	struct roce_stage_binding b = xts_binding(12, 0);
	struct roce_sge sge = { .addr = (uint64_t)(uintptr_t)p->a.buf, .length = 8,
				.lkey = p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD };

	(void)state;
	assert_int_equal(roce_stage_key_load(p->b.ctx, 3, key), ROCE_OK);
	bind(p, &p->b, &b);
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.atomic.rkey = p->b.mr->rkey;
	wr.wr.atomic.compare_add = 1;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_REM_INV_REQ_ERR);
	pair_close(p);
}

/* No key in the slot: the WRITE fails with a remote operational error
 * and nothing of it is stored. */
static void test_no_key(void **state)
{
	struct pair *p = open_pair(ROCE_MTU_1024, false);
	struct roce_stage_binding b = xts_binding(12, 0);

	(void)state;
	bind(p, &p->b, &b);
	memset(p->b.buf, 0x5A, 8192);
	pair_pattern(p->a.buf, 8192, 3);
	xfer(p, ROCE_WR_RDMA_WRITE, 0, 0, 8192, ROCE_WC_REM_OP_ERR);
	for (size_t i = 0; i < 8192; i++)
		assert_int_equal(p->b.buf[i], 0x5A);
	pair_close(p);
}

/* Dedup, then XTS, then PI: duplicate blocks are stored once, READs go
 * through the map, a pool too small fails cleanly. */
static void test_dedup_xts_pi(void **state)
{
	struct pair *p = open_pair(ROCE_MTU_1024, false);
	const size_t len = 64 * 1024;          /* 16 logical blocks */
	uint8_t *pool = ddr_alloc(&p->b, 6 * 4096), *pi = ddr_alloc(&p->b, 6 * 8);
	struct roce_stage_binding b = {
		.chain = { ROCE_STAGE_DEDUP, ROCE_STAGE_XTS, ROCE_STAGE_PI }, .key_slot = 3,
		.unit_shift = 12, .pi_pa = ddr_of(&p->b, pi), .pool_pa = ddr_of(&p->b, pool),
		.pool_blocks = 6,
	};
	struct dedup_stats st;
	uint8_t *model = calloc(1, len);

	(void)state;
	assert_non_null(model);
	assert_int_equal(roce_stage_key_load(p->b.ctx, 3, key), ROCE_OK);
	bind(p, &p->b, &b);
	/* 8 blocks: patterns 1 2 1 2 1 3 3 4 -> 4 physical blocks */
	{
		static const uint32_t pat[8] = { 1, 2, 1, 2, 1, 3, 3, 4 };

		for (int i = 0; i < 8; i++)
			pair_pattern(p->a.buf + i * 4096, 4096, pat[i]);
	}
	xfer(p, ROCE_WR_RDMA_WRITE, 0, 0, 8 * 4096, ROCE_WC_SUCCESS);
	memcpy(model, p->a.buf, 8 * 4096);
	dedup_stats(stage_mr_dedup(roce_device_stage(roce_context_device(p->b.ctx)),
				   p->b.mr->index), &st);
	assert_int_equal(st.in_use, 4);
	assert_int_equal(st.mapped, 8);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_STAGE_DEDUP_SAVED), 4 * 4096);
	/* a partial write into a shared block copies it first */
	pair_pattern(p->a.buf + 100000, 100, 77);
	xfer(p, ROCE_WR_RDMA_WRITE, 100000, 2 * 4096 + 10, 100, ROCE_WC_SUCCESS);
	memcpy(model + 2 * 4096 + 10, p->a.buf + 100000, 100);
	memset(p->a.buf, 0, len);
	xfer(p, ROCE_WR_RDMA_READ, 0, 0, (uint32_t)len, ROCE_WC_SUCCESS);
	assert_memory_equal(p->a.buf, model, len);      /* unwritten blocks: zeros */
	/* two new distinct blocks need 2 of the 1 block left: refused, and
	 * what is stored stays */
	dedup_stats(stage_mr_dedup(roce_device_stage(roce_context_device(p->b.ctx)),
				   p->b.mr->index), &st);
	assert_int_equal(st.in_use, 5);
	pair_pattern(p->a.buf + 8 * 4096, 2 * 4096, 1000);
	xfer(p, ROCE_WR_RDMA_WRITE, 8 * 4096, 8 * 4096, 2 * 4096, ROCE_WC_REM_OP_ERR);
	{
		struct dedup_stats now;

		dedup_stats(stage_mr_dedup(roce_device_stage(roce_context_device(p->b.ctx)),
					   p->b.mr->index), &now);
		struct dedup *dd = stage_mr_dedup(roce_device_stage(roce_context_device(p->b.ctx)),
						  p->b.mr->index);

		/* block 8 (its packets came first) took the last free block;
		 * block 9 found none: the WRITE failed there, nothing of it
		 * stored, nothing stored before lost */
		assert_int_equal(now.in_use, 6);
		assert_int_equal(now.mapped, 9);
		for (uint32_t l = 0; l < 9; l++)
			assert_int_not_equal(dedup_map(dd, l), DEDUP_NONE);
		assert_int_equal(dedup_map(dd, 9), DEDUP_NONE);
	}
	assert_true(pair_cnt(&p->b, ROCE_CNT_STAGE_ERRORS) >= 1);
	pair_close(p);
	free(model);
}

/* Random WRITEs and READs under loss, reordering and duplication, for
 * each chain; then a READ of the whole MR, and DDR checked by the test:
 * decrypted (XTS), its PI recomputed (PI), rebuilt through the map
 * (DEDUP). */
enum { LOSSY_XTS, LOSSY_PI, LOSSY_DEDUP, LOSSY_ALL, LOSSY_KINDS };

static void lossy_check_ddr(struct pair *p, int kind, const struct roce_stage_binding *b,
			    const uint8_t *pi, const uint8_t *pool, const uint8_t *model,
			    size_t len)
{
	struct dedup *dd = stage_mr_dedup(roce_device_stage(roce_context_device(p->b.ctx)),
					  p->b.mr->index);
	uint8_t *plain = malloc(4096), want[8];

	assert_non_null(plain);
	for (size_t u = 0; u < len / 4096; u++) {
		const uint8_t *stored = p->b.buf + u * 4096;
		uint64_t number = u;

		if (kind == LOSSY_DEDUP || kind == LOSSY_ALL) {
			uint32_t phys = dedup_map(dd, (uint32_t)u);

			if (phys == DEDUP_NONE) {
				/* never written whole or in part: zeros */
				for (size_t i = 0; i < 4096; i++)
					assert_int_equal(model[u * 4096 + i], 0);
				continue;
			}
			stored = pool + (size_t)phys * 4096;
			number = phys;
		}
		if (kind == LOSSY_PI || kind == LOSSY_ALL) {
			ref_pi(stored, 4096, b->app_tag, (uint32_t)(b->dun_base + number), want);
			assert_memory_equal(pi + number * 8, want, 8);
		}
		if (kind == LOSSY_XTS || kind == LOSSY_ALL)
			ref_xts(false, b->dun_base + number, 4096, stored, plain, 4096);
		else
			memcpy(plain, stored, 4096);
		assert_memory_equal(plain, model + u * 4096, 4096);
	}
	free(plain);
}

static void test_lossy_random(void **state)
{
	(void)state;
	for (int kind = 0; kind < LOSSY_KINDS; kind++) {
		struct pair *p = open_pair(ROCE_MTU_1024, true);
		const size_t len = 128 * 1024;
		uint8_t *pool = ddr_alloc(&p->b, len), *pi = ddr_alloc(&p->b, len / 4096 * 8);
		uint8_t *model = calloc(1, len);
		static const uint8_t chains[LOSSY_KINDS][3] = {
			{ ROCE_STAGE_XTS }, { ROCE_STAGE_PI }, { ROCE_STAGE_DEDUP },
			{ ROCE_STAGE_DEDUP, ROCE_STAGE_XTS, ROCE_STAGE_PI },
		};
		struct roce_stage_binding b = { .key_slot = 3, .unit_shift = 12, .dun_base = 77,
						.app_tag = 0x1234, .pi_pa = ddr_of(&p->b, pi),
						.pool_pa = ddr_of(&p->b, pool),
						.pool_blocks = (uint32_t)(len / 4096) };
		uint32_t x = 12345 + (uint32_t)kind;

		assert_non_null(model);
		memcpy(b.chain, chains[kind], 3);
		assert_int_equal(roce_stage_key_load(p->b.ctx, 3, key), ROCE_OK);
		if (kind == LOSSY_XTS)
			ref_xts(true, b.dun_base, 4096, model, p->b.buf, len);
		else
			memset(p->b.buf, 0, len);
		bind(p, &p->b, &b);
		for (int i = 0; i < 40; i++) {
			uint32_t off, n;

			x = x * 1103515245u + 12345u;
			off = (x >> 8) % (uint32_t)(len - 1);
			x = x * 1103515245u + 12345u;
			n = 1 + (x >> 8) % 20000;
			if (off + n > len)
				n = (uint32_t)(len - off);
			if (i % 3 == 2) {
				memset(p->a.buf + off, 0, n);
				xfer(p, ROCE_WR_RDMA_READ, off, off, n, ROCE_WC_SUCCESS);
				assert_memory_equal(p->a.buf + off, model + off, n);
			} else {
				/* blocks repeat: 4 KiB-aligned copies of one pattern */
				pair_pattern(p->a.buf + off, n, (uint32_t)(i % 4));
				xfer(p, ROCE_WR_RDMA_WRITE, off, off, n, ROCE_WC_SUCCESS);
				memcpy(model + off, p->a.buf + off, n);
			}
		}
		memset(p->a.buf, 0, len);
		xfer(p, ROCE_WR_RDMA_READ, 0, 0, (uint32_t)len, ROCE_WC_SUCCESS);
		assert_memory_equal(p->a.buf, model, len);
		lossy_check_ddr(p, kind, &b, pi, pool, model, len);
		assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) > 0);
		free(model);
		pair_close(p);
	}
}

/* Our requester's side: A's MR staged; A READs B's plain memory into it
 * (A's DDR then holds ciphertext) and WRITEs from it (B gets plaintext). */
static void test_requester_side(void **state)
{
	struct pair *p = open_pair(ROCE_MTU_1024, false);
	const size_t len = 32 * 1024;
	struct roce_stage_binding b = xts_binding(9, 0);
	uint8_t *want = malloc(len), *plain = malloc(len);

	(void)state;
	assert_non_null(want);
	assert_non_null(plain);
	assert_int_equal(roce_stage_key_load(p->a.ctx, 3, key), ROCE_OK);
	bind(p, &p->a, &b);
	pair_pattern(p->b.buf, len, 4242);
	memcpy(want, p->b.buf, len);
	xfer(p, ROCE_WR_RDMA_READ, 0, 0, (uint32_t)len, ROCE_WC_SUCCESS);
	ref_xts(false, 0, 512, p->a.buf, plain, len);
	assert_memory_equal(plain, want, len);
	memset(p->b.buf, 0, len);
	xfer(p, ROCE_WR_RDMA_WRITE, 0, 0, (uint32_t)len, ROCE_WC_SUCCESS);
	assert_memory_equal(p->b.buf, want, len);
	free(want);
	free(plain);
	pair_close(p);
}

/* A SEND into a receive WQE of two SGEs of the staged MR: the first
 * ends inside a unit, so the unit kept for it is completed from DDR
 * when the message moves on to the second (the stream's flush). */
static void test_send_sges(void **state)
{
	struct pair *p = open_pair(ROCE_MTU_1024, false);
	const size_t len = 64 * 1024;
	struct roce_stage_binding b = xts_binding(12, 0);
	struct roce_sge rs[2] = {
		{ .addr = (uint64_t)(uintptr_t)(p->b.buf + 100), .length = 1000,
		  .lkey = p->b.mr->lkey },
		{ .addr = (uint64_t)(uintptr_t)(p->b.buf + 10000), .length = 3000,
		  .lkey = p->b.mr->lkey },
	};
	struct roce_recv_wr rwr = { .wr_id = 9, .sg_list = rs, .num_sge = 2 }, *rbad;
	struct roce_sge ss = { .addr = (uint64_t)(uintptr_t)p->a.buf, .length = 4000,
			       .lkey = p->a.mr->lkey };
	struct roce_send_wr swr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1,
				    .opcode = ROCE_WR_SEND };
	struct roce_wc wc;
	uint8_t *model = malloc(len);

	(void)state;
	assert_non_null(model);
	assert_int_equal(roce_stage_key_load(p->b.ctx, 3, key), ROCE_OK);
	pair_pattern(model, len, 31);
	ref_xts(true, 0, 4096, model, p->b.buf, len);
	bind(p, &p->b, &b);
	assert_int_equal(roce_post_recv(p->b.qp, &rwr, &rbad), ROCE_OK);
	pair_pattern(p->a.buf, 4000, 32);
	pair_post_wait(p, &p->a, &swr, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 4000);
	memcpy(model + 100, p->a.buf, 1000);
	memcpy(model + 10000, p->a.buf + 1000, 3000);
	check_xts_ddr(p, &b, model, len);
	free(model);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xts_mtus_units),
		cmocka_unit_test(test_pi_detects_corruption),
		cmocka_unit_test(test_atomic_refused),
		cmocka_unit_test(test_no_key),
		cmocka_unit_test(test_dedup_xts_pi),
		cmocka_unit_test(test_lossy_random),
		cmocka_unit_test(test_requester_side),
		cmocka_unit_test(test_send_sges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
