/* SPDX-License-Identifier: MIT */
/*
 * In-memory link: configuration checks, switching by MAC, lending and
 * release, ring overflow, delay and held frames with an injected clock,
 * pcap capture, and threads (labelled "tsan": scripts/test --tsan runs it
 * under ThreadSanitizer). Fault rates and corruption: test_memlink_fault.c.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/pcap.h"
#include "roce/status.h"
#include "unit/memlink_test.h"

static struct roce_memlink *mk_link(const struct roce_memlink_config *cfg)
{
	struct roce_memlink *l = NULL;

	assert_int_equal(roce_memlink_create(cfg, &l), ROCE_OK);
	assert_non_null(l);
	return l;
}

static void attach(struct roce_memlink *l, const uint8_t *mac, struct roce_port *p)
{
	assert_int_equal(roce_memlink_attach(l, mac, p), ROCE_OK);
	assert_memory_equal(p->mac, mac, 6);
}

/* ---- configuration ------------------------------------------------------ */

static void test_create_rejects(void **state)
{
	struct roce_memlink_config c = { 0 };
	struct roce_memlink *l = NULL;
	static const double bad[] = { -0.01, 1.01, NAN, INFINITY };

	(void)state;
	assert_int_equal(roce_memlink_create(NULL, &l), ROCE_E_INVAL);
	assert_int_equal(roce_memlink_create(&c, NULL), ROCE_E_INVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = (struct roce_memlink_config){ .loss = bad[i] };
		assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
		c = (struct roce_memlink_config){ .reorder = bad[i] };
		assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
		c = (struct roce_memlink_config){ .duplicate = bad[i] };
		assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
		c = (struct roce_memlink_config){ .corrupt = bad[i] };
		assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
	}
	c = (struct roce_memlink_config){ .ring_frames = 1000 };
	assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_INVAL);
	c.ring_frames = 1;
	assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
	c.ring_frames = ROCE_MEMLINK_RING_MAX * 2;
	assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
	c = (struct roce_memlink_config){ .max_frame = ROCE_MEMLINK_MIN_FRAME - 1 };
	assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
	c.max_frame = ROCE_MEMLINK_MAX_FRAME + 1;
	assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
	/* 65536 slots of 64 KB: over the per-port memory bound */
	c = (struct roce_memlink_config){ .ring_frames = ROCE_MEMLINK_RING_MAX,
					  .max_frame = ROCE_MEMLINK_MAX_FRAME };
	assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_RANGE);
	c = (struct roce_memlink_config){ .pcap_path = "/nonexistent-dir/x.pcap" };
	assert_int_equal(roce_memlink_create(&c, &l), ROCE_E_IO);
	assert_null(l);
	roce_memlink_destroy(NULL);
}

static void test_attach_rejects(void **state)
{
	struct roce_memlink_config c = { .ring_frames = 2, .max_frame = 64 };
	struct roce_memlink *l = mk_link(&c);
	struct roce_port p;
	uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0 };

	(void)state;
	assert_int_equal(roce_memlink_attach(NULL, mac, &p), ROCE_E_INVAL);
	assert_int_equal(roce_memlink_attach(l, NULL, &p), ROCE_E_INVAL);
	assert_int_equal(roce_memlink_attach(l, mac, NULL), ROCE_E_INVAL);
	assert_int_equal(roce_memlink_attach(l, mac_bcast, &p), ROCE_E_INVAL);
	mac[0] = 0x01;          /* multicast */
	assert_int_equal(roce_memlink_attach(l, mac, &p), ROCE_E_INVAL);
	mac[0] = 0x02;
	for (unsigned i = 0; i < ROCE_MEMLINK_MAX_PORTS; i++) {
		mac[5] = (uint8_t)i;
		assert_int_equal(roce_memlink_attach(l, mac, &p), ROCE_OK);
	}
	mac[5] = 0;
	assert_int_equal(roce_memlink_attach(l, mac, &p), ROCE_E_EXISTS);
	mac[4] = 1;
	assert_int_equal(roce_memlink_attach(l, mac, &p), ROCE_E_FULL);
	assert_int_equal(roce_memlink_set_faults(NULL, 0, 0, 0, 0), ROCE_E_INVAL);
	assert_int_equal(roce_memlink_set_faults(l, 0, 0, 0, 1.5), ROCE_E_RANGE);
	assert_int_equal(roce_memlink_set_faults(l, NAN, 0, 0, 0), ROCE_E_RANGE);
	assert_int_equal(roce_memlink_flush_capture(l), ROCE_OK);
	assert_int_equal(roce_memlink_flush_capture(NULL), ROCE_E_INVAL);
	roce_memlink_destroy(l);
}

