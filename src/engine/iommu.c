/* SPDX-License-Identifier: MIT */
/*
 * The IOMMU's window table (engine/iommu.h): fixed slots, one window per
 * slot, translated by index.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "engine/iommu.h"
#include "roce/status.h"

struct window {
	uint8_t *host;          /* NULL: the slot is free */
	uint64_t iova;
	uint64_t len;
};

struct iommu {
	unsigned used;
	unsigned next;          /* next-fit cursor */
	struct window w[IOMMU_WINDOWS];
};

_Static_assert((uint64_t)IOMMU_WINDOWS << IOMMU_SLOT_SHIFT <= IOMMU_IOVA_BASE,
	       "the slots must fit between the base and twice the base");
_Static_assert(2 * IOMMU_IOVA_BASE <= (1ull << 63),
	       "IOVAs must stay below bit 63 (ROCE_MR_HOST_PA_LIMIT)");

struct iommu *iommu_create(void)
{
	return calloc(1, sizeof(struct iommu));
}

void iommu_destroy(struct iommu *io)
{
	free(io);
}

int iommu_map(struct iommu *io, void *host, size_t len, uint64_t *iova)
{
	uintptr_t a = (uintptr_t)host;

	if (!io || !host || !iova || len == 0)
		return ROCE_E_INVAL;
	if ((uint64_t)len > IOMMU_WINDOW_MAX || a + len < a)
		return ROCE_E_RANGE;
	if (io->used == IOMMU_WINDOWS)
		return ROCE_E_FULL;
	for (unsigned k = 0; k < IOMMU_WINDOWS; k++) {
		unsigned s = (io->next + k) % IOMMU_WINDOWS;
		struct window *w = &io->w[s];

		if (w->host)
			continue;
		w->host = host;
		w->len = len;
		w->iova = IOMMU_IOVA_BASE + ((uint64_t)s << IOMMU_SLOT_SHIFT) +
			  (a & (IOMMU_PAGE - 1u));
		io->used++;
		io->next = (s + 1) % IOMMU_WINDOWS;
		*iova = w->iova;
		return ROCE_OK;
	}
	return ROCE_E_FULL;     /* not reached: used counts the taken slots */
}

/* The slot an IOVA falls in, or NULL. */
static struct window *slot_of(const struct iommu *io, uint64_t iova)
{
	uint64_t s;

	if (iova < IOMMU_IOVA_BASE)
		return NULL;
	s = (iova - IOMMU_IOVA_BASE) >> IOMMU_SLOT_SHIFT;
	if (s >= IOMMU_WINDOWS)
		return NULL;
	return (struct window *)&io->w[s];
}

int iommu_unmap(struct iommu *io, uint64_t iova)
{
	struct window *w = io ? slot_of(io, iova) : NULL;

	if (!w || !w->host || w->iova != iova)
		return ROCE_E_NOENT;
	w->host = NULL;
	w->len = 0;
	w->iova = 0;
	io->used--;
	return ROCE_OK;
}

unsigned iommu_count(const struct iommu *io)
{
	return io ? io->used : 0;
}

uint8_t *iommu_translate(const struct iommu *io, uint64_t iova, uint64_t len)
{
	const struct window *w;

	if (!io || len == 0)
		return NULL;
	w = slot_of(io, iova);
	if (!w || !w->host || iova < w->iova || len > w->len ||
	    iova - w->iova > w->len - len)
		return NULL;
	return w->host + (iova - w->iova);
}
