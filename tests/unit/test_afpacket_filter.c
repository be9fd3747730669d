/* SPDX-License-Identifier: MIT */
/*
 * The receive socket's classic BPF program, run here by a small
 * interpreter of the instructions it uses (no privileges needed): what
 * passes and what the kernel drops before it costs a ring slot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/if_packet.h>

#include "link/afpacket_filter.h"
#include "link/arp.h"
#include "roce/params.h"
#include "roce/wire/ip.h"

static const uint8_t our[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t peer[6] = { 0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE };

/* Classic BPF semantics (Documentation/networking/filter.rst) for the
 * opcodes afp_filter_build emits; anything else fails the test. A load
 * past the end of the frame returns 0 (drop), as the kernel does. */
static bool g_vlan;             /* the frame arrived with a VLAN tag */

static uint32_t run(const struct sock_filter *p, unsigned n, const uint8_t *f,
		    uint32_t len, uint32_t pkttype)
{
	uint32_t a = 0, x = 0;

	for (unsigned pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &p[pc];
		uint32_t k = i->k, off;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k == (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE)) {
				a = pkttype;
				break;
			}
			if (k == (uint32_t)(SKF_AD_OFF + SKF_AD_VLAN_TAG_PRESENT)) {
				a = g_vlan;
				break;
			}
			if (k + 4 > len)
				return 0;
			a = roce_get_be32(f + k);
			break;
		case BPF_LD | BPF_H | BPF_ABS:
			if (k + 2 > len)
				return 0;
			a = roce_get_be16(f + k);
			break;
		case BPF_LD | BPF_B | BPF_ABS:
			if (k + 1 > len)
				return 0;
			a = f[k];
			break;
		case BPF_LD | BPF_H | BPF_IND:
			off = x + k;
			if (off + 2 > len)
				return 0;
			a = roce_get_be16(f + off);
			break;
		case BPF_LDX | BPF_B | BPF_MSH:
			if (k + 1 > len)
				return 0;
			x = 4u * (f[k] & 0xFu);
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & k) ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return k;
		default:
			fail_msg("opcode 0x%x at %u not interpreted", i->code, pc);
		}
	}
	fail_msg("program ran off its end");
	return 0;
}

static uint8_t frame[256];

/* Ethernet to dst + IPv4/IPv6 + a 4-byte L4 header (ports). */
static uint32_t mk(const uint8_t *dst, uint16_t type, uint8_t proto,
		   uint16_t dport, uint8_t ihl, uint16_t frag)
{
	uint32_t l4;

	memset(frame, 0, sizeof(frame));
	memcpy(frame, dst, 6);
	memcpy(frame + 6, peer, 6);
	roce_put_be16(frame + 12, type);
	if (type == ROCE_ETHERTYPE_IPV6) {
		frame[14] = 0x60;
		frame[14 + 6] = proto;
		l4 = 14 + 40;
	} else {
		frame[14] = (uint8_t)(0x40 | ihl);
		frame[14 + 9] = proto;
		roce_put_be16(frame + 14 + 6, frag);
		l4 = 14 + 4u * ihl;
	}
	roce_put_be16(frame + l4, 49152);
	roce_put_be16(frame + l4 + 2, dport);
	return l4 + 8 + 12 + 4;
}

static uint32_t verdict(uint32_t len, uint32_t pkttype)
{
	struct sock_filter p[AFP_FILTER_MAX];
	unsigned n = afp_filter_build(p, our, ROCE_UDP_PORT);

	assert_true(n > 0 && n <= AFP_FILTER_MAX);
	return run(p, n, frame, len, pkttype);
}

static void test_roce_passes(void **state)
{
	(void)state;
	assert_true(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0x4000),
			    PACKET_HOST) > 0);
	/* IPv4 options move the UDP header: the program follows the IHL */
	assert_true(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 7, 0),
			    PACKET_HOST) > 0);
	assert_true(verdict(mk(our, ROCE_ETHERTYPE_IPV6, 17, 4791, 0, 0),
			    PACKET_HOST) > 0);
	/* the first fragment passes (the engine counts ip_frag) */
	assert_true(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0x2000),
			    PACKET_HOST) > 0);
	/* the whole frame is kept, not a snap length */
	assert_true(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
			    PACKET_HOST) >= ROCE_MAX_FRAME);
}

