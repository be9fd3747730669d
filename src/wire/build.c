/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 frame builder, driven by the opcode table: the headers are laid
 * out at the offsets the table gives, then roce_finish() fills lengths'
 * dependents (pad, checksums, ICRC). The data path lays headers out in a
 * buffer's headroom and gathers the payload behind them; roce_build() is
 * the one-call form for tools and tests.
 */
#include <string.h>

#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"
#include "wire/csum.h"

static size_t put_l2(const struct roce_hdrs *h, uint8_t *buf)
{
	struct roce_eth_hdr *eth = (void *)buf;
	uint16_t type = h->ip.v6 ? ROCE_ETHERTYPE_IPV6 : ROCE_ETHERTYPE_IPV4;

	memcpy(eth->dst, h->eth.dst, 6);
	memcpy(eth->src, h->eth.src, 6);
	if (!h->eth.vlan) {
		roce_put_be16(eth->type, type);
		return ROCE_ETH_HLEN;
	}
	roce_put_be16(eth->type, ROCE_ETHERTYPE_VLAN);
	roce_put_be16(buf + ROCE_ETH_HLEN, h->eth.tci);
	roce_put_be16(buf + ROCE_ETH_HLEN + 2, type);
	return ROCE_ETH_HLEN + ROCE_VLAN_HLEN;
}

static size_t put_l3(const struct roce_hdrs *h, uint8_t *l3, size_t l4_len)
{
	if (h->ip.v6) {
		struct roce_ipv6_hdr *ip = (void *)l3;

		roce_ipv6_set_tc_flow(ip, h->ip.tos, h->ip.flow);
		roce_ipv6_set_payload_len(ip, (uint16_t)l4_len);
		ip->next_hdr = ROCE_IPPROTO_UDP;
		ip->hop_limit = h->ip.ttl;
		memcpy(ip->saddr, h->ip.src, 16);
		memcpy(ip->daddr, h->ip.dst, 16);
		return ROCE_IPV6_HLEN;
	} else {
		struct roce_ipv4_hdr *ip = (void *)l3;

		ip->ver_ihl = 0x45;
		ip->tos = h->ip.tos;
		roce_put_be16(ip->tot_len, (uint16_t)(ROCE_IPV4_HLEN + l4_len));
		roce_put_be16(ip->id, h->ip.id);
		roce_put_be16(ip->frag_off, h->ip.frag);
		ip->ttl = h->ip.ttl;
		ip->protocol = ROCE_IPPROTO_UDP;
		ip->check[0] = ip->check[1] = 0;   /* roce_finish() */
		memcpy(ip->saddr, h->ip.src, 4);
		memcpy(ip->daddr, h->ip.dst, 4);
		return ROCE_IPV4_HLEN;
	}
}

static void put_bth(const struct roce_hdrs *h, unsigned pad, uint8_t *p)
{
	struct roce_bth_info b = h->bth;

	b.pad = (uint8_t)pad;   /* derived from the payload, not taken from h */
	roce_bth_put((struct roce_bth *)p, &b);
}

void roce_build_ext(const struct roce_hdrs *h, const struct roce_opcode_info *op,
		    uint8_t *bth)
{
#define EXT(kind, type) ((type *)(bth + op->off[kind]))
	if (roce_op_has(op, ROCE_HDR_DETH))
		roce_deth_put(EXT(ROCE_HDR_DETH, struct roce_deth), h->deth.qkey,
			      h->deth.resv, h->deth.sqpn);
	if (roce_op_has(op, ROCE_HDR_RETH))
		roce_reth_put(EXT(ROCE_HDR_RETH, struct roce_reth), h->reth.va,
			      h->reth.rkey, h->reth.len);
	if (roce_op_has(op, ROCE_HDR_ATMETH))
		roce_atomiceth_put(EXT(ROCE_HDR_ATMETH, struct roce_atomiceth), h->atomic.va,
				   h->atomic.rkey, h->atomic.swap_add, h->atomic.compare);
	if (roce_op_has(op, ROCE_HDR_AETH))
		roce_aeth_put(EXT(ROCE_HDR_AETH, struct roce_aeth), h->aeth.syndrome,
			      h->aeth.msn);
	if (roce_op_has(op, ROCE_HDR_ATMACK))
		roce_atomicack_put(EXT(ROCE_HDR_ATMACK, struct roce_atomicacketh),
				   h->atomic_ack.orig);
	if (roce_op_has(op, ROCE_HDR_IMMDT))
		roce_immdt_put(EXT(ROCE_HDR_IMMDT, struct roce_immdt), h->imm);
	if (roce_op_has(op, ROCE_HDR_IETH))
		roce_ieth_put(EXT(ROCE_HDR_IETH, struct roce_ieth), h->ieth_rkey);
	if (roce_op_has(op, ROCE_HDR_CNP))
		memcpy(EXT(ROCE_HDR_CNP, struct roce_cnp)->resv, h->cnp, sizeof(h->cnp));
#undef EXT
}

static unsigned pad_for(size_t payload_len)
{
	return (unsigned)(-payload_len & 3);
}

