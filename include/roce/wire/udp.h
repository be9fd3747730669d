/* SPDX-License-Identifier: MIT */
/* UDP header (RFC 768). RoCE v2 uses destination port 4791 (IBA A17.2.1). */
#ifndef ROCE_WIRE_UDP_H
#define ROCE_WIRE_UDP_H

#include "roce/wire/byteorder.h"

#define ROCE_UDP_HLEN 8

struct roce_udp_hdr {
	uint8_t sport[2];
	uint8_t dport[2];
	uint8_t len[2];
	uint8_t check[2];
};

_Static_assert(sizeof(struct roce_udp_hdr) == ROCE_UDP_HLEN, "udp size");

static inline uint16_t roce_udp_dport(const struct roce_udp_hdr *u)
{
	return roce_get_be16(u->dport);
}

static inline uint16_t roce_udp_len(const struct roce_udp_hdr *u)
{
	return roce_get_be16(u->len);
}

static inline void roce_udp_set_len(struct roce_udp_hdr *u, uint16_t len)
{
	roce_put_be16(u->len, len);
}

#endif
