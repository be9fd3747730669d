/* SPDX-License-Identifier: MIT */
/*
 * The switched fabric (src/fabric/fabric.c) with hand-made frames and
 * times computed by hand: a frame's serialisation and propagation on both
 * links; two senders into one port (the output queue holds one frame
 * while the other is sent); tail drop at the buffer's limit; RED marking
 * of ECT packets only, with the IPv4 checksum still right; PFC pausing
 * the ingress instead of dropping, counted, then resuming, by each
 * ingress's share (a light sender is not paused) and with XOFF no more
 * than the buffer's free space; the NIC queue's
 * backpressure; the same seed giving the same marks; bad configurations;
 * a switch of ROCE_FABRIC_MAX_PORTS ports routing between its far ports
 * at the same times as two ports do, and one port more refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "roce/fabric.h"
#include "roce/status.h"

static const uint8_t mac[4][6] = {
	{ 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 }, { 2, 0, 0, 0, 0, 3 }, { 2, 0, 0, 0, 0, 4 },
};

/* An IPv4 frame of len bytes to port `to` with this TOS (valid header
   checksum; the rest is filler: the fabric reads Ethernet and IP only). */
static void frame(uint8_t *b, uint32_t len, unsigned to, uint8_t tos)
{
	uint32_t sum = 0;

	memset(b, 0xA5, len);
	memcpy(b, mac[to], 6);
	memcpy(b + 6, mac[0], 6);
	b[12] = 0x08;
	b[13] = 0x00;
	memset(b + 14, 0, 20);
	b[14] = 0x45;
	b[15] = tos;
	b[16] = (uint8_t)((len - 14) >> 8);
	b[17] = (uint8_t)(len - 14);
	b[22] = 64;
	b[23] = 17;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(b[14 + i] << 8 | b[15 + i]);
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	b[24] = (uint8_t)(~sum >> 8);
	b[25] = (uint8_t)~sum;
}

static bool ipv4_sum_ok(const uint8_t *b)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(b[14 + i] << 8 | b[15 + i]);
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return sum == 0xFFFF;
}

struct net {
	struct roce_fabric *f;
	struct roce_port p[4];
};

static void net_open(struct net *n, struct roce_fabric_config *c)
{
	assert_int_equal(roce_fabric_create(c, &n->f), ROCE_OK);
	for (unsigned i = 0; i < c->ports; i++)
		assert_int_equal(roce_fabric_attach(n->f, i, mac[i], &n->p[i]), ROCE_OK);
}

static unsigned send(struct net *n, unsigned from, unsigned to, uint32_t len, uint8_t tos,
		     unsigned count)
{
	uint8_t b[2048];
	struct roce_frame fr = { b, len };
	unsigned sent = 0;

	frame(b, len, to, tos);
	for (unsigned i = 0; i < count; i++)
		sent += roce_port_tx(&n->p[from], &fr, 1);
	return sent;
}

/* Frames waiting at port i's host; checks each with check (may be NULL). */
static unsigned take(struct net *n, unsigned i, bool (*check)(const uint8_t *))
{
	struct roce_frame fr[64];
	unsigned k, total = 0;

	while ((k = roce_port_rx(&n->p[i], fr, 64)) > 0) {
		for (unsigned j = 0; j < k; j++)
			if (check)
				assert_true(check(fr[j].data));
		roce_port_rx_release(&n->p[i], k);
		total += k;
	}
	return total;
}

/* 1000 bytes + 24 on the wire at 100 Gbit/s: 81.92 ns; 1 us per link */
static void test_timing(void **state)
{
	struct roce_fabric_config c;
	struct net n;

	(void)state;
	roce_fabric_config_default(&c, 2);
	net_open(&n, &c);
	assert_int_equal(send(&n, 0, 1, 1000, 0, 1), 1);
	roce_fabric_advance(n.f, 2163);
	assert_int_equal(take(&n, 1, NULL), 0);         /* 2163.84 ns: not yet */
	roce_fabric_advance(n.f, 2164);
	assert_int_equal(roce_fabric_now(n.f), 2164);
	assert_int_equal(take(&n, 1, ipv4_sum_ok), 1);
	assert_int_equal(roce_fabric_bytes(n.f, 1, 0), 1000);
	roce_fabric_destroy(n.f);
}

