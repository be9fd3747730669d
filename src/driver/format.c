/* SPDX-License-Identifier: MIT */
/*
 * Address text and register encodings shared by the driver, the config
 * parser and the tools. The MAC register layout is documented in
 * roce/driver.h: MAC_HIGH holds the first two bytes on the wire.
 */
#include <stdio.h>

#include "common/hex.h"
#include "roce/driver.h"

/* "02:00:00:00:00:01" (':' or '-' separators, two hex digits each) */
int roce_parse_mac(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		int hi = roce_hexval(s[0]), lo = hi < 0 ? -1 : roce_hexval(s[1]);

		if (lo < 0)
			return ROCE_E_FORMAT;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < 5 && *s != ':' && *s != '-')
			return ROCE_E_FORMAT;
		if (i < 5)
			s++;
	}
	return *s ? ROCE_E_FORMAT : ROCE_OK;
}

/* Dotted quad, each part 0-255 in decimal without leading junk. */
int roce_parse_ipv4(const char *s, uint32_t *ip)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned part = 0;
		int digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 4) {
			part = part * 10 + (unsigned)(*s++ - '0');
			digits++;
		}
		if (digits == 0 || digits > 3 || part > 255)
			return ROCE_E_FORMAT;
		v = v << 8 | part;
		if (i < 3 && *s++ != '.')
			return ROCE_E_FORMAT;
	}
	if (*s)
		return ROCE_E_FORMAT;
	*ip = v;
	return ROCE_OK;
}

void roce_format_mac(const uint8_t mac[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
		 mac[2], mac[3], mac[4], mac[5]);
}

void roce_format_ipv4(uint32_t ip, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xFFu,
		 (ip >> 8) & 0xFFu, ip & 0xFFu);
}
