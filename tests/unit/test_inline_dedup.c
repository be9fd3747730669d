/* SPDX-License-Identifier: MIT */
/*
 * One dedup volume's bookkeeping (src/stage/dedup.c) on its own: a fake
 * DDR (an array of 4 KiB blocks) that the test writes as chain.c would
 * (plan, write the bytes unless a hit, commit), and a confirmation that
 * compares its bytes. Known answers: identical blocks stored once with
 * their reference counts, a repeated write changes nothing, an overwrite
 * releases (a freed block's fingerprint is gone), a shared block left by
 * one of its holders, a rewrite in place needing no free block, a full
 * pool refused with nothing changed, a block the confirmation rejects
 * never shared, a cancel giving back its block, the plans of one packet
 * outstanding together without undoing each other. Then random packets
 * against a model of the volume: every logical block reads back through
 * the map, every reference count is the number of logical blocks on it,
 * and no block leaks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "roce/status.h"
#include "stage/stage.h"

#define BLK ROCE_STAGE_BLOCK

/* The volume, its DDR pool, and what the confirmation is told to deny. */
struct vol {
	struct dedup *dd;
	uint32_t logical, pool;
	uint8_t (*ddr)[BLK];
	uint32_t deny;          /* same() says no for this block */
	bool deny_all;
	unsigned same_calls;
};

static bool same(void *arg, uint32_t phys, const uint8_t *plain)
{
	struct vol *v = arg;

	v->same_calls++;
	assert_true(phys < v->pool);
	if (v->deny_all || phys == v->deny)
		return false;
	return memcmp(v->ddr[phys], plain, BLK) == 0;
}

static struct vol *vol_new(uint32_t logical, uint32_t pool)
{
	struct vol *v = calloc(1, sizeof(*v));

	assert_non_null(v);
	v->logical = logical;
	v->pool = pool;
	v->deny = DEDUP_NONE;
	v->ddr = calloc(pool, BLK);
	assert_non_null(v->ddr);
	assert_int_equal(dedup_create(logical, pool, &v->dd), ROCE_OK);
	return v;
}

static void vol_free(struct vol *v)
{
	dedup_destroy(v->dd);
	free(v->ddr);
	free(v);
}

/* Block content number k (0: zeros). */
static void pattern(uint8_t *b, unsigned k)
{
	uint32_t x = k * 2654435761u + 1;

	for (unsigned i = 0; i < BLK; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = k ? (uint8_t)(x >> 16) : 0;
	}
}

static int plan(struct vol *v, uint32_t logical, const uint8_t *data, struct dedup_plan *p)
{
	return dedup_plan(v->dd, logical, data, same, v, p);
}

/* What chain.c does between a plan and its commit. */
static void place(struct vol *v, const struct dedup_plan *p, const uint8_t *data)
{
	if (!p->hit)
		memcpy(v->ddr[p->phys], data, BLK);
	dedup_commit(v->dd, p);
}

/* One block written, as a packet of one block. */
static int write_k(struct vol *v, uint32_t logical, unsigned k, struct dedup_plan *out)
{
	uint8_t b[BLK];
	struct dedup_plan p;
	int rc;

	pattern(b, k);
	rc = plan(v, logical, b, &p);
	if (rc == ROCE_OK)
		place(v, &p, b);
	if (out)
		*out = p;
	return rc;
}

/* Logical block l reads back as content k. */
static void assert_reads(struct vol *v, uint32_t logical, unsigned k)
{
	uint8_t want[BLK];
	uint32_t phys = dedup_map(v->dd, logical);

	pattern(want, k);
	if (phys == DEDUP_NONE) {
		assert_int_equal(k, 0);
		return;
	}
	assert_true(phys < v->pool);
	assert_memory_equal(v->ddr[phys], want, BLK);
}

static struct dedup_stats stats(const struct vol *v)
{
	struct dedup_stats s;

	dedup_stats(v->dd, &s);
	return s;
}

/* ---- known answers ----------------------------------------------------------- */

/* Three logical blocks of equal data: one physical block, three
 * references; the digest is SHA-256 of the data. */
static void test_hits_and_refs(void **state)
{
	struct vol *v = vol_new(8, 4);
	struct dedup_plan p[3];
	uint8_t b[BLK], md[32];
	unsigned mdlen;
	struct dedup_stats s;

	(void)state;
	for (uint32_t l = 0; l < 3; l++)
		assert_int_equal(write_k(v, l * 2, 7, &p[l]), ROCE_OK);
	assert_false(p[0].hit);
	assert_true(p[0].fresh);
	assert_true(p[1].hit && p[2].hit);
	assert_false(p[1].fresh || p[2].fresh);
	assert_int_equal(p[1].phys, p[0].phys);
	assert_int_equal(p[2].phys, p[0].phys);
	for (uint32_t l = 0; l < 3; l++)
		assert_int_equal(dedup_map(v->dd, l * 2), p[0].phys);
	assert_int_equal(dedup_map(v->dd, 1), DEDUP_NONE);
	assert_int_equal(dedup_map(v->dd, 8), DEDUP_NONE);     /* out of the volume */
	assert_int_equal(dedup_refs(v->dd, p[0].phys), 3);
	s = stats(v);
	assert_int_equal(s.lookups, 3);
	assert_int_equal(s.hits, 2);
	assert_int_equal(s.mapped, 3);
	assert_int_equal(s.in_use, 1);
	assert_int_equal(s.pool_blocks, 4);

	pattern(b, 7);
	assert_int_equal(EVP_Digest(b, BLK, md, &mdlen, EVP_sha256(), NULL), 1);
	assert_memory_equal(p[0].digest, md, 32);
	assert_memory_equal(p[2].digest, md, 32);
	vol_free(v);
}

/* The same data to the same logical block (a retransmission): a hit on
 * the block it holds, nothing else changes; also when the block is
 * shared, and when the index offers another block of the same bytes. */
static void test_idempotent_repeat(void **state)
{
	struct vol *v = vol_new(8, 4);
	struct dedup_plan p;
	struct dedup_stats a, b;
	uint32_t phys;

	(void)state;
	assert_int_equal(write_k(v, 0, 5, NULL), ROCE_OK);
	assert_int_equal(write_k(v, 1, 5, NULL), ROCE_OK);
	phys = dedup_map(v->dd, 0);
	a = stats(v);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(write_k(v, 0, 5, &p), ROCE_OK);
		assert_true(p.hit);
		assert_false(p.fresh);
		assert_int_equal(p.phys, phys);
	}
	b = stats(v);
	assert_int_equal(b.lookups, a.lookups + 3);
	assert_int_equal(b.hits, a.hits + 3);
	assert_int_equal(b.mapped, a.mapped);
	assert_int_equal(b.in_use, a.in_use);
	assert_int_equal(dedup_map(v->dd, 0), phys);
	assert_int_equal(dedup_refs(v->dd, phys), 2);

	/* Block 0 denied once: logical 2 gets its own copy of content 5,
	 * which the index then offers; logical 0 repeating stays put. */
	v->deny = phys;
	assert_int_equal(write_k(v, 2, 5, &p), ROCE_OK);
	assert_true(p.fresh);
	assert_int_not_equal(p.phys, phys);
	v->deny = DEDUP_NONE;
	assert_int_equal(write_k(v, 0, 5, &p), ROCE_OK);
	assert_true(p.hit);
	assert_int_equal(p.phys, phys);
	assert_int_equal(dedup_refs(v->dd, phys), 2);
	vol_free(v);
}

/* An overwrite releases: a block no longer held is freed and its
 * fingerprint leaves the index (its old data, written again, is stored
 * again); a block held alone is rewritten in place. */