/* ---- switching ------------------------------------------------------------ */

static void test_switching(void **state)
{
	struct roce_memlink_config c = { 0 };
	struct roce_memlink *l = mk_link(&c);
	struct roce_memlink_stats st;
	struct roce_port a, b, d;
	struct roce_frame f[4];
	uint8_t buf[256], other[6] = { 0x02, 9, 9, 9, 9, 9 };
	uint8_t mcast[6] = { 0x01, 0x00, 0x5E, 0, 0, 1 };
	uint32_t seqs[8];

	(void)state;
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	attach(l, mac_c, &d);

	/* unicast: exact bytes to the destination only */
	assert_int_equal(send1(&a, buf, mk_frame(buf, mac_b, mac_a, 1, 200)), 1);
	assert_int_equal(roce_port_rx(&b, f, 4), 1);
	assert_int_equal(f[0].len, 200);
	assert_memory_equal(f[0].data, buf, 200);
	roce_port_rx_release(&b, 1);
	assert_int_equal(roce_port_rx(&a, f, 4), 0);
	assert_int_equal(roce_port_rx(&d, f, 4), 0);

	/* broadcast and multicast: every other port, never the sender */
	send1(&a, buf, mk_frame(buf, mac_bcast, mac_a, 2, 60));
	send1(&a, buf, mk_frame(buf, mcast, mac_a, 3, 60));
	assert_int_equal(drain(&b, seqs, 8), 2);
	assert_int_equal(seqs[0], 2);
	assert_int_equal(seqs[1], 3);
	assert_int_equal(drain(&d, seqs, 8), 2);
	assert_int_equal(drain(&a, seqs, 8), 0);

	/* unknown unicast and frames back to the sender: dropped, counted */
	send1(&a, buf, mk_frame(buf, other, mac_a, 4, 60));
	send1(&a, buf, mk_frame(buf, mac_a, mac_a, 5, 60));
	/* bad lengths: taken, dropped, counted */
	assert_int_equal(send1(&a, buf, 10), 1);
	f[0] = (struct roce_frame){ buf, ROCE_MAX_FRAME + 1 };
	assert_int_equal(roce_port_tx(&a, f, 1), 1);
	assert_int_equal(drain(&b, seqs, 8) + drain(&d, seqs, 8) +
			 drain(&a, seqs, 8), 0);

	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.sent, 7);
	assert_int_equal(st.delivered, 5);
	assert_int_equal(st.no_route, 2);
	assert_int_equal(st.bad_len, 2);
	assert_int_equal(st.lost + st.duplicated + st.reordered + st.corrupted +
			 st.ring_full, 0);
	roce_memlink_destroy(l);
}

/* ---- lending, release, overflow ------------------------------------------- */

static void test_lend_release(void **state)
{
	struct roce_memlink_config c = { .ring_frames = 16, .max_frame = 128 };
	struct roce_memlink *l = mk_link(&c);
	struct roce_port a, b;
	struct roce_frame tx[10], rx[16];
	static uint8_t bufs[10][128];
	uint32_t next = 0;

	(void)state;
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	/* many laps of the ring: lend in order, release in pieces */
	for (unsigned lap = 0; lap < 100; lap++) {
		for (unsigned i = 0; i < 10; i++) {
			uint32_t len = 60 + (lap + i) % 60;

			tx[i] = (struct roce_frame){ bufs[i], len };
			mk_frame(bufs[i], mac_b, mac_a, lap * 10 + i, len);
		}
		assert_int_equal(roce_port_tx(&a, tx, 10), 10);
		assert_int_equal(roce_port_rx(&b, rx, 4), 4);
		/* lent but not released: the next call lends what follows */
		assert_int_equal(roce_port_rx(&b, rx + 4, 16), 6);
		for (unsigned i = 0; i < 10; i++) {
			assert_int_equal(frame_seq(rx[i].data), next++);
			assert_int_equal(rx[i].len, tx[i].len);
			assert_memory_equal(rx[i].data, bufs[i], tx[i].len);
		}
		roce_port_rx_release(&b, 3);
		roce_port_rx_release(&b, 7);
		assert_int_equal(roce_port_rx(&b, rx, 16), 0);
	}
	/* releasing more than was lent is clamped, not a corruption */
	roce_port_rx_release(&b, 5);
	send1(&a, bufs[0], mk_frame(bufs[0], mac_b, mac_a, 77, 64));
	assert_int_equal(roce_port_rx(&b, rx, 16), 1);
	assert_int_equal(frame_seq(rx[0].data), 77);
	roce_port_rx_release(&b, 1);
	roce_memlink_destroy(l);
}

