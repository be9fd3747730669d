/* SPDX-License-Identifier: MIT */
/*
 * IPv6 neighbour discovery (link/nd.h) against Linux's own: the
 * solicitations of the golden captures parse, and our answers to them are
 * byte for byte the advertisements the guests' kernels sent (a multicast
 * solicitation and a unicast reachability probe); our solicitation is
 * what RFC 4861 asks; every invalid message is refused and nothing that
 * is not for us is answered.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "link/nd.h"
#include "roce/gid.h"
#include "roce/pcap.h"
#include "roce/status.h"

#define CAPTURES ROCE_SOURCE_DIR "/tests/vectors/captures/"

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x5b, 0x00, 0x0b };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x5b, 0x00, 0x0c };

static void addr(const char *s, uint8_t a[16])
{
	assert_int_equal(roce_gid_parse(s, a), ROCE_OK);
}

/* Frame index of a capture, copied; its length. */
static size_t frame_at(const char *name, uint64_t index, uint8_t *buf, size_t cap)
{
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	size_t len = 0;

	assert_int_equal(roce_pcap_open_read(name, &r, NULL, 0), ROCE_OK);
	while (roce_pcap_next(r, &rec) == ROCE_OK)
		if (rec.index == index) {
			assert_true(rec.caplen <= cap);
			memcpy(buf, rec.data, rec.caplen);
			len = rec.caplen;
			break;
		}
	roce_pcap_close_read(r);
	assert_true(len > 0);
	return len;
}

/* rxe_rc_pingpong_ipv6.pcap frames 10 and 11: guest a asks for fd91::12
 * (multicast, from its link-local address), guest b's kernel answers. */
static void test_answer_as_linux_multicast(void **state)
{
	uint8_t ns[256], na[256], ours[ROCE_ND_FRAME_LEN + 8], b6[1][16];
	size_t nslen = frame_at(CAPTURES "rxe_rc_pingpong_ipv6.pcap", 10, ns, sizeof(ns));
	size_t nalen = frame_at(CAPTURES "rxe_rc_pingpong_ipv6.pcap", 11, na, sizeof(na));
	struct roce_nd nd;
	uint8_t want[16];

	(void)state;
	assert_int_equal(roce_nd_parse(ns, nslen, &nd), ROCE_OK);
	assert_int_equal(nd.type, ROCE_ND_NS);
	addr("fd91::12", want);
	assert_memory_equal(nd.target, want, 16);
	assert_true(nd.has_lla);
	assert_memory_equal(nd.lla, mac_a, 6);
	addr("ff02::1:ff00:12", want);
	assert_memory_equal(nd.dst, want, 16);
	addr("fd91::12", b6[0]);
	assert_int_equal(roce_nd_answer(&nd, mac_b, (const uint8_t (*)[16])b6, 1, ours),
			 nalen);
	assert_memory_equal(ours, na, nalen);
	/* and Linux's answer parses as an advertisement with our fields */
	assert_int_equal(roce_nd_parse(na, nalen, &nd), ROCE_OK);
	assert_int_equal(nd.type, ROCE_ND_NA);
	assert_int_equal(nd.flags, ROCE_ND_NA_SOLICITED | ROCE_ND_NA_OVERRIDE);
	assert_true(nd.has_lla);
	assert_memory_equal(nd.lla, mac_b, 6);
}

/* rxe_rc_pingpong_ipv6_ll.pcap frames 2 and 3: a unicast probe of a's
 * link-local address, answered without override or address option. */
static void test_answer_as_linux_unicast(void **state)
{
	uint8_t ns[256], na[256], ours[ROCE_ND_FRAME_LEN + 8], a6[2][16];
	size_t nslen = frame_at(CAPTURES "rxe_rc_pingpong_ipv6_ll.pcap", 2, ns, sizeof(ns));
	size_t nalen = frame_at(CAPTURES "rxe_rc_pingpong_ipv6_ll.pcap", 3, na, sizeof(na));
	struct roce_nd nd;

	(void)state;
	assert_int_equal(roce_nd_parse(ns, nslen, &nd), ROCE_OK);
	assert_int_equal(nd.dst[0], 0xfe);      /* unicast */
	addr("fd91::11", a6[0]);
	roce_gid_link_local(mac_a, a6[1]);
	assert_int_equal(roce_nd_answer(&nd, mac_a, (const uint8_t (*)[16])a6, 2, ours),
			 nalen);
	assert_int_equal(nalen, ROCE_ND_FRAME_LEN - ROCE_ND_LLA_OPT_LEN);
	assert_memory_equal(ours, na, nalen);
}

