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

#endif
