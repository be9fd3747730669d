/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include "roce/wire/byteorder.h"
#include "roce/wire/ip.h"
#include "wire/csum.h"

uint16_t roce_udp_csum(const uint8_t *l3, const uint8_t *udp, size_t udp_len)
{
	bool v6 = (l3[0] >> 4) == 6;
	size_t alen = v6 ? 16 : 4;
	const uint8_t *addrs = l3 + (v6 ? 8 : 12);   /* source then destination */
	uint32_t sum = ROCE_IPPROTO_UDP + (uint32_t)udp_len;

	for (size_t i = 0; i < 2 * alen; i += 2)
		sum += roce_get_be16(addrs + i);
	for (size_t i = 0; i < udp_len; i += 2) {
		if (i == 6)
			continue;       /* the checksum field itself */
		sum += i + 1 < udp_len ? roce_get_be16(udp + i)
				       : (uint32_t)udp[i] << 8;
		sum = (sum & 0xFFFF) + (sum >> 16);
	}
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	sum = ~sum & 0xFFFF;
	return sum ? (uint16_t)sum : 0xFFFF;
}
