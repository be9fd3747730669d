/* SPDX-License-Identifier: MIT */
/*
 * A fixed ring of UMEM addresses: the AF_XDP port's frames lent to the
 * engine (in the order rx_burst() lent them) and its free transmit frames.
 * Positions are free-running 32-bit counters (slot = pos & mask), so the
 * count is tail - head even across the wrap; the capacity is a power of
 * two no smaller than the frames that can ever be in it, so a push never
 * finds it full when the caller's accounting is right (and says so when
 * it is not).
 */
#ifndef ROCE_LINK_AFXDP_FIFO_H
#define ROCE_LINK_AFXDP_FIFO_H

#include <stdbool.h>
#include <stdint.h>

struct afx_fifo {
	uint64_t *slot;
	uint32_t mask;          /* capacity - 1 */
	uint32_t head;          /* next to pop */
	uint32_t tail;          /* next to push */
};

static inline uint32_t afx_fifo_count(const struct afx_fifo *q)
{
	return q->tail - q->head;
}

static inline bool afx_fifo_push(struct afx_fifo *q, uint64_t addr)
{
	if (afx_fifo_count(q) > q->mask)
		return false;
	q->slot[q->tail++ & q->mask] = addr;
	return true;
}

static inline bool afx_fifo_pop(struct afx_fifo *q, uint64_t *addr)
{
	if (q->head == q->tail)
		return false;
	*addr = q->slot[q->head++ & q->mask];
	return true;
}

#endif
