/* SPDX-License-Identifier: MIT */
/* DCQCN's knobs by name (roce/cc.h's list): what the tools' --set
   NAME=VALUE go through. */
#include <stddef.h>
#include <string.h>

#include "roce/cc.h"

static const struct roce_dcqcn_knob knobs[] = {
#define X(n, N, def, lo, hi, unit, what) \
	{ #n, offsetof(struct roce_dcqcn_params, n), def, lo, hi, unit, what },
	ROCE_DCQCN_KNOB_LIST(X)
#undef X
};

const struct roce_dcqcn_knob *roce_dcqcn_knobs(unsigned *n)
{
	*n = ROCE_DCQCN_KNOB_COUNT;
	return knobs;
}

int roce_dcqcn_set(struct roce_dcqcn_params *p, const char *name, uint32_t v)
{
	for (size_t i = 0; i < ROCE_DCQCN_KNOB_COUNT; i++) {
		const struct roce_dcqcn_knob *k = &knobs[i];

		if (strcmp(k->name, name))
			continue;
		if (v < k->min || v > k->max)
			return -2;
		*(uint32_t *)((char *)p + k->offset) = v;
		return 0;
	}
	return -1;
}

uint32_t roce_dcqcn_get(const struct roce_dcqcn_params *p, const struct roce_dcqcn_knob *k)
{
	return *(const uint32_t *)((const char *)p + k->offset);
}
