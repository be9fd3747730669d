/* SPDX-License-Identifier: MIT */
/* Builder and parser: every opcode round-trips; every rejection has its reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"

static void base_hdrs(struct roce_hdrs *h, uint8_t opcode)
{
	static const uint8_t dmac[6] = { 0x52, 0x54, 0x0a, 0x4d, 0x00, 0x0b };
	static const uint8_t smac[6] = { 0x52, 0x54, 0x0a, 0x4d, 0x00, 0x0c };

	memset(h, 0, sizeof(*h));
	memcpy(h->eth.dst, dmac, 6);
	memcpy(h->eth.src, smac, 6);
	h->ip.frag = ROCE_IPV4_DF;
	h->ip.ttl = 64;
	h->ip.id = 0x1234;
	h->ip.src[0] = 10; h->ip.src[1] = 77; h->ip.src[3] = 12;
	h->ip.dst[0] = 10; h->ip.dst[1] = 77; h->ip.dst[3] = 11;
	h->udp.sport = roce_udp_sport(0x11, 0x22);
	h->udp.dport = ROCE_UDP_PORT;
	h->bth.opcode = opcode;
	h->bth.pkey = ROCE_DEFAULT_PKEY;
	h->bth.dqpn = 0x123456;
	h->bth.psn = 0xABCDEF;
	h->bth.ackreq = true;
	h->reth.va = 0x1122334455667788ull;
	h->reth.rkey = 0x0301;
	h->reth.len = 5;
	h->aeth.syndrome = ROCE_AETH_NAK | ROCE_NAK_REMOTE_ACCESS;
	h->aeth.msn = 0x777;
	h->atomic.va = 0x1000;
	h->atomic.rkey = 0x0402;
	h->atomic.swap_add = 0xDEADBEEFCAFEF00Dull;
	h->atomic.compare = 42;
	h->atomic_ack.orig = 0x0102030405060708ull;
	h->deth.qkey = 0x11111111;
	h->deth.sqpn = 0x21;
	h->imm = 0xA5A5A5A5;
	h->ieth_rkey = 0x0503;
}

static int build_parse(struct roce_hdrs *h, size_t paylen, unsigned bflags,
		       uint8_t *buf, size_t *len, struct roce_pkt *p)
{
	uint8_t payload[4096];

	for (size_t i = 0; i < paylen; i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(roce_build(h, payload, paylen, bflags, buf, 8192, len), ROCE_OK);
	return roce_parse(buf, *len, 0, p);
}

static void test_every_opcode_round_trips(void **state)
{
	(void)state;
	for (int code = 0; code < 256; code++) {
		const struct roce_opcode_info *op = roce_opcode_info((uint8_t)code);
		uint8_t buf[8192], again[8192];
		struct roce_hdrs h, d;
		struct roce_pkt p;
		size_t len, len2;

		if (!op)
			continue;
		for (int variant = 0; variant < 4; variant++) {
			size_t paylen = op->payload ? (size_t)(variant * 333 % 1027) : 0;

			base_hdrs(&h, (uint8_t)code);
			h.eth.vlan = variant & 1;
			h.eth.tci = 0x2005;
			h.ip.v6 = variant & 2;
			if (h.ip.v6) {
				h.ip.src[15] = 12; h.ip.dst[15] = 11;
				h.ip.flow = 0x12345;
				h.ip.tos = 0x60;
			}
			assert_int_equal(build_parse(&h, paylen, variant == 3 ? ROCE_BUILD_UDP_CSUM : 0,
						     buf, &len, &p), ROCE_OK);
			assert_int_equal(p.payload_len, paylen);
			assert_int_equal(p.pad, (4 - paylen % 4) % 4);
			assert_ptr_equal(p.op, op);
			assert_int_equal(p.vlan, h.eth.vlan);
			assert_int_equal(p.ipv6, h.ip.v6);
			roce_decode(&p, &d);
			assert_int_equal(d.bth.dqpn, 0x123456);
			assert_int_equal(d.bth.psn, 0xABCDEF);
			assert_true(d.bth.ackreq);
			if (roce_op_has(op, ROCE_HDR_RETH))
				assert_true(d.reth.va == h.reth.va && d.reth.rkey == 0x0301);
			if (roce_op_has(op, ROCE_HDR_ATMETH))
				assert_true(d.atomic.swap_add == h.atomic.swap_add &&
					    d.atomic.compare == 42);
			if (roce_op_has(op, ROCE_HDR_AETH))
				assert_int_equal(d.aeth.msn, 0x777);
			if (roce_op_has(op, ROCE_HDR_DETH))
				assert_int_equal(d.deth.sqpn, 0x21);
			/* decode -> build gives back the same bytes */
			assert_int_equal(roce_build(&d, roce_pkt_payload(&p), p.payload_len,
						    variant == 3 ? ROCE_BUILD_UDP_CSUM : 0,
						    again, sizeof(again), &len2), ROCE_OK);
			assert_int_equal(len2, len);
			assert_memory_equal(again, buf, len);
		}
	}
}

static void test_build_errors(void **state)
{
	struct roce_hdrs h;
	uint8_t buf[128];
	size_t len;

	(void)state;
	base_hdrs(&h, 0x15);
	assert_int_equal(roce_build(&h, NULL, 0, 0, buf, sizeof(buf), &len), ROCE_E_OPCODE);
	base_hdrs(&h, ROCE_OP_RC_ACK);
	assert_int_equal(roce_build(&h, "x", 1, 0, buf, sizeof(buf), &len), ROCE_E_INVAL);
	base_hdrs(&h, ROCE_OP_RC_SEND_ONLY);
	assert_int_equal(roce_build(&h, buf, 100, 0, buf, 64, &len), ROCE_E_RANGE);
	/* a short frame is padded to 60 bytes on request */
	base_hdrs(&h, ROCE_OP_RC_SEND_ONLY);
	assert_int_equal(roce_build(&h, NULL, 0, ROCE_BUILD_ETH_PAD, buf, sizeof(buf), &len),
			 ROCE_OK);
	assert_int_equal(len, 60);
}

/* A good frame to damage: RC WRITE_ONLY with 5 bytes (3 bytes of pad). */
static size_t good_frame(uint8_t *buf)
{
	struct roce_hdrs h;
	struct roce_pkt p;
	size_t len;

	base_hdrs(&h, ROCE_OP_RC_WRITE_ONLY);
	assert_int_equal(build_parse(&h, 5, 0, buf, &len, &p), ROCE_OK);
	return len;
}

static void refinish(uint8_t *buf)
{
	roce_finish(buf, ROCE_ETH_HLEN, 0);
}

static void expect(uint8_t *buf, size_t len, int want)
{
	struct roce_pkt p;

	assert_string_equal(roce_status_name(roce_parse(buf, len, 0, &p)),
			    roce_status_name(want));
}

