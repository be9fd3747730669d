/* SPDX-License-Identifier: MIT */
/*
 * ARP (RFC 826) wire format: parse, build, and the answer to a request for
 * our address. No sockets here, so it is unit-tested without privileges;
 * the resolution over a socket is in afpacket_resolve.c.
 */
#include <string.h>

#include "link/arp.h"
#include "roce/status.h"

static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

int roce_arp_parse(const uint8_t *frame, size_t len, struct roce_arp *out)
{
	const struct roce_arp_hdr *h;

	if (len < ROCE_ETH_HLEN + ROCE_ARP_LEN)
		return ROCE_E_TOO_SHORT;
	if (roce_eth_type((const struct roce_eth_hdr *)frame) != ROCE_ETHERTYPE_ARP)
		return ROCE_E_ETHERTYPE;
	h = (const struct roce_arp_hdr *)(frame + ROCE_ETH_HLEN);
	if (roce_get_be16(h->htype) != ROCE_ARP_HTYPE_ETHER ||
	    roce_get_be16(h->ptype) != ROCE_ETHERTYPE_IPV4 ||
	    h->hlen != 6 || h->plen != 4)
		return ROCE_E_FORMAT;
	out->op = roce_get_be16(h->op);
	if (out->op != ROCE_ARP_OP_REQUEST && out->op != ROCE_ARP_OP_REPLY)
		return ROCE_E_FORMAT;
	memcpy(out->sha, h->sha, 6);
	memcpy(out->tha, h->tha, 6);
	out->spa = roce_get_be32(h->spa);
	out->tpa = roce_get_be32(h->tpa);
	return ROCE_OK;
}

size_t roce_arp_build(uint8_t *buf, const uint8_t dst[6], const uint8_t src[6],
		      const struct roce_arp *a)
{
	struct roce_eth_hdr *eth = (struct roce_eth_hdr *)buf;
	struct roce_arp_hdr *h = (struct roce_arp_hdr *)(buf + ROCE_ETH_HLEN);

	memset(buf, 0, ROCE_ARP_FRAME_LEN);
	memcpy(eth->dst, dst, 6);
	memcpy(eth->src, src, 6);
	roce_eth_set_type(eth, ROCE_ETHERTYPE_ARP);
	roce_put_be16(h->htype, ROCE_ARP_HTYPE_ETHER);
	roce_put_be16(h->ptype, ROCE_ETHERTYPE_IPV4);
	h->hlen = 6;
	h->plen = 4;
	roce_put_be16(h->op, a->op);
	memcpy(h->sha, a->sha, 6);
	roce_put_be32(h->spa, a->spa);
	memcpy(h->tha, a->tha, 6);
	roce_put_be32(h->tpa, a->tpa);
	return ROCE_ARP_FRAME_LEN;
}

size_t roce_arp_build_request(uint8_t *buf, const uint8_t mac[6],
			      uint32_t our_ip, uint32_t ip)
{
	struct roce_arp a = { .op = ROCE_ARP_OP_REQUEST, .spa = our_ip, .tpa = ip };

	memcpy(a.sha, mac, 6);
	memset(a.tha, 0, 6);    /* RFC 826: unknown, conventionally zero */
	return roce_arp_build(buf, bcast, mac, &a);
}

size_t roce_arp_answer(const struct roce_arp *a, const uint8_t mac[6],
		       uint32_t ip, uint8_t *buf)
{
	struct roce_arp r = { .op = ROCE_ARP_OP_REPLY, .spa = ip };

	if (a->op != ROCE_ARP_OP_REQUEST || !ip || a->tpa != ip)
		return 0;
	/* a sender claiming our own address is a conflict, not a question */
	if (a->spa == ip)
		return 0;
	/* a sender with a multicast/broadcast hardware address is bogus */
	if (a->sha[0] & 1)
		return 0;
	memcpy(r.sha, mac, 6);
	memcpy(r.tha, a->sha, 6);
	r.tpa = a->spa;
	return roce_arp_build(buf, a->sha, mac, &r);
}
