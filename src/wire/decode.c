/* SPDX-License-Identifier: MIT */
/*
 * Decode a parsed frame into struct roce_hdrs: every field, host order.
 * Used by tools and tests; the data path reads fields in place instead.
 */
#include <string.h>

#include "roce/packet.h"

static void decode_l2l3(const struct roce_pkt *p, struct roce_hdrs *h)
{
	const struct roce_eth_hdr *eth = (const void *)p->frame;
	const uint8_t *l3 = p->frame + p->l3_off;
	const struct roce_udp_hdr *udp = (const void *)(p->frame + p->l4_off);

	memcpy(h->eth.dst, eth->dst, 6);
	memcpy(h->eth.src, eth->src, 6);
	h->eth.vlan = p->vlan;
	if (p->vlan)
		h->eth.tci = roce_get_be16(p->frame + ROCE_ETH_HLEN);
	h->eth.type = p->ethertype;

	h->ip.v6 = p->ipv6;
	if (p->ipv6) {
		const struct roce_ipv6_hdr *ip = (const void *)l3;

		h->ip.tos = roce_ipv6_tclass(ip);
		h->ip.flow = roce_ipv6_flow(ip);
		h->ip.ttl = ip->hop_limit;
		memcpy(h->ip.src, ip->saddr, 16);
		memcpy(h->ip.dst, ip->daddr, 16);
	} else {
		const struct roce_ipv4_hdr *ip = (const void *)l3;

		h->ip.tos = ip->tos;
		h->ip.id = roce_get_be16(ip->id);
		h->ip.frag = roce_get_be16(ip->frag_off);
		h->ip.ttl = ip->ttl;
		memcpy(h->ip.src, ip->saddr, 4);
		memcpy(h->ip.dst, ip->daddr, 4);
	}
	h->udp.sport = roce_get_be16(udp->sport);
	h->udp.dport = roce_get_be16(udp->dport);
	h->udp.check = roce_get_be16(udp->check);
}

static void decode_bth(const struct roce_pkt *p, struct roce_hdrs *h)
{
	const struct roce_bth *b = roce_pkt_bth(p);

	h->bth.opcode = b->opcode;
	h->bth.se = b->flags & ROCE_BTH_SE;
	h->bth.mig = b->flags & ROCE_BTH_MIG;
	h->bth.pad = (uint8_t)roce_bth_pad(b);
	h->bth.tver = (uint8_t)roce_bth_tver(b);
	h->bth.pkey = roce_bth_pkey(b);
	h->bth.resv8a = b->resv8a;
	h->bth.dqpn = roce_bth_dqpn(b);
	h->bth.ackreq = roce_bth_ackreq(b);
	h->bth.resv7 = b->ack & 0x7F;
	h->bth.psn = roce_bth_psn(b);
}

static void decode_ext(const struct roce_pkt *p, struct roce_hdrs *h)
{
	const struct roce_deth *d = roce_pkt_deth(p);
	const struct roce_reth *r = roce_pkt_reth(p);
	const struct roce_atomiceth *a = roce_pkt_atomiceth(p);
	const struct roce_aeth *k = roce_pkt_aeth(p);
	const struct roce_atomicacketh *o = roce_pkt_atomicack(p);
	const struct roce_immdt *i = roce_pkt_immdt(p);
	const struct roce_ieth *v = roce_pkt_ieth(p);
	const uint8_t *c = roce_pkt_hdr(p, ROCE_HDR_CNP);

	if (d) {
		h->deth.qkey = roce_deth_qkey(d);
		h->deth.resv = d->resv;
		h->deth.sqpn = roce_deth_sqpn(d);
	}
	if (r) {
		h->reth.va = roce_reth_va(r);
		h->reth.rkey = roce_reth_rkey(r);
		h->reth.len = roce_reth_len(r);
	}
	if (a) {
		h->atomic.va = roce_atomiceth_va(a);
		h->atomic.rkey = roce_atomiceth_rkey(a);
		h->atomic.swap_add = roce_atomiceth_swap_add(a);
		h->atomic.compare = roce_atomiceth_compare(a);
	}
	if (k) {
		h->aeth.syndrome = roce_aeth_syndrome(k);
		h->aeth.msn = roce_aeth_msn(k);
	}
	if (o)
		h->atomic_ack.orig = roce_atomicack_orig(o);
	if (i)
		h->imm = roce_immdt_value(i);
	if (v)
		h->ieth_rkey = roce_ieth_rkey(v);
	if (c)
		memcpy(h->cnp, c, sizeof(h->cnp));
}

void roce_decode(const struct roce_pkt *p, struct roce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	decode_l2l3(p, h);
	decode_bth(p, h);
	decode_ext(p, h);
}
