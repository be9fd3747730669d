/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 frame parser. Every read is bounds-checked against the frame
 * length and the lengths the headers claim; each failed check returns its
 * own status code, which the receive path counts as the drop reason.
 */
#include <string.h>

#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"
#include "wire/csum.h"

static int parse_eth(struct roce_pkt *p, size_t len)
{
	const struct roce_eth_hdr *eth = (const void *)p->frame;
	size_t off = ROCE_ETH_HLEN;
	uint16_t type;

	if (len < ROCE_ETH_HLEN)
		return ROCE_E_TOO_SHORT;
	type = roce_eth_type(eth);
	if (type == ROCE_ETHERTYPE_VLAN) {
		const struct roce_vlan_tag *tag;

		if (len < ROCE_ETH_HLEN + ROCE_VLAN_HLEN)
			return ROCE_E_TOO_SHORT;
		tag = (const void *)(p->frame + ROCE_ETH_HLEN);
		type = roce_get_be16(tag->type);
		off += ROCE_VLAN_HLEN;
		p->vlan = true;
	}
	p->ethertype = type;
	p->l3_off = (uint16_t)off;
	if (type != ROCE_ETHERTYPE_IPV4 && type != ROCE_ETHERTYPE_IPV6)
		return ROCE_E_ETHERTYPE;
	return ROCE_OK;
}

/* Sets *ip_end to the end of the IP packet (start of any Ethernet padding). */
static int parse_ipv4(struct roce_pkt *p, size_t len, size_t *ip_end)
{
	const struct roce_ipv4_hdr *ip = (const void *)(p->frame + p->l3_off);
	size_t tot;

	if (len < (size_t)p->l3_off + ROCE_IPV4_HLEN)
		return ROCE_E_TOO_SHORT;
	if ((ip->ver_ihl >> 4) != 4)
		return ROCE_E_IP_VERSION;
	/* RoCE v2 carries no IP options; the ICRC (A17.8) covers a 20-byte
	 * header, so anything else cannot be checked. */
	if ((ip->ver_ihl & 0x0F) != 5)
		return ROCE_E_IP_IHL;
	tot = roce_get_be16(ip->tot_len);
	if (tot < ROCE_IPV4_HLEN)
		return ROCE_E_IP_LEN;
	if (p->l3_off + tot > len)
		return ROCE_E_TOO_SHORT;
	if (roce_ipv4_csum(ip, ROCE_IPV4_HLEN) != roce_get_be16(ip->check))
		return ROCE_E_IP_CSUM;
	if (roce_get_be16(ip->frag_off) & (ROCE_IPV4_MF | ROCE_IPV4_FRAG_OFF_MASK))
		return ROCE_E_IP_FRAG;
	if (ip->protocol != ROCE_IPPROTO_UDP)
		return ROCE_E_NOT_UDP;
	*ip_end = p->l3_off + tot;
	return ROCE_OK;
}

/* Extension headers a chain may hold before it is called too long: RFC
 * 8200 4.1 allows each kind once (destination options twice). */
#define IP6_EXT_MAX 8

/*
 * Why an IPv6 packet whose next header is not UDP is dropped: walk its
 * extension headers from off (next header nh) up to end, the end of the
 * IPv6 payload. A header that does not fit is a truncated chain, a
 * fragment header a fragment; a chain that ends, in UDP or anything else,
 * is a wrong next header (RoCE v2 has UDP right after the fixed header).
 */
static int ipv6_ext_chain(const uint8_t *f, size_t off, size_t end, uint8_t nh)
{
	for (unsigned n = 0; n <= IP6_EXT_MAX; n++) {
		size_t hlen;

		switch (nh) {
		case ROCE_IP6_NH_HOPOPTS:
		case ROCE_IP6_NH_ROUTING:
		case ROCE_IP6_NH_DSTOPTS:
			/* next header, length in 8-octet units beyond the first */
			if (off + 2 > end)
				return ROCE_E_IP6_EXT_LEN;
			hlen = ((size_t)f[off + 1] + 1) * 8;
			break;
		case ROCE_IP6_NH_AH:
			/* RFC 4302 2.2: length in 4-octet units, less 2 */
			if (off + 2 > end)
				return ROCE_E_IP6_EXT_LEN;
			hlen = ((size_t)f[off + 1] + 2) * 4;
			break;
		case ROCE_IP6_NH_FRAGMENT:
			return off + 8 > end ? ROCE_E_IP6_EXT_LEN : ROCE_E_IP_FRAG;
		default:
			return ROCE_E_IP6_NEXT_HDR;
		}
		if (off + hlen > end)
			return ROCE_E_IP6_EXT_LEN;
		nh = f[off];
		off += hlen;
	}
	return ROCE_E_IP6_NEXT_HDR;     /* longer than any sender builds */
}

