/* SPDX-License-Identifier: MIT */
/* One hex digit, either case: its value, or -1 for anything else. */
#ifndef ROCE_COMMON_HEX_H
#define ROCE_COMMON_HEX_H

static inline int roce_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
