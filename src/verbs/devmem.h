/* SPDX-License-Identifier: MIT */
#ifndef ROCE_VERBS_DEVMEM_H
#define ROCE_VERBS_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

/* A first-fit allocator of device DDR for application buffers. Control
 * path only: the data path never allocates. */
struct devmem;

struct devmem *devmem_create(uint8_t *base, size_t size);
void devmem_destroy(struct devmem *m);
void *devmem_alloc(struct devmem *m, size_t len, size_t align);
int devmem_free(struct devmem *m, void *p);

#endif
