/* SPDX-License-Identifier: MIT */
/*
 * The process's allocator calls counted: a test that includes this (once,
 * in its one file) replaces malloc, calloc, realloc and free with
 * glibc's own behind a counter, so a path that must not allocate (the
 * engine per packet, a stage per unit, libcrypto under it included) can
 * be shown not to. Set alloc_counting around the path, read alloc_calls.
 *
 * Sanitizers interpose malloc themselves: under them ALLOC_COUNT_SANITIZED
 * is defined, nothing is replaced, and the test skips.
 */
#ifndef ROCE_TEST_ALLOC_COUNT_H
#define ROCE_TEST_ALLOC_COUNT_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ALLOC_COUNT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ALLOC_COUNT_SANITIZED 1
#endif
#endif

#ifndef ALLOC_COUNT_SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static volatile int alloc_counting;
static volatile unsigned long alloc_calls;

void *malloc(size_t n)
{
	if (alloc_counting)
		alloc_calls++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	if (alloc_counting)
		alloc_calls++;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	if (alloc_counting)
		alloc_calls++;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	if (alloc_counting && p)
		alloc_calls++;
	__libc_free(p);
}
#endif

#endif
