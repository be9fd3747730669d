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

/* roce_NAME_knobs, _set and _get of one algorithm's table */
#define KNOB_API(name, NAME)                                                            \
	const struct roce_cc_knob *roce_##name##_knobs(unsigned *n)                     \
	{                                                                               \
		*n = ROCE_##NAME##_KNOB_COUNT;                                          \
		return name##_knobs;                                                    \
	}                                                                               \
	int roce_##name##_set(struct roce_##name##_params *p, const char *nm, uint32_t v) \
	{                                                                               \
		return knob_set(name##_knobs, ROCE_##NAME##_KNOB_COUNT, p, nm, v);      \
	}                                                                               \
	uint32_t roce_##name##_get(const struct roce_##name##_params *p,                \
				   const struct roce_cc_knob *k)                        \
	{                                                                               \
		return knob_get(p, k);                                                  \
	}
KNOB_API(dcqcn, DCQCN)
KNOB_API(swift, SWIFT)
#undef KNOB_API

const char *cc_knobs_check(const struct roce_cc_knob *tab, unsigned n, const void *p)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = knob_get(p, &tab[i]);

		if (v < tab[i].min || v > tab[i].max)
			return tab[i].name;
	}
	return NULL;
}