static void test_overwrite_releases(void **state)
{
	struct vol *v = vol_new(8, 4);
	struct dedup_plan p;
	uint32_t pa, pb;

	(void)state;
	assert_int_equal(write_k(v, 0, 1, NULL), ROCE_OK);
	assert_int_equal(write_k(v, 1, 2, NULL), ROCE_OK);
	pa = dedup_map(v->dd, 0);
	pb = dedup_map(v->dd, 1);
	assert_int_not_equal(pa, pb);

	/* Logical 0 takes content 2: it shares pb, pa is freed. */
	assert_int_equal(write_k(v, 0, 2, &p), ROCE_OK);
	assert_true(p.hit);
	assert_int_equal(p.phys, pb);
	assert_int_equal(dedup_refs(v->dd, pb), 2);
	assert_int_equal(dedup_refs(v->dd, pa), 0);
	assert_int_equal(stats(v).in_use, 1);
	assert_int_equal(stats(v).mapped, 2);

	/* Content 1 again: no hit, a block of its own (pa, back in the pool). */
	assert_int_equal(write_k(v, 2, 1, &p), ROCE_OK);
	assert_false(p.hit);
	assert_true(p.fresh);
	assert_int_equal(p.phys, pa);
	assert_int_equal(stats(v).hits, 1);

	/* Logical 2 alone on pa takes content 3: rewritten in place, and
	 * content 1's fingerprint is gone with it. */
	assert_int_equal(write_k(v, 2, 3, &p), ROCE_OK);
	assert_false(p.hit);
	assert_false(p.fresh);
	assert_int_equal(p.phys, pa);
	assert_int_equal(write_k(v, 3, 1, &p), ROCE_OK);
	assert_false(p.hit);
	assert_true(p.fresh);
	assert_reads(v, 2, 3);
	assert_reads(v, 3, 1);
	/* Content 3's fingerprint replaced it: a hit on pa. */
	assert_int_equal(write_k(v, 4, 3, &p), ROCE_OK);
	assert_true(p.hit);
	assert_int_equal(p.phys, pa);
	assert_int_equal(stats(v).in_use, 3);
	vol_free(v);
}

/* The dedup side of a copy on partial write: logical A and B share P; A
 * takes new data (chain.c merged it into a whole block) and moves to a
 * block of its own, B stays on P with one reference and P's bytes. */
static void test_shared_block_left(void **state)
{
	struct vol *v = vol_new(4, 4);
	struct dedup_plan p;
	uint32_t shared;

	(void)state;
	assert_int_equal(write_k(v, 0, 9, NULL), ROCE_OK);
	assert_int_equal(write_k(v, 1, 9, NULL), ROCE_OK);
	shared = dedup_map(v->dd, 0);
	assert_int_equal(dedup_refs(v->dd, shared), 2);

	assert_int_equal(write_k(v, 0, 10, &p), ROCE_OK);
	assert_true(p.fresh);
	assert_int_not_equal(p.phys, shared);
	assert_int_equal(dedup_map(v->dd, 0), p.phys);
	assert_int_equal(dedup_map(v->dd, 1), shared);
	assert_int_equal(dedup_refs(v->dd, shared), 1);
	assert_int_equal(dedup_refs(v->dd, p.phys), 1);
	assert_reads(v, 0, 10);
	assert_reads(v, 1, 9);
	assert_int_equal(stats(v).in_use, 2);
	vol_free(v);
}

/* A block held by one logical block alone is rewritten in place: no
 * free block needed, so it works with the pool full. */
static void test_rewrite_in_place_full_pool(void **state)
{
	struct vol *v = vol_new(4, 2);
	struct dedup_plan p;
	uint32_t phys;

	(void)state;
	assert_int_equal(write_k(v, 0, 1, NULL), ROCE_OK);
	assert_int_equal(write_k(v, 1, 2, NULL), ROCE_OK);
	phys = dedup_map(v->dd, 0);
	assert_int_equal(write_k(v, 0, 3, &p), ROCE_OK);
	assert_false(p.hit);
	assert_false(p.fresh);
	assert_int_equal(p.phys, phys);
	assert_int_equal(dedup_map(v->dd, 0), phys);
	assert_int_equal(dedup_refs(v->dd, phys), 1);
	assert_reads(v, 0, 3);
	assert_reads(v, 1, 2);
	assert_int_equal(stats(v).in_use, 2);
	vol_free(v);
}

/* Pool full: ROCE_E_STAGE_FULL, nothing changed (map, references,
 * stats); a shared block's holder cannot leave it either; after a
 * release the same write works. */
