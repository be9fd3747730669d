/* SPDX-License-Identifier: MIT */
/*
 * Classic BPF for the receive socket (see afpacket_filter.h). Offsets are
 * from the start of the Ethernet frame; the kernel has already moved a
 * VLAN tag out of the frame into metadata, so the EtherType is at 12.
 */
#include <linux/if_packet.h>

#include "link/afpacket_filter.h"
#include "roce/wire/eth.h"
#include "roce/wire/ip.h"

#define ACCEPT_LEN 0x40000u     /* "keep the whole frame" */

#define LD_ABS(sz, k)  ((struct sock_filter)BPF_STMT(BPF_LD | (sz) | BPF_ABS, (k)))
#define LD_IND(sz, k)  ((struct sock_filter)BPF_STMT(BPF_LD | (sz) | BPF_IND, (k)))
#define LDX_MSH(k)     ((struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, (k)))
#define RET(k)         ((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (k)))
#define JEQ(k, t, f)   ((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f)))
#define JSET(k, t, f)  ((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f)))

/* Where each instruction sits: jumps name their targets by these. */
enum {
	I_PKTTYPE, I_OUTGOING, I_VLAN, I_VLAN_J,
	I_TYPE, I_ARP,
	I_ND_V6, I_ND_NH, I_ND_NH_J, I_ND_TYPE, I_ND_NS, I_ND_NA,
	I_MAC_HI, I_MAC_HI_J, I_MAC_LO, I_MAC_LO_J,
	I_TYPE2, I_IS_V4, I_IS_V6,
	I_V4_PROTO, I_V4_PROTO_J, I_V4_FRAG, I_V4_FRAG_J, I_V4_IHL,
	I_V4_PORT, I_V4_PORT_J,
	I_V6_NEXT, I_V6_NEXT_J, I_V6_PORT, I_V6_PORT_J,
	I_ACCEPT, I_DROP,
	I_COUNT
};

_Static_assert(I_COUNT <= AFP_FILTER_MAX, "filter size");

/* BPF jump offsets count from the instruction after the jump. */
#define TO(at, target) ((uint8_t)((target) - (at) - 1))

#define ETH_TYPE_OFF  12
#define V4_PROTO_OFF  (ROCE_ETH_HLEN + 9)
#define V4_FRAG_OFF   (ROCE_ETH_HLEN + 6)
#define V6_NEXT_OFF   (ROCE_ETH_HLEN + 6)
#define UDP_DPORT_OFF 2
#define V6_DPORT_OFF  (ROCE_ETH_HLEN + ROCE_IPV6_HLEN + UDP_DPORT_OFF)
#define ND_TYPE_OFF   (ROCE_ETH_HLEN + ROCE_IPV6_HLEN)  /* ICMPv6 type */
#define ICMPV6_NS     135
#define ICMPV6_NA     136

