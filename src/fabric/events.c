/* SPDX-License-Identifier: MIT */
/*
 * The fabric's event heap (events.h): a binary heap of ids keyed by
 * (time, id), with each id's place kept so an event moves or leaves in
 * O(log n). Sized once at creation; nothing allocated while it runs.
 */
#include <stdlib.h>

#include "events.h"

static bool before(const struct fev_heap *h, uint32_t a, uint32_t b)
{
	return h->t[a] < h->t[b] || (h->t[a] == h->t[b] && a < b);
}

static void put(struct fev_heap *h, unsigned i, uint32_t id)
{
	h->heap[i] = id;
	h->pos[id] = i;
}

static void up(struct fev_heap *h, unsigned i)
{
	uint32_t id = h->heap[i];

	while (i > 0) {
		unsigned parent = (i - 1) / 2;

		if (!before(h, id, h->heap[parent]))
			break;
		put(h, i, h->heap[parent]);
		i = parent;
	}
	put(h, i, id);
}

static void down(struct fev_heap *h, unsigned i)
{
	uint32_t id = h->heap[i];

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h, h->heap[c + 1], h->heap[c]))
			c++;
		if (!before(h, h->heap[c], id))
			break;
		put(h, i, h->heap[c]);
		i = c;
	}
	put(h, i, id);
}

int fev_init(struct fev_heap *h, unsigned ids)
{
	h->n = 0;
	h->cap = ids;
	h->heap = calloc(ids, sizeof(*h->heap));
	h->pos = malloc(ids * sizeof(*h->pos));
	h->t = calloc(ids, sizeof(*h->t));
	if (!h->heap || !h->pos || !h->t) {
		fev_fini(h);
		return -1;
	}
	for (unsigned i = 0; i < ids; i++)
		h->pos[i] = FEV_NONE;
	return 0;
}

void fev_fini(struct fev_heap *h)
{
	free(h->heap);
	free(h->pos);
	free(h->t);
	h->heap = h->pos = NULL;
	h->t = NULL;
}

void fev_set(struct fev_heap *h, uint32_t id, uint64_t t)
{
	unsigned i = h->pos[id];

	if (i == FEV_NONE) {
		h->t[id] = t;
		put(h, h->n++, id);
		up(h, h->n - 1);
		return;
	}
	if (t == h->t[id])
		return;
	if (t < h->t[id]) {
		h->t[id] = t;
		up(h, i);
	} else {
		h->t[id] = t;
		down(h, i);
	}
}

void fev_clear(struct fev_heap *h, uint32_t id)
{
	unsigned i = h->pos[id];
	uint32_t last;

	if (i == FEV_NONE)
		return;
	h->pos[id] = FEV_NONE;
	last = h->heap[--h->n];
	if (i == h->n)
		return;
	put(h, i, last);
	if (i > 0 && before(h, last, h->heap[(i - 1) / 2]))
		up(h, i);
	else
		down(h, i);
}

bool fev_peek(const struct fev_heap *h, uint32_t *id, uint64_t *t)
{
	if (!h->n)
		return false;
	*id = h->heap[0];
	*t = h->t[*id];
	return true;
}
