/* SPDX-License-Identifier: MIT */
/*
 * The port's GID table (roce/gid.h) as Linux builds it for rxe: entry 0
 * the link-local GID from the MAC (checked against rxe's own, from the
 * golden capture's guests), 1 the IPv4-mapped GID, then the IPv6
 * addresses; every entry RoCE v2; through the verbs (roce_query_gid,
 * roce_query_gid_type) and into a QP's address vector (roce_modify_qp
 * refuses an SGID the port has not or a DGID of the other family, and
 * roce_query_qp gives the GRH back).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "roce/gid.h"
#include "roce/memlink.h"
#include "roce/status.h"
#include "roce/verbs.h"

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x5b, 0x00, 0x0b };

static void gid_of(const char *s, uint8_t gid[16])
{
	assert_int_equal(roce_gid_parse(s, gid), ROCE_OK);
}

static void test_link_local(void **state)
{
	uint8_t g[16], want[16];
	char s[64];

	(void)state;
	/* guest a of the interop harness: rxe lists fe80::5054:ff:fe5b:b
	 * (tests/vectors/captures/rxe_rc_pingpong_ipv6_ll.pcap) */
	roce_gid_link_local(mac_a, g);
	gid_of("fe80::5054:ff:fe5b:b", want);
	assert_memory_equal(g, want, 16);
	assert_string_equal(roce_gid_str(g, s, sizeof(s)), "fe80::5054:ff:fe5b:b");
	/* the universal/local bit is inverted, not set */
	roce_gid_link_local((const uint8_t[6]){ 0x02, 0x52, 0x4e, 0, 0, 2 }, g);
	gid_of("fe80::52:4eff:fe00:2", want);
	assert_memory_equal(g, want, 16);
}

static void test_v4mapped_and_classes(void **state)
{
	uint8_t g[16];
	char s[64];

	(void)state;
	roce_gid_from_ipv4(0x0A5B0002u, g);
	assert_true(roce_gid_is_v4mapped(g));
	assert_int_equal(roce_gid_to_ipv4(g), 0x0A5B0002u);
	assert_string_equal(roce_gid_str(g, s, sizeof(s)), "::ffff:10.91.0.2");
	assert_true(roce_gid_is_unicast(g));
	gid_of("fd91::2", g);
	assert_false(roce_gid_is_v4mapped(g));
	assert_int_equal(roce_gid_to_ipv4(g), 0);
	assert_true(roce_gid_is_unicast(g));
	gid_of("ff02::1", g);
	assert_false(roce_gid_is_unicast(g));
	gid_of("::", g);
	assert_false(roce_gid_is_unicast(g));
	gid_of("::1", g);
	assert_false(roce_gid_is_unicast(g));
	assert_int_equal(roce_gid_parse("fd91::zz", g), ROCE_E_FORMAT);
	assert_int_equal(roce_gid_parse("10.0.0.1", g), ROCE_E_FORMAT);
	assert_int_equal(roce_gid_parse(NULL, g), ROCE_E_FORMAT);
}

