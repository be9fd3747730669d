/* SPDX-License-Identifier: MIT */
/*
 * roce_link_open (roce/link_open.h): every refusal that needs no
 * privilege, with its status and the words of its message; the in-memory
 * kind end to end (addresses, MACs made from them, a frame between two
 * ports opened this way, resolution without ARP); the kind names. The
 * raw-Ethernet kinds on real interfaces are the veth scripts' (perf_veth,
 * afpacket_roced, verbs_*).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "roce/gid.h"
#include "roce/link_open.h"
#include "roce/status.h"
#include "roce/verbs.h"

/* the link's IPv6 addresses go to roce_context_attr.ip6 as they are */
_Static_assert(ROCE_LINK_MAX_IP6 == ROCE_MAX_IP6, "link and context IPv6 arrays differ");

/* Open spec, expecting status want and a message containing words. */
static void refused(const struct roce_link_spec *spec, int want, const char *words)
{
	struct roce_link *l = (struct roce_link *)&l;    /* not NULL */
	char err[256] = "";

	assert_int_equal(roce_link_open(spec, &l, err, sizeof(err)), want);
	assert_null(l);
	if (!strstr(err, words))
		fail_msg("message '%s' lacks '%s'", err, words);
}

static void test_refusals(void **state)
{
	struct roce_link_spec s = { 0 };
	struct roce_link *l = NULL;

	(void)state;
	refused(NULL, ROCE_E_INVAL, "no spec");
	assert_int_equal(roce_link_open(&s, NULL, NULL, 0), ROCE_E_INVAL);
	/* unknown kinds */
	s.kind = ROCE_LINK_KINDS;
	refused(&s, ROCE_E_INVAL, "unknown link kind");
	s.kind = (enum roce_link_kind)77;
	refused(&s, ROCE_E_INVAL, "unknown link kind 77");
	/* kinds named for later */
	s.kind = ROCE_LINK_NS3;
	refused(&s, ROCE_E_UNSUPPORTED, "ns3 link is not implemented");
	s.kind = ROCE_LINK_SHARED;
	refused(&s, ROCE_E_UNSUPPORTED, "shared link is not implemented");
	/* what each kind needs */
	s = (struct roce_link_spec){ .kind = ROCE_LINK_PACKET };
	refused(&s, ROCE_E_INVAL, "packet link: no interface");
	s.ifname = "";
	refused(&s, ROCE_E_INVAL, "no interface");
	s = (struct roce_link_spec){ .kind = ROCE_LINK_XDP };
	refused(&s, ROCE_E_INVAL, "xdp link: no interface");
	s.ifname = "a-name-longer-than-ifnamsiz";
	refused(&s, ROCE_E_INVAL, "interface name too long");
	s = (struct roce_link_spec){ .kind = ROCE_LINK_MEMLINK };
	refused(&s, ROCE_E_INVAL, "no link to attach to");
	s.n_ip6 = ROCE_LINK_MAX_IP6 + 1;
	refused(&s, ROCE_E_INVAL, "IPv6 addresses: at most");
	/* an interface that is not there, whoever must answer ARP */
	s = (struct roce_link_spec){ .kind = ROCE_LINK_PACKET, .ifname = "nosuch0",
				     .ip = 0xC0000201 };
	refused(&s, ROCE_E_NOENT, "nosuch0: no such interface");
	s.kind = ROCE_LINK_XDP;
	s.arp = ROCE_LINK_ARP_KERNEL;
	refused(&s, ROCE_E_NOENT, "nosuch0: no such interface");
	/* no message buffer: the status alone */
	s = (struct roce_link_spec){ .kind = ROCE_LINK_NS3 };
	assert_int_equal(roce_link_open(&s, &l, NULL, 0), ROCE_E_UNSUPPORTED);
	roce_link_close(NULL);
}

static struct roce_link *open_mem(struct roce_memlink *ml, uint32_t ip,
				  const uint8_t *mac)
{
	struct roce_link_spec s = { .kind = ROCE_LINK_MEMLINK, .memlink = ml, .ip = ip };
	struct roce_link *l = NULL;
	char err[256] = "";

	if (mac)
		memcpy(s.mac, mac, 6);
	if (roce_link_open(&s, &l, err, sizeof(err)) != ROCE_OK)
		fail_msg("memlink open: %s", err);
	assert_non_null(l);
	return l;
}