static void test_pool_full(void **state)
{
	struct vol *v = vol_new(4, 2);
	struct dedup_plan p;
	struct dedup_stats a, b;
	uint32_t p0, p1;

	(void)state;
	assert_int_equal(write_k(v, 0, 1, NULL), ROCE_OK);
	assert_int_equal(write_k(v, 1, 2, NULL), ROCE_OK);
	assert_int_equal(write_k(v, 2, 2, NULL), ROCE_OK);
	p0 = dedup_map(v->dd, 0);
	p1 = dedup_map(v->dd, 1);
	a = stats(v);

	assert_int_equal(write_k(v, 3, 3, NULL), ROCE_E_STAGE_FULL);
	assert_int_equal(write_k(v, 1, 4, NULL), ROCE_E_STAGE_FULL);   /* shared: no in place */
	b = stats(v);
	assert_int_equal(b.lookups, a.lookups);
	assert_int_equal(b.hits, a.hits);
	assert_int_equal(b.mapped, a.mapped);
	assert_int_equal(b.in_use, a.in_use);
	assert_int_equal(dedup_map(v->dd, 3), DEDUP_NONE);
	assert_int_equal(dedup_map(v->dd, 1), p1);
	assert_int_equal(dedup_refs(v->dd, p0), 1);
	assert_int_equal(dedup_refs(v->dd, p1), 2);
	assert_reads(v, 0, 1);
	assert_reads(v, 1, 2);
	assert_reads(v, 2, 2);

	/* Logical 0 joins p1: p0 is released, and the refused write fits. */
	assert_int_equal(write_k(v, 0, 2, NULL), ROCE_OK);
	assert_int_equal(write_k(v, 3, 3, &p), ROCE_OK);
	assert_int_equal(p.phys, p0);
	assert_reads(v, 3, 3);
	assert_int_equal(dedup_refs(v->dd, p1), 3);
	assert_int_equal(stats(v).in_use, 2);
	vol_free(v);
}

/* A candidate the confirmation rejects (a hash collision, a corrupt
 * block) is never shared: the data gets a block of its own, which the
 * index offers from then on. Never trusting the hash: with every
 * confirmation denied nothing is shared at all. */
static void test_rejected_candidate(void **state)
{
	struct vol *v = vol_new(8, 8);
	struct dedup_plan p;
	uint32_t p0;

	(void)state;
	assert_int_equal(write_k(v, 0, 4, NULL), ROCE_OK);
	p0 = dedup_map(v->dd, 0);
	v->ddr[p0][100] ^= 1;          /* changed behind the volume's back */
	v->same_calls = 0;
	assert_int_equal(write_k(v, 1, 4, &p), ROCE_OK);
	assert_int_equal(v->same_calls, 1);
	assert_false(p.hit);
	assert_true(p.fresh);
	assert_int_not_equal(p.phys, p0);
	assert_reads(v, 1, 4);
	assert_int_equal(dedup_refs(v->dd, p0), 1);
	assert_int_equal(write_k(v, 2, 4, &p), ROCE_OK);
	assert_true(p.hit);
	assert_int_equal(p.phys, dedup_map(v->dd, 1));
	assert_int_equal(dedup_refs(v->dd, p.phys), 2);
	/* Logical 0 repeats its write: its own block no longer holds the
	 * data, the good copy does; logical 0 moves there, its block is
	 * freed. */
	assert_int_equal(write_k(v, 0, 4, &p), ROCE_OK);
	assert_true(p.hit);
	assert_int_equal(p.phys, dedup_map(v->dd, 1));
	assert_int_equal(dedup_refs(v->dd, p.phys), 3);
	assert_int_equal(stats(v).in_use, 1);

	v->deny_all = true;
	for (uint32_t l = 3; l < 6; l++) {
		assert_int_equal(write_k(v, l, 6, &p), ROCE_OK);
		assert_false(p.hit);
		assert_int_equal(dedup_refs(v->dd, p.phys), 1);
	}
	assert_int_equal(stats(v).in_use, 4);
	vol_free(v);
}

/* A cancel gives back what the plan reserved: a fresh block returns to
 * the pool, a shared block keeps its count, a block planned for a
 * rewrite in place keeps its fingerprint. */