/* Two hosts send a frame each to the third at the same time: the second
   waits in the output queue one serialisation time. */
static void test_contention(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric_stats s;
	struct net n;

	(void)state;
	roce_fabric_config_default(&c, 3);
	net_open(&n, &c);
	send(&n, 0, 2, 1000, 0, 1);
	send(&n, 1, 2, 1000, 0, 1);
	roce_fabric_advance(n.f, 1082);                 /* both arrived (1081.92) */
	roce_fabric_stats(n.f, 2, &s);
	assert_int_equal(s.queue_bytes, 1000);          /* one queued, one on the wire */
	assert_int_equal(s.queue_max_bytes, 2000);
	roce_fabric_advance(n.f, 2164);
	assert_int_equal(take(&n, 2, NULL), 1);
	roce_fabric_advance(n.f, 2245);                 /* + 81.92 */
	assert_int_equal(take(&n, 2, NULL), 0);
	roce_fabric_advance(n.f, 2246);
	assert_int_equal(take(&n, 2, NULL), 1);
	roce_fabric_destroy(n.f);
}

static void test_drop(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric_stats s;
	struct net n;

	(void)state;
	roce_fabric_config_default(&c, 3);
	c.buffer_bytes = 5000;                          /* 5 frames of 1000 */
	net_open(&n, &c);
	/* two senders at line rate into one port: the queue grows a frame
	   per two frame times, then overflows */
	for (unsigned t = 1; t <= 100; t++) {
		send(&n, 0, 2, 1000, 0, 1);
		send(&n, 1, 2, 1000, 0, 1);
		roce_fabric_advance(n.f, t * 82);
	}
	roce_fabric_advance(n.f, 100000);
	roce_fabric_stats(n.f, 2, &s);
	assert_true(s.drops > 0);
	assert_true(s.queue_max_bytes <= 5000);
	assert_int_equal(take(&n, 2, NULL) + s.drops, 200);
	assert_int_equal(s.marks, 0);                   /* Not-ECT: never marked */
	roce_fabric_destroy(n.f);
}

static bool ce_and_sum_ok(const uint8_t *b)
{
	return (b[15] & 3) == 3 && ipv4_sum_ok(b);
}

static void test_marking(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric_stats s;
	struct net n;

	(void)state;
	roce_fabric_config_default(&c, 2);
	c.kmin_bytes = c.kmax_bytes = 0;                /* mark everything ECT */
	net_open(&n, &c);
	send(&n, 0, 1, 1000, 0x02, 5);                  /* ECT(0) */
	send(&n, 0, 1, 1000, 0xC1, 5);                  /* DSCP 48, ECT(1) */
	roce_fabric_advance(n.f, 100000);
	assert_int_equal(take(&n, 1, ce_and_sum_ok), 10);
	send(&n, 0, 1, 1000, 0x00, 3);                  /* Not-ECT */
	roce_fabric_advance(n.f, 200000);
	assert_int_equal(take(&n, 1, ipv4_sum_ok), 3);
	roce_fabric_stats(n.f, 1, &s);
	assert_int_equal(s.marks, 10);
	roce_fabric_destroy(n.f);
}

/* RED between Kmin and Kmax: the same seed marks the same packets. */
static uint64_t red_run(uint64_t seed)
{
	struct roce_fabric_config c;
	struct roce_fabric_stats s;
	struct net n;

	roce_fabric_config_default(&c, 3);
	c.kmin_bytes = 2000;
	c.kmax_bytes = 40000;
	c.pmax_ppm = 500000;
	c.seed = seed;
	net_open(&n, &c);
	for (unsigned t = 1; t <= 100; t++) {
		send(&n, 0, 2, 1000, 2, 1);
		send(&n, 1, 2, 1000, 2, 1);
		roce_fabric_advance(n.f, t * 82);
	}
	roce_fabric_advance(n.f, 100000);
	take(&n, 2, NULL);
	roce_fabric_stats(n.f, 2, &s);
	roce_fabric_destroy(n.f);
	return s.marks;
}

static void test_red_seeded(void **state)
{
	uint64_t a = red_run(7), b = red_run(7);

	(void)state;
	assert_int_equal(a, b);
	/* some, not all: below Kmin none, between Kmin and Kmax at random */
	assert_in_range(a, 1, 199);
}

