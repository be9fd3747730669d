/* SPDX-License-Identifier: MIT */
/*
 * Config file parser: good files (including the shipped examples) and every
 * kind of bad line, each rejected with its file name and line number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "roce/layout.h"

#define DEV "mac = 02:00:00:00:00:01\nip = 10.0.0.1\n"

static struct roce_config *new_cfg(void)
{
	struct roce_config *c = malloc(sizeof(*c));

	assert_non_null(c);
	return c;
}

static int parse(struct roce_config *c, const char *text, char *err,
		 size_t errlen)
{
	return roce_config_parse(text, strlen(text), "t.conf", c, err, errlen);
}

static void test_good(void **state)
{
	struct roce_config *c = new_cfg();
	char err[256] = "";
	const char *text =
		"# device\r\n"
		"mac = 02:00:00:00:00:01   # ours\r\n"
		"IP=10.0.0.1\n"
		"peer_mac = 02-00-00-00-00-02\n"
		"peer_ip = 10.0.0.2\n"
		"peer_udp_port = 5000\n"
		"loopback = on\n"
		"\n"
		"[qp 0x11]\n"
		"  type = uc\n"
		"  state = rtr\n"
		"  mtu = 2048\n"
		"  dest_qpn = 0xffffff\n"
		"  access = none\n"
		"[QP 18]\n"
		"type = ud\n"
		"peer_ip = 10.0.0.9\n"
		"[mr 3]\n"
		"va = 0x10000\n"
		"pa = 1M\n"
		"len = 64k\n"
		"access = local_write, remote_read\n"
		"rkey = 0x000003a7\n"
		"valid = no\n";

	(void)state;
	assert_int_equal(parse(c, text, err, sizeof(err)), ROCE_OK);
	assert_int_equal(c->local.ip, 0x0A000001);
	assert_int_equal(c->local.udp_port, 4791);
	assert_int_equal(c->peer.udp_port, 5000);
	assert_int_equal(c->peer.mac[5], 2);
	assert_true(c->loopback);
	assert_int_equal(c->link_timeout_ms, ROCE_DRV_LINK_TIMEOUT_MS);
	assert_int_equal(c->n_qp, 2);
	assert_int_equal(c->qp[0].qpn, 17);
	assert_int_equal(c->qp[0].type, ROCE_QPT_UC);
	assert_int_equal(c->qp[0].state, ROCE_QPS_RTR);
	assert_int_equal(c->qp[0].mtu, ROCE_MTU_2048);
	assert_int_equal(c->qp[0].dest_qpn, 0xFFFFFF);
	assert_int_equal(c->qp[0].access, 0);
	assert_int_equal(c->qp[0].peer_ip, 0x0A000002);	/* inherited */
	assert_int_equal(c->qp[0].peer_mac[5], 2);
	assert_int_equal(c->qp[1].type, ROCE_QPT_UD);
	assert_int_equal(c->qp[1].state, ROCE_QPS_RTS);	/* default */
	assert_int_equal(c->qp[1].peer_ip, 0x0A000009);
	assert_int_equal(c->n_mr, 1);
	assert_int_equal(c->mr[0].pa, 1u << 20);
	assert_int_equal(c->mr[0].len, 65536);
	assert_int_equal(c->mr[0].lkey, 0x3a7);	/* defaults to rkey */
	assert_int_equal(c->mr[0].access, ROCE_ACCESS_LOCAL_WRITE |
			 ROCE_ACCESS_REMOTE_READ);
	assert_false(c->mr[0].valid);
	free(c);
}

static void test_device_section(void **state)
{
	struct roce_config *c = new_cfg();
	char err[256] = "";

	(void)state;
	assert_int_equal(parse(c, "[device]\n" DEV "[qp 1]\ntype=ud\n", err,
			       sizeof(err)), ROCE_OK);
	assert_int_equal(c->n_qp, 1);
	assert_int_equal(parse(c, "[qp 1]\ntype=ud\n[device]\n" DEV, err,
			       sizeof(err)), ROCE_OK);
	free(c);
}

static void test_examples(void **state)
{
	static const char *const files[] = { "loopback.conf", "two-node.conf" };
	struct roce_config *c = new_cfg();
	char path[512], err[256];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/examples/%s", ROCE_SOURCE_DIR,
			 files[i]);
		assert_int_equal(roce_config_load(path, c, err, sizeof(err)),
				 ROCE_OK);
		assert_true(c->n_qp >= 2);
		assert_true(c->n_mr >= 1);
	}
	assert_int_equal(c->mr[0].rkey, 0x3a7);
	assert_int_equal(c->mr[1].len, 16u << 20);
	assert_int_equal(roce_config_load("/nonexistent/x.conf", c, err,
					  sizeof(err)), ROCE_E_IO);
	assert_non_null(strstr(err, "/nonexistent/x.conf"));
	free(c);
}

struct bad {
	const char *text;
	unsigned line;
	const char *needle;
};

static const struct bad bad_cases[] = {
	{ DEV "udp_port 4791\n", 3, "expected 'key = value'" },
	{ DEV "colour = blue\n", 3, "unknown key 'colour'" },
	{ "mac = 02:00:00:00:00\nip = 10.0.0.1\n", 1, "bad MAC address" },
	{ "mac = 02:00:00:00:00:0g\n", 1, "bad MAC address" },
	{ "mac = 02:00:00:00:00:01\nip = 10.0.0.256\n", 2, "bad IPv4 address" },
	{ "mac = 02:00:00:00:00:01\nip = 10.0.1\n", 2, "bad IPv4 address" },
	{ DEV "udp_port = 70000\n", 3, "out of range" },
	{ DEV "udp_port = 0\n", 3, "out of range" },
	{ DEV "udp_port = -1\n", 3, "not a number" },
	{ DEV "link_timeout_ms = soon\n", 3, "not a number" },
	{ DEV "loopback = maybe\n", 3, "not a boolean" },
	{ DEV "ip = 10.0.0.2\n", 3, "given twice" },
	{ DEV "peer_ip =\n", 3, "has no value" },
	{ DEV "[qp]\n", 3, "bad section header" },
	{ DEV "[cq 1]\n", 3, "bad section header" },
	{ DEV "[qp 1 2]\n", 3, "bad section header" },
	{ DEV "[qp 1\n", 3, "lacks ']'" },
	{ DEV "[qp x]\n", 3, "bad section number" },
	{ DEV "[qp 16384]\n", 3, "out of range" },
	{ DEV "[mr -1]\n", 3, "bad section number" },
	{ DEV "[mr 4096]\n", 3, "out of range" },
	{ DEV "[qp 1]\ntype=ud\n[qp 1]\n", 5, "defined twice" },
	{ DEV "[qp 1]\ntype = xrc\n", 4, "unknown QP type" },
	{ DEV "[qp 1]\nstate = ready\n", 4, "unknown QP state" },
	{ DEV "[qp 1]\nmtu = 1500\n", 4, "bad path MTU" },
	{ DEV "[qp 1]\naccess = remote_exec\n", 4, "unknown access right" },
	{ DEV "[qp 1]\ndest_qpn = 0x1000000\n", 4, "out of range" },
	{ DEV "[qp 1]\nsq_psn = 16777216\n", 4, "out of range" },
	{ DEV "[qp 1]\ntimeout = 32\n", 4, "out of range" },
	{ DEV "[qp 1]\nretry_cnt = 8\n", 4, "out of range" },
	{ DEV "[qp 1]\nmax_rd_atomic = 129\n", 4, "out of range" },
	{ DEV "[qp 1]\nmac = 02:00:00:00:00:01\n", 4, "unknown key 'mac' in the qp" },
	{ DEV "\n[qp 1]\ntype = rc\n", 4, "needs 'dest_qpn'" },
	{ DEV "[qp 1]\ntype=ud\npkey = 0x8000\n", 3, "low 15 bits" },
	{ DEV "[mr 3]\npa = 0\nlen = 1\n", 3, "required key 'rkey'" },
	{ DEV "[mr 3]\npa = 0\nlen = 1\nrkey = 0x4a7\n", 3,
	  "rkey 0x000004a7 must carry the MR index" },
	{ DEV "[mr 3]\npa = 0\nlen = 1\nrkey = 0x3a7\nlkey = 0x1\n", 3,
	  "lkey 0x00000001" },
	{ DEV "[mr 3]\npa = 0\nlen = 0\nrkey = 0x3a7\n", 3, "len must not be 0" },
	{ DEV "[mr 3]\npa = 0\nlen = 1\nrkey = 0x3a7\naccess = remote_write\n",
	  3, "need local_write" },
	{ DEV "[mr 3]\npa = 0\nlen = 17179869184T\n", 5, "out of range" },
	{ DEV "[mr 3]\npa = 0\nlen = 1Q\n", 5, "not a number" },
	{ "ip = 10.0.0.1\n[qp 1]\ntype=ud\n", 3, "device key 'mac' is required" },
	{ DEV "[device]\nmac = 02:00:00:00:00:03\n", 3, "given twice" },
	{ "", 1, "device key 'mac' is required" },
};

