/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "verbs/devmem.h"
#include "roce/status.h"

struct block {
	size_t off, len;
	struct block *next;
};

struct devmem {
	uint8_t *base;
	size_t size;
	struct block *free;     /* sorted by offset, coalesced */
	struct block *used;
};

struct devmem *devmem_create(uint8_t *base, size_t size)
{
	struct devmem *m = calloc(1, sizeof(*m));
	struct block *b = calloc(1, sizeof(*b));

	if (!m || !b) {
		free(m);
		free(b);
		return NULL;
	}
	m->base = base;
	m->size = size;
	b->len = size;
	m->free = b;
	return m;
}

static void free_list(struct block *b)
{
	while (b) {
		struct block *n = b->next;

		free(b);
		b = n;
	}
}

void devmem_destroy(struct devmem *m)
{
	if (!m)
		return;
	free_list(m->free);
	free_list(m->used);
	free(m);
}

void *devmem_alloc(struct devmem *m, size_t len, size_t align)
{
	if (!len)
		len = 1;
	if (!align || (align & (align - 1)))
		align = 64;
	for (struct block **pp = &m->free; *pp; pp = &(*pp)->next) {
		struct block *b = *pp, *u;
		/* align the address the application sees, not the offset:
		 * the DDR itself need not start on a page */
		uintptr_t addr = (uintptr_t)m->base + b->off;
		size_t pre = (size_t)(((addr + align - 1) & ~(uintptr_t)(align - 1)) - addr);

		if (pre > b->len || b->len - pre < len)
			continue;
		u = calloc(1, sizeof(*u));
		if (!u)
			return NULL;
		if (pre) {
			/* keep the alignment gap as a free block of its own */
			struct block *g = calloc(1, sizeof(*g));

			if (!g) {
				free(u);
				return NULL;
			}
			g->off = b->off;
			g->len = pre;
			g->next = b;
			*pp = g;
			pp = &g->next;
			b->off += pre;
			b->len -= pre;
		}
		u->off = b->off;
		u->len = len;
		b->off += len;
		b->len -= len;
		if (!b->len) {
			*pp = b->next;
			free(b);
		}
		u->next = m->used;
		m->used = u;
		return m->base + u->off;
	}
	return NULL;
}

int devmem_free(struct devmem *m, void *p)
{
	size_t off = (size_t)((uint8_t *)p - m->base);
	struct block **up, *u = NULL, **pp, *prev = NULL;

	for (up = &m->used; *up; up = &(*up)->next) {
		if ((*up)->off == off) {
			u = *up;
			*up = u->next;
			break;
		}
	}
	if (!u)
		return ROCE_E_NOENT;
	for (pp = &m->free; *pp && (*pp)->off < u->off; pp = &(*pp)->next)
		prev = *pp;
	u->next = *pp;
	*pp = u;
	/* coalesce with the next and the previous free block */
	if (u->next && u->off + u->len == u->next->off) {
		struct block *n = u->next;

		u->len += n->len;
		u->next = n->next;
		free(n);
	}
	if (prev && prev->off + prev->len == u->off) {
		prev->len += u->len;
		prev->next = u->next;
		free(u);
	}
	return ROCE_OK;
}