static void test_table_order(void **state)
{
	struct roce_gid_table t;
	uint8_t ip6[4][16], g[16];

	(void)state;
	gid_of("fd91::11", ip6[0]);
	gid_of("fe80::5054:ff:fe5b:b", ip6[1]);     /* the default GID again */
	gid_of("2001:db8::7", ip6[2]);
	gid_of("fd91::11", ip6[3]);                 /* twice */
	assert_int_equal(roce_gid_table_build(&t, mac_a, 0x0A5B000Bu,
					      (const uint8_t (*)[16])ip6, 4), ROCE_OK);
	assert_int_equal(t.n, 4);
	roce_gid_link_local(mac_a, g);
	assert_memory_equal(t.e[0].gid, g, 16);
	roce_gid_from_ipv4(0x0A5B000Bu, g);
	assert_memory_equal(t.e[1].gid, g, 16);
	assert_memory_equal(t.e[2].gid, ip6[0], 16);
	assert_memory_equal(t.e[3].gid, ip6[2], 16);
	for (unsigned i = 0; i < t.n; i++)
		assert_int_equal(t.e[i].type, ROCE_GID_TYPE_ROCE_V2);
	assert_int_equal(roce_gid_table_find(&t, ip6[2]), 3);
	gid_of("fd91::12", g);
	assert_int_equal(roce_gid_table_find(&t, g), -1);
	/* no IPv4 address: the IPv6 ones follow the link-local GID */
	assert_int_equal(roce_gid_table_build(&t, mac_a, 0, (const uint8_t (*)[16])ip6, 1),
			 ROCE_OK);
	assert_int_equal(t.n, 2);
	assert_memory_equal(t.e[1].gid, ip6[0], 16);
	/* what cannot be a GID, and more than the table holds */
	gid_of("ff02::1", ip6[1]);
	assert_int_equal(roce_gid_table_build(&t, mac_a, 1, (const uint8_t (*)[16])ip6, 2),
			 ROCE_E_INVAL);
	assert_int_equal(t.n, 0);
	roce_gid_from_ipv4(0x01020304u, ip6[1]);
	assert_int_equal(roce_gid_table_build(&t, mac_a, 1, (const uint8_t (*)[16])ip6, 2),
			 ROCE_E_INVAL);
	{
		uint8_t many[ROCE_MAX_GID][16];

		memset(many, 0, sizeof(many));
		for (unsigned i = 0; i < ROCE_MAX_GID; i++) {
			many[i][0] = 0xfd;
			many[i][15] = (uint8_t)(i + 1);
		}
		assert_int_equal(roce_gid_table_build(&t, mac_a, 1,
						      (const uint8_t (*)[16])many,
						      ROCE_MAX_GID - 2), ROCE_OK);
		assert_int_equal(t.n, ROCE_MAX_GID);
		assert_int_equal(roce_gid_table_build(&t, mac_a, 1,
						      (const uint8_t (*)[16])many,
						      ROCE_MAX_GID - 1), ROCE_E_FULL);
	}
}

/* ---- through the verbs --------------------------------------------------- */

struct ctxs {
	struct roce_memlink *link;
	struct roce_port port;
	struct roce_context *ctx;
};

/* A context whose attributes name n_ip6 IPv6 addresses: ip6[0] each time
 * (only the first ROCE_MAX_IP6 fit the attributes). */
static void open_ctx(struct ctxs *c, unsigned n_ip6, const char *ip6, int want)
{
	struct roce_memlink_config lc = { .seed = 1 };
	struct roce_context_attr ca = { .ip = 0x0A5B000Bu };

	memset(c, 0, sizeof(*c));
	assert_int_equal(roce_memlink_create(&lc, &c->link), ROCE_OK);
	assert_int_equal(roce_memlink_attach(c->link, mac_a, &c->port), ROCE_OK);
	memcpy(ca.mac, mac_a, 6);
	ca.port = &c->port;
	ca.n_ip6 = n_ip6;
	for (unsigned i = 0; i < n_ip6 && i < ROCE_MAX_IP6; i++)
		gid_of(ip6, ca.ip6[i]);
	assert_int_equal(roce_open(&ca, &c->ctx), want);
}

static void close_ctx(struct ctxs *c)
{
	roce_close(c->ctx);
	roce_memlink_destroy(c->link);
}

static void test_query_gid(void **state)
{
	struct ctxs c;
	uint8_t g[16], want[16];
	enum roce_gid_type type;

	(void)state;
	open_ctx(&c, 1, "fd91::11", ROCE_OK);
	assert_int_equal(roce_query_gid(c.ctx, 1, 0, g), ROCE_OK);
	gid_of("fe80::5054:ff:fe5b:b", want);
	assert_memory_equal(g, want, 16);
	assert_int_equal(roce_query_gid(c.ctx, 1, 1, g), ROCE_OK);
	gid_of("::ffff:10.91.0.11", want);
	assert_memory_equal(g, want, 16);
	assert_int_equal(roce_query_gid(c.ctx, 1, 2, g), ROCE_OK);
	gid_of("fd91::11", want);
	assert_memory_equal(g, want, 16);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(roce_query_gid_type(c.ctx, 1, i, &type), ROCE_OK);
		assert_int_equal(type, ROCE_GID_TYPE_ROCE_V2);
	}
	assert_int_equal(roce_query_gid(c.ctx, 1, 3, g), ROCE_E_NOENT);
	assert_int_equal(roce_query_gid_type(c.ctx, 1, 3, &type), ROCE_E_NOENT);
	assert_int_equal(roce_query_gid(c.ctx, 2, 0, g), ROCE_E_INVAL);
	assert_int_equal(roce_query_gid(c.ctx, 1, -1, g), ROCE_E_INVAL);
	assert_int_equal(roce_context_gids(c.ctx)->n, 3);
	close_ctx(&c);
	open_ctx(&c, 1, "ff02::1", ROCE_E_INVAL);
	roce_memlink_destroy(c.link);
	open_ctx(&c, ROCE_MAX_IP6 + 1, "fd91::11", ROCE_E_FULL);
	roce_memlink_destroy(c.link);
}

static void test_modify_qp_av(void **state)
{
	struct ctxs c;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC,
					.cap = { 4, 4, 1, 1, 0 } };
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF }, back;
	const unsigned rtr = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN;

	(void)state;
	open_ctx(&c, 1, "fd91::11", ROCE_OK);
	pd = roce_alloc_pd(c.ctx);
	cq = roce_create_cq(c.ctx, 8);
	qa.send_cq = qa.recv_cq = cq;
	qp = roce_create_qp(pd, &qa);
	assert_non_null(qp);
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX),
			 ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_1024;
	at.dest_qp_num = 0x12;
	at.ah_attr.dest_mac[0] = 0x02;
	at.ah_attr.is_global = true;
	at.ah_attr.grh.hop_limit = 1;           /* as ibv_rc_pingpong asks */
	at.ah_attr.grh.traffic_class = 0x68;
	at.ah_attr.grh.flow_label = 0x12345;
	/* an SGID the port has not; the families mixed either way; a
	 * multicast DGID; a flow label over 20 bits */
	at.ah_attr.grh.sgid_index = 3;
	gid_of("fd91::12", at.ah_attr.grh.dgid);
	assert_int_equal(roce_modify_qp(qp, &at, rtr), ROCE_E_INVAL);
	at.ah_attr.grh.sgid_index = 1;
	assert_int_equal(roce_modify_qp(qp, &at, rtr), ROCE_E_INVAL);
	at.ah_attr.grh.sgid_index = 2;
	gid_of("::ffff:10.91.0.12", at.ah_attr.grh.dgid);
	assert_int_equal(roce_modify_qp(qp, &at, rtr), ROCE_E_INVAL);
	gid_of("ff02::2", at.ah_attr.grh.dgid);
	assert_int_equal(roce_modify_qp(qp, &at, rtr), ROCE_E_INVAL);
	gid_of("fd91::12", at.ah_attr.grh.dgid);
	at.ah_attr.grh.flow_label = 0x100000;
	assert_int_equal(roce_modify_qp(qp, &at, rtr), ROCE_E_INVAL);
	at.ah_attr.grh.flow_label = 0x12345;
	assert_int_equal(roce_modify_qp(qp, &at, rtr), ROCE_OK);
	/* the context holds the GRH; the hop limit is the route's */
	assert_int_equal(roce_query_qp(qp, &back), ROCE_OK);
	assert_true(back.ah_attr.is_global);
	assert_memory_equal(back.ah_attr.grh.dgid, at.ah_attr.grh.dgid, 16);
	assert_int_equal(back.ah_attr.grh.sgid_index, 2);
	assert_int_equal(back.ah_attr.grh.traffic_class, 0x68);
	assert_int_equal(back.ah_attr.grh.flow_label, 0x12345);
	assert_int_equal(back.ah_attr.grh.hop_limit, ROCE_HOP_LIMIT);
	assert_int_equal(back.ah_attr.dest_ip, 0);
	roce_destroy_qp(qp);
	/* IPv4 through the GRH: the IPv4-mapped SGID and DGID */
	qp = roce_create_qp(pd, &qa);
	at.qp_state = ROCE_QPS_INIT;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX),
			 ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.ah_attr.grh.sgid_index = 1;
	at.ah_attr.grh.flow_label = 0;
	gid_of("::ffff:10.91.0.12", at.ah_attr.grh.dgid);
	assert_int_equal(roce_modify_qp(qp, &at, rtr), ROCE_OK);
	assert_int_equal(roce_query_qp(qp, &back), ROCE_OK);
	assert_int_equal(back.ah_attr.dest_ip, 0x0A5B000Cu);
	assert_memory_equal(back.ah_attr.grh.dgid, at.ah_attr.grh.dgid, 16);
	roce_destroy_qp(qp);
	roce_destroy_cq(cq);
	roce_dealloc_pd(pd);
	close_ctx(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_local),
		cmocka_unit_test(test_v4mapped_and_classes),
		cmocka_unit_test(test_table_order),
		cmocka_unit_test(test_query_gid),
		cmocka_unit_test(test_modify_qp_av),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