static void test_ring_full(void **state)
{
	struct roce_memlink_config c = { .ring_frames = 8, .max_frame = 64 };
	struct roce_memlink *l = mk_link(&c);
	struct roce_memlink_stats st;
	struct roce_port a, b;
	struct roce_frame rx[8];
	uint8_t buf[64], keep[8][64];

	(void)state;
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	for (uint32_t i = 0; i < 20; i++)
		assert_int_equal(send1(&a, buf, mk_frame(buf, mac_b, mac_a, i, 64)), 1);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.delivered, 8);
	assert_int_equal(st.ring_full, 12);
	/* the first 8 are kept intact, lent, and stay intact while lent */
	assert_int_equal(roce_port_rx(&b, rx, 8), 8);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(frame_seq(rx[i].data), i);
		memcpy(keep[i], rx[i].data, 64);
	}
	for (uint32_t i = 100; i < 110; i++)
		send1(&a, buf, mk_frame(buf, mac_b, mac_a, i, 64));
	for (unsigned i = 0; i < 8; i++)
		assert_memory_equal(rx[i].data, keep[i], 64);
	/* three slots back: exactly three more fit */
	roce_port_rx_release(&b, 3);
	for (uint32_t i = 200; i < 205; i++)
		send1(&a, buf, mk_frame(buf, mac_b, mac_a, i, 64));
	for (unsigned i = 3; i < 8; i++)
		assert_memory_equal(rx[i].data, keep[i], 64);
	roce_port_rx_release(&b, 5);
	assert_int_equal(roce_port_rx(&b, rx, 8), 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(frame_seq(rx[i].data), 200 + i);
	roce_port_rx_release(&b, 3);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.sent, 35);
	assert_int_equal(st.delivered, 11);
	assert_int_equal(st.ring_full, 24);
	roce_memlink_destroy(l);
}

/* Lossless (PFC-like): a full ring pauses the sender instead of dropping;
 * what was refused goes through, in order, once the receiver drained. */
static void test_lossless_pauses(void **state)
{
	struct roce_memlink_config c = { .ring_frames = 16, .max_frame = 64, .lossless = true };
	struct roce_memlink *l = mk_link(&c);
	struct roce_memlink_stats st;
	struct roce_port a, b;
	struct roce_frame tx[40], rx[16];
	static uint8_t bufs[40][64];
	uint32_t next = 0, got = 0;
	unsigned took;

	(void)state;
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	for (uint32_t i = 0; i < 40; i++) {
		tx[i].data = bufs[i];
		tx[i].len = mk_frame(bufs[i], mac_b, mac_a, i, 64);
	}
	/* room for 16 minus the reserve for a duplicate and held frames */
	took = roce_port_tx(&a, tx, 40);
	assert_true(took > 0 && took < 16);
	next = took;
	for (int round = 0; round < 100 && got < 40; round++) {
		unsigned n = roce_port_rx(&b, rx, 16);

		for (unsigned i = 0; i < n; i++, got++)
			assert_int_equal(frame_seq(rx[i].data), got);
		roce_port_rx_release(&b, n);
		if (next < 40)
			next += roce_port_tx(&a, tx + next, 40 - next);
	}
	assert_int_equal(got, 40);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.ring_full, 0);
	assert_int_equal(st.sent, 40);
	assert_true(st.paused > 0);
	roce_memlink_destroy(l);
}

/* ---- zero-copy transmit ---------------------------------------------------- */

/* One frame built in the buffer tx_get lends; true when one was lent. */
static bool zc_send(struct roce_port *p, const uint8_t *dst, uint32_t seq, uint32_t len)
{
	uint8_t *f = roce_port_tx_get(p, dst, len);

	if (!f)
		return false;
	mk_frame(f, dst, p->mac, seq, len);
	roce_port_tx_put(p);
	return true;
}

/* Frames built in the receiver's ring arrive intact and in order with the
 * copied ones; the link refuses to lend where a copy must be made (faults,
 * delay, capture), where the frame would not be delivered (broadcast, own
 * or unknown MAC, bad length) and when the ring is full. */
static void test_zero_copy(void **state)
{
	static const uint8_t mac_x[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	struct roce_memlink_config c = { .ring_frames = 8, .max_frame = 128 };
	struct roce_memlink *l = mk_link(&c);
	struct roce_memlink_stats st;
	struct roce_port a, b;
	struct roce_frame rx[8];
	uint8_t buf[128], want[128];

	(void)state;
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	/* copied and built in place, interleaved: order kept */
	for (uint32_t i = 0; i < 6; i++) {
		if (i % 2)
			assert_true(zc_send(&a, mac_b, i, 100));
		else
			assert_int_equal(send1(&a, buf, mk_frame(buf, mac_b, mac_a, i, 100)), 1);
	}
	assert_int_equal(roce_port_rx(&b, rx, 8), 6);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(rx[i].len, 100);
		mk_frame(want, mac_b, mac_a, i, 100);
		assert_memory_equal(rx[i].data, want, 100);
	}
	roce_port_rx_release(&b, 6);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.sent, 6);
	assert_int_equal(st.delivered, 6);
	assert_int_equal(st.zero_copy, 3);

	/* frames the link would not deliver as they are */
	assert_null(roce_port_tx_get(&a, mac_b, 129));
	assert_null(roce_port_tx_get(&a, mac_b, 13));
	assert_null(roce_port_tx_get(&a, mac_bcast, 64));
	assert_null(roce_port_tx_get(&a, mac_a, 64));
	assert_null(roce_port_tx_get(&a, mac_x, 64));
	assert_int_equal(roce_memlink_set_faults(l, 0, 0, 0.5, 0), ROCE_OK);
	assert_null(roce_port_tx_get(&a, mac_b, 64));
	assert_int_equal(roce_memlink_set_faults(l, 0, 0, 0, 0), ROCE_OK);
	/* a full ring lends nothing; a slot given back lends again */
	for (uint32_t i = 0; i < 8; i++)
		assert_true(zc_send(&a, mac_b, 100 + i, 64));
	assert_null(roce_port_tx_get(&a, mac_b, 64));
	assert_int_equal(roce_port_rx(&b, rx, 8), 8);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(frame_seq(rx[i].data), 100 + i);
	roce_port_rx_release(&b, 1);
	assert_true(zc_send(&a, mac_b, 200, 64));
	roce_port_rx_release(&b, 7);
	assert_int_equal(roce_port_rx(&b, rx, 8), 1);
	assert_int_equal(frame_seq(rx[0].data), 200);
	roce_port_rx_release(&b, 1);
	roce_memlink_destroy(l);

	/* a delay acts on a copy: nothing lent */
	c = (struct roce_memlink_config){ .delay_ns = 1000 };
	l = mk_link(&c);
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	assert_null(roce_port_tx_get(&a, mac_b, 64));
	roce_memlink_destroy(l);

	/* lossless: lends while the ring keeps the margin a burst keeps */
	c = (struct roce_memlink_config){ .ring_frames = 16, .max_frame = 64, .lossless = true };
	l = mk_link(&c);
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	for (uint32_t i = 0; i < 16 - 2 - ROCE_MEMLINK_HOLD_SLOTS + 1; i++)
		assert_true(zc_send(&a, mac_b, i, 64));
	assert_null(roce_port_tx_get(&a, mac_b, 64));
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.ring_full, 0);
	roce_memlink_destroy(l);
}

/* ---- delay and held frames (injected clock) ------------------------------- */

