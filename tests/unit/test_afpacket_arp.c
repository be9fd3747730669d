/* SPDX-License-Identifier: MIT */
/*
 * ARP wire format and answers, the path MTU rule, mode names, and the
 * raw-Ethernet port's refusals of bad configuration: everything about the
 * port that needs no privileges and no interface.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "link/arp.h"
#include "roce/afpacket.h"
#include "roce/params.h"
#include "roce/status.h"

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0A };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0B };
#define IP_A 0xC0000201u
#define IP_B 0xC0000202u

static void test_request_round_trip(void **state)
{
	uint8_t f[ROCE_ARP_FRAME_LEN + 4];
	struct roce_arp a;

	(void)state;
	memset(f, 0xEE, sizeof(f));
	assert_int_equal(roce_arp_build_request(f, mac_a, IP_A, IP_B), 60);
	/* broadcast from us, EtherType ARP, zero padding to 60 bytes */
	for (int i = 0; i < 6; i++)
		assert_int_equal(f[i], 0xFF);
	assert_memory_equal(f + 6, mac_a, 6);
	assert_int_equal(f[12], 0x08);
	assert_int_equal(f[13], 0x06);
	for (int i = 42; i < 60; i++)
		assert_int_equal(f[i], 0);
	assert_int_equal(f[60], 0xEE);
	/* RFC 826 body: Ethernet(1) IPv4(0x0800) 6 4 request(1) */
	assert_int_equal(f[15], 1);
	assert_int_equal(f[16], 0x08);
	assert_int_equal(f[18], 6);
	assert_int_equal(f[19], 4);
	assert_int_equal(f[21], 1);
	assert_int_equal(roce_arp_parse(f, 60, &a), ROCE_OK);
	assert_int_equal(a.op, ROCE_ARP_OP_REQUEST);
	assert_memory_equal(a.sha, mac_a, 6);
	assert_int_equal(a.spa, IP_A);
	assert_int_equal(a.tpa, IP_B);
	/* 42 bytes suffice (a peer may not pad) */
	assert_int_equal(roce_arp_parse(f, 42, &a), ROCE_OK);
}

static void test_parse_rejects(void **state)
{
	uint8_t f[ROCE_ARP_FRAME_LEN];
	struct roce_arp a;

	(void)state;
	roce_arp_build_request(f, mac_a, IP_A, IP_B);
	assert_int_equal(roce_arp_parse(f, 41, &a), ROCE_E_TOO_SHORT);
	f[13] = 0x00;                           /* IPv4, not ARP */
	assert_int_equal(roce_arp_parse(f, 60, &a), ROCE_E_ETHERTYPE);
	roce_arp_build_request(f, mac_a, IP_A, IP_B);
	f[15] = 6;                              /* IEEE 802 hardware type */
	assert_int_equal(roce_arp_parse(f, 60, &a), ROCE_E_FORMAT);
	roce_arp_build_request(f, mac_a, IP_A, IP_B);
	f[19] = 16;                             /* IPv6-sized addresses */
	assert_int_equal(roce_arp_parse(f, 60, &a), ROCE_E_FORMAT);
	roce_arp_build_request(f, mac_a, IP_A, IP_B);
	f[21] = 3;                              /* RARP request */
	assert_int_equal(roce_arp_parse(f, 60, &a), ROCE_E_FORMAT);
}

static void test_answer(void **state)
{
	uint8_t req[ROCE_ARP_FRAME_LEN], rep[ROCE_ARP_FRAME_LEN];
	struct roce_arp a, r;

	(void)state;
	roce_arp_build_request(req, mac_a, IP_A, IP_B);
	assert_int_equal(roce_arp_parse(req, 60, &a), ROCE_OK);
	/* B answers: unicast to A, B's MAC and IP as sender */
	assert_int_equal(roce_arp_answer(&a, mac_b, IP_B, rep), 60);
	assert_memory_equal(rep, mac_a, 6);
	assert_memory_equal(rep + 6, mac_b, 6);
	assert_int_equal(roce_arp_parse(rep, 60, &r), ROCE_OK);
	assert_int_equal(r.op, ROCE_ARP_OP_REPLY);
	assert_memory_equal(r.sha, mac_b, 6);
	assert_int_equal(r.spa, IP_B);
	assert_memory_equal(r.tha, mac_a, 6);
	assert_int_equal(r.tpa, IP_A);
	/* not for us, not a request, no IP of our own */
	assert_int_equal(roce_arp_answer(&a, mac_b, IP_B + 1, rep), 0);
	assert_int_equal(roce_arp_answer(&r, mac_a, IP_A, rep), 0);
	assert_int_equal(roce_arp_answer(&a, mac_b, 0, rep), 0);
	/* RFC 5227 probe (sender 0.0.0.0) is answered */
	roce_arp_build_request(req, mac_a, 0, IP_B);
	assert_int_equal(roce_arp_parse(req, 60, &a), ROCE_OK);
	assert_int_equal(roce_arp_answer(&a, mac_b, IP_B, rep), 60);
	/* someone claiming our address, or a multicast sender: no answer */
	roce_arp_build_request(req, mac_a, IP_B, IP_B);
	assert_int_equal(roce_arp_parse(req, 60, &a), ROCE_OK);
	assert_int_equal(roce_arp_answer(&a, mac_b, IP_B, rep), 0);
	roce_arp_build_request(req, mac_a, IP_A, IP_B);
	assert_int_equal(roce_arp_parse(req, 60, &a), ROCE_OK);
	a.sha[0] = 0x01;
	assert_int_equal(roce_arp_answer(&a, mac_b, IP_B, rep), 0);
}