static void test_memlink(void **state)
{
	static const uint8_t given[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const uint8_t made[6] = { 0x02, 0x00, 10, 0, 0, 1 };
	struct roce_memlink_config mc = { 0 };
	struct roce_memlink *ml = NULL;
	struct roce_link_spec s = { .kind = ROCE_LINK_MEMLINK, .ip = 0x0A000003, .n_ip6 = 2 };
	struct roce_link *a, *b, *c = NULL;
	const struct roce_link_info *ia, *ib;
	uint8_t frame[64] = { 0 }, mac[6], gid[16];
	struct roce_frame out = { frame, sizeof(frame) }, in;
	char err[256] = "";

	(void)state;
	assert_int_equal(roce_memlink_create(&mc, &ml), ROCE_OK);
	a = open_mem(ml, 0x0A000001, NULL);
	b = open_mem(ml, 0x0A000002, given);
	ia = roce_link_info(a);
	ib = roce_link_info(b);
	/* the addresses: a MAC made from the IPv4 one when none is given */
	assert_int_equal(ia->kind, ROCE_LINK_MEMLINK);
	assert_string_equal(ia->ifname, "");
	assert_int_equal(ia->ip, 0x0A000001);
	assert_memory_equal(ia->mac, made, 6);
	assert_memory_equal(roce_link_port(a)->mac, made, 6);
	assert_memory_equal(ib->mac, given, 6);
	assert_int_equal(ia->path_mtu, ROCE_MTU_4096);
	assert_int_equal(ia->n_ip6, 0);
	assert_false(ia->arp_answered);
	assert_null(roce_link_afpacket(a));
	assert_null(roce_link_afxdp(a));
	assert_string_equal(roce_link_mode_name(a), "memlink");
	assert_false(roce_link_wait(a, 10));
	/* the spec's IPv6 addresses are the GID table's */
	s.memlink = ml;
	memset(s.ip6[0], 0x20, 16);
	memset(s.ip6[1], 0x21, 16);
	assert_int_equal(roce_link_open(&s, &c, err, sizeof(err)), ROCE_OK);
	assert_int_equal(roce_link_info(c)->n_ip6, 2);
	assert_memory_equal(roce_link_info(c)->ip6[1], s.ip6[1], 16);
	roce_link_close(c);
	/* its port stays on the link: the same MAC again is refused */
	refused(&s, ROCE_E_EXISTS, "in-memory link: ");

	/* a frame from a's port to b's */
	memcpy(frame, ib->mac, 6);
	memcpy(frame + 6, ia->mac, 6);
	frame[12] = 0x08;
	frame[20] = 0xA5;
	assert_int_equal(roce_port_tx(roce_link_port(a), &out, 1), 1);
	assert_int_equal(roce_port_rx(roce_link_port(b), &in, 1), 1);
	assert_int_equal(in.len, sizeof(frame));
	assert_memory_equal(in.data, frame, sizeof(frame));
	roce_port_rx_release(roce_link_port(b), 1);

	/* resolution without ARP: an IPv4 peer's MAC is made from its
	 * address, a link-local GID's is in it, another GID has none */
	assert_int_equal(roce_link_resolve(b, 0x0A000001, 10, mac), ROCE_OK);
	assert_memory_equal(mac, made, 6);
	roce_gid_link_local(given, gid);
	assert_int_equal(roce_link_resolve6(a, gid, 10, mac, NULL, NULL), ROCE_OK);
	assert_memory_equal(mac, given, 6);
	memset(gid, 0x20, 16);
	assert_int_equal(roce_link_resolve6(a, gid, 10, mac, NULL, NULL),
			 ROCE_E_UNSUPPORTED);

	roce_link_close(a);
	roce_link_close(b);
	roce_memlink_destroy(ml);
}

static void test_kind_names(void **state)
{
	enum roce_link_kind k = ROCE_LINK_MEMLINK;

	(void)state;
	assert_int_equal(roce_link_kind_parse("packet", &k), ROCE_OK);
	assert_int_equal(k, ROCE_LINK_PACKET);
	assert_int_equal(roce_link_kind_parse("xdp", &k), ROCE_OK);
	assert_int_equal(k, ROCE_LINK_XDP);
	/* --link names the kinds opened on an interface only */
	assert_int_equal(roce_link_kind_parse("memlink", &k), ROCE_E_INVAL);
	assert_int_equal(roce_link_kind_parse("pigeon", &k), ROCE_E_INVAL);
	assert_int_equal(roce_link_kind_parse(NULL, &k), ROCE_E_INVAL);
	assert_int_equal(k, ROCE_LINK_XDP);
	assert_string_equal(roce_link_kind_name(ROCE_LINK_PACKET), "packet");
	assert_string_equal(roce_link_kind_name(ROCE_LINK_XDP), "xdp");
	assert_string_equal(roce_link_kind_name(ROCE_LINK_MEMLINK), "memlink");
	assert_string_equal(roce_link_kind_name(ROCE_LINK_NS3), "ns3");
	assert_string_equal(roce_link_kind_name(ROCE_LINK_SHARED), "shared");
	assert_string_equal(roce_link_kind_name(ROCE_LINK_KINDS), "?");
	assert_string_equal(roce_link_kind_name((enum roce_link_kind)-1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_memlink),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
