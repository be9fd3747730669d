/* SPDX-License-Identifier: MIT */
/*
 * IPv6 neighbour discovery (RFC 4861) wire format: parse, build, and the
 * answer to a solicitation for our address. See nd.h.
 */
#include <string.h>

#include "link/nd.h"
#include "roce/status.h"

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t unspecified[16];

/* RFC 4443 2.3: the ones' complement sum over the IPv6 pseudo-header
 * (source, destination, upper-layer length, next header 58) and the
 * message, whose checksum field counts as zero. */
static uint16_t icmp6_csum(const uint8_t src[16], const uint8_t dst[16],
			   const uint8_t *msg, size_t len)
{
	uint32_t sum = (uint32_t)(len >> 16) + (uint32_t)(len & 0xFFFF) +
		       ROCE_IP6_NH_ICMPV6;

	for (int i = 0; i < 16; i += 2)
		sum += roce_get_be16(src + i) + roce_get_be16(dst + i);
	for (size_t i = 0; i < len; i += 2) {
		if (i == 2)
			continue;       /* the checksum field */
		sum += i + 1 < len ? roce_get_be16(msg + i) : (uint32_t)msg[i] << 8;
		sum = (sum & 0xFFFF) + (sum >> 16);
	}
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

void roce_nd_solicited_node(const uint8_t addr[16], uint8_t group[16])
{
	memset(group, 0, 16);
	group[0] = 0xff;
	group[1] = 0x02;
	group[11] = 0x01;
	group[12] = 0xff;
	memcpy(group + 13, addr + 13, 3);
}

void roce_nd_mcast_mac(const uint8_t group[16], uint8_t mac[6])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, group + 12, 4);
}

/* The options after the message: the link-layer address one we want, and
 * every option's length not zero (RFC 4861 4.6). */
static int parse_options(const uint8_t *opt, size_t len, uint8_t want,
			 struct roce_nd *out)
{
	while (len) {
		size_t olen;

		if (len < 2 || opt[1] == 0)
			return ROCE_E_FORMAT;
		olen = (size_t)opt[1] * 8;
		if (olen > len)
			return ROCE_E_FORMAT;
		if (opt[0] == want && olen == ROCE_ND_LLA_OPT_LEN) {
			out->has_lla = true;
			memcpy(out->lla, opt + 2, 6);
		}
		opt += olen;
		len -= olen;
	}
	return ROCE_OK;
}

int roce_nd_parse(const uint8_t *frame, size_t len, struct roce_nd *out)
{
	const struct roce_ipv6_hdr *ip;
	const struct roce_nd_hdr *m;
	const uint8_t *msg;
	size_t plen;

	memset(out, 0, sizeof(*out));
	if (len < ROCE_ETH_HLEN)
		return ROCE_E_TOO_SHORT;
	if (roce_eth_type((const struct roce_eth_hdr *)frame) != ROCE_ETHERTYPE_IPV6)
		return ROCE_E_ETHERTYPE;
	if (len < ROCE_ETH_HLEN + ROCE_IPV6_HLEN + ROCE_ND_MSG_LEN)
		return ROCE_E_TOO_SHORT;
	ip = (const struct roce_ipv6_hdr *)(frame + ROCE_ETH_HLEN);
	msg = frame + ROCE_ETH_HLEN + ROCE_IPV6_HLEN;
	m = (const struct roce_nd_hdr *)msg;
	plen = roce_ipv6_payload_len(ip);
	/* RFC 4861 7.1.1 / 7.1.2: no extension headers here (an ND message
	 * behind one is not ours to answer), only from the link itself */
	if (roce_ipv6_version(ip) != 6 || ip->next_hdr != ROCE_IP6_NH_ICMPV6 ||
	    ip->hop_limit != ROCE_ND_HOP_LIMIT || plen < ROCE_ND_MSG_LEN ||
	    ROCE_ETH_HLEN + ROCE_IPV6_HLEN + plen > len)
		return ROCE_E_FORMAT;
	if ((m->type != ROCE_ND_NS && m->type != ROCE_ND_NA) || m->code != 0 ||
	    m->target[0] == 0xff ||
	    icmp6_csum(ip->saddr, ip->daddr, msg, plen) != roce_get_be16(m->check))
		return ROCE_E_FORMAT;
	out->type = m->type;
	memcpy(out->eth_dst, frame, 6);
	memcpy(out->eth_src, frame + 6, 6);
	memcpy(out->src, ip->saddr, 16);
	memcpy(out->dst, ip->daddr, 16);
	memcpy(out->target, m->target, 16);
	out->flags = m->type == ROCE_ND_NA ? m->flags & 0xE0u : 0;
	if (parse_options(msg + ROCE_ND_MSG_LEN, plen - ROCE_ND_MSG_LEN,
			  m->type == ROCE_ND_NS ? ROCE_ND_OPT_SLLA : ROCE_ND_OPT_TLLA,
			  out) != ROCE_OK)
		return ROCE_E_FORMAT;
	if (m->type == ROCE_ND_NS && memcmp(out->src, unspecified, 16) == 0) {
		uint8_t group[16];

		/* duplicate address detection: to the target's group, and
		 * no link-layer address to remember */
		roce_nd_solicited_node(out->target, group);
		if (memcmp(out->dst, group, 16) != 0 || out->has_lla)
			return ROCE_E_FORMAT;
	}
	if (m->type == ROCE_ND_NA && out->dst[0] == 0xff &&
	    (out->flags & ROCE_ND_NA_SOLICITED))
		return ROCE_E_FORMAT;
	return ROCE_OK;
}