static int parse_ipv6(struct roce_pkt *p, size_t len, size_t *ip_end)
{
	const struct roce_ipv6_hdr *ip = (const void *)(p->frame + p->l3_off);
	size_t plen, end;

	p->ipv6 = true;
	if (len < (size_t)p->l3_off + ROCE_IPV6_HLEN)
		return ROCE_E_TOO_SHORT;
	if (roce_ipv6_version(ip) != 6)
		return ROCE_E_IP_VERSION;
	plen = roce_ipv6_payload_len(ip);
	end = p->l3_off + ROCE_IPV6_HLEN + plen;
	if (end > len)
		return ROCE_E_TOO_SHORT;
	if (ip->next_hdr != ROCE_IPPROTO_UDP) {
		/* RoCE v2 puts UDP right after the fixed header: the ICRC
		 * (A17.8) covers a 40-byte IP header and nothing between it
		 * and UDP. Anything else is dropped, with the reason the
		 * chain gives: cut short, a fragment, or not UDP at all. */
		return ipv6_ext_chain(p->frame, (size_t)p->l3_off + ROCE_IPV6_HLEN, end,
				      ip->next_hdr);
	}
	*ip_end = end;
	return ROCE_OK;
}

static int parse_udp(struct roce_pkt *p, size_t ip_end, unsigned flags)
{
	const struct roce_udp_hdr *udp;
	size_t ulen;

	p->l4_off = (uint16_t)(p->l3_off + (p->ipv6 ? ROCE_IPV6_HLEN : ROCE_IPV4_HLEN));
	if ((size_t)p->l4_off + ROCE_UDP_HLEN > ip_end)
		return ROCE_E_IP_LEN;
	udp = (const void *)(p->frame + p->l4_off);
	if (!(flags & ROCE_PARSE_ANY_PORT) && roce_get_be16(udp->dport) != ROCE_UDP_PORT)
		return ROCE_E_UDP_PORT;
	ulen = roce_get_be16(udp->len);
	if (ulen < ROCE_UDP_HLEN || p->l4_off + ulen != ip_end)
		return ROCE_E_UDP_LEN;
	/* zero means "no checksum" (RoCE NICs send zero, A17.4.2); over IPv6
	 * too, where RFC 6935/6936 allow it for tunnel protocols: rxe sends
	 * zero there (tests/vectors/captures/rxe_rc_pingpong_ipv6.pcap) */
	if (roce_get_be16(udp->check) != 0 &&
	    roce_udp_csum(p->frame + p->l3_off, p->frame + p->l4_off, ulen) !=
		    roce_get_be16(udp->check))
		return ROCE_E_UDP_CSUM;
	p->bth_off = (uint16_t)(p->l4_off + ROCE_UDP_HLEN);
	return ROCE_OK;
}

static int parse_bth(struct roce_pkt *p, size_t ip_end)
{
	const struct roce_bth *bth;
	size_t avail;

	if ((size_t)p->bth_off + ROCE_BTH_LEN + ROCE_ICRC_LEN > ip_end)
		return ROCE_E_HDR_LEN;
	bth = roce_pkt_bth(p);
	p->opcode = bth->opcode;
	p->pad = (uint8_t)roce_bth_pad(bth);
	if (roce_bth_tver(bth) != 0)
		return ROCE_E_BTH_TVER;
	p->op = roce_opcode_info(bth->opcode);
	if (!p->op)
		return ROCE_E_OPCODE;
	avail = ip_end - p->bth_off - ROCE_ICRC_LEN;
	if (avail < p->op->hdr_len)
		return ROCE_E_HDR_LEN;
	avail -= p->op->hdr_len;
	/* IBA 9.2.3: packets are a whole number of 4-byte words, the pad
	 * makes the payload one, and is only there when a payload may be. */
	if ((ip_end - p->bth_off) % 4 != 0 || avail < p->pad ||
	    (!p->op->payload && (avail != 0 || p->pad != 0)))
		return ROCE_E_PAD;
	p->payload_off = p->bth_off + p->op->hdr_len;
	p->payload_len = (uint32_t)(avail - p->pad);
	p->icrc_off = (uint32_t)(ip_end - ROCE_ICRC_LEN);
	return ROCE_OK;
}

int roce_parse(const uint8_t *frame, size_t len, unsigned flags,
	       struct roce_pkt *p)
{
	size_t ip_end = 0;
	const uint8_t *ic;
	int rc;

	memset(p, 0, sizeof(*p));
	p->frame = frame;
	p->frame_len = (uint32_t)len;
	rc = parse_eth(p, len);
	if (rc)
		return rc;
	rc = p->ethertype == ROCE_ETHERTYPE_IPV4 ? parse_ipv4(p, len, &ip_end)
						 : parse_ipv6(p, len, &ip_end);
	if (rc)
		return rc;
	p->trailer_len = (uint32_t)(len - ip_end);
	rc = parse_udp(p, ip_end, flags);
	if (rc)
		return rc;
	rc = parse_bth(p, ip_end);
	if (rc)
		return rc;
	ic = frame + p->icrc_off;
	p->icrc_wire = (uint32_t)ic[0] | (uint32_t)ic[1] << 8 |
		       (uint32_t)ic[2] << 16 | (uint32_t)ic[3] << 24;
	if (!(flags & ROCE_PARSE_NO_ICRC) &&
	    roce_icrc(frame + p->l3_off, p->icrc_off - p->l3_off) != p->icrc_wire)
		return ROCE_E_ICRC;
	return ROCE_OK;
}