unsigned afp_filter_build(struct sock_filter *p, const uint8_t mac[6],
			  uint16_t udp_port)
{
	uint32_t mac_hi = (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 |
			  (uint32_t)mac[2] << 8 | mac[3];
	uint32_t mac_lo = (uint32_t)mac[4] << 8 | mac[5];

	/* what the host transmits (the TCP of the out-of-band exchange,
	 * our own frames) is never for the engine */
	p[I_PKTTYPE] = LD_ABS(BPF_W, (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE));
	p[I_OUTGOING] = JEQ(PACKET_OUTGOING, TO(I_OUTGOING, I_DROP), 0);
	/* a VLAN-tagged frame belongs to the VLAN's interface (eth1.100),
	 * not to a port on the parent: the kernel has moved the tag out of
	 * the frame, only this flag tells */
	p[I_VLAN] = LD_ABS(BPF_W, (uint32_t)(SKF_AD_OFF + SKF_AD_VLAN_TAG_PRESENT));
	p[I_VLAN_J] = JEQ(0, 0, TO(I_VLAN_J, I_DROP));
	/* ARP: any destination, requests are broadcast */
	p[I_TYPE] = LD_ABS(BPF_H, ETH_TYPE_OFF);
	p[I_ARP] = JEQ(ROCE_ETHERTYPE_ARP, TO(I_ARP, I_ACCEPT), 0);
	/* IPv6 neighbour discovery, ARP's successor: any destination */
	p[I_ND_V6] = JEQ(ROCE_ETHERTYPE_IPV6, 0, TO(I_ND_V6, I_MAC_HI));
	p[I_ND_NH] = LD_ABS(BPF_B, V6_NEXT_OFF);
	p[I_ND_NH_J] = JEQ(ROCE_IP6_NH_ICMPV6, 0, TO(I_ND_NH_J, I_MAC_HI));
	p[I_ND_TYPE] = LD_ABS(BPF_B, ND_TYPE_OFF);
	p[I_ND_NS] = JEQ(ICMPV6_NS, TO(I_ND_NS, I_ACCEPT), 0);
	p[I_ND_NA] = JEQ(ICMPV6_NA, TO(I_ND_NA, I_ACCEPT), TO(I_ND_NA, I_MAC_HI));
	/* RoCE: unicast to our station MAC only */
	p[I_MAC_HI] = LD_ABS(BPF_W, 0);
	p[I_MAC_HI_J] = JEQ(mac_hi, 0, TO(I_MAC_HI_J, I_DROP));
	p[I_MAC_LO] = LD_ABS(BPF_H, 4);
	p[I_MAC_LO_J] = JEQ(mac_lo, 0, TO(I_MAC_LO_J, I_DROP));
	p[I_TYPE2] = LD_ABS(BPF_H, ETH_TYPE_OFF);
	p[I_IS_V4] = JEQ(ROCE_ETHERTYPE_IPV4, TO(I_IS_V4, I_V4_PROTO), 0);
	p[I_IS_V6] = JEQ(ROCE_ETHERTYPE_IPV6, TO(I_IS_V6, I_V6_NEXT),
			 TO(I_IS_V6, I_DROP));
	/* IPv4 UDP; a non-first fragment has no UDP header to look at (the
	 * engine counts first fragments as ip_frag drops) */
	p[I_V4_PROTO] = LD_ABS(BPF_B, V4_PROTO_OFF);
	p[I_V4_PROTO_J] = JEQ(ROCE_IPPROTO_UDP, 0, TO(I_V4_PROTO_J, I_DROP));
	p[I_V4_FRAG] = LD_ABS(BPF_H, V4_FRAG_OFF);
	p[I_V4_FRAG_J] = JSET(ROCE_IPV4_FRAG_OFF_MASK, TO(I_V4_FRAG_J, I_DROP), 0);
	p[I_V4_IHL] = LDX_MSH(ROCE_ETH_HLEN);           /* X = 4 * IHL */
	p[I_V4_PORT] = LD_IND(BPF_H, ROCE_ETH_HLEN + UDP_DPORT_OFF);
	p[I_V4_PORT_J] = JEQ(udp_port, TO(I_V4_PORT_J, I_ACCEPT),
			     TO(I_V4_PORT_J, I_DROP));
	/* IPv6 UDP: RoCE v2 puts UDP right after the fixed header (A17.4) */
	p[I_V6_NEXT] = LD_ABS(BPF_B, V6_NEXT_OFF);
	p[I_V6_NEXT_J] = JEQ(ROCE_IPPROTO_UDP, 0, TO(I_V6_NEXT_J, I_DROP));
	p[I_V6_PORT] = LD_ABS(BPF_H, V6_DPORT_OFF);
	p[I_V6_PORT_J] = JEQ(udp_port, TO(I_V6_PORT_J, I_ACCEPT),
			     TO(I_V6_PORT_J, I_DROP));
	p[I_ACCEPT] = RET(ACCEPT_LEN);
	p[I_DROP] = RET(0);
	return I_COUNT;
}

unsigned afp_filter_drop_all(struct sock_filter *p)
{
	p[0] = RET(0);
	return 1;
}
