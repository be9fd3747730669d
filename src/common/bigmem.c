/* SPDX-License-Identifier: MIT */
/*
 * Large buffers in huge pages, as DPDK keeps its mbufs and rings: the data
 * path walks megabytes of ring slots and DDR, and with 4 KiB pages nearly
 * every frame needs a TLB refill that a 2 MiB page saves. The mapping is
 * anonymous (zeros, like calloc), aligned to 2 MiB so the kernel can back
 * it with transparent huge pages, and advised to; where the kernel gives
 * none, the same memory works in small pages.
 */
/* MAP_ANONYMOUS, madvise(); the library's files come after the public
 * headers (cmake/library.cmake), whose <features.h> may have set it. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <stdint.h>
#include <sys/mman.h>

#include "common/bigmem.h"

#define HUGE_PAGE (2u << 20)

static size_t round_up(size_t len)
{
	return (len + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

void *big_alloc(size_t len)
{
	size_t n = round_up(len ? len : 1), span = n + HUGE_PAGE;
	uint8_t *m, *p;

	if (n < len)
		return NULL;
	/* map one huge page more and trim to an aligned start */
	m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (p > m)
		munmap(m, (size_t)(p - m));
	if (p + n < m + span)
		munmap(p + n, (size_t)(m + span - (p + n)));
#ifdef MADV_HUGEPAGE
	(void)madvise(p, n, MADV_HUGEPAGE);   /* advice: failure is harmless */
#endif
	return p;
}

void *big_alloc_at(void *at, size_t len)
{
	size_t n = round_up(len ? len : 1);
	void *p;

	if (n < len || ((uintptr_t)at & (HUGE_PAGE - 1)))
		return NULL;
	p = mmap(at, n, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (p != at) {          /* a kernel before 4.17 took it as a hint */
		munmap(p, n);
		return NULL;
	}
#ifdef MADV_HUGEPAGE
	(void)madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

void big_free(void *p, size_t len)
{
	if (p)
		munmap(p, round_up(len ? len : 1));
}