static void test_solicitation(void **state)
{
	uint8_t f[ROCE_ND_FRAME_LEN], src[16], target[16], group[16];
	struct roce_nd nd;

	(void)state;
	roce_gid_link_local(mac_a, src);
	addr("fd91::2", target);
	assert_int_equal(roce_nd_build_ns(f, mac_a, src, target), ROCE_ND_FRAME_LEN);
	/* to 33:33:ff:00:00:02, the Ethernet group of ff02::1:ff00:2 */
	assert_memory_equal(f, ((const uint8_t[6]){ 0x33, 0x33, 0xff, 0, 0, 2 }), 6);
	assert_memory_equal(f + 6, mac_a, 6);
	assert_int_equal(f[14 + 7], 255);       /* hop limit */
	assert_int_equal(roce_nd_parse(f, sizeof(f), &nd), ROCE_OK);
	assert_int_equal(nd.type, ROCE_ND_NS);
	assert_memory_equal(nd.src, src, 16);
	roce_nd_solicited_node(target, group);
	assert_memory_equal(nd.dst, group, 16);
	assert_memory_equal(nd.target, target, 16);
	assert_true(nd.has_lla);
	assert_memory_equal(nd.lla, mac_a, 6);
}

static void expect(const uint8_t *f, size_t len, int want)
{
	struct roce_nd nd;

	assert_string_equal(roce_status_name(roce_nd_parse(f, len, &nd)),
			    roce_status_name(want));
}

/* Fix the ICMPv6 checksum after a change: recompute through a fresh
 * parse-less sum (RFC 4443 2.3), as the sender would have. */
