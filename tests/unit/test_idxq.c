/* SPDX-License-Identifier: MIT */
/*
 * The index queue that carries doorbells and context changes to the
 * engine (src/common/idxq.h): an index is in at most once until taken,
 * comes out in push order, and may be pushed again once taken; the ring
 * never overflows, even with every index queued. Under threads (also run
 * with TSan): producers publish work for an index, then push it; the
 * consumer takes indices and reads their work. When everything has
 * stopped, the consumer has seen every index's last work: no doorbell is
 * lost between a take and a push (the two exchanges on the index's flag
 * order them).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/idxq.h"

static void test_once_until_taken(void **state)
{
	struct idxq q;
	uint32_t i;

	(void)state;
	assert_true(idxq_init(&q, 100));
	assert_false(idxq_pending(&q));
	assert_false(idxq_take(&q, &i));
	idxq_push(&q, 7);
	idxq_push(&q, 3);
	idxq_push(&q, 7);               /* queued already: nothing */
	idxq_push(&q, 100);             /* out of range: nothing */
	assert_true(idxq_pending(&q));
	assert_true(idxq_take(&q, &i));
	assert_int_equal(i, 7);
	idxq_push(&q, 7);               /* taken: queued again, behind 3 */
	assert_true(idxq_take(&q, &i));
	assert_int_equal(i, 3);
	assert_true(idxq_take(&q, &i));
	assert_int_equal(i, 7);
	assert_false(idxq_take(&q, &i));
	assert_false(idxq_pending(&q));
	idxq_fini(&q);
}

/* Every index queued at once, many rounds around the ring. */
static void test_full_ring_rounds(void **state)
{
	enum { NI = 1000 };             /* not a power of two: ring of 1024 */
	struct idxq q;
	uint32_t i;

	(void)state;
	assert_true(idxq_init(&q, NI));
	for (unsigned round = 0; round < 50; round++) {
		for (uint32_t k = 0; k < NI; k++) {
			idxq_push(&q, (k + round) % NI);
			idxq_push(&q, (k + round) % NI);
		}
		for (uint32_t k = 0; k < NI; k++) {
			assert_true(idxq_take(&q, &i));
			assert_int_equal(i, (k + round) % NI);
		}
		assert_false(idxq_take(&q, &i));
	}
	idxq_fini(&q);
}

#define NIDX 64
#define PRODUCERS 2
#define PUSHES 200000

struct shared {
	struct idxq q;
	_Atomic uint32_t work[NIDX];    /* producers' counters per index */
	_Atomic int finished;           /* producers done */
};

struct producer {
	struct shared *sh;
	unsigned id;
};

static void *produce(void *arg)
{
	struct producer *pr = arg;
	struct shared *sh = pr->sh;
	uint32_t x = 12345u + pr->id;

	for (unsigned n = 0; n < PUSHES; n++) {
		/* each producer owns the indices of its parity */
		uint32_t idx = ((x = x * 1103515245u + 12345u) >> 16) % (NIDX / PRODUCERS) *
			       PRODUCERS + pr->id;

		/* publish, then push: no fence (idxq.h) */
		atomic_fetch_add_explicit(&sh->work[idx], 1, memory_order_relaxed);
		idxq_push(&sh->q, idx);
	}
	atomic_fetch_add(&sh->finished, 1);
	return NULL;
}

static void test_threads_lose_nothing(void **state)
{
	static struct shared sh;
	struct producer pr[PRODUCERS];
	pthread_t th[PRODUCERS];
	uint32_t seen[NIDX] = { 0 }, i;

	(void)state;
	assert_true(idxq_init(&sh.q, NIDX));
	for (unsigned k = 0; k < PRODUCERS; k++) {
		pr[k].sh = &sh;
		pr[k].id = k;
		assert_int_equal(pthread_create(&th[k], NULL, produce, &pr[k]), 0);
	}
	/* the consumer runs while they push (their pushes are bounded); then
	 * joins them and takes what is left, as the engine's next poll does */
	while (atomic_load(&sh.finished) < PRODUCERS)
		while (idxq_take(&sh.q, &i))
			seen[i] = atomic_load_explicit(&sh.work[i], memory_order_acquire);
	for (unsigned k = 0; k < PRODUCERS; k++)
		pthread_join(th[k], NULL);
	while (idxq_take(&sh.q, &i))
		seen[i] = atomic_load_explicit(&sh.work[i], memory_order_acquire);
	assert_false(idxq_pending(&sh.q));
	for (unsigned k = 0; k < NIDX; k++)
		assert_int_equal(seen[k], atomic_load(&sh.work[k]));
	idxq_fini(&sh.q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once_until_taken),
		cmocka_unit_test(test_full_ring_rounds),
		cmocka_unit_test(test_threads_lose_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