static void test_others_dropped(void **state)
{
	static const uint8_t other[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x56 };
	static const uint8_t other_hi[6] = { 0x03, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

	(void)state;
	/* TCP (the out-of-band exchange), another UDP port */
	assert_int_equal(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 6, 4791, 5, 0),
				 PACKET_HOST), 0);
	assert_int_equal(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4792, 5, 0),
				 PACKET_HOST), 0);
	assert_int_equal(verdict(mk(our, ROCE_ETHERTYPE_IPV6, 6, 4791, 0, 0),
				 PACKET_HOST), 0);
	assert_int_equal(verdict(mk(our, ROCE_ETHERTYPE_IPV6, 17, 53, 0, 0),
				 PACKET_HOST), 0);
	/* a non-first fragment carries no UDP header */
	assert_int_equal(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0x0010),
				 PACKET_HOST), 0);
	/* RoCE to another station (either half of the MAC), or broadcast */
	assert_int_equal(verdict(mk(other, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
				 PACKET_OTHERHOST), 0);
	assert_int_equal(verdict(mk(other_hi, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
				 PACKET_OTHERHOST), 0);
	assert_int_equal(verdict(mk(bcast, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
				 PACKET_BROADCAST), 0);
	/* another EtherType (e.g. LLDP), a runt */
	assert_int_equal(verdict(mk(our, 0x88CC, 17, 4791, 5, 0), PACKET_HOST), 0);
	assert_int_equal(verdict(13, PACKET_HOST), 0);
	/* what the host sends, even RoCE to ourselves */
	assert_int_equal(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
				 PACKET_OUTGOING), 0);
	/* RoCE that came with a VLAN tag is for the VLAN's interface */
	g_vlan = true;
	assert_int_equal(verdict(mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
				 PACKET_HOST), 0);
	g_vlan = false;
}

static void test_arp_passes(void **state)
{
	(void)state;
	memset(frame, 0, sizeof(frame));
	roce_arp_build_request(frame, peer, 0xC0000201u, 0xC0000202u);
	assert_true(verdict(ROCE_ARP_FRAME_LEN, PACKET_BROADCAST) > 0);
	/* a unicast reply to another station still passes (the port counts
	 * it; resolution has its own socket) */
	assert_true(verdict(ROCE_ARP_FRAME_LEN, PACKET_OTHERHOST) > 0);
	assert_int_equal(verdict(ROCE_ARP_FRAME_LEN, PACKET_OUTGOING), 0);
	g_vlan = true;
	assert_int_equal(verdict(ROCE_ARP_FRAME_LEN, PACKET_BROADCAST), 0);
	g_vlan = false;
}

static void test_nd_passes(void **state)
{
	static const uint8_t group[6] = { 0x33, 0x33, 0xff, 0, 0, 2 };
	uint32_t n;

	(void)state;
	/* a solicitation to a solicited-node group, an advertisement to
	 * another station: the port answers or counts them */
	n = mk(group, ROCE_ETHERTYPE_IPV6, ROCE_IP6_NH_ICMPV6, 0, 0, 0);
	frame[14 + 40] = 135;
	assert_true(verdict(n, PACKET_MULTICAST) > 0);
	frame[14 + 40] = 136;
	assert_true(verdict(n, PACKET_OTHERHOST) > 0);
	/* other ICMPv6 (router solicitation, MLD, echo) is not the port's */
	frame[14 + 40] = 133;
	assert_int_equal(verdict(n, PACKET_MULTICAST), 0);
	frame[14 + 40] = 143;
	assert_int_equal(verdict(n, PACKET_MULTICAST), 0);
	n = mk(our, ROCE_ETHERTYPE_IPV6, ROCE_IP6_NH_ICMPV6, 0, 0, 0);
	frame[14 + 40] = 128;
	assert_int_equal(verdict(n, PACKET_HOST), 0);
	/* nor what the host itself sends */
	frame[14 + 40] = 135;
	assert_int_equal(verdict(n, PACKET_OUTGOING), 0);
}

static void test_other_port(void **state)
{
	struct sock_filter p[AFP_FILTER_MAX];
	unsigned n = afp_filter_build(p, our, 9999);

	(void)state;
	assert_true(run(p, n, frame, mk(our, ROCE_ETHERTYPE_IPV4, 17, 9999, 5, 0),
			PACKET_HOST) > 0);
	assert_int_equal(run(p, n, frame, mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
			     PACKET_HOST), 0);
	n = afp_filter_drop_all(p);
	assert_int_equal(run(p, n, frame, mk(our, ROCE_ETHERTYPE_IPV4, 17, 4791, 5, 0),
			     PACKET_HOST), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce_passes),
		cmocka_unit_test(test_others_dropped),
		cmocka_unit_test(test_arp_passes),
		cmocka_unit_test(test_nd_passes),
		cmocka_unit_test(test_other_port),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
