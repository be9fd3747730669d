/* SPDX-License-Identifier: MIT */
/*
 * What the AF_XDP port does with a received frame, and its mode names:
 * no socket here, so it builds (and is unit-tested) without libxdp.
 *
 * The XDP program hands the socket every frame of its queue, where the
 * AF_PACKET port had the kernel's BPF filter choose; the classification
 * below is that filter's rule, so both ports lend the engine the same
 * frames.
 */
#include <string.h>

#include "roce/afxdp.h"
#include "roce/status.h"
#include "roce/wire/eth.h"
#include "roce/wire/ip.h"
#include "roce/wire/udp.h"

enum roce_afx_class roce_afxdp_classify(const uint8_t *frame, uint32_t len,
					const uint8_t mac[6], uint16_t udp_port)
{
	uint32_t l4;
	uint16_t type;

	if (len < ROCE_ETH_HLEN)
		return ROCE_AFX_DROP;
	type = roce_eth_type((const struct roce_eth_hdr *)frame);
	if (type == ROCE_ETHERTYPE_ARP)
		return ROCE_AFX_ARP;    /* requests are broadcast: any MAC */
	if (memcmp(frame, mac, 6))
		return ROCE_AFX_DROP;
	if (type == ROCE_ETHERTYPE_IPV4) {
		const struct roce_ipv4_hdr *h;

		if (len < ROCE_ETH_HLEN + ROCE_IPV4_HLEN)
			return ROCE_AFX_DROP;
		h = (const struct roce_ipv4_hdr *)(frame + ROCE_ETH_HLEN);
		if (roce_ipv4_version(h) != 4 || roce_ipv4_hlen(h) < ROCE_IPV4_HLEN ||
		    h->protocol != ROCE_IPPROTO_UDP)
			return ROCE_AFX_DROP;
		/* a non-first fragment has no UDP header to look at */
		if (roce_ipv4_frag_off(h) & ROCE_IPV4_FRAG_OFF_MASK)
			return ROCE_AFX_DROP;
		l4 = ROCE_ETH_HLEN + roce_ipv4_hlen(h);
	} else if (type == ROCE_ETHERTYPE_IPV6) {
		const struct roce_ipv6_hdr *h;

		if (len < ROCE_ETH_HLEN + ROCE_IPV6_HLEN)
			return ROCE_AFX_DROP;
		h = (const struct roce_ipv6_hdr *)(frame + ROCE_ETH_HLEN);
		if (roce_ipv6_version(h) != 6 || h->next_hdr != ROCE_IPPROTO_UDP)
			return ROCE_AFX_DROP;
		l4 = ROCE_ETH_HLEN + ROCE_IPV6_HLEN;
	} else {
		/* VLAN-tagged frames included: they belong to the VLAN's
		 * interface, as with the AF_PACKET port */
		return ROCE_AFX_DROP;
	}
	if (len < l4 + ROCE_UDP_HLEN ||
	    roce_udp_dport((const struct roce_udp_hdr *)(frame + l4)) != udp_port)
		return ROCE_AFX_DROP;
	return ROCE_AFX_LEND;
}

static const char *const mode_names[] = {
	[ROCE_AFX_AUTO] = "auto",
	[ROCE_AFX_NATIVE] = "native",
	[ROCE_AFX_GENERIC] = "generic",
};

const char *roce_afxdp_mode_name(enum roce_afxdp_mode mode)
{
	return (unsigned)mode <= ROCE_AFX_GENERIC ? mode_names[mode] : "?";
}

int roce_afxdp_mode_parse(const char *s, enum roce_afxdp_mode *mode)
{
	for (unsigned i = 0; s && i <= ROCE_AFX_GENERIC; i++)
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum roce_afxdp_mode)i;
			return ROCE_OK;
		}
	return ROCE_E_INVAL;
}
