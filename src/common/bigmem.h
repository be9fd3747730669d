/* SPDX-License-Identifier: MIT */
/* Large, long-lived buffers (the device DDR, the in-memory link's rings)
 * in huge pages where the kernel gives them (internal). */
#ifndef ROCE_COMMON_BIGMEM_H
#define ROCE_COMMON_BIGMEM_H

#include <stddef.h>

/* len bytes of zeros, aligned to 2 MiB, or NULL. */
void *big_alloc(size_t len);

/* The same at address at (2 MiB aligned), or NULL when it is taken. */
void *big_alloc_at(void *at, size_t len);

/* Releases what big_alloc(len) returned (NULL is allowed). */
void big_free(void *p, size_t len);

#endif