static void test_cancel(void **state)
{
	struct vol *v = vol_new(4, 1);
	uint8_t b[BLK];
	struct dedup_plan p;

	(void)state;
	pattern(b, 1);
	assert_int_equal(plan(v, 0, b, &p), ROCE_OK);
	assert_true(p.fresh);
	dedup_cancel(v->dd, &p);
	assert_int_equal(dedup_map(v->dd, 0), DEDUP_NONE);
	assert_int_equal(stats(v).in_use, 0);
	assert_int_equal(stats(v).mapped, 0);
	/* The one block is free again. */
	assert_int_equal(write_k(v, 1, 2, &p), ROCE_OK);
	assert_true(p.fresh);

	/* A hit cancelled: references unchanged. */
	pattern(b, 2);
	assert_int_equal(plan(v, 2, b, &p), ROCE_OK);
	assert_true(p.hit);
	dedup_cancel(v->dd, &p);
	assert_int_equal(dedup_map(v->dd, 2), DEDUP_NONE);
	assert_int_equal(dedup_refs(v->dd, p.phys), 1);

	/* A rewrite in place cancelled: content 2 still found there. */
	pattern(b, 3);
	assert_int_equal(plan(v, 1, b, &p), ROCE_OK);
	assert_false(p.hit || p.fresh);
	dedup_cancel(v->dd, &p);
	assert_int_equal(write_k(v, 3, 2, &p), ROCE_OK);
	assert_true(p.hit);
	assert_int_equal(dedup_refs(v->dd, p.phys), 2);
	assert_int_equal(stats(v).in_use, 1);
	vol_free(v);
}

/* The plans of one packet, all made before any is written and
 * committed: two fresh plans never get the same block, a reserved block
 * is not handed out again, and one plan never undoes another (a block
 * rewritten in place is not shared meanwhile, a block about to be shared
 * is neither rewritten in place nor freed). */
static void test_packet_plans(void **state)
{
	struct vol *v = vol_new(8, 3);
	uint8_t b[4][BLK];
	struct dedup_plan p[3];

	(void)state;
	for (unsigned k = 0; k < 4; k++)
		pattern(b[k], k + 1);

	assert_int_equal(plan(v, 0, b[0], &p[0]), ROCE_OK);
	assert_int_equal(plan(v, 1, b[1], &p[1]), ROCE_OK);
	assert_int_equal(plan(v, 2, b[2], &p[2]), ROCE_OK);
	assert_true(p[0].fresh && p[1].fresh && p[2].fresh);
	assert_int_not_equal(p[0].phys, p[1].phys);
	assert_int_not_equal(p[1].phys, p[2].phys);
	assert_int_not_equal(p[0].phys, p[2].phys);
	/* Every block reserved: a fourth plan finds none. */
	{
		struct dedup_plan q;

		assert_int_equal(plan(v, 3, b[3], &q), ROCE_E_STAGE_FULL);
	}
	/* A failure in the packet: all cancelled, nothing placed. */
	for (int i = 2; i >= 0; i--)
		dedup_cancel(v->dd, &p[i]);
	assert_int_equal(stats(v).in_use, 0);
	assert_int_equal(stats(v).mapped, 0);

	/* Logical 0 holds content A alone. One packet: logical 0 takes B
	 * (in place), logical 1 takes A: it must not share the block being
	 * rewritten. */
	assert_int_equal(write_k(v, 0, 1, NULL), ROCE_OK);
	assert_int_equal(plan(v, 0, b[1], &p[0]), ROCE_OK);
	assert_false(p[0].hit || p[0].fresh);
	assert_int_equal(plan(v, 1, b[0], &p[1]), ROCE_OK);
	assert_false(p[1].hit);
	place(v, &p[0], b[1]);
	place(v, &p[1], b[0]);
	assert_reads(v, 0, 2);
	assert_reads(v, 1, 1);

	/* The other order: logical 2 plans to share logical 1's block (A),
	 * then logical 1 takes C: not in place, its block is about to be
	 * shared. */
	assert_int_equal(plan(v, 2, b[0], &p[0]), ROCE_OK);
	assert_true(p[0].hit);
	assert_int_equal(p[0].phys, dedup_map(v->dd, 1));
	assert_int_equal(plan(v, 1, b[2], &p[1]), ROCE_OK);
	assert_true(p[1].fresh);
	place(v, &p[1], b[2]);          /* logical 1's release comes first */
	assert_int_equal(dedup_refs(v->dd, p[0].phys), 0);
	assert_int_equal(stats(v).in_use, 3);   /* pinned: not freed */
	place(v, &p[0], b[0]);
	assert_int_equal(dedup_refs(v->dd, p[0].phys), 1);
	assert_reads(v, 0, 2);
	assert_reads(v, 1, 3);
	assert_reads(v, 2, 1);
	assert_int_equal(stats(v).in_use, 3);

	/* A block released while a plan would share it, that plan then
	 * cancelled: the block is freed at the cancel. */
	assert_int_equal(write_k(v, 3, 3, NULL), ROCE_OK);      /* shares logical 1's */
	assert_int_equal(plan(v, 4, b[2], &p[0]), ROCE_OK);     /* C: a hit */
	assert_true(p[0].hit);
	assert_int_equal(write_k(v, 1, 2, NULL), ROCE_OK);      /* B: leaves it */
	assert_int_equal(write_k(v, 3, 2, NULL), ROCE_OK);      /* B: leaves it */
	assert_int_equal(dedup_refs(v->dd, p[0].phys), 0);
	assert_int_equal(stats(v).in_use, 3);
	dedup_cancel(v->dd, &p[0]);
	assert_int_equal(stats(v).in_use, 2);
	assert_int_equal(write_k(v, 5, 4, &p[1]), ROCE_OK);     /* its block is free */
	assert_int_equal(p[1].phys, p[0].phys);
	vol_free(v);
}

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* The index under churn, as full as it gets (half its slots): every
 * block of a pool written, then rewritten in place round after round
 * (each rewrite deletes a fingerprint and inserts one): every current
 * content is found on its block, no old one is found. */
