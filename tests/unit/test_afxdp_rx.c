/* SPDX-License-Identifier: MIT */
/*
 * The AF_XDP port without a kernel: which received frames it lends, which
 * it consumes (ARP) and which it drops (the AF_PACKET port's filter rule),
 * the address rings that keep lent and free UMEM frames (in order, across
 * the wrap of their counters), the mode names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "link/afxdp_fifo.h"
#include "link/arp.h"
#include "roce/afxdp.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/wire/ip.h"
#include "roce/wire/udp.h"

static const uint8_t me[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t peer[6] = { 2, 0, 0, 0, 0, 2 };

/* A UDP frame to dst_mac, dport, over IPv4 or IPv6, len bytes. */
static uint32_t udp_frame(uint8_t *f, uint32_t len, const uint8_t *dst, bool v6,
			  uint8_t proto, uint16_t dport)
{
	uint32_t l4;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, peer, 6);
	if (v6) {
		roce_put_be16(f + 12, ROCE_ETHERTYPE_IPV6);
		f[14] = 0x60;
		f[14 + 6] = proto;
		l4 = 14 + ROCE_IPV6_HLEN;
	} else {
		roce_put_be16(f + 12, ROCE_ETHERTYPE_IPV4);
		f[14] = 0x45;
		f[14 + 9] = proto;
		l4 = 14 + ROCE_IPV4_HLEN;
	}
	roce_put_be16(f + l4 + 2, dport);
	return len;
}

static enum roce_afx_class cls(const uint8_t *f, uint32_t len)
{
	return roce_afxdp_classify(f, len, me, ROCE_UDP_PORT);
}

static void test_lend_roce(void **state)
{
	uint8_t f[128];

	(void)state;
	assert_int_equal(cls(f, udp_frame(f, 128, me, false, 17, ROCE_UDP_PORT)),
			 ROCE_AFX_LEND);
	assert_int_equal(cls(f, udp_frame(f, 128, me, true, 17, ROCE_UDP_PORT)),
			 ROCE_AFX_LEND);
	/* IPv4 options move the UDP header */
	udp_frame(f, 128, me, false, 17, 0);
	f[14] = 0x46;
	roce_put_be16(f + 14 + 24 + 2, ROCE_UDP_PORT);
	assert_int_equal(cls(f, 128), ROCE_AFX_LEND);
	/* another configured port */
	udp_frame(f, 128, me, false, 17, 5000);
	assert_int_equal(roce_afxdp_classify(f, 128, me, 5000), ROCE_AFX_LEND);
	assert_int_equal(cls(f, 128), ROCE_AFX_DROP);
}

static void test_drop_others(void **state)
{
	uint8_t f[128];

	(void)state;
	/* to another MAC, even broadcast */
	assert_int_equal(cls(f, udp_frame(f, 128, peer, false, 17, ROCE_UDP_PORT)),
			 ROCE_AFX_DROP);
	memset(f, 0xFF, 6);
	assert_int_equal(cls(f, 128), ROCE_AFX_DROP);
	/* another UDP port; TCP to 4791 */
	assert_int_equal(cls(f, udp_frame(f, 128, me, false, 17, 4790)), ROCE_AFX_DROP);
	assert_int_equal(cls(f, udp_frame(f, 128, me, false, 6, ROCE_UDP_PORT)),
			 ROCE_AFX_DROP);
	assert_int_equal(cls(f, udp_frame(f, 128, me, true, 6, ROCE_UDP_PORT)),
			 ROCE_AFX_DROP);
	/* a non-first fragment: its bytes at "the UDP port" are payload */
	udp_frame(f, 128, me, false, 17, ROCE_UDP_PORT);
	roce_put_be16(f + 14 + 6, 185);
	assert_int_equal(cls(f, 128), ROCE_AFX_DROP);
	/* the first fragment (MF set, offset 0) is still RoCE */
	roce_put_be16(f + 14 + 6, ROCE_IPV4_MF);
	assert_int_equal(cls(f, 128), ROCE_AFX_LEND);
	/* a bad IP version or header length */
	udp_frame(f, 128, me, false, 17, ROCE_UDP_PORT);
	f[14] = 0x44;
	assert_int_equal(cls(f, 128), ROCE_AFX_DROP);
	f[14] = 0x65;
	assert_int_equal(cls(f, 128), ROCE_AFX_DROP);
	/* tagged: belongs to the VLAN's interface */
	udp_frame(f, 128, me, false, 17, ROCE_UDP_PORT);
	roce_put_be16(f + 12, ROCE_ETHERTYPE_VLAN);
	assert_int_equal(cls(f, 128), ROCE_AFX_DROP);
}