size_t roce_build_hdrs(const struct roce_hdrs *h, size_t payload_len,
		       uint8_t *buf, size_t cap)
{
	const struct roce_opcode_info *op = roce_opcode_info(h->bth.opcode);
	unsigned pad = pad_for(payload_len);
	size_t l2, l3, roce_len, hdr_len;
	struct roce_udp_hdr *udp;

	if (!op || (!op->payload && payload_len))
		return 0;
	hdr_len = (h->eth.vlan ? ROCE_ETH_HLEN + ROCE_VLAN_HLEN : ROCE_ETH_HLEN) +
		  (h->ip.v6 ? ROCE_IPV6_HLEN : ROCE_IPV4_HLEN) + ROCE_UDP_HLEN +
		  op->hdr_len;
	roce_len = op->hdr_len + payload_len + pad + ROCE_ICRC_LEN;
	if (hdr_len + payload_len + pad + ROCE_ICRC_LEN > cap ||
	    ROCE_UDP_HLEN + roce_len > 0xFFFF - ROCE_IPV6_HLEN)
		return 0;
	l2 = put_l2(h, buf);
	l3 = put_l3(h, buf + l2, ROCE_UDP_HLEN + roce_len);
	udp = (void *)(buf + l2 + l3);
	roce_put_be16(udp->sport, h->udp.sport);
	roce_put_be16(udp->dport, h->udp.dport);
	roce_put_be16(udp->len, (uint16_t)(ROCE_UDP_HLEN + roce_len));
	udp->check[0] = udp->check[1] = 0;
	put_bth(h, pad, (uint8_t *)(udp + 1));
	roce_build_ext(h, op, (uint8_t *)(udp + 1));
	return hdr_len;
}

void roce_finish(uint8_t *frame, size_t l3_off, unsigned flags)
{
	uint8_t *l3 = frame + l3_off;
	bool v6 = (l3[0] >> 4) == 6;
	size_t ip_hlen = v6 ? ROCE_IPV6_HLEN : ROCE_IPV4_HLEN;
	size_t ip_len = v6 ? ROCE_IPV6_HLEN + roce_get_be16(l3 + 4)
			   : roce_get_be16(l3 + 2);
	uint8_t *udp = l3 + ip_hlen;
	size_t udp_len = ip_len - ip_hlen;
	const struct roce_bth *bth = (const void *)(udp + ROCE_UDP_HLEN);
	unsigned pad = roce_bth_pad(bth);
	uint8_t *icrc = l3 + ip_len - ROCE_ICRC_LEN;
	uint32_t crc = 0;

	memset(icrc - pad, 0, pad);
	if (!v6) {
		struct roce_ipv4_hdr *ip = (void *)l3;

		roce_put_be16(ip->check, roce_ipv4_csum(ip, ROCE_IPV4_HLEN));
	}
	if (!(flags & ROCE_BUILD_NO_ICRC))
		crc = roce_icrc(l3, ip_len - ROCE_ICRC_LEN);
	roce_put_le32(icrc, crc);
	/* the ICRC masks the UDP checksum, so it can be computed last */
	roce_put_be16(udp + 6, flags & ROCE_BUILD_UDP_CSUM
				       ? roce_udp_csum(l3, udp, udp_len) : 0);
}

int roce_build(const struct roce_hdrs *h, const void *payload,
	       size_t payload_len, unsigned flags, uint8_t *buf, size_t cap,
	       size_t *out_len)
{
	const struct roce_opcode_info *op = roce_opcode_info(h->bth.opcode);
	size_t hdr_len, len;

	if (!op)
		return ROCE_E_OPCODE;
	if (!op->payload && payload_len)
		return ROCE_E_INVAL;
	hdr_len = roce_build_hdrs(h, payload_len, buf, cap);
	if (!hdr_len)
		return ROCE_E_RANGE;
	if (payload_len)
		memcpy(buf + hdr_len, payload, payload_len);
	len = hdr_len + payload_len + pad_for(payload_len) + ROCE_ICRC_LEN;
	roce_finish(buf, h->eth.vlan ? ROCE_ETH_HLEN + ROCE_VLAN_HLEN : ROCE_ETH_HLEN,
		    flags);
	if ((flags & ROCE_BUILD_ETH_PAD) && len < ROCE_ETH_MIN_FRAME) {
		if (cap < ROCE_ETH_MIN_FRAME)
			return ROCE_E_RANGE;
		memset(buf + len, 0, ROCE_ETH_MIN_FRAME - len);
		len = ROCE_ETH_MIN_FRAME;
	}
	*out_len = len;
	return ROCE_OK;
}

uint32_t roce_flow_label(uint32_t src_qpn, uint32_t dst_qpn)
{
	/* Linux rdma_calc_flow_label(): symmetric, so both ends of a
	 * connection compute the same label */
	uint64_t v = (uint64_t)src_qpn * dst_qpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)v & ROCE_IPV6_FLOW_MASK;
}

uint16_t roce_udp_sport_from_flow(uint32_t flow_label)
{
	/* rdma_flow_label_to_udp_sport(): 20 bits folded into 14 over the
	 * ephemeral range */
	uint32_t fl = flow_label & ROCE_IPV6_FLOW_MASK;

	return (uint16_t)(0xC000 | ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)));
}

uint16_t roce_udp_sport(uint32_t src_qpn, uint32_t dst_qpn)
{
	/* IBA A17.5.3 leaves the port to the sender; rxe, mlx5 and irdma
	 * take it from the flow label, made from the QPNs when the AV has
	 * none (rdma_get_udp_sport) */
	return roce_udp_sport_from_flow(roce_flow_label(src_qpn, dst_qpn));
}