static void test_index_churn(void **state)
{
	enum { N = 2048, ROUNDS = 6, PROBES = 512 };
	struct vol *v = vol_new(N, N);
	static unsigned content[N], before[N];
	uint64_t seed = 12345;
	uint8_t b[BLK];
	struct dedup_plan p;

	(void)state;
	for (uint32_t l = 0; l < N; l++) {
		content[l] = 1 + l;
		assert_int_equal(write_k(v, l, content[l], &p), ROCE_OK);
		assert_true(p.fresh);
	}
	for (unsigned r = 1; r <= ROUNDS; r++) {
		for (uint32_t i = 0; i < N / 2; i++) {
			uint32_t l = rnd(&seed) % N, was = dedup_map(v->dd, l);
			bool again = content[l] == r * 100000 + l;

			if (!again)
				before[l] = content[l];
			content[l] = r * 100000 + l;
			assert_int_equal(write_k(v, l, content[l], &p), ROCE_OK);
			assert_int_equal(p.hit, again); /* else in place */
			assert_false(p.fresh);
			assert_int_equal(p.phys, was);
		}
		for (uint32_t i = 0; i < PROBES; i++) {
			uint32_t l = rnd(&seed) % N, other = (l + 1) % N;

			pattern(b, content[l]);
			assert_int_equal(plan(v, other, b, &p), ROCE_OK);
			assert_true(p.hit);
			assert_int_equal(p.phys, dedup_map(v->dd, l));
			dedup_cancel(v->dd, &p);
			if (!before[l])
				continue;
			pattern(b, before[l]);          /* replaced: not found */
			assert_int_equal(plan(v, other, b, &p), ROCE_OK);
			assert_false(p.hit);
			dedup_cancel(v->dd, &p);
		}
	}
	assert_int_equal(stats(v).in_use, N);
	vol_free(v);
}

/* ---- random packets against a model ---------------------------------------- */

#define RL 24           /* logical blocks */
#define RP 10           /* pool blocks */
#define RK 12           /* distinct contents (0: zeros) */


/* The volume as the model has it: every logical block reads back, each
 * block's count is the number of logical blocks on it, in_use the
 * blocks held, mapped the logical blocks holding one. */
