/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 over IPv6 on the wire, against rxe's own bytes
 * (tests/vectors/captures/rxe_rc_pingpong_ipv6.pcap, kernel 6.1): the
 * header fields rxe puts there, the ICRC with IPv6's masked fields (every
 * CRC implementation), the UDP checksum (rxe's zero, and a computed one
 * checked as the receive side checks it), and every way an IPv6 frame is
 * refused: a wrong next header, a truncated extension chain, a fragment,
 * each under its own drop reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "roce/counters.h"
#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/pcap.h"
#include "roce/status.h"

#define CAPTURE ROCE_SOURCE_DIR "/tests/vectors/captures/rxe_rc_pingpong_ipv6.pcap"
#define L3 ROCE_ETH_HLEN
#define L4 (ROCE_ETH_HLEN + ROCE_IPV6_HLEN)

/* The first frame of the capture that roce_parse() calls RoCE, copied. */
static size_t first_roce_frame(uint8_t *buf, size_t cap, uint64_t *index)
{
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	size_t len = 0;

	assert_int_equal(roce_pcap_open_read(CAPTURE, &r, NULL, 0), ROCE_OK);
	while (roce_pcap_next(r, &rec) == ROCE_OK) {
		struct roce_pkt p;

		if (roce_parse(rec.data, rec.caplen, 0, &p) != ROCE_OK)
			continue;
		assert_true(rec.caplen <= cap);
		memcpy(buf, rec.data, rec.caplen);
		len = rec.caplen;
		*index = rec.index;
		break;
	}
	roce_pcap_close_read(r);
	assert_true(len > 0);
	return len;
}

static void test_rxe_fields(void **state)
{
	static const uint8_t src[16] = { 0xfd, 0x91, [15] = 0x12 };
	static const uint8_t dst[16] = { 0xfd, 0x91, [15] = 0x11 };
	uint8_t f[2048];
	uint64_t idx;
	size_t n = first_roce_frame(f, sizeof(f), &idx);
	struct roce_pkt p;
	struct roce_hdrs h;

	(void)state;
	assert_int_equal(roce_parse(f, n, 0, &p), ROCE_OK);
	assert_true(p.ipv6);
	assert_null(roce_pkt_ipv4(&p));
	assert_int_equal(p.l4_off, L4);
	roce_decode(&p, &h);
	/* what rxe sends over IPv6: traffic class and flow label 0 (its
	 * prepare_ipv6_hdr), hop limit 64 (the route's), UDP checksum 0,
	 * the source port from the QPNs as over IPv4 */
	assert_true(h.ip.v6);
	assert_int_equal(h.ip.tos, 0);
	assert_int_equal(h.ip.flow, 0);
	assert_int_equal(h.ip.ttl, 64);
	assert_int_equal(h.udp.check, 0);
	assert_int_equal(h.udp.sport, roce_udp_sport(0x11, 0x11));
	assert_memory_equal(h.ip.src, src, 16);
	assert_memory_equal(h.ip.dst, dst, 16);
	assert_int_equal(h.bth.opcode, ROCE_OP_RC_SEND_FIRST);
}

/* The ICRC over IPv6 (A17.8.1): 8 bytes of ones, then the 40-byte header
 * with traffic class, flow label and hop limit as ones, ... */
static uint32_t icrc_by_hand(const uint8_t *l3, size_t len)
{
	uint8_t m[4096];

	assert_true(8 + len <= sizeof(m));
	memset(m, 0xFF, 8);
	memcpy(m + 8, l3, len);
	m[8] |= 0x0F;                           /* traffic class, high nibble */
	m[9] = m[10] = m[11] = 0xFF;            /* ... its low nibble, flow label */
	m[8 + 7] = 0xFF;                        /* hop limit */
	m[8 + 40 + 6] = m[8 + 40 + 7] = 0xFF;   /* UDP checksum */
	m[8 + 48 + 4] = 0xFF;                   /* BTH reserved byte */
	return roce_crc32_ref(0, m, 8 + len);
}

static void test_icrc_masks_ipv6_fields(void **state)
{
	uint8_t f[2048];
	uint64_t idx;
	size_t n = first_roce_frame(f, sizeof(f), &idx);
	struct roce_pkt p;
	uint32_t want;

	(void)state;
	assert_int_equal(roce_parse(f, n, 0, &p), ROCE_OK);
	want = p.icrc_wire;
	assert_int_equal(icrc_by_hand(f + L3, p.icrc_off - L3), want);
	for (int impl = 0; impl < ROCE_CRC_IMPL_COUNT; impl++) {
		if (!roce_crc_impl_available((enum roce_crc_impl)impl))
			continue;
		assert_int_equal(roce_crc_select((enum roce_crc_impl)impl), ROCE_OK);
		assert_int_equal(roce_icrc(f + L3, p.icrc_off - L3), want);
		/* in pieces, as the transmit path folds the payload in */
		assert_int_equal(roce_crc32(roce_icrc_begin(f + L3), f + L3 + 60,
					    p.icrc_off - L3 - 60), want);
	}
	/* the variant fields do not count ... */
	roce_ipv6_set_tc_flow((struct roce_ipv6_hdr *)(f + L3), 0xB8, 0xABCDE);
	f[L3 + 7] = 1;
	f[L4 + 6] = 0x12;
	assert_int_equal(roce_icrc(f + L3, p.icrc_off - L3), want);
	/* ... the addresses, the payload length and next header do */
	f[L3 + 8 + 15] ^= 1;
	assert_int_not_equal(roce_icrc(f + L3, p.icrc_off - L3), want);
	f[L3 + 8 + 15] ^= 1;
	f[L3 + 6] = 16;
	assert_int_not_equal(roce_icrc(f + L3, p.icrc_off - L3), want);
	assert_int_equal(roce_crc_select(ROCE_CRC_ISAL), ROCE_OK);
}

