/* SPDX-License-Identifier: MIT */
/*
 * Per-entry sequence lock over an array of 32-bit words.
 *
 * Writers (the register file, the engine's state changes) take the entry
 * by moving the sequence from even to odd with a CAS, store the words and
 * release it at the next even value; readers (the data path) copy the words
 * and retry when the sequence was odd or moved. Every word is accessed with
 * relaxed atomics and ordered by fences (Boehm, "Can seqlocks get along
 * with programming language memory models?", 2012), so the scheme is free
 * of data races in the C11 sense and ThreadSanitizer stays quiet. Readers
 * never write shared memory and never wait on a lock; they only repeat a
 * copy that overlapped a write.
 */
#ifndef ROCE_TABLES_SEQLOCK_H
#define ROCE_TABLES_SEQLOCK_H

#include <stdbool.h>
#include <stdint.h>

static inline void seq_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Copy n words of an entry consistently; returns the (even) sequence. */
static inline uint32_t seq_read(const uint32_t *seq, const uint32_t *src,
				uint32_t *dst, unsigned n)
{
	uint32_t s1, s2;

	for (;;) {
		s1 = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
		if (s1 & 1u) {
			seq_cpu_relax();
			continue;
		}
		for (unsigned i = 0; i < n; i++)
			dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return s1;
	}
}

/* Take the entry for writing; returns the even sequence it had. */
static inline uint32_t seq_write_begin(uint32_t *seq)
{
	uint32_t s = __atomic_load_n(seq, __ATOMIC_RELAXED);

	for (;;) {
		if (!(s & 1u) &&
		    __atomic_compare_exchange_n(seq, &s, s + 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
		seq_cpu_relax();
		s = __atomic_load_n(seq, __ATOMIC_RELAXED);
	}
	/* the odd sequence is visible before any word changes */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s;
}

/* Words of an entry the caller holds (no retry needed). */
static inline void seq_load_held(const uint32_t *src, uint32_t *dst,
				 unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static inline void seq_store_held(uint32_t *dst, const uint32_t *src,
				  unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}

/* Release after changing the entry: the generation moves on. */
static inline void seq_write_end(uint32_t *seq, uint32_t s)
{
	__atomic_store_n(seq, s + 2, __ATOMIC_RELEASE);
}

/* Release without having changed the entry (rejected commit). */
static inline void seq_write_abort(uint32_t *seq, uint32_t s)
{
	__atomic_store_n(seq, s, __ATOMIC_RELEASE);
}

#endif
