/* SPDX-License-Identifier: MIT */
/*
 * Fixed-width hex fields of the text messages (rc_pingpong, perftest).
 * The originals parse with sscanf("%x") or strtol, which accept anything;
 * we accept exactly what their sprintf() produces, upper-case digits
 * included, and say which field is wrong otherwise.
 */
#ifndef ROCE_OOB_TEXT_H
#define ROCE_OOB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hex.h"

/* width hex digits at *p, then the separator sep ('\0' = end of text);
 * advances *p past the separator. */
static inline bool oob_hexfield(const char **p, unsigned width, char sep,
				uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++) {
		int d = roce_hexval((*p)[i]);

		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if ((*p)[width] != sep)
		return false;
	*p += width + 1;
	*out = v;
	return true;
}

#endif