static void check_model(struct vol *v, const int *model)
{
	uint32_t count[RP] = { 0 }, held = 0, mapped = 0;
	struct dedup_stats s = stats(v);

	for (uint32_t l = 0; l < RL; l++) {
		uint32_t phys = dedup_map(v->dd, l);

		if (model[l] < 0) {
			assert_int_equal(phys, DEDUP_NONE);
			continue;
		}
		assert_reads(v, l, (unsigned)model[l]);
		count[phys]++;
		mapped++;
	}
	for (uint32_t ph = 0; ph < RP; ph++) {
		assert_int_equal(dedup_refs(v->dd, ph), count[ph]);
		held += count[ph] != 0;
	}
	assert_int_equal(s.in_use, held);
	assert_int_equal(s.mapped, mapped);
}

static void test_random_against_model(void **state)
{
	static uint8_t data[RK][BLK];
	struct vol *v = vol_new(RL, RP);
	int model[RL];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned full = 0, hits = 0, cancelled = 0, denied = 0;

	(void)state;
	for (unsigned k = 0; k < RK; k++)
		pattern(data[k], k);
	for (uint32_t l = 0; l < RL; l++)
		model[l] = -1;
	for (int iter = 0; iter < 4000; iter++) {
		struct dedup_plan p[3];
		uint32_t lo = rnd(&seed) % (RL - 2), n = 1 + rnd(&seed) % 3;
		unsigned k[3], made = 0;
		int rc = ROCE_OK;

		/* A packet: n consecutive blocks planned, then all written
		 * and committed, or all cancelled (a failure in it). */
		v->deny = rnd(&seed) % 16 == 0 ? rnd(&seed) % RP : DEDUP_NONE;
		for (; made < n; made++) {
			/* mostly few contents: many hits, some in place */
			k[made] = rnd(&seed) % (rnd(&seed) % 4 ? 4 : RK);
			rc = plan(v, lo + made, data[k[made]], &p[made]);
			if (rc)
				break;
			hits += p[made].hit;
		}
		denied += v->deny != DEDUP_NONE;
		v->deny = DEDUP_NONE;
		if (rc) {
			assert_int_equal(rc, ROCE_E_STAGE_FULL);
			full++;
		}
		if (rc || rnd(&seed) % 10 == 0) {
			cancelled += !rc;
			while (made--)
				dedup_cancel(v->dd, &p[made]);
		} else {
			for (unsigned i = 0; i < made; i++)
				if (!p[i].hit)
					memcpy(v->ddr[p[i].phys], data[k[i]], BLK);
			for (unsigned i = 0; i < made; i++) {
				dedup_commit(v->dd, &p[i]);
				model[lo + i] = (int)k[i];
			}
		}
		check_model(v, model);
	}
	/* Each path was taken. */
	assert_true(full > 10);
	assert_true(hits > 1000);
	assert_true(cancelled > 100);
	assert_true(denied > 100);

	/* No block leaked (held + free == pool): logical 0 writes its
	 * content again (a hit on its own block, which the index then
	 * offers if it offered none), every other logical block takes the
	 * same content (hits: nothing allocated), then new contents, one
	 * each, fit exactly in the blocks not held. */
	{
		unsigned c0 = model[0] < 0 ? 0 : (unsigned)model[0];
		uint32_t held, l;

		assert_int_equal(write_k(v, 0, c0, NULL), ROCE_OK);
		model[0] = (int)c0;
		for (l = 1; l < RL; l++) {
			assert_int_equal(write_k(v, l, c0, NULL), ROCE_OK);
			model[l] = (int)c0;
		}
		check_model(v, model);
		held = stats(v).in_use;
		assert_true(held <= 2);
		for (l = 1; l < 1 + RP - held; l++) {
			assert_int_equal(write_k(v, l, 1000 + l, NULL), ROCE_OK);
			model[l] = (int)(1000 + l);
		}
		assert_int_equal(write_k(v, l, 2000, NULL), ROCE_E_STAGE_FULL);
		assert_int_equal(stats(v).in_use, RP);
		check_model(v, model);
	}
	vol_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hits_and_refs),
		cmocka_unit_test(test_idempotent_repeat),
		cmocka_unit_test(test_overwrite_releases),
		cmocka_unit_test(test_shared_block_left),
		cmocka_unit_test(test_rewrite_in_place_full_pool),
		cmocka_unit_test(test_pool_full),
		cmocka_unit_test(test_rejected_candidate),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_packet_plans),
		cmocka_unit_test(test_index_churn),
		cmocka_unit_test(test_random_against_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
