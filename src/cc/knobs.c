/* SPDX-License-Identifier: MIT */
/* The algorithms' knobs by name (roce/cc.h's lists, DCQCN's and
   Swift's): what the tools' NAME=VALUE go through. */
#include <stddef.h>
#include <string.h>

#include "cc/knobs.h"

static const struct roce_cc_knob dcqcn_knobs[] = {
#define X(n, N, def, lo, hi, unit, what) \
	{ #n, offsetof(struct roce_dcqcn_params, n), def, lo, hi, unit, what },
	ROCE_DCQCN_KNOB_LIST(X)
#undef X
};

static const struct roce_cc_knob swift_knobs[] = {
#define X(n, N, def, lo, hi, unit, what) \
	{ #n, offsetof(struct roce_swift_params, n), def, lo, hi, unit, what },
	ROCE_SWIFT_KNOB_LIST(X)
#undef X
};

/* 0; -1 no knob of that name in tab; -2 v out of its range. */
static int knob_set(const struct roce_cc_knob *tab, size_t n, void *p, const char *name,
		    uint32_t v)
{
	for (size_t i = 0; i < n; i++) {
		const struct roce_cc_knob *k = &tab[i];

		if (strcmp(k->name, name))
			continue;
		if (v < k->min || v > k->max)
			return -2;
		*(uint32_t *)((char *)p + k->offset) = v;
		return 0;
	}
	return -1;
}

static uint32_t knob_get(const void *p, const struct roce_cc_knob *k)
{
	return *(const uint32_t *)((const char *)p + k->offset);
}

const struct roce_cc_knob *roce_dcqcn_knobs(unsigned *n)
{
	*n = ROCE_DCQCN_KNOB_COUNT;
	return dcqcn_knobs;
}

int roce_dcqcn_set(struct roce_dcqcn_params *p, const char *name, uint32_t v)
{
	return knob_set(dcqcn_knobs, ROCE_DCQCN_KNOB_COUNT, p, name, v);
}

uint32_t roce_dcqcn_get(const struct roce_dcqcn_params *p, const struct roce_cc_knob *k)
{
	return knob_get(p, k);
}

const struct roce_cc_knob *roce_swift_knobs(unsigned *n)
{
	*n = ROCE_SWIFT_KNOB_COUNT;
	return swift_knobs;
}

int roce_swift_set(struct roce_swift_params *p, const char *name, uint32_t v)
{
	return knob_set(swift_knobs, ROCE_SWIFT_KNOB_COUNT, p, name, v);
}

uint32_t roce_swift_get(const struct roce_swift_params *p, const struct roce_cc_knob *k)
{
	return knob_get(p, k);
}

const char *cc_knobs_check(const struct roce_cc_knob *tab, unsigned n, const void *p)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = knob_get(p, &tab[i]);

		if (v < tab[i].min || v > tab[i].max)
			return tab[i].name;
	}
	return NULL;
}