static void resum(uint8_t *f)
{
	const uint8_t *ip = f + 14, *msg = f + 54;
	size_t len = roce_get_be16(ip + 4);
	uint32_t sum = (uint32_t)len + 58;

	f[54 + 2] = f[54 + 3] = 0;
	for (int i = 0; i < 32; i += 2)
		sum += roce_get_be16(ip + 8 + i);
	for (size_t i = 0; i < len; i += 2)
		sum += i + 1 < len ? roce_get_be16(msg + i) : (uint32_t)msg[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	roce_put_be16(f + 54 + 2, (uint16_t)~sum);
}

static void test_parse_rejects(void **state)
{
	uint8_t f[ROCE_ND_FRAME_LEN], g[ROCE_ND_FRAME_LEN], src[16], target[16];

	(void)state;
	roce_gid_link_local(mac_a, src);
	addr("fd91::2", target);
	roce_nd_build_ns(g, mac_a, src, target);
	expect(g, sizeof(g), ROCE_OK);
	expect(g, 13, ROCE_E_TOO_SHORT);
	expect(g, 60, ROCE_E_TOO_SHORT);
	expect(g, sizeof(g) - 1, ROCE_E_FORMAT);        /* payload past the frame */
	memcpy(f, g, sizeof(f)); f[12] = 0x08; f[13] = 0x00;
	expect(f, sizeof(f), ROCE_E_ETHERTYPE);
	memcpy(f, g, sizeof(f)); f[14 + 7] = 254;       /* routed: not from the link */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	memcpy(f, g, sizeof(f)); f[14 + 6] = 17;        /* UDP */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	memcpy(f, g, sizeof(f)); f[56] ^= 1;            /* checksum */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	memcpy(f, g, sizeof(f)); f[55] = 1; resum(f);   /* code 1 */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	memcpy(f, g, sizeof(f)); f[54] = 128; resum(f); /* echo request */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	memcpy(f, g, sizeof(f)); f[62] = 0xff; resum(f); /* multicast target */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	memcpy(f, g, sizeof(f)); f[79] = 0; resum(f);   /* option of length 0 */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	memcpy(f, g, sizeof(f)); f[79] = 2; resum(f);   /* option past the end */
	expect(f, sizeof(f), ROCE_E_FORMAT);
	/* duplicate address detection must not carry a source address */
	memcpy(f, g, sizeof(f)); memset(f + 22, 0, 16); resum(f);
	expect(f, sizeof(f), ROCE_E_FORMAT);
	/* ... and without it is valid: the option bytes dropped */
	roce_put_be16(f + 18, 24); resum(f);
	expect(f, sizeof(f) - 8, ROCE_OK);
	/* an advertisement to a multicast group must not be solicited */
	memcpy(f, g, sizeof(f)); f[54] = ROCE_ND_NA; f[58] = ROCE_ND_NA_SOLICITED; resum(f);
	expect(f, sizeof(f), ROCE_E_FORMAT);
	f[58] = ROCE_ND_NA_OVERRIDE; resum(f);
	expect(f, sizeof(f), ROCE_OK);
}

static void test_answer_rules(void **state)
{
	uint8_t f[ROCE_ND_FRAME_LEN], out[ROCE_ND_FRAME_LEN], ours[2][16], a_ll[16];
	uint8_t want[16];
	struct roce_nd nd;

	(void)state;
	roce_gid_link_local(mac_a, a_ll);
	addr("fd91::2", ours[0]);
	roce_gid_link_local(mac_b, ours[1]);
	/* for one of ours: answered to the asker, from the target */
	roce_nd_build_ns(f, mac_a, a_ll, ours[1]);
	assert_int_equal(roce_nd_parse(f, sizeof(f), &nd), ROCE_OK);
	assert_int_equal(roce_nd_answer(&nd, mac_b, (const uint8_t (*)[16])ours, 2, out),
			 ROCE_ND_FRAME_LEN);
	assert_memory_equal(out, mac_a, 6);
	assert_int_equal(roce_nd_parse(out, sizeof(out), &nd), ROCE_OK);
	assert_int_equal(nd.type, ROCE_ND_NA);
	assert_memory_equal(nd.src, ours[1], 16);
	assert_memory_equal(nd.dst, a_ll, 16);
	assert_memory_equal(nd.target, ours[1], 16);
	assert_memory_equal(nd.lla, mac_b, 6);
	/* not ours: nothing */
	addr("fd91::3", want);
	roce_nd_build_ns(f, mac_a, a_ll, want);
	assert_int_equal(roce_nd_parse(f, sizeof(f), &nd), ROCE_OK);
	assert_int_equal(roce_nd_answer(&nd, mac_b, (const uint8_t (*)[16])ours, 2, out), 0);
	/* ours, but sent to another group: nothing */
	roce_nd_build_ns(f, mac_a, a_ll, ours[0]);
	f[14 + 24 + 15] ^= 1;
	resum(f);
	assert_int_equal(roce_nd_parse(f, sizeof(f), &nd), ROCE_OK);
	assert_int_equal(roce_nd_answer(&nd, mac_b, (const uint8_t (*)[16])ours, 2, out), 0);
	/* an asker with a multicast link-layer address: nothing */
	roce_nd_build_ns(f, (const uint8_t[6]){ 0x03, 0, 0, 0, 0, 1 }, a_ll, ours[0]);
	assert_int_equal(roce_nd_parse(f, sizeof(f), &nd), ROCE_OK);
	assert_int_equal(roce_nd_answer(&nd, mac_b, (const uint8_t (*)[16])ours, 2, out), 0);
	/* an advertisement is not a question */
	roce_nd_build_ns(f, mac_a, a_ll, ours[0]);
	assert_int_equal(roce_nd_parse(f, sizeof(f), &nd), ROCE_OK);
	nd.type = ROCE_ND_NA;
	assert_int_equal(roce_nd_answer(&nd, mac_b, (const uint8_t (*)[16])ours, 2, out), 0);
	/* another node's duplicate address detection of our address: we
	 * defend it, to all nodes, not solicited */
	roce_nd_build_ns(f, mac_a, a_ll, ours[0]);
	memset(f + 22, 0, 16);
	roce_put_be16(f + 18, 24);
	resum(f);
	assert_int_equal(roce_nd_parse(f, sizeof(f) - 8, &nd), ROCE_OK);
	assert_int_equal(roce_nd_answer(&nd, mac_b, (const uint8_t (*)[16])ours, 2, out),
			 ROCE_ND_FRAME_LEN);
	assert_memory_equal(out, ((const uint8_t[6]){ 0x33, 0x33, 0, 0, 0, 1 }), 6);
	assert_int_equal(roce_nd_parse(out, sizeof(out), &nd), ROCE_OK);
	addr("ff02::1", want);
	assert_memory_equal(nd.dst, want, 16);
	assert_int_equal(nd.flags, ROCE_ND_NA_OVERRIDE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer_as_linux_multicast),
		cmocka_unit_test(test_answer_as_linux_unicast),
		cmocka_unit_test(test_solicitation),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_answer_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
