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
		uint32_t w = roce_get_be32(ip->ver_tc_flow);

		h->ip.tos = (uint8_t)(w >> 20);
		h->ip.flow = w & 0xFFFFF;
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
	const uint8_t *x;

	if ((x = roce_pkt_hdr(p, ROCE_HDR_DETH))) {
		const struct roce_deth *d = (const void *)x;

		h->deth.qkey = roce_get_be32(d->qkey);
		h->deth.resv = d->resv;
		h->deth.sqpn = roce_get_be24(d->sqpn);
	}
	if ((x = roce_pkt_hdr(p, ROCE_HDR_RETH))) {
		const struct roce_reth *r = (const void *)x;

		h->reth.va = roce_get_be64(r->va);
		h->reth.rkey = roce_get_be32(r->rkey);
		h->reth.len = roce_get_be32(r->dmalen);
	}
	if ((x = roce_pkt_hdr(p, ROCE_HDR_ATMETH))) {
		const struct roce_atomiceth *a = (const void *)x;

		h->atomic.va = roce_get_be64(a->va);
		h->atomic.rkey = roce_get_be32(a->rkey);
		h->atomic.swap_add = roce_get_be64(a->swap_add);
		h->atomic.compare = roce_get_be64(a->compare);
	}
	if ((x = roce_pkt_hdr(p, ROCE_HDR_AETH))) {
		const struct roce_aeth *a = (const void *)x;

		h->aeth.syndrome = a->syndrome;
		h->aeth.msn = roce_aeth_msn(a);
	}
	if ((x = roce_pkt_hdr(p, ROCE_HDR_ATMACK)))
		h->atomic_ack.orig = roce_get_be64(x);
	if ((x = roce_pkt_hdr(p, ROCE_HDR_IMMDT)))
		h->imm = roce_get_be32(x);
	if ((x = roce_pkt_hdr(p, ROCE_HDR_IETH)))
		h->ieth_rkey = roce_get_be32(x);
	if ((x = roce_pkt_hdr(p, ROCE_HDR_CNP)))
		memcpy(h->cnp, x, sizeof(h->cnp));
}

void roce_decode(const struct roce_pkt *p, struct roce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	decode_l2l3(p, h);
	decode_bth(p, h);
	decode_ext(p, h);
}