static void test_udp_checksum(void **state)
{
	uint8_t f[2048];
	uint64_t idx;
	size_t n = first_roce_frame(f, sizeof(f), &idx);
	struct roce_pkt p;
	struct roce_hdrs h;
	uint8_t b[2048];
	size_t len;
	uint32_t sum = 0;

	(void)state;
	assert_int_equal(roce_parse(f, n, 0, &p), ROCE_OK);
	roce_decode(&p, &h);
	/* built with a checksum, the frame sums to ones over the IPv6
	 * pseudo-header (RFC 8200 8.1) and the UDP datagram */
	assert_int_equal(roce_build(&h, roce_pkt_payload(&p), p.payload_len,
				    ROCE_BUILD_UDP_CSUM, b, sizeof(b), &len), ROCE_OK);
	assert_int_not_equal(roce_get_be16(b + L4 + 6), 0);
	for (int i = 0; i < 32; i += 2)
		sum += roce_get_be16(b + L3 + 8 + i);
	sum += ROCE_IPPROTO_UDP + (uint32_t)(len - L4);
	for (size_t i = L4; i < len; i += 2)
		sum += i + 1 < len ? roce_get_be16(b + i) : (uint32_t)b[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	assert_int_equal(sum, 0xFFFF);
	/* the receive side checks it, and the ICRC does not cover it */
	assert_int_equal(roce_parse(b, len, 0, &p), ROCE_OK);
	b[L4 + 6] ^= 0x40;
	assert_string_equal(roce_status_name(roce_parse(b, len, 0, &p)), "udp_csum");
	/* zero is no checksum, as rxe sends it */
	b[L4 + 6] = b[L4 + 7] = 0;
	assert_int_equal(roce_parse(b, len, 0, &p), ROCE_OK);
}

/* A small IPv6 SEND to damage: 8 bytes of payload. */
static size_t v6_frame(uint8_t *buf)
{
	struct roce_hdrs h;
	size_t len;

	memset(&h, 0, sizeof(h));
	h.eth.dst[0] = 0x02;
	h.eth.src[0] = 0x02;
	h.eth.src[5] = 1;
	h.ip.v6 = true;
	h.ip.ttl = 64;
	h.ip.src[0] = 0xfe; h.ip.src[1] = 0x80; h.ip.src[15] = 1;
	h.ip.dst[0] = 0xfe; h.ip.dst[1] = 0x80; h.ip.dst[15] = 2;
	h.udp.sport = 0xC011;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_SEND_ONLY;
	h.bth.pkey = 0xFFFF;
	h.bth.dqpn = 0x11;
	assert_int_equal(roce_build(&h, "12345678", 8, 0, buf, 512, &len), ROCE_OK);
	return len;
}

/* Insert an extension header of hlen bytes (next header nh, its own
 * length byte lenb) between the fixed header and UDP; returns the new
 * frame length. The IPv6 payload length grows with it. */
static size_t insert_ext(uint8_t *b, size_t n, uint8_t kind, uint8_t lenb, size_t hlen)
{
	struct roce_ipv6_hdr *ip = (struct roce_ipv6_hdr *)(b + L3);

	memmove(b + L4 + hlen, b + L4, n - L4);
	memset(b + L4, 0, hlen);
	b[L4] = ip->next_hdr;                   /* the header after it */
	b[L4 + 1] = lenb;
	ip->next_hdr = kind;
	roce_ipv6_set_payload_len(ip, (uint16_t)(roce_ipv6_payload_len(ip) + hlen));
	return n + hlen;
}

static void expect(const uint8_t *b, size_t n, int want)
{
	struct roce_pkt p;

	assert_string_equal(roce_status_name(roce_parse(b, n, 0, &p)),
			    roce_status_name(want));
}

static void test_rejections(void **state)
{
	uint8_t b[512];
	size_t n;

	(void)state;
	n = v6_frame(b);
	expect(b, n, ROCE_OK);
	/* next header: TCP, ICMPv6, "no next header" */
	b[L3 + 6] = 6;
	expect(b, n, ROCE_E_IP6_NEXT_HDR);
	b[L3 + 6] = ROCE_IP6_NH_ICMPV6;
	expect(b, n, ROCE_E_IP6_NEXT_HDR);
	b[L3 + 6] = 59;
	expect(b, n, ROCE_E_IP6_NEXT_HDR);
	/* a whole hop-by-hop header, then UDP: RoCE v2 carries none */
	n = insert_ext(b, v6_frame(b), ROCE_IP6_NH_HOPOPTS, 0, 8);
	expect(b, n, ROCE_E_IP6_NEXT_HDR);
	/* destination options then routing, both whole, then TCP */
	n = insert_ext(b, v6_frame(b), ROCE_IP6_NH_ROUTING, 0, 8);
	b[L4] = 6;
	n = insert_ext(b, n, ROCE_IP6_NH_DSTOPTS, 1, 16);
	expect(b, n, ROCE_E_IP6_NEXT_HDR);
	/* an AH whose length (in 4-octet units less 2) fits */
	n = insert_ext(b, v6_frame(b), ROCE_IP6_NH_AH, 4, 24);
	expect(b, n, ROCE_E_IP6_NEXT_HDR);
	/* truncated chains: a length past the payload ... */
	n = insert_ext(b, v6_frame(b), ROCE_IP6_NH_HOPOPTS, 200, 8);
	expect(b, n, ROCE_E_IP6_EXT_LEN);
	n = insert_ext(b, v6_frame(b), ROCE_IP6_NH_AH, 200, 8);
	expect(b, n, ROCE_E_IP6_EXT_LEN);
	/* ... a second header that does not fit after a good first one ... */
	n = insert_ext(b, v6_frame(b), ROCE_IP6_NH_DSTOPTS, 0, 8);
	b[L4] = ROCE_IP6_NH_ROUTING;
	b[L4 + 9] = 100;
	expect(b, n, ROCE_E_IP6_EXT_LEN);
	/* ... and a payload that ends inside the first header */
	n = v6_frame(b);
	b[L3 + 6] = ROCE_IP6_NH_HOPOPTS;
	roce_ipv6_set_payload_len((struct roce_ipv6_hdr *)(b + L3), 1);
	expect(b, n, ROCE_E_IP6_EXT_LEN);
	b[L3 + 6] = ROCE_IP6_NH_FRAGMENT;
	roce_ipv6_set_payload_len((struct roce_ipv6_hdr *)(b + L3), 7);
	expect(b, n, ROCE_E_IP6_EXT_LEN);
	/* a fragment header: a fragment */
	n = insert_ext(b, v6_frame(b), ROCE_IP6_NH_FRAGMENT, 0, 8);
	expect(b, n, ROCE_E_IP_FRAG);
	/* a chain longer than any sender builds */
	n = v6_frame(b);
	for (int i = 0; i < 9; i++)
		n = insert_ext(b, n, ROCE_IP6_NH_DSTOPTS, 0, 8);
	expect(b, n, ROCE_E_IP6_NEXT_HDR);
	/* the IPv6 fixed header itself */
	n = v6_frame(b);
	expect(b, L3 + 39, ROCE_E_TOO_SHORT);
	expect(b, n - 1, ROCE_E_TOO_SHORT);     /* payload length past the frame */
	b[L3] = 0x40;
	expect(b, n, ROCE_E_IP_VERSION);
}

static void test_drop_counters(void **state)
{
	static const struct { int st; const char *name; } drops[] = {
		{ ROCE_E_IP6_NEXT_HDR, "drop_ip6_next_hdr" },
		{ ROCE_E_IP6_EXT_LEN, "drop_ip6_ext_len" },
		{ ROCE_E_IP6_ADDR, "drop_ip6_addr" },
	};
	struct roce_counters c;

	(void)state;
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		int id = roce_cnt_find(drops[i].name);

		memset(&c, 0, sizeof(c));
		assert_true(id >= 0);
		assert_int_equal(roce_cnt_drop_status(id), drops[i].st);
		roce_cnt_drop(&c, drops[i].st);
		roce_cnt_drop(&c, drops[i].st);
		assert_int_equal(roce_cnt_read(&c, (enum roce_cnt)id), 2);
		assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_OTHER), 0);
	}
	/* the host codes between the two lists are no drop reason */
	memset(&c, 0, sizeof(c));
	roce_cnt_drop(&c, ROCE_E_PERM);
	assert_int_equal(roce_cnt_read(&c, ROCE_CNT_DROP_OTHER), 1);
	assert_int_equal(roce_cnt_drop_status(roce_cnt_find("drop_src_addr")),
			 ROCE_E_SRC_ADDR);
	assert_int_equal(roce_cnt_drop_status(ROCE_CNT_DROP_OTHER), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rxe_fields),
		cmocka_unit_test(test_icrc_masks_ipv6_fields),
		cmocka_unit_test(test_udp_checksum),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_drop_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