static void test_short(void **state)
{
	uint8_t f[128];

	(void)state;
	udp_frame(f, 128, me, false, 17, ROCE_UDP_PORT);
	assert_int_equal(cls(f, 14 + 20 + 8), ROCE_AFX_LEND);
	/* cut before the UDP destination port, or inside the IP header */
	assert_int_equal(cls(f, 14 + 20 + 3), ROCE_AFX_DROP);
	assert_int_equal(cls(f, 14 + 19), ROCE_AFX_DROP);
	assert_int_equal(cls(f, 13), ROCE_AFX_DROP);
	assert_int_equal(cls(f, 0), ROCE_AFX_DROP);
	udp_frame(f, 128, me, true, 17, ROCE_UDP_PORT);
	assert_int_equal(cls(f, 14 + 40 + 3), ROCE_AFX_DROP);
	assert_int_equal(cls(f, 14 + 39), ROCE_AFX_DROP);
}

static void test_arp(void **state)
{
	uint8_t f[ROCE_ARP_FRAME_LEN];

	(void)state;
	/* requests are broadcast: ARP is the port's whatever the MAC */
	roce_arp_build_request(f, peer, 0xC0000202, 0xC0000201);
	assert_int_equal(cls(f, sizeof(f)), ROCE_AFX_ARP);
	assert_int_equal(cls(f, 14), ROCE_AFX_ARP);
}

static void test_fifo_order_and_wrap(void **state)
{
	uint64_t slot[8], v = 0;
	struct afx_fifo q = { .slot = slot, .mask = 7 };

	(void)state;
	/* counters just before the 32-bit wrap: count stays right across */
	q.head = q.tail = UINT32_MAX - 2;
	assert_false(afx_fifo_pop(&q, &v));
	for (uint64_t i = 0; i < 8; i++)
		assert_true(afx_fifo_push(&q, 4096 * i));
	assert_int_equal(afx_fifo_count(&q), 8);
	assert_true(q.tail < q.head);           /* the tail has wrapped */
	assert_false(afx_fifo_push(&q, 1));      /* full: refused, not lost */
	for (uint64_t i = 0; i < 5; i++) {
		assert_true(afx_fifo_pop(&q, &v));
		assert_int_equal(v, 4096 * i);   /* oldest first */
	}
	for (uint64_t i = 8; i < 13; i++)
		assert_true(afx_fifo_push(&q, 4096 * i));
	assert_int_equal(afx_fifo_count(&q), 8);
	for (uint64_t i = 5; i < 13; i++) {
		assert_true(afx_fifo_pop(&q, &v));
		assert_int_equal(v, 4096 * i);
	}
	assert_int_equal(afx_fifo_count(&q), 0);
	assert_false(afx_fifo_pop(&q, &v));
}

static void test_modes(void **state)
{
	enum roce_afxdp_mode m = ROCE_AFX_AUTO;

	(void)state;
	assert_int_equal(roce_afxdp_mode_parse("native", &m), ROCE_OK);
	assert_int_equal(m, ROCE_AFX_NATIVE);
	assert_int_equal(roce_afxdp_mode_parse("generic", &m), ROCE_OK);
	assert_int_equal(m, ROCE_AFX_GENERIC);
	assert_int_equal(roce_afxdp_mode_parse("auto", &m), ROCE_OK);
	assert_int_equal(m, ROCE_AFX_AUTO);
	assert_int_equal(roce_afxdp_mode_parse("zc", &m), ROCE_E_INVAL);
	assert_int_equal(roce_afxdp_mode_parse(NULL, &m), ROCE_E_INVAL);
	assert_string_equal(roce_afxdp_mode_name(ROCE_AFX_NATIVE), "native");
	assert_string_equal(roce_afxdp_mode_name((enum roce_afxdp_mode)9), "?");
}

static void test_open_refuses_nothing(void **state)
{
	struct roce_afxdp *afx = NULL;
	char err[256] = "";

	(void)state;
	/* without a config (or without the port built) a status and a
	 * message, never a port */
	assert_int_not_equal(roce_afxdp_open(NULL, &afx, err, sizeof(err)), ROCE_OK);
	assert_null(afx);
	assert_true(err[0] != '\0');
	/* the frame that must fit one UMEM frame at the largest MTU taken */
	assert_true(ROCE_AFX_MAX_FRAME == ROCE_AFX_CHUNK - ROCE_AFX_HEADROOM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lend_roce),
		cmocka_unit_test(test_drop_others),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_arp),
		cmocka_unit_test(test_fifo_order_and_wrap),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_open_refuses_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