static void test_rejections(void **state)
{
	uint8_t b[256];
	size_t n;
	struct roce_pkt p;

	(void)state;
	n = good_frame(b);
	expect(b, n, ROCE_OK);
	expect(b, 10, ROCE_E_TOO_SHORT);
	expect(b, 30, ROCE_E_TOO_SHORT);
	expect(b, n - 1, ROCE_E_TOO_SHORT);     /* IP length beyond the frame */

	n = good_frame(b); b[12] = 0x08; b[13] = 0x06;          /* ARP */
	expect(b, n, ROCE_E_ETHERTYPE);
	n = good_frame(b); b[14] = 0x55;                         /* version 5 */
	expect(b, n, ROCE_E_IP_VERSION);
	n = good_frame(b); b[14] = 0x46;                         /* IHL 6 */
	expect(b, n, ROCE_E_IP_IHL);
	n = good_frame(b); b[14 + 2] = 0; b[14 + 3] = 10;        /* total length 10 */
	expect(b, n, ROCE_E_IP_LEN);
	n = good_frame(b); b[14 + 11] ^= 0xFF;                   /* checksum */
	expect(b, n, ROCE_E_IP_CSUM);
	n = good_frame(b); b[14 + 6] = 0x20;                     /* MF */
	refinish(b);
	expect(b, n, ROCE_E_IP_FRAG);
	n = good_frame(b); b[14 + 9] = 6;                        /* TCP */
	refinish(b);
	expect(b, n, ROCE_E_NOT_UDP);
	n = good_frame(b); b[34 + 3] = 0x99;                     /* port 4761 */
	expect(b, n, ROCE_E_UDP_PORT);
	assert_int_equal(roce_parse(b, n, ROCE_PARSE_ANY_PORT, &p), ROCE_E_ICRC);
	n = good_frame(b); b[34 + 5] -= 4;                       /* UDP length */
	expect(b, n, ROCE_E_UDP_LEN);
	n = good_frame(b); b[34 + 6] = 0x12; b[34 + 7] = 0x34;   /* UDP checksum */
	expect(b, n, ROCE_E_UDP_CSUM);
	n = good_frame(b); b[42 + 1] |= 1;                       /* TVer 1 */
	refinish(b);
	expect(b, n, ROCE_E_BTH_TVER);
	n = good_frame(b); b[42] = 0x15;                         /* reserved opcode */
	refinish(b);
	expect(b, n, ROCE_E_OPCODE);
	n = good_frame(b); b[42] = ROCE_OP_RC_CMP_SWAP;          /* needs 28 bytes of AtomicETH */
	refinish(b);
	expect(b, n, ROCE_E_HDR_LEN);
	n = good_frame(b); b[42] = ROCE_OP_RC_ACK;               /* ACK with a payload */
	refinish(b);
	expect(b, n, ROCE_E_PAD);
	n = good_frame(b); b[42 + 1] = (uint8_t)((b[42 + 1] & ~ROCE_BTH_PAD_MASK));
	refinish(b);
	assert_int_equal(roce_parse(b, n, 0, &p), ROCE_OK);      /* pad 0: 8 payload bytes */
	assert_int_equal(p.payload_len, 8);
	n = good_frame(b); b[n - 6] ^= 0x40;                     /* a payload bit flips */
	expect(b, n, ROCE_E_ICRC);
	assert_int_equal(roce_parse(b, n, ROCE_PARSE_NO_ICRC, &p), ROCE_OK);
	n = good_frame(b); b[42 + 4] = 0xC0;                     /* FECN/BECN: ICRC-masked */
	expect(b, n, ROCE_OK);
}

static void test_pad_count_beyond_payload(void **state)
{
	struct roce_hdrs h;
	struct roce_pkt p;
	uint8_t b[256];
	size_t n;

	(void)state;
	/* a 0-byte SEND_ONLY that claims 3 bytes of pad */
	base_hdrs(&h, ROCE_OP_RC_SEND_ONLY);
	assert_int_equal(roce_build(&h, NULL, 0, 0, b, sizeof(b), &n), ROCE_OK);
	b[42 + 1] |= 3 << ROCE_BTH_PAD_SHIFT;
	refinish(b);
	assert_int_equal(roce_parse(b, n, 0, &p), ROCE_E_PAD);
}

static void test_ethernet_trailer_ignored(void **state)
{
	struct roce_hdrs h;
	struct roce_pkt p;
	uint8_t b[256];
	size_t n;

	(void)state;
	base_hdrs(&h, ROCE_OP_RC_ACK);
	assert_int_equal(roce_build(&h, NULL, 0, ROCE_BUILD_ETH_PAD, b, sizeof(b), &n), ROCE_OK);
	assert_int_equal(n, 62);        /* ACK is already > 60 bytes */
	memset(b + n, 0, 8);
	assert_int_equal(roce_parse(b, n + 8, 0, &p), ROCE_OK);
	assert_int_equal(p.trailer_len, 8);
}

static void test_udp_sport_in_ephemeral_range(void **state)
{
	(void)state;
	for (uint32_t q = 1; q < 5000; q += 7) {
		uint16_t s = roce_udp_sport(q, q * 3 + 1);

		assert_true(s >= 0xC000);
		assert_int_equal(s, roce_udp_sport(q, q * 3 + 1));
	}
	assert_int_not_equal(roce_udp_sport(17, 18), roce_udp_sport(19, 18));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_opcode_round_trips),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_pad_count_beyond_payload),
		cmocka_unit_test(test_ethernet_trailer_ignored),
		cmocka_unit_test(test_udp_sport_in_ephemeral_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
