/* SPDX-License-Identifier: MIT */
/* IPv4 (RFC 791) and IPv6 (RFC 8200) fixed headers. */
#ifndef ROCE_WIRE_IP_H
#define ROCE_WIRE_IP_H

#include "roce/wire/byteorder.h"

#define ROCE_IPV4_HLEN   20
#define ROCE_IPV6_HLEN   40
#define ROCE_IPPROTO_UDP 17
#define ROCE_IPV4_DF     0x4000u
#define ROCE_IPV4_MF     0x2000u
#define ROCE_IPV4_FRAG_OFF_MASK 0x1FFFu

struct roce_ipv4_hdr {
	uint8_t ver_ihl;        /* version(4) IHL(4) */
	uint8_t tos;            /* DSCP(6) ECN(2) */
	uint8_t tot_len[2];
	uint8_t id[2];
	uint8_t frag_off[2];    /* flags(3) fragment offset(13) */
	uint8_t ttl;
	uint8_t protocol;
	uint8_t check[2];
	uint8_t saddr[4];
	uint8_t daddr[4];
};

struct roce_ipv6_hdr {
	uint8_t ver_tc_flow[4]; /* version(4) traffic class(8) flow label(20) */
	uint8_t payload_len[2];
	uint8_t next_hdr;
	uint8_t hop_limit;
	uint8_t saddr[16];
	uint8_t daddr[16];
};

_Static_assert(sizeof(struct roce_ipv4_hdr) == ROCE_IPV4_HLEN, "ipv4 size");
_Static_assert(sizeof(struct roce_ipv6_hdr) == ROCE_IPV6_HLEN, "ipv6 size");

/* RFC 1071 ones' complement sum over an IPv4 header. Returns the checksum
 * field value (host order) that makes the header sum to 0xFFFF. */
static inline uint16_t roce_ipv4_csum(const struct roce_ipv4_hdr *h, unsigned len)
{
	const uint8_t *p = (const uint8_t *)h;
	uint32_t sum = 0;

	/* straight-line over every word, then take the checksum field back
	 * out: no branch per word on the per-packet path */
	for (unsigned i = 0; i + 1 < len; i += 2)
		sum += roce_get_be16(p + i);
	sum -= roce_get_be16(p + 10);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif
