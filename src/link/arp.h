/* SPDX-License-Identifier: MIT */
/*
 * ARP for IPv4 over Ethernet (RFC 826): the wire format, and the pure
 * functions the raw-Ethernet port uses to answer requests for its address.
 * Byte order is converted in the accessors here and nowhere else.
 */
#ifndef ROCE_LINK_ARP_H
#define ROCE_LINK_ARP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/wire/eth.h"

#define ROCE_ARP_HTYPE_ETHER 1
#define ROCE_ARP_OP_REQUEST  1
#define ROCE_ARP_OP_REPLY    2
#define ROCE_ARP_LEN         28      /* Ethernet/IPv4 ARP body */
#define ROCE_ARP_FRAME_LEN   ROCE_ETH_MIN_FRAME /* 14 + 28, padded */

/* The body that follows the Ethernet header (EtherType 0x0806). */
struct roce_arp_hdr {
	uint8_t htype[2];
	uint8_t ptype[2];
	uint8_t hlen;
	uint8_t plen;
	uint8_t op[2];
	uint8_t sha[6];         /* sender hardware address */
	uint8_t spa[4];         /* sender protocol address */
	uint8_t tha[6];         /* target hardware address */
	uint8_t tpa[4];         /* target protocol address */
};

_Static_assert(sizeof(struct roce_arp_hdr) == ROCE_ARP_LEN, "arp size");

/* An Ethernet/IPv4 ARP message, host order. */
struct roce_arp {
	uint16_t op;
	uint8_t sha[6], tha[6];
	uint32_t spa, tpa;
};

/* Parse an Ethernet frame; ROCE_OK for an Ethernet/IPv4 request or reply,
 * ROCE_E_TOO_SHORT, ROCE_E_ETHERTYPE (not ARP), ROCE_E_FORMAT (another
 * hardware/protocol type, or another op). */
int roce_arp_parse(const uint8_t *frame, size_t len, struct roce_arp *out);

/* Write a whole frame (ROCE_ARP_FRAME_LEN bytes, zero padding) to buf:
 * Ethernet dst/src, then the message a. Returns the frame length. */
size_t roce_arp_build(uint8_t *buf, const uint8_t dst[6], const uint8_t src[6],
		      const struct roce_arp *a);

/* A request for ip from (mac, our_ip), broadcast. */
size_t roce_arp_build_request(uint8_t *buf, const uint8_t mac[6],
			      uint32_t our_ip, uint32_t ip);

/* If a is a request for ip, write the reply from (mac, ip) to its sender
 * into buf and return its length; 0 when there is nothing to answer
 * (RFC 826: only requests whose target is our address; a probe from
 * 0.0.0.0 gets a reply too, RFC 5227 2.1.1). */
size_t roce_arp_answer(const struct roce_arp *a, const uint8_t mac[6],
		       uint32_t ip, uint8_t *buf);

#endif