static void test_pfc(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric_stats s0, s2;
	struct net n;
	unsigned got;

	(void)state;
	roce_fabric_config_default(&c, 3);
	c.pfc = true;
	c.buffer_bytes = 5000;                          /* not enforced: lossless */
	c.pfc_xoff_bytes = 3000;
	c.pfc_xon_bytes = 1000;
	net_open(&n, &c);
	for (unsigned t = 1; t <= 100; t++) {
		send(&n, 0, 2, 1000, 0, 1);
		send(&n, 1, 2, 1000, 0, 1);
		roce_fabric_advance(n.f, t * 82);
	}
	roce_fabric_stats(n.f, 0, &s0);
	assert_true(s0.pause_frames > 0);
	roce_fabric_advance(n.f, 1000000);
	got = take(&n, 2, NULL);
	roce_fabric_stats(n.f, 2, &s2);
	roce_fabric_stats(n.f, 0, &s0);
	assert_int_equal(s2.drops, 0);
	assert_false(s0.paused);                        /* resumed once drained */
	/* what the NIC queues refused came back to the senders, nothing was lost */
	assert_int_equal(got, roce_fabric_bytes(n.f, 2, 0) / 1000 + roce_fabric_bytes(n.f, 2, 1) / 1000);
	assert_true(got > 100);
	roce_fabric_destroy(n.f);
}

/* PFC counts each ingress's share: sender 0 at line rate and sender 1 at
   a quarter of it into port 2 fill the queue four parts to one, and only
   sender 0 goes past XOFF; sender 1 is never paused. */
static void test_pfc_ingress_share(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric_stats s0, s1, s2;
	struct net n;

	(void)state;
	roce_fabric_config_default(&c, 3);
	c.pfc = true;
	c.buffer_bytes = 1 << 20;
	c.pfc_xoff_bytes = 8000;
	c.pfc_xon_bytes = 4000;
	net_open(&n, &c);
	for (unsigned t = 1; t <= 400; t++) {
		send(&n, 0, 2, 1000, 0, 1);
		if (t % 4 == 0)
			send(&n, 1, 2, 1000, 0, 1);
		roce_fabric_advance(n.f, t * 82);
		take(&n, 2, NULL);
	}
	roce_fabric_stats(n.f, 0, &s0);
	roce_fabric_stats(n.f, 1, &s1);
	roce_fabric_stats(n.f, 2, &s2);
	assert_true(s0.pause_frames > 0);
	assert_int_equal(s1.pause_frames, 0);
	assert_int_equal(s2.drops, 0);
	/* the queue stays near XOFF + sender 1's part: no more than 8000 + 2 x 2000
	   and the frames on the wire when sender 0 stopped */
	assert_true(s2.queue_max_bytes < 16000);
	roce_fabric_destroy(n.f);
}

/* A static XOFF above what the buffer holds: XOFF falls to the buffer's
   free space, so two equal senders are both paused before the buffer is
   full, and resumed once drained. */
static void test_pfc_dynamic_xoff(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric_stats s0, s1, s2;
	struct net n;
	unsigned got = 0;

	(void)state;
	roce_fabric_config_default(&c, 3);             /* XOFF 256 KB, XON 128 KB */
	c.pfc = true;
	c.buffer_bytes = 12000;
	net_open(&n, &c);
	for (unsigned t = 1; t <= 200; t++) {
		send(&n, 0, 2, 1000, 0, 1);
		send(&n, 1, 2, 1000, 0, 1);
		roce_fabric_advance(n.f, t * 82);
		got += take(&n, 2, NULL);
	}
	roce_fabric_stats(n.f, 0, &s0);
	roce_fabric_stats(n.f, 1, &s1);
	assert_true(s0.pause_frames > 0);
	assert_true(s1.pause_frames > 0);
	roce_fabric_advance(n.f, 1000000);
	got += take(&n, 2, NULL);
	roce_fabric_stats(n.f, 0, &s0);
	roce_fabric_stats(n.f, 2, &s2);
	assert_false(s0.paused);
	assert_int_equal(s2.drops, 0);
	/* each share at most its XOFF (half the buffer once the two are even)
	   plus what was on the wire: the queue did not reach 256 KB */
	assert_true(s2.queue_max_bytes < 2 * c.buffer_bytes);
	assert_int_equal(got, roce_fabric_bytes(n.f, 2, 0) / 1000 + roce_fabric_bytes(n.f, 2, 1) / 1000);
	roce_fabric_destroy(n.f);
}