static void test_delay(void **state)
{
	struct fake_clock clk = { 1000 };
	struct roce_memlink_config c = { .delay_ns = 500, .now_ns = fake_now,
					 .clock_ctx = &clk };
	struct roce_memlink *l = mk_link(&c);
	struct roce_port a, b;
	uint8_t buf[64];
	uint32_t seqs[8];

	(void)state;
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	send1(&a, buf, mk_frame(buf, mac_b, mac_a, 1, 64));   /* due 1500 */
	fake_set(&clk, 1200);
	send1(&a, buf, mk_frame(buf, mac_b, mac_a, 2, 64));   /* due 1700 */
	assert_int_equal(drain(&b, seqs, 8), 0);
	fake_set(&clk, 1499);
	assert_int_equal(drain(&b, seqs, 8), 0);
	fake_set(&clk, 1500);
	assert_int_equal(drain(&b, seqs, 8), 1);
	assert_int_equal(seqs[0], 1);
	fake_set(&clk, 1699);
	assert_int_equal(drain(&b, seqs, 8), 0);
	fake_set(&clk, 1700);
	assert_int_equal(drain(&b, seqs, 8), 1);
	assert_int_equal(seqs[0], 2);
	roce_memlink_destroy(l);
}

static void test_held_frame_expires(void **state)
{
	struct fake_clock clk = { 0 };
	struct roce_memlink_config c = { .reorder = 1.0, .reorder_hold_ns = 5000,
					 .delay_ns = 100, .now_ns = fake_now,
					 .clock_ctx = &clk };
	struct roce_memlink *l = mk_link(&c);
	struct roce_memlink_stats st;
	struct roce_port a, b, d;
	struct roce_frame rx[4];
	uint8_t buf[64], sent[64];
	uint32_t seqs[8];

	(void)state;
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	attach(l, mac_c, &d);
	/* held; nothing else is sent to b, and a never polls again */
	send1(&a, sent, mk_frame(sent, mac_b, mac_a, 1, 64));
	/* a frame to another port does not release it */
	send1(&a, buf, mk_frame(buf, mac_c, mac_a, 9, 64));
	fake_set(&clk, 4999);
	assert_int_equal(drain(&b, seqs, 8), 0);
	/* b's own poll collects it once the hold expired, then the delay */
	fake_set(&clk, 5000);
	assert_int_equal(drain(&b, seqs, 8), 0);
	fake_set(&clk, 5100);
	assert_int_equal(roce_port_rx(&b, rx, 4), 1);
	assert_memory_equal(rx[0].data, sent, 64);
	roce_port_rx_release(&b, 1);
	assert_int_equal(drain(&b, seqs, 8), 0);
	/* the frame to d was held too: collected by d's poll at 5100 */
	assert_int_equal(drain(&d, seqs, 8), 0);
	fake_set(&clk, 5200);
	assert_int_equal(drain(&d, seqs, 8), 1);
	assert_int_equal(seqs[0], 9);

	/* a held frame follows the next frame to the same port */
	send1(&a, buf, mk_frame(buf, mac_b, mac_a, 2, 64));
	send1(&a, buf, mk_frame(buf, mac_b, mac_a, 3, 64));
	assert_int_equal(drain(&b, seqs, 8), 0);
	fake_set(&clk, 5300);
	assert_int_equal(drain(&b, seqs, 8), 2);
	assert_int_equal(seqs[0], 3);
	assert_int_equal(seqs[1], 2);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.reordered, 3);
	assert_int_equal(st.delivered, 4);
	roce_memlink_destroy(l);
}

/* ---- capture ---------------------------------------------------------------- */

static void test_pcap_capture(void **state)
{
	char dir[] = "/tmp/memlink-pcap-XXXXXX", path[64];
	struct roce_memlink_config c = { .loss = 1.0 };
	struct roce_pcap_reader *r = NULL;
	struct roce_pcap_rec rec;
	struct roce_memlink *l;
	struct roce_memlink_stats st;
	struct roce_port a, b;
	uint8_t buf[32][300];
	struct roce_frame f[32];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cap.pcap", dir);
	c.pcap_path = path;
	l = mk_link(&c);
	attach(l, mac_a, &a);
	attach(l, mac_b, &b);
	/* every frame lost, yet captured as sent */
	for (uint32_t i = 0; i < 32; i++)
		f[i] = (struct roce_frame){ buf[i],
					    mk_frame(buf[i], i % 2 ? mac_a : mac_b,
						     i % 2 ? mac_b : mac_a, i, 60 + i * 7) };
	assert_int_equal(roce_port_tx(&a, f, 16), 16);
	assert_int_equal(roce_port_tx(&b, f + 16, 16), 16);
	assert_int_equal(roce_memlink_flush_capture(l), ROCE_OK);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.delivered, 0);
	roce_memlink_destroy(l);

	assert_int_equal(roce_pcap_open_read(path, &r, NULL, 0), ROCE_OK);
	assert_int_equal(roce_pcap_linktype(r), 1);     /* DLT_EN10MB */
	for (unsigned i = 0; i < 32; i++) {
		assert_int_equal(roce_pcap_next(r, &rec), ROCE_OK);
		assert_int_equal(rec.caplen, f[i].len);
		assert_int_equal(rec.wirelen, f[i].len);
		assert_memory_equal(rec.data, buf[i], f[i].len);
	}
	assert_int_equal(roce_pcap_next(r, &rec), ROCE_E_EMPTY);
	roce_pcap_close_read(r);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* ---- threads ---------------------------------------------------------------- */

#define THR_FRAMES 20000u
#define THR_RING 64u
#define THR_SECS 60

/* Each thread owns one port; they send to each other with sequence numbers
 * and a window (sent - peer's received <= ring) so no frame meets a full
 * ring, and check that every frame arrives once, in order. */