/* Ethernet and IPv6 headers, the message and a link-layer option (opt 0:
 * none); the checksum last. Returns the frame's length. */
static size_t build(uint8_t *buf, const uint8_t eth_dst[6], const uint8_t mac[6],
		    const uint8_t src[16], const uint8_t dst[16], uint8_t type,
		    uint8_t flags, const uint8_t target[16], uint8_t opt)
{
	struct roce_eth_hdr *eth = (struct roce_eth_hdr *)buf;
	struct roce_ipv6_hdr *ip = (struct roce_ipv6_hdr *)(buf + ROCE_ETH_HLEN);
	uint8_t *msg = buf + ROCE_ETH_HLEN + ROCE_IPV6_HLEN;
	struct roce_nd_hdr *m = (struct roce_nd_hdr *)msg;
	const size_t mlen = ROCE_ND_MSG_LEN + (opt ? ROCE_ND_LLA_OPT_LEN : 0);

	memset(buf, 0, ROCE_ND_FRAME_LEN);
	memcpy(eth->dst, eth_dst, 6);
	memcpy(eth->src, mac, 6);
	roce_eth_set_type(eth, ROCE_ETHERTYPE_IPV6);
	roce_ipv6_set_tc_flow(ip, 0, 0);
	roce_ipv6_set_payload_len(ip, (uint16_t)mlen);
	ip->next_hdr = ROCE_IP6_NH_ICMPV6;
	ip->hop_limit = ROCE_ND_HOP_LIMIT;
	memcpy(ip->saddr, src, 16);
	memcpy(ip->daddr, dst, 16);
	m->type = type;
	m->flags = flags;
	memcpy(m->target, target, 16);
	if (opt) {
		msg[ROCE_ND_MSG_LEN] = opt;
		msg[ROCE_ND_MSG_LEN + 1] = 1;   /* 8 octets */
		memcpy(msg + ROCE_ND_MSG_LEN + 2, mac, 6);
	}
	roce_put_be16(m->check, icmp6_csum(src, dst, msg, mlen));
	return ROCE_ETH_HLEN + ROCE_IPV6_HLEN + mlen;
}

size_t roce_nd_build_ns(uint8_t *buf, const uint8_t mac[6], const uint8_t src[16],
			const uint8_t target[16])
{
	uint8_t group[16], gmac[6];

	roce_nd_solicited_node(target, group);
	roce_nd_mcast_mac(group, gmac);
	return build(buf, gmac, mac, src, group, ROCE_ND_NS, 0, target,
		     ROCE_ND_OPT_SLLA);
}

size_t roce_nd_answer(const struct roce_nd *ns, const uint8_t mac[6],
		      const uint8_t (*addrs)[16], unsigned n, uint8_t *buf)
{
	uint8_t group[16], gmac[6];
	unsigned i;

	if (ns->type != ROCE_ND_NS)
		return 0;
	for (i = 0; i < n; i++)
		if (memcmp(addrs[i], ns->target, 16) == 0)
			break;
	if (i == n)
		return 0;
	roce_nd_solicited_node(ns->target, group);
	if (memcmp(ns->dst, group, 16) != 0 && memcmp(ns->dst, ns->target, 16) != 0)
		return 0;
	if (memcmp(ns->src, unspecified, 16) == 0) {
		/* another node probes our address (DAD): defend it */
		roce_nd_mcast_mac(all_nodes, gmac);
		return build(buf, gmac, mac, ns->target, all_nodes, ROCE_ND_NA,
			     ROCE_ND_NA_OVERRIDE, ns->target, ROCE_ND_OPT_TLLA);
	}
	/* a sender with a multicast link-layer address is bogus */
	if ((ns->has_lla ? ns->lla[0] : ns->eth_src[0]) & 1)
		return 0;
	/* a multicast solicitation gets override and our address; a
	 * unicast one (a reachability probe) neither, as Linux answers
	 * (ndisc_recv_ns: inc_opt and override only when multicast) */
	if (ns->dst[0] == 0xff)
		return build(buf, ns->has_lla ? ns->lla : ns->eth_src, mac, ns->target,
			     ns->src, ROCE_ND_NA,
			     ROCE_ND_NA_SOLICITED | ROCE_ND_NA_OVERRIDE, ns->target,
			     ROCE_ND_OPT_TLLA);
	return build(buf, ns->has_lla ? ns->lla : ns->eth_src, mac, ns->target, ns->src,
		     ROCE_ND_NA, ROCE_ND_NA_SOLICITED, ns->target, 0);
}