static void test_path_mtu_rule(void **state)
{
	(void)state;
	/* the largest IB MTU m with m + 86 <= ifmtu + 14 */
	assert_int_equal(roce_path_mtu_for_netdev(1500), ROCE_MTU_1024);
	assert_int_equal(roce_path_mtu_for_netdev(9000), ROCE_MTU_4096);
	assert_int_equal(roce_path_mtu_for_netdev(1096), ROCE_MTU_1024);
	assert_int_equal(roce_path_mtu_for_netdev(1095), ROCE_MTU_512);
	assert_int_equal(roce_path_mtu_for_netdev(2120), ROCE_MTU_2048);
	assert_int_equal(roce_path_mtu_for_netdev(2119), ROCE_MTU_1024);
	assert_int_equal(roce_path_mtu_for_netdev(4168), ROCE_MTU_4096);
	assert_int_equal(roce_path_mtu_for_netdev(4167), ROCE_MTU_2048);
	assert_int_equal(roce_path_mtu_for_netdev(328), ROCE_MTU_256);
	assert_int_equal(roce_path_mtu_for_netdev(327), 0);
	assert_int_equal(roce_path_mtu_for_netdev(0), 0);
	assert_int_equal(roce_path_mtu_for_netdev(65536), ROCE_MTU_4096);
	assert_int_equal(roce_path_mtu_for_netdev(0xFFFFFFFFu), ROCE_MTU_4096);
}

static void test_mode_names(void **state)
{
	enum roce_afpacket_mode m;

	(void)state;
	for (int i = ROCE_AFP_AUTO; i <= ROCE_AFP_MMSG; i++) {
		const char *name = roce_afpacket_mode_name((enum roce_afpacket_mode)i);

		assert_int_equal(roce_afpacket_mode_parse(name, &m), ROCE_OK);
		assert_int_equal(m, i);
	}
	assert_string_equal(roce_afpacket_mode_name(ROCE_AFP_RING_V3), "ring-v3");
	assert_string_equal(roce_afpacket_mode_name((enum roce_afpacket_mode)9), "?");
	assert_int_equal(roce_afpacket_mode_parse("ring3", &m), ROCE_E_INVAL);
	assert_int_equal(roce_afpacket_mode_parse("", &m), ROCE_E_INVAL);
	assert_int_equal(roce_afpacket_mode_parse(NULL, &m), ROCE_E_INVAL);
}

/* Open must refuse, with the given status and a message containing want. */
static void refuse(const struct roce_afpacket_config *c, int status, const char *want)
{
	struct roce_afpacket *afp = (struct roce_afpacket *)0x1;
	char err[256];

	assert_int_equal(roce_afpacket_open(c, &afp, err, sizeof(err)), status);
	assert_ptr_equal(afp, (struct roce_afpacket *)0x1);    /* untouched */
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

static void test_open_refuses(void **state)
{
	struct roce_afpacket_config c = { .ifname = "eth0" };
	struct roce_afpacket *afp;

	(void)state;
	assert_int_equal(roce_afpacket_open(NULL, &afp, NULL, 0), ROCE_E_INVAL);
	c.ifname = "";
	refuse(&c, ROCE_E_INVAL, "interface name");
	c.ifname = "a-name-longer-than-ifnamsiz";
	refuse(&c, ROCE_E_INVAL, "interface name");
	c.ifname = "eth0";
	c.rx_frames = 1000;
	refuse(&c, ROCE_E_INVAL, "powers of two");
	c.rx_frames = 8;
	refuse(&c, ROCE_E_RANGE, "powers of two");
	c.rx_frames = 0;
	c.tx_frames = 1u << 20;
	refuse(&c, ROCE_E_RANGE, "powers of two");
	c.tx_frames = 0;
	c.tx_loss = 1.5;
	refuse(&c, ROCE_E_INVAL, "tx_loss");
	c.tx_loss = NAN;
	refuse(&c, ROCE_E_INVAL, "tx_loss");
	c.tx_loss = 0;
	c.mac[0] = 0x01;
	refuse(&c, ROCE_E_INVAL, "multicast");
	c.mac[0] = 0;
	c.mode = (enum roce_afpacket_mode)7;
	refuse(&c, ROCE_E_INVAL, "mode");
	c.mode = ROCE_AFP_AUTO;
	c.ifname = "nosuchif9";
	refuse(&c, ROCE_E_NOENT, "nosuchif9: no such interface");
}

static void test_resolve_refuses(void **state)
{
	uint8_t mac[6];

	(void)state;
	assert_int_equal(roce_neigh_lookup("nosuchif9", IP_B, mac), ROCE_E_NOENT);
	assert_int_equal(roce_neigh_lookup(NULL, IP_B, mac), ROCE_E_INVAL);
	assert_int_equal(roce_neigh_lookup("lo", 0, mac), ROCE_E_INVAL);
	assert_int_equal(roce_neigh_lookup("lo", 0xFFFFFFFFu, mac), ROCE_E_INVAL);
	assert_int_equal(roce_arp_resolve("lo", mac_a, IP_A, 0, 10, mac), ROCE_E_INVAL);
	assert_int_equal(roce_arp_resolve("lo", mac_a, IP_A, IP_A, 10, mac), ROCE_E_INVAL);
	assert_int_equal(roce_arp_resolve("lo", mac_a, IP_A, 0xE0000001u, 10, mac),
			 ROCE_E_INVAL);
	assert_int_equal(roce_arp_resolve("nosuchif9", mac_a, IP_A, IP_B, 10, mac),
			 ROCE_E_NOENT);
	assert_int_equal(roce_afpacket_resolve(NULL, IP_B, 10, mac), ROCE_E_INVAL);
	assert_string_equal(roce_status_name(ROCE_E_PERM), "perm");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_answer),
		cmocka_unit_test(test_path_mtu_rule),
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_open_refuses),
		cmocka_unit_test(test_resolve_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