struct peer {
	struct roce_port port;
	const uint8_t *dst;
	_Atomic uint32_t received;
	struct peer *other;
	unsigned senders;       /* frames expected from how many ports */
	uint32_t count;         /* frames each sender sends */
	int bad;                /* first failure, 0 = none */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *pingpong(void *arg)
{
	struct peer *p = arg;
	uint8_t buf[16][128];
	struct roce_frame f[16];
	uint32_t sent = 0, expect = 0;
	double deadline = mono_s() + THR_SECS;

	while ((sent < p->count || expect < p->count) && !p->bad) {
		uint32_t peer_rx = atomic_load(&p->other->received);
		unsigned n = 0, m;

		while (n < 16 && sent < p->count && sent - peer_rx < THR_RING) {
			f[n] = (struct roce_frame){ buf[n],
				mk_frame(buf[n], p->dst, p->port.mac, sent, 64 + sent % 64) };
			n++;
			sent++;
		}
		if (n && roce_port_tx(&p->port, f, n) != n)
			p->bad = 1;
		m = roce_port_rx(&p->port, f, 16);
		for (unsigned i = 0; i < m; i++) {
			uint8_t want[128];

			mk_frame(want, p->port.mac, p->dst, expect, 64 + expect % 64);
			if (f[i].len != 64 + expect % 64 ||
			    memcmp(f[i].data, want, f[i].len))
				p->bad = 2;
			expect++;
		}
		roce_port_rx_release(&p->port, m);
		atomic_store(&p->received, expect);
		if (mono_s() > deadline)
			p->bad = 3;
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	struct roce_memlink_config c = { .ring_frames = THR_RING, .max_frame = 128 };
	struct roce_memlink *l = mk_link(&c);
	struct roce_memlink_stats st;
	static struct peer pa, pb;
	pthread_t ta, tb;

	(void)state;
	attach(l, mac_a, &pa.port);
	attach(l, mac_b, &pb.port);
	pa = (struct peer){ .port = pa.port, .dst = mac_b, .other = &pb,
			    .count = THR_FRAMES };
	pb = (struct peer){ .port = pb.port, .dst = mac_a, .other = &pa,
			    .count = THR_FRAMES };
	assert_int_equal(pthread_create(&ta, NULL, pingpong, &pa), 0);
	assert_int_equal(pthread_create(&tb, NULL, pingpong, &pb), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	assert_int_equal(pa.bad, 0);
	assert_int_equal(pb.bad, 0);
	assert_int_equal(atomic_load(&pa.received), THR_FRAMES);
	assert_int_equal(atomic_load(&pb.received), THR_FRAMES);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.sent, 2 * THR_FRAMES);
	assert_int_equal(st.delivered, 2 * THR_FRAMES);
	assert_int_equal(st.ring_full, 0);
	roce_memlink_destroy(l);
}

/* Three senders into one receiver (the ring's many-producer side), with
 * reordering on and a real clock, so senders releasing held frames race
 * the receiver collecting expired ones. Every frame arrives exactly once. */
#define MP_SENDERS 3u
#define MP_FRAMES 20000u

struct mp_sender {
	struct roce_port port;
	_Atomic uint32_t *acked;        /* the receiver's count of our frames */
	int bad;
};

static void *mp_send(void *arg)
{
	struct mp_sender *s = arg;
	uint8_t buf[8][64];
	struct roce_frame f[8], rx[8];
	uint32_t sent = 0;
	double deadline = mono_s() + THR_SECS;

	while (sent < MP_FRAMES && !s->bad) {
		uint32_t acked = atomic_load(s->acked);
		unsigned n = 0, m;

		while (n < 8 && sent < MP_FRAMES &&
		       sent - acked < THR_RING / MP_SENDERS - 2) {
			f[n] = (struct roce_frame){ buf[n],
				mk_frame(buf[n], mac_a, s->port.mac, sent, 64) };
			n++;
			sent++;
		}
		if (n && roce_port_tx(&s->port, f, n) != n)
			s->bad = 1;
		/* a port's own polls also release its held frames */
		m = roce_port_rx(&s->port, rx, 8);
		roce_port_rx_release(&s->port, m);
		if (m)
			s->bad = 2;
		if (mono_s() > deadline)
			s->bad = 3;
	}
	return NULL;
}

static void test_many_senders(void **state)
{
	struct roce_memlink_config c = { .ring_frames = THR_RING, .max_frame = 64,
					 .reorder = 0.3, .reorder_hold_ns = 2000 };
	struct roce_memlink *l = mk_link(&c);
	struct roce_memlink_stats st;
	static struct mp_sender s[MP_SENDERS];
	static _Atomic uint32_t acked[MP_SENDERS];
	static uint8_t seen[MP_SENDERS][MP_FRAMES];
	pthread_t t[MP_SENDERS];
	struct roce_port r;
	uint32_t total = 0;
	double deadline = mono_s() + THR_SECS;

	(void)state;
	attach(l, mac_a, &r);
	for (unsigned i = 0; i < MP_SENDERS; i++) {
		uint8_t mac[6] = { 0x02, 1, 0, 0, 0, (uint8_t)i };

		attach(l, mac, &s[i].port);
		s[i].acked = &acked[i];
		atomic_store(&acked[i], 0);
	}
	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < MP_SENDERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, mp_send, &s[i]), 0);
	while (total < MP_SENDERS * MP_FRAMES && mono_s() < deadline) {
		struct roce_frame f[16];
		unsigned n = roce_port_rx(&r, f, 16), who[16];

		for (unsigned i = 0; i < n; i++) {
			uint32_t seq = frame_seq(f[i].data);

			who[i] = f[i].data[11];
			assert_true(who[i] < MP_SENDERS && seq < MP_FRAMES);
			assert_int_equal(seen[who[i]][seq], 0);
			seen[who[i]][seq] = 1;
		}
		/* acknowledged only once the slots are back: the window
		 * then bounds what sits in the ring */
		roce_port_rx_release(&r, n);
		for (unsigned i = 0; i < n; i++)
			atomic_fetch_add(&acked[who[i]], 1);
		total += n;
	}
	for (unsigned i = 0; i < MP_SENDERS; i++)
		pthread_join(t[i], NULL);
	for (unsigned i = 0; i < MP_SENDERS; i++) {
		assert_int_equal(s[i].bad, 0);
		assert_int_equal(atomic_load(&acked[i]), MP_FRAMES);
	}
	assert_int_equal(total, MP_SENDERS * MP_FRAMES);
	roce_memlink_get_stats(l, &st);
	assert_int_equal(st.delivered, MP_SENDERS * MP_FRAMES);
	assert_int_equal(st.ring_full + st.lost, 0);
	assert_true(st.reordered > 0);
	roce_memlink_destroy(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_rejects),
		cmocka_unit_test(test_attach_rejects),
		cmocka_unit_test(test_switching),
		cmocka_unit_test(test_lend_release),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_lossless_pauses),
		cmocka_unit_test(test_zero_copy),
		cmocka_unit_test(test_delay),
		cmocka_unit_test(test_held_frame_expires),
		cmocka_unit_test(test_pcap_capture),
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_many_senders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
