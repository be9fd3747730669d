/* SPDX-License-Identifier: MIT */
/*
 * IPv6 neighbour discovery over Ethernet (RFC 4861), what ARP is to IPv4:
 * the wire format of neighbour solicitations and advertisements, and the
 * pure functions the raw-Ethernet ports use to answer a solicitation for
 * one of their addresses and to ask for a peer's MAC. No sockets here, so
 * it is unit-tested without privileges; the resolution over a socket is in
 * nd_resolve.c. Byte order is converted here and nowhere else.
 */
#ifndef ROCE_LINK_ND_H
#define ROCE_LINK_ND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/wire/eth.h"
#include "roce/wire/ip.h"

#define ROCE_ND_NS              135     /* ICMPv6 type: neighbour solicitation */
#define ROCE_ND_NA              136     /* ... neighbour advertisement */
#define ROCE_ND_OPT_SLLA        1       /* option: source link-layer address */
#define ROCE_ND_OPT_TLLA        2       /* option: target link-layer address */
#define ROCE_ND_HOP_LIMIT       255     /* RFC 4861 7.1.1: only from the link */
#define ROCE_ND_MSG_LEN         24      /* type .. target, no option */
#define ROCE_ND_LLA_OPT_LEN     8       /* a link-layer address option */
/* what we send: Ethernet, IPv6, the message and one address option */
#define ROCE_ND_FRAME_LEN       (ROCE_ETH_HLEN + ROCE_IPV6_HLEN + ROCE_ND_MSG_LEN + \
				 ROCE_ND_LLA_OPT_LEN)

/* The ICMPv6 message of a solicitation or an advertisement. */
struct roce_nd_hdr {
	uint8_t type;
	uint8_t code;
	uint8_t check[2];
	uint8_t flags;          /* NA: R(7) S(6) O(5); NS: reserved */
	uint8_t resv[3];
	uint8_t target[16];
};

_Static_assert(sizeof(struct roce_nd_hdr) == ROCE_ND_MSG_LEN, "nd size");

#define ROCE_ND_NA_ROUTER    0x80u
#define ROCE_ND_NA_SOLICITED 0x40u
#define ROCE_ND_NA_OVERRIDE  0x20u

/* A solicitation or an advertisement, host order. */
struct roce_nd {
	uint8_t type;                   /* ROCE_ND_NS or ROCE_ND_NA */
	uint8_t eth_src[6], eth_dst[6];
	uint8_t src[16], dst[16];       /* the IPv6 header's */
	uint8_t target[16];
	bool has_lla;                   /* NS: source, NA: target link-layer */
	uint8_t lla[6];                 /* ... address option */
	uint8_t flags;                  /* NA: ROCE_ND_NA_* */
};

/*
 * Parse an Ethernet frame as RFC 4861 7.1 validates it: IPv6, next header
 * ICMPv6, hop limit 255, a good checksum, code 0, a message of at least
 * 24 bytes, a target that is not multicast, options of non-zero length;
 * a solicitation from :: (duplicate address detection) to a solicited-
 * node group and without a source address option; an advertisement to a
 * multicast group not solicited. ROCE_OK; ROCE_E_TOO_SHORT;
 * ROCE_E_ETHERTYPE (not IPv6); ROCE_E_FORMAT (anything else: not ND, or
 * invalid).
 */
int roce_nd_parse(const uint8_t *frame, size_t len, struct roce_nd *out);

/* ff02::1:ffXX:XXXX, the solicited-node group of addr (RFC 4291 2.7.1),
 * and the Ethernet group of an IPv6 multicast address, 33:33 and its low
 * 32 bits (RFC 2464 7). */
void roce_nd_solicited_node(const uint8_t addr[16], uint8_t group[16]);
void roce_nd_mcast_mac(const uint8_t group[16], uint8_t mac[6]);

/* A solicitation for target from (mac, src), to target's solicited-node
 * group, with our address as source link-layer option: the whole frame
 * (ROCE_ND_FRAME_LEN bytes) into buf; returns its length. */
size_t roce_nd_build_ns(uint8_t *buf, const uint8_t mac[6], const uint8_t src[16],
			const uint8_t target[16]);

/*
 * If ns is a solicitation for one of the n addresses addrs, write the
 * advertisement that answers it, from mac, into buf and return its length
 * (ROCE_ND_FRAME_LEN, or 8 bytes less); 0 when there is nothing to
 * answer. RFC 4861 7.2.4, as Linux answers (the golden captures hold its
 * answers): from the target address to the solicitation's source and its
 * link-layer address (option, else Ethernet source), solicited; to a
 * multicast solicitation also override, with our address as target link-
 * layer option, to a unicast one (a reachability probe) neither. A
 * solicitation from :: (duplicate address detection of our address by
 * another node) is answered to all nodes, override, not solicited. The
 * solicitation's destination must be the target or its solicited-node
 * group.
 */
size_t roce_nd_answer(const struct roce_nd *ns, const uint8_t mac[6],
		      const uint8_t (*addrs)[16], unsigned n, uint8_t *buf);

#endif