static void test_bad_lines(void **state)
{
	struct roce_config *c = new_cfg();
	char err[256], want[32];

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad *b = &bad_cases[i];

		err[0] = '\0';
		assert_int_not_equal(parse(c, b->text, err, sizeof(err)), ROCE_OK);
		snprintf(want, sizeof(want), "t.conf:%u: ", b->line);
		if (strncmp(err, want, strlen(want)) != 0 ||
		    !strstr(err, b->needle))
			fail_msg("case %zu: got \"%s\", want \"%s...%s\"", i, err,
				 want, b->needle);
	}
	free(c);
}

/* A QP whose peer is IPv6: peer_gid fills QP_DGID_0..2 and QP_PEER_IP, the
 * GRH keys their registers; power-on writes them and verify reads them
 * back; peer_gid with peer_ip, a bad GID and a long flow label are refused
 * at their line. */
static void test_ipv6_qp(void **state)
{
	struct roce_config *c = new_cfg();
	char err[256] = "";
	uint8_t g[16];
	const char *text = DEV
		"[qp 17]\n"
		"dest_qpn = 0x12\n"
		"peer_mac = 02:00:00:00:00:02\n"
		"peer_gid = fd91::12\n"
		"sgid_index = 2\n"
		"tclass = 0x68\n"
		"flow_label = 0xabcde\n"
		"hop_limit = 3\n";
	struct roce_device *dev;
	struct roce_bus bus;
	struct roce_drv drv;
	unsigned ndiff = 99;

	(void)state;
	assert_int_equal(parse(c, text, err, sizeof(err)), ROCE_OK);
	assert_int_equal(c->n_qp, 1);
	assert_true(roce_qp_dgid_ipv6(&c->qp[0]));
	roce_qp_dgid(&c->qp[0], g);
	assert_int_equal(g[0], 0xfd);
	assert_int_equal(g[1], 0x91);
	assert_int_equal(g[15], 0x12);
	assert_int_equal(c->qp[0].dgid_hi[0], 0xfd910000u);
	assert_int_equal(c->qp[0].peer_ip, 0x12);
	assert_int_equal(c->qp[0].sgid_index, 2);
	assert_int_equal(c->qp[0].tclass, 0x68);
	assert_int_equal(c->qp[0].flow_label, 0xABCDE);
	assert_int_equal(c->qp[0].hop_limit, 3);
	/* through the register file and back */
	assert_int_equal(roce_device_create(&(struct roce_device_config){ 0 }, &dev), ROCE_OK);
	assert_int_equal(roce_bus_open_local(&bus, dev), ROCE_OK);
	roce_drv_init(&drv, &bus);
	c->link_timeout_ms = 2000;
	assert_int_equal(roce_drv_power_on(&drv, c), ROCE_OK);
	assert_int_equal(roce_drv_verify(&drv, c, NULL, NULL, &ndiff), ROCE_OK);
	assert_int_equal(ndiff, 0);
	c->qp[0].flow_label = 0x12345;          /* the device holds another */
	assert_int_equal(roce_drv_verify(&drv, c, NULL, NULL, &ndiff), ROCE_E_MISMATCH);
	assert_int_equal(ndiff, 1);
	roce_bus_close(&bus);
	roce_device_destroy(dev);
	/* an IPv4 peer written as its GID is the same context as peer_ip */
	assert_int_equal(parse(c, DEV "[qp 17]\ndest_qpn = 1\npeer_mac = 02:00:00:00:00:02\n"
			       "peer_gid = ::ffff:10.0.0.2\n", err, sizeof(err)), ROCE_OK);
	assert_false(roce_qp_dgid_ipv6(&c->qp[0]));
	assert_int_equal(c->qp[0].peer_ip, 0x0A000002u);
	assert_int_not_equal(parse(c, DEV "[qp 17]\ndest_qpn = 1\npeer_ip = 10.0.0.2\n"
				   "peer_gid = fd91::2\n", err, sizeof(err)), ROCE_OK);
	assert_non_null(strstr(err, "'peer_ip' or 'peer_gid'"));
	assert_int_not_equal(parse(c, DEV "[qp 17]\npeer_gid = fd91::zz\n", err,
				   sizeof(err)), ROCE_OK);
	assert_non_null(strstr(err, "t.conf:4: "));
	assert_non_null(strstr(err, "bad GID 'fd91::zz'"));
	assert_int_not_equal(parse(c, DEV "[qp 17]\nflow_label = 0x100000\n", err,
				   sizeof(err)), ROCE_OK);
	assert_non_null(strstr(err, "t.conf:4: "));
	free(c);
}

