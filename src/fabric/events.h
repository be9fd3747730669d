/* SPDX-License-Identifier: MIT */
/*
 * The fabric's next events: an indexed binary min-heap of (time, id), at
 * most one pending time per id, so finding the next event costs
 * O(log ids) and not a scan of every port (roce-fabric runs 256 hosts).
 * Ties go to the lower id: the fabric numbers its events port * 3 + kind,
 * which keeps the order it always had (the lower port, then NIC before
 * arrival before egress).
 */
#ifndef ROCE_FABRIC_EVENTS_H
#define ROCE_FABRIC_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct fev_heap {
	unsigned n, cap;
	uint32_t *heap;                 /* ids, heap-ordered */
	uint32_t *pos;                  /* id -> its place in heap, or FEV_NONE */
	uint64_t *t;                    /* id -> its time */
};

#define FEV_NONE UINT32_MAX

int fev_init(struct fev_heap *h, unsigned ids);
void fev_fini(struct fev_heap *h);
/* id's event at t (added, or moved if it had one). */
void fev_set(struct fev_heap *h, uint32_t id, uint64_t t);
/* id has no event (none is fine). */
void fev_clear(struct fev_heap *h, uint32_t id);
/* The earliest event: false when there is none. */
bool fev_peek(const struct fev_heap *h, uint32_t *id, uint64_t *t);

#endif
