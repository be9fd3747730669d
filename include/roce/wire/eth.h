/* SPDX-License-Identifier: MIT */
/* Ethernet II header and 802.1Q tag (IEEE 802.3, 802.1Q). */
#ifndef ROCE_WIRE_ETH_H
#define ROCE_WIRE_ETH_H

#include "roce/wire/byteorder.h"

#define ROCE_ETH_ALEN       6
#define ROCE_ETH_HLEN       14
#define ROCE_VLAN_HLEN      4
#define ROCE_ETH_MIN_FRAME  60      /* without FCS; shorter frames are padded */
#define ROCE_ETHERTYPE_IPV4 0x0800
#define ROCE_ETHERTYPE_IPV6 0x86DD
#define ROCE_ETHERTYPE_ARP  0x0806
#define ROCE_ETHERTYPE_VLAN 0x8100

struct roce_eth_hdr {
	uint8_t dst[ROCE_ETH_ALEN];
	uint8_t src[ROCE_ETH_ALEN];
	uint8_t type[2];
};

/* The 4 bytes that follow the source MAC when type is 0x8100. */
struct roce_vlan_tag {
	uint8_t tci[2];         /* PCP(3) DEI(1) VID(12) */
	uint8_t type[2];        /* encapsulated EtherType */
};

_Static_assert(sizeof(struct roce_eth_hdr) == ROCE_ETH_HLEN, "eth size");
_Static_assert(sizeof(struct roce_vlan_tag) == ROCE_VLAN_HLEN, "vlan size");

static inline uint16_t roce_eth_type(const struct roce_eth_hdr *h)
{
	return roce_get_be16(h->type);
}

static inline void roce_eth_set_type(struct roce_eth_hdr *h, uint16_t type)
{
	roce_put_be16(h->type, type);
}

static inline uint16_t roce_vlan_type(const struct roce_vlan_tag *t)
{
	return roce_get_be16(t->type);
}

#endif