/* qp_count: the device's QP count, 18..16384, and the [qp N] sections below
 * it wherever the key stands; each error exactly as a person reads it. */
static void test_qp_count_key(void **state)
{
	static const struct {
		const char *text;
		const char *err;
	} bad[] = {
		{ DEV "qp_count = 16385\n",
		  "t.conf:3: qp_count: 16385 out of range (18..16384)" },
		{ DEV "qp_count = 0\n",
		  "t.conf:3: qp_count: 0 out of range (18..16384)" },
		{ DEV "qp_count = 17\n",
		  "t.conf:3: qp_count: 17 out of range (18..16384)" },
		{ DEV "qp_count = many\n", "t.conf:3: qp_count: 'many' is not a number" },
		{ DEV "qp_count = 64\n[qp 64]\ntype = ud\n",
		  "t.conf:4: [qp 64] beyond the device's QPs (qp_count = 64: 0..63)" },
		{ "[qp 100]\ntype = ud\n[device]\n" DEV "qp_count = 64\n",
		  "t.conf:6: qp_count = 64 leaves out [qp 100] above (QPNs 0..63)" },
	};
	struct roce_config *c = new_cfg();
	char err[256];

	(void)state;
	assert_int_equal(parse(c, DEV "[qp 63]\ntype = ud\n", err, sizeof(err)),
			 ROCE_OK);
	assert_int_equal(c->qp_count, 0);	/* not stated */
	assert_int_equal(parse(c, DEV "qp_count = 64\n[qp 63]\ntype = ud\n", err,
			       sizeof(err)), ROCE_OK);
	assert_int_equal(c->qp_count, 64);
	assert_int_equal(parse(c, "[qp 63]\ntype = ud\n[device]\n" DEV
			       "qp_count = 0x40\n", err, sizeof(err)), ROCE_OK);
	assert_int_equal(c->qp_count, 64);
	assert_int_equal(parse(c, DEV "qp_count = 18\n[qp 17]\ntype = ud\n", err,
			       sizeof(err)), ROCE_OK);
	assert_int_equal(c->qp_count, 18);
	assert_int_equal(parse(c, DEV "qp_count = 16384\n[qp 16383]\ntype = ud\n",
			       err, sizeof(err)), ROCE_OK);
	assert_int_equal(c->qp_count, 16384);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_not_equal(parse(c, bad[i].text, err, sizeof(err)),
				     ROCE_OK);
		if (strcmp(err, bad[i].err) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err,
				 bad[i].err);
	}
	free(c);
}

static void test_limits(void **state)
{
	struct roce_config *c = new_cfg();
	size_t cap = 64 * (ROCE_CFG_MAX_QP + 2) + ROCE_CFG_MAX_LINE + 64;
	char *text = malloc(cap), err[256];
	size_t n;

	(void)state;
	assert_non_null(text);
	/* one line too long */
	n = (size_t)snprintf(text, cap, DEV "# ");
	memset(text + n, 'x', ROCE_CFG_MAX_LINE);
	text[n + ROCE_CFG_MAX_LINE] = '\0';
	assert_int_equal(parse(c, text, err, sizeof(err)), ROCE_E_FORMAT);
	assert_non_null(strstr(err, "t.conf:3: line longer"));
	/* a NUL byte inside a line */
	assert_int_equal(roce_config_parse(DEV "ip\0= 1\n", sizeof(DEV) + 6,
					   "t.conf", c, err, sizeof(err)),
			 ROCE_E_FORMAT);
	assert_non_null(strstr(err, "t.conf:3: NUL"));
	/* more sections than the config holds */
	n = (size_t)snprintf(text, cap, DEV);
	for (unsigned i = 0; i <= ROCE_CFG_MAX_QP; i++)
		n += (size_t)snprintf(text + n, cap - n, "[qp %u]\ntype = ud\n", i);
	assert_int_equal(parse(c, text, err, sizeof(err)), ROCE_E_FULL);
	assert_non_null(strstr(err, "more than"));
	free(text);
	free(c);
}

static void test_formats(void **state)
{
	uint8_t mac[6];
	uint32_t ip;
	uint64_t v;
	char buf[80];

	(void)state;
	assert_int_equal(roce_parse_mac("AA:bb:0c:00:01:ff", mac), ROCE_OK);
	roce_format_mac(mac, buf);
	assert_string_equal(buf, "aa:bb:0c:00:01:ff");
	assert_int_equal(roce_mac_high(mac), 0xAABB);
	assert_int_equal(roce_mac_low(mac), 0x0C0001FF);
	assert_int_equal(roce_parse_mac("aa:bb:cc:dd:ee:ff:00", mac),
			 ROCE_E_FORMAT);
	assert_int_equal(roce_parse_ipv4("192.168.1.2", &ip), ROCE_OK);
	assert_int_equal(ip, 0xC0A80102);
	roce_format_ipv4(ip, buf);
	assert_string_equal(buf, "192.168.1.2");
	assert_int_equal(roce_parse_ipv4("1.2.3.4.5", &ip), ROCE_E_FORMAT);
	assert_int_equal(roce_parse_ipv4("1..3.4", &ip), ROCE_E_FORMAT);
	assert_int_equal(roce_parse_ipv4("0001.2.3.4", &ip), ROCE_E_FORMAT);
	assert_int_equal(roce_parse_u64("4G", true, &v), ROCE_OK);
	assert_int_equal(v, 4ull << 30);
	assert_int_equal(roce_parse_u64("4G", false, &v), ROCE_E_FORMAT);
	assert_int_equal(roce_parse_u64("", false, &v), ROCE_E_FORMAT);
	assert_int_equal(roce_parse_u64("99999999999999999999", false, &v),
			 ROCE_E_RANGE);
	roce_format_access(ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_LOCAL_WRITE,
			   buf, sizeof(buf));
	assert_string_equal(buf, "local_write,remote_read");
	roce_format_access(0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_device_section),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_qp_count_key),
		cmocka_unit_test(test_ipv6_qp),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