static void test_nic_backpressure(void **state)
{
	struct roce_fabric_config c;
	struct net n;

	(void)state;
	roce_fabric_config_default(&c, 2);
	c.nic_queue_bytes = 4500;
	net_open(&n, &c);
	assert_int_equal(send(&n, 0, 1, 1000, 0, 10), 4);       /* 4 fit */
	/* by 82 ns one frame is sent and the next on the wire: two places */
	roce_fabric_advance(n.f, 82);
	assert_int_equal(send(&n, 0, 1, 1000, 0, 10), 2);
	roce_fabric_destroy(n.f);
}

static void test_bad_config(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric *f;
	struct roce_port p;

	(void)state;
	roce_fabric_config_default(&c, 1);
	assert_string_equal(roce_fabric_config_check(&c), "ports");
	assert_int_equal(roce_fabric_create(&c, &f), ROCE_E_INVAL);
	roce_fabric_config_default(&c, 2);
	c.kmin_bytes = c.kmax_bytes + 1;
	assert_string_equal(roce_fabric_config_check(&c), "kmin_bytes");
	roce_fabric_config_default(&c, 2);
	c.pmax_ppm = 1000001;
	assert_string_equal(roce_fabric_config_check(&c), "pmax_ppm");
	roce_fabric_config_default(&c, 2);
	assert_int_equal(roce_fabric_create(&c, &f), ROCE_OK);
	assert_int_equal(roce_fabric_attach(f, 2, mac[0], &p), ROCE_E_INVAL);
	assert_int_equal(roce_fabric_attach(f, 0, mac[0], &p), ROCE_OK);
	assert_int_equal(roce_fabric_attach(f, 1, mac[0], &p), ROCE_E_INVAL);   /* MAC twice */
	roce_fabric_destroy(f);
}

/* 1024 ports: a frame from the last port to port 700 takes what it takes
   on two ports (serialised twice, two links' propagation); 1025 refused */
static void test_many_ports(void **state)
{
	struct roce_fabric_config c;
	struct roce_fabric *f;
	static struct roce_port p[ROCE_FABRIC_MAX_PORTS];
	uint8_t m[6] = { 2, 0, 0, 0, 0, 0 }, b[2048];
	struct roce_frame fr = { b, 1000 }, got[4];
	unsigned last = ROCE_FABRIC_MAX_PORTS - 1;

	(void)state;
	roce_fabric_config_default(&c, ROCE_FABRIC_MAX_PORTS + 1);
	assert_string_equal(roce_fabric_config_check(&c), "ports");
	roce_fabric_config_default(&c, ROCE_FABRIC_MAX_PORTS);
	assert_int_equal(roce_fabric_create(&c, &f), ROCE_OK);
	for (unsigned i = 0; i <= last; i++) {
		m[4] = (uint8_t)(i >> 8);
		m[5] = (uint8_t)i;
		assert_int_equal(roce_fabric_attach(f, i, m, &p[i]), ROCE_OK);
	}
	frame(b, 1000, 0, 0);
	b[4] = 700 >> 8;                        /* to port 700's MAC */
	b[5] = 700 & 0xFF;
	assert_int_equal(roce_port_tx(&p[last], &fr, 1), 1);
	roce_fabric_advance(f, 2163);
	assert_int_equal(roce_port_rx(&p[700], got, 4), 0);
	roce_fabric_advance(f, 2164);           /* 2 x 81.92 ns + 2 x 1 us */
	assert_int_equal(roce_port_rx(&p[700], got, 4), 1);
	roce_port_rx_release(&p[700], 1);
	assert_int_equal(roce_fabric_bytes(f, 700, last), 1000);
	roce_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_contention),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_marking),
		cmocka_unit_test(test_red_seeded),
		cmocka_unit_test(test_pfc),
		cmocka_unit_test(test_pfc_ingress_share),
		cmocka_unit_test(test_pfc_dynamic_xoff),
		cmocka_unit_test(test_nic_backpressure),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_many_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
