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

/* IPv6 next-header values of the extension headers (RFC 8200 4.1), which
 * the parser walks to tell a truncated chain from a wrong next header */
#define ROCE_IP6_NH_HOPOPTS  0
#define ROCE_IP6_NH_ROUTING  43
#define ROCE_IP6_NH_FRAGMENT 44
#define ROCE_IP6_NH_AH       51
#define ROCE_IP6_NH_DSTOPTS  60
#define ROCE_IP6_NH_ICMPV6   58
#define ROCE_IPV6_FLOW_MASK  0xFFFFFu

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

static inline unsigned roce_ipv4_version(const struct roce_ipv4_hdr *h)
{
	return h->ver_ihl >> 4;
}

static inline unsigned roce_ipv4_hlen(const struct roce_ipv4_hdr *h)
{
	return (h->ver_ihl & 0x0Fu) * 4u;
}

static inline uint32_t roce_ipv4_saddr(const struct roce_ipv4_hdr *h)
{
	return roce_get_be32(h->saddr);
}

static inline uint32_t roce_ipv4_daddr(const struct roce_ipv4_hdr *h)
{
	return roce_get_be32(h->daddr);
}

static inline uint16_t roce_ipv4_tot_len(const struct roce_ipv4_hdr *h)
{
	return roce_get_be16(h->tot_len);
}

static inline uint16_t roce_ipv4_frag_off(const struct roce_ipv4_hdr *h)
{
	return roce_get_be16(h->frag_off);
}

/* The three fields a template's copy changes per packet. */
static inline void roce_ipv4_set_len_id_csum(struct roce_ipv4_hdr *h, uint16_t tot_len,
					     uint16_t id, uint16_t check)
{
	roce_put_be16(h->tot_len, tot_len);
	roce_put_be16(h->id, id);
	roce_put_be16(h->check, check);
}

static inline unsigned roce_ipv6_version(const struct roce_ipv6_hdr *h)
{
	return h->ver_tc_flow[0] >> 4;
}

static inline uint16_t roce_ipv6_payload_len(const struct roce_ipv6_hdr *h)
{
	return roce_get_be16(h->payload_len);
}

static inline uint8_t roce_ipv6_tclass(const struct roce_ipv6_hdr *h)
{
	return (uint8_t)(roce_get_be32(h->ver_tc_flow) >> 20);
}

static inline uint32_t roce_ipv6_flow(const struct roce_ipv6_hdr *h)
{
	return roce_get_be32(h->ver_tc_flow) & ROCE_IPV6_FLOW_MASK;
}

/* Version 6, traffic class and flow label into the first word. */
static inline void roce_ipv6_set_tc_flow(struct roce_ipv6_hdr *h, uint8_t tclass,
					 uint32_t flow)
{
	roce_put_be32(h->ver_tc_flow, 6u << 28 | (uint32_t)tclass << 20 |
				      (flow & ROCE_IPV6_FLOW_MASK));
}

/* The field a template's copy changes per packet. */
static inline void roce_ipv6_set_payload_len(struct roce_ipv6_hdr *h, uint16_t len)
{
	roce_put_be16(h->payload_len, len);
}

/* An IPv4 address (host order) into a header's 4 bytes. */
static inline void roce_ipv4_addr_put(uint8_t out[4], uint32_t addr)
{
	roce_put_be32(out, addr);
}

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

/* The ones' complement sum of an IPv4 header's words but the total
 * length, the ID and the checksum: a template's fixed part, to which
 * roce_ipv4_csum_finish() adds the two fields that change per packet. */
static inline uint32_t roce_ipv4_fixed_sum(const struct roce_ipv4_hdr *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint32_t sum = 0;

	for (unsigned i = 0; i < ROCE_IPV4_HLEN; i += 2)
		if (i != 2 && i != 4 && i != 10)        /* length, ID, checksum */
			sum += roce_get_be16(p + i);
	return sum;
}

static inline uint16_t roce_ipv4_csum_finish(uint32_t fixed_sum, uint16_t tot_len,
					     uint16_t id)
{
	uint32_t sum = fixed_sum + tot_len + id;

	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif
